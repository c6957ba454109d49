/* One capture from a live runtime to a kept file (capture.h): target,
 * output reservation, session, stop timer thread, tee, finish. */
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

#include <perfpipe/perfpipe.h>

#include "ipc/capture.h"
#include "ipc/ipc.h"
#include "ipc/procs.h"
#include "ipc/providers.h"

/* How long the runtime may take to answer one command, and to finish its
 * rundown after StopTracing before the stream is cut. */
/* A command's reply; PERFPIPE_IPC_TIMEOUT (seconds) overrides. */
#define CMD_TIMEOUT_MS     pp_ipc_command_timeout_ms(10000)
#define RUNDOWN_TIMEOUT_MS 60000
#define MAX_OPEN           8

struct pp_capture {
    pp_ipc_endpoint ep;
    pp_ipc_session *session;
    pp_capture_providers prov;
    pp_ipc_process_info info;
    int have_info;
    char *name; /* the app's name */
    char *output, *tmp;
    int out_fd;
    int write_errno;
    uint64_t bytes;
    double duration_s;
    struct timespec t0;
    int ctl[2]; /* the stop thread's wake-up pipe */
    pthread_t thread;
    int thread_started;
    volatile int reason; /* 0 running, 1 duration, 2 signal, 3 abort, 4 exit */
    int finished;
};

static const char *const reasons[] = { "running", "duration", "signal", "abort", "process-exit" };

/* Write ends of the open captures' pipes, for the signal handler. */
static volatile sig_atomic_t open_ctl[MAX_OPEN] = { -1, -1, -1, -1, -1, -1, -1, -1 };

static double
since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int
pp_capture_signal(int abort)
{
    char b = abort ? 'a' : 's';
    int n = 0;
    pp_ipc_cancel = 1; /* a heap snapshot in progress watches it */
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_ctl[i] >= 0) {
            ssize_t k = write(open_ctl[i], &b, 1);
            (void)k;
            n++;
        }
    return n;
}

void
pp_capture_request_stop(pp_capture *c)
{
    char b = 's';
    ssize_t k = write(c->ctl[1], &b, 1);
    (void)k;
}

/* The stop timer: StopTracing when the duration is over or a stop is
 * asked; cut the stream when aborted or when the rundown does not end. */
static void *
stop_thread(void *arg)
{
    pp_capture *c = arg;
    int stopped = 0;
    double stop_at = 0;

    for (;;) {
        int timeout = -1;
        if (!stopped && c->duration_s > 0) {
            double left = c->duration_s - since(&c->t0);
            timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
        } else if (stopped) {
            double left = RUNDOWN_TIMEOUT_MS / 1000.0 - (since(&c->t0) - stop_at);
            timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
        }
        struct pollfd p = { c->ctl[0], POLLIN, 0 };
        int pr = poll(&p, 1, timeout);
        char b = 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr > 0 && read(c->ctl[0], &b, 1) != 1)
            b = 0;
        if (b == 'd')
            return NULL;
        if (b == 'a' || (pr == 0 && stopped)) {
            c->reason = 3;
            shutdown(pp_ipc_session_fd(c->session), SHUT_RDWR);
            return NULL;
        }
        if (!stopped && (b == 's' || pr == 0)) {
            if (c->reason == 0)
                c->reason = b == 's' ? 2 : 1;
            stopped = 1;
            stop_at = since(&c->t0);
            if (pp_ipc_session_stop(c->session, CMD_TIMEOUT_MS, NULL) != PP_OK) {
                /* The runtime cannot be asked (it exited, or hangs): cut. */
                shutdown(pp_ipc_session_fd(c->session), SHUT_RDWR);
            }
        }
    }
}

