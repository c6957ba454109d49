/* Compare for hinted tables (compare_stats.h): BenchmarkDotNet cases with
 * Welch's t-test on their iterations and exact allocated bytes/op. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_stats.h"
#include "result/result.h"

#define EXAMPLES 5
#define NCOLS    17
#define EXBUF    400

/* ---- the t distribution ---------------------------------------------------- */

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double
beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1), f;

    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    f = d;
    for (int m = 1; m <= 500; m++) {
        double m2 = 2.0 * m, num = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), delta;

        d = 1 + num * d;
        c = 1 + num / c;
        if (fabs(d) < tiny)
            d = tiny;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        f *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + num * d;
        c = 1 + num / c;
        if (fabs(d) < tiny)
            d = tiny;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        delta = d * c;
        f *= delta;
        if (fabs(delta - 1) < eps)
            break;
    }
    return f;
}

/* Regularized incomplete beta I_x(a, b). */
static double
beta_regularized(double a, double b, double x)
{
    double front;

    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double
pp_student_t_cdf(double t, double df)
{
    double tail;

    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return t > 0 ? 1 : 0;
    tail = 0.5 * beta_regularized(df / 2, 0.5, df / (df + t * t));
    return t > 0 ? 1 - tail : tail;
}

double
pp_welch_p_greater(double mx, double vx, double nx, double my, double vy, double ny, double shift)
{
    double sx, sy, se, df, t;

    if (nx < 2 || ny < 2)
        return NAN;
    sx = vx / nx;
    sy = vy / ny;
    se = sqrt(sx + sy);
    if (!(se > 0)) /* no spread at all: the difference is what it is */
        return my - mx > shift ? 0 : 1;
    df = (sx + sy) * (sx + sy) / (sx * sx / (nx - 1) + sy * sy / (ny - 1));
    t = (my - mx - shift) / se;
    return 1 - pp_student_t_cdf(t, df);
}

/* ---- the join ---------------------------------------------------------------- */

typedef struct moments {
    double mean, var;
    uint32_t n;
} moments;

const char *
pp_compare_hint(const json_t *table, const char *key)
{
    return json_string_value(json_object_get(json_object_get(table, "hints"), key));
}

const json_t *
pp_compare_table(const json_t *stage, const char *name)
{
    size_t i;
    json_t *t;

    if (name == NULL)
        return NULL;
    json_array_foreach(json_object_get(stage, "tables"), i, t) {
        const char *n = json_string_value(json_object_get(t, "name"));

        if (n != NULL && strcmp(n, name) == 0)
            return t;
    }
    return NULL;
}

int
pp_compare_col(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(table, "columns"), i, c)
        if (name != NULL && strcmp(json_string_value(json_object_get(c, "name")) ?: "", name) == 0)
            return (int)i;
    return -1;
}

static double
num(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) :
           json_is_real(v)    ? json_real_value(v) :
                                NAN;
}

static const char *
cell_str(const json_t *row, int col)
{
    const char *s = col >= 0 ? json_string_value(json_array_get(row, (size_t)col)) : NULL;

    return s != NULL ? s : "";
}

static int
same_case(const json_t *a, const int *ka, const json_t *b, const int *kb)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(cell_str(a, ka[i]), cell_str(b, kb[i])) != 0)
            return 0;
    return 1;
}

/* Mean and variance of the per-iteration ns/op of one case. */
static moments
samples_of(const json_t *samples, const json_t *row, const int *krow)
{
    moments m = { NAN, NAN, 0 };
    int ks[3], v;
    double sum = 0, sq = 0;
    size_t i;
    json_t *s;

    if (samples == NULL)
        return m;
    ks[0] = pp_compare_col(samples, "benchmark");
    ks[1] = pp_compare_col(samples, "params");
    ks[2] = pp_compare_col(samples, "job");
    v = pp_compare_col(samples, "per_op_ns");
    if (ks[0] < 0 || v < 0)
        return m;
    /* Welford: stable for samples that barely differ. */
    json_array_foreach(json_object_get(samples, "rows"), i, s) {
        double x, d;

        if (!same_case(s, ks, row, krow) || isnan(x = num(json_array_get(s, (size_t)v))))
            continue;
        m.n++;
        d = x - sum;
        sum += d / m.n;
        sq += d * (x - sum);
    }
    if (m.n > 0)
        m.mean = sum;
    if (m.n > 1)
        m.var = sq / (m.n - 1);
    return m;
}

