/* Dominator tree of a heap graph (heap_common.h): semi-NCA over the
 * graph's own CSR, in DFS preorder numbers. What is summed over the tree
 * is heap_retained.c's. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

static inline int
bit_get(const uint64_t *b, size_t i)
{
    return (int)(b[i >> 6] >> (i & 63)) & 1;
}
static inline void
bit_set(uint64_t *b, size_t i)
{
    b[i >> 6] |= (uint64_t)1 << (i & 63);
}

/* The DFS's pairs, (target, source) by preorder, are the DFS phase's
 * largest array (5.2 M on the bench heap): 3 bytes a number when every
 * preorder (and every rank fill_preds() writes over a target) is below
 * 2^24, i.e. up to 16,777,216 nodes, else 4. pre[] (node -> preorder)
 * takes the same width: the DFS's end is the run's peak, and 3 bytes a
 * node there is 8 MB less on the bench heap. Little-endian byte by byte,
 * so the width is one runtime value. */
static inline void
pair_put(uint8_t *p, uint32_t v, unsigned b)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    if (b == 4)
        p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t
pair_get(const uint8_t *p, unsigned b)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return b == 4 ? v | (uint32_t)p[3] << 24 : v;
}

/* Depth-first preorder from the root with DFS-tree parents. Most heap
 * objects have one referrer (92 % of the bench heap): the edge that first
 * reaches a node is its DFS-tree edge, and a node no other edge reaches has
 * its DFS parent as its only predecessor, hence as its semidominator. So
 * only the other edges are kept, as pairs (the target node, the source's
 * preorder; b bytes each, above: resolve_pairs() then turns the target
 * into its preorder and marks it in ismulti and isforest). isforest marks
 * the nodes with more than one DFS child too (forest_pass() says why).
 * rpo is coded as above, *rpo_len its bytes. Returns the number
 * of reachable nodes, or 0 on ENOMEM; *npairs is how many pairs were
 * written (at most the edge count minus one). */
static uint32_t
dfs(const pp_heap_snapshot *s, uint8_t *pre, uint8_t *rpo, size_t *rpo_len, uint32_t *parent,
    uint8_t *pairs, unsigned b, uint64_t *npairs, uint64_t *isforest)
{
    hc_frame *st = NULL;
    size_t cap = 0, sp = 0, len;
    uint32_t count = 0, last = s->root;
    uint64_t np = 0;
    /* Reached is a bitmap (1 bit a node stays in cache): pre[] is only
     * written here, which does not stall. */
    uint64_t *vis = calloc((size_t)s->node_count / 64 + 1, sizeof(uint64_t));
    if (!vis)
        return 0;
    bit_set(vis, s->root);
    pair_put(pre + (size_t)s->root * b, count, b);
    len = hc_delta_put(rpo, 0, 0, s->root);
    parent[count++] = HC_NONE;
    if (hc_push(&st, &cap, sp++,
                (hc_frame){ s->edge_start32[s->root], s->edge_start32[s->root + 1], 0 })) {
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
        /* Ask for the next sibling's edge range while this one is looked at. */
        if (e + 1 < f->end)
            __builtin_prefetch(&s->edge_start32[s->edges[e + 1]]);
        uint32_t w = s->edges[e], pw;
        if (!bit_get(vis, w)) {
            bit_set(vis, w);
            pw = count;
            pair_put(pre + (size_t)w * b, pw, b);
            len = hc_delta_put(rpo, len, last, w);
            last = w;
            /* A node's first DFS child comes right after it in preorder:
             * any later one makes it a branch. */
            if (pw != f->pre + 1)
                bit_set(isforest, f->pre);
            parent[count++] = f->pre;
            if (hc_push(&st, &cap, sp++,
                        (hc_frame){ s->edge_start32[w], s->edge_start32[w + 1], pw })) {
                free(st);
                free(vis);
                return 0;
            }
        } else if (w != s->root) { /* the root needs no predecessors */
            /* The target's preorder waits for resolve_pairs(): read here,
             * pre[w] was a dependent miss on every such edge (a third of
             * the walk on the bench heap). */
            pair_put(pairs + np * 2 * b, w, b);
            pair_put(pairs + np * 2 * b + b, f->pre, b);
            np++;
        }
    }
    free(st);
    free(vis);
    *npairs = np;
    *rpo_len = len;
    return count;
}

