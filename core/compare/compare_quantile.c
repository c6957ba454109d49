/* Compare for tables with per-request samples (compare_quantile.h): a
 * bootstrap interval of the percentile difference per row. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_quantile.h"
#include "compare_stats.h"
#include "result/result.h"

#define QCOLS   11
#define QSEED   0x36u /* fixed: the same two runs always get the same verdict */
#define EXAMPLE 5

/* ---- the bootstrap ------------------------------------------------------- */

static uint64_t
splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The nearest rank (1-based) of quantile q among n values. */
static size_t
rank_of(double q, size_t n)
{
    double r = ceil(q / 100.0 * (double)n);

    return r < 1 ? 1 : r > (double)n ? n : (size_t)r;
}

/* The quantile of one resample of the sorted values s[0..n): draw n
 * indices, count them per index, and walk the counts to the rank; the
 * value at an index is its order statistic, so no sort is needed. */
static double
resample_quantile(const double *s, size_t n, size_t rank, uint32_t *counts, uint64_t *seed)
{
    size_t seen = 0;

    memset(counts, 0, n * sizeof *counts);
    for (size_t i = 0; i < n; i++)
        counts[(size_t)((double)(splitmix64(seed) >> 11) * 0x1.0p-53 * (double)n)]++;
    for (size_t i = 0; i < n; i++)
        if ((seen += counts[i]) >= rank)
            return s[i];
    return s[n - 1];
}

int
pp_quantile_diff_interval(const double *x, size_t nx, const double *y, size_t ny, double q,
                          unsigned resamples, uint64_t seed, double *lo, double *hi)
{
    double *sx, *sy, *diff;
    uint32_t *counts;
    size_t rx, ry;

    if (nx == 0 || ny == 0 || !(q > 0 && q < 100) || resamples < 40)
        return PP_EINVAL;
    sx = malloc(nx * sizeof *sx);
    sy = malloc(ny * sizeof *sy);
    diff = malloc(resamples * sizeof *diff);
    counts = malloc((nx > ny ? nx : ny) * sizeof *counts);
    if (sx == NULL || sy == NULL || diff == NULL || counts == NULL) {
        free(sx);
        free(sy);
        free(diff);
        free(counts);
        return PP_ENOMEM;
    }
    memcpy(sx, x, nx * sizeof *sx);
    memcpy(sy, y, ny * sizeof *sy);
    qsort(sx, nx, sizeof *sx, cmp_double);
    qsort(sy, ny, sizeof *sy, cmp_double);
    rx = rank_of(q, nx);
    ry = rank_of(q, ny);
    for (unsigned b = 0; b < resamples; b++)
        diff[b] = resample_quantile(sy, ny, ry, counts, &seed) -
                  resample_quantile(sx, nx, rx, counts, &seed);
    qsort(diff, resamples, sizeof *diff, cmp_double);
    *lo = diff[(size_t)floor(0.025 * resamples)];
    *hi = diff[(size_t)ceil(0.975 * resamples) - 1];
    free(sx);
    free(sy);
    free(diff);
    free(counts);
    return PP_OK;
}

/* ---- the tables ---------------------------------------------------------- */

/* One side: its table, its samples table and the columns the hints name. */
typedef struct qside {
    const json_t *table, *samples;
    int key, skey, sval;
} qside;

static int
side_of(const json_t *stage, const json_t *table, qside *s)
{
    const char *how = pp_compare_hint(table, "compare");

    s->table = table;
    s->samples = pp_compare_table(stage, pp_compare_hint(table, "samples"));
    s->key = pp_compare_col(table, pp_compare_hint(table, "sample_key"));
    s->skey = s->samples ? pp_compare_col(s->samples, pp_compare_hint(table, "sample_key")) : -1;
    s->sval = s->samples ? pp_compare_col(s->samples, pp_compare_hint(table, "sample_value")) : -1;
    return how != NULL && strcmp(how, "quantile") == 0 && s->key >= 0 && s->skey >= 0 &&
           s->sval >= 0;
}

static const char *
key_of(const json_t *row, int col)
{
    const char *k = json_string_value(json_array_get(row, (size_t)col));

    return k != NULL ? k : "";
}

/* The values of `key` in side s, malloc'ed (*n of them; NULL with *n 0
 * when there are none). -1 when out of memory. */
static int
values_of(const qside *s, const char *key, double **out, size_t *n)
{
    size_t i, cap = 0;
    json_t *r;

    *out = NULL;
    *n = 0;
    json_array_foreach(json_object_get(s->samples, "rows"), i, r) {
        const json_t *v = json_array_get(r, (size_t)s->sval);
        double x = json_is_integer(v) ? (double)json_integer_value(v) :
                   json_is_real(v)    ? json_real_value(v) :
                                        NAN;

        if (!isfinite(x) || strcmp(key_of(r, s->skey), key) != 0)
            continue;
        if (*n == cap) {
            double *grown = realloc(*out, (cap = cap ? 2 * cap : 256) * sizeof *grown);

            if (grown == NULL) {
                free(*out);
                *out = NULL;
                return -1;
            }
            *out = grown;
        }
        (*out)[(*n)++] = x;
    }
    return 0;
}

