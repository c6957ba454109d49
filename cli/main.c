/* perfpipe: the command-line entry point and subcommand dispatch. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "cli.h"

static const char usage[] =
"perfpipe - turn .NET performance captures into ranked, comparable answers\n"
"\n"
"Usage:\n"
"  perfpipe ANALYZER INPUT... [--top N] [--option KEY=VALUE]... [--format FMT] [-o FILE]\n"
"  perfpipe run PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]... [--format FMT] [-o FILE]\n"
"  perfpipe validate PIPELINE [--input NAME=PATH]... [--set KEY=VALUE]...\n"
"  perfpipe inspect TRACE.nettrace [--format FMT]\n"
"  perfpipe render RESULT.json [--format FMT] [--table NAME]\n"
"  perfpipe compare BASELINE.json CANDIDATE.json [--noise PCT] [--fail-on regression]\n"
"  perfpipe candidates RESULT.json... [--top N]\n"
"  perfpipe ps [--format table|json]\n"
"  perfpipe collect -p PID|-n NAME|--diagnostic-port PATH [--profile P] [--duration T] [-o F]\n"
"  perfpipe plugins [--format table|json]\n"
"  perfpipe describe ANALYZER\n"
"\n"
"Analyzers (shipped):\n"
"  alloc        who allocates: bytes by type and responsible frame   (dotnet-trace --profile gc-verbose)\n"
"  cpu          where thread time goes: exclusive/inclusive by method (dotnet-trace, default profile)\n"
"  db           database command wall time, N+1 detection            (dotnet-trace --profile database)\n"
"  counters-csv rates, trends and leak suspects                     (dotnet-counters collect --format csv|json)\n"
"  gcdump       what is on the heap, by type                         (dotnet-gcdump collect)\n"
"  gcdump-diff  what grew between two heap snapshots                 (two .gcdump files)\n"
"  spans        which operation costs what, from OpenTelemetry spans (OTLP/JSON, aspire otel spans)\n"
"\n"
"Examples:\n"
"  perfpipe alloc app.nettrace --top 10              # who allocates, as a table\n"
"  perfpipe cpu app.nettrace --format svg -o cpu.svg # interactive flame graph\n"
"  perfpipe run alloc --input trace=app.nettrace --set scenario=cart --format json -o a.json\n"
"  perfpipe candidates a.json cpu.json db.json       # ranked optimization candidates\n"
"  perfpipe compare before.json after.json --fail-on regression\n"
"\n"
"Formats: table (default), json, markdown, csv, folded, speedscope, svg.\n"
"  table fits $COLUMNS or the terminal (cut from the front: the end of a frame\n"
"  stays); --wide never cuts; --top N limits every table shown. csv with\n"
"  -o DIR/ writes one file per table plus totals.csv and findings.csv.\n"
"  Flame formats weigh by time (ms) where the table has it; --weight samples\n"
"  weighs by the sample count.\n"
"Plugins are found in --plugin-dir DIR (repeatable), PERFPIPE_PLUGIN_PATH, then\n"
"  " PLUGINDIR "\n"
"Pipelines are found in PERFPIPE_PIPELINE_PATH, ~/.config/perfpipe/pipelines, then\n"
"  " SYSCONFDIR "/perfpipe/pipelines\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  compare --fail-on: a regression was found\n"
"  2  usage error, or a pipeline that does not validate (FILE:LINE:COLUMN: ...)\n"
"  3  an input cannot be read: missing, not a capture of the expected kind, or corrupt\n"
"  4  a plugin was refused, or a stage failed (the other stages' results are still written)\n"
"  5  a result could not be written\n"
"\n"
"`perfpipe COMMAND --help` describes one command; man perfpipe(1), perfpipe-pipeline(5),\n"
"perfpipe-plugin(7) have the details.\n";

int
main(int argc, char **argv)
{
    const char *cmd;

    if (argc < 2) {
        fputs(usage, stderr);
        return PP_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return PP_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("perfpipe %s (plugin ABI %d.%d)\n", PACKAGE_VERSION, PP_ABI_MAJOR, PP_ABI_MINOR);
        return PP_EXIT_OK;
    }
    if (pp_cli_take_render_flags(&argc, argv) < 0)
        return PP_EXIT_USAGE;
    if (strcmp(cmd, "run") == 0)
        return pp_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "validate") == 0)
        return pp_cmd_validate(argc - 1, argv + 1);
    if (strcmp(cmd, "plugins") == 0)
        return pp_cmd_plugins(argc - 1, argv + 1);
    if (strcmp(cmd, "describe") == 0)
        return pp_cmd_describe(argc - 1, argv + 1);
    if (strcmp(cmd, "inspect") == 0)
        return pp_cmd_inspect(argc - 1, argv + 1);
    if (strcmp(cmd, "render") == 0)
        return pp_cmd_render(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return pp_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "candidates") == 0)
        return pp_cmd_candidates(argc - 1, argv + 1);
    if (strcmp(cmd, "ps") == 0)
        return pp_cmd_ps(argc - 1, argv + 1);
    if (strcmp(cmd, "collect") == 0)
        return pp_cmd_collect(argc - 1, argv + 1);
    if (cmd[0] == '-') {
        pp_cli_error("unknown option '%s'; try `perfpipe --help`", cmd);
        return PP_EXIT_USAGE;
    }
    return pp_cmd_analyzer(cmd, argc - 1, argv + 1);
}
