/* Unit tests of the .gcdump reader (core/gcdump): real dotnet-gcdump
 * fixtures checked against the dotnet-gcdump/TraceEvent heap-graph oracle
 * and the workload's ground truth, plus hand-built files for the cases real
 * dumps rarely hold, damage and future versions. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/fastser.h"
#include "gcdump/filemap.h"
#include "gcdump/legacy.h"
#include "input/source.h"
#include "check_gcdump_builder.h"
#include "check_gcdump_oracle.h"

/* ---- hand-built graphs --------------------------------------------------- */

/* root(0) -> [static vars](1) -> A(3) -> B(2) ; A -> undefined(4); B -> A
 * (a cycle, negative delta); root -> C(5) with an explicit size and a
 * 5-byte cint size. */
static const gb_type basic_types[] = {
    { "UNDEFINED", NULL, 0, 0, NULL },
    { "[.NET Roots]", NULL, 0, 0, NULL },
    { "[static vars]", NULL, 0, 0, NULL },
    { "App.A", NULL, 0, 24, "App.dll" },
    { "App.B", NULL, 0, 32, "App.dll" },
    { "System.Byte[] (Bytes > 100M)", NULL, 0, 200000000, "System.Private.CoreLib.dll" },
};
static const uint32_t root_kids[] = { 1, 5 };
static const uint32_t statics_kids[] = { 3 };
static const uint32_t a_kids[] = { 2, 4, 2 };
static const uint32_t b_kids[] = { 3 };
static const gb_node basic_nodes[] = {
    { 1, 0, 2, root_kids, 0, 0 },    { 2, 0, 1, statics_kids, 0, 0 },
    { 4, 32, 1, b_kids, 0x1000, 0 }, { 3, 24, 3, a_kids, 0x2000, 0 },
    { 0, 0, 0, NULL, 0x3000, 1 },    { 5, 300000000, 0, NULL, 0x7f0000000000, 0 },
};

static gb_graph
basic_graph(void)
{
    gb_graph g = { 0 };
    g.ntypes = 6;
    g.types = basic_types;
    g.nnodes = 6;
    g.nodes = basic_nodes;
    g.root = 0;
    g.creation_tool = "dotnet-gcdump";
    g.process_name = "App";
    g.pid = 4242;
    return g;
}

static pp_gcdump *
read_built(const gb_graph *g, gb_buf *buf, int expect, pp_error *err)
{
    gb_write(g, buf);
    pp_gcdump *d = NULL;
    int rc = pp_gcdump_read_memory(buf->p, buf->n, "built.gcdump", &d, err);
    ck_assert_msg(rc == expect, "rc %d (want %d): %s", rc, expect, err->message);
    return d;
}

START_TEST(test_cint_reference_examples)
{
    /* The examples of the reference, §6. */
    static const struct {
        uint8_t b[5];
        size_t n;
        int32_t v;
    } ex[] = {
        { { 0x05 }, 1, 5 },          { { 0x7f }, 1, -1 },        { { 0x40 }, 1, -64 },
        { { 0x80, 0x40 }, 2, 64 },   { { 0x83, 0x76 }, 2, 502 }, { { 0xff, 0x3f }, 2, -65 },
        { { 0x9f, 0x12 }, 2, 3986 },
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        int32_t v = 0;
        size_t used = pp_fs_cint(ex[i].b, ex[i].b + ex[i].n, &v);
        ck_assert_uint_eq(used, ex[i].n);
        ck_assert_int_eq(v, ex[i].v);
        /* One byte short is refused, not read past. */
        ck_assert_uint_eq(pp_fs_cint(ex[i].b, ex[i].b + ex[i].n - 1, &v), 0);
    }
    /* Round trip through the independent writer, all widths and signs. */
    static const int32_t vals[] = { 0,         63,        -64,        64,        -65,
                                    8191,      -8192,     8192,       1048575,   -1048576,
                                    1048576,   134217727, -134217728, 134217728, INT32_MAX,
                                    INT32_MIN, 300000000, -300000000 };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        gb_buf b = { 0 };
        gb_cint(&b, vals[i]);
        int32_t v = 0;
        ck_assert_uint_eq(pp_fs_cint(b.p, b.p + b.n, &v), b.n);
        ck_assert_int_eq(v, vals[i]);
        gb_free(&b);
    }
}
END_TEST

START_TEST(test_basic_graph)
{
    gb_graph g = basic_graph();
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(s->struct_size, sizeof(pp_heap_snapshot));
    ck_assert_uint_eq(s->node_count, 6);
    ck_assert_uint_eq(s->type_count, 6);
    ck_assert_uint_eq(s->root, 0);
    ck_assert_uint_eq(s->pointer_size, 8);
    ck_assert_uint_eq(s->sampled, 0);
    ck_assert_ptr_null(s->type_count_multiplier);
    ck_assert_str_eq(s->types[3].name, "App.A");
    ck_assert_str_eq(s->types[3].module, "App.dll");
    ck_assert_str_eq(s->types[1].module, "");
    ck_assert_int_eq(pp_gcdump_type_size(d, 3), 24);
    ck_assert_int_eq(pp_gcdump_type_size(d, 5), 200000000); /* the node's own is explicit */
    ck_assert_int_eq(pp_gcdump_type_size(d, 6), INT64_MIN);
    static const uint32_t want_type[] = { 1, 2, 4, 3, 0, 5 };
    static const uint64_t want_size[] = { 0, 0, 32, 24, 0, 300000000 };
    for (uint32_t i = 0; i < 6; i++) {
        ck_assert_uint_eq(s->node_type[i], want_type[i]);
        ck_assert_uint_eq(s->node_size[i], want_size[i]);
        ck_assert_uint_eq(s->node_address[i], basic_nodes[i].address);
    }
    ck_assert_uint_eq(s->edge_count, 7);
    static const uint64_t want_start[] = { 0, 2, 3, 4, 7, 7, 7 };
    static const uint32_t want_edges[] = { 1, 5, 3, 3, 2, 4, 2 };
    for (uint32_t i = 0; i <= 6; i++)
        ck_assert_uint_eq(s->edge_start[i], want_start[i]);
    for (uint32_t k = 0; k < 7; k++)
        ck_assert_uint_eq(s->edges[k], want_edges[k]);
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    ck_assert_int_eq(pp_gcdump_get_info(d, &info), PP_OK);
    ck_assert_uint_eq(info.format_version, 10);
    ck_assert_str_eq(info.creation_tool, "dotnet-gcdump");
    ck_assert_str_eq(info.process_name, "App");
    ck_assert_uint_eq(info.process_id, 4242);
    ck_assert_int_eq(info.total_size, 300000056);
    ck_assert_uint_eq(info.sum_node_sizes, 300000056);
    pp_gcdump_free(d);
    gb_free(&buf);
}
END_TEST

START_TEST(test_no_creation_tool_old_perfview)
{
    gb_graph g = basic_graph();
    g.creation_tool = NULL; /* test1/test2 style: field 16 absent */
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(d, &info);
    ck_assert_str_eq(info.creation_tool, "");
    ck_assert_uint_eq(pp_gcdump_snapshot(d)->node_count, 6);
    pp_gcdump_free(d);
    gb_free(&buf);
}
END_TEST

