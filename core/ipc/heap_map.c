/* Hash maps of the heap-snapshot builder (heap_map.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include <perfpipe/perfpipe.h>

#include "ipc/heap_map.h"

#define EMPTY UINT32_MAX

static size_t
slot_of(uint64_t key, size_t cap)
{
    return (size_t)XXH3_64bits(&key, sizeof key) & (cap - 1);
}

static int
u64_grow(pp_hmap64 *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *keys = malloc(cap * sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return PP_ENOMEM;
    }
    memset(vals, 0xFF, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] == EMPTY)
            continue;
        size_t s = slot_of(m->keys[i], cap);
        while (vals[s] != EMPTY)
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return PP_OK;
}

int
pp_hmap64_get(const pp_hmap64 *m, uint64_t key, uint32_t *val)
{
    if (m->cap == 0)
        return 0;
    for (size_t s = slot_of(key, m->cap);; s = (s + 1) & (m->cap - 1)) {
        if (m->vals[s] == EMPTY)
            return 0;
        if (m->keys[s] == key) {
            *val = m->vals[s];
            return 1;
        }
    }
}

int
pp_hmap64_intern(pp_hmap64 *m, uint64_t key, uint32_t fresh, uint32_t *val, int *added)
{
    /* Load at most 1/2: probes stay short for the millions of addresses. */
    if ((m->n + 1) * 2 > m->cap && u64_grow(m) != PP_OK)
        return PP_ENOMEM;
    size_t s = slot_of(key, m->cap);
    for (; m->vals[s] != EMPTY; s = (s + 1) & (m->cap - 1))
        if (m->keys[s] == key) {
            *val = m->vals[s];
            if (added)
                *added = 0;
            return PP_OK;
        }
    m->keys[s] = key;
    m->vals[s] = fresh;
    m->n++;
    *val = fresh;
    if (added)
        *added = 1;
    return PP_OK;
}

static int
addr_grow(pp_haddr *m, const uint64_t *keys)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!vals)
        return PP_ENOMEM;
    memset(vals, 0xFF, cap * sizeof *vals);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->vals[i] == EMPTY)
            continue;
        size_t s = slot_of(keys[m->vals[i]], cap);
        while (vals[s] != EMPTY)
            s = (s + 1) & (cap - 1);
        vals[s] = m->vals[i];
    }
    free(m->vals);
    m->vals = vals;
    m->cap = cap;
    return PP_OK;
}

int
pp_haddr_intern(pp_haddr *m, const uint64_t *keys, uint64_t key, uint32_t fresh, uint32_t *val,
                int *added)
{
    /* Load at most 1/2, as the keyed map: each probe now reads keys[]. */
    if ((m->n + 1) * 2 > m->cap && addr_grow(m, keys) != PP_OK)
        return PP_ENOMEM;
    size_t s = slot_of(key, m->cap);
    for (; m->vals[s] != EMPTY; s = (s + 1) & (m->cap - 1))
        if (keys[m->vals[s]] == key) {
            *val = m->vals[s];
            *added = 0;
            return PP_OK;
        }
    m->vals[s] = fresh;
    m->n++;
    *val = fresh;
    *added = 1;
    return PP_OK;
}

void
pp_haddr_free(pp_haddr *m)
{
    free(m->vals);
    memset(m, 0, sizeof *m);
}

int
pp_hmap64_put(pp_hmap64 *m, uint64_t key, uint32_t val)
{
    uint32_t cur;
    int added;
    int rc = pp_hmap64_intern(m, key, val, &cur, &added);
    if (rc != PP_OK || added)
        return rc;
    for (size_t s = slot_of(key, m->cap);; s = (s + 1) & (m->cap - 1))
        if (m->keys[s] == key && m->vals[s] != EMPTY) {
            m->vals[s] = val;
            return PP_OK;
        }
}

void
pp_hmap64_free(pp_hmap64 *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

size_t
pp_hmap64_bytes(const pp_hmap64 *m)
{
    return m->cap * (sizeof(uint64_t) + sizeof(uint32_t));
}

static size_t
str_slot(const char *key, size_t cap)
{
    return (size_t)XXH3_64bits(key, strlen(key)) & (cap - 1);
}

static int
str_grow(pp_hstrmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    char **keys = calloc(cap, sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t s = str_slot(m->keys[i], cap);
        while (keys[s])
            s = (s + 1) & (cap - 1);
        keys[s] = m->keys[i];
        vals[s] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return PP_OK;
}

int
pp_hstrmap_get(const pp_hstrmap *m, const char *key, uint32_t *val)
{
    if (m->cap == 0)
        return 0;
    for (size_t s = str_slot(key, m->cap); m->keys[s]; s = (s + 1) & (m->cap - 1))
        if (strcmp(m->keys[s], key) == 0) {
            *val = m->vals[s];
            return 1;
        }
    return 0;
}

int
pp_hstrmap_put(pp_hstrmap *m, const char *key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap && str_grow(m) != PP_OK)
        return PP_ENOMEM;
    size_t s = str_slot(key, m->cap);
    for (; m->keys[s]; s = (s + 1) & (m->cap - 1))
        if (strcmp(m->keys[s], key) == 0) {
            m->vals[s] = val;
            return PP_OK;
        }
    if (!(m->keys[s] = strdup(key)))
        return PP_ENOMEM;
    m->vals[s] = val;
    m->n++;
    return PP_OK;
}

void
pp_hstrmap_free(pp_hstrmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
