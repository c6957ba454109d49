/* `perfpipe candidates RESULT.json...`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates.h"
#include "cli.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

#define MAX_DOCS 64

static const char usage[] =
"Usage: perfpipe candidates RESULT.json... [--top N] [--no-rules] [--format FMT] [-o FILE]\n"
"\n"
"Rank optimization candidates from one or more results (alloc, cpu, db,\n"
"gcdump-diff) by the share of their axis — allocation churn, time, footprint —\n"
"each with its absolute figure, where it points (frame, method, command,\n"
"type), its evidence, and a verification plan: the pipeline and knobs to rerun\n"
"and the compare verdict that would confirm the fix. Tooling follow-ups\n"
"(unresolved frames, wrong profile, truncated capture...) are listed in a\n"
"separate table, never among the candidates. --top N keeps N (default 10).\n"
"\n"
"Time is ranked on running thread time only (the cpu stage's `running`\n"
"table): a thread blocked in a read, poll, WaitOne, Monitor.Wait, a semaphore\n"
"or Sleep is sampled too, but no change to the waiting method removes that\n"
"time; the waits left out are counted in a finding and listed by the cpu\n"
"stage's `waiting` table.\n"
"\n"
"Heap growth is ranked on retained growth (gcdump-diff's `growth` table):\n"
"the owner ranks, its payload (what its instances hold) is its evidence,\n"
"with the path that holds the growth.\n"
"\n"
"Fix shapes: every candidate lists the rules (`perfpipe rules list`) its\n"
"evidence matches, each with what to change, a confidence and a public\n"
"documentation link (columns `rules` and `fix`; in JSON also the table's\n"
"`row_rules`, one list per row); `none matched` says no known antipattern\n"
"fits. Rules that report on their own (a blocked waiter, a counter trend, a\n"
"leak path) are listed in the `rule_findings` table. Your rules in\n"
"~/.config/perfpipe/rules add to and override the shipped ones by id; an\n"
"invalid rule file stops with FILE:LINE:COLUMN and exit status 2.\n"
"--no-rules leaves rules out.\n";

int
pp_cmd_candidates(int argc, char **argv)
{
    static const struct option opts[] = {
        { "top", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "no-rules", no_argument, NULL, 'R' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "table", *output = NULL;
    json_t *docs[MAX_DOCS], *out = NULL;
    size_t ndocs = 0, top = 10;
    pp_error err = PP_ERROR_INIT;
    pp_ruleset rules = PP_RULESET_INIT;
    json_t *schema = NULL;
    int c, status = PP_EXIT_OK, use_rules = 1;

    optind = 1;
    while ((c = getopt_long(argc, argv, "t:f:o:h", opts, NULL)) != -1) {
        char *end;

        switch (c) {
        case 't':
            top = strtoul(optarg, &end, 10);
            if (end == optarg || *end != '\0' || top == 0 || optarg[0] == '-') {
                pp_cli_error("candidates: --top takes a positive number, not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'f':
            if (!pp_cli_format_ok(optarg))
                return PP_EXIT_USAGE;
            format = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'R':
            use_rules = 0;
            break;
        case 'h':
            fputs(usage, stdout);
            return PP_EXIT_OK;
        default:
            fputs(usage, stderr);
            return PP_EXIT_USAGE;
        }
    }
    if (optind >= argc || argc - optind > MAX_DOCS) {
        fputs(usage, stderr);
        return PP_EXIT_USAGE;
    }
    schema = json_object();
    for (int i = optind; i < argc; i++) {
        json_error_t jerr;

        docs[ndocs] = json_load_file(argv[i], 0, &jerr);
        if (docs[ndocs] == NULL) {
            pp_cli_error("%s:%d:%d: %s (expected a perfpipe result: perfpipe ... --format json)",
                         argv[i], jerr.line, jerr.column, jerr.text);
            status = PP_EXIT_INPUT;
            goto out;
        }
        ndocs++;
        if (pp_result_validate(docs[ndocs - 1], &err) != PP_OK) {
            pp_cli_error("%s: %s", argv[i], err.message);
            status = PP_EXIT_INPUT;
            goto out;
        }
    }
    /* Rule files are checked against the tables the documents hold (and
     * what their analyzers declared of them). */
    for (size_t i = 0; use_rules && schema != NULL && i < ndocs; i++)
        (void)pp_ev_schema_add_doc(schema, docs[i]);
    rules.schema = schema;
    if (use_rules && (c = pp_rules_load_default(&rules, &err)) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = c == PP_EIO ? PP_EXIT_INPUT : c == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
        goto out;
    }
    if (pp_candidates((const json_t *const *)docs, ndocs, top, use_rules ? &rules : NULL, &out,
                      &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = PP_EXIT_USAGE;
        goto out;
    }
    status = pp_cli_write_doc(output, out, format, NULL);
out:
    for (size_t i = 0; i < ndocs; i++)
        json_decref(docs[i]);
    json_decref(out);
    pp_ruleset_free(&rules);
    json_decref(schema);
    return status;
}
