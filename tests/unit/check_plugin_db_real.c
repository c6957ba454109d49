/* The db analyzer over real `dotnet-trace collect --profile database`
 * captures of the EF Core/SQLite workload, read by the nettrace reader and
 * checked against what the workload itself measured (.truth.json:
 * DbCommandInterceptor counts and Stopwatch times) and what Microsoft's
 * TraceEvent decoded (.oracle.json):
 *  - db-database: a console run with a sync and an async N+1 loop;
 *  - web-sampled-db: an ASP.NET app under 4 concurrent clients (commands
 *    from interleaved requests, async stops on other threads).
 * Expected values are read from those files, so a re-captured fixture
 * keeps the test honest. A fixture that is absent is skipped with a SKIP
 * line; with none present the program exits 77. */
#include <config.h>

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "mock_host.h"
#include "unpacked.h"

const pp_analyzer *perfpipe_plugin_entry(void);

typedef struct fixture {
    const char *name;
    const char *truth_commands; /* the truth's array of commands */
    int present;
} fixture;

static fixture fixtures[] = {
    { "db-database", "commands", 0 },
    { "web-sampled-db", "db_commands", 0 },
};
#define NFIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

static const char *data_dir;
static char trace_path[4300], truth_path[4200], oracle_path[4200];

/* The trace as committed: NAME.nettrace or NAME.nettrace.zst (unpacked.h). */
static void
use_fixture(int i)
{
    char plain[4200];
    snprintf(plain, sizeof(plain), "%s/%s.nettrace", data_dir, fixtures[i].name);
    unpacked_exists(plain, trace_path, sizeof(trace_path));
    snprintf(truth_path, sizeof(truth_path), "%s/%s.truth.json", data_dir, fixtures[i].name);
    snprintf(oracle_path, sizeof(oracle_path), "%s/%s.oracle.json", data_dir, fixtures[i].name);
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
    mock_host_forward_trace(mh, pp_nettrace_symbolize, pp_nettrace_info, pp_nettrace_field);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    pp_trace_source *t;
    char plain[4400];
    int fd = unpacked_open(trace_path, plain, sizeof(plain));
    ck_assert_msg(fd != -2, "%s", plain);
    ck_assert_msg(pp_nettrace_open(plain, &t, &err) == PP_OK, "%s", err.message);
    const pp_trace_event *ev;
    int rc;
    while ((rc = pp_nettrace_next(t, &ev, &err)) == 1)
        ck_assert_int_eq(mock_host_consume_event(mh, ev, &err), PP_OK);
    ck_assert_msg(rc == 0, "%s", err.message);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK); /* symbolizes: trace still open */
    pp_nettrace_close(t);
    unpacked_close(fd);
    ck_assert_msg(mock_host_violations(mh) == 0, "%s", mock_host_first_violation(mh));
    return mh;
}

static json_t *
load(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    ck_assert_msg(j != NULL, "%s:%d: %s", path, je.line, je.text);
    return j;
}

/* The oracle's EF command entry for a raw command text. */
static json_t *
oracle_command(json_t *oracle, const char *text)
{
    json_t *cmds = json_object_get(
        json_object_get(json_object_get(oracle, "diagnostic_source"), "ef"), "commands");
    size_t i;
    json_t *c;
    json_array_foreach(cmds, i, c)
        if (strcmp(json_string_value(json_object_get(c, "command_text")), text) == 0)
            return c;
    return NULL;
}

/* Counts per distinct command equal the workload's own count and
 * TraceEvent's; times equal TraceEvent's pairing. */
