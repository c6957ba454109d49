/* plugins/common: string-keyed aggregates (see agg.h). */
#include "agg.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

void
pp_pc_agg_init(pp_pc_agg *a, uint32_t ncols)
{
    memset(a, 0, sizeof *a);
    a->ncols = ncols;
}

void
pp_pc_agg_free(pp_pc_agg *a)
{
    pp_pc_strtab_free(&a->keys);
    free(a->vals);
    a->vals = NULL;
    a->cap = 0;
}

int
pp_pc_agg_add(pp_pc_agg *a, const char *key, size_t len, const int64_t *delta, uint32_t *row_out)
{
    uint32_t id;
    int rc = pp_pc_strtab_intern(&a->keys, key, len, &id);
    if (rc != PP_OK)
        return rc;
    if (id >= a->cap) {
        uint32_t cap = a->cap ? a->cap * 2 : 64;
        while (cap <= id)
            cap *= 2;
        int64_t *v = realloc(a->vals, (size_t)cap * a->ncols * sizeof *v);
        if (!v)
            return PP_ENOMEM;
        memset(v + (size_t)a->cap * a->ncols, 0, (size_t)(cap - a->cap) * a->ncols * sizeof *v);
        a->vals = v;
        a->cap = cap;
    }
    int64_t *row = a->vals + (size_t)id * a->ncols;
    for (uint32_t c = 0; c < a->ncols; c++)
        row[c] = pp_i64_add_sat(row[c], delta[c]);
    if (row_out)
        *row_out = id;
    return PP_OK;
}

/* The ranking context travels through glibc's qsort_r, not a global or a
 * thread-local: TLS in a dlopen'd plugin trips LeakSanitizer (GCC 12). */
typedef struct rank_ctx {
    const pp_pc_agg *agg;
    uint32_t col, col2;
} rank_ctx;

static int
cmp_rows(const void *pa, const void *pb, void *arg)
{
    const rank_ctx *rc = arg;
    const pp_pc_agg *rank_agg = rc->agg;
    uint32_t rank_col = rc->col, rank_col2 = rc->col2;
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
    const int64_t *vx = pp_pc_agg_vals(rank_agg, x), *vy = pp_pc_agg_vals(rank_agg, y);
    if (vx[rank_col] != vy[rank_col])
        return vx[rank_col] > vy[rank_col] ? -1 : 1;
    if (vx[rank_col2] != vy[rank_col2])
        return vx[rank_col2] > vy[rank_col2] ? -1 : 1;
    return strcmp(pp_pc_agg_key(rank_agg, x), pp_pc_agg_key(rank_agg, y));
}

uint32_t *
pp_pc_agg_rank(const pp_pc_agg *a, uint32_t col, uint32_t col2)
{
    uint32_t n = pp_pc_agg_count(a);
    if (n == 0)
        return NULL;
    uint32_t *order = malloc((size_t)n * sizeof *order);
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    rank_ctx ctx = { a, col, col2 };
    qsort_r(order, n, sizeof *order, cmp_rows, &ctx);
    return order;
}