/* Non-ASCII and a surrogate pair: U+00E9, U+4E2D, U+1F600 (D83D DE00). */
START_TEST(test_utf16_names)
{
    static const uint16_t name[] = { 'T', 0x00E9, 0x4E2D, 0xD83D, 0xDE00, 0xDC00 };
    gb_type types[3] = { { "UNDEFINED", NULL, 0, 0, NULL },
                         { NULL, name, 6, 16, "m" },
                         { "[.NET Roots]", NULL, 0, 0, NULL } };
    static const uint32_t kids[] = { 1 };
    gb_node nodes[2] = { { 2, 0, 1, kids, 0, 0 }, { 1, 16, 0, NULL, 8, 0 } };
    gb_graph g = { 0 };
    g.ntypes = 3;
    g.types = types;
    g.nnodes = 2;
    g.nodes = nodes;
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    /* The lone low surrogate becomes U+FFFD. */
    ck_assert_str_eq(pp_gcdump_snapshot(d)->types[1].name,
                     "T\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80\xEF\xBF\xBD");
    pp_gcdump_free(d);
    gb_free(&buf);
}
END_TEST

/* Deferred types (.NET Native): null names, TypeID display names, Modules
 * defined once and then referenced by label; both Module.Size widths. */
static void
check_deferred(int size64)
{
    gb_type types[4] = { { "UNDEFINED", NULL, 0, 0, NULL },
                         { "[.NET Roots]", NULL, 0, 0, NULL },
                         { NULL, NULL, 0, 48, NULL },
                         { NULL, NULL, 0, 64, NULL } };
    static const uint32_t kids[] = { 1, 2, 3 };
    gb_node nodes[4] = { { 1, 0, 3, kids, 0, 0 },
                         { 2, 48, 0, NULL, 16, 0 },
                         { 3, 64, 0, NULL, 32, 0 },
                         { 2, 48, 0, NULL, 48, 0 } };
    gb_deferred def[4] = {
        { 0, -1, NULL }, { 0, -1, NULL }, { 0x1a2b, 0, "" }, { 0x7fffffff, 0, "[]" }
    };
    static const char *const mods[] = { "C:\\app\\App.dll" };
    gb_graph g = { 0 };
    g.ntypes = 4;
    g.types = types;
    g.nnodes = 4;
    g.nodes = nodes;
    g.graph_min_reader = 1;
    g.ndeferred = 4;
    g.deferred = def;
    g.nmodules = 1;
    g.module_paths = mods;
    g.module_size64 = size64;
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    ck_assert_str_eq(s->types[2].name, "TypeID(0x1a2b)");
    ck_assert_str_eq(s->types[3].name, "TypeID(0x7fffffff)");
    ck_assert_str_eq(s->types[2].module, "C:\\app\\App.dll");
    ck_assert_str_eq(s->types[3].module, "C:\\app\\App.dll");
    ck_assert_uint_eq(s->node_size[2], 64);
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(d, &info);
    ck_assert_uint_eq(info.graph_min_reader, 1);
    pp_gcdump_free(d);
    gb_free(&buf);
}

START_TEST(test_deferred_types_module_i32)
{
    check_deferred(0);
}
END_TEST
START_TEST(test_deferred_types_module_i64)
{
    check_deferred(1);
}
END_TEST

START_TEST(test_sampled_multipliers)
{
    gb_graph g = basic_graph();
    static const float mult[] = { 1, 1, 1, 10, 2.5f, 1 };
    g.nmult = 6;
    g.mult = mult;
    g.avg_count_mult = 4.0f;
    g.avg_size_mult = 3.0f;
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    ck_assert_uint_ne(s->sampled, 0);
    ck_assert_ptr_nonnull(s->type_count_multiplier);
    ck_assert_double_eq(s->type_count_multiplier[3], 10.0);
    ck_assert_double_eq(s->type_count_multiplier[4], 2.5);
    ck_assert_double_eq(s->type_size_multiplier[4], 2.5);
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(d, &info);
    ck_assert_uint_eq(info.count_multiplier_count, 6);
    ck_assert_double_eq(info.average_count_multiplier, 4.0);
    ck_assert_double_eq(info.average_size_multiplier, 3.0);
    pp_gcdump_free(d);
    gb_free(&buf);
}
END_TEST

/* Sub-objects: DotNetHeapInfo with segments whose later type references
 * are ObjectReferences to the first's type record; both segment versions. */
START_TEST(test_segments_and_type_references)
{
    for (int32_t segv = 0; segv <= 1; segv++) {
        gb_graph g = basic_graph();
        g.nsegments = 3;
        g.segment_version = segv;
        gb_buf buf = { 0 };
        pp_error err = PP_ERROR_INIT;
        pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
        pp_gcdump_info info = { .struct_size = sizeof(info) };
        pp_gcdump_get_info(d, &info);
        ck_assert_str_eq(info.creation_tool, "dotnet-gcdump");
        ck_assert_uint_eq(info.process_id, 4242);
        pp_gcdump_free(d);
        gb_free(&buf);
    }
}
END_TEST

/* PerfView's layout before version 8 (PreVersion8FromStream). */
START_TEST(test_legacy_versions)
{
    for (int32_t v = 4; v <= 7; v++) {
        gb_graph g = basic_graph();
        g.version = v;
        g.min_reader = 0;
        g.nsegments = 2;
        gb_buf buf = { 0 };
        pp_error err = PP_ERROR_INIT;
        pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
        const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
        ck_assert_uint_eq(s->node_count, 6);
        ck_assert_uint_eq(s->edge_count, 7);
        pp_gcdump_info info = { .struct_size = sizeof(info) };
        pp_gcdump_get_info(d, &info);
        ck_assert_uint_eq(info.format_version, (uint32_t)v);
        ck_assert_str_eq(info.process_name, v >= 5 ? "App" : "");
        ck_assert_uint_eq(info.process_id, v >= 5 ? 4242 : 0);
        pp_gcdump_free(d);
        gb_free(&buf);
    }
    /* Version 3 is older than any reader knows. */
    gb_graph g = basic_graph();
    g.version = 3;
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    ck_assert_ptr_null(read_built(&g, &buf, PP_EUNSUPPORTED, &err));
    gb_free(&buf);
}
END_TEST

START_TEST(test_future_version_refused)
{
    gb_graph g = basic_graph();
    g.version = 11;
    g.min_reader = 11;
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_EUNSUPPORTED, &err);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(err.message, "version 11") && strstr(err.message, "up to version 10"),
                  "%s", err.message);
    ck_assert_int_eq(err.offset, 0x18);
    gb_free(&buf);

    /* A newer writer that old readers may still read is accepted. */
    g.version = 12;
    g.min_reader = 8;
    d = read_built(&g, &buf, PP_OK, &err);
    pp_gcdump_free(d);
    gb_free(&buf);

    /* Version 8 is refused by PerfView itself. */
    g.version = 8;
    g.min_reader = 8;
    d = read_built(&g, &buf, PP_EUNSUPPORTED, &err);
    ck_assert_ptr_null(d);
    gb_free(&buf);
}
END_TEST

