/* perfpipe verify BEFORE AFTER: two evidence folders of `perfpipe
 * diagnose` judged as compare judges two results: the knobs first (two
 * sessions with different knobs cannot be judged), then every axis's
 * result per unit of work (core/compare), then each candidate of BEFORE:
 * confirmed when AFTER shows its fix. Exit codes as compare --fail-on's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "compare/buildid.h"
#include "cli.h"
#include "compare/compare.h"
#include "diag.h"
#include "result/result.h"

static const char usage[] =
    "Usage: perfpipe verify BEFORE_DIR AFTER_DIR [--noise PCT] [--config-only]\n"
    "                       [--format text|json] [-o FILE [--force]]\n"
    "\n"
    "Judges a fix from two evidence folders of `perfpipe diagnose` (the same\n"
    "session file, before and after the change):\n"
    "  - the knobs (axes, durations, load command, counters) must be equal, else\n"
    "    CANNOT JUDGE, naming the differences;\n"
    "  - every axis's result is compared per unit of work, as `perfpipe compare`\n"
    "    does (per request when the load tool or the trace counts requests), the\n"
    "    verdict and what decided it (structural: a row gone or new; statistical:\n"
    "    a figure per unit beyond noise) named;\n"
    "  - each ranked candidate of BEFORE: confirmed (structural) when its target\n"
    "    disappeared from the axis's table, confirmed (statistical) when its cost\n"
    "    per unit fell by half or more, else not confirmed.\n"
    "  - both sides must have run different builds of the application (the\n"
    "    modules' PDB identities in the traces), else CANNOT JUDGE: the change\n"
    "    is not deployed;\n"
    "  --noise PCT     compare's noise band (default 5)\n"
    "  --config-only   the change is configuration only (one build, other\n"
    "                  settings): the same build on both sides is expected\n"
    "  --format json   the verdicts as a perfpipe-verify/1 document\n"
    "Exit: 0 nothing regressed, 1 an axis regressed, 2 usage, 3 a folder or result\n"
    "cannot be read, 6 cannot judge (different knobs, a capture that lost events, a\n"
    "missing axis, the same build on both sides without --config-only).\n"
    "Details: man perfpipe-diagnose (VERIFY).\n";

static json_t *
load(const char *dir, const char *name, int quiet)
{
    char p[4200];
    json_error_t e;
    json_t *d;

    snprintf(p, sizeof p, "%s/%s", dir, name);
    d = json_load_file(p, 0, &e);
    if (!d && !quiet)
        pp_cli_error("verify: %s:%d:%d: %s (expected an evidence folder of `perfpipe diagnose`)", p,
                     e.line, e.column, e.text);
    return d;
}

/* The differing knobs as "duration_s: 4 vs 3; ..." (NULL when equal). */
static char *
knob_diff(const json_t *a, const json_t *b)
{
    char buf[2048] = "";
    const char *k;
    json_t *v;

    json_object_foreach((json_t *)a, k, v) {
        json_t *w = json_object_get(b, k);
        if (w && json_equal(v, w))
            continue;
        char *x = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY),
             *y = w ? json_dumps(w, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s: %s vs %s", buf[0] ? "; " : "",
                 k, x ? x : "?", y ? y : "(absent)");
        free(x);
        free(y);
    }
    json_object_foreach((json_t *)b, k, v)
        if (!json_object_get(a, k))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s: (absent) vs set",
                     buf[0] ? "; " : "", k);
    return buf[0] ? strdup(buf) : NULL;
}

/* Candidate rows of a folder's candidates.json as objects. */
static json_t *
candidate_rows(const char *dir)
{
    json_t *doc = load(dir, "candidates.json", 1), *out = pp_diag_table_rows(doc, "candidates");

    json_decref(doc);
    return out;
}

typedef struct verify {
    const char *before, *after;
    double noise;
    int regressions, cannot_judge;
    int config_only; /* --config-only: one build, other settings */
    json_t *axes;    /* name -> {overall, line, decided_by[]} */
    json_t *doc;
} verify;

