/* plugins/load: the results of a load-test run.
 *
 * Table "latency": one row per scope (the whole run "", then each URL,
 * scenario or tag the tool gave), p95 first so compare judges it: lower is
 * better for every measure of the table (ms_per_request is the inverse of
 * the throughput, so a run that serves more requests in the same time
 * shows as a fall). The slowest request is one sample, too noisy to gate:
 * its column is not named as its total (max_ms), so compare shows it
 * without judging it. Served, failed and rps follow as plain figures.
 * When the tool wrote one line per request (hey -o csv, k6 --out json,
 * vegeta encode --to json),
 * table "request_latency" holds those latencies (scope, ms) and the
 * latency table's hints send compare to its quantile test on them
 * (core/compare/compare_quantile.h: a bootstrap interval of the p95 difference);
 * without them compare judges the printed figures by thresholds.
 * Tables "statuses", "error_kinds" and "thresholds" list what the tool
 * counted. Totals are the whole run's figures. Findings: requests failed,
 * k6 thresholds failed, the closed-loop caveat (coordinated omission), the
 * synthetic samples of a tool that corrects for it (synthetic.c), and
 * the figures the tool's output does not give. */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "load.h"
#include "../common/decl.h"

/* Columns declared once: each table below is made from its entry. */
const pp_table_decl ld_tables[] = {
    [LD_T_LATENCY] = {
        .name = "latency",
        .columns = (const pp_column[]){ { "scope", PP_COL_STRING, 0 },
                                        { "p95_ms", PP_COL_NUMBER, 0 },
                                        { "p50_ms", PP_COL_NUMBER, 0 },
                                        { "p90_ms", PP_COL_NUMBER, 0 },
                                        { "p99_ms", PP_COL_NUMBER, 0 },
                                        { "slowest_ms", PP_COL_NUMBER, 0 },
                                        { "mean_ms", PP_COL_NUMBER, 0 },
                                        { "ms_per_request", PP_COL_NUMBER, 0 },
                                        { "served", PP_COL_NUMBER, 0 },
                                        { "failed", PP_COL_NUMBER, 0 },
                                        { "rps", PP_COL_NUMBER, 0 },
                                        { "latency_sum_pct", PP_COL_PERCENT, 0 },
                                        { "synthetic_samples", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "scope", NULL },
    },
    /* a sample, one row per request (the scope repeats): no key */
    [LD_T_REQUEST_LATENCY] = {
        .name = "request_latency",
        .columns = (const pp_column[]){ { "scope", PP_COL_STRING, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
    },
    [LD_T_STATUSES] = {
        .name = "statuses",
        .columns = (const pp_column[]){ { "scope", PP_COL_STRING, 0 },
                                        { "code", PP_COL_STRING, 0 },
                                        { "responses", PP_COL_COUNT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "scope", "code", NULL },
    },
    [LD_T_ERROR_KINDS] = {
        .name = "error_kinds",
        .columns = (const pp_column[]){ { "scope", PP_COL_STRING, 0 },
                                        { "kind", PP_COL_STRING, 0 },
                                        { "occurrences", PP_COL_COUNT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "scope", "kind", NULL },
    },
    [LD_T_THRESHOLDS] = {
        .name = "thresholds",
        .columns = (const pp_column[]){ { "metric", PP_COL_STRING, 0 },
                                        { "threshold", PP_COL_STRING, 0 },
                                        { "result", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "metric", "threshold", NULL },
    },
    [LD_T_END] = { .name = NULL },
};

static pp_cell
ms_cell(double ns)
{
    return isfinite(ns) ? pp_cell_dbl(ns / 1e6) : pp_cell_null();
}

static pp_cell
count_cell(int64_t n) /* for NUMBER columns: a COUNT cell cannot be null */
{
    return n >= 0 ? pp_cell_int(n) : pp_cell_null();
}

/* Milliseconds of the run per request served: 1000 / throughput. */
static double
ms_per_request(const pp_load_result *x)
{
    if (isfinite(x->rps) && x->rps > 0)
        return 1000.0 / x->rps;
    if (x->requests > 0 && x->duration_ns > 0)
        return (double)x->duration_ns / 1e6 / (double)x->requests;
    return NAN;
}

/* The per-request latencies, and the latency table's hints to test them. The
 * table is a sample (one row per request, scope repeated): it has no key. */
static int
samples_table(ld_state *st, pp_ctx *ctx, pp_table *latency)
{
    static const char *const hints[][2] = {
        { "compare", "quantile" }, { "samples", "request_latency" },
        { "sample_key", "scope" }, { "sample_value", "ms" },
        { "quantile", "95" },      { "unit", "ms" },
    };
    const pp_host_api *h = st->host;
    pp_table *t;
    uint32_t any = 0;
    int rc = PP_OK;

    for (uint32_t i = 0; i < st->nscopes; i++)
        any += st->scopes[i].nsamples;
    if (any == 0)
        return PP_OK;
    if ((t = pp_pc_table_new(h, ctx, &ld_tables[LD_T_REQUEST_LATENCY], 0, NULL)) == NULL)
        return PP_ENOMEM;
    rc = h->table_hint(t, "compare", "samples");
    for (size_t k = 0; k < sizeof hints / sizeof hints[0] && rc == PP_OK; k++)
        rc = h->table_hint(latency, hints[k][0], hints[k][1]);
    for (uint32_t i = 0; i < st->nscopes && rc == PP_OK; i++) {
        const ld_scope *s = &st->scopes[i];

        for (uint32_t k = 0; k < s->nsamples && rc == PP_OK; k++) {
            pp_cell row[2] = { pp_cell_str(s->scope[0] ? s->scope : "(run)"),
                               pp_cell_dbl(s->samples_ms[k]) };
            rc = h->table_row(t, row);
        }
    }
    return rc;
}

static int
latency_table(ld_state *st, pp_ctx *ctx)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &ld_tables[LD_T_LATENCY], 1, NULL);

    if (t == NULL)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < st->nscopes; i++) {
        const pp_load_result *x = &st->scopes[i].x;
        double mpr = ms_per_request(x);
        pp_cell row[13] = {
            pp_cell_str(st->scopes[i].scope[0] ? st->scopes[i].scope : "(run)"),
            ms_cell(x->lat_p95_ns),
            ms_cell(x->lat_p50_ns),
            ms_cell(x->lat_p90_ns),
            ms_cell(x->lat_p99_ns),
            ms_cell(x->lat_max_ns),
            ms_cell(x->lat_mean_ns),
            isfinite(mpr) ? pp_cell_dbl(mpr) : pp_cell_null(),
            count_cell(x->requests),
            count_cell(x->errors),
            isfinite(x->rps) ? pp_cell_dbl(x->rps) : pp_cell_null(),
            isfinite(ld_latency_sum_pct(x)) ? pp_cell_dbl(ld_latency_sum_pct(x)) : pp_cell_null(),
            count_cell(ld_synthetic_count(x)),
        };
        int rc = h->table_row(t, row);

        if (rc != PP_OK)
            return rc;
    }
    /* the statistics synthetic samples decide: shown, not judged */
    if (ld_synthetic_hints(h, t, &st->scopes[0].x) != PP_OK)
        return PP_ENOMEM;
    return samples_table(st, ctx, t);
}

static int
count_tables(ld_state *st, pp_ctx *ctx)
{
    const pp_host_api *h = st->host;
    pp_table *ts = pp_pc_table_new(h, ctx, &ld_tables[LD_T_STATUSES], 2, NULL);
    pp_table *te = pp_pc_table_new(h, ctx, &ld_tables[LD_T_ERROR_KINDS], 2, NULL);
    pp_table *tt = pp_pc_table_new(h, ctx, &ld_tables[LD_T_THRESHOLDS], 2, NULL);
    int rc = ts && te && tt ? PP_OK : PP_ENOMEM;

    /* More 200s is better, more 500s worse: no one direction for compare,
     * which judges the run through the totals and the latency table. */
    for (int k = 0; k < 3 && rc == PP_OK; k++)
        rc = h->table_hint((pp_table *[]){ ts, te, tt }[k], "compare", "none");

    for (uint32_t i = 0; i < st->nscopes && rc == PP_OK; i++) {
        const ld_scope *s = &st->scopes[i];
        const char *scope = s->scope[0] ? s->scope : "(run)";

        for (uint32_t k = 0; k < s->nstatus && rc == PP_OK; k++) {
            pp_cell row[3] = { pp_cell_str(scope), pp_cell_str(s->statuses[k].name),
                               pp_cell_int(s->statuses[k].count) };
            rc = h->table_row(ts, row);
        }
        for (uint32_t k = 0; k < s->nkinds && rc == PP_OK; k++) {
            pp_cell row[3] = { pp_cell_str(scope), pp_cell_str(s->kinds[k].name),
                               pp_cell_int(s->kinds[k].count) };
            rc = h->table_row(te, row);
        }
        for (uint32_t k = 0; k < s->nthresholds && rc == PP_OK; k++) {
            pp_cell row[3] = { pp_cell_str(s->thresholds[k].metric),
                               pp_cell_str(s->thresholds[k].expr),
                               pp_cell_str(s->thresholds[k].failed ? "failed" : "passed") };
            rc = h->table_row(tt, row);
        }
    }
    return rc;
}

static void
totals(ld_state *st, pp_ctx *ctx, const pp_load_result *x)
{
    const pp_host_api *h = st->host;
    double mpr = ms_per_request(x);
    static const struct {
        const char *name;
        size_t off;
    } lat[] = {
        { "p50_ms", offsetof(pp_load_result, lat_p50_ns) },
        { "p90_ms", offsetof(pp_load_result, lat_p90_ns) },
        { "p95_ms", offsetof(pp_load_result, lat_p95_ns) },
        { "p99_ms", offsetof(pp_load_result, lat_p99_ns) },
        { "max_ms", offsetof(pp_load_result, lat_max_ns) },
        { "mean_ms", offsetof(pp_load_result, lat_mean_ns) },
    };

    h->total_string(ctx, "tool", st->tool ? st->tool : "");
    h->total_string(ctx, "loop",
                    x->flags & PP_LOAD_FIXED_RATE  ? "fixed-rate" :
                    x->flags & PP_LOAD_CLOSED_LOOP ? "closed" :
                                                     "unknown");
    if (x->requests >= 0)
        h->total_int(ctx, "requests", PP_COL_COUNT, x->requests);
    if (x->errors >= 0)
        h->total_int(ctx, "errors", PP_COL_COUNT, x->errors);
    if (x->errors >= 0 && x->requests > 0)
        h->total_double(ctx, "error_percent", PP_COL_PERCENT,
                        100.0 * (double)x->errors / (double)x->requests);
    if (x->duration_ns >= 0)
        h->total_int(ctx, "duration_ns", PP_COL_DURATION_NS, x->duration_ns);
    if (isfinite(x->rps))
        h->total_double(ctx, "throughput_rps", PP_COL_NUMBER, x->rps);
    if (isfinite(mpr))
        h->total_double(ctx, "ms_per_request", PP_COL_NUMBER, mpr);
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        double ns = *(const double *)((const char *)x + lat[i].off);

        if (isfinite(ns))
            h->total_double(ctx, lat[i].name, PP_COL_NUMBER, ns / 1e6);
    }
}

/* The closed-loop caveat, and the synthetic samples of a tool that
 * corrects for it (wrk: synthetic.c). */
static void
closed_loop(ld_state *st, pp_ctx *ctx, const pp_load_result *x, const char *tool)
{
    const pp_host_api *h = st->host;
    int corrects = strcmp(tool, "wrk") == 0;
    char conns[48] = "";

    if (x->connections >= 0)
        snprintf(conns, sizeof conns, " %lld", (long long)x->connections);
    h->finding(ctx, PP_SEVERITY_INFO, "load.closed_loop",
               "%s is closed-loop: each of its%s connections sends its next request only "
               "after the last reply, so a slow server is sent fewer requests %s; compare runs "
               "of one tool and one knob set, and use a fixed-rate tool (wrk2 -R, k6 "
               "constant-arrival-rate, vegeta) for latency objectives",
               tool, conns,
               corrects ? "(coordinated omission); wrk corrects for it in part, after the run: "
                          "a response slower than twice the expected interval (duration / "
                          "requests per connection) also counts at its latency minus 1, 2, ... "
                          "intervals, so its percentiles and mean include waits of requests "
                          "that were never sent, guessed from the stalls" :
                          "and the percentiles leave out the waits real clients would have "
                          "(coordinated omission)");
    ld_synthetic_finding(h, ctx, x, tool);
}

static void
findings(ld_state *st, pp_ctx *ctx, const ld_scope *run)
{
    const pp_host_api *h = st->host;
    const pp_load_result *x = &run->x;
    const char *tool = st->tool ? st->tool : "the tool";

    if (x->errors > 0 && x->requests > 0 &&
        100.0 * (double)x->errors / (double)x->requests > st->error_percent) {
        char kinds[256] = "";
        size_t used = 0;

        for (uint32_t k = 0; k < run->nstatus && used < sizeof kinds; k++)
            if (strcmp(run->statuses[k].name, "2xx/3xx") != 0 && run->statuses[k].name[0] != '2' &&
                run->statuses[k].name[0] != '3')
                used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s status %s x%lld",
                                         used ? "," : ":", run->statuses[k].name,
                                         (long long)run->statuses[k].count);
        for (uint32_t k = 0; k < run->nkinds && used < sizeof kinds; k++)
            used += (size_t)snprintf(kinds + used, sizeof kinds - used, "%s %s x%lld",
                                     used ? "," : ":", run->kinds[k].name,
                                     (long long)run->kinds[k].count);
        h->finding(ctx, PP_SEVERITY_WARNING, "load.errors",
                   "%lld of %lld requests failed (%.2f %%)%s; latency and throughput of a run "
                   "with failures mix two populations (a fast error is not a served request)",
                   (long long)x->errors, (long long)x->requests,
                   100.0 * (double)x->errors / (double)x->requests, kinds);
    }
    for (uint32_t k = 0; k < run->nthresholds; k++)
        if (run->thresholds[k].failed)
            h->finding(ctx, PP_SEVERITY_WARNING, "load.threshold_failed",
                       "%s threshold failed: %s %s", tool, run->thresholds[k].metric,
                       run->thresholds[k].expr);
    if (x->flags & PP_LOAD_CLOSED_LOOP)
        closed_loop(st, ctx, x, tool);
    if (x->connections < 0 && x->url[0] == '\0' && !isfinite(x->rate_per_s))
        h->finding(ctx, PP_SEVERITY_INFO, "load.knobs_unknown",
                   "%s's output (%s) does not say its knobs (connections, rate, URL), so "
                   "compare cannot check that two runs had the same load: give them as run "
                   "knobs (perfpipe load FILE --set connections=8 --set url=...), which compare "
                   "checks",
                   tool, st->format ? st->format : "?");
    if (!isfinite(x->lat_p95_ns))
        h->finding(ctx, PP_SEVERITY_INFO, "load.no_p95",
                   "%s's output (%s) gives no p95%s, so compare cannot judge it", tool,
                   st->format ? st->format : "?",
                   strcmp(tool, "wrk") == 0 ? " (wrk prints 50/75/90/99 %: run it with "
                                              "examples/wrk-json/wrk-json.lua for p95)" :
                                              "");
}

int
ld_report(ld_state *st, pp_ctx *ctx, pp_error *err)
{
    int rc;

    if (st->nscopes == 0) {
        st->host->finding(ctx, PP_SEVERITY_WARNING, "load.empty", "no load-test result was read");
        return PP_OK;
    }
    if ((rc = latency_table(st, ctx)) != PP_OK || (rc = count_tables(st, ctx)) != PP_OK) {
        st->host->error_set(err, rc, "load: cannot build the tables (error %d)", rc);
        return rc;
    }
    totals(st, ctx, &st->scopes[0].x);
    findings(st, ctx, &st->scopes[0]);
    return PP_OK;
}
