/* The csv renderer: for spreadsheets and scripts. A named table (--table)
 * is one plain RFC 4180 file: a header row, then the rows. The whole
 * document on one stream is one block per table, each preceded by a
 * `# stage=ID table=NAME` line and separated by an empty line; a CSV
 * directory (perfpipe ... -o DIR/) holds one plain file per table plus
 * totals.csv and findings.csv. CRLF line ends. Headers carry the unit of
 * their column's type (share_pct, wall_ns, size_bytes) so a spreadsheet
 * user need not guess; cells are raw machine values: exact integers,
 * shortest round-trip reals, empty for null. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/render_util.h"

static void
field(FILE *out, const char *s)
{
    if (s == NULL)
        return;
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void
pp_render_csv_header(char *buf, size_t size, const json_t *col)
{
    const char *name = json_string_value(json_object_get(col, "name"));
    const char *unit = NULL;

    if (name == NULL)
        name = "";
    switch (pp_render_col_type(col)) {
    case PP_COL_PERCENT:
        if (!ends_with(name, "pct") && !ends_with(name, "percent"))
            unit = "_pct";
        break;
    case PP_COL_DURATION_NS:
    case PP_COL_TIMESTAMP_NS:
        if (!ends_with(name, "_ns"))
            unit = "_ns";
        break;
    case PP_COL_BYTES:
        if (!ends_with(name, "bytes"))
            unit = "_bytes";
        break;
    default: break;
    }
    snprintf(buf, size, "%s%s", name, unit ? unit : "");
}

static void
put_table(const json_t *tj, FILE *out)
{
    const json_t *col, *row, *cell;
    size_t c, r;
    char buf[512];

    json_array_foreach(json_object_get(tj, "columns"), c, col) {
        if (c > 0)
            fputc(',', out);
        pp_render_csv_header(buf, sizeof buf, col);
        field(out, buf);
    }
    fputs("\r\n", out);
    json_array_foreach(json_object_get(tj, "rows"), r, row) {
        json_array_foreach(row, c, cell) {
            if (c > 0)
                fputc(',', out);
            if (json_is_string(cell)) {
                field(out, json_string_value(cell));
            } else {
                pp_render_cell_raw(buf, sizeof buf, cell);
                fputs(buf, out);
            }
        }
        fputs("\r\n", out);
    }
}

int
pp_render_csv_one(const json_t *tj, FILE *out, pp_error *err)
{
    put_table(tj, out);
    return pp_render_check_io(out, "csv", err);
}

int
pp_render_csv(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st, *tj;
    size_t si, ti;
    int blocks = 0;

    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const char *sid = json_string_value(json_object_get(st, "id"));
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            if (blocks++ > 0)
                fputs("\r\n", out);
            /* The marker line is not a record: IDs and names never hold
             * line breaks from the builder, but keep the line one line. */
            fputs("# stage=", out);
            for (const char *p = sid ? sid : ""; *p; p++)
                fputc(*p == '\r' || *p == '\n' ? ' ' : *p, out);
            fputs(" table=", out);
            for (const char *p = json_string_value(json_object_get(tj, "name")); p && *p; p++)
                fputc(*p == '\r' || *p == '\n' ? ' ' : *p, out);
            fputs("\r\n", out);
            put_table(tj, out);
        }
    }
    return pp_render_check_io(out, "csv", err);
}

int
pp_render_csv_totals(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st, *v;
    const char *k;
    size_t si;
    char buf[64];

    fputs("stage,name,type,value\r\n", out);
    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        json_object_foreach(json_object_get(st, "totals"), k, v) {
            const json_t *val = json_object_get(v, "value");
            field(out, json_string_value(json_object_get(st, "id")));
            fputc(',', out);
            field(out, k);
            fputc(',', out);
            field(out, json_string_value(json_object_get(v, "type")));
            fputc(',', out);
            if (json_is_string(val))
                field(out, json_string_value(val));
            else {
                pp_render_cell_raw(buf, sizeof buf, val);
                fputs(buf, out);
            }
            fputs("\r\n", out);
        }
    }
    return pp_render_check_io(out, "csv", err);
}

int
pp_render_csv_findings(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st, *f;
    size_t si, fi;

    fputs("stage,severity,code,message\r\n", out);
    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        json_array_foreach(json_object_get(st, "findings"), fi, f) {
            field(out, json_string_value(json_object_get(st, "id")));
            fputc(',', out);
            field(out, json_string_value(json_object_get(f, "severity")));
            fputc(',', out);
            field(out, json_string_value(json_object_get(f, "code")));
            fputc(',', out);
            field(out, json_string_value(json_object_get(f, "message")));
            fputs("\r\n", out);
        }
    }
    return pp_render_check_io(out, "csv", err);
}
