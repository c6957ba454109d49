/* compare: what changed. Totals of both runs, which total each measure
 * adds up to (its axis), the gates, and the status of every joined row. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
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

/* The total that is the unit of work itself (requests per request is 1:
 * it carries no judgement). */
static int
is_work_total(const char *name, const char *unit)
{
    return (strcmp(unit, "request") == 0 && strcmp(name, "requests") == 0) ||
           (strcmp(unit, "operation") == 0 && strcmp(name, "operations") == 0);
}

/* A figure that is already a rate or a statistic of one operation
 * (commands_per_request, event_bytes_per_command, mean_ms, p95_ms): it is
 * not divided by the work again. */
static int
intensive(const char *name)
{
    static const char *const prefixes[] = { "mean", "p50", "p90", "p95",   "p99",
                                            "max",  "min", "avg", "median" };

    if (strstr(name, "_per_") != NULL || strstr(name, "_pct") != NULL)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* A latency percentile (p90_ms, p99.9_ms) of a load run is an order
 * statistic: with n requests, n (1 - q) lie beyond it, and its rank is
 * uncertain by about 1.96 sqrt(n q (1 - q)). Fewer than CMP_MIN_TAIL
 * requests beyond it on either side (p99 of 2,000 requests: 20) and the
 * figure is a handful of requests' luck (and, under closed-loop load, of
 * the scheduler's): too few to judge. */
#define CMP_MIN_TAIL 100.0

static int
thin_tail(const cmp_stage *s, const cmp_total *t)
{
    const cmp_total *req = NULL;
    char *end;
    double q;

    if (t->name[0] != 'p' || (q = strtod(t->name + 1, &end)) <= 0 || q >= 100 ||
        strcmp(end, "_ms") != 0)
        return 0;
    for (size_t i = 0; i < s->ntotals; i++)
        if (strcmp(s->totals[i].name, "requests") == 0)
            req = &s->totals[i];
    if (req == NULL || !req->in_b || !req->in_c)
        return 0;
    return fmin(req->b, req->c) * (1 - q / 100) < CMP_MIN_TAIL;
}

/* A time total X_time whose samples the stage counts apart (X_samples:
 * cpu's running, waiting and blocking time) takes its rate test on those
 * counts, not on every sample of the stage; X_samples on its own. */
static void
own_samples(cmp_stage *s, cmp_total *t)
{
    size_t n = strlen(t->name);
    char name[128];
    cmp_total *k;

    if (n > 8 && strcmp(t->name + n - 8, "_samples") == 0 && t->type == PP_COL_COUNT && t->in_b &&
        t->in_c) {
        t->kb = &t->b;
        t->kc = &t->c;
        t->kname = t->name;
        return;
    }
    if (n < 6 || strcmp(t->name + n - 5, "_time") != 0 || n + 3 >= sizeof name)
        return;
    snprintf(name, sizeof name, "%.*s_samples", (int)(n - 5), t->name);
    if ((k = find_total(s, name)) != NULL && k->type == PP_COL_COUNT && k->in_b && k->in_c) {
        t->kb = &k->b;
        t->kc = &k->c;
        t->kname = k->name;
    }
}

/* A figure a table declares in samples on the time axis (a time sampler's,
 * as cpu's thread-time samples: each stands for an interval of a thread's
 * time) counts time: the total it adds up to gates as a time does (the
 * run-to-run time floor), whoever the analyzer. */
static void
mark_timed(cmp_stage *s, const json_t *stage)
{
    const json_t *t, *f;
    const char *column;
    size_t i;

    json_array_foreach(json_object_get(stage, "tables"), i, t) {
        json_object_foreach(json_object_get(json_object_get(t, "decl"), "figures"), column, f) {
            const char *unit = json_string_value(json_object_get(f, "unit"));
            const char *axis = json_string_value(json_object_get(f, "axis"));
            cmp_total *x;

            if (unit == NULL || axis == NULL || strcmp(unit, "samples") != 0 ||
                strcmp(axis, PP_AXIS_TIME) != 0)
                continue;
            if ((x = cmp_axis_of(s, column)) != NULL)
                x->timed = 1;
        }
    }
}

/* The totals an analyzer declares not judged in this run (a table's hint
 * "not_judged": names separated by spaces; "not_judged_why": the reason):
 * figures it knows do not measure what their names say (a load tool's
 * latency statistics that hold its synthetic samples). Either side's
 * declaration holds: one side's figure cannot be weighed against the
 * other's. */
static void
mark_not_judged(cmp_stage *s, const json_t *stage)
{
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(stage, "tables"), i, t) {
        const json_t *hints = json_object_get(t, "hints");
        const char *names = json_string_value(json_object_get(hints, "not_judged"));
        const char *why = json_string_value(json_object_get(hints, "not_judged_why"));

        for (const char *p = names; p != NULL && *p != '\0';) {
            size_t n = strcspn(p, " ");

            for (size_t k = 0; k < s->ntotals; k++)
                if (strlen(s->totals[k].name) == n && strncmp(s->totals[k].name, p, n) == 0 &&
                    s->totals[k].not_judged == NULL)
                    s->totals[k].not_judged = why ? why : "its analyzer declares it not judged";
            p += n + strspn(p + n, " ");
        }
    }
}

