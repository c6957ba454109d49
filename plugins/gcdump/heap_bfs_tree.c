/* The whole breadth-first tree from the root, built on a thread of its own
 * beside the dominator pass (heap_common.h), then asked for the paths of a
 * few nodes.
 *
 * The sample paths need a shortest path to each top type's instance that
 * retains the most, known only once the dominator tree is summed. The
 * search that stopped at those targets (run after them) reached 86 % of the
 * bench heap anyway and took 0.13 s of a 0.79 s run after the dominators,
 * with the second core idle throughout. Run whole and ahead of time, the
 * tree must stay small while the dominator pass holds its peak: the queue
 * is kept delta-coded (about a byte a node), and the parents as one bit
 * string, since a node's parent is the node at the head of the queue when
 * it was appended: per dequeued node, a 1 for each node it appends, then
 * a 0 (2 bits a node). The parent of the node at queue position q is then
 * the number of 0s before the q-th 1. */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "heap_common.h"

/* Every CK-th queue entry is written whole, and its offset kept. */
enum { CK = 256, RANK_WORDS = 8 };

static inline int
bit_get(const uint64_t *b, size_t i)
{
    return (int)(b[i >> 6] >> (i & 63)) & 1;
}

/* The search itself: the discipline of hc_bfs_parents (edges in CSR order,
 * each node appended when first seen), so every parent is the one it sets. */
static int
build(hc_bfs_tree *t)
{
    const pp_heap_snapshot *s = t->s;
    uint32_t n = s->node_count;
    size_t words = (size_t)n / 64 + 1;
    uint64_t *seen = calloc(words, sizeof(uint64_t));
    /* Reserved for the worst case, touched only as far as written. */
    uint8_t *q = malloc((size_t)n * HC_DELTA_MAX_BYTES + HC_DELTA_MAX_BYTES);
    size_t *ck = malloc(((size_t)n / CK + 1) * sizeof(size_t));
    uint64_t *up = malloc((2 * (size_t)n / 64 + 2) * sizeof(uint64_t));
    if (!seen || !q || !ck || !up) {
        free(seen);
        free(q);
        free(ck);
        free(up);
        return PP_ENOMEM;
    }
    /* The entries between the head and 16 ahead, decoded once: the edge
     * ranges of the nodes ahead are fetched while the head's are read. */
    uint32_t ring[32];
    size_t len = 0, rd = 0, nbits = 0;
    uint32_t tail = 0, ahead = 0, head = 0, last = 0, rprev = 0;
    uint64_t word = 0;
    seen[s->root >> 6] |= (uint64_t)1 << (s->root & 63);
    ck[0] = 0;
    len = hc_delta_put_abs(q, 0, s->root);
    last = s->root;
    tail = 1;
    while (head < tail) {
        if ((head & 0xffff) == 0 && atomic_load_explicit(&t->abort, memory_order_relaxed))
            break;
        while (ahead < tail && ahead < head + 16) {
            rprev = hc_delta_get(q, &rd, rprev);
            ring[ahead & 31] = rprev;
            __builtin_prefetch(&s->edge_start32[rprev]);
            ahead++;
        }
        if (head + 8 < ahead)
            __builtin_prefetch(&s->edges[s->edge_start32[ring[(head + 8) & 31]]]);
        uint32_t v = ring[head & 31];
        for (uint64_t e = s->edge_start32[v]; e < s->edge_start32[v + 1]; e++) {
            uint32_t w = s->edges[e];
            uint64_t bit = (uint64_t)1 << (w & 63);
            if (seen[w >> 6] & bit)
                continue;
            seen[w >> 6] |= bit;
            if (tail % CK == 0) {
                ck[tail / CK] = len;
                len = hc_delta_put_abs(q, len, w);
            } else {
                len = hc_delta_put(q, len, last, w);
            }
            last = w;
            tail++;
            word |= (uint64_t)1 << (nbits & 63);
            if ((++nbits & 63) == 0) {
                up[nbits / 64 - 1] = word;
                word = 0;
            }
        }
        /* The 0 that closes the head's children. */
        if ((++nbits & 63) == 0) {
            up[nbits / 64 - 1] = word;
            word = 0;
        }
        head++;
    }
    free(seen);
    if (head < tail) { /* aborted */
        free(q);
        free(ck);
        free(up);
        return PP_EINVAL; /* never seen: only hc_bfs_tree_free aborts */
    }
    up[nbits / 64] = word; /* the last, partial word (0 when none) */
    uint8_t *shrunk = realloc(q, len ? len : 1);
    t->queue = shrunk ? shrunk : q;
    t->ck = ck;
    t->up = up;
    t->nreach = tail;
    /* 1s before each block of RANK_WORDS words, for the select below. */
    size_t nw = nbits / 64 + 1, nblocks = (nw + RANK_WORDS - 1) / RANK_WORDS;
    if (!(t->rank = malloc(nblocks * sizeof(uint32_t))))
        return PP_ENOMEM;
    uint32_t ones = 0;
    for (size_t i = 0; i < nw; i++) {
        if (i % RANK_WORDS == 0)
            t->rank[i / RANK_WORDS] = ones;
        ones += (uint32_t)__builtin_popcountll(up[i]);
    }
    t->nblocks = (uint32_t)nblocks;
    return PP_OK;
}

static void *
run(void *p)
{
    hc_bfs_tree *t = p;
    t->rc = build(t);
    return NULL;
}

void
hc_bfs_tree_start(hc_bfs_tree *t, const pp_heap_snapshot *s)
{
    memset(t, 0, sizeof(*t));
    t->s = s;
    atomic_init(&t->abort, 0);
    /* No thread: hc_bfs_tree_paths builds the tree on the caller's. */
    t->running = s->node_count && pthread_create(&t->tid, NULL, run, t) == 0;
}

