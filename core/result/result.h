/* Private: the result document (perfpipe-result/1) under construction, and
 * its renderers. The document is a jansson tree from the start, so a result
 * built in this run and one loaded from disk (compare, render) are the same
 * thing.
 *
 * Shape:
 * { "format": "perfpipe-result/1",
 *   "tool": {"name": "perfpipe", "version": "X.Y.Z"},
 *   "pipeline": "alloc", "knobs": {"k": "v", ...},
 *   "inputs": [ {"name","path","kind","bytes","hash":{"algo","value"}, "warnings":[...],
 *                "damage":{"truncated_at":N|null,"dropped_events","repeated_blocks",
 *                          "reordered_blocks","missing_blocks","sequence_gaps",
 *                          "reader_warnings"}, ...reader facts} ],
 *   "stages": [ {"id","analyzer":{"name","version"},"status":"ok"|"partial"|"failed",
 *                "error":{"message",...} (failed only),
 *                "tables":[{"name","key":[..],"columns":[{"name","type"}],"rows":[[..]]}],
 *                "findings":[{"severity","code","message"}],
 *                "totals":{"name":{"type":"bytes","value":123}} } ] }
 *
 * Cells: string columns hold a JSON string or null; count, bytes,
 * duration_ns and timestamp_ns hold exact JSON integers (int64); percent and
 * number hold a JSON number, or null where the value was NaN or infinite.
 * Severities are "info", "warning", "error". Totals of type "string" hold a
 * JSON string. A stage is "partial" when an input it read is damaged (see
 * core/result/damage.h): it then carries an `input.damaged` warning.
 *
 * Threading: a document is built by one thread at a time; there is no
 * process-wide state (table wrappers live in caller-owned sets).
 */
#ifndef PP_CORE_RESULT_H
#define PP_CORE_RESULT_H

#include <stdio.h>
#include <jansson.h>

#include <perfpipe/plugin.h>

#define PP_RESULT_FORMAT "perfpipe-result/1"

/* ---- building ----------------------------------------------------------- */

/* A new empty document (new reference; NULL only when out of memory).
 * tool.version is pp_version(); knobs, inputs and stages start empty. */
json_t *pp_result_new(const char *pipeline_name);

/* Record a knob (copied; replaces an earlier value of the same name).
 * PP_OK, PP_EINVAL (NULL name/value), PP_ENOMEM. */
int pp_result_set_knob(json_t *doc, const char *name, const char *value);

/* Append an input entry; returns it (borrowed from doc) so a reader can add
 * its own facts, or NULL (bad argument / out of memory). hash_algo and
 * hash_value may both be NULL (no "hash" member); bytes < 0 means unknown
 * (member omitted). */
json_t *pp_result_add_input(json_t *doc, const char *name, const char *path, const char *kind,
                            int64_t bytes, const char *hash_algo, const char *hash_value);

/* Append a stage entry (status "ok"); returns it (borrowed from doc), or
 * NULL on a bad argument or out of memory. */
json_t *pp_result_add_stage(json_t *doc, const char *id, const char *analyzer,
                            const char *analyzer_version);

/* Mark a stage failed: status "failed" and "error": {"message": ...}
 * (copied). PP_OK, PP_EINVAL or PP_ENOMEM. */
int pp_result_stage_failed(json_t *stage, const char *message);
/* The same with a whole error object (reference stolen): "message" (string,
 * required), and where known "phase" (create/consume/finish/destroy),
 * "signal" (name), "exit_status", "limit_s" (the progress limit that was
 * hit), "last_record" (1-based record number the stage was given last),
 * "input_offset" (bytes of the input read by then). */
int pp_result_stage_failed_with(json_t *stage, json_t *error);
/* A failed stage's message ("error" as an object or, in older documents, a
 * string), or NULL. */
const char *pp_result_stage_error(const json_t *stage);

/* Host-table implementations on a stage entry.
 *
 * A stage's table wrappers live in a set the caller owns (the engine keeps
 * one per stage), so nothing is process-wide: two documents can be built at
 * once in one process. owner is the caller's (the host stores its stage
 * context there, so table_row can blame the right stage).
 *
 * pp_result_table_new: a table named `name` (unique in the stage) with
 * ncolumns typed columns (names copied, unique, types PP_COL_*), the first
 * nkey of which are the key. The wrapper belongs to set until
 * pp_result_tables_release(set). NULL on a bad argument or out of memory,
 * with err (may be NULL) saying which. */
