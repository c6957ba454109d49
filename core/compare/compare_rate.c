/* compare: rates of sampled counts per unit of work. A sampled row (alloc:
 * GCAllocationTick, one tick per ~100 KB a thread allocates; cpu: one
 * thread-time sample per interval) is a Poisson count whose mean is its
 * rate times the work done. Two runs' counts kb, kc with work eb, ec are
 * judged by the conditional binomial test of the Poisson rate ratio: given
 * n = kb + kc, kc ~ Binomial(n, ec / (eb + ec)) when the rates are equal
 * (Przyborowski and Wilenski, 1940). */
#include "config.h"

#include <math.h>

#include "compare_internal.h"

#define Z95 1.959963984540054
/* Past this many samples the binomial is summed no more: the normal
 * approximation (with continuity correction) is within 1e-3 of it. */
#define EXACT_MAX 5000

static double
log_pmf(double k, double n, double p)
{
    return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * log(p) + (n - k) * log1p(-p);
}

double
cmp_rate_p(double kb, double kc, double eb, double ec)
{
    double n = kb + kc, p, sum = 0, cut;

    if (!(eb > 0) || !(ec > 0) || kb < 0 || kc < 0)
        return NAN;
    if (n == 0)
        return 1;
    p = ec / (eb + ec);
    if (n > EXACT_MAX) {
        double sd = sqrt(n * p * (1 - p)), z = (fabs(kc - n * p) - 0.5) / sd;

        return z <= 0 ? 1 : erfc(z / M_SQRT2);
    }
    /* two-sided: every outcome no likelier than the observed one */
    cut = log_pmf(kc, n, p) + 1e-7;
    for (double k = 0; k <= n; k++) {
        double l = log_pmf(k, n, p);

        if (l <= cut)
            sum += exp(l);
    }
    return sum > 1 ? 1 : sum;
}

int
cmp_rate_testable(double kb, double kc, double eb, double ec)
{
    double n = kb + kc;

    /* the most one-sided outcomes: all samples in one run */
    return cmp_rate_p(n, 0, eb, ec) < CMP_ALPHA || cmp_rate_p(0, n, eb, ec) < CMP_ALPHA;
}

/* Wilson's score interval of the binomial proportion kc / n, mapped to
 * the rate ratio (cand / base per unit of work). */
void
cmp_rate_ratio_ci(double kb, double kc, double eb, double ec, double *lo, double *hi)
{
    double n = kb + kc, z2 = Z95 * Z95, ph, c, h, pl, pu;

    *lo = 0;
    *hi = INFINITY;
    if (n == 0 || !(eb > 0) || !(ec > 0))
        return;
    ph = kc / n;
    c = (ph + z2 / (2 * n)) / (1 + z2 / n);
    h = Z95 / (1 + z2 / n) * sqrt(ph * (1 - ph) / n + z2 / (4 * n * n));
    pl = c - h > 0 ? c - h : 0;
    pu = c + h < 1 ? c + h : 1;
    *lo = pl / (1 - pl) * eb / ec;
    *hi = pu < 1 ? pu / (1 - pu) * eb / ec : INFINITY;
}
