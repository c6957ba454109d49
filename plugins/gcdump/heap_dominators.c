/* Dominator tree and retained sizes of a heap graph (heap_common.h):
 * semi-NCA over the graph's own CSR, in DFS preorder numbers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

void hc_dom_free(hc_dom *d)
{
    free(d->idom);
    free(d->retained);
    free(d->rpo);
    free(d->ipre);
    memset(d, 0, sizeof(*d));
}

/* A stack that grows as deep as the walk goes: heaps hold lists millions
 * deep, but most walks stay shallow, so only what is pushed is touched. */
typedef struct frame {
    uint64_t cur, end;           /* next edge (or child) and the end of the range */
    uint32_t pre;                /* preorder number of the node being scanned */
} frame;

static int push(frame **st, size_t *cap, size_t sp, frame f)
{
    if (sp == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4096;
        frame *g = realloc(*st, ncap * sizeof(*g));
        if (!g)
            return PP_ENOMEM;
        *st = g;
        *cap = ncap;
    }
    (*st)[sp] = f;
    return PP_OK;
}

static inline int bit_get(const uint64_t *b, size_t i) { return (int)(b[i >> 6] >> (i & 63)) & 1; }
static inline void bit_set(uint64_t *b, size_t i) { b[i >> 6] |= (uint64_t)1 << (i & 63); }

/* Depth-first preorder from the root with DFS-tree parents. Most heap
 * objects have one referrer (92 % of the bench heap): the edge that first
 * reaches a node is its DFS-tree edge, and a node no other edge reaches has
 * its DFS parent as its only predecessor, hence as its semidominator. So
 * only the other edges are kept, as pairs (preorder of the target, of the
 * source), and ismulti[t] marks the targets they reach. Returns the number
 * of reachable nodes, or 0 on ENOMEM; *npairs is how many pairs were
 * written (at most the edge count minus one). */
static uint32_t dfs(const pp_heap_snapshot *s, uint32_t *pre, uint32_t *rpo, uint32_t *parent,
                    uint32_t (*pairs)[2], uint64_t *npairs, uint64_t *ismulti)
{
    frame *st = NULL;
    size_t cap = 0, sp = 0;
    uint32_t count = 0;
    uint64_t np = 0;
    pre[s->root] = count;
    rpo[count] = s->root;
    parent[count++] = HC_NONE;
    if (push(&st, &cap, sp++, (frame){ s->edge_start32[s->root], s->edge_start32[s->root + 1], 0 }))
        return 0;
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->cur == f->end) {
            sp--;
            continue;
        }
        uint64_t e = f->cur++;
        /* The walk is bound by the latency of pre[]: ask for the next
         * sibling's slot while this one is looked at. */
        if (e + 1 < f->end) {
            __builtin_prefetch(&pre[s->edges[e + 1]]);
            __builtin_prefetch(&s->edge_start32[s->edges[e + 1]]);
        }
        uint32_t w = s->edges[e], pw = pre[w];
        if (pw == HC_NONE) {
            pw = pre[w] = count;
            rpo[count] = w;
            parent[count++] = f->pre;
            if (push(&st, &cap, sp++, (frame){ s->edge_start32[w], s->edge_start32[w + 1], pw })) {
                free(st);
                return 0;
            }
        } else if (pw != 0) {    /* the root needs no predecessors */
            pairs[np][0] = pw;
            pairs[np++][1] = f->pre;
            bit_set(ismulti, pw);
        }
    }
    free(st);
    *npairs = np;
    return count;
}

/* Rank of the marked preorder numbers: rank[i] = how many are below 64 * i. */
static uint32_t multi_rank(const uint64_t *ismulti, size_t words, uint32_t *rank)
{
    uint32_t r = 0;
    for (size_t i = 0; i < words; i++) {
        rank[i] = r;
        r += (uint32_t)__builtin_popcountll(ismulti[i]);
    }
    return r;
}

static inline uint32_t rank_of(const uint64_t *ismulti, const uint32_t *rank, uint32_t t)
{
    uint64_t below = ismulti[t >> 6] & (((uint64_t)1 << (t & 63)) - 1);
    return rank[t >> 6] + (uint32_t)__builtin_popcountll(below);
}

/* Predecessor lists (beyond the DFS parent) of the marked nodes, by rank (a
 * counting sort of the pairs, whose targets become their ranks on the
 * way): preds[pstart[r] .. pstart[r + 1]). The order within a list does not
 * matter: semidominators take a minimum. */
