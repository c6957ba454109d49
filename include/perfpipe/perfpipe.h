/* perfpipe — the public library API (libperfpipe, pkg-config perfpipe).
 *
 * Programs that read .NET captures without the plugin machinery include this
 * header and link -lperfpipe. Plugins do NOT include it: they get everything
 * through include/perfpipe/plugin.h and the host table. */
#ifndef PERFPIPE_PERFPIPE_H
#define PERFPIPE_PERFPIPE_H

#include <stdarg.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version string, e.g. "0.1.0". Static storage. */
PP_API const char *pp_version(void);

/* Fill err (NULL-safe): code, and the message formatted from fmt, cut to
 * PP_ERROR_MESSAGE_MAX - 1 bytes. Leaves offset/line/column unchanged. */
PP_API void pp_error_set(pp_error *err, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
PP_API void pp_error_setv(pp_error *err, int32_t code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Same, also recording the byte offset the message refers to. */
PP_API void pp_error_set_at(pp_error *err, int32_t code, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Reset to "no error". */
PP_API void pp_error_clear(pp_error *err);

/* A short name of a status code: "format error", "out of memory"... */
PP_API const char *pp_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
