/* The node shape table (shapes.h). Every allocation is bounded by the node
 * count the file justified: a new shape needs a node of its own, so a
 * hostile file with as many distinct (type, size) pairs as nodes makes a
 * table as long as the node array (and a hash of at most 4 slots, 48
 * bytes, a node while decoding), and takes the 32-bit indices. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "gcdump/shapes.h"

int
pp_shapes_init(pp_shapes *t, uint32_t nodes, uint32_t limit16)
{
    memset(t, 0, sizeof(*t));
    t->nodes = nodes;
    t->limit16 = limit16 > PP_SHAPES_16_MAX ? PP_SHAPES_16_MAX : limit16;
    t->cap = 256;
    t->type = malloc(t->cap * sizeof(uint32_t));
    t->size = malloc(t->cap * sizeof(uint32_t));
    t->bits = 10;
    t->mask = 1023;
    t->slot = calloc((size_t)t->mask + 1, sizeof(pp_shape_slot));
    if (t->limit16)
        t->node16 = malloc((nodes ? nodes : 1) * sizeof(uint16_t));
    else
        t->node32 = malloc((nodes ? nodes : 1) * sizeof(uint32_t));
    if (!t->type || !t->size || !t->slot || (!t->node16 && !t->node32))
        return PP_ENOMEM;
    return PP_OK;
}

static int
rehash(pp_shapes *t)
{
    uint32_t mask = t->mask * 2 + 1;
    pp_shape_slot *slot = calloc((size_t)mask + 1, sizeof(pp_shape_slot));
    if (!slot)
        return PP_ENOMEM;
    free(t->slot);
    t->slot = slot;
    t->mask = mask;
    t->bits++;
    for (uint32_t sh = 0; sh < t->count; sh++) {
        uint32_t h = pp_shapes_slot(t, t->type[sh], t->size[sh]);
        while (slot[h].shape1)
            h = (h + 1) & mask;
        slot[h] = (pp_shape_slot){ t->type[sh], t->size[sh], sh + 1 };
    }
    return PP_OK;
}

/* Past limit16 shapes the first `filled` indices move to 32 bits, once. */
static int
widen(pp_shapes *t, uint32_t filled)
{
    uint32_t *w = malloc((t->nodes ? t->nodes : 1) * sizeof(uint32_t));
    if (!w)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < filled; i++)
        w[i] = t->node16[i];
    free(t->node16);
    t->node16 = NULL;
    t->node32 = w;
    return PP_OK;
}

int
pp_shapes_find(pp_shapes *t, uint32_t type, uint32_t size, uint32_t filled, uint32_t *out)
{
    uint32_t h = pp_shapes_slot(t, type, size);
    for (; t->slot[h].shape1; h = (h + 1) & t->mask)
        if (t->slot[h].type == type && t->slot[h].size == size) {
            *out = t->slot[h].shape1 - 1;
            return PP_OK;
        }
    if (t->count == t->cap) {
        /* count < nodes: this node is the first of its shape. */
        uint32_t cap = t->cap > t->nodes / 2 ? t->nodes : t->cap * 2;
        uint32_t *ty = realloc(t->type, (size_t)cap * sizeof(uint32_t));
        if (!ty)
            return PP_ENOMEM;
        t->type = ty;
        uint32_t *sz = realloc(t->size, (size_t)cap * sizeof(uint32_t));
        if (!sz)
            return PP_ENOMEM;
        t->size = sz;
        t->cap = cap;
    }
    if (t->node16 && t->count == t->limit16 && widen(t, filled) != PP_OK)
        return PP_ENOMEM;
    uint32_t sh = t->count++;
    t->type[sh] = type;
    t->size[sh] = size;
    t->slot[h] = (pp_shape_slot){ type, size, sh + 1 };
    /* At most half full, so a probe ends soon. */
    if ((uint64_t)t->count * 2 > (uint64_t)t->mask + 1 && rehash(t) != PP_OK)
        return PP_ENOMEM;
    *out = sh;
    return PP_OK;
}

void
pp_shapes_done(pp_shapes *t)
{
    free(t->slot);
    t->slot = NULL;
    if (t->count && t->count < t->cap) {
        uint32_t *ty = realloc(t->type, t->count * sizeof(uint32_t));
        if (ty)
            t->type = ty;
        uint32_t *sz = realloc(t->size, t->count * sizeof(uint32_t));
        if (sz)
            t->size = sz;
        t->cap = t->count;
    }
}

void
pp_shapes_free(pp_shapes *t)
{
    pp_shapes_done(t);
    free(t->type);
    free(t->size);
    free(t->node16);
    free(t->node32);
    memset(t, 0, sizeof(*t));
}
