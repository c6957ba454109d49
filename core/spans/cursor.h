/* Private: finding one's way in the text of a span export without parsing
 * all of it at once.
 *
 * The span reader walks the few levels of an OTLP/JSON document that hold
 * the spans (the document object, resourceSpans, scopeSpans, spans) here,
 * and hands every value it wants to jansson, one value at a time
 * (pp_jc_load), so memory is one span's tree and never the document's. The
 * walk checks the punctuation between values (':' ',' ']' '}') and that
 * every value starts like one; what a value contains is checked by jansson
 * when it is loaded. pp_jc_skip finds where a value ends (brackets and
 * strings matched, nesting bounded), for values looked at later or never. */
#ifndef PP_CORE_SPANS_CURSOR_H
#define PP_CORE_SPANS_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/error.h>

/* Value types by their first character (pp_jc_type). */
#define PP_JC_NONE   0u
#define PP_JC_NULL   1u
#define PP_JC_BOOL   2u
#define PP_JC_NUMBER 3u
#define PP_JC_STRING 4u
#define PP_JC_ARRAY  5u
#define PP_JC_OBJECT 6u

/* A problem found in the text: code (PP_EFORMAT or PP_ELIMIT), the byte
 * offset it is about and what was expected. */
typedef struct pp_jc_problem {
    int code;
    size_t offset;
    char what[160];
} pp_jc_problem;

/* The text: buf[0..len), NUL-terminated at len. */
typedef struct pp_jc_text {
    const char *buf;
    size_t len;
    uint32_t max_depth; /* nesting limit of pp_jc_skip */
    size_t max_value;   /* largest value pp_jc_load accepts, bytes */
} pp_jc_text;

/* The first position at or after pos that is not JSON whitespace. */
size_t pp_jc_ws(const pp_jc_text *t, size_t pos);

/* The type of the value starting at pos (no whitespace skipped), by its
 * first character: PP_JC_NONE if nothing can start there. */
uint32_t pp_jc_type(const pp_jc_text *t, size_t pos);

/* "object", "array", ... for messages ("nothing" for PP_JC_NONE). */
const char *pp_jc_type_name(uint32_t type);

/* The end (one past the last byte) of the value at pos, matching brackets
 * and strings, nesting <= max_depth (levels counted from `depth`, the
 * nesting of pos itself). 0 = ok, < 0 = problem filled. */
int pp_jc_skip(const pp_jc_text *t, size_t pos, uint32_t depth, size_t *end, pp_jc_problem *pr);

/* Load the value at pos with jansson: *out is the caller's (json_decref),
 * *end one past the value. A value longer than max_value is PP_ELIMIT; bad
 * JSON is PP_EFORMAT with jansson's message at its position. */
int pp_jc_load(const pp_jc_text *t, size_t pos, json_t **out, size_t *end, pp_jc_problem *pr);

/* Walk the object at pos: for each member whose name is in keys[0..n),
 * the first time it appears, vals[i] is its value's position (SIZE_MAX if
 * absent) and the value is skipped; every other member's value is loaded
 * (checked) and dropped. *end is one past the closing '}'. */
int pp_jc_members(const pp_jc_text *t, size_t pos, const char *const *keys, size_t n, size_t *vals,
                  size_t *end, pp_jc_problem *pr);

/* Step through an array. *at starts just past '[' (pp_jc_array_open) and is
 * set by the caller to one past each element it took. Returns 1 with *elem
 * the position of the next element, 0 after the closing ']' (*at past it),
 * < 0 on a problem. first: no element taken yet. */
int pp_jc_array_open(const pp_jc_text *t, size_t pos, size_t *at, pp_jc_problem *pr);
int pp_jc_array_next(const pp_jc_text *t, size_t *at, int first, size_t *elem, pp_jc_problem *pr);

/* The position of member `key`'s value in the object at pos, or of element
 * `index` of the array at pos: for messages about a value found inside a
 * loaded tree. SIZE_MAX when not found. */
size_t pp_jc_member_at(const pp_jc_text *t, size_t pos, const char *key);
size_t pp_jc_element_at(const pp_jc_text *t, size_t pos, size_t index);

/* 1-based line and column (bytes) of offset. */
void pp_jc_locate(const pp_jc_text *t, size_t offset, uint32_t *line, uint32_t *column);

#endif
