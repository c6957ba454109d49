/* Private: an open-addressing hash map from uint64 keys to uint64 values,
 * used for the reader's id tables (metadata ids, V6 thread indexes, sequence
 * numbers per thread, the symbol cache). */
#ifndef PP_NETTRACE_U64MAP_H
#define PP_NETTRACE_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp_u64map {
    uint64_t *keys;
    uint64_t *vals;
    uint8_t *used;
    size_t cap; /* power of two, or 0 */
    size_t count;
} pp_u64map;

/* Pointer to the value of key, or NULL. */
uint64_t *pp_u64map_get(const pp_u64map *m, uint64_t key);
/* Insert or replace; 0 or -1 when out of memory. */
int pp_u64map_put(pp_u64map *m, uint64_t key, uint64_t val);
/* Remove key if present. */
void pp_u64map_del(pp_u64map *m, uint64_t key);
/* Empty the map, keeping its storage. */
void pp_u64map_clear(pp_u64map *m);
void pp_u64map_free(pp_u64map *m);

#endif
