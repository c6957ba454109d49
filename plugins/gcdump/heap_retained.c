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
    if (hc_dom_core(s, 0, 0, &rpo, &rb, &d->ipre, &retained, &nr, NULL, NULL) != PP_OK)
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

/* The tree is walked in two parts at once. The second part is a run of
 * the children of one node, cut: those from preorder cut_from on, with
 * their subtrees. The first is the rest, from the root; the path from the
 * root to cut (the spine) is in both: the second starts with the spine's
 * keys open, and the first keeps the spine's sums apart, since they lack
 * the second part's bytes until both are done (walk_tree() adds them and
 * counts the spine then). Each part has figures of its own. */
typedef struct walk_job {
    const pp_heap_snapshot *s;
    const hc_keys *k;
    const uint8_t *rpo;
    unsigned rb;
    const uint32_t *first, *next;
    uint32_t c0;            /* the first subtree walked */
    int siblings;           /* and c0's later siblings too */
    uint32_t cut, cut_from; /* node index of cut (HC_NONE: no cut) */
    const uint32_t *spine;  /* [nspine] node indices, root first */
    uint32_t nspine;
    uint64_t *spine_sum; /* [nspine] their bytes in this part */
    uint32_t *open, *best;
    uint64_t *out, *best_bytes, sum;
    int rc;
} walk_job;

static inline void
keep_best(uint32_t *best, uint64_t *best_bytes, uint32_t key, uint32_t v, uint64_t r)
{
    /* The instance retaining the most; among equals the lowest node
     * index (what a scan in node order keeps). */
    if (best &&
        (best[key] == HC_NONE || r > best_bytes[key] || (r == best_bytes[key] && v < best[key]))) {
        best[key] = v;
        best_bytes[key] = r;
    }
}

/* Depth-first over the dominator tree keeping how many ancestors of each
 * key are open: a node is counted for its key when none is. */
static void
walk_range(void *arg)
{
    walk_job *j = arg;
    const pp_heap_snapshot *s = j->s;
    const hc_keys *k = j->k;
    uint32_t *open = j->open;
    size_t cap = 4096, sp = 0;
    sframe *st = malloc(cap * sizeof(*st));
    j->rc = PP_ENOMEM;
    if (!st)
        return;
    for (uint32_t top = j->c0; top != HC_NONE; top = j->siblings ? j->next[top] : HC_NONE) {
        uint32_t c = top;
        do {
            if (c != HC_NONE) { /* enter c */
                uint32_t v = hc_rpo_at(j->rpo, c, j->rb), ty, size;
                hc_node_type_size(s, v, &ty, &size);
                open[k->type_key[ty]]++;
                if (sp == cap) {
                    sframe *g = realloc(st, cap * 2 * sizeof(*g));
                    if (!g) {
                        free(st);
                        return;
                    }
                    st = g;
                    cap *= 2;
                }
                st[sp++] = (sframe){ j->first[c], v, size };
            } else { /* leave the top frame's node */
                sframe *f = &st[--sp];
                uint32_t v = f->node, key = key_of(s, k, v);
                uint64_t r = f->sum;
                if (sp < j->nspine && v == j->spine[sp])
                    j->spine_sum[sp] = r; /* counted by walk_tree() */
                else if (open[key] == 1)
                    j->out[key] += r;
                open[key]--;
                if (sp >= j->nspine || v != j->spine[sp])
                    keep_best(j->best, j->best_bytes, key, v, r);
                if (sp)
                    st[sp - 1].sum += r;
                else
                    j->sum += r;
            }
            if (sp) {
                sframe *f = &st[sp - 1];
                c = f->cur;
                if (c != HC_NONE && f->node == j->cut && c >= j->cut_from)
                    c = HC_NONE; /* the other part's */
                if (c != HC_NONE)
                    f->cur = j->next[c];
            }
        } while (sp);
    }
    free(st);
    j->rc = PP_OK;
}

/* Where to cut: down from the root into any child that dominates more
 * than half the nodes (size[], by preorder); there, the last children
 * that together hold at most half go to the second part (none: cut_from
 * HC_NONE). The spine is the path down (node indices). Returns its
 * length, or 0 on ENOMEM. */
static uint32_t
walk_cut(const walk_job *a, const uint32_t *size, uint32_t nr, uint32_t **spine, uint32_t *cut_pre,
         uint32_t *cut_from)
{
    uint32_t cur = 0, len = 0, half = nr / 2, big;
    size_t cap = 0;
    do {
        if (hc_stack_reserve((void **)spine, &cap, len, sizeof(uint32_t)) != PP_OK)
            return 0;
        (*spine)[len++] = hc_rpo_at(a->rpo, cur, a->rb);
        big = HC_NONE;
        for (uint32_t c = a->first[cur]; c != HC_NONE && big == HC_NONE; c = a->next[c])
            if (size[c] > half)
                big = c;
        if (big != HC_NONE)
            cur = big;
    } while (big != HC_NONE);
    uint32_t rest = size[cur] - 1;
    *cut_pre = cur;
    *cut_from = HC_NONE;
    for (uint32_t c = a->first[cur]; c != HC_NONE; c = a->next[c]) {
        if (rest <= half) {
            *cut_from = c;
            break;
        }
        rest -= size[c];
    }
    return len;
}

/* Figures of the second part into the first's: sums add, and the best
 * instance is the same total order (most bytes, then lowest index). */
