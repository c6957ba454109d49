/* Helpers of core/bdn's reader, below reader.c, json.c and csv.c (which
 * all use them): owned strings and messages that name line and column. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn_private.h"
#include "base/textfile.h"

char *
pp_bdn_strdup(const char *s)
{
    return strdup(s != NULL ? s : "");
}

int
pp_bdn_fail(pp_bdn_reader *r, pp_error *err, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    r->failed = pp_textfile_vfail(&r->failure, err, code, r->name, r->buf, r->len, offset, fmt, ap);
    va_end(ap);
    return code;
}

void
pp_bdn_truncated(pp_bdn_reader *r, size_t offset, const char *what)
{
    r->truncated_at = (int64_t)offset;
    r->has_warning = 1;
    pp_textfile_truncated(&r->warning, r->name, r->buf, r->len, offset,
                          " %s; read %llu whole benchmark%s before it", what,
                          (unsigned long long)r->count, r->count == 1 ? "" : "s");
}
