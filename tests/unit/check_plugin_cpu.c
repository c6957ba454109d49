/* Unit tests of the cpu analyzer (plugins/cpu) through the mock host:
 * hand-built ThreadSample events on two threads with uneven gaps, a fake
 * symbol map, exact tables, findings and totals. Real-trace checks are in
 * check_plugin_cpu_real.c. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "../../plugins/cpu/blocked.h"
#include "../../plugins/cpu/waits.h"
#include "mock_host.h"

const pp_analyzer *perfpipe_plugin_entry(void);

#define MAIN 0x1000
#define HOTA 0x2000
#define HOTB 0x3000
#define RECU 0x4000
#define WAIT 0x5000
#define STRT 0x6000

static const mock_symbol syms[] = {
    { MAIN, 0x100, "App.Program.Main" },
    { HOTA, 0x100, "App.Work.HotA" },
    { HOTB, 0x100, "App.Work.HotB" },
    { RECU, 0x100, "App.Work.Recurse" },
    { WAIT, 0x100, "System.Threading.WaitHandle.WaitOneNoCheck" },
    { STRT, 0x100, "System.Threading.Thread.StartCallback" },
};

#define MS(x) ((int64_t)(x)*1000000)

typedef struct built {
    pp_trace_event ev;
    uint8_t payload[4];
    uint64_t stack[128];
} built;

static void
sample(mock_host *mh, uint32_t type, int64_t t, uint64_t tid, const uint64_t *stack, uint32_t depth)
{
    built b;
    memset(&b, 0, sizeof b);
    b.payload[0] = (uint8_t)type;
    b.ev.struct_size = sizeof b.ev;
    b.ev.provider_known = PP_PROVIDER_SAMPLE_PROFILER;
    b.ev.event_id = 0;
    b.ev.pointer_size = 8;
    b.ev.provider = "Microsoft-DotNETCore-SampleProfiler";
    b.ev.name = "";
    b.ev.source = mock_host_source(mh);
    b.ev.time_ns = t;
    b.ev.thread_id = tid;
    b.ev.capture_thread_id = 999;
    b.ev.payload = b.payload;
    b.ev.payload_size = 4;
    memcpy(b.stack, stack, depth * sizeof *stack);
    b.ev.stack = b.stack;
    b.ev.stack_depth = depth;
    b.ev.stack_id = depth ? 1 : 0;
    /* every synthetic sample is a stack region of its own: stack id 1 names
     * a different stack each time (a reader would number them) */
    static uint32_t region;
    b.ev.stack_region = ++region;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_consume_event(mh, &b.ev, &err), PP_OK);
}

/* Thread 11 runs managed code, thread 22 waits (External). Gaps: 1, 2, 1 ms
 * and 2, 4 ms: the median 2 ms weighs each thread's first sample. */
static void
feed_scenario(mock_host *mh)
{
    static const uint64_t a[] = { HOTA + 4, MAIN + 8 };
    static const uint64_t bb[] = { HOTB, MAIN + 8 };
    static const uint64_t r[] = { RECU + 1, RECU + 2, HOTA + 9, MAIN + 8 };
    static const uint64_t w[] = { WAIT, STRT };
    sample(mh, 2, MS(10), 11, a, 2);
    sample(mh, 1, MS(10), 22, w, 2);
    sample(mh, 2, MS(11), 11, a, 2);
    sample(mh, 1, MS(12), 22, w, 2);
    sample(mh, 2, MS(13), 11, bb, 2);
    sample(mh, 2, MS(14), 11, r, 4);
    sample(mh, 1, MS(16), 22, w, 2);
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
method_is(const mock_table *t, const char *name, int64_t excl, int64_t incl, double excl_ms,
          double incl_ms)
{
    int r = mock_table_find(t, "method", name);
    ck_assert_msg(r >= 0, "no row for %s", name);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "exclusive"), excl);
    ck_assert_int_eq(mock_table_int(t, (uint32_t)r, "inclusive"), incl);
    ck_assert_double_eq_tol(mock_table_dbl(t, (uint32_t)r, "exclusive_ms"), excl_ms, 1e-9);
    ck_assert_double_eq_tol(mock_table_dbl(t, (uint32_t)r, "inclusive_ms"), incl_ms, 1e-9);
}

