/* The table renderer: aligned text for people. Inputs first, then per
 * stage a heading, each table with aligned columns (strings left, numbers
 * right, human units), the findings and the totals. Tables are fitted to
 * the width (pp_render_opts): string columns shrink, the widest first, and
 * their cells are cut from the front, keeping the end of a frame or stack;
 * numbers are never cut, findings and string totals wrap at spaces. --wide
 * keeps everything whole; json and csv always keep the full text. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define GAP "  "

static void put_wrapped(FILE *out, const char *s, size_t col, size_t indent,
                        const pp_render_opts *o);

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

/* Column caps that fit `avail` characters: only string columns shrink,
 * the widest first, never below their header or PP_RENDER_MIN_CELL.
 * Returns 0 when the columns not dropped fit, -1 when even their least
 * widths do not (nothing is cut then). */
static int
fit_columns(size_t *width, const uint32_t *type, const size_t *minw, const uint8_t *drop,
            size_t ncol, size_t avail)
{
    size_t total = 0, least = 0;

    for (size_t c = 0; c < ncol; c++) {
        if (drop[c])
            continue;
        total += width[c];
        least += type[c] == PP_COL_STRING && width[c] > minw[c] ? minw[c] : width[c];
    }
    if (least > avail)
        return -1;
    while (total > avail) {
        size_t best = ncol;
        for (size_t c = 0; c < ncol; c++)
            if (!drop[c] && type[c] == PP_COL_STRING && width[c] > minw[c] &&
                (best == ncol || width[c] > width[best]))
                best = c;
        if (best == ncol)
            return -1;
        width[best]--;
        total--;
    }
    return 0;
}

/* How much a column is worth keeping when the table cannot fit: the first
 * column never goes; then the key, the subject, a compare's status and the
 * declared figures (tables[].decl); then a compare's deltas, other
 * numbers; other text goes first. */
static int
column_worth(const json_t *tj, size_t c, uint32_t type)
{
    const json_t *decl = json_object_get(tj, "decl"), *k;
    const char *name = json_string_value(
        json_object_get(json_array_get(json_object_get(tj, "columns"), c), "name"));
    size_t i;

    if (c == 0)
        return 9;
    if (name == NULL)
        return 0;
    json_array_foreach(json_object_get(tj, "key"), i, k)
        if (json_string_value(k) != NULL && strcmp(json_string_value(k), name) == 0)
            return 4;
    if (json_string_value(json_object_get(decl, "subject")) != NULL &&
        strcmp(json_string_value(json_object_get(decl, "subject")), name) == 0)
        return 4;
    /* a compare's verdict per row, as the html renderer colours it */
    if (strcmp(name, "status") == 0 && type == PP_COL_STRING)
        return 4;
    if (json_object_get(json_object_get(decl, "figures"), name) != NULL)
        return 3;
    /* a compare's moves before its sides */
    if (strstr(name, "delta") != NULL && pp_render_col_numeric(type))
        return 2;
    return pp_render_col_numeric(type) ? 1 : 0;
}

/* Drop the least worth column, the rightmost of equals; 0 when only the
 * first column is left. */
static int
drop_one(const json_t *tj, const uint32_t *type, uint8_t *drop, size_t ncol)
{
    size_t best = 0;
    int bw = 9;

    for (size_t c = ncol; c-- > 1;) {
        int w = drop[c] ? 99 : column_worth(tj, c, type[c]);
        if (w < bw) {
            bw = w;
            best = c;
        }
    }
    if (best == 0)
        return 0;
    drop[best] = 1;
    return 1;
}

/* The columns available to a table's cells: the width less the indent
 * and the gaps. */
static size_t
cells_avail(const pp_render_opts *o, size_t ncol)
{
    size_t w = o->width ? o->width : PP_RENDER_DEFAULT_WIDTH;
    size_t used = strlen(GAP) * ncol;

    return w > used ? w - used : 0;
}

#define KEEP_READABLE 40 /* a subject cut below this many characters reads as noise */

/* Is column c what the table is about: the first column, a key or the
 * subject (kept readable), or the figure candidates rank by? */
static int
column_core(const json_t *tj, size_t c, uint32_t type)
{
    const json_t *decl = json_object_get(tj, "decl");
    const char *cost = json_string_value(
        json_object_get(json_object_get(decl, "candidate"), "cost"));
    const char *name = json_string_value(
        json_object_get(json_array_get(json_object_get(tj, "columns"), c), "name"));

    if (column_worth(tj, c, type) >= 4)
        return 1;
    return name != NULL && ((cost != NULL && strcmp(cost, name) == 0) ||
                            (strcmp(name, "share") == 0 &&
                             json_object_get(json_object_get(decl, "figures"), name)));
}

