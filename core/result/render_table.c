/* The table renderer: aligned text for people. Inputs first, then per
 * stage a heading, each table with aligned columns (strings left, numbers
 * right, human units), the findings and the totals. A string cell wider
 * than PP_RENDER_MAX_CELL is cut in the middle unless it sits in the last
 * column, which keeps it whole (that is where stacks and long method names
 * go); the json and csv formats always keep the full text. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define GAP "  "

static void
pad(FILE *out, size_t n)
{
    while (n-- > 0)
        fputc(' ', out);
}

/* Print cell s in a column of width w, aligned; no trailing blanks in the
 * last column. */
static void
put_cell(FILE *out, const char *s, size_t w, int right, int last)
{
    size_t sw = pp_render_width(s);

    if (right)
        pad(out, w > sw ? w - sw : 0);
    pp_render_put_line_text(out, s);
    if (!right && !last)
        pad(out, w > sw ? w - sw : 0);
}

static int
render_one_table(const json_t *tj, FILE *out, pp_error *err)
{
    const json_t *cols = json_object_get(tj, "columns");
    const json_t *rows = json_object_get(tj, "rows");
    const json_t *key = json_object_get(tj, "key");
    size_t ncol = json_array_size(cols), nrow = json_array_size(rows);
    size_t *width = NULL;
    uint32_t *type = NULL;
    char **cell = NULL;
    size_t c, r;
    const json_t *v;
    char buf[128];
    int rc = PP_OK;

    fprintf(out, "%s", json_string_value(json_object_get(tj, "name")));
    if (json_array_size(key) > 0) {
        fputs(" (key:", out);
        json_array_foreach(key, c, v)
            fprintf(out, "%s%s", c ? ", " : " ", json_string_value(v));
        fputc(')', out);
    }
    fputc('\n', out);
    if (nrow == 0) {
        fputs(GAP "(no rows)\n", out);
        return PP_OK;
    }
    width = calloc(ncol, sizeof *width);
    type = calloc(ncol, sizeof *type);
    /* nrow and ncol come from an in-memory document, so their product
     * fits: the document already holds that many cells. */
    cell = calloc((nrow + 1) * ncol, sizeof *cell);
    if (width == NULL || type == NULL || cell == NULL)
        goto nomem;
    json_array_foreach(cols, c, v) {
        type[c] = pp_render_col_type(v);
        if ((cell[c] = strdup(json_string_value(json_object_get(v, "name")))) == NULL)
            goto nomem;
        pp_render_flatten(cell[c]);
    }
    json_array_foreach(rows, r, v) {
        for (c = 0; c < ncol; c++) {
            const json_t *x = json_array_get(v, c);
            char **slot = &cell[(r + 1) * ncol + c];
            if (type[c] == PP_COL_STRING && json_is_string(x))
                *slot = c + 1 == ncol ? strdup(json_string_value(x))
                                      : pp_render_ellipsize(json_string_value(x), PP_RENDER_MAX_CELL);
            else {
                pp_render_cell_human(buf, sizeof buf, type[c], x);
                *slot = strdup(buf);
            }
            if (*slot == NULL)
                goto nomem;
            pp_render_flatten(*slot);
        }
    }
    for (r = 0; r <= nrow; r++)
        for (c = 0; c < ncol; c++) {
            size_t w = pp_render_width(cell[r * ncol + c]);
            if (w > width[c])
                width[c] = w;
        }
    for (r = 0; r <= nrow; r++) {
        fputs(GAP, out);
        for (c = 0; c < ncol; c++) {
            if (c > 0)
                fputs(GAP, out);
            put_cell(out, cell[r * ncol + c], width[c], pp_render_col_numeric(type[c]), c + 1 == ncol);
        }
        fputc('\n', out);
    }
    goto done;

nomem:
    pp_error_set(err, PP_ENOMEM, "table rendering: out of memory");
    rc = PP_ENOMEM;
done:
    if (cell != NULL)
        for (size_t i = 0; i < (nrow + 1) * ncol; i++)
            free(cell[i]);
    free(cell);
    free(width);
    free(type);
    return rc;
}

/* "xxh3-128:0123456789abcdef" (the first 16 hex digits are enough to tell
 * two captures apart by eye). */
static void
short_hash(char *buf, size_t size, const json_t *hash)
{
    const char *algo = json_string_value(json_object_get(hash, "algo"));
    const char *val = json_string_value(json_object_get(hash, "value"));

    if (algo == NULL || val == NULL)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%s:%.16s", algo, val);
}