START_TEST(test_descriptor)
{
    const pp_analyzer *an = perfpipe_plugin_entry();
    ck_assert_str_eq(an->name, "cpu");
    ck_assert_uint_eq(an->abi_major, PP_ABI_MAJOR);
    ck_assert_uint_eq(an->input_kinds, PP_KIND_NETTRACE);
}
END_TEST

START_TEST(test_thread_time)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "focus", "HotA");
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_method");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 6);
    /* ranked by exclusive time */
    ck_assert_str_eq(mock_table_str(t, 0, "method"), "System.Threading.WaitHandle.WaitOneNoCheck");
    ck_assert_str_eq(mock_table_str(t, 1, "method"), "App.Work.HotA");
    ck_assert_str_eq(mock_table_str(t, 2, "method"), "App.Work.HotB");
    ck_assert_str_eq(mock_table_str(t, 3, "method"), "App.Work.Recurse");
    ck_assert_str_eq(mock_table_str(t, 4, "method"), "System.Threading.Thread.StartCallback");
    ck_assert_str_eq(mock_table_str(t, 5, "method"), "App.Program.Main");
    method_is(t, "System.Threading.WaitHandle.WaitOneNoCheck", 3, 3, 8, 8);
    method_is(t, "App.Work.HotA", 2, 3, 3, 4);
    method_is(t, "App.Work.HotB", 1, 1, 2, 2);
    /* two Recurse frames in one sample count once */
    method_is(t, "App.Work.Recurse", 1, 1, 1, 1);
    method_is(t, "App.Program.Main", 0, 4, 0, 6);
    method_is(t, "System.Threading.Thread.StartCallback", 0, 3, 0, 8);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "share"), 100.0 * 8 / 14, 1e-9);

    t = mock_host_table(mh, "by_thread");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 2);
    ck_assert_str_eq(mock_table_str(t, 0, "thread"), "22");
    ck_assert_int_eq(mock_table_int(t, 0, "samples"), 3);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "ms"), 8, 1e-9);
    ck_assert_str_eq(mock_table_str(t, 0, "top_method"),
                     "System.Threading.WaitHandle.WaitOneNoCheck");
    ck_assert_str_eq(mock_table_str(t, 1, "thread"), "11");
    ck_assert_int_eq(mock_table_int(t, 1, "samples"), 4);
    ck_assert_double_eq_tol(mock_table_dbl(t, 1, "ms"), 6, 1e-9);
    ck_assert_str_eq(mock_table_str(t, 1, "top_method"), "App.Work.HotA");

    t = mock_host_table(mh, "callers");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 1);
    ck_assert_str_eq(mock_table_str(t, 0, "caller"), "App.Program.Main");
    ck_assert_int_eq(mock_table_int(t, 0, "samples"), 3);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "ms"), 4, 1e-9);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "share"), 100, 1e-9);

    t = mock_host_table(mh, "callees");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 2);
    ck_assert_str_eq(mock_table_str(t, 0, "callee"), "[self]");
    ck_assert_int_eq(mock_table_int(t, 0, "samples"), 2);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "share"), 75, 1e-9);
    ck_assert_str_eq(mock_table_str(t, 1, "callee"), "App.Work.Recurse");
    ck_assert_double_eq_tol(mock_table_dbl(t, 1, "ms"), 1, 1e-9);

    t = mock_host_table(mh, "by_stack");
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(mock_table_column(t, 0)->name, "stack");
    ck_assert_uint_eq(mock_table_rows(t), 4);
    ck_assert_str_eq(
        mock_table_str(t, 0, "stack"),
        "System.Threading.Thread.StartCallback;System.Threading.WaitHandle.WaitOneNoCheck");
    ck_assert_int_eq(mock_table_int(t, 0, "samples"), 3);
    ck_assert_str_eq(mock_table_str(t, 1, "stack"), "App.Program.Main;App.Work.HotA");
    ck_assert_int_eq(mock_table_int(t, 1, "samples"), 2);
    ck_assert_str_eq(mock_table_str(t, 3, "stack"),
                     "App.Program.Main;App.Work.HotA;App.Work.Recurse;App.Work.Recurse");

    int64_t v;
    ck_assert(mock_host_total_int(mh, "samples", &v));
    ck_assert_int_eq(v, 7);
    ck_assert(mock_host_total_int(mh, "samples_external", &v));
    ck_assert_int_eq(v, 3);
    ck_assert(mock_host_total_int(mh, "samples_managed", &v));
    ck_assert_int_eq(v, 4);
    ck_assert(mock_host_total_int(mh, "thread_time", &v));
    ck_assert_int_eq(v, MS(14));
    ck_assert(mock_host_total_int(mh, "sample_interval", &v));
    ck_assert_int_eq(v, MS(2));
    ck_assert(mock_host_total_int(mh, "duration", &v));
    ck_assert_int_eq(v, MS(6));
    ck_assert(mock_host_total_int(mh, "unsampled_time", &v));
    ck_assert_int_eq(v, 0);
    ck_assert_str_eq(mock_host_total_string(mh, "view"), "thread-time");

    const char *m = mock_host_finding(mh, "cpu.waits", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "async"));
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.short_trace", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "cpu.no_samples", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "cpu.unresolved", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_managed_view)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "view", "managed");
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_method");
    ck_assert_uint_eq(mock_table_rows(t), 4);
    ck_assert_int_lt(mock_table_find(t, "method", "System.Threading.WaitHandle.WaitOneNoCheck"), 0);
    method_is(t, "App.Work.HotA", 2, 3, 3, 4);
    ck_assert_double_eq_tol(mock_table_dbl(t, 0, "share"), 50, 1e-9);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "samples", &v));
    ck_assert_int_eq(v, 4);
    ck_assert(mock_host_total_int(mh, "thread_time", &v));
    ck_assert_int_eq(v, MS(6));
    ck_assert_ptr_null(mock_host_finding(mh, "cpu.waits", NULL));
    ck_assert_ptr_null(mock_host_table(mh, "callers"));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_window_thread_sort)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "from", "11.5");
    mock_host_set_option(mh, "to", "14.5");
    run(mh);
    const mock_table *t = mock_host_table(mh, "by_method");
    /* a sample's weight still comes from its thread's previous sample,
     * even when that one lies before the window */
    method_is(t, "App.Work.HotB", 1, 1, 2, 2);
    method_is(t, "App.Work.Recurse", 1, 1, 1, 1);
    method_is(t, "System.Threading.WaitHandle.WaitOneNoCheck", 1, 1, 2, 2);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "samples", &v));
    ck_assert_int_eq(v, 3);
    mock_host_free(mh);

    mh = new_host();
    mock_host_set_option(mh, "thread", "11");
    mock_host_set_option(mh, "sort", "inclusive");
    run(mh);
    t = mock_host_table(mh, "by_method");
    ck_assert_str_eq(mock_table_str(t, 0, "method"), "App.Program.Main");
    ck_assert_str_eq(mock_table_str(t, 1, "method"), "App.Work.HotA");
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_thread")), 1);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_no_samples_and_empty_view)
{
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    const char *m = mock_host_finding(mh, "cpu.no_samples", NULL);
    ck_assert_ptr_nonnull(m);
    ck_assert_ptr_nonnull(strstr(m, "dotnet-trace collect --profile dotnet-sampled-thread-time"));
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "by_method")), 0);
    ck_assert_uint_eq(mock_host_violations(mh), 0);
    mock_host_free(mh);

    mh = new_host();
    mock_host_set_option(mh, "view", "managed");
    mock_host_set_option(mh, "thread", "22");
    run(mh);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.view_empty", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(test_unresolved_and_truncated)
{
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    uint64_t deep[100];
    for (int i = 0; i < 100; i++)
        deep[i] = 0x9000 + (uint64_t)i;
    deep[99] = MAIN;
    for (int i = 0; i < 3; i++)
        sample(mh, 2, MS(i), 5, deep, 100);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.unresolved", NULL));
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.truncated_stacks", NULL));
    const mock_table *t = mock_host_table(mh, "by_method");
    ck_assert_str_eq(mock_table_str(t, 0, "method"), "?!0x9000");
    ck_assert_int_eq(mock_table_int(t, 0, "exclusive"), 3);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_gap_cap)
{
    /* 1 ms gaps, then 1000 ms without a sample: that sample weighs 100
     * intervals, the other 900 ms are unsampled, not charged to HotB */
    mock_host *mh = new_host();
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    static const uint64_t a[] = { HOTA, MAIN };
    static const uint64_t bb[] = { HOTB, MAIN };
    for (int i = 0; i < 10; i++)
        sample(mh, 2, MS(i), 7, a, 2);
    sample(mh, 2, MS(1009), 7, bb, 2);
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    const mock_table *t = mock_host_table(mh, "by_method");
    method_is(t, "App.Work.HotA", 10, 10, 10, 10);
    method_is(t, "App.Work.HotB", 1, 1, 100, 100);
    int64_t v;
    ck_assert(mock_host_total_int(mh, "unsampled_time", &v));
    ck_assert_int_eq(v, MS(900));
    ck_assert(mock_host_total_int(mh, "thread_time", &v));
    ck_assert_int_eq(v, MS(110));
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.unsampled_gaps", NULL));
    ck_assert_uint_eq(mock_host_violations(mh), 0);
    mock_host_free(mh);
}
END_TEST

