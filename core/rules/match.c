/* Matching rules over the evidence of result documents: which rules a
 * candidate carries, and the findings rules report on their own. */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/jsonmem.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"
#include "rules/site.h"

/* 1 match, 0 none, -1 the matcher ran out of memory (REG_ESPACE, or
 * fnmatch's -1): neither answer is known, so the document these matches go
 * into is refused (jsonmem.h), not written with a rule quietly lost. */
static int
text_match(const pp_rule_cond *c, const char *s)
{
    int rc = c->op == PP_RULE_GLOB ? fnmatch(c->text, s, 0) : regexec(&c->re, s, 0, NULL, 0);

    if (rc == 0)
        return 1;
    if (rc == (c->op == PP_RULE_GLOB ? FNM_NOMATCH : REG_NOMATCH))
        return 0;
    pp_jsonmem_lost();
    return -1;
}

static int
cond_holds(const pp_rule_cond *c, const json_t *cell)
{
    const char *s = json_string_value(cell);
    double v;

    switch (c->op) {
    case PP_RULE_EQUALS: return s != NULL && strcmp(s, c->text) == 0;
    case PP_RULE_REGEX:
    case PP_RULE_GLOB: return s != NULL && text_match(c, s) == 1;
    case PP_RULE_NOT_REGEX: return s != NULL && text_match(c, s) == 0;
    case PP_RULE_MIN:
    case PP_RULE_MAX:
        if (!json_is_number(cell))
            return 0;
        v = json_number_value(cell);
        return c->op == PP_RULE_MIN ? v >= c->number : v <= c->number;
    }
    return 0;
}

static int
row_holds(const pp_rule_clause *cl, const pp_ev_table *t, const json_t *row)
{
    for (size_t k = 0; k < cl->nconds; k++) {
        int ci = pp_ev_column(t, cl->conds[k].column);

        if (ci < 0 || !cond_holds(&cl->conds[k], json_array_get(row, (size_t)ci)))
            return 0;
    }
    return 1;
}

/* Rows of the clause's table in stage that hold (and whose target column
 * equals target when target is not NULL); *first: the first of them. */
static size_t
clause_rows(const pp_rule_clause *cl, pp_ev_cache *cache, const json_t *stage, const char *target,
            const json_t **first, const pp_ev_table **table)
{
    const char *an = pp_ev_analyzer(stage);
    const pp_ev_table *t;
    int ti = -1;
    size_t i, n = 0;
    json_t *row;

    if (an == NULL || strcmp(an, cl->analyzer) != 0 ||
        (t = pp_ev_get(cache, stage, cl->table)) == NULL)
        return 0;
    if (target != NULL && (cl->target == NULL || (ti = pp_ev_column(t, cl->target)) < 0))
        return 0;
    json_array_foreach(t->rows, i, row) {
        if (ti >= 0) {
            const char *v = json_string_value(json_array_get(row, (size_t)ti));
            if (v == NULL || strcmp(v, target) != 0)
                continue;
        }
        if (!row_holds(cl, t, row))
            continue;
        if (n++ == 0) {
            if (first != NULL)
                *first = row;
            if (table != NULL)
                *table = t;
        }
    }
    return n;
}

/* Whether r's `requires` hold over docs: each clause (one, requires_any)
 * matches a row of some stage. A clause with a target wants a row naming
 * target in a stage other than own (the candidate's): the same type grew in
 * the next pair of snapshots too. */
static int
requires_hold(const pp_rule *r, pp_ev_cache *cache, const json_t *const *docs, size_t ndocs,
              const json_t *own, const char *target)
{
    for (size_t q = 0; q < r->nrequires; q++) {
        const pp_rule_clause *cl = &r->requires[q];
        int found = 0, tables = 0;

        for (size_t d = 0; d < ndocs && !found; d++) {
            size_t i;
            json_t *stage;

            json_array_foreach(json_object_get(docs[d], "stages"), i, stage) {
                if (cl->target != NULL && (target == NULL || stage == own))
                    continue;
                if (cl->absent) {
                    const char *an = pp_ev_analyzer(stage);
                    tables += an != NULL && strcmp(an, cl->analyzer) == 0 &&
                              pp_ev_get(cache, stage, cl->table) != NULL;
                }
                if (clause_rows(cl, cache, stage, cl->target ? target : NULL, NULL, NULL) > 0) {
                    found = 1;
                    break;
                }
            }
        }
        /* absent: another result has the table, and none of its rows holds */
        if (cl->absent)
            found = !found && tables > 0;
        if (found && r->requires_any)
            return 1;
        if (!found && !r->requires_any)
            return 0;
    }
    return !r->requires_any || r->nrequires == 0;
}