START_TEST(test_not_a_gcdump)
{
    static const uint8_t junk[] = "Nettrace\0\0\0\0 this is not a heap dump at all";
    pp_gcdump *d = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_read_memory(junk, sizeof(junk), "x.gcdump", &d, &err), PP_EFORMAT);
    ck_assert_ptr_null(d);
    ck_assert_int_eq(err.offset, 0);
    ck_assert_ptr_nonnull(strstr(err.message, "x.gcdump"));
    ck_assert_int_eq(pp_gcdump_read_memory(NULL, 0, "empty", &d, &err), PP_EFORMAT);
}
END_TEST

/* The snapshots of two decodes of the same bytes are equal, array by
 * array (a and b from hc-free readers: shapes, CSR, sizes). */
static void
check_same_snapshot(const char *what, const pp_gcdump *da, const pp_gcdump *db)
{
    const pp_heap_snapshot *a = pp_gcdump_snapshot(da), *b = pp_gcdump_snapshot(db);
    uint32_t n = a->node_count;
    ck_assert_uint_eq(b->node_count, n);
    ck_assert_uint_eq(b->edge_count, a->edge_count);
    ck_assert_uint_eq(b->root, a->root);
    ck_assert_uint_eq(b->shape_count, a->shape_count);
    ck_assert_uint_eq(da->info.sum_node_sizes, db->info.sum_node_sizes);
    ck_assert_uint_eq(b->dangling_edges, a->dangling_edges);
    ck_assert_uint_eq(b->dangling_nodes, a->dangling_nodes);
    ck_assert_msg((a->node_shape16 == NULL) == (b->node_shape16 == NULL), "%s: shape width", what);
    if (a->shape_count) {
        ck_assert_int_eq(memcmp(a->shape_type, b->shape_type, a->shape_count * sizeof(uint32_t)),
                         0);
        ck_assert_int_eq(memcmp(a->shape_size, b->shape_size, a->shape_count * sizeof(uint32_t)),
                         0);
    }
    if (n && a->node_shape16)
        ck_assert_int_eq(memcmp(a->node_shape16, b->node_shape16, n * sizeof(uint16_t)), 0);
    else if (n)
        ck_assert_int_eq(memcmp(a->node_shape32, b->node_shape32, n * sizeof(uint32_t)), 0);
    ck_assert_int_eq(memcmp(a->edge_start32, b->edge_start32, ((size_t)n + 1) * sizeof(uint32_t)),
                     0);
    if (a->edge_count)
        ck_assert_int_eq(memcmp(a->edges, b->edges, a->edge_count * sizeof(uint32_t)), 0);
    ck_assert_msg((a->node_type == NULL) == (b->node_type == NULL), "%s: node_type", what);
    if (n && a->node_type) {
        ck_assert_int_eq(memcmp(a->node_type, b->node_type, n * sizeof(uint32_t)), 0);
        ck_assert_int_eq(memcmp(a->node_size, b->node_size, n * sizeof(uint64_t)), 0);
    }
}

/* The bytes decoded with the node table split at every node count from 2
 * (the halves cut at n / 2) give what the serial decode gave: rc, err and
 * the snapshot d (NULL when it failed). */
static void
check_split_same(const uint8_t *data, size_t size, const char *name, int rc, const pp_error *err,
                 const pp_gcdump *d)
{
    pp_gcdump_tuning tu = { PP_SHAPES_16_MAX, 2 };
    pp_gcdump *w = NULL;
    pp_error werr = PP_ERROR_INIT;
    int wrc = pp_gcdump_read_memory_tuned(data, size, name, &tu, &w, &werr);
    ck_assert_int_eq(wrc, rc);
    if (rc != PP_OK) {
        ck_assert_ptr_null(w);
        ck_assert_int_eq(werr.offset, err->offset);
        ck_assert_str_eq(werr.message, err->message);
        return;
    }
    check_same_snapshot(name, d, w);
    pp_gcdump_free(w);
}

/* Every truncation of a file fails cleanly with an offset inside the file. */
START_TEST(test_truncations)
{
    gb_graph g = basic_graph();
    gb_buf buf = { 0 };
    gb_write(&g, &buf);
    for (size_t len = 0; len < buf.n; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf.p, len);
        pp_gcdump *d = NULL;
        pp_error err = PP_ERROR_INIT;
        int rc = pp_gcdump_read_memory(copy, len, "cut.gcdump", &d, &err);
        ck_assert_msg(rc < 0, "truncated to %zu bytes but read", len);
        check_split_same(copy, len, "cut.gcdump", rc, &err, d);
        ck_assert_ptr_null(d);
        ck_assert_msg(err.offset >= 0 && (size_t)err.offset <= len, "len %zu: offset %lld", len,
                      (long long)err.offset);
        ck_assert_msg(err.message[0] != '\0', "len %zu: no message", len);
        free(copy);
    }
    gb_free(&buf);
}
END_TEST

/* Every single-byte corruption is either read or refused; never a crash or
 * an out-of-bounds read (ASan watches), and a refusal names an offset. */
START_TEST(test_corruptions)
{
    gb_graph g = basic_graph();
    gb_buf buf = { 0 };
    gb_write(&g, &buf);
    static const uint8_t vals[] = { 0x00, 0x01, 0x06, 0x7f, 0x80, 0xff };
    size_t refused = 0;
    for (size_t at = 0; at < buf.n; at++) {
        for (size_t v = 0; v < sizeof(vals); v++) {
            uint8_t *copy = malloc(buf.n);
            memcpy(copy, buf.p, buf.n);
            if (copy[at] == vals[v]) {
                free(copy);
                continue;
            }
            copy[at] = vals[v];
            pp_gcdump *d = NULL;
            pp_error err = PP_ERROR_INIT;
            int rc = pp_gcdump_read_memory(copy, buf.n, "bad.gcdump", &d, &err);
            check_split_same(copy, buf.n, "bad.gcdump", rc, &err, d);
            if (rc < 0) {
                refused++;
                ck_assert_msg(err.offset >= 0 && (size_t)err.offset <= buf.n,
                              "byte %zu: offset %lld", at, (long long)err.offset);
            } else {
                const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
                for (uint32_t i = 0; i < s->node_count; i++) {
                    ck_assert_uint_lt(s->node_type[i], s->type_count);
                    for (uint64_t k = s->edge_start[i]; k < s->edge_start[i + 1]; k++)
                        ck_assert_uint_lt(s->edges[k], s->node_count);
                }
                ck_assert_uint_lt(s->root, s->node_count);
            }
            pp_gcdump_free(d);
            free(copy);
        }
    }
    ck_assert_uint_gt(refused, buf.n); /* most corruptions are detected */
    gb_free(&buf);
}
END_TEST

