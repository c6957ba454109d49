/* core/result renderers: golden files (byte-exact) for every format on a
 * hand-built document and on a document built from real TraceEvent figures
 * (tests/golden/real-alloc-envvar.input.json, copied from the oracle over
 * tests/data/alloc-envvar.nettrace), plus the flame renderers' invariants.
 *
 * Goldens live in tests/golden/. To regenerate them after an intended
 * change, run with PP_UPDATE_GOLDEN=1 (e.g.
 *   PP_UPDATE_GOLDEN=1 ./tests/unit/check_result_render
 * from the build directory) and review the diff before committing: the
 * test then writes the files instead of comparing, and says so. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"

/* The table wrappers of the stage under construction (result.h). */
static pp_table_set test_set;

static const char *
srcdir(void)
{
    const char *s = getenv("PP_SRCDIR");
    return s != NULL && *s ? s : TEST_SRCDIR;
}

/* Layout options of the next renderings (NULL = the defaults). */
static const pp_render_opts *g_opts;

/* Render doc in format (optionally one table) into a malloc'd string. */
static char *
render(const json_t *doc, const char *format, const char *table, int *rc, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    pp_error err = PP_ERROR_INIT;

    ck_assert_ptr_nonnull(f);
    *rc = g_opts ? pp_render_opts_table(doc, format, table, g_opts, f, &err) :
                   pp_render_table_named(doc, format, table, f, &err);
    fclose(f);
    ck_assert_msg(*rc == PP_OK, "render %s: %s", format, err.message);
    if (len)
        *len = n;
    return buf;
}

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void
golden(const json_t *doc, const char *format, const char *table, const char *name)
{
    char path[4096];
    int rc;
    size_t n, gn;
    char *got = render(doc, format, table, &rc, &n);
    char *want;
    const char *upd = getenv("PP_UPDATE_GOLDEN");

    snprintf(path, sizeof path, "%s/tests/golden/%s", srcdir(), name);
    if (upd != NULL && strcmp(upd, "1") == 0) {
        FILE *f = fopen(path, "wb");
        ck_assert_msg(f != NULL, "cannot write %s", path);
        ck_assert_int_eq(fwrite(got, 1, n, f), n);
        fclose(f);
        printf("UPDATED golden %s (%zu bytes)\n", path, n);
        free(got);
        return;
    }
    want = slurp(path, &gn);
    ck_assert_msg(want != NULL, "golden %s is missing (PP_UPDATE_GOLDEN=1 writes it)", path);
    if (gn != n || memcmp(got, want, n) != 0) {
        size_t i = 0;
        while (i < n && i < gn && got[i] == want[i])
            i++;
        ck_abort_msg(
            "%s differs from golden %s at byte %zu (got %zu bytes, want %zu); got: \"%.60s\" want: \"%.60s\"",
            format, path, i, n, gn, got + i, want + i);
    }
    free(got);
    free(want);
}

/* ---- the hand-built document ------------------------------------------------ */

