/* Private: a heap snapshot rebuilt from the runtime's GC heap-dump events
 * (GCBulkType, GCBulkNode, GCBulkEdge, GCBulkRootEdge, conditional-weak-
 * table, CCW and static-variable roots, module rundown), streamed: nodes
 * are defined as their edges arrive, so memory is bounded by the heap
 * (measured: about 50 MB per million objects at 2 M and 10 M,
 * bench/RESULTS.md), not by the events.
 *
 * The graph is the one dotnet-gcdump builds from the same events (its
 * DotNetHeapDumpGraphReader): one node per object and per address seen as
 * a reference or root, the "[.NET Roots]" tree of pseudo nodes, type names
 * as it spells them (generic arity dropped, [] for <>, size buckets
 * "T (Bytes > 1K)" for objects over 1000 bytes, "UNKNOWN 0x..." for a type
 * never described), interned on "module!name". So per-type counts and bytes
 * of a perfpipe snapshot and a dotnet-gcdump snapshot of the same heap are
 * equal.
 *
 * Use: feed every event of the session (heap_events.c), stop the session
 * when pp_heap_graph_done(), feed the rest of the stream (the rundown names
 * the modules), then pp_heap_graph_finish(). */
#ifndef PP_CORE_IPC_HEAP_GRAPH_H
#define PP_CORE_IPC_HEAP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

typedef struct pp_heap_graph pp_heap_graph;

/* Counters for progress lines and the summary. */
typedef struct pp_heap_graph_stats {
    uint64_t events; /* heap-dump events taken */
    uint64_t nodes;  /* objects defined so far */
    uint64_t edges;
    uint64_t types;       /* BulkType entries seen */
    uint64_t bytes;       /* sum of object sizes */
    uint64_t rcw_ignored; /* GCBulkRCW entries (Windows COM; not attributed) */
    uint64_t redefined;   /* objects described twice (the last description wins) */
    int state;            /* 0 waiting for the GC, 1 in the dump, 2 done */
    uint32_t gc_number;
} pp_heap_graph_stats;

int pp_heap_graph_new(pp_heap_graph **out, pp_error *err);
void pp_heap_graph_free(pp_heap_graph *g);

/* Take one event of the session (any provider; the heap dump's and module
 * events are used, others ignored). PP_EFORMAT on a payload that does not
 * fit its event or bulk events out of sequence (the runtime dropped some),
 * with the event named; PP_ENOMEM. */
int pp_heap_graph_event(pp_heap_graph *g, const pp_trace_event *ev, pp_error *err);

/* The induced blocking gen2 GC of the dump has ended (GCEnd seen). */
int pp_heap_graph_done(const pp_heap_graph *g);
void pp_heap_graph_stats_get(const pp_heap_graph *g, pp_heap_graph_stats *out);

/* Build the pseudo-root tree, name the types and lay the graph out as a
 * pp_heap_snapshot (edges in CSR form). The snapshot is owned by g and
 * valid until pp_heap_graph_free. Errors: PP_EFORMAT when the dump never
 * started or never ended, or nodes and edges do not match up. */
int pp_heap_graph_finish(pp_heap_graph *g, const pp_heap_snapshot **out, pp_error *err);

/* ---- shared between heap_events.c and heap_graph.c ---- */

/* One object of a GCBulkNode event. */
typedef struct pp_heap_node_in {
    uint64_t address, size, type_id, edge_count;
} pp_heap_node_in;

int pp_hg_bulk_node(pp_heap_graph *g, uint32_t index, const pp_heap_node_in *v, uint32_t n,
                    pp_error *err);
int pp_hg_bulk_edge(pp_heap_graph *g, uint32_t index, const uint64_t *target, uint32_t n,
                    pp_error *err);
/* GCBulkRootEdge value: kind, flags as the runtime logs them. */
int pp_hg_root(pp_heap_graph *g, uint64_t address, uint8_t kind, uint32_t flags);
/* The start of a GCBulkRootEdge event ("[static vars]" exists from then). */
int pp_hg_root_event(pp_heap_graph *g);
/* A GCBulkRootConditionalWeakTableElementEdge event, its values. */
int pp_hg_cwt_event(pp_heap_graph *g);
int pp_hg_cwt(pp_heap_graph *g, uint64_t key, uint64_t value);
int pp_hg_ccw(pp_heap_graph *g, uint64_t object, uint64_t type_id, uint64_t iunknown);
int pp_hg_static(pp_heap_graph *g, uint64_t object, uint64_t type_id, uint32_t flags,
                 const char *field);
/* A BulkType entry; name is UTF-8 as logged ("" when the runtime gave none). */
int pp_hg_type(pp_heap_graph *g, uint64_t type_id, uint64_t module_id, uint32_t type_name_id,
               uint32_t flags, const char *name);
/* A module load or rundown entry: its IL path names the types' module. */
int pp_hg_module(pp_heap_graph *g, uint64_t module_id, const char *il_path);
/* GC start / end of the runtime provider, with the event's timestamp and
 * the thread that logged it (events of several threads are not in time
 * order in the stream). */
void pp_hg_gc_start(pp_heap_graph *g, uint32_t count, uint32_t depth, uint32_t reason,
                    uint32_t type, uint32_t pointer_size, uint64_t timestamp);
void pp_hg_gc_end(pp_heap_graph *g, uint32_t count, uint64_t thread);
/* A heap-walk event (node, edge, root, dependent handle, CCW, static):
 * 1 when it belongs to the dump, 0 to ignore it. The first one begins the
 * walk (its GCStart may come later in the stream); restarts says the event
 * is the first of a new walk (Index 0 of nodes or edges already taken),
 * which after the dump's end is another session's dump. */
int pp_hg_walk_event(pp_heap_graph *g, uint64_t thread, uint64_t timestamp, uint32_t pointer_size,
                     int restarts);
/* Whether a GCBulkNode / GCBulkEdge with Index 0 would start a new walk. */
int pp_hg_restarts(const pp_heap_graph *g, uint32_t event_id, uint32_t index);
void pp_hg_count_event(pp_heap_graph *g);
void pp_hg_rcw(pp_heap_graph *g, uint32_t n);

#endif
