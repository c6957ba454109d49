/* Unit tests of the span export reader (core/spans): both input forms,
 * NDJSON, every AnyValue type, and malformed input reported with
 * line:column. */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "input/source.h"

static char path_buf[4096];

static const char *
spans_path(const char *file)
{
    const char *src = getenv("PP_SRCDIR");
    if (!src)
        src = TEST_SRCDIR;
    snprintf(path_buf, sizeof(path_buf), "%s/tests/spans/%s", src, file);
    return path_buf;
}

static const char *
attr(const pp_span *s, const char *key)
{
    for (uint32_t i = 0; i < s->attr_count; i++)
        if (strcmp(s->attrs[i].key, key) == 0)
            return s->attrs[i].value;
    return NULL;
}

/* Read all of a memory input; returns the status of the last call. */
static int
read_all(const char *text, uint64_t *count, pp_error *err)
{
    pp_spans_reader *r;
    int rc = pp_spans_open_memory(text, strlen(text), "mem.json", &r, err);
    ck_assert_int_eq(rc, PP_OK);
    const pp_span *s;
    while ((rc = pp_spans_next(r, &s, err)) == 1)
        ;
    *count = pp_spans_count(r);
    pp_spans_close(r);
    return rc;
}

START_TEST(aspire_snapshot)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    ck_assert_int_eq(pp_spans_open(spans_path("aspire-snapshot.json"), &r, &err), PP_OK);
    const pp_span *s;
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 1);
    ck_assert_uint_eq(s->struct_size, sizeof(pp_span));
    ck_assert_str_eq(s->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    ck_assert_str_eq(s->span_id, "a000000000000001");
    ck_assert_str_eq(s->parent_span_id, "");
    ck_assert_str_eq(s->name, "GET /cart");
    ck_assert_str_eq(s->service, "webfrontend");
    ck_assert_uint_eq(s->kind, PP_SPAN_SERVER);
    ck_assert_int_eq(s->start_unix_ns, INT64_C(1764428400000000000));
    ck_assert_int_eq(s->end_unix_ns, INT64_C(1764428400100000000));
    ck_assert_uint_eq(s->attr_count, 4);
    ck_assert_str_eq(attr(s, "url.query"), "op=getFullCart&items=100");
    ck_assert_str_eq(attr(s, "http.response.status_code"), "200");
    uint64_t n = 1;
    int rc;
    int saw_nested_db = 0;
    int servers = 0, clients = 0;
    while ((rc = pp_spans_next(r, &s, &err)) == 1) {
        n++;
        if (strcmp(s->span_id, "d000000000000002") == 0) {
            saw_nested_db = 1;
            ck_assert_str_eq(s->service, "pricing");
            ck_assert_str_eq(s->parent_span_id, "d000000000000001");
            ck_assert_str_eq(attr(s, "db.name"), "pricing");
        }
        servers += s->kind == PP_SPAN_SERVER;
        clients += s->kind == PP_SPAN_CLIENT;
        if (strcmp(s->span_id, "c000000000000001") == 0) {
            ck_assert_uint_eq(s->status, 2);
            ck_assert_int_eq(s->end_unix_ns - s->start_unix_ns, 2000000);
        }
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(n, 11);
    ck_assert_int_eq(servers, 3); /* plus the first one read above */
    ck_assert_int_eq(clients, 7);
    ck_assert(saw_nested_db);
    ck_assert_uint_eq(pp_spans_count(r), 11);
    ck_assert_uint_eq(pp_spans_documents(r), 1);
    ck_assert_uint_eq(pp_spans_form(r), PP_SPANS_FORM_ASPIRE);
    /* the end is stable */
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 0);
    pp_spans_close(r);
}
END_TEST

START_TEST(ndjson_follow)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    ck_assert_int_eq(pp_spans_open(spans_path("aspire-follow.ndjson"), &r, &err), PP_OK);
    const pp_span *s;
    int rc;
    int64_t min_start = INT64_MAX;
    while ((rc = pp_spans_next(r, &s, &err)) == 1) {
        ck_assert_str_eq(s->service, "webfrontend");
        if (s->start_unix_ns < min_start)
            min_start = s->start_unix_ns;
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    ck_assert_uint_eq(pp_spans_count(r), 9);
    ck_assert_uint_eq(pp_spans_documents(r), 9);
    ck_assert_uint_eq(pp_spans_form(r), PP_SPANS_FORM_OTLP);
    ck_assert_int_eq(min_start, INT64_C(1764428400000000000));
    pp_spans_close(r);
}
END_TEST

