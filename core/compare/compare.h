/* Private: comparing two result documents of the same pipeline (A/B).
 *
 * Totals first: every numeric total of every stage in both runs (absolute,
 * delta, relative). A total that some table's measure adds up to is an
 * AXIS (db: commands, db_ms; alloc: sampled_bytes, ticks; cpu: samples,
 * thread_time) and gates: counts and bytes past the noise, times past
 * max(noise, 25 %) unless a threshold names them (`totals.db_ms=10`).
 * Then every table is joined by its key columns. For each row: the absolute
 * figures of both runs and their delta first, relative delta and shares
 * after; a status (appeared, disappeared, grew, shrank, unchanged, or
 * replaced: a row that appeared while the axis total of its table fell by
 * at least replaced_percent — what the work became, not a regression); and
 * verdicts as findings: a row that appeared or disappeared is structural
 * (it survives a cross-session baseline), growth or shrinkage is
 * statistical (confirm with a same-session A/B, identical knobs), and
 * shares that moved while absolutes did not are flagged as inflation by
 * removal. A side whose input was truncated, damaged or lost events, or
 * whose stage is not "ok", cannot be judged: compare says so in every
 * stage (compare.cannot_judge) and in compared.verdict.
 *
 * Per unit of work (core/result/work.h): under closed-loop load a faster build
 * serves more requests in the same time, so every absolute grows with the
 * work. Every total and row figure is also divided by its side's work
 * (requests when both sides know them, else seconds of capture, else
 * benchmark operations) and the judgement is made on those rates; the
 * absolutes stay in the tables. Sampled rows and totals (alloc ticks, cpu
 * samples) change only when the conditional binomial test of the Poisson
 * rate ratio, with the two works as exposure, says p < 0.05
 * (compare_rate.c). The document leads with "verdict": improved, regressed,
 * no change or cannot judge, and what decided it. */
#ifndef PP_CORE_COMPARE_H
#define PP_CORE_COMPARE_H

#include <jansson.h>

#include <perfpipe/error.h>

typedef struct pp_compare_threshold {
    const char *table;  /* table name, "totals", or "*" */
    const char *column; /* measure column or total name, or "*" for the primary */
    double percent;     /* relative growth that counts as a regression */
} pp_compare_threshold;

typedef struct pp_compare_options {
    double noise_percent; /* |relative delta| <= this is unchanged; default 5 */
    int allow_knob_drift; /* compare anyway; every verdict is marked weakened */
    const pp_compare_threshold *thresholds;
    size_t nthresholds;
    double replaced_percent; /* an axis total down this much makes new rows "replaced"; 25 */
    /* Key values paired across the runs (--map OLD=NEW): a baseline row
     * whose key cell is map_old[i] joins the candidate's map_new[i]. */
    const char *const *map_old, *const *map_new;
    size_t nmap;
    int allow_wrong_process; /* judge a trace flagged as the wrong process anyway */
    const char *baseline_path, *candidate_path; /* the result files, for "inputs" */
    const char *per; /* the unit asked for: request, second, operation, run; NULL: auto */
    /* The replicates of each side when base and cand are their pools
     * (pp_compare_pool); nrep_b + nrep_c > 2 turns the between-run term
     * of the rate test on (compare_reps.c) and the time floors off. */
    const json_t *const *reps_b, *const *reps_c;
    size_t nrep_b, nrep_c;
} pp_compare_options;

typedef struct pp_compare_verdict {
    int regressions;     /* rows that appeared or grew past their threshold, axes that grew */
    int cannot_judge;    /* reasons a side cannot be judged (0 = both whole) */
    int improvements;    /* axes that fell per unit, rows fixed (gone while their axis fell) */
    const char *overall; /* "improved", "regressed", "no change" or "cannot judge" */
} pp_compare_verdict;

/* Compare base and cand (both validated perfpipe-result/1 documents).
 * *out is a new result document (pipeline "compare") whose stages mirror
 * the inputs'; *v says how many regressions were found and whether either
 * side cannot be judged.
 * Errors: PP_EINVAL when the documents come from different pipelines or
 * analyzers, incompatible analyzer versions (major differs), or differing
 * knobs without allow_knob_drift (the message lists each knob and both
 * values); PP_ENOMEM. */
int pp_compare(const json_t *base, const json_t *cand, const pp_compare_options *opt, json_t **out,
               pp_compare_verdict *v, pp_error *err);

/* One result document summing docs[0..n-1], captures of one side with the
 * same pipeline and knobs (replicates): counts, bytes, times, sample
 * counts and work add up (totals, and table rows joined by key); rates and
 * statistics of one operation (mean_ms, p99_ms, shares) are averaged. The
 * inputs of all are listed. *out is new. PP_OK or PP_ENOMEM. */
int pp_compare_pool(const json_t *const *docs, size_t n, json_t **out, pp_error *err);

#endif
