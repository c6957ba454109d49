/* The function table plugins call. Every entry checks what it is given:
 * a plugin that breaks a rule gets an error code, and the stage is marked
 * failed after its callback returns (ctx->violation), so one bad plugin
 * cannot take the run or the other stages' results with it. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "base/advice.h"
#include "host.h"
#include <perfpipe/nettrace.h>
#include "nettrace/symbols.h"
#include "pipeline/options.h"
#include "result/result.h"

/* No real table comes near; a lying count must not make the host read
 * past the plugin's column array for ever. */
#define PP_HOST_MAX_COLUMNS 1024u

/* Frame names and event fields the host could not make for want of
 * memory, process-wide: the engine reads it around each stage's finish()
 * and the read (these calls have no stage to blame). */
static uint64_t memory_failures;

static void violate(pp_ctx *ctx, const char *fmt, ...) PP_PRINTF(2, 3);

static void
violate(pp_ctx *ctx, const char *fmt, ...)
{
    va_list ap;

    if (ctx == NULL || ctx->violation[0] != '\0')
        return;
    va_start(ap, fmt);
    vsnprintf(ctx->violation, sizeof ctx->violation, fmt, ap);
    va_end(ap);
}

/* A result the host could not record for want of memory fails the stage
 * (engine.c): a plugin that goes on regardless must not leave a document
 * silently missing a total or a finding. */
static int
noted(pp_ctx *ctx, int rc)
{
    if (rc == PP_ENOMEM)
        ctx->oom = 1;
    return rc;
}

static void
host_log(pp_ctx *ctx, int level, const char *fmt, ...)
{
    char msg[1024];
    char line[1100];
    va_list ap;

    if (ctx == NULL || fmt == NULL || ctx->log == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s: %s", ctx->stage_id, msg);
    ctx->log(ctx->log_user, level, line);
}

static void
host_error_set(pp_error *err, int32_t code, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || fmt == NULL)
        return;
    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
}