/* PATH[,connect|,listen] */
static int
open_port(pp_capture *c, const pp_capture_spec *spec, pp_error *err)
{
    char path[4096];
    int listen = 1;
    snprintf(path, sizeof path, "%s", spec->diagnostic_port);
    char *comma = strrchr(path, ',');
    if (comma && strcmp(comma, ",connect") == 0) {
        listen = 0;
        *comma = '\0';
    } else if (comma && strcmp(comma, ",listen") == 0) {
        *comma = '\0';
    } else if (comma && strchr(comma, '/') == NULL) {
        pp_error_set(err, PP_EINVAL,
                     "--diagnostic-port %s: the mode after ',' is connect or "
                     "listen",
                     spec->diagnostic_port);
        return PP_EINVAL;
    }
    if (!listen)
        return pp_ipc_endpoint_connect(&c->ep, path, err);
    int rc = pp_ipc_endpoint_listen(&c->ep, path, err);
    if (rc == PP_OK)
        rc = pp_ipc_endpoint_wait(&c->ep, spec->listen_timeout_ms, err);
    return rc;
}

static int
name_matches(const pp_ipc_proc *p, const char *want)
{
    if (p->name && strcmp(p->name, want) == 0)
        return 1;
    return p->comm && strcmp(p->comm, want) == 0;
}

/* -p or -n: a process of this user; a host only with follow_child. */
static int
resolve_process(pp_capture *c, const pp_capture_spec *spec, pp_error *err)
{
    pp_ipc_proc *v;
    size_t n;
    const pp_ipc_proc *t = NULL;
    int rc = pp_ipc_procs_list(spec->process_name != NULL, 1000, &v, &n, err);
    if (rc != PP_OK)
        return rc;
    if (spec->process_name) {
        /* Every process of that name counts, SDK hosts too: `-n dotnet`
         * over an app and two `dotnet run` hosts is not for perfpipe to
         * settle. Each is listed with its command line to choose by. */
        size_t hits = 0;
        char list[1024] = "";
        for (size_t i = 0; i < n; i++)
            if (name_matches(&v[i], spec->process_name)) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%llu `%.60s%s`", hits ? ", " : "",
                         (unsigned long long)v[i].pid, v[i].cmdline ? v[i].cmdline : "?",
                         v[i].cmdline && strlen(v[i].cmdline) > 60 ? "..." : "");
                t = &v[i];
                hits++;
            }
        if (hits == 0) {
            pp_error_set(err, PP_ENOTFOUND,
                         "no .NET process named '%s' (`perfpipe ps` "
                         "lists them)",
                         spec->process_name);
            rc = PP_ENOTFOUND;
            goto out;
        } else if (hits > 1) {
            pp_error_set(err, PP_EINVAL,
                         "%zu .NET processes are named '%s': %s; choose one "
                         "with -p PID",
                         hits, spec->process_name, list);
            rc = PP_EINVAL;
            goto out;
        }
    } else {
        t = pp_ipc_procs_find(v, n, spec->pid);
        if (!t) {
            rc = pp_ipc_find_socket(spec->pid, c->ep.path, sizeof c->ep.path, err);
            if (rc != PP_OK)
                goto out;
        }
    }
    if (t && t->host != PP_IPC_HOST_NONE && t->host != PP_IPC_HOST_TOOL) {
        const pp_ipc_proc *app = t->app_pid ? pp_ipc_procs_find(v, n, t->app_pid) : NULL;
        if (!app) {
            pp_error_set(err, PP_EINVAL,
                         "pid %llu is a `%s` host (the SDK), not an app, and "
                         "it has no .NET app child yet: wait for the app to start, then trace "
                         "its pid (`perfpipe ps`)",
                         (unsigned long long)t->pid, pp_ipc_host_kind_name(t->host));
            rc = PP_EINVAL;
            goto out;
        }
        if (!spec->follow_child) {
            pp_error_set(err, PP_EINVAL,
                         "pid %llu is a `%s` host (the SDK), not your app: "
                         "the app is pid %llu (%s). Trace -p %llu, or pass --follow-child",
                         (unsigned long long)t->pid, pp_ipc_host_kind_name(t->host),
                         (unsigned long long)app->pid, app->name ? app->name : "?",
                         (unsigned long long)app->pid);
            rc = PP_EINVAL;
            goto out;
        }
        t = app;
    }
    c->ep.mode = PP_IPC_CONNECT;
    c->ep.listen_fd = c->ep.pending_fd = -1;
    if (t) {
        snprintf(c->ep.path, sizeof c->ep.path, "%s", t->socket);
        c->ep.pid = t->pid;
    } else {
        c->ep.pid = spec->pid;
    }