static json_t *
hand_doc(void)
{
    json_t *doc = pp_result_new("demo");
    json_t *st;
    pp_table *t;
    static const pp_column types[] = {
        { "type", PP_COL_STRING, 0 },
        { "ticks", PP_COL_COUNT, 0 },
        { "bytes", PP_COL_BYTES, 0 },
        { "share", PP_COL_PERCENT, 0 },
    };
    static const pp_column stacks[] = {
        { "stack", PP_COL_STRING, 0 },
        { "bytes", PP_COL_BYTES, 0 },
    };
    static const pp_column spans[] = {
        { "name", PP_COL_STRING, 0 },      { "start", PP_COL_TIMESTAMP_NS, 0 },
        { "wall", PP_COL_DURATION_NS, 0 }, { "slope", PP_COL_NUMBER, 0 },
        { "detail", PP_COL_STRING, 0 },
    };
    static const pp_column cpu_stacks[] = {
        { "stack", PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
    };

    /* tool.version is the build's: pin it so goldens do not follow it. */
    json_object_set_new(json_object_get(doc, "tool"), "version", json_string("0.0.0-test"));
    pp_result_set_knob(doc, "scenario", "getFullCart");
    pp_result_set_knob(doc, "items", "100");
    pp_result_add_input(doc, "trace", "captures/app.nettrace", "nettrace", 1234567890, "xxh3-128",
                        "0123456789abcdef0123456789abcdef");
    pp_result_add_input(doc, "heap", "captures/a b.gcdump", "gcdump", 512, NULL, NULL);

    st = pp_result_add_stage(doc, "alloc", "alloc", "1.0.0");
    t = pp_result_table_new(&test_set, st, "by_type", 4, types, 1, NULL);
    pp_result_table_row(t,
                        (pp_cell[]){ pp_cell_str("System.String"), pp_cell_int(1234567),
                                     pp_cell_int(1210000000), pp_cell_dbl(66.04) },
                        NULL);
    pp_result_table_row(
        t,
        (pp_cell[]){
            pp_cell_str(
                "System.Collections.Generic.Dictionary`2+Entry[System.String,System.Collections.Generic.List`1[System.Int32]][]"),
            pp_cell_int(999), pp_cell_int(35400), pp_cell_dbl(0.049) },
        NULL);
    pp_result_table_row(t,
                        (pp_cell[]){ pp_cell_str("Weird|name, with \"quotes\"\nand <Main>g__x_0"),
                                     pp_cell_int(0), pp_cell_int(-512), pp_cell_dbl(NAN) },
                        NULL);
    pp_result_table_row(t,
                        (pp_cell[]){ pp_cell_str("Caf\xc3\xa9.Cr\xc3\xa8me"), pp_cell_int(1),
                                     pp_cell_int(1000), pp_cell_int(100) },
                        NULL);
    pp_result_table_row(t,
                        (pp_cell[]){ pp_cell_null(), pp_cell_int(INT64_MAX), pp_cell_int(INT64_MIN),
                                     pp_cell_null() },
                        NULL);
    t = pp_result_table_new(&test_set, st, "stacks", 2, stacks, 1, NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Main;Run;MakeStrings;String.Ctor"), pp_cell_int(600) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("Main;Run;MakeBuffers"), pp_cell_int(300) },
                        NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("Main;Run;MakeStrings"), pp_cell_int(50) },
                        NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Main;Run;MakeStrings;String.Ctor"), pp_cell_int(40) }, NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Main;Run.Inner;<Lambda>b__0_0 & co"), pp_cell_int(10) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("Main;Freed"), pp_cell_int(-70) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("Main;Zero"), pp_cell_int(0) }, NULL);
    pp_result_finding(
        st, PP_SEVERITY_WARNING, "alloc.wrapper_process",
        "sampled bytes are far below expectation: the dotnet run wrapper was traced, not the app");
    pp_result_finding(st, PP_SEVERITY_INFO, "alloc.top_type",
                      "System.String is 66.0% of sampled bytes");
    pp_result_total_int(st, "sampled_bytes", PP_COL_BYTES, 1833000000);
    pp_result_total_int(st, "ticks", PP_COL_COUNT, 18345);
    pp_result_total_double(st, "top_share", PP_COL_PERCENT, 66.04);
    pp_result_total_string(st, "axis", "allocation churn");
    pp_result_tables_release(&test_set);

    st = pp_result_add_stage(doc, "cpu", "cpu", "0.9.1");
    t = pp_result_table_new(&test_set, st, "spans", 5, spans, 1, NULL);
    pp_result_table_row(
        t,
        (pp_cell[]){
            pp_cell_str("GET /cart"), pp_cell_int(1234500000), pp_cell_int(35400000),
            pp_cell_dbl(0.98765),
            pp_cell_str(
                "a detail that is long but sits in the last column, so it is kept whole, never cut in the middle of the text") },
        NULL);
    pp_result_table_row(t,
                        (pp_cell[]){ pp_cell_str("db"), pp_cell_int(0), pp_cell_int(850000),
                                     pp_cell_dbl(-12.5), pp_cell_null() },
                        NULL);
    t = pp_result_table_new(&test_set, st, "cpu_stacks", 2, cpu_stacks, 1, NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Thread.StartCallback;Worker.Run;Spin"), pp_cell_int(7) },
        NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Thread.StartCallback;Worker.Run"), pp_cell_int(2) }, NULL);
    pp_result_table_row(
        t, (pp_cell[]){ pp_cell_str("Thread.StartCallback;WaitHandle.WaitOne"), pp_cell_int(11) },
        NULL);
    pp_result_tables_release(&test_set);

    st = pp_result_add_stage(doc, "db", "db", "1.0.0");
    pp_result_stage_failed(
        st, "no DiagnosticSource events in trace: capture with the database profile");
    t = pp_result_table_new(&test_set, st, "commands", 2, spans + 1, 0, NULL);
    pp_result_tables_release(&test_set);
    return doc;
}

/* ---- the real document -------------------------------------------------- */

