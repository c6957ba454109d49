/* compare with replicates: the between-run term of a sampled count.
 *
 * One capture per side gives a sampled row's Poisson noise only; the same
 * code captured twice moves more than that (a thread-time sampler counts
 * wall time: a thread preempted by other processes is still "running" in
 * managed code, and the sampler's own thread is late as often; JIT tiers,
 * caches). With several captures per side (`compare A1 A2 -- B1 B2`) that
 * excess is measured: per replicate the log rate x = log((k + 0.5) / e)
 * (k samples, e its work); the spread of x within each side, less what
 * Poisson noise explains (1 / k), is the between-run variance c2 of that
 * row. A table's rows share one machine and one sampler, so c2 is pooled
 * over its rows with enough samples and a row is judged with the larger of
 * its own and the pooled one:
 *   d = log(Kc / Ec) - log(Kb / Eb)      (pooled counts and work)
 *   var d = 1/Kb + 1/Kc + c2 (1/nb + 1/nc)
 * Student's t on d / sd, its degrees of freedom those of c2 carried
 * through var d by Welch-Satterthwaite (the Poisson part is known: normal
 * when c2 = 0), and the 95 % interval of the rate ratio. A total (no other
 * rows to pool with) takes its own c2 and nb + nc - 2 degrees of freedom. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "compare_stats.h"
#include "result/work.h"

#define Z95 1.959963984540054
/* A row pools into its table's c2 when every replicate saw this many. */
#define POOL_MIN_SAMPLES 20.0

/* The work of one replicate in the unit both sides are judged by. */
static double
rep_work(const json_t *doc, const char *unit)
{
    pp_work w;
    pp_error err = PP_ERROR_INIT;

    pp_work_of(doc, &w, &err);
    if (strcmp(unit, "request") == 0)
        return w.requests;
    if (strcmp(unit, "second") == 0)
        return w.seconds;
    if (strcmp(unit, "operation") == 0)
        return w.operations;
    return 1;
}

static const json_t *
stage_of(const json_t *doc, const char *id)
{
    return cmp_find_by(json_object_get(doc, "stages"), "id", id);
}

static const json_t *
table_of(const json_t *stage, const char *name)
{
    return cmp_find_by(json_object_get(stage, "tables"), "name", name);
}

/* Sum of squares of the log rates about their side's mean, less their
 * Poisson part; *df gains the side's degrees of freedom. */