/* Fit the table. First keep what it is about readable (its first, key and
 * subject columns at KEEP_READABLE characters at least, the ranked figure)
 * and leave out the least useful of the other columns one at a time; when
 * that cannot fit, shrink text columns to their least and leave out
 * columns as needed. A line under the table names what was left out. */
static void
fit_table(const json_t *tj, size_t *width, const uint32_t *type, const size_t *minw, uint8_t *drop,
          size_t ncol, const pp_render_opts *o)
{
    size_t *w0 = malloc(ncol * sizeof *w0), *keep = malloc(ncol * sizeof *keep);
    size_t shown = ncol;

    if (w0 == NULL || keep == NULL) {
        free(w0);
        free(keep);
        return;
    }
    memcpy(w0, width, ncol * sizeof *w0);
    for (size_t c = 0; c < ncol; c++) {
        keep[c] = minw[c];
        if (column_worth(tj, c, type[c]) >= 4 && keep[c] < KEEP_READABLE)
            keep[c] = width[c] < KEEP_READABLE ? width[c] : KEEP_READABLE;
    }
    while (fit_columns(width, type, keep, drop, ncol, cells_avail(o, shown)) != 0) {
        size_t best = ncol;
        int bw = 99;
        memcpy(width, w0, ncol * sizeof *w0);
        /* the least worth; of equals, the widest (it frees the most),
         * then the rightmost */
        for (size_t c = ncol; c-- > 1;) {
            int w = column_worth(tj, c, type[c]);
            if (!drop[c] && !column_core(tj, c, type[c]) &&
                (w < bw || (w == bw && w0[c] > w0[best]))) {
                bw = w;
                best = c;
            }
        }
        if (best == ncol) {
            /* the core alone does not fit: start again, shrinking harder */
            memset(drop, 0, ncol);
            shown = ncol;
            while (fit_columns(width, type, minw, drop, ncol, cells_avail(o, shown)) != 0) {
                memcpy(width, w0, ncol * sizeof *w0);
                if (!drop_one(tj, type, drop, ncol))
                    break;
                shown--;
            }
            break;
        }
        drop[best] = 1;
        shown--;
    }
    free(w0);
    free(keep);
}

