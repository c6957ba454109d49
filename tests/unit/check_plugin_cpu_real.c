/* The cpu analyzer over real captures, checked against Microsoft's reader:
 * the public corpus trace mixed_managed_external_samples.nettrace (oracle in
 * tests/data/corpus-oracle/) and every MANIFEST nettrace fixture with thread
 * samples (cpu-sampled, web-sampled-db...). Per-leaf exclusive and
 * per-method inclusive sample counts must equal TraceEvent's exactly, in
 * both views; the cpu scenario's HotA/HotB split must match the workload's
 * Stopwatch truth within 5 points. Data absent: SKIP (exit 77). */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/plugin.h>

#include "../../plugins/common/frames.h"
#include "mock_host.h"
#include "unpacked.h"

const pp_analyzer *perfpipe_plugin_entry(void);

typedef struct fixture {
    char trace[1024];
    char oracle[1024];
    char truth[1024]; /* "" when none */
    char scenario[64];
} fixture;

static fixture fixtures[32];
static size_t nfixtures;

static int
exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static int
has_samples(const char *oracle)
{
    json_error_t je;
    json_t *o = json_load_file(oracle, 0, &je);
    int n = o ? (int)json_integer_value(json_object_get(json_object_get(o, "samples"), "total")) :
                0;
    json_decref(o);
    return n > 0;
}

static void
discover(void)
{
    const char *corpus = getenv("PP_CORPUS");
    const char *data = getenv("PP_TESTDATA");
    if (corpus && data) {
        fixture f = { 0 };
        snprintf(f.trace, sizeof f.trace, "%s/mixed_managed_external_samples.nettrace", corpus);
        snprintf(f.oracle, sizeof f.oracle,
                 "%s/corpus-oracle/mixed_managed_external_samples.oracle.json", data);
        snprintf(f.scenario, sizeof f.scenario, "corpus");
        if (exists(f.trace) && exists(f.oracle))
            fixtures[nfixtures++] = f;
        else
            printf("SKIP corpus case: %s or its oracle is absent\n", f.trace);
    }
    if (!data)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/MANIFEST", data);
    FILE *m = fopen(path, "r");
    if (!m)
        return;
    char line[8192];
    while (fgets(line, sizeof line, m) && nfixtures < sizeof fixtures / sizeof fixtures[0]) {
        if (line[0] == '#')
            continue;
        char *col[10] = { 0 };
        int n = 0;
        for (char *s = line, *tab; n < 10 && s; s = tab ? tab + 1 : NULL) {
            tab = strchr(s, '\t');
            if (tab)
                *tab = '\0';
            col[n++] = s;
        }
        if (n < 6 || strcmp(col[1], "nettrace") != 0)
            continue;
        fixture f = { 0 };
        snprintf(f.trace, sizeof f.trace, "%s/%s", data, col[0]);
        snprintf(f.oracle, sizeof f.oracle, "%s/%s", data, col[5]);
        if (strcmp(col[4], "-") != 0)
            snprintf(f.truth, sizeof f.truth, "%s/%s", data, col[4]);
        snprintf(f.scenario, sizeof f.scenario, "%s", col[2]);
        if (exists(f.trace) && exists(f.oracle) && has_samples(f.oracle))
            fixtures[nfixtures++] = f;
    }
    fclose(m);
}

/* Run the plugin over a real trace through the mock host. */
static mock_host *
run_trace(const char *path, const char *view, const char *focus)
{
    pp_error err = PP_ERROR_INIT;
    pp_trace_source *src = NULL;
    char plain[4300];
    int fd = unpacked_open(path, plain, sizeof plain); /* a .zst fixture (MANIFEST) */
    ck_assert_msg(fd != -2, "%s", plain);
    ck_assert_msg(pp_nettrace_open(plain, &src, &err) == PP_OK, "%s: %s", path, err.message);
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    mock_host_forward_trace(mh, pp_nettrace_symbolize, pp_nettrace_info, pp_nettrace_field);
    mock_host_set_option(mh, "top", "0");
    mock_host_set_option(mh, "view", view);
    if (focus)
        mock_host_set_option(mh, "focus", focus);
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    const pp_trace_event *ev;
    int rc;
    while ((rc = pp_nettrace_next(src, &ev, &err)) == 1)
        ck_assert_int_eq(mock_host_consume_event(mh, ev, &err), PP_OK);
    ck_assert_msg(rc == 0, "%s: %s", path, err.message);
    ck_assert_msg(mock_host_finish(mh, &err) == PP_OK, "%s", err.message);
    ck_assert_msg(mock_host_violations(mh) == 0, "ABI breach: %s", mock_host_first_violation(mh));
    pp_nettrace_close(src);
    unpacked_close(fd);
    return mh;
}

