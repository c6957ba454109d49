/* plugins/alloc: GCAllocationTick payload decoding (see tick.h). */
#include "tick.h"

#include "../common/utf16.h"

static uint32_t
rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t
rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

int
pp_alloc_tick_decode(const uint8_t *payload, size_t size, uint32_t version, uint32_t pointer_size,
                     char *scratch, pp_alloc_tick *out, const char **what, size_t *at)
{
    *out = (pp_alloc_tick){ 0 };
    out->type = "";
    if (size < 8) {
        *what = "AllocationAmount and AllocationKind (8 bytes)";
        *at = 0;
        return -1;
    }
    out->amount = rd32(payload);
    out->kind = rd32(payload + 4);
    if (version < 2)
        return 0;
    if (pointer_size != 4 && pointer_size != 8) {
        *what = "a pointer size of 4 or 8 for TypeID";
        *at = 18;
        return -1;
    }
    if (size < 18) {
        *what = "AllocationAmount64 (u64 at offset 10)";
        *at = 10;
        return -1;
    }
    out->amount = rd64(payload + 10);
    size_t off = 18 + pointer_size;
    if (size < off) {
        *what = "TypeID";
        *at = 18;
        return -1;
    }
    size_t used = 0;
    if (pp_pc_utf16le_to_utf8(payload + off, size - off, scratch, &used, &out->type_len) != 0) {
        *what = "a NUL-terminated UTF-16 TypeName";
        *at = off;
        return -1;
    }
    out->type = scratch;
    out->has_type = 1;
    out->type_raw_len = used;
    off += used;
    if (size < off + 4) {
        *what = "HeapIndex (u32 after TypeName)";
        *at = off;
        return -1;
    }
    out->heap_index = rd32(payload + off);
    return 0;
}

const char *
pp_alloc_kind_name(uint32_t kind)
{
    switch (kind) {
    case 0: return "Small";
    case 1: return "Large";
    case 2: return "Pinned";
    default: return NULL;
    }
}
