/* The evidence folder's note (note.md, CommonMark: headings, paragraphs and
 * lists only, no tables, which CommonMark lacks) and report (report.html,
 * self-contained, no script): per-axis verdicts first (the absolutes, then
 * per unit of work), then the ranked candidates (evidence share, fix shape,
 * where the fix lands, verification plan), then the tooling follow-ups.
 * Both are drawn from one model built from session.json, each capture's
 * result and candidates.json. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "diag.h"
#include "load/kind.h"

/* A total {type, value} in words: "6.61 GB", "2.12 s", "14,833". */
static void
human(const json_t *total, char *out, size_t size)
{
    const char *type = json_string_value(json_object_get(total, "type"));
    const json_t *jv = json_object_get(total, "value");
    double v = json_number_value(jv);

    if (!type || !json_is_number(jv)) {
        snprintf(out, size, "%s", json_is_string(jv) ? json_string_value(jv) : "-");
        return;
    }
    if (strcmp(type, "bytes") == 0)
        snprintf(out, size,
                 v >= 1e9 ? "%.2f GB" :
                 v >= 1e6 ? "%.2f MB" :
                 v >= 1e3 ? "%.1f KB" :
                            "%.0f B",
                 v >= 1e9 ? v / 1e9 :
                 v >= 1e6 ? v / 1e6 :
                 v >= 1e3 ? v / 1e3 :
                            v);
    else if (strcmp(type, "duration_ns") == 0)
        snprintf(out, size, v >= 1e9 ? "%.2f s" : "%.1f ms", v >= 1e9 ? v / 1e9 : v / 1e6);
    else if (strcmp(type, "percent") == 0)
        snprintf(out, size, "%.1f %%", v);
    else if (strcmp(type, "count") == 0)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.4g", v);
}

/* The numeric totals of a stage as "name value" phrases, absolutes first
 * (counts, bytes, durations), then rates and shares. */
static json_t *
absolutes(const json_t *stage)
{
    static const char *const order[] = {
        "count", "bytes", "duration_ns", "number", "percent", NULL
    };
    json_t *out = json_array();
    const char *k;
    json_t *t;
    char v[64], line[256];

    for (int o = 0; order[o]; o++)
        json_object_foreach((json_t *)json_object_get(stage, "totals"), k, t) {
            const char *type = json_string_value(json_object_get(t, "type"));
            if (!type || strcmp(type, order[o]) != 0 || json_array_size(out) >= 8)
                continue;
            human(t, v, sizeof v);
            snprintf(line, sizeof line, "%s %s", k, v);
            json_array_append_new(out, json_string(line));
        }
    return out;
}

static json_t *
load_doc(const char *dir, const char *name)
{
    char p[4200];

    snprintf(p, sizeof p, "%s/%s", dir, name);
    return json_load_file(p, 0, NULL);
}

json_t *
pp_diag_table_rows(const json_t *doc, const char *table)
{
    json_t *out = json_array(), *st, *t;
    size_t i, j, r;

    json_array_foreach(json_object_get(doc, "stages"), i, st)
        json_array_foreach(json_object_get(st, "tables"), j, t) {
            json_t *row, *cols = json_object_get(t, "columns");
            if (strcmp(json_string_value(json_object_get(t, "name")) ?: "", table) != 0)
                continue;
            json_array_foreach(json_object_get(t, "rows"), r, row) {
                json_t *o = json_object();
                for (size_t c = 0; c < json_array_size(cols) && c < json_array_size(row); c++)
                    json_object_set(
                        o,
                        json_string_value(json_object_get(json_array_get(cols, c), "name")) ?: "?",
                        json_array_get(row, c));
                json_array_append_new(out, o);
            }
        }
    return out;
}

static const char *
str(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : "";
}

/* One verdict per capture: {name, axes, file, events, dropped, work,
 * absolutes[], leading[] (candidates from its stage), warnings[]}. */
