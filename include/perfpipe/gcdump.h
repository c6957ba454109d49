/* perfpipe — the .gcdump reader (dotnet-gcdump and PerfView heap snapshots).
 *
 * A .gcdump is a FastSerialization container holding one GCHeapDump: a
 * MemoryGraph (type table, nodes with type/size/address, edges, a root) and
 * process facts, plus per-type sampling multipliers when the heap was sampled.
 * The reader decodes the whole graph into the pp_heap_snapshot record
 * (records.h): flat arrays, edges in CSR form.
 *
 * Ownership: a pp_gcdump owns everything it hands out (snapshot arrays, type
 * strings, info strings); all of it stays valid until pp_gcdump_free().
 * Errors: a negative PP_E* code, and err (if non-NULL) filled with one line
 * naming what was expected, with err->offset the byte offset in the file.
 * Files of a newer format than this reader knows are refused with
 * PP_EUNSUPPORTED rather than guessed at. */
#ifndef PERFPIPE_GCDUMP_H
#define PERFPIPE_GCDUMP_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include <perfpipe/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pp_gcdump pp_gcdump;

/* Facts of the dump beyond the graph. Strings are UTF-8, "" when the file
 * does not record them; they live as long as the pp_gcdump. */
typedef struct pp_gcdump_info {
    uint32_t struct_size;
    uint32_t format_version;      /* GCHeapDump type Version (10 today) */
    uint32_t graph_min_reader;    /* 1 when the graph has deferred type names */
    uint32_t pointer_size;        /* 4 or 8; 0 if the file does not say */
    int64_t total_size;           /* the graph header's TotalSize */
    uint64_t sum_node_sizes;      /* sum of node sizes as decoded */
    int64_t time_collected_ticks; /* .NET DateTime ticks, 0 if unknown */
    int64_t total_process_commit;
    int64_t total_process_working_set;
    uint32_t process_id;             /* 0 if unknown */
    uint32_t count_multiplier_count; /* entries of CountMultipliersByType */
    double average_count_multiplier; /* 1.0 unless sampled */
    double average_size_multiplier;  /* 1.0 unless sampled */
    const char *creation_tool;       /* "dotnet-gcdump", or "" (older PerfView) */
    const char *process_name;
    const char *machine_name;
    const char *collection_log;
    /* Appended (check PP_HAS_FIELD): references the node records hold to
     * nodes past the node table (a writer cut at a node limit, or a file
     * written wrong), dropped by the reader, and the nodes holding them.
     * The rest of the graph is read whole; what the missing nodes held
     * shows as unreachable or missing. 0 in a whole dump. */
    uint64_t dangling_edges;
    uint32_t dangling_nodes;
} pp_gcdump_info;

/* Decode a .gcdump held in memory. data is borrowed for the call only (the
 * result copies what it keeps). On success *out is a new reader the caller
 * frees with pp_gcdump_free(). name is used in messages (may be NULL). */
PP_API int pp_gcdump_read_memory(const uint8_t *data, size_t size, const char *name,
                                 pp_gcdump **out, pp_error *err);

/* Read and decode the file at path (PP_EIO if it cannot be read). */
PP_API int pp_gcdump_read_file(const char *path, pp_gcdump **out, pp_error *err);

/* The decoded heap graph; valid until pp_gcdump_free(). Never NULL for a
 * successfully read dump. */
PP_API const pp_heap_snapshot *pp_gcdump_snapshot(const pp_gcdump *dump);

/* The type table's own Size of type_index: the size of the first node the
 * writer gave that type (what `dotnet-gcdump report` prints), -1 when no
 * node used it; INT64_MIN if type_index is out of range. Per-type totals
 * come from the nodes (node_size), not from this. */
PP_API int64_t pp_gcdump_type_size(const pp_gcdump *dump, uint32_t type_index);

/* Copy the dump's facts into *out (out->struct_size must be set by the
 * caller; only that many bytes are written). PP_EINVAL on NULL. */
PP_API int pp_gcdump_get_info(const pp_gcdump *dump, pp_gcdump_info *out);

/* Release the reader and everything it handed out. NULL is a no-op. */
PP_API void pp_gcdump_free(pp_gcdump *dump);

/* ---- the reader API (reader.h): the verbs every reader shares ---------- */

typedef struct pp_gcdump pp_gcdump_reader;

/* open: read and decode the file at path (as pp_gcdump_read_file); every
 * byte reaches hooks->on_bytes once, before decoding. */
PP_API int pp_gcdump_reader_open(const char *path, const pp_reader_hooks *hooks,
                                 pp_gcdump_reader **out, pp_error *err);
/* open_memory: data is borrowed until close (reader.h); this reader decodes
 * it during the call and keeps none of it. */
PP_API int pp_gcdump_reader_open_memory(const void *data, size_t size, const char *name,
                                        const pp_reader_hooks *hooks, pp_gcdump_reader **out,
                                        pp_error *err);
/* next: the one heap graph of the dump (1), then 0. */
PP_API int pp_gcdump_reader_next(pp_gcdump_reader *r, const pp_heap_snapshot **snap, pp_error *err);
/* close: as pp_gcdump_free. */
PP_API void pp_gcdump_reader_close(pp_gcdump_reader *r);
/* get_info: pp_gcdump_info, as pp_gcdump_get_info. */
PP_API int pp_gcdump_reader_get_info(const pp_gcdump_reader *r, pp_gcdump_info *out);

#ifdef __cplusplus
}
#endif
#endif
