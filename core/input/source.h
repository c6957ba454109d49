/* Private: the interface every input reader offers the pipeline engine.
 *
 * A source is one opened input. The engine pulls records with next() and
 * hands each to every stage that consumes the input: one read per input.
 * Readers never print: warnings go to hooks->on_warning, fatal problems to
 * the pp_error with the byte offset (or line:column) where reading stopped. */
#ifndef PP_CORE_SOURCE_H
#define PP_CORE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

typedef struct pp_source_hooks {
    /* Every byte of the input exactly once, in file order, as it is
     * consumed (for the content hash: identity must not cost a second
     * read). May be NULL. */
    void (*on_bytes)(void *user, const void *data, size_t len);
    /* A non-fatal problem (truncated tail, dropped events...). May be NULL. */
    void (*on_warning)(void *user, const pp_error *warning);
    void *user;
} pp_source_hooks;

/* What a reader knows of the damage of its input (fields that do not apply
 * to a kind stay 0, truncated_at -1). */
typedef struct pp_source_damage {
    int64_t truncated_at;      /* byte offset where reading stopped, or -1 */
    uint64_t dropped_events;   /* sequence numbers never seen */
    uint64_t repeated_blocks;  /* blocks skipped as copies of earlier ones */
    uint64_t reordered_blocks; /* blocks whose sequence numbers went back */
    /* Blocks the format itself proves absent: in a V4/V5 nettrace, holes
     * in the stack ids of a region, events naming undefined stacks, stacks
     * no event names (nettrace/sequence.h). A lost EventBlock whose threads
     * wrote on also counts as sequence_gaps and dropped_events.
     * perfpipe(1) RESULT DOCUMENT says so. */
    uint64_t missing_blocks;
    uint64_t sequence_gaps; /* forward jumps, one per thread per hole */
} pp_source_damage;

typedef struct pp_source_ops {
    const char *kind;  /* its name (the registry: registry/kinds.c) */
    uint32_t kind_bit; /* PP_KIND_* */
    /* Open and check the header. hooks is borrowed until close(). */
    int (*open)(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err);
    /* 1 = *rec filled (valid until the next call), 0 = end of input,
     * < 0 = fatal error with err filled. After the end, on_bytes has seen the
     * whole file. */
    int (*next)(void *src, pp_record *rec, pp_error *err);
    /* Add reader facts (format version, counts...) to the input's JSON
     * object in the result document. Called after the end. May be NULL. */
    int (*describe)(void *src, json_t *into);
    void (*close)(void *src);
    /* Fill *out after the end (out is zeroed, truncated_at -1, before the
     * call). May be NULL: then only reader warnings mark damage. */
    void (*damage)(void *src, pp_source_damage *out);
} pp_source_ops;

extern const pp_source_ops pp_nettrace_source_ops;
extern const pp_source_ops pp_gcdump_source_ops;
extern const pp_source_ops pp_counters_source_ops;
extern const pp_source_ops pp_spans_source_ops;
extern const pp_source_ops pp_bdn_source_ops;  /* BenchmarkDotNet exports (core/bdn) */
extern const pp_source_ops pp_load_source_ops; /* load tools' results (core/load) */

/* The reader for a kind name, or NULL. */
const pp_source_ops *pp_source_lookup(const char *kind);
/* The reader for one input: pp_source_lookup, except that a nettrace input
 * whose path is a capture spec ("capture:pid=N;...") is read live from the
 * runtime (core/ipc/capture_source.h), and a counters input named *.nettrace
 * is read for its System.Diagnostics.Metrics events. */
const pp_source_ops *pp_source_for_input(const char *kind, const char *path);

/* After a reader refused path (any error but PP_ENOMEM), look at its first bytes: when
 * it is plainly another kind (a gcdump, counters CSV/JSON, spans JSON,
 * nettrace, NetPerf, BenchmarkDotNet export, load-test result), *err becomes one line naming
 * what it is and the analyzers that read it; otherwise *err is left as is.
 * Regular files only (core/input/source_sniff.c). */
void pp_source_wrong_kind(const char *kind, const char *path, pp_error *err);

#endif
