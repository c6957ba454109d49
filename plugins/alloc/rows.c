/* plugins/alloc: the (type, stack, kind) aggregate (see rows.h). */
#include "rows.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include "../common/zalloc.h"

static uint32_t
slot_of(uint32_t type, uint32_t stack, uint32_t kind, uint32_t nslots)
{
    uint64_t x = ((uint64_t)stack << 32 | type) ^ ((uint64_t)kind << 58);
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return (uint32_t)x & (nslots - 1);
}

void
pp_alloc_rows_free(pp_alloc_rows *r)
{
    free(r->row);
    free(r->slot);
    memset(r, 0, sizeof *r);
}

void
pp_alloc_rows_seal(pp_alloc_rows *r)
{
    free(r->slot);
    r->slot = NULL;
    r->nslots = 0;
}

static int
rehash(pp_alloc_rows *r)
{
    uint32_t n = r->nslots ? r->nslots * 2 : 1024;
    if (n == 0)
        return PP_ENOMEM;
    uint32_t *s = pp_pc_zalloc(n, sizeof *s);
    if (!s)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < r->count; i++) {
        const pp_alloc_row *w = &r->row[i];
        uint32_t j = slot_of(w->type, w->stack, w->kind, n);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = i + 1;
    }
    free(r->slot);
    r->slot = s;
    r->nslots = n;
    return PP_OK;
}

int
pp_alloc_rows_add_n(pp_alloc_rows *r, uint32_t type, uint32_t stack, uint32_t kind, int64_t bytes,
                    int64_t samples, uint32_t *hint)
{
    /* the hinted row, then the other rows of its stack */
    uint32_t h = *hint, link = 0;
    for (int steps = 0; h && h <= r->count && steps < 8; steps++) {
        pp_alloc_row *w = &r->row[h - 1];
        if (w->stack != stack)
            break;
        link = link ? link : h;
        if (w->type == type && w->kind == kind) {
            w->bytes = pp_i64_add_sat(w->bytes, bytes);
            w->samples += samples;
            *hint = h;
            return PP_OK;
        }
        h = w->next;
    }
    if ((uint64_t)(r->count + 1) * 2 > r->nslots && rehash(r) != PP_OK)
        return PP_ENOMEM;
    uint32_t j = slot_of(type, stack, kind, r->nslots);
    for (; r->slot[j]; j = (j + 1) & (r->nslots - 1)) {
        pp_alloc_row *w = &r->row[r->slot[j] - 1];
        if (w->type == type && w->stack == stack && w->kind == kind) {
            w->bytes = pp_i64_add_sat(w->bytes, bytes);
            w->samples += samples;
            *hint = r->slot[j];
            return PP_OK;
        }
    }
    if (r->count == UINT32_MAX - 1)
        return PP_ENOMEM;
    if (r->count == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 1024;
        pp_alloc_row *t = realloc(r->row, (size_t)cap * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        r->row = t;
        r->cap = cap;
    }
    r->row[r->count] = (pp_alloc_row){ type, stack, kind, 0, bytes, samples };
    if (link) { /* a row of the same stack: join its list */
        r->row[r->count].next = r->row[link - 1].next;
        r->row[link - 1].next = r->count + 1;
    }
    r->slot[j] = ++r->count;
    *hint = r->count;
    return PP_OK;
}
