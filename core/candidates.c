/* Ranked optimization candidates from one or more results. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates.h"
#include "candidates_bench.h"
#include "candidates_lands.h"
#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

/* Where each analyzer's candidates come from. share_col NULL: the share is
 * the row's figure over the sum of the table's positive figures. */
typedef struct cand_source {
    const char *analyzer;
    const char *table;
    const char *target_col;
    const char *figure_col;
    const char *share_col;
    int figure_is_ms;            /* a PP_COL_NUMBER in milliseconds */
    const char *axis;
    const char *what;            /* what the target does, for the evidence text */
    const char *growth_only;     /* status column: keep grew/appeared rows only */
    const char *superseded_by;   /* skip this source where the stage has that table */
    const char *skip_if;         /* skip rows whose string in this column is not empty */
    const char *const *extra;    /* columns quoted in the evidence, NULL-terminated */
    int waits_filter;            /* leave out rows naming a known wait */
} cand_source;

static const char *const growth_extra[] = { "count_delta", "payload", "path", NULL };
static const char *const running_extra[] = { "samples", NULL };

static const cand_source sources[] = {
    { "alloc", "by_frame", "frame", "bytes", "share", 0, "allocation churn",
      "allocates (sampled)", NULL, NULL, NULL, NULL, 0 },
    /* cpu: running samples only, by responsible method (blocked.c); results
     * written before the split fall back to by_method without known waits. */
    { "cpu", "running", "method", "ms", "share", 1, "time (running thread samples)",
      "runs (thread time while running, waits excluded, framework callees included)", NULL,
      NULL, NULL, running_extra, 0 },
    { "cpu", "by_method", "method", "exclusive_ms", "share", 1, "time (thread samples)",
      "runs itself (exclusive thread time)", NULL, "running", NULL, NULL, 1 },
    { "db", "by_command", "command", "total_ms", "share", 1, "time (database wall time)",
      "spends in the database", NULL, NULL, NULL, NULL, 0 },
    /* gc: the application frame that induces GCs, by the pause they cost */
    { "gc", "induced_callers", "frame", "pause_ms", NULL, 1, "time (GC pauses it induces)",
      "pauses the process in the GCs it induces (GC.Collect)", NULL, NULL, NULL, NULL, 0 },
    /* heap: by retained growth, owners only (a payload is its owner's evidence) */
    { "gcdump-diff", "growth", "type", "retained_delta", "share", 0, "footprint (heap growth)",
      "holds more on the heap (retained growth)", NULL, NULL, "owned_by", growth_extra, 0 },
    { "gcdump-diff", "by_type", "type", "bytes_delta", NULL, 0, "footprint (heap growth)",
      "grew on the heap by", "status", "growth", NULL, NULL, 0 },
};

/* Thread time spent blocked is not work a change can remove from that
 * method: waits are left out of cpu candidates (and counted). */
static int
is_wait(const char *method)
{
    static const char *const waits[] = { "Wait", ".Sleep", "Semaphore", "SpinOnce", ".Join",
                                         "epoll", "poll(", "ReadKey" };

    for (size_t i = 0; i < sizeof waits / sizeof waits[0]; i++)
        if (strstr(method, waits[i]) != NULL)
            return 1;
    return 0;
}

typedef struct cand {
    const cand_source *r;
    char target[512];
    double figure;
    double share;
    const char *pipeline;
    const json_t *knobs;
    const char *stage;
    const json_t *stage_obj;
    char extra[1536];            /* quoted columns (source->extra) */
    pp_lands lands;              /* where the fix lands (candidates_lands.c) */
} cand;

static int
column_index(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(table, "columns"), i, c)
        if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
            return (int)i;
    return -1;
}

static double
num(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : 0;
}

static int
by_share(const void *a, const void *b)
{
    const cand *x = a, *y = b;

    if (x->share != y->share)
        return x->share < y->share ? 1 : -1;
    return x->figure < y->figure ? 1 : x->figure > y->figure ? -1 : 0;
}

