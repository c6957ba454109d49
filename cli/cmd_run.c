/* `perfpipe run`, `perfpipe validate` and the `perfpipe ANALYZER INPUT...`
 * shorthand: all three load a pipeline, check it against the plugins, and
 * (but validate) run it through one code path. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "evidence.h"
#include "outfile.h"
#include "paths.h"
#include "pipeline/options.h"
#include "pipeline/pipeline.h"
#include "result/result.h"
#include "run.h"

#define MAX_ARGS 64

typedef enum { MODE_RUN, MODE_VALIDATE, MODE_ANALYZER } run_mode;

typedef struct run_args {
    run_mode mode;
    const char *pipeline;          /* name or path */
    const char *analyzer;          /* MODE_ANALYZER */
    char *positional[MAX_ARGS];    /* MODE_ANALYZER: input paths */
    int npositional;
    pp_pipeline_kv sets[MAX_ARGS];
    size_t nsets;
    pp_pipeline_kv inputs[MAX_ARGS];
    size_t ninputs;
    pp_pipeline_option_override options[MAX_ARGS];
    const char *option_flags[MAX_ARGS]; /* the flag that set options[i], for messages */
    size_t noptions;
    char *plugin_dirs[MAX_ARGS];
    int ndirs;
    const char *format;            /* --format: replaces the pipeline's outputs */
    const char *output;            /* -o */
    const char *table;             /* --table for flame formats */
    const char *hash;
    const char *evidence_dir;      /* --evidence-dir */
    int quiet;
    unsigned stage_timeout;        /* --stage-timeout, 0 = the default */
    int no_isolate;                /* --no-isolate: stages in this process */
    pp_cli_capture capture;        /* --pid N ...: capture live (capture_opts.c) */
} run_args;

