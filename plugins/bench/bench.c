/* plugins/bench: the descriptor and record intake of the BenchmarkDotNet
 * results analyzer. Each case is copied out of the borrowed record: its
 * summary figures and its measured (Workload/Result) iterations. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "bench.h"

static const pp_option_decl options[] = {
    { "max_cv", PP_OPT_DOUBLE, 0, "10", "stddev/mean (%) above which a case's variance is high" },
    { "min_iterations", PP_OPT_INT, 0, "15",
      "measured iterations below which the distribution cannot be judged (BenchmarkDotNet: 15)" },
    { "min_iteration_ms", PP_OPT_DOUBLE, 0, "100",
      "measured iterations shorter than this are too short (BenchmarkDotNet: 100 ms)" },
    { "min_delta_ns", PP_OPT_DOUBLE, 0, "1",
      "absolute floor of compare's threshold: a shift below this many ns/op is the same" },
};

static int
bn_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state, pp_error *err)
{
    bn_state *st = calloc(1, sizeof *st);

    if (st == NULL) {
        host->error_set(err, PP_ENOMEM, "bench: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->ctx = ctx;
    st->max_cv = 10;
    st->min_iterations = 15;
    st->min_iteration_ms = 100;
    st->min_delta_ns = 1;
    st->has_debugger = -1;
    if (host->opt_double(opts, "max_cv", &st->max_cv) == PP_EINVAL ||
        host->opt_int(opts, "min_iterations", &st->min_iterations) == PP_EINVAL ||
        host->opt_double(opts, "min_iteration_ms", &st->min_iteration_ms) == PP_EINVAL ||
        host->opt_double(opts, "min_delta_ns", &st->min_delta_ns) == PP_EINVAL) {
        free(st);
        host->error_set(err, PP_EINVAL, "bench: bad option type");
        return PP_EINVAL;
    }
    if (!(st->max_cv > 0) || st->min_iterations < 2 || st->min_iteration_ms < 0 ||
        st->min_delta_ns < 0) {
        free(st);
        host->error_set(err, PP_EINVAL,
                        "bench: max_cv must be > 0, min_iterations >= 2, "
                        "min_iteration_ms and min_delta_ns >= 0");
        return PP_EINVAL;
    }
    *state = st;
    return PP_OK;
}

static char *
dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

static int
copy_env(bn_state *st, const pp_bench_result *b)
{
    if (st->bdn_version != NULL)
        return PP_OK;
    st->bdn_version = dup_or_empty(b->bdn_version);
    st->runtime = dup_or_empty(b->runtime_version);
    st->configuration = dup_or_empty(b->configuration);
    st->has_debugger = b->has_debugger;
    return st->bdn_version && st->runtime && st->configuration ? PP_OK : PP_ENOMEM;
}

static int
copy_samples(bn_case *c, const pp_bench_result *b)
{
    uint32_t n = 0;

    c->min_actual_ns = -1;
    if (!(b->flags & PP_BENCH_HAS_MEASUREMENTS))
        return PP_OK;
    for (uint32_t i = 0; i < b->measurement_count; i++) {
        const pp_bench_measurement *m = &b->measurements[i];

        if (m->mode != PP_BENCH_MODE_WORKLOAD)
            continue;
        if (m->stage == PP_BENCH_STAGE_RESULT)
            n++;
        if (m->stage == PP_BENCH_STAGE_ACTUAL &&
            (c->min_actual_ns < 0 || m->nanoseconds < c->min_actual_ns))
            c->min_actual_ns = m->nanoseconds;
    }
    if (n == 0)
        return PP_OK;
    if ((c->samples = calloc(n, sizeof *c->samples)) == NULL)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < b->measurement_count; i++) {
        const pp_bench_measurement *m = &b->measurements[i];
        bn_sample *s;

        if (m->mode != PP_BENCH_MODE_WORKLOAD || m->stage != PP_BENCH_STAGE_RESULT)
            continue;
        s = &c->samples[c->nsamples++];
        s->launch = m->launch_index;
        s->iteration = m->iteration_index;
        s->operations = m->operations;
        s->ns = m->nanoseconds;
        s->per_op_ns = m->nanoseconds / (double)m->operations;
        c->ops_per_iteration = m->operations;
    }
    return PP_OK;
}

static int
bn_consume(void *state, const pp_record *rec, pp_error *err)
{
    bn_state *st = state;
    const pp_bench_result *b;
    bn_case *c;

    if (rec->kind != PP_KIND_BENCH)
        return PP_OK;
    b = rec->u.bench;
    if (st->count == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 16;
        bn_case *g = realloc(st->cases, (size_t)cap * sizeof *g);

        if (g == NULL)
            goto nomem;
        st->cases = g;
        st->cap = cap;
    }
    c = &st->cases[st->count];
    memset(c, 0, sizeof *c);
    c->benchmark = dup_or_empty(b->benchmark);
    c->params = dup_or_empty(b->parameters);
    c->job = dup_or_empty(b->job);
    st->count++; /* owned from here: destroy frees it even if the rest fails */
    if (c->benchmark == NULL || c->params == NULL || c->job == NULL || copy_env(st, b) != PP_OK ||
        copy_samples(c, b) != PP_OK)
        goto nomem;
    c->flags = b->flags;
    c->n = b->n;
    c->outliers = b->outliers;
    c->mean_ns = b->mean_ns;
    c->error_ns = b->error_ns;
    c->stddev_ns = b->stddev_ns;
    c->median_ns = b->median_ns;
    c->bytes_per_op = b->bytes_per_op;
    c->total_operations = b->total_operations;
    c->gen_per_1k[0] = b->gen0_per_1k;
    c->gen_per_1k[1] = b->gen1_per_1k;
    c->gen_per_1k[2] = b->gen2_per_1k;
    if (!(b->flags & PP_BENCH_HAS_MEASUREMENTS))
        c->ops_per_iteration = 0;
    return PP_OK;
nomem:
    st->host->error_set(err, PP_ENOMEM, "bench: out of memory after %u cases", (unsigned)st->count);
    return PP_ENOMEM;
}

static int
bn_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return bn_report(state, ctx, err);
}

static void
bn_destroy(void *state)
{
    bn_state *st = state;

    if (st == NULL)
        return;
    for (uint32_t i = 0; i < st->count; i++) {
        free(st->cases[i].benchmark);
        free(st->cases[i].params);
        free(st->cases[i].job);
        free(st->cases[i].samples);
    }
    free(st->cases);
    free(st->bdn_version);
    free(st->runtime);
    free(st->configuration);
    free(st);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "bench",
    .version = "1.0.0",
    .summary =
        "BenchmarkDotNet results: time and allocation per case, with BenchmarkDotNet's warnings",
    .input_kinds = PP_KIND_BENCH,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof options / sizeof options[0],
    .options = options,
    .create = bn_create,
    .consume = bn_consume,
    .finish = bn_finish,
    .destroy = bn_destroy,
    .tables = pp_bench_tables,
};

PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);

PP_PLUGIN_EXPORT const pp_analyzer *
perfpipe_plugin_entry(void)
{
    return &descriptor;
}
