/* plugins/common: a uint64 -> uint32 hash map (IPs to name ids, thread ids
 * to per-thread slots). Open addressing; a zeroed map is empty. */
#ifndef PP_PLUGIN_U64MAP_H
#define PP_PLUGIN_U64MAP_H

#include <stdint.h>

typedef struct pp_pc_u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    uint32_t count;
    uint32_t nslots; /* power of two, or 0 */
} pp_pc_u64map;

void pp_pc_u64map_free(pp_pc_u64map *m);
/* 1 and *val set when key is present, else 0. */
int pp_pc_u64map_get(const pp_pc_u64map *m, uint64_t key, uint32_t *val);
/* Insert or overwrite. PP_OK or PP_ENOMEM. */
int pp_pc_u64map_put(pp_pc_u64map *m, uint64_t key, uint32_t val);

#endif
