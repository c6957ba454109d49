/* `perfpipe candidates RESULT.json...`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates/candidates.h"
#include "cli.h"
#include "loader/loader.h"
#include "result/decl.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

#define MAX_DOCS 64

typedef struct undeclared {
    json_t **docs;
    size_t ndocs;
} undeclared;

/* Gives the stages c's analyzer wrote the declarations it makes today. */
static void
annotate(void *user, const pp_plugin_candidate *c)
{
    const undeclared *u = user;

    for (size_t d = 0; c->analyzer != NULL && d < u->ndocs; d++) {
        size_t i;
        json_t *st;

        json_array_foreach(json_object_get(u->docs[d], "stages"), i, st) {
            const char *an = json_string_value(
                json_object_get(json_object_get(st, "analyzer"), "name"));

            if (an != NULL && strcmp(an, c->analyzer->name) == 0)
                (void)pp_decl_annotate(st, c->analyzer);
        }
    }
}

/* Candidates read only tables' declarations (tables[i].decl): a result
 * written before analyzers declared their tables gets them from the
 * analyzers on the plugin path, by name. Best effort: a table nobody
 * declares gives no candidates. */
static void
declare_old(json_t **docs, size_t ndocs)
{
    undeclared u = { docs, ndocs };
    int missing = 0;
    pp_loader *l;

    for (size_t d = 0; d < ndocs && !missing; d++) {
        size_t i, k;
        json_t *st, *t;

        json_array_foreach(json_object_get(docs[d], "stages"), i, st)
            json_array_foreach(json_object_get(st, "tables"), k, t)
                missing |= json_object_get(t, "decl") == NULL;
    }
    if (!missing || (l = pp_cli_loader(NULL, 0)) == NULL)
        return;
    pp_loader_scan(l, annotate, &u);
    pp_loader_free(l);
}

static const char usage[] =
    "Usage: perfpipe candidates RESULT.json... [--top N] [--no-rules]\n"
    "                           [--alloc-ms-per-mib X] [--format FMT] [-o FILE [--force]]\n"
    "(one RESULT.json may be `-`, standard input)\n"
    "\n"
    "Rank optimization candidates from one or more results (alloc, cpu, db,\n"
    "gcdump-diff) on one scale: the estimated cost per unit of work of the\n"
    "capture each came from, in milliseconds (columns cost, cost_unit,\n"
    "per_unit). The unit is a request where the trace's Hosting events or a load\n"
    "input count requests, else a second of capture. Running, database and\n"
    "removable blocked time are milliseconds already; allocated and retained\n"
    "bytes are converted at --alloc-ms-per-mib (default 0.125: the runtime's\n"
    "work per allocated byte, zeroing and the gen0 collections it brings).\n"
    "The axes of one target are not added (they measure overlapping work):\n"
    "its heaviest ranks it, the others are evidence; shares are evidence.\n"
    "\n"
    "One row per place a fix lands. A framework or package frame is never a\n"
    "target: its cost moves to the application frame that calls it (the\n"
    "framework method stays in the evidence); a frame no application frame\n"
    "calls is a followup (code candidates.no_application_caller).\n"
    "\n"
    "Time is ranked on running thread time (the cpu stage's `running` table):\n"
    "a thread blocked in a read, poll, WaitOne, Monitor.Wait, a semaphore or\n"
    "Sleep is sampled too, but no change to the waiting method removes that\n"
    "time, unless a rule names the wait a cause a change removes (sync over\n"
    "async, lock contention): then the blocking application frame ranks by its\n"
    "blocked time per unit. The waits left out are counted in a finding.\n"
    "\n"
    "Heap growth is ranked on retained growth (gcdump-diff's `growth` table):\n"
    "the owner ranks, its payload (what its instances hold) is its evidence,\n"
    "with the path that holds the growth.\n"
    "\n"
    "Fix shapes: every candidate lists the rules (`perfpipe rules list`) its\n"
    "evidence matches, each with what to change, a confidence and a public\n"
    "documentation link (columns `rules` and `fix`; in JSON also the table's\n"
    "`row_rules`, one list per row); `none matched` says no known antipattern\n"
    "fits. An experimental rule never shows above medium confidence, and a\n"
    "finding's own confidence (the db stage's N+1 without request boundaries)\n"
    "caps the rule's. Rules that report on their own (a blocked waiter, a\n"
    "counter trend, a leak path) are listed in the `rule_findings` table. Your\n"
    "rules in ~/.config/perfpipe/rules add to and override the shipped ones by\n"
    "id; an invalid rule file stops with FILE:LINE:COLUMN and exit status 2.\n"
    "--no-rules leaves rules out (and with them every wait).\n";

int
pp_cmd_candidates(int argc, char **argv)
{
    static const struct option opts[] = {
        { "top", required_argument, NULL, 't' },
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "no-rules", no_argument, NULL, 'R' },
        { "alloc-ms-per-mib", required_argument, NULL, 'A' },
        { "force", no_argument, NULL, 0x101 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "table", *output = NULL;
    json_t *docs[MAX_DOCS], *out = NULL;
    size_t ndocs = 0, top = 10;
    double ms_per_mib = 0;
    pp_error err = PP_ERROR_INIT;
    pp_ruleset rules = PP_RULESET_INIT;
    json_t *schema = NULL;
    int c, status = PP_EXIT_OK, use_rules = 1;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":t:f:o:h", opts, NULL)) != -1) {
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
        case 'o': output = optarg; break;
        case 0x101: pp_cli_force = 1; break;
        case 'R': use_rules = 0; break;
        case 'A':
            ms_per_mib = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(ms_per_mib > 0) || ms_per_mib > 1e6) {
                pp_cli_error("candidates: --alloc-ms-per-mib takes a positive number of "
                             "milliseconds, not '%s'",
                             optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'h': fputs(usage, stdout); return PP_EXIT_OK;
        default: pp_cli_bad_option("candidates", c, argv); return PP_EXIT_USAGE;
        }
    }
    if (optind >= argc || argc - optind > MAX_DOCS) {
        fputs(usage, stderr);
        return PP_EXIT_USAGE;
    }
    schema = json_object();
    for (int i = optind; i < argc; i++) {
        json_error_t jerr;

        docs[ndocs] = pp_cli_load_json(argv[i], &jerr);
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
    declare_old(docs, ndocs);
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
    if ((c = pp_candidates((const json_t *const *)docs, ndocs, top, use_rules ? &rules : NULL,
                           ms_per_mib, &out, &err)) != PP_OK) {
        pp_cli_error("%s",
                     err.message[0] || c != PP_ENOMEM ? err.message : "candidates: out of memory");
        status = c == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
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
