/* Comparing two result documents of the same pipeline (A/B): the checks
 * that make two runs comparable, whether either side can be judged at all,
 * and the walk over stages and tables (join, classify and emit live in
 * compare_join.c, compare_classify.c and compare_emit.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare.h"
#include "buildid.h"
#include "compare_internal.h"
#include "compare_quantile.h"
#include "compare_stats.h"
#include "load/kind.h"
#include "result/result.h"

static int
major_of(const char *version)
{
    return version != NULL ? atoi(version) : -1;
}

/* Knobs must be identical: a result is only relative to its knobs. */
static int
check_knobs(const json_t *a, const json_t *b, char *diff, size_t size)
{
    const char *k;
    json_t *v;
    size_t used = 0;
    int n = 0;

    diff[0] = '\0';
    json_object_foreach((json_t *)a, k, v) {
        json_t *w = json_object_get(b, k);

        if (w == NULL || !json_equal(v, w)) {
            used += (size_t)snprintf(diff + used, used < size ? size - used : 0, "%s%s (%s vs %s)",
                                     n++ ? ", " : "", k, json_string_value(v),
                                     w ? json_string_value(w) : "unset");
        }
    }
    json_object_foreach((json_t *)b, k, v) {
        if (json_object_get(a, k) == NULL)
            used += (size_t)snprintf(diff + used, used < size ? size - used : 0,
                                     "%s%s (unset vs %s)", n++ ? ", " : "", k,
                                     json_string_value(v));
    }
    return n;
}

static void
add_reason(json_t *reasons, const char *side, const char *what, const char *detail)
{
    char line[512];

    snprintf(line, sizeof line, "%s %s: %s", side, what, detail);
    json_array_append_new(reasons, json_string(line));
}

static int64_t
int_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

/* Tables of stage st whose rows repeat a key: the join by key would pair
 * an arbitrary one of them (or call the others appeared/disappeared), so
 * no verdict rests on them (result.duplicate_key, plugin.h). */
static void
ambiguous_keys(const json_t *st, const char *side, const char *sid, json_t *reasons)
{
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        pp_key_repeats k;
        char what[160], buf[320];

        if (pp_result_key_repeats(t, &k) != PP_OK) {
            add_reason(reasons, side, "result", "out of memory checking its tables' keys");
            return;
        }
        if (k.repeats == 0)
            continue;
        snprintf(what, sizeof what, "stage %s table %s", sid,
                 json_string_value(json_object_get(t, "name")) ?
                     json_string_value(json_object_get(t, "name")) :
                     "?");
        snprintf(buf, sizeof buf, "%zu row%s repeat%s a key (first %.200s): rows cannot be joined",
                 k.repeats, k.repeats == 1 ? "" : "s", k.repeats == 1 ? "s" : "", k.first_key);
        free(k.first_key);
        add_reason(reasons, side, what, buf);
    }
}

/* What makes one side's figures untrustworthy: an input that was cut,
 * damaged or lost events (`inputs[].damage`, or the reader's own facts
 * where damage is not recorded yet), a stage that is not "ok", or a table
 * whose key is ambiguous. */
static void
damage_of(const json_t *doc, const char *side, json_t *reasons)
{
    static const char *const counts[] = { "dropped_events", "repeated_blocks", "reordered_blocks",
                                          "missing_blocks", "sequence_gaps" };
    const json_t *in, *st;
    size_t i;
    char buf[256];

    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        const char *path = json_string_value(json_object_get(in, "path"));
        const json_t *dmg = json_object_get(in, "damage"), *nt = json_object_get(in, "nettrace");
        const json_t *cut = json_object_get(dmg, "truncated_at");

        if (!json_is_integer(cut))
            cut = json_object_get(nt, "truncated_at");
        if (json_is_integer(cut)) {
            snprintf(buf, sizeof buf, "truncated at byte %lld", (long long)json_integer_value(cut));
            add_reason(reasons, side, path ? path : "input", buf);
        }
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int64_t n = int_of(dmg, counts[k]);

            if (n == 0 && k == 0)
                n = int_of(nt, "dropped_events");
            if (n > 0) {
                snprintf(buf, sizeof buf, "%lld %s", (long long)n, counts[k]);
                for (char *p = buf; *p; p++)
                    *p = *p == '_' ? ' ' : *p;
                add_reason(reasons, side, path ? path : "input", buf);
            }
        }
    }
    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *sid = json_string_value(json_object_get(st, "id"));

        ambiguous_keys(st, side, sid ? sid : "?", reasons);

        if (status != NULL && strcmp(status, "ok") != 0) {
            char what[128];

            snprintf(what, sizeof what, "stage %s",
                     json_string_value(json_object_get(st, "id")) ?
                         json_string_value(json_object_get(st, "id")) :
                         "?");
            snprintf(buf, sizeof buf, "status \"%s\" (its figures are not whole)", status);
            add_reason(reasons, side, what, buf);
        }
    }
}

