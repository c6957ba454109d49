/* A heap as a flame graph: the gcdump and gcdump-diff analyzers write, for
 * their top types, the path from a GC root to the type ("[.NET Roots] >
 * [static vars] > ... > Type") and its bytes. Laid out as stacks root
 * first, each type's own bytes (gcdump) or bytes growth (gcdump-diff) at
 * the end of its path, a frame's width is what the types below it on those
 * paths hold: the retained size along the paths, for the types the
 * analyzer listed. The flame formats (svg, speedscope, folded) and the
 * html page draw it when a result has no stack table. The tables are found
 * by what they declare (tables[].decl), not by their names: a table of
 * types with footprint count and bytes, and one of the same subject with a
 * `path` column. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

/* "a > b > c" as "a;b;c" (malloc'd); a step that holds ';' stays one
 * frame to the flame renderers (they split outside brackets only), though
 * folded output cannot tell. */
char *
pp_render_heap_path_stack(const char *path)
{
    size_t n = strlen(path);
    char *out = malloc(n + 1), *o = out;

    if (out == NULL)
        return NULL;
    int depth = 0;

    /* " > " inside parentheses is a size bucket ("(Bytes > 1K)"), not a
     * step of the path. */
    for (const char *p = path; *p;) {
        if (*p == '(' || *p == '[' || *p == '<')
            depth++;
        else if ((*p == ')' || *p == ']' || *p == '>') && depth > 0 &&
                 !(p[0] == '>' && p[-1] == ' ' && p[1] == ' '))
            depth--;
        if (depth == 0 && strncmp(p, " > ", 3) == 0) {
            *o++ = ';';
            p += 3;
        } else
            *o++ = *p++;
    }
    *o = '\0';
    return out;
}

/* ---- reading the declarations (tables[].decl) ---- */

int
pp_render_figure_is(const json_t *tj, const char *col, const char *unit, const char *axis)
{
    const json_t *f = json_object_get(json_object_get(json_object_get(tj, "decl"), "figures"), col);
    const char *u = json_string_value(json_object_get(f, "unit"));
    const char *a = json_string_value(json_object_get(f, "axis"));

    return u != NULL && strcmp(u, unit) == 0 &&
           (axis == NULL || (a != NULL && strcmp(a, axis) == 0));
}

size_t
pp_render_figure_col(const json_t *tj, const char *unit, const char *axis)
{
    const json_t *c;
    size_t i;

    json_array_foreach(json_object_get(tj, "columns"), i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        if (name != NULL && pp_render_figure_is(tj, name, unit, axis))
            return i;
    }
    return (size_t)-1;
}

const json_t *
pp_render_heap_table(const json_t *st, size_t *ci, size_t *bi)
{
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        const json_t *decl = json_object_get(t, "decl"), *key = json_object_get(decl, "key");
        const char *subject = json_string_value(json_object_get(decl, "subject"));
        const char *k0 = json_string_value(json_array_get(key, 0));

        if (subject == NULL || json_array_size(key) != 1 || k0 == NULL || strcmp(k0, subject) != 0)
            continue;
        *ci = pp_render_figure_col(t, "count", PP_AXIS_FOOTPRINT);
        *bi = pp_render_figure_col(t, "bytes", PP_AXIS_FOOTPRINT);
        if (*ci != (size_t)-1 && *bi != (size_t)-1)
            return t;
    }
    return NULL;
}

const json_t *
pp_render_paths_table(const json_t *st, const json_t *tj)
{
    const char *subject = json_string_value(
        json_object_get(json_object_get(tj, "decl"), "subject"));
    const json_t *t;
    size_t i;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        const char *s = json_string_value(json_object_get(json_object_get(t, "decl"), "subject"));
        if (t != tj && s != NULL && subject != NULL && strcmp(s, subject) == 0 &&
            pp_render_col_of(t, "path") != (size_t)-1)
            return t;
    }
    return NULL;
}

/* The bytes (column bi) of the row of heap table ht whose subject (column
 * si) is `type`, -1 if absent. */
static json_int_t
type_bytes(const json_t *ht, size_t si, size_t bi, const char *type)
{
    size_t r;
    const json_t *row;

    if (si == (size_t)-1 || bi == (size_t)-1)
        return -1;
    json_array_foreach(json_object_get(ht, "rows"), r, row) {
        const char *t = json_string_value(json_array_get(row, si));
        if (t != NULL && strcmp(t, type) == 0 && json_is_integer(json_array_get(row, bi)))
            return json_integer_value(json_array_get(row, bi));
    }
    return -1;
}

static const char *
col_name(const json_t *tj, size_t i)
{
    return json_string_value(
        json_object_get(json_array_get(json_object_get(tj, "columns"), i), "name"));
}

json_t *
pp_render_heap_stacks(const json_t *st)
{
    size_t ci, bi, r;
    const json_t *ht = pp_render_heap_table(st, &ci, &bi), *row;
    const json_t *paths = ht != NULL ? pp_render_paths_table(st, ht) : NULL;
    const char *subject = json_string_value(
        json_object_get(json_object_get(ht, "decl"), "subject"));
    size_t ti, pi, di, si;
    json_t *tj, *rows;
    int diff;

    if (paths == NULL || subject == NULL)
        return NULL;
    ti = pp_render_col_of(paths, subject);
    pi = pp_render_col_of(paths, "path");
    /* a change's paths carry their own growth (gcdump-diff's bytes_delta);
     * a snapshot's weigh each type by the heap table's bytes */
    di = pp_render_figure_col(paths, "bytes", PP_AXIS_FOOTPRINT);
    si = pp_render_col_of(ht, subject);
    if (ti == (size_t)-1 || pi == (size_t)-1)
        return NULL;
    diff = di != (size_t)-1;
    tj = json_pack("{s:s, s:[s], s:[{s:s,s:s},{s:s,s:s}], s:[]}", "name",
                   diff ? "heap_growth_paths" : "heap_paths", "key", "stack", "columns", "name",
                   "stack", "type", "string", "name", diff ? col_name(paths, di) : col_name(ht, bi),
                   "type", "bytes", "rows");
    if (tj == NULL)
        return NULL;
    rows = json_object_get(tj, "rows");
    json_array_foreach(json_object_get(paths, "rows"), r, row) {
        const char *type = json_string_value(json_array_get(row, ti));
        const char *path = json_string_value(json_array_get(row, pi));
        json_int_t w = diff ? (json_is_integer(json_array_get(row, di)) ?
                                   json_integer_value(json_array_get(row, di)) :
                                   -1) :
                              (type != NULL ? type_bytes(ht, si, bi, type) : -1);
        char *stack;
        if (path == NULL || w <= 0)
            continue;
        if ((stack = pp_render_heap_path_stack(path)) == NULL ||
            json_array_append_new(rows, json_pack("[s, I]", stack, w)) != 0) {
            free(stack);
            json_decref(tj);
            return NULL;
        }
        free(stack);
    }
    if (json_array_size(rows) == 0) {
        json_decref(tj);
        return NULL;
    }
    return tj;
}