/* A damaged node record names the node and the offset of the record. */
START_TEST(test_bad_child_reported_with_offset)
{
    static const uint32_t kids[] = { 1 };
    gb_type types[2] = { { "UNDEFINED", NULL, 0, 0, NULL }, { "T", NULL, 0, 8, NULL } };
    gb_node nodes[2] = { { 1, 8, 1, kids, 0, 0 }, { 1, 8, 0, NULL, 8, 0 } };
    gb_graph g = { 0 };
    g.ntypes = 2;
    g.types = types;
    g.nnodes = 2;
    g.nodes = nodes;
    gb_buf buf = { 0 };
    gb_write(&g, &buf);
    /* The blob: length 7, then "00 00" (UNDEFINED), node 1 "02 00" (type 1,
     * no child), node 0 "02 01 01" (type 1, one child, delta +1). Make the
     * delta point past the node table. */
    static const uint8_t blob[] = { 7, 0, 0, 0, 0, 0, 2, 0, 2, 1, 1 };
    size_t blob_len_at = 0;
    for (size_t i = 0; i + sizeof(blob) <= buf.n; i++)
        if (memcmp(buf.p + i, blob, sizeof(blob)) == 0) {
            blob_len_at = i;
            break;
        }
    ck_assert_uint_gt(blob_len_at, 0);
    size_t delta_at = blob_len_at + sizeof(blob) - 1;
    /* Past the node table (node 5 of 2): not damage the reader must
     * refuse but a cut graph; the edge is dropped and counted, the rest
     * read whole (gcdump warns, gcdump.incomplete). */
    buf.p[delta_at] = 0x05;
    pp_gcdump *d = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_read_memory(buf.p, buf.n, "cut.gcdump", &d, &err), PP_OK);
    const pp_heap_snapshot *cut = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(cut->node_count, 2);
    ck_assert_uint_eq(cut->edge_count, 0);
    ck_assert_uint_eq(cut->edge_start32[1], 0);
    ck_assert_uint_eq(cut->dangling_edges, 1);
    ck_assert_uint_eq(cut->dangling_nodes, 1);
    pp_gcdump_info info = { .struct_size = sizeof info };
    ck_assert_int_eq(pp_gcdump_get_info(d, &info), PP_OK);
    ck_assert_uint_eq(info.dangling_edges, 1);
    ck_assert_uint_eq(info.sum_node_sizes, 16);
    check_split_same(buf.p, buf.n, "cut.gcdump", PP_OK, &err, d);
    pp_gcdump_free(d);
    d = NULL;
    /* Before node 0 (delta -2, "7e"): refused, naming node and offset. */
    buf.p[delta_at] = 0x7e;
    ck_assert_int_eq(pp_gcdump_read_memory(buf.p, buf.n, "bad.gcdump", &d, &err), PP_EFORMAT);
    ck_assert_int_eq(err.offset, (int64_t)delta_at);
    ck_assert_msg(strstr(err.message, "node 0") && strstr(err.message, "points at node -2") &&
                      strstr(err.message, "before node 0"),
                  "%s", err.message);
    /* A bad header of a later node wins over a bad child of an earlier one
     * (headers are all checked before any child, as two passes did): node
     * 1's type word "02" becomes "08", type 4 of 2. */
    buf.p[blob_len_at + 6] = 0x08;
    err = (pp_error)PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_read_memory(buf.p, buf.n, "bad.gcdump", &d, &err), PP_EFORMAT);
    ck_assert_int_eq(err.offset, (int64_t)(blob_len_at + 6));
    ck_assert_msg(strstr(err.message, "node 1: type index 4"), "%s", err.message);
    /* Split at node 1, each half fails alone; the serial decode says which. */
    check_split_same(buf.p, buf.n, "bad.gcdump", PP_EFORMAT, &err, NULL);
    gb_free(&buf);
}
END_TEST

/* ---- real fixtures -------------------------------------------------------- */

/* Per type name (display name, merging type indexes that share it), exactly
 * as the oracle aggregates. */
static void
compare_with_oracle(const char *path, const pp_heap_snapshot *s, const pp_gcdump_info *info,
                    json_t *oracle)
{
    json_t *graph = json_object_get(oracle, "graph");
    ck_assert_ptr_nonnull(graph);
    ck_assert_int_eq(json_integer_value(json_object_get(graph, "nodes")), s->node_count);
    ck_assert_int_eq(json_integer_value(json_object_get(graph, "types")), s->type_count);
    ck_assert_int_eq(json_integer_value(json_object_get(graph, "total_size")), info->total_size);
    ck_assert_int_eq(json_integer_value(json_object_get(graph, "sum_node_sizes")),
                     (json_int_t)info->sum_node_sizes);
    ck_assert_int_eq(json_integer_value(json_object_get(graph, "root_index")), s->root);
    ck_assert_int_eq(json_is_true(json_object_get(graph, "sampled")), s->sampled != 0);

    uint64_t *count = calloc(s->type_count, sizeof(uint64_t));
    uint64_t *bytes = calloc(s->type_count, sizeof(uint64_t));
    char *seen = calloc(s->type_count, 1);
    for (uint32_t i = 0; i < s->node_count; i++) {
        count[s->node_type[i]]++;
        bytes[s->node_type[i]] += s->node_size[i];
    }
    json_t *rows = json_object_get(oracle, "by_type");
    size_t idx;
    json_t *row;
    size_t checked = 0;
    json_array_foreach(rows, idx, row) {
        const char *name = json_string_value(json_object_get(row, "type"));
        uint64_t c = 0, b = 0;
        for (uint32_t t = 0; t < s->type_count; t++)
            if (strcmp(s->types[t].name, name) == 0) {
                c += count[t];
                b += bytes[t];
                seen[t] = 1;
            }
        ck_assert_msg(c == (uint64_t)json_integer_value(json_object_get(row, "count")) &&
                          b == (uint64_t)json_integer_value(json_object_get(row, "bytes")),
                      "%s: type \"%s\": count %llu bytes %llu, oracle %lld / %lld", path, name,
                      (unsigned long long)c, (unsigned long long)b,
                      (long long)json_integer_value(json_object_get(row, "count")),
                      (long long)json_integer_value(json_object_get(row, "bytes")));
        checked++;
    }
    /* Nothing the reader has is missing from the oracle. */
    for (uint32_t t = 0; t < s->type_count; t++)
        ck_assert_msg(seen[t] || count[t] == 0, "%s: type \"%s\" (%llu nodes) not in oracle", path,
                      s->types[t].name, (unsigned long long)count[t]);
    printf("gcdump oracle: %s: %u nodes, %u types, %zu type names, total %lld bytes: all equal\n",
           path, (unsigned)s->node_count, (unsigned)s->type_count, checked,
           (long long)info->total_size);
    free(count);
    free(bytes);
    free(seen);
}

/* ---- node shapes (ABI 1.4) ------------------------------------------------ */

typedef struct shape_pair {
    uint32_t type, size;
} shape_pair;