START_TEST(otlp_enums_and_value_types)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    ck_assert_int_eq(pp_spans_open(spans_path("otlp-enums.json"), &r, &err), PP_OK);
    const pp_span *s;
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 1);
    ck_assert_uint_eq(s->kind, PP_SPAN_SERVER);
    ck_assert_uint_eq(s->status, 2);
    ck_assert_str_eq(s->service, "orders");
    ck_assert_uint_eq(s->attr_count, 6);
    ck_assert_str_eq(attr(s, "http.request.method"), "POST");
    ck_assert_str_eq(attr(s, "http.response.status_code"), "201");
    ck_assert_str_eq(attr(s, "server.duration"), "0.05");
    ck_assert_str_eq(attr(s, "retry"), "false");
    ck_assert_str_eq(attr(s, "tags"), "[a, 2]");
    ck_assert_str_eq(attr(s, "note"), "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\"");
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 1);
    ck_assert_uint_eq(s->kind, PP_SPAN_CLIENT);
    ck_assert_uint_eq(s->status, 0);
    ck_assert_int_eq(s->start_unix_ns, INT64_C(1764428400010000000)); /* a JSON integer */
    ck_assert_str_eq(s->parent_span_id, "b7ad6b7169203331");
    ck_assert_str_eq(attr(s, "db.system"), "sqlite");
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 0);
    pp_spans_close(r);
}
END_TEST

START_TEST(empty_and_whitespace)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    ck_assert_int_eq(read_all("", &n, &err), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(read_all(" \n\n", &n, &err), 0);
    ck_assert_int_eq(
        read_all("{\"resourceSpans\":[]}\n{\"data\":{\"resourceSpans\":[{}]}}", &n, &err), 0);
    ck_assert_uint_eq(n, 0);
}
END_TEST

/* Syntax error: the missing value is reported at line 2, column 18. */
START_TEST(malformed_syntax_line_column)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    int rc = read_all("{\"resourceSpans\":[\n  {\"scopeSpans\": }]}\n", &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 18);
    ck_assert_int_eq(err.offset, 36);
    ck_assert_msg(strstr(err.message, "mem.json:2:18:") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "expected a JSON value") != NULL, "%s", err.message);
}
END_TEST

/* Well-formed JSON of the wrong shape: the bad time value's position. */
#define SPAN_PREFIX "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[\n"
START_TEST(malformed_time_line_column)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    const char *text = SPAN_PREFIX
        "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\",\n"
        "   \"startTimeUnixNano\": \"12a\", \"endTimeUnixNano\": \"20\"}]}]}]}";
    int rc = read_all(text, &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 3);
    ck_assert_uint_eq(err.column, 25);
    ck_assert_msg(strstr(err.message, "startTimeUnixNano") != NULL, "%s", err.message);
    ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(malformed_missing_member_and_kind)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    /* the span object without spanId: reported at the span's '{' */
    int rc = read_all(SPAN_PREFIX
                      "  {\"traceId\":\"01\",\"name\":\"x\",\"startTimeUnixNano\":\"1\","
                      "\"endTimeUnixNano\":\"2\"}]}]}]}",
                      &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 3);
    ck_assert_msg(strstr(err.message, "\"spanId\"") != NULL, "%s", err.message);

    err = (pp_error)PP_ERROR_INIT;
    rc = read_all(
        SPAN_PREFIX
        "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\",\"kind\":\"SPAN_KIND_SIDEWAYS\","
        "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}",
        &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 49);
    ck_assert_msg(strstr(err.message, "\"kind\"") != NULL, "%s", err.message);

    err = (pp_error)PP_ERROR_INIT;
    rc = read_all(SPAN_PREFIX "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\","
                              "\"startTimeUnixNano\":\"5\",\"endTimeUnixNano\":\"2\"}]}]}]}",
                  &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_msg(strstr(err.message, "before") != NULL, "%s", err.message);
}
END_TEST

