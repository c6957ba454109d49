/* The mvalue of a sample (Brendan Gregg's modality measure, which
 * BenchmarkDotNet's MultimodalDistributionAnalyzer also uses): the sum of
 * the absolute steps between neighbouring histogram bins (with an empty bin
 * at each end) divided by the tallest bin. One smooth mode gives about 2,
 * two modes about 4. The bin width starts at Scott's rule and doubles up to
 * the sample's range; the largest mvalue over those widths is taken. Tukey
 * outliers (beyond 1.5 IQR) are left out first, as BenchmarkDotNet does. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "bench.h"

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double
quantile(const double *s, uint32_t n, double q)
{
    double h = (n - 1) * q;
    uint32_t lo = (uint32_t)floor(h);

    return lo + 1 < n ? s[lo] + (h - lo) * (s[lo + 1] - s[lo]) : s[n - 1];
}

double
bn_mvalue(double *v, uint32_t n)
{
    double q1, q3, iqr, lo, hi, mean = 0, var = 0, h, best = 0;
    uint32_t m = 0, *bins;

    if (n < 3)
        return 1;
    qsort(v, n, sizeof *v, cmp_double);
    q1 = quantile(v, n, 0.25);
    q3 = quantile(v, n, 0.75);
    iqr = q3 - q1;
    lo = q1 - 1.5 * iqr;
    hi = q3 + 1.5 * iqr;
    for (uint32_t i = 0; i < n; i++)
        if (v[i] >= lo && v[i] <= hi)
            v[m++] = v[i];
    if (m < 3 || v[m - 1] <= v[0])
        return 1;
    for (uint32_t i = 0; i < m; i++)
        mean += v[i];
    mean /= m;
    for (uint32_t i = 0; i < m; i++)
        var += (v[i] - mean) * (v[i] - mean);
    var /= m - 1;
    h = 3.5 * sqrt(var) / cbrt((double)m);
    if (!(h > 0) || !isfinite(h) || !isfinite(v[m - 1] - v[0]))
        return 1; /* the doubling below would never pass an infinite range */
    bins = malloc((m + 2) * sizeof *bins);
    if (bins == NULL)
        return 1;
    for (;;) {
        double range = v[m - 1] - v[0];
        /* never more bins than values: the width only grows; compared as a
         * double, since range / h can be any size (or NaN) on odd input */
        double kd = floor(range / h) + 1;
        uint32_t k = kd >= 1 && kd < m ? (uint32_t)kd : m, top = 0;
        uint64_t sum = 0;

        for (uint32_t i = 0; i < k; i++)
            bins[i] = 0;
        for (uint32_t i = 0; i < m; i++) {
            double bd = floor((v[i] - v[0]) / h);

            bins[bd >= 0 && bd < k ? (uint32_t)bd : k - 1]++;
        }
        for (uint32_t i = 0; i <= k; i++) {
            uint32_t prev = i == 0 ? 0 : bins[i - 1], cur = i == k ? 0 : bins[i];

            sum += cur > prev ? cur - prev : prev - cur;
            if (i < k && bins[i] > top)
                top = bins[i];
        }
        if (top > 0 && (double)sum / top > best)
            best = (double)sum / top;
        if (h > range)
            break;
        h *= 2;
    }
    free(bins);
    return best;
}