static int
cmp_pair(const void *a, const void *b)
{
    const shape_pair *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

/* s's shapes against per-node types and sizes read another way: node for
 * node the same, one index array (the 16-bit one only when it can index
 * every shape), every shape used by some node and no pair twice. */
static void
check_shapes(const char *what, const pp_heap_snapshot *s, const uint32_t *type,
             const uint32_t *size)
{
    ck_assert_msg(s->shape_count > 0 && s->shape_count <= s->node_count, "%s: %u shapes", what,
                  (unsigned)s->shape_count);
    ck_assert_msg((s->node_shape16 == NULL) != (s->node_shape32 == NULL),
                  "%s: exactly one index array", what);
    if (s->node_shape16)
        ck_assert_uint_le(s->shape_count, 65536);
    uint8_t *used = calloc(s->shape_count, 1);
    shape_pair *pairs = malloc(s->shape_count * sizeof(*pairs));
    ck_assert(used && pairs);
    for (uint32_t v = 0; v < s->node_count; v++) {
        uint32_t sh = s->node_shape16 ? s->node_shape16[v] : s->node_shape32[v];
        ck_assert_msg(sh < s->shape_count, "%s: node %u shape %u", what, (unsigned)v, (unsigned)sh);
        ck_assert_msg(s->shape_type[sh] == type[v] && s->shape_size[sh] == size[v],
                      "%s: node %u: shape (%u, %u), node (%u, %u)", what, (unsigned)v,
                      (unsigned)s->shape_type[sh], (unsigned)s->shape_size[sh], (unsigned)type[v],
                      (unsigned)size[v]);
        used[sh] = 1;
    }
    for (uint32_t sh = 0; sh < s->shape_count; sh++) {
        ck_assert_msg(used[sh], "%s: shape %u is no node's", what, (unsigned)sh);
        pairs[sh] = (shape_pair){ s->shape_type[sh], s->shape_size[sh] };
    }
    qsort(pairs, s->shape_count, sizeof(*pairs), cmp_pair);
    for (uint32_t sh = 1; sh < s->shape_count; sh++)
        ck_assert_msg(cmp_pair(&pairs[sh - 1], &pairs[sh]) != 0, "%s: pair (%u, %u) twice", what,
                      (unsigned)pairs[sh].type, (unsigned)pairs[sh].size);
    free(used);
    free(pairs);
}

/* file's shapes against its node_type/node_size32, with the 16-bit indices
 * and with the 32-bit ones forced (a limit of 0, 1 and 2 shapes: from the
 * start, and widened after the first and second shape). */
static void
check_file_shapes(const char *file)
{
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = NULL;
    ck_assert_msg(pp_gcdump_read_file(file, &d, &err) == PP_OK, "%s: %s", file, err.message);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    check_shapes(file, s, s->node_type, s->node_size32);
    ck_assert_ptr_nonnull(s->node_shape16);
    pp_gcdump_map m;
    ck_assert_int_eq(pp_gcdump_map_open(file, &m, &err), PP_OK);
    for (uint32_t limit = 0; limit <= 2; limit++) {
        pp_gcdump *w = NULL;
        /* The split decode merges its halves' shapes past the limit too. */
        pp_gcdump_tuning tu = { limit, limit == 1 ? 2 : 0 };
        ck_assert_msg(pp_gcdump_read_memory_tuned(m.data, m.size, file, &tu, &w, &err) == PP_OK,
                      "%s: %s", file, err.message);
        ck_assert_int_eq(w->decoded_split, limit == 1);
        const pp_heap_snapshot *ws = pp_gcdump_snapshot(w);
        check_shapes(file, ws, s->node_type, s->node_size32);
        if (s->shape_count > limit)
            ck_assert_ptr_nonnull(ws->node_shape32);
        ck_assert_uint_eq(ws->shape_count, s->shape_count);
        pp_gcdump_free(w);
    }
    pp_gcdump_map_close(&m);
    pp_gcdump_free(d);
}

/* fn on each hand-built file that holds a whole graph (tests/gcdump). */
static void
each_hand_built(void (*fn)(const char *))
{
    const char *src = getenv("PP_SRCDIR");
    static const char *const hand[] = { "small.gcdump", "sampled.gcdump" };
    for (size_t i = 0; i < sizeof(hand) / sizeof(hand[0]); i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/tests/gcdump/%s", src ? src : TEST_SRCDIR, hand[i]);
        fn(path);
    }
}

START_TEST(test_shapes_match_nodes)
{
    char **files;
    size_t n = gco_list_gcdumps(&files);
    for (size_t f = 0; f < n; f++)
        check_file_shapes(files[f]);
    gco_free_list(files, n);
    each_hand_built(check_file_shapes);
    printf("gcdump shapes: %zu real and 2 hand-built files\n", n);
}
END_TEST

/* A file with more distinct (type, size) pairs than 16 bits index (one
 * array type in 80,000 lengths, as a hostile or odd file may have) takes
 * the 32-bit shape path at the default limit, widening mid-decode. */
/* Every fixture decoded with its node table in two halves equals the
 * serial decode, array by array: from memory, lean from a mapping (pages
 * given back behind both halves), and with the 16-bit shape indices
 * widened while the halves' shapes merge. */
static void
check_file_split(const char *file)
{
    pp_error err = PP_ERROR_INIT;
    pp_gcdump_map m;
    ck_assert_int_eq(pp_gcdump_map_open(file, &m, &err), PP_OK);
    for (uint32_t limit = 1; limit <= PP_SHAPES_16_MAX; limit += PP_SHAPES_16_MAX - 1) {
        pp_gcdump_tuning serial = { limit, 0 }, split = { limit, 2 };
        for (int lean = 0; lean <= 1; lean++) {
            pp_gcdump *a = NULL, *b = NULL;
            ck_assert_msg(pp_gcdump_read_mapped_tuned(&m, file, lean, &serial, &a, &err) == PP_OK,
                          "%s: %s", file, err.message);
            ck_assert_msg(pp_gcdump_read_mapped_tuned(&m, file, lean, &split, &b, &err) == PP_OK,
                          "%s: %s", file, err.message);
            ck_assert_int_eq(a->decoded_split, 0);
            ck_assert_msg(b->decoded_split, "%s: the split decode fell back", file);
            check_same_snapshot(file, a, b);
            pp_gcdump_free(a);
            pp_gcdump_free(b);
        }
        pp_gcdump *c = NULL;
        ck_assert_int_eq(pp_gcdump_read_memory_tuned(m.data, m.size, file, &split, &c, &err),
                         PP_OK);
        ck_assert_int_eq(c->decoded_split, 1);
        pp_gcdump_free(c);
    }
    pp_gcdump_map_close(&m);
}

START_TEST(test_split_matches_serial)
{
    char **files;
    size_t n = gco_list_gcdumps(&files);
    for (size_t f = 0; f < n; f++)
        check_file_split(files[f]);
    each_hand_built(check_file_split);
    /* The default cut: the larger leak fixture is decoded in halves. */
    for (size_t f = 0; f < n; f++) {
        pp_gcdump *d = NULL;
        pp_error err = PP_ERROR_INIT;
        ck_assert_int_eq(pp_gcdump_read_file(files[f], &d, &err), PP_OK);
        ck_assert_int_eq(d->decoded_split,
                         pp_gcdump_snapshot(d)->node_count >= PP_GCDUMP_SPLIT_NODES);
        pp_gcdump_free(d);
    }
    gco_free_list(files, n);
    printf("gcdump split decode: %zu real and 2 hand-built files\n", n);
}
END_TEST

START_TEST(test_shapes_past_16_bits)
{
    enum { N = 120000 };
    static const gb_type types[] = {
        { "UNDEFINED", NULL, 0, 0, NULL },
        { "[.NET Roots]", NULL, 0, 0, NULL },
        { "App.Node", NULL, 0, 24, "App.dll" },
        { "System.Int32[]", NULL, 0, 24, "System.Private.CoreLib.dll" },
    };
    gb_node *nodes = calloc(N, sizeof(*nodes));
    uint32_t *kids = malloc(N * sizeof(uint32_t));
    uint32_t *type = malloc(N * sizeof(uint32_t)), *size = malloc(N * sizeof(uint32_t));
    ck_assert(nodes && kids && type && size);
    for (uint32_t i = 1; i < N; i++)
        kids[i - 1] = i;
    nodes[0] = (gb_node){ 1, 0, N - 1, kids, 0, 0 };
    type[0] = 1;
    size[0] = 0;
    for (uint32_t i = 1; i < N; i++) {
        /* Every third node an App.Node (one size), the rest arrays of
         * lengths that never repeat. */
        int plain = i % 3 == 0;
        type[i] = plain ? 2 : 3;
        size[i] = plain ? 24 : 24 + 4 * i;
        nodes[i] = (gb_node){ type[i], (int32_t)size[i], 0, NULL, 0x10000 + 64 * (uint64_t)i, 0 };
    }
    gb_graph g = { 0 };
    g.ntypes = 4;
    g.types = types;
    g.nnodes = N;
    g.nodes = nodes;
    g.creation_tool = "dotnet-gcdump";
    gb_buf buf = { 0 };
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_built(&g, &buf, PP_OK, &err);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(s->node_count, N);
    /* The root's, App.Node's and 80,000 array shapes. */
    ck_assert_uint_eq(s->shape_count, 2 + 80000);
    ck_assert_ptr_null(s->node_shape16);
    check_shapes("past 16 bits", s, type, size);
    check_shapes("past 16 bits", s, s->node_type, s->node_size32);
    pp_gcdump_free(d);
    gb_free(&buf);
    free(nodes);
    free(kids);
    free(type);
    free(size);
}
END_TEST

START_TEST(test_fixtures_match_oracle)
{
    char **files;
    size_t n = gco_list_gcdumps(&files);
    if (n == 0) {
        printf("SKIP: no .gcdump fixtures in PP_TESTDATA\n");
        return;
    }
    size_t compared = 0;
    for (size_t f = 0; f < n; f++) {
        pp_gcdump *d = NULL;
        pp_error err = PP_ERROR_INIT;
        int rc = pp_gcdump_read_file(files[f], &d, &err);
        ck_assert_msg(rc == PP_OK, "%s: %s", files[f], err.message);
        const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
        pp_gcdump_info info = { .struct_size = sizeof(info) };
        pp_gcdump_get_info(d, &info);
        /* The header's TotalSize is the sum of node sizes (reference §10). */
        ck_assert_int_eq(info.total_size, (int64_t)info.sum_node_sizes);
        ck_assert_str_eq(s->types[0].name, "UNDEFINED");
        json_t *oracle = gco_oracle_for(files[f]);
        if (!oracle) {
            printf("SKIP: %s: no oracle JSON beside it\n", files[f]);
        } else {
            compare_with_oracle(files[f], s, &info, oracle);
            json_decref(oracle);
            compared++;
        }
        pp_gcdump_free(d);
    }
    printf("gcdump oracle: %zu of %zu fixtures compared\n", compared, n);
    gco_free_list(files, n);
}
END_TEST

/* The pipeline's lean decode (32-bit arrays only, addresses left in the
 * file) against the library's eager one, on every real fixture: the 32-bit
 * arrays equal the 64-bit ones, which are NULL until a legacy stage asks,
 * and then equal the eager reader's, addresses included. */
START_TEST(test_lean_matches_eager)
{
    char **files;
    size_t n = gco_list_gcdumps(&files);
    if (n == 0) {
        printf("SKIP: no .gcdump fixtures in PP_TESTDATA\n");
        return;
    }
    for (size_t f = 0; f < n; f++) {
        pp_gcdump *eager = NULL, *lean = NULL;
        pp_error err = PP_ERROR_INIT;
        ck_assert_msg(pp_gcdump_read_file(files[f], &eager, &err) == PP_OK, "%s", err.message);
        pp_gcdump_map m;
        ck_assert_int_eq(pp_gcdump_map_open(files[f], &m, &err), PP_OK);
        ck_assert_msg(pp_gcdump_read_mapped_lean(&m, files[f], &lean, &err) == PP_OK, "%s",
                      err.message);
        pp_gcdump_map_release(&m, 0, m.size); /* as the source does */
        const pp_heap_snapshot *e = pp_gcdump_snapshot(eager), *l = pp_gcdump_snapshot(lean);
        uint32_t nn = e->node_count;
        ck_assert_uint_eq(l->node_count, nn);
        ck_assert_uint_eq(l->edge_count, e->edge_count);
        ck_assert_ptr_null(l->node_size);
        ck_assert_ptr_null(l->node_address);
        ck_assert_ptr_null(l->edge_start);
        /* Types and sizes only as shapes, until a stage without
         * PP_ANALYZER_FLAG_HEAP_SHAPES asks. */
        ck_assert_ptr_null(l->node_type);
        ck_assert_ptr_null(l->node_size32);
        check_shapes(files[f], l, e->node_type, e->node_size32);
        for (uint32_t i = 0; i < nn; i++) {
            ck_assert_uint_eq(e->node_size32[i], e->node_size[i]);
            ck_assert_uint_eq(l->edge_start32[i], e->edge_start[i]);
        }
        ck_assert_uint_eq(l->edge_start32[nn], e->edge_start[nn]);
        ck_assert_int_eq(memcmp(l->edges, e->edges, e->edge_count * sizeof(uint32_t)), 0);
        /* The 64-bit sizes come from the shapes when node_size32 is not
         * there (a stage with the shapes flag but not HEAP32 asks first). */
        ck_assert_int_eq(pp_gcdump_legacy_arrays(l, &err), PP_OK);
        ck_assert_ptr_null(l->node_size32);
        ck_assert_int_eq(memcmp(l->node_size, e->node_size, nn * sizeof(uint64_t)), 0);
        ck_assert_int_eq(memcmp(l->node_address, e->node_address, nn * sizeof(uint64_t)), 0);
        ck_assert_int_eq(memcmp(l->edge_start, e->edge_start, (nn + 1) * sizeof(uint64_t)), 0);
        const uint64_t *built = l->node_address;
        ck_assert_int_eq(pp_gcdump_legacy_arrays(l, &err), PP_OK); /* once */
        ck_assert_ptr_eq(l->node_address, built);
        /* Every snapshot but a lean one has them already. */
        ck_assert_int_eq(pp_gcdump_legacy_arrays(e, &err), PP_OK);
        /* node_type and node_size32 from the shapes, once, as the reader's. */
        ck_assert_int_eq(pp_gcdump_node_arrays(l, &err), PP_OK);
        ck_assert_int_eq(memcmp(l->node_type, e->node_type, nn * sizeof(uint32_t)), 0);
        ck_assert_int_eq(memcmp(l->node_size32, e->node_size32, nn * sizeof(uint32_t)), 0);
        const uint32_t *types = l->node_type;
        ck_assert_int_eq(pp_gcdump_node_arrays(l, &err), PP_OK);
        ck_assert_ptr_eq(l->node_type, types);
        ck_assert_int_eq(pp_gcdump_node_arrays(e, &err), PP_OK);
        check_shapes(files[f], l, l->node_type, l->node_size32);
        pp_gcdump_free(lean);
        pp_gcdump_map_close(&m);
        pp_gcdump_free(eager);
    }
    gco_free_list(files, n);
}
END_TEST

static uint64_t
count_of(const pp_heap_snapshot *s, const char *name)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < s->node_count; i++)
        if (strcmp(s->types[s->node_type[i]].name, name) == 0)
            c++;
    return c;
}