static json_t *
verdict(const char *dir, const json_t *cap, const json_t *cands)
{
    const char *name = str(cap, "name");
    char file[300], line[512];
    json_t *v = json_object(), *lead = json_array(), *warn = json_array(), *c;
    size_t i, j;

    json_object_set_new(v, "name", json_string(name));
    json_object_set(v, "capture", (json_t *)cap);
    snprintf(file, sizeof file, "%s.json", strcmp(name, "heap-after") == 0 ? "heap" : name);
    json_t *doc = load_doc(dir, file);
    json_object_set_new(v, "result", json_string(doc ? file : "(no result)"));
    if (doc) {
        json_t *st = json_array_get(json_object_get(doc, "stages"), 0), *f;
        const json_t *w = json_object_get(doc, "work");
        json_object_set_new(v, "absolutes", absolutes(st));
        json_object_set_new(v, "status", json_string(str(st, "status")));
        const json_t *in;
        json_array_foreach(json_object_get(doc, "inputs"), i, in) {
            const json_t *ld = pp_load_facts(in);
            if (json_is_object(ld) && json_integer_value(json_object_get(ld, "requests")) == 0)
                json_array_append_new(
                    warn,
                    json_string(
                        "the load command completed no request during this capture (a cold app, "
                        "a wrong URL, or requests slower than the load tool's timeout?): its figures "
                        "are per second, not per request"));
        }
        if (json_is_object(w) && json_is_string(json_object_get(w, "unit"))) {
            double rq = json_number_value(json_object_get(w, "requests"));
            double s = json_number_value(json_object_get(w, "seconds"));
            snprintf(line, sizeof line, "unit of work: %s (%.0f requests, source %s; %.2f s)",
                     str(w, "unit"), rq,
                     str(w, "requests_source")[0] ? str(w, "requests_source") : "none", s);
            json_object_set_new(v, "work", json_string(line));
        }
        /* The first three warnings (the result keeps them all). */
        size_t more = 0;
        for (j = 0; (st = json_array_get(json_object_get(doc, "stages"), j)) != NULL; j++)
            json_array_foreach(json_object_get(st, "findings"), i, f)
                if (strcmp(str(f, "severity"), "warning") == 0 ||
                    strcmp(str(f, "severity"), "error") == 0) {
                    if (json_array_size(warn) >= 3) {
                        more++;
                        continue;
                    }
                    snprintf(line, sizeof line, "%s: %.300s%s", str(f, "code"), str(f, "message"),
                             strlen(str(f, "message")) > 300 ? "..." : "");
                    json_array_append_new(warn, json_string(line));
                }
        if (more) {
            snprintf(line, sizeof line, "and %zu more in %s", more, file);
            json_array_append_new(warn, json_string(line));
        }
        snprintf(line, sizeof line, "stage '%s'",
                 str(json_array_get(json_object_get(doc, "stages"), 0), "id"));
        json_array_foreach(cands, i, c)
            if (strstr(str(c, "evidence"), line) && json_array_size(lead) < 3) {
                char l[512];
                snprintf(l, sizeof l, "#%lld %s (%s per unit, %.1f %% of the stage)",
                         (long long)json_integer_value(json_object_get(c, "rank")),
                         str(c, "target"), str(c, "per_unit"),
                         json_number_value(json_object_get(c, "share")));
                json_array_append_new(lead, json_string(l));
            }
        json_decref(doc);
    }
    json_object_set_new(v, "leading", lead);
    json_object_set_new(v, "warnings", warn);
    return v;
}

/* ---- emitters: one walk, two syntaxes ---- */

typedef struct emit {
    FILE *f;
    int html;
    int indent; /* markdown: the open numbered item's content column */
} emit;

/* Markdown: backslash-escape what CommonMark would read as markup. HTML:
 * entities. */
static void
text(emit *e, const char *s)
{
    for (; *s; s++) {
        if (e->html) {
            if (*s == '<')
                fputs("&lt;", e->f);
            else if (*s == '>')
                fputs("&gt;", e->f);
            else if (*s == '&')
                fputs("&amp;", e->f);
            else if (*s == '"')
                fputs("&quot;", e->f);
            else
                fputc(*s, e->f);
        } else {
            if (strchr("\\`*_[]<>#!|~&", *s))
                fputc('\\', e->f);
            fputc(*s == '\n' ? ' ' : *s, e->f);
        }
    }
}