out:
    pp_ipc_procs_free(v, n);
    return rc;
}

static const char *
base_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Check the output and create the temporary file beside it. */
static int
reserve_output(pp_capture *c, const pp_capture_spec *spec, pp_error *err)
{
    struct stat st;
    char def[512];
    if (spec->output) {
        c->output = strdup(spec->output);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
        snprintf(def, sizeof def, "%s_%s.nettrace", c->name ? c->name : "dotnet", stamp);
        c->output = strdup(def);
    }
    if (!c->output)
        goto oom;
    if (lstat(c->output, &st) == 0 && !S_ISREG(st.st_mode)) {
        pp_error_set(err, PP_EINVAL,
                     "%s exists and is not a regular file (%s); refusing to "
                     "replace it: choose another -o",
                     c->output,
                     S_ISLNK(st.st_mode)  ? "a symlink" :
                     S_ISFIFO(st.st_mode) ? "a FIFO" :
                     S_ISDIR(st.st_mode)  ? "a directory" :
                     S_ISSOCK(st.st_mode) ? "a socket" :
                                            "a device");
        return PP_EINVAL;
    }
    size_t n = strlen(c->output) + sizeof ".XXXXXX";
    if (!(c->tmp = malloc(n)))
        goto oom;
    snprintf(c->tmp, n, "%s.XXXXXX", c->output);
    if ((c->out_fd = mkstemp(c->tmp)) < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot create: %s (does the directory exist?)", c->output,
                     strerror(errno));
        free(c->tmp);
        c->tmp = NULL;
        return PP_EIO;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(c->out_fd, 0666 & ~um); /* mkstemp made it 0600 */
    return PP_OK;
oom:
    pp_error_set(err, PP_ENOMEM, "out of memory");
    return PP_ENOMEM;
}

static int
build_providers(pp_capture *c, const pp_capture_spec *spec, pp_error *err)
{
    int rc = PP_OK;
    if (spec->providers && *spec->providers)
        rc = pp_capture_add_providers(&c->prov, spec->providers, err);
    if (rc == PP_OK && spec->profile && *spec->profile)
        rc = pp_capture_add_profiles(&c->prov, spec->profile, err);
    /* The default profiles apply when only counters were asked for, too. */
    if (rc == PP_OK && c->prov.n == 0 && (!spec->profile || !*spec->profile))
        rc = pp_capture_add_profiles(&c->prov, "dotnet-common,dotnet-sampled-thread-time", err);
    if (rc == PP_OK && spec->counters)
        rc = pp_capture_add_counters(&c->prov, spec->counter_list, spec->interval_s, err);
    if (rc == PP_OK)
        rc = pp_capture_providers_finish(&c->prov, err);
    return rc;
}

int
pp_capture_target(const pp_capture_spec *spec, pp_ipc_endpoint *ep, pp_error *err)
{
    pp_capture *c = calloc(1, sizeof *c);
    int rc;

    memset(ep, 0, sizeof *ep);
    ep->listen_fd = ep->pending_fd = -1;
    if (!c) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    c->ep.listen_fd = c->ep.pending_fd = -1;
    if (spec->diagnostic_port)
        rc = open_port(c, spec, err);
    else if (spec->pid || spec->process_name)
        rc = resolve_process(c, spec, err);
    else {
        pp_error_set(err, PP_EINVAL, "no target: give -p PID, -n NAME or --diagnostic-port PATH");
        rc = PP_EINVAL;
    }
    if (rc == PP_OK)
        *ep = c->ep;
    else
        pp_ipc_endpoint_close(&c->ep);
    free(c);
    return rc;
}

