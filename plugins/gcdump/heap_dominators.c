/* Dominator tree of a heap graph (heap_common.h): semi-NCA over the
 * graph's own CSR, in DFS preorder numbers. What is summed over the tree
 * is heap_retained.c's. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

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
    hc_frame *st = NULL;
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
    if (hc_push(&st, &cap, sp++, (hc_frame){ s->edge_start32[s->root], s->edge_start32[s->root + 1], 0 })) {
        free(vis);
        return 0;
    }
    while (sp) {
        hc_frame *f = &st[sp - 1];
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
            if (hc_push(&st, &cap, sp++, (hc_frame){ s->edge_start32[w], s->edge_start32[w + 1], pw })) {
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
int hc_dom_core(const pp_heap_snapshot *s, uint32_t **rpo_out, uint32_t **ipre_out,
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