static double
relative_threshold(const pp_compare_options *o, const char *table)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        const pp_compare_threshold *t = &o->thresholds[i];

        if ((strcmp(t->table, table) == 0 || strcmp(t->table, "*") == 0) &&
            (strcmp(t->column, "*") == 0 || strcmp(t->column, "mean_ns") == 0))
            return t->percent;
    }
    return o->noise_percent;
}

typedef struct verdicts {
    int appeared, disappeared, alloc_grew, alloc_shrank, slower, faster, same, unjudged;
    char structural[EXAMPLES][EXBUF], statistical[EXAMPLES][EXBUF], unknown[EXAMPLES][EXBUF];
    int nstruct, nstat, nunknown;
} verdicts;

static void
label(char *buf, size_t size, const json_t *row, const int *k)
{
    const char *p = cell_str(row, k[1]);

    snprintf(buf, size, "%s%s%s%s", cell_str(row, k[0]), p[0] ? " [" : "", p, p[0] ? "]" : "");
}

/* One joined case into the output row and the tallies. */
static int
judge(const json_t *rb, const json_t *rc_, const json_t *sb, const json_t *sc, const int *kb,
      const int *kc, const int (*cc)[3], double rel, double min_delta, pp_table *t, verdicts *v,
      int *regressions, pp_error *err)
{
    /* cc[0]: the baseline's figure columns, cc[1]: the candidate's (a column may sit at another
     * index in a run whose analyzer added one) */
    const json_t *any = rb ? rb : rc_;
    const int *k = rb ? kb : kc;
    double mb = rb ? num(json_array_get(rb, (size_t)cc[0][0])) : NAN;
    double mc = rc_ ? num(json_array_get(rc_, (size_t)cc[1][0])) : NAN;
    double ab = rb ? num(json_array_get(rb, (size_t)cc[0][1])) : NAN;
    double ac = rc_ ? num(json_array_get(rc_, (size_t)cc[1][1])) : NAN;
    double thr = NAN, p = NAN;
    const char *time = "no verdict", *alloc = "same";
    char status[64], name[160];
    pp_cell cells[NCOLS];
    size_t n = 0;

    label(name, sizeof name, any, k);
    if (rb == NULL || rc_ == NULL) {
        snprintf(status, sizeof status, "%s", rb == NULL ? "appeared" : "disappeared");
        time = alloc = "-";
        if (rb == NULL) {
            v->appeared++;
            (*regressions)++;
        } else {
            v->disappeared++;
        }
        if (v->nstruct < EXAMPLES)
            snprintf(v->structural[v->nstruct++], sizeof v->structural[0], "%s '%s'", status, name);
    } else {
        moments xb = samples_of(sb, rb, kb), xc = samples_of(sc, rc_, kc);

        if (!isnan(ab) && !isnan(ac) && ab != ac) {
            alloc = ac > ab ? "grew" : "shrank";
            if (ac > ab) {
                v->alloc_grew++;
                (*regressions)++;
            } else {
                v->alloc_shrank++;
            }
            if (v->nstruct < EXAMPLES)
                snprintf(v->structural[v->nstruct++], sizeof v->structural[0],
                         "'%s' allocated %.0f -> %.0f B/op", name, ab, ac);
        }
        thr = fmax(fabs(mb) * rel / 100.0, min_delta);
        if (xb.n >= 2 && xc.n >= 2) {
            double ps = pp_welch_p_greater(xb.mean, xb.var, xb.n, xc.mean, xc.var, xc.n, thr);
            double pf = pp_welch_p_greater(xc.mean, xc.var, xc.n, xb.mean, xb.var, xb.n, thr);

            if (ps < PP_COMPARE_ALPHA) {
                time = "slower";
                p = ps;
                v->slower++;
                (*regressions)++;
            } else if (pf < PP_COMPARE_ALPHA) {
                time = "faster";
                p = pf;
                v->faster++;
            } else {
                time = "same";
                p = fmin(ps, pf);
                v->same++;
            }
            if (strcmp(time, "same") != 0 && v->nstat < EXAMPLES)
                snprintf(v->statistical[v->nstat++], sizeof v->statistical[0],
                         "'%s' %s: %.4g -> %.4g ns/op (p = %.2g, threshold %.3g ns)", name, time,
                         xb.mean, xc.mean, p, thr);
        } else {
            v->unjudged++;
            if (v->nunknown < EXAMPLES)
                snprintf(v->unknown[v->nunknown++], sizeof v->unknown[0],
                         "'%s' (%u and %u "
                         "iterations)",
                         name, xb.n, xc.n);
        }
        if (strcmp(alloc, "same") != 0)
            snprintf(status, sizeof status, "allocation %s%s%s", alloc,
                     strcmp(time, "same") != 0 ? ", " : "", strcmp(time, "same") != 0 ? time : "");
        else
            snprintf(status, sizeof status, "%s", time);
    }
    for (int i = 0; i < 3; i++)
        cells[n++] = pp_cell_str(cell_str(any, k[i]));
    cells[n++] = pp_cell_str(status);
    cells[n++] = pp_cell_str(time);
    cells[n++] = pp_cell_str(alloc);
    cells[n++] = pp_cell_dbl(mb);
    cells[n++] = pp_cell_dbl(mc);
    cells[n++] = pp_cell_dbl(mc - mb);
    cells[n++] = rb && rc_ && mb != 0 ? pp_cell_dbl(100.0 * (mc - mb) / fabs(mb)) : pp_cell_null();
    cells[n++] = pp_cell_dbl(thr);
    cells[n++] = pp_cell_dbl(p);
    cells[n++] = pp_cell_int(isnan(ab) ? 0 : pp_i64_from_double(round(ab)));
    cells[n++] = pp_cell_int(isnan(ac) ? 0 : pp_i64_from_double(round(ac)));
    cells[n++] = pp_cell_int(
        pp_i64_from_double((isnan(ac) ? 0 : round(ac)) - (isnan(ab) ? 0 : round(ab))));
    cells[n++] = pp_cell_int(rb ? pp_i64_from_double(num(json_array_get(rb, (size_t)cc[0][2]))) :
                                  0);
    cells[n++] = pp_cell_int(rc_ ? pp_i64_from_double(num(json_array_get(rc_, (size_t)cc[1][2]))) :
                                   0);
    return pp_result_table_row(t, cells, err);
}

