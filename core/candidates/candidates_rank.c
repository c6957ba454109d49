/* Ranking candidates: groups by target, their rules and rows (candidates_internal.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates_bench.h"
#include "candidates_internal.h"

int
pp_cand_col(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(table, "columns"), i, c)
        if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
            return (int)i;
    return -1;
}

double
pp_cand_num(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) :
           json_is_real(v)    ? json_real_value(v) :
                                0;
}

void
pp_cand_figure_text(pp_cand_measure m, double figure, char *buf, size_t size)
{
    if (m == PP_CAND_MS)
        pp_format_duration_ns(buf, size, figure * 1e6);
    else
        pp_format_bytes(buf, size, figure);
}

static void
knob_args(const json_t *knobs, char *buf, size_t size)
{
    const char *k;
    json_t *v;
    size_t used = 0;

    buf[0] = '\0';
    json_object_foreach((json_t *)knobs, k, v) {
        int w = snprintf(buf + used, size - used, " --set %s=%s", k, json_string_value(v));

        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

int
pp_cand_by_target(const void *a, const void *b)
{
    const cand *x = a, *y = b;

    if (x->dropped != y->dropped)
        return x->dropped - y->dropped;
    if (x->dropped) /* followups: heaviest first */
        return x->cost < y->cost ? 1 : x->cost > y->cost ? -1 : 0;
    if (strcmp(x->target, y->target) != 0)
        return strcmp(x->target, y->target);
    return strcmp(x->unit.unit, y->unit.unit); /* a cost per request is not one per second */
}

static int
by_cost(const void *a, const void *b)
{
    const group *x = a, *y = b;

    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->figure < y->figure ? 1 : x->figure > y->figure ? -1 : 0;
}

static const char *evidence_confidence(const cand *c);

static void
group_cost(const cand *list, group *g)
{
    g->cost = -1;
    for (size_t i = g->first; i < g->first + g->count; i++) {
        double cost = 0, fig = 0, share = 0;

        for (size_t j = g->first; j < g->first + g->count; j++)
            if (list[j].stage_obj == list[i].stage_obj &&
                strcmp(list[j].r.table, list[i].r.table) == 0) {
                cost += list[j].cost;
                fig += list[j].figure;
                share += list[j].share;
            }
        /* at an equal cost, a table that names a cause (cpu's blocking)
         * represents the group rather than waits a rule had to name; within
         * one table, the row the stage itself flags (the db stage's N+1
         * command, in a table with a confidence column: the one the fix
         * removes), else the heaviest row (the command quoted in the plan).
         * By time alone a parent query with one slow execution (a Server GC
         * pause: 18 ms of its 30 ms at 4 connections) outweighed the
         * repeated one, and the plan asked for the wrong command to go. */
        int same = cost >= g->cost * (1 - 1e-9) && g->cost > 0;
        int same_table = same && list[g->rep].stage_obj == list[i].stage_obj &&
                         strcmp(list[g->rep].r.table, list[i].r.table) == 0;
        int flag_i = same_table && evidence_confidence(&list[i]) != NULL;
        int flag_rep = same_table && evidence_confidence(&list[g->rep]) != NULL;
        if (cost > g->cost || (same && list[g->rep].r.rule_gated && !list[i].r.rule_gated) ||
            (same_table &&
             (flag_i > flag_rep || (flag_i == flag_rep && list[i].figure > list[g->rep].figure)))) {
            g->cost = cost;
            g->figure = fig;
            g->share = share;
            g->rep = i;
        }
    }
}

/* Groups of the kept candidates of list (n sorted by by_target), ranked. */
group *
pp_cand_groups(const cand *list, size_t n, size_t *ng)
{
    group *g = calloc(n ? n : 1, sizeof *g);
    size_t k = 0;

    if (g == NULL)
        return NULL;
    for (size_t i = 0; i < n && !list[i].dropped; k++) {
        size_t j = i + 1;

        while (j < n && !list[j].dropped && strcmp(list[j].target, list[i].target) == 0 &&
               strcmp(list[j].unit.unit, list[i].unit.unit) == 0)
            j++;
        g[k].first = i;
        g[k].count = j - i;
        group_cost(list, &g[k]);
        i = j;
    }
    if (k > 1)
        qsort(g, k, sizeof *g, by_cost);
    *ng = k;
    return g;
}

