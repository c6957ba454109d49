/* Unit tests of plugins/gcdump/heap_common.c: dominators and retained sizes
 * checked against naive reachability (retained(x) = bytes reachable from
 * the root minus bytes still reachable when x is removed), on hand-built
 * graphs and on a real dotnet-gcdump fixture; type keys across size buckets. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/gcdump.h>

#include "heap_common.h"

/* A snapshot over caller arrays. */
typedef struct graph {
    pp_heap_snapshot s;
    pp_heap_type types[8];
    uint32_t node_type[32];
    uint64_t node_size[32];
    uint64_t edge_start[33];
    uint32_t node_size32[32]; /* what the plugins read (ABI 1.2) */
    uint32_t edge_start32[33];
    uint32_t edges[64];
} graph;

static void
graph_init(graph *g, uint32_t n, const char *const *type_names, uint32_t ntypes,
           const uint32_t *types, const uint64_t *sizes, const uint32_t (*adj)[4])
{
    memset(g, 0, sizeof(*g));
    for (uint32_t t = 0; t < ntypes; t++)
        g->types[t] = (pp_heap_type){ type_names[t], "" };
    uint64_t e = 0;
    for (uint32_t i = 0; i < n; i++) {
        g->node_type[i] = types[i];
        g->node_size[i] = sizes[i];
        g->edge_start[i] = e;
        g->node_size32[i] = (uint32_t)sizes[i];
        g->edge_start32[i] = (uint32_t)e;
        for (int k = 0; k < 4 && adj[i][k] != UINT32_MAX; k++)
            g->edges[e++] = adj[i][k];
    }
    g->edge_start[n] = e;
    g->edge_start32[n] = (uint32_t)e;
    g->s = (pp_heap_snapshot){ .struct_size = sizeof(pp_heap_snapshot),
                               .node_count = n,
                               .type_count = ntypes,
                               .edge_count = e,
                               .root = 0,
                               .types = g->types,
                               .node_type = g->node_type,
                               .node_size = g->node_size,
                               .edge_start = g->edge_start,
                               .edges = g->edges,
                               .node_size32 = g->node_size32,
                               .edge_start32 = g->edge_start32 };
}

/* Bytes reachable from the root when node `removed` (HC_NONE: none) is cut
 * out; marks the visited nodes in seen. */
static uint64_t
reach_without(const pp_heap_snapshot *s, uint32_t removed, uint8_t *seen, uint32_t *queue)
{
    memset(seen, 0, s->node_count);
    if (removed == s->root)
        return 0;
    uint32_t head = 0, tail = 0;
    uint64_t bytes = 0;
    seen[s->root] = 1;
    queue[tail++] = s->root;
    while (head < tail) {
        uint32_t v = queue[head++];
        bytes += s->node_size[v];
        for (uint64_t e = s->edge_start[v]; e < s->edge_start[v + 1]; e++) {
            uint32_t w = s->edges[e];
            if (w != removed && !seen[w]) {
                seen[w] = 1;
                queue[tail++] = w;
            }
        }
    }
    return bytes;
}

/* Checks every reachable node's retained size, and every key's retained
 * size (union of what its instances dominate), against the naive count.
 * Returns the number of nodes checked. */
