/* Helpers shared by the renderers: cell formatting, widths, stack tables. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

uint32_t
pp_render_col_type(const json_t *col)
{
    return pp_column_type_from_name(json_string_value(json_object_get(col, "type")));
}

int
pp_render_col_numeric(uint32_t type)
{
    return type != PP_COL_STRING;
}

void
pp_render_cell_human(char *buf, size_t size, uint32_t type, const json_t *cell)
{
    double d = json_number_value(cell);
    int64_t i = json_is_integer(cell) ? (int64_t)json_integer_value(cell) : pp_i64_from_double(d);

    if (size == 0)
        return;
    if (json_is_null(cell) || cell == NULL) {
        snprintf(buf, size, "-");
        return;
    }
    /* A document read from a file may hold any real where a count or a
     * time belongs; one past int64_t is shown as the number it is. */
    if (json_is_real(cell) && (type == PP_COL_COUNT || type == PP_COL_TIMESTAMP_NS) &&
        !(fabs(d) < 9.2e18)) {
        pp_format_number(buf, size, d);
        return;
    }
    switch (type) {
    case PP_COL_STRING:
        snprintf(buf, size, "%s", json_string_value(cell) ? json_string_value(cell) : "-");
        break;
    case PP_COL_COUNT: pp_format_count(buf, size, i); break;
    case PP_COL_BYTES: pp_format_bytes(buf, size, json_is_integer(cell) ? (double)i : d); break;
    case PP_COL_DURATION_NS:
        pp_format_duration_ns(buf, size, json_is_integer(cell) ? (double)i : d);
        break;
    case PP_COL_PERCENT: pp_format_percent(buf, size, d); break;
    case PP_COL_TIMESTAMP_NS: pp_format_timestamp_ns(buf, size, i); break;
    default: pp_format_number(buf, size, d); break;
    }
}

char *
pp_render_flatten(char *s)
{
    for (char *p = s; p != NULL && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return s;
}

void
pp_render_put_line_text(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, out);
}

size_t
pp_render_width(const char *s)
{
    size_t w = 0;

    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* Byte offset of code point number `cp` in s. */
static size_t
cp_offset(const char *s, size_t cp)
{
    size_t i = 0, seen = 0;

    for (; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (seen == cp)
                return i;
            seen++;
        }
    }
    return i;
}

char *
pp_render_ellipsize(const char *s, size_t width)
{
    size_t w = pp_render_width(s), tb, n;
    char *out;

    if (w <= width || width < 4)
        return strdup(s);
    /* Keep the end: the method is the end of a frame, the leaf the end of
     * a stack, and that is what tells two rows apart. */
    tb = cp_offset(s, w - (width - 3));
    n = strlen(s + tb);
    if ((out = malloc(3 + n + 1)) == NULL)
        return NULL;
    memcpy(out, "...", 3);
    memcpy(out + 3, s + tb, n + 1);
    return out;
}

char *
pp_render_ellipsize_start(const char *s, size_t width)
{
    size_t w = pp_render_width(s), tb;
    char *out;

    if (w <= width || width < 4)
        return strdup(s);
    /* Keep the start: a sentence says first what it is about. */
    tb = cp_offset(s, width - 3);
    if ((out = malloc(tb + 3 + 1)) == NULL)
        return NULL;
    memcpy(out, s, tb);
    memcpy(out + tb, "...", 4);
    return out;
}

int
pp_render_col_prose(const json_t *col)
{
    return json_is_true(json_object_get(col, "prose"));
}

int
pp_render_name_is_ms(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    return name != NULL && (strcmp(name, "ms") == 0 || (n > 3 && strcmp(name + n - 3, "_ms") == 0));
}

void
pp_render_cell_named(char *buf, size_t size, const char *name, uint32_t type, const json_t *cell)
{
    if (size == 0)
        return;
    if (type == PP_COL_NUMBER && json_is_number(cell) && name != NULL) {
        double d = json_number_value(cell);
        if (pp_render_name_is_ms(name)) {
            pp_format_duration_ns(buf, size, d * 1e6);
            return;
        }
        if (strstr(name, "bytes_per_s") != NULL) {
            size_t n;
            pp_format_bytes(buf, size, d);
            n = strlen(buf);
            if (n + 3 <= size)
                memcpy(buf + n, "/s", 3);
            return;
        }
    }
    pp_render_cell_human(buf, size, type, cell);
}

void
pp_render_cell_raw(char *buf, size_t size, const json_t *cell)
{
    if (size == 0)
        return;
    if (json_is_integer(cell)) {
        snprintf(buf, size, "%" PRId64, (int64_t)json_integer_value(cell));
    } else if (json_is_real(cell)) {
        double d = json_real_value(cell);
        /* Shortest of %.15g..%.17g that reads back exactly. */
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(buf, size, "%.*g", prec, d);
            if (strtod(buf, NULL) == d)
                break;
        }
    } else if (json_is_string(cell)) {
        snprintf(buf, size, "%s", json_string_value(cell));
    } else {
        buf[0] = '\0';
    }
}