/* The evidence's own confidence for target: a row of the stage naming it in
 * a table with a `confidence` column (the db stage's n_plus_one says how
 * sure it is without request boundaries). NULL: none. */
static const char *
evidence_confidence(const cand *c)
{
    /* a command that moved to its application frame is judged as itself */
    const char *name = strcmp(c->orig_kind, "command") == 0 ? c->orig : c->target;
    size_t k, i;
    json_t *t, *row;

    json_array_foreach(json_object_get(c->stage_obj, "tables"), k, t) {
        int ci = pp_cand_col(t, "confidence"), ti = pp_cand_col(t, c->r.target_col);

        if (ci < 0 || ti < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row) {
            const char *v = json_string_value(json_array_get(row, (size_t)ti));
            if (v != NULL && strcmp(v, name) == 0)
                return json_string_value(json_array_get(row, (size_t)ci));
        }
    }
    return NULL;
}

static int
conf_rank(const char *c)
{
    return c == NULL ? 3 : strcmp(c, "high") == 0 ? 3 : strcmp(c, "medium") == 0 ? 2 : 1;
}

/* 1 when word is one of the space-separated words of list. */
static int
word_in(const char *word, const char *list)
{
    size_t n = strlen(word);

    for (const char *p = strstr(list, word); p != NULL; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

typedef struct hit {
    const pp_rule *rule;
    const char *confidence; /* the rule's, capped by its evidence's */
} hit;

/* The rules of a group: those of each member's own row (a rule that matched
 * a framework frame moves with it to the application caller) and of the
 * target itself. */
static size_t
group_rules(const cand *list, const group *g, const json_t *const *docs, size_t ndocs,
            const pp_ruleset *rules, pp_ev_cache *cache, hit *out, size_t max)
{
    size_t n = 0;

    for (size_t i = g->first; rules != NULL && i < g->first + g->count; i++) {
        const cand *c = &list[i];
        const char *names[2] = { c->target, c->orig[0] ? c->orig : NULL };
        const char *cap = evidence_confidence(c);

        for (int w = 0; w < 2 && names[w] != NULL; w++) {
            const pp_rule *h[MAX_HITS];
            size_t nh = pp_rules_for_target(rules, cache, docs, ndocs, c->stage_obj, names[w], h,
                                            MAX_HITS);

            for (size_t q = 0; q < nh; q++) {
                const char *conf = pp_rule_confidence(h[q]);
                size_t d = 0;

                if (cap != NULL && conf_rank(cap) < conf_rank(conf))
                    conf = cap;
                while (d < n && out[d].rule != h[q])
                    d++;
                if (d < n) {
                    if (conf_rank(conf) > conf_rank(out[d].confidence))
                        out[d].confidence = conf;
                } else if (n < max) {
                    out[n].rule = h[q];
                    out[n++].confidence = conf;
                }
            }
        }
    }
    /* a rule another one supersedes ("grew" where "keeps growing" holds) */
    for (size_t a = 0; a < n; a++) {
        int gone = 0;

        for (size_t b = 0; b < n && out[a].rule->superseded_by != NULL && !gone; b++)
            gone = word_in(out[b].rule->id, out[a].rule->superseded_by);
        if (gone) {
            memmove(&out[a], &out[a + 1], (n - a - 1) * sizeof *out);
            n--;
            a--;
        }
    }
    return n;
}

/* "id (confidence), ..." and "fix (confidence c; doc) | ..." of the rules
 * a candidate carries, and their {id, fix, confidence, doc} list. */
static json_t *
rule_cells(const hit *hits, size_t nhits, char *ids, size_t isize, char *fix, size_t fsize)
{
    json_t *arr = json_array();
    size_t iu = 0, fu = 0;

    if (nhits == 0) {
        snprintf(ids, isize, "none matched");
        snprintf(fix, fsize,
                 "no rule matched: no known antipattern in this evidence, so perfpipe "
                 "names no fix shape; the evidence says what the code does (docs/rules.md says "
                 "how to teach perfpipe your own)");
    } else {
        ids[0] = fix[0] = '\0';
    }
    for (size_t h = 0; h < nhits; h++) {
        const pp_rule *r = hits[h].rule;
        int w = snprintf(ids + iu, isize - iu, "%s%s (%s)", h ? ", " : "", r->id,
                         hits[h].confidence);

        iu += w > 0 && (size_t)w < isize - iu ? (size_t)w : 0;
        w = snprintf(fix + fu, fsize - fu, "%s%s: %s (confidence %s; %s)", h ? " | " : "", r->id,
                     r->fix, hits[h].confidence, r->doc);
        fu += w > 0 && (size_t)w < fsize - fu ? (size_t)w : 0;
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s,s:b}", "id", r->id, "fix", r->fix,
                                             "confidence", hits[h].confidence, "doc", r->doc,
                                             "experimental", r->experimental));
    }
    return arr;
}