static double
quantile_of(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return v[rank_of(q, n) - 1];
}

typedef struct qtally {
    int slower, faster, same, unjudged, nex;
    char ex[EXAMPLE][240];
} qtally;

/* Threshold percent: one naming the table (column "*" or pNN) wins. */
static double
threshold_percent(const pp_compare_options *o, const char *table, const char *qcol)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        const pp_compare_threshold *t = &o->thresholds[i];

        if ((strcmp(t->table, table) == 0 || strcmp(t->table, "*") == 0) &&
            (strcmp(t->column, "*") == 0 || strncmp(t->column, qcol, strlen(qcol)) == 0))
            return t->percent;
    }
    return fmax(o->noise_percent, PP_COMPARE_QUANTILE_FLOOR);
}

typedef struct qjob {
    const qside *b, *c;
    double q, rel;
    const char *unit;
    pp_table *out;
    qtally *v;
    const pp_quantile_tally *tally;
    const char *stage, *table;
} qjob;

/* One row key present on either side into the output table. */
static int
judge_row(const qjob *j, const char *key, int in_b, int in_c, pp_error *err)
{
    double *xb = NULL, *xc = NULL, qb = NAN, qc = NAN, lo = NAN, hi = NAN, thr = NAN;
    size_t nb = 0, nc = 0;
    const char *status;
    int rc = PP_OK;

    if ((in_b && values_of(j->b, key, &xb, &nb) != 0) ||
        (in_c && values_of(j->c, key, &xc, &nc) != 0)) {
        free(xb);
        pp_error_set(err, PP_ENOMEM, "out of memory reading the per-request samples of '%s'", key);
        return PP_ENOMEM;
    }
    qb = quantile_of(xb, nb, j->q);
    qc = quantile_of(xc, nc, j->q);
    if (!in_b || !in_c) {
        status = in_b ? "disappeared" : "appeared";
    } else if (nb < PP_COMPARE_QUANTILE_MIN_N || nc < PP_COMPARE_QUANTILE_MIN_N) {
        status = "no verdict";
        j->v->unjudged++;
    } else {
        thr = fabs(qb) * j->rel / 100.0;
        rc = pp_quantile_diff_interval(xb, nb, xc, nc, j->q, PP_COMPARE_QUANTILE_RESAMPLES, QSEED,
                                       &lo, &hi);
        if (rc != PP_OK) {
            free(xb);
            free(xc);
            pp_error_set(err, rc, "cannot resample the samples of '%s' (error %d)", key, rc);
            return rc;
        }
        status = lo > thr ? "slower" : hi < -thr ? "faster" : "same";
        if (lo > thr) {
            j->v->slower++;
            (*j->tally->regressions)++;
        } else if (hi < -thr) {
            j->v->faster++;
            (*j->tally->improvements)++;
        } else {
            j->v->same++;
        }
        if (strcmp(status, "same") != 0 && j->tally->decided != NULL &&
            json_array_size(j->tally->decided) < j->tally->max_decided) {
            char line[384];

            snprintf(line, sizeof line,
                     "%s %s '%s' p%g %.4g -> %.4g %s (%+.1f%%; bootstrap 95 %% interval of the "
                     "difference %+.4g .. %+.4g %s): %s",
                     j->stage, j->table, key, j->q, qb, qc, j->unit,
                     qb != 0 ? 100.0 * (qc - qb) / fabs(qb) : NAN, lo, hi, j->unit,
                     lo > thr ? "regressed" : "improved");
            json_array_append_new(j->tally->decided, json_string(line));
        }
        if (strcmp(status, "same") != 0 && j->v->nex < EXAMPLE)
            snprintf(j->v->ex[j->v->nex++], sizeof j->v->ex[0],
                     "'%s' %s: p%g %.4g -> %.4g %s (95 %% interval of the difference %+.4g .. "
                     "%+.4g %s, %zu and %zu requests)",
                     key, status, j->q, qb, qc, j->unit, lo, hi, j->unit, nb, nc);
    }
    free(xb);
    free(xc);
    {
        pp_cell row[QCOLS] = {
            pp_cell_str(key),
            pp_cell_str(status),
            isfinite(qb) ? pp_cell_dbl(qb) : pp_cell_null(),
            isfinite(qc) ? pp_cell_dbl(qc) : pp_cell_null(),
            isfinite(qb) && isfinite(qc) ? pp_cell_dbl(qc - qb) : pp_cell_null(),
            isfinite(qb) && isfinite(qc) && qb != 0 ? pp_cell_dbl(100.0 * (qc - qb) / fabs(qb)) :
                                                      pp_cell_null(),
            isfinite(lo) ? pp_cell_dbl(lo) : pp_cell_null(),
            isfinite(hi) ? pp_cell_dbl(hi) : pp_cell_null(),
            isfinite(thr) ? pp_cell_dbl(thr) : pp_cell_null(),
            pp_cell_int((int64_t)nb),
            pp_cell_int((int64_t)nc),
        };

        return pp_result_table_row(j->out, row, err);
    }
}

