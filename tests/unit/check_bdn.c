/* Unit tests of the BenchmarkDotNet export reader (core/bdn) on the real
 * exports of tests/benchmarks (tests/data/bench-*.report-*): allocated
 * bytes/op against BenchmarkDotNet's own markdown table, the measured
 * iterations against BenchmarkDotNet's own statistics, the CSV summary
 * against the JSON export, and damaged exports: cut at every position,
 * wrong kinds, wrong types, malformed JSON — refused with FILE:LINE:COLUMN
 * or read up to the last whole benchmark with a warning. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn.h"

static const char *
data_path(const char *file)
{
    static char buf[4096];
    const char *dir = getenv("PP_TESTDATA");

    if (dir != NULL)
        snprintf(buf, sizeof buf, "%s/%s", dir, file);
    else
        snprintf(buf, sizeof buf, "%s/tests/data/%s", TEST_SRCDIR, file);
    return buf;
}

static char *
slurp(const char *file, size_t *len)
{
    char *buf;
    pp_error err = PP_ERROR_INIT;

    ck_assert_msg(pp_bdn_read_file(data_path(file), &buf, len, &err) == PP_OK, "%s", err.message);
    return buf;
}

/* Read a memory image to the end; returns the last status. */
static int
read_mem(const char *data, size_t len, uint64_t *count, int64_t *cut, pp_error *err)
{
    pp_bdn_reader *r;
    const pp_bench_result *b;
    char *copy = malloc(len + 1);
    int rc;

    ck_assert_ptr_nonnull(copy);
    memcpy(copy, data, len);
    copy[len] = '\0';
    rc = pp_bdn_open_buffer(copy, len, "cut.json", &r, err);
    if (rc != PP_OK)
        return rc;
    while ((rc = pp_bdn_next(r, &b, err)) == 1)
        ;
    *count = pp_bdn_count(r);
    *cut = pp_bdn_truncated_at(r);
    pp_bdn_close(r);
    return rc;
}

/* BenchmarkDotNet's markdown table: the Allocated cell of (Method, N). */
static int64_t
markdown_allocated(const char *md, const char *method, const char *n)
{
    char *text = strdup(md), *save = NULL, *line;
    int col_alloc = -1, col_method = -1, col_n = -1;
    int64_t found = -2;

    ck_assert_ptr_nonnull(text);
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        char cells[16][64];
        int nc = 0;
        char *p = line;

        if (line[0] != '|')
            continue;
        for (char *q = p + 1; *q != '\0' && nc < 16; q++) {
            char *end = strchr(q, '|');
            size_t w = 0;

            if (end == NULL)
                break;
            for (char *c = q; c < end; c++)
                if (*c != '*' && *c != ' ' && w + 1 < sizeof cells[0])
                    cells[nc][w++] = *c;
            cells[nc++][w] = '\0';
            q = end;
        }
        if (col_alloc < 0) {
            for (int i = 0; i < nc; i++) {
                if (strcmp(cells[i], "Allocated") == 0)
                    col_alloc = i;
                if (strcmp(cells[i], "Method") == 0)
                    col_method = i;
                if (strcmp(cells[i], "N") == 0)
                    col_n = i;
            }
            continue;
        }
        if (col_alloc >= nc || col_method < 0 || col_n < 0)
            continue;
        if (strcmp(cells[col_method], method) == 0 && strcmp(cells[col_n], n) == 0) {
            const char *a = cells[col_alloc];

            if (strcmp(a, "-") == 0)
                found = 0;
            else {
                char *e;
                long long v = strtoll(a, &e, 10);

                ck_assert_msg(strcmp(e, "B") == 0, "markdown Allocated '%s' is not in B", a);
                found = v;
            }
        }
    }
    free(text);
    return found;
}

