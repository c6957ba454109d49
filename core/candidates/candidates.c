/* Ranked optimization candidates from one or more results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates.h"
#include "candidates_emit.h"
#include "candidates_internal.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

/* Thread time spent blocked is not work a change can remove from that
 * method: waits are left out of cpu candidates (and counted). A thread
 * starting another waits in Thread.StartCore until the new one runs (the
 * cpu stage says so of documents it writes now; older ones counted it as
 * running). */
static int
is_wait(const char *method)
{
    static const char *const waits[] = {
        "Wait",  ".Sleep", "Semaphore", "SpinOnce",         ".Join",
        "epoll", "poll(",  "ReadKey",   "Thread.StartCore", "Thread.StartInternal"
    };

    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        if (strstr(method, waits[i]) != NULL)
            return 1;
    return 0;
}

/* "; col: value" for each of the source's extra columns that has a value. */
static void
extra_text(const cand_source *r, const json_t *table, const json_t *row, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < json_array_size(r->extra); k++) {
        const char *name = json_string_value(json_array_get(r->extra, k));
        int ci = name != NULL ? pp_cand_col(table, name) : -1;
        json_t *v = ci >= 0 ? json_array_get(row, (size_t)ci) : NULL;
        char val[1200];
        int w;

        if (json_is_string(v) && json_string_length(v) > 0)
            snprintf(val, sizeof val, "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        else
            continue;
        w = snprintf(buf + used, size - used, "; %s: %s", name, val);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

/* 1 when stage has a table of that name. */
/* The module of an application frame: its own row's in table, else the
 * stage's one application module. */
static void
app_module(const json_t *stage, const json_t *table, const char *col, const char *frame, char *buf,
           size_t size)
{
    int ti = pp_cand_col(table, col), mi = pp_cand_col(table, "module");
    const json_t *mods = pp_cand_table_obj(stage, "modules");
    size_t i;
    json_t *row;

    buf[0] = '\0';
    json_array_foreach(ti >= 0 && mi >= 0 ? json_object_get(table, "rows") : NULL, i, row)
        if (json_is_string(json_array_get(row, (size_t)ti)) &&
            strcmp(json_string_value(json_array_get(row, (size_t)ti)), frame) == 0 &&
            json_is_string(json_array_get(row, (size_t)mi))) {
            snprintf(buf, size, "%s", json_string_value(json_array_get(row, (size_t)mi)));
            return;
        }
    json_array_foreach(mods ? json_object_get(mods, "rows") : NULL, i, row) {
        const char *cls = json_string_value(
            json_array_get(row, (size_t)pp_cand_col(mods, "class")));
        if (cls != NULL && strcmp(cls, "application") == 0) {
            snprintf(buf, size, "%s", json_string_value(json_array_get(row, 0)));
            return;
        }
    }
}

/* A framework or package frame is never where a fix lands: its cost moves to
 * the application frame that calls it (the row's call site), the frame
 * itself kept as evidence; with no application caller it is a followup. */
static void
place(cand *c, const json_t *stage, const json_t *table)
{
    pp_lands *l = &c->lands;

    if (l->no_app) {
        c->dropped = 1;
        return;
    }
    if (strcmp(l->cls, "framework") != 0 && strcmp(l->cls, "package") != 0 && !l->dynamic)
        return;
    if (l->call_site[0] == '\0' || strcmp(l->call_site, c->target) == 0) {
        c->dropped = 1;
        return;
    }
    snprintf(c->orig_kind, sizeof c->orig_kind, "%s", l->dynamic ? "in-memory" : l->cls);
    snprintf(c->orig, sizeof c->orig, "%s", c->target);
    snprintf(c->target, sizeof c->target, "%s", l->call_site);
    snprintf(l->why, sizeof l->why,
             "the application frame that calls %s (%s, module %s): "
             "no change lands in %s code, the call does",
             c->orig, c->orig_kind, l->module, c->orig_kind);
    app_module(stage, table, c->r.target_col, c->target, l->module, sizeof l->module);
    snprintf(l->cls, sizeof l->cls, "application");
}

/* A command (a SQL text) run from an application frame: the fix lands in
 * that frame (the N+1 loop, the query it builds), so the frame is the
 * target and the command its evidence; the commands one frame runs add up. */
static void
place_command(cand *c)
{
    const pp_lands *l = &c->lands;

    if (strcmp(l->cls, "application") != 0 || l->call_site[0] == '\0' ||
        strcmp(l->call_site, c->target) == 0)
        return;
    snprintf(c->orig_kind, sizeof c->orig_kind, "command");
    snprintf(c->orig, sizeof c->orig, "%s", c->target);
    snprintf(c->target, sizeof c->target, "%s", l->call_site);
}

/* perfpipe took one of the document's inputs (engine.c writes
 * inputs[].captured_by): the advice names perfpipe's commands. */
static int
perfpipe_took(const json_t *doc)
{
    size_t i;
    json_t *in;

    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        const char *by = json_string_value(json_object_get(in, "captured_by"));
        if (by != NULL && strcmp(by, "perfpipe") == 0)
            return 1;
    }
    return 0;
}

/* Collect a table's candidate rows into *list. */
static int
collect(const cand_source *r, const json_t *doc, const pp_cand_unit *unit, const json_t *stage,
        const json_t *table, cand **list, size_t *n, size_t *cap, size_t *waits)
{
    int ti = pp_cand_col(table, r->target_col), fi = pp_cand_col(table, r->figure_col);
    int si = r->share_col ? pp_cand_col(table, r->share_col) : -1;
    int sti = r->growth_only ? pp_cand_col(table, r->growth_only) : -1;
    json_t *rows = json_object_get(table, "rows"), *row;
    double total = 0;
    size_t i;

    if (ti < 0 || fi < 0)
        return PP_OK;
    if (si < 0)
        json_array_foreach(rows, i, row) {
            double f = pp_cand_num(json_array_get(row, (size_t)fi));
            if (f > 0)
                total += f;
        }
    json_array_foreach(rows, i, row) {
        const char *target = json_string_value(json_array_get(row, (size_t)ti));
        double f = pp_cand_num(json_array_get(row, (size_t)fi));
        cand *c;

        /* Unresolved or aggregate rows point nowhere a fix can go. */
        if (target == NULL || target[0] == '[' || strncmp(target, "?!", 2) == 0 || f <= 0)
            continue;
        if (r->waits_filter && is_wait(target)) {
            (*waits)++;
            continue;
        }
        if (r->skip_if) {
            int ki = pp_cand_col(table, r->skip_if);
            const char *v = ki >= 0 ? json_string_value(json_array_get(row, (size_t)ki)) : NULL;
            if (v != NULL && v[0] != '\0')
                continue;
        }
        if (sti >= 0) {
            const char *st = json_string_value(json_array_get(row, (size_t)sti));
            if (st == NULL || (strcmp(st, "grew") != 0 && strcmp(st, "appeared") != 0))
                continue;
        }
        if (*n == *cap) {
            size_t ncap = *cap ? *cap * 2 : 64;
            cand *grown = realloc(*list, ncap * sizeof *grown);

            if (grown == NULL)
                return PP_ENOMEM;
            *list = grown;
            *cap = ncap;
        }
        c = &(*list)[(*n)++];
        memset(c, 0, sizeof *c);
        c->r = *r;
        c->unit = *unit;
        snprintf(c->target, sizeof c->target, "%s", target);
        c->figure = f;
        c->share = si >= 0   ? pp_cand_num(json_array_get(row, (size_t)si)) :
                   total > 0 ? 100.0 * f / total :
                               0;
        c->doc = doc;
        c->pipeline = json_string_value(json_object_get(doc, "pipeline"));
        c->knobs = json_object_get(doc, "knobs");
        c->stage = json_string_value(json_object_get(stage, "id"));
        c->stage_obj = stage;
        extra_text(r, table, row, c->extra, sizeof c->extra);
        pp_candidates_lands(stage, table, row, target, r->target_col, r->callers, r->heap_type,
                            perfpipe_took(doc), &c->lands);
        if (r->frame_target)
            place(c, stage, table);
        else if (r->callers != NULL)
            place_command(c);
    }
    return PP_OK;
}

/* The string member name of o, or NULL. */
static const char *
str_of(const json_t *o, const char *name)
{
    return json_string_value(json_object_get(o, name));
}

/* Where table's candidates come from, read from its declaration: 1, or 0
 * when it declares none (no subject, no cost figure, or a cost in a unit
 * that is neither ms nor bytes). */
static int
source_of(const json_t *table, cand_source *r)
{
    const json_t *decl = json_object_get(table, "decl"), *c = json_object_get(decl, "candidate");
    const json_t *figs = json_object_get(decl, "figures"), *cost, *f;
    const char *unit, *k;

    memset(r, 0, sizeof *r);
    r->table = str_of(table, "name");
    r->target_col = str_of(decl, "subject");
    r->figure_col = str_of(c, "cost");
    cost = r->figure_col != NULL ? json_object_get(figs, r->figure_col) : NULL;
    unit = str_of(cost, "unit");
    if (r->table == NULL || r->target_col == NULL || unit == NULL)
        return 0;
    if (strcmp(unit, "ms") == 0)
        r->measure = PP_CAND_MS;
    else if (strcmp(unit, "bytes") == 0)
        r->measure = PP_CAND_BYTES;
    else
        return 0;
    json_object_foreach((json_t *)figs, k, f)
        if (r->share_col == NULL && json_is_string(json_object_get(f, "unit")) &&
            strcmp(str_of(f, "unit"), "percent") == 0 && str_of(f, "axis") == NULL)
            r->share_col = k;
    r->axis = str_of(c, "label")   ? str_of(c, "label") :
              str_of(cost, "axis") ? str_of(cost, "axis") :
                                     "cost";
    r->cost_axis = str_of(cost, "axis");
    r->what = str_of(c, "does") ? str_of(c, "does") : "costs";
    r->growth_only = str_of(c, "status");
    r->superseded_by = str_of(c, "superseded_by");
    r->skip_if = str_of(c, "skip_if");
    r->extra = json_object_get(c, "evidence");
    r->stacks = str_of(c, "stacks");
    r->waits = str_of(c, "waits");
    r->callers = str_of(c, "callers");
    r->heap_type = json_is_true(json_object_get(c, "heap_type"));
    r->waits_filter = json_is_true(json_object_get(c, "no_waits"));
    r->frame_target = json_is_true(json_object_get(c, "frame"));
    r->rule_gated = json_is_true(json_object_get(c, "rule_gated"));
    return 1;
}

/* Every candidate row of every document, unsorted: each table that declares
 * how it gives candidates (a result written before declarations gives
 * none: run it again). */
static int
gather(const json_t *const *docs, size_t ndocs, cand **list, size_t *n, size_t *waits)
{
    size_t cap = 0;
    int rc = PP_OK;

    for (size_t d = 0; d < ndocs && rc == PP_OK; d++) {
        pp_cand_unit unit;
        size_t i, k;
        json_t *stage, *table;

        pp_cand_unit_of(docs[d], &unit);
        json_array_foreach(json_object_get(docs[d], "stages"), i, stage)
            json_array_foreach(json_object_get(stage, "tables"), k, table) {
                cand_source r;

                if (!source_of(table, &r) ||
                    (r.superseded_by && pp_cand_table_obj(stage, r.superseded_by) != NULL))
                    continue;
                if ((rc = collect(&r, docs[d], &unit, stage, table, list, n, &cap, waits)) != PP_OK)
                    break;
            }
    }
    return rc;
}

/* 1 when leaf is a wait: a known one, or one the stage's waits table (the
 * source's declared `waits`) names in its first column. */
static int
blocked_leaf(const json_t *stage, const char *waits, const char *leaf)
{
    size_t i;
    json_t *row;

    if (is_wait(leaf))
        return 1;
    json_array_foreach(json_object_get(waits ? pp_cand_table_obj(stage, waits) : NULL, "rows"), i,
                       row)
        if (json_is_string(json_array_get(row, 0)) &&
            strcmp(json_string_value(json_array_get(row, 0)), leaf) == 0)
            return 1;
    return 0;
}

/* Where frame starts in the ';'-joined stack st, at a frame boundary at or
 * after from; NULL when it is not there. */
static const char *
find_frame(const char *st, const char *from, const char *frame)
{
    size_t flen = strlen(frame);

    for (const char *p = strstr(from, frame); p != NULL; p = strstr(p + 1, frame))
        if ((p == st || p[-1] == ';') && (p[flen] == ';' || p[flen] == '\0'))
            return p;
    return NULL;
}

/* 1 when the ';'-joined stack st has frame at a frame boundary at or after
 * from; *at (if not NULL) gets where it ends. */
static int
has_frame(const char *st, const char *from, const char *frame, const char **at)
{
    const char *p = find_frame(st, from, frame);

    if (p != NULL && at != NULL)
        *at = p + strlen(frame);
    return p != NULL;
}

/* How many calls down from outer inner sits on stack st: from inner's first
 * frame below outer's first up to the nearest outer above it (recursion);
 * 0 when inner is not below outer there. */
static size_t
calls_below(const char *st, const char *outer, const char *inner)
{
    const char *after, *in, *near, *p;
    size_t calls = 0;

    if (!has_frame(st, st, outer, &after) || (in = find_frame(st, after, inner)) == NULL)
        return 0;
    near = after - strlen(outer);
    while ((p = find_frame(st, near + 1, outer)) != NULL && p < in)
        near = p;
    for (p = near; p < in; p++)
        calls += *p == ';';
    return calls;
}

/* Running time of the stacks through c's frame in its stage's by_stack,
 * blocked leaves left out, and stacks that reach another frame a rule
 * names deeper down left out too (the fix lands in the deepest one: a
 * lambda that calls BuildByConcat is not where string += is fixed). */
static double
inclusive_running(const cand *c, const cand *list, size_t n)
{
    const json_t *t = c->r.stacks ? pp_cand_table_obj(c->stage_obj, c->r.stacks) : NULL;
    size_t i;
    json_t *row;
    double ms = 0;

    json_array_foreach(t ? json_object_get(t, "rows") : NULL, i, row) {
        const char *st = json_string_value(json_array_get(row, 0)), *leaf, *after;
        int deeper = 0;

        if (st == NULL)
            continue;
        leaf = strrchr(st, ';') ? strrchr(st, ';') + 1 : st;
        if (blocked_leaf(c->stage_obj, c->r.waits, leaf) || !has_frame(st, st, c->target, &after))
            continue;
        for (size_t j = 0; j < n && !deeper; j++)
            deeper = list[j].named && &list[j] != c && list[j].stage_obj == c->stage_obj &&
                     has_frame(st, after, list[j].target, NULL);
        if (!deeper)
            ms += pp_cand_num(json_array_get(row, (size_t)pp_cand_col(t, "ms")));
    }
    return ms;
}

/* 1 when two documents read the same capture (their first inputs' hashes). */
static int
same_capture(const json_t *a, const json_t *b)
{
    const char *ha = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(a, "inputs"), 0), "hash"), "value"));
    const char *hb = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(b, "inputs"), 0), "hash"), "value"));

    return a == b || (ha != NULL && hb != NULL && strcmp(ha, hb) == 0);
}