START_TEST(counts_match_truth_and_oracle)
{
    FIXTURE_OR_SKIP(_i);
    mock_host *mh = run_fixture();
    json_t *truth = load(truth_path), *oracle = load(oracle_path);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_ptr_nonnull(t);
    json_t *cmds = json_object_get(truth, fixtures[_i].truth_commands);
    ck_assert_uint_gt(json_array_size(cmds), 0);
    /* raw texts differ only by literals here, so distinct raw = distinct normalized */
    ck_assert_uint_eq(mock_table_rows(t), json_array_size(cmds));
    int64_t total, expect_total = 0;
    size_t i;
    json_t *c;
    json_array_foreach(cmds, i, c)
        expect_total += json_integer_value(json_object_get(c, "count"));
    ck_assert(mock_host_total_int(mh, "commands", &total));
    ck_assert_int_eq(total, expect_total);

    json_array_foreach(cmds, i, c) {
        const char *text = json_string_value(json_object_get(c, "command_text"));
        int r = mock_table_find(t, "example", text);
        ck_assert_msg(r >= 0, "no row for truth command %s", text);
        int64_t count = json_integer_value(json_object_get(c, "count"));
        ck_assert_int_eq(mock_table_int(t, r, "count"), count);
        ck_assert_int_eq(mock_table_int(t, r, "async"),
                         json_integer_value(json_object_get(c, "async")));
        json_t *o = oracle_command(oracle, text);
        ck_assert_msg(o != NULL, "oracle lacks %s", text);
        ck_assert_int_eq(count, json_integer_value(json_object_get(o, "stops")));
        /* same events, same pairing: TraceEvent's elapsed within 1 us per execution */
        double elapsed_ms = (double)json_integer_value(json_object_get(o, "elapsed_ns")) / 1e6;
        ck_assert_msg(fabs(mock_table_dbl(t, r, "total_ms") - elapsed_ms) <= 0.001 * (double)count,
                      "%s: %f ms, TraceEvent %f ms", text, mock_table_dbl(t, r, "total_ms"),
                      elapsed_ms);
        /* EF Core's Duration strings decoded exactly */
        double ef_ms = (double)json_integer_value(json_object_get(o, "duration_ns")) / 1e6;
        ck_assert_msg(fabs(mock_table_dbl(t, r, "ef_duration_ms") - ef_ms) < 1e-6,
                      "%s: ef %f vs %f", text, mock_table_dbl(t, r, "ef_duration_ms"), ef_ms);
    }
    ck_assert_ptr_null(mock_host_finding(mh, "db.unmatched_starts", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "db.undecodable_events", NULL));
    json_decref(truth);
    json_decref(oracle);
    mock_host_free(mh);
}
END_TEST

START_TEST(total_within_ten_percent_of_workload)
{
    FIXTURE_OR_SKIP(_i);
    mock_host *mh = run_fixture();
    json_t *truth = load(truth_path);
    double db_ms;
    ck_assert(mock_host_total_double(mh, "db_ms", &db_ms));
    /* the workload's Stopwatch around each command, summed */
    double stopwatch = 0;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(truth, fixtures[_i].truth_commands), i, c)
        stopwatch += json_number_value(json_object_get(c, "total_ms"));
    ck_assert_double_gt(stopwatch, 0);
    fprintf(stderr, "%s: db_ms %.3f, workload stopwatch %.3f (%+.1f%%)\n", fixtures[_i].name, db_ms,
            stopwatch, 100.0 * (db_ms - stopwatch) / stopwatch);
    ck_assert_msg(fabs(db_ms - stopwatch) <= 0.10 * stopwatch, "db_ms %f vs stopwatch %f", db_ms,
                  stopwatch);
    json_decref(truth);
    mock_host_free(mh);
}
END_TEST

