/* Charts of counters results: one line chart per footprint series of the
 * counters-csv analyzer (heap sizes, committed memory, working set), drawn
 * from its `series` table, each with its least-squares trend line and the
 * analyzer's leak verdict (a counters.leak_suspect finding naming the
 * series paints it red and says so). Used inline by the html renderer and
 * as a standalone svg (perfpipe counters-csv ... --format svg). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"
#include "result/render_html.h"

#define CH_W    560.0
#define CH_H    230.0
#define ML      70.0 /* left margin: y labels */
#define MR      16.0
#define MT      40.0 /* title and verdict */
#define MB      30.0 /* x labels */
#define PER_ROW 2

typedef struct chart {
    const char *counter, *tags, *unit, *quantity;
    int leak;
    double *t, *v; /* seconds since the first point, value */
    size_t n, cap;
} chart;

typedef struct charts {
    chart *c;
    size_t n;
} charts;

static size_t
col_index(const json_t *tj, const char *name)
{
    const json_t *c;
    size_t i;

    json_array_foreach(json_object_get(tj, "columns"), i, c)
        if (strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
            return i;
    return (size_t)-1;
}

/* The stage's summary of series and its samples, found by what they
 * declare (tables[].decl), not by name: the summary names a subject and
 * gives each row's axis and canonical quantity (counters-csv's by_counter);
 * the samples are a table with that subject's column, a time_ns column and
 * a declared figure (its series). NULL when absent. */
static const json_t *
summary_table(const json_t *st)
{
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        const char *s = json_string_value(json_object_get(json_object_get(t, "decl"), "subject"));
        if (s != NULL && col_index(t, s) != (size_t)-1 && col_index(t, "axis") != (size_t)-1 &&
            col_index(t, "quantity") != (size_t)-1)
            return t;
    }
    return NULL;
}

static const json_t *
samples_table(const json_t *st, const json_t *summary)
{
    const char *s = json_string_value(json_object_get(json_object_get(summary, "decl"), "subject"));
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        if (s != NULL && t != summary && col_index(t, s) != (size_t)-1 &&
            col_index(t, "time_ns") != (size_t)-1 &&
            json_object_size(json_object_get(json_object_get(t, "decl"), "figures")) > 0)
            return t;
    }
    return NULL;
}

static const char *
cell_str(const json_t *row, size_t i)
{
    return i == (size_t)-1 ? NULL : json_string_value(json_array_get(row, i));
}

static int
same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Is this series named by a counters.leak_suspect finding? The analyzer
 * writes "QUANTITY (COUNTER [TAGS])" or "QUANTITY (COUNTER)". */
static int
is_leak(const json_t *st, const chart *c)
{
    const json_t *f;
    size_t i;
    char want[1024];

    if (c->tags != NULL && *c->tags)
        snprintf(want, sizeof want, "(%s [%s])", c->counter, c->tags);
    else
        snprintf(want, sizeof want, "(%s)", c->counter);
    json_array_foreach(json_object_get(st, "findings"), i, f) {
        const char *code = json_string_value(json_object_get(f, "code"));
        const char *msg = json_string_value(json_object_get(f, "message"));
        if (code != NULL && strcmp(code, "counters.leak_suspect") == 0 && msg != NULL &&
            strstr(msg, want))
            return 1;
    }
    return 0;
}

static void
charts_free(charts *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        free(cs->c[i].t);
        free(cs->c[i].v);
    }
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

/* The footprint series of a counters stage, with their points. PP_OK
 * with cs->n == 0 when the stage has none (or no series table). */