size_t
pp_rules_for_target(const pp_ruleset *set, pp_ev_cache *cache, const json_t *const *docs,
                    size_t ndocs, const json_t *stage, const char *target, const pp_rule **out,
                    size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < set->count && n < max; i++) {
        const pp_rule *r = &set->rules[i];

        if (r->disabled)
            continue;
        for (size_t m = 0; m < r->nmatch; m++)
            if (r->match[m].target != NULL &&
                clause_rows(&r->match[m], cache, stage, target, NULL, NULL) > 0) {
                if (requires_hold(r, cache, docs, ndocs, stage, target))
                    out[n++] = r;
                break;
            }
    }
    return n;
}

/* A cell as text: strings as they are (cut at 400 bytes), integers
 * exactly, other numbers with one decimal. */
static void
cell_text(const json_t *cell, char *buf, size_t size)
{
    if (json_is_string(cell))
        snprintf(buf, size, "%.400s", json_string_value(cell));
    else if (json_is_integer(cell))
        snprintf(buf, size, "%lld", (long long)json_integer_value(cell));
    else if (json_is_real(cell))
        snprintf(buf, size, "%.1f", json_real_value(cell));
    else
        snprintf(buf, size, "?");
}

/* The message template with each {column} replaced by the row's cell. */
static void
fill_template(const char *tpl, const pp_ev_table *t, const json_t *row, char *buf, size_t size)
{
    size_t used = 0;

    for (const char *p = tpl; *p != '\0' && used + 1 < size; p++) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;

        if (close != NULL && close - p < 64) {
            char col[64], val[512];
            int ci, w;

            memcpy(col, p + 1, (size_t)(close - p - 1));
            col[close - p - 1] = '\0';
            if ((ci = pp_ev_column(t, col)) >= 0) {
                cell_text(json_array_get(row, (size_t)ci), val, sizeof val);
                w = snprintf(buf + used, size - used, "%s", val);
                used += w > 0 ? (size_t)w : 0;
                if (used >= size)
                    used = size - 1;
                p = close;
                continue;
            }
        }
        buf[used++] = *p;
    }
    buf[used] = '\0';
}

/* Without a template: "title: col value, col value" of the columns the
 * clause names (target first). */