static double
side_excess(const double *k, const double *e, size_t n, double *df)
{
    double mean = 0, ss = 0, pois = 0;

    if (n < 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        mean += log((k[i] + 0.5) / e[i]) / (double)n;
    for (size_t i = 0; i < n; i++) {
        double x = log((k[i] + 0.5) / e[i]) - mean;

        ss += x * x;
        pois += 1 / (k[i] + 0.5);
    }
    *df += (double)(n - 1);
    /* E[ss] = (n - 1) (c2 + mean Poisson variance) */
    return ss - pois * (double)(n - 1) / (double)n;
}

void
cmp_reps_between(const cmp_sides *s, double *c2, double *df)
{
    double ex = 0;

    *df = 0;
    ex += side_excess(s->kb, s->eb, s->nb, df);
    ex += side_excess(s->kc, s->ec, s->nc, df);
    *c2 = *df > 0 && ex > 0 ? ex / *df : 0;
}

void
cmp_reps_test(const cmp_sides *s, double c2, double df, double *p, double *lo, double *hi)
{
    double kb = 0, kc = 0, eb = 0, ec = 0, d, sd, vp, vb;

    for (size_t i = 0; i < s->nb; i++) {
        kb += s->kb[i];
        eb += s->eb[i];
    }
    for (size_t i = 0; i < s->nc; i++) {
        kc += s->kc[i];
        ec += s->ec[i];
    }
    *p = NAN;
    *lo = 0;
    *hi = INFINITY;
    if (!(eb > 0) || !(ec > 0))
        return;
    d = log((kc + 0.5) / ec) - log((kb + 0.5) / eb);
    vp = 1 / (kb + 0.5) + 1 / (kc + 0.5);
    vb = c2 * (1.0 / (double)s->nb + 1.0 / (double)s->nc);
    sd = sqrt(vp + vb);
    /* Only the between-run part is estimated from the replicates; the
     * Poisson part is known. Welch-Satterthwaite gives the degrees of
     * freedom of their sum: when the runs agree within Poisson noise (a
     * quiet machine: c2 = 0) the test is the normal one, and Student's t on
     * the replicates' few degrees of freedom only as far as c2 weighs. */
    df = vb > 0 && df > 0 ? (vp + vb) * (vp + vb) / (vb * vb / df) : 0;
    if (df > 0) {
        double t = fabs(d) / sd;

        *p = 2 * (1 - pp_student_t_cdf(t, df));
        /* the t quantile for the interval: bisection on the cdf */
        double a = Z95, b = 100;
        for (int i = 0; i < 60; i++) {
            double m = (a + b) / 2;

            if (pp_student_t_cdf(m, df) < 0.975)
                a = m;
            else
                b = m;
        }
        *lo = exp(d - a * sd);
        *hi = exp(d + a * sd);
    } else {
        *p = erfc(fabs(d) / sd / M_SQRT2);
        *lo = exp(d - Z95 * sd);
        *hi = exp(d + Z95 * sd);
    }
}

/* The sample counts and works of one row (key cells of row) across the
 * replicates of one side. */
static void
row_counts(const cmp_table *t, const json_t *row, const json_t *const *idx,
           const json_t *const *docs, size_t n, double *k, double *e)
{
    char key[2048];
    int ok = row != NULL && cmp_row_key(row, t->keyidx, t->nkey, key, sizeof key);

    for (size_t i = 0; i < n; i++) {
        const json_t *r = ok && idx[i] != NULL ? json_object_get(idx[i], key) : NULL;

        k[i] = r != NULL ? cmp_num(json_array_get(r, (size_t)t->samples_col)) : 0;
        e[i] = rep_work(docs[i], t->w.unit);
    }
}

static int
index_side(const cmp_table *t, const json_t *const *docs, size_t n, json_t **idx)
{
    for (size_t i = 0; i < n; i++) {
        const json_t *tb = table_of(stage_of(docs[i], t->stage), t->name);

        idx[i] = tb != NULL ? cmp_row_index(tb, t) : NULL;
        if (tb != NULL && idx[i] == NULL)
            return PP_ENOMEM;
    }
    return PP_OK;
}

int
cmp_reps_rows(cmp_table *t, const pp_compare_options *o)
{
    size_t nb = o->nrep_b, nc = o->nrep_c;
    json_t **idx = calloc(nb + nc, sizeof *idx);
    double *buf = calloc(2 * (nb + nc) + 1, sizeof *buf), pooled = 0, npool = 0, dfpool = 0;
    cmp_sides s = { buf, buf + nb, nb, buf + 2 * nb, buf + 2 * nb + nc, nc };
    int rc = PP_ENOMEM;

    if (idx == NULL || buf == NULL || index_side(t, o->reps_b, nb, idx) != PP_OK ||
        index_side(t, o->reps_c, nc, idx + nb) != PP_OK)
        goto out;
    for (int pass = 0; pass < 2; pass++)
        for (size_t r = 0; r < t->nrows; r++) {
            cmp_row *row = &t->rows[r];
            double c2, df, kmin = INFINITY;

            row_counts(t, row->b, (const json_t *const *)idx, o->reps_b, nb, s.kb, s.eb);
            row_counts(t, row->c, (const json_t *const *)idx + nb, o->reps_c, nc, s.kc, s.ec);
            cmp_reps_between(&s, &c2, &df);
            for (size_t i = 0; i < nb; i++)
                kmin = fmin(kmin, s.kb[i]);
            for (size_t i = 0; i < nc; i++)
                kmin = fmin(kmin, s.kc[i]);
            if (pass == 0) {
                if (df > 0 && kmin >= POOL_MIN_SAMPLES) {
                    pooled += c2;
                    npool++;
                    dfpool += df;
                }
                continue;
            }
            row->between = c2;
            if (npool > 0 && pooled / npool > c2) {
                row->between = pooled / npool;
                df = dfpool;
            }
            /* Student's t on the degrees of freedom of the variance used */
            cmp_reps_test(&s, row->between, df, &row->p, &row->ratio_lo, &row->ratio_hi);
        }
    t->between = npool > 0 ? pooled / npool : NAN;
    t->between_rows = (size_t)npool;
    rc = PP_OK;
out:
    for (size_t i = 0; idx != NULL && i < nb + nc; i++)
        json_decref(idx[i]);
    free(idx);
    free(buf);
    return rc;
}

/* The value of total `name` in a replicate's stage. */
static double
total_in(const json_t *doc, const char *stage, const char *name)
{
    return cmp_num(json_object_get(
        json_object_get(json_object_get(stage_of(doc, stage), "totals"), name), "value"));
}

int
cmp_reps_totals(cmp_stage *st, const char *stage, const pp_compare_options *o)
{
    size_t nb = o->nrep_b, nc = o->nrep_c;
    double *buf = calloc(2 * (nb + nc) + 1, sizeof *buf);
    cmp_sides s = { buf, buf + nb, nb, buf + 2 * nb, buf + 2 * nb + nc, nc };
    size_t tested = 0;

    if (buf == NULL)
        return PP_ENOMEM;
    /* Each gating total is a test, on a between-run variance of few
     * degrees of freedom: Bonferroni keeps the stage's chance of one
     * false verdict under CMP_ALPHA, as for a table's rows. */
    for (size_t i = 0; i < st->ntotals; i++)
        tested += st->totals[i].kname != NULL && st->totals[i].axis;
    for (size_t i = 0; i < st->ntotals; i++) {
        cmp_total *t = &st->totals[i];
        double c2, df;

        if (t->kname == NULL)
            continue;
        for (size_t r = 0; r < nb; r++) {
            s.kb[r] = total_in(o->reps_b[r], stage, t->kname);
            s.eb[r] = t->eb == 1 && t->ec == 1 ? 1 : rep_work(o->reps_b[r], st->w.unit);
        }
        for (size_t r = 0; r < nc; r++) {
            s.kc[r] = total_in(o->reps_c[r], stage, t->kname);
            s.ec[r] = t->eb == 1 && t->ec == 1 ? 1 : rep_work(o->reps_c[r], st->w.unit);
        }
        cmp_reps_between(&s, &c2, &df);
        cmp_reps_test(&s, c2, df, &t->rep_p, &c2, &df);
        t->reps = 1;
        t->alpha = CMP_ALPHA / (double)(tested > 1 ? tested : 1);
    }
    free(buf);
    return PP_OK;
}
