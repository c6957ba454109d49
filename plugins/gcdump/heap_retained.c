/* Retained sizes over the dominator tree (heap_common.h): the whole tree
 * for callers that need per-node figures, or per-key sums in one walk for
 * those that need only the table. The tree itself is heap_dominators.c's. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

void
hc_dom_free(hc_dom *d)
{
    free(d->idom);
    free(d->retained);
    free(d->rpo);
    free(d->ipre);
    memset(d, 0, sizeof(*d));
}

int
hc_dominators(const pp_heap_snapshot *s, hc_dom *d)
{
    memset(d, 0, sizeof(*d));
    uint32_t n = s->node_count, nr;
    size_t nn = n ? n : 1;
    uint64_t *retained;
    void *rpo;
    unsigned rb;
    if (hc_dom_core(s, 0, &rpo, &rb, &d->ipre, &retained, &nr) != PP_OK)
        return PP_ENOMEM;
    /* After the pass, not beside it: its peak is the larger. */
    uint32_t *idom = malloc(nn * sizeof(uint32_t));
    if (!idom) {
        free(rpo);
        free(d->ipre);
        free(retained);
        d->ipre = NULL;
        return PP_ENOMEM;
    }
    d->rpo = rpo; /* not packed: 4 bytes an entry */
    d->n = n;
    d->nreach = nr;
    d->idom = idom;
    d->retained = retained;
    memset(d->retained, 0, nn * sizeof(uint64_t));
    memset(d->idom, 0xff, nn * sizeof(uint32_t));
    for (uint32_t w = 0; w < nr; w++)
        d->idom[d->rpo[w]] = d->rpo[d->ipre[w]];
    /* Subtree sizes: a dominator precedes what it dominates in preorder. */
    for (uint32_t w = nr; w-- > 0;) {
        uint32_t v = d->rpo[w];
        d->retained[v] += hc_node_size(s, v);
        if (w)
            d->retained[d->rpo[d->ipre[w]]] += d->retained[v];
    }
    return PP_OK;
}

/* Dominator-tree children as lists over preorder numbers: first[p] is p's
 * first child, and next[w], written over ipre[w] (read here for the last
 * time), w's next sibling; HC_NONE ends a list. Children come in ascending
 * preorder, as a counting sort into CSR gives them, but in 4 bytes a node
 * instead of CSR's 8, which (with ipre still held) made the run's peak. */
static void
dom_children(uint32_t *ipre_next, uint32_t nr, uint32_t *first)
{
    memset(first, 0xff, (nr ? nr : 1) * sizeof(uint32_t));
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t p = ipre_next[w];
        ipre_next[w] = first[p];
        first[p] = w;
    }
    if (nr)
        ipre_next[0] = HC_NONE;
}

/* 16 bytes: the walk goes as deep as the heap's longest dominator chain
 * (a 400 k-node list on the bench heap: 6 MB of frames, where the key
 * beside them took 9.6 MB at the run's peak). The key is looked up again
 * when the frame is popped. */
typedef struct sframe {
    uint32_t cur; /* next child, HC_NONE after the last */
    uint32_t node;
    uint64_t sum; /* its retained bytes so far */
} sframe;

static inline uint32_t
key_of(const pp_heap_snapshot *s, const hc_keys *k, uint32_t v)
{
    return k->type_key[hc_node_type(s, v)];
}

