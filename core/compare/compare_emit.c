/* compare: the output tables and the verdicts (findings) of one stage. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "result/result.h"

#define EXAMPLES 5
#define MAX_OUT  (CMP_MAX_COLUMNS * 4 + 8)

void
cmp_human(char *buf, size_t size, uint32_t type, double v)
{
    if (type == PP_COL_BYTES)
        pp_format_bytes(buf, size, v);
    else if (type == PP_COL_DURATION_NS)
        pp_format_duration_ns(buf, size, v);
    else if (type == PP_COL_COUNT && v == round(v))
        pp_format_count(buf, size, pp_i64_from_double(v));
    else
        pp_format_number(buf, size, v);
}

static const char *
total_status(const cmp_total *t, const pp_compare_options *o)
{
    double rel = cmp_total_rel(t);

    if (!t->in_b)
        return "appeared";
    if (!t->in_c)
        return "disappeared";
    if (t->b == t->c || (!isnan(rel) && fabs(rel) <= o->noise_percent))
        return "unchanged";
    if (t->kb != NULL && !(cmp_total_p(t) < CMP_ALPHA))
        return "unchanged";
    if (t->dual && (t->c - t->b) * rel <= 0)
        return "unchanged"; /* per second and per run disagree */
    return t->c / t->ec > t->b / t->eb ? "grew" : "shrank";
}

/* One axis that moved, for the verdict: "alloc sampled_bytes per request
 * 1.2 MB -> 80 KB (-93.4%, p < 0.001)". */
static void
decided(cmp_judge *j, const char *stage_id, const cmp_total *x, const char *unit, int moved)
{
    char a[64], b[64], line[384], p[48] = "";
    double pv = cmp_total_p(x);

    cmp_human(a, sizeof a, x->type, x->b / x->eb);
    cmp_human(b, sizeof b, x->type, x->c / x->ec);
    if (!isnan(pv))
        snprintf(p, sizeof p, pv < 0.001 ? ", p < 0.001" : ", p = %.3f", pv);
    snprintf(line, sizeof line, "%s %s%s%s %s -> %s (%+.1f%%%s): %s", stage_id, x->name,
             x->eb == 1 && x->ec == 1 ? "" : " per ", x->eb == 1 && x->ec == 1 ? "" : unit, a, b,
             cmp_total_rel(x), p, moved > 0 ? "regressed" : "improved");
    json_array_append_new(j->decided, json_string(line));
}

/* An axis shown but not judged, for the verdict: "load mean_ms, p99_ms
 * (why)", the reason once per run of the same one. */
static void
not_judged(cmp_judge *j, const char *stage_id, const cmp_total *x)
{
    size_t used = strlen(j->not_judged), n = strlen(x->not_judged);
    /* it ends " (WHY)" */
    int again = used >= n + 3 && j->not_judged[used - 1] == ')' &&
                strncmp(j->not_judged + used - n - 1, x->not_judged, n) == 0 &&
                strncmp(j->not_judged + used - n - 3, " (", 2) == 0;

    if (again) /* the same reason as the last: the name joins its list */
        snprintf(j->not_judged + used - n - 3, sizeof j->not_judged - (used - n - 3), ", %s (%s)",
                 x->name, x->not_judged);
    else
        snprintf(j->not_judged + used, sizeof j->not_judged - used, "%s%s %s (%s)",
                 used ? "; " : "", stage_id, x->name, x->not_judged);
}

/* The `totals` table: every numeric total of the stage in both runs,
 * absolute and per unit of work, and the gate on the axes (the totals a
 * table's measure adds up to). */