static int
oracle_unresolved(const char *name)
{
    return !strcmp(name, "?") || strstr(name, "!?") != NULL;
}

/* Compare one view against the oracle's rows: column `col` of each row
 * ("total" for thread-time, "managed" for the managed view). */
static void
compare_view(const fixture *f, const char *view, const char *col)
{
    json_error_t je;
    json_t *o = json_load_file(f->oracle, 0, &je);
    ck_assert_msg(o != NULL, "%s: %s", f->oracle, je.text);
    json_t *samples = json_object_get(o, "samples");
    mock_host *mh = run_trace(f->trace, view, NULL);
    const mock_table *t = mock_host_table(mh, "by_method");
    ck_assert_ptr_nonnull(t);

    int64_t v = -1;
    ck_assert(mock_host_total_int(mh, "samples", &v));
    json_t *by_type = json_object_get(samples, "by_type");
    int64_t expect_total = !strcmp(col, "managed") ?
                               json_integer_value(json_object_get(by_type, "Managed")) :
                               json_integer_value(json_object_get(samples, "total"));
    ck_assert_msg(v == expect_total, "%s %s: %lld samples, oracle %lld", f->trace, view,
                  (long long)v, (long long)expect_total);
    if (!strcmp(col, "total")) {
        ck_assert(mock_host_total_int(mh, "samples_external", &v));
        ck_assert_int_eq(v, json_integer_value(json_object_get(by_type, "External")));
        ck_assert(mock_host_total_int(mh, "samples_managed", &v));
        ck_assert_int_eq(v, json_integer_value(json_object_get(by_type, "Managed")));
    }

    /* exclusive: every resolved leaf exactly; unresolved leaves as a sum */
    size_t i;
    json_t *row;
    int64_t oracle_unres = 0, oracle_resolved_rows = 0, checked = 0;
    json_array_foreach(json_object_get(samples, "leaf"), i, row) {
        const char *name = json_string_value(json_object_get(row, "method"));
        int64_t n = json_integer_value(json_object_get(row, col));
        if (oracle_unresolved(name)) {
            oracle_unres += n;
            continue;
        }
        if (n == 0)
            continue;
        oracle_resolved_rows++;
        int r = mock_table_find(t, "method", name);
        ck_assert_msg(r >= 0, "%s %s: leaf %s (%lld samples in TraceEvent) missing", f->trace, view,
                      name, (long long)n);
        ck_assert_msg(mock_table_int(t, (uint32_t)r, "exclusive") == n,
                      "%s %s: %s exclusive %lld, TraceEvent %lld", f->trace, view, name,
                      (long long)mock_table_int(t, (uint32_t)r, "exclusive"), (long long)n);
        checked++;
    }
    int64_t ours_unres = 0, ours_resolved_leaf_rows = 0;
    for (uint32_t r = 0; r < mock_table_rows(t); r++) {
        const char *name = mock_table_str(t, r, "method");
        int64_t ex = mock_table_int(t, r, "exclusive");
        if (pp_pc_frame_unresolved(name))
            ours_unres += ex;
        else if (ex > 0)
            ours_resolved_leaf_rows++;
    }
    ck_assert_msg(ours_unres == oracle_unres, "%s %s: unresolved leaves %lld, TraceEvent %lld",
                  f->trace, view, (long long)ours_unres, (long long)oracle_unres);
    ck_assert_msg(ours_resolved_leaf_rows == oracle_resolved_rows,
                  "%s %s: %lld resolved leaf methods, TraceEvent %lld", f->trace, view,
                  (long long)ours_resolved_leaf_rows, (long long)oracle_resolved_rows);

    /* inclusive: every resolved method exactly, once per sample */
    int64_t oracle_incl_rows = 0;
    json_array_foreach(json_object_get(samples, "inclusive"), i, row) {
        const char *name = json_string_value(json_object_get(row, "method"));
        int64_t n = json_integer_value(json_object_get(row, col));
        if (oracle_unresolved(name) || n == 0)
            continue;
        oracle_incl_rows++;
        int r = mock_table_find(t, "method", name);
        ck_assert_msg(r >= 0, "%s %s: method %s (inclusive %lld in TraceEvent) missing", f->trace,
                      view, name, (long long)n);
        ck_assert_msg(mock_table_int(t, (uint32_t)r, "inclusive") == n,
                      "%s %s: %s inclusive %lld, TraceEvent %lld", f->trace, view, name,
                      (long long)mock_table_int(t, (uint32_t)r, "inclusive"), (long long)n);
    }
    int64_t ours_incl_rows = 0;
    for (uint32_t r = 0; r < mock_table_rows(t); r++)
        if (!pp_pc_frame_unresolved(mock_table_str(t, r, "method")) &&
            mock_table_int(t, r, "inclusive") > 0)
            ours_incl_rows++;
    ck_assert_msg(ours_incl_rows == oracle_incl_rows,
                  "%s %s: %lld resolved methods, TraceEvent %lld", f->trace, view,
                  (long long)ours_incl_rows, (long long)oracle_incl_rows);
    printf("%s [%s]: %lld samples; %lld leaf methods and %lld inclusive methods equal TraceEvent; "
           "unresolved leaf samples %lld; top %s (%lld)\n",
           f->trace, view, (long long)expect_total, (long long)checked, (long long)oracle_incl_rows,
           (long long)oracle_unres, mock_table_rows(t) ? mock_table_str(t, 0, "method") : "-",
           mock_table_rows(t) ? (long long)mock_table_int(t, 0, "exclusive") : 0LL);
    mock_host_free(mh);
    json_decref(o);
}

