/* Private: a 1-based position in a text input, and positioned diagnostics.
 *
 * Every pipeline message is "FILE:LINE:COLUMN: what was expected" when the
 * thing it blames came from a file, or "FILE: ..." when it came from the
 * command line (line 0). pp_pipe_error fills err->line/column too. */
#ifndef PP_PIPELINE_POS_H
#define PP_PIPELINE_POS_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

/* line/column are 1-based (libyaml mark + 1); 0:0 = not from the file. */
typedef struct pp_pos {
    uint32_t line, column;
} pp_pos;

/* Fill err with code and "FILE:LINE:COLUMN: " + the formatted message (or
 * "FILE: " when pos.line is 0, or no prefix when file is NULL). Returns code
 * so callers can `return pp_pipe_error(...)`. */
int pp_pipe_error(pp_error *err, int code, const char *file, pp_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The candidate nearest to `word` by edit distance, or NULL when none is
 * close enough to be a plausible typo. candidates is NULL-terminated or
 * counted by n (n = SIZE_MAX: NULL-terminated). */
const char *pp_pipe_nearest(const char *word, const char *const *candidates, size_t n);

/* Fill err with a positioned "unknown WHAT 'word' in WHERE (did you mean
 * 'x'?); expected one of: a, b" (no " in WHERE" when where is NULL or "",
 * no suggestion when none is near) for a word not in the NULL-terminated
 * list valid. Returns PP_EINVAL. */
int pp_pipe_unknown(pp_error *err, const char *file, pp_pos pos, const char *word, const char *what,
                    const char *where, const char *const *valid);

#endif
