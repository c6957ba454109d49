/* `perfpipe rules list|show ID|validate [FILE...]`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "loader/loader.h"
#include "result/decl.h"
#include "rules/evidence.h"
#include "rules/rules.h"

static const char usage[] =
    "Usage: perfpipe rules list [--format table|json]\n"
    "       perfpipe rules show ID\n"
    "       perfpipe rules validate [FILE...]\n"
    "\n"
    "Rules turn a candidate's evidence into a fix shape: each rule names an\n"
    "antipattern (ef.n-plus-one, str.concat-in-loop, leak.static-collection...),\n"
    "the evidence it matches in the results perfpipe writes (a frame's callees,\n"
    "an allocated type and size class, a command's shape and per-request\n"
    "repetition, a blocked frame, a counter trend, a heap path's root), what to\n"
    "change in one or two sentences, a public documentation link and a\n"
    "confidence. `perfpipe candidates` attaches the matching rules to every\n"
    "candidate; rules marked `finding:` also report on their own in the stage\n"
    "that owns their evidence when `perfpipe run` writes a result.\n"
    "\n"
    "  list       every rule in force: id, axis, confidence, where it is defined\n"
    "  show ID    one rule: its evidence, fix shape, documentation, file:line\n"
    "  validate   check rule files (FILE:LINE:COLUMN: what was expected on the\n"
    "             first error; FILE `-` is standard input); without FILE, every\n"
    "             rule directory in force\n"
    "\n"
    "Rules are read from every *.yaml of, first one winning for an id:\n"
    "  $PERFPIPE_RULES_PATH (colon-separated directories)\n"
    "  ~/.config/perfpipe/rules ($XDG_CONFIG_HOME/perfpipe/rules)  - yours\n"
    "  " SYSCONFDIR "/perfpipe/rules                              - the administrator's\n"
    "  " PKGDATADIR "/rules                                   - shipped\n"
    "so a file of yours with a shipped rule's id replaces that rule, and\n"
    "`disabled: true` with its id turns it off. The format (version 1) and\n"
    "the evidence rules can match: docs/rules.md, perfpipe(1) RULES.\n"
    "\n"
    "Exit status: 0 valid, 2 a rule file does not validate (or bad usage),\n"
    "3 a rule file cannot be read, 7 out of memory.\n"
    "\n"
    "Example, a team rule (~/.config/perfpipe/rules/shop.yaml):\n"
    "  version: 1\n"
    "  rules:\n"
    "    - id: shop.row-format\n"
    "      title: ReportBuilder formats every row through string.Format\n"
    "      axis: alloc\n"
    "      confidence: high\n"
    "      fix: Write rows with the pooled RowWriter instead of string.Format.\n"
    "      doc: https://wiki.example.com/shop/perf/row-writer\n"
    "      match:\n"
    "        analyzer: alloc\n"
    "        table: callees\n"
    "        target: frame\n"
    "        where:\n"
    "          frame: { regex: '^Shop\\.Reports\\.' }\n"
    "          callee: { regex: '^System\\.String\\.Format' }\n"
    "          share: { min: 25 }\n";

static int
exit_for_load(int rc)
{
    return rc == PP_EIO ? PP_EXIT_INPUT : rc == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
}

static const char *
finding_name(pp_rule_finding f)
{
    return f == PP_RULE_FINDING_WARNING ? "warning" : f == PP_RULE_FINDING_INFO ? "info" : "none";
}

static void
add_declared(void *user, const pp_plugin_candidate *c)
{
    if (c->analyzer != NULL)
        (void)pp_ev_schema_add_analyzer(user, c->analyzer);
}

/* What the analyzers on the plugin path declare of their tables (ABI 1.5):
 * rule files are checked against it. A new reference, or NULL (then rules
 * are checked for their shape alone). */
static json_t *
declared_schema(void)
{
    json_t *schema = json_object();
    pp_loader *l;

    if (schema == NULL || (l = pp_cli_loader(NULL, 0)) == NULL)
        return schema;
    pp_loader_scan(l, add_declared, schema);
    pp_loader_free(l);
    return schema;
}

