/* plugins/alloc: the stack id of a tick without walking its frames.
 *
 * The runtime redefines a stack in nearly every stack block: on a deep-stack
 * trace a region's stack id is used by ~1.8 ticks, so the stack set's region
 * cache (common/stackset.h) still interned most ticks frame by frame (an IP
 * lookup per frame, then a compare of the whole stack). This cache adds a
 * content key in front of it: XXH3-128 of the raw IPs with the depth, leaf
 * and root IP, one cache line a probe, mapping to the stack set's id. Two
 * different stacks agreeing on all of that have a chance below 2^-100 even
 * for 10^7 distinct stacks (the same hash names the input in the result).
 * Ids are the stack set's, first-seen order: results do not change. */
#ifndef PP_ALLOC_STACKCACHE_H
#define PP_ALLOC_STACKCACHE_H

#include <stdint.h>

#include <perfpipe/records.h>

#include "../common/stackset.h"

typedef struct pp_alloc_stackcache_entry pp_alloc_stackcache_entry;

typedef struct pp_alloc_stackcache {
    pp_alloc_stackcache_entry *slot;   /* open addressing, power of two */
    uint32_t nslots, count;
    /* region stack id -> stack set id + 1, for the current region */
    uint32_t region;
    int have_region;
    uint32_t *by_id;
    uint32_t *by_id_slot;              /* [by_id_cap] its content slot (memo lives there) */
    uint32_t by_id_cap;
    uint32_t *touched;                 /* ids set this region */
    uint32_t ntouched, touched_cap;
    uint32_t no_memo;                  /* the memo of stacks not cached */
} pp_alloc_stackcache;

/* A zeroed cache is empty. */
void pp_alloc_stackcache_free(pp_alloc_stackcache *c);

/* The stack set id of ev's stack (ev->stack_depth > 0): the same id
 * pp_pc_stackset_event(s, ev, id) gives. PP_OK, PP_ENOMEM or PP_ELIMIT.
 * *memo points at a word the caller may keep a hint in for this stack
 * (0 at first; e.g. its last aggregate row): it sits in memory the lookup
 * has just touched, so reading it costs no cache miss. Valid until the
 * next call; a hint may be lost or stale, never wrong about identity (the
 * caller checks what it names). */
int pp_alloc_stackcache_id(pp_alloc_stackcache *c, pp_pc_stackset *s, const pp_trace_event *ev,
                           uint32_t *id, uint32_t **memo);

#endif
