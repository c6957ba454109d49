/* Counters from a nettrace: the counters source (kind "counters") for a
 * .nettrace file that holds the System.Diagnostics.Metrics events of a
 * `collect --counters` session, so one capture gives both the trace and
 * the counter series. Samples are what dotnet-counters would write as CSV
 * rows: CounterRateValuePublished -> Rate (the interval's increment),
 * UpDownCounterRateValuePublished -> Metric (the value),
 * GaugeValuePublished -> Metric (the last value); provider = meter name,
 * name = instrument name, tags as the meter writes them (k=v,k=v) with
 * ',' -> ';'. The interval is the spacing of the CollectionStart events.
 * EventCounters events of the same session are not decoded (dotnet-counters
 * also prefers the meter when both report). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/counters.h>
#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>

#include "ipc/capture_source.h"
#include "input/source.h"

#define METRICS "System.Diagnostics.Metrics"

typedef struct cn_src {
    pp_trace_source *r;
    pp_counter_sample s;
    char provider[256], name[256], tags[1024], unit[64];
    int64_t t0;
    int have_t0;
    int64_t last_collection_ns;
    double interval_s;
    uint64_t samples;
} cn_src;

static int
cn_open(const char *path, const pp_source_hooks *hooks, void **out, pp_error *err)
{
    cn_src *s = calloc(1, sizeof *s);
    int rc;

    if (!s) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if ((rc = pp_nettrace_open(path, &s->r, err)) != PP_OK) {
        free(s);
        return rc;
    }
    if (hooks)
        pp_nettrace_set_callbacks(s->r, hooks->on_bytes, hooks->on_warning, hooks->user);
    s->interval_s = 1;
    *out = s;
    return PP_OK;
}

static int
field_str(const pp_trace_event *ev, const char *name, char *out, size_t size)
{
    pp_value v;
    if (pp_nettrace_field(ev, name, &v) != PP_OK || v.type != PP_VALUE_STRING)
        return 0;
    snprintf(out, size, "%s", v.v.s);
    return 1;
}

/* Tags "k=v,k=v" as the CSV's "[k=v;k=v]". */
static void
tags_semicolons(char *t)
{
    for (; *t; t++)
        if (*t == ',')
            *t = ';';
}

static int
cn_next(void *p, pp_record *rec, pp_error *err)
{
    cn_src *s = p;
    const pp_trace_event *ev;
    int rc;
    char num[64];

    while ((rc = pp_nettrace_next(s->r, &ev, err)) > 0) {
        if (!ev->provider || strcmp(ev->provider, METRICS) != 0 || !ev->name)
            continue;
        if (!s->have_t0) {
            s->t0 = ev->time_ns;
            s->have_t0 = 1;
        }
        if (strcmp(ev->name, "CollectionStart") == 0) {
            int64_t gap = ev->time_ns - s->last_collection_ns;
            if (s->last_collection_ns && gap > 0) {
                /* whole tenths of a second: the refresh interval as asked */
                s->interval_s = (double)((gap + 50000000) / 100000000) / 10.0;
                if (s->interval_s <= 0)
                    s->interval_s = 1;
            }
            s->last_collection_ns = ev->time_ns;
            continue;
        }
        uint32_t type;
        const char *value_field;
        if (strcmp(ev->name, "CounterRateValuePublished") == 0) {
            type = PP_COUNTER_RATE;
            value_field = "rate";
        } else if (strcmp(ev->name, "UpDownCounterRateValuePublished") == 0) {
            type = PP_COUNTER_GAUGE;
            value_field = "value";
        } else if (strcmp(ev->name, "GaugeValuePublished") == 0) {
            type = PP_COUNTER_GAUGE;
            value_field = "lastValue";
        } else {
            continue;
        }
        if (!field_str(ev, "meterName", s->provider, sizeof s->provider) ||
            !field_str(ev, "instrumentName", s->name, sizeof s->name) ||
            !field_str(ev, value_field, num, sizeof num))
            continue;
        if (num[0] == '\0')
            continue; /* no value yet (e.g. before the first GC) */
        char *end;
        double value = strtod(num, &end);
        if (end == num)
            continue;
        if (!field_str(ev, "unit", s->unit, sizeof s->unit))
            s->unit[0] = '\0';
        if (!field_str(ev, "tags", s->tags, sizeof s->tags))
            s->tags[0] = '\0';
        tags_semicolons(s->tags);
        memset(&s->s, 0, sizeof s->s);
        s->s.struct_size = sizeof s->s;
        s->s.counter_type = type;
        s->s.time_ns = ev->time_ns - s->t0;
        s->s.provider = s->provider;
        s->s.name = s->name;
        s->s.tags = s->tags;
        s->s.unit = s->unit;
        s->s.quantity = pp_counters_quantity(s->provider, s->name, s->tags);
        s->s.value = value;
        s->s.interval_s = type == PP_COUNTER_RATE ? s->interval_s : 0;
        memset(rec, 0, sizeof *rec);
        rec->struct_size = sizeof *rec;
        rec->kind = PP_KIND_COUNTERS;
        rec->u.counter = &s->s;
        s->samples++;
        return 1;
    }
    return rc;
}

static int
cn_describe(void *p, json_t *into)
{
    cn_src *s = p;
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string("nettrace (System.Diagnostics.Metrics events)"));
    json_object_set_new(o, "samples", json_integer((json_int_t)s->samples));
    json_object_set_new(o, "interval_s", json_real(s->interval_s));
    json_object_set_new(into, "counters", o);
    return PP_OK;
}

static void
cn_damage(void *p, pp_source_damage *out)
{
    cn_src *s = p;
    if (pp_nettrace_source_ops.damage)
        pp_nettrace_source_ops.damage(s->r, out);
}

static void
cn_close(void *p)
{
    cn_src *s = p;
    if (!s)
        return;
    pp_nettrace_close(s->r);
    free(s);
}

const pp_source_ops pp_counters_nettrace_source_ops = { "counters", PP_KIND_COUNTERS, cn_open,
                                                        cn_next,    cn_describe,      cn_close,
                                                        cn_damage };