static json_t *
load_real_input(void)
{
    char path[4096];
    json_error_t je;
    json_t *in;

    snprintf(path, sizeof path, "%s/tests/golden/real-alloc-envvar.input.json", srcdir());
    in = json_load_file(path, 0, &je);
    ck_assert_msg(in != NULL, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    return in;
}

/* The document an alloc stage would produce over alloc-envvar.nettrace,
 * built from TraceEvent's figures: by_type, by_kind and a stack table
 * frame;type weighted by sampled bytes. */
static json_t *
real_doc(void)
{
    json_t *in = load_real_input();
    json_t *doc = pp_result_new("alloc");
    json_t *st, *v, *hash_in;
    pp_table *t;
    size_t i;
    const char *k;
    int64_t total = json_integer_value(json_object_get(in, "sampled_bytes"));
    static const pp_column by_type[] = {
        { "type", PP_COL_STRING, 0 },
        { "ticks", PP_COL_COUNT, 0 },
        { "bytes", PP_COL_BYTES, 0 },
        { "share", PP_COL_PERCENT, 0 },
    };
    static const pp_column by_kind[] = {
        { "kind", PP_COL_STRING, 0 },
        { "ticks", PP_COL_COUNT, 0 },
        { "bytes", PP_COL_BYTES, 0 },
    };
    static const pp_column stacks[] = {
        { "stack", PP_COL_STRING, 0 },
        { "bytes", PP_COL_BYTES, 0 },
        { "ticks", PP_COL_COUNT, 0 },
    };

    json_object_set_new(json_object_get(doc, "tool"), "version", json_string("0.0.0-test"));
    json_object_foreach(json_object_get(in, "knobs"), k, v)
        pp_result_set_knob(doc, k, json_string_value(v));
    hash_in = json_object_get(in, "xxh3_128");
    pp_result_add_input(doc, "trace", json_string_value(json_object_get(in, "file")), "nettrace",
                        json_integer_value(json_object_get(in, "bytes")), "xxh3-128",
                        json_string_value(hash_in));
    st = pp_result_add_stage(doc, "alloc", "alloc", "1.0.0");
    t = pp_result_table_new(&test_set, st, "by_type", 4, by_type, 1, NULL);
    json_array_foreach(json_object_get(in, "by_type"), i, v) {
        int64_t b = json_integer_value(json_object_get(v, "bytes"));
        ck_assert_int_eq(
            pp_result_table_row(
                t,
                (pp_cell[]){ pp_cell_str(json_string_value(json_object_get(v, "type"))),
                             pp_cell_int(json_integer_value(json_object_get(v, "ticks"))),
                             pp_cell_int(b), pp_cell_dbl(100.0 * (double)b / (double)total) },
                NULL),
            PP_OK);
    }
    t = pp_result_table_new(&test_set, st, "by_kind", 3, by_kind, 1, NULL);
    json_array_foreach(json_object_get(in, "by_kind"), i, v)
        ck_assert_int_eq(
            pp_result_table_row(
                t,
                (pp_cell[]){ pp_cell_str(json_string_value(json_object_get(v, "kind"))),
                             pp_cell_int(json_integer_value(json_object_get(v, "ticks"))),
                             pp_cell_int(json_integer_value(json_object_get(v, "bytes"))) },
                NULL),
            PP_OK);
    t = pp_result_table_new(&test_set, st, "frame_type_stacks", 3, stacks, 1, NULL);
    json_array_foreach(json_object_get(in, "by_type_top_frame"), i, v) {
        char stack[1024];
        snprintf(stack, sizeof stack, "%s;%s", json_string_value(json_object_get(v, "frame")),
                 json_string_value(json_object_get(v, "type")));
        ck_assert_int_eq(
            pp_result_table_row(
                t,
                (pp_cell[]){ pp_cell_str(stack),
                             pp_cell_int(json_integer_value(json_object_get(v, "bytes"))),
                             pp_cell_int(json_integer_value(json_object_get(v, "ticks"))) },
                NULL),
            PP_OK);
    }
    pp_result_total_int(st, "ticks", PP_COL_COUNT,
                        json_integer_value(json_object_get(in, "ticks")));
    pp_result_total_int(st, "sampled_bytes", PP_COL_BYTES, total);
    pp_result_tables_release(&test_set);
    json_decref(in);
    return doc;
}

/* ---- golden tests ------------------------------------------------------------ */

START_TEST(hand_documents_validate)
{
    json_t *doc = hand_doc();
    pp_error err = PP_ERROR_INIT;

    ck_assert_msg(pp_result_validate(doc, &err) == PP_OK, "%s", err.message);
    json_decref(doc);
    doc = real_doc();
    ck_assert_msg(pp_result_validate(doc, &err) == PP_OK, "%s", err.message);
    json_decref(doc);
}
END_TEST

static const struct {
    const char *format, *suffix;
} formats[] = {
    { "table", "table.txt" }, { "json", "json" },     { "markdown", "md" },
    { "csv", "csv" },         { "folded", "folded" }, { "speedscope", "speedscope.json" },
    { "svg", "svg" },         { "html", "html" },
};

START_TEST(hand_goldens)
{
    json_t *doc = hand_doc();
    char name[64];

    snprintf(name, sizeof name, "hand.%s", formats[_i].suffix);
    golden(doc, formats[_i].format, NULL, name);
    json_decref(doc);
}
END_TEST

START_TEST(real_goldens)
{
    json_t *doc = real_doc();
    char name[64];

    snprintf(name, sizeof name, "real-alloc.%s", formats[_i].suffix);
    golden(doc, formats[_i].format, NULL, name);
    json_decref(doc);
}
END_TEST

/* Layout: --wide keeps every cell whole; a narrow terminal cuts string
 * columns from the front (the end of a frame stays) and never a number;
 * --top limits every table and says how many rows it left out. */
START_TEST(layout_goldens)
{
    static const struct {
        pp_render_opts o;
        const char *format, *name;
    } cases[] = {
        { { 0, 1, 0, 0 }, "table", "hand.wide.table.txt" },
        { { 60, 0, 0, 0 }, "table", "hand.w60.table.txt" },
        { { 0, 0, 2, 0 }, "table", "hand.top2.table.txt" },
        { { 0, 0, 2, 0 }, "markdown", "hand.top2.md" },
    };
    json_t *doc = hand_doc();

    g_opts = &cases[_i].o;
    golden(doc, cases[_i].format, NULL, cases[_i].name);
    g_opts = NULL;
    json_decref(doc);
}
END_TEST

/* The stacks of a cpu stage, as the cpu analyzer writes them: by_stack
 * (samples, ms) and by_thread_stack (the same per thread). One frame holds
 * a ';' inside its signature. */
static json_t *
thread_doc(void)
{
    static const pp_column cols[] = {
        { "stack", PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
    };
    static const pp_column tcols[] = {
        { "stack", PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
        { "thread", PP_COL_STRING, 0 },
    };
    static const struct {
        const char *stack, *thread;
        int64_t s;
        double ms;
    } rows[] = {
        { "Main;Run;Parse(a;b);Spin", "101", 7, 12.5 },
        { "Main;Run;Parse(a;b);Spin", "202", 3, 4.25 },
        { "Main;Run;Wait", "101", 2, 250.0 },
        { "Worker;Work", "202", 11, 0.125 },
    };
    json_t *doc = pp_result_new("cpu");
    json_t *tool = json_object_get(doc, "tool");
    json_t *st = pp_result_add_stage(doc, "cpu", "cpu", "1.0.0");
    pp_table *a = pp_result_table_new(&test_set, st, "by_stack", 3, cols, 1, NULL);
    pp_table *b = pp_result_table_new(&test_set, st, "by_thread_stack", 4, tcols, 0, NULL);

    json_object_set_new(tool, "version", json_string("0.0.0-test"));
    {
        pp_cell c1[3] = { pp_cell_str("Main;Run;Parse(a;b);Spin"), pp_cell_int(10),
                          pp_cell_dbl(16.75) };
        pp_cell c2[3] = { pp_cell_str("Main;Run;Wait"), pp_cell_int(2), pp_cell_dbl(250.0) };
        pp_cell c3[3] = { pp_cell_str("Worker;Work"), pp_cell_int(11), pp_cell_dbl(0.125) };
        ck_assert_int_eq(pp_result_table_row(a, c2, NULL), PP_OK);
        ck_assert_int_eq(pp_result_table_row(a, c1, NULL), PP_OK);
        ck_assert_int_eq(pp_result_table_row(a, c3, NULL), PP_OK);
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pp_cell c[4] = { pp_cell_str(rows[i].stack), pp_cell_int(rows[i].s),
                         pp_cell_dbl(rows[i].ms), pp_cell_str(rows[i].thread) };
        ck_assert_int_eq(pp_result_table_row(b, c, NULL), PP_OK);
    }
    pp_result_tables_release(&test_set);
    return doc;
}

START_TEST(thread_goldens)
{
    static const pp_render_opts samples = { 0, 0, 0, PP_RENDER_WEIGHT_SAMPLES };
    json_t *doc = thread_doc();

    golden(doc, "speedscope", NULL, "thread.speedscope.json");
    golden(doc, "folded", NULL, "thread.folded");
    golden(doc, "svg", NULL, "thread.svg");
    g_opts = &samples;
    golden(doc, "folded", NULL, "thread.samples.folded");
    g_opts = NULL;
    json_decref(doc);
}
END_TEST

/* Per-thread speedscope: all threads first, then one profile per thread,
 * in milliseconds; the signature's ';' does not split its frame. */
START_TEST(speedscope_per_thread)
{
    json_t *doc = thread_doc(), *ss, *profiles, *frames, *p, *v;
    int rc;
    char *s = render(doc, "speedscope", NULL, &rc, NULL);
    json_error_t je;
    size_t i, j;

    ss = json_loads(s, 0, &je);
    ck_assert_msg(ss != NULL, "speedscope output does not parse: %s", je.text);
    profiles = json_object_get(ss, "profiles");
    frames = json_object_get(json_object_get(ss, "shared"), "frames");
    ck_assert_int_eq(json_array_size(profiles), 3);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(profiles, 0), "name")),
                     "cpu: all threads");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(profiles, 1), "name")),
                     "cpu: thread 101");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(profiles, 2), "name")),
                     "cpu: thread 202");
    json_array_foreach(profiles, i, p) {
        double sum = 0;
        ck_assert_str_eq(json_string_value(json_object_get(p, "unit")), "milliseconds");
        json_array_foreach(json_object_get(p, "weights"), j, v)
            sum += json_number_value(v);
        ck_assert_double_eq_tol(sum, json_number_value(json_object_get(p, "endValue")), 1e-9);
    }
    ck_assert_double_eq_tol(
        json_number_value(json_object_get(json_array_get(profiles, 0), "endValue")), 266.875, 1e-9);
    ck_assert_double_eq_tol(
        json_number_value(json_object_get(json_array_get(profiles, 1), "endValue")), 262.5, 1e-9);
    /* Main, Run, Parse(a;b), Spin, Wait, Worker, Work */
    ck_assert_int_eq(json_array_size(frames), 7);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(frames, 2), "name")),
                     "Parse(a;b)");
    json_decref(ss);
    free(s);
    json_decref(doc);
}
END_TEST

