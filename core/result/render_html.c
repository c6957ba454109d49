/* The html renderer: one self-contained page that holds one run's whole
 * story (or a compare's, or the candidates'), readable without network:
 * the header (process identity, inputs with their hashes and any damage,
 * knobs), every finding first and coloured by severity, then per stage its
 * flame graph (the svg renderer's, in an iframe so each keeps its own
 * script and ids), its charts, its totals and its tables, each sortable
 * (click a header) and filterable (type words). Every number cell carries
 * its exact machine value in data-v beside the human text, so sorting is
 * exact and a test can check the page against the JSON document. Rows of a
 * compare get the verdict colour of their status column. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"
#include "result/render_html.h"

#define SHOWN_ROWS 50  /* rows shown before "show all" */
#define LONG_CELL  160 /* longer strings show their start, the rest on demand */

static const char *
str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* The verdict classes of a compare status ("grew", "appeared (noise)"):
 * "st-WORD", plus "noise" when the move was within sampling noise. */
static void
put_status_class(FILE *out, const char *status)
{
    size_t n = strcspn(status, " ");
    char word[32];

    snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word - 1 ? n : sizeof word - 1), status);
    fputs("st-", out);
    pp_html_text(out, word);
    if (strstr(status, "noise") != NULL)
        fputs(" noise", out);
}

/* A stack or long name, with a break opportunity after each ';' and '.'
 * so it wraps at frame boundaries (<wbr> adds no text). */
static void
put_breakable(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        char one[2] = { *s, 0 };
        pp_html_text(out, one);
        if (*s == ';')
            fputs("<wbr>", out);
    }
}

static void
put_cell(FILE *out, const char *cname, uint32_t type, const json_t *cell, const char *status)
{
    char human[128], raw[128];

    if (type == PP_COL_STRING) {
        const char *s = json_string_value(cell);
        if (s == NULL) {
            fputs("<td class=\"str null\">-</td>", out);
            return;
        }
        fputs("<td class=\"str", out);
        if (status != NULL) {
            fputc(' ', out);
            put_status_class(out, s);
        }
        fputs("\" data-v=\"", out);
        pp_html_text(out, s);
        fputs("\">", out);
        if (strlen(s) > LONG_CELL) {
            /* a long path or SQL text: its start, the rest on demand,
             * never a column of blank space */
            size_t cut = LONG_CELL / 2;
            while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
                cut--;
            fputs("<details class=\"long\"><summary>", out);
            char *head = strndup(s, cut);
            put_breakable(out, head ? head : "");
            free(head);
            fputs("&hellip;</summary>", out);
            put_breakable(out, s);
            fputs("</details></td>", out);
            return;
        }
        put_breakable(out, s);
        fputs("</td>", out);
        return;
    }
    pp_render_cell_named(human, sizeof human, cname, type, cell);
    pp_render_cell_raw(raw, sizeof raw, cell);
    fputs("<td class=\"num", out);
    if (json_is_null(cell) || cell == NULL)
        fputs(" null", out);
    else if (cname != NULL && strstr(cname, "delta") != NULL && json_number_value(cell) != 0)
        fputs(json_number_value(cell) < 0 ? " neg" : " pos", out);
    fprintf(out, "\" data-v=\"%s\">", raw);
    pp_html_text(out, human);
    fputs("</td>", out);
}