START_TEST(n_plus_one_flagged_with_caller)
{
    FIXTURE_OR_SKIP(0);
    mock_host *mh = run_fixture();
    json_t *truth = load(truth_path);
    json_t *np = json_object_get(truth, "n_plus_one");
    int64_t each = json_integer_value(json_object_get(np, "expected_per_blog_commands_each"));
    const char *sync_m = json_string_value(json_object_get(np, "sync_per_blog_method"));
    const char *async_m = json_string_value(json_object_get(np, "async_per_blog_method"));
    ck_assert_int_gt(each, 0);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "db.n_plus_one", NULL));
    const mock_table *t = mock_host_table(mh, "n_plus_one");
    ck_assert_ptr_nonnull(t);
    /* the per-blog commands: every truth command issued `each` times in the
     * n+1 phase must be in the table with >= each executions in one group */
    int found_sync = 0, found_async = 0;
    for (uint32_t r = 0; r < mock_table_rows(t); r++) {
        const char *caller = mock_table_str(t, r, "caller");
        int64_t n = mock_table_int(t, r, "executions");
        /* caller names are Namespace.Type.Method; async ones are the state
         * machine's MoveNext of the method */
        const char *short_sync = strrchr(sync_m, '.') + 1, *short_async = strrchr(async_m, '.') + 1;
        if (strstr(caller, short_sync) && n >= each) {
            found_sync = 1;
            ck_assert_str_eq(mock_table_str(t, r, "group"), "burst"); /* one flow */
        }
        if (strstr(caller, short_async) && n >= each) {
            found_async = 1;
            ck_assert_str_eq(mock_table_str(t, r, "group"), "burst");
        }
        fprintf(stderr, "n_plus_one: %lld x %s [%s]\n", (long long)n,
                mock_table_str(t, r, "command"), caller);
    }
    ck_assert_msg(found_sync, "no N+1 row from %s", sync_m);
    ck_assert_msg(found_async, "no N+1 row from %s", async_m);
    json_decref(truth);
    mock_host_free(mh);
}
END_TEST

/* Under 4 concurrent clients, /db runs its one command once per request:
 * that is not an N+1, and with no activity ids the analyzer must not claim
 * one (it may only say "maybe", at info severity). */
START_TEST(one_per_request_is_not_a_warning)
{
    FIXTURE_OR_SKIP(1);
    mock_host *mh = run_fixture();
    json_t *truth = load(truth_path);
    int64_t hits = json_integer_value(json_object_get(json_object_get(truth, "hits"), "/db"));
    ck_assert_int_gt(hits, 0);
    const mock_table *t = mock_host_table(mh, "n_plus_one");
    size_t i;
    json_t *c;
    int checked = 0;
    json_array_foreach(json_object_get(truth, "db_commands"), i, c) {
        if (json_integer_value(json_object_get(c, "count")) != hits)
            continue;
        const mock_table *bc = mock_host_table(mh, "by_command");
        int r = mock_table_find(bc, "example",
                                json_string_value(json_object_get(c, "command_text")));
        ck_assert_int_ge(r, 0);
        const char *cmd = mock_table_str(bc, r, "command");
        int nr = t ? mock_table_find(t, "command", cmd) : -1;
        if (nr >= 0)
            ck_assert_str_eq(mock_table_str(t, nr, "group"), "burst (concurrent)");
        checked++;
    }
    ck_assert_int_eq(checked, 1);
    /* and every warning-level N+1 left is a setup write loop, not the endpoint */
    const char *msg = mock_host_finding(mh, "db.n_plus_one", NULL);
    if (msg)
        fprintf(stderr, "web-sampled-db: %s\n", msg);
    json_decref(truth);
    mock_host_free(mh);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_db_real");
    TCase *tc = tcase_create("db-database");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, counts_match_truth_and_oracle, 0, NFIXTURES);
    tcase_add_loop_test(tc, total_within_ten_percent_of_workload, 0, NFIXTURES);
    tcase_add_test(tc, n_plus_one_flagged_with_caller);
    tcase_add_test(tc, one_per_request_is_not_a_warning);
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
        fixtures[i].present = access(trace_path, R_OK) == 0 && access(truth_path, R_OK) == 0 &&
                              access(oracle_path, R_OK) == 0;
        if (!fixtures[i].present)
            printf("SKIP: %s (+ .truth.json, .oracle.json) not present\n", trace_path);
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