int
pp_capture_open(const pp_capture_spec *spec, pp_capture **out, pp_error *err)
{
    pp_capture *c = calloc(1, sizeof *c);
    int rc;

    *out = NULL;
    if (!c) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    c->out_fd = c->ctl[0] = c->ctl[1] = -1;
    c->ep.listen_fd = c->ep.pending_fd = -1;
    c->duration_s = spec->duration_s;
    if ((rc = build_providers(c, spec, err)) != PP_OK)
        goto fail;
    if (spec->diagnostic_port)
        rc = open_port(c, spec, err);
    else if (spec->pid || spec->process_name)
        rc = resolve_process(c, spec, err);
    else {
        pp_error_set(err, PP_EINVAL, "no target: give -p PID, -n NAME or --diagnostic-port PATH");
        rc = PP_EINVAL;
    }
    if (rc != PP_OK)
        goto fail;
    if (pp_ipc_process_info_get(&c->ep, CMD_TIMEOUT_MS, &c->info, err) != PP_OK) {
        rc = err ? err->code : PP_EIO;
        goto fail;
    }
    c->have_info = 1;
    if (c->ep.pid == 0)
        c->ep.pid = c->info.pid;
    c->name = strdup(c->info.entrypoint_assembly && *c->info.entrypoint_assembly ?
                         c->info.entrypoint_assembly :
                     c->info.command_line ? base_of(c->info.command_line) :
                                            "dotnet");
    char *sp = c->name ? strchr(c->name, ' ') : NULL;
    if (sp)
        *sp = '\0';
    if ((rc = reserve_output(c, spec, err)) != PP_OK)
        goto fail;
    pp_ipc_session_config cfg = {
        .buffer_mb = spec->buffer_mb,
        .rundown_keyword = c->prov.rundown_keyword,
        .request_stackwalk = 1,
        .nproviders = c->prov.n,
        .providers = c->prov.v,
    };
    if ((rc = pp_ipc_session_start(&c->ep, &cfg, CMD_TIMEOUT_MS, &c->session, err)) != PP_OK)
        goto fail;
    clock_gettime(CLOCK_MONOTONIC, &c->t0);
    if (c->ep.mode == PP_IPC_LISTEN) {
        /* A runtime waiting at startup runs once the session exists. A
         * nosuspend port refuses nothing: resuming a running runtime is ok. */
        pp_error rerr = PP_ERROR_INIT;
        pp_ipc_resume_runtime(&c->ep, CMD_TIMEOUT_MS, &rerr);
    }
    if (pipe2(c->ctl, O_CLOEXEC) != 0) {
        pp_error_set(err, PP_EIO, "pipe: %s", strerror(errno));
        rc = PP_EIO;
        goto fail;
    }
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_ctl[i] < 0) {
            open_ctl[i] = c->ctl[1];
            break;
        }
    /* A signal that came while we connected and started the session found
     * no capture to stop (pp_capture_signal only set the flag): stop now,
     * or Ctrl-C during a slow attach would be lost. */
    if (pp_ipc_cancel)
        pp_capture_request_stop(c);
    /* The timer thread must not take the CLI's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int prc = pthread_create(&c->thread, NULL, stop_thread, c);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc != 0) {
        pp_error_set(err, PP_EIO, "cannot start the stop timer: %s", strerror(prc));
        rc = PP_EIO;
        goto fail;
    }
    c->thread_started = 1;
    *out = c;
    return PP_OK;
fail:
    if (c->session)
        pp_ipc_session_stop(c->session, CMD_TIMEOUT_MS, NULL);
    pp_capture_free(c);
    return rc;
}

int
pp_capture_stream_fd(const pp_capture *c)
{
    return pp_ipc_session_fd(c->session);
}

void
pp_capture_write(pp_capture *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0 && c->write_errno == 0) {
        ssize_t k = write(c->out_fd, p, len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            c->write_errno = errno;
            break;
        }
        p += k;
        len -= (size_t)k;
        c->bytes += (uint64_t)k;
    }
}

int
pp_capture_finish(pp_capture *c, int whole, pp_error *err)
{
    int rc = PP_OK;

    if (c->finished)
        return PP_OK;
    c->finished = 1;
    if (c->thread_started) {
        char b = 'd';
        if (c->reason == 0)
            c->reason = 4; /* the stream ended by itself */
        ssize_t k = write(c->ctl[1], &b, 1);
        (void)k;
        pthread_join(c->thread, NULL);
        c->thread_started = 0;
    }
    if (c->session && c->reason == 4)
        pp_ipc_session_stop(c->session, 2000, NULL);
    if (c->out_fd >= 0) {
        if (close(c->out_fd) != 0 && c->write_errno == 0)
            c->write_errno = errno;
        c->out_fd = -1;
    }
    if (c->write_errno) {
        pp_error_set(err, PP_EIO, "%s: cannot write the capture: %s", c->output,
                     strerror(c->write_errno));
        rc = PP_EIO;
    } else if (c->bytes == 0) {
        pp_error_set(err, PP_EIO, "the runtime sent no trace data; nothing was kept");
        rc = PP_EIO;
    } else if (rename(c->tmp, c->output) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot rename into place: %s", c->output, strerror(errno));
        rc = PP_EIO;
    } else {
        free(c->tmp);
        c->tmp = NULL;
    }
    (void)whole;
    return rc;
}