START_TEST(json_round_trips)
{
    json_t *doc = hand_doc(), *back;
    int rc;
    size_t n;
    char *s = render(doc, "json", NULL, &rc, &n);

    ck_assert_int_eq(s[n - 1], '\n');
    back = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(back);
    ck_assert(json_equal(doc, back));
    json_decref(back);
    json_decref(doc);
    free(s);
}
END_TEST

/* ---- flame invariants -------------------------------------------------------- */

START_TEST(folded_resums_to_total)
{
    json_t *doc = hand_doc();
    int rc;
    char *s = render(doc, "folded", NULL, &rc, NULL);
    char *line, *save = NULL;
    long long sum = 0;
    int lines = 0;

    /* alloc/stacks: 600+40 merged, 300, 50, 10; -70 and 0 dropped. */
    for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *sp = strrchr(line, ' ');
        ck_assert_ptr_nonnull(sp);
        sum += atoll(sp + 1);
        lines++;
    }
    ck_assert_int_eq(lines, 4);
    ck_assert_int_eq(sum, 1000);
    free(s);

    /* The other stage's table by name; re-sums to 7 + 2 + 11. */
    s = render(doc, "folded", "cpu/cpu_stacks", &rc, NULL);
    ck_assert_str_eq(s, "Thread.StartCallback;WaitHandle.WaitOne 11\n"
                        "Thread.StartCallback;Worker.Run 2\n"
                        "Thread.StartCallback;Worker.Run;Spin 7\n");
    free(s);
    json_decref(doc);
}
END_TEST

