/* plugins/cpu: running versus waiting (see blocked.h). */
#include "blocked.h"
#include "../common/interval.h"
#include "../common/decl.h"
#include "../common/modules.h"
#include "tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/frames.h"

#define NO_STACK "[no stack]"

/* P/Invokes that park the thread in the kernel until data or an event
 * arrives; matched whole, since their neighbours (ReadLink, ReadDir,
 * Write...) return at once. */
static const char *const blocking_pinvokes[] = {
    "Interop+Sys.Read",
    "Interop+Sys.ReadV",
    "Interop+Sys.PRead",
    "Interop+Sys.ReadStdin",
    "Interop+Sys.Receive",
    "Interop+Sys.ReceiveMessage",
    "Interop+Sys.Accept",
    "Interop+Sys.Poll",
    "Interop+Sys.PollEvents",
    "Interop+Sys.WaitForSocketEvents",
    "Interop+Sys.LowLevelMonitor_Wait",
    "Interop+Sys.LowLevelMonitor_TimedWait",
    "Interop+Sys.WaitPidExitedNoHang",
    "Interop+Sys.Select",
    "Interop+Kernel32.WaitForSingleObject",
    "Interop+Kernel32.WaitForMultipleObjects",
    "Interop+Kernel32.WaitForMultipleObjectsEx",
    "Interop+Kernel32.SleepEx",
    "Interop+Kernel32.ReadFile",
    "Interop+Kernel32.GetQueuedCompletionStatus",
    "Interop+Kernel32.GetQueuedCompletionStatusEx",
    "Interop+Winsock.recv",
    "Interop+Winsock.WSARecv",
    "Interop+Winsock.select",
    "Interop+Winsock.accept",
};

/* Managed waits: a name that starts with `prefix` (and, when `also` is set,
 * contains it after the prefix: generic instantiations sit in between). */
static const struct {
    const char *prefix, *also;
} blocking_calls[] = {
    { "System.Threading.Monitor.Wait", NULL },
    { "System.Threading.Monitor.ObjWait", NULL },
    { "System.Threading.Monitor.Enter", NULL }, /* a sample there is contention */
    { "System.Threading.Monitor.ReliableEnter", NULL },
    { "System.Threading.Lock.TryEnterSlow", NULL },
    { "System.Threading.Lock.EnterAndGetCurrentThreadId", NULL },
    { "System.Threading.WaitHandle.Wait", NULL },
    { "System.Threading.Thread.Sleep", NULL },
    { "System.Threading.Thread.Join", NULL },
    /* Thread.Start: the runtime's ThreadNative_Start makes the OS thread,
     * then yields until that thread has started running (or failed): the
     * starting thread waits on the scheduler, it does not run */
    { "System.Threading.Thread.StartCore", NULL },
    { "System.Threading.Thread.StartInternal", NULL },
    { "System.Threading.SpinWait.", NULL },
    { "System.Threading.LowLevelLifoSemaphore.Wait", NULL },
    { "System.Threading.LowLevelMonitor.Wait", NULL },
    { "System.Threading.LowLevelLock.WaitAndAcquire", NULL },
    { "System.Threading.LowLevelSpinWaiter.", NULL },
    { "System.Threading.ManualResetEventSlim.Wait", NULL },
    { "System.Threading.SemaphoreSlim.Wait", NULL },
    { "System.Threading.CountdownEvent.Wait", NULL },
    { "System.Threading.Barrier.SignalAndWait", NULL },
    { "System.Threading.ReaderWriterLockSlim.WaitOnEvent", NULL },
    { "System.Threading.WaitSubsystem.", NULL },
    { "System.Threading.Tasks.Task.Wait", NULL },
    { "System.Threading.Tasks.Task.InternalWait", NULL },
    { "System.Threading.Tasks.Task.SpinThenBlockingWait", NULL },
    { "System.Threading.Tasks.Task`1", ".GetResultCore" },
    { "System.Console.ReadLine", NULL },
    { "System.Console.ReadKey", NULL },
    { "System.IO.StdInReader.ReadKey", NULL },
};

/* Loops whose callee is the wait even when that callee is not resolved (the
 * epoll thread's P/Invoke stub often has no name): waiting unless they are
 * the leaf themselves. */