static void textf(emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
textf(emit *e, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    text(e, buf);
}

static void
heading(emit *e, int level, const char *s)
{
    if (e->html)
        fprintf(e->f, "<h%d>", level);
    else
        fprintf(e->f, "\n%.*s ", level, "######");
    text(e, s);
    if (e->html)
        fprintf(e->f, "</h%d>\n", level);
    else
        fputs("\n\n", e->f);
}

static void
list_open(emit *e, int ordered)
{
    if (e->html)
        fputs(ordered ? "<ol>\n" : "<ul>\n", e->f);
}

static void
list_close(emit *e, int ordered)
{
    fputs(e->html ? (ordered ? "</ol>\n" : "</ul>\n") : "\n", e->f);
}

/* An item: "- " or "N. " in markdown (continuation lines indented). */
static void
item_open(emit *e, int number)
{
    if (e->html)
        fputs("<li>", e->f);
    else if (number > 0)
        e->indent = fprintf(e->f, "%d. ", number);
    else
        fputs("- ", e->f);
}

static void
item_close(emit *e)
{
    fputs(e->html ? "</li>\n" : "\n", e->f);
}

static void
strong(emit *e, const char *s)
{
    fputs(e->html ? "<strong>" : "**", e->f);
    text(e, s);
    fputs(e->html ? "</strong>" : "**", e->f);
}

/* A sub-item of a numbered candidate: "   - Label: text". */
static void
sub(emit *e, const char *label, const char *s)
{
    if (!s || !*s)
        return;
    if (e->html)
        fputs("<li>", e->f);
    else /* nested: at the item's content column ("10. " is 4) */
        fprintf(e->f, "\n%*s- ", e->indent, "");
    strong(e, label);
    fputs(": ", e->f);
    text(e, s);
    if (e->html)
        fputs("</li>\n", e->f);
}

static void
verdicts(emit *e, const json_t *model)
{
    const json_t *v, *x;
    size_t i, j;

    heading(e, 2, "Verdicts per axis");
    list_open(e, 0);
    json_array_foreach(json_object_get(model, "verdicts"), i, v) {
        const json_t *cap = json_object_get(v, "capture");
        const json_t *axes = json_object_get(cap, "axes");
        char axs[200] = "";
        json_array_foreach(axes, j, x)
            snprintf(axs + strlen(axs), sizeof axs - strlen(axs), "%s%s", j ? ", " : "",
                     json_string_value(x));
        item_open(e, 0);
        if (json_object_get(cap, "events")) {
            strong(e, axs[0] ? axs : str(v, "name"));
            textf(e, " (%s; %s: %lld events, %lld dropped): ", str(v, "result"), str(cap, "file"),
                  (long long)json_integer_value(json_object_get(cap, "events")),
                  (long long)json_integer_value(json_object_get(cap, "dropped_events")));
        } else { /* the snapshots' pair */
            strong(e, "heap");
            textf(e, " (%s; heap-before.gcdump and %s, %lld objects): ", str(v, "result"),
                  str(cap, "file"), (long long)json_integer_value(json_object_get(cap, "objects")));
        }
        json_array_foreach(json_object_get(v, "absolutes"), j, x)
            textf(e, "%s%s", j ? ", " : "", json_string_value(x));
        if (json_object_get(v, "work"))
            textf(e, "; %s", str(v, "work"));
        if (json_array_size(json_object_get(v, "leading")) == 0)
            text(e, ". No candidate from this axis");
        else
            text(e, ". Leading: ");
        json_array_foreach(json_object_get(v, "leading"), j, x)
            textf(e, "%s%s", j ? "; " : "", json_string_value(x));
        json_array_foreach(json_object_get(v, "warnings"), j, x)
            textf(e, "%s%s", j ? "; " : ". Warnings: ", json_string_value(x));
        text(e, ".");
        item_close(e);
    }
    list_close(e, 0);
}

/* A section's heading; 1 after saying none when list is empty. */
static int
section(emit *e, const char *title, const json_t *list, const char *none)
{
    heading(e, 2, title);
    if (json_array_size(list) > 0)
        return 0;
    fputs(e->html ? "<p>" : "", e->f);
    text(e, none);
    fputs(e->html ? "</p>\n" : "\n", e->f);
    return 1;
}

static void
candidates(emit *e, const json_t *model)
{
    const json_t *c;
    size_t i;
    char buf[600];

    if (section(e, "Ranked candidates", json_object_get(model, "candidates"),
                "No candidate: no application frame carries a cost on the axes captured."))
        return;
    list_open(e, 1);
    json_array_foreach(json_object_get(model, "candidates"), i, c) {
        item_open(e, (int)i + 1);
        strong(e, str(c, "target"));
        textf(e, ": %s, %s per unit (%.3g %s); evidence share %.1f %%", str(c, "axis"),
              str(c, "per_unit"), json_number_value(json_object_get(c, "cost")),
              str(c, "cost_unit"), json_number_value(json_object_get(c, "share")));
        if (e->html)
            fputs("<ul>\n", e->f);
        sub(e, "Fix shape", str(c, "fix"));
        snprintf(buf, sizeof buf, "%s, in %s (%s)", str(c, "lands"), str(c, "module"),
                 str(c, "lands_why"));
        sub(e, "Lands", buf);
        sub(e, "Verification plan", str(c, "verify"));
        sub(e, "Evidence", str(c, "evidence"));
        if (e->html)
            fputs("</ul>", e->f);
        item_close(e);
    }
    list_close(e, 1);
}

static void
followups(emit *e, const json_t *model)
{
    const json_t *f;
    size_t i;

    if (section(e, "Tooling follow-ups", json_object_get(model, "followups"), "None."))
        return;
    list_open(e, 0);
    json_array_foreach(json_object_get(model, "followups"), i, f) {
        item_open(e, 0);
        textf(e, "%s (%s, %s): %s", str(f, "code"), str(f, "source"), str(f, "severity"),
              str(f, "message"));
        item_close(e);
    }
    list_close(e, 0);
}

static void
document(emit *e, const json_t *model)
{
    const json_t *s = json_object_get(model, "session"), *p = json_object_get(s, "process");
    char title[512];
    char *knobs = json_dumps(json_object_get(s, "knobs"), JSON_COMPACT | JSON_SORT_KEYS);

    snprintf(title, sizeof title, "Diagnosis of %s (pid %lld), %.10s",
             str(p, "name")[0] ? str(p, "name") : "?",
             (long long)json_integer_value(json_object_get(p, "pid")), str(s, "started"));
    if (e->html) {
        fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<link rel=\"icon\" href=\"data:,\"><title>",
              e->f);
        text(e, title);
        fputs("</title><style>body{font:15px/1.45 system-ui,sans-serif;max-width:70em;margin:2em "
              "auto;padding:0 1em;overflow-wrap:anywhere}li{margin:.4em 0}</style></head><body>\n",
              e->f);
    }
    heading(e, 1, title);
    fputs(e->html ? "<p>" : "", e->f);
    textf(e, "%s, %s to %s. Process: %s (started %s; %s). Knobs: %s. Events dropped: %lld.",
          str(s, "tool"), str(s, "started"), str(s, "ended"), str(p, "command_line"),
          str(p, "start_time"), str(p, "runtime_version"), knobs ? knobs : "?",
          (long long)json_integer_value(json_object_get(s, "dropped_events")));
    fputs(e->html ? "</p>\n" : "\n", e->f);
    free(knobs);
    verdicts(e, model);
    candidates(e, model);
    followups(e, model);
    if (e->html)
        fputs("</body></html>\n", e->f);
}

