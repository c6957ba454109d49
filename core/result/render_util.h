/* Private helpers shared by the renderers of core/result. */
#ifndef PP_CORE_RESULT_RENDER_UTIL_H
#define PP_CORE_RESULT_RENDER_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include <perfpipe/error.h>

/* Long strings (method names, stacks) in a text cell that is not the last
 * column are cut in the middle to this many characters ("abc...xyz"); the
 * last column keeps them whole. JSON and CSV always keep the full text. */
#define PP_RENDER_MAX_CELL 60

/* The PP_COL_* type of a column object, 0 if unknown. */
uint32_t pp_render_col_type(const json_t *col);

/* Is this column type printed right-aligned (a number)? */
int pp_render_col_numeric(uint32_t type);

/* A cell in human units into buf ("-" for null). */
void pp_render_cell_human(char *buf, size_t size, uint32_t type, const json_t *cell);

/* Replace control characters (line breaks, tabs) by spaces in place, so a
 * cell stays on its line. Returns s. */
char *pp_render_flatten(char *s);

/* fputs with control characters printed as spaces. */
void pp_render_put_line_text(FILE *out, const char *s);

/* Number of UTF-8 code points in s (the display width we assume). */
size_t pp_render_width(const char *s);

/* s cut in the middle to at most `width` code points with "..." (a new
 * malloc'd string, NULL when out of memory). */
char *pp_render_ellipsize(const char *s, size_t width);

/* Exact text of a number for machine output: integers as such, reals with
 * the fewest digits that read back to the same double. Empty for null. */
void pp_render_cell_raw(char *buf, size_t size, const json_t *cell);

/* PP_OK, or PP_EIO with a message when writes to out failed. */
int pp_render_check_io(FILE *out, const char *format, pp_error *err);

/* Is tj a stack table (first column "stack" string, second count, bytes or
 * duration_ns)? */
int pp_render_is_stack_table(const json_t *tj);

/* The renderers. Each writes the whole document to out. */
int pp_render_text_table(const json_t *doc, FILE *out, pp_error *err);
int pp_render_json(const json_t *doc, FILE *out, pp_error *err);
int pp_render_markdown(const json_t *doc, FILE *out, pp_error *err);
int pp_render_csv(const json_t *doc, FILE *out, pp_error *err);

/* The flame renderers take one stack table (tj) of stage st. */
int pp_render_folded(const json_t *doc, const json_t *st, const json_t *tj, FILE *out, pp_error *err);
int pp_render_speedscope(const json_t *doc, const json_t *st, const json_t *tj, FILE *out, pp_error *err);
int pp_render_svg(const json_t *doc, const json_t *st, const json_t *tj, FILE *out, pp_error *err);

/* Merged stacks of a stack table: rows with a positive weight, sorted frame
 * by frame (';' orders before any other byte, so every frame's descendants
 * are contiguous), equal stacks summed. */
typedef struct pp_stack_entry {
    const char *stack;        /* borrowed from the document */
    int64_t weight;
} pp_stack_entry;

typedef struct pp_stacks {
    pp_stack_entry *v;
    size_t n;
    int64_t total;
    uint32_t weight_type;     /* PP_COL_COUNT, _BYTES or _DURATION_NS */
} pp_stacks;

/* PP_OK, PP_ENOMEM, or PP_ELIMIT when the weights overflow int64. */
int pp_stacks_collect(const json_t *tj, pp_stacks *out, pp_error *err);
void pp_stacks_free(pp_stacks *s);

#endif
