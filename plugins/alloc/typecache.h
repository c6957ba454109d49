/* plugins/alloc: a cache of GCAllocationTick type names by TypeID, checked
 * against the raw UTF-16 name bytes.
 *
 * A trace repeats a few dozen types over millions of ticks; converting each
 * tick's TypeName to UTF-8 and interning it cost a third of alloc's consume
 * time on deep-stack traces. A hit needs the same TypeID and the same name
 * bytes (up to and including the terminator) as a tick that decoded
 * successfully before, so it yields exactly what decoding would: the name
 * id in the analyzer's type table and the tick's other fields. */
#ifndef PP_ALLOC_TYPECACHE_H
#define PP_ALLOC_TYPECACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tick.h"

#define PP_ALLOC_TYPECACHE_SLOTS 256u /* direct-mapped by TypeID */

typedef struct pp_alloc_typecache_entry {
    uint64_t type_id; /* the payload's TypeID (a MethodTable address) */
    uint8_t *raw;     /* owned: the UTF-16 name including its terminator */
    size_t raw_len;
    uint32_t name;         /* id in the analyzer's type table */
    uint32_t pointer_size; /* 0 = empty slot */
} pp_alloc_typecache_entry;

typedef struct pp_alloc_typecache {
    pp_alloc_typecache_entry e[PP_ALLOC_TYPECACHE_SLOTS];
} pp_alloc_typecache;

/* A zeroed cache is empty. */
void pp_alloc_typecache_free(pp_alloc_typecache *c);

/* 1 when payload[0..size) of a tick (version >= 2) names a cached type:
 * *out holds amount, kind, heap index and has_type (type is NULL: use
 * *name), *name the type table id. 0 when the tick must be decoded. */
int pp_alloc_typecache_hit(const pp_alloc_typecache *c, const uint8_t *payload, size_t size,
                           uint32_t version, uint32_t pointer_size, pp_alloc_tick *out,
                           uint32_t *name);

/* Remember a tick that pp_alloc_tick_decode accepted with has_type, whose
 * name got table id name. Out of memory only means no caching. */
void pp_alloc_typecache_put(pp_alloc_typecache *c, const uint8_t *payload, uint32_t pointer_size,
                            const pp_alloc_tick *tick, uint32_t name);

#endif