/* 1 when r is a frame a rule names in another stage of c's capture that
 * has no row of its own in c's stage (its own code took no sample there:
 * tier 1 inlined it into a loop around an application callee, c): c's
 * time, on c's stacks under r, is then r's call's. */
static int
ruled_elsewhere(const cand *c, const cand *r, const cand *list, size_t n)
{
    if (!r->ruled || r->stage_obj == c->stage_obj || !same_capture(r->doc, c->doc))
        return 0;
    for (size_t k = 0; k < n; k++)
        if (list[k].stage_obj == c->stage_obj && list[k].dropped == 0 &&
            strcmp(list[k].target, r->target) == 0)
            return 0;
    return 1;
}

/* The named frame (index in list) whose calls hold at least 90 % of c's
 * running time (c is the application callee that first touches a fresh
 * buffer, or the work done under a contended lock), or n: the fix of that
 * frame changes c's cost, so c is its evidence, not a cause of its own.
 * Where several named frames hold it (a loop that calls a named method that
 * calls c), the nearest one on the stacks: c's time is that call's. */
static size_t
called_under(const cand *c, const cand *list, size_t n)
{
    const json_t *t = c->r.stacks ? pp_cand_table_obj(c->stage_obj, c->r.stacks) : NULL;
    const json_t *rows = json_object_get(t, "rows");
    int mi = pp_cand_col(t, "ms");
    double all = 0, best_calls = 0;
    size_t i, best = n;
    json_t *row;

    if (t == NULL || mi < 0 || c->named || c->dropped)
        return n;
    json_array_foreach(rows, i, row) {
        const char *st = json_string_value(json_array_get(row, 0));

        if (st != NULL && has_frame(st, st, c->target, NULL) &&
            !blocked_leaf(c->stage_obj, c->r.waits, strrchr(st, ';') ? strrchr(st, ';') + 1 : st))
            all += pp_cand_num(json_array_get(row, (size_t)mi));
    }
    for (size_t j = 0; j < n && all > 0; j++) {
        double under = 0, calls = 0; /* calls: ms-weighted calls down from j to c */

        if (&list[j] == c || !(list[j].named ? list[j].stage_obj == c->stage_obj :
                                               ruled_elsewhere(c, &list[j], list, n)))
            continue;
        json_array_foreach(rows, i, row) {
            const char *st = json_string_value(json_array_get(row, 0));
            double ms = pp_cand_num(json_array_get(row, (size_t)mi));
            size_t down = st != NULL ? calls_below(st, list[j].target, c->target) : 0;

            if (down == 0 || blocked_leaf(c->stage_obj, c->r.waits,
                                          strrchr(st, ';') ? strrchr(st, ';') + 1 : st))
                continue;
            under += ms;
            calls += ms * (double)down;
        }
        if (under >= 0.9 * all && (best == n || calls / under < best_calls)) {
            best = j;
            best_calls = calls / under;
        }
    }
    return best;
}

