/* One heap snapshot of a live runtime to a .gcdump (heapsnap.h): the
 * type-flush session, the GCHeapSnapshot session read by the nettrace
 * reader into the streamed graph, its control thread (stop at the dump's
 * end, timeout, signals, cut a stream that does not end), and the file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/writer.h"
#include "ipc/heapsnap.h"
#include "ipc/ipc.h"
#include "ipc/spool.h"
#include "nettrace/stream.h"
#include "output/outfile.h"

/* A command's reply, unless PERFPIPE_IPC_TIMEOUT says otherwise: a runtime
 * still ending another tool's heap-dump session of a big heap answered
 * nothing for over 10 s (measured, 1.67 GB heap, load ~30). */
#define CMD_TIMEOUT_MS 30000
/* The heap-dump session's start waits while the target uses CPU, up to
 * this many times --timeout in all. */
#define START_CAP_FACTOR  20
#define RUNDOWN_TIMEOUT_S 60.0
#define FLUSH_WAIT_MS     3000
#define DEFAULT_TIMEOUT_S 30.0
#define CANCEL_POLL_MS    100
#define DEFAULT_BUFFER_MB 256
/* A retry's buffer is the target's memory: no more than this unasked. */
#define MAX_RETRY_BUFFER_MB 4096

enum { WHY_RUNNING, WHY_DONE, WHY_TIMEOUT, WHY_SIGNAL, WHY_ABORT };

typedef struct ctl {
    pp_ipc_session *session;
    int pipe[2];
    double timeout_s;
    struct timespec t0;
    volatile double busy_at; /* the walk's last progress, s after t0 */
    volatile int why;
    volatile int stopped;
} ctl;

static double
since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void
send_ctl(ctl *c, char b)
{
    ssize_t k = write(c->pipe[1], &b, 1);
    (void)k;
}

static int
cmd_ms(void)
{
    return pp_ipc_command_timeout_ms(CMD_TIMEOUT_MS);
}

/* A reply that did not come (pp_ipc_no_reply) becomes a failure that names
 * the step, how long it waited and what to do next. */
static void
name_step(pp_error *err, const char *step, const char *advice)
{
    char waited[128];
    snprintf(waited, sizeof waited, "%s", err->message + strlen(PP_IPC_NO_REPLY));
    pp_error_set(err, PP_EIO, "heap snapshot: the runtime did not answer %s%s: %s", step, waited,
                 advice);
}

#define IPC_TIMEOUT_ADVICE "PERFPIPE_IPC_TIMEOUT=SECONDS waits longer"

/* ProcessInfo, asked once more when no answer comes: the diagnostics
 * server answers one command at a time and may still be ending an earlier
 * session of a big heap. Safe to repeat: it changes nothing. */
static int
process_info(pp_ipc_endpoint *ep, pp_ipc_process_info *info, pp_error *err)
{
    int rc = pp_ipc_process_info_get(ep, cmd_ms(), info, err);
    if (rc != PP_OK && pp_ipc_no_reply(err) && !pp_ipc_cancel)
        rc = pp_ipc_process_info_get(ep, cmd_ms(), info, err);
    if (rc != PP_OK && pp_ipc_no_reply(err))
        name_step(
            err, "ProcessInfo (the first command, asked twice)",
            "its diagnostics server answers one command at a time: is it still ending an "
            "earlier session (a big heap's takes long), or is the process stopped? " IPC_TIMEOUT_ADVICE);
    return rc;
}

/* The target's CPU time, from /proc: a runtime walking its heap uses CPU,
 * a stopped (or frozen) one does not. */
typedef struct cpu_watch {
    uint64_t pid;
    unsigned long long ticks;
} cpu_watch;

static int
target_alive(void *user)
{
    cpu_watch *w = user;
    char path[64], buf[1024];
    unsigned long long ut, st;
    snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)w->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return 0;
    int moved = ut + st > w->ticks;
    w->ticks = ut + st;
    return moved;
}

/* Stop when the dump ended ('d'), on a signal ('s'), at the timeout; cut
 * the stream on 'a' or when the rundown does not end; leave on 'q'. */
