/* plugins/alloc: content-keyed stack ids (see stackcache.h). */
#include "stackcache.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

struct pp_alloc_stackcache_entry {
    uint64_t lo, hi;           /* XXH3-128 of the IPs */
    uint64_t leaf, root;
    uint32_t depth;            /* 0 = empty slot */
    uint32_t id;               /* stack set id */
    uint32_t memo;             /* the caller's hint */
    uint32_t pad;
};

void pp_alloc_stackcache_free(pp_alloc_stackcache *c)
{
    free(c->slot);
    free(c->by_id);
    free(c->by_id_slot);
    free(c->touched);
    memset(c, 0, sizeof *c);
}

static int grow(pp_alloc_stackcache *c)
{
    uint32_t n = c->nslots ? c->nslots * 2 : 4096;
    if (n == 0)
        return PP_ENOMEM;
    pp_alloc_stackcache_entry *t = calloc(n, sizeof *t);
    if (!t)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < c->nslots; i++)
        if (c->slot[i].depth) {
            uint32_t j = (uint32_t)c->slot[i].lo & (n - 1);
            while (t[j].depth)
                j = (j + 1) & (n - 1);
            t[j] = c->slot[i];
        }
    free(c->slot);
    c->slot = t;
    c->nslots = n;
    /* slot indices moved: forget the region's */
    for (uint32_t i = 0; i < c->ntouched; i++)
        c->by_id[c->touched[i]] = 0;
    c->ntouched = 0;
    return PP_OK;
}

/* By content: one hash of the IPs, one probe; interned on a miss. */
static int by_content(pp_alloc_stackcache *c, pp_pc_stackset *s, const uint64_t *ips, uint32_t n,
                      uint32_t *id, uint32_t *slot)
{
    if ((c->count + 1) * 2 > c->nslots && grow(c) != PP_OK)
        return PP_ENOMEM;
    XXH128_hash_t h = XXH3_128bits(ips, (size_t)n * sizeof *ips);
    uint32_t j = (uint32_t)h.low64 & (c->nslots - 1);
    for (; c->slot[j].depth; j = (j + 1) & (c->nslots - 1)) {
        pp_alloc_stackcache_entry *e = &c->slot[j];
        if (e->lo == h.low64 && e->hi == h.high64 && e->depth == n && e->leaf == ips[0] &&
            e->root == ips[n - 1]) {
            *id = e->id;
            *slot = j;
            return PP_OK;
        }
    }
    int rc = pp_pc_stackset_intern(s, ips, n, id);
    if (rc != PP_OK)
        return rc;
    c->slot[j] = (pp_alloc_stackcache_entry){ h.low64, h.high64, ips[0], ips[n - 1], n, *id, 0, 0 };
    c->count++;
    *slot = j;
    return PP_OK;
}

int pp_alloc_stackcache_id(pp_alloc_stackcache *c, pp_pc_stackset *s, const pp_trace_event *ev,
                           uint32_t *id, uint32_t **memo)
{
    const uint64_t *ips = ev->stack;
    uint32_t n = ips ? ev->stack_depth : 0;
    uint32_t sid = ev->stack_id;
    *memo = &c->no_memo;     /* written, never trusted: callers check hints */
    if (n == 0)
        return pp_pc_stackset_intern(s, ips, n, id);
    /* As pp_pc_stackset_event: only a stack the reader found is cached by
     * its region id. */
    if (ev->struct_size < offsetof(pp_trace_event, stack_region) + sizeof ev->stack_region ||
        sid == 0 || sid >= PP_PC_STACKSET_REGION_MAX) {
        uint32_t j;
        int rc = by_content(c, s, ips, n, id, &j);
        if (rc == PP_OK)
            *memo = &c->slot[j].memo;
        return rc;
    }
    if (!c->have_region || c->region != ev->stack_region) {
        for (uint32_t i = 0; i < c->ntouched; i++)
            c->by_id[c->touched[i]] = 0;
        c->ntouched = 0;
        c->region = ev->stack_region;
        c->have_region = 1;
    }
    if (sid < c->by_id_cap && c->by_id[sid]) {
        *id = c->by_id[sid] - 1;
        *memo = &c->slot[c->by_id_slot[sid]].memo;
        return PP_OK;
    }
    uint32_t j;
    int rc = by_content(c, s, ips, n, id, &j);
    if (rc != PP_OK)
        return rc;
    *memo = &c->slot[j].memo;
    if (sid >= c->by_id_cap) {
        uint32_t cap = c->by_id_cap ? c->by_id_cap : 1024;
        while (cap <= sid)
            cap *= 2;
        uint32_t *t = realloc(c->by_id, (size_t)cap * sizeof *t);
        if (!t)
            return PP_OK;      /* the region map is an optimisation */
        c->by_id = t;
        uint32_t *m = realloc(c->by_id_slot, (size_t)cap * sizeof *m);
        if (!m)
            return PP_OK;      /* by_id_cap unchanged: the new part is unused */
        c->by_id_slot = m;
        memset(t + c->by_id_cap, 0, (size_t)(cap - c->by_id_cap) * sizeof *t);
        c->by_id_cap = cap;
    }
    if (c->ntouched == c->touched_cap) {
        uint32_t cap = c->touched_cap ? c->touched_cap * 2 : 1024;
        uint32_t *t = realloc(c->touched, (size_t)cap * sizeof *t);
        if (!t)
            return PP_OK;
        c->touched = t;
        c->touched_cap = cap;
    }
    c->touched[c->ntouched++] = sid;
    c->by_id[sid] = *id + 1;
    c->by_id_slot[sid] = j;
    return PP_OK;
}