/* One axis's results compared (NAME.json of both folders). */
static int
axis(verify *v, const char *name)
{
    char file[300];
    pp_compare_options opt = { .noise_percent = v->noise };
    pp_compare_verdict vd;
    pp_error err = PP_ERROR_INIT;
    json_t *out = NULL, *a, *b, *rec = json_object();

    snprintf(file, sizeof file, "%s.json", name);
    a = load(v->before, file, 1);
    b = load(v->after, file, 1);
    json_object_set_new(v->axes, name, rec);
    if (!a || !b) {
        json_object_set_new(rec, "overall", json_string("cannot judge"));
        json_object_set_new(rec, "line",
                            json_string(!a ? "BEFORE has no result for this axis" :
                                             "AFTER has no result for this axis"));
        v->cannot_judge++;
        goto out;
    }
    opt.baseline_path = v->before;
    opt.candidate_path = v->after;
    if (strcmp(name, "heap") == 0)
        opt.per = "run"; /* a snapshot pair is one run's growth */
    if (pp_result_validate(a, &err) != PP_OK || pp_result_validate(b, &err) != PP_OK ||
        pp_compare(a, b, &opt, &out, &vd, &err) != PP_OK) {
        json_object_set_new(rec, "overall", json_string("cannot judge"));
        json_object_set_new(rec, "line", json_string(err.message));
        v->cannot_judge++;
        goto out;
    }
    /* A fix is verified only when it was deployed: two results of one build
     * (issue #44) measure the same code, unless the change is declared to be
     * configuration only. Said once, for the first axis that shows it. */
    char why[1024];
    if (!json_object_get(v->doc, "not_deployed") &&
        pp_buildid_verify_deployed(a, b, v->config_only, why, sizeof why)) {
        json_object_set_new(v->doc, "not_deployed", json_string(why));
        v->cannot_judge++;
    }
    const json_t *verd = json_object_get(out, "verdict");
    json_object_set_new(rec, "overall", json_string(vd.overall));
    json_object_set(rec, "line", json_object_get(verd, "line"));
    json_object_set(rec, "unit", json_object_get(verd, "unit"));
    json_object_set(rec, "decided_by", json_object_get(verd, "decided_by"));
    v->regressions += vd.regressions > 0;
    v->cannot_judge += vd.cannot_judge > 0;
out:
    json_decref(a);
    json_decref(b);
    json_decref(out);
    return 0;
}

/* Whether AFTER confirmed candidate c of BEFORE. */
static json_t *
confirm(const verify *v, const json_t *c, const json_t *after_rows)
{
    const char *target = json_string_value(json_object_get(c, "target")) ?: "";
    double cost = json_number_value(json_object_get(c, "cost")), cost2 = -1;
    const json_t *r, *ax;
    const char *k;
    size_t i, j;
    char quoted[600], how[800];
    const char *state = "not confirmed";

    json_array_foreach(after_rows, i, r)
        if (strcmp(json_string_value(json_object_get(r, "target")) ?: "", target) == 0)
            cost2 = json_number_value(json_object_get(r, "cost"));
    snprintf(quoted, sizeof quoted, "'%s' disappeared", target);
    snprintf(how, sizeof how, "still a candidate in AFTER (%.3g -> %.3g %s)", cost, cost2,
             json_string_value(json_object_get(c, "cost_unit")) ?: "");
    json_object_foreach(v->axes, k, ax) {
        json_t *d;
        json_array_foreach(json_object_get(ax, "decided_by"), j, d)
            if (strstr(json_string_value(d) ?: "", quoted)) {
                state = "confirmed (structural)";
                snprintf(how, sizeof how, "%s: %s", k, json_string_value(d));
            }
    }
    if (strcmp(state, "not confirmed") == 0 && (cost2 < 0 || cost2 <= cost / 2)) {
        state = "confirmed (statistical)";
        if (cost2 < 0)
            snprintf(how, sizeof how, "no longer among AFTER's candidates (it was %.3g %s)", cost,
                     json_string_value(json_object_get(c, "cost_unit")) ?: "");
        else
            snprintf(how, sizeof how, "its cost per unit fell from %.3g to %.3g %s", cost, cost2,
                     json_string_value(json_object_get(c, "cost_unit")) ?: "");
    }
    json_t *out = json_pack("{s:O, s:s, s:s, s:s}", "rank", json_object_get(c, "rank"), "target",
                            target, "state", state, "how", how);
    /* The plan's L1 step (a session file's benchmark knob): named, not run. */
    const char *l1 = strstr(json_string_value(json_object_get(c, "verify")) ?: "", "L1: ");
    if (out && l1)
        json_object_set_new(out, "l1", json_string(l1 + 4));
    return out;
}

