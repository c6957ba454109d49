/* compare: the unit of work both runs are judged by, the wrong-process
 * stop, the two inputs compare's document names, and the overall verdict
 * it leads with. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "result/work.h"

/* Work per side differs this much (either way): named as such. */
#define WORK_DIFFERS 2.0

void
cmp_work_of(const json_t *base, const json_t *cand, const char *per, cmp_work *w, json_t **note)
{
    pp_work wb, wc;
    pp_error err = PP_ERROR_INIT;
    char line[512];
    double ratio;

    *note = NULL;
    pp_work_of(base, &wb, &err);
    pp_work_of(cand, &wc, &err);
    *w = (cmp_work){ "run", 1, 1, 0 };
    if (per != NULL && strcmp(per, "run") == 0) {
        /* fixed work (a run of N iterations): the run is the unit */
        *note = json_string("judged per run, as asked (--per run): the absolutes are the rates");
        return;
    }
    if (per != NULL && strcmp(per, "second") == 0 && wb.seconds > 0 && wc.seconds > 0)
        *w = (cmp_work){ "second", wb.seconds, wc.seconds, 0 };
    else if (per != NULL && strcmp(per, "operation") == 0 && wb.operations > 0 && wc.operations > 0)
        *w = (cmp_work){ "operation", wb.operations, wc.operations, 0 };
    else if (wb.requests > 0 && wc.requests > 0)
        *w = (cmp_work){ "request", wb.requests, wc.requests, 0 };
    else if (wb.seconds > 0 && wc.seconds > 0)
        *w = (cmp_work){ "second", wb.seconds, wc.seconds, 0 };
    else if (wb.operations > 0 && wc.operations > 0)
        *w = (cmp_work){ "operation", wb.operations, wc.operations, 0 };
    /* A capture's seconds are the right unit for a window of a steady
     * service, the wrong one for a program doing fixed work (a shorter run
     * of the same work is "more per second"): per second, a move counts
     * only when the absolutes move the same way. */
    w->dual = strcmp(w->unit, "second") == 0;
    if (strcmp(w->unit, "run") == 0) {
        *note = json_string("neither requests, seconds nor operations are known on both sides: "
                            "judged on absolute figures (per run)");
        return;
    }
    if (wb.unit != NULL && wc.unit != NULL && strcmp(wb.unit, wc.unit) != 0) {
        snprintf(line, sizeof line,
                 "the baseline's unit of work is the %s, the candidate's the "
                 "%s: judged per %s, the unit both know",
                 wb.unit, wc.unit, w->unit);
        *note = json_string(line);
        return;
    }
    ratio = w->ec / w->eb;
    if (ratio >= WORK_DIFFERS || ratio <= 1 / WORK_DIFFERS) {
        snprintf(line, sizeof line,
                 "the runs did very different work: the candidate %.3g %ss, "
                 "the baseline %.3g (%.2fx); every figure is judged per %s, the absolutes are "
                 "shown beside",
                 w->ec, w->unit, w->eb, ratio, w->unit);
        *note = json_string(line);
    }
}

void
cmp_wrong_process(const json_t *doc, const char *side, json_t *reasons)
{
    const json_t *in;
    size_t i;

    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        const json_t *proc = json_object_get(json_object_get(in, "nettrace"), "process");
        const char *why = json_string_value(json_object_get(proc, "wrong_process"));
        const char *path = json_string_value(json_object_get(in, "path"));
        char line[768];

        if (why == NULL)
            continue;
        snprintf(line, sizeof line,
                 "%s %s: wrong process: %s (recapture the app's own pid, or "
                 "--allow-wrong-process to judge anyway)",
                 side, path ? path : "input", why);
        json_array_append_new(reasons, json_string(line));
    }
}

/* The first traced process of a result (its nettrace inputs'), or NULL. */
static const json_t *
process_of(const json_t *doc)
{
    const json_t *in;
    size_t i;

    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        const json_t *p = json_object_get(json_object_get(in, "nettrace"), "process");

        if (json_is_object(p))
            return p;
    }
    return NULL;
}

