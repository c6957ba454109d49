/* Private: the table of node shapes, the distinct (type index, size) pairs
 * of a heap snapshot (records.h, ABI 1.4), built while the node records
 * are decoded. A node's shape is looked up in an open-addressing hash of
 * the pairs, whose slots hold the pair itself, so that the common case (the
 * first slot) is one multiply and one cache line, inline. A per-type "last
 * size" cache in front of it decoded the bench heap no faster (23 % of its
 * nodes missed it: strings and arrays alternate sizes), so there is none. */
#ifndef PP_GCDUMP_SHAPES_H
#define PP_GCDUMP_SHAPES_H

#include <stdint.h>

/* The most shapes 16-bit indices can hold (records.h: node_shape16). */
#define PP_SHAPES_16_MAX 65536u

typedef struct pp_shape_slot {
    uint32_t type, size;
    uint32_t shape1; /* shape index + 1; 0: empty */
} pp_shape_slot;

typedef struct pp_shapes {
    uint32_t count, cap;   /* shapes, and the room in type/size */
    uint32_t *type, *size; /* [cap] each shape's type index and bytes */
    uint16_t *node16;      /* [nodes] while count <= limit16 */
    uint32_t *node32;      /* [nodes] once more shapes were seen */
    uint32_t nodes, limit16;
    pp_shape_slot *slot; /* [mask + 1], decode only */
    uint32_t mask, bits; /* slots - 1 = 2^bits - 1 */
} pp_shapes;

/* Ready t for nodes nodes, node16 first; limit16 (at most PP_SHAPES_16_MAX) is how
 * many shapes node16 may index before the indices go to node32. PP_OK or
 * PP_ENOMEM (then pp_shapes_free frees what was made). */
int pp_shapes_init(pp_shapes *t, uint32_t nodes, uint32_t limit16);

/* Fibonacci hashing: the top bits of the pair times 2^64 / phi. */
static inline uint32_t
pp_shapes_slot(const pp_shapes *t, uint32_t type, uint32_t size)
{
    uint64_t x = ((uint64_t)type << 32 | size) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(x >> (64 - t->bits));
}

/* The shape of (type, size), added if new (growing node16 to node32 when
 * it passes limit16, keeping the first `filled` node indices): *out, PP_OK
 * or PP_ENOMEM. The slow path of pp_shapes_set. */
int pp_shapes_find(pp_shapes *t, uint32_t type, uint32_t size, uint32_t filled, uint32_t *out);

/* Node i (all nodes before it set) has type and size: PP_OK or PP_ENOMEM. */
static inline int
pp_shapes_set(pp_shapes *t, uint32_t i, uint32_t type, uint32_t size)
{
    const pp_shape_slot *e = &t->slot[pp_shapes_slot(t, type, size)];
    uint32_t sh;
    if (e->shape1 && e->type == type && e->size == size) {
        sh = e->shape1 - 1;
    } else {
        int rc = pp_shapes_find(t, type, size, i, &sh);
        if (rc)
            return rc;
    }
    if (t->node16)
        t->node16[i] = (uint16_t)sh;
    else
        t->node32[i] = sh;
    return 0;
}

/* Node i's shape (every node set). */
static inline uint32_t
pp_shapes_of(const pp_shapes *t, uint32_t i)
{
    return t->node16 ? t->node16[i] : t->node32[i];
}

/* The decode is over: drop the hash, trim the table. */
void pp_shapes_done(pp_shapes *t);
void pp_shapes_free(pp_shapes *t);

#endif