void
pp_capture_free(pp_capture *c)
{
    if (!c)
        return;
    if (c->thread_started) {
        char b = 'd';
        ssize_t k = write(c->ctl[1], &b, 1);
        (void)k;
        pthread_join(c->thread, NULL);
    }
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_ctl[i] == c->ctl[1] && c->ctl[1] >= 0)
            open_ctl[i] = -1;
    if (c->ctl[0] >= 0)
        close(c->ctl[0]);
    if (c->ctl[1] >= 0)
        close(c->ctl[1]);
    if (c->out_fd >= 0)
        close(c->out_fd);
    if (c->tmp)
        unlink(c->tmp);
    pp_ipc_session_close(c->session);
    pp_ipc_endpoint_close(&c->ep);
    pp_capture_providers_free(&c->prov);
    pp_ipc_process_info_free(&c->info);
    free(c->name);
    free(c->output);
    free(c->tmp);
    free(c);
}

const char *
pp_capture_output(const pp_capture *c)
{
    return c->output;
}

const char *
pp_capture_process_name(const pp_capture *c)
{
    return c->name ? c->name : "?";
}

uint64_t
pp_capture_pid(const pp_capture *c)
{
    return c->ep.pid;
}

uint64_t
pp_capture_bytes(const pp_capture *c)
{
    return c->bytes;
}

double
pp_capture_elapsed(const pp_capture *c)
{
    return since(&c->t0);
}

const char *
pp_capture_stop_reason(const pp_capture *c)
{
    return reasons[c->reason];
}

json_t *
pp_capture_describe(const pp_capture *c)
{
    json_t *o = json_object(), *pa = json_array();
    char hex[32];

    json_object_set_new(o, "pid", json_integer((json_int_t)c->ep.pid));
    json_object_set_new(o, "process", json_string(pp_capture_process_name(c)));
    if (c->have_info) {
        if (c->info.command_line)
            json_object_set_new(o, "command_line", json_string(c->info.command_line));
        if (c->info.clr_version)
            json_object_set_new(o, "runtime_version", json_string(c->info.clr_version));
        if (c->info.os)
            json_object_set_new(o, "os", json_string(c->info.os));
        if (c->info.arch)
            json_object_set_new(o, "arch", json_string(c->info.arch));
    }
    json_object_set_new(o, "endpoint",
                        json_string(c->ep.mode == PP_IPC_LISTEN ? "listen" : "connect"));
    if (c->session)
        json_object_set_new(o, "session_id",
                            json_integer((json_int_t)pp_ipc_session_id(c->session)));
    for (size_t i = 0; i < c->prov.n; i++) {
        json_t *p = json_object();
        json_object_set_new(p, "name", json_string(c->prov.v[i].name));
        snprintf(hex, sizeof hex, "0x%llX", (unsigned long long)c->prov.v[i].keywords);
        json_object_set_new(p, "keywords", json_string(hex));
        json_object_set_new(p, "level", json_integer(c->prov.v[i].level));
        if (c->prov.v[i].arguments)
            json_object_set_new(p, "arguments", json_string(c->prov.v[i].arguments));
        json_array_append_new(pa, p);
    }
    json_object_set_new(o, "providers", pa);
    snprintf(hex, sizeof hex, "0x%llX", (unsigned long long)c->prov.rundown_keyword);
    json_object_set_new(o, "rundown_keyword", json_string(hex));
    json_object_set_new(o, "kept", json_string(c->output));
    json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
    json_object_set_new(o, "stopped_by", json_string(reasons[c->reason]));
    return o;
}