/* The pairs' targets from node to preorder, in one pass whose reads of
 * pre[] do not wait on each other; marks them in ismulti. One job is a
 * range of the pairs and a bitmap of its own (resolve_pairs() ORs them). */
typedef struct resolve_job {
    const uint8_t *pre;
    uint8_t *pairs;
    unsigned b;
    uint64_t lo, hi;
    uint64_t *ismulti;
} resolve_job;

static void
resolve_range(void *arg)
{
    enum { AHEAD = 32 };
    const resolve_job *j = arg;
    unsigned b = j->b;
    for (uint64_t i = j->lo; i < j->hi; i++) {
        if (i + AHEAD < j->hi)
            __builtin_prefetch(j->pre + (size_t)pair_get(j->pairs + (i + AHEAD) * 2 * b, b) * b);
        uint8_t *p = j->pairs + i * 2 * b;
        uint32_t pw = pair_get(j->pre + (size_t)pair_get(p, b) * b, b);
        pair_put(p, pw, b);
        bit_set(j->ismulti, pw);
    }
}

/* Both halves of the pairs at once (the reads of pre[] are the pass's
 * misses); every multi node is a forest node too. */
static int
resolve_pairs(const uint8_t *pre, uint8_t *pairs, unsigned b, uint64_t np, size_t words,
              uint64_t *ismulti, uint64_t *isforest)
{
    uint64_t *second = calloc(words, sizeof(uint64_t));
    if (!second)
        return PP_ENOMEM;
    resolve_job ja = { pre, pairs, b, 0, np / 2, ismulti },
                jb = { pre, pairs, b, np / 2, np, second };
    hc_run2(resolve_range, &ja, &jb, np);
    for (size_t i = 0; i < words; i++) {
        ismulti[i] |= second[i];
        isforest[i] |= ismulti[i];
    }
    free(second);
    return PP_OK;
}

/* Bits set in x. Without -mpopcnt, __builtin_popcountll is a call into
 * libgcc (a byte table, 8 rounds): 1.3-2.3 % of a retained=true run on the
 * bench heap, for ~13 M ranks; this is a dozen inline operations. */
static inline uint32_t
popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Rank of the marked preorder numbers: rank[i] = how many are below 64 * i. */
static uint32_t
multi_rank(const uint64_t *ismulti, size_t words, uint32_t *rank)
{
    uint32_t r = 0;
    for (size_t i = 0; i < words; i++) {
        rank[i] = r;
        r += popcount64(ismulti[i]);
    }
    return r;
}

static inline uint32_t
rank_of(const uint64_t *ismulti, const uint32_t *rank, uint32_t t)
{
    uint64_t below = ismulti[t >> 6] & (((uint64_t)1 << (t & 63)) - 1);
    return rank[t >> 6] + popcount64(below);
}

/* Predecessor lists (beyond the DFS parent) of the marked nodes, by rank
 * from the top (a counting sort of the pairs, whose targets become
 * q = nmulti - 1 - rank on the way): preds[pstart[q] .. pstart[q + 1]).
 * Highest rank first is the order the semidominators go, so they read the
 * lists in one forward sweep. The order within a list does not matter
 * (semidominators take a minimum); it is the pairs' order all the same:
 * the two halves of the pairs are counted and placed side by side, the
 * second's entries of a list after the first's. */
typedef struct fill_job {
    uint8_t *pairs;
    unsigned b;
    uint64_t lo, hi;
    const uint64_t *ismulti;
    const uint32_t *rank;
    uint32_t nmulti;
    uint32_t *at;    /* [q]: this half's count, then its next slot */
    uint32_t *preds; /* NULL while counting */
} fill_job;

static void
fill_range(void *arg)
{
    const fill_job *j = arg;
    unsigned b = j->b;
    if (!j->preds) {
        for (uint64_t i = j->lo; i < j->hi; i++) {
            uint8_t *p = j->pairs + i * 2 * b;
            uint32_t q = j->nmulti - 1 - rank_of(j->ismulti, j->rank, pair_get(p, b));
            pair_put(p, q, b); /* once, kept */
            j->at[q]++;
        }
        return;
    }
    for (uint64_t i = j->lo; i < j->hi; i++)
        j->preds[j->at[pair_get(j->pairs + i * 2 * b, b)]++] = pair_get(j->pairs + i * 2 * b + b,
                                                                        b);
}