static void
walk_merge(walk_job *a, const walk_job *b, uint32_t nkeys)
{
    for (uint32_t i = 0; i < nkeys; i++) {
        a->out[i] += b->out[i];
        if (b->best && b->best[i] != HC_NONE)
            keep_best(a->best, a->best_bytes, i, b->best[i], b->best_bytes[i]);
    }
}

/* Both parts, then the spine: each node's bytes are the first part's
 * plus all of the second's, counted for its key when no node above it on
 * the spine has that key. */
static int
walk_tree(walk_job *a, const uint32_t *size, uint32_t nr, uint64_t *reach_bytes)
{
    const hc_keys *k = a->k;
    uint32_t nk = k->nkeys ? k->nkeys : 1, cut_pre = 0, cut_from = 0, *spine = NULL;
    walk_job b = *a;
    b.open = calloc(nk, sizeof(uint32_t));
    b.out = calloc(nk, sizeof(uint64_t));
    b.best = a->best ? malloc(nk * sizeof(uint32_t)) : NULL;
    b.best_bytes = a->best ? malloc(nk * sizeof(uint64_t)) : NULL;
    uint32_t nspine = walk_cut(a, size, nr, &spine, &cut_pre, &cut_from);
    uint64_t *spine_sum = calloc(nspine ? nspine : 1, sizeof(uint64_t));
    int rc = PP_ENOMEM;
    if (!nspine || !spine_sum || !b.open || !b.out || (a->best && (!b.best || !b.best_bytes)))
        goto out;
    if (b.best)
        memset(b.best, 0xff, nk * sizeof(uint32_t));
    for (uint32_t d = 0; d < nspine; d++)
        b.open[key_of(a->s, k, spine[d])]++;
    b.c0 = cut_from; /* HC_NONE: the second part is empty */
    b.siblings = 1;
    b.cut = HC_NONE;
    b.nspine = 0;
    *a = (walk_job){ .s = a->s,
                     .k = k,
                     .rpo = a->rpo,
                     .rb = a->rb,
                     .first = a->first,
                     .next = a->next,
                     .c0 = 0,
                     .siblings = 0,
                     .cut = spine[nspine - 1],
                     .cut_from = cut_from,
                     .spine = spine,
                     .nspine = nspine,
                     .spine_sum = spine_sum,
                     .open = a->open,
                     .best = a->best,
                     .out = a->out,
                     .best_bytes = a->best_bytes };
    hc_run2(walk_range, a, &b, nr);
    if (a->rc != PP_OK || b.rc != PP_OK)
        goto out;
    walk_merge(a, &b, k->nkeys);
    for (uint32_t d = 0; d < nspine; d++) {
        uint32_t key = key_of(a->s, k, spine[d]), above = 0;
        uint64_t r = spine_sum[d] + b.sum;
        for (uint32_t e = 0; e < d && !above; e++)
            above = key_of(a->s, k, spine[e]) == key;
        if (!above)
            a->out[key] += r;
        keep_best(a->best, a->best_bytes, key, spine[d], r);
    }
    *reach_bytes = spine_sum[0] + b.sum;
    rc = PP_OK;
out:
    free(spine);
    free(spine_sum);
    free(b.open);
    free(b.out);
    free(b.best);
    free(b.best_bytes);
    return rc;
}

int
hc_retained_summary(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out, uint32_t *best,
                    uint64_t *reach_bytes, uint32_t *nreach, hc_spare *spare)
{
    return hc_retained_summary_beside(s, k, out, best, reach_bytes, nreach, spare, NULL, NULL);
}

int
hc_retained_summary_beside(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out,
                           uint32_t *best, uint64_t *reach_bytes, uint32_t *nreach, hc_spare *spare,
                           int (*beside)(void *), void *beside_arg)
{
    uint32_t *ipre, nr;
    uint8_t *rpo;
    unsigned rb;
    void *rpo_block;
    uint64_t *spare8;
    *reach_bytes = 0;
    *nreach = 0;
    /* rpo packed: the walk holds it beside the snapshot, the children
     * lists and the BFS tree (with the DFS's end, the run's peak), and 3
     * bytes a node there is 8 MB less on the bench heap. The lists come
     * from the pass (in spare8 and over ipre, built beside its last
     * steps); the retained sizes are summed on the way back up the walk,
     * so no node array holds them. */
    if (hc_dom_core(s, 1, 1, &rpo_block, &rb, &ipre, &spare8, &nr, beside, beside_arg) != PP_OK)
        return PP_ENOMEM;
    /* k is read from here on: beside may have built it. */
    uint32_t nk = k->nkeys ? k->nkeys : 1;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    rpo = rpo_block;
    size_t nn = s->node_count ? s->node_count : 1;
    uint32_t *first = (uint32_t *)(void *)spare8, *next = ipre, *size = first + nn;
    walk_job job = { .s = s,
                     .k = k,
                     .rpo = rpo,
                     .rb = rb,
                     .first = first,
                     .next = next,
                     .open = calloc(nk, sizeof(uint32_t)),
                     .best = best,
                     .out = out,
                     .best_bytes = best ? malloc(nk * sizeof(uint64_t)) : NULL };
    int rc = PP_ENOMEM;
    if (!job.open || (best && !job.best_bytes))
        goto out;
    if (best)
        for (uint32_t i = 0; i < k->nkeys; i++)
            best[i] = HC_NONE;
    if (nr && walk_tree(&job, size, nr, reach_bytes) != PP_OK)
        goto out;
    *nreach = nr;
    rc = PP_OK;
out:
    free(job.open);
    free(job.best_bytes);
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
    /* Dominator-tree children as lists (hc_dom_children: ipre holds the
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
    hc_dom_children(next, nr, first, NULL);
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