static json_t *
input_of(const char *name, const char *path, const json_t *doc)
{
    pp_work w;
    pp_error err = PP_ERROR_INIT;
    json_t *o = json_pack("{s:s,s:s,s:s}", "name", name, "path", path ? path : "-", "kind",
                          "result");
    json_t *caps = json_array();
    const json_t *in, *proc = process_of(doc);
    size_t i;

    if (o == NULL || caps == NULL) {
        json_decref(o);
        json_decref(caps);
        return NULL;
    }
    json_array_foreach(json_object_get(doc, "inputs"), i, in)
        json_array_append(caps, json_object_get(in, "path"));
    json_object_set_new(o, "captures", caps);
    json_object_set(o, "pipeline", json_object_get(doc, "pipeline"));
    json_object_set_new(o, "process", proc ? json_deep_copy(proc) : json_null());
    json_object_set(o, "knobs", json_object_get(doc, "knobs"));
    pp_work_of(doc, &w, &err);
    json_object_set_new(o, "work", pp_work_json(&w));
    return o;
}

int
cmp_inputs(json_t *doc, const json_t *base, const json_t *cand, const pp_compare_options *o)
{
    json_t *a = json_array();

    if (a == NULL || json_array_append_new(a, input_of("baseline", o->baseline_path, base)) ||
        json_array_append_new(a, input_of("candidate", o->candidate_path, cand)) ||
        json_array_size(a) != 2 || json_object_set_new(doc, "inputs", a)) {
        json_decref(a);
        return PP_ENOMEM;
    }
    return PP_OK;
}

/* "before.json: pid 812 `dotnet App.dll`; knobs top=20": the banner's
 * line for one side. */
static json_t *
side_line(const json_t *in)
{
    const json_t *proc = json_object_get(in, "process"), *v;
    const char *k;
    char line[1024];
    const char *path = json_string_value(json_object_get(in, "path"));
    size_t used = (size_t)snprintf(line, sizeof line, "%s", path ? path : "-");

    if (json_is_integer(json_object_get(proc, "pid")))
        used += (size_t)snprintf(line + used, sizeof line - used, ": pid %lld",
                                 (long long)json_integer_value(json_object_get(proc, "pid")));
    if (json_is_string(json_object_get(proc, "command_line")) && used < sizeof line)
        used += (size_t)snprintf(line + used, sizeof line - used, " `%.200s`",
                                 json_string_value(json_object_get(proc, "command_line")));
    if (json_is_string(json_object_get(proc, "wrong_process")) && used < sizeof line)
        used += (size_t)snprintf(line + used, sizeof line - used, " (WRONG PROCESS)");
    json_object_foreach((json_t *)json_object_get(in, "knobs"), k, v)
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s%s=%s",
                                     strstr(line, "; knobs ") ? ", " : "; knobs ", k,
                                     json_is_string(v) ? json_string_value(v) : "?");
    return json_string(line);
}

/* How the statistical verdicts were tested: with replicates, the rate test
 * with the between-run variance they show; with one capture per side,
 * sampling noise only and the run-to-run floors. */
static void
test_of(const pp_compare_options *o, char *buf, size_t size)
{
    if (CMP_REPLICATES(o))
        snprintf(buf, size,
                 "test: rate ratio of sample counts with the between-run variance of the "
                 "replicates (Student's t), replicates %zu vs %zu",
                 o->nrep_b > 0 ? o->nrep_b : 1, o->nrep_c > 0 ? o->nrep_c : 1);
    else
        snprintf(buf, size,
                 "test: conditional binomial rate test (sampling noise only), one capture per "
                 "side: times gate at %.0f%%, latency statistics at %.0f%% (the run-to-run "
                 "floors; give replicates, A1 A2 -- B1 B2, to judge smaller moves)",
                 CMP_TIME_NOISE, CMP_LATENCY_NOISE);
}

