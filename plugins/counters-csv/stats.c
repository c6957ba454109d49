/* Per-series statistics: levels, percentiles, rates and the least-squares
 * trend that tells steady growth from churn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters_csv.h"

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int64_t
cc_to_i64(double d)
{
    if (!(d == d))
        return 0;
    if (d >= 9.2e18)
        return INT64_MAX;
    if (d <= -9.2e18)
        return INT64_MIN;
    return pp_i64_from_double(round(d));
}

const char *
cc_axis(const char *q)
{
    if (q == NULL)
        return "other";
    if (strncmp(q, "alloc.", 6) == 0 || strncmp(q, "gc.collections.", 15) == 0)
        return "churn";
    if (strncmp(q, "memory.", 7) == 0 || strncmp(q, "gc.heap.", 8) == 0 ||
        strcmp(q, "gc.committed") == 0)
        return "footprint";
    return "time";
}

int
cc_stats_compute(const cc_series *s, int64_t from_ns, int64_t to_ns, int trend_after_zeros,
                 double **scratch, size_t *scratch_cap, cc_stats *out)
{
    int rate = s->counter_type == PP_COUNTER_RATE;
    double div = rate ? s->interval_s : 1;
    double sum = 0, raw_sum = 0, mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
    size_t n = 0, nt = 0, begin = 0;
    double *v;

    memset(out, 0, sizeof *out);
    out->rate = out->slope_per_min = out->r2 = out->growth_pct = NAN;
    if (*scratch_cap < s->n) {
        double *p = realloc(*scratch, s->n * sizeof *p);
        if (p == NULL)
            return PP_ENOMEM;
        *scratch = p;
        *scratch_cap = s->n;
    }
    v = *scratch;
    /* Every point in the window with a finite value is a sample, a leading 0
     * too (a heap size reads 0 until the first GC: that is what the process
     * reported, and CSV and JSON of one run must count the same samples). */
    for (size_t i = 0; i < s->n; i++) {
        const cc_point *p = &s->pts[i];
        if (p->t < from_ns || p->t > to_ns || !isfinite(p->v))
            continue;
        if (n == 0) {
            out->t_first = p->t;
            out->first = p->v / div;
        }
        out->t_last = p->t;
        out->last = p->v / div;
        v[n++] = p->v / div;
        raw_sum += p->v;
    }
    if (n == 0)
        return 0;
    out->n = n;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->mean = sum / (double)n;
    /* The trend of a heap size starts at its first GC: the zeros before it
     * are no level, and a fit through them would call warm-up a leak. */
    out->t_trend = out->t_first;
    out->trend_first = out->first;
    nt = n;
    if (trend_after_zeros) {
        size_t lead = 0;
        for (size_t i = 0; i < s->n; i++) {
            const cc_point *p = &s->pts[i];
            if (p->t < from_ns || p->t > to_ns || !isfinite(p->v))
                continue;
            if (p->v == 0) {
                lead++;
                continue;
            }
            begin = i;
            out->t_trend = p->t;
            out->trend_first = p->v / div;
            nt = n - lead;
            break;
        }
    }
    /* Least squares over time in minutes, for levels only. */
    if (!rate && nt >= 3) {
        size_t k = 0;
        for (size_t i = begin; i < s->n && k < nt; i++) {
            const cc_point *p = &s->pts[i];
            if (p->t < from_ns || p->t > to_ns || !isfinite(p->v))
                continue;
            mx += (double)(p->t - out->t_trend) / 60e9;
            my += p->v;
            k++;
        }
        mx /= (double)nt;
        my /= (double)nt;
        k = 0;
        for (size_t i = begin; i < s->n && k < nt; i++) {
            const cc_point *p = &s->pts[i];
            double dx, dy;
            if (p->t < from_ns || p->t > to_ns || !isfinite(p->v))
                continue;
            dx = (double)(p->t - out->t_trend) / 60e9 - mx;
            dy = p->v - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
            k++;
        }
        if (sxx > 0) {
            out->slope_per_min = sxy / sxx;
            if (syy > 0)
                out->r2 = (sxy * sxy) / (sxx * syy);
            if (my != 0)
                out->growth_pct = out->slope_per_min *
                                  ((double)(out->t_last - out->t_trend) / 60e9) / my * 100.0;
        }
    }
    qsort(v, n, sizeof *v, cmp_double);
    out->min = v[0];
    out->max = v[n - 1];
    {
        /* linear interpolation between closest ranks */
        double pos = 0.95 * (double)(n - 1);
        size_t lo = (size_t)pos;
        double frac = pos - (double)lo;
        out->p95 = lo + 1 < n ? v[lo] + (v[lo + 1] - v[lo]) * frac : v[lo];
    }
    if (rate) {
        out->delta = raw_sum;
        out->rate = raw_sum / ((double)n * s->interval_s);
    } else {
        out->delta = out->last - out->first;
    }
    return 1;
}