static int
render_one_table(const json_t *tj, const pp_render_opts *o, FILE *out, pp_error *err)
{
    const json_t *cols = json_object_get(tj, "columns");
    const json_t *rows = json_object_get(tj, "rows");
    const json_t *key = json_object_get(tj, "key");
    size_t ncol = json_array_size(cols), nrow = json_array_size(rows), shown;
    size_t *width = NULL, *minw = NULL, last;
    uint32_t *type = NULL;
    uint8_t *drop = NULL;
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
    shown = o->top > 0 && (uint64_t)o->top < nrow ? (size_t)o->top : nrow;
    width = calloc(ncol, sizeof *width);
    minw = calloc(ncol, sizeof *minw);
    type = calloc(ncol, sizeof *type);
    drop = calloc(ncol ? ncol : 1, 1);
    /* shown and ncol come from an in-memory document, so their product
     * fits: the document already holds that many cells. */
    cell = calloc((shown + 1) * ncol, sizeof *cell);
    if (width == NULL || minw == NULL || type == NULL || drop == NULL || cell == NULL)
        goto nomem;
    json_array_foreach(cols, c, v) {
        type[c] = pp_render_col_type(v);
        if ((cell[c] = strdup(json_string_value(json_object_get(v, "name")))) == NULL)
            goto nomem;
        pp_render_flatten(cell[c]);
        minw[c] = pp_render_width(cell[c]);
        if (minw[c] < PP_RENDER_MIN_CELL)
            minw[c] = PP_RENDER_MIN_CELL;
    }
    for (r = 0; r < shown; r++) {
        const json_t *row = json_array_get(rows, r);
        for (c = 0; c < ncol; c++) {
            const json_t *x = json_array_get(row, c);
            char **slot = &cell[(r + 1) * ncol + c];
            const char *cname = json_string_value(json_object_get(json_array_get(cols, c), "name"));
            if (type[c] == PP_COL_STRING && json_is_string(x))
                *slot = strdup(json_string_value(x));
            else {
                pp_render_cell_named(buf, sizeof buf, cname, type[c], x);
                *slot = strdup(buf);
            }
            if (*slot == NULL)
                goto nomem;
            pp_render_flatten(*slot);
        }
    }
    for (r = 0; r <= shown; r++)
        for (c = 0; c < ncol; c++) {
            size_t w = pp_render_width(cell[r * ncol + c]);
            if (w > width[c])
                width[c] = w;
        }
    if (!o->wide) {
        fit_table(tj, width, type, minw, drop, ncol, o);
        for (r = 1; r <= shown; r++)
            for (c = 0; c < ncol; c++) {
                char **slot = &cell[r * ncol + c];
                if (!drop[c] && type[c] == PP_COL_STRING && pp_render_width(*slot) > width[c]) {
                    char *cut = pp_render_col_prose(json_array_get(cols, c)) ?
                                    pp_render_ellipsize_start(*slot, width[c]) :
                                    pp_render_ellipsize(*slot, width[c]);
                    if (cut == NULL)
                        goto nomem;
                    free(*slot);
                    *slot = cut;
                }
            }
    }
    for (last = ncol; last > 0 && drop[last - 1]; last--)
        ;
    for (r = 0; r <= shown; r++) {
        fputs(GAP, out);
        for (c = 0; c < ncol; c++) {
            if (drop[c])
                continue;
            if (c > 0)
                fputs(GAP, out);
            put_cell(out, cell[r * ncol + c], width[c], pp_render_col_numeric(type[c]),
                     c + 1 == last);
        }
        fputc('\n', out);
    }
    if (memchr(drop, 1, ncol) != NULL) {
        char *note = NULL;
        size_t nn = 0;
        FILE *m = open_memstream(&note, &nn);
        if (m == NULL)
            goto nomem;
        fputs("(left out to fit the width:", m);
        for (c = 0; c < ncol; c++)
            if (drop[c])
                fprintf(m, " %s", cell[c]);
        fputs("; --wide shows every column)", m);
        fclose(m);
        fputs(GAP, out);
        put_wrapped(out, note, strlen(GAP), 2 * strlen(GAP), o);
        fputc('\n', out);
        free(note);
    }
    if (shown < nrow) {
        pp_format_count(buf, sizeof buf, (int64_t)(nrow - shown));
        fprintf(out,
                GAP "(%s more row%s not shown: --top 0 shows all; json and csv carry every row)\n",
                buf, nrow - shown == 1 ? "" : "s");
    }
    goto done;

nomem:
    pp_error_set(err, PP_ENOMEM, "table rendering: out of memory");
    rc = PP_ENOMEM;
done:
    if (cell != NULL)
        for (size_t i = 0; i < (shown + 1) * ncol; i++)
            free(cell[i]);
    free(cell);
    free(width);
    free(minw);
    free(type);
    free(drop);
    return rc;
}

/* Text at column `col` (already there), wrapped at spaces to the width,
 * continuation lines indented by `indent`; a word longer than a line is
 * printed whole, never cut. --wide, or no width known: one line. */
static void
put_wrapped(FILE *out, const char *s, size_t col, size_t indent, const pp_render_opts *o)
{
    size_t w = o->width ? o->width : PP_RENDER_DEFAULT_WIDTH;
    size_t at = col;

    /* Unknown width (a pipe, a file): one line, so grep finds a phrase. */
    if (o->wide || o->width == 0 || s == NULL) {
        pp_render_put_line_text(out, s);
        return;
    }
    for (int first = 1; *s; first = 0) {
        size_t wl = 0, bytes = 0;
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        while (s[bytes] && s[bytes] != ' ') {
            if (((unsigned char)s[bytes] & 0xC0) != 0x80)
                wl++;
            bytes++;
        }
        if (!first) {
            if (at + 1 + wl > w && at > indent) {
                fputc('\n', out);
                pad(out, indent);
                at = indent;
            } else {
                fputc(' ', out);
                at++;
            }
        }
        for (size_t i = 0; i < bytes; i++)
            fputc((unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i], out);
        at += wl;
        s += bytes;
    }
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
render_inputs(const json_t *doc, const pp_render_opts *o, FILE *out)
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
        {
            /* the path last, cut from the front to the width (its end
             * names the file) */
            const char *path = json_string_value(json_object_get(in, "path"));
            size_t used = 5 * strlen(GAP) + wn + wk + wb + wh;
            size_t w = o->width ? o->width : PP_RENDER_DEFAULT_WIDTH;
            char *cut = NULL;
            if (!o->wide && path != NULL && w > used + PP_RENDER_MIN_CELL &&
                pp_render_width(path) > w - used)
                cut = pp_render_ellipsize(path, w - used);
            pp_render_put_line_text(out, cut != NULL ? cut : path);
            free(cut);
        }
        fputc('\n', out);
    }
}