void
cmp_stage_totals(const json_t *stage_b, const json_t *stage_c, const cmp_work *w, cmp_stage *s)
{
    const char *kname = NULL;

    memset(s, 0, sizeof *s);
    s->w = *w;
    add_side(s, json_object_get(stage_b, "totals"), 0);
    add_side(s, json_object_get(stage_c, "totals"), 1);
    mark_timed(s, stage_b);
    mark_timed(s, stage_c);
    mark_not_judged(s, stage_b);
    mark_not_judged(s, stage_c);
    /* A stage whose figures come from samples (alloc ticks, cpu samples):
     * its totals are judged by the rate test on those counts. */
    for (size_t i = 0; i < s->ntotals; i++) {
        cmp_total *t = &s->totals[i];

        if (t->type == PP_COL_COUNT && t->in_b && t->in_c && !s->sampled &&
            (strcmp(t->name, "ticks") == 0 || strcmp(t->name, "samples") == 0)) {
            s->kb = t->b;
            s->kc = t->c;
            s->sampled = 1;
            kname = t->name;
        }
    }
    for (size_t i = 0; i < s->ntotals; i++) {
        cmp_total *t = &s->totals[i];

        t->work = is_work_total(t->name, w->unit);
        t->eb = t->work || intensive(t->name) ? 1 : w->eb;
        t->ec = t->work || intensive(t->name) ? 1 : w->ec;
        t->dual = w->dual && !intensive(t->name);
        t->kb = s->sampled ? &s->kb : NULL;
        t->kc = s->sampled ? &s->kc : NULL;
        t->kname = s->sampled ? kname : NULL;
        t->alpha = CMP_ALPHA;
        own_samples(s, t);
        t->thin_tail = thin_tail(s, t);
    }
}

/* Measure column -> the analyzers' name of the total it adds up to, in
 * order of preference (the first total present wins). */
