/* Private: compare for a table whose rows come with their per-request
 * sample (hints: "compare": "quantile"). A load tool that writes one line
 * per request (hey -o csv, k6 --out json, vegeta encode) gives the whole
 * distribution, so a percentile is judged by a test on the two samples
 * instead of by a threshold on two printed figures.
 *
 * The table's hints name the parts (values are strings, as every hint):
 *   "samples"      the table of per-request values (its own hint "compare":
 *                  "samples": never joined row by row);
 *   "sample_key"   the column both tables share (a row's key: URL, scope);
 *   "sample_value" the samples table's value column (a latency);
 *   "quantile"     the percentile judged, in (0, 100): "95";
 *   "unit"         the values' unit, for the messages ("ms").
 *
 * The test: a bootstrap percentile interval of the difference of the two
 * runs' nearest-rank quantiles (candidate - baseline), 2,000 resamples of
 * each run with replacement, a fixed seed (the verdict is reproducible).
 * The candidate is "slower" when the whole 95 % interval lies above
 * +threshold, "faster" when below -threshold, else "same"; the threshold is
 * a named one (--threshold TABLE=PCT or TABLE.pNN=PCT) else
 * max(--noise, PP_COMPARE_QUANTILE_FLOOR) percent of the baseline quantile:
 * the bootstrap models the requests' own spread, not the run-to-run noise
 * of the machine, which the floor covers. A slower row is a regression. */
#ifndef PP_CORE_COMPARE_QUANTILE_H
#define PP_CORE_COMPARE_QUANTILE_H

#include <jansson.h>

#include <perfpipe/error.h>

#include "compare.h"

#define PP_COMPARE_QUANTILE_FLOOR     25.0 /* percent of the baseline quantile */
#define PP_COMPARE_QUANTILE_RESAMPLES 2000
#define PP_COMPARE_QUANTILE_MIN_N     20 /* fewer values on a side: no verdict */

/* What a quantile compare adds to the verdict. */
typedef struct pp_quantile_tally {
    int *regressions, *improvements; /* a slower row, a faster row */
    json_t *decided;                 /* the verdict's decided_by: a line per verdict */
    size_t max_decided;
} pp_quantile_tally;

/* Compare table tb (baseline stage sb) with tc (candidate stage sc) into
 * out_stage when both carry the quantile hints and their samples tables:
 * returns 1 (handled, *rc the status: PP_OK, PP_ENOMEM with err). Returns
 * 0 when either side lacks them: the caller joins the table as usual (a
 * run without per-request lines is judged by thresholds). */
int pp_compare_quantile(const json_t *sb, const json_t *sc, const json_t *tb, const json_t *tc,
                        json_t *out_stage, const pp_compare_options *o, const char *weakened,
                        const pp_quantile_tally *tally, int *rc, pp_error *err);

/* The bootstrap interval [*lo, *hi] (95 %) of quantile q (0..100, nearest
 * rank) of y minus that of x, from `resamples` resamples with the given
 * seed. x and y are not changed. PP_OK, PP_EINVAL (an empty side, q out of
 * range), PP_ENOMEM. */
int pp_quantile_diff_interval(const double *x, size_t nx, const double *y, size_t ny, double q,
                              unsigned resamples, uint64_t seed, double *lo, double *hi);

#endif
