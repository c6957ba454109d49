/* plugins/alloc: decoding a GCAllocationTick payload (runtime provider,
 * event id 10, versions 0..4).
 *
 * The payload is packed without alignment (reference nettrace.md point 27):
 *   V0  u32 AllocationAmount, u32 AllocationKind
 *   V1  + u16 ClrInstanceID                               (offset 8)
 *   V2  + u64 AllocationAmount64 (offset 10), TypeID pointer-sized (18),
 *         TypeName UTF-16 NUL-terminated, u32 HeapIndex
 *   V3  + Address pointer-sized
 *   V4  + u64 ObjectSize
 * Versions above 4 are read by their V4 prefix (fields are only appended). */
#ifndef PP_ALLOC_TICK_H
#define PP_ALLOC_TICK_H

#include <stddef.h>
#include <stdint.h>

#define PP_ALLOC_TICK_EVENT_ID 10u

typedef struct pp_alloc_tick {
    uint64_t amount;   /* AllocationAmount64 when version >= 2, else AllocationAmount */
    uint32_t kind;     /* 0 Small, 1 Large, 2 Pinned */
    uint32_t has_type; /* 1 when the version carries TypeName */
    const char *type;  /* UTF-8, in the caller's scratch buffer; "" when absent */
    size_t type_len;
    uint32_t heap_index; /* valid when has_type */
    size_t type_raw_len; /* bytes of the UTF-16 TypeName with its terminator (has_type) */
} pp_alloc_tick;

/* Decode payload[0..size) of a tick of the given version and pointer size.
 * scratch must hold (size / 2) * 3 + 1 bytes (the TypeName in UTF-8).
 * Returns 0, or -1 with *what naming the field that does not fit (the
 * payload is shorter than its version's layout). */
int pp_alloc_tick_decode(const uint8_t *payload, size_t size, uint32_t version,
                         uint32_t pointer_size, char *scratch, pp_alloc_tick *out,
                         const char **what, size_t *at);

/* "Small", "Large", "Pinned", or NULL for an unknown kind. */
const char *pp_alloc_kind_name(uint32_t kind);

#endif
