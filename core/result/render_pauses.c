/* The pause chart of a GC result: one bar per GC at its start time, as
 * tall as its pause (left axis, coloured by generation), and the heap size
 * after each GC as a line (right axis). Any stage whose table has the
 * columns start (timestamp_ns), pause (duration_ns), heap_after (bytes)
 * and gen (count) gets it, so the renderer names no analyzer. Used inline
 * by the html renderer and as a standalone svg (perfpipe gc ... --format
 * svg), in the manner of render_charts.c. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"
#include "result/render_html.h"

#define PW_W 1000.0
#define PW_H 300.0
#define PL   70.0
#define PR   80.0
#define PT   40.0
#define PB   30.0

typedef struct pause_cols {
    const json_t *rows;
    size_t start, pause, heap, gen;
} pause_cols;

static int
col_of(const json_t *tj, const char *name, const char *type, size_t *out)
{
    const json_t *c;
    size_t i;

    json_array_foreach(json_object_get(tj, "columns"), i, c) {
        const char *n = json_string_value(json_object_get(c, "name"));
        const char *t = json_string_value(json_object_get(c, "type"));
        if (n != NULL && t != NULL && strcmp(n, name) == 0 && strcmp(t, type) == 0) {
            *out = i;
            return 1;
        }
    }
    return 0;
}

/* The stage's first table shaped as a per-GC table, 0 if none. */
static int
find_pauses(const json_t *st, pause_cols *pc)
{
    const json_t *tj;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, tj)
        if (col_of(tj, "start", "timestamp_ns", &pc->start) &&
            col_of(tj, "pause", "duration_ns", &pc->pause) &&
            col_of(tj, "heap_after", "bytes", &pc->heap) && col_of(tj, "gen", "count", &pc->gen) &&
            json_array_size(json_object_get(tj, "rows")) > 0) {
            pc->rows = json_object_get(tj, "rows");
            return 1;
        }
    return 0;
}

static double
num(const json_t *row, size_t i)
{
    return json_number_value(json_array_get(row, i));
}

static double
nice(double span)
{
    double raw = span / 4.0, p = pow(10.0, floor(log10(raw))), m = raw / p;

    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void
axes(FILE *out, double tmax, double pmax, double hmax)
{
    double ph = PW_H - PT - PB, pw = PW_W - PL - PR, s;
    char a[64];

    for (s = 0; s <= pmax * 1.0001; s += nice(pmax)) {
        double y = PT + ph - s / pmax * ph;
        fprintf(out,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eceef2\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#667085\">%g ms</text>\n",
                PL, PL + pw, y, y, PL - 6, y + 4, s);
    }
    for (s = 0; s <= hmax * 1.0001; s += nice(hmax)) {
        pp_format_bytes(a, sizeof a, s);
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#1f5fbf\">%s</text>\n", PL + pw + 6,
                PT + ph - s / hmax * ph + 4, a);
    }
    for (s = 0; s <= tmax * 1.0001; s += nice(tmax))
        fprintf(out,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#667085\">%gs</text>\n",
                PL + s / tmax * pw, PW_H - 10, s);
}

static void
draw(FILE *out, const pause_cols *pc)
{
    static const char *const gen_fill[] = { "#12b76a", "#f79009", "#d92d20" };
    double tmax = 0, pmax = 0, hmax = 0, ph = PW_H - PT - PB, pw = PW_W - PL - PR, bw;
    const json_t *row;
    size_t i, n = json_array_size(pc->rows);

    json_array_foreach(pc->rows, i, row) {
        tmax = fmax(tmax, num(row, pc->start) / 1e9);
        pmax = fmax(pmax, num(row, pc->pause) / 1e6);
        hmax = fmax(hmax, num(row, pc->heap));
    }
    tmax = tmax > 0 ? tmax * 1.02 : 1;
    pmax = pmax > 0 ? ceil(pmax / nice(pmax)) * nice(pmax) : 1;
    hmax = hmax > 0 ? ceil(hmax / nice(hmax)) * nice(hmax) : 1;
    bw = fmax(1.5, fmin(8.0, pw / (double)n * 0.6));
    fprintf(
        out,
        "<rect x=\"0.5\" y=\"0.5\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"#e1e4ea\"/>\n"
        "<text x=\"10\" y=\"17\" font-weight=\"600\">GC pauses over time (bars: pause, by generation "
        "<tspan fill=\"#12b76a\">gen0</tspan> <tspan fill=\"#f79009\">gen1</tspan> "
        "<tspan fill=\"#d92d20\">gen2</tspan>; line: heap after the GC)</text>\n",
        PW_W - 1, PW_H - 1);
    axes(out, tmax, pmax, hmax);
    json_array_foreach(pc->rows, i, row) {
        double x = PL + num(row, pc->start) / 1e9 / tmax * pw, p = num(row, pc->pause) / 1e6;
        double h = fmax(0.5, p / pmax * ph);
        int g = (int)num(row, pc->gen);
        fprintf(
            out,
            "<rect class=\"pause\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
            "<title>%.3fs gen%d: pause %.3f ms</title></rect>\n",
            x - bw / 2, PT + ph - h, bw, h, gen_fill[g >= 0 && g <= 2 ? g : 2],
            num(row, pc->start) / 1e9, g, p);
    }
    fputs("<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"1.5\" points=\"", out);
    json_array_foreach(pc->rows, i, row)
        fprintf(out, "%s%.1f,%.1f", i ? " " : "", PL + num(row, pc->start) / 1e9 / tmax * pw,
                PT + ph - num(row, pc->heap) / hmax * ph);
    fputs("\"/>\n", out);
}

int
pp_html_stage_pauses(const json_t *st, FILE *out, pp_error *err)
{
    pause_cols pc;

    (void)err;
    if (!find_pauses(st, &pc))
        return PP_OK;
    fprintf(
        out,
        "<h3>GC pauses</h3><div class=\"charts\"><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
        "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"system-ui,sans-serif\" "
        "font-size=\"12\">\n",
        PW_W, PW_H, PW_W, PW_H);
    draw(out, &pc);
    fputs("</svg></div>\n", out);
    return PP_OK;
}

int
pp_render_pauses_svg(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st;
    size_t si;

    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        pause_cols pc;
        if (!find_pauses(st, &pc))
            continue;
        fprintf(
            out,
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
            PW_W, PW_H, PW_W, PW_H);
        draw(out, &pc);
        fputs("</svg>\n", out);
        return pp_render_check_io(out, "svg", err);
    }
    return PP_ENOTFOUND;
}
