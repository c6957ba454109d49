/* Private to compare*.c: the joined view of one table and of one stage's
 * totals, shared by the join (compare_join.c), the classification of rows
 * and totals (compare_classify.c) and the output (compare_emit.c). */
#ifndef PP_CORE_COMPARE_INTERNAL_H
#define PP_CORE_COMPARE_INTERNAL_H

#include <jansson.h>

#include <perfpipe/error.h>

#include "compare.h"

#define CMP_MAX_COLUMNS 64
#define CMP_MAX_AXES 32

typedef struct cmp_col {
    const char *name;
    uint32_t type;               /* PP_COL_* */
    size_t index;                /* in the row array */
} cmp_col;

typedef struct cmp_row {
    const json_t *b, *c;         /* rows, NULL when absent */
    double delta;                /* primary measure */
    const char *status;
    int noise;                   /* too few samples for the change to mean anything */
} cmp_row;

/* One total of a stage in both runs. */
typedef struct cmp_total {
    const char *name;
    uint32_t type;               /* PP_COL_* of the total */
    double b, c;
    int in_b, in_c;
    int axis;                    /* some table's measure adds up to it: it gates */
} cmp_total;

typedef struct cmp_stage {
    cmp_total totals[CMP_MAX_AXES];
    size_t ntotals;
} cmp_stage;

typedef struct cmp_table {
    const char *name;
    cmp_col keys[CMP_MAX_COLUMNS], measures[CMP_MAX_COLUMNS], shares[CMP_MAX_COLUMNS];
    size_t keyidx[CMP_MAX_COLUMNS];
    size_t nkey, nmeas, nshare;
    int samples_col;             /* a sampled table's count column, or -1 */
    int stack_table;             /* a flame-graph table (first key `stack`) */
    const cmp_total *axis;       /* the total the primary measure adds up to, or NULL */
    cmp_row *rows;
    size_t nrows;
} cmp_table;

/* compare_join.c */
double cmp_num(const json_t *v);
/* Classify tb's columns into t. 1 = a comparable A/B table, 0 = not one
 * (no key or no measure, too many columns). */
int cmp_columns(const json_t *tb, cmp_table *t);
/* Join the rows of both runs by key into t->rows (t->nrows). PP_OK or
 * PP_ENOMEM. */
int cmp_join(const json_t *tb, const json_t *tc, cmp_table *t);
void cmp_table_free(cmp_table *t);

/* compare_classify.c */
/* Both runs' numeric totals of one stage. */
void cmp_stage_totals(const json_t *stage_b, const json_t *stage_c, cmp_stage *s);
/* The total a measure column adds up to (same name, or the analyzer's
 * name for that axis: count -> commands, total_ms -> db_ms, bytes ->
 * sampled_bytes, samples -> ticks...), or NULL. */
cmp_total *cmp_axis_of(cmp_stage *s, const char *column);
/* Relative change of a total in percent (NAN when the base is 0). */
double cmp_total_rel(const cmp_total *t);
/* The regression threshold of a measure. */
double cmp_threshold(const pp_compare_options *o, const char *table, const char *column,
                     int primary, int stack_table);
/* 1 when a total grew past its gate. */
int cmp_total_regressed(const pp_compare_options *o, const cmp_total *t);
/* Status of every joined row; "replaced" for a row that appeared while its
 * axis total fell by at least o->replaced_percent. */
void cmp_classify_rows(cmp_table *t, const pp_compare_options *o);

/* compare_emit.c */
int cmp_emit_totals(json_t *out_stage, const cmp_stage *s, const pp_compare_options *o,
                    int *regressions, pp_error *err);
int cmp_emit_table(json_t *out_stage, const cmp_table *t, const pp_compare_options *o,
                   const char *weakened, int *regressions, pp_error *err);

#endif