static int
fill_preds(uint8_t *pairs, unsigned b, uint64_t np, const uint64_t *ismulti, const uint32_t *rank,
           uint32_t nmulti, uint32_t *pstart, uint32_t *preds)
{
    uint32_t *second = calloc((size_t)nmulti + 1, sizeof(uint32_t));
    if (!second)
        return PP_ENOMEM;
    memset(pstart, 0, ((size_t)nmulti + 2) * sizeof(uint32_t));
    fill_job ja = { pairs, b, 0, np / 2, ismulti, rank, nmulti, pstart + 1, NULL },
             jb = { pairs, b, np / 2, np, ismulti, rank, nmulti, second, NULL };
    hc_run2(fill_range, &ja, &jb, np);
    /* pstart[q + 1] becomes the first half's next slot in list q, second[q]
     * the second's (the first's count read before its slot is written). */
    uint32_t run = 0;
    for (uint32_t q = 0; q < nmulti; q++) {
        uint32_t na = pstart[(size_t)q + 1], nb = second[q];
        pstart[(size_t)q + 1] = run;
        second[q] = run + na;
        run += na + nb;
    }
    ja.preds = jb.preds = preds;
    hc_run2(fill_range, &ja, &jb, np);
    /* The second half's slots end where each list does. */
    for (uint32_t q = 0; q < nmulti; q++)
        pstart[(size_t)q + 1] = second[q];
    pstart[0] = 0;
    pstart[(size_t)nmulti + 1] = run;
    free(second);
    return PP_OK;
}

/* Highest marked index below t (one is known to be there). */
static inline uint32_t
prev_marked(const uint64_t *b, uint32_t t)
{
    size_t i = t >> 6;
    uint64_t w = b[i] & (((uint64_t)1 << (t & 63)) - 1);
    while (!w)
        w = b[--i];
    return (uint32_t)(i * 64 + 63 - (unsigned)__builtin_clzll(w));
}

/* The semidominators need the link-eval forest over the forest nodes only
 * (multi-referrer or DFS-branch nodes; 28 % of the bench heap), by
 * Lengauer-Tarjan's sdom(w) = min of parent(w), of every predecessor
 * v < w, and of sdom(u) for every u > w on the DFS-tree path up from a
 * predecessor v > w (the path P: v and its ancestors above w). A node u
 * outside the forest has its parent as its only predecessor, so sdom(u) =
 * parent(u); when that parent is on P too, sdom(parent) < parent = sdom(u),
 * and u cannot be the minimum. What is left of P is its forest nodes and
 * its top x, whose parent a is the deepest ancestor of v not above w:
 * a = NCA(v, w), so a = w or a has two DFS children, and either way a is a
 * forest node. Hence the minimum over P is that over P's forest nodes and,
 * when x is not one, a:
 * - no forest node on P: a is v's nearest forest ancestor, F(v) <= w, a
 *   candidate like a predecessor below w (fold_preds() takes both);
 * - else, each forest node f carries lab(f) = min(sdom(f), its forest
 *   parent): for f below P's top forest node fk the parent is on P (> w
 *   > parent(w), the answer's bound: no effect), for fk it is a (needed,
 *   or >= sdom(fk) when x = fk). lab(f) is fixed when f is linked, so
 *   path compression over the forest computes the minimum as usual.
 * fp[p] is the nearest forest node strictly above p (HC_NONE: none), for
 * every reachable p; cand[q] starts as the parent of the q-th multi node
 * from the top, and fmulti marks the multi nodes by forest index
 * (1-based): forest_pass() below. */
typedef struct forest_job {
    uint32_t lo, hi; /* preorders [lo, hi) */
    uint32_t fi, r;  /* forest and multi nodes below lo */
    int later;       /* a parent below lo may not have its fp yet */
    const uint32_t *parent;
    const uint64_t *ismulti, *isforest;
    uint32_t nmulti;
    uint32_t *fp, *cand;
    uint64_t *fmulti;
} forest_job;

