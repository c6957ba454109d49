/* Private: comparing two result documents of the same pipeline (A/B).
 *
 * Every table is joined by its key columns. For each row: the absolute
 * figures of both runs and their delta first, relative delta and shares
 * after; a status (appeared, disappeared, grew, shrank, unchanged — the
 * primary measure, the first non-percent numeric column, moved by more than
 * the noise threshold); and verdicts as findings: a row that appeared or
 * disappeared is structural (it survives a cross-session baseline), growth
 * or shrinkage is statistical (confirm with a same-session A/B, identical
 * knobs), and shares that moved while absolutes did not are flagged as
 * inflation by removal. */
#ifndef PP_CORE_COMPARE_H
#define PP_CORE_COMPARE_H

#include <jansson.h>

#include <perfpipe/error.h>

typedef struct pp_compare_threshold {
    const char *table;           /* table name, or "*" */
    const char *column;          /* measure column, or "*" for the primary */
    double percent;              /* relative growth that counts as a regression */
} pp_compare_threshold;

typedef struct pp_compare_options {
    double noise_percent;        /* |relative delta| <= this is unchanged; default 5 */
    int allow_knob_drift;        /* compare anyway; every verdict is marked weakened */
    const pp_compare_threshold *thresholds;
    size_t nthresholds;
} pp_compare_options;

/* Compare base and cand (both validated perfpipe-result/1 documents).
 * *out is a new result document (pipeline "compare") whose stages mirror
 * the inputs'. *regressions counts rows that appeared, or whose measure grew
 * beyond its threshold (the noise when none is given).
 * Errors: PP_EINVAL when the documents come from different pipelines or
 * analyzers, incompatible analyzer versions (major differs), or differing
 * knobs without allow_knob_drift (the message lists each knob and both
 * values). */
int pp_compare(const json_t *base, const json_t *cand, const pp_compare_options *opt,
               json_t **out, int *regressions, pp_error *err);

#endif
