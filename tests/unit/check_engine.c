/* The one-pass engine: every record reaches every consuming stage once; the
 * input is hashed during that read; failing stages are contained and named
 * while the others' results stand; input errors yield no document. Runs on
 * real captures from tests/data. */
#include "config.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <xxhash.h>

#include <perfpipe/perfpipe.h>

#include "engine/engine.h"
#include "engine/engine_internal.h"
#include "loader/loader.h"
#include "pipeline/options.h"
#include "pipeline/pipeline.h"
#include "registry/kinds.h"
#include "input/source.h"
#include "result/result.h"

static char fixtures[4096];
static char trace[4096];
static char oracle[4096];

static void
setup(void)
{
    const char *data = getenv("PP_TESTDATA");

    snprintf(fixtures, sizeof fixtures, "%s/tests/plugins/.libs", TEST_BUILDDIR);
    snprintf(trace, sizeof trace, "%s/cpu-sampled.nettrace",
             data ? data : TEST_SRCDIR "/tests/data");
    snprintf(oracle, sizeof oracle, "%s/cpu-sampled.oracle.json",
             data ? data : TEST_SRCDIR "/tests/data");
}

typedef struct rig {
    pp_loader *loader;
    pp_options *opts[8];
    pp_plan_stage stages[8];
    uint32_t slots[8][2];
    pp_plan_input input;
    pp_plan plan;
} rig;

static void
rig_init(rig *r, const char *path, const char *const *analyzers, size_t n)
{
    pp_error err = PP_ERROR_INIT;

    memset(r, 0, sizeof *r);
    r->loader = pp_loader_new();
    pp_loader_add_dir(r->loader, fixtures, &err);
    r->input.name = "trace";
    r->input.kind = "nettrace";
    r->input.path = path;
    for (size_t i = 0; i < n; i++) {
        const pp_analyzer *a = pp_loader_get(r->loader, analyzers[i], &err);

        ck_assert_msg(a != NULL, "%s", err.message);
        ck_assert_int_eq(pp_options_build(a, NULL, 0, &r->opts[i], &err), PP_OK);
        r->stages[i].id = analyzers[i];
        r->stages[i].analyzer = a;
        r->stages[i].options = r->opts[i];
        r->stages[i].ninputs = 2;
        r->stages[i].inputs = r->slots[i]; /* both slots read the one input */
    }
    r->plan.pipeline = "engine-test";
    r->plan.ninputs = 1;
    r->plan.inputs = &r->input;
    r->plan.nstages = n;
    r->plan.stages = r->stages;
}

static void
rig_free(rig *r)
{
    for (size_t i = 0; i < 8; i++)
        pp_options_free(r->opts[i]);
    pp_loader_free(r->loader);
}

static json_int_t
oracle_total_events(void)
{
    json_error_t jerr;
    json_t *o = json_load_file(oracle, 0, &jerr);
    json_int_t n;

    ck_assert_msg(o != NULL, "%s: %s", oracle, jerr.text);
    n = json_integer_value(json_object_get(json_object_get(o, "raw"), "total_events"));
    json_decref(o);
    ck_assert_int_gt(n, 0);
    return n;
}

static json_t *
stage_of(json_t *doc, const char *id)
{
    size_t i;
    json_t *s;

    json_array_foreach(json_object_get(doc, "stages"), i, s)
        if (strcmp(json_string_value(json_object_get(s, "id")), id) == 0)
            return s;
    return NULL;
}

static json_int_t
records_of(json_t *stage, const char *slot)
{
    json_t *tables = json_object_get(stage, "tables");
    json_t *rows = json_object_get(json_array_get(tables, 0), "rows");
    size_t i;
    json_t *row;

    json_array_foreach(rows, i, row)
        if (strcmp(json_string_value(json_array_get(row, 0)), slot) == 0)
            return json_integer_value(json_array_get(row, 2));
    return -1;
}

/* The kind names a pipeline accepts, the PP_KIND_* bits the loader
 * accepts and the readers all come from one registry: every row's name
 * has its reader with the same bit, bits are distinct, and every bit the
 * loader takes has a name. */
