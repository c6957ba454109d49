/* Private: the hash maps of the heap-snapshot builder (heap_graph.c),
 * smaller than core/nettrace/u64map.h (12 bytes a slot, not 17: they hold
 * every address of the heap):
 * 64-bit keys (addresses, type and module ids) and strings (type names)
 * to 32-bit indexes, open addressing, hashed with xxHash. Values are
 * < UINT32_MAX (that value marks an empty slot). */
#ifndef PP_CORE_IPC_HEAP_MAP_H
#define PP_CORE_IPC_HEAP_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp_hmap64 {
    uint64_t *keys;
    uint32_t *vals;
    size_t cap, n; /* cap is a power of two, or 0 */
} pp_hmap64;

/* 1 and *val when key is present, else 0. */
int pp_hmap64_get(const pp_hmap64 *m, uint64_t key, uint32_t *val);
/* Insert or overwrite. PP_OK or PP_ENOMEM. */
int pp_hmap64_put(pp_hmap64 *m, uint64_t key, uint32_t val);
/* The value of key, inserting fresh (and setting *added) when absent. */
int pp_hmap64_intern(pp_hmap64 *m, uint64_t key, uint32_t fresh, uint32_t *val, int *added);
void pp_hmap64_free(pp_hmap64 *m);
/* Bytes held, for the memory figures. */
size_t pp_hmap64_bytes(const pp_hmap64 *m);

/* Addresses to node indexes with no copy of the addresses: a slot holds
 * only the index, and the key of index v is keys[v] (the builder's
 * node_addr, passed at each call since it moves as it grows). 4 bytes a
 * slot, not 12: at load <= 1/2, 8-16 bytes an object, and 12-24 while it
 * doubles (old and new table), where the keyed map took 24-48 and 72. */
typedef struct pp_haddr {
    uint32_t *vals;
    size_t cap, n; /* cap is a power of two, or 0 */
} pp_haddr;

/* The index v with keys[v] == key; else fresh is stored (keys[fresh] must
 * already be key, so a growth that rehashes it finds it) and *added set.
 * PP_OK or PP_ENOMEM (then nothing is stored). */
int pp_haddr_intern(pp_haddr *m, const uint64_t *keys, uint64_t key, uint32_t fresh, uint32_t *val,
                    int *added);
void pp_haddr_free(pp_haddr *m);

typedef struct pp_hstrmap {
    char **keys; /* owned copies */
    uint32_t *vals;
    size_t cap, n;
} pp_hstrmap;

int pp_hstrmap_get(const pp_hstrmap *m, const char *key, uint32_t *val);
/* Insert (the key is copied) or overwrite. PP_OK or PP_ENOMEM. */
int pp_hstrmap_put(pp_hstrmap *m, const char *key, uint32_t val);
void pp_hstrmap_free(pp_hstrmap *m);

#endif
