/* plugins/bench: the tables and findings of a BenchmarkDotNet run.
 *
 * Table "benchmarks": one row per case (benchmark, params, job) with the
 * figures of BenchmarkDotNet's own summary, exact from the JSON export.
 * Table "iterations": the measured iterations (Workload/Result: overhead
 * already subtracted, what BenchmarkDotNet's statistics use), one row each,
 * so compare can run a two-sample test on them. Both carry compare hints.
 *
 * Findings are what BenchmarkDotNet's analysers say, where the export shows
 * it: too few iterations to judge the distribution, a bimodal one, high
 * variance, iterations shorter than 100 ms, outliers removed, a DEBUG
 * build, an attached debugger, failed cases, no MemoryDiagnoser. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench.h"
#include "../common/decl.h"

#define EXAMPLES 5

/* Collects up to EXAMPLES "label (detail)" items for one finding. */
typedef struct listing {
    uint32_t count;
    char text[768];
    size_t used;
} listing;

static void
list_add(listing *l, const bn_case *c, const char *fmt, double v)
{
    char detail[96];

    if (l->count++ >= EXAMPLES || l->used >= sizeof l->text)
        return;
    snprintf(detail, sizeof detail, fmt, v);
    l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "%s%s%s%s%s (%s)",
                                l->count > 1 ? "; " : "", c->benchmark, c->params[0] ? " [" : "",
                                c->params, c->params[0] ? "]" : "", detail);
}

static const char *
more(const listing *l, char *buf, size_t size)
{
    if (l->count > EXAMPLES)
        snprintf(buf, size, "; and %u more", l->count - EXAMPLES);
    else
        buf[0] = '\0';
    return buf;
}

static int
tables(bn_state *st, pp_ctx *ctx, pp_error *err)
{
    const pp_host_api *h = st->host;
    pp_table *bt = pp_pc_table_new(h, ctx, &pp_bench_tables[PP_BENCH_T_BENCHMARKS], 3, NULL), *it;
    char delta[64];

    if (bt == NULL)
        goto fail;
    if (PP_HOST_HAS(h, table_hint) && h->table_hint != NULL) {
        snprintf(delta, sizeof delta, "%.17g", st->min_delta_ns);
        if (h->table_hint(bt, "compare", "bench") != PP_OK ||
            h->table_hint(bt, "samples", "iterations") != PP_OK ||
            h->table_hint(bt, "min_delta_ns", delta) != PP_OK)
            goto fail;
    }
    for (uint32_t i = 0; i < st->count; i++) {
        const bn_case *c = &st->cases[i];
        int stats = (c->flags & PP_BENCH_HAS_STATISTICS) != 0;
        int gc = (c->flags & (PP_BENCH_HAS_GC_COUNTS | PP_BENCH_HAS_MEMORY)) != 0;
        pp_cell row[13] = {
            pp_cell_str(c->benchmark),
            pp_cell_str(c->params),
            pp_cell_str(c->job),
            stats ? pp_cell_dbl(c->mean_ns) : pp_cell_null(),
            stats ? pp_cell_dbl(c->error_ns) : pp_cell_null(),
            stats ? pp_cell_dbl(c->median_ns) : pp_cell_null(),
            stats ? pp_cell_dbl(c->stddev_ns) : pp_cell_null(),
            pp_cell_int(c->bytes_per_op),
            gc ? pp_cell_dbl(c->gen_per_1k[0]) : pp_cell_null(),
            gc ? pp_cell_dbl(c->gen_per_1k[1]) : pp_cell_null(),
            gc ? pp_cell_dbl(c->gen_per_1k[2]) : pp_cell_null(),
            pp_cell_int(c->ops_per_iteration),
            pp_cell_int(c->n),
        };

        if (h->table_row(bt, row) != PP_OK)
            goto fail;
    }
    if ((it = pp_pc_table_new(h, ctx, &pp_bench_tables[PP_BENCH_T_ITERATIONS], 5, NULL)) == NULL)
        goto fail;
    if (PP_HOST_HAS(h, table_hint) && h->table_hint != NULL &&
        h->table_hint(it, "compare", "samples") != PP_OK)
        goto fail;
    for (uint32_t i = 0; i < st->count; i++) {
        const bn_case *c = &st->cases[i];

        for (uint32_t k = 0; k < c->nsamples; k++) {
            const bn_sample *s = &c->samples[k];
            pp_cell row[8] = {
                pp_cell_str(c->benchmark),  pp_cell_str(c->params),    pp_cell_str(c->job),
                pp_cell_int(s->launch),     pp_cell_int(s->iteration), pp_cell_dbl(s->per_op_ns),
                pp_cell_int(s->operations), pp_cell_dbl(s->ns),
            };

            if (h->table_row(it, row) != PP_OK)
                goto fail;
        }
    }
    return PP_OK;
fail:
    h->error_set(err, PP_EPLUGIN, "bench: could not write the result tables");
    return PP_EPLUGIN;
}

