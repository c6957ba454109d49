/* Private: compare for tables that carry their own comparison method in
 * the result document ("hints": {"compare": ...}, set through the host's
 * table_hint). Kept apart from compare.c, which joins every other table.
 *
 *   "bench"   rows are BenchmarkDotNet cases (plugins/bench). Time: Welch's
 *             two-sample t-test on the per-iteration ns/op of the two runs
 *             (the table named by the "samples" hint), one-sided both ways
 *             against a threshold shift, as BenchmarkDotNet's own
 *             statistical test does: the candidate is "slower" when its mean
 *             exceeds the baseline's by more than the threshold with
 *             p < 0.05, "faster" symmetrically, else "same". The threshold
 *             is max(relative % of the baseline mean, absolute ns): the
 *             relative part is the compare noise (--noise, default 5 %) or a
 *             threshold naming the table, the absolute part the table's
 *             "min_delta_ns" hint. Allocated bytes/op are deterministic and
 *             compared exactly: any change is a structural verdict.
 *   "samples" a table of per-iteration samples read through the table that
 *             names it; never joined row by row.
 * Regressions: a case that appeared, allocates more, or is slower. */
#ifndef PP_CORE_COMPARE_STATS_H
#define PP_CORE_COMPARE_STATS_H

#include <jansson.h>

#include <perfpipe/error.h>

#include "compare.h"

/* Significance of the one-sided tests. */
#define PP_COMPARE_ALPHA 0.05

/* When table tb (baseline stage sb) has a compare hint, compare it with tc
 * (candidate stage sc) into out_stage and return 1 (handled, *rc the
 * status); return 0 for a table compare.c joins itself. A table that cannot
 * be compared (a key or judged column on one side only) appends why to
 * reasons (the verdict is then "cannot judge"). */
int pp_compare_hinted(const json_t *sb, const json_t *sc, const json_t *tb, const json_t *tc,
                      json_t *out_stage, const pp_compare_options *o, const char *weakened,
                      int *regressions, json_t *reasons, int *rc, pp_error *err);

/* One-sided Welch test: p-value of "mean(y) - mean(x) > shift" given the two
 * samples' means, variances (n - 1) and sizes; NAN when either n < 2. */
double pp_welch_p_greater(double mx, double vx, double nx, double my, double vy, double ny,
                          double shift);

/* Student's t distribution: P(T <= t) with df degrees of freedom (df > 0). */
double pp_student_t_cdf(double t, double df);

/* The lookups of a hinted compare (borrowed from the document; NULL or -1
 * when absent): a table's hint `key`, a stage's table `name`, the index of
 * a table's column `name`. */
const char *pp_compare_hint(const json_t *table, const char *key);
const json_t *pp_compare_table(const json_t *stage, const char *name);
int pp_compare_col(const json_t *table, const char *name);

#endif