static void
say(json_t *out_stage, uint32_t severity, const char *code, const char *head, char (*ex)[EXBUF],
    int nex, size_t exsize)
{
    char msg[2048];
    size_t used = (size_t)snprintf(msg, sizeof msg, "%s", head);

    for (int i = 0; i < nex && used < sizeof msg; i++)
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%s %s", i ? ";" : "",
                                 (const char *)ex + (size_t)i * exsize);
    pp_result_finding(out_stage, severity, code, msg);
}

/* The case key (kb, kc) and judged figure columns (cc[0] the baseline's,
 * cc[1] the candidate's) of a bench table, found by name on each side (a run
 * whose analyzer added a column has them at other indices). -1 when a key or
 * figure is on one side only: that table hides its cases, so why is added to
 * reasons (the caller's verdict is then "cannot judge", exit 6 with
 * --fail-on); PP_ENOMEM when it cannot be. */
static int
bench_columns(const json_t *tb, const json_t *tc, int *kb, int *kc, int cc[2][3], const char *name,
              json_t *reasons, pp_error *err)
{
    const char *missing = NULL, *side = NULL;
    char msg[512];

    kb[0] = pp_compare_col(tb, "benchmark");
    kb[1] = pp_compare_col(tb, "params");
    kb[2] = pp_compare_col(tb, "job");
    kc[0] = pp_compare_col(tc, "benchmark");
    kc[1] = pp_compare_col(tc, "params");
    kc[2] = pp_compare_col(tc, "job");
    cc[0][0] = pp_compare_col(tb, "mean_ns");
    cc[0][1] = pp_compare_col(tb, "allocated_b_op");
    cc[0][2] = pp_compare_col(tb, "iterations");
    cc[1][0] = pp_compare_col(tc, "mean_ns");
    cc[1][1] = pp_compare_col(tc, "allocated_b_op");
    cc[1][2] = pp_compare_col(tc, "iterations");
    for (int f = 0; f < 3 && missing == NULL; f++) {
        static const char *const key[3] = { "benchmark", "params", "job" };

        if (cc[0][f] < 0 || cc[1][f] < 0) {
            /* named as the side that has it calls it */
            const json_t *has = cc[0][f] >= 0 ? tb : tc;
            const int at = cc[0][f] >= 0 ? cc[0][f] : cc[1][f];

            missing = at < 0 ?
                          NULL :
                          json_string_value(json_object_get(
                              json_array_get(json_object_get(has, "columns"), (size_t)at), "name"));
            side = cc[0][f] < 0 ? "baseline" : "candidate";
            if (missing == NULL) /* on neither side: not a bench table at all */
                missing = "(a judged figure)";
        } else if ((kb[f] < 0) != (kc[f] < 0) || kb[0] < 0) {
            missing = key[kb[0] < 0 ? 0 : f];
            side = kb[f] < 0 || kb[0] < 0 ? "baseline" : "candidate";
        }
    }
    if (missing == NULL)
        return PP_OK;
    snprintf(msg, sizeof msg,
             "table %s: column %s is not in the %s's bench table (different analyzer "
             "versions?); not compared, so no verdict holds without it",
             name ? name : "?", missing, side);
    if (json_array_append_new(reasons, json_string(msg)) != 0) {
        pp_error_set(err, PP_ENOMEM, "out of memory comparing table %s", name);
        return PP_ENOMEM;
    }
    return -1;
}