static uint32_t
check_against_naive(const pp_heap_snapshot *s, int merge)
{
    hc_dom d;
    hc_keys k;
    ck_assert_int_eq(hc_dominators(s, &d), 0);
    ck_assert_int_eq(hc_keys_build(s, merge, &k), 0);
    uint64_t *by_key = calloc(k.nkeys, sizeof(uint64_t));
    ck_assert_int_eq(hc_retained_by_key(s, &d, &k, by_key), 0);

    uint32_t n = s->node_count;
    uint8_t *all = malloc(n), *seen = malloc(n);
    uint32_t *queue = malloc(n * sizeof(uint32_t));
    uint32_t *stamp = malloc(n * sizeof(uint32_t));
    uint64_t *naive_key = calloc(k.nkeys, sizeof(uint64_t));
    uint64_t total = reach_without(s, HC_NONE, all, queue);
    ck_assert_uint_eq(d.retained[s->root], total);
    uint32_t reachable = 0;
    for (uint32_t i = 0; i < n; i++) {
        reachable += all[i];
        stamp[i] = HC_NONE;
        ck_assert_msg((d.idom[i] != HC_NONE) == (all[i] != 0), "node %u reachability", i);
    }
    ck_assert_uint_eq(d.nreach, reachable);
    /* Visit nodes grouped by key so a key's union is one stamp run. */
    uint32_t checked = 0;
    for (uint32_t key = 0; key < k.nkeys; key++) {
        for (uint32_t x = 0; x < n; x++) {
            if (!all[x] || k.type_key[s->node_type[x]] != key)
                continue;
            uint64_t left = reach_without(s, x, seen, queue);
            ck_assert_msg(d.retained[x] == total - left, "node %u (%s): retained %llu, naive %llu",
                          x, s->types[s->node_type[x]].name, (unsigned long long)d.retained[x],
                          (unsigned long long)(total - left));
            for (uint32_t y = 0; y < n; y++)
                if (all[y] && !seen[y] && stamp[y] != key) {
                    stamp[y] = key;
                    naive_key[key] += s->node_size[y];
                }
            checked++;
        }
        ck_assert_msg(by_key[key] == naive_key[key], "key %s: retained %llu, naive %llu",
                      k.name[key], (unsigned long long)by_key[key],
                      (unsigned long long)naive_key[key]);
    }
    free(all);
    free(seen);
    free(queue);
    free(stamp);
    free(naive_key);
    free(by_key);
    hc_keys_free(&k);
    hc_dom_free(&d);
    return checked;
}

#define X UINT32_MAX

START_TEST(test_dominators_hand_built)
{
    /* 0 root -> 1, 2; 1 -> 3; 2 -> 3 (3 shared: dominated by root only);
     * 3 -> 4 -> 5 -> 4 (cycle); 1 -> 6 -> 7; 7 -> 1 (back edge);
     * 8 unreachable -> 4. Types: A at 1 and 6 (nested: 6 under 1),
     * B at 2, 3; C at 4, 5, 7. */
    static const char *const names[] = { "[root]", "A", "B", "C", "D" };
    static const uint32_t types[] = { 0, 1, 2, 2, 3, 3, 1, 3, 4 };
    static const uint64_t sizes[] = { 0, 10, 20, 30, 40, 50, 60, 70, 80 };
    static const uint32_t adj[][4] = {
        { 1, 2, X, X }, { 3, 6, X, X }, { 3, X, X, X }, { 4, X, X, X }, { 5, X, X, X },
        { 4, X, X, X }, { 7, X, X, X }, { 1, X, X, X }, { 4, X, X, X },
    };
    graph g;
    graph_init(&g, 9, names, 5, types, sizes, adj);
    hc_dom d;
    ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
    static const uint32_t want_idom[] = { 0, 0, 0, 0, 3, 4, 1, 6, X };
    for (uint32_t i = 0; i < 9; i++)
        ck_assert_uint_eq(d.idom[i], want_idom[i]);
    ck_assert_uint_eq(d.retained[1], 10 + 60 + 70);
    ck_assert_uint_eq(d.retained[3], 30 + 40 + 50);
    ck_assert_uint_eq(d.retained[0], 280);
    ck_assert_uint_eq(d.retained[8], 0);
    hc_dom_free(&d);
    ck_assert_uint_eq(check_against_naive(&g.s, 0), 8);
}
END_TEST

/* Every reachable node's immediate dominator against dominator sets
 * computed naively (x dominates y when y is unreachable without x): the
 * idom is the strict dominator that has one dominator fewer than y. */
