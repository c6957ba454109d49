/* plugins/alloc: the analyzer's state, shared by the consume side
 * (alloc.c) and the report side (report.c). */
#ifndef PP_ALLOC_ALLOC_H
#define PP_ALLOC_ALLOC_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"
#include "../common/u64map.h"
#include "../common/frames.h"
#include "../common/strtab.h"
#include "../common/window.h"
#include "rows.h"
#include "../common/stacks.h"
#include "typecache.h"

/* Stack id of a tick that carried no stack. */
#define PP_ALLOC_NO_STACK UINT32_MAX

/* Rows of by_stack by default. A deep-stack service has hundreds of
 * thousands of distinct stacks (262,941 on a 1.6 GB trace: a 206 MB result
 * document, most of alloc's memory); the answer is the ranking, and the
 * stacks past the first thousand are summed in one row. Flame-graph tools
 * that want every stack ask for top-stacks=0 (the quick path does for
 * folded and speedscope). */
#define PP_ALLOC_TOP_STACKS 1000

/* Columns of the aggregates built in finish(). */
enum { PP_ALLOC_BYTES = 0, PP_ALLOC_SAMPLES = 1 };

/* A tick on its way to the rows. On a deep-stack trace nearly every tick
 * misses the cache on its row (262,941 stacks, a row each at least), and
 * that miss was a quarter of alloc's time, each waited for in turn. So a
 * tick's row is prefetched and the tick added at the next tick (or in
 * finish), while the reader decodes in between. The order rows are added
 * in does not change; a hint is only written back while the stack index
 * has not moved (gen), and hints never decide identity (rows.h). */
typedef struct pp_alloc_pending {
    int have;
    uint32_t type, stack, kind, thread;
    int64_t bytes;
    uint32_t hint;  /* the stack's memo as read */
    uint32_t *memo; /* where it lives, or NULL */
    uint32_t gen;   /* a->stacks.gen when memo was handed out */
} pp_alloc_pending;

#if defined(__GNUC__) || defined(__clang__)
#define PP_ALLOC_PREFETCH(p) __builtin_prefetch((p), 1)
#else
#define PP_ALLOC_PREFETCH(p) ((void)(p))
#endif

typedef struct pp_alloc {
    const pp_host_api *host;
    pp_ctx *ctx;
    const pp_options *opts; /* kept for fork (they live until destroy) */

    /* options */
    int64_t top;        /* rows per table, 0 = all */
    int64_t top_stacks; /* rows of by_stack, 0 = all; the rest in one row */
    pp_pc_prefixes framework;
    pp_pc_prefixes focus;
    int fold_generated; /* responsible frame: lambdas etc. -> their method */
    int type_stacks;    /* emit by_type_stack (type_stacks.h) */
    pp_pc_window window;
    int64_t expect_min_bytes; /* 0 = no expectation */
    const char *expect_from;  /* "option" or "knob" */

    /* consumed */
    const pp_trace_source *source;
    pp_pc_strtab types;            /* type names */
    pp_pc_stacks stacks;           /* distinct stacks, by content */
    pp_alloc_typecache type_cache; /* TypeID + raw name -> types id */
    pp_alloc_rows raw;             /* bytes, samples by (type, stack, kind) */
    uint64_t ticks_seen;           /* every tick in the trace, before the window */
    uint64_t ticks;                /* ticks inside the window */
    uint64_t ticks_no_stack;       /* the session recorded no stack */
    uint64_t ticks_lost_stack;     /* named a stack no StackBlock defines (records.h) */
    uint64_t malformed;
    int64_t malformed_first_ns;
    char malformed_what[96];
    uint64_t events;
    int64_t first_ns, last_ns;
    int64_t first_tick_ns, last_tick_ns; /* admitted ticks: the allocating span */
    char *scratch;                       /* TypeName decoding buffer */
    size_t scratch_cap;
    /* The bound on the sampled total: each (heap, kind) keeps its own
     * running amount, under one threshold left unreported at any instant. */
    pp_pc_u64map heap_kinds; /* (heap index << 8 | kind) of admitted ticks */
    uint32_t nheap_kinds;
    uint64_t gcs; /* GC/Start events in the window */
    /* (raw row << 32 | thread) of each tick: how many threads allocate a
     * row (a pool allocates once per thread, a per-call buffer once per
     * call). At most one entry per tick (one per ~100 KB allocated), in
     * practice one per row and thread. */
    pp_pc_u64map row_threads;
    uint64_t last_row_thread; /* the key put last, + 1 (0 = none): a thread's
                                  ticks come in runs, and a put probes a big map */
    pp_alloc_pending pend;
} pp_alloc;

/* GCAllocationTick fires once a heap's running amount for a kind passes
 * this (gc.cpp etw_allocation_tick: 100 KB). */
#define PP_ALLOC_TICK_THRESHOLD (100 * 1024)

/* Add the tick waiting in a->pend to the rows (pending.c). PP_OK or
 * PP_ENOMEM. */
int pp_alloc_flush(pp_alloc *a);

/* Fold c, a child that read the part of the trace after a's, into a, as
 * if a had read it (merge.c): names, stacks and rows in c's first-seen
 * order after a's, so ids, row order and every sum are the serial read's.
 * c is left to be destroyed. PP_OK or PP_ENOMEM (err filled). */
int pp_alloc_merge(pp_alloc *a, pp_alloc *c, pp_error *err);

/* Build tables, findings and totals (report.c). */
int pp_alloc_report(pp_alloc *a, pp_ctx *ctx, pp_error *err);

/* The tables finish writes, by their place in pp_alloc_tables (alloc.c: the descriptor's
 * declarations, each writer makes its table from its entry). */
enum {
    PP_ALLOC_T_BY_TYPE,
    PP_ALLOC_T_BY_FRAME,
    PP_ALLOC_T_BY_TYPE_FRAME,
    PP_ALLOC_T_BY_TYPE_FRAME_KIND,
    PP_ALLOC_T_BY_KIND,
    PP_ALLOC_T_BY_STACK,
};
extern const pp_table_decl pp_alloc_tables[];

#endif
