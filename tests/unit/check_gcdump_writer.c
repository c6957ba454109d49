/* Unit tests of the .gcdump writer (core/gcdump/writer.c): real dumps of
 * dotnet-gcdump (tests/data) read, written and read back give the same
 * graph (types, nodes, sizes, addresses, edges, root, per-type count and
 * bytes); hand-made graphs exercise 5-byte cints, clamped sizes, negative
 * child deltas, undefined nodes and non-ASCII names; limits are refused. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/writer.h"

static char *
data_path(const char *name)
{
    const char *dir = getenv("PP_TESTDATA");
    char *p = malloc(4096);
    snprintf(p, 4096, "%s/%s", dir ? dir : TEST_SRCDIR "/tests/data", name);
    return p;
}

/* Write s to a memory stream and read it back. */
static pp_gcdump *
round_trip(const pp_heap_snapshot *s, const pp_gcdump_write_info *info, size_t *size_out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    pp_error err = PP_ERROR_INIT;
    int rc = pp_gcdump_write(f, "mem.gcdump", s, info, &err);
    ck_assert_msg(rc == PP_OK, "write: %s", err.message);
    fclose(f);
    pp_gcdump *d = NULL;
    rc = pp_gcdump_read_memory((const uint8_t *)buf, len, "mem.gcdump", &d, &err);
    ck_assert_msg(rc == PP_OK, "read back: %s", err.message);
    if (size_out)
        *size_out = len;
    free(buf);
    return d;
}

static void
assert_same_graph(const pp_heap_snapshot *a, const pp_heap_snapshot *b)
{
    ck_assert_uint_eq(a->node_count, b->node_count);
    ck_assert_uint_eq(a->type_count, b->type_count);
    ck_assert_uint_eq(a->edge_count, b->edge_count);
    ck_assert_uint_eq(a->root, b->root);
    ck_assert_uint_eq(a->pointer_size, b->pointer_size);
    for (uint32_t t = 0; t < a->type_count; t++) {
        ck_assert_str_eq(a->types[t].name, b->types[t].name);
        ck_assert_str_eq(a->types[t].module, b->types[t].module);
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        ck_assert_uint_eq(a->node_type[i], b->node_type[i]);
        ck_assert_uint_eq(a->node_size[i], b->node_size[i]);
        ck_assert_uint_eq(a->node_address[i], b->node_address[i]);
        ck_assert_uint_eq(a->edge_start[i], b->edge_start[i]);
    }
    ck_assert_int_eq(memcmp(a->edges, b->edges, a->edge_count * sizeof(uint32_t)), 0);
}

START_TEST(test_fixtures_round_trip)
{
    static const char *const names[] = { "leak-before.gcdump", "leak-after.gcdump" };
    for (size_t k = 0; k < 2; k++) {
        char *path = data_path(names[k]);
        pp_gcdump *d = NULL;
        pp_error err = PP_ERROR_INIT;
        if (pp_gcdump_read_file(path, &d, &err) != PP_OK) {
            printf("SKIP: %s: %s\n", path, err.message);
            free(path);
            continue;
        }
        const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
        pp_gcdump_write_info info = { .creation_tool = "perfpipe",
                                      .process_name = "Workload",
                                      .process_id = 4242 };
        size_t written = 0;
        pp_gcdump *back = round_trip(s, &info, &written);
        const pp_heap_snapshot *r = pp_gcdump_snapshot(back);
        assert_same_graph(s, r);
        pp_gcdump_info a = { .struct_size = sizeof a }, b = { .struct_size = sizeof b };
        pp_gcdump_get_info(d, &a);
        pp_gcdump_get_info(back, &b);
        ck_assert_int_eq(a.total_size, b.total_size);
        ck_assert_str_eq(b.creation_tool, "perfpipe");
        ck_assert_str_eq(b.process_name, "Workload");
        ck_assert_uint_eq(b.process_id, 4242);
        /* A type's Size is its first node's (dotnet-gcdump: first in definition
         * order, the writer: lowest index); both leave unused types at -1. */
        for (uint32_t t = 0; t < s->type_count; t++) {
            int64_t want = pp_gcdump_type_size(d, t), got = pp_gcdump_type_size(back, t);
            ck_assert_msg((want == -1) == (got == -1), "%s type %u (%s): size %lld, written %lld",
                          names[k], t, s->types[t].name, (long long)want, (long long)got);
        }
        printf("gcdump writer: %s: %u nodes, %llu edges, %u types read, written (%zu bytes) "
               "and read back equal\n",
               names[k], s->node_count, (unsigned long long)s->edge_count, s->type_count, written);
        pp_gcdump_free(back);
        pp_gcdump_free(d);
        free(path);
    }
}
END_TEST