static void
figure_text(const cand *c, char *buf, size_t size)
{
    if (c->r->figure_is_ms)
        pp_format_duration_ns(buf, size, c->figure * 1e6);
    else
        pp_format_bytes(buf, size, c->figure);
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

/* "; col: value" for each of the source's extra columns that has a value. */
static void
extra_text(const cand_source *r, const json_t *table, const json_t *row, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t k = 0; r->extra != NULL && r->extra[k] != NULL; k++) {
        int ci = column_index(table, r->extra[k]);
        json_t *v = ci >= 0 ? json_array_get(row, (size_t)ci) : NULL;
        char val[1200];
        int w;

        if (json_is_string(v) && json_string_length(v) > 0)
            snprintf(val, sizeof val, "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        else
            continue;
        w = snprintf(buf + used, size - used, "; %s: %s", r->extra[k], val);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}

/* Rows of the stage's `waiting` table (the waits a cpu stage set aside). */
static size_t
waiting_rows(const json_t *stage)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), "waiting") == 0)
            return json_array_size(json_object_get(t, "rows"));
    return 0;
}

/* 1 when stage has a table of that name. */
static int
has_table(const json_t *stage, const char *name)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return 1;
    return 0;
}

/* Collect a table's candidate rows into *list. */
static int
collect(const cand_source *r, const json_t *doc, const json_t *stage, const json_t *table, cand **list,
        size_t *n, size_t *cap, size_t *waits)
{
    int ti = column_index(table, r->target_col), fi = column_index(table, r->figure_col);
    int si = r->share_col ? column_index(table, r->share_col) : -1;
    int sti = r->growth_only ? column_index(table, r->growth_only) : -1;
    json_t *rows = json_object_get(table, "rows"), *row;
    double total = 0;
    size_t i;

    if (ti < 0 || fi < 0)
        return PP_OK;
    if (si < 0)
        json_array_foreach(rows, i, row) {
            double f = num(json_array_get(row, (size_t)fi));
            if (f > 0)
                total += f;
        }
    json_array_foreach(rows, i, row) {
        const char *target = json_string_value(json_array_get(row, (size_t)ti));
        double f = num(json_array_get(row, (size_t)fi));
        cand *c;

        /* Unresolved or aggregate rows point nowhere a fix can go. */
        if (target == NULL || target[0] == '[' || strncmp(target, "?!", 2) == 0 || f <= 0)
            continue;
        if (r->waits_filter && is_wait(target)) {
            (*waits)++;
            continue;
        }
        if (r->skip_if) {
            int ki = column_index(table, r->skip_if);
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
        c->r = r;
        snprintf(c->target, sizeof c->target, "%s", target);
        c->figure = f;
        c->share = si >= 0 ? num(json_array_get(row, (size_t)si)) : total > 0 ? 100.0 * f / total : 0;
        c->pipeline = json_string_value(json_object_get(doc, "pipeline"));
        c->knobs = json_object_get(doc, "knobs");
        c->stage = json_string_value(json_object_get(stage, "id"));
        c->stage_obj = stage;
        extra_text(r, table, row, c->extra, sizeof c->extra);
        pp_candidates_lands(stage, table, row, target, &c->lands);
    }
    return PP_OK;
}

/* "id (confidence), ..." and "fix (confidence c; doc) | ..." of the rules
 * a candidate carries, and their {id, fix, confidence, doc} list. */
static json_t *
rule_cells(const pp_rule *const *hits, size_t nhits, char *ids, size_t isize, char *fix,
           size_t fsize)
{
    json_t *arr = json_array();
    size_t iu = 0, fu = 0;

    if (nhits == 0) {
        snprintf(ids, isize, "none matched");
        snprintf(fix, fsize, "no rule matched: no known antipattern in this evidence (docs/rules.md "
                 "says how to teach perfpipe your own)");
    } else {
        ids[0] = fix[0] = '\0';
    }
    for (size_t h = 0; h < nhits; h++) {
        const pp_rule *r = hits[h];
        int w = snprintf(ids + iu, isize - iu, "%s%s (%s)", h ? ", " : "", r->id, r->confidence);

        iu += w > 0 && (size_t)w < isize - iu ? (size_t)w : 0;
        w = snprintf(fix + fu, fsize - fu, "%s%s: %s (confidence %s; %s)", h ? " | " : "", r->id,
                     r->fix, r->confidence, r->doc);
        fu += w > 0 && (size_t)w < fsize - fu ? (size_t)w : 0;
        json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s}", "id", r->id, "fix", r->fix,
                                             "confidence", r->confidence, "doc", r->doc));
    }
    return arr;
}

