/* Private helpers shared by the renderers of core/result. */
#ifndef PP_CORE_RESULT_RENDER_UTIL_H
#define PP_CORE_RESULT_RENDER_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include <perfpipe/error.h>

/* The table renderer fits this many columns when no width is given. */
#define PP_RENDER_DEFAULT_WIDTH 120
/* A string column is never cut narrower than this (or its header). */
#define PP_RENDER_MIN_CELL 16

#include "result/result.h"

/* The PP_COL_* type of a column object, 0 if unknown. */
uint32_t pp_render_col_type(const json_t *col);

/* Is this column type printed right-aligned (a number)? */
int pp_render_col_numeric(uint32_t type);

/* A cell in human units into buf ("-" for null). */
void pp_render_cell_human(char *buf, size_t size, uint32_t type, const json_t *cell);
/* Same, knowing the column's (or total's) name: a number named "ms" or
 * "*_ms" is a duration in milliseconds ("35.4 ms", "1.20 s"), one named
 * "*bytes_per_s*" a byte rate ("47.2 MB/s"). */
void pp_render_cell_named(char *buf, size_t size, const char *name, uint32_t type,
                          const json_t *cell);
/* A number column holding milliseconds by its name ("ms", "*_ms")? */
int pp_render_name_is_ms(const char *name);

/* Replace control characters (line breaks, tabs) by spaces in place, so a
 * cell stays on its line. Returns s. */
char *pp_render_flatten(char *s);

/* fputs with control characters printed as spaces. */
void pp_render_put_line_text(FILE *out, const char *s);

/* Number of UTF-8 code points in s (the display width we assume). */
size_t pp_render_width(const char *s);

/* s cut from the front to at most `width` code points, "..." + its end
 * (the method of a frame, the leaf of a stack), a new malloc'd string (NULL
 * when out of memory). width < 4 keeps s whole. */
char *pp_render_ellipsize(const char *s, size_t width);

/* s cut from the back to at most `width` code points, its start + "..."
 * (a message, an explanation: columns[].prose), a new malloc'd string
 * (NULL when out of memory). width < 4 keeps s whole. */
char *pp_render_ellipsize_start(const char *s, size_t width);

/* Whether a column (an element of a table's "columns") is prose, cut from
 * the back (PP_COL_FLAG_PROSE). */
int pp_render_col_prose(const json_t *col);

/* Exact text of a number for machine output: integers as such, reals with
 * the fewest digits that read back to the same double. Empty for null. */
void pp_render_cell_raw(char *buf, size_t size, const json_t *cell);

/* PP_OK, or PP_EIO with a message when writes to out failed. */
int pp_render_check_io(FILE *out, const char *format, pp_error *err);

/* Table `name` of stage st, NULL when none; column `name` of table tj,
 * (size_t)-1 when none. */
const json_t *pp_render_table_of(const json_t *st, const char *name);
size_t pp_render_col_of(const json_t *tj, const char *name);
/* A heap path "a > b > c" as the stack "a;b;c" (malloc'd, NULL when out of
 * memory); " > " inside brackets stays in its step ("(Bytes > 1K)"). */
char *pp_render_heap_path_stack(const char *path);

/* Is tj a stack table (first column "stack" string, second count, bytes or
 * duration_ns)? */
int pp_render_is_stack_table(const json_t *tj);

/* The renderers. Each writes the whole document to out. */
int pp_render_text_table(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err);
int pp_render_json(const json_t *doc, FILE *out, pp_error *err);
int pp_render_markdown(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err);
int pp_render_csv(const json_t *doc, FILE *out, pp_error *err);
/* One table as a plain RFC 4180 file: a header row with units
 * (pp_render_csv_header), then the rows. */
int pp_render_csv_one(const json_t *tj, FILE *out, pp_error *err);
/* A column's CSV header: its name with the unit of its type appended
 * unless the name already says it ("share" -> "share_pct", "wall" ->
 * "wall_ns", "size" -> "size_bytes"; "bytes", "ms", "total_ns" stay). */
void pp_render_csv_header(char *buf, size_t size, const json_t *col);
int pp_render_html(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err);
/* A stack table (new reference) of a gcdump or gcdump-diff stage: each
 * listed type's root path as a stack, weighted by its bytes (or bytes
 * growth); NULL when the stage has no such tables or out of memory. */
json_t *pp_render_heap_stacks(const json_t *st);

/* The counters charts of the first stage that has footprint series, as
 * one svg; PP_ENOTFOUND when there is none. */
int pp_render_counters_svg(const json_t *doc, FILE *out, pp_error *err);
/* The GC pause chart (render_pauses.c) of the first stage with a per-GC
 * table, as one svg; PP_ENOTFOUND when there is none. */
int pp_render_pauses_svg(const json_t *doc, FILE *out, pp_error *err);

/* The flame renderers take one stack table (tj) of stage st. */
int pp_render_folded(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                     FILE *out, pp_error *err);
int pp_render_speedscope(const json_t *doc, const json_t *st, const json_t *tj,
                         const pp_render_opts *o, FILE *out, pp_error *err);
int pp_render_svg(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                  FILE *out, pp_error *err);
/* pprof of stack table tj of stage st, or with tj NULL of heap stage st's
 * types (render_pprof.c); pp_render_pprof_heap_known says which stages. */
int pp_render_pprof(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                    FILE *out, pp_error *err);
int pp_render_pprof_heap_known(const json_t *st);

