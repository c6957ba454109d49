/* The function table plugins call. Every entry checks what it is given:
 * a plugin that breaks a rule gets an error code, and the stage is marked
 * failed after its callback returns (ctx->violation), so one bad plugin
 * cannot take the run or the other stages' results with it. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "host.h"
#include <perfpipe/nettrace.h>
#include "pipeline/options.h"
#include "result/result.h"

static void
violate(pp_ctx *ctx, const char *fmt, ...) PP_PRINTF(2, 3);

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

    if (ctx == NULL || name == NULL || ctx->knobs == NULL)
        return NULL;
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
    if (name == NULL || columns == NULL || ncolumns == 0 || nkey > ncolumns) {
        violate(ctx, "table_new('%s'): needs a name, at least one column and nkey <= ncolumns",
                name ? name : "(null)");
        return NULL;
    }
    ctx->tables.owner = ctx;
    t = pp_result_table_new(&ctx->tables, ctx->stage, name, ncolumns, columns, nkey, &e);
    if (t == NULL)
        violate(ctx, "table_new: %s", e.message);
    return t;
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
    if (rc != PP_OK)
        violate(ctx, "table_row: %s", pp_result_table_error(t));
    return rc;
}

static int
host_finding(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    if (ctx == NULL || code == NULL || fmt == NULL || severity > PP_SEVERITY_ERROR) {
        violate(ctx, "finding: needs a severity 0..2, a code and a message");
        return PP_EINVAL;
    }
    if (!ctx->finishing) {
        violate(ctx, "finding('%s') called outside finish()", code);
        return PP_EINVAL;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pp_result_finding(ctx->stage, severity, code, msg);
}

static int
host_total_int(pp_ctx *ctx, const char *name, uint32_t type, int64_t value)
{
    if (ctx == NULL || name == NULL || !ctx->finishing) {
        violate(ctx, "total_int called outside finish() or without a name");
        return PP_EINVAL;
    }
    return pp_result_total_int(ctx->stage, name, type, value);
}

static int
host_total_double(pp_ctx *ctx, const char *name, uint32_t type, double value)
{
    if (ctx == NULL || name == NULL || !ctx->finishing) {
        violate(ctx, "total_double called outside finish() or without a name");
        return PP_EINVAL;
    }
    return pp_result_total_double(ctx->stage, name, type, value);
}

static int
host_total_string(pp_ctx *ctx, const char *name, const char *value)
{
    if (ctx == NULL || name == NULL || value == NULL || !ctx->finishing) {
        violate(ctx, "total_string called outside finish() or without a name/value");
        return PP_EINVAL;
    }
    return pp_result_total_string(ctx->stage, name, value);
}

static const pp_host_api host_api = {
    .struct_size = sizeof(pp_host_api),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = PP_ABI_MINOR,
    .host_features = 0,
    .log = host_log,
    .error_set = host_error_set,
    .opt_bool = pp_options_bool,
    .opt_int = pp_options_int,
    .opt_double = pp_options_double,
    .opt_string = pp_options_string,
    .opt_list_count = pp_options_list_count,
    .opt_list_item = pp_options_list_item,
    .knob = host_knob,
    .table_new = host_table_new,
    .table_row = host_table_row,
    .finding = host_finding,
    .total_int = host_total_int,
    .total_double = host_total_double,
    .total_string = host_total_string,
    .trace_field = pp_nettrace_field,
    .trace_symbolize = pp_nettrace_symbolize,
    .trace_info = pp_nettrace_info,
};

const pp_host_api *
pp_host_api_get(void)
{
    return &host_api;
}