static void
put_table(const json_t *st, const json_t *tj, FILE *out)
{
    const json_t *cols = json_object_get(tj, "columns"), *rows = json_object_get(tj, "rows");
    const json_t *col, *row;
    size_t c, r, ncol = json_array_size(cols), nrow = json_array_size(rows);
    size_t status_col = (size_t)-1;
    char n[32];

    json_array_foreach(cols, c, col)
        if (str(col, "name") != NULL && strcmp(str(col, "name"), "status") == 0 &&
            pp_render_col_type(col) == PP_COL_STRING)
            status_col = c;
    pp_format_count(n, sizeof n, (int64_t)nrow);
    fputs("<div class=\"tbl\"><h3>", out);
    pp_html_text(out, str(tj, "name"));
    fprintf(out, " <small>%s row%s", n, nrow == 1 ? "" : "s");
    if (json_array_size(json_object_get(tj, "key")) > 0) {
        const json_t *k;
        size_t i;
        fputs(" &middot; key:", out);
        json_array_foreach(json_object_get(tj, "key"), i, k) {
            fputs(i ? ", " : " ", out);
            pp_html_text(out, json_string_value(k));
        }
    }
    fputs("</small></h3>\n", out);
    if (nrow == 0) {
        fputs("<p class=\"sub\">(no rows)</p></div>\n", out);
        return;
    }
    fputs(
        "<div class=\"tools\"><input class=\"filter\" type=\"search\" placeholder=\"filter rows (words)\" aria-label=\"filter\">",
        out);
    if (nrow > SHOWN_ROWS)
        fputs("<button class=\"all\" type=\"button\">show all</button>", out);
    fputs(
        "<span class=\"count sub\"></span></div>\n<div class=\"scroll\"><table class=\"data\" data-stage=\"",
        out);
    pp_html_text(out, str(st, "id"));
    fputs("\" data-table=\"", out);
    pp_html_text(out, str(tj, "name"));
    fputs("\"><thead><tr>", out);
    json_array_foreach(cols, c, col) {
        uint32_t t = pp_render_col_type(col);
        fprintf(out, "<th class=\"%s\" data-type=\"%s\">", t == PP_COL_STRING ? "str" : "num",
                pp_column_type_name(t) ? pp_column_type_name(t) : "?");
        pp_html_text(out, str(col, "name"));
        fputs("</th>", out);
    }
    fputs("</tr></thead>\n<tbody>\n", out);
    json_array_foreach(rows, r, row) {
        const char *status = status_col != (size_t)-1 ?
                                 json_string_value(json_array_get(row, status_col)) :
                                 NULL;
        fputs("<tr", out);
        if (r >= SHOWN_ROWS || status != NULL) {
            fputs(" class=\"", out);
            if (r >= SHOWN_ROWS)
                fputs("more", out);
            if (status != NULL) {
                if (r >= SHOWN_ROWS)
                    fputc(' ', out);
                put_status_class(out, status);
            }
            fputc('"', out);
        }
        fputc('>', out);
        for (c = 0; c < ncol; c++) {
            const json_t *cj = json_array_get(cols, c);
            put_cell(out, str(cj, "name"), pp_render_col_type(cj), json_array_get(row, c),
                     c == status_col ? status : NULL);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table></div></div>\n", out);
}

static void
put_totals(const json_t *totals, FILE *out)
{
    const char *k;
    const json_t *v;
    char human[128], raw[128];

    if (json_object_size(totals) == 0)
        return;
    fputs("<div class=\"card\"><dl class=\"kv totals\">\n", out);
    json_object_foreach((json_t *)totals, k, v) {
        const char *ty = str(v, "type");
        const json_t *val = json_object_get(v, "value");
        fputs("<dt>", out);
        pp_html_text(out, k);
        fputs("</dt>", out);
        if (ty != NULL && strcmp(ty, "string") == 0) {
            fputs("<dd data-total=\"", out);
            pp_html_text(out, k);
            fputs("\">", out);
            pp_html_text(out, json_string_value(val));
        } else {
            pp_render_cell_named(human, sizeof human, k, pp_column_type_from_name(ty), val);
            pp_render_cell_raw(raw, sizeof raw, val);
            fputs("<dd data-total=\"", out);
            pp_html_text(out, k);
            fprintf(out, "\" data-v=\"%s\">", raw);
            pp_html_text(out, human);
        }
        fputs("</dd>\n", out);
    }
    fputs("</dl></div>\n", out);
}

/* A finding that reports an improvement: compare's "fixed" and "replaced"
 * verdicts, or a message that calls itself one. */
static int
is_improvement(const json_t *f)
{
    const char *code = str(f, "code"), *msg = str(f, "message");

    return (code != NULL &&
            (strcmp(code, "compare.fixed") == 0 || strcmp(code, "compare.replaced") == 0)) ||
           (msg != NULL && strstr(msg, "(improvement)") != NULL);
}

static void
put_findings(const json_t *doc, FILE *out)
{
    static const char *const order[] = { "error", "warning", "info" };
    const json_t *st, *f;
    size_t si, fi, total = 0;

    json_array_foreach(json_object_get(doc, "stages"), si, st)
        total += json_array_size(json_object_get(st, "findings"));
    fprintf(
        out,
        "<section id=\"findings\"><h2>Findings and caveats <small class=\"sub\">%zu</small></h2>\n",
        total);
    if (total == 0) {
        fputs("<p class=\"sub\">No findings.</p></section>\n", out);
        return;
    }
    fputs("<ul class=\"findings\">\n", out);
    /* Errors first, then warnings, then information; stage order within. */
    for (size_t o = 0; o < 3; o++)
        json_array_foreach(json_object_get(doc, "stages"), si, st)
            json_array_foreach(json_object_get(st, "findings"), fi, f) {
                const char *sev = str(f, "severity");
                if (sev == NULL || strcmp(sev, order[o]) != 0)
                    continue;
                /* a compare's improvement is good news, green, never
                 * a warning's orange */
                fprintf(out, "<li class=\"sev-%s%s\"><b>%s</b> <span class=\"code\">", order[o],
                        is_improvement(f) ? " good" : "", order[o]);
                pp_html_text(out, str(st, "id"));
                fputs(" &middot; ", out);
                pp_html_text(out, str(f, "code"));
                fputs("</span><br>", out);
                pp_html_text(out, str(f, "message"));
                fputs("</li>\n", out);
            }
    fputs("</ul></section>\n", out);
}

/* Facts of a nettrace input and the process that wrote it (the
 * inputs[].nettrace.process contract; absent fields are left out). */
static void
put_process(const json_t *in, FILE *out)
{
    const json_t *nt = json_object_get(in, "nettrace");
    const json_t *proc = json_object_get(nt, "process");
    const json_t *pids = json_object_get(nt, "process_ids");
    char buf[128];

    if (!json_is_object(nt))
        return;
    fputs("<dl class=\"kv process\">", out);
    if (json_is_integer(json_object_get(proc, "pid")))
        fprintf(out, "<dt>pid</dt><dd>%" JSON_INTEGER_FORMAT "</dd>",
                json_integer_value(json_object_get(proc, "pid")));
    else if (json_array_size(pids) > 0) {
        const json_t *p;
        size_t i;
        fputs("<dt>pid</dt><dd>", out);
        json_array_foreach(pids, i, p)
            fprintf(out, "%s%" JSON_INTEGER_FORMAT, i ? ", " : "", json_integer_value(p));
        fputs("</dd>", out);
    }
    static const char *const keys[] = { "command_line", "runtime_version", "os", "arch" };
    for (size_t i = 0; i < 4; i++)
        if (str(proc, keys[i]) != NULL) {
            fprintf(out, "<dt>%s</dt><dd class=\"code\">", keys[i]);
            pp_html_text(out, str(proc, keys[i]));
            fputs("</dd>", out);
        }
    if (json_is_integer(json_object_get(nt, "start_unix_ns"))) {
        time_t t = (time_t)(json_integer_value(json_object_get(nt, "start_unix_ns")) / 1000000000);
        struct tm tm;
        if (gmtime_r(&t, &tm) != NULL &&
            strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
            fprintf(out, "<dt>started</dt><dd>%s</dd>", buf);
    }
    if (json_is_integer(json_object_get(nt, "duration_ns"))) {
        pp_format_duration_ns(buf, sizeof buf,
                              (double)json_integer_value(json_object_get(nt, "duration_ns")));
        fprintf(out, "<dt>traced for</dt><dd>%s</dd>", buf);
    }
    if (json_is_integer(json_object_get(nt, "events"))) {
        pp_format_count(buf, sizeof buf, json_integer_value(json_object_get(nt, "events")));
        fprintf(out, "<dt>events</dt><dd>%s</dd>", buf);
    }
    fputs("</dl>", out);
}

static void
put_damage(const json_t *in, FILE *out)
{
    const json_t *d = json_object_get(in, "damage"), *v;
    const char *k;
    int any = 0;

    if (json_is_true(json_object_get(in, "truncated")))
        any = 1;
    json_object_foreach((json_t *)d, k, v)
        if ((json_is_integer(v) && json_integer_value(v) != 0))
            any = 1;
    if (json_is_integer(json_object_get(d, "truncated_at")))
        any = 1;
    if (!any) {
        fputs("<td class=\"sub\">none known</td>", out);
        return;
    }
    fputs("<td class=\"st-grew\">", out);
    if (json_is_true(json_object_get(in, "truncated")) && !json_is_object(d))
        fputs("truncated ", out);
    json_object_foreach((json_t *)d, k, v) {
        char raw[64];
        if (json_is_null(v) || (json_is_integer(v) && json_integer_value(v) == 0))
            continue;
        pp_render_cell_raw(raw, sizeof raw, v);
        pp_html_text(out, k);
        fprintf(out, "=%s ", raw);
    }
    fputs("</td>", out);
}

/* A comparison leads with its verdict: one line, what decided it, and
 * which runs it compared (file, process, knobs). */
static void
put_verdict_banner(const json_t *doc, FILE *out)
{
    const json_t *v = json_object_get(doc, "verdict"), *d;
    const char *overall = str(v, "overall");
    const char *colour = overall == NULL                   ? "#888" :
                         strcmp(overall, "improved") == 0  ? "#1a7f37" :
                         strcmp(overall, "regressed") == 0 ? "#cf222e" :
                         strcmp(overall, "no change") == 0 ? "#57606a" :
                                                             "#bf8700";
    size_t i;

    if (!json_is_object(v) || overall == NULL)
        return;
    fprintf(out,
            "<div class=\"card verdict\" id=\"verdict\" style=\"border-left:8px solid %s\">"
            "<h1 style=\"color:%s;margin:0 0 6px\">",
            colour, colour);
    pp_html_text(out, str(v, "line"));
    fputs("</h1>", out);
    if (json_array_size(json_object_get(v, "decided_by")) > 0) {
        fputs("<ul>", out);
        json_array_foreach(json_object_get(v, "decided_by"), i, d) {
            fputs("<li>", out);
            pp_html_text(out, json_string_value(d));
            fputs("</li>", out);
        }
        fputs("</ul>", out);
    }
    fputs("<p><b>baseline</b> ", out);
    pp_html_text(out, str(v, "baseline"));
    fputs("<br><b>candidate</b> ", out);
    pp_html_text(out, str(v, "candidate"));
    fputs("</p></div>\n", out);
}

static void
put_header(const json_t *doc, FILE *out)
{
    const json_t *v;
    const char *pipeline = str(doc, "pipeline");
    size_t i;

    fputs("<header><h1>perfpipe: ", out);
    pp_html_text(out, pipeline ? pipeline : "-");
    fputs("</h1><p class=\"sub\">perfpipe ", out);
    pp_html_text(out, str(json_object_get(doc, "tool"), "version"));
    if (str(doc, "description") != NULL) {
        fputs(" &middot; ", out);
        pp_html_text(out, str(doc, "description"));
    }
    fputs("</p>\n<nav>", out);
    fputs("<a href=\"#answer\">answer</a>", out);
    json_array_foreach(json_object_get(doc, "stages"), i, v) {
        fputs("<a href=\"#stage-", out);
        pp_html_text(out, str(v, "id"));
        fputs("\">", out);
        pp_html_text(out, str(v, "id"));
        fputs("</a>", out);
    }
    fputs("<a href=\"#findings\">findings</a><a href=\"#inputs\">inputs</a></nav>\n</header>\n",
          out);
}

/* Where the numbers come from (process, inputs and their hashes, knobs):
 * provenance, after the evidence. */
static void
put_provenance(const json_t *doc, FILE *out)
{
    const json_t *inputs = json_object_get(doc, "inputs"), *in, *v;
    const json_t *knobs = json_object_get(doc, "knobs");
    const char *k;
    size_t i;
    char b[64];

    fputs("<section id=\"inputs\"><h2>Inputs and knobs</h2>\n", out);
    json_array_foreach(inputs, i, in)
        if (json_is_object(json_object_get(in, "nettrace"))) {
            fputs("<div class=\"card\"><b>process</b> <span class=\"sub\">(", out);
            pp_html_text(out, str(in, "name"));
            fputs(")</span>", out);
            put_process(in, out);
            fputs("</div>\n", out);
        }
    if (json_array_size(inputs) > 0) {
        fputs(
            "<h3>Inputs</h3><div class=\"scroll\"><table class=\"inputs\"><thead><tr><th>name</th><th>kind</th>"
            "<th class=\"num\">bytes</th><th>hash</th><th>path</th><th>damage</th></tr></thead><tbody>\n",
            out);
        json_array_foreach(inputs, i, in) {
            const json_t *bytes = json_object_get(in, "bytes");
            const json_t *hash = json_object_get(in, "hash");
            fputs("<tr><td>", out);
            pp_html_text(out, str(in, "name"));
            fputs("</td><td>", out);
            pp_html_text(out, str(in, "kind"));
            fputs("</td>", out);
            put_cell(out, "bytes", PP_COL_BYTES, bytes ? bytes : json_null(), NULL);
            fputs("<td class=\"code\">", out);
            if (json_is_object(hash)) {
                pp_html_text(out, str(hash, "algo"));
                fputc(':', out);
                pp_html_text(out, str(hash, "value"));
            } else
                fputc('-', out);
            fputs("</td><td class=\"code\">", out);
            pp_html_text(out, str(in, "path"));
            fputs("</td>", out);
            put_damage(in, out);
            fputs("</tr>\n", out);
        }
        fputs("</tbody></table></div>\n", out);
    }
    if (json_object_size(knobs) > 0) {
        fputs("<h3>Knobs</h3><div class=\"card\"><dl class=\"kv knobs\">", out);
        json_object_foreach((json_t *)knobs, k, v) {
            fputs("<dt>", out);
            pp_html_text(out, k);
            fputs("</dt><dd>", out);
            if (json_is_string(v))
                pp_html_text(out, json_string_value(v));
            else {
                pp_render_cell_raw(b, sizeof b, v);
                pp_html_text(out, b);
            }
            fputs("</dd>", out);
        }
        fputs("</dl></div>\n", out);
    }
    fputs("</section>\n", out);
}

/* A stack table as the svg flame graph, in an iframe (srcdoc) so its
 * script and ids stay its own; heap: root paths of a heap. */
static int
put_flame(const json_t *doc, const json_t *st, const json_t *tj, int heap, const pp_render_opts *o,
          FILE *out, pp_error *err)
{
    char *buf = NULL, *body;
    size_t n = 0;
    FILE *mem;
    int rc;
    double h = 0;

    if ((mem = open_memstream(&buf, &n)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "html rendering: out of memory");
        return PP_ENOMEM;
    }
    rc = pp_render_svg(doc, st, tj, o, mem, err);
    fclose(mem);
    if (rc != PP_OK) {
        free(buf);
        return rc;
    }
    body = strstr(buf, "<svg");
    if (body != NULL) {
        const char *hp = strstr(body, "height=\"");
        if (hp != NULL)
            h = strtod(hp + 8, NULL);
        fputs(heap ? "<h3>Heap by root path <small>" : "<h3>Flame graph <small>", out);
        pp_html_text(out, str(tj, "name"));
        fputs(heap ? " &middot; width: bytes of the listed types below each node" : "", out);
        fputs(" &middot; click a frame to zoom, / to search</small></h3>\n", out);
        fprintf(out, "<iframe class=\"flame\" title=\"flame graph\" height=\"%.0f\" srcdoc=\"",
                h > 0 ? h + 4 : 400.0);
        pp_html_text(
            out,
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"margin:0\">");
        pp_html_text(out, body);
        pp_html_text(out, "</body></html>");
        fputs("\"></iframe>\n", out);
    }
    free(buf);
    return PP_OK;
}

/* The stage's flame graphs: its first stack table drawn (the analyzer
 * orders its tables so that the first is the one to read, e.g. running
 * time before thread time), every other stack table as a view on demand;
 * a heap stage's root paths when it has no stack table. */
static int
put_flames(const json_t *doc, const json_t *st, const pp_render_opts *o, FILE *out, pp_error *err)
{
    const json_t *t;
    size_t i;
    int rc = PP_OK, first = 1;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        if (!pp_render_is_stack_table(t) || json_array_size(json_object_get(t, "rows")) == 0)
            continue;
        if (!first) {
            fputs("<details class=\"view\"><summary>Flame graph of ", out);
            pp_html_text(out, str(t, "name"));
            fputs("</summary>\n", out);
        }
        rc = put_flame(doc, st, t, 0, o, out, err);
        if (!first)
            fputs("</details>\n", out);
        if (rc != PP_OK)
            return rc;
        first = 0;
    }
    if (first) {
        json_t *heap = pp_render_heap_stacks(st);
        if (heap != NULL)
            rc = put_flame(doc, st, heap, 1, o, out, err);
        json_decref(heap);
    }
    return rc;
}

int
pp_render_html(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    const json_t *st, *tj;
    size_t si, ti;
    const char *pipeline = str(doc, "pipeline");
    int rc;

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"perfpipe\">\n<title>perfpipe: ",
          out);
    pp_html_text(out, pipeline ? pipeline : "-");
    fprintf(out, "</title>\n<style>\n%s</style>\n<script>\n%s</script>\n</head>\n<body><main>\n",
            pp_html_css, pp_html_js_head);
    put_verdict_banner(doc, out);
    put_header(doc, out);
    pp_html_answer(doc, out);
    json_array_foreach(json_object_get(doc, "stages"), si, st) {
        const json_t *an = json_object_get(st, "analyzer");
        const char *status = str(st, "status");
        fputs("<section class=\"stage\" id=\"stage-", out);
        pp_html_text(out, str(st, "id"));
        fputs("\"><h2>Stage ", out);
        pp_html_text(out, str(st, "id"));
        fputs(" <small class=\"sub\">", out);
        pp_html_text(out, str(an, "name"));
        fputc(' ', out);
        pp_html_text(out, str(an, "version"));
        fputs("</small>", out);
        if (status != NULL) {
            fputs("<span class=\"badge b-", out);
            pp_html_text(out, status);
            fputs("\">", out);
            pp_html_text(out, status);
            fputs("</span>", out);
        }
        fputs("</h2>\n", out);
        if (pp_result_stage_error(st) != NULL) {
            const json_t *e = json_object_get(st, "error"), *v;
            const char *k;
            fputs("<p class=\"st-grew stage-error\">", out);
            pp_html_text(out, pp_result_stage_error(st));
            /* the rest of the error object: signal, limit, last record */
            json_object_foreach((json_t *)e, k, v) {
                char *txt;
                if (strcmp(k, "message") == 0)
                    continue;
                txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
                fputs(" <span class=\"code\">", out);
                pp_html_text(out, k);
                fputc('=', out);
                pp_html_text(out, json_is_string(v) ? json_string_value(v) : txt);
                fputs("</span>", out);
                free(txt);
            }
            fputs("</p>\n", out);
        }
        if (pp_render_cards_table(st) != NULL)
            pp_html_cards(pp_render_cards_table(st), out);
        if ((rc = put_flames(doc, st, o, out, err)) != PP_OK)
            return rc;
        if ((rc = pp_html_stage_charts(st, out, err)) != PP_OK)
            return rc;
        if ((rc = pp_html_stage_pauses(st, out, err)) != PP_OK)
            return rc;
        put_totals(json_object_get(st, "totals"), out);
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            int cards = tj == pp_render_cards_table(st);
            if (cards)
                fputs("<details class=\"view\"><summary>The same as a table</summary>\n", out);
            put_table(st, tj, out);
            if (cards)
                fputs("</details>\n", out);
        }
        fputs("</section>\n", out);
    }
    put_findings(doc, out);
    put_provenance(doc, out);
    fprintf(out,
            "<pre id=\"errors\" hidden></pre>\n</main>\n<script>\n%s</script>\n</body></html>\n",
            pp_html_js);
    return pp_render_check_io(out, "html", err);
}