static void
check_against_markdown(const char *json, const char *md_file)
{
    size_t mdlen;
    char *md = slurp(md_file, &mdlen);
    pp_bdn_reader *r;
    const pp_bench_result *b;
    pp_error err = PP_ERROR_INIT;
    int rc, seen = 0;

    ck_assert_msg(pp_bdn_open(data_path(json), &r, &err) == PP_OK, "%s", err.message);
    ck_assert_uint_eq(pp_bdn_form(r), PP_BDN_FORM_JSON);
    while ((rc = pp_bdn_next(r, &b, &err)) == 1) {
        const char *method = strrchr(b->benchmark, '.') + 1;
        const char *n = strchr(b->parameters, '=') + 1;
        int64_t want = markdown_allocated(md, method, n);
        double sum = 0;
        uint32_t results = 0;

        ck_assert_msg(want >= 0, "%s %s not in %s", method, b->parameters, md_file);
        ck_assert_msg(b->flags & PP_BENCH_HAS_MEMORY, "no memory figures");
        ck_assert_int_eq(b->bytes_per_op, want);
        ck_assert_str_eq(b->job, "ShortRun");
        /* The statistics are BenchmarkDotNet's; the measured iterations are
         * what they were computed from. */
        ck_assert(b->flags & PP_BENCH_HAS_MEASUREMENTS);
        for (uint32_t i = 0; i < b->measurement_count; i++)
            if (b->measurements[i].mode == PP_BENCH_MODE_WORKLOAD &&
                b->measurements[i].stage == PP_BENCH_STAGE_RESULT) {
                sum += b->measurements[i].nanoseconds / (double)b->measurements[i].operations;
                results++;
            }
        ck_assert_uint_eq(results, b->n + b->outliers);
        if (b->outliers == 0)
            ck_assert_msg(fabs(sum / results - b->mean_ns) <= 1e-9 * b->mean_ns,
                          "mean of iterations %.17g vs Statistics.Mean %.17g", sum / results,
                          b->mean_ns);
        ck_assert_str_eq(b->bdn_version, "0.15.8");
        ck_assert_str_eq(b->configuration, "RELEASE");
        ck_assert_int_eq(b->has_debugger, 0);
        seen++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(seen, 4);
    ck_assert_int_eq(pp_bdn_truncated_at(r), -1);
    ck_assert_ptr_null(pp_bdn_warning(r));
    pp_bdn_close(r);
    free(md);
}

START_TEST(alloc_matches_markdown)
{
    check_against_markdown("bench-alloc.report-full.json", "bench-alloc.report-github.md");
    check_against_markdown("bench-noalloc.report-full.json", "bench-noalloc.report-github.md");
}
END_TEST

START_TEST(variants_differ_as_built)
{
    /* FormatKeys allocates in the alloc run only; Checksum never does. */
    static const char *const files[] = { "bench-alloc.report-full.json",
                                         "bench-noalloc.report-full.json" };

    for (int f = 0; f < 2; f++) {
        pp_bdn_reader *r;
        const pp_bench_result *b;
        pp_error err = PP_ERROR_INIT;

        ck_assert(pp_bdn_open(data_path(files[f]), &r, &err) == PP_OK);
        while (pp_bdn_next(r, &b, &err) == 1) {
            if (strstr(b->benchmark, "Checksum") != NULL || f == 1)
                ck_assert_int_eq(b->bytes_per_op, 0);
            else
                ck_assert_int_gt(b->bytes_per_op, 0);
        }
        pp_bdn_close(r);
    }
}
END_TEST

START_TEST(csv_matches_json)
{
    pp_bdn_reader *rj, *rc;
    const pp_bench_result *bj, *bc;
    pp_error err = PP_ERROR_INIT;
    int n = 0;

    ck_assert(pp_bdn_open(data_path("bench-alloc.report-full.json"), &rj, &err) == PP_OK);
    ck_assert_msg(pp_bdn_open(data_path("bench-alloc.report.csv"), &rc, &err) == PP_OK, "%s",
                  err.message);
    ck_assert_uint_eq(pp_bdn_form(rc), PP_BDN_FORM_CSV);
    while (pp_bdn_next(rj, &bj, &err) == 1) {
        ck_assert_msg(pp_bdn_next(rc, &bc, &err) == 1, "%s", err.message);
        ck_assert_str_eq(bc->benchmark, strrchr(bj->benchmark, '.') + 1);
        ck_assert_str_eq(bc->parameters, bj->parameters);
        ck_assert_str_eq(bc->job, bj->job);
        ck_assert_int_eq(bc->bytes_per_op, bj->bytes_per_op);
        ck_assert(!(bc->flags & PP_BENCH_HAS_MEASUREMENTS));
        /* The summary prints four or five significant digits. */
        ck_assert_msg(fabs(bc->mean_ns - bj->mean_ns) <= 5e-4 * bj->mean_ns, "%g vs %g",
                      bc->mean_ns, bj->mean_ns);
        ck_assert_msg(fabs(bc->gen0_per_1k - bj->gen0_per_1k) <= 1e-4, "%g vs %g", bc->gen0_per_1k,
                      bj->gen0_per_1k);
        n++;
    }
    ck_assert_int_eq(pp_bdn_next(rc, &bc, &err), 0);
    ck_assert_int_eq(n, 4);
    pp_bdn_close(rj);
    pp_bdn_close(rc);
}
END_TEST

/* Every cut of a real export: refused with a position, or read up to the
 * last whole benchmark with the offset it stopped at. Never a crash. */
START_TEST(truncated_everywhere)
{
    size_t len;
    char *full = slurp("bench-alloc.report-full.json", &len);
    const char *first = strstr(full, "\"Benchmarks\"");
    size_t bench_at = (size_t)(first - full);
    int refused = 0, partial = 0;

    ck_assert_ptr_nonnull(first);
    for (size_t cut = 0; cut < len; cut += cut < bench_at + 200 ? 7 : 211) {
        pp_error err = PP_ERROR_INIT;
        uint64_t count = 0;
        int64_t at = -1;
        int rc = read_mem(full, cut, &count, &at, &err);

        if (rc < 0) {
            ck_assert_int_eq(rc, PP_EFORMAT);
            ck_assert_msg(strstr(err.message, "cut.json:") == err.message, "%s", err.message);
            ck_assert_uint_gt(err.line, 0);
            refused++;
        } else {
            ck_assert_int_eq(rc, 0);
            ck_assert_uint_ge(count, 1);
            ck_assert_uint_le(count, 4);
            ck_assert_int_ge(at, 0);
            ck_assert_int_le(at, (int64_t)cut);
            partial++;
        }
        /* A cut before the first benchmark ends can hold no whole one. */
        if (cut < bench_at)
            ck_assert_int_lt(rc, 0);
    }
    ck_assert_int_gt(refused, 10);
    ck_assert_int_gt(partial, 10);
    free(full);
}
END_TEST

START_TEST(truncated_warning_names_the_byte)
{
    size_t len;
    char *full = slurp("bench-alloc.report-full.json", &len);
    /* Cut inside the third benchmark. */
    const char *p = full;
    pp_bdn_reader *r;
    const pp_bench_result *b;
    pp_error err = PP_ERROR_INIT;
    char *copy;
    size_t cut;

    for (int i = 0; i < 3; i++)
        p = strstr(p + 1, "\"DisplayInfo\"");
    cut = (size_t)(p - full) + 100;
    copy = malloc(cut + 1);
    memcpy(copy, full, cut);
    copy[cut] = '\0';
    ck_assert(pp_bdn_open_buffer(copy, cut, "cut.json", &r, &err) == PP_OK);
    ck_assert_int_eq(pp_bdn_next(r, &b, &err), 1);
    ck_assert_int_eq(pp_bdn_next(r, &b, &err), 1);
    ck_assert_int_eq(pp_bdn_next(r, &b, &err), 0);
    ck_assert_uint_eq(pp_bdn_count(r), 2);
    ck_assert_ptr_nonnull(pp_bdn_warning(r));
    ck_assert_msg(strstr(pp_bdn_warning(r)->message, "truncated at byte") != NULL, "%s",
                  pp_bdn_warning(r)->message);
    ck_assert_msg(strstr(pp_bdn_warning(r)->message, "read 2 whole benchmarks") != NULL, "%s",
                  pp_bdn_warning(r)->message);
    /* It stopped where the third benchmark's object starts. */
    ck_assert_int_eq(full[pp_bdn_truncated_at(r)], '{');
    pp_bdn_close(r);
    free(full);
}
END_TEST

static void
expect_refusal(const char *text, const char *needle)
{
    pp_error err = PP_ERROR_INIT;
    uint64_t count;
    int64_t at;
    int rc = read_mem(text, strlen(text), &count, &at, &err);

    ck_assert_msg(rc == PP_EFORMAT, "rc %d for %.40s", rc, text);
    ck_assert_msg(strstr(err.message, needle) != NULL, "'%s' not in '%s'", needle, err.message);
    ck_assert_msg(strncmp(err.message, "cut.json:", 9) == 0, "%s", err.message);
}

START_TEST(wrong_kinds)
{
    expect_refusal("", "empty file");
    expect_refusal("\x01\x02 random", "expected a BenchmarkDotNet export");
    expect_refusal("{\"resourceSpans\": []}", "no \"Benchmarks\" array");
    expect_refusal("{\"Benchmarks\": {}}", "expected \"Benchmarks\" to be an array");
    expect_refusal("{\"Benchmarks\": [1]}", "Benchmarks[0].: expected an object");
    expect_refusal("{\"Benchmarks\": [{\"Type\":\"T\",\"Method\":\"M\"}]}",
                   "Benchmarks[0].FullName: expected a string, found nothing");
    expect_refusal(
        "{\"Benchmarks\": [{\"FullName\":\"a\",\"Type\":\"T\",\"Method\":\"M\",\n"
        "  \"Memory\": {\"BytesAllocatedPerOperation\": \"1408\"}}]}",
        "Benchmarks[0].Memory.BytesAllocatedPerOperation: expected an integer, found string");
    expect_refusal("{\"Title\": \"x\",\n \"Benchmarks\": [{\"FullName\": tru}]}", "cut.json:2:");
    expect_refusal("{\"Title\": \"x\"\n \"Benchmarks\": []}", "expected ',' or '}'");
    expect_refusal("Method,Job,Mean\nFormatKeys,ShortRun,12 parsecs\n", "expected a time");
    expect_refusal("Method,Job\nA,B\n", "no \"Mean\" column");
}
END_TEST

START_TEST(wrong_type_position)
{
    size_t len;
    char *full = slurp("bench-noalloc.report-full.json", &len);
    char *p = strstr(full, "\"BytesAllocatedPerOperation\":");
    pp_error err = PP_ERROR_INIT;
    uint64_t count;
    int64_t at;
    int rc;

    ck_assert_ptr_nonnull(p);
    p += strlen("\"BytesAllocatedPerOperation\":");
    *p = '"'; /* 0 -> "... : a string that does not close until the next quote */
    rc = read_mem(full, len, &count, &at, &err);
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_msg(err.line > 1 && strstr(err.message, "cut.json:") == err.message, "%s",
                  err.message);
    free(full);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("bdn");
    TCase *t = tcase_create("reader");

    tcase_add_test(t, alloc_matches_markdown);
    tcase_add_test(t, variants_differ_as_built);
    tcase_add_test(t, csv_matches_json);
    tcase_add_test(t, truncated_everywhere);
    tcase_add_test(t, truncated_warning_names_the_byte);
    tcase_add_test(t, wrong_kinds);
    tcase_add_test(t, wrong_type_position);
    suite_add_tcase(s, t);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
