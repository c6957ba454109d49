/* Private: what the engine-facing source (source.c) needs from the span
 * reader beyond the public API: reading the file itself, so every byte can
 * be shown to the content hash without a second read. */
#ifndef PP_CORE_SPANS_READER_INTERNAL_H
#define PP_CORE_SPANS_READER_INTERNAL_H

#include <stddef.h>

#include <perfpipe/error.h>
#include <perfpipe/spans.h>

/* Read a whole regular file into a malloc'ed, NUL-terminated buffer. */
/* Where the cut last document of a stream of documents starts (the
 * documents before it were read whole), or -1. */
int64_t pp_spans_truncated_at(const pp_spans_reader *r);

int pp_spans_read_file(const char *path, char **buf, size_t *len, pp_error *err);

/* Open over buf[0..len), taking ownership of buf (malloc'ed, len + 1 bytes,
 * NUL-terminated) even on failure. */
int pp_spans_open_buffer(char *buf, size_t len, const char *name, pp_spans_reader **out,
                         pp_error *err);

#endif
