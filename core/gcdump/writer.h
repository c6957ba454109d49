/* Private: writing a heap graph as a .gcdump (GCHeapDump v10 in a
 * FastSerialization container with 4-byte labels), the layout
 * `dotnet-gcdump report`, PerfView and core/gcdump read
 * (../shared/reference/gcdump.md §0-§6).
 *
 * The graph is streamed: node records are sized in a first pass (the node
 * table precedes the blob), then written; nothing but the per-node offset
 * table is allocated, so memory is 4 bytes per node on top of the graph. */
#ifndef PP_GCDUMP_WRITER_H
#define PP_GCDUMP_WRITER_H

#include <stdint.h>
#include <stdio.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

/* Facts of the dump beyond the graph. Strings may be NULL (written as
 * null strings, as dotnet-gcdump does). */
typedef struct pp_gcdump_write_info {
    const char *creation_tool; /* tagged CreationTool, e.g. "perfpipe"; NULL = none */
    const char *process_name;
    const char *machine_name;
    const char *collection_log;
    uint32_t process_id;
    int64_t time_collected_ticks; /* .NET DateTime ticks; 0 = unknown */
    int64_t total_process_commit;
    int64_t total_process_working_set;
    /* 0: every node. Else only nodes [0, keep_nodes) are written, each
     * record with its children as they are, so references to the nodes
     * left out point past the node table: a dump cut at a node limit by a
     * writer that kept its records whole (tests, the fuzz seeds). The
     * root must be kept. */
    uint32_t keep_nodes;
} pp_gcdump_write_info;

/* Write snap to f (positioned at its start; f's position is the file
 * offset the labels count from). Type sizes are derived: a type's Size is
 * the size of its lowest-index node (what SetNode records first), type 0
 * must be "UNDEFINED"-like (size 0), and nodes of type 0 with size 0 and no
 * children share the UNDEFINED record at blob offset 0, as in files of
 * dotnet-gcdump. snap->sampled multipliers are written as
 * CountMultipliersByType when present.
 *
 * snap must hold the ABI 1.0 arrays: node_type, node_size, node_address,
 * edge_start and edges (what the library readers pp_gcdump_read_* and the
 * capture's heap walk give). A lean pipeline snapshot (shapes and 32-bit
 * arrays only, core/gcdump/source.c) has them only after
 * pp_gcdump_node_arrays and pp_gcdump_legacy_arrays.
 *
 * Errors: PP_EINVAL (a node's type or child out of range, no nodes),
 * PP_ELIMIT (the file would pass the format's 32-bit offsets: > 2 GiB of
 * node blob or > 4 GiB in all), PP_ENOMEM, PP_EIO (a write failed, errno
 * named). name is used in messages. On error f holds a partial file: the
 * caller writes through a temporary file (core/output/outfile.h). */
int pp_gcdump_write(FILE *f, const char *name, const pp_heap_snapshot *snap,
                    const pp_gcdump_write_info *info, pp_error *err);

#endif
