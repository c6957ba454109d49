/* Private: a small JSON parser that remembers where every value starts, so
 * the span reader can say "line:column: expected ..." about a value that is
 * well-formed JSON but the wrong shape (jansson keeps no positions).
 *
 * One document = one top-level value. Nodes live in the document's arrays
 * and strings in its arena; everything is freed with the document. */
#ifndef PP_CORE_SPANS_JSON_H
#define PP_CORE_SPANS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

#define PP_JSON_NULL   1u
#define PP_JSON_FALSE  2u
#define PP_JSON_TRUE   3u
#define PP_JSON_NUMBER 4u
#define PP_JSON_STRING 5u
#define PP_JSON_ARRAY  6u
#define PP_JSON_OBJECT 7u

#define PP_JSON_NONE UINT32_MAX   /* "no node" index */

typedef struct pp_json_node {
    uint32_t type;         /* PP_JSON_* */
    uint32_t count;        /* members / elements of a container */
    uint32_t first;        /* first child, or PP_JSON_NONE */
    uint32_t next;         /* next sibling, or PP_JSON_NONE */
    const char *key;       /* member name inside an object, else NULL */
    const char *text;      /* string value (unescaped, NUL-terminated) or number text */
    size_t len;            /* bytes of text */
    size_t offset;         /* byte offset of the value's first character */
} pp_json_node;

typedef struct pp_json_arena_block pp_json_arena_block;

typedef struct pp_json_doc {
    pp_json_node *nodes;
    uint32_t count;
    uint32_t cap;
    pp_json_arena_block *blocks;
} pp_json_doc;

/* Parse the one JSON value that starts at or after *pos (leading whitespace
 * skipped) in buf[0..len). On success returns PP_OK, *pos is just past the
 * value and doc holds it with root node 0. Returns PP_ENOTFOUND when only
 * whitespace remains (doc untouched). On malformed JSON returns PP_EFORMAT
 * (PP_ELIMIT past max_depth) with err->offset at the problem; line/column
 * are left to the caller (pp_json_locate). doc must be zeroed or reset. */
int pp_json_parse(pp_json_doc *doc, const char *buf, size_t len, size_t *pos,
                  uint32_t max_depth, pp_error *err);

/* Drop the document's content, keep nothing. */
void pp_json_doc_free(pp_json_doc *doc);

/* The member `key` of object node `obj`, or NULL. */
const pp_json_node *pp_json_get(const pp_json_doc *doc, const pp_json_node *obj,
                                const char *key);
/* The child after `n` (NULL at the end), the first child of `n` (NULL if
 * none). */
const pp_json_node *pp_json_next(const pp_json_doc *doc, const pp_json_node *n);
const pp_json_node *pp_json_first(const pp_json_doc *doc, const pp_json_node *n);

/* 1-based line and column (in bytes) of byte `offset` in buf. */
void pp_json_locate(const char *buf, size_t len, size_t offset, uint32_t *line,
                    uint32_t *column);

/* "string", "number"... for messages. */
const char *pp_json_type_name(uint32_t type);

#endif
