/* plugins/common: quantiles of a sample, header-only.
 *
 * Nearest-rank definition: the q-quantile of n sorted values is the value
 * at rank ceil(q * n) (1-based), so every reported p50/p95 is a latency
 * that really happened, and p100 is the max. */
#ifndef PP_PLUGIN_QUANTILE_H
#define PP_PLUGIN_QUANTILE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int
pp_pc_quantile_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Sort v[0..n) ascending in place. */
static inline void
pp_pc_quantile_sort_i64(int64_t *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof(*v), pp_pc_quantile_cmp_i64);
}

/* The nearest-rank q-quantile (0 < q <= 1) of sorted[0..n); 0 when n == 0. */
static inline int64_t
pp_pc_quantile_sorted_i64(const int64_t *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    /* the epsilon keeps 0.95 * 20 at rank 19 despite binary rounding */
    double r = ceil(q * (double)n - 1e-9);
    size_t rank = r < 1.0 ? 1 : (r > (double)n ? n : (size_t)r);
    return sorted[rank - 1];
}

#endif