#define FP_LATER (HC_NONE - 1) /* fp not known in its half: set after both */

static void
forest_range(void *arg)
{
    const forest_job *j = arg;
    const uint64_t *isforest = j->isforest;
    uint32_t *fp = j->fp, fi = j->fi, r = j->r;
    for (uint32_t p = j->lo; p < j->hi; p++) {
        uint32_t a = j->parent[p];
        fp[p] = bit_get(isforest, a) ? a : j->later && a < j->lo ? FP_LATER : fp[a];
        if (bit_get(isforest, p)) {
            fi++;
            if (bit_get(j->ismulti, p)) {
                bit_set(j->fmulti, fi);
                j->cand[j->nmulti - 1 - r++] = a;
            }
        }
    }
}

/* In two halves at once (mid, a multiple of 64: each half's counts below
 * it are ranks). A node outside the forest has at most one DFS child, the
 * next preorder, so the second half's first nodes are the only ones whose
 * fp the first half decides: a run from mid, all FP_LATER, which takes
 * fp[mid - 1]. The second half marks its multi nodes in a bitmap of its
 * own (the halves' bits may share a word). */
static void
forest_pass(uint32_t nr, const uint32_t *parent, const uint64_t *ismulti, const uint64_t *isforest,
            const uint32_t *frank, uint32_t nf, uint32_t nmulti, uint32_t *fp, uint32_t *cand,
            uint64_t *fmulti)
{
    size_t fwords = (size_t)nf / 64 + 2;
    uint32_t mid = nr / 2 / 64 * 64;
    uint64_t *fm_b = mid > 1 && nr < FP_LATER ? calloc(fwords, sizeof(uint64_t)) : NULL;
    if (!fm_b)
        mid = nr;
    fp[0] = HC_NONE;
    uint32_t r0 = 0;
    for (uint32_t i = 0; i < mid / 64; i++)
        r0 += popcount64(ismulti[i]);
    forest_job ja = { 1,       mid,      bit_get(isforest, 0),
                      0,       0,        parent,
                      ismulti, isforest, nmulti,
                      fp,      cand,     fmulti },
               jb = { mid,     nr,       fm_b ? frank[mid / 64] : 0,
                      r0,      1,        parent,
                      ismulti, isforest, nmulti,
                      fp,      cand,     fm_b ? fm_b : fmulti };
    hc_run2(forest_range, &ja, &jb, fm_b ? nr : 0);
    if (!fm_b)
        return;
    for (uint32_t p = mid; p < nr && fp[p] == FP_LATER; p++)
        fp[p] = fp[mid - 1];
    for (size_t i = 0; i < fwords; i++)
        fmulti[i] |= fm_b[i];
    free(fm_b);
}

/* Rewrites each multi node's predecessor list (fill_preds: sources by
 * preorder) to what the semidominators read: a source below the target,
 * or a source above whose nearest forest node F(v) is not above it, is a
 * candidate (folded into cand); any other becomes F(v)'s forest index
 * (1-based), always above the target's. Lists shrink in place. One job is
 * the lists q0 .. q1 (t: past the target of q0), written from where q0's
 * began (*out: where they end) up to hi, q1's end, read before any job ran:
 * pstart[q1] is the next job's to write. */
typedef struct fold_job {
    uint32_t t, q0, q1, hi, out;
    const uint64_t *ismulti, *isforest;
    const uint32_t *frank, *fp;
    uint32_t *pstart, *preds, *cand;
} fold_job;

static void
fold_range(void *arg)
{
    fold_job *j = arg;
    const uint64_t *isforest = j->isforest;
    const uint32_t *fp = j->fp;
    uint32_t *preds = j->preds, t = j->t, out = j->pstart[j->q0], end = j->hi;
    for (uint32_t q = j->q0; q < j->q1; q++) {
        t = prev_marked(j->ismulti, t);
        uint32_t lo = j->pstart[q], hi = q + 1 == j->q1 ? end : j->pstart[q + 1], c = j->cand[q];
        j->pstart[q] = out;
        for (uint32_t k = lo; k < hi; k++) {
            /* fp[] is read at random, and little else is done a source:
             * ask for the slots 64 ahead (16: 53 ms, 64: 39 on the bench
             * heap, medians of 4). */
            if (k + 64 < end)
                __builtin_prefetch(&fp[preds[k + 64]]);
            uint32_t v = preds[k];
            if (v > t) {
                v = bit_get(isforest, v) ? v : fp[v];
                if (v > t && v != HC_NONE) { /* HC_NONE: not above t, see above */
                    preds[out++] = rank_of(isforest, j->frank, v) + 1;
                    continue;
                }
            }
            if (v < c)
                c = v;
        }
        j->cand[q] = c;
    }
    j->out = out;
}