static int
write_one(const char *dir, const char *name, const json_t *model, int html)
{
    char p[4200], tmp[4300];
    FILE *f;

    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    if (!(f = fopen(tmp, "w"))) {
        pp_cli_error("diagnose: %s: cannot create", p);
        return PP_EXIT_OUTPUT;
    }
    emit e = { f, html, 0 };
    document(&e, model);
    if (pp_cli_doc_whole(p) != PP_EXIT_OK) {
        fclose(f);
        unlink(tmp);
        return PP_EXIT_NOMEM;
    }
    if (ferror(f) | (fclose(f) != 0) || rename(tmp, p) != 0) {
        pp_cli_error("diagnose: %s: cannot write", p);
        unlink(tmp);
        return PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

int
pp_diag_write_reports(const char *dir, const json_t *session)
{
    json_t *cdoc = load_doc(dir, "candidates.json");
    json_t *cands = cdoc ? pp_diag_table_rows(cdoc, "candidates") : json_array();
    json_t *model = json_object(), *vs = json_array(), *cap;
    char note[64];
    size_t i;
    int rc;

    json_array_foreach(json_object_get(session, "captures"), i, cap)
        if (strcmp(str(cap, "name"), "heap-before") != 0)
            json_array_append_new(vs, verdict(dir, cap, cands));
    json_object_set(model, "session", (json_t *)session);
    json_object_set_new(model, "verdicts", vs);
    json_object_set_new(model, "candidates", cands);
    json_object_set_new(model, "followups",
                        cdoc ? pp_diag_table_rows(cdoc, "followups") : json_array());
    snprintf(note, sizeof note, "note-%.10s.md", str(session, "started"));
    rc = write_one(dir, note, model, 0);
    if (rc == PP_EXIT_OK)
        rc = write_one(dir, "report.html", model, 1);
    json_decref(model);
    json_decref(cdoc);
    return rc;
}
