/* Private to heap_graph.c and heap_graph_finish.c: the builder's state. */
#ifndef PP_CORE_IPC_HEAP_GRAPH_IMPL_H
#define PP_CORE_IPC_HEAP_GRAPH_IMPL_H

#include "ipc/heap_graph.h"
#include "ipc/heap_map.h"

#define NONE               UINT32_MAX
#define FIXED_BIT          0x80000000u /* tslot = FIXED_BIT | k: type fixed[k] */
#define NBUCKETS           7           /* 0 = no size suffix, 1..6 = 1K..100M */
#define MAX_EDGES_PER_NODE (UINT32_C(1) << 30)

/* Runtime constants (gcinterface.ee.h, eventtrace). */
#define ROOT_KIND_STACK          0
#define ROOT_KIND_FINALIZER      1
#define ROOT_KIND_HANDLE         2
#define ROOT_FLAG_PINNING        0x1u
#define ROOT_FLAG_WEAKREF        0x2u
#define ROOT_FLAG_REFCOUNTED     0x8u
#define TYPE_FLAG_COM            0x4u
#define TYPE_FLAG_ARRAY          0x8u
#define STATIC_FLAG_THREAD_LOCAL 0x1u

typedef struct tinfo {
    uint64_t id, module;
    uint32_t name_id, flags;
    char *name;              /* as logged; NULL = never described */
    uint32_t slot[NBUCKETS]; /* tslot per size bucket */
    uint32_t base;           /* finish: its type index (NONE until made) */
} tinfo;

typedef struct tslot {
    uint32_t tinfo;
    uint32_t bucket;
} tslot;

typedef struct builder {
    char *name;
    uint32_t node;
    uint32_t *kids; /* node indexes, builders' included, in order */
    uint32_t nkids, capkids;
    uint32_t *bkids; /* child builders, in creation order */
    uint32_t nbkids, capbkids;
} builder;

typedef struct static_root {
    uint64_t object, type_id;
    uint32_t flags;
    char *field;
} static_root;
typedef struct ccw_root {
    uint64_t object, type_id, iunknown;
} ccw_root;

struct pp_heap_graph {
    pp_haddr addr; /* address -> node index (keys: node_addr) */
    uint64_t *node_addr;
    uint32_t *node_tslot; /* NONE = undefined */
    uint32_t *node_size;
    uint64_t *node_ebeg; /* into edges (definition order) */
    uint32_t *node_ecnt;
    uint32_t nnodes, capnodes;
    uint32_t *edges;
    uint64_t nedges, capedges;

    pp_heap_node_in *pn; /* objects waiting for their edges */
    size_t pn_head, pn_len, pn_cap;
    uint64_t *pe; /* edges waiting for their object */
    size_t pe_head, pe_len, pe_cap;
    uint32_t next_node_event, next_edge_event;

    pp_hmap64 tmap; /* type id -> tinfo */
    tinfo *tinfos;
    uint32_t ntinfos, captinfos;
    tslot *tslots;
    uint32_t ntslots, captslots;
    uint32_t *fixed; /* fixed type indexes (CCW, pseudo nodes) */
    uint32_t nfixed, capfixed;

    pp_hmap64 mmap; /* module id -> modules[] */
    char **modules;
    uint32_t nmodules, capmodules;

    builder *builders; /* [0] = "[.NET Roots]" */
    uint32_t nbuilders, capbuilders;
    pp_hstrmap bchild; /* "parent:name" -> builder */
    static_root *statics;
    size_t nstatics, capstatics;
    ccw_root *ccws;
    size_t nccws, capccws;

    int state; /* 0 waiting, 1 collecting, 2 done */
    uint32_t gc_id, pointer_size;
    /* The walk's events and the GCStart of its GC may come from different
     * threads (Server GC), and EventPipe writes each thread's buffers in
     * turn: the file's order is not the runtime's. So the walk is told by
     * its own events, and its GC by GCStart's timestamp (heap_graph.c). */
    int have_gc, walking, closed, have_end;
    uint64_t walk_thread, walk_ts; /* the thread and time of the first walk event */
    uint64_t gc_ts;                /* the candidate GCStart's timestamp */
    uint32_t max_end;              /* the highest GC number whose GCEnd was read */
    pp_heap_graph_stats st;

    /* finish */
    int finished;
    pp_heap_type *types;
    char **type_names, **type_modules;
    uint32_t ntypes, captypes;
    pp_hstrmap intern, arrays;
    uint64_t *out_size, *out_estart;
    uint32_t *out_estart32; /* ABI 1.2; the 32-bit sizes stay in node_size */
    uint32_t *out_edges;
    pp_heap_snapshot snap;
};

/* heap_graph.c helpers used by the finish. */
int pp_hg_grow(void **p, uint64_t n, void *capp, size_t sz, int cap64);
#define GROW32(arr, n, cap) pp_hg_grow((void **)&(arr), (n), &(cap), sizeof *(arr), 0)
#define GROW64(arr, n, cap) pp_hg_grow((void **)&(arr), (n), &(cap), sizeof *(arr), 1)
int pp_hg_node_of(pp_heap_graph *g, uint64_t addr, uint32_t *idx);
int pp_hg_push_edge(pp_heap_graph *g, uint32_t child);
int pp_hg_child_builder(pp_heap_graph *g, uint32_t parent, const char *name, uint32_t *out);
int pp_hg_builder_add(pp_heap_graph *g, uint32_t b, uint32_t node);
int pp_hg_tslot_for(pp_heap_graph *g, uint64_t type_id, uint32_t bucket, uint32_t *out);
extern const char *const pp_hg_suffixes[NBUCKETS];

#endif