/* The table object `name` of stage (to add row-aligned data to it). */
static json_t *
stage_table_obj(json_t *stage, const char *name)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return t;
    return NULL;
}

#define MAX_HITS 16

static int
emit_candidates(const cand *list, size_t n, size_t top, const json_t *const *docs, size_t ndocs,
                const pp_ruleset *rules, pp_ev_cache *cache, pp_table *t, json_t *row_rules,
                json_t *row_lands, pp_error *err)
{
    int rc = PP_OK;

    for (size_t i = 0; i < n && i < top && rc == PP_OK; i++) {
        const cand *c = &list[i];
        const pp_rule *hits[MAX_HITS];
        size_t nhits = rules ? pp_rules_for_target(rules, cache, docs, ndocs, c->stage_obj,
                                                   c->target, hits, MAX_HITS) : 0;
        char fig[64], evidence[3072], verify[2048], knobs[1024], ids[1024], fix[4096];
        pp_cell row[13];

        figure_text(c, fig, sizeof fig);
        snprintf(evidence, sizeof evidence, "%s %s %s (%.1f%% of the stage's %s) — stage '%s', "
                 "table %s%s", c->target, c->r->what, fig, c->share, c->r->axis, c->stage,
                 c->r->table, c->extra);
        knob_args(c->knobs, knobs, sizeof knobs);
        snprintf(verify, sizeof verify, "rerun `perfpipe run %s --input ...%s` on a capture of the "
                 "changed build and `perfpipe compare` it with this result: confirmed when '%s' "
                 "disappears from %s (structural), or its %s falls beyond noise in a same-session "
                 "A/B with identical knobs (statistical)", c->pipeline ? c->pipeline : "PIPELINE",
                 knobs, c->target, c->r->table, c->r->figure_col);
        pp_candidates_bench_plan(c->knobs, c->r->axis, c->target, verify, sizeof verify);
        json_array_append_new(row_rules, rule_cells(hits, nhits, ids, sizeof ids, fix, sizeof fix));
        row[0] = pp_cell_int((int64_t)i + 1);
        row[1] = pp_cell_str(c->r->axis);
        row[2] = pp_cell_str(c->target);
        row[3] = pp_cell_str(fig);
        row[4] = pp_cell_dbl(c->share);
        row[5] = pp_cell_str(evidence);
        row[6] = pp_cell_str(verify);
        row[7] = pp_cell_str(ids);
        row[8] = pp_cell_str(fix);
        row[9] = pp_cell_str(c->lands.module);
        row[10] = pp_cell_str(c->lands.cls);
        row[11] = pp_cell_str(c->lands.call_site);
        row[12] = pp_cell_str(c->lands.why);
        json_array_append_new(row_lands, json_pack("{s:s,s:s,s:s,s:s}", "module", c->lands.module,
                                                   "class", c->lands.cls, "call_site",
                                                   c->lands.call_site, "why", c->lands.why));
        rc = pp_result_table_row(t, row, err);
    }
    return rc;
}

/* Tooling follow-ups: every warning or error the inputs raised (rule
 * findings go to rule_findings, judged with the rules in force). */
static int
emit_followups(const json_t *const *docs, size_t ndocs, pp_table *f, pp_error *err)
{
    int rc = PP_OK;

    for (size_t d = 0; d < ndocs && rc == PP_OK; d++) {
        size_t i, k;
        json_t *s, *fd;

        json_array_foreach(json_object_get(docs[d], "stages"), i, s)
            json_array_foreach(json_object_get(s, "findings"), k, fd) {
                const char *sev = json_string_value(json_object_get(fd, "severity"));
                const char *code = json_string_value(json_object_get(fd, "code"));
                char source[256];
                pp_cell row[4];

                if (sev == NULL || strcmp(sev, "info") == 0 ||
                    (code != NULL && strncmp(code, "rule.", 5) == 0))
                    continue;
                snprintf(source, sizeof source, "%s/%s",
                         json_string_value(json_object_get(docs[d], "pipeline")),
                         json_string_value(json_object_get(s, "id")));
                row[0] = pp_cell_str(source);
                row[1] = pp_cell_str(sev);
                row[2] = pp_cell_str(code);
                row[3] = pp_cell_str(json_string_value(json_object_get(fd, "message")));
                if ((rc = pp_result_table_row(f, row, err)) != PP_OK)
                    break;
            }
    }
    return rc;
}

