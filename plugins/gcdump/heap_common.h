/* Heap-graph analysis shared by the gcdump and gcdump-diff plugins
 * (compiled into both; links only libc): per-type aggregation with a stable
 * type identity, dominators and retained sizes, reachability and sample
 * paths to the root. All functions return PP_OK or PP_ENOMEM; outputs are
 * owned by the caller and released with the matching _free. */
#ifndef PP_PLUGIN_HEAP_COMMON_H
#define PP_PLUGIN_HEAP_COMMON_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

#define HC_NONE UINT32_MAX

/* The snapshot a stage was given, copied into *out with the fields its
 * host's record lacks (an older struct_size) zeroed, so that the
 * accessors below can test them. The arrays stay the host's. */
void hc_snapshot_view(const pp_heap_snapshot *in, pp_heap_snapshot *out);

/* A node's type index and size. Through the shapes (ABI 1.4) when the
 * snapshot has them, else node_type and node_size32 (records.h): the
 * plugins set PP_ANALYZER_FLAG_HEAP_SHAPES, so a gcdump file's snapshot
 * may have only the shapes. s must come from hc_snapshot_view. */
static inline uint32_t
hc_node_shape(const pp_heap_snapshot *s, uint32_t v)
{
    return s->node_shape16 ? s->node_shape16[v] : s->node_shape32[v];
}

static inline uint32_t
hc_node_type(const pp_heap_snapshot *s, uint32_t v)
{
    return s->shape_count ? s->shape_type[hc_node_shape(s, v)] : s->node_type[v];
}

static inline uint32_t
hc_node_size(const pp_heap_snapshot *s, uint32_t v)
{
    return s->shape_count ? s->shape_size[hc_node_shape(s, v)] : s->node_size32[v];
}

/* Both at once: one load of the node's shape. */
static inline void
hc_node_type_size(const pp_heap_snapshot *s, uint32_t v, uint32_t *type, uint32_t *size)
{
    if (s->shape_count) {
        uint32_t sh = hc_node_shape(s, v);
        *type = s->shape_type[sh];
        *size = s->shape_size[sh];
    } else {
        *type = s->node_type[v];
        *size = s->node_size32[v];
    }
}

/* Room for one more element at index sp of a stack that grows as deep as
 * a walk goes (*st, *cap in elements of elem bytes; doubled, from 4096).
 * PP_OK, or PP_ENOMEM with *st untouched. */
int hc_stack_reserve(void **st, size_t *cap, size_t sp, size_t elem);

/* fn(a) on the caller's thread and fn(b) on a second one beside it when
 * work (the elements the two halves share) is at least hc_split_min, else
 * one after the other (also when no thread can be had). Both are done on
 * return; a job writes only what its own argument names, so the results
 * do not depend on which way it ran. */
extern uint64_t hc_split_min;
void hc_run2(void (*fn)(void *), void *a, void *b, uint64_t work);

/* A depth-first frame over a CSR range: heaps hold lists millions deep,
 * but most walks stay shallow, so only what is pushed is touched. */
typedef struct hc_frame {
    uint32_t cur, end; /* next edge (or child) and the end of its
                                    range (edge_start32: edge indices fit) */
    uint32_t pre;      /* preorder number of the node scanned */
} hc_frame;

static inline int
hc_push(hc_frame **st, size_t *cap, size_t sp, hc_frame f)
{
    /* The test inline: a DFS pushes once a node, and the call was ~5 % of
     * the dominator pass's walk. */
    if (sp >= *cap && hc_stack_reserve((void **)st, cap, sp, sizeof(**st)) != PP_OK)
        return PP_ENOMEM;
    (*st)[sp] = f;
    return PP_OK;
}

/* Per-type figures keyed by type name. Type indexes are per file and names
 * repeat (one type per module; dotnet-gcdump's "(Bytes > 1K)" pseudo-types
 * per size bucket), so the identity of a type is its display name, with the
 * size-bucket suffix removed when merge_buckets is set. Keys are sorted by
 * strcmp, so two dumps join by a merge. */