typedef struct pp_table_set {
    pp_table *head;
    void *owner;
} pp_table_set;

pp_table *pp_result_table_new(pp_table_set *set, json_t *stage, const char *name, uint32_t ncolumns,
                              const pp_column *columns, uint32_t nkey, pp_error *err);
/* Append one row of exactly ncolumns cells (strings copied). A cell whose
 * type does not fit its column (string <- STRING/NULL; count, bytes,
 * duration_ns, timestamp_ns <- INT; percent, number <- DOUBLE/INT/NULL)
 * rejects the whole row with PP_EINVAL; the message names table, row and
 * column and is kept in the table (pp_result_table_error) and in err (may
 * be NULL). A NULL or released table is PP_EINVAL naming argument 1. NaN
 * and infinities are stored as null. PP_ENOMEM too. */
int pp_result_table_row(pp_table *t, const pp_cell *cells, pp_error *err);
/* The message of the last rejected row or table_new problem, "" if none.
 * Valid until the table is released. */
const char *pp_result_table_error(const pp_table *t);
/* How many columns a live table has (0 for anything else). */
uint32_t pp_result_table_columns(const pp_table *t);
/* The set's owner for a live table, else NULL. */
void *pp_result_table_owner(const pp_table *t);

/* A consumer hint on table t of stage ("hints": {key: value}, copied; a
 * later value of the same key replaces it). PP_OK, PP_EINVAL, PP_ENOMEM. */
int pp_result_table_hint(json_t *stage, pp_table *t, const char *key, const char *value);

/* Rows of a document's table (its "key" columns, "rows") that repeat the
 * key of an earlier row: a keyed table's rows are one per key (plugin.h),
 * so such rows are ambiguous to anything that joins by key (compare).
 * first_key: the first repeated key's cells as a JSON array text (caller
 * frees), NULL when repeats is 0. PP_OK or PP_ENOMEM (*out zeroed). */
typedef struct pp_key_repeats {
    size_t repeats;   /* rows whose key an earlier row had */
    size_t first_row; /* index of the first such row */
    char *first_key;
} pp_key_repeats;
int pp_result_key_repeats(const json_t *table, pp_key_repeats *out);

/* Findings and totals. PP_OK, PP_EINVAL (bad severity/type/NULL), PP_ENOMEM.
 * A total of the same name replaces the earlier one. */
int pp_result_finding(json_t *stage, uint32_t severity, const char *code, const char *message);
int pp_result_total_int(json_t *stage, const char *name, uint32_t type, int64_t value);
int pp_result_total_double(json_t *stage, const char *name, uint32_t type, double value);
int pp_result_total_string(json_t *stage, const char *name, const char *value);
/* Free the pp_table wrappers of a set (the JSON stays in the document).
 * Safe on an empty set, and more than once. */
void pp_result_tables_release(pp_table_set *set);

/* Column type names <-> PP_COL_*. */
const char *pp_column_type_name(uint32_t type);      /* NULL if unknown */
uint32_t pp_column_type_from_name(const char *name); /* 0 if unknown */
/* Severity names <-> PP_SEVERITY_*: "info", "warning", "error". */
const char *pp_severity_name(uint32_t severity); /* NULL if unknown */

/* ---- checking ----------------------------------------------------------- */

/* Check that a loaded JSON is a perfpipe-result/1 document: format string,
 * tool, inputs, stages, each table's columns/key/rows and cell types,
 * findings and totals. PP_OK, or PP_EFORMAT with one message naming the
 * place ("stage \"alloc\" table \"by_type\" row 3 column 2 (\"bytes\"): ...
 * at /stages/0/tables/0/rows/3/2"). */
int pp_result_validate(const json_t *doc, pp_error *err);

/* ---- rendering ---------------------------------------------------------- */

