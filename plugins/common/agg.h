/* plugins/common: aggregates keyed by a string (type name, frame, folded
 * stack) with a fixed number of int64 columns, and their ranking.
 *
 * Rows are in first-seen order; pp_pc_agg_rank gives the order result tables
 * use: descending by one column, then another, then key ascending (bytewise)
 * so equal rows come out the same on every run. */
#ifndef PP_PLUGIN_AGG_H
#define PP_PLUGIN_AGG_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"

#define PP_PC_AGG_MAX_COLS 8

typedef struct pp_pc_agg {
    pp_pc_strtab keys;
    int64_t *vals; /* [keys.count * ncols] */
    uint32_t ncols;
    uint32_t cap; /* rows allocated in vals */
} pp_pc_agg;

/* ncols in 1..PP_PC_AGG_MAX_COLS. */
void pp_pc_agg_init(pp_pc_agg *a, uint32_t ncols);
void pp_pc_agg_free(pp_pc_agg *a);
/* Add delta[ncols] to key's row (created at zero); its index in *row when
 * row is not NULL. PP_OK or PP_ENOMEM. */
int pp_pc_agg_add(pp_pc_agg *a, const char *key, size_t len, const int64_t *delta, uint32_t *row);
static inline uint32_t
pp_pc_agg_count(const pp_pc_agg *a)
{
    return a->keys.count;
}
static inline const char *
pp_pc_agg_key(const pp_pc_agg *a, uint32_t row)
{
    return pp_pc_strtab_get(&a->keys, row);
}
static inline const int64_t *
pp_pc_agg_vals(const pp_pc_agg *a, uint32_t row)
{
    return a->vals + (size_t)row * a->ncols;
}
static inline int64_t *
pp_pc_agg_vals_mut(pp_pc_agg *a, uint32_t row)
{
    return a->vals + (size_t)row * a->ncols;
}
/* Row indices in ranking order, malloc'd (caller frees), NULL on ENOMEM or
 * when empty. */
uint32_t *pp_pc_agg_rank(const pp_pc_agg *a, uint32_t col, uint32_t col2);

#endif