static const char *const waiting_loops[] = {
    "System.Net.Sockets.SocketAsyncEngine.EventLoop",
};

static int
same_method(const char *name, const char *m)
{
    size_t n = strlen(m);
    return strncmp(name, m, n) == 0 && (name[n] == '\0' || name[n] == '(');
}

int
pp_cpu_frame_blocks(const char *name)
{
    if (strncmp(name, "Interop", 7) == 0) {
        for (size_t i = 0; i < sizeof blocking_pinvokes / sizeof blocking_pinvokes[0]; i++)
            if (same_method(name, blocking_pinvokes[i]))
                return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof blocking_calls / sizeof blocking_calls[0]; i++) {
        size_t n = strlen(blocking_calls[i].prefix);
        if (strncmp(name, blocking_calls[i].prefix, n) == 0 &&
            (!blocking_calls[i].also || strstr(name + n, blocking_calls[i].also)))
            return 1;
    }
    return 0;
}

int
pp_cpu_frame_framework(const char *name)
{
    static const char *const prefixes[] = { "System.",  "Microsoft.", "Interop+",
                                            "Interop.", "Internal.",  "[" };
    if (pp_pc_frame_unresolved(name))
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* Lock acquisitions that spin in managed code before they block. (The
 * pool's idle LowLevelSpinWaiter and SpinWait also spin, but they wait for
 * work, not for a lock: they stay waiting.) */
static int
spins_first(const char *name)
{
    static const char *const prefixes[] = {
        "System.Threading.Monitor.Enter",
        "System.Threading.Monitor.ReliableEnter",
        "System.Threading.Lock.TryEnterSlow",
        "System.Threading.Lock.EnterAndGetCurrentThreadId",
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* A task's completion setting the event a thread blocked on that task sleeps
 * on: Task.Wait, .Result and GetResult register a SetOnInvokeMres (or wait on
 * the task's completion event), and the completing thread runs
 * ManualResetEventSlim.Set from Task code (RunContinuations, the action's
 * Invoke, ContingentProperties.SetCompleted). That wake (Monitor.PulseAll and
 * the lock's release, contended by the waiter it wakes) is the blocked
 * caller's cost, removed when it awaits instead: never work of the async
 * method that completed the task. Measured on tests/data/webapp's
 * sync-over-async captures: 30-70 us a request under Workstation GC, 68-114
 * under Server GC, enough to outrank a planted cause. */
static int
wakes_task_waiter(const char *name, const char *caller)
{
    return same_method(name, "System.Threading.ManualResetEventSlim.Set") &&
           (strncmp(caller, "System.Threading.Tasks.Task.", 28) == 0 ||
            strncmp(caller, "System.Threading.Tasks.Task+", 28) == 0);
}

static int
waiting_loop(const char *name)
{
    for (size_t i = 0; i < sizeof waiting_loops / sizeof waiting_loops[0]; i++)
        if (same_method(name, waiting_loops[i]))
            return 1;
    return 0;
}

int
pp_cpu_states_init_with(pp_cpu_states *st, uint32_t nstacks, pp_pc_symcache *syms)
{
    int rc = pp_cpu_states_init(st, nstacks);
    if (rc == PP_OK && syms && (rc = pp_pc_symcache_track_modules(syms)) == PP_OK && syms->mods->on)
        st->syms = syms;
    return rc;
}

int
pp_cpu_states_init(pp_cpu_states *st, uint32_t nstacks)
{
    memset(st, 0, sizeof *st);
    pp_pc_agg_init(&st->running, 2);
    pp_pc_agg_init(&st->waits, 2);
    st->nstacks = nstacks;
    st->is_waiting = calloc(nstacks ? nstacks : 1, 1);
    st->row = calloc(nstacks ? nstacks : 1, sizeof *st->row);
    int rc = pp_cpu_blocking_init(&st->blocking, nstacks);
    return st->is_waiting && st->row && rc == PP_OK ? PP_OK : PP_ENOMEM;
}

void
pp_cpu_states_free(pp_cpu_states *st)
{
    free(st->is_waiting);
    free(st->row);
    free(st->run_site);
    free(st->wait_site);
    pp_pc_srclines_free(st->source);
    pp_cpu_blocking_free(&st->blocking);
    pp_pc_agg_free(&st->running);
    pp_pc_agg_free(&st->waits);
    memset(st, 0, sizeof *st);
}

/* Note row's call site (once: its first stack, in stack order): the first
 * application frame from ids[from] outward. */
static int
note_site(pp_cpu_states *st, int waits, uint32_t row, const uint32_t *ids, uint32_t depth,
          uint32_t from)
{
    uint32_t **v = waits ? &st->wait_site : &st->run_site;
    uint32_t *cap = waits ? &st->wait_site_cap : &st->run_site_cap;
    const pp_pc_symcache *sc = st->syms;

    if (!sc)
        return PP_OK;
    if (row >= *cap) {
        uint32_t ncap = *cap ? *cap : 64;
        while (ncap <= row)
            ncap *= 2;
        uint32_t *g = realloc(*v, ncap * sizeof *g);
        if (!g)
            return PP_ENOMEM;
        memset(g + *cap, 0, (ncap - *cap) * sizeof *g);
        *v = g;
        *cap = ncap;
    }
    if ((*v)[row])
        return PP_OK;
    for (uint32_t i = from; i < depth; i++) {
        uint32_t mod = ids[i] < sc->name_mod_cap ? sc->name_mod[ids[i]] : 0;
        if (mod && pp_pc_modules_is_app(sc->mods, mod)) {
            (*v)[row] = ids[i] + 1;
            break;
        }
    }
    return PP_OK;
}

int
pp_cpu_states_stack(pp_cpu_states *st, uint32_t stack, const pp_pc_strtab *names,
                    const uint32_t *ids, uint32_t depth)
{
    static const int64_t zero[2] = { 0, 0 };
    int32_t wait = -1, user = -1;

    if (stack >= st->nstacks)
        return PP_EINVAL;
    if (depth == 0)
        return pp_pc_agg_add(&st->running, NO_STACK, strlen(NO_STACK), zero, &st->row[stack]);
    for (uint32_t i = 0; i < depth; i++) {
        const char *f = pp_pc_strtab_get(names, ids[i]);
        if (!pp_cpu_frame_framework(f)) {
            user = (int32_t)i;
            break;
        }
        if (wait < 0 &&
            (pp_cpu_frame_blocks(f) || (i > 0 && waiting_loop(f)) ||
             (i + 1 < depth && wakes_task_waiter(f, pp_pc_strtab_get(names, ids[i + 1])))))
            wait = (int32_t)i;
    }
    if (wait >= 0 && st->stack_samples && stack < st->stack_known &&
        2 * (uint64_t)st->stack_managed[stack] > st->stack_samples[stack] &&
        spins_first(pp_pc_strtab_get(names, ids[wait])))
        wait = -1; /* spinning: the thread runs */
    if (wait < 0) {
        uint32_t at = user >= 0 ? (uint32_t)user : 0;
        const char *m = pp_pc_strtab_get(names, ids[at]);
        int rc = pp_pc_agg_add(&st->running, m, strlen(m), zero, &st->row[stack]);
        if (rc == PP_OK && st->source && st->frame_ips) {
            const pp_pc_symcache *sc = st->syms;
            uint32_t mod = sc && ids[at] < sc->name_mod_cap ? sc->name_mod[ids[at]] : 0;
            rc = pp_pc_srclines_note(st->source, stack, st->row[stack], st->frame_ips[at], at,
                                     sc && pp_pc_modules_is_app(sc->mods, mod));
        }
        return rc == PP_OK ? note_site(st, 0, st->row[stack], ids, depth, at) : rc;
    }
    /* The waiter: the user frame, else the first frame above the wait that
     * is not itself part of the wait (the framework loop that called it). */
    uint32_t w = (uint32_t)wait;
    if (user >= 0) {
        w = (uint32_t)user;
    } else {
        while (w + 1 < depth && pp_cpu_frame_blocks(pp_pc_strtab_get(names, ids[w + 1])))
            w++;
        w = w + 1 < depth ? w + 1 : w;
    }
    const char *wf = pp_pc_strtab_get(names, ids[wait]);
    const char *wr = pp_pc_strtab_get(names, ids[w]);
    size_t a = strlen(wf), b = strlen(wr);
    char *key = malloc(a + b + 2);
    if (!key)
        return PP_ENOMEM;
    memcpy(key, wf, a);
    key[a] = '\t';
    memcpy(key + a + 1, wr, b + 1);
    st->is_waiting[stack] = 1;
    int rc = pp_pc_agg_add(&st->waits, key, a + b + 1, zero, &st->row[stack]);
    free(key);
    if (rc == PP_OK)
        rc = pp_cpu_blocking_stack(&st->blocking, stack, names, ids, depth, wait, user);
    return rc == PP_OK ? note_site(st, 1, st->row[stack], ids, depth, w) : rc;
}

void
pp_cpu_states_add(pp_cpu_states *st, uint32_t stack, int64_t s, int64_t ns)
{
    int64_t *v = pp_pc_agg_vals_mut(st->is_waiting[stack] ? &st->waits : &st->running,
                                    st->row[stack]);
    v[0] += s;
    v[1] = pp_i64_add_sat(v[1], ns);
    if (st->is_waiting[stack]) {
        st->wait_s += s;
        st->wait_ns = pp_i64_add_sat(st->wait_ns, ns);
        pp_cpu_blocking_add(&st->blocking, stack, s, ns);
    } else {
        st->run_s += s;
        st->run_ns = pp_i64_add_sat(st->run_ns, ns);
        if (st->source)
            pp_pc_srclines_add(st->source, stack, s);
    }
}

static double
pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* v: {samples, ns}; the interval of ms in cells nc and nc + 1. */
static void
interval_cells(pp_cell *c, uint32_t nc, const int64_t *v)
{
    double lo, hi;

    pp_pc_interval95((double)v[1] / 1e6, v[0], &lo, &hi);
    c[nc] = pp_cell_dbl(lo);
    c[nc + 1] = pp_cell_dbl(hi);
}

static int
emit_table(const pp_cpu_states *st, const pp_host_api *h, pp_ctx *ctx, int64_t top, int waits)
{
    const pp_pc_agg *a = waits ? &st->waits : &st->running;
    /* without symbols no module, call site or source line */
    static const char *const no_syms[] = { "module", "call_site", "source", NULL };
    const uint32_t *sites = waits ? st->wait_site : st->run_site;
    uint32_t nsites = waits ? st->wait_site_cap : st->run_site_cap;
    /* running: lo_ms .. hi_ms, the 95 % interval of ms from the sample
     * count (../common/interval.h), last so the columns before keep their
     * place. Not waiting: with its two keys it would no longer fit 100
     * columns, and a wait is read by its samples. */
    uint32_t nc = waits ? (st->syms ? 7 : 5) : (st->syms ? 6 : 4);
    /* source: file:line of the row's frame (../common/srclines.h), after hi_ms so the
     * columns before keep their place. */
    int with_src = !waits && st->syms && st->source;
    uint32_t n = pp_pc_agg_count(a);
    const char **lines = with_src ? pp_pc_srclines_best(st->source, n) : NULL;
    if (with_src && !lines)
        return PP_ENOMEM;
    /* No line at all (no PDB, no map: the findings say why): no column. */
    with_src = 0;
    for (uint32_t i = 0; lines && i < n && !with_src; i++)
        with_src = lines[i] != NULL;
    pp_table *t = waits ? pp_pc_table_new(h, ctx, &pp_cpu_tables[PP_CPU_T_WAITING], 2,
                                          st->syms ? NULL : no_syms) :
                          pp_pc_table_new(h, ctx, &pp_cpu_tables[PP_CPU_T_RUNNING], 1,
                                          !st->syms ? no_syms :
                                          with_src  ? NULL :
                                                      no_syms + 2);
    uint32_t *order = t && n ? pp_pc_agg_rank(a, 1, 0) : NULL;
    if (!t || (n && !order)) {
        free(order);
        free(lines);
        return PP_ENOMEM;
    }
    int64_t whole = waits ? st->wait_ns : st->run_ns;
    int rc = PP_OK;
    for (uint32_t i = 0, shown = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = pp_pc_agg_vals(a, order[i]);
        if (v[0] == 0)
            continue; /* a stack outside the view or window */
        if (top > 0 && shown >= (uint64_t)top)
            break;
        shown++;
        const char *key = pp_pc_agg_key(a, order[i]);
        const char *site = st->syms && order[i] < nsites && sites[order[i]] ?
                               pp_pc_strtab_get(st->syms->names, sites[order[i]] - 1) :
                               "";
        if (waits) {
            const char *tab = strchr(key, '\t');
            char wait[1024];
            size_t wl = (size_t)(tab - key) < sizeof wait - 1 ? (size_t)(tab - key) :
                                                                sizeof wait - 1;
            memcpy(wait, key, wl);
            wait[wl] = '\0';
            pp_cell c[7] = { pp_cell_str(wait),
                             pp_cell_str(tab + 1),
                             pp_cell_int(v[0]),
                             pp_cell_dbl((double)v[1] / 1e6),
                             pp_cell_dbl(pct(v[1], whole)),
                             pp_cell_str(st->syms ? pp_pc_symcache_module(st->syms, tab + 1) : ""),
                             pp_cell_str(site) };
            rc = h->table_row(t, c);
        } else {
            pp_cell c[9] = { pp_cell_str(key),
                             pp_cell_int(v[0]),
                             pp_cell_dbl((double)v[1] / 1e6),
                             pp_cell_dbl(pct(v[1], whole)),
                             pp_cell_str(st->syms ? pp_pc_symcache_module(st->syms, key) : ""),
                             pp_cell_str(site) };
            interval_cells(c, nc, v);
            if (with_src)
                c[8] = pp_cell_str(lines[order[i]] ? lines[order[i]] : "");
            rc = h->table_row(t, c);
        }
    }
    free(order);
    free(lines);
    return rc;
}

int
pp_cpu_states_emit(const pp_cpu_states *st, const pp_host_api *h, pp_ctx *ctx, int64_t top)
{
    int rc = emit_table(st, h, ctx, top, 0);
    if (rc == PP_OK)
        rc = emit_table(st, h, ctx, top, 1);
    if (rc == PP_OK)
        rc = pp_cpu_blocking_emit(&st->blocking, h, ctx, top, st->syms);
    if (rc == PP_OK && st->syms)
        rc = pp_pc_modules_emit(st->syms->mods, ctx);
    if (rc == PP_OK && st->source)
        pp_pc_srclines_findings(st->source, "cpu", ctx);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "running_time", PP_COL_DURATION_NS, st->run_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "waiting_time", PP_COL_DURATION_NS, st->wait_ns);
    /* their own sample counts: compare's rate test of each time */
    if (rc == PP_OK)
        rc = h->total_int(ctx, "running_samples", PP_COL_COUNT, st->run_s);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "waiting_samples", PP_COL_COUNT, st->wait_s);
    if (rc != PP_OK || st->wait_ns <= st->run_ns / 4)
        return rc;
    /* the heaviest wait, for the message */
    const char *top_key = NULL;
    int64_t top_ns = -1;
    for (uint32_t i = 0; i < pp_pc_agg_count(&st->waits); i++)
        if (pp_pc_agg_vals(&st->waits, i)[1] > top_ns) {
            top_ns = pp_pc_agg_vals(&st->waits, i)[1];
            top_key = pp_pc_agg_key(&st->waits, i);
        }
    char wait[512];
    snprintf(wait, sizeof wait, "%s", top_key ? top_key : "");
    char *tab = strchr(wait, '\t');
    if (tab)
        *tab = '\0';
    h->finding(
        ctx, PP_SEVERITY_INFO, "cpu.blocked_time",
        "%.1f%% of the thread time is threads waiting (top: %s in %s, %.0f ms): blocked time "
        "is no work a change to the waiting method removes, so the `running` table and "
        "candidates count running samples only (%.0f ms), and `waiting` lists the waits",
        pct(st->wait_ns, st->wait_ns + st->run_ns), wait, tab ? tab + 1 : "?", (double)top_ns / 1e6,
        (double)st->run_ns / 1e6);
    return PP_OK;
}
