/* plugins/cpu: running versus waiting.
 *
 * Thread-time sampling (SampleProfiler) samples every managed thread, blocked
 * or not: a thread parked in read(2), epoll_wait, a futex behind WaitOne or
 * Monitor.Wait, or Thread.Sleep weighs as much as one that computes. No change
 * to the waiting method removes that time, so it must never rank as work.
 *
 * A sample is waiting when, walking its stack from the leaf up to the first
 * frame of user code, one frame is a known blocking call (the wait). Otherwise
 * it is running, and belongs to its responsible method: the first user frame
 * from the leaf (so a hot loop caught in a framework helper, e.g. the GC poll,
 * still counts for the loop), or the leaf when the stack has no user frame.
 * The waiter of a waiting sample is its first user frame, or else the frame
 * that called the wait.
 *
 * A lock's slow path spins before it blocks (Monitor.Enter_Slowpath,
 * Lock.TryEnterSlow): a stack whose wait is one
 * of those and whose samples are mostly of type Managed (the runtime says the
 * thread ran managed code, a blocked one is External) is spinning, which
 * burns the CPU: running, not waiting. Eight threads throwing at once spin on
 * the resource lookup's lock in every throw (74 Managed samples, 0 External,
 * 3 Contention events): that is the throw's cost, not a lock wait.
 *
 * A task's completion that wakes a thread blocked on it (ManualResetEventSlim.Set
 * called from Task code: the event Task.Wait/.Result sleeps on) is waiting too,
 * with the wake as its wait: the blocked caller's cost, gone when it awaits, and
 * no work of the async method that completed the task. */
#ifndef PP_CPU_BLOCKED_H
#define PP_CPU_BLOCKED_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"
#include "../common/strtab.h"
#include "../common/frames.h"
#include "../common/srclines.h"
#include "blocking.h"

/* 1 when the frame name is a blocking call (a wait: syscalls that block in
 * read/recv/poll/epoll, WaitHandle and Monitor waits, semaphores, Sleep,
 * Join, SpinWait, a thread start waiting for the new thread, console
 * reads). Exact for P/Invoke names (Interop+Sys.Read
 * is a wait, Interop+Sys.ReadLink is not). */
int pp_cpu_frame_blocks(const char *name);

/* 1 when the frame is framework code (System., Microsoft., Interop, Internal.)
 * or unresolved: not where a user's change goes. */
int pp_cpu_frame_framework(const char *name);

typedef struct pp_cpu_states {
    uint32_t nstacks;
    uint8_t *is_waiting; /* [nstacks] 1 waiting, 0 running */
    uint32_t *row;       /* [nstacks] row in running or waits */
    pp_pc_agg running;   /* key: responsible method; samples, ns */
    pp_pc_agg waits;     /* key: wait "\t" waiter; samples, ns */
    int64_t run_s, run_ns, wait_s, wait_ns;
    pp_pc_symcache *syms;           /* NULL, or names' modules: `running` gains `module` and
                                    `call_site`, `waiting` gains both */
    uint32_t *run_site, *wait_site; /* [agg row] call site name id + 1 (0: none) */
    /* NULL, or per stack id its samples and its Managed-type samples (borrowed) */
    const uint32_t *stack_samples, *stack_managed;
    uint32_t stack_known;
    uint32_t run_site_cap, wait_site_cap;
    /* NULL, or `running` gains `source` (common/srclines.h); frame_ips: the stack
     * being classified's addresses, leaf first (set before each stack). */
    pp_pc_srclines *source;
    const uint64_t *frame_ips;
    pp_cpu_blocking blocking; /* the waits that block a caller on a task (blocking.h) */
} pp_cpu_states;

/* Ready for nstacks stacks (ids 0..nstacks-1). PP_OK or PP_ENOMEM;
 * pp_cpu_states_free is safe after either. */
int pp_cpu_states_init(pp_cpu_states *st, uint32_t nstacks);
/* Same, and the `running` rows name their method's module (the cache then
 * notes modules as it names frames: call before naming) plus a `modules`
 * table (common/modules.h). */
int pp_cpu_states_init_with(pp_cpu_states *st, uint32_t nstacks, pp_pc_symcache *syms);
void pp_cpu_states_free(pp_cpu_states *st);

/* Classify stack `stack`, whose frames are ids[0..depth) in names, leaf
 * first (depth 0: no stack, counted as running "[no stack]"). */
int pp_cpu_states_stack(pp_cpu_states *st, uint32_t stack, const pp_pc_strtab *names,
                        const uint32_t *ids, uint32_t depth);

/* Add samples s weighing ns to the state of stack. */
void pp_cpu_states_add(pp_cpu_states *st, uint32_t stack, int64_t s, int64_t ns);

/* Tables `running` (method: samples, ms, share of running time) and
 * `waiting` (wait, waiter: samples, ms, share of waiting time), with the
 * method's / waiter's module and call site (the first application frame
 * from it outward on its first stack) when modules are known, at most top
 * rows each (0 = all); `blocking` (blocking.h), the waits of those that
 * block an application frame on a task; totals running_time, waiting_time,
 * running_samples, waiting_samples, blocking_time, blocking_samples; the finding
 * cpu.blocked_time when waiting outweighs running. */
int pp_cpu_states_emit(const pp_cpu_states *st, const pp_host_api *h, pp_ctx *ctx, int64_t top);

#endif