/* The workload's ground truth: LeakedSession instances alive per snapshot. */
START_TEST(test_leak_fixture_truth)
{
    char *before = gco_data_path("leak-before.gcdump");
    char *after = gco_data_path("leak-after.gcdump");
    char *truth_path = gco_data_path("leak.truth.json");
    if (!gco_exists(before) || !gco_exists(after) || !gco_exists(truth_path)) {
        printf("SKIP: leak-before/after.gcdump or leak.truth.json absent\n");
        free(before);
        free(after);
        free(truth_path);
        return;
    }
    json_t *truth = json_load_file(truth_path, 0, NULL);
    ck_assert_ptr_nonnull(truth);
    const char *leak_type = json_string_value(json_object_get(truth, "leak_type"));
    pp_gcdump *b = NULL, *a = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_read_file(before, &b, &err), PP_OK);
    ck_assert_int_eq(pp_gcdump_read_file(after, &a, &err), PP_OK);
    uint64_t cb = count_of(pp_gcdump_snapshot(b), leak_type);
    uint64_t ca = count_of(pp_gcdump_snapshot(a), leak_type);
    ck_assert_int_eq(cb, json_integer_value(json_object_get(truth, "leaked_before")));
    ck_assert_int_eq(ca, json_integer_value(json_object_get(truth, "leaked_after")));
    ck_assert_uint_eq(pp_gcdump_snapshot(a)->pointer_size,
                      (uint32_t)json_integer_value(json_object_get(truth, "pointer_size")));
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(a, &info);
    ck_assert_str_eq(info.creation_tool, "dotnet-gcdump");
    printf("gcdump truth: %s before %llu after %llu\n", leak_type, (unsigned long long)cb,
           (unsigned long long)ca);
    pp_gcdump_free(b);
    pp_gcdump_free(a);
    json_decref(truth);
    free(before);
    free(after);
    free(truth_path);
}
END_TEST

