/* counters-csv: the first envelope of a load run from dotnet-counters
 * samples. Per counter and tag set: levels, p95, per-second rates of Rate
 * counters, and for levels a least-squares trend; each under its axis
 * (churn, time, footprint), with verdicts in findings.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters_csv.h"
#include "../common/decl.h"

typedef struct cc_state {
    const pp_host_api *host;
    cc_store store;
    double from_s, to_s; /* window; to_s < 0 = to the end */
    int series;
    cc_thresholds th;
    uint64_t consumed;
} cc_state;

static const pp_option_decl cc_options[] = {
    { "from", PP_OPT_DOUBLE, 0, "0", "seconds from the first sample to skip (warm-up)" },
    { "to", PP_OPT_DOUBLE, 0, NULL, "seconds from the first sample to stop at (default: the end)" },
    { "series", PP_OPT_BOOL, 0, "false", "also emit the series table (every sample, for plots)" },
    { "leak_r2", PP_OPT_DOUBLE, 0, "0.6", "minimum R^2 of a footprint trend to call it steady" },
    { "leak_growth_pct", PP_OPT_DOUBLE, 0, "10",
      "minimum footprint growth over the window, % of its mean" },
    { "leak_min_mb_per_min", PP_OPT_DOUBLE, 0, "1",
      "minimum footprint slope, MB (10^6 B) per minute" },
    { "gc_time_pct", PP_OPT_DOUBLE, 0, "10", "GC pause share of time (%) that deserves a finding" },
    { "churn_mb_per_sec", PP_OPT_DOUBLE, 0, "10", "allocation rate (MB/s) worth calling churn" },
};

static int
opt_double_or(const pp_host_api *h, const pp_options *o, const char *name, double dflt, double *out,
              pp_error *err)
{
    int rc = h->opt_double(o, name, out);

    if (rc == PP_ENOTFOUND) {
        *out = dflt;
        return PP_OK;
    }
    if (rc != PP_OK)
        h->error_set(err, rc, "counters-csv: option %s: not a number", name);
    return rc;
}

static int
cc_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state, pp_error *err)
{
    cc_state *st;
    double mb;
    int rc = PP_OK;

    (void)ctx;
    st = calloc(1, sizeof *st);
    if (st == NULL) {
        host->error_set(err, PP_ENOMEM, "counters-csv: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    rc = opt_double_or(host, opts, "from", 0, &st->from_s, err);
    if (rc == PP_OK)
        rc = opt_double_or(host, opts, "to", -1, &st->to_s, err);
    if (rc == PP_OK) {
        int b = 0;
        int r2 = host->opt_bool(opts, "series", &b);
        if (r2 != PP_OK && r2 != PP_ENOTFOUND)
            rc = r2;
        st->series = b;
    }
    if (rc == PP_OK)
        rc = opt_double_or(host, opts, "leak_r2", 0.6, &st->th.leak_r2, err);
    if (rc == PP_OK)
        rc = opt_double_or(host, opts, "leak_growth_pct", 10, &st->th.leak_growth_pct, err);
    if (rc == PP_OK &&
        (rc = opt_double_or(host, opts, "leak_min_mb_per_min", 1, &mb, err)) == PP_OK)
        st->th.leak_min_slope = mb * 1e6;
    if (rc == PP_OK)
        rc = opt_double_or(host, opts, "gc_time_pct", 10, &st->th.gc_time_pct, err);
    if (rc == PP_OK && (rc = opt_double_or(host, opts, "churn_mb_per_sec", 10, &mb, err)) == PP_OK)
        st->th.churn_bytes_per_sec = mb * 1e6;
    if (rc == PP_OK && (!(st->from_s >= 0) || (st->to_s >= 0 && st->to_s < st->from_s))) {
        rc = PP_EINVAL;
        host->error_set(err, rc, "counters-csv: from (%g) must be >= 0 and to (%g) >= from",
                        st->from_s, st->to_s);
    }
    if (rc != PP_OK) {
        free(st);
        return rc;
    }
    *state = st;
    return PP_OK;
}

static int
cc_consume(void *p, const pp_record *rec, pp_error *err)
{
    cc_state *st = p;

    if (rec->kind != PP_KIND_COUNTERS || rec->u.counter == NULL)
        return PP_OK;
    if (cc_store_add(&st->store, rec->u.counter) != PP_OK) {
        st->host->error_set(err, PP_ENOMEM, "counters-csv: out of memory after %llu samples",
                            (unsigned long long)st->consumed);
        return PP_ENOMEM;
    }
    st->consumed++;
    return PP_OK;
}

static int
axis_rank(const char *axis)
{
    if (strcmp(axis, "churn") == 0)
        return 0;
    if (strcmp(axis, "time") == 0)
        return 1;
    if (strcmp(axis, "footprint") == 0)
        return 2;
    return 3;
}

static int
cmp_row(const void *a, const void *b)
{
    const cc_row *x = a, *y = b;
    int c = axis_rank(x->axis) - axis_rank(y->axis);

    if (c == 0)
        c = strcmp(x->s->provider, y->s->provider);
    if (c == 0)
        c = strcmp(x->s->name, y->s->name);
    if (c == 0)
        c = strcmp(x->s->tags, y->s->tags);
    return c;
}

static pp_cell
num(double d)
{
    return isfinite(d) ? pp_cell_dbl(d) : pp_cell_null();
}

static int
emit_by_counter(cc_state *st, pp_ctx *ctx, const cc_row *rows, size_t n, pp_error *err)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_counters_tables[PP_CTR_T_BY_COUNTER], 3, NULL);

    if (t == NULL) {
        h->error_set(err, PP_ENOMEM, "counters-csv: cannot create table by_counter");
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const cc_row *r = &rows[i];
        pp_cell c[19];
        c[0] = pp_cell_str(r->s->provider);
        c[1] = pp_cell_str(r->s->name);
        c[2] = pp_cell_str(r->s->tags);
        c[3] = pp_cell_str(r->s->counter_type == PP_COUNTER_RATE && r->s->unit[0] != '\0' ?
                               (strcmp(r->s->unit, "B") == 0 ? "B/s" :
                                strcmp(r->s->unit, "s") == 0 ? "s/s" :
                                                               r->s->unit) :
                           r->s->counter_type == PP_COUNTER_RATE ? "/s" :
                                                                   r->s->unit);
        c[4] = pp_cell_int((int64_t)r->st.n);
        c[5] = num(r->st.min);
        c[6] = num(r->st.mean);
        c[7] = num(r->st.max);
        c[8] = num(r->st.p95);
        c[9] = num(r->st.last);
        c[10] = num(r->st.rate);
        c[11] = num(r->st.slope_per_min);
        c[12] = num(r->st.r2);
        c[13] = pp_cell_str(r->axis);
        c[14] = r->s->quantity != NULL ? pp_cell_str(r->s->quantity) : pp_cell_null();
        c[15] = num(r->st.first);
        c[16] = num(r->st.delta);
        c[17] = pp_cell_str(r->s->counter_type == PP_COUNTER_RATE ? "rate" : "gauge");
        c[18] = pp_cell_str(r->leak ? "growing" : r->bounded ? "bounded" : "");
        int rc = h->table_row(t, c);
        if (rc != PP_OK) {
            h->error_set(err, rc, "counters-csv: the host refused a by_counter row");
            return rc;
        }
    }
    return PP_OK;
}