/* A set load_in_force filled: its rules and the schema it made. */
static void
ruleset_done(pp_ruleset *set)
{
    json_decref((json_t *)set->schema);
    set->schema = NULL;
    pp_ruleset_free(set);
}

static int
load_in_force(pp_ruleset *set)
{
    pp_error err = PP_ERROR_INIT;
    int rc;

    if (set->schema == NULL)
        set->schema = declared_schema();
    rc = pp_rules_load_default(set, &err);

    if (rc != PP_OK) {
        pp_cli_error("%s", err.message);
        return exit_for_load(rc);
    }
    return PP_EXIT_OK;
}

static int
list(const char *format)
{
    pp_ruleset set = PP_RULESET_INIT;
    int status = load_in_force(&set);
    json_t *arr;

    if (status != PP_EXIT_OK)
        return status;
    if (strcmp(format, "json") == 0) {
        arr = json_array();
        for (size_t i = 0; i < set.count; i++) {
            const pp_rule *r = &set.rules[i];
            json_array_append_new(arr, json_pack("{s:s,s:s?,s:s?,s:s?,s:s,s:b,s:b,s:s,s:i}", "id",
                                                 r->id, "title", r->title, "axis", r->axis,
                                                 "confidence", pp_rule_confidence(r), "finding",
                                                 finding_name(r->finding), "disabled", r->disabled,
                                                 "experimental", r->experimental, "file", r->file,
                                                 "line", (int)r->pos.line));
        }
        status = pp_cli_write_json(NULL, arr);
        json_decref(arr);
    } else {
        /* grouped by axis (pp_decl_axes' order), disabled ones last */
        const char *const *axes = pp_decl_axes;
        size_t naxes = 0;

        while (axes[naxes] != NULL)
            naxes++;
        printf("%-30s %-10s %-6s %-7s %s\n", "ID", "AXIS", "CONF.", "FINDING", "DEFINED IN");
        for (size_t n = 0; n < (naxes + 1) * set.count; n++) {
            const pp_rule *r = &set.rules[n % set.count];
            int k = 0;

            while (axes[k] != NULL && (r->disabled || strcmp(r->axis, axes[k]) != 0))
                k++;
            if ((size_t)k != n / set.count)
                continue;
            printf("%-30s %-10s %-6s %-7s %s:%u%s%s\n", r->id, r->disabled ? "-" : r->axis,
                   r->disabled ? "-" : pp_rule_confidence(r), finding_name(r->finding), r->file,
                   (unsigned)r->pos.line, r->disabled ? " (disabled)" : "",
                   r->experimental && !r->disabled ? " (experimental)" : "");
        }
        printf("%zu rule%s in force\n", set.count, set.count == 1 ? "" : "s");
    }
    ruleset_done(&set);
    return status == PP_EXIT_OK ? pp_cli_flush_stdout() : status;
}

static const char *const op_text[] = { "", "=", "~", "!~", "glob", ">=", "<=" };

static void
print_clause(const char *lead, const pp_rule_clause *cl)
{
    printf("  %s %s / %s", lead, cl->analyzer, cl->table);
    for (size_t k = 0; k < cl->nconds; k++) {
        const pp_rule_cond *c = &cl->conds[k];

        if (c->op == PP_RULE_MIN || c->op == PP_RULE_MAX)
            printf("%s %s %s %g", k ? "," : ":", c->column, op_text[c->op], c->number);
        else
            printf("%s %s %s '%s'", k ? "," : ":", c->column, op_text[c->op], c->text);
    }
    if (cl->target != NULL)
        printf(" -> candidate's %s", cl->target);
    printf("\n");
}