static void
render_inputs(const json_t *doc, FILE *out)
{
    const json_t *inputs = json_object_get(doc, "inputs");
    const json_t *in;
    size_t i, wn = 0, wk = 0, wb = 0, wh = 0;
    char b[64], h[128];

    if (json_array_size(inputs) == 0)
        return;
    fputs("inputs:\n", out);
    json_array_foreach(inputs, i, in) {
        const json_t *bytes = json_object_get(in, "bytes");
        size_t n = pp_render_width(json_string_value(json_object_get(in, "name")));
        size_t k = pp_render_width(json_string_value(json_object_get(in, "kind")));
        pp_render_cell_human(b, sizeof b, PP_COL_BYTES, bytes ? bytes : json_null());
        short_hash(h, sizeof h, json_object_get(in, "hash"));
        wn = n > wn ? n : wn;
        wk = k > wk ? k : wk;
        wb = strlen(b) > wb ? strlen(b) : wb;
        wh = strlen(h) > wh ? strlen(h) : wh;
    }
    json_array_foreach(inputs, i, in) {
        const json_t *bytes = json_object_get(in, "bytes");
        pp_render_cell_human(b, sizeof b, PP_COL_BYTES, bytes ? bytes : json_null());
        short_hash(h, sizeof h, json_object_get(in, "hash"));
        fputs(GAP, out);
        put_cell(out, json_string_value(json_object_get(in, "name")), wn, 0, 0);
        fputs(GAP, out);
        put_cell(out, json_string_value(json_object_get(in, "kind")), wk, 0, 0);
        fputs(GAP, out);
        put_cell(out, b, wb, 1, 0);
        fputs(GAP, out);
        put_cell(out, h, wh, 0, 0);
        fputs(GAP, out);
        pp_render_put_line_text(out, json_string_value(json_object_get(in, "path")));
        fputc('\n', out);
    }
}

static void
render_totals(const json_t *totals, FILE *out)
{
    const char *k;
    const json_t *v;
    size_t w = 0;
    char buf[128];

    if (json_object_size(totals) == 0)
        return;
    fputs("\ntotals:\n", out);
    json_object_foreach((json_t *)totals, k, v)
        w = pp_render_width(k) > w ? pp_render_width(k) : w;
    json_object_foreach((json_t *)totals, k, v) {
        const char *ty = json_string_value(json_object_get(v, "type"));
        const json_t *val = json_object_get(v, "value");
        if (ty != NULL && strcmp(ty, "string") == 0)
            snprintf(buf, sizeof buf, "%s", json_string_value(val) ? json_string_value(val) : "-");
        else
            pp_render_cell_human(buf, sizeof buf, pp_column_type_from_name(ty), val);
        fputs(GAP, out);
        put_cell(out, k, w, 0, 0);
        fputs(GAP, out);
        pp_render_put_line_text(out, buf);
        fputc('\n', out);
    }
}

int
pp_render_text_table(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *tool = json_object_get(doc, "tool");
    const json_t *knobs = json_object_get(doc, "knobs");
    const json_t *pipeline = json_object_get(doc, "pipeline");
    const json_t *st, *tj, *f, *v;
    const char *k;
    size_t si, ti, fi;
    int rc, first = 1;

    fprintf(out, "perfpipe %s  pipeline %s\n",
            json_string_value(json_object_get(tool, "version")) ? json_string_value(json_object_get(tool, "version")) : "?",
            json_is_string(pipeline) ? json_string_value(pipeline) : "-");
    if (json_object_size(knobs) > 0) {
        fputs("knobs:", out);
        json_object_foreach((json_t *)knobs, k, v) {
            char buf[64];
            if (json_is_string(v))
                fprintf(out, "%s%s=%s", first ? " " : ", ", k, json_string_value(v));
            else {
                pp_render_cell_raw(buf, sizeof buf, v);
                fprintf(out, "%s%s=%s", first ? " " : ", ", k, buf);
            }
            first = 0;
        }
        fputc('\n', out);
    }
    render_inputs(doc, out);

    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const json_t *an = json_object_get(st, "analyzer");
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *aver = json_string_value(json_object_get(an, "version"));

        fprintf(out, "\n== stage %s: %s%s%s ==\n",
                json_string_value(json_object_get(st, "id")),
                json_string_value(json_object_get(an, "name")),
                aver ? " " : "", aver ? aver : "");
        if (status != NULL && strcmp(status, "failed") == 0) {
            const char *e = json_string_value(json_object_get(st, "error"));
            fputs("FAILED: ", out);
            pp_render_put_line_text(out, e ? e : "(no reason given)");
            fputc('\n', out);
        }
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            fputc('\n', out);
            if ((rc = render_one_table(tj, out, err)) != PP_OK)
                return rc;
        }
        if (json_array_size(json_object_get(st, "findings")) > 0)
            fputc('\n', out);
        json_array_foreach(json_object_get(st, "findings"), fi, f) {
            fprintf(out, "%s [", json_string_value(json_object_get(f, "severity")));
            pp_render_put_line_text(out, json_string_value(json_object_get(f, "code")));
            fputs("] ", out);
            pp_render_put_line_text(out, json_string_value(json_object_get(f, "message")));
            fputc('\n', out);
        }
        render_totals(json_object_get(st, "totals"), out);
    }
    return pp_render_check_io(out, "table", err);
}
