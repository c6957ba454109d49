/* Unit tests of the alloc analyzer (plugins/alloc) through the mock host:
 * hand-built GCAllocationTick events of every version, a fake symbol map,
 * exact tables, findings and totals. Real-trace checks are in
 * check_plugin_alloc_real.c. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "../../plugins/alloc/tick.h"
#include "mock_host.h"

const pp_analyzer *perfpipe_plugin_entry(void);

static const mock_symbol syms[] = {
    { 0x1000, 0x100, "System.String.Ctor" },
    { 0x2000, 0x100, "Workload.AllocScenario.MakeStrings" },
    { 0x3000, 0x100, "System.Linq.Enumerable.ToArray" },
    { 0x4000, 0x100, "Workload.Program.Main" },
    { 0x5000, 0x100, "Microsoft.Extensions.Thing.Run" },
    { 0x6000, 0x100, "Microsoft.MyApp.Handler" },
};

#define MS(x) ((int64_t)(x)*1000000)

typedef struct built {
    pp_trace_event ev;
    uint8_t payload[256];
    uint64_t stack[8];
} built;

static size_t
put_u16s(uint8_t *p, const char *ascii)
{
    size_t n = 0;
    for (; *ascii; ascii++) {
        p[n++] = (uint8_t)*ascii;
        p[n++] = 0;
    }
    p[n++] = 0;
    p[n++] = 0;
    return n;
}

static void
le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A GCAllocationTick of `version`; amount goes to the 32-bit field too
 * (clamped), as the runtime writes it. */
static void
tick(built *b, mock_host *mh, uint32_t version, uint64_t amount, uint32_t kind, const char *type,
     int64_t t, uint64_t thread, const uint64_t *stack, uint32_t depth)
{
    memset(b, 0, sizeof *b);
    size_t n = 0;
    le(b->payload, amount > UINT32_MAX ? UINT32_MAX : amount, 4);
    le(b->payload + 4, kind, 4);
    n = 8;
    if (version >= 1) {
        le(b->payload + 8, 9, 2);
        n = 10;
    }
    if (version >= 2) {
        le(b->payload + 10, amount, 8);
        le(b->payload + 18, 0x7f00deadbeefULL, 8);
        n = 26;
        n += put_u16s(b->payload + n, type);
        le(b->payload + n, 1, 4);
        n += 4;
    }
    if (version >= 3) {
        le(b->payload + n, 0x7f0012345678ULL, 8);
        n += 8;
    }
    if (version >= 4) {
        le(b->payload + n, amount > 85000 ? amount : 24, 8);
        n += 8;
    }
    b->ev.struct_size = sizeof b->ev;
    b->ev.provider_known = PP_PROVIDER_RUNTIME;
    b->ev.event_id = 10;
    b->ev.version = version;
    b->ev.pointer_size = 8;
    b->ev.provider = "Microsoft-Windows-DotNETRuntime";
    b->ev.name = "GCAllocationTick";
    b->ev.source = mock_host_source(mh);
    b->ev.time_ns = t;
    b->ev.thread_id = thread;
    b->ev.payload = b->payload;
    b->ev.payload_size = (uint32_t)n;
    if (depth) {
        memcpy(b->stack, stack, depth * sizeof *stack);
        b->ev.stack = b->stack;
        b->ev.stack_depth = depth;
        b->ev.stack_id = 1;
        /* a region of its own per synthetic tick: id 1 names a different
         * stack each time */
        static uint32_t region;
        b->ev.stack_region = ++region;
    }
}

static void
other(built *b, mock_host *mh, int64_t t)
{
    memset(b, 0, sizeof *b);
    b->ev.struct_size = sizeof b->ev;
    b->ev.provider_known = PP_PROVIDER_RUNTIME;
    b->ev.event_id = 1; /* GCStart: not a tick */
    b->ev.pointer_size = 8;
    b->ev.provider = "Microsoft-Windows-DotNETRuntime";
    b->ev.name = "GCStart";
    b->ev.source = mock_host_source(mh);
    b->ev.time_ns = t;
    b->ev.payload = b->payload;
    b->ev.payload_size = 4;
}

static void
feed(mock_host *mh, built *b)
{
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_consume_event(mh, &b->ev, &err), PP_OK);
}

