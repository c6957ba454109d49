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
    uint32_t cur, end;           /* next edge (or child) and the end of the range
                                    (edge_start32: edge indices fit) */
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
    /* Reached is a bitmap (1 bit a node stays in cache): pre[] is then
     * read only for the edges into a node already reached, and written,
     * which does not stall, for the others (most edges: the tree's). */
    uint64_t *vis = calloc((size_t)s->node_count / 64 + 1, sizeof(uint64_t));
    if (!vis)
        return 0;
    bit_set(vis, s->root);
    pre[s->root] = count;
    rpo[count] = s->root;
    parent[count++] = HC_NONE;
    if (push(&st, &cap, sp++, (frame){ s->edge_start32[s->root], s->edge_start32[s->root + 1], 0 })) {
        free(vis);
        return 0;
    }
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
        uint32_t w = s->edges[e], pw;
        if (!bit_get(vis, w)) {
            bit_set(vis, w);
            pw = pre[w] = count;
            rpo[count] = w;
            parent[count++] = f->pre;
            if (push(&st, &cap, sp++, (frame){ s->edge_start32[w], s->edge_start32[w + 1], pw })) {
                free(st);
                free(vis);
                return 0;
            }
        } else if ((pw = pre[w]) != 0) {    /* the root needs no predecessors */
            pairs[np][0] = pw;
            pairs[np++][1] = f->pre;
            bit_set(ismulti, pw);
        }
    }
    free(st);
    free(vis);
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

/* Predecessor lists (beyond the DFS parent) of the marked nodes, by rank
 * from the top (a counting sort of the pairs, whose targets become
 * q = nmulti - 1 - rank on the way): preds[pstart[q] .. pstart[q + 1]).
 * Highest rank first is the order the semidominators go, so they read the
 * lists in one forward sweep. The order within a list does not matter:
 * semidominators take a minimum. */
static void fill_preds(uint32_t (*pairs)[2], uint64_t np, const uint64_t *ismulti,
                       const uint32_t *rank, uint32_t nmulti, uint32_t *pstart, uint32_t *preds)
{
    memset(pstart, 0, ((size_t)nmulti + 2) * sizeof(uint32_t));
    for (uint64_t i = 0; i < np; i++) {
        pairs[i][0] = nmulti - 1 - rank_of(ismulti, rank, pairs[i][0]);   /* once, kept */
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
                          const uint32_t *parent, uint32_t *semi_r, uint32_t (*al)[2])
{
    uint32_t *path = malloc((nr ? nr : 1) * sizeof(uint32_t));   /* touched as deep as used */
    if (!path)
        return PP_ENOMEM;
    /* al[v] = { ancestor, label } side by side: the compression reads
     * both of every node it passes, one cache line instead of two. Going
     * down in preorder, the nodes linked so far are exactly those above
     * w, so "v is linked" is v > w and no array says it. */
    enum { ANC = 0, LAB = 1 };
    uint32_t r = nmulti;         /* rank of the next marked node going down */
    uint32_t np = pstart[nmulti];
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t sw = parent[w];
        if (bit_get(ismulti, w)) {
            uint32_t q = nmulti - r--;
            for (uint32_t k = pstart[q]; k < pstart[q + 1]; k++) {
                /* The lists are read in one sweep, the nodes they name
                 * are scattered: ask for those a few lists ahead too. */
                if (k + 16 < np)
                    __builtin_prefetch(&al[preds[k + 16]]);
                uint32_t v = preds[k], val = v;
                if (v > w) {
                    uint32_t x = v, top = 0;
                    while (al[x][ANC] > w) {
                        path[top++] = x;
                        x = al[x][ANC];
                    }
                    while (top) {
                        uint32_t y = path[--top], a = al[y][ANC];
                        if (al[a][LAB] < al[y][LAB])
                            al[y][LAB] = al[a][LAB];
                        al[y][ANC] = al[a][ANC];
                    }
                    val = al[v][LAB];
                }
                if (val < sw)
                    sw = val;
            }
        }
        /* A node with one predecessor has its DFS parent as its
         * semidominator: only the others are stored, by rank. */
        if (bit_get(ismulti, w))
            semi_r[r] = sw;
        al[w][LAB] = sw;
        al[w][ANC] = parent[w];
    }
    free(path);
    return PP_OK;
}

