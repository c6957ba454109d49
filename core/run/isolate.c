/* Stage isolation: the engine in a child, a watching parent (isolate.h). */
#define _GNU_SOURCE 1 /* fopencookie */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "engine/guard.h"
#include "isolate.h"
#include "isolate_proc.h"
#include "result/result.h"

/* What the child sends before the document text. */
typedef struct child_msg {
    int32_t rc;
    pp_error err;
    uint64_t doc_len;  /* bytes of compact JSON that follow; 0 = no document */
    int32_t delivered; /* deliver's status + 1; 0 = not delivered */
} child_msg;

/* The writing process's state, taken before any plugin code runs: a
 * plugin may chdir(), umask() or close descriptors in the stages' process,
 * and the outputs must land where and how the user said. */
typedef struct proc_state {
    mode_t mask;
    struct stat cwd; /* "." */
    int have_cwd;
} proc_state;

/* The same file as st (st_dev, st_ino) is still open on fd. */
static int
same_file(int fd, const struct stat *st)
{
    struct stat now;

    return fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* 1 when the plugins changed what the outputs depend on (the umask is put
 * back either way): the parent then writes them. */
static int
state_changed(const proc_state *ps, int saved_stdout, const struct stat *out)
{
    struct stat now;
    int changed = umask(ps->mask) != ps->mask;

    if (ps->have_cwd &&
        (stat(".", &now) != 0 || now.st_dev != ps->cwd.st_dev || now.st_ino != ps->cwd.st_ino))
        changed = 1;
    return changed || !same_file(saved_stdout, out);
}

static const char *const phase_names[] = { "idle", "create", "consume", "finish", "destroy" };

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
write_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static void stdout_faults(const pp_plan *plan, const pp_guard_watch *w, json_t *doc, int *rc,
                          pp_error *err);

/* ---- the child ------------------------------------------------------------ */

typedef struct stdout_trap {
    pp_guard_watch *watch;
    size_t nstages;
} stdout_trap;

/* A plugin's printf lands here: counted against the running stage, never
 * mixed into the document the parent writes. */
static ssize_t
trap_write(void *cookie, const char *buf, size_t size)
{
    stdout_trap *t = cookie;

    (void)buf;
    if (t->watch->phase != PP_PHASE_IDLE && t->watch->stage < t->nstages)
        t->watch->records[t->nstages + t->watch->stage] += size;
    return (ssize_t)size;
}

static void
run_child(const pp_plan *plan, const pp_run_hooks *hooks, const pp_guard *g, int fd,
          const proc_state *ps, const pp_sig_state *sigs)
{
    stdout_trap *trap = malloc(sizeof *trap); /* lives until _exit */
    cookie_io_functions_t io = { NULL, trap_write, NULL, NULL };
    child_msg msg;
    json_t *doc = NULL;
    char *text = NULL;
    FILE *real_stdout = stdout, *f = NULL;
    int null_fd, saved_fd = dup(STDOUT_FILENO), rc, moved;
    struct stat out_st, pipe_st;

    /* A process group of its own: whatever a plugin forks is ended with
     * it (the parent kills the group). Writing the terminal from outside
     * its foreground group must not stop the run (stty tostop). */
    setpgid(0, 0);
    signal(SIGTTOU, SIG_IGN);
    /* SIGTERM, not SIGKILL: the CLI's handler removes temporary files. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (fstat(STDOUT_FILENO, &out_st) != 0)
        memset(&out_st, 0, sizeof out_st);
    if (fstat(fd, &pipe_st) != 0)
        _exit(121);
    /* Raw write(1, ...) goes nowhere; stdio writes are counted. */
    if ((null_fd = open("/dev/null", O_WRONLY)) >= 0) {
        dup2(null_fd, STDOUT_FILENO);
        close(null_fd);
    }
    if (trap != NULL) {
        trap->watch = g->watch;
        trap->nstages = plan->nstages;
    }
    if (trap != NULL && (f = fopencookie(trap, "w", io)) != NULL) {
        setvbuf(f, NULL, _IONBF, 0);
        stdout = f;
    }
    memset(&msg, 0, sizeof msg);
    msg.err = (pp_error)PP_ERROR_INIT;
    rc = pp_engine_run_guarded(plan, hooks, g, &doc, &msg.err);
    if (doc != NULL)
        stdout_faults(plan, g->watch, doc, &rc, &msg.err);
    msg.rc = rc;
    /* The plugins are done: the real stdout is back for the outputs. */
    if (f != NULL)
        fflush(f);
    stdout = real_stdout;
    /* Signals as the host set them up, whatever a plugin ignored, caught or
     * blocked; then nothing is written after an interrupt (guard.h). */
    pp_sig_state_restore(sigs);
    __atomic_store_n(&g->watch->writing, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g->watch->interrupted, __ATOMIC_SEQ_CST) != 0)
        _exit(122);
    /* A plugin that closed descriptors took the channel to the parent:
     * nothing can be told, nothing is written (the parent says why). */
    if (!same_file(fd, &pipe_st))
        _exit(121);
    moved = state_changed(ps, saved_fd, &out_st);
    if (!moved)
        dup2(saved_fd, STDOUT_FILENO);
    if (hooks->deliver != NULL && !moved) {
        msg.delivered = hooks->deliver(hooks->deliver_user, doc, msg.rc, &msg.err) + 1;
        fflush(stdout);
        json_decref(doc);
        doc = NULL;
    }
    if (doc != NULL && (text = json_dumps(doc, JSON_COMPACT)) == NULL) {
        msg.rc = PP_ENOMEM;
        pp_error_set(&msg.err, PP_ENOMEM, "out of memory writing the result document");
    }
    msg.doc_len = text != NULL ? strlen(text) : 0;
    if (write_all(fd, &msg, sizeof msg) != 0 || (text && write_all(fd, text, msg.doc_len) != 0))
        _exit(120);
    _exit(0);
}

