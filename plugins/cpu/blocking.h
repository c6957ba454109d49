/* plugins/cpu: blocking waits (sync over async) apart from idle ones.
 *
 * The `waiting` table holds every wait the thread-time sampler saw: a
 * request's pool thread blocked in Task.Wait / .Result /
 * GetAwaiter().GetResult() and the pool's idle workers parked in
 * LowLevelLifoSemaphore alike. Only the first is a cost a change removes:
 * await instead of block, and the request stops holding a thread. A fix
 * moves the samples from the first kind to the second (the freed thread
 * idles), so a gate that judges all waits sees the fix as waits that
 * "appeared".
 *
 * A waiting sample blocks when the frames between its wait and its
 * first application frame (the caller) are all threading frames
 * (System.Threading.*, System.Runtime.CompilerServices.*Awaiter*, the
 * runtime's wait P/Invokes, unresolved native frames), one of them a
 * task's synchronous block (Task.Wait, Task.WaitAll/WaitAny,
 * Task`1.get_Result / GetResultCore, Task.InternalWait*,
 * SpinThenBlockingWait, a TaskAwaiter's or ValueTask's GetResult: sync
 * over async, counted on a thread-pool thread only: the pool's worker loop
 * is on its stack) or a lock's acquisition (Monitor.Enter,
 * Lock.TryEnterSlow: contention, on any thread; a lock that spins is
 * running, blocked.h). The application frame called the block itself: a host's
 * Main waiting for shutdown (Program.Main -> WebApplication.Run -> ... ->
 * GetResult) goes through framework frames that are not threading frames
 * and is no pool thread, a program's driver waiting for its workers
 * (Task.WaitAll in Main) is no pool thread, and a pool worker with no
 * application frame is idle. An application thread's own Monitor.Wait or
 * WaitOne (a consumer waiting for work) is neither and stays a wait. */
#ifndef PP_CPU_BLOCKING_H
#define PP_CPU_BLOCKING_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"
#include "../common/strtab.h"
#include "../common/frames.h"

typedef struct pp_cpu_blocking {
    uint32_t nstacks;
    uint32_t *row;  /* [nstacks] row in rows + 1, 0: not a blocking sample */
    pp_pc_agg rows; /* key: the application frame that blocks; samples, ns */
    uint8_t *kind;  /* [agg row] its block's kind (blocking.c) */
    uint32_t kind_cap;
    int64_t s, ns; /* every blocking sample */
} pp_cpu_blocking;

/* Ready for nstacks stacks. PP_OK or PP_ENOMEM; free is safe after either. */
int pp_cpu_blocking_init(pp_cpu_blocking *b, uint32_t nstacks);
void pp_cpu_blocking_free(pp_cpu_blocking *b);

/* Note stack `stack` (frames ids[0..depth) leaf first) whose wait is at
 * ids[wait] and first application frame at ids[user] (user < 0: none):
 * a blocking stack gets its row. PP_OK, PP_EINVAL or PP_ENOMEM. */
int pp_cpu_blocking_stack(pp_cpu_blocking *b, uint32_t stack, const pp_pc_strtab *names,
                          const uint32_t *ids, uint32_t depth, int32_t wait, int32_t user);

/* Add samples s weighing ns to stack's row, when it blocks. */
void pp_cpu_blocking_add(pp_cpu_blocking *b, uint32_t stack, int64_t s, int64_t ns);

/* Table `blocking` (waiter: the application frame; block: what it called;
 * samples, ms, share of blocked time, lo_ms .. hi_ms, the 95 %
 * interval from the samples; module when syms is not NULL), at most top
 * rows (0 = all), and the totals blocking_time and blocking_samples. */
int pp_cpu_blocking_emit(const pp_cpu_blocking *b, const pp_host_api *h, pp_ctx *ctx, int64_t top,
                         pp_pc_symcache *syms);

#endif