int
cmp_emit_totals(json_t *out_stage, const cmp_stage *s, const pp_compare_options *o,
                const char *stage_id, cmp_judge *j, pp_error *err)
{
    char nb[48], nc[48], nd[48];
    pp_column cols[] = {
        { "total", PP_COL_STRING, 0 }, { "status", PP_COL_STRING, 0 },
        { "base", PP_COL_NUMBER, 0 },  { "cand", PP_COL_NUMBER, 0 },
        { "delta", PP_COL_NUMBER, 0 }, { "delta_pct", PP_COL_PERCENT, 0 },
        { nb, PP_COL_NUMBER, 0 },      { nc, PP_COL_NUMBER, 0 },
        { nd, PP_COL_PERCENT, 0 },     { "p_value", PP_COL_NUMBER, 0 },
        { "gate", PP_COL_STRING, 0 },
    };
    char msg[1536], a[64], b[64];
    size_t used = 0;
    int naxes = 0, rc = PP_OK;
    pp_table_set set = { NULL, NULL };
    pp_table *t;

    if (s->ntotals == 0)
        return PP_OK;
    snprintf(nb, sizeof nb, "base_per_%s", s->w.unit);
    snprintf(nc, sizeof nc, "cand_per_%s", s->w.unit);
    snprintf(nd, sizeof nd, "per_%s_delta_pct", s->w.unit);
    if ((t = pp_result_table_new(&set, out_stage, "totals", 11, cols, 1, err)) == NULL)
        return err ? err->code : PP_EINVAL;
    for (size_t i = 0; i < s->ntotals; i++) {
        const cmp_total *x = &s->totals[i];
        double rel = cmp_total_rel(x), arel = cmp_total_abs_rel(x), pv = cmp_total_p(x);
        int moved = cmp_total_moved(o, x);
        pp_cell row[11] = {
            pp_cell_str(x->name),
            pp_cell_str(total_status(x, o)),
            x->in_b ? pp_cell_dbl(x->b) : pp_cell_null(),
            x->in_c ? pp_cell_dbl(x->c) : pp_cell_null(),
            x->in_b && x->in_c ? pp_cell_dbl(x->c - x->b) : pp_cell_null(),
            isnan(arel) ? pp_cell_null() : pp_cell_dbl(arel),
            x->in_b ? pp_cell_dbl(x->b / x->eb) : pp_cell_null(),
            x->in_c ? pp_cell_dbl(x->c / x->ec) : pp_cell_null(),
            isnan(rel) ? pp_cell_null() : pp_cell_dbl(rel),
            isnan(pv) || !x->axis ? pp_cell_null() : pp_cell_dbl(pv),
            pp_cell_str(x->work       ? "work" :
                        !x->axis      ? "" :
                        x->thin_tail  ? "too few requests" :
                        x->not_judged ? "not judged" :
                        moved > 0     ? "REGRESSION" :
                        moved < 0     ? "improved" :
                                        "axis"),
        };

        if (pp_result_table_row(t, row, err) != PP_OK) {
            rc = err ? err->code : PP_EINVAL;
            break;
        }
        j->regressions += moved > 0;
        j->improvements += moved < 0;
        if (x->axis && !x->work && !x->thin_tail && x->not_judged && x->in_b && x->in_c)
            not_judged(j, stage_id, x);
        if (moved != 0)
            decided(j, stage_id, x, s->w.unit, moved);
        if (!x->axis || !x->in_b || !x->in_c || used >= sizeof msg)
            continue;
        cmp_human(a, sizeof a, x->type, x->b);
        cmp_human(b, sizeof b, x->type, x->c);
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%s%s %s -> %s",
                                 naxes++ ? "; " : "", x->name, a, b);
        cmp_human(a, sizeof a, x->type, x->b / x->eb);
        cmp_human(b, sizeof b, x->type, x->c / x->ec);
        if (used < sizeof msg)
            used += (size_t)snprintf(msg + used, sizeof msg - used, " (per %s %s -> %s", s->w.unit,
                                     a, b);
        if (!isnan(rel) && used < sizeof msg)
            used += (size_t)snprintf(msg + used, sizeof msg - used, ", %+.1f%%", rel);
        if (used < sizeof msg)
            used += (size_t)snprintf(msg + used, sizeof msg - used, "%s)",
                                     moved > 0 ? ", REGRESSION" :
                                     moved < 0 ? ", improved" :
                                                 "");
    }
    pp_result_tables_release(&set);
    if (rc == PP_OK && naxes > 0) {
        char line[1700];

        snprintf(line, sizeof line, "totals (absolute, then per %s): %s", s->w.unit, msg);
        rc = pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.totals", line);
    }
    return rc;
}

