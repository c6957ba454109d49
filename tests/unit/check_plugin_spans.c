/* Unit tests of the spans analyzer: hand-made exports (tests/spans/, see
 * its README for the timelines) read by the real reader and fed through the
 * mock host. Each trap of issue #11 has its test: union not sum, no double
 * count of a call nested under another, containment refused when requests
 * overlap, N+1 and in-proc findings. Expected figures are worked out by hand
 * from the timelines in tests/spans/README.md. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>
#include <perfpipe/spans.h>

#include "mock_host.h"

const pp_analyzer *perfpipe_plugin_entry(void);

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

/* Run the analyzer over one export; returns the mock (caller frees). */
static mock_host *
run(const char *file, const char *opt, const char *val)
{
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_ptr_nonnull(mh);
    if (opt)
        ck_assert_int_eq(mock_host_set_option(mh, opt, val), 0);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    pp_spans_reader *r;
    ck_assert_int_eq(pp_spans_open(spans_path(file), &r, &err), PP_OK);
    const pp_span *s;
    int rc;
    while ((rc = pp_spans_next(r, &s, &err)) == 1) {
        pp_record rec = { sizeof(pp_record), PP_KIND_SPANS, 0, 0, { 0 } };
        rec.u.span = s;
        ck_assert_int_eq(mock_host_consume(mh, &rec, &err), PP_OK);
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    pp_spans_close(r);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_msg(mock_host_violations(mh) == 0, "%s", mock_host_first_violation(mh));
    return mh;
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

#define ck_near(a, b)                                                                              \
    ck_assert_msg(fabs((a) - (b)) < 1e-6, "%s = %f, expected %f", #a, (double)(a), (double)(b))

START_TEST(latency_per_operation)
{
    mock_host *mh = run("aspire-snapshot.json", NULL, NULL);
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 2); /* the pricing server span is not a request */
    int r = mock_table_find(t, "operation", "getFullCart"); /* from ?op= in url.query */
    ck_assert_int_eq(r, 0);                                 /* most time first */
    ck_assert_int_eq(mock_table_int(t, r, "requests"), 2);
    ck_near(mock_table_dbl(t, r, "p50_ms"), 60.0);
    ck_near(mock_table_dbl(t, r, "p95_ms"), 100.0);
    ck_near(mock_table_dbl(t, r, "max_ms"), 100.0);
    ck_near(mock_table_dbl(t, r, "total_ms"), 160.0);
    ck_assert_int_eq(mock_table_int(t, r, "overlaps"), 0);
    r = mock_table_find(t, "operation", "GET /health"); /* no op tag: the span name */
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "max_ms"), 2.0);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "requests", &v));
    ck_assert_int_eq(v, 3);
    ck_assert(mock_host_total_int(mh, "spans", &v));
    ck_assert_int_eq(v, 11);
    mock_host_free(mh);
}
END_TEST

START_TEST(union_not_sum)
{
    mock_host *mh = run("aspire-snapshot.json", NULL, NULL);
    const mock_table *t = mock_host_table(mh, "attribution");
    ck_assert_ptr_nonnull(t);
    /* request 1: postgres [10,30] and [20,40] -> 30 ms (the sum is 40);
     * request 2: [210,220] -> 10 ms */
    int r = arow(t, "getFullCart", "database", "*");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 40.0);
    ck_near(mock_table_dbl(t, r, "share"), 25.0);
    ck_assert_int_eq(mock_table_int(t, r, "calls"), 3);
    r = arow(t, "getFullCart", "database", "postgresql:shop");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 40.0);
    r = arow(t, "getFullCart", "cache", "redis:cache");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 5.0);
    ck_near(mock_table_dbl(t, r, "share"), 3.125);
    /* in-proc = 160 - (65 + 20) */
    r = arow(t, "getFullCart", "in-proc", "*");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 75.0);
    ck_near(mock_table_dbl(t, r, "share"), 46.875);
    /* a request with no downstream call is all in-proc, and says so */
    r = arow(t, "GET /health", "in-proc", "*");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "share"), 100.0);
    const char *msg = mock_host_finding(mh, "spans.in_proc", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "GET /health") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "cpu") != NULL, "%s", msg);
    ck_assert_ptr_null(mock_host_finding(mh, "spans.overlapping_requests", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(nested_calls_not_counted_twice)
{
    mock_host *mh = run("aspire-snapshot.json", NULL, NULL);
    const mock_table *t = mock_host_table(mh, "attribution");
    ck_assert_ptr_nonnull(t);
    /* the pricing service's database call [55,65] sits under our http call
     * [45,75]: it is http time, not a second database entry */
    ck_assert_int_lt(arow(t, "getFullCart", "database", "postgresql:pricing"), 0);
    int r = arow(t, "getFullCart", "http", "pricing");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 40.0);
    ck_assert_int_eq(mock_table_int(t, r, "calls"), 2);
    /* the shares of one operation add up to 100% exactly when nothing nests */
    double sum = 0;
    for (uint32_t i = 0; i < mock_table_rows(t); i++)
        if (strcmp(mock_table_str(t, i, "operation"), "getFullCart") == 0 &&
            strcmp(mock_table_str(t, i, "downstream"), "*") == 0)
            sum += mock_table_dbl(t, i, "share");
    ck_near(sum, 100.0);
    mock_host_free(mh);

    /* client span + the ADO.NET span beneath it, 12 times a request */
    mh = run("n-plus-one.json", NULL, NULL);
    t = mock_host_table(mh, "attribution");
    ck_assert_ptr_nonnull(t);
    r = arow(t, "POST /checkout", "database", "postgresql:shop");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, r, "calls"), 24); /* not 48 */
    ck_near(mock_table_dbl(t, r, "ms"), 48.0);
    ck_near(mock_table_dbl(t, r, "share"), 30.0);
    mock_host_free(mh);
}
END_TEST

