/* The alloc analyzer over real captures, checked against Microsoft's reader
 * and the workload's own truth: every MANIFEST nettrace fixture with
 * GCAllocationTick events (alloc-gcverbose, alloc-envvar,
 * alloc-gcverbose-skip-buffers...).
 *  - by_type, by_kind and the totals equal TraceEvent's sums exactly;
 *  - with no framework prefixes the responsible frame is the leaf, so
 *    by_frame / by_type_frame equal TraceEvent's top-frame sums exactly;
 *  - with TraceEvent's framework list (System., Microsoft., Interop.)
 *    by_frame equals its first-user-frame sums where the definitions
 *    coincide (no unresolved frame on the way);
 *  - on the alloc scenario, the allocating methods are the top responsible
 *    frames with bytes within 10% of the truth, and a skipped method has
 *    no row. Data absent: SKIP (exit 77). */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/plugin.h>

#include "mock_host.h"

const pp_analyzer *perfpipe_plugin_entry(void);

typedef struct fixture {
    char trace[1024];
    char oracle[1024];
    char truth[1024];
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

static json_t *
load(const char *path)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    ck_assert_msg(o != NULL, "%s: %s", path, je.text);
    return o;
}

static int
has_ticks(const char *oracle)
{
    json_error_t je;
    json_t *o = json_load_file(oracle, 0, &je);
    int n = o ? (int)json_integer_value(json_object_get(json_object_get(o, "alloc"), "ticks")) : 0;
    json_decref(o);
    return n > 0;
}

static void
discover(void)
{
    const char *data = getenv("PP_TESTDATA");
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
        if (strncmp(col[0], "run-wrapper", 11) == 0)
            continue; /* the `dotnet run` host, not the app: tests/cli/test-requests.sh */
        fixture f = { 0 };
        snprintf(f.trace, sizeof f.trace, "%s/%s", data, col[0]);
        snprintf(f.oracle, sizeof f.oracle, "%s/%s", data, col[5]);
        if (strcmp(col[4], "-") != 0)
            snprintf(f.truth, sizeof f.truth, "%s/%s", data, col[4]);
        snprintf(f.scenario, sizeof f.scenario, "%s", col[2]);
        if (exists(f.trace) && exists(f.oracle) && has_ticks(f.oracle))
            fixtures[nfixtures++] = f;
    }
    fclose(m);
}

/* Run the plugin over a real trace through the mock host; framework NULL =
 * the default list. */
static mock_host *
run_trace(const char *path, const char *framework)
{
    pp_error err = PP_ERROR_INIT;
    pp_trace_source *src = NULL;
    ck_assert_msg(pp_nettrace_open(path, &src, &err) == PP_OK, "%s: %s", path, err.message);
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    mock_host_forward_trace(mh, pp_nettrace_symbolize, pp_nettrace_info, pp_nettrace_field);
    mock_host_set_option(mh, "top", "0");
    /* TraceEvent names frames as they are: compare with folding off. */
    mock_host_set_option(mh, "fold-generated", "false");
    if (framework)
        mock_host_set_option(mh, "framework", framework);
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    const pp_trace_event *ev;
    int rc;
    while ((rc = pp_nettrace_next(src, &ev, &err)) == 1)
        ck_assert_int_eq(mock_host_consume_event(mh, ev, &err), PP_OK);
    ck_assert_msg(rc == 0, "%s: %s", path, err.message);
    ck_assert_msg(mock_host_finish(mh, &err) == PP_OK, "%s", err.message);
    ck_assert_msg(mock_host_violations(mh) == 0, "ABI breach: %s", mock_host_first_violation(mh));
    pp_nettrace_close(src);
    return mh;
}

/* Every oracle row equals our row with the same key (bytes and ticks), and
 * both have the same number of rows. */
