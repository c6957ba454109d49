/* perfpipe — the records readers produce and plugins consume.
 *
 * Plain fixed-width structs: the hot path costs no call. Every struct starts
 * with struct_size so fields can be appended within an ABI major; a consumer
 * reads a field only if offsetof(field) + sizeof(field) <= struct_size
 * (PP_HAS_FIELD). Everything reachable from a record is BORROWED: valid until
 * the callback that received it returns, unless a comment says longer. */
#ifndef PERFPIPE_RECORDS_H
#define PERFPIPE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_HAS_FIELD(ptr, type, field)                                                             \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Input kinds, as bits so a plugin can declare several. */
#define PP_KIND_NETTRACE UINT32_C(0x1)
#define PP_KIND_GCDUMP   UINT32_C(0x2)
#define PP_KIND_COUNTERS UINT32_C(0x4)
#define PP_KIND_SPANS    UINT32_C(0x8)
#define PP_KIND_BENCH    UINT32_C(0x10) /* since ABI 1.1 */
#define PP_KIND_LOAD     UINT32_C(0x20) /* since ABI 1.5 */

typedef struct pp_guid {
    uint8_t bytes[16];
} pp_guid;

/* ---- nettrace --------------------------------------------------------- */

/* Opaque handle of the trace an event came from; pass it to the host's
 * trace_* functions. Valid until the stage's finish() returns. */
typedef struct pp_trace_source pp_trace_source;

/* Well-known providers, resolved once per metadata entry by the reader so a
 * plugin can filter without comparing strings. */
#define PP_PROVIDER_OTHER             0u
#define PP_PROVIDER_RUNTIME           1u /* Microsoft-Windows-DotNETRuntime */
#define PP_PROVIDER_RUNDOWN           2u /* Microsoft-Windows-DotNETRuntimeRundown */
#define PP_PROVIDER_SAMPLE_PROFILER   3u /* Microsoft-DotNETCore-SampleProfiler */
#define PP_PROVIDER_EVENTPIPE         4u /* Microsoft-DotNETCore-EventPipe */
#define PP_PROVIDER_DIAGNOSTIC_SOURCE 5u /* Microsoft-Diagnostics-DiagnosticSource */
#define PP_PROVIDER_TPL               6u /* System.Threading.Tasks.TplEventSource */

typedef struct pp_trace_event {
    uint32_t struct_size;
    uint32_t provider_known; /* PP_PROVIDER_* */
    uint32_t event_id;
    uint32_t version;
    uint32_t metadata_id;
    uint32_t pointer_size; /* 4 or 8 */
    const char *provider;  /* UTF-8 provider name */
    const char *name;      /* event name (metadata or runtime manifest); "" if unknown */
    const pp_trace_source *source;
    int64_t time_ns;            /* nanoseconds since the trace's sync time,
                                  * within +-2^62 (a damaged time saturates) */
    uint64_t timestamp;         /* raw timestamp in clock ticks */
    uint64_t thread_id;         /* OS thread the event is about */
    uint64_t capture_thread_id; /* OS thread that wrote it (0 if not recorded) */
    uint32_t process_id;        /* 0 if unknown */
    uint32_t processor_number;
    uint32_t sequence_number;
    uint32_t stack_id; /* 0 = no stack */
    pp_guid activity_id;
    pp_guid related_activity_id;
    const uint8_t *payload;
    uint32_t payload_size;
    uint32_t stack_depth; /* number of frames in stack[] */
    /* Instruction pointers, LEAF FIRST. NULL with stack_id != 0: the id
     * names a stack the input lost (damage the input's record reports),
     * not a capture without stacks (a 0-frame stack, stack not NULL). */
    const uint64_t *stack;
    /* ABI 1.1: the stack region the event belongs to. stack_id names one
     * stack only inside a region (the reader's stack cache is flushed at
     * each sequence point); (stack_region, stack_id) names it in the whole
     * trace, so a consumer can cache per-stack work by it. Check
     * struct_size before reading. */
    uint32_t stack_region;
} pp_trace_event;