/* The node at queue position p. */
static uint32_t
queue_at(const hc_bfs_tree *t, uint32_t p)
{
    size_t k = t->ck[p / CK];
    uint32_t w = 0;
    for (uint32_t i = p / CK * CK; i <= p; i++)
        w = hc_delta_get(t->queue, &k, w);
    return w;
}

/* The queue position of the parent of the node at position p > 0: the
 * number of 0s before the p-th 1 of the bit string. */
static uint32_t
parent_pos(const hc_bfs_tree *t, uint32_t p)
{
    /* The last block with fewer than p 1s before it. */
    uint32_t lo = 0, hi = t->nblocks;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->rank[mid] < p)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t need = p - t->rank[lo]; /* the need-th 1 from the block's start */
    size_t i = (size_t)lo * RANK_WORDS;
    for (;; i++) {
        uint32_t c = (uint32_t)__builtin_popcountll(t->up[i]);
        if (c >= need)
            break;
        need -= c;
    }
    uint64_t w = t->up[i];
    while (--need)
        w &= w - 1;
    size_t bitpos = i * 64 + (unsigned)__builtin_ctzll(w);
    return (uint32_t)(bitpos - (p - 1)); /* p - 1 1s before it */
}

/* Targets found in queue positions [p0, p1) (p0 a multiple of CK): their
 * positions and nodes, ascending. Both parts stop once the two together
 * have found all `left` targets (*total). */
typedef struct scan_job {
    const hc_bfs_tree *t;
    const uint64_t *want;
    uint32_t p0, p1, left;
    uint32_t *pos, *node; /* [left] */
    uint32_t found;
    _Atomic uint32_t *total;
} scan_job;

static void
scan_run(void *arg)
{
    scan_job *j = arg;
    size_t k = j->p0 < j->p1 ? j->t->ck[j->p0 / CK] : 0;
    uint32_t w = 0;
    for (uint32_t p = j->p0; p < j->p1; p++) {
        if ((p & 4095) == 0 && atomic_load_explicit(j->total, memory_order_relaxed) >= j->left)
            break;
        w = hc_delta_get(j->t->queue, &k, w);
        if (bit_get(j->want, w)) {
            j->pos[j->found] = p;
            j->node[j->found++] = w;
            atomic_fetch_add_explicit(j->total, 1, memory_order_relaxed);
        }
    }
}

int
hc_bfs_tree_paths(hc_bfs_tree *t, const uint32_t *targets, uint32_t ntargets, uint32_t *parent)
{
    const pp_heap_snapshot *s = t->s;
    uint32_t n = s->node_count;
    if (t->running) {
        pthread_join(t->tid, NULL);
        t->running = 0;
    } else if (n && !t->queue) {
        t->rc = build(t);
    }
    if (!n)
        return PP_OK;
    /* Only the entries a path reads are written (the targets' first, so
     * that one never reached reads HC_NONE): a pass over all n of them
     * was 85 MB of stores on a 21 M-object heap. */
    for (uint32_t i = 0; i < ntargets; i++)
        if (targets[i] < n)
            parent[targets[i]] = HC_NONE;
    if (t->rc != PP_OK)
        return t->rc;
    parent[s->root] = s->root;
    uint64_t *want = calloc((size_t)n / 64 + 1, sizeof(uint64_t));
    uint64_t *set = calloc((size_t)n / 64 + 1, sizeof(uint64_t));
    uint32_t *found = malloc(4 * ((size_t)ntargets + 1) * sizeof(uint32_t));
    if (!want || !set || !found) {
        free(want);
        free(set);
        free(found);
        return PP_ENOMEM;
    }
    uint32_t left = 0;
    for (uint32_t i = 0; i < ntargets; i++) {
        uint32_t v = targets[i];
        if (v < n && v != s->root && !bit_get(want, v)) {
            want[v >> 6] |= (uint64_t)1 << (v & 63);
            left++;
        }
    }
    set[s->root >> 6] |= (uint64_t)1 << (s->root & 63);
    /* Two passes down the two halves of the queue at once find the
     * targets' positions (a decode of every entry up to the last target:
     * 30 ms of one core on a 21 M-object heap); from each, in queue
     * order, up to the first node whose parent is already set (the paths
     * share their upper parts). */
    uint32_t half = t->nreach / 2 / CK * CK;
    _Atomic uint32_t total;
    atomic_init(&total, 0);
    scan_job ja = { t, want, 0, half, left, found, found + left, 0, &total }, jb = {
        t, want,  half, t->nreach, left, found + 2 * (size_t)left, found + 3 * (size_t)left,
        0, &total
    };
    hc_run2(scan_run, &ja, &jb, left ? t->nreach : 0);
    for (int h = 0; h < 2; h++) {
        const scan_job *j = h ? &jb : &ja;
        for (uint32_t f = 0; f < j->found; f++)
            for (uint32_t at = j->pos[f], v = j->node[f]; !bit_get(set, v);) {
                uint32_t up = parent_pos(t, at), u = queue_at(t, up);
                parent[v] = u;
                set[v >> 6] |= (uint64_t)1 << (v & 63);
                at = up;
                v = u;
            }
    }
    free(want);
    free(set);
    free(found);
    return PP_OK;
}

void
hc_bfs_tree_free(hc_bfs_tree *t)
{
    if (t->running) {
        atomic_store_explicit(&t->abort, 1, memory_order_relaxed);
        pthread_join(t->tid, NULL);
        t->running = 0;
    }
    free(t->queue);
    free(t->ck);
    free(t->up);
    free(t->rank);
    t->queue = NULL;
    t->ck = NULL;
    t->up = NULL;
    t->rank = NULL;
}