static void fill_preds(uint32_t (*pairs)[2], uint64_t np, const uint64_t *ismulti,
                       const uint32_t *rank, uint32_t nmulti, uint32_t *pstart, uint32_t *preds)
{
    memset(pstart, 0, ((size_t)nmulti + 2) * sizeof(uint32_t));
    for (uint64_t i = 0; i < np; i++) {
        pairs[i][0] = rank_of(ismulti, rank, pairs[i][0]);   /* once, kept */
        pstart[(size_t)pairs[i][0] + 2]++;
    }
    for (uint32_t i = 0; i < nmulti; i++)
        pstart[(size_t)i + 2] += pstart[(size_t)i + 1];
    for (uint64_t i = 0; i < np; i++)
        preds[pstart[(size_t)pairs[i][0] + 1]++] = pairs[i][1];
}

/* Semidominators in reverse preorder, with link-eval path compression.
 * lab[y] is the least semidominator on y's compressed path (what the
 * textbook reaches through label[y]); only the value is ever needed. Every
 * node's DFS parent is a predecessor (not linked yet, so it counts as
 * itself); the pairs hold the others. */
static int semidominators(uint32_t nr, const uint64_t *ismulti, uint32_t nmulti,
                          const uint32_t *pstart, const uint32_t *preds,
                          const uint32_t *parent, uint32_t *semi, uint32_t *lab, uint32_t *anc)
{
    uint32_t *path = malloc((nr ? nr : 1) * sizeof(uint32_t));   /* touched as deep as used */
    if (!path)
        return PP_ENOMEM;
    /* lab is only read for linked nodes and semi only written below 0. */
    memset(anc, 0xff, (size_t)nr * sizeof(uint32_t));
    if (nr)
        semi[0] = lab[0] = 0;
    uint32_t r = nmulti;         /* rank of the next marked node going down */
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t sw = parent[w];
        if (bit_get(ismulti, w)) {
            r--;
            for (uint32_t k = pstart[r]; k < pstart[r + 1]; k++) {
                if (k + 4 < pstart[r + 1])
                    __builtin_prefetch(&anc[preds[k + 4]]);
                uint32_t v = preds[k], val = v;
                if (anc[v] != HC_NONE) {
                    uint32_t x = v, top = 0;
                    while (anc[anc[x]] != HC_NONE) {
                        path[top++] = x;
                        x = anc[x];
                    }
                    while (top) {
                        uint32_t y = path[--top], a = anc[y];
                        if (lab[a] < lab[y])
                            lab[y] = lab[a];
                        anc[y] = anc[a];
                    }
                    val = lab[v];
                }
                if (val < sw)
                    sw = val;
            }
        }
        semi[w] = lab[w] = sw;
        anc[w] = parent[w];
    }
    free(path);
    return PP_OK;
}

/* Semi-NCA (Georgiadis; Lengauer-Tarjan's semidominators, then nearest
 * common ancestors on the DFS tree): O(m log n), iterative throughout.
 * Work arrays are indexed by preorder number and freed (or taken over) as
 * soon as the next phase no longer needs them: the peak is five 4-byte
 * node arrays plus 4 bytes an edge that is not a DFS-tree edge (8 while
 * the DFS records them) beyond the outputs. */
