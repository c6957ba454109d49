/* The markdown renderer: for pull requests and issues. A heading per
 * stage, GitHub pipe tables with the human units of the table renderer,
 * findings as a bullet list. Strings are kept whole and escaped so type
 * names such as List`1[System.Int32] or <Main>g__Local show as written. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

static void
md_text(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        switch (*s) {
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '<':
        case '>':
        case '|':
        case '#':
            fputc('\\', out);
            fputc(*s, out);
            break;
        case '\r':
        case '\n': fputc(' ', out); break;
        default: fputc(*s, out);
        }
    }
}

static void
md_table(const json_t *tj, const pp_render_opts *o, FILE *out)
{
    const json_t *cols = json_object_get(tj, "columns");
    const json_t *col, *row;
    size_t c, r, ncol = json_array_size(cols);
    char buf[128];

    fputs("### ", out);
    md_text(out, json_string_value(json_object_get(tj, "name")));
    fputs("\n\n", out);
    if (json_array_size(json_object_get(tj, "rows")) == 0) {
        fputs("(no rows)\n\n", out);
        return;
    }
    fputc('|', out);
    json_array_foreach(cols, c, col) {
        fputc(' ', out);
        md_text(out, json_string_value(json_object_get(col, "name")));
        fputs(" |", out);
    }
    fputs("\n|", out);
    json_array_foreach(cols, c, col)
        fputs(pp_render_col_numeric(pp_render_col_type(col)) ? " --: |" : " :-- |", out);
    fputc('\n', out);
    json_array_foreach(json_object_get(tj, "rows"), r, row) {
        if (o->top > 0 && (uint64_t)r >= (uint64_t)o->top)
            break;
        fputc('|', out);
        for (c = 0; c < ncol; c++) {
            const json_t *cj = json_array_get(cols, c);
            uint32_t t = pp_render_col_type(cj);
            pp_render_cell_named(buf, sizeof buf, json_string_value(json_object_get(cj, "name")), t,
                                 json_array_get(row, c));
            fputc(' ', out);
            if (t == PP_COL_STRING && json_is_string(json_array_get(row, c)))
                md_text(out, json_string_value(json_array_get(row, c)));
            else
                md_text(out, buf);
            fputs(" |", out);
        }
        fputc('\n', out);
    }
    if (o->top > 0 && json_array_size(json_object_get(tj, "rows")) > (uint64_t)o->top) {
        pp_format_count(buf, sizeof buf,
                        (int64_t)(json_array_size(json_object_get(tj, "rows")) - (size_t)o->top));
        fprintf(out, "\n(%s more rows not shown; json and csv carry every row)\n", buf);
    }
    fputc('\n', out);
}

/* Candidates as cards: a heading per candidate and its fields as a list
 * (a sixteen-column pipe table cannot be read in a pull request). */
static void
md_cards(const json_t *tj, const pp_render_opts *o, FILE *out)
{
    static const char *const fields[] = { "fix",    "lands",    "call_site", "module", "lands_why",
                                          "verify", "evidence", "axis",      "rules",  NULL };
    const json_t *row;
    size_t r;
    char buf[256];

    fputs("### ", out);
    md_text(out, json_string_value(json_object_get(tj, "name")));
    fputs("\n\n", out);
    json_array_foreach(json_object_get(tj, "rows"), r, row) {
        if (o->top > 0 && (uint64_t)r >= (uint64_t)o->top)
            break;
        fprintf(out, "#### %zu. ", r + 1);
        md_text(out, pp_render_row_str(tj, row, "target"));
        pp_render_card_cost(buf, sizeof buf, tj, row);
        fputs("\n\n- **cost**: ", out);
        md_text(out, buf);
        fputc('\n', out);
        for (size_t i = 0; fields[i] != NULL; i++) {
            const char *v = pp_render_row_str(tj, row, fields[i]);
            if (v == NULL || !*v)
                continue;
            fprintf(out, "- **%s**: ", fields[i]);
            md_text(out, v);
            fputc('\n', out);
        }
        fputc('\n', out);
    }
}

