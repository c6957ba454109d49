/* The spans analyzer over real span exports of the test bed's web workload
 * (tests/data/web-spans*.otlp.json): the ASP.NET Core app records its own
 * spans with an ActivityListener ("Microsoft.AspNetCore" server spans and a
 * "Workload.Db" client span per SQLite command) and writes OTLP/JSON at exit.
 * Each export is read by the real reader (core/spans) and checked against
 * what the workload measured itself (.truth.json, "endpoints"):
 *  - web-spans: one virtual user. Per-operation request counts equal the
 *    requests the load generator sent, exactly; the in-proc share of GET /db
 *    is within 10 points of 1 - db_ms/total_ms (Stopwatch in the DB
 *    interceptor and around the handler), GET /cpu is over 90% in-proc;
 *  - web-spans-overlap: four virtual users. The latency rows are there,
 *    with the same counts, but the attribution is refused.
 * A fixture that is absent is skipped with a SKIP line; with none present
 * the program exits 77. */
#include <config.h>

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>
#include <perfpipe/spans.h>

#include "mock_host.h"

const pp_analyzer *perfpipe_plugin_entry(void);

typedef struct fixture {
    const char *name;
    int one_user; /* captured with --concurrency 1 */
    int present;
} fixture;

static fixture fixtures[] = {
    { "web-spans", 1, 0 },
    { "web-spans-overlap", 0, 0 },
};
#define NFIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static const char *data_dir;
static char spans_path[4200], truth_path[4200];

static void
use_fixture(int i)
{
    snprintf(spans_path, sizeof(spans_path), "%s/%s.otlp.json", data_dir, fixtures[i].name);
    snprintf(truth_path, sizeof(truth_path), "%s/%s.truth.json", data_dir, fixtures[i].name);
}

#define FIXTURE_OR_SKIP(i)                                                                         \
    do {                                                                                           \
        if (!fixtures[i].present) {                                                                \
            printf("SKIP: %s/%s.* not present\n", data_dir, fixtures[i].name);                     \
            return;                                                                                \
        }                                                                                          \
        use_fixture(i);                                                                            \
    } while (0)