/* The r-th marked index (from 0; one is known to be there). */
static uint32_t
nth_marked(const uint64_t *b, uint32_t r)
{
    size_t i = 0;
    for (uint32_t c; r >= (c = popcount64(b[i])); i++)
        r -= c;
    uint64_t w = b[i];
    while (r--)
        w &= w - 1;
    return (uint32_t)(i * 64 + (unsigned)__builtin_ctzll(w));
}

/* The lists in two jobs of about as many sources each; the second's then
 * move down to follow the first's. */
static void
fold_preds(uint32_t nr, const uint64_t *ismulti, const uint64_t *isforest, const uint32_t *frank,
           const uint32_t *fp, uint32_t nmulti, uint32_t *pstart, uint32_t *preds, uint32_t *cand)
{
    uint32_t np = pstart[nmulti], qh = 0, top = nmulti;
    while (qh < top) { /* the first list that starts past half the sources */
        uint32_t mid = qh + (top - qh) / 2;
        if (pstart[mid] < np / 2)
            qh = mid + 1;
        else
            top = mid;
    }
    fold_job ja = { nr, 0, qh, pstart[qh], 0, ismulti, isforest, frank, fp, pstart, preds, cand },
             jb = ja;
    jb.q0 = qh;
    jb.q1 = nmulti;
    jb.hi = np;
    jb.t = qh < nmulti ? nth_marked(ismulti, nmulti - 1 - qh) + 1 : 0;
    uint32_t base = pstart[qh];
    hc_run2(fold_range, &ja, &jb, np);
    memmove(preds + ja.out, preds + base, (size_t)(jb.out - base) * sizeof(uint32_t));
    for (uint32_t q = qh; q < nmulti; q++)
        pstart[q] -= base - ja.out;
    pstart[nmulti] = jb.out - (base - ja.out);
}

enum { ANC = 0, LAB = 1 };

/* The forest, al[i] = { ancestor, label } by forest index i (1-based, 0:
 * none), built in fp's block (of *bytes, updated): first each forest
 * node's forest parent moves to its index (in place: index <= preorder),
 * then the block grows if it must and the pairs are widened from the top.
 * The ancestor starts as the forest parent, the label as lab() above without the sdom term (that of
 * a multi node is added when it is reached); only the first forest node
 * can lack a forest parent, and its label is its DFS parent. Returns the
 * block (fp is then gone) or NULL (fp still the caller's). */
static uint32_t (*build_forest(uint32_t *fp, size_t *bytes, const uint64_t *isforest,
                               const uint32_t *frank, size_t words, const uint32_t *parent,
                               uint32_t nf))[2]
{
    uint32_t fi = 0, lab0 = HC_NONE;
    for (size_t i = 0; i < words; i++)
        for (uint64_t b = isforest[i]; b; b &= b - 1) {
            uint32_t p = (uint32_t)(i * 64 + (unsigned)__builtin_ctzll(b));
            if (!fi)
                lab0 = p ? parent[p] : HC_NONE;
            fp[fi++] = fp[p];
        }
    size_t need = ((size_t)nf + 1) * sizeof(uint32_t[2]);
    uint32_t(*al)[2] = (uint32_t(*)[2])(void *)(need <= *bytes ? fp : realloc(fp, need));
    if (!al)
        return NULL;
    if (need > *bytes)
        *bytes = need;
    uint32_t *fpar = (uint32_t *)(void *)al;
    for (uint32_t i = nf; i >= 1; i--) {
        uint32_t up = fpar[i - 1];
        al[i][ANC] = up == HC_NONE ? 0 : rank_of(isforest, frank, up) + 1;
        al[i][LAB] = up == HC_NONE ? lab0 : up;
    }
    al[0][ANC] = 0; /* unused: 0 is "none" */
    al[0][LAB] = HC_NONE;
    return al;
}

