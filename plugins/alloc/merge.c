/* plugins/alloc: a child state (plugin.h, fork/merge) folded into the
 * state that read the part of the trace before it.
 *
 * Type names, stacks and rows all get dense ids in first-seen order, and
 * the report's ties fall back on those ids. A child saw its part in file
 * order, so replaying its names, then its stacks, then its rows in its own
 * id order adds to the parent exactly the entries a serial read would have
 * added there, in the same order; sums, counts and bounds fold as sums,
 * mins and maxes. Cuts (top, top-stacks) happen in finish, after this. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

static int
oom(pp_alloc *a, uint32_t *tmap, uint32_t *smap, uint32_t *rmap, uint64_t *ips, pp_error *err)
{
    free(tmap);
    free(smap);
    free(rmap);
    free(ips);
    a->host->error_set(err, PP_ENOMEM, "alloc: out of memory merging a region");
    return PP_ENOMEM;
}

/* c's stacks into a: smap[c's id] = a's id. */
static int
merge_stacks(pp_alloc *a, const pp_alloc *c, uint32_t *smap, uint64_t **ips)
{
    uint32_t cap = 0, *ids = NULL;

    for (uint32_t i = 0; i < c->stacks.count; i++) {
        uint32_t n = pp_pc_stacks_depth(&c->stacks, i);
        if (n > cap) {
            uint64_t *t = realloc(*ips, (size_t)n * sizeof *t);
            uint32_t *u = t ? realloc(ids, (size_t)n * sizeof *u) : NULL;
            if (t)
                *ips = t;
            if (!u) {
                free(ids);
                return PP_ENOMEM;
            }
            ids = u;
            cap = n;
        }
        pp_pc_stacks_frames(&c->stacks, i, ids);
        for (uint32_t f = 0; f < n; f++)
            (*ips)[f] = pp_pc_stacks_ip(&c->stacks, ids[f]);
        if (pp_pc_stacks_intern(&a->stacks, *ips, n, &smap[i]) != PP_OK) {
            free(ids);
            return PP_ENOMEM;
        }
    }
    free(ids);
    return PP_OK;
}

static void
merge_scalars(pp_alloc *a, const pp_alloc *c)
{
    if (!a->source)
        a->source = c->source; /* the first child's: the input's own (plugin.h) */
    a->events += c->events;
    a->ticks_seen += c->ticks_seen;
    a->ticks += c->ticks;
    a->ticks_no_stack += c->ticks_no_stack;
    a->ticks_lost_stack += c->ticks_lost_stack;
    a->gcs += c->gcs;
    if (c->malformed && !a->malformed) {
        a->malformed_first_ns = c->malformed_first_ns;
        memcpy(a->malformed_what, c->malformed_what, sizeof a->malformed_what);
    }
    a->malformed += c->malformed;
    if (c->first_ns < a->first_ns)
        a->first_ns = c->first_ns;
    if (c->last_ns > a->last_ns)
        a->last_ns = c->last_ns;
    if (c->first_tick_ns < a->first_tick_ns)
        a->first_tick_ns = c->first_tick_ns;
    if (c->last_tick_ns > a->last_tick_ns)
        a->last_tick_ns = c->last_tick_ns;
}

int
pp_alloc_merge(pp_alloc *a, pp_alloc *c, pp_error *err)
{
    uint32_t *tmap = NULL, *smap = NULL, *rmap = NULL;
    uint64_t *ips = NULL;

    if (a->events == 0) {
        /* Nothing read yet (the first child of the only input): a's place
         * is c's, and a copy would hold a third store at the peak. Both
         * were made from the same options, so each owns what it holds;
         * the waiting tick goes first (its memo may point into c). */
        if (pp_alloc_flush(c) != PP_OK)
            return oom(a, tmap, smap, rmap, ips, err);
        pp_alloc t = *a;
        *a = *c;
        *c = t;
        return PP_OK;
    }

    /* each side's last tick comes before the child's first, in order */
    if (pp_alloc_flush(a) != PP_OK || pp_alloc_flush(c) != PP_OK)
        return oom(a, tmap, smap, rmap, ips, err);
    tmap = malloc(((size_t)c->types.count + 1) * sizeof *tmap);
    smap = malloc(((size_t)c->stacks.count + 1) * sizeof *smap);
    rmap = malloc(((size_t)c->raw.count + 1) * sizeof *rmap);
    if (!tmap || !smap || !rmap)
        return oom(a, tmap, smap, rmap, ips, err);
    for (uint32_t i = 0; i < c->types.count; i++)
        if (pp_pc_strtab_intern(&a->types, c->types.strs[i], c->types.lens[i], &tmap[i]) != PP_OK)
            return oom(a, tmap, smap, rmap, ips, err);
    if (merge_stacks(a, c, smap, &ips) != PP_OK)
        return oom(a, tmap, smap, rmap, ips, err);
    for (uint32_t i = 0; i < c->raw.count; i++) {
        const pp_alloc_row *w = &c->raw.row[i];
        uint32_t stack = w->stack == PP_ALLOC_NO_STACK ? PP_ALLOC_NO_STACK : smap[w->stack];
        uint32_t h = 0;

        if (pp_alloc_rows_add_n(&a->raw, tmap[w->type], stack, w->kind, w->bytes, w->samples, &h) !=
            PP_OK)
            return oom(a, tmap, smap, rmap, ips, err);
        rmap[i] = h - 1;
    }
    /* (row << 32 | thread) of the ticks: a set, so order does not matter */
    const pp_pc_u64map *bt = &c->row_threads;
    for (uint32_t i = 0; i < bt->nslots; i++)
        if (bt->used[i] &&
            pp_pc_u64map_put(&a->row_threads,
                             (uint64_t)rmap[bt->keys[i] >> 32] << 32 | (bt->keys[i] & 0xffffffffu),
                             1) != PP_OK)
            return oom(a, tmap, smap, rmap, ips, err);
    a->last_row_thread = 0;
    const pp_pc_u64map *hk = &c->heap_kinds;
    for (uint32_t i = 0; i < hk->nslots; i++) {
        uint32_t seen;
        if (!hk->used[i] || pp_pc_u64map_get(&a->heap_kinds, hk->keys[i], &seen))
            continue;
        if (pp_pc_u64map_put(&a->heap_kinds, hk->keys[i], 1) != PP_OK)
            return oom(a, tmap, smap, rmap, ips, err);
        a->nheap_kinds++;
    }
    merge_scalars(a, c);
    free(tmap);
    free(smap);
    free(rmap);
    free(ips);
    return PP_OK;
}