/* 1 when a rule names c's target in any stage of a result of c's capture
 * (the alloc result names a frame the cpu result ranks). */
static int
named_in_doc(const cand *c, const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
             pp_ev_cache *cache)
{
    const pp_rule *h[MAX_HITS];
    size_t i;
    json_t *s;

    for (size_t d = 0; d < ndocs; d++) {
        if (!same_capture(docs[d], c->doc))
            continue;
        json_array_foreach(json_object_get(docs[d], "stages"), i, s)
            if (pp_rules_for_target(rules, cache, docs, ndocs, s, c->target, h, MAX_HITS) > 0)
                return 1;
    }
    return 0;
}

/* c's time is the call of r, a frame a rule names in another stage with no
 * row in c's (ruled_elsewhere): c becomes r's row in its stage, c's frame
 * its evidence, so that r ranks by the time its call holds. */
static void
move_under(cand *c, const cand *r)
{
    snprintf(c->orig_kind, sizeof c->orig_kind, "application");
    snprintf(c->orig, sizeof c->orig, "%s", c->target);
    snprintf(c->target, sizeof c->target, "%s", r->target);
    snprintf(c->lands.why, sizeof c->lands.why,
             "the application frame a rule names whose calls hold the time of %s (its callee, "
             "also application code): the fix of that call changes it",
             c->orig);
    snprintf(c->lands.call_site, sizeof c->lands.call_site, "%s", r->target);
}