/* Semidominators of the multi nodes, from the top (forest index nf down),
 * with link-eval path compression over the forest: going down, the forest
 * nodes linked so far are exactly those above the current one, so "u is
 * linked" is u > i and no array says it; al[u][LAB] is then the least lab
 * on u's compressed path. cand[q] becomes the q-th one's semidominator. */
static int
semidominators(uint32_t nf, const uint64_t *fmulti, uint32_t nmulti, const uint32_t *pstart,
               const uint32_t *preds, uint32_t *cand, uint32_t (*al)[2])
{
    uint32_t *path = malloc(((size_t)nf + 1) * sizeof(uint32_t)); /* touched as deep as used */
    if (!path)
        return PP_ENOMEM;
    uint32_t q = 0, np = pstart[nmulti];
    for (uint32_t i = nf; i >= 1; i--) {
        if (!bit_get(fmulti, i))
            continue;
        uint32_t sw = cand[q], end = pstart[q + 1];
        for (uint32_t k = pstart[q]; k < end; k++) {
            /* The lists are read in one sweep, the nodes they name are
             * scattered: ask for those a few ahead too. */
            if (k + 16 < np)
                __builtin_prefetch(&al[preds[k + 16]]);
            uint32_t v = preds[k], x = v, top = 0;
            while (al[x][ANC] > i) {
                path[top++] = x;
                x = al[x][ANC];
            }
            while (top) {
                uint32_t y = path[--top], a = al[y][ANC];
                if (al[a][LAB] < al[y][LAB])
                    al[y][LAB] = al[a][LAB];
                al[y][ANC] = al[a][ANC];
            }
            if (al[v][LAB] < sw)
                sw = al[v][LAB];
        }
        cand[q++] = sw;
        if (sw < al[i][LAB])
            al[i][LAB] = sw;
    }
    free(path);
    return PP_OK;
}

/* The pass's last steps two at a time (hc_run2 runs one function). */
typedef struct side_job {
    int what;            /* SIDE_* */
    uint32_t nf, nmulti; /* SIDE_SEMI: the semidominators */
    const uint64_t *fmulti;
    const uint32_t *pstart, *preds;
    uint32_t *cand;
    uint32_t (*al)[2];
    int rc;
    uint32_t *ipre_next, *first, *size, nr; /* SIDE_ONES, SIDE_CHILDREN (size set
                                                first unless ones_done) */
    int ones_done;
    const uint8_t *rpo8; /* SIDE_RPO */
    uint8_t *rpo;
    unsigned width;
    int (*beside)(void *); /* SIDE_ONES: then this (may be NULL), */
    void *beside_arg;      /* its PP_OK or not in rc */
} side_job;

enum { SIDE_SEMI, SIDE_ONES, SIDE_CHILDREN, SIDE_RPO };

static void
side_run(void *p)
{
    side_job *j = p;
    switch (j->what) {
    case SIDE_SEMI:
        j->rc = semidominators(j->nf, j->fmulti, j->nmulti, j->pstart, j->preds, j->cand, j->al);
        break;
    case SIDE_ONES:
        if (j->size)
            hc_set_ones(j->size, j->nr);
        j->rc = j->beside ? j->beside(j->beside_arg) : PP_OK;
        break;
    case SIDE_CHILDREN:
        if (!j->ones_done)
            hc_set_ones(j->size, j->nr);
        hc_dom_children_sized(j->ipre_next, j->nr, j->first, j->size);
        break;
    case SIDE_RPO: hc_rpo_decode(j->rpo8, j->nr, j->rpo, j->width); break;
    }
}

/* Immediate dominators: the nearest DFS ancestor not below the
 * semidominator; parent[w] becomes idom[w] in place (x < w is done). A
 * node with one predecessor keeps its parent. */
