/* plugins/bench: the tables finish writes, declared once (ABI 1.5): the
 * descriptor hands these declarations to the host, and each writer makes
 * its table from its entry (../common/decl.h). Apart from the analyzer and
 * the writers, which both read it, so that neither calls the other back. */
#include "config.h"

#include <stddef.h>

#include "bench.h"

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_bench_tables[] = {
    [PP_BENCH_T_BENCHMARKS] = {
        .name = "benchmarks",
        .columns = (const pp_column[]){ { "benchmark", PP_COL_STRING, 0 },
                                        { "params", PP_COL_STRING, 0 },
                                        { "job", PP_COL_STRING, 0 },
                                        { "mean_ns", PP_COL_NUMBER, 0 },
                                        { "error_ns", PP_COL_NUMBER, 0 },
                                        { "median_ns", PP_COL_NUMBER, 0 },
                                        { "stddev_ns", PP_COL_NUMBER, 0 },
                                        { "allocated_b_op", PP_COL_BYTES, 0 },
                                        { "gen0_per_1k_op", PP_COL_NUMBER, 0 },
                                        { "gen1_per_1k_op", PP_COL_NUMBER, 0 },
                                        { "gen2_per_1k_op", PP_COL_NUMBER, 0 },
                                        { "operations", PP_COL_COUNT, 0 },
                                        { "iterations", PP_COL_COUNT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "benchmark", "params", "job", NULL },
        .subject = "benchmark",
        .figures = (const pp_figure_decl[]){ { "mean_ns", "ns_per_operation", PP_AXIS_TIME },
                                             { "median_ns", "ns_per_operation", PP_AXIS_TIME },
                                             { "allocated_b_op", "bytes_per_operation",
                                               PP_AXIS_ALLOCATION },
                                             { "gen0_per_1k_op", "collections_per_1k_operations",
                                               PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    [PP_BENCH_T_ITERATIONS] = {
        .name = "iterations",
        .columns = (const pp_column[]){ { "benchmark", PP_COL_STRING, 0 },
                                        { "params", PP_COL_STRING, 0 },
                                        { "job", PP_COL_STRING, 0 },
                                        { "launch", PP_COL_COUNT, 0 },
                                        { "iteration", PP_COL_COUNT, 0 },
                                        { "per_op_ns", PP_COL_NUMBER, 0 },
                                        { "operations", PP_COL_COUNT, 0 },
                                        { "iteration_ns", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "benchmark", "params", "job", "launch", "iteration", NULL },
        .figures = (const pp_figure_decl[]){ { "per_op_ns", "ns_per_operation", PP_AXIS_TIME },
                                             { NULL, NULL, NULL } },
    },
    { .name = NULL },
};