typedef struct finding_job {
    pp_table *t;
    const char *source;
    pp_error *err;
    int rc;
} finding_job;

static void
add_rule_finding(void *user, const pp_rule *r, const char *text)
{
    finding_job *j = user;
    pp_cell row[5];

    if (j->rc != PP_OK)
        return;
    row[0] = pp_cell_str(j->source);
    row[1] = pp_cell_str(r->id);
    row[2] = pp_cell_str(r->finding == PP_RULE_FINDING_WARNING ? "warning" : "info");
    row[3] = pp_cell_str(r->confidence);
    row[4] = pp_cell_str(text);
    j->rc = pp_result_table_row(j->t, row, j->err);
}

/* Rules that report on their own, over every stage of the inputs. */
static int
emit_rule_findings(const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
                   pp_ev_cache *cache, pp_table *t, pp_error *err)
{
    finding_job job = { t, NULL, err, PP_OK };

    for (size_t d = 0; d < ndocs && rules != NULL && job.rc == PP_OK; d++) {
        size_t i;
        json_t *s;

        json_array_foreach(json_object_get(docs[d], "stages"), i, s) {
            char source[256];

            snprintf(source, sizeof source, "%s/%s",
                     json_string_value(json_object_get(docs[d], "pipeline")),
                     json_string_value(json_object_get(s, "id")));
            job.source = source;
            pp_rules_stage_findings(rules, cache, docs, ndocs, s, add_rule_finding, &job);
        }
    }
    return job.rc;
}

/* Every candidate row of every document, unsorted. */
static int
gather(const json_t *const *docs, size_t ndocs, cand **list, size_t *n, size_t *waits)
{
    size_t cap = 0;
    int rc = PP_OK;

    for (size_t d = 0; d < ndocs && rc == PP_OK; d++) {
        size_t i;
        json_t *stage;

        json_array_foreach(json_object_get(docs[d], "stages"), i, stage) {
            const char *an = json_string_value(json_object_get(json_object_get(stage, "analyzer"), "name"));
            size_t k;
            json_t *table;

            if (an == NULL)
                continue;
            for (size_t r = 0; r < sizeof sources / sizeof sources[0] && rc == PP_OK; r++) {
                if (strcmp(sources[r].analyzer, an) != 0 ||
                    (sources[r].superseded_by && has_table(stage, sources[r].superseded_by)))
                    continue;
                if (strcmp(sources[r].table, "running") == 0)
                    *waits += waiting_rows(stage);
                json_array_foreach(json_object_get(stage, "tables"), k, table)
                    if (strcmp(json_string_value(json_object_get(table, "name")), sources[r].table) == 0 &&
                        (rc = collect(&sources[r], docs[d], stage, table, list, n, &cap,
                                      waits)) != PP_OK)
                        break;
            }
        }
    }
    return rc;
}