/* Output columns: keys, status, absolutes (base, cand, delta) for every
 * measure, then relative deltas, then shares before/after. names[] gets
 * the allocated names (from nkey + 1 on). */
static int
out_columns(const cmp_table *t, pp_column *outcols, char **names, size_t *nout)
{
    static const char *const abs_suffix[] = { "_base", "_cand", "_delta" };
    static const char *const share_suffix[] = { "_base", "_cand" };
    size_t n = 0;

    for (size_t i = 0; i < t->nkey; i++)
        outcols[n++] = (pp_column){ t->keys[i].name, t->keys[i].type, 0 };
    outcols[n++] = (pp_column){ "status", PP_COL_STRING, 0 };
    for (size_t m = 0; m < t->nmeas; m++)
        for (int s = 0; s < 3; s++) {
            size_t len = strlen(t->measures[m].name) + 8;

            if ((names[n] = malloc(len)) == NULL)
                return *nout = n, PP_ENOMEM;
            snprintf(names[n], len, "%s%s", t->measures[m].name, abs_suffix[s]);
            outcols[n] = (pp_column){ names[n], t->measures[m].type, 0 };
            n++;
        }
    for (size_t m = 0; m < t->nmeas; m++) {
        size_t len = strlen(t->measures[m].name) + 12;

        if ((names[n] = malloc(len)) == NULL)
            return *nout = n, PP_ENOMEM;
        snprintf(names[n], len, "%s_delta_pct", t->measures[m].name);
        outcols[n] = (pp_column){ names[n], PP_COL_PERCENT, 0 };
        n++;
    }
    /* the primary measure per unit of work: what the verdict reads */
    for (int s = 0; s < 3; s++) {
        size_t len = strlen(t->measures[0].name) + strlen(t->w.unit) + 20;

        if ((names[n] = malloc(len)) == NULL)
            return *nout = n, PP_ENOMEM;
        snprintf(names[n], len, "%s_per_%s%s", t->measures[0].name, t->w.unit,
                 s == 2 ? "_delta_pct" : abs_suffix[s]);
        outcols[n] = (pp_column){ names[n], s == 2 ? PP_COL_PERCENT : PP_COL_NUMBER, 0 };
        n++;
    }
    if (t->samples_col >= 0) {
        static const char *const rate[] = { "rate_ratio_lo", "rate_ratio_hi", "p_value" };

        for (int s = 0; s < 3; s++) {
            if ((names[n] = strdup(rate[s])) == NULL)
                return *nout = n, PP_ENOMEM;
            outcols[n] = (pp_column){ names[n], PP_COL_NUMBER, 0 };
            n++;
        }
    }
    for (size_t p = 0; p < t->nshare; p++)
        for (int s = 0; s < 2; s++) {
            size_t len = strlen(t->shares[p].name) + 8;

            if ((names[n] = malloc(len)) == NULL)
                return *nout = n, PP_ENOMEM;
            snprintf(names[n], len, "%s%s", t->shares[p].name, share_suffix[s]);
            outcols[n] = (pp_column){ names[n], PP_COL_PERCENT, 0 };
            n++;
        }
    *nout = n;
    return PP_OK;
}

typedef struct tally {
    int appeared, disappeared, grew, shrank, inflated, noise_rows, replaced, fixed, too_few;
    int immaterial;
    char ex_struct[EXAMPLES][256], ex_stat[EXAMPLES][256], ex_repl[EXAMPLES][256], ex_infl[256];
    char ex_fixed[EXAMPLES][256];
    int nex_struct, nex_stat, nex_repl, nex_fixed;
} tally;

static pp_cell
num_cell(double v)
{
    return isnan(v) || isinf(v) ? pp_cell_null() : pp_cell_dbl(v);
}