/* Waits are candidates only where a rule names them a cause a change
 * removes; the others are left out (dropped 2) and counted. Then every
 * kept row gets its cost. */
static void
judge(cand *list, size_t n, const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
      pp_ev_cache *cache, double ms_per_mib, size_t *waits)
{
    for (size_t i = 0; i < n; i++) {
        cand *c = &list[i];
        const pp_rule *h[MAX_HITS];

        if (c->r.rule_gated && c->dropped == 0 &&
            (rules == NULL ||
             pp_rules_for_target(rules, cache, docs, ndocs, c->stage_obj,
                                 c->orig[0] ? c->orig : c->target, h, MAX_HITS) == 0))
            c->dropped = 2;
        if (c->r.rule_gated && c->dropped != 0)
            (*waits)++;
        c->named = c->dropped == 0 && rules != NULL && c->r.stacks != NULL && c->orig[0] == '\0' &&
                   named_in_doc(c, docs, ndocs, rules, cache);
        c->ruled = c->dropped == 0 && rules != NULL && c->r.stacks == NULL && c->r.frame_target &&
                   c->orig[0] == '\0' && named_in_doc(c, docs, ndocs, rules, cache);
    }
    /* A fix shape changes the frame's whole call (a fresh LOH buffer makes
     * the application callee that first touches it slow): a frame a rule
     * names costs its inclusive running time. */
    for (size_t i = 0; i < n; i++) {
        cand *c = &list[i];
        double inc = c->named ? inclusive_running(c, list, n) : 0;

        if (inc > c->figure) {
            c->figure = inc;
            c->inclusive = 1;
        }
        c->cost = pp_cand_cost(c->r.measure, c->figure, &c->unit, ms_per_mib);
    }
    /* every answer first: a callee moved to its caller's name is no row of
     * that caller's for the next one */
    for (size_t i = 0; i < n; i++)
        list[i].held_by = called_under(&list[i], list, n);
    for (size_t i = 0; i < n; i++) {
        size_t j = list[i].held_by;

        if (j < n && list[j].stage_obj != list[i].stage_obj) {
            move_under(&list[i], &list[j]);
        } else if (j < n) {
            size_t used = strlen(list[j].absorbed);

            snprintf(list[j].absorbed + used, sizeof list[j].absorbed - used, "%s%s",
                     used ? ", " : "", list[i].target);
            list[i].dropped = 3;
        }
    }
}