typedef struct hc_keys {
    uint32_t nkeys;
    char **name;             /* [nkeys] sorted, owned */
    uint32_t *type_key;      /* [type_count] key of each type index */
    uint64_t *count, *bytes; /* [nkeys] as recorded */
    double *scount, *sbytes; /* [nkeys] scaled by the sampling
                                    multipliers (= count/bytes unsampled) */
} hc_keys;

int hc_keys_build(const pp_heap_snapshot *s, int merge_buckets, hc_keys *k);
void hc_keys_free(hc_keys *k);
/* Index of name in k, or HC_NONE. */
uint32_t hc_keys_find(const hc_keys *k, const char *name);
/* Length of name without a trailing " (Bytes > 10K)"-style suffix. */
size_t hc_base_name_len(const char *name);

/* Dominator tree of the nodes reachable from the root (semi-NCA: Lengauer-
 * Tarjan semidominators, then nearest common ancestors; O(m log n);
 * heap_dominators.c). */
typedef struct hc_dom {
    uint32_t n;
    uint32_t *idom;     /* [n] immediate dominator; HC_NONE when
                                    unreachable; idom[root] = root */
    uint64_t *retained; /* [n] size of the dominator subtree (0 when
                                    unreachable) */
    uint32_t *rpo;      /* [nreach] reachable nodes in DFS preorder:
                                    each comes after its immediate dominator */
    uint32_t nreach;
    uint32_t *ipre; /* [nreach] preorder number of the immediate
                                    dominator of preorder i (ipre[0] = 0) */
} hc_dom;

int hc_dominators(const pp_heap_snapshot *s, hc_dom *d);
/* The dominator pass alone (heap_dominators.c), for the sums of
 * heap_retained.c: *rpo (preorder -> node; with packed and node_count <=
 * 2^24, 3 bytes an entry, read with hc_rpo_at, else a uint32_t array:
 * *rpo_bytes says which) and *ipre (preorder number of each preorder's
 * immediate dominator, ipre[0] = 0) over the *nreach reachable nodes, and
 * *spare8, a buffer of node_count u64 plus 16 bytes the pass is done with
 * (for the caller's next pass). With lists, the pass hands out the
 * dominator tree's children instead of ipre, as hc_dom_children(*ipre,
 * *nreach, first, size) would make them with first = *spare8 and size =
 * first + node_count (built beside the pass's last steps). All three are
 * the caller's to free. beside (may be NULL) is a job of the caller's,
 * run once beside the semidominators (the second core is idle there),
 * before the pass returns PP_OK; if it returns other than PP_OK, so does
 * the pass. PP_OK or PP_ENOMEM (then nothing of the pass's is left
 * allocated; beside may or may not have run). */
int hc_dom_core(const pp_heap_snapshot *s, int packed, int lists, void **rpo, unsigned *rpo_bytes,
                uint32_t **ipre, uint64_t **spare8, uint32_t *nreach, int (*beside)(void *),
                void *beside_arg);

/* Dominator-tree children as lists over preorder numbers: first[p] is p's
 * first child, and next[w], written over ipre[w] (read here for the last
 * time), w's next sibling; HC_NONE ends a list. Children come in ascending
 * preorder, as a counting sort into CSR gives them, but in 4 bytes a node
 * instead of CSR's 8. With size (may be NULL), size[p] becomes the number
 * of nodes p dominates, itself included. */
void hc_dom_children(uint32_t *ipre_next, uint32_t nr, uint32_t *first, uint32_t *size);
/* hc_dom_children with size[w] = 1 already for every w < nr (set
 * beside other work by the caller, with hc_set_ones). */
void hc_dom_children_sized(uint32_t *ipre_next, uint32_t nr, uint32_t *first, uint32_t *size);
void hc_set_ones(uint32_t *a, uint32_t n);

/* rpo (preorder -> node) is written once, in order, by the DFS and read
 * again only when the dominator pass hands it out: in between it is
 * delta-coded (on the bench heap 92 % of the differences are below 16).
 * This writes its nr entries out in width (3 or 4) bytes each. */
void hc_rpo_decode(const uint8_t *coded, uint32_t nr, uint8_t *rpo, unsigned width);

/* Entry c of a 3- or 4-byte rpo of hc_dom_core (little-endian). */
static inline uint32_t
hc_rpo_at(const uint8_t *rpo, uint32_t c, unsigned b)
{
    const uint8_t *p = rpo + (size_t)c * b;
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    return b == 4 ? v | (uint32_t)p[3] << 24 : v;
}
void hc_dom_free(hc_dom *d);