/* ---- the parent ----------------------------------------------------------- */

typedef struct attempt {
    int sfd;    /* signalfd of SIGINT/SIGTERM/SIGHUP, or -1 */
    int signal; /* one of them arrived: forwarded to the child */
    char *buf;
    size_t len, cap;
    int timed_out;
    uint32_t stage, phase; /* where the limit was hit */
    int status;            /* waitpid status */
} attempt;

/* The child's message is read into a buffer made before the fork, which a
 * delivered run's message (no document) always fits: once the stages'
 * process may have put the result in place, this process allocates
 * nothing, so a failed allocation cannot turn a written result into a
 * failed run (exit 7 with the file there). Only a document to write here
 * grows it, and then nothing was written yet. */
#define MSG_BUF_START 65536
_Static_assert(sizeof(child_msg) <= MSG_BUF_START, "a delivered run's message fits the buffer");

/* Double a's full buffer. */
static int
grow(attempt *a)
{
    char *p;

    if ((p = realloc(a->buf, 2 * a->cap)) == NULL)
        return -1;
    a->buf = p;
    a->cap *= 2;
    return 0;
}

/* Stage s's progress limit: the command line's, else the stage's
 * `timeout`, else the default. */
static uint32_t
stage_limit(const pp_plan *plan, uint32_t cli, uint32_t s)
{
    if (cli > 0)
        return cli;
    if (s < plan->nstages && plan->stages[s].timeout_s > 0)
        return plan->stages[s].timeout_s;
    return PP_STAGE_TIMEOUT_DEFAULT;
}

/* Read the child's message to EOF, killing it when one callback makes no
 * progress within its stage's limit. -1 only when out of memory. */
