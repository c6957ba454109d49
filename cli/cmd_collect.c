/* perfpipe collect: capture a .nettrace from a live runtime over the
 * diagnostics IPC protocol, with no .NET SDK. The stream is read by the
 * nettrace reader as it arrives (events counted, sequence gaps seen) and
 * written to the kept file byte for byte. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "ipc/capture.h"
#include "ipc/capture_source.h"
#include "ipc/heapsnap.h"
#include "ipc/ipc.h"
#include "nettrace/stream.h"
#include "native/native.h"

static const char collect_usage[] =
    "Usage: perfpipe collect (-p PID | -n NAME | --diagnostic-port PATH[,connect|,listen])\n"
    "                        [--profile LIST] [--providers SPEC] [--counters [LIST]] [--interval S]\n"
    "                        [--duration TIME] [-o FILE.nettrace] [--follow-child] [--buffersize MB]\n"
    "       perfpipe collect --gcdump (-p PID | -n NAME | --diagnostic-port PATH)\n"
    "                        [-o FILE.gcdump] [--timeout TIME] [--buffersize MB]\n"
    "\n"
    "Captures an EventPipe trace from a running .NET process over the runtime's\n"
    "diagnostics IPC protocol, with no .NET SDK or dotnet-trace. Stops after\n"
    "--duration, or on Ctrl-C / SIGTERM with StopTracing, so the file is whole\n"
    "(rundown included). A second Ctrl-C cuts the capture at once.\n"
    "\n"
    "Target:\n"
    "  -p, --pid PID            the process (`perfpipe ps` lists them); --process-id too\n"
    "  -n, --name NAME          the process whose entry assembly or executable is NAME\n"
    "                           (--process too); several such processes: refused, listed\n"
    "  --diagnostic-port PATH[,connect]   connect to a runtime's socket (a sandbox, another\n"
    "                           pid namespace)\n"
    "  --diagnostic-port PATH[,listen]    listen at PATH and trace from startup a process\n"
    "                           started with DOTNET_DiagnosticPorts=PATH (it waits, suspended,\n"
    "                           until the session runs; perfpipe then resumes it)\n"
    "  --follow-child           given a `dotnet run`/`watch`/`test` host, trace its app\n"
    "                           (without it such a target is refused, naming the app's pid)\n"
    "What:\n"
    "  --profile LIST           comma-separated: dotnet-common, dotnet-sampled-thread-time,\n"
    "                           gc-verbose, gc-collect, database; cpu-sampling (older name).\n"
    "                           Default (no --profile, no --providers):\n"
    "                           dotnet-common,dotnet-sampled-thread-time\n"
    "  --providers SPEC         dotnet-trace syntax: Name[:Keywords[:Level[:k=v;k2=v2]]],...\n"
    "                           (keywords hex; these win over a profile's same provider)\n"
    "  --counters [LIST]        also the counter providers (default System.Runtime; e.g.\n"
    "                           System.Runtime,Microsoft.AspNetCore.Hosting), in the SAME session:\n"
    "                           one file, no second tool attached\n"
    "  --interval S             counter interval in seconds (default 1)\n"
    "  --buffersize MB          the runtime's session buffer (default 256)\n"
    "When and where:\n"
    "  --duration TIME          30, 30s, 500ms, 2m, 1h or dd:hh:mm:ss (default: until Ctrl-C)\n"
    "  -o, --output FILE        default NAME_yyyyMMdd_HHmmss.nettrace; an existing regular file\n"
    "                           is replaced only when the capture succeeds; a symlink, FIFO or\n"
    "                           device is never replaced\n"
    "  --listen-timeout S       listen mode: give up when no runtime connects (default: wait)\n"
    "  -q, --quiet              no summary line\n"
    "Heap snapshot (--gcdump):\n"
    "  --gcdump                 take a heap snapshot instead of a trace, as dotnet-gcdump does:\n"
    "                           the runtime runs one induced blocking gen2 GC (the process pauses\n"
    "                           for it) and streams the heap as bulk events; the .gcdump is read\n"
    "                           by `perfpipe gcdump`, `gcdump-diff`, `dotnet-gcdump report` and\n"
    "                           PerfView. Per-type counts and bytes equal dotnet-gcdump's.\n"
    "  -o, --output FILE        default yyyyMMdd_HHmmss_PID.gcdump (written whole or not at all)\n"
    "  --timeout TIME           give up when the walk has made no progress for TIME (default\n"
    "                           30s); before it streams, while the process uses no CPU\n"
    "  --buffersize MB          the dump session's buffer (default: half the target's RSS,\n"
    "                           256-4096; a dump that lost events is taken again with a buffer\n"
    "                           sized to hold the walk, <= 4096)\n"
    "  e.g. perfpipe collect --gcdump -p 4242 -o before.gcdump\n"
    "       perfpipe gcdump-diff before.gcdump after.gcdump\n"
    "\n"
    "Progress (bytes, events, elapsed) is shown on a terminal only. The summary names\n"
    "dropped events (sequence-number gaps) if the runtime's buffer overflowed.\n"
    "Exit: 0 whole capture; 2 usage or a refused target (a `dotnet run` host, a NAME that\n"
    "several processes have: they are listed); 3 no such\n"
    "process / cannot attach / the capture ended early (the file is kept and says where);\n"
    "5 the output cannot be written; 7 out of memory. --gcdump: 3 also when the heap dump\n"
    "did not complete (timeout, interrupted, events dropped: no file is written).\n"
    "PERFPIPE_IPC_TIMEOUT=SECONDS: the wait for each other diagnostics command's reply\n"
    "(default 30 with --gcdump, 10 for a trace).\n"
    "Details: man perfpipe-collect.\n";

static volatile sig_atomic_t signals_seen;

static void
on_signal(int sig)
{
    (void)sig;
    signals_seen++;
    pp_capture_signal(signals_seen > 1); /* a heap snapshot watches it too */
}

