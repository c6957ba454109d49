/* plugins/cpu: the analyzer's state, shared by the consume side (cpu.c)
 * and the report side (report.c). */
#ifndef PP_CPU_CPU_H
#define PP_CPU_CPU_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"
#include "../common/frames.h"
#include "../common/stacks.h"
#include "../common/u64map.h"
#include "../common/window.h"

/* SampleProfiler ThreadSample: event id 0, payload u32 Type. */
#define PP_CPU_SAMPLE_EVENT_ID 0u
#define PP_CPU_SAMPLE_ERROR    0u
#define PP_CPU_SAMPLE_EXTERNAL 1u
#define PP_CPU_SAMPLE_MANAGED  2u

/* Columns of the raw (thread, stack) aggregate; NS is filled in finish(). */
enum { PP_CPU_SAMPLES = 0, PP_CPU_NS = 1 };

/* A gap longer than this many median intervals is not all the sample's:
 * the thread went unsampled (no managed frame, e.g. an idle finalizer
 * thread, or sweeps skipped during a GC suspension). */
#define PP_CPU_MAX_GAP_INTERVALS 100

/* Gaps are kept in 32 bits (8 bytes a sample, not 16): a thread's first
 * sample has none, and a gap of PP_CPU_GAP_BIG ns or more (4.3 s) is kept
 * exactly in a side list, in the order of the samples. */
#define PP_CPU_GAP_FIRST UINT32_MAX
#define PP_CPU_GAP_BIG   (UINT32_MAX - 1)

/* One admitted sample: its raw row and the gap to its thread's previous
 * sample (PP_CPU_GAP_FIRST for a thread's first sample). */
typedef struct pp_cpu_sample {
    uint32_t row;
    uint32_t gap;
} pp_cpu_sample;

/* An append-only list of exact int64 values (the big gaps). */
typedef struct pp_cpu_i64s {
    int64_t *v;
    uint64_t n, cap;
} pp_cpu_i64s;

typedef struct pp_cpu_thread {
    uint64_t tid;
    int64_t last_ns; /* time of its previous sample, any type */
} pp_cpu_thread;

typedef struct pp_cpu {
    const pp_host_api *host;
    pp_ctx *ctx;

    /* options */
    int managed_only;   /* view=managed */
    int sort_inclusive; /* sort=inclusive */
    int64_t top;
    int64_t top_stacks;
    int thread_stacks; /* emit by_thread_stack (thread-stacks=true) */
    const char *focus; /* NULL = no caller/callee tables */
    pp_pc_window window;

    /* consumed */
    const pp_trace_source *source;
    pp_pc_stacks stacks;       /* sealed 4 bytes a frame before the report */
    pp_pc_u64map thread_index; /* tid -> index in threads */
    pp_cpu_thread *threads;
    uint32_t nthreads, capthreads;
    /* The raw aggregate: one row per (thread slot, stack id), in first-seen
     * order, with columns samples and ns (PP_CPU_SAMPLES, PP_CPU_NS). */
    pp_pc_u64map raw_index; /* slot << 32 | stack id -> row */
    uint64_t *raw_key;      /* [nraw] slot << 32 | stack id */
    int64_t *raw_vals;      /* [nraw * 2] */
    uint32_t nraw, capraw;
    /* Weights are set in finish(), once the median interval is known: the
     * first sample of a thread gets the median, a gap is capped at
     * PP_CPU_MAX_GAP_INTERVALS medians. */
    pp_cpu_sample *log; /* admitted samples */
    uint64_t nlog, caplog;
    pp_cpu_i64s log_big; /* exact gaps of the log's PP_CPU_GAP_BIG entries */
    uint32_t *intervals; /* every sample-to-sample gap, for the median */
    uint64_t nintervals, capintervals;
    pp_cpu_i64s intervals_big; /* exact values of the PP_CPU_GAP_BIG intervals */
    uint64_t samples_seen;     /* every ThreadSample in the trace */
    uint64_t by_type[3];       /* admitted samples per type (Error, External, Managed) */
    uint64_t samples;          /* admitted samples in the view */
    uint64_t malformed;
    uint64_t lost_stack; /* admitted samples naming a stack the (damaged) trace lost */
    uint64_t events;
    int64_t first_ns, last_ns;
    struct pp_cpu_rt *rt; /* exception and contention events (rtevents.h) */
    /* Per stack id: admitted samples, and those of type Managed (the thread
     * ran managed code): a lock's spin loop is not a wait (blocked.h). */
    uint32_t *stack_samples, *stack_managed;
    uint32_t stack_cap;
} pp_cpu;

/* Row `row` of the raw aggregate: its thread slot, stack id and columns. */
static inline uint32_t
pp_cpu_raw_slot(const pp_cpu *c, uint32_t row)
{
    return (uint32_t)(c->raw_key[row] >> 32);
}
static inline uint32_t
pp_cpu_raw_stack(const pp_cpu *c, uint32_t row)
{
    return (uint32_t)c->raw_key[row];
}
static inline int64_t *
pp_cpu_raw_vals(const pp_cpu *c, uint32_t row)
{
    return c->raw_vals + (size_t)row * 2;
}

int pp_cpu_report(pp_cpu *c, pp_ctx *ctx, pp_error *err);

#endif