START_TEST(test_focus_not_found_and_bad_options)
{
    mock_host *mh = new_host();
    mock_host_set_option(mh, "focus", "Nope.Method");
    run(mh);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "cpu.focus_not_found", NULL));
    ck_assert_uint_eq(mock_table_rows(mock_host_table(mh, "callers")), 0);
    mock_host_free(mh);

    static const char *const bad[][2] = {
        { "view", "cpu" }, { "sort", "name" }, { "top", "-2" }, { "to", "-1" }, { "focus", "" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mh = new_host();
        mock_host_set_option(mh, bad[i][0], bad[i][1]);
        pp_error err = PP_ERROR_INIT;
        ck_assert_int_eq(mock_host_create(mh, &err), PP_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.message, bad[i][0]));
        mock_host_free(mh);
    }
}
END_TEST

START_TEST(test_wait_names)
{
    ck_assert(pp_cpu_is_wait("System.Threading.Monitor.Wait"));
    ck_assert(pp_cpu_is_wait("System.Threading.Thread.Sleep"));
    ck_assert(pp_cpu_is_wait("System.Threading.LowLevelLifoSemaphore.WaitForSignal"));
    ck_assert(pp_cpu_is_wait("System.Threading.SpinWait.SpinOnce"));
    /* a thread starting another yields until it runs (ThreadNative_Start) */
    ck_assert(pp_cpu_is_wait("System.Threading.Thread.StartCore"));
    ck_assert(!pp_cpu_is_wait("System.Threading.Thread.StartCallback"));
    ck_assert(!pp_cpu_is_wait("App.Work.HotA"));
    ck_assert(!pp_cpu_is_wait("System.String.Ctor"));
    /* blocking syscalls by their P/Invoke, matched whole */
    ck_assert(pp_cpu_frame_blocks("Interop+Sys.Read"));
    ck_assert(pp_cpu_frame_blocks("Interop+Sys.ReceiveMessage"));
    ck_assert(pp_cpu_frame_blocks("Interop+Sys.WaitForSocketEvents"));
    ck_assert(pp_cpu_frame_blocks("Interop+Sys.Poll"));
    ck_assert(pp_cpu_frame_blocks("Interop+Sys.LowLevelMonitor_Wait"));
    ck_assert(!pp_cpu_frame_blocks("Interop+Sys.ReadLink"));
    ck_assert(!pp_cpu_frame_blocks("Interop+Sys.ReadDirR"));
    ck_assert(!pp_cpu_frame_blocks("Interop+Sys.Write"));
    ck_assert(pp_cpu_frame_blocks("System.Threading.WaitHandle.WaitOneNoCheck"));
    ck_assert(pp_cpu_frame_blocks("System.Threading.SemaphoreSlim.Wait"));
    ck_assert(pp_cpu_frame_blocks("System.Threading.Tasks.Task`1[System.__Canon].GetResultCore"));
    /* the GC poll inside a hot loop is running code */
    ck_assert(!pp_cpu_frame_blocks("System.Threading.Thread.<PollGC>g__PollGCWorker|67_0"));
    ck_assert(!pp_cpu_frame_blocks("App.Work.WaitForCustomer"));
    ck_assert(pp_cpu_frame_framework("System.Threading.Thread.Sleep"));
    ck_assert(pp_cpu_frame_framework("Interop+Sys.Read"));
    ck_assert(pp_cpu_frame_framework("?!0x7f00"));
    ck_assert(!pp_cpu_frame_framework("App.Work.HotA"));
}
END_TEST

