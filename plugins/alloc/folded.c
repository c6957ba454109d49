/* plugins/alloc: folded stacks as representative IP stacks (see folded.h). */
#include "folded.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#define XXH_INLINE_ALL
#include <xxhash.h>
#include "../common/zalloc.h"

void
pp_alloc_folded_init(pp_alloc_folded *f, const pp_pc_strtab *names, const pp_pc_stacks *stacks,
                     const uint32_t *ipname, int by_string)
{
    memset(f, 0, sizeof *f);
    f->names = names;
    f->stacks = stacks;
    f->ipname = ipname;
    f->by_string = by_string;
    pp_pc_strtab_init(&f->strs);
}

void
pp_alloc_folded_free(pp_alloc_folded *f)
{
    free(f->rep);
    free(f->hash);
    free(f->slots);
    pp_pc_strtab_free(&f->strs);
    pp_pc_strbuf_free(&f->buf);
    memset(f, 0, sizeof *f);
}

/* Name id of frame i (0 = leaf) of folded id's representative. */
static inline uint32_t
rep_name(const pp_alloc_folded *f, uint32_t id, uint32_t i)
{
    return f->ipname[pp_pc_stacks_frame(f->stacks, f->rep[id], i)];
}

static int
rehash(pp_alloc_folded *f, uint32_t n)
{
    uint32_t *s = pp_pc_zalloc(n, sizeof *s);
    if (!s)
        return PP_ENOMEM;
    for (uint32_t id = 0; id < f->count; id++) {
        uint32_t j = (uint32_t)f->hash[id] & (n - 1);
        while (s[j])
            j = (j + 1) & (n - 1);
        s[j] = id + 1;
    }
    free(f->slots);
    f->slots = s;
    f->nslots = n;
    return PP_OK;
}

/* Same names, frame by frame, as ids[0..n)? */
static int
same_names(const pp_alloc_folded *f, uint32_t id, const uint32_t *ids, uint32_t n)
{
    if (pp_pc_stacks_depth(f->stacks, f->rep[id]) != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (rep_name(f, id, i) != ids[i])
            return 0;
    return 1;
}

int
pp_alloc_folded_intern(pp_alloc_folded *f, uint32_t stack, const uint32_t *ids, uint32_t n,
                       uint32_t *id)
{
    if (f->by_string) {
        pp_pc_strbuf_clear(&f->buf);
        int rc = PP_OK;
        for (uint32_t i = n; i-- > 0 && rc == PP_OK;) {
            rc = pp_pc_strbuf_adds(&f->buf, pp_pc_strtab_get(f->names, ids[i]));
            if (rc == PP_OK && i > 0)
                rc = pp_pc_strbuf_add(&f->buf, ";", 1);
        }
        if (rc != PP_OK)
            return rc;
        return pp_pc_strtab_intern(&f->strs, f->buf.data ? f->buf.data : "", f->buf.len, id);
    }
    if ((uint64_t)(f->count + 1) * 4 > (uint64_t)f->nslots * 3 &&
        rehash(f, f->nslots ? f->nslots * 2 : 1024) != PP_OK)
        return PP_ENOMEM;
    uint64_t h = XXH3_64bits_withSeed(ids, (size_t)n * sizeof *ids, n);
    uint32_t mask = f->nslots - 1, j = (uint32_t)h & mask;
    for (; f->slots[j]; j = (j + 1) & mask) {
        uint32_t c = f->slots[j] - 1;
        if (f->hash[c] == h && same_names(f, c, ids, n)) {
            *id = c;
            return PP_OK;
        }
    }
    if (f->count == UINT32_MAX - 1)
        return PP_ENOMEM;
    if (f->count == f->cap) {
        uint32_t cap = f->cap ? f->cap * 2 : 1024;
        uint32_t *r = realloc(f->rep, (size_t)cap * sizeof *r);
        if (!r)
            return PP_ENOMEM;
        f->rep = r;
        uint64_t *hs = realloc(f->hash, (size_t)cap * sizeof *hs);
        if (!hs)
            return PP_ENOMEM;
        f->hash = hs;
        f->cap = cap;
    }
    f->rep[f->count] = stack;
    f->hash[f->count] = h;
    f->slots[j] = f->count + 1;
    *id = f->count++;
    return PP_OK;
}

void
pp_alloc_folded_seal(pp_alloc_folded *f)
{
    free(f->slots);
    f->slots = NULL;
    f->nslots = 0;
}

uint32_t
pp_alloc_folded_count(const pp_alloc_folded *f)
{
    return f->by_string ? f->strs.count : f->count;
}

const char *
pp_alloc_folded_string(pp_alloc_folded *f, uint32_t id)
{
    if (f->by_string)
        return pp_pc_strtab_get(&f->strs, id);
    uint32_t n = pp_pc_stacks_depth(f->stacks, f->rep[id]);
    pp_pc_strbuf_clear(&f->buf);
    for (uint32_t i = n; i-- > 0;) { /* root first */
        if (pp_pc_strbuf_adds(&f->buf, pp_pc_strtab_get(f->names, rep_name(f, id, i))) != PP_OK)
            return NULL;
        if (i > 0 && pp_pc_strbuf_add(&f->buf, ";", 1) != PP_OK)
            return NULL;
    }
    return f->buf.data ? f->buf.data : "";
}

/* The characters of a folded string, one at a time, without building it. */
typedef struct cursor {
    const pp_alloc_folded *f;
    uint32_t id; /* folded id, unless a literal */
    int lit;
    uint32_t left; /* frames after the current one (toward the leaf) */
    const char *p; /* in the current name (or the literal) */
} cursor;

static void
cursor_seq(cursor *c, const pp_alloc_folded *f, uint32_t id)
{
    uint32_t n = pp_pc_stacks_depth(f->stacks, f->rep[id]);
    c->f = f;
    c->id = id;
    c->lit = 0;
    c->left = n ? n - 1 : 0;
    c->p = n ? pp_pc_strtab_get(f->names, rep_name(f, id, n - 1)) : "";
}

/* The next byte (as unsigned), or 0 at the end of the string. */
static unsigned
next_char(cursor *c)
{
    if (*c->p)
        return (unsigned char)*c->p++;
    if (c->lit || c->left == 0)
        return 0;
    c->left--;
    c->p = pp_pc_strtab_get(c->f->names, rep_name(c->f, c->id, c->left));
    return ';';
}

static int
cmp_cursors(cursor *x, cursor *y)
{
    for (;;) {
        unsigned a = next_char(x), b = next_char(y);
        if (a != b)
            return a < b ? -1 : 1;
        if (a == 0)
            return 0;
    }
}

int
pp_alloc_folded_cmp(const pp_alloc_folded *f, uint32_t a, uint32_t b)
{
    if (f->by_string)
        return strcmp(pp_pc_strtab_get(&f->strs, a), pp_pc_strtab_get(&f->strs, b));
    cursor x, y;
    cursor_seq(&x, f, a);
    cursor_seq(&y, f, b);
    return cmp_cursors(&x, &y);
}

int
pp_alloc_folded_cmp_lit(const pp_alloc_folded *f, const char *lit, uint32_t b)
{
    if (f->by_string)
        return strcmp(lit, pp_pc_strtab_get(&f->strs, b));
    cursor x = { f, 0, 1, 0, lit }, y;
    cursor_seq(&y, f, b);
    return cmp_cursors(&x, &y);
}