/* A hand-made graph: 5-byte cints (a 300 MB size clamped only past 2 GiB),
 * negative deltas, undefined nodes sharing offset 0, a surrogate pair. */
START_TEST(test_hand_made_graph)
{
    static const pp_heap_type types[] = {
        { "UNDEFINED", "" },    { "[.NET Roots]", "" },
        { "App.A", "App.dll" }, { "Caf\xc3\xa9\xf0\x9f\x98\x80[]", "/x/App.dll" },
        { "Unused", "" },
    };
    uint32_t node_type[] = { 1, 2, 0, 3, 2, 3 };
    uint64_t node_size[] = { 0, 24, 0, 300000000, 40, UINT64_C(5000000000) };
    uint64_t node_addr[] = { 0, 0x1000, 0x2000, 0x7f0000000000, 0x3000, 0x4000 };
    uint64_t edge_start[] = { 0, 2, 5, 5, 6, 7, 7 };
    uint32_t edges[] = { 1, 4, 0, 2, 3, 1, 5 };
    pp_heap_snapshot s = {
        .struct_size = sizeof s,
        .pointer_size = 8,
        .node_count = 6,
        .type_count = 5,
        .edge_count = 7,
        .root = 0,
        .types = types,
        .node_type = node_type,
        .node_size = node_size,
        .node_address = node_addr,
        .edge_start = edge_start,
        .edges = edges,
    };
    pp_gcdump *d = round_trip(&s, NULL, NULL);
    const pp_heap_snapshot *r = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(r->node_count, 6);
    ck_assert_str_eq(r->types[3].name, types[3].name);
    ck_assert_str_eq(r->types[3].module, "/x/App.dll");
    ck_assert_uint_eq(r->node_size[3], 300000000);
    ck_assert_uint_eq(r->node_size[5], INT32_MAX); /* the format's i32, clamped */
    ck_assert_uint_eq(r->node_size[4], 40);
    ck_assert_int_eq(memcmp(r->edges, edges, sizeof edges), 0);
    ck_assert_int_eq(pp_gcdump_type_size(d, 4), -1); /* no node */
    ck_assert_int_eq(pp_gcdump_type_size(d, 2), 24);
    ck_assert_str_eq(r->types[0].name, "UNDEFINED");
    pp_gcdump_info info = { .struct_size = sizeof info };
    pp_gcdump_get_info(d, &info);
    ck_assert_int_eq(info.total_size, 24 + 300000000 + 40 + (int64_t)INT32_MAX);
    ck_assert_str_eq(info.creation_tool, "");
    pp_gcdump_free(d);
}
END_TEST

START_TEST(test_bad_graphs_refused)
{
    static const pp_heap_type types[] = { { "UNDEFINED", "" }, { "A", "" } };
    uint32_t node_type[] = { 1, 7 };
    uint64_t node_size[] = { 0, 8 }, node_addr[] = { 0, 8 }, edge_start[] = { 0, 1, 1 };
    uint32_t edges[] = { 1 };
    pp_heap_snapshot s = {
        .struct_size = sizeof s,
        .pointer_size = 8,
        .node_count = 2,
        .type_count = 2,
        .edge_count = 1,
        .types = types,
        .node_type = node_type,
        .node_size = node_size,
        .node_address = node_addr,
        .edge_start = edge_start,
        .edges = edges,
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_write(f, "bad.gcdump", &s, NULL, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "type index"));
    node_type[1] = 1;
    edges[0] = 9;
    err = (pp_error)PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_write(f, "bad.gcdump", &s, NULL, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "edge"));
    fclose(f);
    free(buf);
    /* A full device is reported, not a quiet short file. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        edges[0] = 1;
        err = (pp_error)PP_ERROR_INIT;
        ck_assert_int_eq(pp_gcdump_write(full, "/dev/full", &s, NULL, &err), PP_EIO);
        ck_assert_ptr_nonnull(strstr(err.message, "cannot write"));
        fclose(full);
    }
}
END_TEST

/* A dump cut at a node limit by a writer that kept its records whole:
 * 40 nodes written as their first 30. [.NET Roots] (0) holds App.Holder
 * 1..10 (32 B); holder h holds App.Item 10+h (48 B) and node 29+h, past
 * the cut; App.Orphan 21..29 (16 B) were held only by the cut nodes
 * 30..39. Read back: 30 nodes, the 10 references past the table dropped
 * (one a holder), the 20 others kept. The committed
 * tests/gcdump/edges-past-table.gcdump is these bytes (PP_WRITE_FIXTURE=1
 * writes it again); the fuzz seeds and check_plugin_gcdump read it. */