/* A row's move is material when it is at least the noise (--noise, 5 %)
 * of its axis (per unit of work, the larger side): a frame of 0.1 % of the CPU
 * that comes, goes or doubles is sampling detail, not the verdict. Rows
 * of a table without an axis are all material. A row that disappeared is
 * weighed against the table's own total where it has one (cpu's running:
 * running samples, not every thread's with idle waits): the fix of a
 * method that ran is judged against what ran. */
static int
material(const cmp_table *t, const cmp_row *row, const pp_compare_options *o)
{
    const cmp_total *a = row->c == NULL && t->own != NULL ? t->own : t->axis;
    double vb, vc, ab, ac;

    if (a == NULL || !a->in_b || !a->in_c)
        return 1;
    vb = row->b ? cmp_num(json_array_get(row->b, t->measures[0].index)) / t->w.eb : 0;
    vc = row->c ? cmp_num(json_array_get(row->c, t->measures[0].index)) / t->w.ec : 0;
    ab = a->b / a->eb;
    ac = a->c / a->ec;
    return fabs(vc - vb) >= o->noise_percent / 100.0 * (ab > ac ? ab : ac);
}

static pp_cell
key_cell(const json_t *v)
{
    return json_is_string(v)  ? pp_cell_str(json_string_value(v)) :
           json_is_integer(v) ? pp_cell_int(json_integer_value(v)) :
           json_is_real(v)    ? pp_cell_dbl(json_real_value(v)) :
                                pp_cell_null();
}

/* The cells of one joined row; counts rows whose measure grew past its
 * threshold and share moves with an unchanged absolute. */
static size_t
row_cells(const cmp_table *t, const cmp_row *row, const pp_compare_options *o, pp_cell *cells,
          cmp_judge *j, tally *ty)
{
    const json_t *any = row->b ? row->b : row->c;
    const char *label = json_string_value(json_array_get(any, t->keyidx[0]));
    size_t n = 0;

    for (size_t i = 0; i < t->nkey; i++)
        cells[n++] = key_cell(json_array_get(any, t->keyidx[i]));
    cells[n++] = pp_cell_str(row->status);
    for (size_t m = 0; m < t->nmeas; m++) {
        double vb = row->b ? cmp_num(json_array_get(row->b, t->measures[m].index)) : 0;
        double vc = row->c ? cmp_num(json_array_get(row->c, t->measures[m].index)) : 0;

        if (t->measures[m].type == PP_COL_NUMBER) {
            cells[n++] = pp_cell_dbl(vb);
            cells[n++] = pp_cell_dbl(vc);
            cells[n++] = pp_cell_dbl(vc - vb);
        } else {
            cells[n++] = pp_cell_int(pp_i64_from_double(round(vb)));
            cells[n++] = pp_cell_int(pp_i64_from_double(round(vc)));
            cells[n++] = pp_cell_int(pp_i64_from_double(round(vc) - round(vb)));
        }
    }
    for (size_t m = 0; m < t->nmeas; m++) {
        double vb = row->b ? cmp_num(json_array_get(row->b, t->measures[m].index)) : 0;
        double vc = row->c ? cmp_num(json_array_get(row->c, t->measures[m].index)) : 0;
        double rel = vb != 0 ? 100.0 * (vc - vb) / fabs(vb) : NAN;
        int both = row->b != NULL && row->c != NULL && vb != 0;

        double ub = vb / t->w.eb, uc = vc / t->w.ec;

        cells[n++] = both ? pp_cell_dbl(rel) : pp_cell_null();
        /* a second measure gates only when a threshold names it */
        if (m > 0 && both && !row->noise && !t->local && !t->shown &&
            100.0 * (uc - ub) / fabs(ub) >
                cmp_threshold(o, t->name, t->measures[m].name, 0, t->stack_table))
            j->regressions++;
    }
    {
        double vb = row->b ? cmp_num(json_array_get(row->b, t->measures[0].index)) : 0;
        double vc = row->c ? cmp_num(json_array_get(row->c, t->measures[0].index)) : 0;

        cells[n++] = row->b ? pp_cell_dbl(vb / t->w.eb) : pp_cell_null();
        cells[n++] = row->c ? pp_cell_dbl(vc / t->w.ec) : pp_cell_null();
        cells[n++] = num_cell(row->rel_unit);
        if (t->samples_col >= 0) {
            cells[n++] = num_cell(row->ratio_lo);
            cells[n++] = num_cell(row->ratio_hi);
            cells[n++] = num_cell(row->p);
        }
        /* Growth per unit of work past the threshold, beyond the noise. */
        if (!isnan(row->rel_unit) && strcmp(row->status, "grew") == 0 && !t->local && !t->shown &&
            material(t, row, o) && row->rel_unit > cmp_row_limit(o, t)) {
            j->regressions++;
            if (json_array_size(j->decided) < CMP_MAX_DECIDED) {
                char line[384];

                snprintf(line, sizeof line, "%s %s '%s' %s per %s %+.1f%%: regressed", t->stage,
                         t->name, label ? label : "?", t->measures[0].name, t->w.unit,
                         row->rel_unit);
                json_array_append_new(j->decided, json_string(line));
            }
        }
    }
    for (size_t p = 0; p < t->nshare; p++) {
        const json_t *sb = row->b ? json_array_get(row->b, t->shares[p].index) : NULL;
        const json_t *sc = row->c ? json_array_get(row->c, t->shares[p].index) : NULL;

        cells[n++] = sb ? pp_cell_dbl(cmp_num(sb)) : pp_cell_null();
        cells[n++] = sc ? pp_cell_dbl(cmp_num(sc)) : pp_cell_null();
        /* Shares moved while the absolute did not: inflation by removal. */
        if (p == 0 && sb && sc && strcmp(row->status, "unchanged") == 0 &&
            fabs(cmp_num(sc) - cmp_num(sb)) > 1.0 && ty->inflated++ == 0)
            snprintf(ty->ex_infl, sizeof ty->ex_infl, "'%s' %.1f%% -> %.1f%%", label ? label : "?",
                     cmp_num(sb), cmp_num(sc));
    }
    return n;
}