static void
same_rows(const char *what, const mock_table *t, const char *keycol, json_t *rows, const char *okey,
          const char *const *rename)
{
    size_t i;
    json_t *row;
    ck_assert_ptr_nonnull(t);
    json_array_foreach(rows, i, row) {
        const char *key = json_string_value(json_object_get(row, okey));
        for (const char *const *rn = rename; rn && rn[0]; rn += 2)
            if (!strcmp(key, rn[0]))
                key = rn[1];
        int r = mock_table_find(t, keycol, key);
        ck_assert_msg(r >= 0, "%s: no row for '%s'", what, key);
        int64_t bytes = json_integer_value(json_object_get(row, "bytes"));
        int64_t ticks = json_integer_value(json_object_get(row, "ticks"));
        ck_assert_msg(mock_table_int(t, (uint32_t)r, "bytes") == bytes &&
                          mock_table_int(t, (uint32_t)r, "samples") == ticks,
                      "%s '%s': %lld bytes / %lld ticks, TraceEvent %lld / %lld", what, key,
                      (long long)mock_table_int(t, (uint32_t)r, "bytes"),
                      (long long)mock_table_int(t, (uint32_t)r, "samples"), (long long)bytes,
                      (long long)ticks);
    }
    ck_assert_msg(mock_table_rows(t) == json_array_size(rows), "%s: %u rows, TraceEvent %zu", what,
                  mock_table_rows(t), json_array_size(rows));
}

START_TEST(test_types_kinds_totals_equal_oracle)
{
    for (size_t i = 0; i < nfixtures; i++) {
        const fixture *f = &fixtures[i];
        json_t *o = load(f->oracle);
        json_t *alloc = json_object_get(o, "alloc");
        mock_host *mh = run_trace(f->trace, NULL);
        char what[1200];
        snprintf(what, sizeof what, "%.900s by_type", f->trace);
        same_rows(what, mock_host_table(mh, "by_type"), "type", json_object_get(alloc, "by_type"),
                  "type", NULL);
        snprintf(what, sizeof what, "%.900s by_kind", f->trace);
        same_rows(what, mock_host_table(mh, "by_kind"), "kind", json_object_get(alloc, "by_kind"),
                  "kind", NULL);
        int64_t v;
        ck_assert(mock_host_total_int(mh, "ticks", &v));
        ck_assert_int_eq(v, json_integer_value(json_object_get(alloc, "ticks")));
        ck_assert(mock_host_total_int(mh, "sampled_bytes", &v));
        ck_assert_int_eq(v, json_integer_value(json_object_get(alloc, "sampled_bytes")));
        ck_assert(mock_host_total_int(mh, "ticks_with_stack", &v));
        ck_assert_int_eq(v, json_integer_value(json_object_get(alloc, "stack_ticks")));
        printf("%s: %lld ticks, %lld sampled bytes, %zu types, %zu kinds equal TraceEvent\n",
               f->trace, (long long)json_integer_value(json_object_get(alloc, "ticks")),
               (long long)json_integer_value(json_object_get(alloc, "sampled_bytes")),
               json_array_size(json_object_get(alloc, "by_type")),
               json_array_size(json_object_get(alloc, "by_kind")));
        mock_host_free(mh);
        json_decref(o);
    }
}
END_TEST