/* Whether --map pairs the baseline's knob value b with the candidate's c: a
 * pair OLD=NEW where b ends with OLD, c with NEW and the rest is the same
 * (twin routes: --map /orders/bad=/orders/good pairs the URLs that load them). */
static int
mapped_value(const json_t *b, const json_t *c, const pp_compare_options *o)
{
    const char *sb = json_string_value(b), *sc = json_string_value(c);

    if (sb == NULL || sc == NULL)
        return 0;
    for (size_t i = 0; i < o->nmap; i++) {
        size_t lb = strlen(sb), lc = strlen(sc), lo = strlen(o->map_old[i]),
               ln = strlen(o->map_new[i]);

        if (lo <= lb && ln <= lc && lb - lo == lc - ln &&
            strcmp(sb + lb - lo, o->map_old[i]) == 0 && strcmp(sc + lc - ln, o->map_new[i]) == 0 &&
            strncmp(sb, sc, lb - lo) == 0)
            return 1;
    }
    return 0;
}

/* L2 (load inputs, issue 36): two load-test runs are comparable only under
 * the same load, so the tool and the knobs it printed (connections, threads,
 * rate, duration, URL: inputs[].load.knobs) must agree input by input, but
 * for values --map pairs. The differences go to diff; their count is returned. */
static int
load_knobs_differ(const json_t *base, const json_t *cand, const pp_compare_options *o, char *diff,
                  size_t size)
{
    const json_t *ib, *ic = NULL;
    size_t i, used = 0;
    int n = 0;

    diff[0] = '\0';
    json_array_foreach(json_object_get(base, "inputs"), i, ib) {
        const json_t *lb = pp_load_facts(ib), *lc, *kb, *kc;
        const char *k;
        json_t *v;

        ic = json_array_get(json_object_get(cand, "inputs"), i);
        if ((lc = pp_load_facts(ic)) == NULL || lb == NULL)
            continue;
        kb = json_object_get(lb, "knobs");
        kc = json_object_get(lc, "knobs");
        if (!json_equal(json_object_get(lb, "tool"), json_object_get(lc, "tool")))
            used += (size_t)snprintf(diff + used, used < size ? size - used : 0,
                                     "%stool (%s vs %s)", n++ ? ", " : "",
                                     json_string_value(json_object_get(lb, "tool")),
                                     json_string_value(json_object_get(lc, "tool")));
        for (int side = 0; side < 2; side++)
            json_object_foreach((json_t *)(side ? kc : kb), k, v) {
                const json_t *w = json_object_get(side ? kb : kc, k);
                char *a, *b;

                if ((side && w != NULL) || json_equal(v, w) || (!side && mapped_value(v, w, o)))
                    continue;
                a = json_dumps(side ? w : v, JSON_ENCODE_ANY);
                b = json_dumps(side ? v : w, JSON_ENCODE_ANY);
                used += (size_t)snprintf(diff + used, used < size ? size - used : 0,
                                         "%s%s (%s vs %s)", n++ ? ", " : "", k, a ? a : "unset",
                                         b ? b : "unset");
                free(a);
                free(b);
            }
    }
    return n;
}