static void
run_help(FILE *out, run_mode mode)
{
    if (mode == MODE_VALIDATE)
        fputs("Usage: perfpipe validate PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]...\n"
              "\n"
              "Check a pipeline without running it: YAML syntax, keys and types, that every\n"
              "analyzer exists and accepts its inputs and options. Errors are printed as\n"
              "FILE:LINE:COLUMN: what was expected. Exit 0 when valid, 2 when not, 4 when\n"
              "a plugin is refused.\n", out);
    else if (mode == MODE_ANALYZER)
        fputs("Usage: perfpipe ANALYZER INPUT... [--top N] [--option KEY=VALUE]...\n"
              "                [--format FMT] [-o FILE] [--set KEY=VALUE]...\n"
              "\n"
              "Run ANALYZER's shipped one-stage pipeline on the inputs (the same code path\n"
              "as `perfpipe run`). `perfpipe describe ANALYZER` lists its options.\n"
              "\n"
              "  --top N              rows per table (sets the analyzer's `top` option)\n"
              "  --option KEY=VALUE   set an analyzer option (lists: comma-separated)\n"
              "  --from T, --to T     shorthands for --option from=T / to=T: the analyzer's\n"
              "                       window (ms from trace start; seconds for counters-csv)\n"
              "  --format FMT         table (default), json, markdown, csv, html, folded, speedscope, svg\n"
              "  --table NAME         the table the flame formats draw (default: the first stack table)\n"
              "  -o, --output FILE    write there instead of stdout (written whole or not at all)\n"
              "  --set KEY=VALUE      record a knob of the run (compare refuses runs whose knobs differ)\n"
              "  --                   ends the options: every later argument is an input file\n"
              "  --hash ALGO          input identity: xxh3-128 (default) or sha256\n"
              "  --plugin-dir DIR     look for plugins in DIR first (repeatable)\n"
              "  --evidence-dir DIR   also keep the result (JSON + markdown) in DIR under a dated,\n"
              "                       knob-stamped name, never overwriting; DIR/index.tsv lists runs\n"
              "  -q, --quiet          no warnings on stderr (they stay in the result)\n"
              "  --stage-timeout S    fail a stage whose plugin makes no progress for S seconds\n"
              "                       (default: the stage's `timeout:` key, else 60; each stage\n"
              "                       runs isolated: a crash fails it alone)\n"
              "  --no-isolate         run the stages in this process (for a debugger; a plugin\n"
              "                       crash then ends the run)\n"
              "\n"
              "Live, instead of INPUT (a nettrace analyzer; see perfpipe-collect(1)):\n"
              "  --pid N | --process NAME | --diagnostic-port PATH[,connect]   capture from a\n"
              "                       running process; the result is ready when the capture ends\n"
              "  --duration T         stop after T (30s, 2m; default: Ctrl-C)\n"
              "  --keep FILE          where the capture is kept (default NAME_yyyyMMdd_HHmmss.nettrace);\n"
              "                       re-running on it gives the same result\n"
              "  --profile P, --providers S, --counters[=LIST], --interval S, --buffersize MB,\n"
              "  --follow-child       as for `perfpipe collect` (alloc defaults to gc-verbose,\n"
              "                       db to database, others to dotnet-trace's default)\n"
              "Example: perfpipe alloc --pid 4242 --duration 30s --keep alloc.nettrace\n", out);
    else
        fputs("Usage: perfpipe run PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]...\n"
              "                   [--option STAGE.KEY=VALUE]... [--format FMT] [-o FILE]\n"
              "\n"
              "Run a declared pipeline. PIPELINE is a path, or a NAME searched as NAME.yaml\n"
              "in PERFPIPE_PIPELINE_PATH, ~/.config/perfpipe/pipelines,\n"
              SYSCONFDIR "/perfpipe/pipelines, then the shipped " PKGDATADIR "/pipelines.\n"
              "\n"
              "  --input NAME=PATH    the file for input NAME (replaces the pipeline's path)\n"
              "  --set KEY=VALUE      a ${KEY} variable, also recorded among the run's knobs;\n"
              "                       a KEY whose ${KEY} is an input's whole path (TRACE in\n"
              "                       path: \"${TRACE}\") is that input's file, not a knob\n"
              "  --option STAGE.KEY=VALUE  override a stage option (--top N for one-stage pipelines)\n"
              "  --format FMT, -o FILE     replace the pipeline's outputs by one\n"
              "  --table NAME         the table the flame formats draw\n"
              "  --hash ALGO          xxh3-128 (default) or sha256\n"
              "  --plugin-dir DIR     look for plugins in DIR first (repeatable)\n"
              "  --evidence-dir DIR   also keep the result (JSON + markdown) in DIR under a dated,\n"
              "                       knob-stamped name, never overwriting; DIR/index.tsv lists runs\n"
              "  -q, --quiet          no warnings on stderr\n"
              "  --stage-timeout S    fail a stage whose plugin makes no progress for S seconds\n"
              "                       (default: the stage's `timeout:` key, else 60; each stage\n"
              "                       runs isolated: a crash fails it alone)\n"
              "  --no-isolate         run the stages in this process (for a debugger; a plugin\n"
              "                       crash then ends the run)\n"
              "\n"
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

static int
add_option(run_args *a, const char *flag, const char *stage, const char *key, const char *value)
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
                     "counters-csv), got '%s'", flag, arg);
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

static int
parse_args(run_args *a, int argc, char **argv)
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
        { "table", required_argument, NULL, 'b' },
        { "hash", required_argument, NULL, 'H' },
        { "plugin-dir", required_argument, NULL, 'P' },
        { "quiet", no_argument, NULL, 'q' },
        { "evidence-dir", required_argument, NULL, 'E' },
        { "stage-timeout", required_argument, NULL, 'W' },
        { "no-isolate", no_argument, NULL, 'N' },
        { "pid", required_argument, NULL, 0x100 },
        { "process", required_argument, NULL, 0x100 },
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

    optind = 1;
    /* '-' keeps positionals in order, so inputs may come before options. */
    while ((c = getopt_long(argc, argv, "-i:s:O:t:f:o:P:qh", opts, &li)) != -1) {
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
                if (add_option(a, "--option", kv.key, dot + 1, kv.value) < 0)
                    return -1;
            } else if (add_option(a, "--option", "*", kv.key, kv.value) < 0) {
                return -1;
            }
            break;
        }
        case 't':
            if (cli_number("--top", optarg, 1) < 0 || add_option(a, "--top", "*", "top", optarg) < 0)
                return -1;
            break;
        case 'F':
            if (cli_number("--from", optarg, 0) < 0 ||
                add_option(a, "--from", "*", "from", optarg) < 0)
                return -1;
            break;
        case 'T':
            if (cli_number("--to", optarg, 0) < 0 || add_option(a, "--to", "*", "to", optarg) < 0)
                return -1;
            break;
        case 'f':
            if (!pp_cli_format_ok(optarg))
                return -1;
            a->format = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'b':
            a->table = optarg;
            break;
        case 'H':
            a->hash = optarg;
            break;
        case 'P':
            if (a->ndirs < MAX_ARGS)
                a->plugin_dirs[a->ndirs++] = optarg;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'E':
            a->evidence_dir = optarg;
            break;
        case 'N':
            a->no_isolate = 1;
            break;
        case 'W': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);

            if (end == optarg || *end != '\0' || v == 0 || v > PP_PIPELINE_MAX_TIMEOUT ||
                optarg[0] == '-') {
                pp_cli_error("--stage-timeout wants whole seconds from 1 to %u, not '%s'",
                             PP_PIPELINE_MAX_TIMEOUT, optarg);
                return -1;
            }
            a->stage_timeout = (unsigned)v;
            break;
        }
        case 0x100:
            if (a->mode != MODE_ANALYZER) {
                pp_cli_error("--%s is for the `perfpipe ANALYZER --pid N` shorthand; in a "
                             "pipeline, give the input a `capture:` mapping", opts[li].name);
                return -1;
            }
            if (pp_cli_capture_opt(&a->capture, opts[li].name, optarg) < 0)
                return -1;
            break;
        case 'h':
            run_help(stdout, a->mode);
            exit(a->mode == MODE_ANALYZER ? analyzer_help(a) : PP_EXIT_OK);
        default:
            run_help(stderr, a->mode);
            return -1;
        }
    }
    /* After `--` every argument is positional, even one that starts with -. */
    for (; optind < argc; optind++)
        if (add_positional(a, argv[optind]) < 0)
            return -1;
    return 0;
}

