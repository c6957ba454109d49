/* A heap as a flame graph: the gcdump and gcdump-diff analyzers write, for
 * their top types, the path from a GC root to the type ("[.NET Roots] >
 * [static vars] > ... > Type") and its bytes. Laid out as stacks root
 * first, each type's own bytes (gcdump) or bytes growth (gcdump-diff) at
 * the end of its path, a frame's width is what the types below it on those
 * paths hold: the retained size along the paths, for the types the
 * analyzer listed. The flame formats (svg, speedscope, folded) and the
 * html page draw it when a result has no stack table. */
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

/* The bytes of `type` in by_type (gcdump's self bytes), -1 if absent. */
static json_int_t
type_bytes(const json_t *by_type, const char *type)
{
    size_t ti = pp_render_col_of(by_type, "type"), bi = pp_render_col_of(by_type, "bytes"), r;
    const json_t *row;

    if (ti == (size_t)-1 || bi == (size_t)-1)
        return -1;
    json_array_foreach(json_object_get(by_type, "rows"), r, row) {
        const char *t = json_string_value(json_array_get(row, ti));
        if (t != NULL && strcmp(t, type) == 0 && json_is_integer(json_array_get(row, bi)))
            return json_integer_value(json_array_get(row, bi));
    }
    return -1;
}

json_t *
pp_render_heap_stacks(const json_t *st)
{
    const json_t *paths = pp_render_table_of(st, "paths"), *row;
    const json_t *by_type = pp_render_table_of(st, "by_type");
    size_t ti, pi, di, r;
    json_t *tj, *rows;
    int diff;

    if (paths == NULL)
        return NULL;
    ti = pp_render_col_of(paths, "type");
    pi = pp_render_col_of(paths, "path");
    di = pp_render_col_of(paths, "bytes_delta");
    if (ti == (size_t)-1 || pi == (size_t)-1 || (di == (size_t)-1 && by_type == NULL))
        return NULL;
    diff = di != (size_t)-1;
    tj = json_pack("{s:s, s:[s], s:[{s:s,s:s},{s:s,s:s}], s:[]}", "name",
                   diff ? "heap_growth_paths" : "heap_paths", "key", "stack", "columns", "name",
                   "stack", "type", "string", "name", diff ? "bytes_delta" : "bytes", "type",
                   "bytes", "rows");
    if (tj == NULL)
        return NULL;
    rows = json_object_get(tj, "rows");
    json_array_foreach(json_object_get(paths, "rows"), r, row) {
        const char *type = json_string_value(json_array_get(row, ti));
        const char *path = json_string_value(json_array_get(row, pi));
        json_int_t w = diff ? (json_is_integer(json_array_get(row, di)) ?
                                   json_integer_value(json_array_get(row, di)) :
                                   -1) :
                              (type != NULL ? type_bytes(by_type, type) : -1);
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