static int
check_stages(const json_t *sb, const json_t *sc, pp_error *err)
{
    size_t i;
    json_t *stage;

    json_array_foreach(sb, i, stage) {
        const char *id = json_string_value(json_object_get(stage, "id"));
        json_t *other = cmp_find_by(sc, "id", id);
        json_t *ab = json_object_get(stage, "analyzer"), *ac;
        const char *nb = json_string_value(json_object_get(ab, "name")), *nc;

        if (other == NULL) {
            pp_error_set(err, PP_EINVAL, "stage '%s' is missing from the candidate", id);
            return PP_EINVAL;
        }
        ac = json_object_get(other, "analyzer");
        nc = json_string_value(json_object_get(ac, "name"));
        if (nb == NULL || nc == NULL || strcmp(nb, nc) != 0) {
            pp_error_set(err, PP_EINVAL,
                         "stage '%s' ran analyzer '%s' in the baseline and '%s' "
                         "in the candidate",
                         id, nb ? nb : "?", nc ? nc : "?");
            return PP_EINVAL;
        }
        if (major_of(json_string_value(json_object_get(ab, "version"))) !=
            major_of(json_string_value(json_object_get(ac, "version")))) {
            pp_error_set(err, PP_EINVAL,
                         "stage '%s': analyzer %s %s vs %s: incompatible versions "
                         "(major differs); rerun both with one perfpipe",
                         id, nb, json_string_value(json_object_get(ab, "version")),
                         json_string_value(json_object_get(ac, "version")));
            return PP_EINVAL;
        }
    }
    return PP_OK;
}

static int
by_abs_delta(const void *x, const void *y)
{
    const cmp_row *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);

    return da < db ? 1 : da > db ? -1 : 0;
}

/* "a, b" of an array of names into buf, "none" for none. */
static const char *
names_of(const json_t *names, char *buf, size_t n)
{
    size_t i, used = 0;
    json_t *x;

    snprintf(buf, n, "none");
    json_array_foreach(names, i, x)
        if (used < n)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "",
                                     json_string_value(x));
    return buf;
}

/* Which columns of both sides' table the comparison reads: tb and tc, or
 * their copies cut to the columns both share (*cut_b, *cut_c: the caller
 * drops them) with a finding naming the rest. 0 when the table cannot be
 * compared: a reason added to reasons (the verdict is then "cannot judge",
 * every stage says why: late_reasons); nothing is skipped without a word. */
static int
shared_table(const json_t *tb, const json_t *tc, json_t *out_stage, json_t *reasons, json_t **cut_b,
             json_t **cut_c, json_t **one_side, int *rc, pp_error *err)
{
    char why[512], msg[1024];
    int ok = cmp_shared_columns(tb, tc, cut_b, cut_c, one_side, why, sizeof why);

    *rc = PP_OK;
    if (ok < 0) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        *rc = PP_ENOMEM;
        return 0;
    }
    if (ok == 0) {
        /* a side that is not an A/B table in either run hides no figure */
        cmp_table tb_view, tc_view;

        if (!cmp_columns(tb, &tb_view) && !cmp_columns(tc, &tc_view))
            return 0;
        snprintf(msg, sizeof msg, "%s; not compared, so no verdict holds without it", why);
        if (json_array_append_new(reasons, json_string(msg)) != 0) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            *rc = PP_ENOMEM;
        }
        return 0;
    }
    if (*one_side != NULL) {
        char b[400], c[400];

        snprintf(msg, sizeof msg,
                 "table %s: compared on the columns both runs have; only in the baseline: %s; "
                 "only in the candidate: %s (descriptive, no key or figure the verdict reads)",
                 json_string_value(json_object_get(tb, "name")),
                 names_of(json_object_get(*one_side, "baseline"), b, sizeof b),
                 names_of(json_object_get(*one_side, "candidate"), c, sizeof c));
        if ((*rc = pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.columns_one_side",
                                     msg)) != PP_OK) {
            pp_error_set(err, *rc, "out of memory");
            return 0;
        }
    }
    return 1;
}

