/* plugins/common: a growable byte buffer for building keys and folded
 * stacks. Header-only; a zeroed pp_pc_strbuf is empty. */
#ifndef PP_PLUGIN_STRBUF_H
#define PP_PLUGIN_STRBUF_H

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

typedef struct pp_pc_strbuf {
    char *data;
    size_t len, cap;
} pp_pc_strbuf;

static inline int
pp_pc_strbuf_reserve(pp_pc_strbuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return PP_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        return PP_ENOMEM;
    b->data = d;
    b->cap = cap;
    return PP_OK;
}

static inline int
pp_pc_strbuf_add(pp_pc_strbuf *b, const void *s, size_t n)
{
    if (pp_pc_strbuf_reserve(b, n) != PP_OK)
        return PP_ENOMEM;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return PP_OK;
}

static inline int
pp_pc_strbuf_adds(pp_pc_strbuf *b, const char *s)
{
    return pp_pc_strbuf_add(b, s, strlen(s));
}
static inline void
pp_pc_strbuf_clear(pp_pc_strbuf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}
static inline void
pp_pc_strbuf_free(pp_pc_strbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

#endif
