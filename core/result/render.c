/* pp_render: choose a renderer by format name, and pick the table the
 * single-table (flame) formats draw. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/formats.h"
#include "result/render_util.h"

int
pp_render_format_known(const char *format)
{
    return pp_output_format_named(format) != NULL;
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
check_args(const json_t *doc, const char *format, FILE *out, pp_error *err)
{
    if (doc == NULL || out == NULL || format == NULL) {
        pp_error_set(err, PP_EINVAL, "render: a document, a format and an output are required");
        return PP_EINVAL;
    }
    if (!pp_render_format_known(format)) {
        char known[512];
        pp_error_set(err, PP_EINVAL, "unknown output format \"%s\" (expected %s)", format,
                     pp_output_format_list(PP_FORMAT_DOCUMENT | PP_FORMAT_STACKS, ", ", " or ",
                                           known, sizeof known));
        return PP_EINVAL;
    }
    if (!json_is_array(json_object_get(doc, "stages"))) {
        pp_error_set(err, PP_EFORMAT, "render: the document has no \"stages\" array");
        return PP_EFORMAT;
    }
    return PP_OK;
}

int
pp_render_table_named(const json_t *doc, const char *format, const char *table, FILE *out,
                      pp_error *err)
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
    const pp_output_format *f;
    size_t si = 0, ti = 0;
    json_t *copy, *stages, *s;
    int rc;

    if ((rc = check_args(doc, format, out, err)) != PP_OK)
        return rc;
    f = pp_output_format_named(format);
    if (f->whole != NULL)
        return f->whole(doc, table, o, out, err);
    if (f->kind == PP_FORMAT_STACKS) {
        if ((rc = pp_render_find_table(doc, table, 1, &st, &tj, &si, &ti, err)) != PP_OK) {
            const json_t *hs;
            size_t i;
            if (rc != PP_ENOTFOUND || table != NULL)
                return rc;
            /* A heap result: its root paths as a flame graph. */
            json_array_foreach(json_object_get(doc, "stages"), i, hs) {
                json_t *heap = pp_render_heap_stacks(hs);
                if (heap != NULL) {
                    rc = f->stacks(doc, hs, heap, o, out, err);
                    json_decref(heap);
                    return rc;
                }
            }
            /* A result without stacks (svg: the GC pause chart, or the counters charts). */
            if (f->no_stacks != NULL)
                return f->no_stacks(doc, o, out, err);
            return rc;
        }
        if (table == NULL && f->per_thread)
            tj = per_thread_twin(st, tj);
        return f->stacks(doc, st, tj, o, out, err);
    }
    if (table == NULL)
        return f->doc(doc, o, out, err);
    if ((rc = pp_render_find_table(doc, table, 0, &st, &tj, &si, &ti, err)) != PP_OK)
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
    rc = f->one_table != NULL ? f->one_table(tj, out, err) : f->doc(copy, o, out, err);
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