/* A decoded payload field (host->trace_field). */
#define PP_VALUE_NONE   0u
#define PP_VALUE_INT    1u /* signed integers, bool, char */
#define PP_VALUE_UINT   2u /* unsigned integers, pointers */
#define PP_VALUE_DOUBLE 3u
#define PP_VALUE_STRING 4u /* UTF-8, NUL-terminated */
#define PP_VALUE_GUID   5u
#define PP_VALUE_BYTES  6u /* raw bytes of an array or struct */

typedef struct pp_value {
    uint32_t type;
    uint32_t size; /* bytes of .bytes / strlen of .s */
    union {
        int64_t i;
        uint64_t u;
        double d;
        const char *s; /* valid until the next trace_field call on
                                    the same source or the callback returns */
        pp_guid g;
        const uint8_t *bytes;
    } v;
} pp_value;

/* a + b saturated at int64_t's ends. Sums of values a damaged input
 * controls (bytes, durations) use it: a signed overflow is undefined
 * behaviour, and a saturated total is visibly absurd, not wrapped. */
static inline int64_t
pp_i64_add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

/* A double as an int64_t, rounded toward zero: NaN gives 0 and a value
 * outside int64_t's range saturates. A plain cast of those is undefined
 * behaviour, and a damaged input can carry any double. */