static void *
control(void *arg)
{
    ctl *c = arg;
    double stop_at = 0;
    for (;;) {
        /* Once the walk is under way the timeout counts from its last
         * progress: a big heap's walk is read for longer than 30 s. */
        double left = c->stopped ? RUNDOWN_TIMEOUT_S - (since(&c->t0) - stop_at) :
                                   c->timeout_s - (since(&c->t0) - c->busy_at);
        int timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
        /* A signal reaches us through pp_ipc_cancel (pp_capture_signal):
         * look at it every CANCEL_POLL_MS. */
        int wait_ms = timeout < CANCEL_POLL_MS ? timeout : CANCEL_POLL_MS;
        struct pollfd p = { c->pipe[0], POLLIN, 0 };
        int pr = poll(&p, 1, wait_ms);
        char b = 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr > 0 && read(c->pipe[0], &b, 1) != 1)
            b = 0;
        if (pr == 0 && wait_ms < timeout) {
            if (!pp_ipc_cancel || c->stopped)
                continue;
            b = 's'; /* interrupted */
            pr = 1;
        }
        if (b == 'q')
            return NULL;
        if (b == 'a' || (pr == 0 && c->stopped)) {
            if (b == 'a' || c->why == WHY_RUNNING)
                c->why = WHY_ABORT;
            shutdown(pp_ipc_session_fd(c->session), SHUT_RDWR);
            c->stopped = 1;
            stop_at = since(&c->t0);
            continue;
        }
        if (c->stopped)
            continue;
        if (b == 'd' || b == 's' || pr == 0) {
            if (c->why == WHY_RUNNING)
                c->why = b == 'd' ? WHY_DONE : b == 's' ? WHY_SIGNAL : WHY_TIMEOUT;
            c->stopped = 1;
            stop_at = since(&c->t0);
            if (pp_ipc_session_stop(c->session, cmd_ms(), NULL) != PP_OK)
                shutdown(pp_ipc_session_fd(c->session), SHUT_RDWR);
        }
    }
}

static void *
stop_async(void *arg)
{
    pp_ipc_session_stop(arg, cmd_ms(), NULL);
    return NULL;
}

/* Read and drop a session's stream until it ends, within limit_ms. */
static void
drain_fd(int fd, int limit_ms)
{
    struct timespec t0;
    char buf[65536];
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int left = limit_ms - (int)(since(&t0) * 1000);
        struct pollfd p = { fd, POLLIN, 0 };
        if (left <= 0 || poll(&p, 1, left) <= 0)
            return;
        ssize_t k = read(fd, buf, sizeof buf);
        if (k <= 0 && !(k < 0 && errno == EINTR))
            return;
    }
}

/* Step 1: a session without the Type keyword resets the runtime's record
 * of logged types (dotnet-gcdump's "type table flushing" session). */
static int
flush_types(pp_ipc_endpoint *ep, pp_error *err)
{
    pp_ipc_provider p = { "Microsoft-DotNETCore-SampleProfiler", 0, 4, NULL };
    pp_ipc_session_config cfg = { .buffer_mb = 16, .nproviders = 1, .providers = &p };
    pp_ipc_session *s;
    /* Asked once more when no answer comes (as ProcessInfo): a first
     * request the runtime takes up late starts a session whose stream is
     * closed, which it ends; the session logs no heap. */
    int rc = pp_ipc_session_start(ep, &cfg, cmd_ms(), &s, err);
    if (rc != PP_OK && pp_ipc_no_reply(err) && !pp_ipc_cancel)
        rc = pp_ipc_session_start(ep, &cfg, cmd_ms(), &s, err);
    if (rc != PP_OK && pp_ipc_no_reply(err))
        name_step(err, "the type-flush session's start (CollectTracing, asked twice)",
                  "its diagnostics server answers one command at a time: is it busy with another "
                  "tool's session, or is the process stopped? " IPC_TIMEOUT_ADVICE);
    if (rc != PP_OK)
        return rc;
    int fd = pp_ipc_session_fd(s);
    struct pollfd pf = { fd, POLLIN, 0 };
    poll(&pf, 1, FLUSH_WAIT_MS); /* the session runs: data arrives */
    pthread_t t;
    int started = pthread_create(&t, NULL, stop_async, s) == 0;
    if (!started)
        pp_ipc_session_stop(s, cmd_ms(), NULL);
    drain_fd(fd, 15000);
    if (started)
        pthread_join(t, NULL);
    pp_ipc_session_close(s);
    return PP_OK;
}

