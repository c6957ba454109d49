/* pp_render: choose a renderer by format name, and pick the table the
 * single-table (flame) formats draw. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

static const char *const flame_formats[] = { "folded", "speedscope", "svg", "pprof" };
static const char *const doc_formats[] = { "table", "json", "markdown", "csv", "html" };

static int
is_flame(const char *format)
{
    for (size_t i = 0; i < sizeof flame_formats / sizeof flame_formats[0]; i++)
        if (strcmp(format, flame_formats[i]) == 0)
            return 1;
    return 0;
}

int
pp_render_format_known(const char *format)
{
    if (format == NULL)
        return 0;
    for (size_t i = 0; i < sizeof doc_formats / sizeof doc_formats[0]; i++)
        if (strcmp(format, doc_formats[i]) == 0)
            return 1;
    return is_flame(format);
}

/* Find table `want` ("NAME" or "STAGE/NAME"; NULL = first stack table). */
static int
find_table(const json_t *doc, const char *want, int need_stack,
           const json_t **st_out, const json_t **tj_out, size_t *si_out, size_t *ti_out,
           pp_error *err)
{
    const json_t *stages = json_object_get(doc, "stages");
    const char *slash = want ? strchr(want, '/') : NULL;
    size_t si, ti;
    const json_t *st, *tj;

    json_array_foreach(stages, si, st) {
        const char *sid = json_string_value(json_object_get(st, "id"));
        if (slash != NULL && (sid == NULL || strlen(sid) != (size_t)(slash - want) ||
                              strncmp(sid, want, (size_t)(slash - want)) != 0))
            continue;
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            const char *tn = json_string_value(json_object_get(tj, "name"));
            if (want != NULL && (tn == NULL || strcmp(tn, slash ? slash + 1 : want) != 0))
                continue;
            if (want == NULL && !pp_render_is_stack_table(tj))
                continue;
            if (need_stack && !pp_render_is_stack_table(tj)) {
                pp_error_set(err, PP_EINVAL,
                             "table \"%s\" of stage \"%s\" is not a stack table (first column \"stack\", second a count, bytes or duration_ns weight)",
                             tn, sid ? sid : "?");
                return PP_EINVAL;
            }
            *st_out = st;
            *tj_out = tj;
            *si_out = si;
            *ti_out = ti;
            return PP_OK;
        }
    }
    if (want == NULL)
        pp_error_set(err, PP_ENOTFOUND,
                     "no stack table in the result (a table whose first column is \"stack\") to draw");
    else
        pp_error_set(err, PP_ENOTFOUND, "no table \"%s\" in the result", want);
    return PP_ENOTFOUND;
}

/* speedscope by default draws one profile per thread: when the stage's
 * first stack table has no "thread" column, a later stack table of the
 * same stage that has one (cpu's by_thread_stack) holds the same stacks
 * per thread. */
static const json_t *
per_thread_twin(const json_t *st, const json_t *tj)
{
    const json_t *t;
    size_t i;

    if (pp_stacks_thread_column(tj) > 0)
        return tj;
    json_array_foreach(json_object_get(st, "tables"), i, t)
        if (pp_render_is_stack_table(t) && pp_stacks_thread_column(t) > 0)
            return t;
    return tj;
}

static int
render_doc(const json_t *doc, const char *format, const pp_render_opts *o, FILE *out,
           pp_error *err)
{
    if (strcmp(format, "table") == 0)
        return pp_render_text_table(doc, o, out, err);
    if (strcmp(format, "json") == 0)
        return pp_render_json(doc, out, err);
    if (strcmp(format, "markdown") == 0)
        return pp_render_markdown(doc, o, out, err);
    if (strcmp(format, "html") == 0)
        return pp_render_html(doc, o, out, err);
    return pp_render_csv(doc, out, err);
}

static int
render_flame(const json_t *doc, const char *format, const json_t *st, const json_t *tj,
             const pp_render_opts *o, FILE *out, pp_error *err)
{
    if (strcmp(format, "folded") == 0)
        return pp_render_folded(doc, st, tj, o, out, err);
    if (strcmp(format, "speedscope") == 0)
        return pp_render_speedscope(doc, st, tj, o, out, err);
    return pp_render_svg(doc, st, tj, o, out, err);
}

/* The stack table of st that splits tj's stacks the finest: the one with
 * the most string columns besides the stack (cpu's by_thread_stack: thread
 * and state; alloc's by_type_stack: type), which pprof makes labels. */
static const json_t *
labelled_twin(const json_t *st, const json_t *tj)
{
    const json_t *t, *best = tj;
    size_t i, most = 0;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        const json_t *c;
        size_t j, n = 0;
        if (!pp_render_is_stack_table(t))
            continue;
        json_array_foreach(json_object_get(t, "columns"), j, c)
            n += j > 0 && pp_render_col_type(c) == PP_COL_STRING;
        if (n > most) {
            most = n;
            best = t;
        }
    }
    return best;
}

