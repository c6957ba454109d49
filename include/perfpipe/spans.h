/* perfpipe — reader for OpenTelemetry span exports (libperfpipe).
 *
 * Reads OTLP/JSON trace data in the forms a .NET developer meets:
 *  - an OTLP/JSON document {"resourceSpans":[...]} (collector file exporter,
 *    OTLP/HTTP JSON bodies);
 *  - the Aspire dashboard / `aspire otel spans --format Json` snapshot
 *    {"data":{"resourceSpans":[...]},"totalCount":N,"returnedCount":M};
 *  - NDJSON: one such document per line (`aspire otel spans --follow`),
 *    or any sequence of them separated by whitespace.
 * Times are unix nanoseconds as strings (or integers); kind is an integer or
 * an enum name ("SPAN_KIND_SERVER"); attribute values of every OTLP AnyValue
 * type are delivered as UTF-8 text.
 *
 * Errors: PP_EFORMAT with line:column of the offending JSON value in the
 * pp_error, PP_EIO for read failures, PP_ELIMIT for inputs past a documented
 * limit (PP_SPANS_MAX_DEPTH nesting, PP_SPANS_MAX_ATTRS attributes a span). */
#ifndef PERFPIPE_SPANS_H
#define PERFPIPE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include <perfpipe/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_SPANS_MAX_DEPTH 128  /* JSON nesting levels */
#define PP_SPANS_MAX_ATTRS 4096 /* attributes of one span (resource's not counted) */

/* Input forms, as reported by the getter below. */
#define PP_SPANS_FORM_UNKNOWN 0u
#define PP_SPANS_FORM_OTLP    1u /* bare {"resourceSpans":...} document(s) */
#define PP_SPANS_FORM_ASPIRE  2u /* {"data":{"resourceSpans":...}} snapshot(s) */

typedef struct pp_spans_reader pp_spans_reader;

/* Open a span export file. The whole file is read now (bounded by its
 * size). On success *out is the reader, to be released with the close call;
 * on failure *out is NULL and err says why. */
PP_API int pp_spans_open(const char *path, pp_spans_reader **out, pp_error *err);

/* Same over bytes in memory (copied; `name` is used in messages, may be
 * NULL). */
PP_API int pp_spans_open_memory(const void *data, size_t len, const char *name,
                                pp_spans_reader **out, pp_error *err);

/* The next span: 1 and *span set (borrowed: valid until the next call or
 * close), 0 at the end, or a negative PP_E* code with err filled (line and
 * column set). After an error every further call returns the same code. */
PP_API int pp_spans_next(pp_spans_reader *r, const pp_span **span, pp_error *err);

/* Facts after (or during) reading: the spans delivered, the top-level JSON
 * values read, the PP_SPANS_FORM_* of the first document. */
PP_API uint64_t pp_spans_count(const pp_spans_reader *r);
PP_API uint64_t pp_spans_documents(const pp_spans_reader *r);
PP_API uint32_t pp_spans_form(const pp_spans_reader *r);

/* Release the reader and everything it handed out. NULL is a no-op. */
PP_API void pp_spans_close(pp_spans_reader *r);

/* ---- the reader API (reader.h): the verbs every reader shares ---------- */

/* The reader's facts, the getters above in one struct. */
typedef struct pp_spans_info {
    uint32_t struct_size;
    uint32_t form;      /* PP_SPANS_FORM_* of the first document */
    uint64_t spans;     /* spans delivered so far */
    uint64_t documents; /* top-level JSON values read */
} pp_spans_info;

/* open: as pp_spans_open; the whole file is read at open, so on_bytes sees
 * all of it then. No warnings are raised by this reader today. */
PP_API int pp_spans_reader_open(const char *path, const pp_reader_hooks *hooks,
                                pp_spans_reader **out, pp_error *err);
/* open_memory: data is borrowed until close (reader.h); this version copies
 * it (its parser wants a terminated buffer). */
PP_API int pp_spans_reader_open_memory(const void *data, size_t size, const char *name,
                                       const pp_reader_hooks *hooks, pp_spans_reader **out,
                                       pp_error *err);
/* next: as pp_spans_next. */
PP_API int pp_spans_reader_next(pp_spans_reader *r, const pp_span **span, pp_error *err);
/* close: as pp_spans_close. */
PP_API void pp_spans_reader_close(pp_spans_reader *r);
PP_API int pp_spans_reader_get_info(const pp_spans_reader *r, pp_spans_info *out);

#ifdef __cplusplus
}
#endif
#endif
