/* plugins/alloc: the raw aggregate, sampled bytes and ticks by (type,
 * stack, kind), added to once per tick.
 *
 * A string-keyed aggregate (common/agg.h) costs a hash, a pointer chase and
 * a compare of a separately allocated key per tick: a third of consume time
 * on deep-stack traces. Here a slot holds the key and its sums inline (32
 * bytes, one cache line a probe); pp_alloc_rows_ordered gives the rows in
 * first-seen order. */
#ifndef PP_ALLOC_ROWS_H
#define PP_ALLOC_ROWS_H

#include <stdint.h>

typedef struct pp_alloc_row {
    uint32_t type, stack, kind;
    uint32_t seq;                /* first-seen order + 1; 0 = empty slot */
    int64_t bytes, samples;
} pp_alloc_row;

typedef struct pp_alloc_rows {
    pp_alloc_row *slot;          /* open addressing, power of two */
    uint32_t count, nslots;
} pp_alloc_rows;

/* A zeroed pp_alloc_rows is empty. */
void pp_alloc_rows_free(pp_alloc_rows *r);
/* Add bytes and one sample to (type, stack, kind). PP_OK or PP_ENOMEM. */
int pp_alloc_rows_add(pp_alloc_rows *r, uint32_t type, uint32_t stack, uint32_t kind, int64_t bytes);
/* The rows in first-seen order, malloc'd [r->count] (caller frees); NULL
 * when out of memory or empty. */
pp_alloc_row *pp_alloc_rows_ordered(const pp_alloc_rows *r);

#endif