int
pp_render_check_io(FILE *out, const char *format, pp_error *err)
{
    if (fflush(out) != 0 || ferror(out)) {
        pp_error_set(err, PP_EIO, "writing the %s rendering failed: %s", format, strerror(errno));
        return PP_EIO;
    }
    return PP_OK;
}

int
pp_render_is_stack_table(const json_t *tj)
{
    const json_t *cols = json_object_get(tj, "columns");
    const json_t *c0 = json_array_get(cols, 0), *c1 = json_array_get(cols, 1);
    const char *n0 = json_string_value(json_object_get(c0, "name"));
    uint32_t t1 = pp_render_col_type(c1);

    return n0 != NULL && strcmp(n0, "stack") == 0 && pp_render_col_type(c0) == PP_COL_STRING &&
           (t1 == PP_COL_COUNT || t1 == PP_COL_BYTES || t1 == PP_COL_DURATION_NS);
}

/* Frame-wise order: ';' sorts before every other byte, the end of the
 * string before ';'. */
static int
stack_cmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned ca = (unsigned char)*a, cb = (unsigned char)*b;
        ca = ca == 0 ? 0 : ca == ';' ? 1 : ca + 1;
        cb = cb == 0 ? 0 : cb == ';' ? 1 : cb + 1;
        if (ca != cb)
            return ca < cb ? -1 : 1;
        if (ca == 0)
            return 0;
    }
}

static int
entry_cmp(const void *pa, const void *pb)
{
    const pp_stack_entry *a = pa, *b = pb;
    return stack_cmp(a->stack, b->stack);
}

const char *
pp_render_frame_end(const char *f)
{
    int depth = 0;

    for (; *f; f++) {
        switch (*f) {
        case '(':
        case '[':
        case '<':
        case '{': depth++; break;
        case ')':
        case ']':
        case '>':
        case '}':
            if (depth > 0)
                depth--;
            break;
        case ';':
            if (depth == 0)
                return f;
            break;
        default: break;
        }
    }
    return NULL;
}

size_t
pp_stacks_weight_column(const json_t *tj, int weight_mode)
{
    const json_t *cols = json_object_get(tj, "columns"), *col;
    size_t c;

    if (weight_mode == PP_RENDER_WEIGHT_TIME) {
        json_array_foreach(cols, c, col)
            if (c > 0 && pp_render_col_type(col) == PP_COL_DURATION_NS)
                return c;
        json_array_foreach(cols, c, col)
            if (c > 0 && pp_render_col_type(col) == PP_COL_NUMBER &&
                pp_render_name_is_ms(json_string_value(json_object_get(col, "name"))))
                return c;
    }
    return 1;
}

size_t
pp_stacks_thread_column(const json_t *tj)
{
    const json_t *cols = json_object_get(tj, "columns"), *col;
    size_t c;

    json_array_foreach(cols, c, col) {
        const char *n = json_string_value(json_object_get(col, "name"));
        if (c > 0 && n != NULL && strcmp(n, "thread") == 0 &&
            pp_render_col_type(col) == PP_COL_STRING)
            return c;
    }
    return 0;
}

static int
entry_thread_cmp(const void *pa, const void *pb)
{
    const pp_stack_entry *a = pa, *b = pb;
    int c = strcmp(a->thread ? a->thread : "", b->thread ? b->thread : "");
    return c != 0 ? c : stack_cmp(a->stack, b->stack);
}

/* A row's weight in the collected unit; 0 (left out) when absent. */
static int64_t
row_weight(const json_t *w, uint32_t col_type, int64_t ns_per_unit)
{
    if (json_is_integer(w))
        return json_integer_value(w);
    if (col_type == PP_COL_NUMBER && ns_per_unit == 1000 && json_is_number(w)) {
        double us = json_number_value(w) * 1000.0;
        if (!isfinite(us) || us <= 0.0 || us >= 9.2e18)
            return 0;
        return pp_i64_from_double(round(us));
    }
    return 0;
}