static mock_host *
run_fixture(void)
{
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_ptr_nonnull(mh);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    pp_spans_reader *r;
    ck_assert_msg(pp_spans_open(spans_path, &r, &err) == PP_OK, "%s", err.message);
    const pp_span *s;
    int rc;
    while ((rc = pp_spans_next(r, &s, &err)) == 1) {
        pp_record rec = { sizeof(pp_record), PP_KIND_SPANS, 0, 0, { 0 } };
        rec.u.span = s;
        ck_assert_int_eq(mock_host_consume(mh, &rec, &err), PP_OK);
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    ck_assert_uint_eq(pp_spans_form(r), PP_SPANS_FORM_OTLP);
    pp_spans_close(r);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_msg(mock_host_violations(mh) == 0, "%s", mock_host_first_violation(mh));
    return mh;
}

static json_t *
load_truth(void)
{
    json_error_t je;
    json_t *t = json_load_file(truth_path, 0, &je);
    ck_assert_msg(t != NULL, "%s: %s", truth_path, je.text);
    ck_assert_msg(json_is_object(json_object_get(t, "endpoints")), "%s: no endpoints", truth_path);
    return t;
}

/* The attribution row (operation, kind, downstream), or -1. */
static int
arow(const mock_table *t, const char *op, const char *kind, const char *ds)
{
    for (uint32_t r = 0; r < mock_table_rows(t); r++)
        if (strcmp(mock_table_str(t, r, "operation"), op) == 0 &&
            strcmp(mock_table_str(t, r, "kind"), kind) == 0 &&
            strcmp(mock_table_str(t, r, "downstream"), ds) == 0)
            return (int)r;
    return -1;
}

static const char *
ep_op(json_t *ep)
{
    const char *op = json_string_value(json_object_get(ep, "operation"));
    ck_assert_ptr_nonnull(op);
    return op;
}

/* by_operation: one row per endpoint, requests == what the load generator sent. */
START_TEST(counts_equal_requests_sent)
{
    FIXTURE_OR_SKIP(_i);
    json_t *truth = load_truth();
    mock_host *mh = run_fixture();
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_ptr_nonnull(t);
    json_t *eps = json_object_get(truth, "endpoints");
    ck_assert_uint_eq(mock_table_rows(t), json_object_size(eps));
    const char *path;
    json_t *ep;
    json_int_t sent_total = 0;
    json_object_foreach(eps, path, ep) {
        json_int_t sent = json_integer_value(json_object_get(ep, "requests_sent"));
        ck_assert_int_gt(sent, 0);
        sent_total += sent;
        int r = mock_table_find(t, "operation", ep_op(ep));
        ck_assert_msg(r >= 0, "%s: no by_operation row %s", fixtures[_i].name, ep_op(ep));
        printf("%s: %s requests %lld (sent %lld)\n", fixtures[_i].name, ep_op(ep),
               (long long)mock_table_int(t, r, "requests"), (long long)sent);
        ck_assert_int_eq(mock_table_int(t, r, "requests"), sent);
        ck_assert(mock_table_dbl(t, r, "p50_ms") > 0);
        ck_assert(mock_table_dbl(t, r, "max_ms") >= mock_table_dbl(t, r, "p95_ms"));
        if (fixtures[_i].one_user)
            ck_assert_int_eq(mock_table_int(t, r, "overlaps"), 0);
    }
    ck_assert_int_eq(sent_total, json_integer_value(json_object_get(truth, "requests")));
    int64_t v;
    ck_assert(mock_host_total_int(mh, "requests", &v));
    ck_assert_int_eq(v, sent_total);
    ck_assert(mock_host_total_int(mh, "spans", &v));
    ck_assert_int_eq(v,
                     json_integer_value(json_object_get(json_object_get(truth, "spans"), "spans")));
    mock_host_free(mh);
    json_decref(truth);
}
END_TEST

/* One virtual user: the in-proc share against the workload's own split. */
START_TEST(in_proc_share_matches_truth)
{
    FIXTURE_OR_SKIP(0);
    json_t *truth = load_truth();
    mock_host *mh = run_fixture();
    ck_assert_ptr_null(mock_host_finding(mh, "spans.overlapping_requests", NULL));
    int64_t v;
    ck_assert(mock_host_total_int(mh, "overlapping_requests", &v));
    ck_assert_int_eq(v, 0);
    const mock_table *t = mock_host_table(mh, "attribution");
    ck_assert_ptr_nonnull(t);
    json_t *eps = json_object_get(truth, "endpoints");

    json_t *db = json_object_get(eps, "/db");
    ck_assert_ptr_nonnull(db);
    double want = 100.0 * json_number_value(json_object_get(db, "in_proc_share"));
    int r = arow(t, ep_op(db), "in-proc", "*");
    ck_assert_int_ge(r, 0);
    double got = mock_table_dbl(t, r, "share");
    printf("web-spans: %s in-proc %.1f%% (truth %.1f%%)\n", ep_op(db), got, want);
    ck_assert_msg(fabs(got - want) <= 10.0, "%s in-proc %.1f%%, truth %.1f%%", ep_op(db), got,
                  want);
    /* every DB command is one sqlite client span, attributed to its request */
    r = arow(t, ep_op(db), "database", "sqlite:main");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, r, "calls"),
                     json_integer_value(json_object_get(db, "db_commands")));
    double db_ms = json_number_value(json_object_get(db, "db_ms"));
    ck_assert_msg(fabs(mock_table_dbl(t, r, "ms") - db_ms) <= 0.25 * db_ms + 1.0,
                  "database %.2f ms, truth %.2f ms", mock_table_dbl(t, r, "ms"), db_ms);

    static const char *const local[] = { "/cpu", "/alloc" };
    for (size_t i = 0; i < 2; i++) {
        json_t *ep = json_object_get(eps, local[i]);
        ck_assert_ptr_nonnull(ep);
        r = arow(t, ep_op(ep), "in-proc", "*");
        ck_assert_int_ge(r, 0);
        got = mock_table_dbl(t, r, "share");
        printf("web-spans: %s in-proc %.1f%% (truth %.1f%%)\n", ep_op(ep), got,
               100.0 * json_number_value(json_object_get(ep, "in_proc_share")));
        ck_assert_msg(got > 90.0, "%s in-proc %.1f%%", ep_op(ep), got);
        ck_assert_int_lt(arow(t, ep_op(ep), "database", "*"), 0);
    }
    mock_host_free(mh);
    json_decref(truth);
}
END_TEST

/* Four virtual users: latency rows yes, attribution no. */
START_TEST(overlap_refused)
{
    FIXTURE_OR_SKIP(1);
    json_t *truth = load_truth();
    mock_host *mh = run_fixture();
    uint32_t sev;
    const char *msg = mock_host_finding(mh, "spans.overlapping_requests", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "one virtual user") != NULL, "%s", msg);
    ck_assert_ptr_null(mock_host_table(mh, "attribution"));
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), json_object_size(json_object_get(truth, "endpoints")));
    int64_t overlaps = 0;
    for (uint32_t r = 0; r < mock_table_rows(t); r++)
        overlaps += mock_table_int(t, r, "overlaps");
    int64_t v;
    ck_assert(mock_host_total_int(mh, "overlapping_requests", &v));
    ck_assert_int_gt(v, 0);
    ck_assert_int_eq(overlaps, v);
    printf("web-spans-overlap: %lld overlapping requests, attribution refused\n", (long long)v);
    mock_host_free(mh);
    json_decref(truth);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_spans_real");
    TCase *tc = tcase_create("web");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, counts_equal_requests_sent, 0, NFIXTURES);
    tcase_add_test(tc, in_proc_share_matches_truth);
    tcase_add_test(tc, overlap_refused);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    const char *data = getenv("PP_TESTDATA");
    static char fallback[4000];
    if (!data || strlen(data) > 3900) {
        snprintf(fallback, sizeof(fallback), "%s/tests/data", TEST_SRCDIR);
        data = fallback;
    }
    data_dir = data;
    int any = 0;
    for (size_t i = 0; i < NFIXTURES; i++) {
        use_fixture((int)i);
        fixtures[i].present = access(spans_path, R_OK) == 0 && access(truth_path, R_OK) == 0;
        if (!fixtures[i].present)
            printf("SKIP: %s (+ .truth.json) not present\n", spans_path);
        any |= fixtures[i].present;
    }
    if (!any)
        return 77;
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
