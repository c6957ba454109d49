/* Private to compare*.c: the joined view of one table and of one stage's
 * totals, shared by the join (compare_join.c), the classification of rows
 * and totals (compare_classify.c) and the output (compare_emit.c). */
#ifndef PP_CORE_COMPARE_INTERNAL_H
#define PP_CORE_COMPARE_INTERNAL_H

#include <jansson.h>

#include <perfpipe/error.h>

#include "compare.h"

#define CMP_MAX_COLUMNS 64
#define CMP_MAX_AXES    32

typedef struct cmp_col {
    const char *name;
    uint32_t type; /* PP_COL_* */
    size_t index;  /* in the row array */
} cmp_col;

typedef struct cmp_row {
    const json_t *b, *c; /* rows, NULL when absent */
    double delta;        /* primary measure */
    const char *status;
    int noise;       /* too few samples for the change to mean anything */
    double rel_unit; /* relative change per unit of work (%), NAN when one side lacks it */
    double p;        /* the rate test's p-value (sampled tables), else NAN */
    double ratio_lo, ratio_hi; /* its 95 % interval of the rate ratio cand / base */
    int testable;              /* enough samples that the test could ever reach p < alpha */
    double between;            /* replicates: the between-run variance of its log rate used */
} cmp_row;

/* One total of a stage in both runs. */
typedef struct cmp_total {
    const char *name;
    uint32_t type; /* PP_COL_* of the total */
    double b, c;
    int in_b, in_c;
    int axis;               /* some table's measure adds up to it: it gates */
    int work;               /* it is the unit of work itself (requests per request) */
    double eb, ec;          /* the work each side did: per unit = b / eb */
    const double *kb, *kc;  /* the stage's sample counts when its figures are sampled */
    int dual;               /* its move must hold in the absolutes too */
    int timed;              /* a time sampler's sample count (a declared figure in samples on the
                  time axis adds up to it): gates as a time */
    int thin_tail;          /* a latency percentile with too few requests beyond it */
    const char *not_judged; /* why its analyzer declares it not judged (a table's hints
                               "not_judged" and "not_judged_why", on either side), or NULL */
    const char *kname;      /* the total kb counts (its own, samples or ticks), or NULL */
    int reps;               /* rep_p is the replicate test's p (compare_reps.c) */
    double rep_p;
    double alpha; /* its test's level: CMP_ALPHA, Bonferroni over a stage's with replicates */
} cmp_total;

/* The unit of work both sides are divided by. */
typedef struct cmp_work {
    const char *unit; /* "request", "second", "operation", or "run" (absolute) */
    double eb, ec;    /* 1 and 1 for "run" */
    int dual;         /* per second: a move must hold per run too (see compare_verdict.c) */
} cmp_work;

typedef struct cmp_stage {
    cmp_total totals[CMP_MAX_AXES];
    size_t ntotals;
    cmp_work w;
    double kb, kc; /* its sample count total (ticks, samples), when it has one */
    int sampled;
} cmp_stage;

/* What the comparison found, across stages. */
typedef struct cmp_judge {
    int regressions, improvements;
    json_t *decided;      /* strings: what decided the verdict (moves of both kinds) */
    char not_judged[768]; /* "load mean_ms, p99_ms (why)": axes shown, not judged */
} cmp_judge;

#define CMP_ALPHA 0.05
/* One capture per side: the run-to-run floors of times and latency
 * statistics (compare_classify.c says where they come from). */
#define CMP_TIME_NOISE    60.0
#define CMP_LATENCY_NOISE 150.0
#define CMP_MAX_DECIDED   40 /* verdict.decided_by keeps this many moves */