int
pp_stacks_collect_ex(const json_t *tj, int weight_mode, int keep_threads, pp_stacks *out,
                     pp_error *err)
{
    const json_t *rows = json_object_get(tj, "rows");
    const json_t *cols = json_object_get(tj, "columns");
    size_t nrows = json_array_size(rows), r, o = 0;
    size_t wc = pp_stacks_weight_column(tj, weight_mode);
    size_t thc = pp_stacks_thread_column(tj);
    const json_t *row;
    uint32_t ct;

    memset(out, 0, sizeof *out);
    ct = pp_render_col_type(json_array_get(cols, wc));
    out->weight_column = json_string_value(json_object_get(json_array_get(cols, wc), "name"));
    out->weight_type = ct == PP_COL_NUMBER ? PP_COL_DURATION_NS : ct;
    out->ns_per_unit = ct == PP_COL_NUMBER ? 1000 : ct == PP_COL_DURATION_NS ? 1 : 0;
    if (nrows == 0)
        return PP_OK;
    if ((out->v = calloc(nrows, sizeof *out->v)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "flame graph: out of memory for %zu stacks", nrows);
        return PP_ENOMEM;
    }
    json_array_foreach(rows, r, row) {
        const char *s = json_string_value(json_array_get(row, 0));
        int64_t w = row_weight(json_array_get(row, wc), ct, out->ns_per_unit);
        /* Stacks without a weight, or with a zero or negative one (deltas),
         * have no width in a flame graph. */
        if (w <= 0)
            continue;
        out->v[o].stack = s != NULL ? s : "[no stack]";
        out->v[o].weight = w;
        out->v[o].thread = thc > 0 && keep_threads ? json_string_value(json_array_get(row, thc)) :
                                                     NULL;
        o++;
    }
    qsort(out->v, o, sizeof *out->v, keep_threads ? entry_thread_cmp : entry_cmp);
    out->n = 0;
    for (size_t i = 0; i < o; i++) {
        if (out->n > 0 && entry_thread_cmp(&out->v[out->n - 1], &out->v[i]) == 0) {
            if (__builtin_add_overflow(out->v[out->n - 1].weight, out->v[i].weight,
                                       &out->v[out->n - 1].weight))
                goto overflow;
        } else {
            out->v[out->n++] = out->v[i];
        }
        if (__builtin_add_overflow(out->total, out->v[i].weight, &out->total))
            goto overflow;
    }
    return PP_OK;

overflow:
    pp_stacks_free(out);
    pp_error_set(err, PP_ELIMIT, "flame graph: the stack weights overflow a 64-bit total");
    return PP_ELIMIT;
}

int
pp_stacks_collect(const json_t *tj, pp_stacks *out, pp_error *err)
{
    return pp_stacks_collect_ex(tj, PP_RENDER_WEIGHT_SAMPLES, 0, out, err);
}

void
pp_stacks_weight_human(const pp_stacks *s, int64_t w, char *buf, size_t size)
{
    if (s->ns_per_unit > 0)
        pp_format_duration_ns(buf, size, (double)w * (double)s->ns_per_unit);
    else if (s->weight_type == PP_COL_BYTES)
        pp_format_bytes(buf, size, (double)w);
    else {
        char n[64];
        pp_format_count(n, sizeof n, w);
        snprintf(buf, size, "%s %s", n, s->weight_column ? s->weight_column : "samples");
    }
}

void
pp_stacks_weight_exact(const pp_stacks *s, int64_t w, char *buf, size_t size)
{
    char n[64];

    if (s->ns_per_unit == 1000) {
        pp_format_count(n, sizeof n, w / 1000);
        snprintf(buf, size, "%s.%03d ms", n, (int)(w % 1000));
    } else if (s->ns_per_unit == 1) {
        pp_format_count(n, sizeof n, w);
        snprintf(buf, size, "%s ns", n);
    } else {
        pp_format_count(n, sizeof n, w);
        snprintf(buf, size, "%s %s", n,
                 s->weight_type == PP_COL_BYTES ? "bytes" :
                 s->weight_column               ? s->weight_column :
                                                  "samples");
    }
}

void
pp_stacks_free(pp_stacks *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

void
pp_html_text(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
                fputc(*s, out);
        }
    }
}

/* The index of the first object of arr whose "name" is name, (size_t)-1
 * when none: tables of a stage and columns of a table are both such lists. */
static size_t
index_named(const json_t *arr, const char *name)
{
    const json_t *o;
    size_t i;

    json_array_foreach(arr, i, o) {
        const char *n = json_string_value(json_object_get(o, "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return i;
    }
    return (size_t)-1;
}

const json_t *
pp_render_table_of(const json_t *st, const char *name)
{
    const json_t *tables = json_object_get(st, "tables");
    size_t i = index_named(tables, name);

    return i == (size_t)-1 ? NULL : json_array_get(tables, i);
}

size_t
pp_render_col_of(const json_t *tj, const char *name)
{
    return index_named(json_object_get(tj, "columns"), name);
}

int
pp_render_find_table(const json_t *doc, const char *want, int need_stack, const json_t **st_out,
                     const json_t **tj_out, size_t *si_out, size_t *ti_out, pp_error *err)
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
                pp_error_set(
                    err, PP_EINVAL,
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
        pp_error_set(
            err, PP_ENOTFOUND,
            "no stack table in the result (a table whose first column is \"stack\") to draw");
    else
        pp_error_set(err, PP_ENOTFOUND, "no table \"%s\" in the result", want);
    return PP_ENOTFOUND;
}