START_TEST(not_a_span_export)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    ck_assert_int_eq(read_all("[1, 2]", &n, &err), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 1);
    ck_assert_msg(strstr(err.message, "resourceSpans") != NULL, "%s", err.message);
    /* a valid first line, then garbage on line 2 of an NDJSON stream */
    err = (pp_error)PP_ERROR_INIT;
    ck_assert_int_eq(read_all("{\"resourceSpans\":[]}\n  nope\n", &n, &err), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_uint_eq(err.column, 3);
}
END_TEST

START_TEST(truncated_file)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    ck_assert_int_eq(pp_spans_open(spans_path("aspire-snapshot.json"), &r, &err), PP_OK);
    pp_spans_close(r);
    FILE *f = fopen(spans_path("aspire-snapshot.json"), "rb");
    ck_assert_ptr_nonnull(f);
    char buf[20000];
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    ck_assert_uint_gt(len, 3000);
    for (size_t cut = 1; cut < len - 2; cut += 97) {
        err = (pp_error)PP_ERROR_INIT;
        ck_assert_int_eq(pp_spans_open_memory(buf, cut, "cut.json", &r, &err), PP_OK);
        const pp_span *s;
        int rc;
        while ((rc = pp_spans_next(r, &s, &err)) == 1)
            ;
        ck_assert_int_eq(rc, PP_EFORMAT);
        ck_assert_uint_ge(err.line, 1);
        /* sticky */
        ck_assert_int_eq(pp_spans_next(r, &s, &err), PP_EFORMAT);
        pp_spans_close(r);
    }
}
END_TEST

START_TEST(nesting_limit)
{
    size_t depth = 100000;
    char *deep = malloc(depth * 2 + 1);
    ck_assert_ptr_nonnull(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[depth * 2] = '\0';
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    ck_assert_int_eq(read_all(deep, &n, &err), PP_ELIMIT);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, PP_SPANS_MAX_DEPTH + 1);
    free(deep);
}
END_TEST

static size_t seen_bytes;
static void
count_bytes(void *user, const void *data, size_t len)
{
    (void)user;
    (void)data;
    seen_bytes += len;
}

START_TEST(source_ops)
{
    ck_assert_str_eq(pp_spans_source_ops.kind, "spans");
    ck_assert_uint_eq(pp_spans_source_ops.kind_bit, PP_KIND_SPANS);
    pp_source_hooks hooks = { count_bytes, NULL, NULL };
    void *src;
    pp_error err = PP_ERROR_INIT;
    seen_bytes = 0;
    const char *path = spans_path("aspire-snapshot.json");
    ck_assert_int_eq(pp_spans_source_ops.open(path, &hooks, &src, &err), PP_OK);
    pp_record rec;
    int rc, n = 0;
    while ((rc = pp_spans_source_ops.next(src, &rec, &err)) == 1) {
        ck_assert_uint_eq(rec.kind, PP_KIND_SPANS);
        ck_assert_ptr_nonnull(rec.u.span->name);
        n++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(n, 11);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    ck_assert_uint_eq(seen_bytes, (size_t)ftell(f));
    fclose(f);
    json_t *o = json_object();
    ck_assert_int_eq(pp_spans_source_ops.describe(src, o), PP_OK);
    ck_assert_str_eq(json_string_value(json_object_get(o, "format")), "aspire-json");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "spans")), 11);
    json_decref(o);
    pp_spans_source_ops.close(src);

    err = (pp_error)PP_ERROR_INIT;
    ck_assert_int_eq(pp_spans_source_ops.open("/nonexistent/x.json", &hooks, &src, &err), PP_EIO);
    ck_assert_msg(strstr(err.message, "/nonexistent/x.json") != NULL, "%s", err.message);
}
END_TEST

/* One span is parsed at a time, and no value handed to jansson may pass
 * 1 MiB (docs/limits.md): a span of 2 MiB of tiny values is refused at its
 * '{' with the limit named, after the spans before it were delivered. */