typedef struct run {
    const pp_heapsnap_spec *spec;
    pp_heapsnap_result *res;
    pp_heap_graph *g;
    ctl c;
    pp_trace_source *src;
    pp_spool *spool;
    uint64_t bytes;
    uint64_t walk_bytes, walk_events, dropped; /* for the retry's buffer size */
    uint32_t buffer_mb;
    struct timespec t0, last;
    double dump_end;
} run;

static void
on_bytes(void *user, const void *data, size_t len)
{
    (void)data;
    ((run *)user)->bytes += len;
}

static void
on_warning(void *user, const pp_error *w)
{
    (void)user;
    (void)w; /* dropped events are checked after the end */
}

static void
progress(run *r, const char *phase, int force)
{
    if (!r->spec->progress)
        return;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!force &&
        (t.tv_sec - r->last.tv_sec) * 1000 + (t.tv_nsec - r->last.tv_nsec) / 1000000 < 250)
        return;
    r->last = t;
    pp_heapsnap_progress p = { .phase = phase,
                               .elapsed_s = since(&r->t0),
                               .stream_bytes = r->bytes };
    pp_heap_graph_stats_get(r->g, &p.graph);
    r->spec->progress(r->spec->user, &p);
}

/* Step 2-3: the dump session, read to its end. */
static int
read_dump(run *r, pp_error *err)
{
    /* Read through the spool: the socket is drained as fast as the runtime
     * writes, whatever the graph's speed, so its buffer does not fill and
     * drop the dump's events (spool.h). */
    int fd, rc;
    if ((rc = pp_spool_start(pp_ipc_session_fd(r->c.session), &r->spool, &fd, err)) != PP_OK)
        return rc;
    if ((rc = pp_nettrace_open_fd(fd, "heap-dump session", &r->src, err)) != PP_OK) {
        r->src = NULL;
        return rc;
    }
    pp_nettrace_set_callbacks(r->src, on_bytes, on_warning, r);
    const pp_trace_event *ev;
    pp_error rerr = PP_ERROR_INIT;
    int failed = 0, asked = 0;
    while ((rc = pp_nettrace_next(r->src, &ev, &rerr)) > 0) {
        if (ev->provider_known == PP_PROVIDER_RUNTIME &&
            ((ev->event_id >= 16 && ev->event_id <= 19) ||
             (ev->event_id >= 36 && ev->event_id <= 38))) {
            r->walk_bytes += ev->payload_size;
            r->walk_events++;
            r->c.busy_at = since(&r->c.t0);
        }
        if (failed)
            continue;
        if (pp_heap_graph_event(r->g, ev, err) != PP_OK) {
            failed = err->code;
            send_ctl(&r->c, 's'); /* stop; the rest of the stream is dropped */
            continue;
        }
        if (!asked && pp_heap_graph_done(r->g)) {
            asked = 1;
            r->dump_end = since(&r->t0);
            send_ctl(&r->c, 'd');
        }
        pp_heap_graph_stats st;
        pp_heap_graph_stats_get(r->g, &st);
        progress(r, asked ? "rundown" : st.state == 0 ? "waiting for the GC" : "dumping", 0);
    }
    if (rc < 0) {
        pp_nettrace_drain(r->src);
        if (!failed) {
            *err = rerr;
            failed = rerr.code ? rerr.code : PP_EIO;
        }
    }
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(r->src, &st);
    r->dropped = st.dropped_events;
    /* Any gap in a thread's sequence numbers: a lost BulkType names no
     * type, a lost walk event leaves a hole the graph may not show. */
    if (!failed && st.dropped_events) {
        pp_error_set(err, PP_EFORMAT,
                     "the runtime dropped %llu events of the heap-dump session "
                     "(its buffer was full while this process read the stream)",
                     (unsigned long long)st.dropped_events);
        failed = PP_EFORMAT;
    }
    return failed ? failed : PP_OK;
}

