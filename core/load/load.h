/* Private: reader for load-test results (libperfpipe's "load" input kind).
 *
 * Reads what the load tools .NET teams use write, told by content:
 *  - wrk's text report (with or without --latency; wrk2's too, which is
 *    fixed-rate), and the JSON object examples/wrk-json/wrk-json.lua writes
 *    from wrk's done() hook (alone, or after the text report on stdout);
 *  - hey's text summary and its `-o csv` per-request lines;
 *  - k6's end-of-test summary JSON (handleSummary's data, metrics.NAME.values)
 *    and the legacy --summary-export file (whose thresholds say true for a
 *    FAILED threshold), and k6's `--out json` line stream (Metric and Point);
 *  - bombardier `-o json -p r` (latencies in microseconds), vegeta
 *    `report -type=json` (nanoseconds) or its results as `vegeta encode
 *    --to json` lines (one a request), and oha `--output-format json`
 *    (seconds; its schema.json).
 * Each becomes one pp_load_result for the whole run (scope ""), then one per
 * URL, scenario or tag where the tool gives them. Latencies are nanoseconds.
 *
 * Damage: a line-oriented input (k6 --out json, vegeta lines, hey csv) cut short is read
 * to its last whole line and flagged (pp_load_truncated_at); a text report
 * cut after its request count is read and flagged; a single JSON document
 * cut short cannot be read and is refused with the byte where it stopped.
 * Malformed input is PP_EFORMAT with "FILE:LINE:COLUMN: what was expected".
 *
 * Memory: the file's bytes plus the records (samples: 8 bytes a request). */
#ifndef PP_CORE_LOAD_H
#define PP_CORE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

#define PP_LOAD_MAX_SCOPES   4096u       /* URLs / tags / scenarios of one run */
#define PP_LOAD_MAX_COUNTS   1024u       /* statuses or error kinds of one scope */
#define PP_LOAD_MAX_SAMPLES  50000000u   /* per-request latencies kept (400 MB) */
#define PP_LOAD_MAX_DOCUMENT (16u << 20) /* one JSON summary (jansson's tree: ~25x) */
#define PP_LOAD_MAX_LINE     (1u << 20)  /* one k6 --out json line */

typedef struct pp_load_reader pp_load_reader;

/* Read a whole regular file into a malloc'ed NUL-terminated buffer. */
int pp_load_read_file(const char *path, char **buf, size_t *len, pp_error *err);

/* Open over buf[0..len) (malloc'ed, len + 1 bytes, NUL-terminated), taking
 * ownership of buf even on failure. `name` (copied) prefixes messages. The
 * whole input is parsed now: a bad input fails here. */
int pp_load_open_buffer(char *buf, size_t len, const char *name, pp_load_reader **out,
                        pp_error *err);

/* Same over a file. */
int pp_load_open(const char *path, pp_load_reader **out, pp_error *err);

/* The next result: 1 with *res set (borrowed until close), 0 at the end. */
int pp_load_next(pp_load_reader *r, const pp_load_result **res, pp_error *err);

/* Facts. */
const char *pp_load_format(const pp_load_reader *r);   /* "wrk-text", ... */
const char *pp_load_tool(const pp_load_reader *r);     /* "wrk", ... */
uint64_t pp_load_scopes(const pp_load_reader *r);      /* results (scopes) in the input */
int64_t pp_load_truncated_at(const pp_load_reader *r); /* byte offset, or -1 */
/* The whole run's result (scope ""), or NULL before a successful open. */
const pp_load_result *pp_load_run(const pp_load_reader *r);
/* The truncation warning ("FILE:L:C: truncated at byte N ..."), or NULL. */
const pp_error *pp_load_warning(const pp_load_reader *r);

void pp_load_close(pp_load_reader *r);

#endif