/* Retained bytes per key: the sum of retained[x] over nodes x of that key
 * that have no dominator of the same key (so nested instances, a list
 * node holding the next, count once). out is [k->nkeys]. d->ipre holds
 * the walk's sibling links meanwhile and is as it was on return. */
int hc_retained_by_key(const pp_heap_snapshot *s, const hc_dom *d, const hc_keys *k, uint64_t *out);

/* Buffers one pass hands to the next, so that it does not fault in fresh
 * pages for memory the process already has. Each holds up to two malloc'd
 * buffers; hc_spare_take gives one of at least bytes (then the caller's,
 * to free) or NULL; hc_spare_free frees what is left. */
typedef struct hc_spare {
    void *buf[2];
    size_t len[2];
} hc_spare;
void hc_spare_put(hc_spare *sp, void *p, size_t bytes);
void *hc_spare_take(hc_spare *sp, size_t bytes);
void hc_spare_free(hc_spare *sp);

/* hc_dominators and hc_retained_by_key in one, for a caller that needs
 * only per-key figures: out[k->nkeys] as hc_retained_by_key; best (NULL,
 * or [k->nkeys]) the reachable instance of each key retaining the most,
 * the lowest node index among equals (HC_NONE: none reachable);
 * *reach_bytes the root's retained size, *nreach the reachable nodes. No
 * per-node result is kept, so the peak is the dominator pass's alone.
 * With spare (may be NULL), its two largest buffers go there, not back.
 * Past hc_split_min, the dominator pass's middle and the tree's walk run
 * in two parts on two threads (hc_run2), and its last serial steps each
 * have a job beside them (the subtree sizes' start beside the
 * semidominators, the preorder's decode beside the children's lists);
 * the figures are the same. */
int hc_retained_summary(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out, uint32_t *best,
                        uint64_t *reach_bytes, uint32_t *nreach, hc_spare *spare);
/* hc_retained_summary with the caller's job beside the dominator pass's
 * semidominators (hc_dom_core's beside): k, out and best are read only
 * after it ran, so it may build k (out and best then need room for the
 * most keys there can be, one a type). */
int hc_retained_summary_beside(const pp_heap_snapshot *s, const hc_keys *k, uint64_t *out,
                               uint32_t *best, uint64_t *reach_bytes, uint32_t *nreach,
                               hc_spare *spare, int (*beside)(void *), void *beside_arg);

/* A sequence of node indices written once, in order, as the difference
 * to the previous one (the DFS's and the BFS's orders keep most of them
 * small: about 1 byte a node instead of 4). A difference, zigzagged,
 * below 2^7 is one byte, below 2^14 two (10xxxxxx, then the low byte);
 * any other is 0xC0 and the index itself, 4 bytes (hc_delta_put_abs
 * writes that form always: a point to start decoding from). */
enum { HC_DELTA_MAX_BYTES = 5 };

static inline size_t
hc_delta_put_abs(uint8_t *b, size_t len, uint32_t w)
{
    b[len] = 0xC0;
    memcpy(b + len + 1, &w, sizeof(w));
    return len + 5;
}

static inline size_t
hc_delta_put(uint8_t *b, size_t len, uint32_t prev, uint32_t w)
{
    uint32_t d = w - prev, z = (d << 1) ^ (0u - (d >> 31));
    if (z < 0x80) {
        b[len] = (uint8_t)z;
        return len + 1;
    }
    if (z < 0x4000) {
        b[len] = (uint8_t)(0x80 | (z >> 8));
        b[len + 1] = (uint8_t)z;
        return len + 2;
    }
    return hc_delta_put_abs(b, len, w);
}

/* The index after prev at b[*k]; *k moves past it. */
static inline uint32_t
hc_delta_get(const uint8_t *b, size_t *k, uint32_t prev)
{
    uint32_t c = b[(*k)++];
    if (c < 0xC0) {
        uint32_t z = c < 0x80 ? c : ((c & 0x3f) << 8) | b[(*k)++];
        return prev + ((z >> 1) ^ (0u - (z & 1)));
    }
    uint32_t w;
    memcpy(&w, b + *k, sizeof(w));
    *k += 4;
    return w;
}