static int
collect(const json_t *st, charts *cs, pp_error *err)
{
    const json_t *bc = summary_table(st), *se = samples_table(st, bc);
    const json_t *row;
    size_t r, ic, it, iu, ia, iq, sc, stg, stt, sv;
    int64_t t0 = INT64_MAX;

    memset(cs, 0, sizeof *cs);
    if (bc == NULL || se == NULL)
        return PP_OK;
    ic = col_index(bc, "counter");
    it = col_index(bc, "tags");
    iu = col_index(bc, "unit");
    ia = col_index(bc, "axis");
    iq = col_index(bc, "quantity");
    sc = col_index(se, "counter");
    stg = col_index(se, "tags");
    stt = col_index(se, "time_ns");
    sv = col_index(se, "value");
    if (ic == (size_t)-1 || ia == (size_t)-1 || sc == (size_t)-1 || stt == (size_t)-1 ||
        sv == (size_t)-1)
        return PP_OK;
    if ((cs->c = calloc(json_array_size(json_object_get(bc, "rows")) + 1, sizeof *cs->c)) == NULL)
        goto nomem;
    json_array_foreach(json_object_get(bc, "rows"), r, row) {
        chart *c;
        if (!same(cell_str(row, ia), "footprint"))
            continue;
        c = &cs->c[cs->n++];
        c->counter = cell_str(row, ic);
        c->tags = cell_str(row, it);
        c->unit = cell_str(row, iu);
        c->quantity = cell_str(row, iq);
        c->leak = is_leak(st, c);
    }
    json_array_foreach(json_object_get(se, "rows"), r, row) {
        const json_t *t = json_array_get(row, stt);
        if (json_is_integer(t) && json_integer_value(t) < t0)
            t0 = json_integer_value(t);
    }
    json_array_foreach(json_object_get(se, "rows"), r, row) {
        const json_t *t = json_array_get(row, stt), *v = json_array_get(row, sv);
        if (!json_is_integer(t) || !json_is_number(v))
            continue;
        for (size_t k = 0; k < cs->n; k++) {
            chart *c = &cs->c[k];
            if (!same(c->counter, cell_str(row, sc)) || !same(c->tags, cell_str(row, stg)))
                continue;
            if (c->n == c->cap) {
                size_t cap = c->cap ? c->cap * 2 : 64;
                double *nt = realloc(c->t, cap * sizeof *nt), *nv;
                if (nt == NULL)
                    goto nomem;
                c->t = nt;
                if ((nv = realloc(c->v, cap * sizeof *nv)) == NULL)
                    goto nomem;
                c->v = nv;
                c->cap = cap;
            }
            c->t[c->n] = (double)(json_integer_value(t) - t0) / 1e9;
            c->v[c->n++] = json_number_value(v);
            break;
        }
    }
    return PP_OK;
nomem:
    charts_free(cs);
    pp_error_set(err, PP_ENOMEM, "charts: out of memory");
    return PP_ENOMEM;
}