typedef struct collect_run {
    pp_capture *cap;
    int tty;
    uint64_t events, dropped;
    struct timespec last;
    int warned;
} collect_run;

static void
tee_bytes(void *user, const void *data, size_t len)
{
    collect_run *r = user;
    pp_capture_write(r->cap, data, len);
}

static void
on_warning(void *user, const pp_error *w)
{
    collect_run *r = user;
    if (r->tty)
        fputs("\r\033[K", stderr);
    pp_cli_error("collect: %s", w->message);
    r->warned = 1;
}

static void
progress(collect_run *r, int force)
{
    struct timespec t;
    if (!r->tty)
        return;
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (!force &&
        (t.tv_sec - r->last.tv_sec) * 1000 + (t.tv_nsec - r->last.tv_nsec) / 1000000 < 250)
        return;
    r->last = t;
    fprintf(stderr,
            "\r%s: collecting %s (pid %llu): %.1f MB, %llu events, %.1f s  [Ctrl-C stops]\033[K",
            pp_prog, pp_capture_process_name(r->cap), (unsigned long long)pp_capture_pid(r->cap),
            pp_capture_bytes(r->cap) / 1e6, (unsigned long long)r->events,
            pp_capture_elapsed(r->cap));
}

static int
check_output(const char *path)
{
    struct stat st;
    if (path && lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        pp_cli_error("collect: %s exists and is not a regular file; refusing to replace it "
                     "(choose another -o)",
                     path);
        return PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

/* Read the stream to its end, teeing it; 1 if the stream ended whole. */
static int
read_stream(collect_run *r, pp_error *err)
{
    pp_trace_source *src;
    const pp_trace_event *ev;
    int fd = dup(pp_capture_stream_fd(r->cap)), rc;

    if (fd < 0) {
        pp_error_set(err, PP_EIO, "dup: %s", strerror(errno));
        return -1;
    }
    if ((rc = pp_nettrace_open_fd(fd, pp_capture_output(r->cap), &src, err)) != PP_OK)
        return -1;
    pp_nettrace_set_callbacks(src, tee_bytes, on_warning, r);
    while ((rc = pp_nettrace_next(src, &ev, err)) > 0) {
        r->events++;
        progress(r, 0);
    }
    if (rc < 0) {
        /* Keep the bytes whole even if the reader could not follow them. */
        if (r->tty)
            fputs("\r\033[K", stderr);
        pp_cli_error("collect: %s; keeping the rest of the stream as it comes", err->message);
        pp_nettrace_drain(src);
    }
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(src, &st);
    pp_nettrace_close(src);
    r->dropped = st.dropped_events;
    if (st.dropped_events && r->tty)
        fputs("\r\033[K", stderr);
    if (st.dropped_events)
        pp_cli_error("collect: the runtime dropped %llu events (its buffer overflowed; a "
                     "larger --buffersize or fewer providers help)",
                     (unsigned long long)st.dropped_events);
    return rc == 0 && !st.truncated;
}

typedef struct gc_opts {
    int gcdump;
    double timeout_s;
    const char *trace_only; /* a trace option given with --gcdump */
} gc_opts;

static int
parse_args(int argc, char **argv, pp_capture_spec *spec, int *quiet, gc_opts *gc)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                                     \
    do {                                                                                           \
        if (!v) {                                                                                  \
            pp_cli_error("collect: %s needs a value", a);                                          \
            return PP_EXIT_USAGE;                                                                  \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(collect_usage, stdout);
            return -1;
        } else if (strcmp(a, "-p") == 0 || strcmp(a, "--pid") == 0 ||
                   strcmp(a, "--process-id") == 0) {
            NEED();
            char *end;
            unsigned long long pid = strtoull(v, &end, 10);
            if (*end || pid == 0 || end == v || v[0] == '-' || pid > INT32_MAX) {
                pp_cli_error("collect: -p takes a process id, not '%s'", v);
                return PP_EXIT_USAGE;
            }
            spec->pid = pid;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "--name") == 0 ||
                   strcmp(a, "--process") == 0) {
            NEED();
            spec->process_name = v;
        } else if (strcmp(a, "--diagnostic-port") == 0 || strcmp(a, "--dport") == 0) {
            NEED();
            spec->diagnostic_port = v;
        } else if (strcmp(a, "--follow-child") == 0) {
            spec->follow_child = 1;
        } else if (strcmp(a, "--profile") == 0) {
            NEED();
            spec->profile = v;
        } else if (strcmp(a, "--providers") == 0) {
            NEED();
            spec->providers = v;
        } else if (strcmp(a, "--counters") == 0) {
            spec->counters = 1;
            if (v && v[0] != '-') {
                spec->counter_list = v;
                i++;
            }
        } else if (strcmp(a, "--interval") == 0 || strcmp(a, "--refresh-interval") == 0) {
            NEED();
            char *end;
            unsigned long s = strtoul(v, &end, 10);
            if (*end || s == 0 || s > 3600) {
                pp_cli_error("collect: --interval takes whole seconds (1-3600), not '%s'", v);
                return PP_EXIT_USAGE;
            }
            spec->interval_s = (unsigned)s;
        } else if (strcmp(a, "--duration") == 0) {
            NEED();
            if ((spec->duration_s = pp_capture_parse_duration(v)) <= 0) {
                pp_cli_error("collect: --duration '%s' is not a time (30, 30s, 500ms, 2m, 1h or "
                             "dd:hh:mm:ss, at most 11 days)",
                             v);
                return PP_EXIT_USAGE;
            }
        } else if (strcmp(a, "--buffersize") == 0) {
            NEED();
            char *end;
            unsigned long mb = strtoul(v, &end, 10);
            if (*end || mb == 0 || mb > 4096) {
                pp_cli_error("collect: --buffersize takes MB (1-4096), not '%s'", v);
                return PP_EXIT_USAGE;
            }
            spec->buffer_mb = (uint32_t)mb;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            NEED();
            spec->output = v;
        } else if (strcmp(a, "--listen-timeout") == 0) {
            NEED();
            double s = pp_capture_parse_duration(v);
            if (s <= 0) {
                pp_cli_error("collect: --listen-timeout '%s' is not a time", v);
                return PP_EXIT_USAGE;
            }
            spec->listen_timeout_ms = (int)(s * 1000);
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            *quiet = 1;
        } else if (strcmp(a, "--gcdump") == 0) {
            gc->gcdump = 1;
        } else if (strcmp(a, "--timeout") == 0) {
            NEED();
            if ((gc->timeout_s = pp_capture_parse_duration(v)) <= 0) {
                pp_cli_error("collect: --timeout '%s' is not a time (30s, 2m...)", v);
                return PP_EXIT_USAGE;
            }
        } else {
            pp_cli_error("collect: unknown argument '%s'; try `perfpipe collect --help`", a);
            return PP_EXIT_USAGE;
        }
#undef NEED
    }
    if (gc->gcdump &&
        (spec->profile || spec->providers || spec->counters || spec->duration_s > 0)) {
        pp_cli_error("collect: --gcdump takes a heap snapshot; --profile, --providers, --counters "
                     "and --duration are for traces (see `perfpipe collect --help`)");
        return PP_EXIT_USAGE;
    }
    if (!gc->gcdump && gc->timeout_s > 0) {
        pp_cli_error("collect: --timeout is for --gcdump (a trace stops with --duration)");
        return PP_EXIT_USAGE;
    }
    int targets = (spec->pid != 0) + (spec->process_name != NULL) + (spec->diagnostic_port != NULL);
    if (targets != 1) {
        pp_cli_error("collect: give exactly one target: -p PID, -n NAME or --diagnostic-port "
                     "PATH (`perfpipe ps` lists the processes)");
        return PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

static void
gc_progress(void *user, const pp_heapsnap_progress *p)
{
    (void)user;
    fprintf(stderr,
            "\r%s: heap snapshot: %s, %llu objects, %.1f MB of events, %.1f s  "
            "[Ctrl-C stops]\033[K",
            pp_prog, p->phase, (unsigned long long)p->graph.nodes, p->stream_bytes / 1e6,
            p->elapsed_s);
}

static int
gc_exit_code(int rc, const pp_error *err)
{
    if (rc == PP_EINVAL)
        return PP_EXIT_USAGE;
    if (rc == PP_ENOMEM)
        return PP_EXIT_NOMEM;
    /* The output's own errors name it: "FILE: cannot create/write". */
    if (rc == PP_ELIMIT || (rc == PP_EIO && (strstr(err->message, ": cannot create") ||
                                             strstr(err->message, ": cannot write"))))
        return PP_EXIT_OUTPUT;
    return PP_EXIT_INPUT;
}

/* collect --gcdump: one heap snapshot (core/ipc/heapsnap.h). */
static int
collect_gcdump(pp_capture_spec *spec, const gc_opts *gc, int quiet)
{
    pp_heapsnap_spec hs = { .target = *spec, .timeout_s = gc->timeout_s };
    pp_heapsnap_result res;
    pp_error err = PP_ERROR_INIT;
    char def[256];
    struct sigaction sa, old_int, old_term;
    int tty = isatty(STDERR_FILENO);

    if (!hs.target.output) {
        time_t now = time(NULL);
        struct tm tm;
        char stamp[32];
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
        if (spec->pid)
            snprintf(def, sizeof def, "%s_%llu.gcdump", stamp, (unsigned long long)spec->pid);
        else
            snprintf(def, sizeof def, "%s_%s.gcdump", stamp,
                     spec->process_name ? spec->process_name : "dotnet");
        hs.target.output = def;
        int crc = check_output(def);
        if (crc != PP_EXIT_OK)
            return crc;
    }
    if (tty) {
        hs.progress = gc_progress;
        if (spec->diagnostic_port && !strstr(spec->diagnostic_port, ",connect"))
            fprintf(stderr,
                    "%s: waiting for a runtime at %s (start it with "
                    "DOTNET_DiagnosticPorts=%s)\n",
                    pp_prog, spec->diagnostic_port, spec->diagnostic_port);
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = pp_heapsnap_collect(&hs, &res, &err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (tty)
        fputs("\r\033[K", stderr);
    if (rc != PP_OK) {
        pp_cli_error("collect: %s", err.message);
        return gc_exit_code(rc, &err);
    }
    if (res.retried)
        fprintf(stderr,
                "%s: collect: note: the first heap dump lost events (a %u MB session "
                "buffer: the runtime holds the whole walk in it); this one is the second, with "
                "%u MB\n",
                pp_prog, res.first_buffer_mb, res.buffer_mb);
    if (res.graph.rcw_ignored)
        fprintf(stderr, "%s: collect: note: %llu RCWs (COM interop) were not attributed\n", pp_prog,
                (unsigned long long)res.graph.rcw_ignored);
    if (!quiet)
        fprintf(stderr,
                "%s: wrote %s from %s (pid %llu): %llu objects, %.1f MB of heap, "
                "%llu references, %u types; GC dump %.1f s, %.1f s in all, %.1f MB\n",
                pp_prog, hs.target.output, res.process, (unsigned long long)res.pid,
                (unsigned long long)res.graph.nodes, res.graph.bytes / 1e6,
                (unsigned long long)res.graph.edges, res.type_count, res.dump_s, res.elapsed_s,
                res.file_bytes / 1e6);
    return PP_EXIT_OK;
}

/* The trace half of collect, for collect and diagnose: open the session,
 * call started (if any) once it runs, read and keep the stream, finish. */
int
pp_cli_collect_trace(const pp_capture_spec *spec, int quiet, pp_cli_trace_started started,
                     void *user, pp_cli_trace_stats *stats)
{
    pp_error err = PP_ERROR_INIT;
    collect_run r = { 0 };
    int rc;

    r.tty = isatty(STDERR_FILENO);
    if (spec->diagnostic_port && r.tty && !strstr(spec->diagnostic_port, ",connect"))
        fprintf(stderr,
                "%s: waiting for a runtime at %s (start it with "
                "DOTNET_DiagnosticPorts=%s)\n",
                pp_prog, spec->diagnostic_port, spec->diagnostic_port);
    rc = pp_capture_open(spec, &r.cap, &err);
    if (rc != PP_OK) {
        pp_cli_error("collect: %s", err.message);
        return rc == PP_EINVAL                                      ? PP_EXIT_USAGE :
               rc == PP_EIO && strstr(err.message, "cannot create") ? PP_EXIT_OUTPUT :
                                                                      PP_EXIT_INPUT;
    }
    if (started)
        started(user, pp_capture_pid(r.cap));
    /* The module map for native frame names (core/native), watched through
     * the run so modules loaded late are kept even if the process exits. */
    pp_native_watch *watch = pp_native_watch_start(pp_capture_pid(r.cap), 1000);
    int whole = read_stream(&r, &err);
    pp_native_maps early;
    pp_native_watch_stop(watch, &early);
    if (r.tty)
        fputs("\r\033[K", stderr);
    const char *why = pp_capture_stop_reason(r.cap);
    if (pp_capture_finish(r.cap, whole > 0, &err) != PP_OK) {
        pp_native_maps_free(&early);
        pp_cli_error("collect: %s", err.message);
        rc = strstr(err.message, "no trace data") ? PP_EXIT_INPUT : PP_EXIT_OUTPUT;
        goto out;
    }
    if (pp_native_maps_keep(pp_capture_pid(r.cap), &early, pp_capture_output(r.cap), &err) != PP_OK)
        fprintf(stderr, "%s: collect: warning: %s\n", pp_prog, err.message);
    why = pp_capture_stop_reason(r.cap);
    if (stats) {
        stats->events = r.events;
        stats->dropped = r.dropped;
        stats->bytes = pp_capture_bytes(r.cap);
        stats->elapsed_s = pp_capture_elapsed(r.cap);
        stats->pid = pp_capture_pid(r.cap);
        snprintf(stats->stopped_by, sizeof stats->stopped_by, "%s", why);
    }
    if (whole <= 0 || strcmp(why, "abort") == 0) {
        pp_cli_error("collect: the capture ended early (%s): kept %llu bytes in %s; it reads "
                     "up to where it stopped",
                     strcmp(why, "abort") == 0 ? "cut by a second "
                                                 "signal or a rundown that did not end" :
                                                 "the stream was cut: the process "
                                                 "exited or was killed?",
                     (unsigned long long)pp_capture_bytes(r.cap), pp_capture_output(r.cap));
        rc = PP_EXIT_INPUT;
        goto out;
    }
    if (!quiet)
        fprintf(stderr,
                "%s: wrote %s from %s (pid %llu): %llu events, %.1f MB in %.1f s "
                "(stopped by %s)\n",
                pp_prog, pp_capture_output(r.cap), pp_capture_process_name(r.cap),
                (unsigned long long)pp_capture_pid(r.cap), (unsigned long long)r.events,
                pp_capture_bytes(r.cap) / 1e6, pp_capture_elapsed(r.cap), why);
    rc = PP_EXIT_OK;
out:
    pp_capture_free(r.cap);
    return rc;
}

int
pp_cmd_collect(int argc, char **argv)
{
    pp_capture_spec spec = { .listen_timeout_ms = -1 };
    gc_opts gc = { 0 };
    int quiet = pp_cli_quiet, rc;
    struct sigaction sa, old_int, old_term;

    if ((rc = parse_args(argc, argv, &spec, &quiet, &gc)) != PP_EXIT_OK)
        return rc < 0 ? PP_EXIT_OK : rc;
    if ((rc = check_output(spec.output)) != PP_EXIT_OK)
        return rc;
    if (gc.gcdump)
        return collect_gcdump(&spec, &gc, quiet);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = pp_cli_collect_trace(&spec, quiet, NULL, NULL, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