static int
show(const char *id)
{
    pp_ruleset set = PP_RULESET_INIT;
    int status = load_in_force(&set);
    const pp_rule *r;

    if (status != PP_EXIT_OK)
        return status;
    if ((r = pp_ruleset_find(&set, id)) == NULL) {
        pp_cli_error("no rule '%s'; `perfpipe rules list` lists the rules in force", id);
        ruleset_done(&set);
        return PP_EXIT_USAGE;
    }
    printf("%s%s\n  defined in %s:%u\n", r->id, r->disabled ? " (disabled)" : "", r->file,
           (unsigned)r->pos.line);
    if (!r->disabled) {
        printf("  %s\n  axis %s, confidence %s, own finding: %s\n", r->title, r->axis,
               pp_rule_confidence(r), finding_name(r->finding));
        for (size_t m = 0; m < r->nmatch; m++)
            print_clause(m == 0 ? "matches " : "or      ", &r->match[m]);
        for (size_t q = 0; q < r->nrequires; q++)
            print_clause("requires", &r->requires[q]);
        printf("  fix: %s\n  doc: %s\n", r->fix, r->doc);
    }
    printf("To change it, copy its entry from that file into ~/.config/perfpipe/rules/NAME.yaml\n"
           "(under `version: 1` and `rules:`) and edit it: the same id replaces it.\n");
    ruleset_done(&set);
    return pp_cli_flush_stdout();
}

static int
validate(int nfiles, char **files)
{
    int status = PP_EXIT_OK;

    if (nfiles == 0) {
        pp_ruleset set = PP_RULESET_INIT;

        if ((status = load_in_force(&set)) == PP_EXIT_OK)
            printf("valid: %zu rules in force (`perfpipe rules list` shows them)\n", set.count);
        ruleset_done(&set);
        return status == PP_EXIT_OK ? pp_cli_flush_stdout() : status;
    }
    json_t *schema = declared_schema();

    for (int i = 0; i < nfiles; i++) {
        pp_ruleset set = PP_RULESET_INIT;
        pp_error err = PP_ERROR_INIT;
        int rc;

        set.schema = schema;
        /* `-`: standard input, read as a file (libyaml reads a pipe too) */
        rc = pp_rules_load_file(&set, strcmp(files[i], "-") == 0 ? "/dev/stdin" : files[i], &err);

        if (rc != PP_OK) {
            pp_cli_error("%s", err.message);
            if (status == PP_EXIT_OK)
                status = exit_for_load(rc);
        } else {
            printf("%s: valid: %zu rule%s\n", files[i], set.count, set.count == 1 ? "" : "s");
        }
        pp_ruleset_free(&set);
    }
    json_decref(schema);
    if (status == PP_EXIT_OK)
        return pp_cli_flush_stdout();
    return status;
}

int
pp_cmd_rules(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *format = "table", *sub;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "table") != 0 && strcmp(optarg, "json") != 0) {
                pp_cli_error("rules: --format is table or json, not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            format = optarg;
            break;
        case 'h': fputs(usage, stdout); return pp_cli_flush_stdout();
        default: fputs(usage, stderr); return PP_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        pp_cli_error("rules: which? list, show ID or validate [FILE...] (`perfpipe rules "
                     "--help`)");
        return PP_EXIT_USAGE;
    }
    sub = argv[optind++];
    /* options after the subcommand too: `perfpipe rules list --format json` */
    while ((c = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
        if (c == 'f' && (strcmp(optarg, "table") == 0 || strcmp(optarg, "json") == 0)) {
            format = optarg;
        } else if (c == 'h') {
            fputs(usage, stdout);
            return pp_cli_flush_stdout();
        } else {
            if (c == 'f')
                pp_cli_error("rules: --format is table or json, not '%s'", optarg);
            return PP_EXIT_USAGE;
        }
    }
    if (strcmp(sub, "list") == 0 && optind == argc)
        return list(format);
    if (strcmp(sub, "show") == 0 && optind + 1 == argc)
        return show(argv[optind]);
    if (strcmp(sub, "validate") == 0)
        return validate(argc - optind, argv + optind);
    pp_cli_error("rules: expected list, show ID or validate [FILE...], not '%s%s' "
                 "(`perfpipe rules --help`)",
                 sub, optind < argc ? " ..." : "");
    return PP_EXIT_USAGE;
}