/* Render a document. Formats:
 *   "table"      aligned text, human units (the default for people)
 *   "json"       the document, indented 2, trailing newline
 *   "markdown"   GitHub pipe tables, human units
 *   "csv"        RFC 4180 blocks per table, raw machine values, CRLF
 *   "folded"     `frame;frame;... weight` lines (flamegraph.pl, inferno)
 *   "speedscope" speedscope's file format (sampled profile)
 *   "pprof"      gzip-compressed perftools.profiles.Profile (go tool pprof,
 *                Pyroscope, Parca); also a heap stage's types by root path
 *   "svg"        a self-contained interactive flame graph; for a result
 *                without a stack table, the counters charts (footprint
 *                series over time, trend lines, leak verdicts)
 *   "html"       one self-contained page: header, findings first, flame
 *                graphs, charts, totals, sortable and filterable tables
 * The flame formats take a "stack table": first column `stack` (string,
 * root first, frames joined by ';'), second column a count, bytes or
 * duration_ns weight. Returns PP_OK, PP_EINVAL for an unknown format,
 * PP_ENOTFOUND when a flame format finds no stack table, PP_EFORMAT for a
 * document whose shape is wrong, PP_EIO when writing fails. The document
 * should have passed pp_result_validate. */
int pp_render(const json_t *doc, const char *format, FILE *out, pp_error *err);

/* Same, restricted to one table. `table` is "NAME" (first stage having a
 * table of that name) or "STAGE/NAME"; NULL means: for the flame formats
 * the first stack table of the first stage that has one, for the others the
 * whole document. PP_ENOTFOUND when the named table does not exist. */
int pp_render_table_named(const json_t *doc, const char *format, const char *table, FILE *out,
                          pp_error *err);

/* How the text and flame renderers lay things out. Zero (or
 * PP_RENDER_OPTS_INIT) is the default: text cut to fit 120 columns, flame
 * graphs weighted by time where the table has it.
 *   width    columns the table renderer fits (0 = 120); cells of string
 *            columns are cut from the front ("...Type.Method": the end of a
 *            frame is what tells two apart); numbers, totals and findings
 *            are never cut (findings wrap at spaces).
 *   wide     never cut, never wrap (width ignored).
 *   top      table and markdown show at most this many rows per table and
 *            say how many they left out (0 = all); json, csv and the flame
 *            formats always carry every row.
 *   weight   flame formats: PP_RENDER_WEIGHT_TIME (default) weighs stacks by
 *            the table's time column (a duration_ns column, else a number
 *            column named "ms" or "*_ms"), falling back to its second
 *            column; PP_RENDER_WEIGHT_SAMPLES by the second column. */
enum { PP_RENDER_WEIGHT_TIME = 0, PP_RENDER_WEIGHT_SAMPLES = 1 };
typedef struct pp_render_opts {
    unsigned width;
    int wide;
    int64_t top;
    int weight;
} pp_render_opts;
#define PP_RENDER_OPTS_INIT                                                                        \
    {                                                                                              \
        0, 0, 0, PP_RENDER_WEIGHT_TIME                                                             \
    }

/* pp_render_table_named with layout options (NULL = defaults). */
int pp_render_opts_table(const json_t *doc, const char *format, const char *table,
                         const pp_render_opts *opts, FILE *out, pp_error *err);

/* The two side files of a CSV directory: totals.csv (stage, name, type,
 * value) and findings.csv (stage, severity, code, message). RFC 4180, CRLF. */
int pp_render_csv_totals(const json_t *doc, FILE *out, pp_error *err);
int pp_render_csv_findings(const json_t *doc, FILE *out, pp_error *err);

/* Is this format name known to pp_render? */
int pp_render_format_known(const char *format);

/* Human units used by the text renderers. Decimal SI with 3 significant
 * digits: 1 KB = 1000 B, MB = 10^6, GB = 10^9, TB = 10^12, PB = 10^15
 * ("512 B", "35.4 KB", "1.21 GB"); durations "12 ns", "850 us", "35.4 ms",
 * "1.20 s" (seconds stay seconds: "3600 s"). Negative values get a leading
 * '-'; NaN/inf render as "-". buf is always NUL-terminated (size >= 1). */
void pp_format_bytes(char *buf, size_t size, double bytes);
void pp_format_duration_ns(char *buf, size_t size, double ns);
/* "1,234,567", "-1,234". */
void pp_format_count(char *buf, size_t size, int64_t n);
/* "12.3%". */
void pp_format_percent(char *buf, size_t size, double pct);
/* A timestamp in ms with thousands separators: "1,234.5 ms". */
void pp_format_timestamp_ns(char *buf, size_t size, int64_t ns);
/* A unitless number, never in scientific notation: 4 significant digits
 * below 1000 ("0.9876", "12.35", "123.5"), whole with separators above
 * ("12,346", "1,234,567"); magnitudes below 0.00005 print "0". */
void pp_format_number(char *buf, size_t size, double v);

#endif
