/* The command line of `perfpipe run`, `validate` and ANALYZER: usage and
 * parsing (run_internal.h). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "pipeline/options.h"
#include "run_internal.h"

/* The options `perfpipe run` and `perfpipe ANALYZER` share, one text for
 * both usages. */
#define RUN_OPTIONS                                                                                \
    "  --hash ALGO          input identity: xxh3-128 (default) or sha256\n"                        \
    "  --plugin-dir DIR     look for plugins in DIR first (repeatable)\n"                          \
    "  --symbols DIR        look for application PDBs (and assemblies) in DIR first, for\n"        \
    "                       the `source` column (repeatable; then PERFPIPE_SYMBOL_PATH)\n"         \
    "  --evidence-dir DIR   also keep the result (JSON + markdown) in DIR under a dated,\n"        \
    "                       knob-stamped name, never overwriting; DIR/index.tsv lists runs\n"      \
    "  -q, --quiet          no warnings on stderr (they stay in the result)\n"                     \
    "  --stage-timeout S    fail a stage whose plugin makes no progress for S seconds\n"           \
    "                       (default: the stage's `timeout:` key, else 60; each stage\n"           \
    "                       runs isolated: a crash fails it alone)\n"                              \
    "  --no-isolate         run the stages in this process (for a debugger; a plugin\n"            \
    "                       crash then ends the run)\n"                                            \
    "  --jobs N             read a V4/V5 trace of 64 MiB or more on up to N threads\n"             \
    "                       (1-64) when every stage reading it can merge (alloc); the\n"           \
    "                       result is --jobs 1's byte for byte, for twice the memory.\n"           \
    "                       Default: PERFPIPE_JOBS, else 1\n"

void
cli_run_help(FILE *out, run_mode mode)
{
    if (mode == MODE_VALIDATE)
        fputs("Usage: perfpipe validate PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]...\n"
              "\n"
              "Check a pipeline without running it: YAML syntax, keys and types, that every\n"
              "analyzer exists and accepts its inputs and options. Errors are printed as\n"
              "FILE:LINE:COLUMN: what was expected. Exit 0 when valid, 2 when not, 4 when\n"
              "a plugin is refused.\n",
              out);
    else if (mode == MODE_ANALYZER)
        pp_cli_put_text(
            out,
            "Usage: perfpipe ANALYZER INPUT... [--top N] [--option KEY=VALUE]...\n"
            "                [--format FMT] [-o FILE] [--set KEY=VALUE]...\n"
            "\n"
            "Run ANALYZER's shipped one-stage pipeline on the inputs (the same code path\n"
            "as `perfpipe run`). `perfpipe describe ANALYZER` lists its options.\n"
            "\n"
            "  --top N              rows per table (sets the analyzer's `top` option)\n"
            "  --option KEY=VALUE   set an analyzer option (lists: comma-separated)\n"
            "  --from T, --to T     shorthands for --option from=T / to=T: the analyzer's\n"
            "                       window (ms from trace start; seconds for counters-csv)\n"
            "  --format FMT         @FORMATS@\n"
            "                       (default table)\n"
            "  --table NAME         the table the flame formats draw (default: the first stack table)\n"
            "  -o, --output FILE    write there instead of stdout (written whole or not at all;\n"
            "                       a read-only file is refused)\n"
            "  --force              replace a read-only -o file (or CSV file) too\n"
            "  --set KEY=VALUE      record a knob of the run (compare refuses runs whose knobs differ)\n"
            "  --                   ends the options: every later argument is an input file\n" RUN_OPTIONS
            "\n"
            "Live, instead of INPUT (a nettrace analyzer; see perfpipe-collect(1)):\n"
            "  -p, --pid N | -n, --process NAME | --diagnostic-port PATH[,connect]   capture\n"
            "                       from a running process; the result is ready when the\n"
            "                       capture ends\n"
            "  --duration T         stop after T (30s, 2m; default: Ctrl-C)\n"
            "  --keep FILE          where the capture is kept (default NAME_yyyyMMdd_HHmmss.nettrace);\n"
            "                       re-running on it gives the same result\n"
            "  --profile P, --providers S, --counters[=LIST], --interval S, --buffersize MB,\n"
            "  --follow-child       as for `perfpipe collect` (alloc defaults to gc-verbose,\n"
            "                       db to database, gc to gc-collect, others to dotnet-trace's\n"
            "                       default; --providers adds to that profile, --profile\n"
            "                       replaces it)\n"
            "Example: perfpipe alloc --pid 4242 --duration 30s --keep alloc.nettrace\n");
    else
        fputs(
            "Usage: perfpipe run PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]...\n"
            "                   [--option STAGE.KEY=VALUE]... [--format FMT] [-o FILE]\n"
            "\n"
            "Run a declared pipeline. PIPELINE is a path, or a NAME searched as NAME.yaml\n"
            "in PERFPIPE_PIPELINE_PATH, ~/.config/perfpipe/pipelines,\n" SYSCONFDIR
            "/perfpipe/pipelines, then the shipped " PKGDATADIR "/pipelines.\n"
            "\n"
            "  --input NAME=PATH    the file for input NAME (replaces the pipeline's path)\n"
            "  --set KEY=VALUE      a ${KEY} variable, also recorded among the run's knobs;\n"
            "                       a KEY whose ${KEY} is an input's whole path (TRACE in\n"
            "                       path: \"${TRACE}\") is that input's file, not a knob\n"
            "  --option STAGE.KEY=VALUE  override a stage option (--top N for one-stage pipelines)\n"
            "  --format FMT, -o FILE     replace the pipeline's outputs by one\n"
            "  --table NAME         the table the flame formats draw\n" RUN_OPTIONS "\n"
            "Example: perfpipe run alloc --input trace=app.nettrace --set scenario=cart -o a.json --format json\n",
            out);
}

