/* Open-addressing (linear probing) uint64 -> uint64 map. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nettrace/u64map.h"

static size_t
slot_of(uint64_t key, size_t cap)
{
    /* Ids are small and sequential: mix them so probing stays short. */
    key ^= key >> 33;
    key *= UINT64_C(0xff51afd7ed558ccd);
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

uint64_t *
pp_u64map_get(const pp_u64map *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return &m->vals[i];
    }
}

static int
rehash(pp_u64map *m, size_t ncap)
{
    pp_u64map n = { 0 };

    n.keys = malloc(ncap * sizeof *n.keys);
    n.vals = malloc(ncap * sizeof *n.vals);
    n.used = calloc(ncap, 1);
    if (!n.keys || !n.vals || !n.used) {
        free(n.keys);
        free(n.vals);
        free(n.used);
        return -1;
    }
    n.cap = ncap;
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            pp_u64map_put(&n, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    free(m->used);
    *m = n;
    return 0;
}

int
pp_u64map_put(pp_u64map *m, uint64_t key, uint64_t val)
{
    if ((m->count + 1) * 4 >= m->cap * 3 && rehash(m, m->cap ? m->cap * 2 : 16) < 0)
        return -1;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) {
            m->used[i] = 1;
            m->keys[i] = key;
            m->vals[i] = val;
            m->count++;
            return 0;
        }
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    }
}

void
pp_u64map_del(pp_u64map *m, uint64_t key)
{
    size_t i, j;

    if (m->cap == 0)
        return;
    for (i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return;
        if (m->keys[i] == key)
            break;
    }
    /* Backward-shift deletion keeps probe chains intact without tombstones. */
    m->used[i] = 0;
    m->count--;
    for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        size_t home = slot_of(m->keys[j], m->cap);
        int movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->used[i] = 1;
            m->used[j] = 0;
            i = j;
        }
    }
}

void
pp_u64map_clear(pp_u64map *m)
{
    if (m->cap)
        memset(m->used, 0, m->cap);
    m->count = 0;
}

void
pp_u64map_free(pp_u64map *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