int
pp_render_markdown(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    const json_t *tool = json_object_get(doc, "tool");
    const json_t *knobs = json_object_get(doc, "knobs");
    const json_t *pipeline = json_object_get(doc, "pipeline");
    const json_t *inputs = json_object_get(doc, "inputs");
    const json_t *st, *tj, *f, *v, *in;
    const char *k;
    size_t si, ti, fi, ii;
    char buf[128];

    if (json_is_string(json_object_get(json_object_get(doc, "verdict"), "line"))) {
        /* a comparison: its verdict first */
        const json_t *vd = json_object_get(doc, "verdict");

        fputs("**", out);
        md_text(out, json_string_value(json_object_get(vd, "line")));
        fputs("**\n\n- baseline: ", out);
        md_text(out, json_string_value(json_object_get(vd, "baseline")));
        fputs("\n- candidate: ", out);
        md_text(out, json_string_value(json_object_get(vd, "candidate")));
        fputs("\n\n", out);
    }
    fputs("# perfpipe result: ", out);
    md_text(out, json_is_string(pipeline) ? json_string_value(pipeline) : "-");
    fprintf(out, "\n\nperfpipe %s\n\n",
            json_string_value(json_object_get(tool, "version")) ?
                json_string_value(json_object_get(tool, "version")) :
                "?");
    if (json_object_size(knobs) > 0) {
        fputs("Knobs:\n\n", out);
        json_object_foreach((json_t *)knobs, k, v) {
            fputs("- ", out);
            md_text(out, k);
            fputs(" = ", out);
            if (json_is_string(v))
                md_text(out, json_string_value(v));
            else {
                pp_render_cell_raw(buf, sizeof buf, v);
                md_text(out, buf);
            }
            fputc('\n', out);
        }
        fputc('\n', out);
    }
    if (json_array_size(inputs) > 0) {
        fputs(
            "## Inputs\n\n| name | kind | bytes | hash | path |\n| :-- | :-- | --: | :-- | :-- |\n",
            out);
        json_array_foreach(inputs, ii, in) {
            const json_t *bytes = json_object_get(in, "bytes");
            const json_t *hash = json_object_get(in, "hash");
            fputs("| ", out);
            md_text(out, json_string_value(json_object_get(in, "name")));
            fputs(" | ", out);
            md_text(out, json_string_value(json_object_get(in, "kind")));
            pp_render_cell_human(buf, sizeof buf, PP_COL_BYTES, bytes ? bytes : json_null());
            fprintf(out, " | %s | ", buf);
            if (json_is_object(hash)) {
                md_text(out, json_string_value(json_object_get(hash, "algo")));
                fputc(':', out);
                md_text(out, json_string_value(json_object_get(hash, "value")));
            } else {
                fputc('-', out);
            }
            fputs(" | ", out);
            md_text(out, json_string_value(json_object_get(in, "path")));
            fputs(" |\n", out);
        }
        fputc('\n', out);
    }
    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const json_t *an = json_object_get(st, "analyzer");
        const char *status = json_string_value(json_object_get(st, "status"));
        const char *aver = json_string_value(json_object_get(an, "version"));
        const json_t *totals = json_object_get(st, "totals");

        fputs("## Stage ", out);
        md_text(out, json_string_value(json_object_get(st, "id")));
        fputs(" (", out);
        md_text(out, json_string_value(json_object_get(an, "name")));
        if (aver != NULL) {
            fputc(' ', out);
            md_text(out, aver);
        }
        fputs(")\n\n", out);
        if (status != NULL && strcmp(status, "failed") == 0) {
            fputs("**FAILED**: ", out);
            md_text(out, pp_result_stage_error(st));
            fputs("\n\n", out);
        }
        {
            const char *sev;
            char *h = pp_render_headline(st, &sev);
            if (h != NULL) {
                fputs("**Answer**: ", out);
                md_text(out, h);
                fputs("\n\n", out);
                free(h);
            }
        }
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            if (tj == pp_render_cards_table(st))
                md_cards(tj, o, out);
            else
                md_table(tj, o, out);
        }
        if (json_array_size(json_object_get(st, "findings")) > 0) {
            fputs("Findings:\n\n", out);
            json_array_foreach(json_object_get(st, "findings"), fi, f) {
                fprintf(out, "- **%s** `", json_string_value(json_object_get(f, "severity")));
                /* Inside a code span only a backtick would end it. */
                for (const char *p = json_string_value(json_object_get(f, "code")); p && *p; p++)
                    fputc(*p == '`' ? '\'' : *p, out);
                fputs("`: ", out);
                md_text(out, json_string_value(json_object_get(f, "message")));
                fputc('\n', out);
            }
            fputc('\n', out);
        }
        if (json_object_size(totals) > 0) {
            fputs("Totals:\n\n", out);
            json_object_foreach((json_t *)totals, k, v) {
                const char *ty = json_string_value(json_object_get(v, "type"));
                const json_t *val = json_object_get(v, "value");
                fputs("- ", out);
                md_text(out, k);
                fputs(": ", out);
                if (ty != NULL && strcmp(ty, "string") == 0)
                    md_text(out, json_string_value(val));
                else {
                    pp_render_cell_named(buf, sizeof buf, k, pp_column_type_from_name(ty), val);
                    md_text(out, buf);
                }
                fputc('\n', out);
            }
            fputc('\n', out);
        }
    }
    return pp_render_check_io(out, "markdown", err);
}