/* The table's own total (else its axis) fell per unit of work (beyond the
 * noise). */
static int
axis_fell(const cmp_table *t, const pp_compare_options *o)
{
    const cmp_total *a = t->own != NULL ? t->own : t->axis;
    double rel = a != NULL ? cmp_total_rel(a) : NAN;

    return !isnan(rel) && rel < -o->noise_percent;
}

/* Count the row in its verdict and keep the first examples. A row gone
 * while its axis fell is the fix itself: an improvement, structural. */
static void
tally_row(const cmp_table *t, const cmp_row *row, const pp_compare_options *o, cmp_judge *j,
          tally *ty)
{
    const json_t *any = row->b ? row->b : row->c;
    const char *label = json_string_value(json_array_get(any, t->keyidx[0]));
    int is_struct = (row->b == NULL || row->c == NULL) && !row->noise;
    int replaced = strcmp(row->status, "replaced") == 0;
    char pb[64], pc[64], ex[256];

    cmp_human(pb, sizeof pb, t->measures[0].type,
              row->b ? cmp_num(json_array_get(row->b, t->measures[0].index)) / t->w.eb : 0);
    cmp_human(pc, sizeof pc, t->measures[0].type,
              row->c ? cmp_num(json_array_get(row->c, t->measures[0].index)) / t->w.ec : 0);
    snprintf(ex, sizeof ex, "%s '%s' (%s per %s %s -> %s)", row->status, label ? label : "?",
             t->measures[0].name, t->w.unit, pb, pc);
    if (!row->testable)
        ty->too_few++;
    if (t->local || t->shown)
        return; /* thread ids, or declared as shown only: no verdict */
    if (!material(t, row, o) && (row->b == NULL || row->c == NULL)) {
        ty->immaterial++;
        return;
    }
    if (row->noise && (row->b == NULL || row->c == NULL)) {
        ty->noise_rows++;
        return;
    }
    if (replaced) {
        ty->replaced++;
        if (ty->nex_repl < EXAMPLES)
            snprintf(ty->ex_repl[ty->nex_repl++], sizeof ty->ex_repl[0], "'%s' (%s per %s %s)",
                     label ? label : "?", t->measures[0].name, t->w.unit, pc);
        return;
    }
    /* (a flame graph's stack coming or going is JIT inlining as often as
     * a fix: it decides only where a threshold names the table) */
    if (row->c == NULL && is_struct && axis_fell(t, o) &&
        cmp_threshold(o, t->name, t->measures[0].name, 1, t->stack_table) < INFINITY) {
        ty->fixed++;
        j->improvements++;
        if (ty->nex_fixed < EXAMPLES)
            memcpy(ty->ex_fixed[ty->nex_fixed++], ex, sizeof ex);
        if (json_array_size(j->decided) < CMP_MAX_DECIDED) {
            char line[384];

            snprintf(line, sizeof line,
                     "%s %s '%s' disappeared while %s fell per %s: fixed "
                     "(structural)",
                     t->stage, t->name, label ? label : "?",
                     (t->own != NULL ? t->own : t->axis)->name, t->w.unit);
            json_array_append_new(j->decided, json_string(line));
        }
        return;
    }
    if (row->b == NULL) {
        ty->appeared++;
        if (cmp_threshold(o, t->name, t->measures[0].name, 1, t->stack_table) < INFINITY) {
            j->regressions++;
            if (json_array_size(j->decided) < CMP_MAX_DECIDED) {
                char line[384];

                snprintf(line, sizeof line, "%s %s '%s' appeared (structural): regressed", t->stage,
                         t->name, label ? label : "?");
                json_array_append_new(j->decided, json_string(line));
            }
        }
    } else if (row->c == NULL) {
        ty->disappeared++;
    } else if (strcmp(row->status, "grew") == 0) {
        ty->grew++;
    } else if (strcmp(row->status, "shrank") == 0) {
        ty->shrank++;
    }
    if (is_struct && ty->nex_struct < EXAMPLES)
        memcpy(ty->ex_struct[ty->nex_struct++], ex, sizeof ex);
    else if (!is_struct && strcmp(row->status, "unchanged") != 0 && ty->nex_stat < EXAMPLES)
        memcpy(ty->ex_stat[ty->nex_stat++], ex, sizeof ex);
}

