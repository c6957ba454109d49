/* The engine's view of a load-test result (core/source.h): one
 * PP_KIND_LOAD record for the whole run, then one per URL, scenario or tag;
 * the whole file is shown to the content hash once, as it is read; the run's
 * facts become the input's "load" object in the result document (the unit
 * of work compare and candidates use: WORK-CONTRACT item 2). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "source.h"
#include "load/load.h"

typedef struct load_source {
    pp_load_reader *reader;
    pp_source_hooks hooks;
    int warned;
} load_source;

static int
load_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    load_source *s;
    char *buf;
    size_t len;
    int rc;

    *src = NULL;
    if ((rc = pp_load_read_file(path, &buf, &len, err)) != PP_OK)
        return rc;
    if (hooks != NULL && hooks->on_bytes != NULL && len > 0)
        hooks->on_bytes(hooks->user, buf, len);
    if ((s = calloc(1, sizeof *s)) == NULL) {
        free(buf);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    if (hooks != NULL)
        s->hooks = *hooks;
    if ((rc = pp_load_open_buffer(buf, len, path, &s->reader, err)) != PP_OK) {
        free(s);
        return rc;
    }
    *src = s;
    return PP_OK;
}

static int
load_next(void *p, pp_record *rec, pp_error *err)
{
    load_source *s = p;
    const pp_load_result *x;
    int rc = pp_load_next(s->reader, &x, err);

    if (rc == 0 && !s->warned && pp_load_warning(s->reader) != NULL) {
        s->warned = 1;
        if (s->hooks.on_warning != NULL)
            s->hooks.on_warning(s->hooks.user, pp_load_warning(s->reader));
    }
    if (rc != 1)
        return rc;
    rec->struct_size = sizeof *rec;
    rec->kind = PP_KIND_LOAD;
    rec->input_index = 0;
    rec->reserved = 0;
    rec->u.load = x;
    return 1;
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
    load_source *s = p;
    const pp_load_result *x = pp_load_run(s->reader);
    int64_t cut = pp_load_truncated_at(s->reader);
    json_t *o = json_object();
    int rc = o == NULL;

    if (o == NULL || x == NULL) {
        json_decref(o);
        return o == NULL ? PP_ENOMEM : PP_OK;
    }
    rc |= json_object_set_new(o, "tool", json_string(pp_load_tool(s->reader)));
    rc |= json_object_set_new(o, "format", json_string(pp_load_format(s->reader)));
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
    rc |= json_object_set_new(o, "scopes", json_integer((json_int_t)pp_load_scopes(s->reader)));
    rc |= json_object_set_new(o, "knobs", knobs_of(x));
    rc |= json_object_set_new(o, "truncated_at", cut >= 0 ? json_integer(cut) : json_null());
    rc |= json_object_set_new(into, "format", json_string(pp_load_format(s->reader)));
    rc |= json_object_set_new(into, "load", o);
    return rc == 0 ? PP_OK : PP_ENOMEM;
}

static void
load_close(void *p)
{
    load_source *s = p;

    if (s == NULL)
        return;
    pp_load_close(s->reader);
    free(s);
}

static void
load_damage(void *p, pp_source_damage *out)
{
    load_source *s = p;

    out->truncated_at = pp_load_truncated_at(s->reader);
}

const pp_source_ops pp_load_source_ops = {
    .kind = "load",
    .kind_bit = PP_KIND_LOAD,
    .open = load_open,
    .next = load_next,
    .describe = load_describe,
    .close = load_close,
    .damage = load_damage,
};