/* One member's evidence: what it does, its absolute figure and share. */
static size_t
member_text(const cand *c, char *buf, size_t size)
{
    char fig[64], per[64], inc[640] = "";
    int w;

    pp_cand_figure_text(c->r.measure, c->figure, fig, sizeof fig);
    pp_cand_per_unit_text(c->r.measure, c->figure, &c->unit, per, sizeof per);
    if (c->orig[0] && strcmp(c->orig_kind, "command") == 0)
        w = snprintf(buf, size, "\"%s\" (run from %s) %s %s", c->orig, c->target, c->r.what, fig);
    else if (c->orig[0])
        w = snprintf(buf, size, "%s (%s, called from %s) %s %s", c->orig, c->orig_kind, c->target,
                     c->r.what, fig);
    else
        w = snprintf(buf, size, "%s %s %s", c->target, c->r.what, fig);
    if (w < 0 || (size_t)w >= size)
        return size - 1;
    if (c->inclusive)
        snprintf(inc, sizeof inc, " with its callees (inclusive, by_stack%s%s)",
                 c->absorbed[0] ? "; its call holds the running time of " : "", c->absorbed);
    w += snprintf(buf + w, size - (size_t)w,
                  "%s (%s per %s; %.1f%% of the stage's %s) — stage "
                  "'%s', table %s%s",
                  inc, per, c->unit.unit, c->share, c->r.axis, c->stage, c->r.table, c->extra);
    return w < 0 || (size_t)w >= size ? size - 1 : (size_t)w;
}

static void
group_evidence(const cand *list, const group *g, char *buf, size_t size)
{
    size_t used = member_text(&list[g->rep], buf, size), shown = 1;

    for (size_t i = g->first; i < g->first + g->count && used + 8 < size; i++) {
        if (i == g->rep)
            continue;
        if (shown == 6) {
            snprintf(buf + used, size - used, "; and %zu more rows", g->count - shown);
            return;
        }
        used += (size_t)snprintf(buf + used, size - used, "; ");
        if (used < size)
            used += member_text(&list[i], buf + used, size - used);
        shown++;
    }
}

/* L1's blind spot: a benchmark mocks the repository and the DbContext, so a
 * change on the database axis, or under a frame a rule marks (EF Core's
 * save path, a DbContext, a repository: etc/rules), shows a flat L1 verdict
 * whatever it does. Such a candidate is verified at L2 and L3 only. */
static int
l1_blind(const cand *c, const hit *hits, size_t nhits)
{
    if (c->r.cost_axis != NULL && strcmp(c->r.cost_axis, PP_AXIS_DATABASE) == 0)
        return 1;
    for (size_t i = 0; i < nhits; i++)
        if (hits[i].rule->l1_blind_spot)
            return 1;
    return 0;
}

static void
verify_text(const cand *c, int blind, char *verify, size_t size)
{
    char knobs[1024];

    knob_args(c->knobs, knobs, sizeof knobs);
    snprintf(verify, size,
             "rerun `perfpipe run %s --input ...%s` on a capture of the changed "
             "build and `perfpipe compare` it with this result: confirmed when '%s' disappears "
             "from %s (structural), or its %s per %s falls beyond noise in a same-session A/B "
             "with identical knobs (statistical)",
             c->pipeline ? c->pipeline : "PIPELINE", knobs, c->orig[0] ? c->orig : c->target,
             c->r.table, c->r.figure_col, c->unit.unit);
    if (!blind) {
        pp_candidates_bench_plan(c->knobs, c->r.axis, c->target, verify, size);
        return;
    }
    size_t used = strlen(verify);
    if (used + 1 < size)
        snprintf(verify + used, size - used,
                 "; plan L2 (a load run of the app: wrk, k6...) and "
                 "L3 (the capture above, taken while L2 runs) only, no L1: an L1 benchmark with "
                 "mocked I/O (a mocked repository or DbContext) cannot see a change on this path, "
                 "so its flat verdict would not mean 'no effect'");
}