/* A refused plugin checks as its stand-in (loader.h): its stage fails
 * alone when run; validate reports it. */
static const pp_analyzer *
lookup(void *user, const char *name, pp_error *err)
{
    return pp_loader_get_or_standin(user, name, err);
}

/* A one-stage pipeline made from a descriptor, for third-party analyzers
 * that ship none: one input per slot, of the first kind it reads. */
static char *
synthesize(const pp_analyzer *a, const char *first_input)
{
    static const char *const kinds[] = { "nettrace", "gcdump", "counters", "spans", "bench" };
    static const struct { const char *ext; uint32_t kind; } by_ext[] = {
        { ".nettrace", PP_KIND_NETTRACE }, { ".gcdump", PP_KIND_GCDUMP },
        { ".csv", PP_KIND_COUNTERS }, { ".json", PP_KIND_COUNTERS }, { ".json", PP_KIND_SPANS },
        { ".ndjson", PP_KIND_SPANS },
    };
    size_t len = first_input ? strlen(first_input) : 0;
    const char *kind = NULL;
    uint32_t nslots = a->input_slot_count ? a->input_slot_count : 1;
    size_t size = 1024 + 128 * nslots;
    char *text = malloc(size);
    size_t used;

    if (text == NULL)
        return NULL;
    /* An analyzer that reads several kinds gets the one the file's name
     * says; otherwise the first kind it reads. */
    for (size_t i = 0; i < sizeof by_ext / sizeof by_ext[0] && kind == NULL; i++) {
        size_t n = strlen(by_ext[i].ext);

        if ((a->input_kinds & by_ext[i].kind) && len > n &&
            strcmp(first_input + len - n, by_ext[i].ext) == 0)
            for (unsigned k = 0; k < 5; k++)
                if (by_ext[i].kind == (1u << k))
                    kind = kinds[k];
    }
    for (unsigned i = 0; i < 5 && kind == NULL; i++)
        if (a->input_kinds & (1u << i))
            kind = kinds[i];
    used = (size_t)snprintf(text, size, "version: 1\nname: %s\ninputs:\n", a->name);
    for (uint32_t i = 0; i < nslots && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "  %s: { kind: %s, path: \"${%s}\" }\n",
                                 nslots > 1 && a->input_slots ? a->input_slots[i] : "input", kind,
                                 nslots > 1 && a->input_slots ? a->input_slots[i] : "input");
    if (used < size)
        used += (size_t)snprintf(text + used, size - used, "stages:\n  - id: %s\n    analyzer: %s\n",
                                 a->name, a->name);
    if (nslots > 1 && used < size) {
        used += (size_t)snprintf(text + used, size - used, "    inputs: [");
        for (uint32_t i = 0; i < nslots && used < size; i++)
            used += (size_t)snprintf(text + used, size - used, "%s%s", i ? ", " : "",
                                     a->input_slots[i]);
        if (used < size)
            snprintf(text + used, size - used, "]\n");
    }
    return text;
}

