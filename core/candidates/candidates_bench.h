/* Private: the L1 step of a candidate's verification plan. When the run's
 * knobs name the BenchmarkDotNet benchmark that covers a candidate, its
 * plan ends with that benchmark: rerun it and compare its results with the
 * bench pipeline. Knobs (pipeline `knobs:` or --set):
 *   benchmark         the benchmark's name as the bench analyzer shows it
 *                     (Namespace.Type.Method), e.g.
 *                     Perfpipe.Benchmarks.KeyBench.FormatKeys;
 *   benchmark_covers  optional, comma-separated: the benchmark covers only
 *                     candidates whose frame, method or command contains one
 *                     of these; without it, every candidate of the run. */
#ifndef PP_CORE_CANDIDATES_BENCH_H
#define PP_CORE_CANDIDATES_BENCH_H

#include <stddef.h>

#include <jansson.h>

/* Append the benchmark step to the plan in buf (NUL-terminated, size bytes)
 * when the knobs name a benchmark covering target; axis is the candidate's
 * ("allocation churn", "time ...", "footprint ..."). Never fails: a plan
 * that does not fit is cut. */
void pp_candidates_bench_plan(const json_t *knobs, const char *axis, const char *target, char *buf,
                              size_t size);

#endif