/* Semi-NCA (Georgiadis; Lengauer-Tarjan's semidominators, then nearest
 * common ancestors on the DFS tree): O(m log n), iterative throughout.
 * Work arrays are indexed by preorder number and freed (or taken over) as
 * soon as the next phase no longer needs them: the peak is five 4-byte
 * node arrays plus 4 bytes an edge that is not a DFS-tree edge (8 while
 * the DFS records them). Returns the preorder (*rpo, preorder -> node),
 * the immediate dominators by preorder (*ipre), and the buffer the last
 * phase no longer needs, for the caller's next one: *spare8, n u64 plus
 * 16 bytes. All three are the caller's. */
static int dom_core(const pp_heap_snapshot *s, uint32_t **rpo_out, uint32_t **ipre_out,
                    uint64_t **spare8, uint32_t *nreach)
{
    uint32_t n = s->node_count, nr, nmulti;
    size_t nn = n ? n : 1, words = nn / 64 + 1;
    uint64_t np = 0, m = s->edge_count, maxpairs = m ? m : 1;
    uint32_t *pre = NULL, *pstart = NULL, *preds = NULL, *semi_r = NULL, *parent = NULL,
             *rank = NULL, *block = NULL, *rpo = NULL;
    size_t block_bytes = nn * sizeof(uint64_t) + 16;
    uint32_t (*pairs)[2] = NULL;
    uint64_t *ismulti = NULL;
    rpo = malloc(nn * sizeof(uint32_t));                 /* preorder -> node */
    parent = malloc(nn * sizeof(uint32_t));              /* later: idom, by preorder */
    pre = malloc(nn * sizeof(uint32_t));                 /* node -> preorder */
    /* Sized for every edge, touched only as far as the DFS writes. */
    pairs = malloc(maxpairs * sizeof(*pairs));
    ismulti = calloc(words, sizeof(uint64_t));           /* by preorder */
    if (!rpo || !parent || !pre || !pairs || !ismulti)
        goto oom;
    if (!(nr = dfs(s, pre, rpo, parent, pairs, &np, ismulti)))
        goto oom;
    /* What follows is by preorder: pre[] becomes the predecessor lists,
     * whose pages are then already there (a heap has fewer edges outside
     * the DFS tree than nodes, so the block shrinks in place). */
    preds = realloc(pre, (np ? np : 1) * sizeof(uint32_t));
    if (!preds)
        goto oom;
    pre = NULL;
    rank = malloc(words * sizeof(uint32_t));
    if (!rank)
        goto oom;
    nmulti = multi_rank(ismulti, words, rank);
    pstart = malloc(((size_t)nmulti + 2) * sizeof(uint32_t));
    semi_r = malloc(((size_t)nmulti + 1) * sizeof(uint32_t));
    if (!pstart || !preds || !semi_r)
        goto oom;
    fill_preds(pairs, np, ismulti, rank, nmulti, pstart, preds);
    free(rank);
    rank = NULL;
    /* Fresh pages cost a fault and a clear each: the next phases take over
     * the buffers of the last. The pairs' block (8 bytes an edge,
     * reserved, touched as far as the DFS wrote) holds lab and anc, then
     * goes to the caller. */
    if (maxpairs * sizeof(*pairs) >= block_bytes &&
        (block = realloc(pairs, block_bytes)) != NULL) {
        pairs = NULL;            /* shrunk in place: the tail goes back */
    } else {
        free(pairs);
        pairs = NULL;
        block = malloc(block_bytes);
    }
    if (!block ||
        semidominators(nr, ismulti, nmulti, pstart, preds, parent, semi_r,
                       (uint32_t (*)[2])(void *)block) != PP_OK)
        goto oom;
    free(preds);
    free(pstart);
    preds = pstart = NULL;
    /* Immediate dominators: the nearest DFS ancestor not below the
     * semidominator; parent[w] becomes idom[w] in place (x < w is done).
     * A node with one predecessor keeps its parent. */
    parent[0] = 0;
    for (uint32_t w = 1, r = 0; w < nr; w++) {
        if (!bit_get(ismulti, w))
            continue;
        uint32_t x = parent[w], sw = semi_r[r++];
        while (x > sw)
            x = parent[x];
        parent[w] = x;
    }
    free(semi_r);
    free(ismulti);
    *rpo_out = rpo;
    *ipre_out = parent;
    *spare8 = (uint64_t *)(void *)block;   /* from malloc: aligned for u64 */
    *nreach = nr;
    return PP_OK;
oom:
    free(pre);
    free(pairs);
    free(ismulti);
    free(rank);
    free(pstart);
    free(preds);
    free(semi_r);
    free(block);
    free(parent);
    free(rpo);
    return PP_ENOMEM;
}

