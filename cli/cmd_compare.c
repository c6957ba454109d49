/* `perfpipe compare BASELINE.json CANDIDATE.json`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "compare/compare.h"
#include "result/formats.h"
#include "result/result.h"

#define MAX_THRESHOLDS 32
#define MAX_MAPS       64
#define MAX_REPS       64

static const char usage[] =
    "Usage: perfpipe compare BASELINE.json CANDIDATE.json [--noise PCT]\n"
    "       perfpipe compare [OPTION]... BASE1.json BASE2.json... -- CAND1.json CAND2.json...\n"
    "                        [--fail-on regression] [--threshold TABLE.COLUMN=PCT]...\n"
    "                        [--replaced PCT] [--map OLD=NEW]... [--allow-knob-drift]\n"
    "                        [--allow-wrong-process] [--per UNIT] [--format FMT] [-o FILE [--force]]\n"
    "(one of the two may be `-`, standard input)\n"
    "\n"
    "The verdict comes first: IMPROVED, REGRESSED, NO CHANGE or CANNOT JUDGE, with\n"
    "what decided it. Every figure is judged PER UNIT OF WORK (the result's \"work\":\n"
    "per request when both runs know their requests, from Hosting events or a load\n"
    "tool, else per second of capture): under closed-loop load a faster build\n"
    "serves more requests, and every absolute grows with them. The absolutes stay\n"
    "in the tables beside the per-unit columns; runs whose work differs 2x or more\n"
    "are named as such (compare.work_differs) and still judged per unit.\n"
    "\n"
    "First the totals of every stage (table `totals`): both runs, delta, relative\n"
    "delta. A total some table's measure adds up to is an AXIS and gates (db:\n"
    "commands, db_ms; alloc: sampled_bytes, ticks; cpu: samples, thread_time).\n"
    "Then every table of two results of one pipeline is joined by its key and\n"
    "shown per row: the absolute figures of both runs and their delta first, then\n"
    "the relative delta and the shares before and after, with a status: appeared,\n"
    "disappeared, grew, shrank, unchanged (within --noise PCT, default 5), or\n"
    "replaced: a row that appeared while its table's axis total fell by at least\n"
    "--replaced PCT (default 25) is what the work became, not a regression.\n"
    "\n"
    "Verdicts: a row that appeared or disappeared is STRUCTURAL (it holds across\n"
    "sessions); one that disappeared while its axis fell per unit is FIXED (an\n"
    "improvement). Growth or shrinkage is STATISTICAL: sampled rows (alloc ticks, cpu\n"
    "samples) only when the conditional binomial test of their Poisson rate ratio,\n"
    "the two runs' work as exposure, gives p < 0.05 (columns rate_ratio_lo/hi: its\n"
    "95% interval; p_value); rows with too few samples for any verdict say so.\n"
    "Shares that moved while absolutes did not are flagged as\n"
    "inflation by removal. Runs whose knobs differ are refused unless\n"
    "--allow-knob-drift, which marks every verdict weakened. A side whose input was\n"
    "truncated, damaged or lost events, whose stage is not ok, or whose trace is of\n"
    "the wrong process (a `dotnet run` host, a tool) CANNOT BE JUDGED: every stage\n"
    "says so (compare.cannot_judge) and --fail-on exits 6. So does a table whose key\n"
    "or a judged figure is on one side only; a descriptive column on one side only\n"
    "(cpu's source) is named (compare.columns_one_side) and the table is compared\n"
    "on the columns both runs have.\n"
    "\n"
    "  --fail-on regression   exit 1 when a row appeared (not replaced), its measure grew\n"
    "                         beyond its threshold (default: the noise), or an axis total\n"
    "                         grew (counts and bytes: the noise; times: max(noise, 25%));\n"
    "                         exit 6 when either side cannot be judged\n"
    "  --threshold T.C=PCT    e.g. by_frame.bytes=10: bytes of a frame up more than 10%\n"
    "                         is a regression (T or C may be *; C=* is each table's first measure;\n"
    "                         T=totals names a total: totals.db_ms=10)\n"
    "                         Stack tables (flame-graph rows) gate only when named: JIT inlining\n"
    "                         reshapes stacks between runs. Sampled and counted rows change\n"
    "                         only when the rate test says so (above), and decide the verdict\n"
    "                         only when the move is at least --noise % of their axis.\n"
    "\n"
    "  --format FMT           @DOC_FORMATS@ (default table)\n"
    "  --replaced PCT         how far an axis total must fall for new rows to be\n"
    "                         \"replaced\" (default 25)\n"
    "  --map OLD=NEW          join the baseline's key OLD with the candidate's NEW (a twin\n"
    "                         route, a renamed method): e.g. --map 'GET /orders/bad=GET /orders/good'\n"
    "                         (a load run's URL ending with OLD pairs with one ending with NEW)\n"
    "  --allow-wrong-process  judge a result whose trace is flagged as the wrong process\n"
    "  --per UNIT             the unit of work: auto (default: request, else second),\n"
    "                         request, second, operation, or run (fixed work per run:\n"
    "                         the absolutes are the rates)\n"
    "\n"
    "Exit status: 0 improved or no change (or any verdict without --fail-on);\n"
    "1 regressed (with --fail-on); 2 the runs are not comparable; 3 a result cannot\n"
    "be read; 5 the output cannot be written; 6 cannot judge (with --fail-on).\n"
    "\n"
    "Replicates: several captures per side (same code, same knobs), the baseline's\n"
    "before `--` and the candidate's after it (options anywhere). Each side is judged\n"
    "by the sum of its captures (work adds up too), and every sampled row and total\n"
    "by its rate ratio with the BETWEEN-RUN variance the replicates show (the spread\n"
    "of their per-unit rates beyond sampling noise, pooled over a table's rows;\n"
    "Student's t), so the run-to-run floors of one capture per side (times 60%,\n"
    "latency statistics 150%) are off. The verdict line names the test it used:\n"
    "\"test: ..., replicates 2 vs 2\" or, with one capture per side, its floors.\n"
    "\n"
    "Example: perfpipe compare before.json after.json --fail-on regression --threshold by_frame.bytes=10\n"
    "         perfpipe compare --per run --fail-on regression a1.json a2.json -- b1.json b2.json\n";

/* --threshold TABLE.COLUMN=PCT into thresholds[opt->nthresholds]. */
static int
parse_threshold(char *arg, pp_compare_options *opt, pp_compare_threshold *thresholds)
{
    char *dot = strchr(arg, '.'), *eq = strchr(arg, '='), *end;

    if (dot == NULL || eq == NULL || eq < dot || opt->nthresholds >= MAX_THRESHOLDS) {
        pp_cli_error("compare: --threshold takes TABLE.COLUMN=PCT, not '%s'", arg);
        return PP_EXIT_USAGE;
    }
    *dot = '\0';
    *eq = '\0';
    thresholds[opt->nthresholds].table = arg;
    thresholds[opt->nthresholds].column = dot + 1;
    thresholds[opt->nthresholds].percent = strtod(eq + 1, &end);
    if (end == eq + 1 || *end != '\0' || !(thresholds[opt->nthresholds].percent >= 0) ||
        thresholds[opt->nthresholds].percent > 1e6) {
        pp_cli_error("compare: --threshold percentage '%s' is not a number >= 0", eq + 1);
        return PP_EXIT_USAGE;
    }
    opt->nthresholds++;
    return PP_EXIT_OK;
}