/* What the declarations (tables[].decl) say (render_heap.c). Whether tj
 * declares column col a figure of that unit (and axis, unless NULL): */
int pp_render_figure_is(const json_t *tj, const char *col, const char *unit, const char *axis);
/* The first column of tj, in column order, that is a figure of unit on
 * axis, or (size_t)-1. */
size_t pp_render_figure_col(const json_t *tj, const char *unit, const char *axis);
/* A heap stage's table of types: the first table of st whose subject is
 * its key alone and that declares a footprint figure in count and one in
 * bytes (*ci, *bi: the first of each, in column order); NULL when none
 * (gcdump's by_type, gcdump-diff's growth). */
const json_t *pp_render_heap_table(const json_t *st, size_t *ci, size_t *bi);
/* Another table of st about tj's subject that has a `path` column
 * (gcdump's paths), or NULL. */
const json_t *pp_render_paths_table(const json_t *st, const json_t *tj);
/* pprof of the table named (NULL: the first stack table's labelled twin,
 * else the first heap stage): the format registry's whole-document hook. */
int pp_render_pprof_doc(const json_t *doc, const char *table, const pp_render_opts *o, FILE *out,
                        pp_error *err);

/* Table want ("NAME" or "STAGE/NAME"; NULL: the first stack table) of doc:
 * its stage, table and their indexes (borrowed). need_stack refuses a table
 * that is not a stack table (PP_EINVAL); PP_ENOTFOUND when there is none. */
int pp_render_find_table(const json_t *doc, const char *want, int need_stack, const json_t **st_out,
                         const json_t **tj_out, size_t *si_out, size_t *ti_out, pp_error *err);

/* Merged stacks of a stack table: rows with a positive weight, sorted frame
 * by frame (';' orders before any other byte, so every frame's descendants
 * are contiguous), equal stacks summed. */
typedef struct pp_stack_entry {
    const char *stack; /* borrowed from the document */
    int64_t weight;
    const char *thread; /* the row's "thread" cell, NULL without one */
} pp_stack_entry;

typedef struct pp_stacks {
    pp_stack_entry *v;
    size_t n;
    int64_t total;
    uint32_t weight_type; /* PP_COL_COUNT, _BYTES or _DURATION_NS */
    /* For time weights: nanoseconds per weight unit (1 for a duration_ns
     * column; 1000 for an "ms" number column, kept in whole microseconds so
     * sums stay exact). 0 otherwise. */
    int64_t ns_per_unit;
    const char *weight_column; /* borrowed: the column weighed by */
} pp_stacks;

/* The ';' that ends the frame starting at f, or NULL for the last frame.
 * A ';' inside brackets ((), [], <>, {}) belongs to the frame's name (a
 * signature, a generic argument), so such a frame is never split. */
const char *pp_render_frame_end(const char *f);

/* The weight column of stack table tj for a weighting mode (index >= 1). */
size_t pp_stacks_weight_column(const json_t *tj, int weight_mode);
/* Index of tj's string column named "thread", 0 when none. */
size_t pp_stacks_thread_column(const json_t *tj);

/* Collect tj weighted per weight_mode (PP_RENDER_WEIGHT_*). With
 * keep_threads, rows of different threads (the "thread" column) are not
 * merged and entries sort by thread, then stack; without, threads merge.
 * PP_OK, PP_ENOMEM, or PP_ELIMIT when the weights overflow int64. */
int pp_stacks_collect_ex(const json_t *tj, int weight_mode, int keep_threads, pp_stacks *out,
                         pp_error *err);
int pp_stacks_collect(const json_t *tj, pp_stacks *out, pp_error *err);
void pp_stacks_free(pp_stacks *s);

/* A weight of s in its unit for people ("12.3 ms", "1.21 GB", "1,234
 * samples") and exactly ("12.345 ms", "1,210,000 bytes"). */
void pp_stacks_weight_human(const pp_stacks *s, int64_t w, char *buf, size_t size);
void pp_stacks_weight_exact(const pp_stacks *s, int64_t w, char *buf, size_t size);

/* Text escaped for HTML content and attribute values (& < > " '); control
 * characters other than tab/newline are dropped. Here, a layer below the
 * html page and its charts, which both escape with it. */
void pp_html_text(FILE *out, const char *s);

/* The answer first (render_answer.c). A row's string cell by column
 * name, or NULL. */
const char *pp_render_row_str(const json_t *tj, const json_t *row, const char *name);

/* A stage's table of candidates to show as cards (columns "target" and
 * "fix"), or NULL. */
const json_t *pp_render_cards_table(const json_t *st);

/* A card's cost: "482 ms per second (estimated) (2.44 s in all, 43.4%)". */
void pp_render_card_cost(char *buf, size_t size, const json_t *tj, const json_t *row);

/* The stage's headline, malloc'd (NULL: nothing to say, or out of memory):
 * a failed stage's error; else its first error, then warning, finding that
 * is no caveat ("caveat": true); else its first candidate card; else the
 * top row of its ranking table (the first declaring candidates, else the
 * first with a figure on an axis) with the figure, its share, the figure
 * per unit of work (decl.work_totals) and what to do; else its first
 * caveat error or warning; else its first information finding.
 * *severity says which colour it gets ("error", "warning", "info"). */
char *pp_render_headline(const json_t *st, const char **severity);

/* Is this finding a method caveat (information), shown after the evidence? */
int pp_render_is_caveat(const json_t *finding);

#endif
