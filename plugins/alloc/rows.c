/* plugins/alloc: the (type, stack, kind) aggregate (see rows.h). */
#include "rows.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

static uint32_t slot_of(uint32_t type, uint32_t stack, uint32_t kind, uint32_t nslots)
{
    uint64_t x = ((uint64_t)stack << 32 | type) ^ ((uint64_t)kind << 58);
    x ^= x >> 30; x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27; x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return (uint32_t)x & (nslots - 1);
}

void pp_alloc_rows_free(pp_alloc_rows *r)
{
    free(r->slot);
    memset(r, 0, sizeof *r);
}

static int rehash(pp_alloc_rows *r)
{
    uint32_t n = r->nslots ? r->nslots * 2 : 1024;
    if (n == 0)
        return PP_ENOMEM;
    pp_alloc_row *s = calloc(n, sizeof *s);
    if (!s)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < r->nslots; i++) {
        const pp_alloc_row *w = &r->slot[i];
        if (!w->seq)
            continue;
        uint32_t j = slot_of(w->type, w->stack, w->kind, n);
        while (s[j].seq)
            j = (j + 1) & (n - 1);
        s[j] = *w;
    }
    free(r->slot);
    r->slot = s;
    r->nslots = n;
    return PP_OK;
}

int pp_alloc_rows_add(pp_alloc_rows *r, uint32_t type, uint32_t stack, uint32_t kind, int64_t bytes)
{
    if ((uint64_t)(r->count + 1) * 2 > r->nslots && rehash(r) != PP_OK)
        return PP_ENOMEM;
    uint32_t j = slot_of(type, stack, kind, r->nslots);
    for (; r->slot[j].seq; j = (j + 1) & (r->nslots - 1)) {
        pp_alloc_row *w = &r->slot[j];
        if (w->type == type && w->stack == stack && w->kind == kind) {
            w->bytes += bytes;
            w->samples++;
            return PP_OK;
        }
    }
    if (r->count == UINT32_MAX - 1)
        return PP_ENOMEM;
    r->slot[j] = (pp_alloc_row){ type, stack, kind, ++r->count, bytes, 1 };
    return PP_OK;
}

pp_alloc_row *pp_alloc_rows_ordered(const pp_alloc_rows *r)
{
    if (r->count == 0)
        return NULL;
    pp_alloc_row *o = malloc((size_t)r->count * sizeof *o);
    if (!o)
        return NULL;
    for (uint32_t i = 0; i < r->nslots; i++)
        if (r->slot[i].seq)
            o[r->slot[i].seq - 1] = r->slot[i];
    return o;
}
