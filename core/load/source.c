/* The engine's view of a load-test result (core/input/source.h): one
 * PP_KIND_LOAD record for the whole run, then one per URL, scenario or tag;
 * the whole file is shown to the content hash once, as it is read; the run's
 * facts become the input's "load" object in the result document (the unit
 * of work compare and candidates use: WORK-CONTRACT item 2). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "input/source.h"
#include "base/textfile.h"
#include "load/load.h"
#include "load/kind.h"

static int
load_open_buffer(char *buf, size_t len, const char *path, void **reader, pp_error *err)
{
    pp_load_reader *r = NULL;
    int rc = pp_load_open_buffer(buf, len, path, &r, err);

    *reader = r;
    return rc;
}

static int
load_next(void *reader, pp_record *rec, pp_error *err)
{
    const pp_load_result *x;
    int rc = pp_load_next(reader, &x, err);

    if (rc == 1)
        rec->u.load = x;
    return rc;
}

static const pp_error *
load_warning(const void *reader)
{
    return pp_load_warning(reader);
}

static void
load_close(void *reader)
{
    pp_load_close(reader);
}

static const pp_text_reader load_reader = {
    PP_KIND_LOAD, pp_load_read_file, load_open_buffer, load_next, load_warning, load_close,
};

static int
load_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    return pp_text_source_open(&load_reader, path, hooks, src, err);
}

static json_t *
int_or_null(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *
real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The knobs the run was made with: compare refuses two runs whose knobs
 * differ (a result is only relative to its load). Unknown knobs are left
 * out, so only what both tools printed is checked. */
static json_t *
knobs_of(const pp_load_result *x)
{
    json_t *k = json_object();

    if (k == NULL)
        return NULL;
    if (x->connections >= 0)
        json_object_set_new(k, "connections", json_integer(x->connections));
    if (x->threads >= 0)
        json_object_set_new(k, "threads", json_integer(x->threads));
    if (x->target_requests >= 0)
        json_object_set_new(k, "requests", json_integer(x->target_requests));
    if (x->target_duration_ns >= 0)
        json_object_set_new(k, "duration_ns", json_integer(x->target_duration_ns));
    if (isfinite(x->rate_per_s))
        json_object_set_new(k, "rate_per_s", json_real(x->rate_per_s));
    if (x->url[0] != '\0')
        json_object_set_new(k, "url", json_string(x->url));
    if (x->method[0] != '\0')
        json_object_set_new(k, "method", json_string(x->method));
    return k;
}

static int
load_describe(void *p, json_t *into)
{
    const pp_load_reader *r = pp_text_source_reader(p);
    const pp_load_result *x = pp_load_run(r);
    int64_t cut = pp_load_truncated_at(r);
    json_t *o = json_object();
    int rc = o == NULL;

    if (o == NULL || x == NULL) {
        json_decref(o);
        return o == NULL ? PP_ENOMEM : PP_OK;
    }
    rc |= json_object_set_new(o, "tool", json_string(pp_load_tool(r)));
    rc |= json_object_set_new(o, "format", json_string(pp_load_format(r)));
    if (x->tool_version[0] != '\0')
        rc |= json_object_set_new(o, "version", json_string(x->tool_version));
    rc |= json_object_set_new(o, "requests", int_or_null(x->requests));
    rc |= json_object_set_new(o, "duration_ns", int_or_null(x->duration_ns));
    rc |= json_object_set_new(o, "errors", int_or_null(x->errors));
    rc |= json_object_set_new(o, "throughput_rps", real_or_null(x->rps));
    rc |= json_object_set_new(o, "loop",
                              json_string(x->flags & PP_LOAD_FIXED_RATE  ? "fixed-rate" :
                                          x->flags & PP_LOAD_CLOSED_LOOP ? "closed" :
                                                                           "unknown"));
    rc |= json_object_set_new(o, "scopes", json_integer((json_int_t)pp_load_scopes(r)));
    rc |= json_object_set_new(o, "knobs", knobs_of(x));
    rc |= json_object_set_new(o, "truncated_at", cut >= 0 ? json_integer(cut) : json_null());
    rc |= json_object_set_new(into, "format", json_string(pp_load_format(r)));
    rc |= json_object_set_new(into, PP_LOAD_KIND, o);
    return rc == 0 ? PP_OK : PP_ENOMEM;
}

static void
load_damage(void *p, pp_source_damage *out)
{
    out->truncated_at = pp_load_truncated_at(pp_text_source_reader(p));
}

const pp_source_ops pp_load_source_ops = {
    .kind = PP_LOAD_KIND,
    .kind_bit = PP_KIND_LOAD,
    .open = load_open,
    .next = pp_text_source_next,
    .describe = load_describe,
    .close = pp_text_source_close,
    .damage = load_damage,
};