static inline int64_t
pp_i64_from_double(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775808.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* Facts of a whole trace (host->trace_info). */
typedef struct pp_trace_info {
    uint32_t struct_size;
    uint32_t format_version; /* 4, 5 or 6 */
    uint32_t pointer_size;
    uint32_t process_id;
    uint64_t clock_frequency; /* ticks per second */
    int64_t start_unix_ns;    /* wall-clock time of the sync point */
    int64_t first_event_ns;   /* time_ns of the earliest event */
    int64_t last_event_ns;    /* time_ns of the latest event (complete only at finish) */
} pp_trace_info;

/* ---- gcdump ----------------------------------------------------------- */

typedef struct pp_heap_type {
    const char *name;   /* e.g. "System.String", "System.Byte[]" */
    const char *module; /* module path or name, "" if unknown */
} pp_heap_type;

/* One whole heap snapshot, delivered as one record. Node and type indices
 * are uint32; arrays are valid until the stage's finish() returns. */
typedef struct pp_heap_snapshot {
    uint32_t struct_size;
    uint32_t pointer_size;
    uint32_t node_count;
    uint32_t type_count;
    uint64_t edge_count;
    uint32_t root;                       /* index of the root node */
    uint32_t sampled;                    /* nonzero when the dump holds a sample of the heap */
    const pp_heap_type *types;           /* [type_count] */
    const uint32_t *node_type;           /* [node_count] type index of each node */
    const uint64_t *node_size;           /* [node_count] bytes */
    const uint64_t *node_address;        /* [node_count] address, 0 for pseudo nodes */
    const uint64_t *edge_start;          /* [node_count + 1] node i's children are
                                    edges[edge_start[i] .. edge_start[i+1]) */
    const uint32_t *edges;               /* [edge_count] child node indices */
    const double *type_count_multiplier; /* [type_count] or NULL (unsampled) */
    const double *type_size_multiplier;  /* [type_count] or NULL */
    /* Appended in ABI 1.2 (check PP_HAS_FIELD): the same sizes and CSR
     * index in 32 bits, always set. Node sizes are i32 in the format and a
     * gcdump's edges are bounded by its i32 node blob, so both always fit;
     * they take half the memory of the 64-bit arrays above. For a plugin
     * that sets PP_ANALYZER_FLAG_HEAP32 (plugin.h) the host may leave
     * node_size, node_address and edge_start NULL (a gcdump file's snapshot
     * builds them only when a stage without the flag reads the same
     * input): such a plugin reads node_size32 and edge_start32, and checks
     * node_address for NULL. Every other plugin gets all of them. */
    const uint32_t *node_size32;  /* [node_count] bytes */
    const uint32_t *edge_start32; /* [node_count + 1] as edge_start */
    /* Appended in ABI 1.4 (check PP_HAS_FIELD): node types and sizes as
     * one index per node into a table of the distinct (type, size) pairs,
     * the node's "shape". Most .NET types have one size, only arrays and
     * strings vary: a 7.9 M-node heap has 501 shapes, so 2 bytes a node
     * replace the 8 of node_type and node_size32. Node v's type is
     * shape_type[sh] and its size shape_size[sh], sh = node_shape16[v] if
     * node_shape16 is set, else node_shape32[v]. Exactly one of the two is
     * set when shape_count is nonzero; node_shape16 only when shape_count
     * <= 65536 (a reader must still accept node_shape32 for fewer). For a
     * plugin that sets PP_ANALYZER_FLAG_HEAP_SHAPES (plugin.h) the host
     * may leave node_type and node_size32 NULL (a gcdump file's snapshot
     * builds them only when a stage without the flag reads the same
     * input). shape_count is 0 and all four pointers NULL for a snapshot
     * that has no shapes (other producers): read node_type and node_size32
     * then, which are set whenever the shapes are not. */
    const uint32_t *shape_type;   /* [shape_count] type index of each shape */
    const uint32_t *shape_size;   /* [shape_count] bytes */
    const uint16_t *node_shape16; /* [node_count] or NULL */
    const uint32_t *node_shape32; /* [node_count] or NULL */
    uint32_t shape_count;
    /* Appended in ABI 1.6 (check PP_HAS_FIELD): references the producer
     * dropped because they pointed past the node table (a dump cut at a
     * node limit), and how many nodes held them; 0 when the graph's edges
     * are whole. edges[] holds only the kept ones: retained sizes and
     * paths computed from it miss what the cut nodes held. */
    uint32_t dangling_nodes;
    uint64_t dangling_edges;
} pp_heap_snapshot;

/* ---- counters --------------------------------------------------------- */

#define PP_COUNTER_GAUGE      1u /* a level (working set, heap size) */
#define PP_COUNTER_RATE       2u /* a per-interval increment (CSV "Rate" rows) */
#define PP_COUNTER_CUMULATIVE 3u /* a running total */

typedef struct pp_counter_sample {
    uint32_t struct_size;
    uint32_t counter_type; /* PP_COUNTER_* */
    int64_t time_ns;       /* since the first sample of the file */
    const char *provider;  /* e.g. "System.Runtime" */
    const char *name;      /* counter name without unit or tags */
    const char *tags;      /* "k=v;k=v" sorted, "" if none */
    const char *unit;      /* "B", "%", "ms", "" ... */
    const char *quantity;  /* canonical quantity (see counters.h), or NULL */
    double value;
    /* Appended (counters reader): seconds a PP_COUNTER_RATE sample covers
     * ("By / 5 sec" -> 5), so value / interval_s is a per-second rate; 0 for
     * gauges. Check PP_HAS_FIELD before reading. */
    double interval_s;
} pp_counter_sample;

/* ---- spans ------------------------------------------------------------ */

#define PP_SPAN_UNSPECIFIED 0u
#define PP_SPAN_INTERNAL    1u
#define PP_SPAN_SERVER      2u
#define PP_SPAN_CLIENT      3u
#define PP_SPAN_PRODUCER    4u
#define PP_SPAN_CONSUMER    5u

typedef struct pp_span_attr {
    const char *key;
    const char *value;
} pp_span_attr;

typedef struct pp_span {
    uint32_t struct_size;
    uint32_t kind;              /* PP_SPAN_* */
    const char *trace_id;       /* hex */
    const char *span_id;        /* hex */
    const char *parent_span_id; /* hex, "" for a root span */
    const char *name;
    const char *service; /* service.name, "" if unknown */
    int64_t start_unix_ns;
    int64_t end_unix_ns;
    uint32_t status; /* 0 unset, 1 ok, 2 error */
    uint32_t attr_count;
    const pp_span_attr *attrs;
} pp_span;

/* ---- bench (BenchmarkDotNet results, since ABI 1.1) -------------------- */

/* One measured iteration as BenchmarkDotNet records it. */
#define PP_BENCH_MODE_OTHER    0u
#define PP_BENCH_MODE_OVERHEAD 1u
#define PP_BENCH_MODE_WORKLOAD 2u

#define PP_BENCH_STAGE_OTHER   0u
#define PP_BENCH_STAGE_JITTING 1u
#define PP_BENCH_STAGE_PILOT   2u
#define PP_BENCH_STAGE_WARMUP  3u
#define PP_BENCH_STAGE_ACTUAL  4u
#define PP_BENCH_STAGE_RESULT  5u /* workload minus overhead: what the statistics use */

typedef struct pp_bench_measurement {
    uint32_t mode;            /* PP_BENCH_MODE_* */
    uint32_t stage;           /* PP_BENCH_STAGE_* */
    uint32_t launch_index;    /* 1-based */
    uint32_t iteration_index; /* 1-based */
    int64_t operations;       /* invocations in the iteration */
    double nanoseconds;       /* the whole iteration */
} pp_bench_measurement;

/* Which groups of fields a result carries (CSV exports have no
 * measurements; brief JSON exports none either). */
#define PP_BENCH_HAS_STATISTICS   0x1u
#define PP_BENCH_HAS_MEMORY       0x2u /* MemoryDiagnoser was on */
#define PP_BENCH_HAS_MEASUREMENTS 0x4u
#define PP_BENCH_HAS_GC_COUNTS    0x8u  /* gen0..2 collections and total operations */
#define PP_BENCH_ALLOC_ROUNDED    0x10u /* bytes_per_op came from a rounded "1.38 KB" cell */

/* One benchmark case (method + parameter set + job) of one run. Strings are
 * "" when the export lacks them, never NULL. */
typedef struct pp_bench_result {
    uint32_t struct_size;
    uint32_t flags;         /* PP_BENCH_HAS_* */
    const char *full_name;  /* "Ns.Type.Method(N: 16)" (JSON) */
    const char *benchmark;  /* "Ns.Type.Method" (JSON) or "Method" (CSV) */
    const char *parameters; /* "N=16", "" without parameters */
    const char *job;        /* job id, e.g. "ShortRun", "DefaultJob" */
    const char *display_info;
    /* Statistics (per operation, nanoseconds) when PP_BENCH_HAS_STATISTICS. */
    uint32_t n;        /* iterations the statistics use (after outlier removal) */
    uint32_t outliers; /* iterations removed as outliers */
    double mean_ns;
    double error_ns; /* half of the 99.9 % confidence interval */
    double stddev_ns;
    double median_ns;
    double min_ns;
    double max_ns;
    /* Memory when PP_BENCH_HAS_MEMORY. */
    int64_t bytes_per_op; /* exact in JSON */
    int64_t gen0_collections, gen1_collections, gen2_collections;
    int64_t total_operations;
    double gen0_per_1k, gen1_per_1k, gen2_per_1k; /* collections per 1000 operations */
    /* Every measurement, in file order, when PP_BENCH_HAS_MEASUREMENTS. */
    uint32_t measurement_count;
    const pp_bench_measurement *measurements;
    /* The run's environment (same for every result of one export). */
    const char *bdn_version;     /* "0.15.8" */
    const char *runtime_version; /* ".NET 10.0.12 (...)" */
    const char *configuration;   /* "RELEASE", "DEBUG", "" if unknown */
    int32_t has_debugger;        /* 1 attached, 0 not, -1 unknown */
    uint32_t reserved;
} pp_bench_result;

/* ---- load (load-test results: wrk, hey, k6, bombardier, vegeta; ABI 1.5) */

/* How the tool offered its load. A closed-loop tool (wrk, hey, bombardier
 * without a rate, k6 VU executors) sends a connection's next request only
 * after the last reply: a stalled server is sent fewer requests, so its
 * latency percentiles omit the waits a real client would see (coordinated
 * omission). A fixed-rate tool (vegeta, wrk2, k6 arrival-rate executors,
 * bombardier --rate) keeps sending on schedule. Neither bit: not known. */
#define PP_LOAD_CLOSED_LOOP 0x1u
#define PP_LOAD_FIXED_RATE  0x2u

typedef struct pp_load_count {
    const char *name; /* a status ("200", "5xx", "non-2xx/3xx") or an error kind */
    int64_t count;
} pp_load_count;

typedef struct pp_load_threshold {
    const char *metric; /* "http_req_duration" */
    const char *expr;   /* "p(95)<500" */
    uint32_t failed;    /* 1 failed, 0 passed */
    uint32_t reserved;
} pp_load_threshold;

/* One load-test result: the whole run (scope "") and then, where the tool
 * gives them, one per URL, scenario or tag (scope "url=/x", "tag:name=X").
 * Counts are -1 and figures NaN when the tool does not give them; strings
 * are "" when unknown, never NULL. Latencies in nanoseconds whatever the
 * tool printed. */
typedef struct pp_load_result {
    uint32_t struct_size;
    uint32_t flags;   /* PP_LOAD_* */
    const char *tool; /* "wrk", "hey", "k6", "bombardier", "vegeta", "oha" */
    const char *tool_version;
    const char *format;  /* "wrk-text", "wrk-json", "hey-text", "hey-csv", "k6-summary",
                                    "k6-summary-export", "k6-json", "bombardier-json", "oha-json",
                                    "vegeta-json", "vegeta-lines" */
    const char *scope;   /* "" for the whole run */
    int64_t requests;    /* completed requests (any status) plus transport errors */
    int64_t errors;      /* failed: status >= 400 (or as the tool counts) + transport */
    int64_t duration_ns; /* the run's measured length */
    double rps;          /* requests per second as the tool reports it */
    double lat_mean_ns, lat_stdev_ns, lat_min_ns, lat_max_ns;
    double lat_p50_ns, lat_p75_ns, lat_p90_ns, lat_p95_ns, lat_p99_ns;
    uint32_t status_count;
    uint32_t error_kind_count;
    const pp_load_count *statuses;    /* [status_count], in file order */
    const pp_load_count *error_kinds; /* [error_kind_count]: "timeout", "connect"... */
    uint32_t threshold_count;
    uint32_t sample_count;
    const pp_load_threshold *thresholds; /* [threshold_count] (k6) */
    const double
        *samples_ns; /* [sample_count] per-request latencies (k6 points, hey csv, vegeta lines) */
    /* The run's knobs as given to the tool: -1 / NaN / "" when not known. */
    int64_t connections;        /* wrk -c, hey -c, bombardier -c, k6 VUs (max) */
    int64_t threads;            /* wrk -t */
    int64_t target_requests;    /* hey -n, bombardier -n */
    int64_t target_duration_ns; /* wrk -d, bombardier -d */
    double rate_per_s;          /* vegeta -rate, wrk2 -R, bombardier --rate */
    const char *url;
    const char *method;
    /* ABI 1.8 (PP_HAS_FIELD): the latency samples the figures count, -1 when
     * the output does not say (wrk-json.lua's latency_us.samples). Beyond
     * requests, the tool added samples no request had: wrk's
     * coordinated-omission correction. */
    int64_t latency_samples;
} pp_load_result;

/* ---- the envelope ------------------------------------------------------ */

typedef struct pp_record {
    uint32_t struct_size;
    uint32_t kind;        /* one PP_KIND_* bit */
    uint32_t input_index; /* which of the stage's inputs (0-based, in
                                    the order of the analyzer's input slots) */
    uint32_t reserved;
    union {
        const pp_trace_event *event;
        const pp_heap_snapshot *heap;
        const pp_counter_sample *counter;
        const pp_span *span;
        const pp_bench_result *bench; /* since ABI 1.1 */
        const pp_load_result *load;   /* since ABI 1.5 */
    } u;
} pp_record;

#ifdef __cplusplus
}
#endif
#endif