typedef struct cmp_table {
    const char *name;
    cmp_col keys[CMP_MAX_COLUMNS], measures[CMP_MAX_COLUMNS], shares[CMP_MAX_COLUMNS];
    size_t keyidx[CMP_MAX_COLUMNS];
    size_t nkey, nmeas, nshare;
    int samples_col;       /* a sampled table's count column, or -1 */
    int counts_exact;      /* ... which is an exact event count, not samples */
    int local;             /* keyed by a process-local id (a thread): shown, never judged */
    const char *shown;     /* NULL, or why the table is shown and never judged (its
                                    declaration: waits, or a view another table judges) */
    double alpha;          /* a row's significance level: CMP_ALPHA / rows tested */
    int stack_table;       /* a flame-graph table (first key `stack`) */
    const cmp_total *axis; /* the total the primary measure adds up to, or NULL */
    const cmp_total *own;  /* the table's own total (cmp_own_of), or NULL */
    const char *stage;     /* its stage's id, to name it in the verdict */
    cmp_work w;
    cmp_row *rows;
    size_t nrows;
    double between;      /* replicates: the pooled between-run variance, NAN without */
    size_t between_rows; /* ... pooled over this many rows */
} cmp_table;

/* The sample counts k and works e of one row or total in each replicate
 * of both sides. */
typedef struct cmp_sides {
    double *kb, *eb;
    size_t nb;
    double *kc, *ec;
    size_t nc;
} cmp_sides;

/* Whether o judges replicates (more than one capture on a side). */
#define CMP_REPLICATES(o) ((o)->nrep_b + (o)->nrep_c > 2)

/* compare_join.c */
double cmp_num(const json_t *v);
/* The first object of array whose string member field is value, or NULL. */
json_t *cmp_find_by(const json_t *array, const char *field, const char *value);
/* Classify tb's columns into t. 1 = a comparable A/B table, 0 = not one
 * (no key or no measure, too many columns). */
int cmp_columns(const json_t *tb, cmp_table *t);
/* Join the rows of both runs by key into t->rows (t->nrows). PP_OK or
 * PP_ENOMEM. */
int cmp_join(const json_t *tb, const json_t *tc, cmp_table *t, const pp_compare_options *o);

/* The two sides of one table with different column sets (one side read a
 * frame's source lines from the files its trace named, the other did not).
 * Returns 1 when the table can be compared on the columns both share: *pb
 * and *pc are then new copies of tb and tc cut to those columns (NULL, NULL
 * when the column sets are equal), and *one_side (new, or NULL) names the
 * columns only one side has ({"baseline": [..], "candidate": [..]}).
 * Returns 0 when a key, or a figure the gate judges (a measure or a share),
 * is missing on one side or changed type: why then says which. -1: out of
 * memory. */
int cmp_shared_columns(const json_t *tb, const json_t *tc, json_t **pb, json_t **pc,
                       json_t **one_side, char *why, size_t whysz);
void cmp_table_free(cmp_table *t);

/* compare_classify.c */
/* Both runs' numeric totals of one stage, divided by w. */
void cmp_stage_totals(const json_t *stage_b, const json_t *stage_c, const cmp_work *w,
                      cmp_stage *s);
/* The total a measure column adds up to (same name, or the analyzer's
 * name for that axis: count -> commands, total_ms -> db_ms, bytes ->
 * sampled_bytes, samples -> ticks...), or NULL. It gates, and a row's
 * move is material against it. */
cmp_total *cmp_axis_of(cmp_stage *s, const char *column);
/* The table's own sample count <table>_samples (cpu's running, blocking:
 * their rows add up to it, not to every thread's samples with idle waits),
 * or NULL: a row that disappeared while it fell is fixed. */
cmp_total *cmp_own_of(cmp_stage *s, const char *table);
/* NULL when table tb of a stage whose tables are `tables` is judged, else
 * why it is only shown: its declaration says its rows are waits (no work a
 * change removes unless a rule names them; the stage's own blocking table
 * judges those that are), or that another table present supersedes it. */
const char *cmp_shown_only(const json_t *tb, const json_t *tables);
/* Relative change of a total per unit of work in percent (NAN when the
 * base is 0); cmp_total_abs_rel: of the absolutes. */
double cmp_total_rel(const cmp_total *t);
double cmp_total_abs_rel(const cmp_total *t);
/* +1 when a total grew past its gate per unit of work, -1 when it fell
 * past it, 0 otherwise (not an axis, within noise, or not significant). */
