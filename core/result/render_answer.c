/* The answer a report leads with, read from the result document alone so
 * that a third-party analyzer gets one too: per stage a headline (its most
 * severe error or warning finding that bears on the answer, else the top
 * row of its ranking table with the absolute figure, the figure per unit
 * of work and what to do, else a caveat: an error or warning marked
 * "caveat" qualifies the figures without changing them, PP_FINDING_CAVEAT),
 * and the optimization candidates as cards (a table with "target" and
 * "fix" columns, as `perfpipe candidates` writes). The renderers (table,
 * markdown, html) put these first, the evidence tables next, and the
 * method caveats (information findings) after. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define NONE ((size_t)-1) /* pp_render_col_of: no such column */

const char *
pp_render_row_str(const json_t *tj, const json_t *row, const char *name)
{
    size_t c = pp_render_col_of(tj, name);

    return c == (size_t)-1 ? NULL : json_string_value(json_array_get(row, c));
}

void
pp_render_card_cost(char *buf, size_t size, const json_t *tj, const json_t *row)
{
    const char *pu = pp_render_row_str(tj, row, "per_unit");
    const char *cu = pp_render_row_str(tj, row, "cost_unit");
    const char *fig = pp_render_row_str(tj, row, "figure");
    const char *per = cu != NULL ? strchr(cu, ' ') : NULL;
    size_t sc = pp_render_col_of(tj, "share");
    char share[32] = "";

    /* per_unit is "482 ms", cost_unit "ms per second (estimated)": the
     * unit word once */
    if (sc != NONE && json_is_number(json_array_get(row, sc)))
        pp_format_percent(share, sizeof share, json_number_value(json_array_get(row, sc)));
    if (pu != NULL)
        snprintf(buf, size, "%s%s (%s in all%s%s%s)", pu, per ? per : "", fig ? fig : "-",
                 share[0] ? ", " : "", share, share[0] ? " of its axis" : "");
    else
        snprintf(buf, size, "%s%s%s", fig ? fig : "-", share[0] ? ", " : "", share);
}

const json_t *
pp_render_cards_table(const json_t *st)
{
    const json_t *tj;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, tj)
        if (pp_render_col_of(tj, "target") != NONE && pp_render_col_of(tj, "fix") != NONE)
            return tj;
    return NULL;
}

/* The ranking table of a stage: the first whose declaration gives
 * candidates, else the first with a declared figure on an axis. */
static const json_t *
ranking_table(const json_t *st, const char **figure)
{
    const json_t *tj, *fig;
    const char *k;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, tj) {
        const json_t *cand = json_object_get(json_object_get(tj, "decl"), "candidate");
        const char *cost = json_string_value(json_object_get(cand, "cost"));
        if (json_is_object(cand) && json_array_size(json_object_get(tj, "rows")) > 0 &&
            json_string_value(json_object_get(json_object_get(tj, "decl"), "subject")) != NULL) {
            if (cost == NULL)
                json_object_foreach(json_object_get(json_object_get(tj, "decl"), "figures"), k, fig)
                    if (json_is_string(json_object_get(fig, "axis"))) {
                        cost = k;
                        break;
                    }
            if (cost != NULL && pp_render_col_of(tj, cost) != NONE) {
                *figure = cost;
                return tj;
            }
        }
    }
    json_array_foreach(json_object_get(st, "tables"), i, tj) {
        const json_t *decl = json_object_get(tj, "decl");
        if (json_string_value(json_object_get(decl, "subject")) == NULL ||
            json_array_size(json_object_get(tj, "rows")) == 0)
            continue;
        json_object_foreach(json_object_get(decl, "figures"), k, fig)
            if (json_is_string(json_object_get(fig, "axis")) && pp_render_col_of(tj, k) != NONE) {
                *figure = k;
                return tj;
            }
    }
    return NULL;
}

/* ", 12.3 ms per request" when the table declares a unit of work the
 * stage counted (a total named in decl.work_totals, above zero). */
static void
per_unit(char *buf, size_t size, const json_t *st, const json_t *tj, const char *figure,
         const json_t *cell)
{
    const json_t *wt, *totals = json_object_get(st, "totals");
    size_t i;

    buf[0] = 0;
    json_array_foreach(json_object_get(json_object_get(tj, "decl"), "work_totals"), i, wt) {
        const char *name = json_string_value(wt);
        const json_t *v = json_object_get(json_object_get(totals, name ? name : ""), "value");
        double units = json_number_value(v), f = json_number_value(cell);
        const json_t *col = json_array_get(json_object_get(tj, "columns"),
                                           pp_render_col_of(tj, figure));
        char h[64];
        json_t *x;
        if (!json_is_number(v) || units <= 0)
            continue;
        x = json_real(f / units);
        pp_render_cell_named(h, sizeof h, figure, pp_render_col_type(col), x);
        json_decref(x);
        snprintf(buf, size, ", %s per %s", h, name);
        return;
    }
}