START_TEST(real_folded_resums_to_traceevent_total)
{
    json_t *doc = real_doc(), *in = load_real_input();
    int rc;
    char *s = render(doc, "folded", "frame_type_stacks", &rc, NULL);
    char *line, *save = NULL;
    long long sum = 0;
    int lines = 0;

    for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        sum += atoll(strrchr(line, ' ') + 1);
        lines++;
    }
    /* TraceEvent: every tick attributed to one (type, top frame) pair. */
    ck_assert_int_eq(sum, json_integer_value(json_object_get(in, "sampled_bytes")));
    ck_assert_int_eq(sum, 85585496);
    ck_assert_int_eq(lines, 13);
    free(s);
    json_decref(in);
    json_decref(doc);
}
END_TEST

START_TEST(speedscope_shape)
{
    json_t *doc = hand_doc(), *ss, *prof, *frames, *samples, *weights, *v;
    int rc;
    char *s = render(doc, "speedscope", NULL, &rc, NULL);
    json_error_t je;
    size_t i;
    long long sum = 0;

    ss = json_loads(s, 0, &je);
    ck_assert_msg(ss != NULL, "speedscope output does not parse: %s", je.text);
    ck_assert_str_eq(json_string_value(json_object_get(ss, "$schema")),
                     "https://www.speedscope.app/file-format-schema.json");
    frames = json_object_get(json_object_get(ss, "shared"), "frames");
    prof = json_array_get(json_object_get(ss, "profiles"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(prof, "type")), "sampled");
    ck_assert_str_eq(json_string_value(json_object_get(prof, "unit")), "bytes");
    ck_assert_str_eq(json_string_value(json_object_get(prof, "name")), "alloc/stacks");
    samples = json_object_get(prof, "samples");
    weights = json_object_get(prof, "weights");
    ck_assert_int_eq(json_array_size(samples), 4);
    ck_assert_int_eq(json_array_size(weights), 4);
    json_array_foreach(weights, i, v)
        sum += json_integer_value(v);
    ck_assert_int_eq(sum, 1000);
    ck_assert_int_eq(json_integer_value(json_object_get(prof, "endValue")), 1000);
    /* Frames are shared: Main, Run, MakeBuffers, MakeStrings, String.Ctor,
     * Run.Inner, <Lambda>b__0_0 & co. */
    ck_assert_int_eq(json_array_size(frames), 7);
    /* Root first: every sample starts at Main. */
    json_array_foreach(samples, i, v) {
        json_int_t f0 = json_integer_value(json_array_get(v, 0));
        ck_assert_str_eq(
            json_string_value(json_object_get(json_array_get(frames, (size_t)f0), "name")), "Main");
    }
    json_decref(ss);
    free(s);
    json_decref(doc);
}
END_TEST

