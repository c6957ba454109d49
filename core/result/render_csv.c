/* The csv renderer: for spreadsheets and scripts. One RFC 4180 block per
 * table (CRLF line ends, a header row of column names), each preceded by a
 * `# stage=ID table=NAME` line and separated by an empty line. Cells are
 * raw machine values: exact integers, shortest round-trip reals, empty for
 * null. Findings and totals are not tables and are left to the other
 * formats. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/render_util.h"

static void
field(FILE *out, const char *s)
{
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

int
pp_render_csv(const json_t *doc, FILE *out, pp_error *err)
{
    const json_t *st, *tj, *col, *row, *cell;
    size_t si, ti, c, r;
    int blocks = 0;
    char buf[64];

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
            json_array_foreach(json_object_get(tj, "columns"), c, col) {
                if (c > 0)
                    fputc(',', out);
                field(out, json_string_value(json_object_get(col, "name")));
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
    }
    return pp_render_check_io(out, "csv", err);
}