/* The scenario every table test uses (see the expected figures below). */
static void
feed_scenario(mock_host *mh)
{
    built b;
    static const uint64_t s_ctor[] = { 0x1010, 0x2020, 0x4000 };
    static const uint64_t s_buf[] = { 0x2030, 0x4000 };
    static const uint64_t s_linq[] = { 0x3000, 0x5000, 0x9000, 0x4000 };
    static const uint64_t s_app[] = { 0x1010, 0x6000, 0x4000 };
    other(&b, mh, 0);
    feed(mh, &b);
    tick(&b, mh, 4, 100000, 0, "System.String", MS(1), 100, s_ctor, 3);
    feed(mh, &b);
    tick(&b, mh, 4, 100200, 0, "System.String", MS(2), 100, s_ctor, 3);
    feed(mh, &b);
    tick(&b, mh, 3, 102400, 1, "System.Byte[]", MS(3), 100, s_buf, 2);
    feed(mh, &b);
    tick(&b, mh, 2, 110000, 0, "System.Int32[]", MS(4), 200, s_linq, 4);
    feed(mh, &b);
    tick(&b, mh, 1, 105000, 2, "", MS(5), 200, NULL, 0);
    feed(mh, &b);
    tick(&b, mh, 4, 99000, 0, "System.String", MS(6), 100, s_app, 3);
    feed(mh, &b);
    other(&b, mh, MS(10));
    feed(mh, &b);
}

/* The descriptor under test: the compiled-in one, or the built .so's. */
static const pp_analyzer *analyzer;

static mock_host *
new_host(void)
{
    mock_host *mh = mock_host_new(analyzer ? analyzer : perfpipe_plugin_entry());
    ck_assert_ptr_nonnull(mh);
    mock_host_set_symbols(mh, syms, sizeof syms / sizeof syms[0]);
    return mh;
}

static void
run(mock_host *mh)
{
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    feed_scenario(mh);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_msg(mock_host_violations(mh) == 0, "ABI breach: %s", mock_host_first_violation(mh));
}

static void
row_is(const mock_table *t, uint32_t r, const char *keycol, const char *key, int64_t bytes,
       int64_t samples)
{
    ck_assert_str_eq(mock_table_str(t, r, keycol), key);
    ck_assert_int_eq(mock_table_int(t, r, "bytes"), bytes);
    ck_assert_int_eq(mock_table_int(t, r, "samples"), samples);
}

START_TEST(test_descriptor)
{
    const pp_analyzer *an = perfpipe_plugin_entry();
    ck_assert_str_eq(an->name, "alloc");
    ck_assert_uint_eq(an->abi_major, PP_ABI_MAJOR);
    ck_assert_uint_eq(an->struct_size, sizeof(pp_analyzer));
    ck_assert_uint_eq(an->input_kinds, PP_KIND_NETTRACE);
    ck_assert_ptr_nonnull(an->create);
    ck_assert_ptr_nonnull(an->destroy);
}
END_TEST