static int
split_kv(const char *what, char *arg, pp_pipeline_kv *kv)
{
    char *eq = strchr(arg, '=');

    if (eq == NULL || eq == arg) {
        pp_cli_error("%s takes KEY=VALUE, not '%s'", what, arg);
        return -1;
    }
    *eq = '\0';
    kv->key = arg;
    kv->value = eq + 1;
    return 0;
}

int
cli_run_add_option(run_args *a, const char *flag, const char *stage, const char *key,
                   const char *value)
{
    if (a->noptions >= MAX_ARGS) {
        pp_cli_error("too many options");
        return -1;
    }
    a->option_flags[a->noptions] = flag;
    a->options[a->noptions].stage = stage;
    a->options[a->noptions].key = key;
    a->options[a->noptions].value = value;
    a->noptions++;
    return 0;
}

/* --top, --from, --to are the CLI's own options: checked here, as options
 * of the command line, before any pipeline or analyzer is involved. */
static int
cli_number(const char *flag, const char *arg, int integer)
{
    int64_t i;
    double d;

    if (integer && pp_option_parse_int(arg, &i) != PP_OK) {
        pp_cli_error("option %s expects an integer, got '%s'", flag, arg);
        return -1;
    }
    if (integer && i < 0) {
        pp_cli_error("option %s expects an integer >= 0 (0 = every row), got '%s'", flag, arg);
        return -1;
    }
    if (!integer && (pp_option_parse_double(arg, &d) != PP_OK || d < 0)) {
        pp_cli_error("option %s expects a number >= 0 (ms from the trace start; seconds for "
                     "counters-csv), got '%s'",
                     flag, arg);
        return -1;
    }
    return 0;
}

/* `perfpipe ANALYZER --help` goes on with what `describe` says of it. */
static int
analyzer_help(const run_args *a)
{
    fputs("\n", stdout);
    fflush(stdout);
    return pp_cli_describe(a->analyzer, (char **)a->plugin_dirs, a->ndirs);
}

/* A live-capture option (--pid, -p, --process, -n, --duration...): only
 * for the ANALYZER shorthand. */
static int
capture_opt(run_args *a, const char *name)
{
    if (a->mode != MODE_ANALYZER) {
        pp_cli_error("--%s is for the `perfpipe ANALYZER --pid N` shorthand; in a "
                     "pipeline, give the input a `capture:` mapping",
                     name);
        return -1;
    }
    return pp_cli_capture_opt(&a->capture, name, optarg);
}

