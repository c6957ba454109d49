/* The unit of work of a result document (see work.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "work.h"
#include "load/kind.h"

static const char *const units[] = { "request", "second", "operation" };

/* The number at key of o, or -1 when absent or not a number >= 0. */
static double
figure(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    if (!json_is_number(v) || json_number_value(v) < 0)
        return -1;
    return json_number_value(v);
}

static void
add(double *sum, double v)
{
    if (v >= 0)
        *sum = (*sum < 0 ? 0 : *sum) + v;
}

/* "load:TOOL" as a string that outlives any document: the load tools
 * perfpipe reads (WORK-CONTRACT.md item 2), else plain "load". */
static const char *
load_source(const char *tool)
{
    static const char *const known[] = { PP_LOAD_KIND ":wrk",        PP_LOAD_KIND ":wrk2",
                                         PP_LOAD_KIND ":hey",        PP_LOAD_KIND ":k6",
                                         PP_LOAD_KIND ":bombardier", PP_LOAD_KIND ":oha",
                                         PP_LOAD_KIND ":vegeta",     PP_LOAD_KIND ":ab",
                                         PP_LOAD_KIND ":jmeter",     PP_LOAD_KIND ":locust" };

    for (size_t i = 0; tool != NULL && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i] + sizeof PP_LOAD_KIND, tool) == 0)
            return known[i];
    return PP_LOAD_KIND;
}

/* Sum the inputs' facts: requests the traces bracket (completed ones: the
 * work done inside the capture), the load tools' counts, and durations. */
static void
derive(const json_t *doc, pp_work *w)
{
    double hosting = -1, load = -1, trace_s = -1, load_s = -1;
    const char *tool = NULL;
    const json_t *in;
    size_t i;

    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        const json_t *nt = json_object_get(in, "nettrace");
        const json_t *ld = pp_load_facts(in);

        if (json_is_object(nt)) {
            const json_t *rq = json_object_get(nt, "requests");
            double done = figure(rq, "completed");

            add(&hosting, done > 0 ? done : figure(rq, "started"));
            double ns = figure(nt, "duration_ns");
            add(&trace_s, ns >= 0 ? ns / 1e9 : -1);
        }
        if (json_is_object(ld)) {
            add(&load, figure(ld, "requests"));
            double ns = figure(ld, "duration_ns");
            add(&load_s, ns >= 0 ? ns / 1e9 : -1);
            if (tool == NULL)
                tool = json_string_value(json_object_get(ld, "tool"));
        }
    }
    if (hosting > 0) {
        w->requests = hosting;
        w->requests_source = "hosting";
    } else if (load > 0) {
        w->requests = load;
        w->requests_source = load_source(tool);
    }
    w->seconds = trace_s > 0 ? trace_s : load_s;
    w->unit = w->requests > 0 ? "request" : w->seconds > 0 ? "second" : NULL;
}

/* A unit name of the contract, as a static string (or NULL). */
static const char *
unit_named(const char *s)
{
    for (size_t i = 0; s != NULL && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(s, units[i]) == 0)
            return units[i];
    return NULL;
}

int
pp_work_of(const json_t *doc, pp_work *w, pp_error *err)
{
    const json_t *o = json_object_get(doc, "work");

    *w = (pp_work){ NULL, -1, NULL, -1, -1 };
    if (json_is_object(o)) {
        w->unit = unit_named(json_string_value(json_object_get(o, "unit")));
        w->requests = figure(o, "requests");
        w->requests_source = json_string_value(json_object_get(o, "requests_source"));
        w->seconds = figure(o, "seconds");
        w->operations = figure(o, "operations");
    } else
        derive(doc, w);
    if (w->unit == NULL) {
        pp_error_set(err, PP_EINVAL,
                     "the result names no unit of work: no request count "
                     "(Hosting events or a load tool's result), no capture duration, no "
                     "benchmark operations");
        return PP_EINVAL;
    }
    return PP_OK;
}

double
pp_work_per(const pp_work *w)
{
    double v = -1;

    if (w->unit == NULL)
        return NAN;
    if (strcmp(w->unit, "request") == 0)
        v = w->requests;
    else if (strcmp(w->unit, "second") == 0)
        v = w->seconds;
    else if (strcmp(w->unit, "operation") == 0)
        v = w->operations;
    return v > 0 ? v : NAN;
}

static json_t *
num_or_null(double v)
{
    if (v < 0)
        return json_null();
    return v == floor(v) && v < 9e15 ? json_integer((json_int_t)v) : json_real(v);
}

json_t *
pp_work_json(const pp_work *w)
{
    return json_pack("{s:o,s:o,s:o,s:o,s:o}", "unit", w->unit ? json_string(w->unit) : json_null(),
                     "requests", num_or_null(w->requests), "requests_source",
                     w->requests_source ? json_string(w->requests_source) : json_null(), "seconds",
                     w->seconds < 0 ? json_null() : json_real(w->seconds), "operations",
                     num_or_null(w->operations));
}

int
pp_work_attach(json_t *doc)
{
    pp_work w = { NULL, -1, NULL, -1, -1 };
    json_t *o;

    derive(doc, &w);
    if ((o = pp_work_json(&w)) == NULL || json_object_set_new(doc, "work", o) != 0)
        return PP_ENOMEM;
    return PP_OK;
}