int cmp_total_moved(const pp_compare_options *o, const cmp_total *t);
/* The p-value of a total's rate test, NAN when its stage is not sampled. */
double cmp_total_p(const cmp_total *t);
/* The regression threshold of a measure. */
double cmp_threshold(const pp_compare_options *o, const char *table, const char *column,
                     int primary, int stack_table);
/* The move per unit of work past which a row of t grew or shrank: its
 * threshold, and for a table of times (thread time, a time sampler's
 * samples) at least the time noise, as the totals (cmp_total_moved),
 * unless a threshold names the table. */
double cmp_row_limit(const pp_compare_options *o, const cmp_table *t);
/* Status of every joined row; "replaced" for a row that appeared while its
 * axis total fell by at least o->replaced_percent. */
int cmp_classify_rows(cmp_table *t, const pp_compare_options *o);

/* compare_emit.c */
int cmp_emit_totals(json_t *out_stage, const cmp_stage *s, const pp_compare_options *o,
                    const char *stage_id, cmp_judge *j, pp_error *err);
int cmp_emit_table(json_t *out_stage, const cmp_table *t, const pp_compare_options *o,
                   const char *weakened, cmp_judge *j, pp_error *err);
/* "1.5 KB" for a figure of a column type. */
void cmp_human(char *buf, size_t size, uint32_t type, double v);

/* compare_pool.c */
/* The key cells of row joined by \x1f into buf; 0 when they do not fit. */
int cmp_row_key(const json_t *row, const size_t *keyidx, size_t nkey, char *buf, size_t size);
/* An object key -> row (borrowed) of table tb's rows; NULL out of memory. */
json_t *cmp_row_index(const json_t *tb, const cmp_table *t);

/* compare_reps.c: the between-run term from replicates (see there) */
/* The between-run variance c2 of a log rate, with its degrees of freedom. */
void cmp_reps_between(const cmp_sides *s, double *c2, double *df);
/* The rate test with between-run variance c2: p-value and 95 % interval
 * of the rate ratio; df > 0: Student's t, else the normal. */
void cmp_reps_test(const cmp_sides *s, double c2, double df, double *p, double *lo, double *hi);
/* p, interval and between of every row of a sampled table. PP_OK, PP_ENOMEM. */
int cmp_reps_rows(cmp_table *t, const pp_compare_options *o);
/* rep_p of every sampled total of stage `stage`. PP_OK or PP_ENOMEM. */
int cmp_reps_totals(cmp_stage *st, const char *stage, const pp_compare_options *o);

/* compare_rate.c: sampled counts kb, kc over works eb, ec (see there) */
/* Two-sided p-value of "the rates are equal"; NAN without work. */
double cmp_rate_p(double kb, double kc, double eb, double ec);
/* 1 when n = kb + kc samples could ever give p < CMP_ALPHA. */
int cmp_rate_testable(double kb, double kc, double eb, double ec);
/* 95 % interval of the rate ratio (kc / ec) / (kb / eb). */
void cmp_rate_ratio_ci(double kb, double kc, double eb, double ec, double *lo, double *hi);

/* compare_verdict.c */
/* The unit both documents' work share (request, second, operation), and
 * the work of each; "run" (1 and 1) when they share none. per (not NULL)
 * asks for one unit: when a side lacks it, the judgement falls back as
 * without it and *note says so. */
void cmp_work_of(const json_t *base, const json_t *cand, const char *per, cmp_work *w,
                 json_t **note);
/* Add reasons a side cannot be judged because its trace is of the wrong
 * process (inputs[].nettrace.process.wrong_process). */
void cmp_wrong_process(const json_t *doc, const char *side, json_t *reasons);
/* Fill compare's "inputs" (both results: path, process, knobs, work). */
int cmp_inputs(json_t *doc, const json_t *base, const json_t *cand, const pp_compare_options *o);
/* The document with "verdict" first (after "format"): the overall verdict,
 * its line and what decided it. Consumes doc; NULL when out of memory. */
json_t *cmp_lead_with_verdict(json_t *doc, const cmp_judge *j, int cannot_judge, const cmp_work *w,
                              const json_t *reasons, const pp_compare_options *o,
                              pp_compare_verdict *v);

#endif
