/* plugins/alloc: folded stacks as name-id sequences (see folded.h). */
#include "folded.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

void pp_alloc_folded_init(pp_alloc_folded *f, const pp_pc_strtab *names, int by_string)
{
    memset(f, 0, sizeof *f);
    f->names = names;
    f->by_string = by_string;
    pp_pc_strtab_init(&f->strs);
}

void pp_alloc_folded_free(pp_alloc_folded *f)
{
    pp_pc_stackset_free(&f->seqs);
    pp_pc_strtab_free(&f->strs);
    pp_pc_strbuf_free(&f->buf);
}

int pp_alloc_folded_intern(pp_alloc_folded *f, const uint32_t *ids, uint32_t n, uint32_t *id)
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
    if (n == 0)
        return pp_pc_stackset_intern(&f->seqs, NULL, 0, id);
    uint64_t small[64];
    uint64_t *seq = n <= 64 ? small : malloc((size_t)n * sizeof *seq);
    if (!seq)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        seq[i] = ids[n - 1 - i];
    int rc = pp_pc_stackset_intern(&f->seqs, seq, n, id);
    if (seq != small)
        free(seq);
    return rc;
}

uint32_t pp_alloc_folded_count(const pp_alloc_folded *f)
{
    return f->by_string ? f->strs.count : f->seqs.count;
}

const char *pp_alloc_folded_string(pp_alloc_folded *f, uint32_t id)
{
    if (f->by_string)
        return pp_pc_strtab_get(&f->strs, id);
    uint32_t n;
    const uint32_t *fr = pp_pc_stackset_frames(&f->seqs, id, &n);
    pp_pc_strbuf_clear(&f->buf);
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && pp_pc_strbuf_add(&f->buf, ";", 1) != PP_OK)
            return NULL;
        const char *name = pp_pc_strtab_get(f->names, (uint32_t)pp_pc_stackset_ip(&f->seqs, fr[i]));
        if (pp_pc_strbuf_adds(&f->buf, name) != PP_OK)
            return NULL;
    }
    return f->buf.data ? f->buf.data : "";
}

/* The characters of a folded string, one at a time, without building it. */
typedef struct cursor {
    const pp_alloc_folded *f;
    const uint32_t *fr;          /* sequence, or NULL for a literal */
    uint32_t n, i;               /* frames, current frame */
    const char *p;               /* in the current name (or the literal) */
} cursor;

static void cursor_seq(cursor *c, const pp_alloc_folded *f, uint32_t id)
{
    c->f = f;
    c->fr = pp_pc_stackset_frames(&f->seqs, id, &c->n);
    c->i = 0;
    c->p = c->n ? pp_pc_strtab_get(f->names, (uint32_t)pp_pc_stackset_ip(&f->seqs, c->fr[0])) : "";
}

/* The next byte (as unsigned), or 0 at the end of the string. */
static unsigned next_char(cursor *c)
{
    if (*c->p)
        return (unsigned char)*c->p++;
    if (!c->fr || c->i + 1 >= c->n)
        return 0;
    c->i++;
    c->p = pp_pc_strtab_get(c->f->names, (uint32_t)pp_pc_stackset_ip(&c->f->seqs, c->fr[c->i]));
    return ';';
}

static int cmp_cursors(cursor *x, cursor *y)
{
    for (;;) {
        unsigned a = next_char(x), b = next_char(y);
        if (a != b)
            return a < b ? -1 : 1;
        if (a == 0)
            return 0;
    }
}

int pp_alloc_folded_cmp(const pp_alloc_folded *f, uint32_t a, uint32_t b)
{
    if (f->by_string)
        return strcmp(pp_pc_strtab_get(&f->strs, a), pp_pc_strtab_get(&f->strs, b));
    cursor x, y;
    cursor_seq(&x, f, a);
    cursor_seq(&y, f, b);
    return cmp_cursors(&x, &y);
}

int pp_alloc_folded_cmp_lit(const pp_alloc_folded *f, const char *lit, uint32_t b)
{
    if (f->by_string)
        return strcmp(lit, pp_pc_strtab_get(&f->strs, b));
    cursor x = { f, NULL, 0, 0, lit }, y;
    cursor_seq(&y, f, b);
    return cmp_cursors(&x, &y);
}
