/* Helpers shared by the files of core/nettrace: growing arrays, failing
 * and warning with a byte offset. They call nothing else in the folder, so
 * every other file can use them without making a circle. */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

void *
nt_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    if (ncap > SIZE_MAX / elem)
        return NULL;
    void *np = realloc(p, ncap * elem);
    if (np)
        *cap = ncap;
    return np;
}

int
nt_fail_at(pp_trace_source *r, pp_error *err, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
    if (err)
        err->offset = (int64_t)off;
    r->failed = code;
    return code;
}

void
nt_warn_at(pp_trace_source *r, uint64_t off, const char *fmt, ...)
{
    pp_error w = PP_ERROR_INIT;
    va_list ap;

    if (!r->on_warning)
        return;
    va_start(ap, fmt);
    pp_error_setv(&w, PP_EFORMAT, fmt, ap);
    va_end(ap);
    w.offset = (int64_t)off;
    r->on_warning(r->user, &w);
}