static const char *
host_knob(pp_ctx *ctx, const char *name)
{
    json_t *v;

    if (ctx == NULL || ctx->knobs == NULL)
        return NULL;
    if (name == NULL) {
        violate(ctx, "knob: argument 2 (name) is NULL");
        return NULL;
    }
    v = json_object_get(ctx->knobs, name);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static pp_table *
host_table_new(pp_ctx *ctx, const char *name, uint32_t ncolumns, const pp_column *columns,
               uint32_t nkey)
{
    pp_error e = PP_ERROR_INIT;
    pp_table *t;

    if (ctx == NULL)
        return NULL;
    if (!ctx->finishing) {
        violate(ctx, "table_new('%s') called outside finish()", name ? name : "(null)");
        return NULL;
    }
    if (name == NULL || columns == NULL) {
        violate(ctx, "table_new: argument %d (%s) is NULL", name == NULL ? 2 : 4,
                name == NULL ? "name" : "columns");
        return NULL;
    }
    if (ncolumns == 0 || ncolumns > PP_HOST_MAX_COLUMNS || nkey > ncolumns) {
        violate(ctx,
                "table_new('%.64s'): argument 3 (ncolumns) is %u and argument 5 (nkey) %u: "
                "needs 1..%u columns and nkey <= ncolumns",
                name, ncolumns, nkey, PP_HOST_MAX_COLUMNS);
        return NULL;
    }
    ctx->tables.owner = ctx;
    t = pp_result_table_new(&ctx->tables, ctx->stage, name, ncolumns, columns, nkey, &e);
    if (t == NULL)
        violate(ctx, "table_new: %s", e.message);
    return t;
}

/* The ABI's rule for NaN and infinity (plugin.h, pp_cell): JSON has no
 * such numbers, so the cell is written as null, and the first one of a
 * stage is a warning finding `result.nonfinite`: a figure the plugin could
 * not compute is never passed off as a number, nor as nothing. */
static int
flag_nonfinite(pp_ctx *ctx, pp_table *t, const pp_cell *cells)
{
    uint32_t n = pp_result_table_columns(t);

    for (uint32_t c = 0; c < n; c++)
        if (cells[c].type == PP_CELL_DOUBLE && !isfinite(cells[c].v.d) && ctx->nonfinite++ == 0)
            return noted(ctx, pp_result_finding(ctx->stage, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT,
                                                "result.nonfinite",
                                                "a table cell was NaN or infinite (written as "
                                                "null): a figure the analyzer could not compute"));
    return PP_OK;
}

/* The ABI's rule for keys (plugin.h, table_new): one row per key. Rows
 * that repeat one are kept as the plugin gave them (merging would invent
 * figures, dropping would lose them) and named, once per table: compare
 * refuses to join such a table (compare.c). */
void
pp_host_after_finish(pp_ctx *ctx, uint64_t failures)
{
    const json_t *t;
    size_t i;

    if (failures > 0) {
        /* A frame named "?!(out of memory)" is not the frame, an event
         * whose field could not be decoded is not a malformed one: the
         * result is not whole. */
        char msg[256];
        const char *status = json_string_value(json_object_get(ctx->stage, "status"));

        snprintf(msg, sizeof msg,
                 "%llu frame name%s or event field%s could not be made for want of memory "
                 "(frames shown as ?!(out of memory)): these results are not whole",
                 (unsigned long long)failures, failures == 1 ? "" : "s", failures == 1 ? "" : "s");
        if (status != NULL && strcmp(status, "ok") == 0 &&
            json_object_set_new(ctx->stage, "status", json_string("partial")) != 0)
            ctx->oom = 1;
        noted(ctx, pp_result_finding(ctx->stage, PP_SEVERITY_WARNING, "result.out_of_memory", msg));
        host_log(ctx, PP_LOG_WARN, "%s", msg); /* a stack format shows no status */
    }

    json_array_foreach(json_object_get(ctx->stage, "tables"), i, t) {
        pp_key_repeats k;
        char msg[512];

        if (pp_result_key_repeats(t, &k) != PP_OK) {
            ctx->oom = 1;
            return;
        }
        if (k.repeats == 0)
            continue;
        snprintf(msg, sizeof msg,
                 "table %.64s: %zu row%s repeat%s the key of an earlier row (first: row %zu, "
                 "key %.200s); kept as given, but its rows cannot be joined by key: compare "
                 "cannot judge this result",
                 json_string_value(json_object_get(t, "name")) ?
                     json_string_value(json_object_get(t, "name")) :
                     "?",
                 k.repeats, k.repeats == 1 ? "" : "s", k.repeats == 1 ? "s" : "", k.first_row,
                 k.first_key);
        free(k.first_key);
        noted(ctx, pp_result_finding(ctx->stage, PP_SEVERITY_WARNING, "result.duplicate_key", msg));
    }
}

/* table_row gets no ctx: the table leads to its stage. A NULL or stale
 * table has no stage to blame; it is refused (and table_new, which gave
 * NULL, already marked the stage). */
static int
host_table_row(pp_table *t, const pp_cell *cells)
{
    pp_ctx *ctx = pp_result_table_owner(t);
    int rc;

    if (ctx == NULL)
        return PP_EINVAL;
    if (!ctx->finishing) {
        violate(ctx, "table_row called outside finish()");
        return PP_EINVAL;
    }
    rc = pp_result_table_row(t, cells, NULL);
    if (rc != PP_OK) {
        violate(ctx, "table_row: %s", pp_result_table_error(t));
        return rc;
    }
    return flag_nonfinite(ctx, t, cells);
}

static int
host_table_hint(pp_table *t, const char *key, const char *value)
{
    pp_ctx *ctx = pp_result_table_owner(t);
    int rc;

    if (ctx == NULL)
        return PP_EINVAL;
    rc = pp_result_table_hint(ctx->stage, t, key, value);
    if (rc == PP_EINVAL)
        violate(ctx, "table_hint('%s'): needs a key and a value", key ? key : "(null)");
    return rc;
}

static int
host_finding(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    uint32_t level = severity & ~PP_FINDING_CAVEAT;

    if (ctx == NULL || code == NULL || fmt == NULL || level > PP_SEVERITY_ERROR) {
        violate(ctx, "finding: argument %s",
                level > PP_SEVERITY_ERROR ?
                    "2 (severity) is not 0..2, or'ed with PP_FINDING_CAVEAT" :
                code == NULL ? "3 (code) is NULL" :
                               "4 (fmt) is NULL");
        return PP_EINVAL;
    }
    if (!ctx->finishing) {
        violate(ctx, "finding('%s') called outside finish()", code);
        return PP_EINVAL;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return noted(ctx, pp_result_finding(ctx->stage, severity, code, msg));
}

static int
host_total_int(pp_ctx *ctx, const char *name, uint32_t type, int64_t value)
{
    if (ctx == NULL || name == NULL || !ctx->finishing) {
        violate(ctx, "total_int called outside finish() or without a name");
        return PP_EINVAL;
    }
    return noted(ctx, pp_result_total_int(ctx->stage, name, type, value));
}

static int
host_total_double(pp_ctx *ctx, const char *name, uint32_t type, double value)
{
    if (ctx == NULL || name == NULL || !ctx->finishing) {
        violate(ctx, "total_double called outside finish() or without a name");
        return PP_EINVAL;
    }
    return noted(ctx, pp_result_total_double(ctx->stage, name, type, value));
}

static int
host_total_string(pp_ctx *ctx, const char *name, const char *value)
{
    if (ctx == NULL || name == NULL || value == NULL || !ctx->finishing) {
        violate(ctx, "total_string called outside finish() or without a name/value");
        return PP_EINVAL;
    }
    return noted(ctx, pp_result_total_string(ctx->stage, name, value));
}

/* The functions that get no ctx cannot mark a stage; they refuse a NULL
 * argument with PP_EINVAL instead of crashing in the plugin's stead. */
#define OPT_WRAPPER(fn, type)                                                                      \
    static int host_##fn(const pp_options *o, const char *name, type *out)                         \
    {                                                                                              \
        if (o == NULL || name == NULL || out == NULL)                                              \
            return PP_EINVAL;                                                                      \
        return pp_options_##fn(o, name, out);                                                      \
    }
OPT_WRAPPER(bool, int)
OPT_WRAPPER(int, int64_t)
OPT_WRAPPER(double, double)
OPT_WRAPPER(string, const char *)
OPT_WRAPPER(list_count, uint32_t)

static int
host_list_item(const pp_options *o, const char *name, uint32_t index, const char **out)
{
    if (o == NULL || name == NULL || out == NULL)
        return PP_EINVAL;
    return pp_options_list_item(o, name, index, out);
}

static int
host_trace_field(const pp_trace_event *ev, const char *name, pp_value *out)
{
    int rc;

    if (ev == NULL || name == NULL || out == NULL)
        return PP_EINVAL;
    if ((rc = pp_nettrace_field(ev, name, out)) == PP_ENOMEM)
        __atomic_add_fetch(&memory_failures, 1, __ATOMIC_RELAXED);
    return rc;
}

uint64_t
pp_host_memory_failures(void)
{
    return __atomic_load_n(&memory_failures, __ATOMIC_RELAXED);
}

static const char *
host_trace_symbolize(const pp_trace_source *src, uint64_t ip, uint32_t flags)
{
    const char *s;

    if (src == NULL)
        return "?";
    s = pp_nettrace_symbolize(src, ip, flags);
    if (s == nt_symbol_oom)
        __atomic_add_fetch(&memory_failures, 1, __ATOMIC_RELAXED);
    return s;
}

static int
host_trace_info(const pp_trace_source *src, pp_trace_info *out)
{
    if (src == NULL || out == NULL)
        return PP_EINVAL;
    return pp_nettrace_info(src, out);
}

static int
host_capture_advice(pp_ctx *ctx, uint32_t how, const char *args, char *buf, uint32_t size)
{
    if (buf == NULL || size == 0 || how > PP_CAPTURE_STOP)
        return PP_EINVAL;
    pp_advice_capture(ctx != NULL && ctx->perfpipe_took, how, args, buf, size);
    return PP_OK;
}

static const pp_host_api host_api = {
    .struct_size = sizeof(pp_host_api),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = PP_ABI_MINOR,
    .host_features = PP_HOST_SYM_MODULE | PP_HOST_SYM_SOURCE,
    .log = host_log,
    .error_set = host_error_set,
    .opt_bool = host_bool,
    .opt_int = host_int,
    .opt_double = host_double,
    .opt_string = host_string,
    .opt_list_count = host_list_count,
    .opt_list_item = host_list_item,
    .knob = host_knob,
    .table_new = host_table_new,
    .table_row = host_table_row,
    .finding = host_finding,
    .total_int = host_total_int,
    .total_double = host_total_double,
    .total_string = host_total_string,
    .trace_field = host_trace_field,
    .trace_symbolize = host_trace_symbolize,
    .trace_info = host_trace_info,
    .table_hint = host_table_hint,
    .capture_advice = host_capture_advice,
};

const pp_host_api *
pp_host_api_get(void)
{
    return &host_api;
}