/* Compare one table pair; adds a table and findings to out_stage. */
static int
compare_table(const json_t *tb_whole, const json_t *tc_whole, const json_t *tables, cmp_stage *s,
              json_t *out_stage, const pp_compare_options *o, const char *weakened, cmp_judge *j,
              json_t *reasons, pp_error *err)
{
    json_t *cut_b = NULL, *cut_c = NULL, *one_side = NULL;
    const json_t *tb, *tc;
    cmp_table *t;
    int rc;

    if (!shared_table(tb_whole, tc_whole, out_stage, reasons, &cut_b, &cut_c, &one_side, &rc, err))
        return rc;
    tb = cut_b != NULL ? cut_b : tb_whole;
    tc = cut_c != NULL ? cut_c : tc_whole;
    if ((t = calloc(1, sizeof *t)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        rc = PP_ENOMEM;
    } else if (!cmp_columns(tb, t)) {
        rc = PP_OK;
    } else {
        t->axis = cmp_axis_of(s, t->measures[0].name);
        t->own = cmp_own_of(s, t->name);
        t->shown = cmp_shown_only(tb_whole, tables);
        t->w = s->w;
        t->stage = json_string_value(json_object_get(out_stage, "id"));
        if ((rc = cmp_join(tb, tc, t, o)) != PP_OK) {
            pp_error_set(err, PP_ENOMEM, "out of memory comparing table %s", t->name);
        } else if ((rc = cmp_classify_rows(t, o)) != PP_OK) {
            pp_error_set(err, rc, "out of memory comparing table %s", t->name);
        } else {
            qsort(t->rows, t->nrows, sizeof *t->rows, by_abs_delta);
            rc = cmp_emit_table(out_stage, t, o, weakened, j, err);
        }
        if (rc == PP_OK && one_side != NULL &&
            json_object_set(cmp_find_by(json_object_get(out_stage, "tables"), "name", t->name),
                            "columns_one_side", one_side) != 0) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
        }
        cmp_table_free(t);
    }
    free(t);
    json_decref(cut_b);
    json_decref(cut_c);
    json_decref(one_side);
    return rc;
}

/* Mark the totals some comparable table's measures add up to: they gate. */
static void
mark_axes(const json_t *tables_b, cmp_stage *s)
{
    size_t k;
    json_t *tb;

    json_array_foreach(tables_b, k, tb) {
        cmp_table t;

        if (!cmp_columns(tb, &t) || t.stack_table || t.local || cmp_shown_only(tb, tables_b))
            continue;
        for (size_t m = 0; m < t.nmeas; m++) {
            cmp_total *x = cmp_axis_of(s, t.measures[m].name);

            if (x != NULL)
                x->axis = 1;
        }
    }
}

