/* Private to core: a whole regular file as NUL-terminated text, the line
 * and column of a byte of it, the sticky failure and truncation warning
 * that name them, and the engine's source over such a reader: what the
 * readers that parse whole files share (core/bdn, core/load). */
#ifndef PP_CORE_TEXTFILE_H
#define PP_CORE_TEXTFILE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

#include "input/source.h"

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

/* A whole-file reader's sticky failure: *failure = "NAME:LINE:COLUMN: "
 * then fmt about byte `offset` of buf[0..len) (as pp_textfile_error), also
 * copied into err. Returns code. */
int pp_textfile_vfail(pp_error *failure, pp_error *err, int code, const char *name, const char *buf,
                      size_t len, size_t offset, const char *fmt, va_list ap)
    __attribute__((format(printf, 8, 0)));

/* A whole-file reader's truncation warning (an error code PP_EFORMAT, no
 * failure): *warning = "NAME:LINE:COLUMN: truncated at byte OFFSET of LEN"
 * then fmt (which says what was cut), with offset, line and column set. */
void pp_textfile_truncated(pp_error *warning, const char *name, const char *buf, size_t len,
                           size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* The engine's source (source.h) over a reader that parses one whole text
 * file and hands out one record at a time (core/bdn, core/load): the file
 * is read whole, shown to the content hash once, and the reader's first
 * warning goes to the hooks once, at the end. A reader gives these: */
typedef struct pp_text_reader {
    uint32_t kind_bit; /* the records' PP_KIND_* */
    /* read path whole (pp_textfile_read with the reader's advice) */
    int (*read_file)(const char *path, char **buf, size_t *len, pp_error *err);
    /* open over buf (taken, also on failure) as read from path */
    int (*open)(char *buf, size_t len, const char *path, void **reader, pp_error *err);
    /* 1 with rec->u set to the next item, 0 at the end, < 0 an error */
    int (*next)(void *reader, pp_record *rec, pp_error *err);
    const pp_error *(*warning)(const void *reader); /* or NULL */
    void (*close)(void *reader);
} pp_text_reader;

/* pp_source_ops.open for reader `r`. */
int pp_text_source_open(const pp_text_reader *r, const char *path, const pp_source_hooks *hooks,
                        void **src, pp_error *err);
/* pp_source_ops.next and .close of a source pp_text_source_open opened. */
int pp_text_source_next(void *src, pp_record *rec, pp_error *err);
void pp_text_source_close(void *src);
/* The reader under a source pp_text_source_open opened. */
void *pp_text_source_reader(void *src);

#endif