/* Breadth-first search from the root: parent[] (HC_NONE when unreached,
 * parent[root] = root), so parents give a shortest path to the root. */
int hc_bfs_parents(const pp_heap_snapshot *s, uint32_t **parent);

/* The whole BFS tree of hc_bfs_parents, built beside other work and kept
 * small (heap_bfs_tree.c: ~1.4 bytes a reachable node on the bench heap).
 * hc_bfs_tree_start begins the search on a thread of its own (s must stay
 * valid until the tree is freed; without a thread, hc_bfs_tree_paths does
 * it). hc_bfs_tree_paths waits for it, then fills parent[node_count]
 * (the caller's) with hc_bfs_parents' parents on the paths from each
 * reachable target to the root (parent[root] = root), HC_NONE at each
 * target not reached; the other entries are left as they were.
 * PP_ENOMEM when the search could not be held. hc_bfs_tree_free stops the
 * search if it runs and frees the tree, whatever came before. */
typedef struct hc_bfs_tree {
    const pp_heap_snapshot *s;
    uint8_t *queue; /* BFS order, delta-coded */
    size_t *ck;     /* offset of every 256th entry (written whole) */
    uint64_t *up;   /* per dequeued node: 1 a child appended, then 0 */
    uint32_t *rank; /* 1s before each 512 bits of up */
    uint32_t nblocks, nreach;
    int rc;
    int running;
    _Atomic int abort;
    pthread_t tid;
} hc_bfs_tree;

void hc_bfs_tree_start(hc_bfs_tree *t, const pp_heap_snapshot *s);
int hc_bfs_tree_paths(hc_bfs_tree *t, const uint32_t *targets, uint32_t ntargets, uint32_t *parent);
void hc_bfs_tree_free(hc_bfs_tree *t);

/* "root > a > b > node" in buf (type names, elided in the middle when more
 * than 16 steps); returns the number of steps, 0 if node is unreachable.
 * A static root "[static var T.f]" reads "[static T.f]" when T names the
 * declaring class, and "[static field ?.f]" when T is only the held
 * object's type (CoreCLR dumps: the class is not recorded); then
 * *unknown_class (if not NULL) is set to 1. */
uint32_t hc_path_string(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node, char *buf,
                        size_t size);
uint32_t hc_path_string_ex(const pp_heap_snapshot *s, const uint32_t *parent, uint32_t node,
                           char *buf, size_t size, int *unknown_class);

/* hc_bfs_parents plus the BFS order of the *nreach reachable nodes (root
 * first), both owned by the caller. */
int hc_bfs_order(const pp_heap_snapshot *s, uint32_t **parent, uint32_t **order, uint32_t *nreach);

/* The path that holds the most of one type: from the root, down the
 * shortest-path tree into the child whose subtree holds the most bytes of
 * the key's instances, to the first instance. hc_growth_init lays the BFS
 * tree of hc_bfs_order out by queue position (12 bytes a reachable node,
 * order and parent stay borrowed); each hc_growth_path_end is then one
 * streaming pass. It returns that instance (give it to hc_path_string),
 * HC_NONE if none is reachable. */
typedef struct hc_growth {
    const uint32_t *order; /* [nreach] BFS order (borrowed) */
    uint32_t nreach;
    uint32_t *pkey; /* [nreach] key of the node at each position */
    uint32_t *ppar; /* [nreach] position of its BFS parent */
    uint64_t *mass; /* [nreach] scratch */
} hc_growth;

int hc_growth_init(const pp_heap_snapshot *s, const uint32_t *parent, const uint32_t *order,
                   uint32_t nreach, const uint32_t *type_key, hc_growth *g);
uint32_t hc_growth_path_end(const pp_heap_snapshot *s, hc_growth *g, uint32_t key);
void hc_growth_free(hc_growth *g);

/* mark[i] = 1 for every node reachable from a node whose type is named
 * root_name ("[static vars]"). *nstarts is how many such nodes exist. */
int hc_reachable_from_named(const pp_heap_snapshot *s, const char *root_name, uint8_t **mark,
                            uint32_t *nstarts);

#endif