static int
count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(svg_shape)
{
    json_t *doc = hand_doc();
    int rc;
    char *s = render(doc, "svg", NULL, &rc, NULL);

    /* all, Main, Run, MakeBuffers, MakeStrings, String.Ctor, Run.Inner, lambda */
    ck_assert_int_eq(count(s, "<g class=\"f\""), 8);
    ck_assert_ptr_nonnull(strstr(s, "<title>all\n1.00 KB (1,000 bytes), 100.00%</title>"));
    ck_assert_ptr_nonnull(strstr(s, "<title>String.Ctor\n640 B (640 bytes), 64.00%</title>"));
    ck_assert_ptr_nonnull(strstr(s, "&lt;Lambda&gt;b__0_0 &amp; co"));
    ck_assert_ptr_null(strstr(s, "<Lambda>"));
    ck_assert_ptr_nonnull(strstr(s, "<script"));
    ck_assert_int_eq(count(s, "<svg"), 1);
    ck_assert_ptr_nonnull(strstr(s, "</svg>\n"));
    free(s);
    json_decref(doc);
}
END_TEST

/* Pathological stack tables: deep, overflowing, empty. One clear error or
 * a bounded picture, never a crash. */
START_TEST(flame_pathological)
{
    json_t *doc = pp_result_new("p"), *st = pp_result_add_stage(doc, "s", "a", "1");
    static const pp_column cols[] = { { "stack", PP_COL_STRING, 0 }, { "n", PP_COL_COUNT, 0 } };
    pp_table *t = pp_result_table_new(&test_set, st, "deep", 2, cols, 1, NULL);
    size_t depth = 6000, len = 0;
    char *deep = malloc(depth * 4 + 1);
    pp_error err = PP_ERROR_INIT;
    FILE *f = fopen("/dev/null", "w");
    int rc;
    char *s;

    for (size_t i = 0; i < depth; i++)
        len += (size_t)sprintf(deep + len, "%sf%zu", i ? ";" : "", i % 10);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str(deep), pp_cell_int(5) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str(""), pp_cell_int(1) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str(";;"), pp_cell_int(1) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_null(), pp_cell_int(2) }, NULL);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        rc = pp_render_table_named(doc, formats[i].format, "deep", f, &err);
        ck_assert_msg(rc == PP_OK, "%s: %s", formats[i].format, err.message);
    }
    s = render(doc, "svg", "deep", &rc, NULL);
    /* The deep stack is cut at 4096 frames + its rest as one frame. */
    ck_assert_int_le(count(s, "<g class=\"f\""), 4096 + 1 + 1 + 3 + 1 + 1);
    free(s);

    t = pp_result_table_new(&test_set, st, "overflow", 2, cols, 1, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("a"), pp_cell_int(INT64_MAX) }, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("b"), pp_cell_int(1) }, NULL);
    ck_assert_int_eq(pp_render_table_named(doc, "speedscope", "overflow", f, &err), PP_ELIMIT);
    ck_assert_str_eq(err.message, "flame graph: the stack weights overflow a 64-bit total");

    t = pp_result_table_new(&test_set, st, "nothing", 2, cols, 1, NULL);
    pp_result_table_row(t, (pp_cell[]){ pp_cell_str("a"), pp_cell_int(0) }, NULL);
    s = render(doc, "svg", "nothing", &rc, NULL);
    ck_assert_ptr_nonnull(strstr(s, "(no stacks with a positive weight)"));
    free(s);
    s = render(doc, "folded", "nothing", &rc, NULL);
    ck_assert_str_eq(s, "");
    free(s);

    pp_result_tables_release(&test_set);
    json_decref(doc);
    free(deep);
    fclose(f);
}
END_TEST