static void
set_idoms(uint32_t *parent, const uint64_t *ismulti, size_t words, const uint32_t *cand,
          uint32_t nmulti)
{
    parent[0] = 0;
    uint32_t r = nmulti;
    for (size_t i = 0; i < words; i++)
        for (uint64_t b = ismulti[i]; b; b &= b - 1) {
            uint32_t w = (uint32_t)(i * 64 + (unsigned)__builtin_ctzll(b));
            uint32_t x = parent[w], sw = cand[--r];
            while (x > sw)
                x = parent[x];
            parent[w] = x;
        }
}

/* The preorder's decode, and with ipre_next (else NULL) beside it the
 * children's lists: their heads in first (al's block, done with), their
 * links over the idoms. */
static void
decode_and_lists(const uint8_t *rpo8, uint8_t *rpo, unsigned width, uint32_t nr,
                 uint32_t *ipre_next, uint32_t *first, uint32_t *size, int ones_done)
{
    side_job dec = { .what = SIDE_RPO, .rpo8 = rpo8, .rpo = rpo, .width = width, .nr = nr };
    if (!ipre_next) {
        side_run(&dec);
        return;
    }
    side_job ch = { .what = SIDE_CHILDREN,
                    .ipre_next = ipre_next,
                    .first = first,
                    .size = size,
                    .nr = nr,
                    .ones_done = ones_done };
    hc_run2(side_run, &ch, &dec, nr);
}

/* Semi-NCA (Georgiadis; Lengauer-Tarjan's semidominators, then nearest
 * common ancestors on the DFS tree): O(m log n), iterative throughout.
 * Work arrays are indexed by preorder number and freed (or taken over) as
 * soon as the next phase no longer needs them. The peak is the DFS's:
 * pre (3 bytes a node, 4 past 2^24 nodes), parent (4), rpo coded (~1 byte
 * a node), and 6 bytes (8) an edge that is not a DFS-tree edge; the semidominators need
 * parent, rpo coded, 4 bytes such an edge and 8 a forest node (in the
 * pairs' block, kept at its size for the caller). Returns the
 * preorder (*rpo, preorder -> node), the immediate dominators by preorder
 * (*ipre), and a buffer for the caller's next phase: *spare8, n u64 plus
 * 16 bytes (its start already touched). All three are the caller's. */