static int
has_key(const qside *s, const char *key)
{
    size_t i;
    json_t *r;

    json_array_foreach(json_object_get(s->table, "rows"), i, r)
        if (strcmp(key_of(r, s->key), key) == 0)
            return 1;
    return 0;
}

static void
report(json_t *out_stage, const char *name, const qjob *j, const char *weakened)
{
    char msg[2048];
    size_t used;

    if (j->v->slower + j->v->faster > 0) {
        used = (size_t)snprintf(
            msg, sizeof msg,
            "table %s: %d row%s slower, %d faster at p%g (bootstrap 95 %% interval of the p%g "
            "difference, %d resamples of each run's per-request latencies, beyond %.1f %% of "
            "the baseline p%g) — statistical verdict: confirm with a same-session A/B with "
            "identical knobs%s:",
            name, j->v->slower, j->v->slower == 1 ? "" : "s", j->v->faster, j->q, j->q,
            PP_COMPARE_QUANTILE_RESAMPLES, j->rel, j->q, weakened);
        for (int i = 0; i < j->v->nex && used < sizeof msg; i++)
            used += (size_t)snprintf(msg + used, sizeof msg - used, "%s %s", i ? ";" : "",
                                     j->v->ex[i]);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.statistical", msg);
    }
    if (j->v->same > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s the same at p%g (the bootstrap 95 %% interval of the "
                 "difference reaches within %.1f %% of the baseline p%g)",
                 name, j->v->same, j->v->same == 1 ? "" : "s", j->q, j->rel, j->q);
        pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.same", msg);
    }
    if (j->v->unjudged > 0) {
        snprintf(msg, sizeof msg,
                 "table %s: %d row%s with fewer than %d per-request values on a side: no "
                 "p%g verdict",
                 name, j->v->unjudged, j->v->unjudged == 1 ? "" : "s", PP_COMPARE_QUANTILE_MIN_N,
                 j->q);
        pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.no_samples", msg);
    }
}

int
pp_compare_quantile(const json_t *sb, const json_t *sc, const json_t *tb, const json_t *tc,
                    json_t *out_stage, const pp_compare_options *o, const char *weakened,
                    const pp_quantile_tally *tally, int *rc, pp_error *err)
{
    const char *name = json_string_value(json_object_get(tb, "name"));
    const char *qs = pp_compare_hint(tb, "quantile"), *unit = pp_compare_hint(tb, "unit");
    char qcol[32], c_base[40], c_cand[40], c_delta[40], c_pct[48];
    qside b, c;
    qtally v;
    pp_table_set set = { NULL, NULL };
    qjob j;
    size_t i;
    json_t *r;
    double q = qs ? strtod(qs, NULL) : NAN;

    if (!side_of(sb, tb, &b) || !side_of(sc, tc, &c) || !(q > 0 && q < 100) || name == NULL)
        return 0;
    snprintf(qcol, sizeof qcol, "p%g", q);
    snprintf(c_base, sizeof c_base, "%s_base", qcol);
    snprintf(c_cand, sizeof c_cand, "%s_cand", qcol);
    snprintf(c_delta, sizeof c_delta, "%s_delta", qcol);
    snprintf(c_pct, sizeof c_pct, "%s_delta_pct", qcol);
    {
        const pp_column cols[QCOLS] = {
            { pp_compare_hint(tb, "sample_key"), PP_COL_STRING, 0 },
            { "status", PP_COL_STRING, 0 },
            { c_base, PP_COL_NUMBER, 0 },
            { c_cand, PP_COL_NUMBER, 0 },
            { c_delta, PP_COL_NUMBER, 0 },
            { c_pct, PP_COL_PERCENT, 0 },
            { "interval_low", PP_COL_NUMBER, 0 },
            { "interval_high", PP_COL_NUMBER, 0 },
            { "threshold", PP_COL_NUMBER, 0 },
            { "n_base", PP_COL_COUNT, 0 },
            { "n_cand", PP_COL_COUNT, 0 },
        };

        memset(&v, 0, sizeof v);
        j = (qjob){ &b,
                    &c,
                    q,
                    threshold_percent(o, name, qcol),
                    unit ? unit : "",
                    NULL,
                    &v,
                    tally,
                    json_string_value(json_object_get(sb, "id")) ?: "?",
                    name };
        if ((j.out = pp_result_table_new(&set, out_stage, name, QCOLS, cols, 1, err)) == NULL) {
            *rc = err ? err->code : PP_EINVAL;
            return 1;
        }
    }
    *rc = PP_OK;
    json_array_foreach(json_object_get(tb, "rows"), i, r)
        if (*rc == PP_OK)
            *rc = judge_row(&j, key_of(r, b.key), 1, has_key(&c, key_of(r, b.key)), err);
    json_array_foreach(json_object_get(tc, "rows"), i, r)
        if (*rc == PP_OK && !has_key(&b, key_of(r, c.key)))
            *rc = judge_row(&j, key_of(r, c.key), 0, 1, err);
    if (*rc == PP_OK)
        report(out_stage, name, &j, weakened);
    pp_result_tables_release(&set);
    return 1;
}
