/* Private: reader for BenchmarkDotNet result exports (libperfpipe's "bench"
 * input kind).
 *
 * Reads the files BenchmarkDotNet writes under BenchmarkDotNet.Artifacts/results:
 *  - the JSON exporter's output (`*-report-full.json` from JsonExporter.Full,
 *    `*-report-brief.json` / `*-report.json` from the brief ones): per
 *    benchmark case FullName, Type, Method, Parameters, DisplayInfo (the job),
 *    Statistics, Memory and, in the full form, every Measurement;
 *  - the CSV exporter's summary (`*-report.csv`) as a fallback: one row per
 *    case with the summary columns as text ("1,080.6 ns", "1408 B"); it has
 *    no measurements, so compare cannot test it statistically.
 * The kind is told by content ('{' opens JSON, a header line with "Method"
 * opens CSV).
 *
 * Damage: a JSON export cut short yields every benchmark whose object is
 * whole, then the end, with a warning naming the byte where it stopped
 * (pp_bdn_truncated_at); one cut before its first whole benchmark is
 * refused. Malformed or wrong-shaped input is PP_EFORMAT with
 * "FILE:LINE:COLUMN: what was expected" (the position of the offending JSON
 * value or benchmark object, plus its path such as
 * Benchmarks[2].Memory.BytesAllocatedPerOperation).
 *
 * Memory: the file's bytes plus one benchmark parsed at a time (jansson);
 * the measurement array is bounded by PP_BDN_MAX_MEASUREMENTS. */
#ifndef PP_CORE_BDN_H
#define PP_CORE_BDN_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>

#define PP_BDN_MAX_MEASUREMENTS 1000000u /* one benchmark case */
#define PP_BDN_MAX_COLUMNS      256u     /* CSV header */

#define PP_BDN_FORM_JSON 1u
#define PP_BDN_FORM_CSV  2u

typedef struct pp_bdn_reader pp_bdn_reader;

/* Read a whole regular file into a malloc'ed NUL-terminated buffer. */
int pp_bdn_read_file(const char *path, char **buf, size_t *len, pp_error *err);

/* Open over buf[0..len) (malloc'ed, len + 1 bytes, NUL-terminated), taking
 * ownership of buf even on failure. `name` (copied) prefixes messages. The
 * kind is detected and the head checked now. */
int pp_bdn_open_buffer(char *buf, size_t len, const char *name, pp_bdn_reader **out, pp_error *err);

/* Same over a file. */
int pp_bdn_open(const char *path, pp_bdn_reader **out, pp_error *err);

/* The next benchmark case: 1 with *res set (borrowed until the next call or
 * close), 0 at the end (whole or truncated: see pp_bdn_truncated_at), or a
 * negative PP_E* code with err filled. Errors are sticky. */
int pp_bdn_next(pp_bdn_reader *r, const pp_bench_result **res, pp_error *err);

/* Facts. */
uint32_t pp_bdn_form(const pp_bdn_reader *r);        /* PP_BDN_FORM_* */
uint64_t pp_bdn_count(const pp_bdn_reader *r);       /* cases delivered */
int64_t pp_bdn_truncated_at(const pp_bdn_reader *r); /* byte offset, or -1 */
/* The truncation warning ("FILE: truncated at byte N ..."), or NULL. */
const pp_error *pp_bdn_warning(const pp_bdn_reader *r);
const char *pp_bdn_title(const pp_bdn_reader *r);   /* "" if unknown */
const char *pp_bdn_version(const pp_bdn_reader *r); /* BenchmarkDotNet version, "" */

void pp_bdn_close(pp_bdn_reader *r);

#endif
