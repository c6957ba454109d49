/* The span reader's messages: a problem at a byte offset of the file becomes
 * "FILE:LINE:COLUMN: what", sticky in the reader; type names for them. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "spans/cursor.h"
#include "spans/reader_state.h"

int
pp_spans_bad(pp_spans_reader *r, size_t offset, int code, pp_error *err, const char *fmt, ...)
{
    char what[PP_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    uint32_t line, col;
    pp_jc_locate(&r->text, offset, &line, &col);
    pp_error *e = &r->failure;
    *e = (pp_error)PP_ERROR_INIT;
    pp_error_set_at(e, code, (int64_t)offset, "%s:%u:%u: %s", r->name, (unsigned)line,
                    (unsigned)col, what);
    e->line = line;
    e->column = col;
    r->failed = code;
    if (err) {
        uint32_t size = err->struct_size;
        *err = *e;
        if (size)
            err->struct_size = size;
    }
    return code;
}

const char *
pp_spans_kind_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    default: return "null";
    }
}