int hc_dominators(const pp_heap_snapshot *s, hc_dom *d)
{
    memset(d, 0, sizeof(*d));
    uint32_t n = s->node_count, nr, nmulti;
    size_t nn = n ? n : 1, words = nn / 64 + 1;
    uint64_t np = 0, m = s->edge_count, maxpairs = m ? m : 1;
    uint32_t *pre = NULL, *pstart = NULL, *preds = NULL, *semi = NULL, *lab = NULL,
             *anc = NULL, *parent = NULL, *rank = NULL, *block = NULL;
    uint32_t (*pairs)[2] = NULL;
    uint64_t *ismulti = NULL;
    d->n = n;
    d->rpo = malloc(nn * sizeof(uint32_t));              /* preorder -> node */
    parent = malloc(nn * sizeof(uint32_t));              /* later: idom, by preorder */
    pre = malloc(nn * sizeof(uint32_t));                 /* node -> preorder */
    /* Sized for every edge, touched only as far as the DFS writes. */
    pairs = malloc(maxpairs * sizeof(*pairs));
    ismulti = calloc(words, sizeof(uint64_t));           /* by preorder */
    if (!d->rpo || !parent || !pre || !pairs || !ismulti)
        goto oom;
    memset(pre, 0xff, nn * sizeof(uint32_t));
    if (!(nr = dfs(s, pre, d->rpo, parent, pairs, &np, ismulti)))
        goto oom;
    d->nreach = nr;
    rank = malloc(words * sizeof(uint32_t));
    if (!rank)
        goto oom;
    nmulti = multi_rank(ismulti, words, rank);
    pstart = malloc(((size_t)nmulti + 2) * sizeof(uint32_t));
    preds = malloc((np ? np : 1) * sizeof(uint32_t));
    if (!pstart || !preds)
        goto oom;
    fill_preds(pairs, np, ismulti, rank, nmulti, pstart, preds);
    free(rank);
    rank = NULL;
    /* Fresh pages cost a fault and a clear each: the next phases take over
     * the buffers of the last. pre holds semi, then the node-indexed idom;
     * the pairs' block (8 bytes an edge, reserved, touched as far as the
     * DFS wrote) holds lab and anc, then the retained sizes. */
    semi = pre;
    pre = NULL;
    if (maxpairs >= nn && (block = realloc(pairs, nn * sizeof(uint64_t))) != NULL) {
        pairs = NULL;            /* shrunk in place: the tail goes back */
    } else {
        free(pairs);
        pairs = NULL;
        block = malloc(nn * sizeof(uint64_t));
    }
    lab = block;
    anc = block ? block + nn : NULL;
    if (!block ||
        semidominators(nr, ismulti, nmulti, pstart, preds, parent, semi, lab, anc) != PP_OK)
        goto oom;
    free(preds);
    free(pstart);
    free(ismulti);
    preds = pstart = NULL;
    ismulti = NULL;
    lab = anc = NULL;            /* block stays, for the retained sizes */
    /* Immediate dominators: the nearest DFS ancestor not below the
     * semidominator; parent[w] becomes idom[w] in place (x < w is done). */
    parent[0] = 0;
    for (uint32_t w = 1; w < nr; w++) {
        uint32_t x = parent[w];
        while (x > semi[w])
            x = parent[x];
        parent[w] = x;
    }
    d->idom = semi;
    semi = NULL;
    d->ipre = parent;
    parent = NULL;
    d->retained = (uint64_t *)(void *)block;   /* from malloc: aligned for u64 */
    block = NULL;
    memset(d->retained, 0, nn * sizeof(uint64_t));
    memset(d->idom, 0xff, nn * sizeof(uint32_t));
    for (uint32_t w = 0; w < nr; w++)
        d->idom[d->rpo[w]] = d->rpo[d->ipre[w]];
    /* Subtree sizes: a dominator precedes what it dominates in preorder. */
    for (uint32_t w = nr; w-- > 0;) {
        uint32_t v = d->rpo[w];
        d->retained[v] += s->node_size32[v];
        if (w)
            d->retained[d->rpo[d->ipre[w]]] += d->retained[v];
    }
    return PP_OK;
oom:
    free(pre);
    free(pairs);
    free(ismulti);
    free(rank);
    free(pstart);
    free(preds);
    free(semi);
    free(block);
    free(parent);
    hc_dom_free(d);
    return PP_ENOMEM;
}

int hc_retained_by_key(const pp_heap_snapshot *s, const hc_dom *d, const hc_keys *k,
                       uint64_t *out)
{
    uint32_t nr = d->nreach;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    /* Dominator-tree children in CSR over preorder numbers (the same count,
     * prefix, fill as fill_preds), then a depth-first walk keeping how many
     * ancestors of each key are open. */
    uint32_t *cstart = calloc((size_t)nr + 2, sizeof(uint32_t));
    uint32_t *child = malloc((nr ? nr : 1) * sizeof(uint32_t));
    uint32_t *open = calloc(k->nkeys ? k->nkeys : 1, sizeof(uint32_t));
    frame *st = NULL;
    size_t cap = 0, sp = 0;
    int rc = PP_ENOMEM;
    if (!cstart || !child || !open)
        goto out;
    for (uint32_t w = 1; w < nr; w++)
        cstart[(size_t)d->ipre[w] + 2]++;
    for (uint32_t i = 0; i + 2 <= nr + 1; i++)
        cstart[i + 2] += cstart[i + 1];
    for (uint32_t w = 1; w < nr; w++)
        child[cstart[(size_t)d->ipre[w] + 1]++] = w;
#define KEY_OF(p) k->type_key[s->node_type[d->rpo[p]]]
    if (nr) {
        uint32_t key = KEY_OF(0);
        out[key] += d->retained[d->rpo[0]];
        open[key]++;
        if (push(&st, &cap, sp++, (frame){ cstart[0], cstart[1], 0 }))
            goto out;
    }
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->cur == f->end) {
            open[KEY_OF(f->pre)]--;
            sp--;
            continue;
        }
        uint32_t c = child[f->cur++];
        uint32_t key = KEY_OF(c);
        if (!open[key])
            out[key] += d->retained[d->rpo[c]];
        open[key]++;
        if (push(&st, &cap, sp++, (frame){ cstart[c], cstart[(size_t)c + 1], c }))
            goto out;
    }
#undef KEY_OF
    rc = PP_OK;
out:
    free(st);
    free(cstart);
    free(child);
    free(open);
    return rc;
}
