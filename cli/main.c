/* perfpipe: the command-line entry point and subcommand dispatch. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "cli.h"
#include "loader/paths.h"
#include "result/jsonmem.h"

static const char usage_head[] =
    "perfpipe - turn .NET performance captures into ranked, comparable answers\n"
    "\n"
    "Usage:\n"
    "  perfpipe ANALYZER INPUT... [--top N] [--option KEY=VALUE]... [--format FMT] [-o FILE]\n";

static const char usage[] =
    "\n"
    "Analyzers (shipped):\n"
    "  alloc        who allocates: bytes by type and responsible frame   (dotnet-trace --profile gc-verbose)\n"
    "  cpu          where thread time goes: exclusive/inclusive by method (dotnet-trace, default profile)\n"
    "  db           database command wall time, N+1 detection            (dotnet-trace --profile database)\n"
    "  counters-csv rates, trends and leak suspects                     (dotnet-counters collect --format csv|json)\n"
    "  gcdump       what is on the heap, by type                         (dotnet-gcdump collect)\n"
    "  gcdump-diff  what grew between two heap snapshots                 (two .gcdump files)\n"
    "  spans        which operation costs what, from OpenTelemetry spans (OTLP/JSON, aspire otel spans)\n"
    "  bench        L1: time and allocated bytes/op per BenchmarkDotNet case (JsonExporter.Full export)\n"
    "  load         L2: p95, throughput, errors of a load test   (wrk, hey, k6, bombardier, vegeta, oha)\n"
    "\n"
    "Examples:\n"
    "  perfpipe alloc app.nettrace --top 10              # who allocates, as a table\n"
    "  perfpipe cpu app.nettrace --format svg -o cpu.svg # interactive flame graph\n"
    "  perfpipe run alloc --input trace=app.nettrace --set scenario=cart --format json -o a.json\n"
    "  perfpipe candidates a.json cpu.json db.json       # ranked optimization candidates\n"
    "  perfpipe compare before.json after.json --fail-on regression\n"
    "\n"
    "Formats: @FORMATS@ (table is the default).\n"
    "  table fits $COLUMNS or the terminal (least useful columns left out, text\n"
    "  cut from the front); --wide never cuts; --top N limits every table shown.\n"
    "  table, markdown and html lead each stage with its answer. csv with\n"
    "  -o DIR/ writes one file per table plus totals.csv and findings.csv.\n"
    "  Flame formats weigh by time (ms) where the table has it; --weight samples\n"
    "  weighs by the sample count.\n"
    "Plugins are found in --plugin-dir DIR (repeatable), PERFPIPE_PLUGIN_PATH,\n"
    "  ~/.local/lib/perfpipe/plugins-1, " PLUGINDIR ",\n"
    "  then " LOCALPLUGINDIR " (third-party plugins' `make install`)\n"
    "Pipelines are found in PERFPIPE_PIPELINE_PATH, ~/.config/perfpipe/pipelines,\n"
    "  " SYSCONFDIR "/perfpipe/pipelines (the administrator's), then\n"
    "  " PKGDATADIR "/pipelines (shipped).\n"
    "Run from its build tree, perfpipe uses the built plugins and the source tree's\n"
    "pipelines instead of the installed ones (`perfpipe --version` says so).\n"
    "\n"
    "Exit status:\n"
    "  0  success\n"
    "  1  compare --fail-on: a regression was found\n"
    "  2  usage error, or a pipeline that does not validate (FILE:LINE:COLUMN: ...)\n"
    "  3  an input cannot be read: missing, not a capture of the expected kind, or corrupt\n"
    "  4  a plugin was refused, a stage failed, or a stage reported an error-severity\n"
    "     finding (it could not answer); the other stages' results are still written\n"
    "  5  a result could not be written\n"
    "  6  compare --fail-on: cannot judge (a side was truncated, damaged, lost events, or a\n"
    "     stage is not ok)\n"
    "  7  out of memory\n"
    "  A reader that stops reading (`| head`) is no error: the status stays the run's.\n"
    "\n"
    "`perfpipe help COMMAND` (= `perfpipe COMMAND --help`) describes one command;\n"
    "`perfpipe help --list commands|formats|kinds` lists names one a line;\n"
    "`--` ends the options of any command; -q (--quiet) before or after the command\n"
    "silences warnings (errors are still said). man perfpipe(1), perfpipe-pipeline(5),\n"
    "perfpipe-plugin(7) have the details, and the environment variables.\n";

typedef pp_cli_command_fn pp_cmd_fn;

/* The command registry: usage's synopsis lines, dispatch and completion
 * (`perfpipe help --list commands`) read it; a name not listed here is an
 * analyzer. `help` is dispatched below (fn NULL). */