static void
render_totals(const json_t *totals, const pp_render_opts *o, FILE *out)
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
            pp_render_cell_named(buf, sizeof buf, k, pp_column_type_from_name(ty), val);
        fputs(GAP, out);
        put_cell(out, k, w, 0, 0);
        fputs(GAP, out);
        /* A string total can be a sentence (how a figure is measured):
         * wrapped under its own column, never cut. */
        put_wrapped(out, ty != NULL && strcmp(ty, "string") == 0 ? json_string_value(val) : buf,
                    2 * strlen(GAP) + w, 2 * strlen(GAP) + w, o);
        fputc('\n', out);
    }
}

/* Headlines and cards wrap at the width even when it is unknown (a pipe):
 * they are sentences for people, grep finds their first words. */
static pp_render_opts
prose_opts(const pp_render_opts *o)
{
    pp_render_opts w = *o;

    if (w.width == 0)
        w.width = PP_RENDER_DEFAULT_WIDTH;
    return w;
}

static void
render_headline(const json_t *st, const pp_render_opts *o, FILE *out)
{
    pp_render_opts w = prose_opts(o);
    const char *sev;
    char *h = pp_render_headline(st, &sev);

    if (h == NULL)
        return;
    fputs("\nanswer: ", out);
    put_wrapped(out, h, 8, 4, &w);
    fputc('\n', out);
    free(h);
}

/* One card field: "    label     text", wrapped under its text. */
static void
card_field(FILE *out, const char *label, const char *text, const pp_render_opts *o)
{
    if (text == NULL || !*text)
        return;
    fprintf(out, "    %-9s ", label);
    put_wrapped(out, text, 14, 14, o);
    fputc('\n', out);
}

/* Columns a card shows under a name of its own (cost, lands) or in its
 * title; the others follow as "name: value". */
static int
card_folded(const char *name)
{
    static const char *const folded[] = { "rank",      "target",    "figure", "share",    "cost",
                                          "cost_unit", "per_unit",  "fix",    "lands",    "module",
                                          "call_site", "lands_why", "verify", "evidence", NULL };

    for (size_t i = 0; folded[i] != NULL; i++)
        if (strcmp(folded[i], name) == 0)
            return 1;
    return 0;
}

/* Candidates as cards: a table of sixteen columns cannot be read at any
 * width, a card per row can (target, cost per unit, fix shape, where it
 * lands, verification plan, evidence). */
static void
render_cards(const json_t *tj, const pp_render_opts *o, FILE *out)
{
    const json_t *rows = json_object_get(tj, "rows"), *row, *col;
    pp_render_opts w = prose_opts(o);
    size_t r, c, nrow = json_array_size(rows);
    size_t shown = o->top > 0 && (uint64_t)o->top < nrow ? (size_t)o->top : nrow;
    char buf[256];

    fprintf(out, "%s\n", json_string_value(json_object_get(tj, "name")));
    if (nrow == 0)
        fputs(GAP "(no rows)\n", out);
    json_array_foreach(rows, r, row) {
        const char *lands = pp_render_row_str(tj, row, "lands");
        char *where = NULL;
        size_t wn = 0;
        FILE *m;
        if (r >= shown)
            break;
        fprintf(out, "%s#%zu ", r ? "\n" : "", r + 1);
        put_wrapped(out, pp_render_row_str(tj, row, "target"), 4, 4, &w);
        fputc('\n', out);
        pp_render_card_cost(buf, sizeof buf, tj, row);
        card_field(out, "cost", buf, &w);
        card_field(out, "fix", pp_render_row_str(tj, row, "fix"), &w);
        if ((m = open_memstream(&where, &wn)) != NULL) {
            const char *site = pp_render_row_str(tj, row, "call_site");
            const char *mod = pp_render_row_str(tj, row, "module");
            const char *why = pp_render_row_str(tj, row, "lands_why");
            fprintf(m, "%s%s%s%s%s%s%s%s", lands ? lands : "", site ? ": " : "", site ? site : "",
                    mod ? " (module " : "", mod ? mod : "", mod ? ")" : "", why ? "; " : "",
                    why ? why : "");
            fclose(m);
            card_field(out, "lands", where, &w);
            free(where);
        }
        card_field(out, "verify", pp_render_row_str(tj, row, "verify"), &w);
        card_field(out, "evidence", pp_render_row_str(tj, row, "evidence"), &w);
        json_array_foreach(json_object_get(tj, "columns"), c, col) {
            const char *name = json_string_value(json_object_get(col, "name"));
            const json_t *x = json_array_get(row, c);
            if (name == NULL || card_folded(name) || json_is_null(x) || x == NULL)
                continue;
            if (json_is_string(x))
                card_field(out, name, json_string_value(x), &w);
            else {
                pp_render_cell_named(buf, sizeof buf, name, pp_render_col_type(col), x);
                card_field(out, name, buf, &w);
            }
        }
    }
    if (shown < nrow) {
        pp_format_count(buf, sizeof buf, (int64_t)(nrow - shown));
        fprintf(out, GAP "(%s more not shown: --top 0 shows all)\n", buf);
    }
}