static size_t
list(char *msg, size_t size, size_t used, char ex[][256], int n)
{
    for (int i = 0; i < n && used < size; i++)
        used += (size_t)snprintf(msg + used, size - used, "%s %s", i ? ";" : "", ex[i]);
    return used;
}

static void
verdicts(json_t *out_stage, const cmp_table *t, const pp_compare_options *o, const char *weakened,
         tally *ty)
{
    char msg[2048];
    size_t used;
    const char *test =
        t->samples_col < 0 ?
            "per unit of work" :
        t->counts_exact ?
            "conditional binomial test of the Poisson rate ratio on the exact "
            "counts, the two runs' work as exposure, p < 0.05 Bonferroni-"
            "corrected over the table's rows" :
            "conditional binomial test of the Poisson rate ratio on the sample counts, the two "
            "runs' work as exposure, p < 0.05 Bonferroni-corrected over the table's rows";

    if (ty->fixed > 0) {
        used = (size_t)snprintf(msg, sizeof msg,
                                "table %s: %d row%s disappeared while %s fell "
                                "per %s — fixed, a structural verdict (improvement)%s:",
                                t->name, ty->fixed, ty->fixed == 1 ? "" : "s", t->axis->name,
                                t->w.unit, weakened);
        list(msg, sizeof msg, used, ty->ex_fixed, ty->nex_fixed);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.fixed", msg);
    }
    if (ty->appeared + ty->disappeared > 0) {
        used = (size_t)snprintf(msg, sizeof msg,
                                "table %s: %d appeared, %d disappeared — "
                                "structural verdict (a row that comes or goes holds across "
                                "sessions)%s:",
                                t->name, ty->appeared, ty->disappeared, weakened);
        list(msg, sizeof msg, used, ty->ex_struct, ty->nex_struct);
        pp_result_finding(out_stage, ty->appeared > 0 ? PP_SEVERITY_WARNING : PP_SEVERITY_INFO,
                          "compare.structural", msg);
    }
    if (ty->replaced > 0) {
        used = (size_t)snprintf(msg, sizeof msg,
                                "table %s: %d row%s appeared while %s per %s "
                                "fell %+.1f%% (at least %.0f%% down): replaced, not a "
                                "regression — the new rows are what the work became%s:",
                                t->name, ty->replaced, ty->replaced == 1 ? "" : "s", t->axis->name,
                                t->w.unit, cmp_total_rel(t->axis), o->replaced_percent, weakened);
        list(msg, sizeof msg, used, ty->ex_repl, ty->nex_repl);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.replaced", msg);
    }
    if (ty->grew + ty->shrank > 0) {
        used = (size_t)snprintf(msg, sizeof msg,
                                "table %s: %d grew, %d shrank per %s beyond the "
                                "%.1f%% noise — statistical verdict (%s)%s:",
                                t->name, ty->grew, ty->shrank, t->w.unit, o->noise_percent, test,
                                weakened);
        list(msg, sizeof msg, used, ty->ex_stat, ty->nex_stat);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.statistical", msg);
    }
    if (ty->noise_rows > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s came or went within sampling noise (%s "
                 "not met); no verdict",
                 t->name, ty->noise_rows, ty->noise_rows == 1 ? "" : "s", test);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.sampling_noise", msg);
    }
    if (ty->immaterial > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s came or went with less than %.0f%% of %s "
                 "per %s: too small to decide the verdict",
                 t->name, ty->immaterial, ty->immaterial == 1 ? "" : "s", o->noise_percent,
                 t->axis ? t->axis->name : "the axis", t->w.unit);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.immaterial", msg);
    }
    if (t->local)
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.process_local",
                          "table keyed by thread ids: two processes' threads are not the same "
                          "threads; shown, not judged");
    if (t->shown) {
        snprintf(msg, sizeof msg, "table %s: %s", t->name, t->shown);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.shown_only", msg);
    }
    if (ty->too_few > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s too small to judge: even all of their "
                 "samples in one run would not be significant (status \"too few samples\")",
                 t->name, ty->too_few, ty->too_few == 1 ? " is" : "s are");
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.too_few_samples", msg);
    }
    if (ty->inflated > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s changed share while %s stayed within "
                 "noise (e.g. %s): shares inflate when another slice is removed; read the "
                 "absolute columns",
                 t->name, ty->inflated, ty->inflated == 1 ? "" : "s", t->measures[0].name,
                 ty->ex_infl);
        pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.share_inflation", msg);
    }
}

