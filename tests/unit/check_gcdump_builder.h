/* Test helper: writes small .gcdump files byte by byte, following
 * ../shared/reference/gcdump.md, for cases real dumps rarely contain
 * (deferred types and Modules, 5-byte cints, negative child deltas,
 * undefined nodes, surrogate-pair names, sampling multipliers, future
 * versions). Independent of the reader: it shares no code with core/gcdump. */
#ifndef PP_TEST_GCDUMP_BUILDER_H
#define PP_TEST_GCDUMP_BUILDER_H

#include <stddef.h>
#include <stdint.h>

typedef struct gb_buf {
    uint8_t *p;
    size_t n, cap;
} gb_buf;

void gb_u8(gb_buf *b, uint8_t v);
void gb_i32(gb_buf *b, int32_t v);
void gb_i64(gb_buf *b, int64_t v);
void gb_f32(gb_buf *b, float v);
void gb_cint(gb_buf *b, int32_t v);
/* A string from UTF-16 units (n = -1: null string). */
void gb_str16(gb_buf *b, const uint16_t *units, int32_t n);
/* An ASCII string, NULL for the null string. */
void gb_str(gb_buf *b, const char *s);
void gb_free(gb_buf *b);

typedef struct gb_type {
    const char *name;       /* ASCII; NULL = null name (deferred) */
    const uint16_t *name16; /* overrides name when set */
    int32_t name16_len;
    int32_t size;
    const char *module;
} gb_type;

typedef struct gb_node {
    uint32_t type;
    int32_t size; /* written explicitly when != type size */
    uint32_t nchild;
    const uint32_t *children;
    uint64_t address;
    int undefined; /* points at the UNDEFINED record at offset 0 */
} gb_node;

typedef struct gb_deferred {
    int32_t type_id;
    int module; /* index into modules, -1 = null */
    const char *suffix;
} gb_deferred;

typedef struct gb_graph {
    int32_t version, min_reader; /* GCHeapDump type record (10, 8) */
    int32_t graph_min_reader;    /* 0, or 1 with deferred types */
    uint32_t ntypes;
    const gb_type *types;
    uint32_t nnodes;
    const gb_node *nodes;
    uint32_t root;
    uint32_t ndeferred;
    const gb_deferred *deferred;
    uint32_t nmodules;
    const char *const *module_paths;
    int module_size64; /* Module.Size as i64 (new PerfView) */
    uint32_t nmult;
    const float *mult;
    float avg_count_mult, avg_size_mult; /* 0 = 1.0 */
    const char *creation_tool;           /* NULL: no tagged CreationTool */
    const char *process_name;
    int32_t pid;
    int64_t total_size_override; /* 0 = sum of node sizes */
    uint32_t nsegments;          /* GCHeapDumpSegments: in a DotNetHeapInfo
                                              (v >= 9) or the legacy list (v 6-7);
                                              the second one refers to its type
                                              record by label */
    int32_t segment_version;     /* 0: 6 x u64, 1: 7 x u64 */
} gb_graph;

/* Write the whole file into out (which must start empty). */
void gb_write(const gb_graph *g, gb_buf *out);

#endif