static int
why_error(run *r, pp_error *err)
{
    if (r->c.why == WHY_SIGNAL || r->c.why == WHY_ABORT) {
        pp_error_set(err, PP_EIO,
                     "interrupted before the heap dump was complete; nothing "
                     "was written");
        return PP_EIO;
    }
    if (r->c.why == WHY_TIMEOUT) {
        pp_heap_graph_stats st;
        pp_heap_graph_stats_get(r->g, &st);
        pp_error_set(err, PP_EIO,
                     "timed out after %.0f s %s (%llu objects so far): a larger "
                     "--timeout, or is the process suspended?",
                     r->c.timeout_s,
                     st.state == 0 ? "waiting for the runtime's heap-dump GC" :
                                     "before the heap dump ended",
                     (unsigned long long)st.nodes);
        return PP_EIO;
    }
    return PP_OK;
}

static int
write_file(run *r, const pp_heap_snapshot *snap, pp_ipc_process_info *info, pp_error *err)
{
    pp_outfile o;
    int rc = pp_outfile_open(&o, r->spec->target.output, 0, NULL, err);
    if (rc != PP_OK)
        return rc;
    /* DateTime ticks (100 ns since 0001-01-01) of now, UTC. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t ticks = INT64_C(621355968000000000) + (int64_t)now.tv_sec * 10000000 +
                    now.tv_nsec / 100;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    pp_gcdump_write_info wi = {
        .creation_tool = "perfpipe",
        .process_name = r->res->process,
        .machine_name = host[0] ? host : NULL,
        .process_id = (uint32_t)r->res->pid,
        .time_collected_ticks = ticks,
    };
    (void)info;
    if ((rc = pp_gcdump_write(o.f, r->spec->target.output, snap, &wi, err)) != PP_OK) {
        pp_outfile_abort(&o);
        return rc;
    }
    if ((rc = pp_outfile_commit(&o, err)) != PP_OK)
        return rc;
    struct stat st;
    if (stat(r->spec->target.output, &st) == 0)
        r->res->file_bytes = (uint64_t)st.st_size;
    return PP_OK;
}

static const char *
base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int
start_dump(run *r, pp_ipc_endpoint *ep, pp_error *err)
{
    pp_ipc_provider p = { "Microsoft-Windows-DotNETRuntime", PP_HEAPSNAP_KEYWORDS, 5, NULL };
    /* The runtime answers this start only once the induced GC has walked
     * the heap (the enable callback runs the GC before the reply): 30 s
     * were too few for 21 M objects at load 30. dotnet-gcdump waits for
     * this reply without a limit; here the wait lasts while the target
     * uses CPU, and --timeout counts from its last CPU tick. */
    cpu_watch w = { ep->pid, 0 };
    double idle_ms = r->c.timeout_s * 1000.0;
    pp_ipc_session_config cfg = {
        .buffer_mb = r->buffer_mb,
        .rundown_keyword = PP_IPC_DEFAULT_RUNDOWN_KEYWORD, /* module names */
        .request_stackwalk = 0,
        .nproviders = 1,
        .providers = &p,
        .alive = ep->pid ? target_alive : NULL,
        .alive_user = &w,
        .alive_cap_ms = idle_ms * START_CAP_FACTOR > INT32_MAX ? INT32_MAX :
                                                                 (int)(idle_ms * START_CAP_FACTOR),
    };
    if (ep->pid)
        target_alive(&w);
    int rc = pp_ipc_session_start(ep, &cfg, idle_ms > INT32_MAX ? INT32_MAX : (int)idle_ms,
                                  &r->c.session, err);
    if (rc != PP_OK && pp_ipc_no_reply(err))
        name_step(err, "the heap-dump session's start (CollectTracing)",
                  ep->pid ? "it answers once the induced GC has walked the heap, and the process "
                            "used no CPU meanwhile: is it stopped? --timeout SECONDS waits longer "
                            "(not asked again: a second request would wait behind the first)" :
                            "it answers once the induced GC has walked the heap (longer on a big "
                            "heap or a loaded machine): --timeout SECONDS waits longer (not asked "
                            "again: a second request would wait behind the first)");
    if (rc != PP_OK)
        return rc;
    clock_gettime(CLOCK_MONOTONIC, &r->c.t0);
    if (pipe2(r->c.pipe, O_CLOEXEC) != 0) {
        pp_error_set(err, PP_EIO, "pipe: %s", strerror(errno));
        return PP_EIO;
    }
    return PP_OK;
}