int
pp_cand_emit_candidates(const cand *list, const group *g, size_t ng, size_t top,
                        const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
                        pp_ev_cache *cache, pp_table *t, json_t *row_rules, json_t *row_lands,
                        pp_error *err)
{
    int rc = PP_OK;

    for (size_t i = 0; i < ng && i < top && rc == PP_OK; i++) {
        const cand *c = &list[g[i].rep];
        hit hits[MAX_HITS];
        size_t nhits = group_rules(list, &g[i], docs, ndocs, rules, cache, hits, MAX_HITS);
        char fig[64], per[64], unit[64], evidence[4096], verify[2048], ids[1024], fix[4096];
        pp_cell row[16];

        pp_cand_figure_text(c->r.measure, g[i].figure, fig, sizeof fig);
        pp_cand_per_unit_text(c->r.measure, g[i].figure, &c->unit, per, sizeof per);
        snprintf(unit, sizeof unit, "ms per %s (estimated)", c->unit.unit);
        group_evidence(list, &g[i], evidence, sizeof evidence);
        verify_text(c, l1_blind(c, hits, nhits), verify, sizeof verify);
        json_array_append_new(row_rules, rule_cells(hits, nhits, ids, sizeof ids, fix, sizeof fix));
        row[0] = pp_cell_int((int64_t)i + 1);
        row[1] = pp_cell_str(c->r.axis);
        row[2] = pp_cell_str(c->target);
        row[3] = pp_cell_str(fig);
        row[4] = pp_cell_dbl(g[i].share);
        row[5] = pp_cell_str(evidence);
        row[6] = pp_cell_str(verify);
        row[7] = pp_cell_str(ids);
        row[8] = pp_cell_str(fix);
        row[9] = pp_cell_str(c->lands.module);
        row[10] = pp_cell_str(c->lands.cls);
        row[11] = pp_cell_str(c->lands.call_site);
        row[12] = pp_cell_str(c->lands.why);
        row[13] = pp_cell_dbl(g[i].cost);
        row[14] = pp_cell_str(unit);
        row[15] = pp_cell_str(per);
        json_array_append_new(row_lands, json_pack("{s:s,s:s,s:s,s:s}", "module", c->lands.module,
                                                   "class", c->lands.cls, "call_site",
                                                   c->lands.call_site, "why", c->lands.why));
        rc = pp_result_table_row(t, row, err);
    }
    return rc;
}

/* Frames no fix lands in (no application caller): followups, heaviest
 * first, at most 10 and a count of the rest. */
int
pp_cand_emit_dropped(cand *list, size_t n, pp_table *f, pp_error *err)
{
    size_t first = 0, shown = 0;
    int rc = PP_OK;

    while (first < n && !list[first].dropped)
        first++;
    for (size_t i = first; i < n && rc == PP_OK; i++) {
        const cand *c = &list[i];
        char fig[64], per[64], source[256], msg[2048];
        pp_cell row[4];

        if (c->dropped != 1)
            continue;
        if (shown++ == 10) {
            snprintf(msg, sizeof msg,
                     "and more frames with no application caller (the stages' "
                     "tables list them)");
            row[0] = pp_cell_str("candidates");
            row[1] = pp_cell_str("info");
            row[2] = pp_cell_str("candidates.no_application_caller");
            row[3] = pp_cell_str(msg);
            return pp_result_table_row(f, row, err);
        }
        pp_cand_figure_text(c->r.measure, c->figure, fig, sizeof fig);
        pp_cand_per_unit_text(c->r.measure, c->figure, &c->unit, per, sizeof per);
        snprintf(source, sizeof source, "%s/%s", c->pipeline ? c->pipeline : "?", c->stage);
        snprintf(msg, sizeof msg,
                 "%s (%s, module %s) %s %s (%s per %s): no application frame "
                 "on its stacks calls it, so no change to the application lands there — runtime "
                 "start-up, the thread pool's own loop, the profiler's session; not a candidate",
                 c->target, c->lands.cls, c->lands.module, c->r.what, fig, per, c->unit.unit);
        row[0] = pp_cell_str(source);
        row[1] = pp_cell_str("info");
        row[2] = pp_cell_str("candidates.no_application_caller");
        row[3] = pp_cell_str(msg);
        rc = pp_result_table_row(f, row, err);
    }
    return rc;
}