/* Trace context lost between the services: the pricing service's server
 * span has no parent and a trace of its own. It is still not a request
 * (another service, inside ours), and its database call is still not ours. */
START_TEST(broken_propagation_same_answer)
{
    mock_host *mh = run("broken-propagation.json", NULL, NULL);
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_uint_eq(mock_table_rows(t), 2);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "requests", &v));
    ck_assert_int_eq(v, 3);
    ck_assert(mock_host_total_int(mh, "overlapping_requests", &v));
    ck_assert_int_eq(v, 0);
    t = mock_host_table(mh, "attribution");
    ck_assert_ptr_nonnull(t);
    int r = arow(t, "getFullCart", "database", "*");
    ck_assert_int_ge(r, 0);
    ck_near(mock_table_dbl(t, r, "ms"), 40.0);
    ck_assert_int_lt(arow(t, "getFullCart", "database", "postgresql:pricing"), 0);
    r = arow(t, "getFullCart", "in-proc", "*");
    ck_near(mock_table_dbl(t, r, "ms"), 75.0);
    mock_host_free(mh);
}
END_TEST

START_TEST(overlapping_requests_refused)
{
    mock_host *mh = run("overlapping.json", NULL, NULL);
    /* latency is still reported... */
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_ptr_nonnull(t);
    int r = mock_table_find(t, "operation", "getFullCart"); /* from ?op= in http.target */
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, r, "requests"), 3);
    ck_assert_int_eq(mock_table_int(t, r, "overlaps"), 2);
    ck_near(mock_table_dbl(t, r, "max_ms"), 100.0);
    ck_near(mock_table_dbl(t, r, "p50_ms"), 100.0);
    /* ...the attribution is not */
    ck_assert_ptr_null(mock_host_table(mh, "attribution"));
    uint32_t sev;
    const char *msg = mock_host_finding(mh, "spans.overlapping_requests", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "2 of 3") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "one virtual user") != NULL, "%s", msg);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "overlapping_requests", &v));
    ck_assert_int_eq(v, 2);
    mock_host_free(mh);
}
END_TEST

START_TEST(n_plus_one_and_in_proc)
{
    mock_host *mh = run("n-plus-one.json", NULL, NULL);
    const char *msg = mock_host_finding(mh, "spans.n_plus_one", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "12.0 calls") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "postgresql:shop") != NULL, "%s", msg);
    msg = mock_host_finding(mh, "spans.in_proc", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "70.0%") != NULL, "%s", msg);
    mock_host_free(mh);

    /* thresholds are options */
    mh = run("n-plus-one.json", "nplus1", "13");
    ck_assert_ptr_null(mock_host_finding(mh, "spans.n_plus_one", NULL));
    mock_host_free(mh);
    /* getFullCart is 46.875% in-proc: flagged from a 46% threshold on */
    mh = run("aspire-snapshot.json", "inproc_share", "46");
    msg = mock_host_finding(mh, "spans.in_proc", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "getFullCart: 46.9%") != NULL, "%s", msg);
    mock_host_free(mh);
}
END_TEST

/* Durations near int64_t's range (a damaged export): the totals saturate
 * instead of overflowing (UB that the ASan+UBSan suite would report). */
START_TEST(huge_times_saturate)
{
    mock_host *mh = run("huge-times.json", NULL, NULL);
    const mock_table *t = mock_host_table(mh, "by_operation");
    ck_assert_ptr_nonnull(t);
    int r = mock_table_find(t, "operation", "GET /a");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, r, "requests"), 3);
    ck_assert_msg(mock_table_dbl(t, r, "total_ms") >= 9223372036854.0,
                  "total_ms %f: wrapped instead of saturated", mock_table_dbl(t, r, "total_ms"));
    mock_host_free(mh);
}
END_TEST

START_TEST(bad_option_and_empty_input)
{
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_int_eq(mock_host_set_option(mh, "nplus1", "1"), 0);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
    mock_host_free(mh);
    mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_int_eq(mock_host_set_option(mh, "inproc_share", "101"), 0);
    ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
    mock_host_free(mh);

    mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "spans.no_spans", NULL));
    ck_assert_ptr_null(mock_host_table(mh, "by_operation"));
    mock_host_free(mh);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_spans");
    TCase *tc = tcase_create("attribution");
    tcase_add_test(tc, latency_per_operation);
    tcase_add_test(tc, union_not_sum);
    tcase_add_test(tc, nested_calls_not_counted_twice);
    tcase_add_test(tc, broken_propagation_same_answer);
    tcase_add_test(tc, overlapping_requests_refused);
    tcase_add_test(tc, n_plus_one_and_in_proc);
    tcase_add_test(tc, bad_option_and_empty_input);
    tcase_add_test(tc, huge_times_saturate);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