/* The first try's buffer: 256 MB, or half the target's resident memory
 * up to MAX_RETRY_BUFFER_MB (a walk takes about a quarter of the heap's
 * bytes, 0.27 on a 1.67 GB heap of 10 M objects; EventPipe allocates its
 * buffers as events come, so the size is a ceiling, not a cost). A pid
 * known only from a diagnostic port (maybe another namespace) gets 256. */
static uint32_t
first_buffer_mb(uint64_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%llu/status", (unsigned long long)pid);
    FILE *f = pid ? fopen(path, "r") : NULL;
    unsigned long long kb = 0;
    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
                break;
        fclose(f);
    }
    unsigned long long mb = kb / 1024 / 2;
    return mb <= DEFAULT_BUFFER_MB   ? DEFAULT_BUFFER_MB :
           mb >= MAX_RETRY_BUFFER_MB ? MAX_RETRY_BUFFER_MB :
                                       (uint32_t)mb;
}

/* The buffer, in MB, that holds the whole walk: what came, what was
 * dropped at the mean size of what came, a quarter more, and room for the
 * rest of the session's events. */
static uint32_t
walk_mb(const run *r)
{
    if (!r->walk_events)
        return 0;
    double mean = (double)r->walk_bytes / (double)r->walk_events;
    double total = ((double)r->walk_bytes + (double)r->dropped * mean) * 1.25;
    double mb = total / (1024.0 * 1024.0) + 32.0;
    return mb > (double)UINT32_MAX ? UINT32_MAX : (uint32_t)mb;
}

/* Close what one attempt opened (its graph stays: the caller frees it). */
static void
end_attempt(run *r)
{
    if (r->src)
        pp_nettrace_close(r->src);
    r->src = NULL;
    uint64_t peak = 0;
    if (r->spool) {
        pp_spool_finish(r->spool, &peak);
        if (peak > r->res->spool_peak_bytes)
            r->res->spool_peak_bytes = peak;
    }
    r->spool = NULL;
    if (r->c.session)
        pp_ipc_session_close(r->c.session);
    r->c.session = NULL;
    for (int k = 0; k < 2; k++) {
        if (r->c.pipe[k] >= 0)
            close(r->c.pipe[k]);
        r->c.pipe[k] = -1;
    }
}

/* One snapshot into r->g, laid out in *snap: flush the types, the dump
 * session read to its end, the graph finished. PP_EFORMAT is a dump that
 * does not make a whole heap (events lost); the caller may try again. */