int
hc_retained_summary(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out, uint32_t *best,
                    uint64_t *reach_bytes, uint32_t *nreach, hc_spare *spare)
{
    uint32_t *ipre, nr;
    uint8_t *rpo;
    unsigned rb;
    void *rpo_block;
    uint64_t *spare8;
    uint32_t nk = k->nkeys ? k->nkeys : 1;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    *reach_bytes = 0;
    *nreach = 0;
    /* rpo packed: the walk holds it beside the snapshot, the children
     * lists and the BFS tree (with the DFS's end, the run's peak), and 3
     * bytes a node there is 8 MB less on the bench heap. */
    if (hc_dom_core(s, 1, &rpo_block, &rb, &ipre, &spare8, &nr) != PP_OK)
        return PP_ENOMEM;
    rpo = rpo_block;
    /* The children's heads take the buffer the dominators are done with,
     * their links ipre; the retained sizes are summed on the way back up
     * the walk, so no node array holds them. */
    size_t nn = s->node_count ? s->node_count : 1;
    uint32_t *first = (uint32_t *)(void *)spare8, *next = ipre;
    dom_children(next, nr, first);
    uint32_t *open = calloc(nk, sizeof(uint32_t));
    uint64_t *best_bytes = best ? malloc(nk * sizeof(uint64_t)) : NULL;
    sframe *st = NULL;
    size_t cap = 0, sp = 0;
    int rc = PP_ENOMEM;
    if (!open || (best && !best_bytes))
        goto out;
    if (best)
        for (uint32_t i = 0; i < k->nkeys; i++)
            best[i] = HC_NONE;
    /* Depth-first over the dominator tree keeping how many ancestors of
     * each key are open: a node is counted for its key when none is. */
    if (nr) {
        cap = 4096;
        if (!(st = malloc(cap * sizeof(*st))))
            goto out;
        uint32_t v = hc_rpo_at(rpo, 0, rb), ty, size;
        hc_node_type_size(s, v, &ty, &size);
        open[k->type_key[ty]]++;
        st[sp++] = (sframe){ first[0], v, size };
    }
    while (sp) {
        sframe *f = &st[sp - 1];
        if (f->cur == HC_NONE) {
            uint32_t v = f->node, key = key_of(s, k, v);
            uint64_t r = f->sum;
            if (open[key] == 1)
                out[key] += r;
            open[key]--;
            /* The instance retaining the most; among equals the lowest
             * node index (what a scan in node order keeps). */
            if (best && (best[key] == HC_NONE || r > best_bytes[key] ||
                         (r == best_bytes[key] && v < best[key]))) {
                best[key] = v;
                best_bytes[key] = r;
            }
            if (--sp)
                st[sp - 1].sum += r;
            else
                *reach_bytes = r;
            continue;
        }
        uint32_t c = f->cur, v = hc_rpo_at(rpo, c, rb), ty, size;
        f->cur = next[c];
        hc_node_type_size(s, v, &ty, &size);
        open[k->type_key[ty]]++;
        if (sp == cap) {
            sframe *g = realloc(st, cap * 2 * sizeof(*g));
            if (!g)
                goto out;
            st = g;
            cap *= 2;
        }
        st[sp++] = (sframe){ first[c], v, size };
    }
    *nreach = nr;
    rc = PP_OK;
out:
    free(st);
    free(open);
    free(best_bytes);
    free(ipre);
    if (spare && rc == PP_OK) {
        /* Fresh pages cost a fault and a clear each: the caller's next
         * pass can take these instead. */
        hc_spare_put(spare, rpo, nn * rb);
        hc_spare_put(spare, spare8, nn * sizeof(uint64_t) + 16);
    } else {
        free(rpo);
        free(spare8);
    }
    return rc;
}

int
hc_retained_by_key(const pp_heap_snapshot *s, const hc_dom *d, const hc_keys *k, uint64_t *out)
{
    uint32_t nr = d->nreach;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    /* Dominator-tree children as lists (dom_children: ipre holds the
     * sibling links during the walk, and is given back after), then a
     * depth-first walk keeping how many ancestors of each key are open.
     * 4 bytes a node instead of CSR's 8: gcdump-diff holds the candidate's
     * whole dominator tree here, its peak beside the two snapshots. */
    uint32_t *first = malloc((nr ? nr : 1) * sizeof(uint32_t));
    uint32_t *open = calloc(k->nkeys ? k->nkeys : 1, sizeof(uint32_t));
    uint32_t *next = d->ipre;
    hc_frame *st = NULL;
    size_t cap = 0, sp = 0;
    int rc = PP_ENOMEM;
    if (!first || !open) {
        free(first);
        free(open);
        return PP_ENOMEM;
    }
    dom_children(next, nr, first);
#define KEY_OF(p) k->type_key[hc_node_type(s, d->rpo[p])]
    if (nr) {
        uint32_t key = KEY_OF(0);
        out[key] += d->retained[d->rpo[0]];
        open[key]++;
        if (hc_push(&st, &cap, sp++, (hc_frame){ first[0], 0, 0 }))
            goto out;
    }
    while (sp) {
        hc_frame *f = &st[sp - 1];
        if (f->cur == HC_NONE) {
            open[KEY_OF(f->pre)]--;
            sp--;
            continue;
        }
        uint32_t c = f->cur;
        f->cur = next[c];
        uint32_t key = KEY_OF(c);
        if (!open[key])
            out[key] += d->retained[d->rpo[c]];
        open[key]++;
        if (hc_push(&st, &cap, sp++, (hc_frame){ first[c], 0, c }))
            goto out;
    }
#undef KEY_OF
    rc = PP_OK;
out:
    /* ipre back from the lists: each child's parent is the list's head. */
    for (uint32_t p = 0; p < nr; p++)
        for (uint32_t c = first[p]; c != HC_NONE;) {
            uint32_t sib = next[c];
            next[c] = p;
            c = sib;
        }
    if (nr)
        next[0] = 0;
    free(st);
    free(first);
    free(open);
    return rc;
}