/* Stacks split into running (by responsible method) and waiting (by wait
 * and waiter). */
/* names interned from frames (ids in id), and st ready for nstacks stacks. */
static void
states_with_frames(pp_pc_strtab *names, pp_cpu_states *st, const char *const *frames, int n,
                   uint32_t *id, uint32_t nstacks)
{
    pp_pc_strtab_init(names);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pp_pc_strtab_intern(names, frames[i], strlen(frames[i]), &id[i]), PP_OK);
    ck_assert_int_eq(pp_cpu_states_init(st, nstacks), PP_OK);
}

/* Stacks 0..n-1 classified, then each given samples[i] samples of 1 ms. */
static void
stacks_with_samples(pp_cpu_states *st, const pp_pc_strtab *names, const uint32_t *const *stacks,
                    const uint32_t *depth, const int64_t *samples, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        ck_assert_int_eq(pp_cpu_states_stack(st, i, names, stacks[i], depth[i]), PP_OK);
    for (uint32_t i = 0; i < n; i++)
        pp_cpu_states_add(st, i, samples[i], samples[i] * 1000000);
}

START_TEST(test_states_split)
{
    pp_pc_strtab names;
    pp_cpu_states st;
    const char *frames[] = { "System.Threading.Thread.<PollGC>g__PollGCWorker|67_0",
                             "App.Hot",
                             "Interop+Sys.Read",
                             "System.IO.Pipes.PipeStream.Read",
                             "App.Reader",
                             "System.Threading.LowLevelLifoSemaphore.WaitForSignal",
                             "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
                             "System.Threading.Thread.StartCallback" };
    uint32_t id[8];
    states_with_frames(&names, &st, frames, 8, id, 4);
    uint32_t hot[2] = { id[0], id[1] }, rd[3] = { id[2], id[3], id[4] },
             tp[3] = { id[5], id[6], id[7] };
    const uint32_t *stacks[4] = { hot, rd, tp, NULL }, depth[4] = { 2, 3, 3, 0 };
    const int64_t samples[4] = { 10, 30, 5, 1 };
    stacks_with_samples(&st, &names, stacks, depth, samples, 4);
    ck_assert_int_eq(st.run_s, 11);
    ck_assert_int_eq(st.wait_s, 35);
    ck_assert_uint_eq(pp_pc_agg_count(&st.running), 2);
    ck_assert_str_eq(pp_pc_agg_key(&st.running, st.row[0]), "App.Hot");
    ck_assert_str_eq(pp_pc_agg_key(&st.waits, st.row[1]), "Interop+Sys.Read\tApp.Reader");
    ck_assert_str_eq(pp_pc_agg_key(&st.waits, st.row[2]),
                     "System.Threading.LowLevelLifoSemaphore.WaitForSignal\t"
                     "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart");
    ck_assert_str_eq(pp_pc_agg_key(&st.running, st.row[3]), "[no stack]");
    pp_cpu_states_free(&st);
    pp_pc_strtab_free(&names);
}
END_TEST