START_TEST(test_leaf_frames_equal_oracle)
{
    /* no framework prefix: the responsible frame is the allocation site */
    for (size_t i = 0; i < nfixtures; i++) {
        const fixture *f = &fixtures[i];
        json_t *o = load(f->oracle);
        json_t *alloc = json_object_get(o, "alloc");
        mock_host *mh = run_trace(f->trace, "");
        char what[1200];
        snprintf(what, sizeof what, "%.900s by_frame (leaf)", f->trace);
        same_rows(what, mock_host_table(mh, "by_frame"), "frame",
                  json_object_get(alloc, "by_top_frame"), "frame", NULL);
        /* by_type_frame against by_type_top_frame */
        const mock_table *t = mock_host_table(mh, "by_type_frame");
        size_t k;
        json_t *row;
        json_array_foreach(json_object_get(alloc, "by_type_top_frame"), k, row) {
            const char *type = json_string_value(json_object_get(row, "type"));
            const char *frame = json_string_value(json_object_get(row, "frame"));
            int found = 0;
            for (uint32_t r = 0; r < mock_table_rows(t); r++)
                if (!strcmp(mock_table_str(t, r, "type"), type) &&
                    !strcmp(mock_table_str(t, r, "frame"), frame)) {
                    ck_assert_int_eq(mock_table_int(t, r, "bytes"),
                                     json_integer_value(json_object_get(row, "bytes")));
                    ck_assert_int_eq(mock_table_int(t, r, "samples"),
                                     json_integer_value(json_object_get(row, "ticks")));
                    found = 1;
                }
            ck_assert_msg(found, "%s: no by_type_frame row %s / %s", f->trace, type, frame);
        }
        ck_assert_uint_eq(mock_table_rows(t),
                          json_array_size(json_object_get(alloc, "by_type_top_frame")));
        printf("%s: %zu leaf frames and %zu (type, frame) pairs equal TraceEvent\n", f->trace,
               json_array_size(json_object_get(alloc, "by_top_frame")),
               json_array_size(json_object_get(alloc, "by_type_top_frame")));
        mock_host_free(mh);
        json_decref(o);
    }
}
END_TEST

START_TEST(test_user_frames_equal_oracle)
{
    static const char *const rename[] = { "[none]", "[framework only]", NULL, NULL };
    for (size_t i = 0; i < nfixtures; i++) {
        const fixture *f = &fixtures[i];
        json_t *o = load(f->oracle);
        json_t *alloc = json_object_get(o, "alloc");
        mock_host *mh = run_trace(f->trace, "System.,Microsoft.,Interop.");
        double unres = -1;
        ck_assert(mock_host_total_double(mh, "unresolved_responsible_share", &unres));
        if (unres > 0) {
            /* TraceEvent skips unresolved frames, perfpipe counts them as
             * themselves: the definitions differ, say so visibly */
            printf(
                "SKIP %s first-user-frame equality: %.2f%% of bytes have an unresolved responsible frame\n",
                f->trace, unres);
        } else {
            char what[1200];
            snprintf(what, sizeof what, "%.900s by_frame (first user frame)", f->trace);
            same_rows(what, mock_host_table(mh, "by_frame"), "frame",
                      json_object_get(alloc, "by_first_user_frame"), "frame", rename);
            printf("%s: %zu responsible frames equal TraceEvent's first user frames\n", f->trace,
                   json_array_size(json_object_get(alloc, "by_first_user_frame")));
        }
        mock_host_free(mh);
        json_decref(o);
    }
}
END_TEST

/* Bytes of by_frame rows that are the method or one of its lambdas
 * ("Type+<>c.<Method>b__8_0"): compiler-generated code is the method's. */
static int64_t
method_bytes(const mock_table *t, const char *method, const char *shortname)
{
    char lambda[256];
    snprintf(lambda, sizeof lambda, "<%s>", shortname);
    int64_t sum = 0;
    for (uint32_t r = 0; r < mock_table_rows(t); r++) {
        const char *name = mock_table_str(t, r, "frame");
        if (!strcmp(name, method) || strstr(name, lambda))
            sum += mock_table_int(t, r, "bytes");
    }
    return sum;
}