START_TEST(kind_names_bits_and_sources_agree)
{
    const char *names[PP_PIPELINE_MAX_NAMES];
    size_t k, n = pp_input_kind_names(UINT32_MAX, names, PP_PIPELINE_MAX_NAMES);
    uint32_t seen = 0;

    ck_assert_uint_ge(n, 5);
    for (k = 0; k < n; k++) {
        const char *name = names[k];
        const pp_source_ops *ops = pp_source_lookup(name);

        ck_assert_msg(ops != NULL, "kind %s has no source", name);
        ck_assert_str_eq(ops->kind, name);
        ck_assert_uint_eq(ops->kind_bit, pp_pipeline_kind_bit(name));
        ck_assert_str_eq(pp_pipeline_kind_name(ops->kind_bit), name);
        ck_assert_msg(__builtin_popcount(ops->kind_bit) == 1 && !(seen & ops->kind_bit),
                      "kind %s: its bit is not one bit of its own", name);
        seen |= ops->kind_bit;
    }
    for (k = 0; k < 32; k++) {
        uint32_t bit = UINT32_C(1) << k;
        ck_assert_msg(!(pp_input_kinds_all() & bit) == (pp_pipeline_kind_name(bit) == NULL),
                      "kind bit 0x%x: the loader and the pipeline disagree", (unsigned)bit);
    }
    ck_assert_uint_eq(n, (size_t)__builtin_popcount(pp_input_kinds_all()));
}
END_TEST

START_TEST(every_record_reaches_every_slot_once)
{
    static const char *const names[] = { "fixture-good" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    rig r;

    if (access(trace, R_OK) != 0) {
        printf("SKIP: %s not present\n", trace);
        return;
    }
    rig_init(&r, trace, names, 1);
    ck_assert_msg(pp_engine_run(&r.plan, NULL, &doc, &err) == PP_OK, "%s", err.message);
    ck_assert_int_eq(pp_result_validate(doc, &err), PP_OK);
    ck_assert_int_eq(records_of(stage_of(doc, "fixture-good"), "first"), oracle_total_events());
    ck_assert_int_eq(records_of(stage_of(doc, "fixture-good"), "second"), oracle_total_events());
    json_decref(doc);
    rig_free(&r);
}
END_TEST

/* The content hash computed during the one read equals an independent
 * XXH3-128 of the whole file. */
START_TEST(input_hash_matches_independent_digest)
{
    static const char *const names[] = { "fixture-good" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL, *in;
    XXH128_canonical_t c;
    char want[33];
    FILE *f;
    long size;
    void *buf;
    rig r;

    if (access(trace, R_OK) != 0) {
        printf("SKIP: %s not present\n", trace);
        return;
    }
    f = fopen(trace, "rb");
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    buf = malloc((size_t)size);
    ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    XXH128_canonicalFromHash(&c, XXH3_128bits(buf, (size_t)size));
    for (int i = 0; i < 16; i++)
        snprintf(want + 2 * i, 3, "%02x", c.digest[i]);
    free(buf);

    rig_init(&r, trace, names, 1);
    ck_assert_int_eq(pp_engine_run(&r.plan, NULL, &doc, &err), PP_OK);
    in = json_array_get(json_object_get(doc, "inputs"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(in, "hash"), "algo")),
                     "xxh3-128");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(in, "hash"), "value")),
                     want);
    ck_assert_int_eq(json_integer_value(json_object_get(in, "bytes")), size);
    json_decref(doc);
    rig_free(&r);
}
END_TEST

/* The split read's hasher (engine_hash.c): the digest of the bytes after
 * the ones the caller hashed, on its thread or the caller's, and a file
 * shorter than the read saw said, not hashed quietly short. */
