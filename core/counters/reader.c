/* The public dotnet-counters reader: open, detect CSV or JSON by content,
 * hand out samples, keep the first error sticky. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "counters/counters_private.h"

void
pp_counters_warn(pp_counters_reader *r, int32_t code, const char *fmt, ...)
{
    pp_error w = PP_ERROR_INIT;
    char msg[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    if (r->on_warning == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pp_error_set_at(&w, code, pp_cstream_offset(&r->in), "%s: %s", r->name, msg);
    w.line = r->in.line;
    w.column = r->in.column;
    r->on_warning(r->user, &w);
}

int
pp_counters_fail(pp_counters_reader *r, pp_error *err, int32_t code,
                 uint32_t line, uint32_t column, int64_t offset,
                 const char *fmt, ...)
{
    char msg[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pp_error_clear(&r->saved);
    if (line > 0)
        pp_error_set_at(&r->saved, code, offset, "%s:%u:%u: %s", r->name,
                        (unsigned)line, (unsigned)column, msg);
    else
        pp_error_set_at(&r->saved, code, offset, "%s: %s", r->name, msg);
    r->saved.line = line;
    r->saved.column = column;
    r->status = code;
    if (err != NULL) {
        uint32_t size = err->struct_size;
        *err = r->saved;
        if (size != 0 && size < sizeof *err)
            err->struct_size = size;
    }
    return code;
}

static uint32_t
counter_type_of(const char *ctype)
{
    if (strcmp(ctype, "Metric") == 0 || strcmp(ctype, "Mean") == 0)
        return PP_COUNTER_GAUGE;
    if (strcmp(ctype, "Rate") == 0 || strcmp(ctype, "Sum") == 0 ||
        strcmp(ctype, "Increment") == 0)
        return PP_COUNTER_RATE;
    return 0;
}

int
pp_counters_make_sample(pp_counters_reader *r, const char *timestamp,
                        const char *provider, char *display,
                        const char *const *tag_sources, const char *tag_seps,
                        size_t ntag_sources, const char *ctype,
                        double value, int from_json,
                        pp_counter_sample *out, char *msg, size_t msgsize)
{
    const char *sources[8];
    char seps[8];
    pp_counter_name cn;
    int64_t unix_ns;
    size_t bad_at = 0;
    uint32_t type;
    int rc;

    (void)from_json;
    if (pp_counters_parse_time(timestamp, &r->date_order, &unix_ns, &bad_at) != PP_OK) {
        snprintf(msg, msgsize, "expected a timestamp such as \"11/29/2026 15:22:16\" or "
                 "\"2026-11-29T15:22:21.2193116+00:00\", got \"%.60s\" (bad at character %zu)",
                 timestamp, bad_at + 1);
        return PP_EFORMAT;
    }
    type = counter_type_of(ctype);
    if (type == 0) {
        snprintf(msg, msgsize, "expected counter type \"Metric\" or \"Rate\", got \"%.40s\"", ctype);
        return PP_EFORMAT;
    }
    pp_counters_split_name(display, provider, &cn);
    if (cn.name[0] == '\0') {
        snprintf(msg, msgsize, "empty counter name");
        return PP_EFORMAT;
    }
    if (ntag_sources > 7)
        ntag_sources = 7;
    sources[0] = cn.raw_tags;
    seps[0] = ';';
    for (size_t i = 0; i < ntag_sources; i++) {
        sources[i + 1] = tag_sources[i];
        seps[i + 1] = tag_seps[i];
    }
    rc = pp_counters_canon_tags(&r->tags, sources, seps, ntag_sources + 1);
    if (rc != PP_OK) {
        snprintf(msg, msgsize, "tags too long");
        return rc;
    }
    if (!r->have_t0) {
        r->have_t0 = 1;
        r->t0_unix_ns = unix_ns;
    }
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->counter_type = type;
    out->time_ns = unix_ns - r->t0_unix_ns;
    out->provider = provider;
    out->name = cn.name;
    out->tags = pp_ctext_str(&r->tags);
    out->unit = cn.unit;
    out->quantity = pp_counters_quantity(provider, cn.name, out->tags);
    out->value = value * cn.scale;
    out->interval_s = type == PP_COUNTER_RATE ? cn.interval_s : 0;
    r->samples++;
    return PP_OK;
}

static int
detect_and_start(pp_counters_reader *r, pp_error *err)
{
    int c = pp_cstream_peek(&r->in);

    /* UTF-8 byte order mark (Windows tools) */
    if (c == 0xEF) {
        pp_cstream_get(&r->in);
        if (pp_cstream_get(&r->in) != 0xBB || pp_cstream_get(&r->in) != 0xBF)
            return pp_counters_fail(r, err, PP_EFORMAT, 1, 1, 0,
                                    "not a dotnet-counters capture: bad byte order mark");
        r->in.column = 1;
        c = pp_cstream_peek(&r->in);
    }
    while (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        pp_cstream_get(&r->in);
        c = pp_cstream_peek(&r->in);
    }
    if (c == -2)
        return pp_counters_fail(r, err, PP_EIO, 0, 0, pp_cstream_offset(&r->in),
                                "read error: %s", strerror(errno));
    if (c == '{') {
        r->format = PP_COUNTERS_FORMAT_JSON;
        return pp_counters_json_header(r, err);
    }
    if (c == 'T') {
        r->format = PP_COUNTERS_FORMAT_CSV;
        return pp_counters_csv_header(r, err);
    }
    if (c == -1)
        return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column,
                                pp_cstream_offset(&r->in),
                                "empty file: expected a dotnet-counters CSV header or JSON object");
    return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column,
                            pp_cstream_offset(&r->in),
                            "not a dotnet-counters capture: expected the CSV header "
                            "\"Timestamp,Provider,Counter Name,Counter Type,Mean/Increment\" "
                            "or a JSON object '{'");
}

