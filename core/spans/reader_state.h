/* Private: the span reader's state, shared by the walk (reader.c) and the
 * span builder (span.c). */
#ifndef PP_CORE_SPANS_READER_STATE_H
#define PP_CORE_SPANS_READER_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/error.h>
#include <perfpipe/spans.h>

#include "spans/cursor.h"

/* The largest single value jansson is given: one span, or a member beside
 * the span arrays (a resource, a scope). A tree of tiny JSON values costs
 * up to ~25x its text, so this bounds the reader's memory beyond the file
 * bytes to ~25 MiB whatever the file. */
#define PP_SPANS_MAX_VALUE ((size_t)1 << 20)

/* Steps from a span's '{' to a value inside it, resolved to a byte offset
 * only when needed (a message, a number's own text). */
#define PATH_MAX_STEPS (2 * PP_SPANS_MAX_DEPTH + 8)
typedef struct span_path {
    const char *key[PATH_MAX_STEPS]; /* NULL: index[i] is an array index */
    size_t index[PATH_MAX_STEPS];
    uint32_t n;
} span_path;

/* An array being stepped through (pp_jc_array_next). */
typedef struct arr_cursor {
    size_t at;
    int open;
    int first;
} arr_cursor;

struct pp_spans_reader {
    char *buf;
    size_t len;
    char *name;
    pp_jc_text text;
    size_t pos;            /* where the next document starts */
    arr_cursor rs, ss, sp; /* resourceSpans, scopeSpans, spans */
    json_t *resource;      /* the current resource (owns service) */
    json_t *span;          /* the current span's tree (owns cur's strings) */
    size_t span_pos;
    const char *service;
    uint64_t spans;
    uint64_t documents;
    int64_t truncated_at; /* where a cut last document starts, or -1 */
    uint32_t form;
    int failed; /* sticky error code, 0 if none */
    pp_error failure;
    pp_span cur;
    pp_span_attr *attrs;
    size_t *attr_off; /* scratch offsets while building attrs */
    uint32_t attr_cap;
    char *scratch; /* text of non-string attribute values */
    size_t scratch_len;
    size_t scratch_cap;
};

/* Record a format error at byte `offset` of the file (line:column in the
 * message) and make it sticky; returns code. */
int pp_spans_bad(pp_spans_reader *r, size_t offset, int code, pp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Turn r->span (the tree of the span at r->span_pos) into r->cur. */
int pp_spans_build(pp_spans_reader *r, pp_error *err);

/* "object", "number"... of a jansson value, for messages. */
const char *pp_spans_kind_name(const json_t *v);

#endif
