/* perfpipe — status codes and the caller-owned error struct.
 *
 * Every fallible perfpipe function returns an int status (PP_OK or a negative
 * PP_E* code) and, when given a non-NULL pp_error, fills it with a one-line
 * message. The caller owns the struct (usually on its stack); nothing in it
 * needs freeing. This header is shared by libperfpipe and by plugins, so it
 * holds types and constants only: plugins reach pp_error_set() through the
 * host table, never by linking libperfpipe. */
#ifndef PERFPIPE_ERROR_H
#define PERFPIPE_ERROR_H

#include <stdint.h>

#include <perfpipe/defs.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_OK           0
#define PP_ENOMEM       (-1) /* allocation failed */
#define PP_EIO          (-2) /* open/read/write failed (errno-level) */
#define PP_EFORMAT      (-3) /* input is malformed or not of the expected kind */
#define PP_EUNSUPPORTED (-4) /* a valid input this build cannot read (e.g. newer version) */
#define PP_EINVAL       (-5) /* bad argument, option or configuration */
#define PP_EPLUGIN      (-6) /* a plugin was refused, failed or broke the ABI rules */
#define PP_ENOTFOUND    (-7) /* a named thing (plugin, pipeline, field) does not exist */
#define PP_ELIMIT       (-8) /* input exceeds a documented reader limit */

#define PP_ERROR_MESSAGE_MAX 512

/* A one-line diagnostic. `code` repeats the returned status; `offset` is the
 * byte offset in the input the message refers to, or -1; `line`/`column` are
 * 1-based positions in a text input (YAML, CSV, JSON), or 0. */
typedef struct pp_error {
    uint32_t struct_size; /* sizeof(pp_error) as the filler knows it */
    int32_t code;
    int64_t offset;
    uint32_t line;
    uint32_t column;
    char message[PP_ERROR_MESSAGE_MAX];
} pp_error;

/* Static initializer: pp_error err = PP_ERROR_INIT; */
#define PP_ERROR_INIT                                                                              \
    {                                                                                              \
        sizeof(pp_error), 0, -1, 0, 0,                                                             \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }

#ifdef __cplusplus
}
#endif
#endif
