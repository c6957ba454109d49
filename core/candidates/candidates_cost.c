/* The scale candidates rank on (candidates_cost.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "candidates_cost.h"
#include "result/result.h"
#include "result/work.h"

void
pp_cand_unit_of(const json_t *doc, pp_cand_unit *u)
{
    pp_work w;
    pp_error err = PP_ERROR_INIT;
    double per;

    u->unit = "capture";
    u->source = NULL;
    u->per = 1;
    if (pp_work_of(doc, &w, &err) != PP_OK || w.unit == NULL)
        return;
    per = pp_work_per(&w);
    if (!isfinite(per) || per <= 0)
        return;
    u->unit = w.unit;
    u->source = w.requests_source;
    u->per = per;
}

double
pp_cand_cost(pp_cand_measure m, double figure, const pp_cand_unit *u, double ms_per_mib)
{
    double per = figure / u->per;

    return m == PP_CAND_MS ? per : per * ms_per_mib / (1024.0 * 1024.0);
}

void
pp_cand_per_unit_text(pp_cand_measure m, double figure, const pp_cand_unit *u, char *buf,
                      size_t size)
{
    double per = figure / u->per;

    if (m == PP_CAND_MS)
        pp_format_duration_ns(buf, size, per * 1e6);
    else
        pp_format_bytes(buf, size, per);
}

/* How the scale was built, in the stage's totals and a finding. */
void
pp_cand_describe_scale(json_t *stage, const json_t *const *docs, size_t ndocs, double ms_per_mib)
{
    char msg[2048], *p = msg;
    size_t left = sizeof msg;
    const char *first = NULL;
    int mixed = 0, w;

    pp_result_total_string(stage, "scale",
                           "estimated ms per unit of work: running, database and "
                           "removable blocked time as measured; allocated and retained bytes at "
                           "alloc_ms_per_mib; per request where requests are counted, else per "
                           "second of capture (docs/candidates.md)");
    pp_result_total_double(stage, "alloc_ms_per_mib", PP_COL_NUMBER, ms_per_mib);
    w = snprintf(p, left, "ranked by estimated ms per unit of work (bytes at %.3g ms per MiB): ",
                 ms_per_mib);
    for (size_t d = 0; d < ndocs && w > 0 && (size_t)w < left; d++) {
        pp_cand_unit u;

        p += w;
        left -= (size_t)w;
        pp_cand_unit_of(docs[d], &u);
        if (first == NULL)
            first = u.unit;
        else if (strcmp(first, u.unit) != 0)
            mixed = 1;
        w = snprintf(p, left, "%s%s per %s (%.6g %s%s%s)", d ? ", " : "",
                     json_string_value(json_object_get(docs[d], "pipeline")), u.unit, u.per,
                     strcmp(u.unit, "request") == 0   ? "requests" :
                     strcmp(u.unit, "second") == 0    ? "seconds of capture" :
                     strcmp(u.unit, "operation") == 0 ? "operations" :
                                                        "whole capture",
                     u.source ? ", counted by " : "", u.source ? u.source : "");
    }
    pp_result_total_string(stage, "unit", mixed ? "mixed" : first ? first : "capture");
    pp_result_finding(stage, PP_SEVERITY_INFO, "candidates.scale", msg);
    if (mixed)
        pp_result_finding(stage, PP_SEVERITY_WARNING, "candidates.mixed_units",
                          "the inputs count their work in different units (per request and per "
                          "second): a cost per request and a cost per second are ranked side "
                          "by side; capture the same kind of run (Hosting events, or a load "
                          "input) for all of them to rank on one unit");
}