static int
compare_bench(const json_t *sb, const json_t *sc, const json_t *tb, const json_t *tc,
              json_t *out_stage, const pp_compare_options *o, const char *weakened,
              int *regressions, json_t *reasons, pp_error *err)
{
    static const pp_column cols[NCOLS] = {
        { "benchmark", PP_COL_STRING, 0 },
        { "params", PP_COL_STRING, 0 },
        { "job", PP_COL_STRING, 0 },
        { "status", PP_COL_STRING, 0 },
        { "time", PP_COL_STRING, 0 },
        { "allocation", PP_COL_STRING, 0 },
        { "mean_ns_base", PP_COL_NUMBER, 0 },
        { "mean_ns_cand", PP_COL_NUMBER, 0 },
        { "mean_ns_delta", PP_COL_NUMBER, 0 },
        { "mean_ns_delta_pct", PP_COL_PERCENT, 0 },
        { "threshold_ns", PP_COL_NUMBER, 0 },
        { "p_value", PP_COL_NUMBER, 0 },
        { "allocated_b_op_base", PP_COL_BYTES, 0 },
        { "allocated_b_op_cand", PP_COL_BYTES, 0 },
        { "allocated_b_op_delta", PP_COL_BYTES, 0 },
        { "iterations_base", PP_COL_COUNT, 0 },
        { "iterations_cand", PP_COL_COUNT, 0 },
    };
    const char *name = json_string_value(json_object_get(tb, "name"));
    const json_t *xb = pp_compare_table(sb, pp_compare_hint(tb, "samples")),
                 *xc = pp_compare_table(sc, pp_compare_hint(tc, "samples"));
    const json_t *rows_b = json_object_get(tb, "rows"), *rows_c = json_object_get(tc, "rows");
    double rel = relative_threshold(o, name), min_delta = 0;
    int kb[3], kc[3], cc[2][3];
    char *matched = NULL;
    verdicts v;
    pp_table_set set = { NULL, NULL };
    pp_table *t;
    size_t i, j;
    json_t *r, *s;
    int rc = PP_OK;

    memset(&v, 0, sizeof v);
    if (pp_compare_hint(tb, "min_delta_ns") != NULL)
        min_delta = strtod(pp_compare_hint(tb, "min_delta_ns"), NULL);
    if ((rc = bench_columns(tb, tc, kb, kc, cc, name, reasons, err)) != PP_OK)
        return rc < 0 ? PP_OK : rc; /* < 0: not comparable, the reason given */
    if ((t = pp_result_table_new(&set, out_stage, name, NCOLS, cols, 3, err)) == NULL)
        return err ? err->code : PP_EINVAL;
    if ((matched = calloc(json_array_size(rows_c) + 1, 1)) == NULL) {
        pp_result_tables_release(&set);
        pp_error_set(err, PP_ENOMEM, "out of memory comparing table %s", name);
        return PP_ENOMEM;
    }
    json_array_foreach(rows_b, i, r) {
        const json_t *other = NULL;

        json_array_foreach(rows_c, j, s)
            if (!matched[j] && same_case(r, kb, s, kc)) {
                matched[j] = 1;
                other = s;
                break;
            }
        if ((rc = judge(r, other, xb, xc, kb, kc, (const int(*)[3])cc, rel, min_delta, t, &v,
                        regressions, err)) != PP_OK)
            goto out;
    }
    json_array_foreach(rows_c, j, s)
        if (!matched[j] && (rc = judge(NULL, s, xb, xc, kb, kc, (const int(*)[3])cc, rel, min_delta,
                                       t, &v, regressions, err)) != PP_OK)
            goto out;
    {
        char head[768];

        if (v.appeared + v.disappeared + v.alloc_grew + v.alloc_shrank > 0) {
            snprintf(head, sizeof head,
                     "table %s: %d case%s allocate%s more and %d less per "
                     "operation, %d appeared, %d disappeared — structural verdict (allocated "
                     "bytes/op is deterministic: any change is the code's, it holds across "
                     "sessions)%s:",
                     name, v.alloc_grew, v.alloc_grew == 1 ? "" : "s", v.alloc_grew == 1 ? "s" : "",
                     v.alloc_shrank, v.appeared, v.disappeared, weakened);
            say(out_stage, PP_SEVERITY_WARNING, "compare.structural", head, v.structural, v.nstruct,
                sizeof v.structural[0]);
        }
        if (v.slower + v.faster > 0) {
            snprintf(head, sizeof head,
                     "table %s: %d case%s slower, %d faster by more than the "
                     "threshold (max(%.1f%% of the baseline mean, %.3g ns); Welch's t-test on the "
                     "per-iteration ns/op, one-sided, p < %.2f) — statistical verdict: confirm "
                     "with a same-session A/B with identical knobs%s:",
                     name, v.slower, v.slower == 1 ? "" : "s", v.faster, rel, min_delta,
                     PP_COMPARE_ALPHA, weakened);
            say(out_stage, PP_SEVERITY_INFO, "compare.statistical", head, v.statistical, v.nstat,
                sizeof v.statistical[0]);
        }
        if (v.same > 0) {
            snprintf(head, sizeof head,
                     "table %s: %d case%s the same in time (no shift beyond "
                     "max(%.1f%% of the baseline mean, %.3g ns) at p < %.2f)",
                     name, v.same, v.same == 1 ? "" : "s", rel, min_delta, PP_COMPARE_ALPHA);
            pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.same", head);
        }
        if (v.unjudged > 0) {
            char ex[EXAMPLES][EXBUF];

            for (int e = 0; e < v.nunknown; e++)
                snprintf(ex[e], sizeof ex[e], "%s", v.unknown[e]);
            snprintf(head, sizeof head,
                     "table %s: %d case%s without two or more iterations "
                     "on each side (a CSV summary or a brief JSON export?): no time verdict; "
                     "export JsonExporter.Full:",
                     name, v.unjudged, v.unjudged == 1 ? "" : "s");
            say(out_stage, PP_SEVERITY_WARNING, "compare.no_samples", head, ex, v.nunknown,
                sizeof ex[0]);
        }
    }
out:
    free(matched);
    pp_result_tables_release(&set);
    return rc;
}

int
pp_compare_hinted(const json_t *sb, const json_t *sc, const json_t *tb, const json_t *tc,
                  json_t *out_stage, const pp_compare_options *o, const char *weakened,
                  int *regressions, json_t *reasons, int *rc, pp_error *err)
{
    const char *how = pp_compare_hint(tb, "compare");

    if (how == NULL)
        return 0;
    if (strcmp(how, "samples") == 0 || strcmp(how, "none") == 0) {
        *rc = PP_OK; /* read through the table that names it, or not compared */
        return 1;
    }
    if (strcmp(how, "bench") == 0) {
        *rc = compare_bench(sb, sc, tb, tc, out_stage, o, weakened, regressions, reasons, err);
        return 1;
    }
    return 0; /* a method this build does not know: join as usual */
}