static void
print_text(const verify *v, FILE *f)
{
    const char *k;
    json_t *ax, *c;
    size_t i;

    fprintf(f, "%s\n",
            v->cannot_judge ? "CANNOT JUDGE" :
            v->regressions  ? "REGRESSED" :
                              "VERIFIED: no axis regressed");
    if (json_object_get(v->doc, "knobs_differ"))
        fprintf(f, "knobs differ: %s\n",
                json_string_value(json_object_get(v->doc, "knobs_differ")));
    if (json_object_get(v->doc, "not_deployed"))
        fprintf(f, "%s\n", json_string_value(json_object_get(v->doc, "not_deployed")));
    json_object_foreach(v->axes, k, ax)
        fprintf(f, "axis %s: %s: %s\n", k, json_string_value(json_object_get(ax, "overall")),
                json_string_value(json_object_get(ax, "line")) ?: "");
    json_array_foreach(json_object_get(v->doc, "candidates"), i, c)
        fprintf(f, "candidate #%lld %s: %s: %s\n",
                (long long)json_integer_value(json_object_get(c, "rank")),
                json_string_value(json_object_get(c, "target")),
                json_string_value(json_object_get(c, "state")),
                json_string_value(json_object_get(c, "how")));
    json_array_foreach(json_object_get(v->doc, "candidates"), i, c)
        if (json_object_get(c, "l1"))
            fprintf(f, "candidate #%lld L1 benchmark: %s\n",
                    (long long)json_integer_value(json_object_get(c, "rank")),
                    json_string_value(json_object_get(c, "l1")));
}

static int
write_text(void *user, FILE *out)
{
    print_text(user, out);
    return 0;
}

static int
write_json(void *user, FILE *out)
{
    const verify *v = user;
    return json_dumpf(v->doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
}

static int
judge(verify *v)
{
    json_t *sa = load(v->before, "session.json", 0),
           *sb = sa ? load(v->after, "session.json", 0) : NULL;
    int rc = PP_EXIT_OK;

    if (!sa || !sb) {
        json_decref(sa);
        return PP_EXIT_INPUT;
    }
    char *diff = knob_diff(json_object_get(sa, "knobs"), json_object_get(sb, "knobs"));
    if (diff) {
        json_object_set_new(v->doc, "knobs_differ", json_string(diff));
        v->cannot_judge++;
        free(diff);
    } else {
        json_t *cap;
        size_t i;
        json_array_foreach(json_object_get(sa, "captures"), i, cap) {
            const char *n = json_string_value(json_object_get(cap, "name")) ?: "";
            if (strcmp(n, "counters") != 0 && strcmp(n, "heap-before") != 0)
                axis(v, strcmp(n, "heap-after") == 0 ? "heap" : n);
        }
        json_t *before = candidate_rows(v->before), *after = candidate_rows(v->after), *c;
        json_t *list = json_array();
        json_array_foreach(before, i, c)
            json_array_append_new(list, confirm(v, c, after));
        json_object_set_new(v->doc, "candidates", list);
        json_decref(before);
        json_decref(after);
    }
    json_object_set_new(v->doc, "verdict",
                        json_string(v->cannot_judge ? "cannot judge" :
                                    v->regressions  ? "regressed" :
                                                      "verified"));
    if (v->cannot_judge)
        rc = PP_EXIT_CANNOT_JUDGE;
    else if (v->regressions)
        rc = PP_EXIT_REGRESSION;
    json_decref(sa);
    json_decref(sb);
    return rc;
}

int
pp_cmd_verify(int argc, char **argv)
{
    verify v = { .noise = 5 };
    const char *format = "text", *output = NULL, *dirs[2];
    int ndirs = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage, stdout);
            return PP_EXIT_OK;
        } else if (strcmp(a, "--noise") == 0 && val) {
            v.noise = strtod(val, &end);
            if (end == val || *end || !(v.noise >= 0) || v.noise > 1000) {
                pp_cli_error("verify: --noise takes a percentage (0-1000), not '%s'", val);
                return PP_EXIT_USAGE;
            }
            i++;
        } else if (strcmp(a, "--config-only") == 0) {
            v.config_only = 1;
        } else if (strcmp(a, "--format") == 0 && val) {
            format = argv[++i];
        } else if (strcmp(a, "--force") == 0) {
            pp_cli_force = 1;
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && val) {
            output = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            pp_cli_error("verify: unknown option '%s'; try `perfpipe verify --help`", a);
            return PP_EXIT_USAGE;
        } else if (ndirs < 2) {
            dirs[ndirs++] = a;
        } else {
            pp_cli_error("verify: takes two folders, BEFORE and AFTER");
            return PP_EXIT_USAGE;
        }
    }
    if (ndirs != 2 || (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)) {
        fputs(usage, stderr);
        return PP_EXIT_USAGE;
    }
    v.before = dirs[0];
    v.after = dirs[1];
    v.axes = json_object();
    v.doc = json_pack("{s:s, s:s, s:s, s:O}", "schema", "perfpipe-verify/1", "before", v.before,
                      "after", v.after, "axes", v.axes);
    int rc = judge(&v);
    json_object_set(v.doc, "axes", v.axes);
    if (rc != PP_EXIT_INPUT) {
        int w = pp_cli_write_output(output, strcmp(format, "json") == 0 ? write_json : write_text,
                                    &v);
        if (w != PP_EXIT_OK)
            rc = w;
    }
    json_decref(v.axes);
    json_decref(v.doc);
    return rc;
}
