/* plugins/gc: every garbage collection of a nettrace (PerfView's GCStats
 * on Linux, issue 37).
 *
 * consume() keeps the few GC events a trace carries as compact records;
 * finish() sorts them by time and runs them through the same GC model as
 * TraceEvent's TraceLoadedDotNetRuntime (model.c), so each GC's
 * generation, reason, type and pause are the ones PerfView shows. Keeping
 * records (not state) makes a region of the file a list that a merge
 * appends, so the analyzer reads --jobs regions like the others. */
#ifndef PP_PLUGIN_GC_H
#define PP_PLUGIN_GC_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/frames.h"

/* Record kinds: the runtime events the model reads. */
enum {
    GC_EV_START = 1,   /* GCStart: a=Count b=Depth c=Reason d=Type */
    GC_EV_END,         /* GCEnd: a=Count */
    GC_EV_SUSPEND,     /* GCSuspendEEBegin: a=Reason */
    GC_EV_SUSPEND_END, /* GCSuspendEEEnd */
    GC_EV_RESTART_END, /* GCRestartEEEnd */
    GC_EV_HEAPSTATS,   /* GCHeapStats: size[], promoted[], a=PinnedObjectCount */
    GC_EV_GLOBAL,      /* GCGlobalHeapHistory: a=NumHeaps */
    GC_EV_PERHEAP,     /* GCPerHeapHistory: size[] = SizeBefore per generation */
    GC_EV_ALLOC,       /* GCAllocationTick: a=kind (0 small), amount */
    GC_EV_TRIGGERED,   /* GCTriggered: a=Reason, stack */
};

#define GC_GENS      5 /* gen0, gen1, gen2, LOH, POH */
#define GC_MAX_STACK 64

typedef struct gc_rec {
    int64_t t; /* time_ns */
    uint64_t thread;
    uint64_t order; /* file order, the tie-break of equal times */
    uint32_t kind, a, b, c, d;
    uint32_t stack_off, stack_len;
    uint64_t amount;
    uint64_t size[GC_GENS];
    uint64_t promoted[GC_GENS];
} gc_rec;

/* Type of a GC (GCStart's Type). */
#define GC_TYPE_BLOCKING   0u
#define GC_TYPE_BACKGROUND 1u
#define GC_TYPE_FOREGROUND 2u

/* One GC as the model builds it. Times in ns since the trace's start. */
typedef struct gc_one {
    uint32_t number, gen, type, reason;
    int complete, has_stats, has_alloc_ticks;
    int64_t start, pause_start, pause, suspend, duration;
    uint64_t after[GC_GENS], promoted[GC_GENS];
    uint32_t pinned;
    uint32_t heaps_hist;           /* GCPerHeapHistory events attached */
    uint64_t before_hist[GC_GENS]; /* their SizeBefore, summed over heaps */
    int32_t heap_count;            /* GCGlobalHeapHistory's NumHeaps, -1 */
    int64_t alloc_since[2];        /* allocation-tick bytes since the last GC: small, large */
    double before_mb;              /* heap size before (TraceEvent's HeapSizeBeforeMB) */
    int64_t trigger;               /* the GCTriggered record that started it, -1 */
} gc_one;

typedef struct gc_model {
    gc_one *gcs;
    uint32_t count, cap;
    int32_t heap_count;       /* first NumHeaps seen, -1 */
    int64_t last_restart_end; /* time of the last GCHeapStats (TraceEvent's name) */
} gc_model;

typedef struct gc_state {
    const pp_host_api *host;
    pp_ctx *ctx;
    const pp_options *opts;
    const pp_trace_source *src;
    gc_rec *recs;
    uint64_t nrecs, cap;
    uint64_t *ips;
    uint64_t nips, ips_cap;
    uint64_t events;           /* runtime events seen */
    int64_t first_ns, last_ns; /* span of every event read */
    uint32_t startup_flags;    /* Runtime/Start's StartupFlags */
    int saw_runtime_start;
    /* options */
    double pause_share_pct, long_pause_ms, storm_seconds, growth_ratio;
    int64_t pinned_objects, top;
    pp_pc_prefixes framework;
} gc_state;

/* model.c: sort st's records into time order and build the GCs as
 * TraceEvent's GC model does. PP_OK or PP_ENOMEM. */
int gc_model_build(gc_state *st, gc_model *m);
void gc_model_free(gc_model *m);
/* TraceEvent's GCReason names ("AllocSmall", "Induced", ...). */
const char *gc_reason_name(uint32_t reason);
const char *gc_type_name(uint32_t type);
int gc_is_induced(uint32_t reason);

/* report.c: tables, totals and findings. */
int gc_report(gc_state *st, pp_ctx *ctx, pp_error *err);

/* The tables finish builds, declared (tables.c): report.c passes each
 * one's columns to table_new. */
enum { PP_GC_TABLE_GCS, PP_GC_TABLE_BY_GENERATION, PP_GC_TABLE_INDUCED_CALLERS };
extern const pp_table_decl pp_gc_tables[];

#endif
