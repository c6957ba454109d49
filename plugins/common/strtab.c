/* plugins/common: string interning (see strtab.h). */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

/* xxHash compiled in (header-only): plugins link nothing but libc. */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "zalloc.h"

uint64_t
pp_pc_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, n, seed);
}

void
pp_pc_strtab_init(pp_pc_strtab *t)
{
    memset(t, 0, sizeof *t);
}

void
pp_pc_strtab_free(pp_pc_strtab *t)
{
    for (uint32_t i = 0; i < t->count; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->lens);
    free(t->hashes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int
rehash(pp_pc_strtab *t, uint32_t nslots)
{
    uint32_t *slots = pp_pc_zalloc(nslots, sizeof *slots);
    if (!slots)
        return PP_ENOMEM;
    for (uint32_t id = 0; id < t->count; id++) {
        uint32_t i = (uint32_t)t->hashes[id] & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return PP_OK;
}

static int
lookup(const pp_pc_strtab *t, const char *s, size_t len, uint64_t h, uint32_t *slot)
{
    uint32_t i = (uint32_t)h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[i];
        if (!v) {
            *slot = i;
            return 0;
        }
        uint32_t id = v - 1;
        if (t->hashes[id] == h && t->lens[id] == len && memcmp(t->strs[id], s, len) == 0) {
            *slot = i;
            return 1;
        }
        i = (i + 1) & (t->nslots - 1);
    }
}

int
pp_pc_strtab_find(const pp_pc_strtab *t, const char *s, size_t len, uint32_t *id)
{
    if (!t->nslots)
        return 0;
    uint32_t slot;
    if (!lookup(t, s, len, pp_pc_hash_bytes(s, len, 0), &slot))
        return 0;
    *id = t->slots[slot] - 1;
    return 1;
}

int
pp_pc_strtab_intern(pp_pc_strtab *t, const char *s, size_t len, uint32_t *id)
{
    if (len > UINT32_MAX - 1)
        return PP_ELIMIT;
    /* keep the load factor under 1/2 so probes stay short */
    if ((uint64_t)(t->count + 1) * 2 > t->nslots) {
        uint32_t n = t->nslots ? t->nslots * 2 : 64;
        if (n == 0 || rehash(t, n) != PP_OK)
            return PP_ENOMEM;
    }
    uint64_t h = pp_pc_hash_bytes(s, len, 0);
    uint32_t slot;
    if (lookup(t, s, len, h, &slot)) {
        *id = t->slots[slot] - 1;
        return PP_OK;
    }
    if (t->count == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        char **strs = realloc(t->strs, (size_t)cap * sizeof *strs);
        if (!strs)
            return PP_ENOMEM;
        t->strs = strs;
        uint32_t *lens = realloc(t->lens, (size_t)cap * sizeof *lens);
        if (!lens)
            return PP_ENOMEM;
        t->lens = lens;
        uint64_t *hashes = realloc(t->hashes, (size_t)cap * sizeof *hashes);
        if (!hashes)
            return PP_ENOMEM;
        t->hashes = hashes;
        t->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return PP_ENOMEM;
    memcpy(copy, s, len);
    copy[len] = '\0';
    t->strs[t->count] = copy;
    t->lens[t->count] = (uint32_t)len;
    t->hashes[t->count] = h;
    t->slots[slot] = t->count + 1;
    *id = t->count++;
    return PP_OK;
}
