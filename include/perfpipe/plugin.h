/* perfpipe — analyzer plugin ABI, version 1.
 *
 * A plugin is a shared object exporting one function, perfpipe_plugin_entry,
 * that returns a const descriptor (pp_analyzer). The host checks the
 * descriptor before running any plugin code: abi_major must equal the host's,
 * abi_minor must be <= the host's, struct_size must cover the declared
 * version, name must be the one asked for.
 *
 * The host hands the plugin a function table (pp_host_api); plugins link no
 * libperfpipe symbol, only libc. Both tables are append-only within a major:
 * new members go at the end, and a reader of a table checks struct_size
 * (PP_HOST_HAS) before touching a member added after 1.0.
 *
 * Ownership:
 *  - everything the host passes to a callback (records, strings) is
 *    BORROWED, valid until that callback returns, except where a comment
 *    gives a longer life: the ctx and the options live from create until
 *    destroy (keep the ctx to log from consume); trace sources live until
 *    finish returns;
 *  - plugin state (*state from create) belongs to the plugin; the host only
 *    passes it back and calls destroy exactly once if create succeeded;
 *  - strings the plugin passes to the host (table cells, findings) are
 *    copied by the host before the call returns;
 *  - errors come back as a negative PP_E* code plus the host-owned pp_error
 *    the callback was given (fill it with host->error_set); never a string
 *    the plugin allocated.
 * No jansson or libyaml type crosses this boundary. */
#ifndef PERFPIPE_PLUGIN_H
#define PERFPIPE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_ABI_MAJOR 1
#define PP_ABI_MINOR 8

/* The one symbol the loader looks up. */
#define PP_PLUGIN_ENTRY_SYMBOL "perfpipe_plugin_entry"

typedef struct pp_ctx pp_ctx;         /* one stage's view of the run (opaque) */
typedef struct pp_options pp_options; /* the stage's validated options (opaque) */
typedef struct pp_table pp_table;     /* a result table under construction */

/* ---- options ---------------------------------------------------------- */

#define PP_OPT_BOOL        1u
#define PP_OPT_INT         2u /* int64 */
#define PP_OPT_DOUBLE      3u
#define PP_OPT_STRING      4u
#define PP_OPT_STRING_LIST 5u /* YAML sequence, or comma-separated on the CLI */

typedef struct pp_option_decl {
    const char *name;
    uint32_t type; /* PP_OPT_* */
    uint32_t reserved;
    const char *default_value; /* as text ("25", "true", "System.,Microsoft."); NULL = unset */
    const char *help;          /* one line */
} pp_option_decl;

/* ---- results ---------------------------------------------------------- */

#define PP_COL_STRING       1u
#define PP_COL_COUNT        2u /* int64 */
#define PP_COL_BYTES        3u /* int64, may be negative in deltas */
#define PP_COL_DURATION_NS  4u /* int64 */
#define PP_COL_PERCENT      5u /* double, 0..100 */
#define PP_COL_TIMESTAMP_NS 6u /* int64, ns since the input's start */
#define PP_COL_NUMBER       7u /* double, unitless (slopes, R^2, rates) */

typedef struct pp_column {
    const char *name;
    uint32_t type;  /* PP_COL_* */
    uint32_t flags; /* PP_COL_FLAG_* (ABI 1.6; 0 before, when it was reserved) */
} pp_column;

/* A string column of prose (a message, an explanation, a command): a text
 * renderer that must cut a long value keeps its start, where the sentence
 * says what it is about. Other string columns (frames, stacks, types,
 * paths) keep their end, which tells two rows apart. Written to the
 * result as columns[].prose = true. */
#define PP_COL_FLAG_PROSE 0x1u

