/* compare: what changed. Totals of both runs, which total each measure
 * adds up to (its axis), the gates, and the status of every joined row. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "result/result.h"

static int
numeric(uint32_t t)
{
    return t == PP_COL_COUNT || t == PP_COL_BYTES || t == PP_COL_DURATION_NS ||
           t == PP_COL_NUMBER || t == PP_COL_PERCENT;
}

static cmp_total *
find_total(cmp_stage *s, const char *name)
{
    for (size_t i = 0; i < s->ntotals; i++)
        if (strcmp(s->totals[i].name, name) == 0)
            return &s->totals[i];
    return NULL;
}

static void
add_side(cmp_stage *s, const json_t *totals, int cand)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)totals, k, v) {
        uint32_t type = pp_column_type_from_name(json_string_value(json_object_get(v, "type")));
        const json_t *val = json_object_get(v, "value");
        cmp_total *t;

        if (!numeric(type) || !json_is_number(val))
            continue;
        t = find_total(s, k);
        if (t == NULL) {
            if (s->ntotals >= CMP_MAX_AXES)
                continue;
            t = &s->totals[s->ntotals++];
            memset(t, 0, sizeof *t);
            t->name = k;
            t->type = type;
        }
        if (cand) {
            t->c = cmp_num(val);
            t->in_c = 1;
        } else {
            t->b = cmp_num(val);
            t->in_b = 1;
        }
    }
}

void
cmp_stage_totals(const json_t *stage_b, const json_t *stage_c, cmp_stage *s)
{
    memset(s, 0, sizeof *s);
    add_side(s, json_object_get(stage_b, "totals"), 0);
    add_side(s, json_object_get(stage_c, "totals"), 1);
}

/* Measure column -> the analyzers' name of the total it adds up to, in
 * order of preference (the first total present wins). */
static const struct { const char *column, *total; } axis_names[] = {
    { "count", "commands" },        { "executions", "commands" },
    { "total_ms", "db_ms" },        { "bytes", "sampled_bytes" },
    { "bytes", "allocated_bytes" }, { "bytes", "bytes" },
    { "samples", "ticks" },         { "samples", "samples" },
    { "exclusive", "samples" },     { "inclusive", "samples" },
    { "ms", "thread_time" },        { "exclusive_ms", "thread_time" },
    { "count", "requests" },        { "count", "spans" },
    { "count", "objects" },
};

cmp_total *
cmp_axis_of(cmp_stage *s, const char *column)
{
    cmp_total *t = find_total(s, column);

    if (t != NULL && t->type != PP_COL_PERCENT)
        return t;
    for (size_t i = 0; i < sizeof axis_names / sizeof axis_names[0]; i++)
        if (strcmp(axis_names[i].column, column) == 0 &&
            (t = find_total(s, axis_names[i].total)) != NULL)
            return t;
    return NULL;
}

double
cmp_total_rel(const cmp_total *t)
{
    return t->in_b && t->in_c && t->b != 0 ? 100.0 * (t->c - t->b) / fabs(t->b) : NAN;
}

/* stack_table: a flame-graph table (first column `stack`). JIT inlining
 * reshapes stacks from run to run, so they gate only when a threshold
 * names the table explicitly. */
double
cmp_threshold(const pp_compare_options *o, const char *table, const char *column, int primary,
              int stack_table)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        const pp_compare_threshold *t = &o->thresholds[i];
        int tm = (strcmp(t->table, "*") == 0 && !stack_table) || strcmp(t->table, table) == 0;
        int cm = strcmp(t->column, column) == 0 || (strcmp(t->column, "*") == 0 && primary);

        if (tm && cm)
            return t->percent;
    }
    return primary && !stack_table ? o->noise_percent : INFINITY;
}

static int
sampled_total(const cmp_total *t)
{
    return t->type == PP_COL_COUNT && (strcmp(t->name, "samples") == 0 || strcmp(t->name, "ticks") == 0);
}

/* Only an axis gates. Counts and bytes gate at the noise; times vary more
 * between runs of the same code (JIT, disk, scheduling), so they gate at
 * CMP_TIME_NOISE unless a threshold names them; sampled counts also need
 * three standard deviations. */
#define CMP_TIME_NOISE 25.0

int
cmp_total_regressed(const pp_compare_options *o, const cmp_total *t)
{
    double rel = cmp_total_rel(t), limit;
    int named = 0;

    if (!t->axis || t->type == PP_COL_PERCENT || isnan(rel))
        return 0;
    for (size_t i = 0; i < o->nthresholds; i++)
        named |= strcmp(o->thresholds[i].table, "totals") == 0 &&
                 strcmp(o->thresholds[i].column, t->name) == 0;
    limit = cmp_threshold(o, "totals", t->name, 1, 0);
    if (!named && (t->type == PP_COL_NUMBER || t->type == PP_COL_DURATION_NS) &&
        limit < CMP_TIME_NOISE)
        limit = CMP_TIME_NOISE;
    if (sampled_total(t) && fabs(t->c - t->b) <= 3.0 * sqrt(fabs(t->b) + fabs(t->c)))
        return 0;
    return rel > limit;
}

void
cmp_classify_rows(cmp_table *t, const pp_compare_options *o)
{
    size_t pi = t->measures[0].index;
    double axis_rel = t->axis != NULL ? cmp_total_rel(t->axis) : NAN;
    int axis_fell = !isnan(axis_rel) && axis_rel <= -o->replaced_percent;

    for (size_t r = 0; r < t->nrows; r++) {
        cmp_row *row = &t->rows[r];
        double vb = row->b ? cmp_num(json_array_get(row->b, pi)) : 0;
        double vc = row->c ? cmp_num(json_array_get(row->c, pi)) : 0;
        double rel = vb != 0 ? 100.0 * (vc - vb) / fabs(vb) : 0;
        int significant = 1;

        /* Sampled rows (allocation ticks, thread samples) are Poisson
         * counts: a change smaller than three standard deviations of the
         * two counts is sampling noise, whatever its relative size. */
        if (t->samples_col >= 0) {
            double kb = row->b ? cmp_num(json_array_get(row->b, (size_t)t->samples_col)) : 0;
            double kc = row->c ? cmp_num(json_array_get(row->c, (size_t)t->samples_col)) : 0;

            significant = fabs(kc - kb) > 3.0 * sqrt(kb + kc);
        }
        row->delta = vc - vb;
        row->noise = !significant;
        if (row->b == NULL)
            row->status = !significant ? "appeared (noise)" : axis_fell ? "replaced" : "appeared";
        else if (row->c == NULL)
            row->status = significant ? "disappeared" : "disappeared (noise)";
        else if (fabs(rel) <= o->noise_percent || !significant)
            row->status = "unchanged";
        else
            row->status = vc > vb ? "grew" : "shrank";
    }
}