static void
fmt_value(char *buf, size_t size, const char *unit, double v)
{
    if (unit != NULL && strcmp(unit, "B") == 0)
        pp_format_bytes(buf, size, v);
    else
        pp_format_number(buf, size, v);
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about 4 ticks. */
static double
nice_step(double span)
{
    double raw = span / 4.0, p = pow(10.0, floor(log10(raw))), m = raw / p;

    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void
draw_chart(FILE *out, const chart *c, double ox, double oy)
{
    double tmax = 0, vmin = INFINITY, vmax = -INFINITY, st = 0, sv = 0, stt = 0, stv = 0;
    double pw = CH_W - ML - MR, ph = CH_H - MT - MB, step, slope = NAN, icept = NAN;
    char a[64], b[64];

    for (size_t i = 0; i < c->n; i++) {
        tmax = c->t[i] > tmax ? c->t[i] : tmax;
        vmin = c->v[i] < vmin ? c->v[i] : vmin;
        vmax = c->v[i] > vmax ? c->v[i] : vmax;
        st += c->t[i];
        sv += c->v[i];
    }
    if (c->n >= 2) {
        double mt = st / (double)c->n, mv = sv / (double)c->n;
        for (size_t i = 0; i < c->n; i++) {
            stt += (c->t[i] - mt) * (c->t[i] - mt);
            stv += (c->t[i] - mt) * (c->v[i] - mv);
        }
        if (stt > 0) {
            slope = stv / stt;
            icept = mv - slope * mt;
        }
    }
    if (c->n == 0) {
        vmin = 0;
        vmax = 1;
    }
    if (vmin > 0 && vmin < vmax * 0.5)
        vmin = 0; /* start at zero unless that flattens the line */
    if (vmax <= vmin) {
        /* flat: a span a person reads (bytes are whole, so 1 KB at least) */
        double span = fabs(vmin) * 0.1,
               least = c->unit != NULL && strcmp(c->unit, "B") == 0 ? 1000 : 1;
        vmax = vmin + (span > least ? span : least);
    }
    if (tmax <= 0)
        tmax = 1;
    step = nice_step(vmax - vmin);
    vmin = floor(vmin / step) * step;
    vmax = ceil(vmax / step) * step;
#define X(t) (ox + ML + (t) / tmax * pw)
#define Y(v) (oy + MT + ph - ((v)-vmin) / (vmax - vmin) * ph)
    fprintf(out, "<g class=\"series%s\" data-counter=\"", c->leak ? " leak" : "");
    pp_html_text(out, c->counter);
    fputs("\" data-tags=\"", out);
    pp_html_text(out, c->tags);
    fprintf(out, "\" data-points=\"%zu\">\n", c->n);
    fprintf(
        out,
        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"#e1e4ea\"/>\n",
        ox + 0.5, oy + 0.5, CH_W - 1, CH_H - 1);
    fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"600\">", ox + 10, oy + 17);
    pp_html_text(out, c->quantity ? c->quantity : c->counter);
    if (c->tags != NULL && *c->tags && c->quantity == NULL) {
        fputs(" [", out);
        pp_html_text(out, c->tags);
        fputc(']', out);
    }
    fputs("</text>\n", out);
    if (isfinite(slope)) {
        fmt_value(a, sizeof a, c->unit, slope * 60.0);
        fprintf(
            out,
            "<text class=\"verdict\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">trend %s%s/min%s</text>\n",
            ox + 10, oy + 33, c->leak ? "#b42318" : "#475467", slope >= 0 ? "+" : "", a,
            c->leak ? " &#8212; leak suspect" : " &#8212; no leak verdict");
    }
    /* grid and y labels */
    for (double v = vmin; v <= vmax + step / 2; v += step) {
        fmt_value(a, sizeof a, c->unit, v);
        fprintf(out,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eceef2\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#667085\">%s</text>\n",
                X(0), X(tmax), Y(v), Y(v), ox + ML - 6, Y(v) + 4, a);
    }
    {
        double ts = nice_step(tmax);
        for (double t = 0; t <= tmax + ts / 100; t += ts)
            fprintf(
                out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#667085\">%gs</text>\n",
                X(t), oy + CH_H - 10, t);
    }
    fputs("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"", out);
    fputs(c->leak ? "#d92d20" : "#1f5fbf", out);
    fputs("\" points=\"", out);
    for (size_t i = 0; i < c->n; i++)
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", X(c->t[i]), Y(c->v[i]));
    fputs("\"/>\n", out);
    for (size_t i = 0; i < c->n && c->n <= 120; i++) {
        fmt_value(a, sizeof a, c->unit, c->v[i]);
        fprintf(
            out,
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%gs: %s</title></circle>\n",
            X(c->t[i]), Y(c->v[i]), c->leak ? "#d92d20" : "#1f5fbf", c->t[i], a);
    }
    if (isfinite(slope)) {
        double v0 = icept, v1 = icept + slope * tmax;
        fmt_value(b, sizeof b, c->unit, slope * 60.0);
        fprintf(
            out,
            "<line class=\"trend\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#f79009\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>least-squares trend: %s/min</title></line>\n",
            X(0), Y(v0), X(tmax), Y(v1), b);
    }
    fputs("</g>\n", out);
#undef X
#undef Y
}

static void
draw_all(FILE *out, const charts *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        draw_chart(out, &cs->c[i], (double)(i % PER_ROW) * (CH_W + 10),
                   (double)(i / PER_ROW) * (CH_H + 10));
}

int
pp_html_stage_charts(const json_t *st, FILE *out, pp_error *err)
{
    charts cs;
    int rc = collect(st, &cs, err);

    if (rc != PP_OK)
        return rc;
    if (cs.n == 0) {
        if (summary_table(st) != NULL && samples_table(st, summary_table(st)) == NULL)
            fputs(
                "<p class=\"sub\">Charts need the samples: run with <span class=\"code\">--option series=true</span>.</p>\n",
                out);
        charts_free(&cs);
        return PP_OK;
    }
    fputs(
        "<h3>Footprint over time <small>dashed: least-squares trend</small></h3><div class=\"charts\">\n",
        out);
    for (size_t i = 0; i < cs.n; i++) {
        fprintf(
            out,
            "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"system-ui,sans-serif\" font-size=\"12\">\n",
            CH_W, CH_H, CH_W, CH_H);
        draw_chart(out, &cs.c[i], 0, 0);
        fputs("</svg>\n", out);
    }
    fputs("</div>\n", out);
    charts_free(&cs);
    return PP_OK;
}

int
pp_render_counters_svg(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st;
    size_t si;

    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        charts cs;
        int rc = collect(st, &cs, err);
        double w, h;
        if (rc != PP_OK)
            return rc;
        if (cs.n == 0) {
            charts_free(&cs);
            continue;
        }
        w = (cs.n < PER_ROW ? (double)cs.n : PER_ROW) * (CH_W + 10) - 10;
        h = (double)((cs.n + PER_ROW - 1) / PER_ROW) * (CH_H + 10) - 10;
        fprintf(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"#f6f7f9\"/>\n",
            w, h, w, h);
        draw_all(out, &cs);
        fputs("</svg>\n", out);
        charts_free(&cs);
        return pp_render_check_io(out, "svg", err);
    }
    pp_error_set(
        err, PP_ENOTFOUND,
        "nothing to draw: no stack table, and no counters series (run counters-csv with --option series=true for charts)");
    return PP_ENOTFOUND;
}
