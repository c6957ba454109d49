/* perfpipe — what every reader of libperfpipe shares: the verbs, the hooks
 * struct and the rule for memory input.
 *
 * Each input kind KIND (nettrace, gcdump, counters, spans) has a reader type
 * pp_KIND_reader and the same five verbs:
 *
 *   int  pp_KIND_reader_open(const char *path, const pp_reader_hooks *hooks,
 *                            pp_KIND_reader **out, pp_error *err);
 *   int  pp_KIND_reader_open_memory(const void *data, size_t size,
 *                                   const char *name, const pp_reader_hooks *hooks,
 *                                   pp_KIND_reader **out, pp_error *err);
 *   int  pp_KIND_reader_next(pp_KIND_reader *r, const ITEM **item, pp_error *err);
 *   void pp_KIND_reader_close(pp_KIND_reader *r);
 *   int  pp_KIND_reader_get_info(const pp_KIND_reader *r, pp_KIND_info *out);
 *
 * open: *out is the caller's, released with close, also when next failed;
 *   on failure *out is NULL and err (if non-NULL) says why, with the file
 *   and the byte offset or line:column. hooks may be NULL.
 * open_memory, the one rule for memory input: data is BORROWED until close.
 *   The caller keeps it alive and unchanged until then; a reader may read it
 *   in place or copy what it needs (the header of each says which), so
 *   freeing it early is never allowed. name is copied and used in messages
 *   (NULL: "<memory>" or the reader's own word).
 * next: 1 and *item set (borrowed: valid until the next call on r or
 *   close), 0 at the end (a truncated input ends with a warning naming where
 *   it stopped), or a negative PP_E* code with err filled. After an error
 *   every further call returns the same code.
 * close: releases r and everything it handed out. NULL is a no-op.
 * get_info: copies the reader's facts into *out; the caller sets
 *   out->struct_size first and only that many bytes are written. PP_OK, or
 *   PP_EINVAL for a NULL argument or a struct_size below the first member.
 *
 * The 0.1 names of each reader (pp_nettrace_open, pp_gcdump_read_file,
 * pp_gcdump_free, pp_spans_open, pp_counters_open, ...) stay as aliases with
 * their 0.1 signatures until the next soname (libperfpipe.so.1). */
#ifndef PERFPIPE_READER_H
#define PERFPIPE_READER_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The callbacks of every reader, borrowed by open until close. on_bytes
 * sees every byte of the input exactly once, in order, as it is consumed
 * (hash the input during the one read); on_warning receives non-fatal
 * problems (a truncated tail, dropped events). Any member may be NULL. */
typedef struct pp_reader_hooks {
    uint32_t struct_size; /* sizeof(pp_reader_hooks) */
    uint32_t reserved;
    void (*on_bytes)(void *user, const void *data, size_t len);
    void (*on_warning)(void *user, const pp_error *warning);
    void *user;
} pp_reader_hooks;

#define PP_READER_HOOKS_INIT                                                                       \
    {                                                                                              \
        sizeof(pp_reader_hooks), 0, NULL, NULL, NULL                                               \
    }

/* Does hooks carry member m (a NULL hooks carries none)? */
#define PP_READER_HOOK(hooks, m)                                                                   \
    ((hooks) != NULL &&                                                                            \
             (hooks)->struct_size >= offsetof(pp_reader_hooks, m) + sizeof((hooks)->m) ?           \
         (hooks)->m :                                                                              \
         NULL)

#ifdef __cplusplus
}
#endif
#endif