static void
check_idoms_naive(const pp_heap_snapshot *s, const hc_dom *d)
{
    uint32_t n = s->node_count;
    uint8_t *all = malloc(n), *seen = malloc(n);
    uint32_t *queue = malloc(n * sizeof(uint32_t)), *ndom = calloc(n, sizeof(uint32_t));
    ck_assert(all && seen && queue && ndom);
    reach_without(s, HC_NONE, all, queue);
    uint32_t nr = 0, *reach = malloc(n * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        if (all[i])
            reach[nr++] = i;
    /* dom[a * nr + b]: reach[a] strictly dominates reach[b]. */
    uint8_t *dom = calloc((size_t)nr * nr, 1);
    ck_assert(reach && dom);
    for (uint32_t a = 0; a < nr; a++) {
        reach_without(s, reach[a], seen, queue);
        for (uint32_t b = 0; b < nr; b++)
            if (b != a && !seen[reach[b]]) {
                dom[(size_t)a * nr + b] = 1;
                ndom[reach[b]]++;
            }
    }
    for (uint32_t b = 0; b < nr; b++) {
        uint32_t y = reach[b], want = y; /* the root is its own */
        for (uint32_t a = 0; a < nr; a++)
            if (dom[(size_t)a * nr + b] && ndom[reach[a]] + 1 == ndom[y])
                want = reach[a];
        ck_assert_msg(d->idom[y] == want, "node %u: idom %u, naive %u", y, d->idom[y], want);
    }
    ck_assert_uint_eq(d->nreach, nr);
    free(all);
    free(seen);
    free(queue);
    free(ndom);
    free(reach);
    free(dom);
}

/* Where the DFS-tree path up from a predecessor v of w leaves the nodes
 * above w through a node x with one referrer and one child, x's parent
 * a = NCA(v, w) is a candidate semidominator that only a multi-referrer or
 * branch node (here A) carries: 0 -> A; A -> B -> w; A -> x -> v -> w
 * (idom(w) = A, not B); then the same with v multi-referrer and one more
 * node u below it (u -> w, u -> v), so a reaches w through v's label. */
START_TEST(test_dominators_forest_top)
{
    static const char *const names[] = { "[root]", "N" };
    static const uint32_t types[] = { 0, 1, 1, 1, 1, 1, 1 };
    static const uint64_t sizes[] = { 1, 2, 4, 8, 16, 32, 64 };
    static const uint32_t adj1[][4] = {
        { 1, X, X, X }, { 2, 4, X, X }, { 3, X, X, X },
        { X, X, X, X }, { 5, X, X, X }, { 3, X, X, X },
    };
    static const uint32_t adj2[][4] = {
        { 1, X, X, X }, { 2, 4, X, X }, { 3, X, X, X }, { X, X, X, X },
        { 5, X, X, X }, { 6, X, X, X }, { 3, 5, X, X },
    };
    static const uint32_t want1[] = { 0, 0, 1, 1, 1, 4 }, want2[] = { 0, 0, 1, 1, 1, 4, 5 };
    graph g;
    hc_dom d;
    graph_init(&g, 6, names, 2, types, sizes, adj1);
    ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
    for (uint32_t i = 0; i < 6; i++)
        ck_assert_uint_eq(d.idom[i], want1[i]);
    check_idoms_naive(&g.s, &d);
    hc_dom_free(&d);
    graph_init(&g, 7, names, 2, types, sizes, adj2);
    ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
    for (uint32_t i = 0; i < 7; i++)
        ck_assert_uint_eq(d.idom[i], want2[i]);
    check_idoms_naive(&g.s, &d);
    hc_dom_free(&d);
    ck_assert_uint_eq(check_against_naive(&g.s, 0), 7);
}
END_TEST

static uint64_t
xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A snapshot over heap arrays: node_count nodes, of which the graph's
 * `live` sit at scattered indices (the rest are isolated). */
typedef struct rgraph {
    pp_heap_snapshot s;
    pp_heap_type types[3];
    uint32_t *node_type, *node_size32, *edge_start32, *edges;
    uint64_t *node_size, *edge_start;
} rgraph;

static void
rgraph_free(rgraph *g)
{
    free(g->node_type);
    free(g->node_size32);
    free(g->edge_start32);
    free(g->edges);
    free(g->node_size);
    free(g->edge_start);
}

/* g->s over g's arrays: n nodes, m edges, types "[root]", "A", "B". */
static void
rgraph_view(rgraph *g, uint32_t n, uint32_t m, uint32_t root)
{
    static const char *const names[] = { "[root]", "A", "B" };
    for (uint32_t t = 0; t < 3; t++)
        g->types[t] = (pp_heap_type){ names[t], "" };
    g->s = (pp_heap_snapshot){ .struct_size = sizeof(pp_heap_snapshot),
                               .node_count = n,
                               .type_count = 3,
                               .edge_count = m,
                               .root = root,
                               .types = g->types,
                               .node_type = g->node_type,
                               .node_size = g->node_size,
                               .edge_start = g->edge_start,
                               .edges = g->edges,
                               .node_size32 = g->node_size32,
                               .edge_start32 = g->edge_start32 };
}

/* Random heap-like graphs: a spanning structure mostly of chains (a node
 * hangs below the previous one 70 % of the time, else below any earlier),
 * a few nodes hung from nothing (unreachable, but with edges out), then
 * extra edges anywhere (back, forward, cross, self, duplicate). Node k of
 * the graph is at index k * spread + jitter, shuffled, so that the DFS
 * order's differences take every width of the preorder's coding. */
static void
rgraph_make(rgraph *g, uint64_t *rng, uint32_t live, uint32_t spread)
{
    uint32_t n = live * spread, m = 0;
    uint32_t *at = malloc(live * sizeof(uint32_t)), *src = malloc(4 * live * sizeof(uint32_t)),
             *dst = malloc(4 * live * sizeof(uint32_t));
    ck_assert(at && src && dst);
    for (uint32_t k = 0; k < live; k++)
        at[k] = k * spread + (uint32_t)(xorshift(rng) % spread);
    for (uint32_t k = live - 1; k > 1; k--) { /* the root stays first */
        uint32_t j = 1 + (uint32_t)(xorshift(rng) % k), t = at[k];
        at[k] = at[j];
        at[j] = t;
    }
    for (uint32_t k = 1; k < live; k++) {
        if (xorshift(rng) % 16 == 0)
            continue;
        uint32_t p = xorshift(rng) % 10 < 7 ? k - 1 : (uint32_t)(xorshift(rng) % k);
        src[m] = p;
        dst[m++] = k;
    }
    uint32_t extra = (uint32_t)(xorshift(rng) % (live + 1));
    for (uint32_t i = 0; i < extra; i++) {
        src[m] = (uint32_t)(xorshift(rng) % live);
        dst[m++] = (uint32_t)(xorshift(rng) % live);
    }
    memset(g, 0, sizeof(*g));
    g->node_type = calloc(n, sizeof(uint32_t));
    g->node_size32 = calloc(n, sizeof(uint32_t));
    g->node_size = calloc(n, sizeof(uint64_t));
    g->edge_start32 = calloc((size_t)n + 1, sizeof(uint32_t));
    g->edge_start = calloc((size_t)n + 1, sizeof(uint64_t));
    g->edges = malloc((m ? m : 1) * sizeof(uint32_t));
    ck_assert(g->node_type && g->node_size32 && g->node_size && g->edge_start32 && g->edge_start &&
              g->edges);
    for (uint32_t k = 0; k < live; k++) {
        g->node_type[at[k]] = k ? 1 + (uint32_t)(xorshift(rng) % 2) : 0;
        g->node_size[at[k]] = g->node_size32[at[k]] = 1 + (uint32_t)(xorshift(rng) % 100000);
    }
    /* CSR by node index; within a node, edges in a random order (the
     * insertion order of a shuffled list). */
    for (uint32_t i = m; i > 1; i--) {
        uint32_t j = (uint32_t)(xorshift(rng) % i), t = src[i - 1];
        src[i - 1] = src[j];
        src[j] = t;
        t = dst[i - 1];
        dst[i - 1] = dst[j];
        dst[j] = t;
    }
    for (uint32_t i = 0; i < m; i++)
        g->edge_start32[at[src[i]] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->edge_start32[v + 1] += g->edge_start32[v];
    uint32_t *fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
    ck_assert(fill);
    memcpy(fill, g->edge_start32, ((size_t)n + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < m; i++)
        g->edges[fill[at[src[i]]]++] = at[dst[i]];
    for (uint32_t v = 0; v <= n; v++)
        g->edge_start[v] = g->edge_start32[v];
    rgraph_view(g, n, m, at[0]);
    free(fill);
    free(at);
    free(src);
    free(dst);
}

/* The per-key summary (the gcdump plugin's path: packed rpo, spare
 * buffers) against the whole tree's: retained bytes per key as
 * hc_retained_by_key, each key's instance retaining the most (the lowest
 * node index among equals), the root's bytes and the reachable count. */
static void
check_summary_against_tree(const pp_heap_snapshot *s)
{
    hc_dom d;
    ck_assert_int_eq(hc_dominators(s, &d), 0);
    hc_keys k;
    ck_assert_int_eq(hc_keys_build(s, 0, &k), 0);
    uint32_t nk = k.nkeys ? k.nkeys : 1;
    uint64_t *out = calloc(nk, sizeof(uint64_t)), *ref = calloc(nk, sizeof(uint64_t)), reach;
    uint32_t *best = calloc(nk, sizeof(uint32_t)), nr;
    ck_assert(out && ref && best);
    ck_assert_int_eq(hc_retained_by_key(s, &d, &k, ref), 0);
    hc_spare sp = { { NULL, NULL }, { 0, 0 } };
    ck_assert_int_eq(hc_retained_summary(s, &k, out, best, &reach, &nr, &sp), 0);
    hc_spare_free(&sp);
    ck_assert_uint_eq(reach, d.retained[s->root]);
    ck_assert_uint_eq(nr, d.nreach);
    ck_assert_mem_eq(out, ref, k.nkeys * sizeof(uint64_t));
    for (uint32_t key = 0; key < k.nkeys; key++) {
        uint32_t want = HC_NONE;
        for (uint32_t v = 0; v < s->node_count; v++)
            if (d.idom[v] != HC_NONE && k.type_key[hc_node_type(s, v)] == key &&
                (want == HC_NONE || d.retained[v] > d.retained[want]))
                want = v;
        ck_assert_uint_eq(best[key], want);
    }
    free(out);
    free(ref);
    free(best);
    hc_keys_free(&k);
    hc_dom_free(&d);
}

/* Random graphs (fixed seed) through both entry points: exact idoms and
 * retained sizes against the naive ones, and the per-key summary (the
 * gcdump plugin's path, with its spare buffers) against the tree's. */
START_TEST(test_dominators_random_graphs)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    static const uint32_t spreads[] = { 1, 1, 3, 40, 1000 };
    uint32_t graphs = 0, nodes = 0;
    for (uint32_t i = 0; i < 400; i++) {
        uint32_t spread = spreads[i % 5],
                 live = 2 + (uint32_t)(xorshift(&rng) % (spread > 3 ? 60 : 150));
        rgraph g;
        rgraph_make(&g, &rng, live, spread);
        /* Every other graph with the pass's halves on two threads (the
         * plugin's way past hc_split_min), the others one after the other. */
        hc_split_min = i % 2 ? 0 : UINT64_MAX;
        hc_dom d;
        ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
        check_idoms_naive(&g.s, &d);
        hc_dom_free(&d);
        nodes += check_against_naive(&g.s, 0);
        check_summary_against_tree(&g.s);
        /* The BFS tree's paths against the full search, every node a target. */
        uint32_t nn = g.s.node_count, *full, *tp = malloc((size_t)nn * sizeof(uint32_t)),
                 *all = malloc((size_t)nn * sizeof(uint32_t));
        ck_assert(tp && all);
        for (uint32_t v = 0; v < nn; v++)
            all[v] = v;
        ck_assert_int_eq(hc_bfs_parents(&g.s, &full), 0);
        hc_bfs_tree tree;
        hc_bfs_tree_start(&tree, &g.s);
        ck_assert_int_eq(hc_bfs_tree_paths(&tree, all, nn, tp), 0);
        hc_bfs_tree_free(&tree);
        ck_assert_mem_eq(tp, full, (size_t)nn * sizeof(uint32_t));
        free(full);
        free(tp);
        free(all);
        rgraph_free(&g);
        graphs++;
    }
    ck_assert_uint_eq(graphs, 400);
    ck_assert_uint_gt(nodes, 10000);
}
END_TEST

/* Larger random graphs, where the two halves of each split pass
 * (resolve_pairs, fill_preds, fold_preds) hold many lists each, on two
 * threads and then one after the other: the same idoms as the naive ones
 * both ways, and the same summary as the tree's. */
START_TEST(test_dominators_split_halves)
{
    uint64_t rng = 0x5851f42d4c957f2dull;
    uint32_t nodes = 0;
    for (uint32_t i = 0; i < 6; i++) {
        rgraph g;
        rgraph_make(&g, &rng, 1500 + (uint32_t)(xorshift(&rng) % 1500), i % 3 ? 1 : 3);
        /* Every other graph with one size for all, and the nodes without
         * references of their own type: all of that type's instances
         * retain the same, in both parts, and the lowest index must win. */
        for (uint32_t v = 0; i % 2 && v < g.s.node_count; v++) {
            g.node_size[v] = g.node_size32[v] = 24;
            if (v != g.s.root)
                g.node_type[v] = g.edge_start32[v] == g.edge_start32[v + 1] ? 2 : 1;
        }
        for (int split = 0; split < 2; split++) {
            hc_split_min = split ? 0 : UINT64_MAX;
            hc_dom d;
            ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
            check_idoms_naive(&g.s, &d);
            nodes += d.nreach;
            hc_dom_free(&d);
            check_summary_against_tree(&g.s);
        }
        rgraph_free(&g);
    }
    ck_assert_uint_gt(nodes, 10000);
}
END_TEST

/* Past 2^24 nodes the DFS's pairs (and the summary's rpo) take 4 bytes a
 * number instead of 3: a graph over 17,207,440 node indices (40 reachable
 * ones, scattered, the last live one past 2^24; two random graphs), its
 * idoms against the naive ones, its summary against the tree's. */
START_TEST(test_dominators_past_2_24)
{
    uint64_t rng = 0x2545f4914f6cdd1dull;
    uint32_t nodes = 0, high = 0;
    for (int i = 0; i < 2; i++) {
        rgraph g;
        rgraph_make(&g, &rng, 40, (1u << 24) / 39 + 2);
        hc_split_min = i ? 0 : UINT64_MAX;
        ck_assert_uint_gt(g.s.node_count, 1u << 24);
        hc_dom d;
        ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
        check_idoms_naive(&g.s, &d);
        nodes += d.nreach;
        for (uint32_t v = 1u << 24; v < g.s.node_count; v++)
            high += d.idom[v] != HC_NONE;
        hc_dom_free(&d);
        check_summary_against_tree(&g.s);
        rgraph_free(&g);
    }
    ck_assert_uint_gt(nodes, 20);
    ck_assert_uint_gt(high, 0); /* a reachable node index needs the 4th byte */
}
END_TEST

/* A chain over the middle preorder, where the dominator pass's forest
 * step splits its work in two halves: 0 -> 1 -> ... -> 398, node 10 also
 * holding the leaf 399 (so 10 is a branch), 399 -> 150 and 250 -> 100.
 * The nodes from 192 (nr / 2, down to a multiple of 64) on take their
 * nearest forest ancestor, 150 (a multi node), from the first half, and
 * 100's semidominator, 10, comes through it (250 -> 100, and 150 is
 * reached from 10 around 100). Idoms as the naive ones, summary as the
 * tree's, with the halves on two threads and one after the other. */
START_TEST(test_dominators_forest_halves)
{
    enum { N = 400 };
    uint32_t src[N + 2], dst[N + 2], m = 0;
    for (uint32_t k = 0; k < N; k++) { /* by source: the CSR as written */
        if (k + 1 < N - 1) {
            src[m] = k;
            dst[m++] = k + 1;
        }
        if (k == 10 || k == 250 || k == N - 1) {
            src[m] = k;
            dst[m++] = k == 10 ? N - 1 : k == 250 ? 100 : 150;
        }
    }
    rgraph g;
    memset(&g, 0, sizeof(g));
    g.node_type = calloc(N, sizeof(uint32_t));
    g.node_size32 = calloc(N, sizeof(uint32_t));
    g.node_size = calloc(N, sizeof(uint64_t));
    g.edge_start32 = calloc(N + 1, sizeof(uint32_t));
    g.edge_start = calloc(N + 1, sizeof(uint64_t));
    g.edges = malloc(m * sizeof(uint32_t));
    ck_assert(g.node_type && g.node_size32 && g.node_size && g.edge_start32 && g.edge_start &&
              g.edges);
    for (uint32_t i = 0; i < m; i++) {
        g.edge_start32[src[i] + 1]++;
        g.edges[i] = dst[i];
    }
    for (uint32_t v = 0; v < N; v++) {
        g.edge_start32[v + 1] += g.edge_start32[v];
        g.edge_start[v + 1] = g.edge_start32[v + 1];
        g.node_type[v] = v ? 1 + v % 2 : 0;
        g.node_size[v] = g.node_size32[v] = 8 + v;
    }
    rgraph_view(&g, N, m, 0);
    for (int split = 0; split < 2; split++) {
        hc_split_min = split ? 0 : UINT64_MAX;
        hc_dom d;
        ck_assert_int_eq(hc_dominators(&g.s, &d), 0);
        ck_assert_uint_eq(d.nreach, N);
        ck_assert_uint_eq(d.idom[100], 10);
        ck_assert_uint_eq(d.idom[101], 100);
        ck_assert_uint_eq(d.idom[150], 10);
        ck_assert_uint_eq(d.idom[250], 249);
        ck_assert_uint_eq(d.idom[N - 1], 10);
        check_idoms_naive(&g.s, &d);
        hc_dom_free(&d);
        check_summary_against_tree(&g.s);
    }
    rgraph_free(&g);
}
END_TEST

START_TEST(test_type_keys_merge_size_buckets)
{
    static const char *const names[] = { "[root]",
                                         "System.Byte[]",
                                         "System.Byte[] (Bytes > 10K)",
                                         "System.Byte[] (Bytes > 1M)",
                                         "Dup",
                                         "Dup",
                                         "Odd (Bytes > 1X)" };
    static const uint32_t types[] = { 0, 1, 2, 3, 4, 5, 6 };
    static const uint64_t sizes[] = { 0, 100, 20000, 2000000, 8, 16, 1 };
    static const uint32_t adj[][4] = { { 1, 2, 3, 4 }, { 5, 6, X, X }, { X }, { X },
                                       { X },          { X },          { X } };
    graph g;
    graph_init(&g, 7, names, 7, types, sizes, adj);
    hc_keys k;
    ck_assert_int_eq(hc_keys_build(&g.s, 1, &k), 0);
    ck_assert_uint_eq(k.nkeys, 4); /* [root], Dup, Odd (Bytes > 1X), System.Byte[] */
    uint32_t b = hc_keys_find(&k, "System.Byte[]");
    ck_assert_uint_ne(b, HC_NONE);
    ck_assert_uint_eq(k.count[b], 3);
    ck_assert_uint_eq(k.bytes[b], 2020100);
    uint32_t dup = hc_keys_find(&k, "Dup");
    ck_assert_uint_eq(k.count[dup], 2);
    ck_assert_uint_eq(k.bytes[dup], 24);
    ck_assert_uint_ne(hc_keys_find(&k, "Odd (Bytes > 1X)"), HC_NONE);
    hc_keys_free(&k);
    ck_assert_int_eq(hc_keys_build(&g.s, 0, &k), 0);
    ck_assert_uint_eq(k.nkeys, 6);
    ck_assert_uint_eq(k.count[hc_keys_find(&k, "System.Byte[] (Bytes > 10K)")], 1);
    hc_keys_free(&k);
    ck_assert_uint_eq(hc_base_name_len("T (Bytes > 100M)"), 1);
    ck_assert_uint_eq(hc_base_name_len("T (Bytes > M)"), 13);
    ck_assert_uint_eq(hc_base_name_len(""), 0);
}
END_TEST

START_TEST(test_path_string)
{
    /* A chain of 20 nodes: the path is elided in the middle. */
    static const char *const names[] = { "R", "N" };
    graph g;
    uint32_t types[20];
    uint64_t sizes[20];
    uint32_t adj[20][4];
    for (uint32_t i = 0; i < 20; i++) {
        types[i] = i ? 1 : 0;
        sizes[i] = 1;
        adj[i][0] = i + 1 < 20 ? i + 1 : X;
        adj[i][1] = adj[i][2] = adj[i][3] = X;
    }
    graph_init(&g, 20, names, 2, types, sizes, (const uint32_t(*)[4])adj);
    uint32_t *parent;
    ck_assert_int_eq(hc_bfs_parents(&g.s, &parent), 0);
    char buf[256];
    ck_assert_uint_eq(hc_path_string(&g.s, parent, 19, buf, sizeof(buf)), 20);
    ck_assert_str_eq(buf, "R > N > N > N > N > N > N > N > ... > N > N > N > N > N > N > N > N");
    ck_assert_uint_eq(hc_path_string(&g.s, parent, 2, buf, sizeof(buf)), 3);
    ck_assert_str_eq(buf, "R > N > N");
    /* A tiny buffer is cut, never overrun. */
    ck_assert_uint_eq(hc_path_string(&g.s, parent, 19, buf, 5), 20);
    ck_assert_str_eq(buf, "R > ");
    free(parent);
}
END_TEST

/* The real leak-before fixture, decoded into *dump (path names it), or
 * NULL (and a SKIP line) when PP_TESTDATA does not hold it. */
static const pp_heap_snapshot *
load_leak_before(char *path, size_t size, pp_gcdump **dump)
{
    const char *dir = getenv("PP_TESTDATA");
    snprintf(path, size, "%s/leak-before.gcdump", dir ? dir : "");
    FILE *f = dir ? fopen(path, "rb") : NULL;
    if (!f) {
        printf("SKIP: %s absent\n", path);
        return NULL;
    }
    fclose(f);
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(pp_gcdump_read_file(path, dump, &err) == 0, "%s", err.message);
    return pp_gcdump_snapshot(*dump);
}

/* The real leak-before fixture (~5.7k nodes): every node's retained size
 * and every type's against naive reachability. */
START_TEST(test_dominators_real_fixture)
{
    char path[4096];
    pp_gcdump *dump = NULL;
    const pp_heap_snapshot *s = load_leak_before(path, sizeof(path), &dump);
    if (!s)
        return;
    uint32_t checked = check_against_naive(s, 1);
    ck_assert_uint_gt(checked, 1000);
    printf("heap: %s: %u of %u nodes' retained sizes equal naive reachability\n", path, checked,
           (unsigned)s->node_count);
    pp_gcdump_free(dump);
}
END_TEST

/* The BFS tree's paths against the full search, on the real fixture:
 * every parent on the way from each target to the root is the full
 * search's (what the sample paths print), a target not reached reads
 * HC_NONE and no other entry is written, built on a thread and on the
 * caller's, the queue scanned in one part and in two at once, targets
 * spread over the node indices, the root among them and one given twice. */
START_TEST(test_bfs_tree_real_fixture)
{
    char path[4096];
    pp_gcdump *dump = NULL;
    const pp_heap_snapshot *s = load_leak_before(path, sizeof(path), &dump);
    if (!s)
        return;
    uint32_t n = s->node_count, *full;
    ck_assert_int_eq(hc_bfs_parents(s, &full), 0);
    uint32_t targets[40], nt = 0;
    for (uint32_t i = 0; nt < 36 && i < n; i += n / 36 + 1)
        targets[nt++] = i;
    targets[nt++] = s->root;
    targets[nt++] = targets[3];
    targets[nt++] = n - 1;
    uint32_t steps = 0, reached = 0;
    uint64_t split_min = hc_split_min;
    for (int threaded = 0; threaded < 2; threaded++) {
        hc_bfs_tree tree;
        uint32_t *tp = malloc((size_t)n * sizeof(uint32_t));
        ck_assert(tp);
        memset(tp, 0xab, (size_t)n * sizeof(uint32_t)); /* what the caller's buffer held */
        hc_split_min = threaded ? 0 : UINT64_MAX;
        if (threaded) {
            hc_bfs_tree_start(&tree, s);
        } else {
            /* No thread: hc_bfs_tree_paths builds the tree itself. */
            memset(&tree, 0, sizeof(tree));
            tree.s = s;
        }
        ck_assert_int_eq(hc_bfs_tree_paths(&tree, targets, nt, tp), 0);
        hc_bfs_tree_free(&tree);
        hc_split_min = split_min;
        uint32_t set = 0, on_paths = 0;
        for (uint32_t v = 0; v < n; v++)
            set += tp[v] != 0xababababu;
        ck_assert_uint_eq(tp[s->root], s->root);
        uint8_t *mark = calloc(n, 1);
        ck_assert(mark);
        for (uint32_t i = 0; i < nt; i++) {
            uint32_t v = targets[i];
            ck_assert_msg((tp[v] == HC_NONE) == (full[v] == HC_NONE), "target %u reached", v);
            if (full[v] == HC_NONE) {
                on_paths += !mark[v]; /* written: HC_NONE */
                mark[v] = 1;
                continue;
            }
            reached++;
            for (uint32_t depth = 0; v != s->root; depth++) {
                ck_assert_msg(tp[v] == full[v], "node %u: parent %u, full search %u", v, tp[v],
                              full[v]);
                ck_assert_uint_lt(depth, n);
                on_paths += !mark[v];
                mark[v] = 1;
                v = tp[v];
                steps++;
            }
        }
        ck_assert_uint_eq(set, on_paths + 1); /* + the root */
        free(mark);
        free(tp);
    }
    ck_assert_uint_gt(reached, 40);
    ck_assert_uint_gt(steps, 2 * reached);
    printf("heap: %s: %u paths to the root (%u steps) as the full search's\n", path, reached,
           steps);
    free(full);
    pp_gcdump_free(dump);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("plugin_gcdump_heap");
    TCase *tc = tcase_create("heap");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dominators_hand_built);
    tcase_add_test(tc, test_dominators_forest_top);
    tcase_add_test(tc, test_dominators_random_graphs);
    tcase_add_test(tc, test_dominators_split_halves);
    tcase_add_test(tc, test_dominators_past_2_24);
    tcase_add_test(tc, test_dominators_forest_halves);
    tcase_add_test(tc, test_type_keys_merge_size_buckets);
    tcase_add_test(tc, test_path_string);
    tcase_add_test(tc, test_dominators_real_fixture);
    tcase_add_test(tc, test_bfs_tree_real_fixture);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