int
pp_candidates(const json_t *const *docs, size_t ndocs, size_t top, const pp_ruleset *rules,
              json_t **out, pp_error *err)
{
    static const pp_column ccols[] = {
        { "rank", PP_COL_COUNT, 0 },        { "axis", PP_COL_STRING, 0 },
        { "target", PP_COL_STRING, 0 },     { "figure", PP_COL_STRING, 0 },
        { "share", PP_COL_PERCENT, 0 },     { "evidence", PP_COL_STRING, 0 },
        { "verify", PP_COL_STRING, 0 },     { "rules", PP_COL_STRING, 0 },
        { "fix", PP_COL_STRING, 0 },
        { "module", PP_COL_STRING, 0 },     { "lands", PP_COL_STRING, 0 },
        { "call_site", PP_COL_STRING, 0 },  { "lands_why", PP_COL_STRING, 0 },
    };
    static const pp_column fcols[] = {
        { "source", PP_COL_STRING, 0 }, { "severity", PP_COL_STRING, 0 },
        { "code", PP_COL_STRING, 0 },   { "message", PP_COL_STRING, 0 },
    };
    static const pp_column rcols[] = {
        { "source", PP_COL_STRING, 0 },     { "rule", PP_COL_STRING, 0 },
        { "severity", PP_COL_STRING, 0 },   { "confidence", PP_COL_STRING, 0 },
        { "message", PP_COL_STRING, 0 },
    };
    cand *list = NULL;
    size_t n = 0, waits = 0;
    json_t *doc, *stage, *row_rules = json_array(), *row_lands = json_array();
    pp_table_set set = { NULL, NULL };
    pp_table *t, *f, *rf;
    pp_ev_cache *cache = pp_ev_cache_new();
    int rc;

    *out = NULL;
    if (row_rules == NULL || row_lands == NULL || cache == NULL ||
        (rc = gather(docs, ndocs, &list, &n, &waits)) != PP_OK) {
        free(list);
        json_decref(row_rules);
        json_decref(row_lands);
        pp_ev_cache_free(cache);
        pp_error_set(err, PP_ENOMEM, "out of memory ranking candidates");
        return PP_ENOMEM;
    }
    if (n > 1)                  /* list is NULL when nothing qualified */
        qsort(list, n, sizeof *list, by_share);

    doc = pp_result_new("candidates");
    stage = doc ? pp_result_add_stage(doc, "candidates", "candidates", pp_version()) : NULL;
    t = stage ? pp_result_table_new(&set, stage, "candidates", 13, ccols, 1, err) : NULL;
    f = t ? pp_result_table_new(&set, stage, "followups", 4, fcols, 3, err) : NULL;
    rf = f ? pp_result_table_new(&set, stage, "rule_findings", 5, rcols, 2, err) : NULL;
    if (rf == NULL) {
        pp_result_tables_release(&set);
        free(list);
        json_decref(doc);
        json_decref(row_rules);
        json_decref(row_lands);
        pp_ev_cache_free(cache);
        if (err != NULL && err->code == PP_OK)
            pp_error_set(err, PP_ENOMEM, "out of memory");
        return err ? err->code : PP_ENOMEM;
    }
    rc = emit_candidates(list, n, top, docs, ndocs, rules, cache, t, row_rules, row_lands, err);
    if (rc == PP_OK)
        rc = emit_followups(docs, ndocs, f, err);
    if (rc == PP_OK)
        rc = emit_rule_findings(docs, ndocs, rules, cache, rf, err);
    pp_result_total_int(stage, "candidates", PP_COL_COUNT, (int64_t)(n < top ? n : top));
    pp_result_tables_release(&set);
    pp_ev_cache_free(cache);
    free(list);
    /* One list of {id, fix, confidence, doc} per candidate row, in row
     * order (CONTRACTS: "rules" of each candidate). */
    json_object_set_new(stage_table_obj(stage, "candidates"), "row_rules", row_rules);
    /* and where each one's fix lands: {module, class, call_site, why}
     * (CONTRACTS: "lands"; docs/landing.md) */
    json_object_set_new(stage_table_obj(stage, "candidates"), "row_lands", row_lands);
    if (rc != PP_OK) {
        json_decref(doc);
        return rc;
    }
    if (waits > 0) {
        char msg[512];

        snprintf(msg, sizeof msg, "%zu wait%s (blocking calls: reads, polls, WaitOne, "
                 "Monitor.Wait, semaphores, sleeps) left out: thread-time sampling counts blocked "
                 "time, which no change to the waiting method removes (the cpu stage's `waiting` "
                 "table lists them); async waits are invisible to it — use the db analyzer or "
                 "spans for wall time", waits, waits == 1 ? "" : "s");
        pp_result_finding(stage, PP_SEVERITY_INFO, "candidates.waits_left_out", msg);
    }
    if (n == 0)
        pp_result_finding(stage, PP_SEVERITY_INFO, "candidates.none",
                          "no candidate: the results hold no alloc, cpu, db or gcdump-diff rows "
                          "that point at code or a type");
    *out = doc;
    return PP_OK;
}