START_TEST(test_tables_exact)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "focus", "Microsoft.MyApp.");
    run(mh);

    const int64_t total = 100000 + 100200 + 102400 + 110000 + 105000 + 99000;
    const mock_table *t = mock_host_table(mh, "by_type");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 4);
    ck_assert_uint_eq(mock_table_nkey(t), 1);
    row_is(t, 0, "type", "System.String", 299200, 3);
    row_is(t, 1, "type", "System.Int32[]", 110000, 1);
    row_is(t, 2, "type", "[type not recorded: GCAllocationTick V0/V1]", 105000, 1);
    row_is(t, 3, "type", "System.Byte[]", 102400, 1);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "share"), 100.0 * 299200 / total, 1e-9);

    t = mock_host_table(mh, "by_frame");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 4);
    /* String.Ctor is framework: the caller MakeStrings is responsible;
     * new byte[] in MakeBuffers-like code is its own frame */
    row_is(t, 0, "frame", "Workload.AllocScenario.MakeStrings", 302600, 3);
    /* an unresolved frame counts as itself */
    row_is(t, 1, "frame", "?!0x9000", 110000, 1);
    row_is(t, 2, "frame", "[no stack]", 105000, 1);
    /* focus wins over the Microsoft. framework prefix */
    row_is(t, 3, "frame", "Microsoft.MyApp.Handler", 99000, 1);

    t = mock_host_table(mh, "by_type_frame");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_nkey(t), 2);
    ck_assert_uint_eq(mock_table_rows(t), 5);
    ck_assert_str_eq(mock_table_str(t, 0, "type"), "System.String");
    ck_assert_str_eq(mock_table_str(t, 0, "frame"), "Workload.AllocScenario.MakeStrings");
    ck_assert_int_eq(mock_table_int(t, 0, "bytes"), 200200);
    ck_assert_int_eq(mock_table_int(t, 0, "samples"), 2);
    ck_assert_str_eq(mock_table_str(t, 3, "type"), "System.Byte[]");
    ck_assert_int_eq(mock_table_int(t, 3, "bytes"), 102400);

    t = mock_host_table(mh, "by_kind");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 3);
    row_is(t, 0, "kind", "Small", 409200, 4);
    row_is(t, 1, "kind", "Pinned", 105000, 1);
    row_is(t, 2, "kind", "Large", 102400, 1);

    t = mock_host_table(mh, "by_stack");
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(mock_table_column(t, 0)->name, "stack");
    ck_assert_uint_eq(mock_table_rows(t), 5);
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.stacks_cut", NULL)); /* nothing left out */
    row_is(t, 0, "stack",
           "Workload.Program.Main;Workload.AllocScenario.MakeStrings;System.String.Ctor", 200200,
           2);
    row_is(
        t, 1, "stack",
        "Workload.Program.Main;?!0x9000;Microsoft.Extensions.Thing.Run;System.Linq.Enumerable.ToArray",
        110000, 1);

    int64_t v;
    double d;
    ck_assert(mock_host_total_int(mh, "sampled_bytes", &v));
    ck_assert_int_eq(v, total);
    ck_assert(mock_host_total_int(mh, "ticks", &v));
    ck_assert_int_eq(v, 6);
    ck_assert(mock_host_total_int(mh, "ticks_with_stack", &v));
    ck_assert_int_eq(v, 5);
    ck_assert(mock_host_total_int(mh, "duration", &v));
    ck_assert_int_eq(v, MS(10));
    ck_assert(mock_host_total_int(mh, "tick_span", &v));
    ck_assert_int_eq(v, MS(5));
    ck_assert(mock_host_total_double(mh, "bytes_per_second", &d));
    ck_assert_double_eq_tol(d, total * 100.0, 1e-3);
    ck_assert(mock_host_total_double(mh, "unresolved_frame_share", &d));
    ck_assert_double_eq_tol(d, 100.0 / 15.0, 1e-9);
    ck_assert_ptr_nonnull(mock_host_total_string(mh, "method"));
    ck_assert_ptr_nonnull(strstr(mock_host_total_string(mh, "method"), "100 KB"));

    uint32_t sev = 99;
    ck_assert_ptr_nonnull(mock_host_finding(mh, "alloc.sampled", &sev));
    ck_assert_uint_eq(sev, PP_SEVERITY_INFO);
    const char *m = mock_host_finding(mh, "alloc.no_stacks", &sev);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(m, "1 of 6"));
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.no_ticks", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.unresolved", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.low_total", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_default_framework_list)
{
    /* without focus, Microsoft.MyApp.Handler is framework: Main is next */
    mock_host *mh = new_host();
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_frame");
    int r = mock_table_find(t, "frame", "Workload.Program.Main");
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "bytes"), 99000);
    ck_assert_int_lt(mock_table_find(t, "frame", "Microsoft.MyApp.Handler"), 0);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_framework_option)
{
    /* Workload. declared framework too: String.Ctor stacks end all-framework */
    mock_host *mh = new_host();
    mock_host_set_option(mh, "framework", "System.,Microsoft.,Workload.");
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_frame");
    ck_assert_str_eq(mock_table_str(t, 0, "frame"), "[framework only]");
    ck_assert_int_eq(mock_table_int(t, 0, "bytes"), 100000 + 100200 + 102400 + 99000);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_top)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "top", "2");
    mock_host_set_option(mh, "top-stacks", "1");
    run(mh);
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_type")), 2);
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_frame")), 2);
    /* the heaviest stack, then the others summed in one row */
    const mock_table *st = mock_host_table(mh, "by_stack");
    ck_assert_uint_eq(mock_table_rows(st), 2);
    ck_assert_str_eq(mock_table_str(st, 1, "stack"), "[other stacks]");
    /* shares stay relative to the whole, not to the rows shown */
    int64_t v;
    ck_assert(mock_host_total_int(mh, "sampled_bytes", &v));
    ck_assert_int_eq(v, 616600);
    ck_assert_int_eq(mock_table_int(st, 0, "bytes") + mock_table_int(st, 1, "bytes"), v);
    uint32_t sev = 0;
    const char *msg = mock_host_finding(mh, "alloc.stacks_cut", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_INFO);
    ck_assert_ptr_nonnull(strstr(msg, "the 1 heaviest of "));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_window_and_thread)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "from", "2.5");
    mock_host_set_option(mh, "to", "4.5");
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_type");
    ck_assert_uint_eq(mock_table_rows(t), 2);
    row_is(t, 0, "type", "System.Int32[]", 110000, 1);
    row_is(t, 1, "type", "System.Byte[]", 102400, 1);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "duration", &v));
    ck_assert_int_eq(v, MS(2));
    ck_assert_ptr_nonnull(mock_host_total_string(mh, "filter"));
    mock_host_free(mh);

    mh = new_host();
    mock_host_set_option(mh, "thread", "200");
    run(mh);
    t = mock_host_table(mh, "by_type");
    ck_assert_uint_eq(mock_table_rows(t), 2);
    row_is(t, 0, "type", "System.Int32[]", 110000, 1);
    mock_host_free(mh);

    mh = new_host();
    mock_host_set_option(mh, "thread", "12345");
    run(mh);
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_type")), 0);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "alloc.window_empty", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.no_ticks", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_trace_info_duration)
{
    /* the reader's whole-trace span wins over the events the stage saw */
    mock_host *mh = new_host();
    pp_trace_info info = { .struct_size = sizeof info,
                           .format_version = 5,
                           .pointer_size = 8,
                           .first_event_ns = 0,
                           .last_event_ns = MS(40) };
    mock_host_set_trace_info(mh, &info);
    run(mh);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "duration", &v));
    ck_assert_int_eq(v, MS(40));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_no_ticks)
{
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    built b;
    other(&b, mh, 0);
    feed(mh, &b);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    uint32_t sev;
    const char *m = mock_host_finding(mh, "alloc.no_ticks", &sev);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(m, "dotnet-trace collect --profile gc-verbose"));
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_type")), 0);
    ck_assert_uint_eq(mock_host_violations(mh), 0);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_expect_min_bytes)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "expect-min-bytes", "200000000");
    run(mh);
    const char *m = mock_host_finding(mh, "alloc.low_total", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "dotnet run"));
    ck_assert_ptr_nonnull(
        strstr(m, "`dotnet-trace collect -- dotnet bin/Release/net10.0/App.dll`"));
    mock_host_free(mh);

    /* the run knob, with a unit */
    mh = new_host();
    mock_host_set_knob(mh, "expect-min-bytes", "200MB");
    run(mh);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "alloc.low_total", NULL));
    mock_host_free(mh);

    /* met: no finding */
    mh = new_host();
    mock_host_set_knob(mh, "expect-min-bytes", "600KB");
    run(mh);
    ck_assert_ptr_null(mock_host_finding(mh, "alloc.low_total", NULL));
    mock_host_free(mh);

    mh = new_host();
    mock_host_set_knob(mh, "expect-min-bytes", "lots");
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "expect-min-bytes"));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_unresolved_finding)
{
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    static const uint64_t s[] = { 0xa000, 0xb000, 0x4000 };
    built b;
    for (int i = 0; i < 3; i++) {
        tick(&b, mh, 4, 100000, 0, "System.Object", MS(i), 1, s, 3);
        feed(mh, &b);
    }
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    const char *m = mock_host_finding(mh, "alloc.unresolved", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "rundown"));
    double d;
    ck_assert(mock_host_total_double(mh, "unresolved_responsible_share", &d));
    ck_assert_double_eq_tol(d, 100.0, 1e-9);
    ck_assert_str_eq(mock_table_str(mock_host_table(mh, "by_frame"), 0, "frame"), "?!0xa000");
    mock_host_free(mh);
}
END_TEST

