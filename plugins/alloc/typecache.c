/* plugins/alloc: the TypeID -> type name cache (see typecache.h). */
#include "typecache.h"

#include <stdlib.h>
#include <string.h>

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

/* TypeID is at payload offset 18 (tick.h); the name follows it. */
#define TYPE_ID_AT 18u

static uint32_t
slot_of(uint64_t type_id)
{
    /* MethodTable addresses are 8-aligned and close together: mix them. */
    type_id ^= type_id >> 29;
    type_id *= UINT64_C(0xbf58476d1ce4e5b9);
    return (uint32_t)(type_id >> 40) & (PP_ALLOC_TYPECACHE_SLOTS - 1);
}

void
pp_alloc_typecache_free(pp_alloc_typecache *c)
{
    for (uint32_t i = 0; i < PP_ALLOC_TYPECACHE_SLOTS; i++)
        free(c->e[i].raw);
    memset(c, 0, sizeof *c);
}

int
pp_alloc_typecache_hit(const pp_alloc_typecache *c, const uint8_t *payload, size_t size,
                       uint32_t version, uint32_t pointer_size, pp_alloc_tick *out, uint32_t *name)
{
    if (version < 2 || (pointer_size != 4 && pointer_size != 8) || size < TYPE_ID_AT + pointer_size)
        return 0;
    uint64_t tid = pointer_size == 8 ? rd64(payload + TYPE_ID_AT) : rd32(payload + TYPE_ID_AT);
    const pp_alloc_typecache_entry *e = &c->e[slot_of(tid)];
    size_t off = TYPE_ID_AT + pointer_size;
    if (e->pointer_size != pointer_size || e->type_id != tid || size - off < e->raw_len + 4 ||
        memcmp(payload + off, e->raw, e->raw_len) != 0)
        return 0;
    *out = (pp_alloc_tick){ 0 };
    out->amount = rd64(payload + 10);
    out->kind = rd32(payload + 4);
    out->has_type = 1;
    out->heap_index = rd32(payload + off + e->raw_len);
    *name = e->name;
    return 1;
}

void
pp_alloc_typecache_put(pp_alloc_typecache *c, const uint8_t *payload, uint32_t pointer_size,
                       const pp_alloc_tick *tick, uint32_t name)
{
    if (!tick->has_type || tick->type_raw_len == 0)
        return;
    size_t off = TYPE_ID_AT + pointer_size;
    uint64_t tid = pointer_size == 8 ? rd64(payload + TYPE_ID_AT) : rd32(payload + TYPE_ID_AT);
    pp_alloc_typecache_entry *e = &c->e[slot_of(tid)];
    uint8_t *raw = realloc(e->raw, tick->type_raw_len);
    if (!raw) {
        e->pointer_size = 0; /* the slot keeps its buffer, but no entry */
        return;
    }
    memcpy(raw, payload + off, tick->type_raw_len);
    e->raw = raw;
    e->raw_len = tick->type_raw_len;
    e->type_id = tid;
    e->name = name;
    e->pointer_size = pointer_size;
}