START_TEST(test_truth_methods)
{
    int done = 0;
    for (size_t i = 0; i < nfixtures; i++) {
        const fixture *f = &fixtures[i];
        if (strcmp(f->scenario, "alloc") != 0 || !f->truth[0])
            continue;
        json_t *truth = load(f->truth);
        mock_host *mh = run_trace(f->trace, NULL);
        const mock_table *t = mock_host_table(mh, "by_frame");
        size_t k;
        json_t *m;
        const char *biggest = NULL;
        int64_t biggest_bytes = -1;
        json_array_foreach(json_object_get(truth, "methods"), k, m) {
            const char *method = json_string_value(json_object_get(m, "method"));
            const char *shortname = json_string_value(json_object_get(m, "short"));
            int64_t expect = json_integer_value(json_object_get(m, "bytes"));
            int64_t got = method_bytes(t, method, shortname);
            if (!json_is_true(json_object_get(m, "ran"))) {
                ck_assert_msg(got == 0, "%s: %s did not run but has %lld bytes", f->trace, method,
                              (long long)got);
                printf("%s: %s skipped by the workload, no row (a frame that disappears)\n",
                       f->trace, method);
                continue;
            }
            double err = 100.0 * (double)(got - expect) / (double)expect;
            printf("%s: %s %lld bytes, truth %lld (%+.2f%%)\n", f->trace, method, (long long)got,
                   (long long)expect, err);
            ck_assert_msg(err > -10 && err < 10, "%s: %s %lld bytes, truth %lld", f->trace, method,
                          (long long)got, (long long)expect);
            if (expect > biggest_bytes) {
                biggest_bytes = expect;
                biggest = method;
            }
        }
        ck_assert_ptr_nonnull(biggest);
        ck_assert_str_eq(mock_table_str(t, 0, "frame"), biggest);
        ck_assert_ptr_null(mock_host_finding(mh, "alloc.unresolved", NULL));
        ck_assert_ptr_null(mock_host_finding(mh, "alloc.no_ticks", NULL));
        ck_assert_ptr_nonnull(mock_host_finding(mh, "alloc.sampled", NULL));
        mock_host_free(mh);
        json_decref(truth);
        done++;
    }
    if (!done)
        printf("SKIP truth comparison: no alloc fixture with a truth file\n");
}
END_TEST

/* The bound on the sampled total (see the alloc.sampled finding), against
 * the process's exact allocation count. alloc-exact.nettrace holds the
 * workload's marker events (provider Workload-AllocMarker: i64 phase, i64
 * GC.GetTotalAllocatedBytes(precise: true), i64 gen0 GCs), written at
 * instants the count describes exactly. The ticks before a marker carry
 * what the GC handed out before it, less what each (heap, kind) had not
 * yet reported (under one 100 KB threshold each); the handed-out bytes
 * exceed the objects' bytes by the unused ends of retired allocation
 * contexts. So 0 <= exact - sampled < 100 KB x (heap, kind) pairs + slack. */
typedef struct marker {
    int64_t t_ns, phase, total, gcs;
} marker;