static void
on_warning(void *user, const char *input, const char *message)
{
    const run_args *a = user;

    if (!a->quiet) {
        pp_cli_progress_done();
        fprintf(stderr, "%s: %s: warning: %s\n", pp_prog, input, message);
    }
}

static void
on_log(void *user, int level, const char *message)
{
    const run_args *a = user;

    /* Warnings unless -q; plugin chatter below that only on request. */
    if ((level >= PP_LOG_WARN && !a->quiet) || getenv("PERFPIPE_DEBUG") != NULL) {
        pp_cli_progress_done();
        fprintf(stderr, "%s: %s\n", pp_prog, message);
    }
}

static void
on_progress(void *user, const char *input, uint64_t done, uint64_t total)
{
    pp_cli_progress(user, input, done, total);
}

/* An output that is an input under another name (./x, a hard link, a
 * symlink) would destroy the capture: compared by device and inode. */
static int
output_over_input(const pp_pipeline *p, const char *cli_output)
{
    for (uint32_t k = 0; k <= p->output_count; k++) {
        const char *out = k < p->output_count ? p->outputs[k].path : cli_output;

        for (uint32_t i = 0; out != NULL && i < p->input_count; i++)
            if (pp_same_file(out, p->inputs[i].path)) {
                pp_cli_error("output '%s' is input '%s' ('%s'): refusing to overwrite a capture",
                             out, p->inputs[i].name, p->inputs[i].path);
                return -1;
            }
    }
    return 0;
}

/* `-` as an input is standard input. The nettrace and counters readers
 * read in one pass and take a pipe; the others need the whole file, so a
 * pipe is refused for them (stdin redirected from a regular file is fine
 * for every kind). *single_pass is set when stdin is a pipe or a device: it
 * cannot be read again, so the stages are not isolated (perfpipe(1)). An
 * exit code. */
static int
stdin_inputs(pp_pipeline *p, int *single_pass)
{
    struct stat st;
    int regular = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
    uint32_t seen = 0;

    *single_pass = 0;
    for (uint32_t i = 0; i < p->input_count; i++) {
        pp_pipeline_input *in = &p->inputs[i];
        char *dev;

        if (in->path == NULL || strcmp(in->path, "-") != 0)
            continue;
        if (seen++ > 0) {
            pp_cli_error("inputs '%s' and '%s' are both '-': standard input can be read once",
                         p->inputs[i - 1].name, in->name);
            return PP_EXIT_USAGE;
        }
        if (!regular && strcmp(in->kind, "nettrace") != 0 && strcmp(in->kind, "counters") != 0) {
            pp_cli_error("input '%s' is '-', a pipe, but the %s reader needs the whole file "
                         "(only nettrace and counters are read in one pass): save it to a file "
                         "first, or redirect stdin from one (< FILE)", in->name, in->kind);
            return PP_EXIT_USAGE;
        }
        if ((dev = strdup("/dev/stdin")) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_NOMEM;
        }
        free(in->path);
        in->path = dev;
        *single_pass = !regular;
    }
    return PP_EXIT_OK;
}

/* validate: a stage whose plugin was refused (a stand-in, loader.h) makes
 * the pipeline unrunnable as written. An exit code. */
static int
refused_stages(const pp_pipeline *p)
{
    int status = PP_EXIT_OK;

    for (uint32_t k = 0; k < p->stage_count; k++)
        if (p->stages[k].analyzer->flags & PP_ANALYZER_FLAG_STANDIN) {
            pp_cli_error("%s:%u:%u: stage '%s': analyzer '%s' is refused: %s", p->file,
                         (unsigned)p->stages[k].analyzer_pos.line,
                         (unsigned)p->stages[k].analyzer_pos.column, p->stages[k].id,
                         p->stages[k].analyzer_name, p->stages[k].analyzer->summary);
            status = PP_EXIT_PLUGIN;
        }
    return status;
}