int
hc_dom_core(const pp_heap_snapshot *s, int packed, int lists, void **rpo_out,
            unsigned *rpo_bytes_out, uint32_t **ipre_out, uint64_t **spare8, uint32_t *nreach,
            int (*beside)(void *), void *beside_arg)
{
    uint32_t n = s->node_count, nr, nmulti, nf;
    size_t nn = n ? n : 1, words = nn / 64 + 1, rpo_len = 0;
    uint64_t np = 0, m = s->edge_count, maxpairs = m ? m : 1;
    uint32_t *pstart = NULL, *preds = NULL, *cand = NULL, *parent = NULL, *rank = NULL, *fp = NULL;
    uint8_t *rpo8 = NULL, *rpo = NULL;
    void *block = NULL;
    uint32_t(*al)[2] = NULL;
    uint8_t *pairs = NULL, *pre = NULL;
    unsigned pb = n <= (1u << 24) ? 3 : 4; /* bytes a pair's number */
    unsigned rpo_bytes = packed ? pb : 4;
    uint64_t *ismulti = NULL, *isforest = NULL, *fmulti = NULL;
    /* Reserved for the worst case, touched only as far as written. */
    rpo8 = malloc(nn * HC_DELTA_MAX_BYTES);
    parent = malloc(nn * sizeof(uint32_t));    /* later: idom, by preorder */
    pre = malloc(nn * pb);                     /* node -> preorder, pb bytes */
    pairs = malloc(maxpairs * 2 * pb);         /* likewise */
    ismulti = calloc(words, sizeof(uint64_t)); /* by preorder */
    isforest = calloc(words, sizeof(uint64_t));
    if (!rpo8 || !parent || !pre || !pairs || !ismulti || !isforest)
        goto oom;
    if (!(nr = dfs(s, pre, rpo8, &rpo_len, parent, pairs, pb, &np, isforest)))
        goto oom;
    if (resolve_pairs(pre, pairs, pb, np, words, ismulti, isforest) != PP_OK)
        goto oom;
    uint8_t *shrunk = realloc(rpo8, rpo_len);
    if (shrunk)
        rpo8 = shrunk;
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
    cand = malloc(((size_t)nmulti + 1) * sizeof(uint32_t));
    if (!pstart || !cand)
        goto oom;
    if (fill_preds(pairs, pb, np, ismulti, rank, nmulti, pstart, preds) != PP_OK)
        goto oom;
    /* Fresh pages cost a fault and a clear each: the pairs' block (6 or
     * 8 bytes an edge, touched as far as the DFS wrote) holds fp, then the
     * forest, then goes to the caller, never shrunk on the way: the
     * caller's n u64 would fault in again what a shrink gave back (on
     * the bench heap 22 MB: 5.6 k faults; the semidominators then hold
     * 106 MB instead of 84, still the smaller phase). */
    size_t fp_bytes = maxpairs * 2 * pb;
    if (fp_bytes < nn * sizeof(uint32_t)) {
        if (!(fp = realloc(pairs, nn * sizeof(uint32_t))))
            goto oom;
        fp_bytes = nn * sizeof(uint32_t);
    } else {
        fp = (uint32_t *)(void *)pairs;
    }
    pairs = NULL;
    nf = multi_rank(isforest, words, rank); /* rank: now the forest's */
    if (!(fmulti = calloc((size_t)nf / 64 + 2, sizeof(uint64_t))))
        goto oom;
    forest_pass(nr, parent, ismulti, isforest, rank, nf, nmulti, fp, cand, fmulti);
    fold_preds(nr, ismulti, isforest, rank, fp, nmulti, pstart, preds, cand);
    if (!(al = build_forest(fp, &fp_bytes, isforest, rank, words, parent, nf)))
        goto oom;
    fp = NULL;
    free(rank);
    rank = NULL;
    /* With lists, the caller's block now (al moves into it): its second
     * half, the subtree sizes, is set beside the semidominators when al
     * leaves it alone (its pages are fresh: the faults go there too). */
    size_t block_bytes = nn * sizeof(uint64_t) + 16;
    uint32_t *size = NULL;
    int ones_beside = 0;
    if (lists) {
        void *g = realloc(al, block_bytes);
        if (!g)
            goto oom;
        al = (uint32_t(*)[2])g;
        size = (uint32_t *)g + nn;
        ones_beside = ((size_t)nf + 1) * sizeof(uint32_t[2]) <= nn * sizeof(uint32_t);
    }
    side_job semi = { .what = SIDE_SEMI,
                      .nf = nf,
                      .nmulti = nmulti,
                      .fmulti = fmulti,
                      .pstart = pstart,
                      .preds = preds,
                      .cand = cand,
                      .al = al },
             ones = { .what = SIDE_ONES,
                      .size = ones_beside ? size : NULL,
                      .nr = nr,
                      .beside = beside,
                      .beside_arg = beside_arg };
    hc_run2(side_run, &semi, &ones, ones_beside || beside ? nr : 0); /* 0: one after the other */
    if (semi.rc != PP_OK || ones.rc != PP_OK)
        goto oom;
    free(pstart);
    free(fmulti);
    pstart = NULL;
    fmulti = NULL;
    set_idoms(parent, ismulti, words, cand, nmulti);
    free(cand);
    free(ismulti);
    free(isforest);
    cand = NULL;
    ismulti = isforest = NULL;
    /* The outputs take over the blocks already touched. */
    if (!(rpo = realloc(preds, nn * rpo_bytes)))
        goto oom;
    preds = NULL;
    decode_and_lists(rpo8, rpo, rpo_bytes, nr, lists ? parent : NULL, (uint32_t *)(void *)al, size,
                     ones_beside);
    if (lists)
        block = al;
    free(rpo8);
    rpo8 = NULL;
    if (!lists && !(block = realloc(al, block_bytes)))
        goto oom;
    *rpo_out = rpo;
    *rpo_bytes_out = rpo_bytes;
    *ipre_out = parent;
    *spare8 = block; /* from malloc: aligned for u64 */
    *nreach = nr;
    return PP_OK;
oom:
    free(rpo8);
    free(pre);
    free(pairs);
    free(ismulti);
    free(isforest);
    free(fmulti);
    free(rank);
    free(pstart);
    free(preds);
    free(cand);
    free(fp);
    free(al);
    free(parent);
    free(rpo);
    return PP_ENOMEM;
}