START_TEST(test_thread_time_equals_oracle)
{
    for (size_t i = 0; i < nfixtures; i++)
        compare_view(&fixtures[i], "thread-time", "total");
}
END_TEST

START_TEST(test_managed_equals_oracle)
{
    for (size_t i = 0; i < nfixtures; i++)
        compare_view(&fixtures[i], "managed", "managed");
}
END_TEST

START_TEST(test_corpus_facts)
{
    const fixture *f = NULL;
    for (size_t i = 0; i < nfixtures; i++)
        if (!strcmp(fixtures[i].scenario, "corpus"))
            f = &fixtures[i];
    if (!f) {
        printf("SKIP corpus facts: corpus trace absent\n");
        return;
    }
    /* facts published with the trace (corpus README, reference nettrace.md) */
    mock_host *mh = run_trace(f->trace, "managed", "NoNativeStacks.Program.FindByte");
    const mock_table *t = mock_host_table(mh, "by_method");
    ck_assert_str_eq(mock_table_str(t, 0, "method"), "NoNativeStacks.Program.FindByte");
    ck_assert_int_eq(mock_table_int(t, 0, "exclusive"), 2590);
    int r = mock_table_find(t, "method", "NoNativeStacks.Program.InnerLoop");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "exclusive"), 1314);
    const mock_table *callers = mock_host_table(mh, "callers");
    ck_assert_ptr_nonnull(callers);
    ck_assert_uint_ge(mock_table_rows(callers), 1);
    printf(
        "corpus managed view: FindByte 2590 exclusive, InnerLoop 1314; FindByte's top caller %s (%lld samples)\n",
        mock_table_str(callers, 0, "caller"), (long long)mock_table_int(callers, 0, "samples"));
    mock_host_free(mh);

    mh = run_trace(f->trace, "thread-time", NULL);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "samples", &v));
    ck_assert_int_eq(v, 6331);
    ck_assert(mock_host_total_int(mh, "samples_external", &v));
    ck_assert_int_eq(v, 2427);
    ck_assert(mock_host_total_int(mh, "samples_managed", &v));
    ck_assert_int_eq(v, 3904);
    t = mock_host_table(mh, "by_method");
    r = mock_table_find(t, "method", "NoNativeStacks.Program.Main");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "inclusive"), 6331);
    r = mock_table_find(t, "method", "System.IO.StdInReader.ReadKey");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "exclusive"), 2298);
    /* every leaf resolves through the rundown */
    double d;
    ck_assert(mock_host_total_double(mh, "unresolved_frame_share", &d));
    ck_assert_ptr_null(mock_host_finding(mh, "cpu.unresolved", NULL));
    printf("corpus thread-time: 6331 samples (2427 External, 3904 Managed), Main inclusive 6331, "
           "ReadKey 2298; unresolved frames %.2f%%\n",
           d);
    mock_host_free(mh);
}
END_TEST

