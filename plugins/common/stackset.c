/* plugins/common: stack interning (see stackset.h). */
#include "stackset.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "strtab.h"

void pp_pc_stackset_free(pp_pc_stackset *s)
{
    free(s->ips);
    free(s->off);
    free(s->len);
    free(s->hash);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

static int same(const pp_pc_stackset *s, uint32_t id, const uint64_t *ips, uint32_t n, uint64_t h)
{
    return s->hash[id] == h && s->len[id] == n &&
           (n == 0 || memcmp(s->ips + s->off[id], ips, (size_t)n * sizeof *ips) == 0);
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

int pp_pc_stackset_intern(pp_pc_stackset *s, const uint64_t *ips, uint32_t n, uint32_t *id)
{
    if (s->count == UINT32_MAX - 1)
        return PP_ELIMIT;
    if ((uint64_t)(s->count + 1) * 2 > s->nslots) {
        uint32_t ns = s->nslots ? s->nslots * 2 : 256;
        if (ns == 0 || rehash(s, ns) != PP_OK)
            return PP_ENOMEM;
    }
    uint64_t h = pp_pc_hash_bytes(ips, (size_t)n * sizeof *ips, n);
    uint32_t i = (uint32_t)h & (s->nslots - 1);
    while (s->slots[i]) {
        if (same(s, s->slots[i] - 1, ips, n, h)) {
            *id = s->slots[i] - 1;
            return PP_OK;
        }
        i = (i + 1) & (s->nslots - 1);
    }
    if (s->nips + n > s->capips) {
        uint64_t cap = s->capips ? s->capips : 1024;
        while (cap < s->nips + n)
            cap *= 2;
        uint64_t *ipsn = realloc(s->ips, (size_t)cap * sizeof *ipsn);
        if (!ipsn)
            return PP_ENOMEM;
        s->ips = ipsn;
        s->capips = cap;
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
    if (n)
        memcpy(s->ips + s->nips, ips, (size_t)n * sizeof *ips);
    s->off[s->count] = s->nips;
    s->len[s->count] = n;
    s->hash[s->count] = h;
    s->nips += n;
    s->slots[i] = s->count + 1;
    *id = s->count++;
    return PP_OK;
}