START_TEST(test_cut_graph_edges_past_table)
{
    static const pp_heap_type types[] = { { "UNDEFINED", "" },
                                          { "[.NET Roots]", "" },
                                          { "App.Holder", "App.dll" },
                                          { "App.Item", "App.dll" },
                                          { "App.Orphan", "App.dll" } };
    enum { N = 40, KEEP = 30 };
    uint32_t node_type[N], edges[64];
    uint64_t node_size[N], node_addr[N], edge_start[N + 1];
    uint64_t ne = 0;
    for (uint32_t i = 0; i < N; i++) {
        node_type[i] = i == 0 ? 1 : i <= 10 ? 2 : i <= 20 ? 3 : i <= 29 ? 4 : 3;
        node_size[i] = (const uint64_t[]){ 0, 0, 32, 48, 16 }[node_type[i]];
        node_addr[i] = i ? 0x10000 + 64 * (uint64_t)i : 0;
        edge_start[i] = ne;
        if (i == 0)
            for (uint32_t h = 1; h <= 10; h++)
                edges[ne++] = h;
        else if (i <= 10) {
            edges[ne++] = 10 + i;
            edges[ne++] = 29 + i;
        } else if (i >= 30)
            edges[ne++] = 21 + (i - 30) % 9;
    }
    edge_start[N] = ne;
    pp_heap_snapshot s = { .struct_size = sizeof s,
                           .pointer_size = 8,
                           .node_count = N,
                           .type_count = 5,
                           .edge_count = ne,
                           .types = types,
                           .node_type = node_type,
                           .node_size = node_size,
                           .node_address = node_addr,
                           .edge_start = edge_start,
                           .edges = edges };
    pp_gcdump_write_info info = {
        .creation_tool = "perfpipe", .process_name = "App", .process_id = 100, .keep_nodes = KEEP
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_gcdump_write(f, "cut.gcdump", &s, &info, &err), PP_OK);
    fclose(f);
    pp_gcdump *d = NULL;
    ck_assert_msg(pp_gcdump_read_memory((const uint8_t *)buf, len, "cut.gcdump", &d, &err) == PP_OK,
                  "%s", err.message);
    const pp_heap_snapshot *r = pp_gcdump_snapshot(d);
    ck_assert_uint_eq(r->node_count, KEEP);
    ck_assert_uint_eq(r->dangling_edges, 10);
    ck_assert_uint_eq(r->dangling_nodes, 10);
    ck_assert_uint_eq(r->edge_count, 20);
    for (uint32_t h = 1; h <= 10; h++) {
        ck_assert_uint_eq(r->edge_start[h + 1] - r->edge_start[h], 1);
        ck_assert_uint_eq(r->edges[r->edge_start[h]], 10 + h);
    }
    for (uint32_t i = 11; i < KEEP; i++)
        ck_assert_uint_eq(r->edge_start[i + 1], r->edge_start[i]);
    pp_gcdump_info got = { .struct_size = sizeof got };
    pp_gcdump_get_info(d, &got);
    ck_assert_int_eq(got.total_size, 10 * 32 + 10 * 48 + 9 * 16); /* what was written */
    ck_assert_uint_eq(got.dangling_edges, 10);
    pp_gcdump_free(d);
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/gcdump/edges-past-table.gcdump",
             getenv("PP_SRCDIR") ? getenv("PP_SRCDIR") : TEST_SRCDIR);
    const char *regen = getenv("PP_WRITE_FIXTURE");
    FILE *out = fopen(path, regen && *regen == '1' ? "wb" : "rb");
    ck_assert_msg(out != NULL, "%s: cannot open", path);
    if (regen && *regen == '1') {
        ck_assert_uint_eq(fwrite(buf, 1, len, out), len);
    } else {
        char *want = malloc(len + 1);
        ck_assert_uint_eq(fread(want, 1, len + 1, out), len);
        ck_assert_int_eq(memcmp(want, buf, len), 0);
        free(want);
    }
    fclose(out);
    free(buf);
    /* Cutting the root away is refused. */
    info.keep_nodes = 5;
    s.root = 7;
    buf = NULL;
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(pp_gcdump_write(f, "cut.gcdump", &s, &info, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "root"));
    fclose(f);
    free(buf);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("gcdump-writer");
    TCase *tc = tcase_create("writer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fixtures_round_trip);
    tcase_add_test(tc, test_hand_made_graph);
    tcase_add_test(tc, test_bad_graphs_refused);
    tcase_add_test(tc, test_cut_graph_edges_past_table);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
