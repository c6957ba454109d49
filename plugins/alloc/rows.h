/* plugins/alloc: the raw aggregate, sampled bytes and ticks by (type,
 * stack, kind), added to once per tick.
 *
 * A string-keyed aggregate (common/agg.h) costs a hash, a pointer chase and
 * a compare of a separately allocated key per tick: a third of consume time
 * on deep-stack traces. Most stacks allocate one type of one kind, so the
 * caller keeps a hint per stack (its last row + 1, in memory the stack
 * lookup touched anyway: stackcache.h) and rows are dense in first-seen
 * order, each linked to the other rows of its stack (a stack that
 * allocates a few types alternates between them); a wrong or missing hint
 * goes through an open-addressing table of row numbers (4 bytes a slot: the
 * key is compared in the row), dropped once the trace is read. */
#ifndef PP_ALLOC_ROWS_H
#define PP_ALLOC_ROWS_H

#include <stdint.h>

typedef struct pp_alloc_row {
    uint32_t type, stack, kind;
    uint32_t next; /* row + 1 of another row of this stack, 0 = none */
    int64_t bytes, samples;
} pp_alloc_row;

typedef struct pp_alloc_rows {
    pp_alloc_row *row; /* [count], first-seen order */
    uint32_t count, cap;
    uint32_t *slot;  /* row + 1, 0 = empty */
    uint32_t nslots; /* power of two, or 0 */
} pp_alloc_rows;

/* A zeroed pp_alloc_rows is empty. */
void pp_alloc_rows_free(pp_alloc_rows *r);
/* The trace is read: drop the lookup table (the rows stay). */
void pp_alloc_rows_seal(pp_alloc_rows *r);
/* Add bytes and `samples` samples to (type, stack, kind). *hint is a row +
 * 1 to try first (checked) and is set to the row used. PP_OK or PP_ENOMEM. */
int pp_alloc_rows_add_n(pp_alloc_rows *r, uint32_t type, uint32_t stack, uint32_t kind,
                        int64_t bytes, int64_t samples, uint32_t *hint);
/* One tick: bytes and one sample. */
static inline int
pp_alloc_rows_add(pp_alloc_rows *r, uint32_t type, uint32_t stack, uint32_t kind, int64_t bytes,
                  uint32_t *hint)
{
    return pp_alloc_rows_add_n(r, type, stack, kind, bytes, 1, hint);
}

#endif