START_TEST(test_malformed_tick)
{
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    built b;
    tick(&b, mh, 4, 100000, 0, "System.String", MS(1), 1, NULL, 0);
    b.ev.payload_size = 30; /* cuts the TypeName before its terminator */
    feed(mh, &b);
    tick(&b, mh, 4, 123456, 0, "System.String", MS(2), 1, NULL, 0);
    feed(mh, &b);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    const char *m = mock_host_finding(mh, "alloc.malformed_ticks", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "TypeName"));
    int64_t v;
    ck_assert(mock_host_total_int(mh, "sampled_bytes", &v));
    ck_assert_int_eq(v, 123456);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_bad_options)
{
    static const char *const bad[][2] = {
        { "top", "-1" }, { "from", "-3" }, { "thread", "-1" }, { "top", "many" }, { "nosuch", "1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mock_host *mh = new_host();
        mock_host_set_option(mh, bad[i][0], bad[i][1]);
        pp_error err = PP_ERROR_INIT;
        ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, bad[i][0]));
        mock_host_free(mh);
    }
    mock_host *mh = new_host();
    mock_host_set_option(mh, "from", "5");
    mock_host_set_option(mh, "to", "5");
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_decode_versions)
{
    /* V2 with a 4-byte pointer: TypeName at 22, HeapIndex right after */
    uint8_t p[64] = { 0 };
    le(p, 100, 4);
    le(p + 4, 1, 4);
    le(p + 8, 9, 2);
    le(p + 10, 0x123456789ULL, 8);
    le(p + 18, 0xdead, 4);
    size_t n = 22 + put_u16s(p + 22, "A\xc3"); /* U+00C3 as a code unit */
    le(p + n, 7, 4);
    n += 4;
    char scratch[128];
    pp_alloc_tick t;
    const char *what = NULL;
    size_t at = 0;
    ck_assert_int_eq(pp_alloc_tick_decode(p, n, 2, 4, scratch, &t, &what, &at), 0);
    ck_assert_uint_eq(t.amount, 0x123456789ULL);
    ck_assert_uint_eq(t.kind, 1);
    ck_assert_str_eq(t.type, "A\xc3\x83");
    ck_assert_uint_eq(t.heap_index, 7);
    /* V0: the 32-bit amount, no type */
    ck_assert_int_eq(pp_alloc_tick_decode(p, 8, 0, 8, scratch, &t, &what, &at), 0);
    ck_assert_uint_eq(t.amount, 100);
    ck_assert_uint_eq(t.has_type, 0);
    /* truncations */
    ck_assert_int_eq(pp_alloc_tick_decode(p, 7, 0, 8, scratch, &t, &what, &at), -1);
    ck_assert_int_eq(pp_alloc_tick_decode(p, 17, 2, 4, scratch, &t, &what, &at), -1);
    ck_assert_uint_eq(at, 10);
    ck_assert_int_eq(pp_alloc_tick_decode(p, n - 4, 2, 4, scratch, &t, &what, &at), -1);
    ck_assert_ptr_nonnull(strstr(what, "HeapIndex"));
    ck_assert_int_eq(pp_alloc_tick_decode(p, 25, 2, 4, scratch, &t, &what, &at), -1);
    ck_assert_ptr_nonnull(strstr(what, "TypeName"));
    ck_assert_str_eq(pp_alloc_kind_name(2), "Pinned");
    ck_assert_ptr_null(pp_alloc_kind_name(3));
}
END_TEST

