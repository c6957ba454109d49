/* Private: the decoded dump (struct pp_gcdump) shared by the entry-object
 * reader (heapdump.c) and the graph decoder (graph.c). */
#ifndef PP_GCDUMP_DUMP_H
#define PP_GCDUMP_DUMP_H

#include <stdint.h>

#include <perfpipe/gcdump.h>

#include "gcdump/fastser.h"
#include "gcdump/filemap.h"
#include "gcdump/shapes.h"

/* GCHeapDump versions this reader understands (GCHeapDump.cs: reads >= 4,
 * refuses exactly 8, is itself version 10). */
#define PP_GCDUMP_READER_VERSION 10
#define PP_GCDUMP_MIN_VERSION    4
/* Graphs.MemoryGraph: 0 plain, 1 with the deferred-type region. */
#define PP_GCDUMP_GRAPH_READER_VERSION 1

struct pp_gcdump {
    pp_heap_snapshot snap;
    pp_gcdump_info info;

    pp_heap_type *types; /* [type_count] */
    char **type_names;   /* [type_count] owned display names */
    char **type_modules; /* [type_count] owned module names or NULL */
    int32_t *type_size;  /* [type_count] the file's per-type Size */
    /* node_type and node_size32 are NULL in a lean dump until a stage
     * without PP_ANALYZER_FLAG_HEAP_SHAPES asks (pp_gcdump_node_arrays):
     * the shapes hold the same, in 2 bytes a node instead of 8. */
    uint32_t *node_type;
    uint32_t *node_size32;
    pp_shapes shapes;
    uint32_t shape16_max; /* shapes node_shape16 may index (65536) */
    uint32_t split_nodes; /* node tables this long (>= 2) are decoded
                                    in two halves at once; 0: never */
    int decoded_split;    /* they were (for tests: not a fallback) */
    uint32_t *edge_start32;
    uint32_t *edges;
    /* The 64-bit arrays of ABI 1.0/1.1: built at decode for the library
     * entry points, and on demand (pp_gcdump_legacy_arrays) for a lean
     * dump, whose addresses stay in the file until then. */
    uint64_t *node_size;
    uint64_t *node_address;
    uint64_t *edge_start;
    int lean;
    const pp_gcdump_map *map; /* the mapping decoded (NULL: caller's memory) */
    const char *map_name;     /* borrowed: the lean dump's source owns it */
    size_t addr_at;           /* file offset of the 8-byte address table */
    double *count_mult;       /* [type_count] or NULL */
    double *size_mult;

    char **modules; /* Graphs.Module paths from the deferred region */
    uint32_t nmodules;

    int is64; /* -1 unknown, else 0/1 */
    char *creation_tool, *process_name, *machine_name, *collection_log;
    int delivered; /* reader_api.c: the graph went out through next */
};

/* Decode a Graphs.MemoryGraph object whose BeginObject and type reference
 * were just read (type = its type record) through its EndObject, filling the
 * graph half of d. */
int pp_gcdump_read_graph(pp_fs *fs, const pp_fs_type *type, pp_gcdump *d);

/* The node table (n 4-byte entries at table_at) and the node blob
 * (blob_len bytes at blob_at) into d's shapes (initialized for n nodes),
 * edges (allocated here), edge_start32[n + 1] (allocated by the caller),
 * edge_count and sum_node_sizes, on two threads when n >= d->split_nodes
 * (nodes.c): the same arrays and the same error as serially. PP_OK, or
 * the error in fs (what was allocated is d's, freed with it). */
int pp_gcdump_decode_nodes(pp_fs *fs, pp_gcdump *d, size_t table_at, uint32_t n, size_t blob_at,
                           uint32_t blob_len);

/* Decode a Graphs.Module payload (after its type reference, through its
 * EndObject); *index is the module's slot in d->modules. */
int pp_gcdump_read_module(pp_fs *fs, pp_gcdump *d, uint32_t *index);

/* As pp_gcdump_read_memory over a file mapping, under pp_gcdump_map_run:
 * the file shrinking while it is decoded is PP_EIO, not SIGBUS. */
int pp_gcdump_read_mapped(const pp_gcdump_map *m, const char *name, pp_gcdump **out, pp_error *err);

/* As pp_gcdump_read_mapped, but lean: only the 32-bit arrays are built and
 * the node addresses stay in the mapping, which (and name) must outlive the
 * dump. The pages of the node table and blob are given back to the page
 * cache as they are decoded. pp_gcdump_legacy_arrays builds the rest. */
int pp_gcdump_read_mapped_lean(const pp_gcdump_map *m, const char *name, pp_gcdump **out,
                               pp_error *err);

/* Node tables of at least this many nodes are decoded in two halves at
 * once: a thread costs tens of microseconds, half of 16 k nodes about 0.3
 * ms to decode (and the leak fixtures of the tests pass it). */
#define PP_GCDUMP_SPLIT_NODES (1u << 14)

/* The decoder's tuning, for tests and the fuzz target: small files take
 * the 32-bit shape path and the split decode. */
typedef struct pp_gcdump_tuning {
    uint32_t shape16_max; /* node_shape16 only while there are at most
                                    this many shapes (PP_SHAPES_16_MAX and
                                    above: as read_memory) */
    uint32_t split_nodes; /* as pp_gcdump.split_nodes (PP_GCDUMP_SPLIT_NODES) */
} pp_gcdump_tuning;

/* As pp_gcdump_read_memory, tuned. */
int pp_gcdump_read_memory_tuned(const uint8_t *data, size_t size, const char *name,
                                const pp_gcdump_tuning *tuning, pp_gcdump **out, pp_error *err);
/* As pp_gcdump_read_mapped (lean 0) or pp_gcdump_read_mapped_lean, tuned. */
int pp_gcdump_read_mapped_tuned(const pp_gcdump_map *m, const char *name, int lean,
                                const pp_gcdump_tuning *tuning, pp_gcdump **out, pp_error *err);

/* Build d's node_type and node_size32 from its shapes: PP_OK or PP_ENOMEM
 * (the arrays are then freed with the dump). legacy.c. */
int pp_gcdump_build_node_arrays(pp_gcdump *d);

/* Build d's 64-bit arrays from the 32-bit ones and the address table in
 * data (the file's bytes, read under the map guard when mapped): PP_OK or
 * PP_ENOMEM (the arrays are then freed with the dump). legacy.c. */
int pp_gcdump_build_legacy(pp_gcdump *d, const uint8_t *data);

#endif