static const struct {
    const char *column, *total;
} axis_names[] = {
    { "count", "commands" },      { "executions", "commands" },   { "total_ms", "db_ms" },
    { "bytes", "sampled_bytes" }, { "bytes", "allocated_bytes" }, { "bytes", "bytes" },
    { "samples", "ticks" },       { "samples", "samples" },       { "exclusive", "samples" },
    { "inclusive", "samples" },   { "ms", "thread_time" },        { "exclusive_ms", "thread_time" },
    { "count", "requests" },      { "count", "objects" },
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

cmp_total *
cmp_own_of(cmp_stage *s, const char *table)
{
    char name[128];
    cmp_total *t;

    if ((size_t)snprintf(name, sizeof name, "%s_samples", table) < sizeof name &&
        (t = find_total(s, name)) != NULL && t->type == PP_COL_COUNT)
        return t;
    return NULL;
}

double
cmp_total_abs_rel(const cmp_total *t)
{
    return t->in_b && t->in_c && t->b != 0 ? 100.0 * (t->c - t->b) / fabs(t->b) : NAN;
}

double
cmp_total_rel(const cmp_total *t)
{
    double b = t->b / t->eb, c = t->c / t->ec;

    return t->in_b && t->in_c && b != 0 ? 100.0 * (c - b) / fabs(b) : NAN;
}

double
cmp_total_p(const cmp_total *t)
{
    if (t->reps)
        return t->rep_p;
    return t->kb != NULL ? cmp_rate_p(*t->kb, *t->kc, t->eb, t->ec) : NAN;
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

/* Only an axis gates, per unit of work. Counts and bytes gate at the
 * noise; times vary more between runs of the same code (JIT, disk,
 * scheduling), so they (and a time sampler's sample counts) gate at
 * CMP_TIME_NOISE, and a load tool's latency statistics (p90_ms, mean_ms)
 * at CMP_LATENCY_NOISE, unless a threshold names them; a sampled stage's
 * totals also need the rate test's p < alpha.
 *
 * The two floors are the run-to-run noise of one capture per side, which
 * the rate test (sampling only) does not model, measured on the A/A pairs
 * of tests/data/webapp (two captures of the same code and knobs under
 * closed-loop wrk on a shared 2-core machine; bench/gate/aa-floor.sh
 * prints them): thread time per request moved up to 42 % (running
 * samples per request, exceptions c1) and a row of it up to 58 % (the
 * pool's own running samples, 2,352 -> 3,572, same pair), latency
 * statistics up to 119 % (p99, churn c1) and -84 % (p99, exceptions c4).
 * Each floor sits above the largest move seen. A smaller change of a time
 * needs a named threshold, or replicates: with more than one capture on a
 * side the rate test carries the between-run variance it measured
 * (compare_reps.c) and the floors are off. */

/* A latency statistic of many operations (p99_ms, mean_ms, max_ms): an
 * order statistic of one run's requests, at the mercy of the scheduler. */
static int
latency_stat(const char *name)
{
    static const char *const prefixes[] = { "mean", "median", "max", "avg" };
    size_t n = strlen(name);
    int stat = name[0] == 'p' && name[1] >= '0' && name[1] <= '9';

    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        stat |= strncmp(name, prefixes[i], strlen(prefixes[i])) == 0;
    return stat && n > 3 && (strcmp(name + n - 3, "_ms") == 0 || strcmp(name + n - 3, "_us") == 0);
}

int
cmp_total_moved(const pp_compare_options *o, const cmp_total *t)
{
    double rel = cmp_total_rel(t), limit, p = cmp_total_p(t);
    int named = 0;

    if (!t->axis || t->work || t->thin_tail || t->not_judged || t->type == PP_COL_PERCENT ||
        isnan(rel))
        return 0;
    for (size_t i = 0; i < o->nthresholds; i++)
        named |= strcmp(o->thresholds[i].table, "totals") == 0 &&
                 strcmp(o->thresholds[i].column, t->name) == 0;
    limit = cmp_threshold(o, "totals", t->name, 1, 0);
    if (!named && !CMP_REPLICATES(o) &&
        (t->type == PP_COL_NUMBER || t->type == PP_COL_DURATION_NS || t->timed) &&
        limit < CMP_TIME_NOISE)
        limit = CMP_TIME_NOISE;
    if (!named && !CMP_REPLICATES(o) && latency_stat(t->name) && limit < CMP_LATENCY_NOISE)
        limit = CMP_LATENCY_NOISE;
    if (t->kb != NULL && !(p < t->alpha))
        return 0;
    if (t->dual) {
        double arel = cmp_total_abs_rel(t);

        if (!(rel > limit && arel > limit) && !(rel < -limit && arel < -limit))
            return 0;
    }
    return rel > limit ? 1 : rel < -limit ? -1 : 0;
}

double
cmp_row_limit(const pp_compare_options *o, const cmp_table *t)
{
    double limit = cmp_threshold(o, t->name, t->measures[0].name, 1, t->stack_table);
    const cmp_total *a = t->axis;

    for (size_t i = 0; i < o->nthresholds; i++)
        if (strcmp(o->thresholds[i].table, t->name) == 0)
            return limit; /* named: the user's threshold stands */
    if (a != NULL && !CMP_REPLICATES(o) &&
        (a->type == PP_COL_NUMBER || a->type == PP_COL_DURATION_NS || a->timed) &&
        limit < CMP_TIME_NOISE)
        limit = CMP_TIME_NOISE;
    return limit;
}

/* The rate test of one sampled row (absent on a side: 0 samples). */
static void
sampled_row(const cmp_table *t, cmp_row *row)
{
    double kb = row->b ? cmp_num(json_array_get(row->b, (size_t)t->samples_col)) : 0;
    double kc = row->c ? cmp_num(json_array_get(row->c, (size_t)t->samples_col)) : 0;

    row->p = cmp_rate_p(kb, kc, t->w.eb, t->w.ec);
    row->testable = cmp_rate_testable(kb, kc, t->w.eb, t->w.ec);
    cmp_rate_ratio_ci(kb, kc, t->w.eb, t->w.ec, &row->ratio_lo, &row->ratio_hi);
}

/* A frame no module claimed is named by its absolute address ("?!0x7f..."),
 * which ASLR and the JIT place anew in every process: the same code gets
 * another key in another capture, so a row so keyed (a frame, or a stack
 * holding one) appearing or disappearing says nothing about the code. */
static int
address_key(const char *key)
{
    return key != NULL && strstr(key, "?!0x") != NULL;
}

/* Rows are judged per unit of work. A sampled row (allocation ticks,
 * thread samples) changes only when its rate test says so; one with too
 * few samples for any outcome to be significant says so. */
int
cmp_classify_rows(cmp_table *t, const pp_compare_options *o)
{
    size_t pi = t->measures[0].index;
    const cmp_total *fell = t->own != NULL ? t->own : t->axis;
    double axis_rel = fell != NULL ? cmp_total_rel(fell) : NAN;
    int axis_fell = !isnan(axis_rel) && axis_rel <= -o->replaced_percent;

    size_t tested = 0;
    double row_limit = cmp_row_limit(o, t);

    /* Every row of a table is a test: Bonferroni keeps the table's chance
     * of one false verdict under CMP_ALPHA. */
    t->between = NAN;
    for (size_t r = 0; t->samples_col >= 0 && r < t->nrows; r++) {
        sampled_row(t, &t->rows[r]);
        tested += (size_t)t->rows[r].testable;
    }
    /* sample counts (not exact counts) vary between runs beyond sampling */
    if (t->samples_col >= 0 && !t->counts_exact && CMP_REPLICATES(o) &&
        cmp_reps_rows(t, o) != PP_OK)
        return PP_ENOMEM;
    t->alpha = CMP_ALPHA / (double)(tested > 1 ? tested : 1);
    for (size_t r = 0; r < t->nrows; r++) {
        cmp_row *row = &t->rows[r];
        double vb = row->b ? cmp_num(json_array_get(row->b, pi)) : 0;
        double vc = row->c ? cmp_num(json_array_get(row->c, pi)) : 0;
        double ub = vb / t->w.eb, uc = vc / t->w.ec;
        double rel = ub != 0 ? 100.0 * (uc - ub) / fabs(ub) : 0;
        int significant = 1;

        if (t->samples_col >= 0)
            significant = row->testable && row->p < t->alpha;
        else {
            row->p = row->ratio_lo = row->ratio_hi = NAN;
            row->testable = 1;
        }
        row->delta = vc - vb;
        row->rel_unit = row->b && row->c && ub != 0 ? rel : NAN;
        row->noise = !significant;
        if (row->b == NULL)
            row->status = !row->testable ? "appeared (too few samples)" :
                          !significant   ? "appeared (noise)" :
                          axis_fell      ? "replaced" :
                                           "appeared";
        else if (row->c == NULL)
            row->status = !row->testable ? "disappeared (too few samples)" :
                          significant    ? "disappeared" :
                                           "disappeared (noise)";
        else if (!row->testable)
            row->status = "too few samples";
        else if (fabs(rel) <= row_limit || !significant ||
                 (t->w.dual && !(vc - vb > fabs(vb) * o->noise_percent / 100 && rel > 0) &&
                  !(vb - vc > fabs(vb) * o->noise_percent / 100 && rel < 0)))
            row->status = "unchanged";
        else
            row->status = uc > ub ? "grew" : "shrank";
        if ((row->b == NULL || row->c == NULL) && address_key(json_string_value(json_array_get(
                                                      row->b ? row->b : row->c, t->keyidx[0])))) {
            row->status = row->b == NULL ? "appeared (an address: not comparable)" :
                                           "disappeared (an address: not comparable)";
            row->noise = 1;
        }
    }
    return PP_OK;
}