/* Blocking waits (blocking.h), on the stacks of tests/data/webapp's
 * sync-over-async capture (leaf first): the handler blocked on .Result
 * (get_Result inlined), the same through an awaiter, Main waiting for the
 * host's shutdown, an idle pool worker, a lock wait under application
 * code, and Main waiting for its workers. The first two (pool threads)
 * and the lock block; the others do not. */
START_TEST(test_blocking_split)
{
    pp_pc_strtab names;
    pp_cpu_states st;
    const char *frames[] = {
        "System.Threading.ManualResetEventSlim.Wait", /* 0 */
        "System.Threading.Tasks.Task.SpinThenBlockingWait",
        "System.Threading.Tasks.Task.InternalWaitCore",
        "System.Threading.Tasks.Task.InternalWait",
        "WebApp.Shop.StockBlocking",
        "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", /* 5 */
        "System.Threading.Monitor.Wait",
        "System.Runtime.CompilerServices.TaskAwaiter.HandleNonSuccessAndDebuggerNotification",
        "Microsoft.Extensions.Hosting.HostingAbstractionsHostExtensions.Run",
        "WebApp.Program.Main",
        "System.Threading.LowLevelLifoSemaphore.WaitNative", /* 10 */
        "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart",
        "System.Runtime.CompilerServices.TaskAwaiter`1[System.Int32].GetResult",
        "WebApp.Shop.Awaiter",
        "System.Threading.Monitor.Enter",
        "WebApp.Shop.Locked", /* 15 */
    };
    enum { N = sizeof frames / sizeof frames[0] };
    uint32_t id[N];
    states_with_frames(&names, &st, frames, N, id, 6);
    uint32_t result[7] = { id[0], id[1], id[2], id[3], id[4], id[5], id[11] };
    uint32_t awaiter[7] = { id[0], id[1], id[2], id[3], id[12], id[13], id[11] };
    uint32_t host_full[8] = { id[6], id[0], id[1], id[2], id[3], id[7], id[8], id[9] };
    uint32_t idle[2] = { id[10], id[11] }, lock[2] = { id[14], id[15] }; /* any thread */
    uint32_t driver[5] = { id[0], id[1], id[2], id[3], id[9] }; /* Main blocks: no pool thread */
    ck_assert_int_eq(pp_cpu_states_stack(&st, 0, &names, result, 7), PP_OK);
    ck_assert_int_eq(pp_cpu_states_stack(&st, 1, &names, awaiter, 7), PP_OK);
    ck_assert_int_eq(pp_cpu_states_stack(&st, 2, &names, host_full, 8), PP_OK);
    ck_assert_int_eq(pp_cpu_states_stack(&st, 3, &names, idle, 2), PP_OK);
    ck_assert_int_eq(pp_cpu_states_stack(&st, 4, &names, lock, 2), PP_OK);
    ck_assert_int_eq(pp_cpu_states_stack(&st, 5, &names, driver, 5), PP_OK);
    for (uint32_t s = 0; s < 6; s++)
        pp_cpu_states_add(&st, s, 10 + s, (10 + (int64_t)s) * 1000000);
    ck_assert_int_eq(st.wait_s, 10 + 11 + 12 + 13 + 14 + 15); /* all six wait */
    ck_assert_int_eq(st.blocking.s, 10 + 11 + 14);            /* three of them block */
    ck_assert_int_eq(st.blocking.ns, 35000000);
    ck_assert_uint_eq(pp_pc_agg_count(&st.blocking.rows), 3);
    ck_assert_uint_eq(st.blocking.row[0], 1);
    ck_assert_str_eq(pp_pc_agg_key(&st.blocking.rows, 0), "WebApp.Shop.StockBlocking");
    ck_assert_str_eq(pp_pc_agg_key(&st.blocking.rows, 1), "WebApp.Shop.Awaiter");
    ck_assert_str_eq(pp_pc_agg_key(&st.blocking.rows, 2), "WebApp.Shop.Locked");
    ck_assert_uint_eq(st.blocking.row[2], 0); /* Main, through the host */
    ck_assert_uint_eq(st.blocking.row[3], 0); /* the idle pool */
    ck_assert_uint_eq(st.blocking.row[5], 0); /* Main's own Wait: no pool thread */
    pp_cpu_states_free(&st);
    pp_pc_strtab_free(&names);
}
END_TEST