/* --map OLD=NEW. */
static int
parse_map(char *arg, pp_compare_options *opt, const char **map_old, const char **map_new)
{
    char *eq = strchr(arg, '=');

    if (eq == NULL || eq == arg || eq[1] == '\0' || opt->nmap >= MAX_MAPS) {
        pp_cli_error("compare: --map takes OLD=NEW (a key of the baseline, a key of the "
                     "candidate), not '%s'",
                     arg);
        return PP_EXIT_USAGE;
    }
    *eq = '\0';
    map_old[opt->nmap] = arg;
    map_new[opt->nmap++] = eq + 1;
    return PP_EXIT_OK;
}

static int
parse_per(const char *arg, pp_compare_options *opt)
{
    if (strcmp(arg, "auto") == 0)
        opt->per = NULL;
    else if (strcmp(arg, "request") == 0 || strcmp(arg, "second") == 0 ||
             strcmp(arg, "operation") == 0 || strcmp(arg, "run") == 0)
        opt->per = arg;
    else {
        pp_cli_error("compare: --per takes auto, request, second, operation or run, not '%s'", arg);
        return PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* How many result files come before a `--` on the command line (the
 * baseline's replicates), or -1 without one; the `--` is taken out of
 * argv (*argc one less), so options may follow the candidate's files too.
 * A `--` before any file is the usual end of options (left to getopt:
 * `compare -- A B`), and a second one then separates the sides. Options
 * and their values are skipped as getopt reads them. */
static int
files_before_separator(int *argc, char **argv)
{
    static const char *const with_value[] = { "--noise", "--fail-on", "--threshold", "--replaced",
                                              "--map",   "--per",     "--format",    "--output",
                                              "-f",      "-o" };
    int n = 0, files_only = 0;

    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--") == 0 && n == 0 && !files_only) {
            files_only = 1;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
            (*argc)--;
            return n;
        }
        if (files_only || a[0] != '-' || a[1] == '\0') {
            n++;
            continue;
        }
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
            if (strcmp(a, with_value[k]) == 0)
                i++; /* its value is the next argument */
    }
    return -1;
}

/* Read and validate one result file; NULL after saying why. */
static json_t *
load_result(const char *file)
{
    json_error_t jerr;
    pp_error err = PP_ERROR_INIT;
    json_t *doc = pp_cli_load_json(file, &jerr);

    if (doc == NULL) {
        pp_cli_error("%s:%d:%d: %s (expected a perfpipe result: perfpipe ... --format json)", file,
                     jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (pp_result_validate(doc, &err) != PP_OK) {
        pp_cli_error("%s: %s", file, err.message);
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* Load files[0..n-1] into reps and pool them into *doc (n > 1) or take the
 * one (*doc is reps[0], a new reference). */
static int
load_side(char **files, size_t n, json_t **reps, json_t **doc)
{
    pp_error err = PP_ERROR_INIT;

    for (size_t i = 0; i < n; i++)
        if ((reps[i] = load_result(files[i])) == NULL)
            return PP_EXIT_INPUT;
    if (n == 1) {
        *doc = json_incref(reps[0]);
        return PP_EXIT_OK;
    }
    if (pp_compare_pool((const json_t *const *)reps, n, doc, &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_INPUT;
    }
    return PP_EXIT_OK;
}

int
pp_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        { "noise", required_argument, NULL, 'n' },
        { "fail-on", required_argument, NULL, 'F' },
        { "threshold", required_argument, NULL, 't' },
        { "allow-knob-drift", no_argument, NULL, 'a' },
        { "replaced", required_argument, NULL, 'r' },
        { "map", required_argument, NULL, 'm' },
        { "allow-wrong-process", no_argument, NULL, 'w' },
        { "per", required_argument, NULL, 'p' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "force", no_argument, NULL, 0x101 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    pp_compare_threshold thresholds[MAX_THRESHOLDS];
    const char *map_old[MAX_MAPS], *map_new[MAX_MAPS];
    pp_compare_options opt = { 5.0, 0,    thresholds, 0,    25.0, map_old, map_new, 0,
                               0,   NULL, NULL,       NULL, NULL, NULL,    0,       0 };
    json_t *reps[2 * MAX_REPS] = { NULL };
    int nb = files_before_separator(&argc, argv), nfiles;
    pp_compare_verdict verdict;
    const char *format = "table", *output = NULL;
    int fail_on = 0, c, rc;
    json_t *docs[2] = { NULL, NULL }, *out = NULL;
    pp_error err = PP_ERROR_INIT;
    int status = PP_EXIT_OK;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
        char *end;

        switch (c) {
        case 'n':
            opt.noise_percent = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(opt.noise_percent >= 0) ||
                opt.noise_percent > 1e6) {
                pp_cli_error("compare: --noise takes a percentage, not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'F':
            if (strcmp(optarg, "regression") != 0) {
                pp_cli_error("compare: --fail-on takes 'regression', not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            fail_on = 1;
            break;
        case 't':
            if (parse_threshold(optarg, &opt, thresholds) != PP_EXIT_OK)
                return PP_EXIT_USAGE;
            break;
        case 'a': opt.allow_knob_drift = 1; break;
        case 'm':
            if (parse_map(optarg, &opt, map_old, map_new) != PP_EXIT_OK)
                return PP_EXIT_USAGE;
            break;
        case 'w': opt.allow_wrong_process = 1; break;
        case 'p':
            if (parse_per(optarg, &opt) != PP_EXIT_OK)
                return PP_EXIT_USAGE;
            break;
        case 'r':
            opt.replaced_percent = strtod(optarg, &end);
            if (*end != '\0' || !(opt.replaced_percent > 0 && opt.replaced_percent <= 100)) {
                pp_cli_error("compare: --replaced takes a percentage in (0, 100], not '%s'",
                             optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'f':
            if (!pp_cli_format_ok(optarg))
                return PP_EXIT_USAGE;
            if (pp_output_format_named(optarg)->kind != PP_FORMAT_DOCUMENT) {
                char names[512];
                pp_cli_error(
                    "compare: a comparison has no stack table: use %s",
                    pp_output_format_list(PP_FORMAT_DOCUMENT, ", ", " or ", names, sizeof names));
                return PP_EXIT_USAGE;
            }
            format = optarg;
            break;
        case 'o': output = optarg; break;
        case 0x101: pp_cli_force = 1; break;
        case 'h': pp_cli_put_text(stdout, usage); return PP_EXIT_OK;
        default: pp_cli_bad_option("compare", c, argv); return PP_EXIT_USAGE;
        }
    }
    nfiles = argc - optind;
    if (nb < 0 && nfiles == 2)
        nb = 1;
    if (nb < 1 || nfiles - nb < 1 || nb > MAX_REPS || nfiles - nb > MAX_REPS) {
        if (nb >= 0)
            pp_cli_error("compare: replicates take BASE.json... -- CAND.json... (at least one and "
                         "at most %d results each side)",
                         MAX_REPS);
        pp_cli_put_text(stderr, usage);
        return PP_EXIT_USAGE;
    }
    if ((status = load_side(argv + optind, (size_t)nb, reps, &docs[0])) != PP_EXIT_OK ||
        (status = load_side(argv + optind + nb, (size_t)(nfiles - nb), reps + nb, &docs[1])) !=
            PP_EXIT_OK)
        goto out;
    opt.baseline_path = argv[optind];
    opt.candidate_path = argv[optind + nb];
    opt.reps_b = (const json_t *const *)reps;
    opt.reps_c = (const json_t *const *)reps + nb;
    opt.nrep_b = (size_t)nb;
    opt.nrep_c = (size_t)(nfiles - nb);
    rc = pp_compare(docs[0], docs[1], &opt, &out, &verdict, &err);
    if (rc != PP_OK) {
        /* an allocation deep in the join may fail with no words of its own */
        pp_cli_error("%s",
                     err.message[0] || rc != PP_ENOMEM ? err.message : "compare: out of memory");
        status = rc == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
        goto out;
    }
    {
        int w = pp_cli_write_doc(output, out, format, NULL);

        if (w != PP_EXIT_OK)
            status = w;
    }
    if (fail_on && verdict.cannot_judge > 0 && status == PP_EXIT_OK) {
        fprintf(stderr, "%s: compare: cannot judge: %s (see compare.cannot_judge)\n", pp_prog,
                json_string_value(json_array_get(
                    json_object_get(json_object_get(out, "compared"), "cannot_judge"), 0)));
        status = PP_EXIT_CANNOT_JUDGE;
    } else if (fail_on && verdict.regressions > 0 && status == PP_EXIT_OK) {
        fprintf(stderr, "%s: compare: regressed: %d regression%s beyond threshold (%s)\n", pp_prog,
                verdict.regressions, verdict.regressions == 1 ? "" : "s",
                json_string_value(json_object_get(json_object_get(out, "verdict"), "line")));
        status = PP_EXIT_REGRESSION;
    }
out:
    for (size_t i = 0; i < 2 * MAX_REPS; i++)
        json_decref(reps[i]);
    json_decref(docs[0]);
    json_decref(docs[1]);
    json_decref(out);
    return status;
}