int
cmp_emit_table(json_t *out_stage, const cmp_table *t, const pp_compare_options *o,
               const char *weakened, cmp_judge *j, pp_error *err)
{
    pp_column outcols[MAX_OUT];
    char *names[MAX_OUT];
    size_t nout = 0;
    tally *ty = calloc(1, sizeof *ty);
    pp_table *out = NULL;
    pp_table_set set = { NULL, NULL };
    int rc = ty != NULL ? out_columns(t, outcols, names, &nout) : PP_ENOMEM;

    if (rc == PP_OK && (out = pp_result_table_new(&set, out_stage, t->name, (uint32_t)nout, outcols,
                                                  (uint32_t)t->nkey, err)) == NULL)
        rc = err ? err->code : PP_EINVAL;
    for (size_t r = 0; rc == PP_OK && r < t->nrows; r++) {
        pp_cell cells[MAX_OUT];

        row_cells(t, &t->rows[r], o, cells, j, ty);
        if (pp_result_table_row(out, cells, err) != PP_OK)
            rc = err ? err->code : PP_EINVAL;
        else
            tally_row(t, &t->rows[r], o, j, ty);
    }
    pp_result_tables_release(&set);
    if (rc == PP_OK)
        verdicts(out_stage, t, o, weakened, ty);
    for (size_t i = t->nkey + 1; i < nout; i++)
        free(names[i]);
    free(ty);
    if (rc == PP_ENOMEM)
        pp_error_set(err, PP_ENOMEM, "out of memory comparing table %s", t->name);
    return rc;
}