int
pp_candidates(const json_t *const *docs, size_t ndocs, size_t top, const pp_ruleset *rules,
              double alloc_ms_per_mib, json_t **out, pp_error *err)
{
    enum { P = PP_COL_FLAG_PROSE };
    static const pp_column ccols[] = {
        { "rank", PP_COL_COUNT, 0 },       { "axis", PP_COL_STRING, 0 },
        { "target", PP_COL_STRING, 0 },    { "figure", PP_COL_STRING, 0 },
        { "share", PP_COL_PERCENT, 0 },    { "evidence", PP_COL_STRING, P },
        { "verify", PP_COL_STRING, P },    { "rules", PP_COL_STRING, 0 },
        { "fix", PP_COL_STRING, P },       { "module", PP_COL_STRING, 0 },
        { "lands", PP_COL_STRING, 0 },     { "call_site", PP_COL_STRING, 0 },
        { "lands_why", PP_COL_STRING, P }, { "cost", PP_COL_NUMBER, 0 },
        { "cost_unit", PP_COL_STRING, 0 }, { "per_unit", PP_COL_STRING, P },
    };
    static const pp_column fcols[] = {
        { "source", PP_COL_STRING, 0 },
        { "severity", PP_COL_STRING, 0 },
        { "code", PP_COL_STRING, 0 },
        { "message", PP_COL_STRING, P },
    };
    static const pp_column rcols[] = {
        { "source", PP_COL_STRING, 0 },   { "rule", PP_COL_STRING, 0 },
        { "severity", PP_COL_STRING, 0 }, { "confidence", PP_COL_STRING, 0 },
        { "message", PP_COL_STRING, P },
    };
    cand *list = NULL;
    group *groups = NULL;
    size_t n = 0, ng = 0, waits = 0;
    json_t *doc = NULL, *stage = NULL, *row_rules = json_array(), *row_lands = json_array();
    pp_table_set set = { NULL, NULL };
    pp_table *t = NULL, *f = NULL, *rf = NULL;
    pp_ev_cache *cache = pp_ev_cache_new();
    int rc = PP_ENOMEM;

    *out = NULL;
    if (!(alloc_ms_per_mib > 0))
        alloc_ms_per_mib = PP_CAND_ALLOC_MS_PER_MIB;
    if (row_rules == NULL || row_lands == NULL || cache == NULL ||
        gather(docs, ndocs, &list, &n, &waits) != PP_OK)
        goto oom;
    judge(list, n, docs, ndocs, rules, cache, alloc_ms_per_mib, &waits);
    if (n > 1) /* list is NULL when nothing qualified */
        qsort(list, n, sizeof *list, pp_cand_by_target);
    if ((groups = pp_cand_groups(list, n, &ng)) == NULL)
        goto oom;
    doc = pp_result_new("candidates");
    stage = doc ? pp_result_add_stage(doc, "candidates", "candidates", pp_version()) : NULL;
    t = stage ? pp_result_table_new(&set, stage, "candidates", 16, ccols, 13, err) : NULL;
    f = t ? pp_result_table_new(&set, stage, "followups", 4, fcols, 3, err) : NULL;
    rf = f ? pp_result_table_new(&set, stage, "rule_findings", 5, rcols, 2, err) : NULL;
    if (rf == NULL)
        goto oom;
    rc = pp_cand_emit_candidates(list, groups, ng, top, docs, ndocs, rules, cache, t, row_rules,
                                 row_lands, err);
    if (rc == PP_OK)
        rc = pp_cand_emit_followups(docs, ndocs, f, err);
    if (rc == PP_OK)
        rc = pp_cand_emit_dropped(list, n, f, err);
    if (rc == PP_OK)
        rc = pp_cand_emit_rule_findings(docs, ndocs, rules, cache, rf, err);
    pp_result_total_int(stage, "candidates", PP_COL_COUNT, (int64_t)(ng < top ? ng : top));
    pp_result_tables_release(&set);
    pp_ev_cache_free(cache);
    free(list);
    free(groups);
    /* One list of {id, fix, confidence, doc, experimental} per candidate
     * row, in row order (CONTRACTS: "rules" of each candidate). */
    json_object_set_new(pp_cand_table_obj(stage, "candidates"), "row_rules", row_rules);
    /* and where each one's fix lands: {module, class, call_site, why}
     * (CONTRACTS: "lands"; docs/landing.md) */
    json_object_set_new(pp_cand_table_obj(stage, "candidates"), "row_lands", row_lands);
    if (rc != PP_OK) {
        json_decref(doc);
        return rc;
    }
    pp_cand_describe_scale(stage, docs, ndocs, alloc_ms_per_mib);
    if (waits > 0) {
        char msg[512];

        snprintf(msg, sizeof msg,
                 "%zu wait%s (blocking calls: reads, polls, WaitOne, "
                 "Monitor.Wait, semaphores, sleeps) left out: thread-time sampling counts blocked "
                 "time, which no change to the waiting method removes unless a rule names the "
                 "wait a cause (sync over async, lock contention); the cpu stage's `waiting` "
                 "table lists them; async waits are invisible to it — use the db analyzer or "
                 "spans for wall time",
                 waits, waits == 1 ? "" : "s");
        pp_result_finding(stage, PP_SEVERITY_INFO, "candidates.waits_left_out", msg);
    }
    if (ng == 0)
        pp_result_finding(stage, PP_SEVERITY_INFO, "candidates.none",
                          "no candidate: the results hold no alloc, cpu, db or gcdump-diff rows "
                          "that point at application code, a command or a type");
    *out = doc;
    return PP_OK;
oom:
    pp_result_tables_release(&set);
    free(list);
    free(groups);
    json_decref(doc);
    json_decref(row_rules);
    json_decref(row_lands);
    pp_ev_cache_free(cache);
    if (err != NULL && err->code == PP_OK)
        pp_error_set(err, PP_ENOMEM, "out of memory ranking candidates");
    return err ? err->code : PP_ENOMEM;
}