/* ---- the hand-built files in tests/gcdump (see its README) ---------------- */

static pp_gcdump *
read_hand_built(const char *name, int expect, pp_error *err)
{
    const char *src = getenv("PP_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/gcdump/%s", src ? src : TEST_SRCDIR, name);
    pp_gcdump *d = NULL;
    int rc = pp_gcdump_read_file(path, &d, err);
    ck_assert_msg(rc == expect, "%s: rc %d (want %d): %s", path, rc, expect, err->message);
    return d;
}

START_TEST(test_hand_built_files)
{
    pp_error err = PP_ERROR_INIT;
    pp_gcdump *d = read_hand_built("small.gcdump", PP_OK, &err);
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(s->node_count, 11);
    ck_assert_uint_eq(s->type_count, 6);
    ck_assert_uint_eq(count_of(s, "App.Entry"), 4);
    ck_assert_uint_eq(count_of(s, "System.Byte[]"), 4);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < s->node_count; i++)
        if (strcmp(s->types[s->node_type[i]].name, "System.Byte[]") == 0)
            bytes += s->node_size[i];
    ck_assert_uint_eq(bytes, 1840);
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(d, &info);
    ck_assert_int_eq(info.total_size, 1968);
    ck_assert_uint_eq(info.process_id, 100);
    pp_gcdump_free(d);

    d = read_hand_built("sampled.gcdump", PP_OK, &err);
    s = pp_gcdump_snapshot(d);
    ck_assert_uint_ne(s->sampled, 0);
    ck_assert_double_eq(s->type_count_multiplier[4], 10.0);
    pp_gcdump_get_info(d, &info);
    ck_assert_str_eq(info.creation_tool, "");
    ck_assert_double_eq(info.average_count_multiplier, 8.0);
    pp_gcdump_free(d);

    ck_assert_ptr_null(read_hand_built("truncated.gcdump", PP_EFORMAT, &err));
    ck_assert_int_ge(err.offset, 0);
    ck_assert_int_le(err.offset, 373);
    ck_assert_ptr_null(read_hand_built("future-version.gcdump", PP_EUNSUPPORTED, &err));
    ck_assert_int_eq(err.offset, 24);
    ck_assert_ptr_nonnull(strstr(err.message, "needs a reader of version 11"));
}
END_TEST

/* ---- the engine-facing source --------------------------------------------- */

typedef struct hash_probe {
    size_t bytes;
    uint32_t sum;
} hash_probe;

static void
on_bytes(void *user, const void *data, size_t len)
{
    hash_probe *h = user;
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++)
        h->sum = h->sum * 31 + p[i];
    h->bytes += len;
}

static int warnings;
static char last_warning[PP_ERROR_MESSAGE_MAX];

static void
on_warning(void *user, const pp_error *w)
{
    (void)user;
    warnings++;
    snprintf(last_warning, sizeof(last_warning), "%s", w->message);
}

/* A file that shrinks while mapped: the map guard (core/gcdump/mapguard.c)
 * turns the SIGBUS of the first page past the new end into PP_EIO. The
 * file is truncated after mapping and before decoding, so the fault is
 * certain, not a race. */
START_TEST(test_shrunk_while_mapped)
{
    gb_graph g = basic_graph();
    gb_buf buf = { 0 };
    gb_write(&g, &buf);
    char path[] = "/tmp/pp-gcdump-shrink-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, buf.p, buf.n), (ssize_t)buf.n);
    pp_gcdump_map m;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_map_open(path, &m, &err), PP_OK);
    ck_assert_int_eq(ftruncate(fd, 0), 0);
    pp_gcdump *d = NULL;
    ck_assert_int_eq(pp_gcdump_read_mapped(&m, path, &d, &err), PP_EIO);
    ck_assert_ptr_null(d);
    ck_assert_msg(strstr(err.message, "shrank while it was read") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "0 now") != NULL, "%s", err.message);
    pp_gcdump_map_close(&m);
    /* Restored, the same file reads again through the same guard. */
    ck_assert_int_eq(pwrite(fd, buf.p, buf.n, 0), (ssize_t)buf.n);
    close(fd);
    err = (pp_error)PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_read_file(path, &d, &err), PP_OK);
    ck_assert_uint_eq(pp_gcdump_snapshot(d)->node_count, 6);
    pp_gcdump_free(d);
    unlink(path);
    free(buf.p);
}
END_TEST

/* The guard is per thread, and nests: a split decode's halves (nodes.c)
 * each read under their own, one on a thread of its own and one inside
 * the decode's guard. A page past the end of a shrunk file fails the
 * guard of the thread that touched it, and only that one. */