static const struct {
    const char *name;
    pp_cmd_fn fn;
    const char *synopsis;
} commands[] = {
    { "run", pp_cmd_run,
      "PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]... [--format FMT] [-o FILE]" },
    { "validate", pp_cmd_validate, "PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]..." },
    { "inspect", pp_cmd_inspect, "TRACE.nettrace [--format FMT]" },
    { "render", pp_cmd_render, "RESULT.json [--format FMT] [--table NAME]" },
    { "compare", pp_cmd_compare,
      "BASELINE.json CANDIDATE.json [--noise PCT] [--fail-on regression]" },
    { "candidates", pp_cmd_candidates, "RESULT.json... [--top N]" },
    { "rules", pp_cmd_rules, "list|show ID|validate [FILE...]" },
    { "ps", pp_cmd_ps, "[--format table|json]" },
    { "collect", pp_cmd_collect,
      "-p PID|-n NAME|--diagnostic-port PATH [--profile P] [--duration T] [-o F]" },
    { "diagnose", pp_cmd_diagnose,
      "-p PID|-n NAME|--diagnostic-port PATH -o DIR [--session FILE] [--axes LIST] [--load CMD]" },
    { "verify", pp_cmd_verify, "BEFORE_DIR AFTER_DIR [--noise PCT] [--format text|json]" },
    { "plugins", pp_cmd_plugins, "[--format table|json]" },
    { "describe", pp_cmd_describe, "ANALYZER" },
    { "help", NULL, "[COMMAND] | --list commands|formats|document-formats|stack-formats|kinds" },
};

static pp_cmd_fn
command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return commands[i].fn;
    return NULL;
}

static void
put_usage(FILE *out)
{
    fputs(usage_head, out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  perfpipe %s %s\n", commands[i].name, commands[i].synopsis);
    pp_cli_put_text(out, usage);
}

/* `perfpipe help --list WHAT`. */
static int
list(const char *what)
{
    if (strcmp(what, "commands") == 0) {
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            printf("%s\n", commands[i].name);
        return PP_EXIT_OK;
    }
    return pp_cli_list_registry(what, stdout);
}

static int
version(void)
{
    char plugindir[4096], pipelinedir[4096];

    printf("perfpipe %s (plugin ABI %d.%d)\n", PACKAGE_VERSION, PP_ABI_MAJOR, PP_ABI_MINOR);
    printf("Copyright (c) 2026 The perfpipe authors. License: MIT (the LICENSE file;\n"
           "https://opensource.org/licenses/MIT). There is NO WARRANTY.\n");
    if (pp_build_tree_dirs(plugindir, sizeof plugindir, pipelinedir, sizeof pipelinedir))
        printf("Running from its build tree: plugins from %s,\n  pipelines from %s\n", plugindir,
               pipelinedir);
    return PP_EXIT_OK;
}

/* `perfpipe help CMD` is `perfpipe CMD --help`. */
static int
help(int argc, char **argv)
{
    char *args[3];
    pp_cmd_fn fn;

    if (argc < 3) {
        put_usage(stdout);
        return PP_EXIT_OK;
    }
    if (argc == 4 && strcmp(argv[2], "--list") == 0)
        return list(argv[3]);
    if (argc > 3) {
        pp_cli_error("help takes one command, not %d; try `perfpipe help`", argc - 2);
        return PP_EXIT_USAGE;
    }
    args[0] = argv[2];
    args[1] = (char *)"--help";
    args[2] = NULL;
    if (strcmp(argv[2], "help") == 0) {
        put_usage(stdout);
        return PP_EXIT_OK;
    }
    if ((fn = command(argv[2])) != NULL)
        return fn(2, args);
    if (argv[2][0] == '-') {
        pp_cli_error("help: '%s' is not a command; try `perfpipe help`", argv[2]);
        return PP_EXIT_USAGE;
    }
    return pp_cmd_analyzer(argv[2], 2, args);
}

static int
dispatch(int argc, char **argv)
{
    const char *cmd;
    pp_cmd_fn fn;

    if (argc < 2) {
        put_usage(stderr);
        return PP_EXIT_USAGE;
    }
    /* `perfpipe -q CMD ...` is `perfpipe CMD -q ...`: the commands that
     * warn read pp_cli_quiet (cli.h) */
    while (argc > 1 && (strcmp(argv[1], "-q") == 0 || strcmp(argv[1], "--quiet") == 0)) {
        pp_cli_quiet = 1;
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    if (argc < 2) {
        put_usage(stderr);
        return PP_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return help(1, argv);
    if (strcmp(cmd, "help") == 0)
        return help(argc, argv);
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)
        return version();
    if (strcmp(cmd, "__complete") == 0)
        return pp_cli_complete(argc, argv, command);
    if (pp_cli_take_render_flags(&argc, argv) < 0)
        return PP_EXIT_USAGE;
    if ((fn = command(cmd)) != NULL)
        return fn(argc - 1, argv + 1);
    if (cmd[0] == '-') {
        pp_cli_error("unknown option '%s'; try `perfpipe --help`", cmd);
        return PP_EXIT_USAGE;
    }
    return pp_cmd_analyzer(cmd, argc - 1, argv + 1);
}

/* Every command's stdout is checked once more at the end, so a listing or
 * a help text on a full device is exit 5, not a quiet 0. */
int
main(int argc, char **argv)
{
    int rc;

    pp_cli_catch_sigpipe();
    /* before any document exists: every command's documents are counted */
    pp_jsonmem_count();
    rc = dispatch(argc, argv);

    if (pp_cli_flush_stdout() != PP_EXIT_OK && rc == PP_EXIT_OK)
        rc = PP_EXIT_OUTPUT;
    /* jansson says a failed allocation in a parse as a syntax error
     * ("invalid token"): the count tells what it was */
    if (rc != PP_EXIT_OK && rc != PP_EXIT_NOMEM && pp_jsonmem_failures() != 0 &&
        !pp_cli_wrote_result)
        pp_cli_error("out of memory (the message above is what it led to)");
    /* Out of memory is the cause whatever step met it (perfpipe(1) EXIT
     * STATUS), unless a result is in place. */
    return pp_cli_exit_status(rc);
}