static void
default_message(const pp_rule *r, const pp_rule_clause *cl, const pp_ev_table *t, const json_t *row,
                char *buf, size_t size)
{
    size_t used = 0;
    int w = snprintf(buf, size, "%s:", r->title);

    used = w > 0 && (size_t)w < size ? (size_t)w : 0;
    for (size_t k = 0; k <= cl->nconds && used < size; k++) {
        const char *col = k == 0 ? cl->target : cl->conds[k - 1].column;
        char val[512];
        int ci;

        if (col == NULL || (ci = pp_ev_column(t, col)) < 0)
            continue;
        /* a column with two conditions (min and max) is named once */
        if (k > 1 && strcmp(col, cl->conds[k - 2].column) == 0)
            continue;
        if (k > 0 && cl->target != NULL && strcmp(col, cl->target) == 0)
            continue;
        cell_text(json_array_get(row, (size_t)ci), val, sizeof val);
        w = snprintf(buf + used, size - used, "%s %s %s", used > strlen(r->title) + 1 ? "," : "",
                     col, val);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

/* The row a finding names: the first holding row whose target lands in
 * the application (or is no frame at all); failing that, the first whose
 * framework target an application frame calls, its target replaced by
 * that caller in a copy (*moved: the framework frame, for the message);
 * failing that, the first row (*moved: its frame, *none set). A new
 * reference. */
static json_t *
landing_row(const pp_rule_clause *cl, const pp_ev_table *t, const json_t *stage,
            const json_t *first, char *moved, size_t size, int *none)
{
    int ti = cl->target != NULL ? pp_ev_column(t, cl->target) : -1;
    const json_t *caller_row = NULL;
    char site[512], caller[512] = "";
    size_t i;
    json_t *row, *copy;

    moved[0] = '\0';
    *none = 0;
    if (ti < 0)
        return json_incref((json_t *)first);
    json_array_foreach(t->rows, i, row) {
        const char *v = json_string_value(json_array_get(row, (size_t)ti));
        pp_ev_site where;

        if (v == NULL || !row_holds(cl, t, row))
            continue;
        where = pp_ev_frame_site(stage, v, site, sizeof site);
        if (where == PP_EV_SITE_APP || where == PP_EV_SITE_UNKNOWN)
            return json_incref(row);
        if (where == PP_EV_SITE_CALLER && caller_row == NULL) {
            caller_row = row;
            snprintf(caller, sizeof caller, "%s", site);
        }
    }
    row = (json_t *)(caller_row != NULL ? caller_row : first);
    snprintf(moved, size, "%s", json_string_value(json_array_get(row, (size_t)ti)));
    if (caller_row == NULL) {
        *none = 1;
        return json_incref(row);
    }
    if ((copy = json_copy(row)) == NULL ||
        json_array_set_new(copy, (size_t)ti, json_string(caller)) != 0) {
        json_decref(copy);
        moved[0] = '\0';
        return json_incref(row);
    }
    return copy;
}

void
pp_rules_stage_findings(const pp_ruleset *set, pp_ev_cache *cache, const json_t *const *docs,
                        size_t ndocs, const json_t *stage, pp_rules_finding_fn fn, void *user)
{
    for (size_t i = 0; i < set->count; i++) {
        const pp_rule *r = &set->rules[i];

        if (r->disabled || r->finding == PP_RULE_FINDING_NONE)
            continue;
        for (size_t m = 0; m < r->nmatch; m++) {
            const json_t *row = NULL;
            const pp_ev_table *t = NULL;
            size_t n = clause_rows(&r->match[m], cache, stage, NULL, &row, &t);
            char msg[1024], more[48] = "", text[3072];

            int ti = n > 0 && r->match[m].target ? pp_ev_column(t, r->match[m].target) : -1;
            const char *tv = ti >= 0 ? json_string_value(json_array_get(row, (size_t)ti)) : NULL;

            /* a target-tied `requires` is judged on the first row's target */
            char moved[512], where[640] = "";
            json_t *lands;
            int none;

            if (n == 0 || !requires_hold(r, cache, docs, ndocs, stage, tv))
                continue;
            /* a framework frame is evidence, not where a fix lands: the
             * finding names the application frame that calls it */
            if ((lands = landing_row(&r->match[m], t, stage, row, moved, sizeof moved, &none)) ==
                NULL)
                continue;
            if (r->message != NULL)
                fill_template(r->message, t, lands, msg, sizeof msg);
            else
                default_message(r, &r->match[m], t, lands, msg, sizeof msg);
            json_decref(lands);
            if (moved[0] != '\0')
                snprintf(where, sizeof where,
                         none ? " (%s is a framework frame no application frame calls: no change "
                                "lands there)" :
                                " (the evidence is in the framework frame %s it calls)",
                         moved);
            if (n > 1)
                snprintf(more, sizeof more, " (and %zu more)", n - 1);
            snprintf(text, sizeof text, "%s%s%s. Fix: %s (rule %s, confidence %s; %s)", msg, where,
                     more, r->fix, r->id, pp_rule_confidence(r), r->doc);
            fn(user, r, text);
            break; /* one finding per rule and stage */
        }
    }
}

typedef struct annotate_job {
    json_t *stage;
    size_t added;
} annotate_job;

/* 1 when the stage already has a finding of that code. */
static int
has_finding(const json_t *stage, const char *code)
{
    size_t i;
    json_t *f;

    json_array_foreach(json_object_get(stage, "findings"), i, f) {
        const char *c = json_string_value(json_object_get(f, "code"));
        if (c != NULL && strcmp(c, code) == 0)
            return 1;
    }
    return 0;
}

static void
add_finding(void *user, const pp_rule *r, const char *text)
{
    annotate_job *j = user;
    char code[160];

    snprintf(code, sizeof code, "rule.%s", r->id);
    if (has_finding(j->stage, code))
        return;
    if (pp_result_finding(j->stage,
                          r->finding == PP_RULE_FINDING_WARNING ? PP_SEVERITY_WARNING :
                                                                  PP_SEVERITY_INFO,
                          code, text) == PP_OK)
        j->added++;
}

size_t
pp_rules_annotate(const pp_ruleset *set, json_t *doc)
{
    pp_ev_cache *cache = pp_ev_cache_new();
    const json_t *docs[1] = { doc };
    annotate_job job = { NULL, 0 };
    size_t i;
    json_t *stage;

    if (cache == NULL)
        return 0;
    json_array_foreach(json_object_get(doc, "stages"), i, stage) {
        job.stage = stage;
        pp_rules_stage_findings(set, cache, docs, 1, stage, add_finding, &job);
    }
    pp_ev_cache_free(cache);
    return job.added;
}