static int
emit_series(cc_state *st, pp_ctx *ctx, const cc_row *rows, size_t n, int64_t from_ns, int64_t to_ns,
            pp_error *err)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_counters_tables[PP_CTR_T_SERIES], 0, NULL);

    if (t == NULL) {
        h->error_set(err, PP_ENOMEM, "counters-csv: cannot create table series");
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const cc_series *s = rows[i].s;
        double div = s->counter_type == PP_COUNTER_RATE ? s->interval_s : 1;
        for (size_t k = 0; k < s->n; k++) {
            pp_cell c[4];
            if (s->pts[k].t < from_ns || s->pts[k].t > to_ns || !isfinite(s->pts[k].v))
                continue;
            c[0] = pp_cell_int(s->pts[k].t);
            c[1] = pp_cell_str(s->name);
            c[2] = pp_cell_str(s->tags);
            c[3] = pp_cell_dbl(s->pts[k].v / div);
            int rc = h->table_row(t, c);
            if (rc != PP_OK) {
                h->error_set(err, rc, "counters-csv: the host refused a series row");
                return rc;
            }
        }
    }
    return PP_OK;
}

static int
skip_zeros_for(const char *q)
{
    /* Heap sizes after the last GC read 0 until the first GC happened: those
     * zeros are samples, but the trend starts after them. */
    return q != NULL && (strncmp(q, "gc.heap.", 8) == 0 || strcmp(q, "gc.committed") == 0);
}