static int
watch_child(pid_t pid, int fd, pp_guard_watch *w, const pp_plan *plan, uint32_t cli, attempt *a)
{
    uint64_t beat = w->beat;
    double since = now_s();
    int oom = 0, reaped = 0;

    for (;;) {
        struct pollfd p[2] = { { fd, POLLIN, 0 }, { a->sfd, POLLIN, 0 } };
        int n = poll(p, a->sfd >= 0 ? 2 : 1, 200);

        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && a->sfd >= 0 && (p[1].revents & POLLIN)) {
            struct signalfd_siginfo si;

            /* Interrupted. A child writing the outputs gets the signal, so
             * that its handler removes its temporary files; one still in
             * plugin code (which may ignore, catch or block it) has
             * written nothing and is ended (guard.h). */
            if (read(a->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                a->signal = (int)si.ssi_signo;
                __atomic_store_n(&w->interrupted, (uint32_t)a->signal, __ATOMIC_SEQ_CST);
                kill(-pid, __atomic_load_n(&w->writing, __ATOMIC_SEQ_CST) ? a->signal : SIGKILL);
            }
            if (!(p[0].revents & (POLLIN | POLLHUP)))
                continue;
        }
        if (n > 0) {
            ssize_t r;

            if (a->len == a->cap && grow(a) != 0) {
                oom = 1;
                kill(-pid, SIGKILL);
                break;
            }
            r = read(fd, a->buf + a->len, a->cap - a->len);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break; /* the end (or, once reaped, all it wrote) */
            a->len += (size_t)r;
            continue;
        }
        if (reaped)
            break;
        /* The stages' process is gone but the pipe is still open: a
         * process it forked holds it. Its message is whole in the pipe. */
        if (!reaped && waitpid(pid, &a->status, WNOHANG) == pid) {
            reaped = 1;
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
            continue;
        }
        if (w->beat != beat || w->phase == PP_PHASE_IDLE) {
            beat = w->beat;
            since = now_s();
        } else if (!a->timed_out && now_s() - since >= stage_limit(plan, cli, w->stage)) {
            a->timed_out = 1;
            a->stage = w->stage;
            a->phase = w->phase;
            kill(-pid, SIGKILL);
        }
    }
    while (!reaped && waitpid(pid, &a->status, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* whatever the stages' process left running */
    return oom ? -1 : 0;
}

/* The error object for the stage a failed attempt blames, or NULL when the
 * child died outside plugin code. */
static json_t *
blame(const pp_plan *plan, const pp_guard_watch *w, const attempt *a, uint32_t cli, uint32_t *stage)
{
    uint32_t s = a->timed_out ? a->stage : w->stage;
    uint32_t phase = a->timed_out ? a->phase : w->phase;
    uint32_t limit = stage_limit(plan, cli, s);
    char what[160], msg[PP_ERROR_MESSAGE_MAX];
    json_t *e;

    if (phase == PP_PHASE_IDLE || phase > PP_PHASE_DESTROY || s >= plan->nstages)
        return NULL;
    if (a->timed_out)
        snprintf(what, sizeof what,
                 "made no progress for %u s (the progress limit: "
                 "the stage's 'timeout' key or --stage-timeout changes it)",
                 limit);
    else if (WIFSIGNALED(a->status))
        snprintf(what, sizeof what, "was killed by signal %d (%s)", WTERMSIG(a->status),
                 strsignal(WTERMSIG(a->status)));
    else if (WIFEXITED(a->status))
        snprintf(what, sizeof what, "called exit(%d)", WEXITSTATUS(a->status));
    else
        snprintf(what, sizeof what, "ended the run");
    snprintf(msg, sizeof msg,
             "stage '%s' (analyzer %s) %s in %s(), after %llu record%s "
             "(input read to byte %llu)",
             plan->stages[s].id, plan->stages[s].analyzer->name, what, phase_names[phase],
             (unsigned long long)w->records[s], w->records[s] == 1 ? "" : "s",
             (unsigned long long)w->input_bytes);
    e = json_pack("{s:s, s:s, s:I, s:I}", "message", msg, "phase", phase_names[phase],
                  "last_record", (json_int_t)w->records[s], "input_offset",
                  (json_int_t)w->input_bytes);
    if (e == NULL)
        return NULL;
    if (a->timed_out)
        json_object_set_new(e, "limit_s", json_integer(limit));
    else if (WIFSIGNALED(a->status))
        json_object_set_new(e, "signal",
                            json_string(sigabbrev_np(WTERMSIG(a->status)) ?
                                            sigabbrev_np(WTERMSIG(a->status)) :
                                            "?"));
    else if (WIFEXITED(a->status))
        json_object_set_new(e, "exit_status", json_integer(WEXITSTATUS(a->status)));
    *stage = s;
    return e;
}

/* A stage that wrote to stdout fails after the fact (in the child, before
 * the document is delivered): the document is clean, but a plugin that
 * prints is broken. */
static void
stdout_faults(const pp_plan *plan, const pp_guard_watch *w, json_t *doc, int *rc, pp_error *err)
{
    json_t *stages = json_object_get(doc, "stages");

    for (size_t s = 0; s < plan->nstages; s++) {
        uint64_t n = w->records[plan->nstages + s];
        json_t *st = json_array_get(stages, s);
        char msg[PP_ERROR_MESSAGE_MAX];

        if (n == 0 || st == NULL)
            continue;
        snprintf(msg, sizeof msg,
                 "stage '%s' (analyzer %s) wrote %llu bytes to standard output "
                 "(stdout carries the result; a plugin must log through the host)",
                 plan->stages[s].id, plan->stages[s].analyzer->name, (unsigned long long)n);
        pp_result_stage_failed_with(
            st, json_pack("{s:s, s:I}", "message", msg, "stdout_bytes", (json_int_t)n));
        json_object_set_new(st, "tables", json_array());
        json_object_set_new(st, "totals", json_object());
        if (*rc == PP_OK) {
            *rc = PP_EPLUGIN;
            pp_error_set(err, PP_EPLUGIN, "%s", msg);
        }
    }
}

/* The stages' process, from fork to _exit. */
static void
child_main(const pp_plan *plan, const pp_run_hooks *hooks, const pp_guard *g, const int fds[2],
           int sfd, const sigset_t *old_mask, const proc_state *pst)
{
    pp_sig_state sigs;

    close(fds[0]);
    if (sfd >= 0)
        close(sfd);
    /* Forwarded SIGINT/SIGTERM end the stages even when perfpipe
     * started with them ignored: nothing is written after them. */
    for (int k = 0; k < 2; k++) {
        int sig = k == 0 ? SIGINT : SIGTERM;
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            signal(sig, SIG_DFL);
    }
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    /* What the host set up, put back before the outputs are written. */
    pp_sig_state_take(&sigs);
    run_child(plan, hooks, g, fds[1], pst, &sigs);
}

int
pp_isolate_run(const pp_plan *plan, const pp_run_hooks *hooks, json_t **doc, pp_error *err)
{
    uint32_t cli = hooks->stage_timeout_s;
    size_t wsize = sizeof(pp_guard_watch) + 2 * (plan->nstages + 1) * sizeof(uint64_t);
    json_t **faults = calloc(plan->nstages + 1, sizeof *faults);
    pp_guard_watch *w = mmap(NULL, wsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                             0);
    pp_guard g = { w, (json_t *const *)faults };
    sigset_t forward, old_mask;
    int rc = PP_EPLUGIN, sfd, got_signal = 0;

    *doc = NULL;
    if (faults == NULL || w == MAP_FAILED) {
        free(faults);
        if (w != MAP_FAILED)
            munmap(w, wsize);
        pp_error_set(err, PP_ENOMEM, "out of memory starting the run");
        return PP_ENOMEM;
    }
    /* SIGINT, SIGTERM and SIGHUP reach the parent through a signalfd and
     * are passed on to the child, which cleans up; then the parent takes
     * the same signal. */
    sigemptyset(&forward);
    sigaddset(&forward, SIGINT);
    sigaddset(&forward, SIGTERM);
    sigaddset(&forward, SIGHUP);
    sigprocmask(SIG_BLOCK, &forward, &old_mask);
    sfd = signalfd(-1, &forward, SFD_CLOEXEC);
    /* This process adopts whatever the stages' process forks and leaves
     * behind, even in a session of its own (a daemon), and ends it after
     * each attempt; the children it had before are its caller's. */
    pp_reaper reaper;
    pp_reaper_start(&reaper);
    proc_state pst;
    pst.mask = umask(022);
    umask(pst.mask);
    pst.have_cwd = stat(".", &pst.cwd) == 0;
    /* Each attempt either succeeds or blames one more stage; one that
     * read in parallel and failed is first redone serially. */
    pp_run_hooks serial = *hooks;
    for (size_t tries = 0; tries <= plan->nstages && !got_signal; tries++) {
        attempt a = { .sfd = sfd };
        child_msg msg;
        uint32_t culprit = 0;
        json_t *e;
        int fds[2];
        pid_t pid;

        memset(w, 0, wsize);
        fflush(stdout);
        fflush(stderr);
        a.cap = MSG_BUF_START;
        if ((a.buf = malloc(a.cap)) == NULL) {
            pp_error_set(err, PP_ENOMEM, "out of memory starting the stages' process");
            rc = PP_ENOMEM;
            break;
        }
        if (pipe2(fds, O_CLOEXEC) != 0 || (pid = fork()) < 0) {
            free(a.buf);
            pp_error_set(err, PP_EIO, "cannot start the stages' process: %s", strerror(errno));
            rc = PP_EIO;
            break;
        }
        if (pid == 0)
            child_main(plan, &serial, &g, fds, sfd, &old_mask, &pst);
        setpgid(pid, pid); /* as the child does: no race on who runs first */
        close(fds[1]);
        int watched = watch_child(pid, fds[0], w, plan, cli, &a);
        pp_reaper_end_strays(&reaper);
        if (watched != 0) {
            close(fds[0]);
            free(a.buf);
            pp_error_set(err, PP_ENOMEM, "out of memory reading the result document");
            rc = PP_ENOMEM;
            break;
        }
        close(fds[0]);
        if (a.signal != 0) {
            got_signal = a.signal;
            free(a.buf);
            pp_error_set(err, PP_EIO, "interrupted by signal %d (%s)", got_signal,
                         strsignal(got_signal));
            rc = PP_EIO;
            break;
        }
        memset(&msg, 0, sizeof msg);
        if (a.len >= sizeof msg)
            memcpy(&msg, a.buf, sizeof msg);
        if (!a.timed_out && WIFEXITED(a.status) && WEXITSTATUS(a.status) == 0 &&
            a.len >= sizeof msg && a.len - sizeof msg == msg.doc_len) {
            json_error_t je;

            rc = msg.rc;
            if (err != NULL)
                *err = msg.err;
            if (msg.delivered > 0 && hooks->delivered != NULL)
                *hooks->delivered = msg.delivered - 1;
            if (msg.doc_len > 0 &&
                (*doc = json_loadb(a.buf + sizeof msg, msg.doc_len, 0, &je)) == NULL) {
                pp_error_set(err, PP_ENOMEM, "out of memory reading the result document");
                rc = PP_ENOMEM;
            }
            free(a.buf);
            break;
        }
        free(a.buf);
        if (w->parallel && serial.jobs != 1) {
            serial.jobs = 1;
            tries--;
            continue;
        }
        if (!a.timed_out && WIFEXITED(a.status) && WEXITSTATUS(a.status) == 121) {
            pp_error_set(err, PP_EPLUGIN,
                         "a stage closed descriptors it did not open (the "
                         "stages' channel to perfpipe): no result was written; run the stages "
                         "one at a time to find it");
            rc = PP_EPLUGIN;
            break;
        }
        if ((e = blame(plan, w, &a, cli, &culprit)) == NULL) {
            pp_error_set(err, PP_EIO,
                         "the run died outside any plugin (%s %d) reading input "
                         "at byte %llu: this is a perfpipe bug, please report it with the input",
                         WIFSIGNALED(a.status) ? "signal" : "exit status",
                         WIFSIGNALED(a.status) ? WTERMSIG(a.status) : WEXITSTATUS(a.status),
                         (unsigned long long)w->input_bytes);
            rc = PP_EIO;
            break;
        }
        json_decref(faults[culprit]);
        faults[culprit] = e;
    }
    for (size_t s = 0; s < plan->nstages; s++)
        json_decref(faults[s]);
    free(faults);
    munmap(w, wsize);
    pp_reaper_stop(&reaper);
    if (sfd >= 0)
        close(sfd);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (got_signal != 0) {
        /* Ends the program as the signal would have, even when it was
         * ignored when perfpipe started (a background job of a script). */
        signal(got_signal, SIG_DFL);
        raise(got_signal);
    }
    return rc;
}