START_TEST(span_value_limit)
{
    size_t n = 1 << 20;
    const char *good = "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\","
                       "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"},\n";
    char *text = malloc(strlen(SPAN_PREFIX) + strlen(good) + 2 * n + 64);
    ck_assert_ptr_nonnull(text);
    char *p = text;
    p += sprintf(p, "%s%s{\"attributes\":[", SPAN_PREFIX, good);
    for (size_t i = 0; i < n; i++) {
        *p++ = '0';
        *p++ = ',';
    }
    strcpy(p - 1, "]}]}]}]}");
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    const pp_span *s;
    ck_assert_int_eq(pp_spans_open_memory(text, strlen(text), "big.json", &r, &err), PP_OK);
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 1);
    ck_assert_str_eq(s->name, "x");
    ck_assert_int_eq(pp_spans_next(r, &s, &err), PP_ELIMIT);
    ck_assert_uint_eq(err.line, 3);
    ck_assert_uint_eq(err.column, 1);
    ck_assert_msg(strstr(err.message, "more than the limit 1048576") != NULL, "%s", err.message);
    pp_spans_close(r);
    free(text);
}
END_TEST

/* A syntax error inside a span is jansson's message at a position in the
 * file; a duplicate member name is refused (positions name the first). */
START_TEST(span_syntax_and_duplicates)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t n;
    int rc = read_all(SPAN_PREFIX
                      "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\",\n"
                      "  \"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\",\"kind\":tru}]}]}]}",
                      &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 3);
    ck_assert_msg(strstr(err.message, "invalid JSON") != NULL, "%s", err.message);
    err = (pp_error)PP_ERROR_INIT;
    rc = read_all(SPAN_PREFIX
                  "{\"traceId\":\"01\",\"traceId\":\"03\",\"spanId\":\"02\",\"name\":\"x\","
                  "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}",
                  &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_msg(strstr(err.message, "duplicate") != NULL, "%s", err.message);
    /* bad punctuation between spans: the walk's own message */
    err = (pp_error)PP_ERROR_INIT;
    rc = read_all(SPAN_PREFIX "{\"traceId\":\"01\",\"spanId\":\"02\",\"name\":\"x\","
                              "\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"} {}]}]}]}",
                  &n, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strstr(err.message, "expected ',' or ']' in array") != NULL, "%s", err.message);
}
END_TEST

/* Numbers keep the text the file wrote, inside lists too; members may come
 * in any order (the resource after the spans still names the service). */
START_TEST(number_text_and_member_order)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r;
    const char *text =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"01\",\"spanId\":\"02\","
        "\"name\":\"x\",\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\",\"attributes\":["
        "{\"key\":\"d\",\"value\":{\"doubleValue\":1.50e3}},"
        "{\"key\":\"l\",\"value\":{\"arrayValue\":{\"values\":[{\"intValue\":7},{\"doubleValue\":-0.10}]}}}"
        "]}]}],\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"late\"}}]}}]}";
    const pp_span *s;
    ck_assert_int_eq(pp_spans_open_memory(text, strlen(text), "mem.json", &r, &err), PP_OK);
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 1);
    ck_assert_str_eq(attr(s, "d"), "1.50e3");
    ck_assert_str_eq(attr(s, "l"), "[7, -0.10]");
    ck_assert_str_eq(s->service, "late");
    ck_assert_int_eq(pp_spans_next(r, &s, &err), 0);
    pp_spans_close(r);
}
END_TEST

static Suite *
spans_suite(void)
{
    Suite *s = suite_create("spans");
    TCase *tc = tcase_create("reader");
    tcase_add_test(tc, aspire_snapshot);
    tcase_add_test(tc, ndjson_follow);
    tcase_add_test(tc, otlp_enums_and_value_types);
    tcase_add_test(tc, empty_and_whitespace);
    tcase_add_test(tc, malformed_syntax_line_column);
    tcase_add_test(tc, malformed_time_line_column);
    tcase_add_test(tc, malformed_missing_member_and_kind);
    tcase_add_test(tc, not_a_span_export);
    tcase_add_test(tc, truncated_file);
    tcase_add_test(tc, nesting_limit);
    tcase_add_test(tc, source_ops);
    tcase_add_test(tc, span_value_limit);
    tcase_add_test(tc, span_syntax_and_duplicates);
    tcase_add_test(tc, number_text_and_member_order);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(spans_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