START_TEST(test_built_plugin)
{
    /* the shipped artifact: dlopen'ed like the loader does, only the entry
     * symbol looked up, same answers as the compiled-in sources */
    const char *dir = getenv("PERFPIPE_PLUGIN_PATH");
    char path[4096];
    snprintf(path, sizeof path, "%s/alloc.so", dir ? dir : "");
    void *so = dir ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!so) {
        printf("SKIP built-plugin case: %s not loadable (%s)\n", path,
               dir ? dlerror() : "PERFPIPE_PLUGIN_PATH unset");
        return;
    }
    pp_plugin_entry_fn entry = (pp_plugin_entry_fn)(uintptr_t)dlsym(so, PP_PLUGIN_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull((void *)(uintptr_t)entry);
    analyzer = entry();
    ck_assert_str_eq(analyzer->name, "alloc");
    mock_host *mh = new_host();
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_type");
    ck_assert_uint_eq(mock_table_rows(t), 4);
    row_is(t, 0, "type", "System.String", 299200, 3);
    row_is(mock_host_table(mh, "by_frame"), 0, "frame", "Workload.AllocScenario.MakeStrings",
           302600, 3);
    mock_host_free(mh);
    analyzer = NULL;
    dlclose(so);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_alloc");
    TCase *tc = tcase_create("mock");
    tcase_add_test(tc, test_descriptor);
    tcase_add_test(tc, test_built_plugin);
    tcase_add_test(tc, test_tables_exact);
    tcase_add_test(tc, test_default_framework_list);
    tcase_add_test(tc, test_framework_option);
    tcase_add_test(tc, test_top);
    tcase_add_test(tc, test_window_and_thread);
    tcase_add_test(tc, test_trace_info_duration);
    tcase_add_test(tc, test_no_ticks);
    tcase_add_test(tc, test_expect_min_bytes);
    tcase_add_test(tc, test_unresolved_finding);
    tcase_add_test(tc, test_malformed_tick);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_decode_versions);
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
