/* Positioned diagnostics and "did you mean" suggestions for pipelines. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pipeline/pos.h"

int
pp_pipe_error(pp_error *err, int code, const char *file, pp_pos pos, const char *fmt, ...)
{
    char msg[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    if (err == NULL)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (file == NULL)
        pp_error_set(err, code, "%s", msg);
    else if (pos.line == 0)
        pp_error_set(err, code, "%s: %s", file, msg);
    else
        pp_error_set(err, code, "%s:%u:%u: %s", file, (unsigned)pos.line, (unsigned)pos.column,
                     msg);
    err->line = pos.line;
    err->column = pos.column;
    return code;
}

/* Edit distance counting a swap of neighbours as one edit (optimal
 * string alignment), since "stagse" and "tpo" are the typos people make.
 * Capped: words longer than the cap never match, so the cost stays bounded
 * whatever the input holds. */
#define NEAREST_MAX_LEN 64

static size_t
edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[NEAREST_MAX_LEN + 1][NEAREST_MAX_LEN + 1];

    if (la > NEAREST_MAX_LEN || lb > NEAREST_MAX_LEN)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

const char *
pp_pipe_nearest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t wl = strlen(word);

    for (size_t i = 0; i < n && candidates[i] != NULL; i++) {
        size_t d = edit_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    /* A third of the word (at least 1, at most 3) keeps suggestions to
     * plausible typos: "stagse" -> "stages", but "foo" -> nothing. */
    size_t limit = wl / 3;
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    return best_d <= limit ? best : NULL;
}

int
pp_pipe_unknown(pp_error *err, const char *file, pp_pos pos, const char *word, const char *what,
                const char *where, const char *const *valid)
{
    char list[512];
    size_t used = 0;
    const char *near = pp_pipe_nearest(word, valid, (size_t)-1);
    const char *in = where != NULL && where[0] ? " in " : "";

    list[0] = '\0';
    for (size_t k = 0; valid[k] != NULL && used < sizeof list; k++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", valid[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (near != NULL)
        return pp_pipe_error(err, PP_EINVAL, file, pos,
                             "unknown %s '%s'%s%s (did you mean '%s'?); expected one of: %s", what,
                             word, in, in[0] ? where : "", near, list);
    return pp_pipe_error(err, PP_EINVAL, file, pos, "unknown %s '%s'%s%s; expected one of: %s",
                         what, word, in, in[0] ? where : "", list);
}
