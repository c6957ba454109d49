/* plugins/common: stack interning (see stackset.h). */
#include "stackset.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "strtab.h"

void pp_pc_stackset_free(pp_pc_stackset *s)
{
    free(s->ip);
    pp_pc_u64map_free(&s->ip_ids);
    free(s->frames);
    free(s->off);
    free(s->len);
    free(s->hash);
    free(s->slots);
    free(s->region_ids);
    free(s->tmp);
    memset(s, 0, sizeof *s);
}

static int rehash(pp_pc_stackset *s, uint32_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return PP_ENOMEM;
    for (uint32_t id = 0; id < s->count; id++) {
        uint32_t i = (uint32_t)s->hash[id] & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = nslots;
    return PP_OK;
}

/* The IP ids of ips[0..n) into s->tmp, new IPs added. */
static int ip_ids(pp_pc_stackset *s, const uint64_t *ips, uint32_t n)
{
    if (n > s->tmpcap) {
        uint32_t *t = realloc(s->tmp, (size_t)n * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        s->tmp = t;
        s->tmpcap = n;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v;
        if (pp_pc_u64map_get(&s->ip_ids, ips[i], &v)) {
            s->tmp[i] = v;
            continue;
        }
        if (s->nip == UINT32_MAX - 1)
            return PP_ELIMIT;
        if (s->nip == s->capip) {
            uint32_t cap = s->capip ? s->capip * 2 : 256;
            uint64_t *t = realloc(s->ip, (size_t)cap * sizeof *t);
            if (!t)
                return PP_ENOMEM;
            s->ip = t;
            s->capip = cap;
        }
        if (pp_pc_u64map_put(&s->ip_ids, ips[i], s->nip) != PP_OK)
            return PP_ENOMEM;
        s->ip[s->nip] = ips[i];
        s->tmp[i] = s->nip++;
    }
    return PP_OK;
}

static int grow_rows(pp_pc_stackset *s, uint32_t n)
{
    if (s->nframes + n > s->capframes) {
        uint64_t cap = s->capframes ? s->capframes : 1024;
        while (cap < s->nframes + n)
            cap *= 2;
        uint32_t *f = realloc(s->frames, (size_t)cap * sizeof *f);
        if (!f)
            return PP_ENOMEM;
        s->frames = f;
        s->capframes = cap;
    }
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 256;
        uint64_t *off = realloc(s->off, (size_t)cap * sizeof *off);
        if (!off)
            return PP_ENOMEM;
        s->off = off;
        uint32_t *len = realloc(s->len, (size_t)cap * sizeof *len);
        if (!len)
            return PP_ENOMEM;
        s->len = len;
        uint64_t *hash = realloc(s->hash, (size_t)cap * sizeof *hash);
        if (!hash)
            return PP_ENOMEM;
        s->hash = hash;
        s->cap = cap;
    }
    return PP_OK;
}

int pp_pc_stackset_intern(pp_pc_stackset *s, const uint64_t *ips, uint32_t n, uint32_t *id)
{
    if (s->count == UINT32_MAX - 1)
        return PP_ELIMIT;
    if ((uint64_t)(s->count + 1) * 2 > s->nslots) {
        uint32_t ns = s->nslots ? s->nslots * 2 : 256;
        if (ns == 0 || rehash(s, ns) != PP_OK)
            return PP_ENOMEM;
    }
    int rc = ip_ids(s, ips, n);
    if (rc != PP_OK)
        return rc;
    const uint32_t *ids = s->tmp;
    uint64_t h = pp_pc_hash_bytes(ids, (size_t)n * sizeof *ids, n);
    uint32_t i = (uint32_t)h & (s->nslots - 1);
    while (s->slots[i]) {
        uint32_t c = s->slots[i] - 1;
        if (s->hash[c] == h && s->len[c] == n &&
            (n == 0 || memcmp(s->frames + s->off[c], ids, (size_t)n * sizeof *ids) == 0)) {
            *id = c;
            return PP_OK;
        }
        i = (i + 1) & (s->nslots - 1);
    }
    if (grow_rows(s, n) != PP_OK)
        return PP_ENOMEM;
    if (n)
        memcpy(s->frames + s->nframes, ids, (size_t)n * sizeof *ids);
    s->off[s->count] = s->nframes;
    s->len[s->count] = n;
    s->hash[s->count] = h;
    s->nframes += n;
    s->slots[i] = s->count + 1;
    *id = s->count++;
    return PP_OK;
}

int pp_pc_stackset_event(pp_pc_stackset *s, const pp_trace_event *ev, uint32_t *id)
{
    const uint64_t *ips = ev->stack;
    uint32_t n = ips ? ev->stack_depth : 0;
    uint32_t sid = ev->stack_id;
    /* Only a stack the reader found is cached: an id it could not resolve
     * (no stack yet) may still be defined later in the region. */
    if (ev->struct_size < offsetof(pp_trace_event, stack_region) + sizeof ev->stack_region ||
        !ips || sid == 0 || sid >= PP_PC_STACKSET_REGION_MAX)
        return pp_pc_stackset_intern(s, ips, n, id);
    if (!s->have_region || s->region != ev->stack_region) {
        if (s->region_hi)
            memset(s->region_ids, 0, (size_t)s->region_hi * sizeof *s->region_ids);
        s->region_hi = 0;
        s->region = ev->stack_region;
        s->have_region = 1;
    }
    if (sid < s->region_hi && s->region_ids[sid]) {
        *id = s->region_ids[sid] - 1;
        return PP_OK;
    }
    int rc = pp_pc_stackset_intern(s, ips, n, id);
    if (rc != PP_OK)
        return rc;
    if (sid >= s->region_cap) {
        uint32_t cap = s->region_cap ? s->region_cap : 1024;
        while (cap <= sid)
            cap *= 2;
        uint32_t *t = realloc(s->region_ids, (size_t)cap * sizeof *t);
        if (!t)
            return PP_OK;      /* the cache is an optimisation: go on uncached */
        memset(t + s->region_cap, 0, (size_t)(cap - s->region_cap) * sizeof *t);
        s->region_ids = t;
        s->region_cap = cap;
    }
    s->region_ids[sid] = *id + 1;
    if (sid + 1 > s->region_hi)
        s->region_hi = sid + 1;
    return PP_OK;
}