/* --stage-timeout S: whole seconds, 1..PP_PIPELINE_MAX_TIMEOUT. */
static int
stage_timeout(const char *arg, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);

    if (end == arg || *end != '\0' || v == 0 || v > PP_PIPELINE_MAX_TIMEOUT || arg[0] == '-') {
        pp_cli_error("--stage-timeout wants whole seconds from 1 to %u, not '%s'",
                     PP_PIPELINE_MAX_TIMEOUT, arg);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* --symbols DIR: searched before the PERFPIPE_SYMBOL_PATH the user had, in
 * the order given (the source lookup reads the variable, in every stage's
 * process). */
static int
add_symbols(const char *dir)
{
    static char *dirs; /* the flags' directories, ':'-joined */
    static char *user; /* the variable before the first flag (a copy) */
    if (!dir[0] || strchr(dir, ':')) {
        pp_cli_error("--symbols takes one directory (no ':'): '%s'", dir);
        return -1;
    }
    if (!dirs && getenv("PERFPIPE_SYMBOL_PATH") && getenv("PERFPIPE_SYMBOL_PATH")[0] &&
        !(user = strdup(getenv("PERFPIPE_SYMBOL_PATH")))) {
        pp_cli_error("out of memory");
        return -1;
    }
    size_t d = dirs ? strlen(dirs) : 0, n = strlen(dir), u = user ? strlen(user) : 0;
    char *v = malloc(d + n + u + 3);
    if (!v) {
        pp_cli_error("out of memory");
        return -1;
    }
    snprintf(v, d + n + u + 3, "%s%s%s", dirs ? dirs : "", dirs ? ":" : "", dir);
    free(dirs);
    dirs = v;
    char *all = malloc(strlen(dirs) + u + 2);
    if (!all) {
        pp_cli_error("out of memory");
        return -1;
    }
    snprintf(all, strlen(dirs) + u + 2, "%s%s%s", dirs, u ? ":" : "", u ? user : "");
    int rc = setenv("PERFPIPE_SYMBOL_PATH", all, 1);
    free(all);
    if (rc != 0)
        pp_cli_error("cannot set PERFPIPE_SYMBOL_PATH for --symbols");
    return rc == 0 ? 0 : -1;
}

/* A positional argument (before or after `--`). */
static int
add_positional(run_args *a, char *arg)
{
    if (a->mode == MODE_ANALYZER) {
        if (a->npositional >= MAX_ARGS) {
            pp_cli_error("too many inputs");
            return -1;
        }
        a->positional[a->npositional++] = arg;
    } else if (a->pipeline == NULL) {
        a->pipeline = arg;
    } else {
        pp_cli_error("unexpected argument '%s' (inputs are given as --input NAME=PATH)", arg);
        return -1;
    }
    return 0;
}

int
cli_run_parse_args(run_args *a, int argc, char **argv)
{
    static const struct option opts[] = {
        { "input", required_argument, NULL, 'i' },
        { "set", required_argument, NULL, 's' },
        { "option", required_argument, NULL, 'O' },
        { "top", required_argument, NULL, 't' },
        { "from", required_argument, NULL, 'F' },
        { "to", required_argument, NULL, 'T' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 0x101 },
        { "table", required_argument, NULL, 'b' },
        { "hash", required_argument, NULL, 'H' },
        { "plugin-dir", required_argument, NULL, 'P' },
        { "symbols", required_argument, NULL, 'Y' },
        { "quiet", no_argument, NULL, 'q' },
        { "evidence-dir", required_argument, NULL, 'E' },
        { "stage-timeout", required_argument, NULL, 'W' },
        { "no-isolate", no_argument, NULL, 'N' },
        { "jobs", required_argument, NULL, 'j' },
        { "pid", required_argument, NULL, 0x100 },
        { "process", required_argument, NULL, 0x100 },
        { "name", required_argument, NULL, 'n' },
        { "diagnostic-port", required_argument, NULL, 0x100 },
        { "profile", required_argument, NULL, 0x100 },
        { "providers", required_argument, NULL, 0x100 },
        { "counters", optional_argument, NULL, 0x100 },
        { "interval", required_argument, NULL, 0x100 },
        { "duration", required_argument, NULL, 0x100 },
        { "keep", required_argument, NULL, 0x100 },
        { "follow-child", no_argument, NULL, 0x100 },
        { "buffersize", required_argument, NULL, 0x100 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, li = 0;

    a->quiet |= pp_cli_quiet;
    optind = 1;
    opterr = 0;
    /* '-' keeps positionals in order, so inputs may come before options;
     * -p and -n are collect's spellings of --pid and --process. */
    while ((c = getopt_long(argc, argv, "-:i:s:O:t:f:o:P:qhp:n:", opts, &li)) != -1) {
        pp_pipeline_kv kv;

        switch (c) {
        case 1:
            if (add_positional(a, optarg) < 0)
                return -1;
            break;
        case 'i':
            if (a->ninputs >= MAX_ARGS || split_kv("--input", optarg, &a->inputs[a->ninputs]) < 0)
                return -1;
            a->ninputs++;
            break;
        case 's':
            if (a->nsets >= MAX_ARGS || split_kv("--set", optarg, &a->sets[a->nsets]) < 0)
                return -1;
            a->nsets++;
            break;
        case 'O': {
            char *dot;

            if (split_kv("--option", optarg, &kv) < 0)
                return -1;
            dot = strchr(kv.key, '.');
            if (dot != NULL) {
                *dot = '\0';
                if (cli_run_add_option(a, "--option", kv.key, dot + 1, kv.value) < 0)
                    return -1;
            } else if (cli_run_add_option(a, "--option", "*", kv.key, kv.value) < 0) {
                return -1;
            }
            break;
        }
        case 't':
            if (cli_number("--top", optarg, 1) < 0 ||
                cli_run_add_option(a, "--top", "*", "top", optarg) < 0)
                return -1;
            break;
        case 'F':
            if (cli_number("--from", optarg, 0) < 0 ||
                cli_run_add_option(a, "--from", "*", "from", optarg) < 0)
                return -1;
            break;
        case 'T':
            if (cli_number("--to", optarg, 0) < 0 ||
                cli_run_add_option(a, "--to", "*", "to", optarg) < 0)
                return -1;
            break;
        case 'f':
            if (!pp_cli_format_ok(optarg))
                return -1;
            a->format = optarg;
            break;
        case 'o': a->output = optarg; break;
        case 0x101: pp_cli_force = 1; break;
        case 'b': a->table = optarg; break;
        case 'H': a->hash = optarg; break;
        case 'P':
            if (a->ndirs < MAX_ARGS)
                a->plugin_dirs[a->ndirs++] = optarg;
            break;
        case 'q': a->quiet = 1; break;
        case 'E': a->evidence_dir = optarg; break;
        case 'N': a->no_isolate = 1; break;
        case 'j':
            if (pp_cli_parse_jobs(optarg, &a->jobs) < 0)
                return -1;
            break;
        case 'W':
            if (stage_timeout(optarg, &a->stage_timeout) < 0)
                return -1;
            break;
        case 'Y':
            if (add_symbols(optarg) < 0)
                return -1;
            break;
        case 'p':
        case 'n':
        case 0x100:
            if (capture_opt(a, c == 'p' ? "pid" : c == 'n' ? "process" : opts[li].name) < 0)
                return -1;
            break;
        case 'h':
            cli_run_help(stdout, a->mode);
            exit(a->mode == MODE_ANALYZER ? analyzer_help(a) : PP_EXIT_OK);
        default:
            pp_cli_bad_option(a->mode == MODE_ANALYZER ? a->analyzer :
                              a->mode == MODE_RUN      ? "run" :
                                                         "validate",
                              c, argv);
            return -1;
        }
    }
    /* After `--` every argument is positional, even one that starts with -. */
    for (; optind < argc; optind++)
        if (add_positional(a, argv[optind]) < 0)
            return -1;
    return 0;
}