/* The first finding of severity sev, in stage order, that is a caveat
 * (caveat: 1) or not (0): see pp_render_headline. */
static const json_t *
finding_of(const json_t *st, const char *sev, int caveat)
{
    const json_t *f;
    size_t i;

    json_array_foreach(json_object_get(st, "findings"), i, f) {
        const char *s = json_string_value(json_object_get(f, "severity"));
        if (s != NULL && strcmp(s, sev) == 0 &&
            json_is_true(json_object_get(f, "caveat")) == (caveat != 0))
            return f;
    }
    return NULL;
}

char *
pp_render_headline(const json_t *st, const char **severity)
{
    const json_t *f = NULL, *tj, *cards, *row;
    const char *figure = NULL, *err = pp_result_stage_error(st);
    char *s = NULL;
    size_t n = 0;
    FILE *m;

    *severity = "info";
    if ((m = open_memstream(&s, &n)) == NULL)
        return NULL;
    if (err != NULL) {
        *severity = "error";
        fprintf(m, "the stage failed: %s", err);
    } else if ((f = finding_of(st, "error", 0)) != NULL ||
               (f = finding_of(st, "warning", 0)) != NULL) {
        *severity = json_string_value(json_object_get(f, "severity"));
        fprintf(m, "%s", json_string_value(json_object_get(f, "message")));
    } else if ((cards = pp_render_cards_table(st)) != NULL &&
               (row = json_array_get(json_object_get(cards, "rows"), 0)) != NULL) {
        char cost[256];
        const char *fix = pp_render_row_str(cards, row, "fix");
        pp_render_card_cost(cost, sizeof cost, cards, row);
        fprintf(m, "start with %s: %s; fix: %s", pp_render_row_str(cards, row, "target"), cost,
                fix ? fix : "-");
    } else if ((tj = ranking_table(st, &figure)) != NULL) {
        const json_t *decl = json_object_get(tj, "decl");
        const char *subject = json_string_value(json_object_get(decl, "subject"));
        const json_t *cand = json_object_get(decl, "candidate");
        const char *does = json_string_value(json_object_get(cand, "does"));
        size_t fc = pp_render_col_of(tj, figure), sc = pp_render_col_of(tj, "share");
        const json_t *col = json_array_get(json_object_get(tj, "columns"), fc);
        char h[64], share[64] = "", unit[96];
        row = json_array_get(json_object_get(tj, "rows"), 0);
        pp_render_cell_named(h, sizeof h, figure, pp_render_col_type(col), json_array_get(row, fc));
        if (sc != NONE && json_is_number(json_array_get(row, sc))) {
            pp_format_percent(share, sizeof share, json_number_value(json_array_get(row, sc)));
            memmove(share + 2, share, strlen(share) + 1);
            share[0] = ',', share[1] = ' ';
            strncat(share, " of the stage", sizeof share - strlen(share) - 1);
        }
        per_unit(unit, sizeof unit, st, tj, figure, json_array_get(row, fc));
        fprintf(m,
                "%s %s %s %s (%s%s%sthe top row of table %s); what to do: make it do less of "
                "that (its callers and stacks are below; `perfpipe candidates` ranks the fixes and "
                "names where each lands)",
                subject,
                pp_render_row_str(tj, row, subject) ? pp_render_row_str(tj, row, subject) : "-",
                does ? does : "costs", h, share[0] ? share + 2 : "",
                unit[0] ? unit + (share[0] ? 0 : 2) : "", share[0] || unit[0] ? "; " : "",
                json_string_value(json_object_get(tj, "name")));
    } else if ((f = finding_of(st, "error", 1)) != NULL ||
               (f = finding_of(st, "warning", 1)) != NULL) {
        *severity = json_string_value(json_object_get(f, "severity"));
        fprintf(m, "%s", json_string_value(json_object_get(f, "message")));
    } else if ((f = finding_of(st, "info", 0)) != NULL || (f = finding_of(st, "info", 1)) != NULL) {
        fprintf(m, "%s", json_string_value(json_object_get(f, "message")));
    }
    fclose(m);
    if (s != NULL && s[0] == 0) {
        free(s);
        s = NULL;
    }
    return s;
}

int
pp_render_is_caveat(const json_t *finding)
{
    const char *s = json_string_value(json_object_get(finding, "severity"));

    return s == NULL || strcmp(s, "info") == 0;
}