/* ABI 1.7: what a column holds, declared in pp_table_decl's columns so that
 * rules derive the same evidence from any analyzer's table (docs/rules.md,
 * Evidence). The host writes them into the result document as
 * tables[i].decl.roles = {role: column}; a table has each role at most once.
 *  - SQL: a string, a database command's text -> `verb` (SELECT, INSERT...)
 *    and `select_columns` (top-level items of a SELECT list);
 *  - CALLS / ASYNC_CALLS: counts of the row's calls and of those made
 *    asynchronously -> `sync` (calls - async calls);
 *  - THREADS: a count of the distinct threads of the row -> `per_thread`
 *    (the table's figure of unit "samples" / threads);
 *  - ROOT_PATH: a string, a heap path from the GC roots ("[.NET Roots] >
 *    group > ... > type") -> `root_kind` (static, local, finalizer, handle,
 *    other);
 *  - STACK: a string of ';'-joined frames, outermost first. A table keyed by
 *    its stack column alone is the stage's stack profile: the stage gets
 *    the `callees` view (what each candidate frame calls), weighted by the
 *    table's first figure on an axis.
 * ABI 1.8:
 *  - TYPE: a string, the type of what the row's figures count (an allocated
 *    type). With a STACK column in the same table (one row per stack and
 *    type): the stage gets the `callee_types` view (the types each
 *    candidate frame's calls allocate, docs/rules.md). */
#define PP_COL_FLAG_SQL         0x2u
#define PP_COL_FLAG_CALLS       0x4u
#define PP_COL_FLAG_ASYNC_CALLS 0x8u
#define PP_COL_FLAG_THREADS     0x10u
#define PP_COL_FLAG_ROOT_PATH   0x20u
#define PP_COL_FLAG_STACK       0x40u
#define PP_COL_FLAG_TYPE        0x80u

/* ABI 1.5: what a table means, declared in the descriptor (pp_analyzer's
 * tables) so that rules, candidates and compare can read a table they were
 * never told of. The host copies each declaration into the result document
 * (tables[i].decl); strings are the plugin's static storage.
 *
 * A figure is a number column that measures something: its unit ("bytes",
 * "ms", "ns", "count", "samples", "percent", "per_request"...) and its axis,
 * the kind of cost it speaks of (one of PP_AXIS_*), or NULL for a figure on
 * no axis (a share, a ratio, a fit). */
#define PP_AXIS_TIME       "time"       /* thread time, wall time */
#define PP_AXIS_ALLOCATION "allocation" /* bytes allocated (churn) */
#define PP_AXIS_FOOTPRINT  "footprint"  /* bytes held (heap, working set) */
#define PP_AXIS_DATABASE   "database"   /* database commands and their time */
#define PP_AXIS_LOAD       "load"       /* requests, throughput, latency under load */

typedef struct pp_figure_decl {
    const char *column; /* NULL ends a list */
    const char *unit;
    const char *axis; /* PP_AXIS_*, or NULL */
} pp_figure_decl;

/* ABI 1.5: how a table's rows become optimization candidates (perfpipe
 * candidates): the subject names where a fix lands, cost is the figure it is
 * ranked by (per unit of work), a figure of unit "ms" or "bytes" on an axis.
 * A table without one gives no candidates. Every other member may be
 * NULL/0. */
#define PP_CANDIDATE_FRAME                                                                         \
    1u                           /* the subject is a code frame: a framework or package
                                        frame moves to its application caller (call_site) */
#define PP_CANDIDATE_NO_WAITS 2u /* rows naming a known blocking call are left out */
#define PP_CANDIDATE_RULE_GATED                                                                    \
    4u /* the rows are waits: a row ranks only where a rule
                                        names its wait a cause a change removes */
#define PP_CANDIDATE_HEAP_TYPE                                                                     \
    8u /* the subject is a heap type: it has no module, the fix
                                        lands where instances are created or kept */