static int
findings(bn_state *st, pp_ctx *ctx)
{
    const pp_host_api *h = st->host;
    listing few = { 0 }, bimodal = { 0 }, varied = { 0 }, shortit = { 0 }, outl = { 0 },
            failed = { 0 }, nomem = { 0 }, nomeas = { 0 }, rounded = { 0 };
    char tail[48];
    double *scratch = NULL;
    uint32_t scratch_cap = 0;

    for (uint32_t i = 0; i < st->count; i++) {
        const bn_case *c = &st->cases[i];

        if (!(c->flags & PP_BENCH_HAS_STATISTICS)) {
            list_add(&failed, c, "%.0f results", 0);
            continue;
        }
        if (!(c->flags & PP_BENCH_HAS_MEMORY))
            list_add(&nomem, c, "%.0f B/op unknown", 0);
        if (c->flags & PP_BENCH_ALLOC_ROUNDED)
            list_add(&rounded, c, "%.0f B/op", (double)c->bytes_per_op);
        if (!(c->flags & PP_BENCH_HAS_MEASUREMENTS) || c->nsamples == 0)
            list_add(&nomeas, c, "mean %.4g ns", c->mean_ns);
        if (c->n < st->min_iterations)
            list_add(&few, c, "%.0f iterations", (double)c->n);
        else if (c->nsamples >= 3) {
            double mv;

            if (c->nsamples > scratch_cap) {
                double *g = realloc(scratch, c->nsamples * sizeof *g);

                if (g == NULL) {
                    free(scratch);
                    return PP_ENOMEM;
                }
                scratch = g;
                scratch_cap = c->nsamples;
            }
            for (uint32_t k = 0; k < c->nsamples; k++)
                scratch[k] = c->samples[k].per_op_ns;
            mv = bn_mvalue(scratch, c->nsamples);
            if (mv >= 3.2)
                list_add(&bimodal, c, "mvalue %.2f", mv);
        }
        if (c->mean_ns > 0 && 100.0 * c->stddev_ns / c->mean_ns > st->max_cv)
            list_add(&varied, c, "stddev %.1f%% of the mean", 100.0 * c->stddev_ns / c->mean_ns);
        if (c->min_actual_ns >= 0 && c->min_actual_ns < st->min_iteration_ms * 1e6)
            list_add(&shortit, c, "shortest %.1f ms", c->min_actual_ns / 1e6);
        if (c->outliers > 0)
            list_add(&outl, c, "%.0f removed", (double)c->outliers);
    }
    free(scratch);

    if (st->count == 0)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.no_cases",
                   "the export holds no benchmark "
                   "case: nothing was measured");
    if (st->configuration != NULL && strcasecmp(st->configuration, "DEBUG") == 0)
        h->finding(ctx, PP_SEVERITY_ERROR, "bench.debug_build",
                   "the benchmarks were built in "
                   "the DEBUG configuration: timings of unoptimized code mean nothing; rebuild "
                   "with -c Release");
    if (st->has_debugger == 1)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.debugger_attached",
                   "a debugger was attached "
                   "to the benchmark host: timings are distorted; run without it");
    if (failed.count)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.failed",
                   "%u case%s produced no result "
                   "(an exception or a build failure; see BenchmarkDotNet's log): %s%s",
                   failed.count, failed.count == 1 ? "" : "s", failed.text,
                   more(&failed, tail, sizeof tail));
    if (few.count)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.too_few_iterations",
                   "%u case%s measured "
                   "fewer than %lld iterations, the least BenchmarkDotNet needs to judge a "
                   "distribution (bimodality not checked; error bars are wide): %s%s; a "
                   "ShortRun answers 'does it run', a default job 'is it faster'",
                   few.count, few.count == 1 ? "" : "s", (long long)st->min_iterations, few.text,
                   more(&few, tail, sizeof tail));
    if (bimodal.count)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.bimodal",
                   "%u case%s look bimodal "
                   "(mvalue >= 3.2): the mean describes neither mode; look at the iterations "
                   "table: %s%s",
                   bimodal.count, bimodal.count == 1 ? "" : "s", bimodal.text,
                   more(&bimodal, tail, sizeof tail));
    if (varied.count)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.high_variance",
                   "%u case%s vary by more "
                   "than %.0f%% of their mean between iterations (a busy machine, GC, "
                   "or too short iterations): %s%s",
                   varied.count, varied.count == 1 ? "" : "s", st->max_cv, varied.text,
                   more(&varied, tail, sizeof tail));
    if (shortit.count)
        h->finding(ctx, PP_SEVERITY_WARNING, "bench.iteration_too_short",
                   "%u case%s had "
                   "measured iterations shorter than %.0f ms (timer and overhead noise "
                   "dominate): %s%s",
                   shortit.count, shortit.count == 1 ? "" : "s", st->min_iteration_ms, shortit.text,
                   more(&shortit, tail, sizeof tail));
    if (outl.count)
        h->finding(ctx, PP_SEVERITY_INFO, "bench.outliers_removed",
                   "%u case%s had outliers "
                   "removed from their statistics: %s%s",
                   outl.count, outl.count == 1 ? "" : "s", outl.text,
                   more(&outl, tail, sizeof tail));
    if (nomem.count)
        h->finding(ctx, PP_SEVERITY_INFO, "bench.no_memory",
                   "%u case%s ran without "
                   "[MemoryDiagnoser]: allocated bytes/op not measured (shown as 0): %s%s",
                   nomem.count, nomem.count == 1 ? "" : "s", nomem.text,
                   more(&nomem, tail, sizeof tail));
    if (nomeas.count)
        h->finding(ctx, PP_SEVERITY_INFO, "bench.no_measurements",
                   "%u case%s carry no "
                   "per-iteration measurements (a CSV summary or a brief JSON export): compare "
                   "cannot test their time statistically; export JsonExporter.Full: %s%s",
                   nomeas.count, nomeas.count == 1 ? "" : "s", nomeas.text,
                   more(&nomeas, tail, sizeof tail));
    if (rounded.count)
        h->finding(ctx, PP_SEVERITY_INFO, "bench.alloc_rounded",
                   "%u case%s show allocated "
                   "bytes/op rounded to KB/MB in the CSV summary: %s%s",
                   rounded.count, rounded.count == 1 ? "" : "s", rounded.text,
                   more(&rounded, tail, sizeof tail));
    return PP_OK;
}

int
bn_report(bn_state *st, pp_ctx *ctx, pp_error *err)
{
    const pp_host_api *h = st->host;
    int rc = tables(st, ctx, err);

    if (rc != PP_OK)
        return rc;
    if (findings(st, ctx) != PP_OK) {
        h->error_set(err, PP_ENOMEM, "bench: out of memory");
        return PP_ENOMEM;
    }
    h->total_int(ctx, "cases", PP_COL_COUNT, st->count);
    if (st->bdn_version != NULL && st->bdn_version[0] != '\0')
        h->total_string(ctx, "benchmarkdotnet", st->bdn_version);
    if (st->runtime != NULL && st->runtime[0] != '\0')
        h->total_string(ctx, "runtime", st->runtime);
    if (st->configuration != NULL && st->configuration[0] != '\0')
        h->total_string(ctx, "configuration", st->configuration);
    return PP_OK;
}
