/* Status codes and the caller-owned error struct. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

const char *
pp_version(void)
{
    return PACKAGE_VERSION;
}

void
pp_error_setv(pp_error *err, int32_t code, const char *fmt, va_list ap)
{
    if (err == NULL)
        return;
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

void
pp_error_set(pp_error *err, int32_t code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
}

void
pp_error_set_at(pp_error *err, int32_t code, int64_t offset, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL)
        return;
    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
    err->offset = offset;
}

void
pp_error_clear(pp_error *err)
{
    if (err == NULL)
        return;
    err->struct_size = sizeof *err;
    err->code = PP_OK;
    err->offset = -1;
    err->line = 0;
    err->column = 0;
    err->message[0] = '\0';
}

const char *
pp_strerror(int code)
{
    switch (code) {
    case PP_OK: return "success";
    case PP_ENOMEM: return "out of memory";
    case PP_EIO: return "input/output error";
    case PP_EFORMAT: return "malformed input";
    case PP_EUNSUPPORTED: return "unsupported input";
    case PP_EINVAL: return "invalid argument";
    case PP_EPLUGIN: return "plugin error";
    case PP_ENOTFOUND: return "not found";
    case PP_ELIMIT: return "input exceeds a reader limit";
    default: return "unknown error";
    }
}