typedef struct pp_candidate_decl {
    const char *cost;            /* the figure ranked by; NULL: the first figure on an axis */
    const char *label;           /* the axis as candidates name it ("allocation churn");
                                    NULL: the cost figure's axis */
    const char *does;            /* what the subject does, in the evidence ("allocates");
                                    NULL: "costs" */
    const char *status;          /* a status column: only rows "grew" or "appeared" rank */
    const char *superseded_by;   /* no candidates from this table where the stage has that one */
    const char *skip_if;         /* rows with a non-empty string in this column are left out */
    const char *const *evidence; /* columns quoted in the evidence, NULL-terminated */
    /* The stage's table of ';'-joined stacks (first column) with an "ms"
     * column: a frame a rule names costs its inclusive time there. */
    const char *stacks;
    const char *waits; /* the stage's table whose first column names blocked leaves */
    /* The stage's table that names each subject's callers, heaviest first:
     * it has the subject's column, its own subject (the caller) and "module". */
    const char *callers;
    uint32_t flags; /* PP_CANDIDATE_* */
    uint32_t reserved;
} pp_candidate_decl;

typedef struct pp_table_decl {
    const char *name; /* as finish passes it to table_new; NULL ends a list */
    /* Every column the table may have, in order, with its PP_COL_* type (a
     * column some runs leave out is listed too): rule files are checked
     * against them. Ends with a NULL name. NULL: not declared. */
    const pp_column *columns;
    const char *const *key;        /* the key columns, NULL-terminated; NULL = the table's own */
    const char *subject;           /* the column a candidate names (a frame, a type, a
                                    command), or NULL */
    const pp_figure_decl *figures; /* NULL-terminated (column NULL), or NULL */
    /* Names of the stage's totals that count units of work (requests,
     * operations), NULL-terminated; NULL = none. */
    const char *const *work_totals;
    const pp_candidate_decl *candidate; /* NULL: the table gives no candidates */
} pp_table_decl;

#define PP_CELL_NULL   0u
#define PP_CELL_STRING 1u
#define PP_CELL_INT    2u
#define PP_CELL_DOUBLE 3u

/* A PP_CELL_DOUBLE that is NaN or infinite is written as null (JSON has
 * no such numbers) and the stage gets a warning finding result.nonfinite
 * (once): compute a figure, or give PP_CELL_NULL for "none". */
typedef struct pp_cell {
    uint32_t type; /* PP_CELL_* */
    uint32_t reserved;
    union {
        const char *s;
        int64_t i;
        double d;
    } v;
} pp_cell;

static inline pp_cell
pp_cell_str(const char *s)
{
    pp_cell c = { PP_CELL_STRING, 0, { 0 } };
    c.v.s = s;
    return c;
}
static inline pp_cell
pp_cell_int(int64_t i)
{
    pp_cell c = { PP_CELL_INT, 0, { 0 } };
    c.v.i = i;
    return c;
}
static inline pp_cell
pp_cell_dbl(double d)
{
    pp_cell c = { PP_CELL_DOUBLE, 0, { 0 } };
    c.v.d = d;
    return c;
}
static inline pp_cell
pp_cell_null(void)
{
    pp_cell c = { PP_CELL_NULL, 0, { 0 } };
    return c;
}

#define PP_SEVERITY_INFO    0u
#define PP_SEVERITY_WARNING 1u
#define PP_SEVERITY_ERROR   2u
/* ABI 1.6, or'ed into a finding's severity: a caveat, a warning (or error)
 * that qualifies how the figures are read without changing what they say
 * (a few events skipped, a trace that ends mid-command, a build that moved
 * since). Headlines pass over caveats to the finding or top row that bears
 * on the answer (the answer order, perfpipe(1)); the result marks the
 * finding "caveat": true. A host older than 1.6 refuses the flag. */
#define PP_FINDING_CAVEAT 0x100u

#define PP_LOG_DEBUG 0
#define PP_LOG_INFO  1
#define PP_LOG_WARN  2

/* Symbolization flags for trace_symbolize: PP_SYM_SIGNATURE (defs.h). */
/* host_features bits. */
#define PP_HOST_SYM_MODULE UINT64_C(0x1) /* trace_symbolize knows PP_SYM_MODULE* (defs.h) */
#define PP_HOST_SYM_SOURCE UINT64_C(0x2) /* ... and PP_SYM_SOURCE*, PP_SYM_CALLER (portable PDBs) */