START_TEST(test_total_bound_exact)
{
    const char *data = getenv("PP_TESTDATA");
    char path[1024], tpath[1024];
    if (!data)
        return;
    snprintf(path, sizeof path, "%s/alloc-exact.nettrace", data);
    snprintf(tpath, sizeof tpath, "%s/alloc-exact.truth.json", data);
    if (!exists(path) || !exists(tpath)) {
        printf("SKIP: alloc-exact fixture absent\n");
        return;
    }
    json_t *truth = load(tpath);
    int64_t threshold = json_integer_value(json_object_get(truth, "allocation_tick_threshold"));
    ck_assert_int_eq(threshold, 100 * 1024);
    /* the markers, from the trace itself */
    marker m[8];
    size_t nm = 0;
    pp_error err = PP_ERROR_INIT;
    pp_trace_source *src = NULL;
    ck_assert_msg(pp_nettrace_open(path, &src, &err) == PP_OK, "%s", err.message);
    const pp_trace_event *ev;
    int rc;
    while ((rc = pp_nettrace_next(src, &ev, &err)) == 1) {
        if (strcmp(ev->provider, "Workload-AllocMarker") != 0 || nm == 8)
            continue;
        ck_assert_uint_eq(ev->payload_size, 24);
        int64_t v[3];
        memcpy(v, ev->payload, sizeof v); /* little-endian i64s, as the host */
        m[nm++] = (marker){ ev->time_ns, v[0], v[1], v[2] };
    }
    ck_assert_int_eq(rc, 0);
    pp_nettrace_close(src);
    json_t *tm = json_object_get(truth, "markers");
    ck_assert_uint_eq(nm, json_array_size(tm));
    for (size_t i = 0; i < nm; i++) {
        json_t *x = json_array_get(tm, i);
        ck_assert_int_eq(m[i].total,
                         json_integer_value(json_object_get(x, "total_allocated_bytes")));
        char to[64];
        snprintf(to, sizeof to, "%.6f", (double)m[i].t_ns / 1e6);
        err = (pp_error)PP_ERROR_INIT;
        ck_assert_msg(pp_nettrace_open(path, &src, &err) == PP_OK, "%s", err.message);
        mock_host *mh = mock_host_new(perfpipe_plugin_entry());
        mock_host_forward_trace(mh, pp_nettrace_symbolize, pp_nettrace_info, pp_nettrace_field);
        mock_host_set_option(mh, "to", to);
        ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
        while ((rc = pp_nettrace_next(src, &ev, &err)) == 1)
            ck_assert_int_eq(mock_host_consume_event(mh, ev, &err), PP_OK);
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(mock_host_finish(mh, &err) == PP_OK, "%s", err.message);
        int64_t sampled = 0, bound = 0;
        ck_assert(mock_host_total_int(mh, "sampled_bytes", &sampled));
        ck_assert(mock_host_total_int(mh, "sampled_bytes_bound", &bound));
        const mock_table *kinds = mock_host_table(mh, "by_kind");
        int64_t pairs = kinds ? (int64_t)mock_table_rows(kinds) : 0; /* one heap (workstation GC) */
        printf(
            "alloc-exact marker %lld at %.3f ms: exact %lld B, sampled %lld B, exact - sampled %lld B "
            "(%.2f thresholds; bound %lld B = %lld (heap, kind) pairs x 100 KB), %lld gen0 GCs\n",
            (long long)m[i].phase, (double)m[i].t_ns / 1e6, (long long)m[i].total,
            (long long)sampled, (long long)(m[i].total - sampled),
            (double)(m[i].total - sampled) / (double)threshold, (long long)bound, (long long)pairs,
            (long long)m[i].gcs);
        fflush(stdout);
        /* what was handed out and not yet ticked is under one threshold per
         * pair; each GC retires the allocating threads' contexts with their
         * unused ends (counted as handed out, never as objects): at most one
         * allocation quantum (8 KB) per thread that allocates (here: main) */
        ck_assert_int_ge(m[i].total - sampled, -(m[i].gcs + 1) * 8192);
        ck_assert_int_lt(m[i].total - sampled, threshold * (pairs > 0 ? pairs : 1));
        ck_assert_int_eq(bound, threshold * (pairs > 0 ? pairs : 1));
        mock_host_free(mh);
        pp_nettrace_close(src);
    }
    json_decref(truth);
}
END_TEST

int
main(void)
{
    discover();
    if (nfixtures == 0) {
        printf(
            "SKIP: no nettrace fixture with GCAllocationTick events and an oracle (PP_TESTDATA)\n");
        return 77;
    }
    for (size_t i = 0; i < nfixtures; i++)
        printf("fixture: %s (oracle %s)\n", fixtures[i].trace, fixtures[i].oracle);
    Suite *s = suite_create("plugin_alloc_real");
    TCase *tc = tcase_create("real");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_types_kinds_totals_equal_oracle);
    tcase_add_test(tc, test_leaf_frames_equal_oracle);
    tcase_add_test(tc, test_user_frames_equal_oracle);
    tcase_add_test(tc, test_truth_methods);
    tcase_add_test(tc, test_total_bound_exact);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