static void
digest_of(const void *buf, size_t n, char *out)
{
    XXH128_canonical_t c;

    XXH128_canonicalFromHash(&c, XXH3_128bits(buf, n));
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

START_TEST(background_hash_is_the_whole_file_or_says_short)
{
    char path[] = "/tmp/pp-bghash-XXXXXX", want[33], got[80];
    size_t n = (3u << 20) + 12345;
    uint8_t *buf = malloc(n);
    uint64_t hashed = 0, x = 0x9E3779B97F4A7C15u;
    pp_error err = PP_ERROR_INIT;
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf[i] = (uint8_t)x;
    }
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    digest_of(buf, n, want);
    for (int threaded = 0; threaded < 2; threaded++) {
        pp_hash *h = pp_hash_new("xxh3-128", &err);
        pp_bg_hash *bg;

        pp_hash_update(h, buf, 1000); /* what the reader hashed at open */
        bg = pp_bg_hash_new(h, dup(fd), 1000, n);
        ck_assert_ptr_nonnull(bg);
        if (threaded)
            pp_bg_hash_start(bg);
        ck_assert_int_eq(pp_bg_hash_join(bg, &hashed), 0);
        ck_assert_uint_eq(hashed, n);
        pp_bg_hash_free(bg);
        pp_hash_final(h, got, sizeof got);
        ck_assert_str_eq(got, want);
        pp_hash_free(h);
    }
    /* The read saw more than the file now holds. */
    pp_hash *h = pp_hash_new("xxh3-128", &err);
    pp_bg_hash *bg = pp_bg_hash_new(h, dup(fd), 0, n + 4096);
    pp_bg_hash_start(bg);
    ck_assert_int_eq(pp_bg_hash_join(bg, &hashed), 1);
    ck_assert_uint_eq(hashed, n);
    pp_bg_hash_free(bg);
    /* Freed while running: stopped, nothing leaks (ASan). */
    bg = pp_bg_hash_new(h, dup(fd), 0, n);
    pp_bg_hash_start(bg);
    pp_bg_hash_free(bg);
    pp_hash_free(h);
    close(fd);
    unlink(path);
    free(buf);
}
END_TEST

START_TEST(sha256_on_request_matches_sha256sum)
{
    static const char *const names[] = { "fixture-good" };
    pp_run_hooks hooks = { .hash_algo = "sha256" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL, *in;
    char cmd[4200], want[65] = "";
    FILE *p;
    rig r;

    if (access(trace, R_OK) != 0 || system("command -v sha256sum >/dev/null") != 0) {
        printf("SKIP: no trace or no sha256sum\n");
        return;
    }
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", trace);
    p = popen(cmd, "r");
    ck_assert_int_eq(fscanf(p, "%64s", want), 1);
    pclose(p);
    rig_init(&r, trace, names, 1);
    ck_assert_int_eq(pp_engine_run(&r.plan, &hooks, &doc, &err), PP_OK);
    in = json_array_get(json_object_get(doc, "inputs"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(in, "hash"), "value")),
                     want);
    json_decref(doc);
    rig_free(&r);
}
END_TEST

