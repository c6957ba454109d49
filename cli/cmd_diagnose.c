/* perfpipe diagnose: the diagnosis session in one command (issue #38). The
 * target is checked first (a `dotnet run` host refused, another tool's open
 * session named); then, one EventPipe session at a time: the counters
 * envelope, a heap snapshot, one trace per capture the axes need (each
 * under the user's load command, whose output becomes that capture's L2
 * input), the second heap snapshot; then every capture is analyzed, the
 * candidates ranked and the evidence folder written (diag_evidence.c). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "diag_internal.h"
#include "ipc/capture.h"
#include "ipc/capture_source.h"
#include "ipc/heapsnap.h"
#include "ipc/ipc.h"
#include "shipped.h"

static const char usage[] =
    "Usage: perfpipe diagnose (-p PID | -n NAME | --diagnostic-port PATH) -o DIR\n"
    "                         [--session FILE] [--axes LIST] [--duration TIME]\n"
    "                         [--counters-duration TIME] [--load 'COMMAND'] [--buffersize MB]\n"
    "\n"
    "Runs a diagnosis session against a live .NET process and keeps the evidence\n"
    "in DIR (created; it must not hold a session already): the counters envelope\n"
    "first, then one trace per capture the axes need, one at a time (never two\n"
    "EventPipe sessions on the process), heap snapshots before and after; each\n"
    "capture analyzed; ranked candidates; session.json, note.md and report.html.\n"
    "\n"
    "  -p PID, -n NAME, --diagnostic-port PATH[,connect]   the target, as collect's;\n"
    "                           a `dotnet run` host is refused (its app's pid named),\n"
    "                           and so is a process another tool holds a session on\n"
    "  --follow-child           given a `dotnet run` host, diagnose its app\n"
    "  -o DIR                   the evidence folder\n"
    "  --session FILE           knobs and target from a session file (perfpipe-diagnose(1),\n"
    "                           SESSION FILE); the options below override it\n"
    "  --axes LIST              alloc,cpu,db,gc,exceptions,contention,heap\n"
    "                           (default alloc,cpu,db,gc,heap); cpu, exceptions and\n"
    "                           contention share one capture\n"
    "  --duration TIME          each capture (default 10s)\n"
    "  --counters-duration TIME the counters envelope (default: --duration)\n"
    "  --load 'COMMAND'         run by sh -c during each capture (e.g. 'wrk -t2 -c4 -d10s URL');\n"
    "                           its output is kept and read as the capture's load result\n"
    "                           (L2), so figures are per request\n"
    "  --buffersize MB          the runtime's session buffer for each trace\n"
    "  -q, --quiet              no progress lines\n"
    "\n"
    "Exit: 0 the folder is written; 2 usage, a bad session file (FILE:LINE:COLUMN) or a\n"
    "refused target; 3 no such process, another tool's session open, or a capture failed;\n"
    "4 an analysis failed (the other results are kept); 5 DIR cannot be written.\n"
    "`perfpipe verify BEFORE AFTER` compares two folders. Details: man perfpipe-diagnose.\n";

typedef struct diag_run {
    pp_diag_session s;
    const char *dir;
    int quiet;
    int follow_child;     /* a `dotnet run` host named: diagnose its app */
    pid_t load_pid;       /* the running load command, or 0 */
    const char *load_out; /* where it writes */
    json_t *record;       /* session.json */
    json_t *results;      /* the result files, for candidates */
    int analysis_failed;
} diag_run;

static volatile sig_atomic_t signals_seen;