START_TEST(render_errors)
{
    json_t *doc = hand_doc();
    pp_error err = PP_ERROR_INIT;
    FILE *f = fopen("/dev/null", "w");

    ck_assert_int_eq(pp_render(doc, "yaml", f, &err), PP_EINVAL);
    ck_assert_str_eq(
        err.message,
        "unknown output format \"yaml\" (expected table, json, markdown, csv, html, folded, speedscope, svg or pprof)");
    ck_assert_int_eq(pp_render_table_named(doc, "folded", "by_type", f, &err), PP_EINVAL);
    ck_assert_str_eq(
        err.message,
        "table \"by_type\" of stage \"alloc\" is not a stack table (first column \"stack\", second a count, bytes or duration_ns weight)");
    ck_assert_int_eq(pp_render_table_named(doc, "csv", "nope", f, &err), PP_ENOTFOUND);
    ck_assert_str_eq(err.message, "no table \"nope\" in the result");
    ck_assert_int_eq(pp_render_table_named(doc, "svg", "alloc/cpu_stacks", f, &err), PP_ENOTFOUND);
    json_decref(doc);

    doc = pp_result_new("empty");
    ck_assert_int_eq(pp_render(doc, "speedscope", f, &err), PP_ENOTFOUND);
    ck_assert_str_eq(
        err.message,
        "no stack table in the result (a table whose first column is \"stack\") to draw");
    ck_assert_int_eq(pp_render(doc, "table", f, &err), PP_OK);
    json_decref(doc);
    fclose(f);

    /* A full device is an I/O error, not a silent truncation. */
    f = fopen("/dev/full", "w");
    if (f != NULL) {
        doc = hand_doc();
        ck_assert_int_eq(pp_render(doc, "table", f, &err), PP_EIO);
        json_decref(doc);
        fclose(f);
    }
}
END_TEST

/* A document read back from a file can hold any number where an integer
 * belongs: a count of 2.6e118 (found by the fuzzer through a counters
 * input) is printed as a number, not cast to int64_t, which is undefined
 * behaviour that UBSan reports. */
START_TEST(huge_reals_in_integer_columns)
{
    static const char *kinds[] = { "table", "markdown", "html", "csv", "json" };
    static const double odd[] = { 2.6e118, -1e300, NAN, 9223372036854775808.0 };
    json_t *doc = hand_doc();
    json_t *st, *tj, *row;
    size_t i, j, k, r;
    int rc;

    json_array_foreach(json_object_get(doc, "stages"), i, st)
        json_array_foreach(json_object_get(st, "tables"), j, tj)
            json_array_foreach(json_object_get(tj, "rows"), r, row)
                for (k = 1; k < json_array_size(row); k++)
                    json_array_set_new(row, k, json_real(odd[(r + k) % 4]));
    for (i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char *s = render(doc, kinds[i], NULL, &rc, NULL);
        ck_assert_msg(rc == PP_OK, "%s: rc %d", kinds[i], rc);
        if (strcmp(kinds[i], "table") == 0) {
            ck_assert_msg(strstr(s, "2.6e+118") != NULL || strstr(s, "2.60e+118") != NULL,
                          "table does not show the count as a number:\n%.1500s", s);
            ck_assert_ptr_null(strstr(s, "9,223,372,036,854,775,807"));
        }
        free(s);
    }
    json_decref(doc);
}
END_TEST