static int
reader_new(const char *name, const pp_counters_hooks *hooks, pp_counters_reader **out,
           pp_error *err)
{
    pp_counters_reader *r = calloc(1, sizeof *r);

    if (r == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    r->name = strdup(name != NULL ? name : "<memory>");
    r->c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (r->name == NULL || r->c_locale == (locale_t)0) {
        if (r->c_locale != (locale_t)0)
            freelocale(r->c_locale);
        free(r->name);
        free(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (hooks != NULL && hooks->struct_size >= offsetof(pp_counters_hooks, user) + sizeof(void *)) {
        r->on_warning = hooks->on_warning;
        r->user = hooks->user;
    }
    pp_error_clear(&r->saved);
    *out = r;
    return PP_OK;
}

static int
reader_start(pp_counters_reader *r, const pp_counters_hooks *hooks,
             pp_counters_reader **out, pp_error *err)
{
    int rc;

    if (hooks != NULL && hooks->struct_size >= offsetof(pp_counters_hooks, user) + sizeof(void *)) {
        r->in.on_bytes = hooks->on_bytes;
        r->in.user = hooks->user;
    }
    rc = detect_and_start(r, err);
    if (rc < 0) {
        pp_counters_close(r);
        return rc;
    }
    *out = r;
    return PP_OK;
}

int
pp_counters_open(const char *path, const pp_counters_hooks *hooks,
                 pp_counters_reader **out, pp_error *err)
{
    pp_counters_reader *r;
    FILE *fp;
    int rc;

    fp = fopen(path, "rb");
    if (fp == NULL) {
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    rc = reader_new(path, hooks, &r, err);
    if (rc != PP_OK) {
        fclose(fp);
        return rc;
    }
    if (pp_cstream_init_file(&r->in, fp) != PP_OK) {
        fclose(fp);
        pp_counters_close(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    return reader_start(r, hooks, out, err);
}

int
pp_counters_open_memory(const void *data, size_t size, const char *name,
                        const pp_counters_hooks *hooks,
                        pp_counters_reader **out, pp_error *err)
{
    pp_counters_reader *r;
    int rc = reader_new(name, hooks, &r, err);

    if (rc != PP_OK)
        return rc;
    pp_cstream_init_memory(&r->in, data, size);
    return reader_start(r, hooks, out, err);
}

int
pp_counters_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err)
{
    int rc;

    if (r->status < 0) {
        if (err != NULL) {
            uint32_t size = err->struct_size;
            *err = r->saved;
            if (size != 0 && size < sizeof *err)
                err->struct_size = size;
        }
        return r->status;
    }
    if (r->status == 1)
        return 0;
    rc = r->format == PP_COUNTERS_FORMAT_JSON ? pp_counters_json_next(r, out, err)
                                              : pp_counters_csv_next(r, out, err);
    if (rc == 0) {
        /* Hand the hash whatever follows the last sample. */
        while (pp_cstream_peek(&r->in) >= 0) {
            r->in.pos = r->in.len;
        }
        r->status = 1;
    }
    return rc;
}

uint32_t
pp_counters_format(const pp_counters_reader *r)
{
    return r->format;
}

uint64_t
pp_counters_sample_count(const pp_counters_reader *r)
{
    return r->samples;
}

int
pp_counters_truncated(const pp_counters_reader *r)
{
    return r->truncated;
}

int64_t
pp_counters_start_unix_ns(const pp_counters_reader *r)
{
    return r->have_t0 ? r->t0_unix_ns : 0;
}

const char *
pp_counters_target_process(const pp_counters_reader *r)
{
    return pp_ctext_str(&r->target_process);
}

void
pp_counters_close(pp_counters_reader *r)
{
    if (r == NULL)
        return;
    pp_cstream_release(&r->in);
    pp_ctext_free(&r->line);
    pp_ctext_free(&r->target_process);
    pp_ctext_free(&r->start_time);
    pp_ctext_free(&r->key);
    pp_ctext_free(&r->sval);
    pp_ctext_free(&r->f_time);
    pp_ctext_free(&r->f_provider);
    pp_ctext_free(&r->f_name);
    pp_ctext_free(&r->f_tags);
    pp_ctext_free(&r->f_meter);
    pp_ctext_free(&r->f_instr);
    pp_ctext_free(&r->f_type);
    pp_ctext_free(&r->f_value);
    pp_ctext_free(&r->scratch);
    pp_ctext_free(&r->tags);
    if (r->c_locale != (locale_t)0)
        freelocale(r->c_locale);
    free(r->name);
    free(r);
}