static void
on_signal(int sig)
{
    (void)sig;
    signals_seen++;
    pp_capture_signal(signals_seen > 1);
}

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void
say(const diag_run *r, const char *fmt, const char *a, double b)
{
    if (r->quiet)
        return;
    fprintf(stderr, "%s: diagnose: ", pp_prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
}

/* The load command, started once the session runs (the capture's
 * started hook): its own process group, output to r->load_out. */
static void
start_load(void *user, unsigned long long pid)
{
    diag_run *r = user;
    (void)pid;
    if (!r->s.knobs.load || !r->load_out)
        return;
    fflush(NULL);
    pid_t c = fork();
    if (c == 0) {
        FILE *o = freopen(r->load_out, "w", stdout);
        if (!o || dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
            _exit(127);
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execl("/bin/sh", "sh", "-c", r->s.knobs.load, (char *)NULL);
        _exit(127);
    }
    r->load_pid = c > 0 ? c : 0;
}

/* Wait for the load command: up to grace_s more, then its group ends. */
static int
end_load(diag_run *r, double grace_s)
{
    int status = 0;
    double until = now_s() + grace_s;

    if (r->load_pid <= 0)
        return -1;
    while (waitpid(r->load_pid, &status, WNOHANG) == 0) {
        if (now_s() > until || signals_seen) {
            kill(-r->load_pid, SIGTERM);
            kill(r->load_pid, SIGTERM);
            waitpid(r->load_pid, &status, 0);
            break;
        }
        usleep(20 * 1000);
    }
    r->load_pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) :
                               128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static char *
path_in(const diag_run *r, const char *name, const char *ext)
{
    size_t n = strlen(r->dir) + strlen(name) + strlen(ext) + 3;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s%s", r->dir, name, ext);
    return p;
}

/* The target part of a capture spec. */
static pp_capture_spec
target_spec(const diag_run *r, unsigned long long pid)
{
    pp_capture_spec spec = { .listen_timeout_ms = -1 };

    if (r->s.diagnostic_port)
        spec.diagnostic_port = r->s.diagnostic_port;
    else
        spec.pid = pid;
    spec.buffer_mb = r->s.knobs.buffer_mb;
    return spec;
}

/* One trace (with the load running), its record in session.json. */
static int
trace_one(diag_run *r, unsigned long long pid, const char *name, pp_capture_spec *spec,
          double duration_s, json_t **rec)
{
    pp_cli_trace_stats st = { 0 };
    char *out = path_in(r, name, ".nettrace"), *load = path_in(r, name, ".load.txt");
    int rc, load_rc;
    double t0 = now_s();

    if (!out || !load) {
        free(out);
        free(load);
        return PP_EXIT_NOMEM;
    }
    spec->output = out;
    spec->duration_s = duration_s;
    r->load_out = r->s.knobs.load ? load : NULL;
    say(r, "%s: capturing for %.1f s", name, duration_s);
    rc = pp_cli_collect_trace(spec, 1, start_load, r, &st);
    /* The load started after the session: its last requests may need a
     * moment more than the capture; it never runs into the next one. */
    load_rc = end_load(r, 2.0 + duration_s / 10);
    *rec = json_pack("{s:s, s:s, s:I, s:I, s:I, s:f, s:s, s:f}", "name", name, "file",
                     strrchr(out, '/') + 1, "events", (json_int_t)st.events, "dropped_events",
                     (json_int_t)st.dropped, "bytes", (json_int_t)st.bytes, "elapsed_s",
                     st.elapsed_s, "stopped_by", st.stopped_by, "wall_s", now_s() - t0);
    if (*rec && r->s.knobs.load) {
        json_object_set_new(*rec, "load_output", json_string(strrchr(load, '/') + 1));
        json_object_set_new(*rec, "load_exit", json_integer(load_rc));
        if (load_rc != 0)
            fprintf(stderr,
                    "%s: diagnose: warning: the load command exited with %d during "
                    "the %s capture (its output: %s)\n",
                    pp_prog, load_rc, name, load);
    }
    if (*rec)
        json_object_set_new(*rec, "exit", json_integer(rc));
    (void)pid;
    free(out);
    free(load);
    return rc;
}

/* One heap snapshot (heap-before / heap-after). */
static int
heap_one(diag_run *r, unsigned long long pid, const char *name, json_t *caps)
{
    pp_heapsnap_spec hs = { .target = target_spec(r, pid) };
    pp_heapsnap_result res;
    pp_error err = PP_ERROR_INIT;
    char *out = path_in(r, name, ".gcdump");
    int rc;

    if (!out)
        return PP_EXIT_NOMEM;
    hs.target.output = out;
    say(r, "%s: heap snapshot%s", name, 0);
    rc = pp_heapsnap_collect(&hs, &res, &err);
    if (rc != PP_OK) {
        pp_cli_error("diagnose: %s: %s", name, err.message);
        free(out);
        return rc == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_INPUT;
    }
    json_array_append_new(caps,
                          json_pack("{s:s, s:s, s:I, s:I, s:f, s:b}", "name", name, "file",
                                    strrchr(out, '/') + 1, "objects", (json_int_t)res.graph.nodes,
                                    "bytes", (json_int_t)res.graph.bytes, "elapsed_s",
                                    res.elapsed_s, "retried", res.retried));
    free(out);
    return PP_EXIT_OK;
}

/* Analyze DIR/NAME.nettrace with analyzer (and the load output as a load
 * input) into DIR/NAME.json; one pipeline file per capture, kept. */
static int
analyze(diag_run *r, const char *name, const char *analyzer, const char *input_kind)
{
    char *trace = path_in(r, name, ".nettrace");
    char *load = path_in(r, name, ".load.txt"), *json = path_in(r, name, ".json");
    char *yaml = path_in(r, name, ".pipeline.yaml");
    char in1[4200], in2[4200];
    int rc = PP_EXIT_NOMEM;
    FILE *f;

    if (!trace || !load || !json || !yaml || !(f = fopen(yaml, "w"))) {
        if (yaml && trace && load && json) {
            pp_cli_error("diagnose: %s: cannot create: %s", yaml, strerror(errno));
            rc = PP_EXIT_OUTPUT;
        }
        goto out;
    }
    int with_load = r->s.knobs.load && access(load, R_OK) == 0;
    fprintf(f,
            "version: 1\nname: diagnose-%s\ninputs:\n  input: { kind: %s, path: \"${INPUT}\" }\n",
            name, input_kind);
    if (with_load)
        fprintf(f, "  load: { kind: load, path: \"${LOAD}\" }\n");
    /* The counters' series (every sample) makes the CSV a time series. */
    fprintf(f, "stages:\n  - { id: %s, analyzer: %s, input: input%s }\n", name, analyzer,
            strcmp(input_kind, "counters") == 0 ? ", options: { series: true }" : "");
    if (with_load)
        fprintf(f, "  - { id: load, analyzer: load, input: load }\n");
    if (fclose(f) != 0) {
        rc = PP_EXIT_OUTPUT;
        goto out;
    }
    snprintf(in1, sizeof in1, "input=%s", trace);
    snprintf(in2, sizeof in2, "load=%s", load);
    /* The L1 benchmark, as knobs of the run: candidates end their plans with it. */
    char bench[1100], covers[1100];
    const char *argv[16] = { "run", yaml, "--input", in1, "--format", "json", "-o", json };
    size_t n = 8;
    if (with_load) {
        argv[n++] = "--input";
        argv[n++] = in2;
    }
    if (r->s.knobs.benchmark) {
        snprintf(bench, sizeof bench, "benchmark=%s", r->s.knobs.benchmark);
        argv[n++] = "--set";
        argv[n++] = bench;
    }
    if (r->s.knobs.benchmark_covers) {
        snprintf(covers, sizeof covers, "benchmark_covers=%s", r->s.knobs.benchmark_covers);
        argv[n++] = "--set";
        argv[n++] = covers;
    }
    argv[n] = NULL;
    rc = pp_diag_run(argv);
    if (rc == PP_EXIT_OK || rc == PP_EXIT_PLUGIN)
        json_array_append_new(r->results, json_string(json));
    if (rc != PP_EXIT_OK) {
        r->analysis_failed = 1;
        pp_cli_error("diagnose: the %s analysis exited %d (see above); the others go on", name, rc);
    }
out:
    free(trace);
    free(load);
    free(json);
    free(yaml);
    return rc;
}

static int
run_captures(diag_run *r, unsigned long long pid, json_t *caps)
{
    pp_capture_spec spec;
    json_t *rec = NULL;
    int rc;
    const pp_diag_knobs *k = &r->s.knobs;

    /* The envelope: counters only (a runtime provider at LogAlways with no
     * keyword, so the session carries little beside them). */
    spec = target_spec(r, pid);
    spec.providers = "Microsoft-Windows-DotNETRuntime:0:0";
    spec.counters = 1;
    spec.counter_list = k->counters;
    spec.interval_s = k->interval_s;
    rc = trace_one(r, pid, "counters", &spec, k->counters_s, &rec);
    if (rec)
        json_array_append_new(caps, rec);
    if (rc != PP_EXIT_OK)
        return rc;
    if ((k->axes & PP_DIAG_HEAP) && (rc = heap_one(r, pid, "heap-before", caps)) != PP_EXIT_OK)
        return rc;
    for (size_t i = 0; i < pp_diag_ncaptures && !signals_seen; i++) {
        if (!(pp_diag_captures[i].axes & k->axes))
            continue;
        spec = target_spec(r, pid);
        spec.profile = pp_diag_captures[i].profile;
        spec.providers = pp_diag_captures[i].providers;
        rc = trace_one(r, pid, pp_diag_captures[i].name, &spec, k->duration_s, &rec);
        if (rec) {
            json_t *axes = json_array();
            for (int a = 0; a < PP_DIAG_NAXES; a++)
                if (pp_diag_captures[i].axes & k->axes & (1u << a))
                    json_array_append_new(axes, json_string(pp_diag_axis_name(a)));
            json_object_set_new(rec, "axes", axes);
            json_object_set_new(rec, "profile", json_string(pp_diag_captures[i].profile));
            if (pp_diag_captures[i].providers)
                json_object_set_new(rec, "providers", json_string(pp_diag_captures[i].providers));
            json_array_append_new(caps, rec);
        }
        if (rc != PP_EXIT_OK)
            return rc;
    }
    if (signals_seen)
        return PP_EXIT_INPUT;
    if ((k->axes & PP_DIAG_HEAP) && (rc = heap_one(r, pid, "heap-after", caps)) != PP_EXIT_OK)
        return rc;
    return PP_EXIT_OK;
}

static int
run_analyses(diag_run *r)
{
    int rc = PP_EXIT_OK, one;
    const pp_diag_knobs *k = &r->s.knobs;

    say(r, "%s: analyzing the captures%.0f", "evidence", 0);
    /* the counters analyzer's result, and its CSV folder named after it */
    const char *counters = pp_cli_shipped_with(PP_SHIPPED_DIAG_COUNTERS)->analyzer;
    one = analyze(r, "counters", counters, "counters");
    if (one == PP_EXIT_OK) {
        char *csv = path_in(r, counters, "/"), *json = path_in(r, "counters", ".json");
        const char *argv[] = { "render", json, "--format", "csv", "-o", csv, NULL };
        if (csv && json && pp_diag_run(argv) != PP_EXIT_OK)
            r->analysis_failed = 1;
        free(csv);
        free(json);
    }
    for (size_t i = 0; i < pp_diag_ncaptures; i++)
        if (pp_diag_captures[i].axes & k->axes)
            if ((one = analyze(r, pp_diag_captures[i].name, pp_diag_captures[i].analyzer,
                               "nettrace")) == PP_EXIT_NOMEM)
                return one;
    if (k->axes & PP_DIAG_HEAP) {
        char *a = path_in(r, "heap-before", ".gcdump"), *b = path_in(r, "heap-after", ".gcdump");
        char *json = path_in(r, "heap", ".json");
        const char *argv[] = { pp_cli_shipped_with(PP_SHIPPED_DIAG_HEAP_DIFF)->analyzer,
                               a,
                               b,
                               "--format",
                               "json",
                               "-o",
                               json,
                               NULL };
        if (a && b && json) {
            one = pp_diag_run(argv);
            if (one == PP_EXIT_OK)
                json_array_append_new(r->results, json_string(json));
            else
                r->analysis_failed = 1;
        }
        free(a);
        free(b);
        free(json);
    }
    /* The ranking over every axis's result. */
    const char *argv[40] = { "candidates" };
    size_t n = 1, i;
    json_t *v;
    char *cand = path_in(r, "candidates", ".json");
    json_array_foreach(r->results, i, v)
        if (n < 34 && strstr(json_string_value(v), "/counters.json") == NULL)
            argv[n++] = json_string_value(v);
    argv[n++] = "--format";
    argv[n++] = "json";
    argv[n++] = "-o";
    argv[n++] = cand;
    argv[n] = NULL;
    if (n > 5 && cand && pp_diag_run(argv) != PP_EXIT_OK)
        r->analysis_failed = 1;
    free(cand);
    return r->analysis_failed ? PP_EXIT_PLUGIN : rc;
}

int
pp_diag_run(const char *const *argv)
{
    int argc = 0;

    while (argv[argc])
        argc++;
    if (fflush(stdout) != 0)
        return PP_EXIT_OUTPUT;
    /* The commands set optind = 1, which does not reset GNU getopt's mode
     * (run's "-..." returns operands in order): optind = 0 and one empty
     * pass reinitialize it for the next command's option string. */
    char *none[] = { (char *)"perfpipe", NULL };
    optind = 0;
    opterr = 0;
    (void)getopt(1, none, "");
    opterr = 1;
    if (strcmp(argv[0], "run") == 0)
        return pp_cmd_run(argc, (char **)argv);
    if (strcmp(argv[0], "render") == 0)
        return pp_cmd_render(argc, (char **)argv);
    if (strcmp(argv[0], "candidates") == 0)
        return pp_cmd_candidates(argc, (char **)argv);
    return pp_cmd_analyzer(argv[0], argc, (char **)argv);
}

static int
need_time(const char *opt, const char *v, double *out)
{
    if ((*out = pp_capture_parse_duration(v)) <= 0) {
        pp_cli_error("diagnose: %s '%s' is not a time (4, 4s, 500ms, 2m, 1h)", opt, v);
        return PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* Options over the session file's values (read first, wherever it is). */
static int
parse_args(int argc, char **argv, diag_run *r)
{
    int rc;

    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--session") == 0 && (rc = pp_diag_session_load(argv[i + 1], &r->s)))
            return rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL, *bad;
        char *end;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return -1;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            r->quiet = 1;
            continue;
        }
        if (strcmp(a, "--follow-child") == 0) {
            r->follow_child = 1;
            continue;
        }
        if (!v || a[0] != '-') {
            pp_cli_error("diagnose: %s '%s'; try `perfpipe diagnose --help`",
                         a[0] == '-' ? "no value after" : "unexpected argument", a);
            return PP_EXIT_USAGE;
        }
        i++;
        if (strcmp(a, "--session") == 0)
            continue;
        if (strcmp(a, "-p") == 0 || strcmp(a, "--process-id") == 0) {
            unsigned long long pid = strtoull(v, &end, 10);
            if (*end || end == v || v[0] == '-' || pid == 0 || pid > INT32_MAX) {
                pp_cli_error("diagnose: -p takes a process id, not '%s'", v);
                return PP_EXIT_USAGE;
            }
            r->s.pid = pid;
            free(r->s.process_name);
            free(r->s.diagnostic_port);
            r->s.process_name = r->s.diagnostic_port = NULL;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "--name") == 0) {
            free(r->s.process_name);
            r->s.process_name = strdup(v);
            r->s.pid = 0;
        } else if (strcmp(a, "--diagnostic-port") == 0) {
            free(r->s.diagnostic_port);
            r->s.diagnostic_port = strdup(v);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            r->dir = v;
        } else if (strcmp(a, "--axes") == 0) {
            if (pp_diag_axes_parse(v, &r->s.knobs.axes, &bad) != 0) {
                pp_cli_error("diagnose: unknown axis '%.*s' in --axes; the axes: alloc, cpu, db, "
                             "gc, exceptions, contention, heap",
                             (int)strcspn(bad, ", "), bad);
                return PP_EXIT_USAGE;
            }
        } else if (strcmp(a, "--duration") == 0) {
            if ((rc = need_time(a, v, &r->s.knobs.duration_s)) != PP_EXIT_OK)
                return rc;
        } else if (strcmp(a, "--counters-duration") == 0) {
            if ((rc = need_time(a, v, &r->s.knobs.counters_s)) != PP_EXIT_OK)
                return rc;
        } else if (strcmp(a, "--load") == 0) {
            free(r->s.knobs.load);
            r->s.knobs.load = *v ? strdup(v) : NULL;
        } else if (strcmp(a, "--buffersize") == 0) {
            unsigned long mb = strtoul(v, &end, 10);
            if (*end || end == v || mb == 0 || mb > 4096) {
                pp_cli_error("diagnose: --buffersize takes MB (1-4096), not '%s'", v);
                return PP_EXIT_USAGE;
            }
            r->s.knobs.buffer_mb = (uint32_t)mb;
        } else {
            pp_cli_error("diagnose: unknown option '%s'; try `perfpipe diagnose --help`", a);
            return PP_EXIT_USAGE;
        }
    }
    return PP_EXIT_OK;
}

static int
check_args(diag_run *r)
{
    int targets = (r->s.pid != 0) + (r->s.process_name != NULL) + (r->s.diagnostic_port != NULL);

    if (targets != 1) {
        pp_cli_error("diagnose: give exactly one target: -p PID, -n NAME or --diagnostic-port "
                     "PATH (or 'process' in the session file; `perfpipe ps` lists them)");
        return PP_EXIT_USAGE;
    }
    if (r->s.diagnostic_port && strstr(r->s.diagnostic_port, ",listen")) {
        pp_cli_error("diagnose: a listening diagnostic port serves one session from startup; "
                     "diagnose runs several: give the runtime's socket (PATH or PATH,connect)");
        return PP_EXIT_USAGE;
    }
    if (!r->dir) {
        pp_cli_error("diagnose: -o DIR is required (the evidence folder)");
        return PP_EXIT_USAGE;
    }
    if (r->s.knobs.counters_s <= 0)
        r->s.knobs.counters_s = r->s.knobs.duration_s;
    if (!r->s.knobs.counters || !r->s.knobs.counters[0]) {
        free(r->s.knobs.counters);
        r->s.knobs.counters = strdup("System.Runtime");
    }
    return PP_EXIT_OK;
}

/* DIR made (or empty of a session), so evidence of two runs never mixes. */
static int
make_dir(const char *dir)
{
    char p[4200];
    struct stat st;

    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        pp_cli_error("diagnose: %s: cannot create: %s", dir, strerror(errno));
        return PP_EXIT_OUTPUT;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        pp_cli_error("diagnose: %s is not a directory; choose another -o", dir);
        return PP_EXIT_OUTPUT;
    }
    snprintf(p, sizeof p, "%s/session.json", dir);
    if (access(p, F_OK) == 0) {
        pp_cli_error("diagnose: %s holds a session already (session.json); choose another -o "
                     "(evidence of two sessions is never mixed)",
                     dir);
        return PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

static int
write_json(const char *dir, const char *name, const json_t *doc)
{
    char p[4200], tmp[4300];

    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    if (pp_cli_doc_whole(p) != PP_EXIT_OK)
        return PP_EXIT_NOMEM;
    if (json_dump_file(doc, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) != 0 || rename(tmp, p) != 0) {
        pp_cli_error("diagnose: %s: cannot write: %s", p, strerror(errno));
        unlink(tmp);
        return pp_cli_doc_whole(p) != PP_EXIT_OK ? PP_EXIT_NOMEM : PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

/* Resolve and check the target: refused before anything is captured. */
static int
resolve(diag_run *r, unsigned long long *pid)
{
    pp_capture_spec spec = { .listen_timeout_ms = -1,
                             .pid = r->s.pid,
                             .process_name = r->s.process_name,
                             .diagnostic_port = r->s.diagnostic_port,
                             .follow_child = r->follow_child };
    pp_ipc_endpoint ep;
    pp_error err = PP_ERROR_INIT;
    int rc = pp_capture_target(&spec, &ep, &err);

    if (rc != PP_OK) {
        pp_cli_error("diagnose: %s", err.message);
        return rc == PP_EINVAL ? PP_EXIT_USAGE : PP_EXIT_INPUT;
    }
    json_t *id = pp_diag_identity(&ep);
    json_object_set_new(r->record, "process", id);
    rc = pp_diag_check_busy(&ep, r->s.process_name);
    *pid = ep.pid;
    pp_ipc_endpoint_close(&ep);
    return rc;
}

static json_t *
new_record(const diag_run *r, long long started)
{
    char when[32];

    pp_diag_iso_time(started, when, sizeof when);
    return json_pack("{s:s, s:s, s:s, s:o, s:o}", "schema", "perfpipe-session/1", "tool",
                     "perfpipe " PACKAGE_VERSION, "started", when, "knobs",
                     pp_diag_knobs_json(&r->s.knobs), "backend",
                     r->s.backend ? json_string(r->s.backend) : json_null());
}

static int
session(diag_run *r)
{
    unsigned long long pid = 0;
    double t0 = now_s();
    char when[32];
    int rc;

    if ((rc = resolve(r, &pid)) != PP_EXIT_OK)
        return rc;
    if ((rc = make_dir(r->dir)) != PP_EXIT_OK)
        return rc;
    json_t *caps = json_array();
    json_object_set_new(r->record, "captures", caps);
    rc = run_captures(r, pid, caps);
    double captured = now_s();
    if (rc == PP_EXIT_OK)
        rc = run_analyses(r);
    json_t *t = json_object();
    pp_diag_iso_time((long long)time(NULL), when, sizeof when);
    json_object_set_new(r->record, "ended", json_string(when));
    json_object_set_new(t, "capture_s", json_real(captured - t0));
    json_object_set_new(t, "analysis_s", json_real(now_s() - captured));
    json_object_set_new(t, "wall_s", json_real(now_s() - t0));
    json_object_set_new(r->record, "times", t);
    json_int_t dropped = 0;
    size_t i;
    json_t *c;
    json_array_foreach(caps, i, c)
        dropped += json_integer_value(json_object_get(c, "dropped_events"));
    json_object_set_new(r->record, "dropped_events", json_integer(dropped));
    json_object_set_new(r->record, "complete", json_boolean(rc == PP_EXIT_OK));
    int wrc = write_json(r->dir, "session.json", r->record);
    if (wrc == PP_EXIT_OK)
        wrc = pp_diag_write_reports(r->dir, r->record);
    if (!r->quiet && wrc == PP_EXIT_OK)
        fprintf(stderr,
                "%s: diagnose: wrote %s (note.md, report.html, session.json) in %.1f s; "
                "%lld events dropped\n",
                pp_prog, r->dir, now_s() - t0, (long long)dropped);
    return rc != PP_EXIT_OK ? rc : wrc;
}

int
pp_cmd_diagnose(int argc, char **argv)
{
    diag_run r = { .quiet = !isatty(STDERR_FILENO) };
    struct sigaction sa, old_int, old_term;
    int rc;

    pp_diag_session_init(&r.s);
    if ((rc = parse_args(argc, argv, &r)) != PP_EXIT_OK || (rc = check_args(&r)) != PP_EXIT_OK) {
        pp_diag_session_free(&r.s);
        return rc < 0 ? PP_EXIT_OK : rc;
    }
    r.record = new_record(&r, (long long)time(NULL));
    r.results = json_array();
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = session(&r);
    end_load(&r, 0);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    json_decref(r.record);
    json_decref(r.results);
    pp_diag_session_free(&r.s);
    return rc;
}