START_TEST(one_table_csv)
{
    json_t *doc = hand_doc();
    int rc;
    char *s = render(doc, "csv", "cpu/cpu_stacks", &rc, NULL);

    /* One table is a plain file a spreadsheet opens: no marker line. */
    ck_assert_str_eq(s, "stack,samples\r\n"
                        "Thread.StartCallback;Worker.Run;Spin,7\r\n"
                        "Thread.StartCallback;Worker.Run,2\r\n"
                        "Thread.StartCallback;WaitHandle.WaitOne,11\r\n");
    free(s);
    /* Units in the header: a percent is _pct, bytes say bytes. */
    s = render(doc, "csv", "by_type", &rc, NULL);
    ck_assert_int_eq(rc, PP_OK);
    ck_assert_msg(strncmp(s, "type,ticks,bytes,share_pct\r\n", 28) == 0, "header: %.40s", s);
    free(s);
    json_decref(doc);
}
END_TEST

/* The snapshot the real goldens use must still be what TraceEvent says
 * about the fixture; when the test bed recaptures, the figures move and
 * the snapshot is re-taken (the goldens stay valid for the snapshot). */
START_TEST(real_snapshot_matches_oracle)
{
    const char *data = getenv("PP_TESTDATA");
    char path[4096];
    json_t *in = load_real_input(), *oracle, *alloc;

    snprintf(path, sizeof path, "%s/alloc-envvar.oracle.json", data ? data : "tests/data");
    oracle = json_load_file(path, 0, NULL);
    if (oracle == NULL) {
        printf("SKIP real_snapshot_matches_oracle: %s absent\n", path);
        json_decref(in);
        return;
    }
    alloc = json_object_get(oracle, "alloc");
    if (json_integer_value(json_object_get(oracle, "bytes")) !=
        json_integer_value(json_object_get(in, "bytes"))) {
        printf(
            "SKIP real_snapshot_matches_oracle: the fixture was recaptured (%lld bytes, snapshot %lld)\n",
            (long long)json_integer_value(json_object_get(oracle, "bytes")),
            (long long)json_integer_value(json_object_get(in, "bytes")));
    } else {
        ck_assert(json_equal(json_object_get(alloc, "by_type"), json_object_get(in, "by_type")));
        ck_assert(json_equal(json_object_get(alloc, "by_kind"), json_object_get(in, "by_kind")));
        ck_assert(json_equal(json_object_get(alloc, "by_type_top_frame"),
                             json_object_get(in, "by_type_top_frame")));
        ck_assert_int_eq(json_integer_value(json_object_get(alloc, "sampled_bytes")),
                         json_integer_value(json_object_get(in, "sampled_bytes")));
    }
    json_decref(oracle);
    json_decref(in);
}
END_TEST

static Suite *
render_suite(void)
{
    Suite *s = suite_create("result_render");
    TCase *g = tcase_create("golden");
    TCase *fl = tcase_create("flame");
    TCase *m = tcase_create("misc");
    int nf = (int)(sizeof formats / sizeof formats[0]);

    tcase_add_test(g, hand_documents_validate);
    tcase_add_loop_test(g, hand_goldens, 0, nf);
    tcase_add_loop_test(g, real_goldens, 0, nf);
    tcase_add_test(g, real_snapshot_matches_oracle);
    tcase_add_test(fl, folded_resums_to_total);
    tcase_add_test(fl, real_folded_resums_to_traceevent_total);
    tcase_add_test(fl, speedscope_shape);
    tcase_add_test(fl, speedscope_per_thread);
    tcase_add_test(g, thread_goldens);
    tcase_add_loop_test(g, layout_goldens, 0, 4);
    tcase_add_test(fl, svg_shape);
    tcase_add_test(fl, flame_pathological);
    tcase_add_test(m, json_round_trips);
    tcase_add_test(m, render_errors);
    tcase_add_test(m, one_table_csv);
    tcase_add_test(m, huge_reals_in_integer_columns);
    suite_add_tcase(s, g);
    suite_add_tcase(s, fl);
    suite_add_tcase(s, m);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(render_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