/* The wake of a thread blocked on a task (tests/data/webapp's Server GC
 * sync-over-async capture, leaf first): the async method that completes the
 * task runs ManualResetEventSlim.Set from Task.RunContinuations, the event
 * StockBlocking's .Result sleeps on. That time is the blocked caller's cost:
 * waiting (keyed by the wake), not running work of LookupStockAsync, which
 * otherwise ranked as a candidate above a planted cause (114 us a request).
 * ManualResetEventSlim.Set called by application code stays running. */
START_TEST(test_task_waiter_wake)
{
    pp_pc_strtab names;
    pp_cpu_states st;
    const char *frames[] = {
        "System.Threading.Monitor.PulseAll", /* 0 */
        "System.Threading.ManualResetEventSlim.Set",
        "System.Threading.Tasks.Task.RunContinuations",
        "System.Threading.Tasks.Task`1[System.Int32].TrySetResult",
        "WebApp.Shop+<LookupStockAsync>d__16.MoveNext",
        "System.Threading.Monitor.Exit_Slowpath", /* 5 */
        "System.Threading.Tasks.Task+SetOnInvokeMres.Invoke",
        "App.Signaller",
    };
    enum { N = sizeof frames / sizeof frames[0] };
    uint32_t id[N];
    states_with_frames(&names, &st, frames, N, id, 3);
    uint32_t pulse[5] = { id[0], id[1], id[2], id[3], id[4] };
    uint32_t exitlock[5] = { id[5], id[1], id[6], id[3], id[4] };
    uint32_t own[3] = { id[0], id[1], id[7] }; /* the app sets its own event: work */
    const uint32_t *stacks[3] = { pulse, exitlock, own }, depth[3] = { 5, 5, 3 };
    const int64_t samples[3] = { 7, 5, 3 };
    stacks_with_samples(&st, &names, stacks, depth, samples, 3);
    ck_assert_int_eq(st.wait_s, 12);
    ck_assert_int_eq(st.run_s, 3);
    ck_assert_uint_eq(pp_pc_agg_count(&st.running), 1);
    ck_assert_str_eq(pp_pc_agg_key(&st.running, st.row[2]), "App.Signaller");
    ck_assert_str_eq(pp_pc_agg_key(&st.waits, st.row[0]),
                     "System.Threading.ManualResetEventSlim.Set\t"
                     "WebApp.Shop+<LookupStockAsync>d__16.MoveNext");
    ck_assert_uint_eq(st.row[0], st.row[1]);
    ck_assert_int_eq(st.blocking.s, 0); /* the waker blocks no caller of its own */
    pp_cpu_states_free(&st);
    pp_pc_strtab_free(&names);
}
END_TEST

