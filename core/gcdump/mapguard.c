/* Reading a mapped .gcdump without dying when the file shrinks (filemap.h).
 *
 * Why a guard and not read(): reading the file into anonymous memory costs
 * a copy and a fresh page per 4 KiB (0.11 s of the 146 MB bench heap, 0.02 s
 * to map it populated) for the same peak RSS, and the heap commands are
 * benchmarked on CPU seconds. A mapping has one risk: when another process
 * truncates the file while it is mapped, touching a page past the new end
 * raises SIGBUS, which kills the process (in a pipeline run, the stage
 * child) with no word about the input. MAP_POPULATE does not help: the
 * truncation unmaps those pages from every mapping again, private or not.
 *
 * So every read of a mapping runs under pp_gcdump_map_run: a SIGBUS whose
 * faulting address lies in the mapping, on the thread that runs the guard,
 * jumps back to the guard, which returns PP_EIO naming the file and its
 * sizes. Any other SIGBUS goes where it went before: the previous handler
 * (ASan's, a host program's) or the default action, by restoring it and
 * letting the faulting instruction fault again.
 *
 * The handler is installed once and stays: taking it back after each run
 * would race with a guard running on another thread. What the interrupted
 * function had allocated and not yet linked into its caller's structures
 * leaks (a string being decoded): the callers keep everything else reachable
 * from the guard's argument and free it when the run fails. */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/filemap.h"
#include "gcdump/kind.h"

typedef struct map_guard {
    sigjmp_buf jump;
    const uint8_t *lo, *hi; /* the guarded mapping */
} map_guard;

static _Thread_local map_guard *volatile current;
/* Process-wide, as the signal disposition is: set once, then only read. */
static struct {
    pthread_once_t once;
    int failed;
    struct sigaction previous; /* the handler before ours, for what is not ours */
} bus = { PTHREAD_ONCE_INIT, 0, { .sa_handler = SIG_DFL } };

static void
on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    map_guard *g = current;
    const uint8_t *at = si ? (const uint8_t *)si->si_addr : NULL;
    if (g && at >= g->lo && at < g->hi)
        siglongjmp(g->jump, 1);
    if (bus.previous.sa_flags & SA_SIGINFO) {
        if (bus.previous.sa_sigaction) {
            bus.previous.sa_sigaction(sig, si, uctx);
            return;
        }
    } else if (bus.previous.sa_handler != SIG_DFL && bus.previous.sa_handler != SIG_IGN) {
        bus.previous.sa_handler(sig);
        return;
    }
    /* Default action: a fault repeats when this returns; a SIGBUS sent by
     * kill() does not, so raise it again. */
    signal(SIGBUS, SIG_DFL);
    if (!si || si->si_code <= 0)
        raise(sig);
}

static void
install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    bus.failed = sigaction(SIGBUS, &sa, &bus.previous) != 0;
}

int
pp_gcdump_map_run(const pp_gcdump_map *m, const char *path, int (*fn)(void *), void *arg,
                  pp_error *err)
{
    if (!m->base) /* an empty file: nothing is mapped */
        return fn(arg);
    pthread_once(&bus.once, install);
    if (bus.failed)
        return fn(arg); /* no guard to be had: the risk stays as it was */
    map_guard g;
    map_guard *outer = current; /* guards nest (the hash inside a read) */
    g.lo = m->data;
    g.hi = m->data + m->size;
    if (sigsetjmp(g.jump, 1)) {
        current = outer;
        struct stat st;
        long long now = stat(path, &st) == 0 ? (long long)st.st_size : -1;
        pp_error_set(err, PP_EIO,
                     "%s: the file shrank while it was read (%zu bytes when opened, %lld now): "
                     "another program is writing it; read a finished copy",
                     path ? path : PP_GCDUMP_KIND, m->size, now);
        return PP_EIO;
    }
    current = &g;
    int rc = fn(arg);
    current = outer;
    return rc;
}