static json_t *
verdict_object(const json_t *doc, const cmp_judge *j, int cannot_judge, const cmp_work *w,
               const json_t *reasons, const pp_compare_options *o, const char *overall)
{
    char test[512];

    const json_t *ins = json_object_get(doc, "inputs");
    char line[1536];
    size_t used, i;
    const json_t *d;

    if (cannot_judge > 0)
        snprintf(line, sizeof line, "CANNOT JUDGE: %s",
                 json_string_value(json_array_get(reasons, 0)));
    else if (strcmp(overall, "no change") == 0)
        snprintf(line, sizeof line,
                 "NO CHANGE (per %s): no axis moved beyond its noise and no "
                 "row came, went or grew beyond it",
                 w->unit);
    else {
        used = (size_t)snprintf(
            line, sizeof line,
            "%s (per %s):", strcmp(overall, "improved") == 0 ? "IMPROVED" : "REGRESSED", w->unit);
        int shown = 0, more = 0;

        /* the moves in the verdict's direction first, structural ones
         * (a row fixed or come) before statistical ones; three shown */
        for (int pass = 0; pass < 3; pass++)
            json_array_foreach(j->decided, i, d) {
                const char *s = json_string_value(d);
                int dir = (strstr(s, "regressed") != NULL) == (strcmp(overall, "regressed") == 0);
                int structural = strstr(s, "(structural)") != NULL;

                if (pass != (dir && structural ? 0 : dir ? 1 : 2))
                    continue;
                if (shown == 3 || used >= sizeof line) {
                    more++;
                    continue;
                }
                used += (size_t)snprintf(line + used, sizeof line - used, "%s %s",
                                         shown++ ? ";" : "", s);
            }
        if (more > 0 && used < sizeof line)
            snprintf(line + used, sizeof line - used, "; and %d more (verdict.decided_by)", more);
    }
    test_of(o, test, sizeof test);
    used = strlen(line);
    if (cannot_judge == 0 && used < sizeof line)
        used += (size_t)snprintf(line + used, sizeof line - used, " — %s", test);
    if (cannot_judge == 0 && j->not_judged[0] != '\0' && used < sizeof line)
        snprintf(line + used, sizeof line - used, "; not judged: %s", j->not_judged);
    return json_pack("{s:s,s:s,s:s,s:s,s:O,s:o,s:o,s:s*}", "overall", overall, "line", line, "unit",
                     w->unit, "test", test, "decided_by", j->decided, "baseline",
                     side_line(json_array_get(ins, 0)), "candidate",
                     side_line(json_array_get(ins, 1)), "not_judged",
                     j->not_judged[0] ? j->not_judged : NULL);
}

json_t *
cmp_lead_with_verdict(json_t *doc, const cmp_judge *j, int cannot_judge, const cmp_work *w,
                      const json_t *reasons, const pp_compare_options *o, pp_compare_verdict *v)
{
    json_t *out = json_object(), *verdict;
    const char *k;
    json_t *val;

    v->overall = cannot_judge > 0    ? "cannot judge" :
                 j->regressions > 0  ? "regressed" :
                 j->improvements > 0 ? "improved" :
                                       "no change";
    verdict = verdict_object(doc, j, cannot_judge, w, reasons, o, v->overall);
    if (out == NULL || verdict == NULL ||
        json_object_set(out, "format", json_object_get(doc, "format")) ||
        json_object_set_new(out, "verdict", verdict)) {
        json_decref(out);
        json_decref(doc);
        return NULL;
    }
    json_object_set_new(json_object_get(doc, "compared"), "verdict", json_string(v->overall));
    json_object_foreach(doc, k, val)
        if (strcmp(k, "format") != 0 && json_object_set(out, k, val) != 0) {
            json_decref(out);
            json_decref(doc);
            return NULL;
        }
    json_decref(doc);
    return out;
}