static int
cc_finish(void *p, pp_ctx *ctx, pp_error *err)
{
    cc_state *st = p;
    const pp_host_api *h = st->host;
    int64_t from_ns = cc_to_i64(st->from_s * 1e9);
    int64_t to_ns = st->to_s < 0 ? INT64_MAX : cc_to_i64(st->to_s * 1e9);
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    double *scratch = NULL;
    size_t scap = 0, nrows = 0;
    uint64_t nsamples = 0;
    cc_row *rows;
    int rc = PP_OK;

    rows = calloc(st->store.n ? st->store.n : 1, sizeof *rows);
    if (rows == NULL) {
        h->error_set(err, PP_ENOMEM, "counters-csv: out of memory");
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < st->store.n; i++) {
        cc_row *r = &rows[nrows];
        int got;
        r->s = &st->store.s[i];
        got = cc_stats_compute(r->s, from_ns, to_ns, skip_zeros_for(r->s->quantity), &scratch,
                               &scap, &r->st);
        if (got < 0) {
            rc = got;
            h->error_set(err, rc, "counters-csv: out of memory");
            break;
        }
        if (got == 0)
            continue;
        r->axis = cc_axis(r->s->quantity);
        nsamples += r->st.n;
        if (r->st.t_first < tmin)
            tmin = r->st.t_first;
        if (r->st.t_last > tmax)
            tmax = r->st.t_last;
        nrows++;
    }
    free(scratch);
    if (rc == PP_OK) {
        qsort(rows, nrows, sizeof *rows, cmp_row);
        cc_mark_trends(rows, nrows, &st->th);
        rc = emit_by_counter(st, ctx, rows, nrows, err);
    }
    if (rc == PP_OK && st->series)
        rc = emit_series(st, ctx, rows, nrows, from_ns, to_ns, err);
    if (rc == PP_OK) {
        rc = h->total_int(ctx, "samples", PP_COL_COUNT, (int64_t)nsamples);
        if (rc == PP_OK)
            rc = h->total_int(ctx, "counters", PP_COL_COUNT, (int64_t)nrows);
        if (rc == PP_OK && nrows > 0)
            rc = h->total_int(ctx, "window_ns", PP_COL_DURATION_NS, tmax - tmin);
        if (rc == PP_OK)
            rc = cc_findings(h, ctx, rows, nrows, &st->th, nrows > 0 ? tmax - tmin : 0);
        if (rc != PP_OK)
            h->error_set(err, rc, "counters-csv: the host refused a result");
    }
    free(rows);
    return rc;
}

static void
cc_destroy(void *p)
{
    cc_state *st = p;

    if (st == NULL)
        return;
    cc_store_free(&st->store);
    free(st);
}

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_counters_tables[] = {
    [PP_CTR_T_BY_COUNTER] = {
        .name = "by_counter",
        .columns =
            (const pp_column[]){
                { "provider", PP_COL_STRING, 0 }, { "counter", PP_COL_STRING, 0 },
                { "tags", PP_COL_STRING, 0 },     { "unit", PP_COL_STRING, 0 },
                { "samples", PP_COL_COUNT, 0 },   { "min", PP_COL_NUMBER, 0 },
                { "mean", PP_COL_NUMBER, 0 },     { "max", PP_COL_NUMBER, 0 },
                { "p95", PP_COL_NUMBER, 0 },      { "last", PP_COL_NUMBER, 0 },
                { "rate", PP_COL_NUMBER, 0 },     { "slope_per_min", PP_COL_NUMBER, 0 },
                { "r2", PP_COL_NUMBER, 0 },       { "axis", PP_COL_STRING, 0 },
                { "quantity", PP_COL_STRING, 0 }, { "first", PP_COL_NUMBER, 0 },
                { "delta", PP_COL_NUMBER, 0 },    { "kind", PP_COL_STRING, 0 },
                { "trend", PP_COL_STRING, 0 },    { NULL, 0, 0 } },
        .key = (const char *const[]){ "provider", "counter", "tags", NULL },
        .subject = "counter",
        .figures = (const pp_figure_decl[]){ { "mean", "value", NULL },
                                             { "max", "value", NULL },
                                             { "last", "value", NULL },
                                             { "rate", "value_per_second", NULL },
                                             { "slope_per_min", "value_per_minute", NULL },
                                             { "delta", "value", NULL },
                                             { NULL, NULL, NULL } },
    },
    [PP_CTR_T_SERIES] = {
        .name = "series",
        .columns = (const pp_column[]){ { "time_ns", PP_COL_TIMESTAMP_NS, 0 },
                                        { "counter", PP_COL_STRING, 0 },
                                        { "tags", PP_COL_STRING, 0 },
                                        { "value", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .figures = (const pp_figure_decl[]){ { "value", "value", NULL }, { NULL, NULL, NULL } },
    },
    { .name = NULL },
};

static const pp_analyzer cc_descriptor = {
    PP_ANALYZER_HEADER,
    .name = "counters-csv",
    .version = "1.0.0",
    .summary = "dotnet-counters CSV/JSON: churn, GC time, footprint trend and leak verdict",
    .input_kinds = PP_KIND_COUNTERS,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof cc_options / sizeof cc_options[0],
    .options = cc_options,
    .create = cc_create,
    .consume = cc_consume,
    .finish = cc_finish,
    .destroy = cc_destroy,
    .tables = pp_counters_tables,
};

PP_PLUGIN_DEFINE(cc_descriptor);
