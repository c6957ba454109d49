/* plugins/cpu: methods ranked by their sums, for by_method, callers,
 * callees and the findings. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* Ranking of name ids by sums, through glibc's qsort_r (no TLS: it trips
 * LeakSanitizer in dlopen'd plugins with GCC 12). */
typedef struct rank_ctx {
    const method_sums *sums;
    const pp_pc_strtab *names;
    int inclusive;
} rank_ctx;

static int
cmp_methods(const void *pa, const void *pb, void *arg)
{
    const rank_ctx *rc = arg;
    const method_sums *rank_sums = rc->sums;
    const pp_pc_strtab *rank_names = rc->names;
    int rank_inclusive = rc->inclusive;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const method_sums *x = &rank_sums[a], *y = &rank_sums[b];
    int64_t k1x = rank_inclusive ? x->incl_ns : x->excl_ns,
            k1y = rank_inclusive ? y->incl_ns : y->excl_ns;
    int64_t k2x = rank_inclusive ? x->excl_ns : x->incl_ns,
            k2y = rank_inclusive ? y->excl_ns : y->incl_ns;
    if (k1x != k1y)
        return k1x > k1y ? -1 : 1;
    if (k2x != k2y)
        return k2x > k2y ? -1 : 1;
    if (x->incl_s != y->incl_s)
        return x->incl_s > y->incl_s ? -1 : 1;
    return strcmp(pp_pc_strtab_get(rank_names, a), pp_pc_strtab_get(rank_names, b));
}

uint32_t *
pp_cpu_ranked(report *r, const method_sums *sums, int inclusive, uint32_t *count)
{
    uint32_t n = 0;
    uint32_t *order = malloc((size_t)(r->names.count ? r->names.count : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < r->names.count; i++)
        if (sums[i].incl_s > 0 || sums[i].excl_s > 0)
            order[n++] = i;
    rank_ctx ctx = { sums, &r->names, inclusive };
    qsort_r(order, n, sizeof *order, cmp_methods, &ctx);
    *count = n;
    return order;
}