static int
attempt(run *r, pp_ipc_endpoint *ep, int resume, const pp_heap_snapshot **snap, pp_error *err)
{
    pthread_t thread;
    int rc;
    r->bytes = 0;
    r->dump_end = 0;
    r->walk_bytes = r->walk_events = r->dropped = 0;
    r->c.busy_at = 0;
    r->c.why = WHY_RUNNING;
    r->c.stopped = 0;
    if ((rc = pp_heap_graph_new(&r->g, err)) != PP_OK)
        return rc;
    progress(r, "flushing types", 1);
    if ((rc = flush_types(ep, err)) != PP_OK || (rc = start_dump(r, ep, err)) != PP_OK)
        return rc;
    if (resume) {
        pp_error ignored = PP_ERROR_INIT;
        pp_ipc_resume_runtime(ep, cmd_ms(), &ignored);
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int prc = pthread_create(&thread, NULL, control, &r->c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        pp_error_set(err, PP_EIO, "cannot start the control thread: %s", strerror(prc));
        return PP_EIO;
    }
    rc = read_dump(r, err);
    if (rc == PP_OK)
        rc = why_error(r, err);
    if (rc == PP_OK && !pp_heap_graph_done(r->g))
        rc = r->c.why != WHY_RUNNING ? why_error(r, err) : PP_OK;
    send_ctl(&r->c, 'q');
    pthread_join(thread, NULL);
    r->res->stream_bytes = r->bytes;
    r->res->dump_s = r->dump_end;
    pp_heap_graph_stats_get(r->g, &r->res->graph);
    if (rc != PP_OK)
        return rc;
    progress(r, "writing", 1);
    return pp_heap_graph_finish(r->g, snap, err);
}

int
pp_heapsnap_collect(const pp_heapsnap_spec *spec, pp_heapsnap_result *res, pp_error *err)
{
    run r = { .spec = spec, .res = res, .c = { .pipe = { -1, -1 } } };
    pp_ipc_endpoint ep;
    pp_ipc_process_info info;
    int rc, have_info = 0;

    memset(res, 0, sizeof *res);
    memset(&info, 0, sizeof info);
    clock_gettime(CLOCK_MONOTONIC, &r.t0);
    if (!spec->target.output) {
        pp_error_set(err, PP_EINVAL, "a heap snapshot needs an output file");
        return PP_EINVAL;
    }
    r.c.timeout_s = spec->timeout_s > 0 ? spec->timeout_s : DEFAULT_TIMEOUT_S;
    if ((rc = pp_capture_target(&spec->target, &ep, err)) != PP_OK)
        return rc;
    if ((rc = process_info(&ep, &info, err)) != PP_OK)
        goto out;
    have_info = 1;
    res->pid = ep.pid ? ep.pid : info.pid;
    snprintf(res->process, sizeof res->process, "%s",
             info.entrypoint_assembly && *info.entrypoint_assembly ? info.entrypoint_assembly :
             info.command_line                                     ? base_of(info.command_line) :
                                                                     "dotnet");
    char *sp = strchr(res->process, ' ');
    if (sp)
        *sp = '\0';
    const pp_heap_snapshot *snap = NULL;
    r.buffer_mb = spec->target.buffer_mb ? spec->target.buffer_mb : first_buffer_mb(ep.pid);
    rc = attempt(&r, &ep, ep.mode == PP_IPC_LISTEN, &snap, err);
    if (rc == PP_EFORMAT && !pp_ipc_cancel) {
        /* Events of the dump were lost (or it never came): once more, as
         * a new dump, with a buffer that holds the walk unless the user
         * chose one, then both causes. */
        pp_error first = *err;
        uint32_t need = walk_mb(&r);
        end_attempt(&r);
        pp_heap_graph_free(r.g);
        r.g = NULL;
        res->retried = 1;
        res->first_buffer_mb = r.buffer_mb;
        if (!spec->target.buffer_mb && need > r.buffer_mb)
            r.buffer_mb = need < MAX_RETRY_BUFFER_MB ? need : MAX_RETRY_BUFFER_MB;
        res->buffer_mb = r.buffer_mb;
        clock_gettime(CLOCK_MONOTONIC, &r.c.t0);
        rc = attempt(&r, &ep, 0, &snap, err);
        if (rc == PP_EFORMAT) {
            pp_error second = *err;
            need = walk_mb(&r) > need ? walk_mb(&r) : need;
            pp_error_set(err, PP_EFORMAT,
                         "%s; taken again with a %u MB buffer, it lost events "
                         "too (%s). The runtime holds the heap walk in its session buffer and "
                         "drops what does not fit (before .NET 11): this heap needs about %u MB "
                         "(--buffersize %u; the buffer is the target process's memory)",
                         first.message, (unsigned)r.buffer_mb, second.message, (unsigned)need,
                         (unsigned)need);
        }
    }
    if (rc != PP_OK) {
        if (rc == PP_EFORMAT)
            rc = PP_EIO; /* the runtime's stream, not a file, was short */
        goto out;
    }
    res->node_count = snap->node_count;
    res->type_count = snap->type_count;
    res->edge_count = snap->edge_count;
    if ((rc = write_file(&r, snap, &info, err)) != PP_OK)
        goto out;
    res->elapsed_s = since(&r.t0);
out:
    end_attempt(&r);
    pp_heap_graph_free(r.g);
    if (have_info)
        pp_ipc_process_info_free(&info);
    pp_ipc_endpoint_close(&ep);
    return rc;
}
