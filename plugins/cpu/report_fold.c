/* plugins/cpu: folded stacks. A folded stack is a distinct sequence of
 * frame names (root first, joined by ';'); it is kept as the name ids of a
 * stack that has it, and its string is made only for the rows emitted. A
 * name holding ';' could make two sequences one string: then the strings
 * are the key (r->folded_by_string). */
#include "report.h"

#include <string.h>

/* Walks a folded string (root first, frames joined by ';') without
 * building it, for ordering. */
typedef struct fold_cursor {
    const report *r;
    const uint32_t *frames; /* IP ids, leaf first */
    uint32_t left;          /* frames not yet started */
    const char *p;
} fold_cursor;

static void
fold_start(fold_cursor *k, const report *r, uint32_t stack)
{
    uint32_t depth;
    k->r = r;
    k->frames = pp_pc_stacks_frames32(&r->c->stacks, stack, &depth);
    k->left = depth;
    if (depth == 0) {
        k->p = NO_STACK_NAME;
        return;
    }
    k->left--;
    k->p = pp_pc_strtab_get(&r->names, r->ip_name[k->frames[k->left]]);
}

static int
fold_next(fold_cursor *k)
{
    if (*k->p)
        return (unsigned char)*k->p++;
    if (k->left == 0)
        return -1;
    k->left--;
    k->p = pp_pc_strtab_get(&k->r->names, k->r->ip_name[k->frames[k->left]]);
    return ';';
}

/* strcmp of two folded stacks' strings. */
int
pp_cpu_folded_cmp(const report *r, uint32_t a, uint32_t b)
{
    if (r->folded_by_string)
        return strcmp(pp_pc_strtab_get(&r->folded, a), pp_pc_strtab_get(&r->folded, b));
    fold_cursor x, y;
    fold_start(&x, r, r->folded_stack[a]);
    fold_start(&y, r, r->folded_stack[b]);
    for (;;) {
        int cx = fold_next(&x), cy = fold_next(&y);
        if (cx != cy)
            return cx < cy ? -1 : 1; /* the end (-1) sorts first, as NUL does */
        if (cx < 0)
            return 0;
    }
}

/* The folded string of stack s into r->buf. */
int
pp_cpu_fold_string(report *r, uint32_t s)
{
    fold_cursor k;
    int ch, rc = PP_OK;
    pp_pc_strbuf_clear(&r->buf);
    fold_start(&k, r, s);
    while (rc == PP_OK && (ch = fold_next(&k)) >= 0) {
        char cch = (char)ch;
        rc = pp_pc_strbuf_add(&r->buf, &cch, 1);
    }
    if (rc == PP_OK && !r->buf.data)
        rc = pp_pc_strbuf_add(&r->buf, "", 0);
    return rc;
}

static int
same_names(const report *r, uint32_t a, uint32_t b)
{
    uint32_t na, nb;
    const uint32_t *fa = pp_pc_stacks_frames32(&r->c->stacks, a, &na);
    const uint32_t *fb = pp_pc_stacks_frames32(&r->c->stacks, b, &nb);
    if (na != nb)
        return 0;
    for (uint32_t i = 0; i < na; i++)
        if (r->ip_name[fa[i]] != r->ip_name[fb[i]])
            return 0;
    return 1;
}

/* The folded id of stack s (a new one for a new name sequence). */
int
pp_cpu_fold_id(report *r, uint32_t s, uint32_t *out)
{
    if (r->folded_by_string) {
        int rc = pp_cpu_fold_string(r, s);
        return rc == PP_OK ? pp_pc_strtab_intern(&r->folded, r->buf.data, r->buf.len, out) : rc;
    }
    uint32_t depth;
    const uint32_t *fr = pp_pc_stacks_frames32(&r->c->stacks, s, &depth);
    uint64_t h = depth;
    for (uint32_t i = 0; i < depth; i++)
        h = pp_pc_hash_u64(h ^ r->ip_name[fr[i]]);
    uint32_t i = (uint32_t)h & (r->nfslots - 1);
    while (r->fslots[i]) {
        uint32_t f = r->fslots[i] - 1;
        if (same_names(r, r->folded_stack[f], s)) {
            *out = f;
            return PP_OK;
        }
        i = (i + 1) & (r->nfslots - 1);
    }
    r->folded_stack[r->nfolded] = s;
    r->fslots[i] = r->nfolded + 1;
    *out = r->nfolded++;
    return PP_OK;
}
