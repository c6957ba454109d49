/* Below the dotnet-counters reader and its two forms (reader.c, csv.c,
 * json.c all use these): warnings and errors with the stream position, and
 * one sample built from the textual fields of a CSV row or a JSON event. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
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
pp_counters_fail(pp_counters_reader *r, pp_error *err, int32_t code, uint32_t line, uint32_t column,
                 int64_t offset, const char *fmt, ...)
{
    char msg[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pp_error_clear(&r->saved);
    if (line > 0)
        pp_error_set_at(&r->saved, code, offset, "%s:%u:%u: %s", r->name, (unsigned)line,
                        (unsigned)column, msg);
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
    if (strcmp(ctype, "Rate") == 0 || strcmp(ctype, "Sum") == 0 || strcmp(ctype, "Increment") == 0)
        return PP_COUNTER_RATE;
    return 0;
}

int
pp_counters_make_sample(pp_counters_reader *r, const char *timestamp, const char *provider,
                        char *display, const char *const *tag_sources, const char *tag_seps,
                        size_t ntag_sources, const char *ctype, double value, int from_json,
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
        snprintf(msg, msgsize,
                 "expected a timestamp such as \"11/29/2026 15:22:16\" or "
                 "\"2026-11-29T15:22:21.2193116+00:00\", got \"%.60s\" (bad at character %zu)",
                 timestamp, bad_at + 1);
        return PP_EFORMAT;
    }
    type = counter_type_of(ctype);
    if (type == 0) {
        snprintf(msg, msgsize, "expected counter type \"Metric\" or \"Rate\", got \"%.40s\"",
                 ctype);
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
