/* Private to core: a whole regular file as NUL-terminated text, and the
 * line and column of a byte of it, for the readers that parse whole files
 * and name where a problem is (core/bdn, core/load). */
#ifndef PP_CORE_TEXTFILE_H
#define PP_CORE_TEXTFILE_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

/* Read the regular file `path` into a malloc'ed buffer of *len + 1 bytes,
 * NUL-terminated (the caller frees *buf). `not_regular` ends the message
 * for a FIFO, device or folder (say what the file should be). PP_OK,
 * PP_EIO or PP_ENOMEM with err filled. */
int pp_textfile_read(const char *path, const char *not_regular, char **buf, size_t *len,
                     pp_error *err);

/* The 1-based line and byte column of `offset` in buf[0..len) (an offset
 * past the end is the end). */
void pp_textfile_locate(const char *buf, size_t len, size_t offset, uint32_t *line, uint32_t *col);

/* *out = a fresh error `code` about byte `offset` of buf[0..len) read from
 * `name`: "NAME:LINE:COLUMN: what", with offset, line and column set (the
 * sticky failures of the whole-file readers). */
void pp_textfile_error(pp_error *out, int code, const char *name, const char *buf, size_t len,
                       size_t offset, const char *what);

/* Copy a sticky failure into a caller's err (NULL-safe), keeping the
 * caller's struct_size. */
void pp_textfile_error_copy(pp_error *err, const pp_error *failure);

#endif
