/* Private: the table of node shapes, the distinct (type index, size) pairs
 * of a heap snapshot (records.h, ABI 1.4), built while the node records
 * are decoded. A node's shape is found by its type's last (size -> shape)
 * pair; only a miss (another size of the same type: arrays, strings) looks
 * in a hash of every pair. */
#ifndef PP_GCDUMP_SHAPES_H
#define PP_GCDUMP_SHAPES_H

#include <stdint.h>

#define PP_SHAPE_NONE UINT32_MAX

typedef struct pp_shapes {
    uint32_t count, cap;         /* shapes, and the room in type/size */
    uint32_t *type, *size;       /* [cap] each shape's type index and bytes */
    uint16_t *node16;            /* [nodes] while count <= limit16 */
    uint32_t *node32;            /* [nodes] once more shapes were seen */
    uint32_t nodes, limit16;
    /* Decode only (freed by pp_shapes_done): */
    uint32_t *last_shape;        /* [ntypes] the type's last shape or NONE */
    uint32_t *slot;              /* [mask + 1] shape index + 1, 0 empty */
    uint32_t mask;
} pp_shapes;

/* Ready t for nodes nodes of ntypes types, node16 first; limit16 (at most
 * 65536) is how many shapes node16 may index before the indices go to
 * node32. PP_OK or PP_ENOMEM (then pp_shapes_free frees what was made). */
int pp_shapes_init(pp_shapes *t, uint32_t nodes, uint32_t ntypes, uint32_t limit16);

/* The shape of (type, size), added if new (growing node16 to node32 when
 * it passes limit16, keeping the first `filled` node indices): *out, PP_OK
 * or PP_ENOMEM. The slow path of pp_shapes_set. */
int pp_shapes_find(pp_shapes *t, uint32_t type, uint32_t size, uint32_t filled, uint32_t *out);

/* Node i (all nodes before it set) has type and size: PP_OK or PP_ENOMEM. */
static inline int pp_shapes_set(pp_shapes *t, uint32_t i, uint32_t type, uint32_t size)
{
    uint32_t sh = t->last_shape[type];
    if (sh == PP_SHAPE_NONE || t->size[sh] != size) {
        int rc = pp_shapes_find(t, type, size, i, &sh);
        if (rc)
            return rc;
        t->last_shape[type] = sh;
    }
    if (t->node16)
        t->node16[i] = (uint16_t)sh;
    else
        t->node32[i] = sh;
    return 0;
}

/* The decode is over: drop the lookup structures, trim the table. */
void pp_shapes_done(pp_shapes *t);
void pp_shapes_free(pp_shapes *t);

#endif