int
pp_render_text_table(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    const json_t *tool = json_object_get(doc, "tool");
    const json_t *knobs = json_object_get(doc, "knobs");
    const json_t *pipeline = json_object_get(doc, "pipeline");
    const json_t *st, *tj, *f, *v;
    const char *k;
    size_t si, ti, fi;
    int rc, first = 1;

    if (json_is_string(json_object_get(json_object_get(doc, "verdict"), "line"))) {
        /* a comparison: its verdict first */
        const json_t *vd = json_object_get(doc, "verdict");

        put_wrapped(out, json_string_value(json_object_get(vd, "line")), 0, 2, o);
        fprintf(out, "\n  baseline:  %s\n  candidate: %s\n\n",
                json_string_value(json_object_get(vd, "baseline")) ?
                    json_string_value(json_object_get(vd, "baseline")) :
                    "-",
                json_string_value(json_object_get(vd, "candidate")) ?
                    json_string_value(json_object_get(vd, "candidate")) :
                    "-");
    }
    fprintf(out, "perfpipe %s  pipeline %s\n",
            json_string_value(json_object_get(tool, "version")) ?
                json_string_value(json_object_get(tool, "version")) :
                "?",
            json_is_string(pipeline) ? json_string_value(pipeline) : "-");
    if (json_object_size(knobs) > 0) {
        char *line = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&line, &n);
        if (m == NULL) {
            pp_error_set(err, PP_ENOMEM, "table rendering: out of memory");
            return PP_ENOMEM;
        }
        json_object_foreach((json_t *)knobs, k, v) {
            char buf[64];
            if (json_is_string(v))
                fprintf(m, "%s%s=%s", first ? "" : ", ", k, json_string_value(v));
            else {
                pp_render_cell_raw(buf, sizeof buf, v);
                fprintf(m, "%s%s=%s", first ? "" : ", ", k, buf);
            }
            first = 0;
        }
        fclose(m);
        fputs("knobs: ", out);
        put_wrapped(out, line, 7, 4, o);
        fputc('\n', out);
        free(line);
    }
    render_inputs(doc, o, out);

    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const json_t *an = json_object_get(st, "analyzer");
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *aver = json_string_value(json_object_get(an, "version"));

        fprintf(out, "\n== stage %s: %s%s%s ==\n", json_string_value(json_object_get(st, "id")),
                json_string_value(json_object_get(an, "name")), aver ? " " : "", aver ? aver : "");
        if (status != NULL && strcmp(status, "failed") == 0) {
            const char *e = pp_result_stage_error(st);
            fputs("FAILED: ", out);
            pp_render_put_line_text(out, e ? e : "(no reason given)");
            fputc('\n', out);
        }
        render_headline(st, o, out);
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            fputc('\n', out);
            if (tj == pp_render_cards_table(st))
                render_cards(tj, o, out);
            else if ((rc = render_one_table(tj, o, out, err)) != PP_OK)
                return rc;
        }
        if (json_array_size(json_object_get(st, "findings")) > 0)
            fputc('\n', out);
        json_array_foreach(json_object_get(st, "findings"), fi, f) {
            const char *sev = json_string_value(json_object_get(f, "severity"));
            const char *code = json_string_value(json_object_get(f, "code"));
            fprintf(out, "%s [", sev);
            pp_render_put_line_text(out, code);
            fputs("] ", out);
            put_wrapped(out, json_string_value(json_object_get(f, "message")),
                        pp_render_width(sev ? sev : "") + pp_render_width(code ? code : "") + 4, 4,
                        o);
            fputc('\n', out);
        }
        render_totals(json_object_get(st, "totals"), o, out);
    }
    return pp_render_check_io(out, "table", err);
}