static int
load(const run_args *a, const char *path, const char *text, const pp_pipeline_vars *vars,
     pp_pipeline **out, pp_error *err)
{
    return text != NULL ? pp_pipeline_load_string(a->analyzer, text, strlen(text), vars, out, err)
                        : pp_pipeline_load_file(path, vars, out, err);
}

/* The pipeline to load: *path (a file), or *text (made from the analyzer's
 * descriptor when it ships none). An exit code. */
static int
find_source(const run_args *a, pp_loader *loader, char **path, char **text)
{
    pp_error err = PP_ERROR_INIT;

    if (a->mode == MODE_ANALYZER) {
        const pp_analyzer *an = pp_loader_get(loader, a->analyzer, &err);
        pp_error ferr = PP_ERROR_INIT;

        if (an == NULL) {
            pp_cli_error("%s", err.message);
            return err.code == PP_ENOTFOUND ? PP_EXIT_USAGE : PP_EXIT_PLUGIN;
        }
        *path = pp_pipeline_find(pp_cli_pipeline_for(a->analyzer), &ferr);
        if (*path == NULL && (*text = synthesize(an, a->positional[0])) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_USAGE;
        }
        return PP_EXIT_OK;
    }
    if (a->pipeline == NULL) {
        run_help(stderr, a->mode);
        return PP_EXIT_USAGE;
    }
    if ((*path = pp_pipeline_find(a->pipeline, &err)) == NULL) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* The command line's inputs and variables, bound to the pipeline's inputs. */
typedef struct bound {
    pp_pipeline_kv inputs[MAX_ARGS];
    size_t ninputs;
    pp_pipeline_kv sets[MAX_ARGS];
    size_t nsets;
    char *names[MAX_ARGS];         /* owned copies of input names */
    size_t nnames;
} bound;

static void
bound_free(bound *b)
{
    for (size_t i = 0; i < b->nnames; i++)
        free(b->names[i]);
}

static int
bind_input(bound *b, const char *name, const char *path)
{
    if (b->ninputs >= MAX_ARGS || b->nnames >= MAX_ARGS ||
        (b->names[b->nnames] = strdup(name)) == NULL) {
        pp_cli_error("too many inputs");
        return -1;
    }
    b->inputs[b->ninputs].key = b->names[b->nnames++];
    b->inputs[b->ninputs++].value = path;
    return 0;
}

static const pp_pipeline_kv *
bound_input(const bound *b, const char *name)
{
    for (size_t i = 0; i < b->ninputs; i++)
        if (strcmp(b->inputs[i].key, name) == 0)
            return &b->inputs[i];
    return NULL;
}

/* The input whose whole path is ${key}, in a names-only model (paths are
 * not expanded there), or NULL. */
static const pp_pipeline_input *
input_named_by_var(const pp_pipeline *q, const char *key)
{
    for (uint32_t i = 0; i < q->input_count; i++) {
        const char *path = q->inputs[i].path;
        size_t n = strlen(key);

        if (path != NULL && strncmp(path, "${", 2) == 0 && strncmp(path + 2, key, n) == 0 &&
            strcmp(path + 2 + n, "}") == 0)
            return &q->inputs[i];
    }
    return NULL;
}

/* Positional files fill the pipeline's inputs in declared order; a --set
 * KEY=PATH whose ${KEY} is an input's whole path is that input, not a knob
 * (so two runs over different files stay comparable). An exit code. */
static int
bind_args(const run_args *a, const pp_pipeline *q, bound *b)
{
    if (a->mode == MODE_ANALYZER) {
        if ((uint32_t)a->npositional != q->input_count) {
            char names[512] = "";
            size_t used = 0;

            for (uint32_t i = 0; i < q->input_count && used < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         i ? ", " : "", q->inputs[i].name);
            pp_cli_error("%s takes %u input file%s (%s), got %d; see `perfpipe %s --help`",
                         a->analyzer, q->input_count, q->input_count == 1 ? "" : "s", names,
                         a->npositional, a->analyzer);
            return PP_EXIT_USAGE;
        }
        for (uint32_t i = 0; i < q->input_count; i++)
            if (bind_input(b, q->inputs[i].name, a->positional[i]) < 0)
                return PP_EXIT_USAGE;
    } else {
        for (size_t i = 0; i < a->ninputs; i++)
            if (bind_input(b, a->inputs[i].key, a->inputs[i].value) < 0)
                return PP_EXIT_USAGE;
    }
    for (size_t i = 0; i < a->nsets; i++) {
        const pp_pipeline_input *in = input_named_by_var(q, a->sets[i].key);
        const pp_pipeline_kv *given = in != NULL ? bound_input(b, in->name) : NULL;

        if (in == NULL) {
            b->sets[b->nsets++] = a->sets[i];
        } else if (given != NULL && strcmp(given->value, a->sets[i].value) != 0) {
            pp_cli_error("--set %s=%s: ${%s} is the path of input '%s', already given as '%s'",
                         a->sets[i].key, a->sets[i].value, a->sets[i].key, in->name,
                         given->value);
            return PP_EXIT_USAGE;
        } else if (given == NULL && bind_input(b, in->name, a->sets[i].value) < 0) {
            return PP_EXIT_USAGE;
        }
    }
    return PP_EXIT_OK;
}

/* Each command-line option, checked against the analyzer of its stage, so
 * a wrong name or value blames the flag that gave it, not the pipeline file
 * it was merged into. An exit code. */
static int
check_cli_options(const run_args *a, const pp_pipeline *p, pp_loader *loader)
{
    for (size_t i = 0; i < a->noptions; i++) {
        const pp_pipeline_option_override *ov = &a->options[i];
        const pp_pipeline_stage *s = NULL;
        const pp_analyzer *an;
        const char *pair[2] = { ov->key, ov->value };
        pp_options *o = NULL;
        pp_error err = PP_ERROR_INIT;
        int rc;

        for (uint32_t k = 0; k < p->stage_count && s == NULL; k++)
            if (strcmp(ov->stage, "*") == 0 || strcmp(p->stages[k].id, ov->stage) == 0)
                s = &p->stages[k];
        if (s == NULL || (an = pp_loader_get(loader, s->analyzer_name, &err)) == NULL)
            continue;   /* the pipeline check names what is missing */
        rc = pp_options_build(an, pair, 1, &o, &err);
        pp_options_free(o);
        if (rc == PP_OK)
            continue;
        if (strcmp(a->option_flags[i], "--option") != 0)
            pp_cli_error("%s %s: %s", a->option_flags[i], ov->value, err.message);
        else if (strcmp(ov->stage, "*") == 0)
            pp_cli_error("--option %s=%s: %s", ov->key, ov->value, err.message);
        else
            pp_cli_error("--option %s.%s=%s: %s", ov->stage, ov->key, ov->value, err.message);
        return rc == PP_EPLUGIN ? PP_EXIT_PLUGIN : PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* An error-severity finding means the stage could not give its answer
 * (perfpipe(1), "Exit status"): exit 4 like a failed stage, with the result
 * still written. Warnings and infos never change the exit status. */
static const char *
text_of(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v != NULL ? v : "?";
}

static int
error_findings(const json_t *doc)
{
    const json_t *stages = json_object_get(doc, "stages"), *st, *f;
    size_t i, k;
    int n = 0;

    json_array_foreach(stages, i, st) {
        json_array_foreach(json_object_get(st, "findings"), k, f) {
            if (strcmp(text_of(f, "severity"), "error") != 0)
                continue;
            n++;
            pp_cli_error("stage '%s' could not answer: error [%s] %s (exit 4)", text_of(st, "id"),
                         text_of(f, "code"), text_of(f, "message"));
        }
    }
    return n;
}

/* A stage whose create() refused an option value (PP_EINVAL: `--option
 * top=-3`) makes the run a usage error: its message, exit 2, and nothing
 * written (a document without that stage's answer would pose as one). */
static const char *
option_refusal(const json_t *doc)
{
    const json_t *st, *e;
    size_t i;

    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        e = json_object_get(st, "error");
        if (json_is_object(e) && strcmp(text_of(e, "phase"), "create") == 0 &&
            json_integer_value(json_object_get(e, "code")) == PP_EINVAL)
            return text_of(e, "message");
    }
    return NULL;
}

static int
write_results(const run_args *a, const pp_pipeline *p, const json_t *doc)
{
    pp_error err = PP_ERROR_INIT;
    int status = PP_EXIT_OK;

    if (a->evidence_dir != NULL) {
        char *kept = NULL;

        if (pp_evidence_write(a->evidence_dir, doc, p->date, pp_cli_temp_tracker(), &kept,
                              &err) != PP_OK) {
            pp_cli_error("%s", err.message);
            status = PP_EXIT_OUTPUT;
        } else if (!a->quiet) {
            fprintf(stderr, "%s: evidence kept in %s\n", pp_prog, kept);
        }
        free(kept);
    }
    if (a->format != NULL || a->output != NULL) {
        int w = pp_cli_write_doc(a->output, doc, a->format ? a->format : "table", a->table);

        if (w != PP_EXIT_OK)
            status = w;
    } else {
        for (uint32_t i = 0; i < p->output_count; i++) {
            int w = pp_cli_write_doc(p->outputs[i].path, doc, p->outputs[i].format, a->table);

            if (w != PP_EXIT_OK)
                status = w;
        }
    }
    return status;
}

/* Everything after the run: the message, the evidence, the outputs. With
 * isolated stages it runs in the stages' process, so the document never
 * has to cross to the parent (core/isolate.h). Returns the exit status. */
typedef struct deliver_job { const run_args *a; const pp_pipeline *p; } deliver_job;

static int
deliver(void *user, json_t *doc, int rc, const pp_error *err)
{
    const deliver_job *dj = user;
    int status = PP_EXIT_OK, w;

    pp_cli_progress_done();
    if (doc == NULL) {
        pp_cli_error("%s", err->message);
        return pp_cli_exit_for(rc);
    }
    if (option_refusal(doc) != NULL) {
        pp_cli_error("%s", option_refusal(doc));
        return PP_EXIT_USAGE;
    }
    if (rc != PP_OK) {
        pp_cli_error("%s (the other stages' results are written)", err->message);
        status = PP_EXIT_PLUGIN;
    } else if (error_findings(doc) > 0) {
        status = PP_EXIT_PLUGIN;
    }
    if ((w = write_results(dj->a, dj->p, doc)) != PP_EXIT_OK)
        status = w;
    return status;
}

static int
execute(run_args *a)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline_vars vars = { 0 };
    pp_pipeline *p = NULL, *q = NULL;
    pp_loader *loader = NULL;
    bound b = { 0 };
    char *path = NULL, *text = NULL;
    json_t *doc = NULL;
    int rc, status, delivered = -1, single_pass = 0;

    if ((loader = pp_cli_loader(a->plugin_dirs, a->ndirs)) == NULL)
        return PP_EXIT_USAGE;
    /* Plugins are tried in a child before this process loads them, within
     * the stage limit when one is given; --no-isolate trusts them. */
    if (a->no_isolate)
        pp_loader_set_probe(loader, 0);
    else if (a->stage_timeout > 0)
        pp_loader_set_probe(loader, a->stage_timeout);
    if ((status = find_source(a, loader, &path, &text)) != PP_EXIT_OK)
        goto out;
    /* A names-only load learns the inputs (names, raw paths), the real load
     * gets the bound files. */
    vars.sets = a->sets;
    vars.set_count = a->nsets;
    vars.inputs = a->mode == MODE_ANALYZER ? NULL : a->inputs;
    vars.input_count = a->mode == MODE_ANALYZER ? 0 : a->ninputs;
    vars.options = a->options;
    vars.option_count = a->noptions;
    vars.names_only = 1;
    if ((rc = load(a, path, text, &vars, &q, &err)) != PP_OK) {
        /* Report what a full load reports (it checks paths too, in file
         * order), unless it passes. */
        pp_error full = PP_ERROR_INIT;

        vars.names_only = 0;
        pp_cli_error("%s", load(a, path, text, &vars, &p, &full) != PP_OK ? full.message
                                                                           : err.message);
        status = PP_EXIT_USAGE;
        goto out;
    }
    if ((status = bind_args(a, q, &b)) != PP_EXIT_OK)
        goto out;
    vars.names_only = 0;
    vars.sets = b.sets;
    vars.set_count = b.nsets;
    vars.inputs = b.inputs;
    vars.input_count = b.ninputs;
    if ((rc = load(a, path, text, &vars, &p, &err)) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = PP_EXIT_USAGE;
        goto out;
    }
    if ((status = check_cli_options(a, p, loader)) != PP_EXIT_OK)
        goto out;
    if ((rc = pp_pipeline_check(p, lookup, loader, &err)) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = rc == PP_EPLUGIN ? PP_EXIT_PLUGIN : PP_EXIT_USAGE;
        goto out;
    }
    if ((status = stdin_inputs(p, &single_pass)) != PP_EXIT_OK)
        goto out;
    if (output_over_input(p, a->output) != 0) {
        status = PP_EXIT_USAGE;
        goto out;
    }
    if (a->mode == MODE_VALIDATE && (status = refused_stages(p)) != PP_EXIT_OK)
        goto out;
    if (a->mode == MODE_VALIDATE) {
        printf("%s: valid: pipeline '%s', %u input%s, %u stage%s, %u output%s\n", p->file, p->name,
               p->input_count, p->input_count == 1 ? "" : "s", p->stage_count,
               p->stage_count == 1 ? "" : "s", p->output_count, p->output_count == 1 ? "" : "s");
        goto out;
    }
    {
        /* A live capture or a piped stdin is read once and cannot be
         * replayed to a repeated child: such runs are not isolated (a
         * capture's kept file, or a saved stdin, is). */
        int live = pp_cli_capture_signals(p) || single_pass;
        deliver_job dj = { a, p };
        pp_run_hooks hooks = { a->hash, on_progress, on_warning, on_log, a,
                               !live && !a->no_isolate, a->stage_timeout,
                               deliver, &dj, &delivered };

        rc = pp_run_pipeline(p, &hooks, &doc, &err);
        pp_cli_progress_done();
        status = delivered >= 0 ? delivered : deliver(&dj, doc, rc, &err);
    }
out:
    bound_free(&b);
    json_decref(doc);
    pp_pipeline_free(q);
    pp_pipeline_free(p);
    pp_loader_free(loader);
    free(path);
    free(text);
    return status;
}

int
pp_cmd_run(int argc, char **argv)
{
    run_args a = { .mode = MODE_RUN };

    if (parse_args(&a, argc, argv) < 0)
        return PP_EXIT_USAGE;
    return execute(&a);
}

int
pp_cmd_validate(int argc, char **argv)
{
    run_args a = { .mode = MODE_VALIDATE };

    if (parse_args(&a, argc, argv) < 0)
        return PP_EXIT_USAGE;
    return execute(&a);
}

int
pp_cmd_analyzer(const char *analyzer, int argc, char **argv)
{
    run_args a = { .mode = MODE_ANALYZER, .analyzer = analyzer };

    if (parse_args(&a, argc, argv) < 0 ||
        pp_cli_quick_options(analyzer, a.format, a.table, a.evidence_dir, a.options,
                             a.option_flags, &a.noptions, MAX_ARGS) < 0)
        return PP_EXIT_USAGE;
    if (a.capture.n > 0) {
        char *spec;
        int rc;

        if (a.npositional > 0) {
            pp_cli_error("%s: give an input file or --pid/--process/--diagnostic-port, not both",
                         analyzer);
            return PP_EXIT_USAGE;
        }
        if ((spec = pp_cli_capture_spec(analyzer, &a.capture)) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_USAGE;
        }
        a.positional[a.npositional++] = spec;
        rc = execute(&a);
        free(spec);
        return rc;
    }
    if (a.npositional == 0) {
        run_help(stderr, MODE_ANALYZER);
        return PP_EXIT_USAGE;
    }
    if (a.ninputs > 0) {
        pp_cli_error("%s takes its inputs as arguments (perfpipe %s FILE...); --input is for "
                     "`perfpipe run`", analyzer, analyzer);
        return PP_EXIT_USAGE;
    }
    /* A picture of a counters run needs its samples (the series table). */
    if (strcmp(analyzer, "counters-csv") == 0 && a.format != NULL &&
        (strcmp(a.format, "html") == 0 || strcmp(a.format, "svg") == 0)) {
        int given = 0;
        for (size_t i = 0; i < a.noptions; i++)
            given |= strcmp(a.options[i].key, "series") == 0;
        if (!given && add_option(&a, "--format", "*", "series", "true") < 0)
            return PP_EXIT_USAGE;
    }
    return execute(&a);
}
