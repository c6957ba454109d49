/* plugins/cpu: the runtime's own exception and lock-contention events.
 *
 * Thread samples see a throw or a lock wait only when a sample happens to
 * land in it: a handler that throws a thousand exceptions in 30 ms may get
 * no sample at all, and a thread spinning in Monitor.Enter_Slowpath for the
 * first throw's resource lookup looks like a lock wait although the runtime
 * never blocked it. When the trace has them (keywords Exception 0x8000 and
 * Contention 0x4000 of Microsoft-Windows-DotNETRuntime), the runtime's events
 * are exact:
 *
 *  - ExceptionThrown_V1 (80) names the type; ExceptionCatch/Start (250) on
 *    the same thread names the handler's code address (EntryEIP), named at
 *    finish like any frame: table `exceptions` (frame = the catching method,
 *    type, count, per_sec over the trace's span, 0 when it has none);
 *  - ContentionStart (81) on a thread that then blocks, and ContentionStop
 *    (91, DurationNs in V1) when it gets the lock: table `contention` (lock =
 *    the blocking frame of the Start's stack, waiter = its first user frame,
 *    count, ms, share of the stage's thread time, 0 with no samples).
 *
 * Each table is written only when its events occur, so results of traces
 * without them stay byte for byte what they were. Memory: one entry per
 * distinct (handler, type) and per distinct contention stack, each capped
 * (PP_CPU_RT_MAX_ROWS; beyond it counted under "[other]"), plus one slot per
 * thread. */
#ifndef PP_CPU_RTEVENTS_H
#define PP_CPU_RTEVENTS_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#define PP_CPU_RT_MAX_ROWS  65536u
#define PP_CPU_RT_MAX_TYPES 4096u
#define PP_CPU_RT_MAX_DEPTH 64u

typedef struct pp_cpu_rt pp_cpu_rt;

/* A fresh state, NULL on ENOMEM. */
pp_cpu_rt *pp_cpu_rt_new(const pp_host_api *host);
void pp_cpu_rt_free(pp_cpu_rt *rt);

/* Note ev when it is one of the events above (others are ignored). PP_OK or
 * PP_ENOMEM. */
int pp_cpu_rt_event(pp_cpu_rt *rt, const pp_trace_event *ev);

/* Tables `exceptions` and `contention` (each only when its events were
 * seen), at most top rows each (0 = all). span_ns: the trace's span (for
 * per_sec); thread_ns: the stage's thread time (for share; 0 = unknown).
 * PP_OK or an error from the host or PP_ENOMEM. */
int pp_cpu_rt_emit(pp_cpu_rt *rt, pp_ctx *ctx, const pp_trace_source *src, int64_t top,
                   int64_t span_ns, int64_t thread_ns);

#endif