START_TEST(failing_stages_are_contained)
{
    static const char *const names[] = { "fixture-good", "fixture-createfail", "fixture-finishfail",
                                         "fixture-badrow" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    const char *msg;
    rig r;

    if (access(trace, R_OK) != 0) {
        printf("SKIP: %s not present\n", trace);
        return;
    }
    rig_init(&r, trace, names, 4);
    ck_assert_int_eq(pp_engine_run(&r.plan, NULL, &doc, &err), PP_EPLUGIN);
    ck_assert_ptr_nonnull(doc);
    ck_assert_int_eq(pp_result_validate(doc, &err), PP_OK);
    ck_assert_str_eq(json_string_value(json_object_get(stage_of(doc, "fixture-good"), "status")),
                     "ok");
    ck_assert_int_eq(records_of(stage_of(doc, "fixture-good"), "first"), oracle_total_events());

    msg = pp_result_stage_error(stage_of(doc, "fixture-createfail"));
    ck_assert_ptr_nonnull(strstr(msg, "stage 'fixture-createfail' (analyzer fixture-createfail) "
                                      "could not start: refusing to start"));
    msg = pp_result_stage_error(stage_of(doc, "fixture-finishfail"));
    ck_assert_ptr_nonnull(strstr(msg, "failed to finish: finish fails"));
    msg = pp_result_stage_error(stage_of(doc, "fixture-badrow"));
    ck_assert_ptr_nonnull(strstr(msg, "broke the plugin ABI"));
    ck_assert_str_eq(json_string_value(json_object_get(stage_of(doc, "fixture-badrow"), "status")),
                     "failed");
    ck_assert_uint_eq(json_array_size(json_object_get(stage_of(doc, "fixture-badrow"), "tables")),
                      0);
    json_decref(doc);
    rig_free(&r);
}
END_TEST

/* Runs in its own process (Check fork mode): the plugin's crash kills this
 * test's process with the signal, not the suite. */
START_TEST(crash_in_consume_is_a_signal)
{
    static const char *const names[] = { "fixture-crash" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    rig r;

    if (access(trace, R_OK) != 0)
        abort(); /* keep the expected outcome without data */
    rig_init(&r, trace, names, 1);
    pp_engine_run(&r.plan, NULL, &doc, &err);
}
END_TEST

START_TEST(missing_input_gives_no_document)
{
    static const char *const names[] = { "fixture-good" };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    rig r;
    int rc;

    rig_init(&r, "/nonexistent/capture.nettrace", names, 1);
    rc = pp_engine_run(&r.plan, NULL, &doc, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(err.message, "/nonexistent/capture.nettrace"));
    rig_free(&r);
}
END_TEST

START_TEST(not_a_trace_is_a_format_error)
{
    static const char *const names[] = { "fixture-good" };
    char path[] = "/tmp/pp-engine-XXXXXX";
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    int fd = mkstemp(path);
    rig r;

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "hello, this is not a trace at all\n", 34), 34);
    close(fd);
    rig_init(&r, path, names, 1);
    ck_assert_int_eq(pp_engine_run(&r.plan, NULL, &doc, &err), PP_EFORMAT);
    ck_assert_ptr_null(doc);
    ck_assert_ptr_nonnull(strstr(err.message, path));
    unlink(path);
    rig_free(&r);
}
END_TEST

/* A copy cut mid-file is read up to its last whole block, with a warning
 * recorded on the input. */
START_TEST(truncated_input_warns_and_keeps_results)
{
    static const char *const names[] = { "fixture-good" };
    char path[] = "/tmp/pp-trunc-XXXXXX";
    char cmd[8400];
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL, *warnings;
    int fd;
    rig r;

    if (access(trace, R_OK) != 0) {
        printf("SKIP: %s not present\n", trace);
        return;
    }
    fd = mkstemp(path);
    close(fd);
    snprintf(cmd, sizeof cmd, "head -c 300000 '%s' > '%s'", trace, path);
    ck_assert_int_eq(system(cmd), 0);
    rig_init(&r, path, names, 1);
    ck_assert_msg(pp_engine_run(&r.plan, NULL, &doc, &err) == PP_OK, "%s", err.message);
    warnings = json_object_get(json_array_get(json_object_get(doc, "inputs"), 0), "warnings");
    ck_assert_uint_ge(json_array_size(warnings), 1);
    ck_assert_ptr_nonnull(strstr(json_string_value(json_array_get(warnings, 0)), "offset"));
    ck_assert_int_gt(records_of(stage_of(doc, "fixture-good"), "first"), 0);
    ck_assert_int_lt(records_of(stage_of(doc, "fixture-good"), "first"), oracle_total_events());
    json_decref(doc);
    unlink(path);
    rig_free(&r);
}
END_TEST

static Suite *
engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_record_reaches_every_slot_once);
    tcase_add_test(tc, input_hash_matches_independent_digest);
    tcase_add_test(tc, sha256_on_request_matches_sha256sum);
    tcase_add_test(tc, background_hash_is_the_whole_file_or_says_short);
    tcase_add_test(tc, failing_stages_are_contained);
    tcase_add_test_raise_signal(tc, crash_in_consume_is_a_signal, SIGABRT);
    tcase_add_test(tc, missing_input_gives_no_document);
    tcase_add_test(tc, not_a_trace_is_a_format_error);
    tcase_add_test(tc, truncated_input_warns_and_keeps_results);
    tcase_add_test(tc, kind_names_bits_and_sources_agree);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(engine_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
