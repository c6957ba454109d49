/* The reader API (include/perfpipe/reader.h) through the installed library
 * (linked against libperfpipe.so, public headers only): for every reader,
 * open and open_memory with the shared hooks see every byte once, next
 * yields what the independent side knows (TraceEvent's event count, the
 * test-bed parser's row count, the 0.1 names' count), get_info agrees, and
 * next after the end stays 0. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/nettrace.h>
#include <perfpipe/gcdump.h>
#include <perfpipe/counters.h>
#include <perfpipe/spans.h>

#define DATA TEST_SRCDIR "/tests/data/"

typedef struct seen {
    uint64_t bytes;
    uint64_t calls;
} seen;

static void
on_bytes(void *user, const void *data, size_t len)
{
    seen *s = user;

    (void)data;
    s->bytes += len;
    s->calls++;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    ck_assert_msg(f != NULL, "%s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert(buf != NULL);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static int64_t
oracle_int(const char *path, const char *a, const char *b)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    json_t *v;
    int64_t n;

    ck_assert_msg(doc != NULL, "%s: %s", path, je.text);
    v = json_object_get(doc, a);
    if (b != NULL)
        v = json_object_get(v, b);
    ck_assert_msg(json_is_integer(v), "%s: no %s", path, a);
    n = json_integer_value(v);
    json_decref(doc);
    return n;
}

START_TEST(nettrace_verbs)
{
    const char *path = DATA "alloc-gcverbose.nettrace";
    int64_t truth = oracle_int(DATA "alloc-gcverbose.oracle.json", "raw", "total_events");
    size_t len;
    uint8_t *buf = slurp(path, &len);

    for (int memory = 0; memory < 2; memory++) {
        seen s = { 0, 0 };
        pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
        pp_nettrace_reader *r;
        const pp_trace_event *ev;
        pp_trace_info info = { .struct_size = sizeof info };
        pp_error err = PP_ERROR_INIT;
        int64_t n = 0;
        int rc;

        hooks.on_bytes = on_bytes;
        hooks.user = &s;
        rc = memory ? pp_nettrace_reader_open_memory(buf, len, "mem.nettrace", &hooks, &r, &err) :
                      pp_nettrace_reader_open(path, &hooks, &r, &err);
        ck_assert_msg(rc == PP_OK, "%s", err.message);
        while ((rc = pp_nettrace_reader_next(r, &ev, &err)) == 1)
            n++;
        ck_assert_msg(rc == 0, "%s", err.message);
        ck_assert_int_eq(pp_nettrace_reader_next(r, &ev, &err), 0);
        ck_assert_int_eq(n, truth);
        ck_assert_uint_eq(s.bytes, len);
        ck_assert_int_eq(pp_nettrace_reader_get_info(r, &info), PP_OK);
        ck_assert_uint_eq(info.pointer_size, 8);
        pp_nettrace_reader_close(r);
    }
    free(buf);
}
END_TEST

START_TEST(gcdump_verbs)
{
    const char *path = DATA "leak-before.gcdump";
    size_t len;
    uint8_t *buf = slurp(path, &len);
    pp_gcdump *old;
    pp_error err = PP_ERROR_INIT;
    uint64_t nodes;

    ck_assert_int_eq(pp_gcdump_read_file(path, &old, &err), PP_OK);
    nodes = pp_gcdump_snapshot(old)->node_count;
    ck_assert_uint_gt(nodes, 1000);
    pp_gcdump_free(old);
    for (int memory = 0; memory < 2; memory++) {
        seen s = { 0, 0 };
        pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
        pp_gcdump_reader *r;
        const pp_heap_snapshot *snap;
        pp_gcdump_info info = { .struct_size = sizeof info };

        hooks.on_bytes = on_bytes;
        hooks.user = &s;
        ck_assert_int_eq(memory ? pp_gcdump_reader_open_memory(buf, len, "mem", &hooks, &r, &err) :
                                  pp_gcdump_reader_open(path, &hooks, &r, &err),
                         PP_OK);
        ck_assert_uint_eq(s.bytes, len);
        ck_assert_int_eq(pp_gcdump_reader_next(r, &snap, &err), 1);
        ck_assert_uint_eq(snap->node_count, nodes);
        ck_assert_int_eq(pp_gcdump_reader_next(r, &snap, &err), 0);
        ck_assert(snap == NULL);
        ck_assert_int_eq(pp_gcdump_reader_get_info(r, &info), PP_OK);
        ck_assert_uint_eq(info.sum_node_sizes > 0, 1);
        pp_gcdump_reader_close(r);
    }
    free(buf);
}
END_TEST

static void
counters_case(const char *file, const char *oracle, uint32_t format)
{
    int64_t rows = oracle_int(oracle, "rows", NULL);
    size_t len;
    uint8_t *buf = slurp(file, &len);

    for (int memory = 0; memory < 2; memory++) {
        seen s = { 0, 0 };
        pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
        pp_counters_reader *r;
        const pp_counter_sample *sm;
        pp_counters_info info = { .struct_size = sizeof info };
        pp_error err = PP_ERROR_INIT;
        int64_t n = 0;
        int rc;

        hooks.on_bytes = on_bytes;
        hooks.user = &s;
        rc = memory ? pp_counters_reader_open_memory(buf, len, "mem", &hooks, &r, &err) :
                      pp_counters_reader_open(file, &hooks, &r, &err);
        ck_assert_msg(rc == PP_OK, "%s", err.message);
        while ((rc = pp_counters_reader_next(r, &sm, &err)) == 1) {
            ck_assert(sm != NULL && sm->name != NULL);
            n++;
        }
        ck_assert_msg(rc == 0, "%s", err.message);
        ck_assert_int_eq(pp_counters_reader_next(r, &sm, &err), 0);
        ck_assert_int_eq(n, rows);
        ck_assert_uint_eq(s.bytes, len);
        ck_assert_int_eq(pp_counters_reader_get_info(r, &info), PP_OK);
        ck_assert_uint_eq(info.sample_count, (uint64_t)rows);
        ck_assert_uint_eq(info.format, format);
        ck_assert_int_eq(info.start_unix_ns, pp_counters_start_unix_ns(r));
        pp_counters_reader_close(r);
    }
    free(buf);
}

START_TEST(counters_verbs)
{
    counters_case(DATA "churn-counters.csv", DATA "churn-counters.csv.oracle.json",
                  PP_COUNTERS_FORMAT_CSV);
    counters_case(DATA "churn-counters.json", DATA "churn-counters.json.oracle.json",
                  PP_COUNTERS_FORMAT_JSON);
}
END_TEST

START_TEST(spans_verbs)
{
    const char *path = DATA "web-spans.otlp.json";
    size_t len;
    uint8_t *buf = slurp(path, &len);
    pp_spans_reader *old;
    const pp_span *sp;
    pp_error err = PP_ERROR_INIT;
    uint64_t spans = 0;

    ck_assert_int_eq(pp_spans_open(path, &old, &err), PP_OK);
    while (pp_spans_next(old, &sp, &err) == 1)
        spans++;
    pp_spans_close(old);
    ck_assert_uint_gt(spans, 10);
    for (int memory = 0; memory < 2; memory++) {
        seen s = { 0, 0 };
        pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
        pp_spans_reader *r;
        pp_spans_info info = { .struct_size = sizeof info };
        uint64_t n = 0;

        hooks.on_bytes = on_bytes;
        hooks.user = &s;
        ck_assert_int_eq(memory ? pp_spans_reader_open_memory(buf, len, "mem", &hooks, &r, &err) :
                                  pp_spans_reader_open(path, &hooks, &r, &err),
                         PP_OK);
        while (pp_spans_reader_next(r, &sp, &err) == 1)
            n++;
        ck_assert_int_eq(pp_spans_reader_next(r, &sp, &err), 0);
        ck_assert_uint_eq(n, spans);
        ck_assert_uint_eq(s.bytes, len);
        ck_assert_int_eq(pp_spans_reader_get_info(r, &info), PP_OK);
        ck_assert_uint_eq(info.spans, spans);
        ck_assert_uint_eq(info.form, PP_SPANS_FORM_OTLP);
        pp_spans_reader_close(r);
    }
    free(buf);
}
END_TEST

START_TEST(bad_input_and_small_info)
{
    static const char junk[] = "this is not a capture\n";
    pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
    pp_nettrace_reader *nt;
    pp_gcdump_reader *gd;
    pp_spans_reader *sp;
    pp_counters_reader *cr;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_lt(
        pp_nettrace_reader_open_memory(junk, sizeof junk - 1, "junk", &hooks, &nt, &err), 0);
    ck_assert(nt == NULL);
    ck_assert(strstr(err.message, "junk") != NULL);
    ck_assert_int_lt(pp_gcdump_reader_open_memory(junk, sizeof junk - 1, "junk", NULL, &gd, &err),
                     0);
    ck_assert(gd == NULL);
    /* The span reader parses as it goes: junk fails at the first next. */
    if (pp_spans_reader_open_memory(junk, sizeof junk - 1, "junk", NULL, &sp, &err) == PP_OK) {
        const pp_span *one;

        ck_assert_int_lt(pp_spans_reader_next(sp, &one, &err), 0);
        ck_assert_uint_eq(err.line, 1);
        pp_spans_reader_close(sp);
    }
    ck_assert_int_lt(pp_gcdump_reader_open(DATA "no-such.gcdump", NULL, &gd, &err), 0);
    ck_assert_int_eq(err.code, PP_EIO);
    /* A caller built against an older, shorter info gets only its part. */
    ck_assert_int_eq(pp_counters_reader_open(DATA "churn-counters.csv", NULL, &cr, &err), PP_OK);
    {
        struct {
            uint32_t struct_size, format;
            uint64_t canary;
        } small = { 8, 0, 42 };

        ck_assert_int_eq(pp_counters_reader_get_info(cr, (pp_counters_info *)(void *)&small),
                         PP_OK);
        ck_assert_uint_eq(small.struct_size, 8);
        ck_assert_uint_eq(small.format, PP_COUNTERS_FORMAT_CSV);
        ck_assert_uint_eq(small.canary, 42);
    }
    pp_counters_reader_close(cr);
    pp_counters_reader_close(NULL);
    pp_spans_reader_close(NULL);
    pp_gcdump_reader_close(NULL);
    pp_nettrace_reader_close(NULL);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("reader_api");
    TCase *tc = tcase_create("verbs");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, nettrace_verbs);
    tcase_add_test(tc, gcdump_verbs);
    tcase_add_test(tc, counters_verbs);
    tcase_add_test(tc, spans_verbs);
    tcase_add_test(tc, bad_input_and_small_info);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