typedef struct touch_job {
    const pp_gcdump_map *m;
    const char *path;
    pp_error err;
    int rc;
    volatile uint8_t sink;
} touch_job;

static int
touch_last(void *p)
{
    touch_job *j = p;
    j->sink = j->m->data[j->m->size - 1];
    return PP_OK;
}

static void *
touch_main(void *p)
{
    touch_job *j = p;
    j->rc = pp_gcdump_map_run(j->m, j->path, touch_last, j, &j->err);
    return NULL;
}

static int
nested_touch(void *p)
{
    touch_job *j = p;
    j->rc = pp_gcdump_map_run(j->m, j->path, touch_last, j, &j->err);
    return PP_OK; /* the outer guard's run goes on */
}

START_TEST(test_guard_per_thread_and_nested)
{
    char path[] = "/tmp/pp-gcdump-guard-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static uint8_t page[3 * 4096];
    memset(page, 7, sizeof(page));
    ck_assert_int_eq(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
    pp_gcdump_map m;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_map_open(path, &m, &err), PP_OK);
    ck_assert_int_eq(ftruncate(fd, 4096), 0);
    touch_job j = { &m, path, PP_ERROR_INIT, 99, 0 };
    pthread_t tid;
    ck_assert_int_eq(pthread_create(&tid, NULL, touch_main, &j), 0);
    pthread_join(tid, NULL);
    ck_assert_int_eq(j.rc, PP_EIO);
    ck_assert_msg(strstr(j.err.message, "shrank while it was read"), "%s", j.err.message);
    touch_job k = { &m, path, PP_ERROR_INIT, 99, 0 };
    ck_assert_int_eq(pp_gcdump_map_run(&m, path, nested_touch, &k, &err), PP_OK);
    ck_assert_int_eq(k.rc, PP_EIO);
    pp_gcdump_map_close(&m);
    close(fd);
    unlink(path);
}
END_TEST

START_TEST(test_source_ops)
{
    gb_graph g = basic_graph();
    gb_buf buf = { 0 };
    gb_write(&g, &buf);
    char path[] = "/tmp/pp-gcdump-src-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(buf.p, 1, buf.n, f);
    fclose(f);
    hash_probe h = { 0, 0 }, want = { 0, 0 };
    on_bytes(&want, buf.p, buf.n);
    pp_source_hooks hooks = { on_bytes, NULL, &h };
    const pp_source_ops *ops = &pp_gcdump_source_ops;
    ck_assert_str_eq(ops->kind, "gcdump");
    ck_assert_uint_eq(ops->kind_bit, PP_KIND_GCDUMP);
    void *src = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(ops->open(path, &hooks, &src, &err), PP_OK);
    pp_record rec;
    ck_assert_int_eq(ops->next(src, &rec, &err), 1);
    ck_assert_uint_eq(rec.kind, PP_KIND_GCDUMP);
    ck_assert_uint_eq(rec.u.heap->node_count, 6);
    const pp_heap_snapshot *snap = rec.u.heap;
    ck_assert_int_eq(ops->next(src, &rec, &err), 0);
    /* The snapshot stays valid after the end, until close. */
    ck_assert_str_eq(snap->types[3].name, "App.A");
    ck_assert_uint_eq(h.bytes, buf.n);
    ck_assert_uint_eq(h.sum, want.sum);
    json_t *o = json_object();
    ck_assert_int_eq(ops->describe(src, o), PP_OK);
    json_t *gd = json_object_get(o, "gcdump");
    ck_assert_int_eq(json_integer_value(json_object_get(gd, "nodes")), 6);
    ck_assert_str_eq(json_string_value(json_object_get(gd, "creation_tool")), "dotnet-gcdump");
    json_decref(o);
    ops->close(src);

    /* A text file is refused at open with offset 0. */
    f = fopen(path, "wb");
    fputs("Time,Provider,Counter\n", f);
    fclose(f);
    src = NULL;
    ck_assert_int_eq(ops->open(path, &hooks, &src, &err), PP_EFORMAT);
    ck_assert_ptr_null(src);
    ck_assert_int_eq(err.offset, 0);
    /* Damage found while decoding comes from next() with its offset. */
    f = fopen(path, "wb");
    fwrite(buf.p, 1, buf.n / 2, f);
    fclose(f);
    ck_assert_int_eq(ops->open(path, &hooks, &src, &err), PP_OK);
    ck_assert_int_eq(ops->next(src, &rec, &err), PP_EFORMAT);
    ck_assert_int_le(err.offset, (int64_t)(buf.n / 2));
    ops->close(src);
    ck_assert_int_eq(ops->open("/nonexistent/x.gcdump", &hooks, &src, &err), PP_EIO);
    /* A TotalSize that does not match the nodes reads, with a warning. */
    gb_free(&buf);
    g.total_size_override = 12345;
    gb_write(&g, &buf);
    f = fopen(path, "wb");
    fwrite(buf.p, 1, buf.n, f);
    fclose(f);
    warnings = 0;
    hooks.on_warning = on_warning;
    ck_assert_int_eq(ops->open(path, &hooks, &src, &err), PP_OK);
    ck_assert_int_eq(ops->next(src, &rec, &err), 1);
    ck_assert_int_eq(warnings, 1);
    ck_assert_ptr_nonnull(strstr(last_warning, "TotalSize 12345"));
    ops->close(src);
    unlink(path);
    gb_free(&buf);
}
END_TEST

static Suite *
gcdump_suite(void)
{
    Suite *s = suite_create("gcdump");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, test_cint_reference_examples);
    tcase_add_test(tc, test_basic_graph);
    tcase_add_test(tc, test_no_creation_tool_old_perfview);
    tcase_add_test(tc, test_utf16_names);
    tcase_add_test(tc, test_deferred_types_module_i32);
    tcase_add_test(tc, test_deferred_types_module_i64);
    tcase_add_test(tc, test_sampled_multipliers);
    tcase_add_test(tc, test_segments_and_type_references);
    tcase_add_test(tc, test_legacy_versions);
    tcase_add_test(tc, test_future_version_refused);
    tcase_add_test(tc, test_not_a_gcdump);
    tcase_add_test(tc, test_truncations);
    tcase_add_test(tc, test_corruptions);
    tcase_add_test(tc, test_bad_child_reported_with_offset);
    tcase_add_test(tc, test_source_ops);
    tcase_add_test(tc, test_shrunk_while_mapped);
    tcase_add_test(tc, test_guard_per_thread_and_nested);
    tcase_add_test(tc, test_hand_built_files);
    tcase_add_test(tc, test_shapes_past_16_bits);
    suite_add_tcase(s, tc);
    TCase *real = tcase_create("fixtures");
    tcase_set_timeout(real, 120);
    tcase_add_test(real, test_fixtures_match_oracle);
    tcase_add_test(real, test_lean_matches_eager);
    tcase_add_test(real, test_shapes_match_nodes);
    tcase_add_test(real, test_split_matches_serial);
    tcase_add_test(real, test_leak_fixture_truth);
    suite_add_tcase(s, real);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(gcdump_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
