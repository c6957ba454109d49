/* The public dotnet-counters reader: open, detect CSV or JSON by content,
 * hand out samples, keep the first error sticky. Messages and the sample
 * built from a row live a layer below, in sample.c (csv.c and json.c use
 * them too). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "counters/counters_private.h"

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
        return pp_counters_fail(r, err, PP_EIO, 0, 0, pp_cstream_offset(&r->in), "read error: %s",
                                strerror(errno));
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
    return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column, pp_cstream_offset(&r->in),
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
reader_start(pp_counters_reader *r, const pp_counters_hooks *hooks, pp_counters_reader **out,
             pp_error *err)
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
pp_counters_open(const char *path, const pp_counters_hooks *hooks, pp_counters_reader **out,
                 pp_error *err)
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
                        const pp_counters_hooks *hooks, pp_counters_reader **out, pp_error *err)
{
    pp_counters_reader *r;
    int rc = reader_new(name, hooks, &r, err);

    if (rc != PP_OK)
        return rc;
    pp_cstream_init_memory(&r->in, data, size);
    return reader_start(r, hooks, out, err);
}

/* Flag rows a whole capture never has: a timestamp before the previous
 * row's (rows spliced in, repeated after time moved on, or time-reversed).
 * Identical rows within one timestamp are not flagged: dotnet-counters
 * writes them itself (two snapshots in one second, tests/data/
 * leak-counters.csv lines 2-6 and 17-21). The first is a warning with its
 * place; the total is said at the end. */
static void
check_row(pp_counters_reader *r, const pp_counter_sample *s)
{
    if (r->samples > 1 && s->time_ns < r->last_time_ns && r->backwards++ == 0)
        pp_counters_warn(r, PP_EFORMAT,
                         "a row's time goes back %.3f s (rows spliced in, repeated or "
                         "reordered): the series may be wrong",
                         (double)(r->last_time_ns - s->time_ns) / 1e9);
    if (s->time_ns > r->last_time_ns || r->samples <= 1)
        r->last_time_ns = s->time_ns;
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
    rc = r->format == PP_COUNTERS_FORMAT_JSON ? pp_counters_json_next(r, out, err) :
                                                pp_counters_csv_next(r, out, err);
    if (rc == 1)
        check_row(r, out);
    if (rc == 0 && r->backwards > 1)
        pp_counters_warn(r, PP_EFORMAT, "in all %llu rows go back in time",
                         (unsigned long long)r->backwards);
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
