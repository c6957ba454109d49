/* plugins/bench: shared state of the BenchmarkDotNet results analyzer
 * (issue #23). consume() copies each case out of the borrowed record;
 * finish() writes the tables and BenchmarkDotNet's own warnings. */
#ifndef PP_PLUGIN_BENCH_H
#define PP_PLUGIN_BENCH_H

#include <stdint.h>

#include <perfpipe/plugin.h>

typedef struct bn_sample {
    uint32_t launch, iteration;
    int64_t operations;
    double ns; /* the whole iteration */
    double per_op_ns;
} bn_sample;

typedef struct bn_case {
    char *benchmark, *params, *job;
    uint32_t flags; /* PP_BENCH_HAS_* of the record */
    uint32_t n, outliers;
    double mean_ns, error_ns, stddev_ns, median_ns;
    int64_t bytes_per_op, total_operations;
    double gen_per_1k[3];
    int64_t ops_per_iteration; /* of the measured (Result) iterations */
    double min_actual_ns;      /* shortest measured iteration, -1 if none */
    bn_sample *samples;        /* Workload/Result measurements */
    uint32_t nsamples;
} bn_case;

typedef struct bn_state {
    const pp_host_api *host;
    pp_ctx *ctx;
    double max_cv;           /* % stddev/mean above which variance is high */
    int64_t min_iterations;  /* fewer than this: too few to judge the distribution */
    double min_iteration_ms; /* shorter measured iterations: BDN's MinIterationTime */
    double min_delta_ns;     /* absolute floor of compare's threshold (hint) */
    bn_case *cases;
    uint32_t count, cap;
    char *bdn_version, *runtime, *configuration;
    int32_t has_debugger;
} bn_state;

/* BenchmarkDotNet-style modality of a sample: the mvalue of its histogram
 * (about 2 for one mode, 4 or more for two). values is reordered. */
double bn_mvalue(double *values, uint32_t n);

int bn_report(bn_state *st, pp_ctx *ctx, pp_error *err);

/* The tables finish writes, by their place in pp_bench_tables (bench.c: the descriptor's
 * declarations, each writer makes its table from its entry). */
enum {
    PP_BENCH_T_BENCHMARKS,
    PP_BENCH_T_ITERATIONS,
};
extern const pp_table_decl pp_bench_tables[];

#endif