/* pprof: the table named, else the first stack table (or its labelled
 * twin: threads, states, types become labels), else the first heap
 * stage's types. */
static int
render_pprof(const json_t *doc, const char *table, const pp_render_opts *o, FILE *out,
             pp_error *err)
{
    const json_t *st = NULL, *tj = NULL;
    size_t si = 0, ti = 0, i;
    int rc = find_table(doc, table, 1, &st, &tj, &si, &ti, err);

    if (rc == PP_OK)
        return pp_render_pprof(doc, st, table == NULL ? labelled_twin(st, tj) : tj, o, out, err);
    if (rc != PP_ENOTFOUND || table != NULL)
        return rc;
    json_array_foreach(json_object_get(doc, "stages"), i, st)
        if (pp_render_pprof_heap_known(st))
            return pp_render_pprof(doc, st, NULL, o, out, err);
    return rc;
}

static int
check_args(const json_t *doc, const char *format, FILE *out, pp_error *err)
{
    if (doc == NULL || out == NULL || format == NULL) {
        pp_error_set(err, PP_EINVAL, "render: a document, a format and an output are required");
        return PP_EINVAL;
    }
    if (!pp_render_format_known(format)) {
        pp_error_set(err, PP_EINVAL,
                     "unknown output format \"%s\" (expected table, json, markdown, csv, html, folded, speedscope, svg or pprof)",
                     format);
        return PP_EINVAL;
    }
    if (!json_is_array(json_object_get(doc, "stages"))) {
        pp_error_set(err, PP_EFORMAT, "render: the document has no \"stages\" array");
        return PP_EFORMAT;
    }
    return PP_OK;
}

int
pp_render_table_named(const json_t *doc, const char *format, const char *table,
                      FILE *out, pp_error *err)
{
    return pp_render_opts_table(doc, format, table, NULL, out, err);
}

int
pp_render_opts_table(const json_t *doc, const char *format, const char *table,
                     const pp_render_opts *opts, FILE *out, pp_error *err)
{
    static const pp_render_opts defaults = PP_RENDER_OPTS_INIT;
    const pp_render_opts *o = opts != NULL ? opts : &defaults;
    const json_t *st = NULL, *tj = NULL;
    size_t si = 0, ti = 0;
    json_t *copy, *stages, *s;
    int rc;

    if ((rc = check_args(doc, format, out, err)) != PP_OK)
        return rc;
    if (strcmp(format, "pprof") == 0)
        return render_pprof(doc, table, o, out, err);
    if (is_flame(format)) {
        if ((rc = find_table(doc, table, 1, &st, &tj, &si, &ti, err)) != PP_OK) {
            const json_t *hs;
            size_t i;
            if (rc != PP_ENOTFOUND || table != NULL)
                return rc;
            /* A heap result: its root paths as a flame graph. */
            json_array_foreach(json_object_get(doc, "stages"), i, hs) {
                json_t *heap = pp_render_heap_stacks(hs);
                if (heap != NULL) {
                    rc = render_flame(doc, format, hs, heap, o, out, err);
                    json_decref(heap);
                    return rc;
                }
            }
            /* svg of a result without stacks: the counters charts. */
            if (strcmp(format, "svg") == 0) {
                return pp_render_counters_svg(doc, out, err);
            }
            return rc;
        }
        if (table == NULL && strcmp(format, "speedscope") == 0)
            tj = per_thread_twin(st, tj);
        return render_flame(doc, format, st, tj, o, out, err);
    }
    if (table == NULL)
        return render_doc(doc, format, o, out, err);
    if ((rc = find_table(doc, table, 0, &st, &tj, &si, &ti, err)) != PP_OK)
        return rc;
    /* The document with only that stage, holding only that table. */
    if ((copy = json_deep_copy(doc)) == NULL)
        goto nomem;
    stages = json_object_get(copy, "stages");
    s = json_incref(json_array_get(stages, si));
    if (json_array_clear(stages) != 0 || json_array_append_new(stages, s) != 0) {
        json_decref(copy);
        goto nomem;
    }
    {
        json_t *tables = json_object_get(s, "tables");
        json_t *t = json_incref(json_array_get(tables, ti));
        if (json_array_clear(tables) != 0 || json_array_append_new(tables, t) != 0) {
            json_decref(copy);
            goto nomem;
        }
    }
    /* One named table in csv is a plain table: one header row, no marker
     * line, so a spreadsheet reads it as is. */
    rc = strcmp(format, "csv") == 0 ? pp_render_csv_one(tj, out, err)
                                    : render_doc(copy, format, o, out, err);
    json_decref(copy);
    return rc;

nomem:
    pp_error_set(err, PP_ENOMEM, "render: out of memory");
    return PP_ENOMEM;
}

int
pp_render(const json_t *doc, const char *format, FILE *out, pp_error *err)
{
    return pp_render_table_named(doc, format, NULL, out, err);
}