int hc_dominators(const pp_heap_snapshot *s, hc_dom *d)
{
    memset(d, 0, sizeof(*d));
    uint32_t n = s->node_count, nr;
    size_t nn = n ? n : 1;
    uint32_t *idom = malloc(nn * sizeof(uint32_t));
    uint64_t *retained;
    if (!idom || dom_core(s, &d->rpo, &d->ipre, &retained, &nr) != PP_OK) {
        free(idom);
        return PP_ENOMEM;
    }
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
        d->retained[v] += s->node_size32[v];
        if (w)
            d->retained[d->rpo[d->ipre[w]]] += d->retained[v];
    }
    return PP_OK;
}

/* Dominator-tree children in CSR over preorder numbers (a counting sort,
 * as fill_preds): child[cstart[p] .. cstart[p + 1]) in preorder. cstart
 * has nr + 2 slots. */
static void dom_children(const uint32_t *ipre, uint32_t nr, uint32_t *cstart, uint32_t *child)
{
    memset(cstart, 0, ((size_t)nr + 2) * sizeof(uint32_t));
    for (uint32_t w = 1; w < nr; w++)
        cstart[(size_t)ipre[w] + 2]++;
    for (uint32_t i = 0; i + 2 <= nr + 1; i++)
        cstart[i + 2] += cstart[i + 1];
    for (uint32_t w = 1; w < nr; w++)
        child[cstart[(size_t)ipre[w] + 1]++] = w;
}

typedef struct sframe {
    uint32_t cur, end;           /* next child and the end of the range */
    uint32_t node, key;          /* the node and its key, looked up once */
    uint64_t sum;                /* its retained bytes so far */
} sframe;

int hc_retained_summary(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out,
                        uint32_t *best, uint64_t *reach_bytes, uint32_t *nreach,
                        hc_spare *spare)
{
    uint32_t *rpo, *ipre, nr;
    uint64_t *spare8;
    uint32_t nk = k->nkeys ? k->nkeys : 1;
    memset(out, 0, k->nkeys * sizeof(uint64_t));
    *reach_bytes = 0;
    *nreach = 0;
    if (dom_core(s, &rpo, &ipre, &spare8, &nr) != PP_OK)
        return PP_ENOMEM;
    /* The children take the buffer the dominators are done with (n + 4
     * u32 slots a half); the retained sizes are summed on the way back up
     * the walk, so no node array holds them. */
    size_t nn = s->node_count ? s->node_count : 1;
    uint32_t *child = (uint32_t *)(void *)spare8, *cstart = child + nn;
    dom_children(ipre, nr, cstart, child);
    free(ipre);
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
#define KEY_OF(v) k->type_key[s->node_type[v]]
    /* Depth-first over the dominator tree keeping how many ancestors of
     * each key are open: a node is counted for its key when none is. */
    if (nr) {
        cap = 4096;
        if (!(st = malloc(cap * sizeof(*st))))
            goto out;
        uint32_t v = rpo[0], key = KEY_OF(v);
        open[key]++;
        st[sp++] = (sframe){ cstart[0], cstart[1], v, key, s->node_size32[v] };
    }
    while (sp) {
        sframe *f = &st[sp - 1];
        if (f->cur == f->end) {
            uint32_t v = f->node, key = f->key;
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
        uint32_t c = child[f->cur++], v = rpo[c], key = KEY_OF(v);
        open[key]++;
        if (sp == cap) {
            sframe *g = realloc(st, cap * 2 * sizeof(*g));
            if (!g)
                goto out;
            st = g;
            cap *= 2;
        }
        st[sp++] = (sframe){ cstart[c], cstart[(size_t)c + 1], v, key, s->node_size32[v] };
    }
#undef KEY_OF
    *nreach = nr;
    rc = PP_OK;
out:
    free(st);
    free(open);
    free(best_bytes);
    if (spare && rc == PP_OK) {
        /* Fresh pages cost a fault and a clear each: the caller's next
         * pass can take these instead. */
        hc_spare_put(spare, rpo, nn * sizeof(uint32_t));
        hc_spare_put(spare, spare8, nn * sizeof(uint64_t) + 16);
    } else {
        free(rpo);
        free(spare8);
    }
    return rc;
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