static double
truth_share(json_t *truth, const char *method)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(truth, "methods"), i, m)
        if (!strcmp(json_string_value(json_object_get(m, "method")), method))
            return json_real_value(json_object_get(m, "share"));
    return -1;
}

START_TEST(test_cpu_scenario_split)
{
    int done = 0;
    for (size_t i = 0; i < nfixtures; i++) {
        const fixture *f = &fixtures[i];
        if (strcmp(f->scenario, "cpu") != 0 || !f->truth[0])
            continue;
        json_error_t je;
        json_t *truth = json_load_file(f->truth, 0, &je);
        ck_assert_msg(truth != NULL, "%s: %s", f->truth, je.text);
        mock_host *mh = run_trace(f->trace, "managed", NULL);
        const mock_table *t = mock_host_table(mh, "by_method");
        int ra = mock_table_find(t, "method", "Workload.CpuScenario.HotA");
        int rb = mock_table_find(t, "method", "Workload.CpuScenario.HotB");
        ck_assert_int_ge(ra, 0);
        ck_assert_int_ge(rb, 0);
        double a = mock_table_dbl(t, (uint32_t)ra, "inclusive_ms"),
               b = mock_table_dbl(t, (uint32_t)rb, "inclusive_ms");
        double share_a = 100.0 * a / (a + b);
        double truth_a = 100.0 * truth_share(truth, "Workload.CpuScenario.HotA");
        ck_assert_msg(truth_a > 0, "truth has no HotA share");
        printf("%s managed view: HotA %.1f ms, HotB %.1f ms -> HotA share %.1f%% (truth %.1f%%)\n",
               f->trace, a, b, share_a, truth_a);
        ck_assert_msg(share_a > truth_a - 5 && share_a < truth_a + 5,
                      "HotA share %.1f%%, truth %.1f%%", share_a, truth_a);
        mock_host_free(mh);
        json_decref(truth);

        /* the thread-time view of this scenario is dominated by waits */
        mh = run_trace(f->trace, "thread-time", NULL);
        ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.waits", NULL));
        mock_host_free(mh);
        done++;
    }
    if (!done)
        printf("SKIP cpu scenario split: no cpu fixture with a truth file\n");
}
END_TEST

int
main(void)
{
    discover();
    if (nfixtures == 0) {
        printf("SKIP: no sampled trace with an oracle (PP_CORPUS, PP_TESTDATA)\n");
        return 77;
    }
    for (size_t i = 0; i < nfixtures; i++)
        printf("fixture: %s (oracle %s)\n", fixtures[i].trace, fixtures[i].oracle);
    Suite *s = suite_create("plugin_cpu_real");
    TCase *tc = tcase_create("real");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_thread_time_equals_oracle);
    tcase_add_test(tc, test_managed_equals_oracle);
    tcase_add_test(tc, test_corpus_facts);
    tcase_add_test(tc, test_cpu_scenario_split);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
