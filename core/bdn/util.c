/* Helpers of core/bdn's reader, below reader.c, json.c and csv.c (which
 * all use them): owned strings and messages that name line and column. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn_private.h"
#include "textfile.h"

char *
pp_bdn_strdup(const char *s)
{
    return strdup(s != NULL ? s : "");
}

int
pp_bdn_fail(pp_bdn_reader *r, pp_error *err, int code, size_t offset, const char *fmt, ...)
{
    char what[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pp_textfile_error(&r->failure, code, r->name, r->buf, r->len, offset, what);
    r->failed = code;
    pp_textfile_error_copy(err, &r->failure);
    return code;
}

void
pp_bdn_truncated(pp_bdn_reader *r, size_t offset, const char *what)
{
    uint32_t line, col;

    pp_textfile_locate(r->buf, r->len, offset, &line, &col);
    r->truncated_at = (int64_t)offset;
    r->has_warning = 1;
    r->warning = (pp_error)PP_ERROR_INIT;
    pp_error_set_at(&r->warning, PP_EFORMAT, (int64_t)offset,
                    "%s:%u:%u: truncated at byte %zu of %zu %s; read %llu whole benchmark%s "
                    "before it",
                    r->name, (unsigned)line, (unsigned)col, offset, r->len, what,
                    (unsigned long long)r->count, r->count == 1 ? "" : "s");
    r->warning.line = line;
    r->warning.column = col;
}