/* ---- the host table (host -> plugin) ------------------------------------ */

typedef struct pp_host_api {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t reserved;
    uint64_t host_features;

    /* A message on stderr, prefixed with the stage id. */
    void (*log)(pp_ctx *ctx, int level, const char *fmt, ...) PP_PRINTF(3, 4);
    /* Fill a pp_error (NULL-safe). */
    void (*error_set)(pp_error *err, int32_t code, const char *fmt, ...) PP_PRINTF(3, 4);

    /* Options, validated against the descriptor before create(). Each returns
     * PP_OK, or PP_ENOTFOUND if the option has no value (no default, unset),
     * or PP_EINVAL if it is not declared with that type. Strings live until
     * destroy. */
    int (*opt_bool)(const pp_options *o, const char *name, int *out);
    int (*opt_int)(const pp_options *o, const char *name, int64_t *out);
    int (*opt_double)(const pp_options *o, const char *name, double *out);
    int (*opt_string)(const pp_options *o, const char *name, const char **out);
    int (*opt_list_count)(const pp_options *o, const char *name, uint32_t *out);
    int (*opt_list_item)(const pp_options *o, const char *name, uint32_t index, const char **out);

    /* A run knob (pipeline `knobs:` or --set), NULL if unset. Lives until destroy. */
    const char *(*knob)(pp_ctx *ctx, const char *name);

    /* Results, callable from finish() only. A table's first nkey columns are
     * its key: one row per key. Rows repeating a key are kept as given and
     * the stage gets a warning finding result.duplicate_key (once per
     * table); compare cannot judge such a result. table_new copies names;
     * the table belongs to the host. */
    pp_table *(*table_new)(pp_ctx *ctx, const char *name, uint32_t ncolumns,
                           const pp_column *columns, uint32_t nkey);
    /* Append one row of ncolumns cells; strings are copied. */
    int (*table_row)(pp_table *t, const pp_cell *cells);
    /* A finding with a stable dotted code ("alloc.no_ticks"). */
    int (*finding)(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
        PP_PRINTF(4, 5);
    /* A named total of the stage (type is a PP_COL_* type). */
    int (*total_int)(pp_ctx *ctx, const char *name, uint32_t type, int64_t value);
    int (*total_double)(pp_ctx *ctx, const char *name, uint32_t type, double value);
    int (*total_string)(pp_ctx *ctx, const char *name, const char *value);

    /* Traces (kind nettrace). trace_field decodes one payload field by name
     * (PP_OK, PP_ENOTFOUND, PP_EFORMAT, PP_ENOMEM: the stage is then partial,
     * as below). trace_symbolize names a code address
     * as "Namespace.Type.Method" (or "?!0xADDR" / "module!?+0xOFF" when
     * unresolved; "?!(out of memory)" when no memory was left for the
     * name: the host then makes the stage partial, result.out_of_memory);
     * the string lives until finish() returns. Method maps are
     * complete only once the whole trace was read (rundown comes last), so
     * resolve in finish(). */
    int (*trace_field)(const pp_trace_event *ev, const char *name, pp_value *out);
    const char *(*trace_symbolize)(const pp_trace_source *src, uint64_t ip, uint32_t flags);
    int (*trace_info)(const pp_trace_source *src, pp_trace_info *out);

    /* ABI 1.1. A hint for consumers of the result document, kept on the
     * table as "hints": {key: value} (both copied). Known hints:
     * "compare" = "bench" (rows are BenchmarkDotNet cases, in the columns
     * benchmark, params, job, mean_ns, allocated_b_op and iterations:
     * compare them with a two-sample test on their per-iteration samples,
     * named by the "samples" hint) or "samples" (a table of per-iteration samples that
     * compare reads through the table that names it, never row by row) or
     * "none" (a listing compare leaves alone: its rows have no better or
     * worse direction, e.g. responses by status; since ABI 1.5).
     * PP_OK, PP_EINVAL (no table, empty key), PP_ENOMEM. */
    int (*table_hint)(pp_table *t, const char *key, const char *value);

    /* ABI 1.6. Advice to capture again, for the tool that took this
     * stage's input: `perfpipe collect ARGS` when perfpipe took it (a live
     * capture, or a file with the module map FILE.maps that collect keeps
     * beside it), else `dotnet-trace collect ARGS`. how is a PP_CAPTURE_*;
     * args are options both tools take (--profile, --providers, -p PID),
     * NULL for none. Writes a NUL-terminated text to buf (cut to size).
     * PP_OK, or PP_EINVAL (no buf, size 0, unknown how). */
    int (*capture_advice)(pp_ctx *ctx, uint32_t how, const char *args, char *buf, uint32_t size);
} pp_host_api;

/* capture_advice's how. ATTACH: the command, quoted ("`TOOL collect
 * ARGS`"). LAUNCH: the command that starts the app under the tool (so
 * the trace is of the app, not of a `dotnet run` host). STOP: how to end
 * the capture so the runtime writes its rundown. */
#define PP_CAPTURE_ATTACH 0u
#define PP_CAPTURE_LAUNCH 1u
#define PP_CAPTURE_STOP   2u

#define PP_HOST_HAS(host, member)                                                                  \
    ((host)->struct_size >= offsetof(pp_host_api, member) + sizeof((host)->member))

/* capture_advice for a finding's text: buf, empty when the host has no
 * capture_advice (a host older than 1.6 loads no 1.6 plugin, so only a
 * test double lacks it). */
static inline const char *
pp_capture_advice(const pp_host_api *h, pp_ctx *ctx, uint32_t how, const char *args, char *buf,
                  uint32_t size)
{
    if (size > 0)
        buf[0] = '\0';
    if (PP_HOST_HAS(h, capture_advice) && h->capture_advice != NULL && size > 0)
        h->capture_advice(ctx, how, args, buf, size);
    return buf;
}

/* ---- the descriptor (plugin -> host) ------------------------------------ */

/* pp_analyzer.flags, ABI 1.2. PP_ANALYZER_FLAG_HEAP32: the plugin reads a
 * heap snapshot's node_size32 and edge_start32 and checks node_address for
 * NULL, so the host may leave node_size, node_address and edge_start NULL
 * for it (126 MB less on a 7.9 M-node heap). Opt-in, so that a plugin
 * rebuilt against a newer header without reading the 32-bit arrays still
 * gets the 64-bit ones. Bit 31 is the host's. */
#define PP_ANALYZER_FLAG_HEAP32 0x1u
/* pp_analyzer.flags, ABI 1.4. PP_ANALYZER_FLAG_HEAP_SHAPES: the plugin
 * reads node types and sizes through a heap snapshot's shapes (records.h:
 * shape_type, shape_size, node_shape16/node_shape32), falling back to
 * node_type and node_size32 only when shape_count is 0, so the host may
 * leave those two NULL for it (45 MB less on a 7.9 M-node heap). Opt-in,
 * as HEAP32; the two flags are independent (a plugin that wants neither
 * 64-bit array nor node_type/node_size32 sets both). */
#define PP_ANALYZER_FLAG_HEAP_SHAPES 0x2u

typedef struct pp_analyzer {
    uint32_t struct_size;
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t flags;
    uint64_t required_host_features;

    const char *name;    /* must equal the name the plugin is loaded by */
    const char *version; /* the analyzer's own version, e.g. "1.0.0" */
    const char *summary; /* one line for `perfpipe plugins` */

    uint32_t input_kinds;           /* PP_KIND_* bits it consumes */
    uint32_t input_slot_count;      /* how many inputs a stage gives it (>= 1) */
    const char *const *input_slots; /* [input_slot_count] slot names, e.g.
                                       {"baseline","candidate"}; NULL = {"input"} */

    uint32_t option_count;
    uint32_t reserved;
    const pp_option_decl *options;

    /* Make the stage's state. On failure return a PP_E* code, fill err,
     * leave *state unset: destroy is then not called. */
    int (*create)(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state,
                  pp_error *err);
    /* One record of a kind in input_kinds. A failure ends the stage. */
    int (*consume)(void *state, const pp_record *rec, pp_error *err);
    /* All inputs are read: build tables, findings and totals. */
    int (*finish)(void *state, pp_ctx *ctx, pp_error *err);
    /* Release the state. Called once after create succeeded, even on failure. */
    void (*destroy)(void *state);

    /* ABI 1.3, optional (both or neither; a plugin built for 1.2 or with
     * either NULL is always read serially). With both, the host may read a
     * big nettrace input as regions, each on its own thread, into children
     * of the state, and fold them back:
     *  - fork makes *child, an empty state with state's options, as create
     *    would have made it (called on the host's thread, never while state
     *    is consumed into or merged into). On failure: a PP_E* code, err
     *    filled, *child unset. destroy is called once on every child made,
     *    merged or not;
     *  - a child's consume runs on a thread of its own, concurrently with
     *    other children's (never with state's or a sibling's callbacks on
     *    the same child): it may call only host functions that take no ctx
     *    (error_set, trace_field, trace_info); log, knob and the result
     *    calls are not for children. Records are borrowed as ever;
     *    stack ids are (stack_region, stack_id) over the whole input, as
     *    in a serial read;
     *  - merge folds child into state: the children of one input are merged
     *    in file order, each having read the part of the file that follows
     *    the part read by those merged before, and only when every region
     *    was read cleanly (else the children are destroyed unmerged and the
     *    input is read serially into the untouched state). A child's trace
     *    source is closed by then, except the first child's (the input's
     *    own source, valid until finish returns, and the first child has
     *    read at least one record): a state keeps the first source it met.
     *    On failure: a PP_E* code and err, and the stage fails as a
     *    consume failure would;
     *  - what finish then builds must equal what a serial read would have
     *    built, byte for byte: ranking, cuts (top-N) and anything that
     *    depends on the whole input belong in finish, after the merges. */
    int (*fork)(void *state, void **child, pp_error *err);
    int (*merge)(void *state, void *child, pp_error *err);

    /* ABI 1.5, optional: the tables finish may build, ended by one whose
     * name is NULL (pp_table_decl). A plugin without them still runs; its
     * tables then carry no declaration and readers fall back to their
     * names. */
    const pp_table_decl *tables;
} pp_analyzer;

/* Whether descriptor a (checked by the loader) has member, i.e. its
 * struct_size covers it: read no member added after 1.0 without it. */
#define PP_ANALYZER_HAS(a, member)                                                                 \
    ((a)->struct_size >= offsetof(pp_analyzer, member) + sizeof((a)->member))

/* The smallest descriptor a 1.0 host accepts. */
#define PP_ANALYZER_MIN_SIZE_1_0 (offsetof(pp_analyzer, destroy) + sizeof(void (*)(void *)))

/* Use inside the descriptor initializer: captures the versions and size the
 * plugin was compiled with. */
#define PP_ANALYZER_HEADER                                                                         \
    .struct_size = sizeof(pp_analyzer), .abi_major = PP_ABI_MAJOR, .abi_minor = PP_ABI_MINOR

/* What every plugin defines, once, after its descriptor (as GStreamer's
 * GST_PLUGIN_DEFINE): the one exported entry, returning DESC, a static const
 * pp_analyzer. The entry must have no side effects: the host calls it to list
 * plugins. Write `PP_PLUGIN_DEFINE(my_analyzer);` at file scope; the macro
 * ends in a declaration so that the semicolon is not an empty one. */
typedef const pp_analyzer *(*pp_plugin_entry_fn)(void);

#define PP_PLUGIN_DEFINE(desc)                                                                     \
    PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);                               \
    PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void)                                \
    {                                                                                              \
        return &(desc);                                                                            \
    }                                                                                              \
    extern const pp_analyzer *perfpipe_plugin_entry(void)

#ifdef __cplusplus
}
#endif
#endif
