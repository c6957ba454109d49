/* plugins/common: uint64 -> uint32 hash map (see u64map.h). */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "strtab.h"
#include "zalloc.h"

void
pp_pc_u64map_free(pp_pc_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}

static uint32_t
probe(const pp_pc_u64map *m, uint64_t key)
{
    uint32_t i = (uint32_t)pp_pc_hash_u64(key) & (m->nslots - 1);
    while (m->used[i] && m->keys[i] != key)
        i = (i + 1) & (m->nslots - 1);
    return i;
}

int
pp_pc_u64map_get(const pp_pc_u64map *m, uint64_t key, uint32_t *val)
{
    if (!m->nslots)
        return 0;
    uint32_t i = probe(m, key);
    if (!m->used[i])
        return 0;
    *val = m->vals[i];
    return 1;
}

static int
grow(pp_pc_u64map *m)
{
    uint32_t n = m->nslots ? m->nslots * 2 : 64;
    if (n == 0)
        return PP_ENOMEM;
    pp_pc_u64map g = { 0 };
    g.nslots = n;
    /* keys and vals are read only where used[] says: not zeroed */
    g.keys = malloc((size_t)n * sizeof *g.keys);
    g.vals = malloc((size_t)n * sizeof *g.vals);
    g.used = pp_pc_zalloc(n, 1);
    if (!g.keys || !g.vals || !g.used) {
        pp_pc_u64map_free(&g);
        return PP_ENOMEM;
    }
    for (uint32_t i = 0; i < m->nslots; i++) {
        if (!m->used[i])
            continue;
        uint32_t j = probe(&g, m->keys[i]);
        g.used[j] = 1;
        g.keys[j] = m->keys[i];
        g.vals[j] = m->vals[i];
    }
    g.count = m->count;
    pp_pc_u64map_free(m);
    *m = g;
    return PP_OK;
}

int
pp_pc_u64map_put(pp_pc_u64map *m, uint64_t key, uint32_t val)
{
    if ((uint64_t)(m->count + 1) * 2 > m->nslots && grow(m) != PP_OK)
        return PP_ENOMEM;
    uint32_t i = probe(m, key);
    if (!m->used[i]) {
        m->used[i] = 1;
        m->keys[i] = key;
        m->count++;
    }
    m->vals[i] = val;
    return PP_OK;
}