START_TEST(test_built_plugin)
{
    /* the shipped artifact: dlopen'ed like the loader does, only the entry
     * symbol looked up, same answers as the compiled-in sources */
    const char *dir = getenv("PERFPIPE_PLUGIN_PATH");
    char path[4096];
    snprintf(path, sizeof path, "%s/cpu.so", dir ? dir : "");
    void *so = dir ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!so) {
        printf("SKIP built-plugin case: %s not loadable (%s)\n", path,
               dir ? dlerror() : "PERFPIPE_PLUGIN_PATH unset");
        return;
    }
    pp_plugin_entry_fn entry = (pp_plugin_entry_fn)(uintptr_t)dlsym(so, PP_PLUGIN_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull((void *)(uintptr_t)entry);
    analyzer = entry();
    ck_assert_str_eq(analyzer->name, "cpu");
    mock_host *mh = new_host();
    run(mh);
    method_is(mock_host_table(mh, "by_method"), "App.Work.HotA", 2, 3, 3, 4);
    mock_host_free(mh);
    analyzer = NULL;
    dlclose(so);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_cpu");
    TCase *tc = tcase_create("mock");
    tcase_add_test(tc, test_descriptor);
    tcase_add_test(tc, test_built_plugin);
    tcase_add_test(tc, test_thread_time);
    tcase_add_test(tc, test_managed_view);
    tcase_add_test(tc, test_window_thread_sort);
    tcase_add_test(tc, test_no_samples_and_empty_view);
    tcase_add_test(tc, test_unresolved_and_truncated);
    tcase_add_test(tc, test_gap_cap);
    tcase_add_test(tc, test_focus_not_found_and_bad_options);
    tcase_add_test(tc, test_wait_names);
    tcase_add_test(tc, test_states_split);
    tcase_add_test(tc, test_blocking_split);
    tcase_add_test(tc, test_task_waiter_wake);
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