static int
compare_stage(const json_t *stage, const json_t *other, json_t *out_stage,
              const pp_compare_options *o, const char *weakened, const char *diff, json_t *reasons,
              const cmp_work *w, const json_t *note, cmp_judge *j, pp_error *err)
{
    json_t *tables = json_object_get(stage, "tables"), *tb;
    cmp_stage *s = calloc(1, sizeof *s);
    pp_quantile_tally tally = { &j->regressions, &j->improvements, j->decided, CMP_MAX_DECIDED };
    size_t k, i;
    int rc = PP_OK;

    if (s == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (*weakened != '\0')
        pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.knob_drift", diff);
    if (json_is_string(note))
        pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.work_differs",
                          json_string_value(note));
    json_array_foreach(reasons, i, tb) {
        char msg[700];

        snprintf(msg, sizeof msg,
                 "cannot judge: %s; the figures below are shown, but no verdict "
                 "holds (recapture that side whole)",
                 json_string_value(tb));
        pp_result_finding(out_stage, PP_SEVERITY_ERROR, "compare.cannot_judge", msg);
    }
    cmp_stage_totals(stage, other, w, s);
    mark_axes(tables, s);
    if (CMP_REPLICATES(o) &&
        cmp_reps_totals(s, json_string_value(json_object_get(stage, "id")), o) != PP_OK) {
        free(s);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    rc = cmp_emit_totals(out_stage, s, o, json_string_value(json_object_get(stage, "id")), j, err);
    json_array_foreach(tables, k, tb) {
        json_t *tc = cmp_find_by(json_object_get(other, "tables"), "name",
                                 json_string_value(json_object_get(tb, "name")));

        if (rc != PP_OK)
            break;
        if (tc != NULL &&
            !pp_compare_quantile(stage, other, tb, tc, out_stage, o, weakened, &tally, &rc, err) &&
            !pp_compare_hinted(stage, other, tb, tc, out_stage, o, weakened, &j->regressions,
                               reasons, &rc, err))
            rc = compare_table(tb, tc, tables, s, out_stage, o, weakened, j, reasons, err);
    }
    free(s);
    return rc;
}

static json_t *
compared_object(const json_t *base, const json_t *cand, const char *pipeline,
                const pp_compare_options *o, json_t *reasons, const cmp_work *w, json_t *note)
{
    json_t *compared = json_object();

    json_object_set_new(compared, "work",
                        json_pack("{s:s,s:f,s:f,s:f,s:O?}", "unit", w->unit, "baseline", w->eb,
                                  "candidate", w->ec, "ratio", w->ec / w->eb, "note", note));

    json_object_set_new(compared, "pipeline", json_string(pipeline));
    json_object_set(compared, "baseline_inputs", json_object_get(base, "inputs"));
    json_object_set(compared, "candidate_inputs", json_object_get(cand, "inputs"));
    json_object_set(compared, "candidate_knobs", json_object_get(cand, "knobs"));
    json_object_set_new(compared, "noise_percent", json_real(o->noise_percent));
    json_object_set_new(compared, "replaced_percent", json_real(o->replaced_percent));
    json_object_set_new(compared, "verdict",
                        json_string(json_array_size(reasons) > 0 ? "cannot judge" : "judged"));
    json_object_set(compared, "cannot_judge", reasons);
    return compared;
}

/* Reasons found while comparing the tables (from index first on): every
 * stage carries them, as it carries those known before, and the comparison
 * cannot judge. */
static int
late_reasons(json_t *doc, json_t *reasons, size_t first, pp_error *err)
{
    json_t *stage, *why;
    size_t i, k;

    if (json_array_size(reasons) <= first)
        return PP_OK;
    json_object_set_new(json_object_get(doc, "compared"), "verdict", json_string("cannot judge"));
    json_array_foreach(json_object_get(doc, "stages"), i, stage)
        for (k = first; k < json_array_size(reasons); k++) {
            char msg[1200];

            why = json_array_get(reasons, k);
            snprintf(msg, sizeof msg, "cannot judge: %s", json_string_value(why));
            if (pp_result_finding(stage, PP_SEVERITY_ERROR, "compare.cannot_judge", msg) != PP_OK) {
                pp_error_set(err, PP_ENOMEM, "out of memory");
                return PP_ENOMEM;
            }
        }
    return PP_OK;
}

int
pp_compare(const json_t *base, const json_t *cand, const pp_compare_options *o, json_t **out,
           pp_compare_verdict *v, pp_error *err)
{
    const char *pb = json_string_value(json_object_get(base, "pipeline"));
    const char *pc = json_string_value(json_object_get(cand, "pipeline"));
    json_t *sb = json_object_get(base, "stages"), *sc = json_object_get(cand, "stages");
    char diff[1024], same_build[1024];
    const char *weakened = "";
    json_t *doc, *stage, *reasons, *note = NULL;
    cmp_work w;
    cmp_judge j = { 0, 0, NULL, "" };
    size_t i;
    int rc = PP_OK;

    *out = NULL;
    memset(v, 0, sizeof *v);
    if (pb == NULL || pc == NULL || strcmp(pb, pc) != 0) {
        pp_error_set(err, PP_EINVAL,
                     "the results come from different pipelines ('%s' and '%s'); "
                     "compare runs of one pipeline",
                     pb ? pb : "?", pc ? pc : "?");
        return PP_EINVAL;
    }
    if (check_knobs(json_object_get(base, "knobs"), json_object_get(cand, "knobs"), diff,
                    sizeof diff) > 0) {
        if (!o->allow_knob_drift) {
            pp_error_set(err, PP_EINVAL,
                         "the runs' knobs differ: %s; results are only relative "
                         "to identical knobs (rerun with the same --set values, or "
                         "--allow-knob-drift to compare anyway, with weakened verdicts)",
                         diff);
            return PP_EINVAL;
        }
        weakened = " (WEAKENED: the runs' knobs differ)";
    }
    if ((rc = check_stages(sb, sc, err)) != PP_OK)
        return rc;
    doc = pp_result_new("compare");
    reasons = json_array();
    if (doc == NULL || reasons == NULL) {
        json_decref(doc);
        json_decref(reasons);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    damage_of(base, "baseline", reasons);
    damage_of(cand, "candidate", reasons);
    if (!o->allow_wrong_process) {
        cmp_wrong_process(base, "baseline", reasons);
        cmp_wrong_process(cand, "candidate", reasons);
    }
    if (load_knobs_differ(base, cand, o, diff, sizeof diff) > 0) {
        if (o->allow_knob_drift)
            weakened = " (WEAKENED: the load runs' knobs differ)";
        else
            add_reason(reasons, "both runs'",
                       "load knobs differ (rerun with the same load, or "
                       "--allow-knob-drift)",
                       diff);
    }
    v->cannot_judge = (int)json_array_size(reasons);
    pp_buildid_same(base, cand, same_build, sizeof same_build);
    cmp_work_of(base, cand, o->per, &w, &note);
    if (strcmp(w.unit, "run") == 0 && CMP_REPLICATES(o)) {
        /* each side is the pool of its runs: per run is per replicate */
        w.eb = (double)(o->nrep_b > 0 ? o->nrep_b : 1);
        w.ec = (double)(o->nrep_c > 0 ? o->nrep_c : 1);
    }
    json_object_set(doc, "knobs", json_object_get(base, "knobs"));
    json_object_set_new(doc, "compared", compared_object(base, cand, pb, o, reasons, &w, note));
    if (same_build[0] != '\0')
        json_object_set_new(json_object_get(doc, "compared"), "same_build",
                            json_string(same_build));
    if (cmp_inputs(doc, base, cand, o) != PP_OK || (j.decided = json_array()) == NULL) {
        json_decref(doc);
        json_decref(reasons);
        json_decref(note);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    json_array_foreach(sb, i, stage) {
        json_t *an = json_object_get(stage, "analyzer");
        json_t *out_stage = pp_result_add_stage(doc,
                                                json_string_value(json_object_get(stage, "id")),
                                                json_string_value(json_object_get(an, "name")),
                                                json_string_value(json_object_get(an, "version")));

        if (out_stage == NULL) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
            break;
        }
        /* beside the verdict, never instead of it: comparing the routes,
         * knobs or configuration of one build is legitimate */
        if (same_build[0] != '\0')
            pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.same_build", same_build);
        rc = compare_stage(stage,
                           cmp_find_by(sc, "id", json_string_value(json_object_get(stage, "id"))),
                           out_stage, o, weakened, diff, reasons, &w, note, &j, err);
        if (rc != PP_OK)
            break;
    }
    if (rc == PP_OK)
        rc = late_reasons(doc, reasons, (size_t)v->cannot_judge, err);
    v->cannot_judge = (int)json_array_size(reasons);
    v->regressions = j.regressions;
    v->improvements = j.improvements;
    if (rc == PP_OK &&
        (doc = cmp_lead_with_verdict(doc, &j, v->cannot_judge, &w, reasons, o, v)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        rc = PP_ENOMEM;
    }
    json_decref(reasons);
    json_decref(note);
    json_decref(j.decided);
    if (rc != PP_OK) {
        json_decref(doc);
        return rc;
    }
    *out = doc;
    return PP_OK;
}
