/* Buffered input for the counters reader: one pass, positions tracked, and
 * every byte handed to on_bytes exactly once as its chunk is read. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "counters/counters_private.h"

#define PP_CSTREAM_CHUNK 65536u

int
pp_cstream_init_file(pp_cstream *s, FILE *fp)
{
    memset(s, 0, sizeof *s);
    s->own = malloc(PP_CSTREAM_CHUNK);
    if (s->own == NULL)
        return PP_ENOMEM;
    s->fp = fp;
    s->buf = s->own;
    s->line = 1;
    s->column = 1;
    return PP_OK;
}

void
pp_cstream_init_memory(pp_cstream *s, const void *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->mem = data;
    s->mem_len = len;
    s->buf = data;
    s->line = 1;
    s->column = 1;
}

void
pp_cstream_release(pp_cstream *s)
{
    if (s->fp != NULL)
        fclose(s->fp);
    free(s->own);
    s->fp = NULL;
    s->own = NULL;
}

int
pp_cstream_fill(pp_cstream *s)
{
    size_t n;

    if (s->pos < s->len)
        return s->buf[s->pos];
    if (s->ioerr)
        return -2;
    if (s->eof)
        return -1;
    s->base += (int64_t)s->len;
    s->pos = 0;
    s->len = 0;
    if (s->fp == NULL) {
        if (s->mem_done || s->mem_len == 0) {
            s->eof = 1;
            return -1;
        }
        s->mem_done = 1;
        s->buf = s->mem;
        s->len = s->mem_len;
    } else {
        n = fread(s->own, 1, PP_CSTREAM_CHUNK, s->fp);
        if (n == 0) {
            if (ferror(s->fp)) {
                s->ioerr = 1;
                return -2;
            }
            s->eof = 1;
            return -1;
        }
        s->len = n;
    }
    if (s->on_bytes != NULL)
        s->on_bytes(s->user, s->buf, s->len);
    return s->buf[0];
}

/* ---- pp_ctext ---------------------------------------------------------- */

static int
ctext_reserve(pp_ctext *t, size_t extra)
{
    size_t need = t->len + extra + 1, cap;
    char *p;

    if (need <= t->cap)
        return PP_OK;
    if (need > PP_COUNTERS_MAX_TEXT + 1)
        return PP_ELIMIT;
    cap = t->cap ? t->cap : 64;
    while (cap < need)
        cap *= 2;
    p = realloc(t->p, cap);
    if (p == NULL)
        return PP_ENOMEM;
    t->p = p;
    t->cap = cap;
    return PP_OK;
}

int
pp_ctext_putc(pp_ctext *t, char c)
{
    int rc = ctext_reserve(t, 1);

    if (rc != PP_OK)
        return rc;
    t->p[t->len++] = c;
    t->p[t->len] = '\0';
    return PP_OK;
}

int
pp_ctext_append(pp_ctext *t, const char *s, size_t n)
{
    int rc = ctext_reserve(t, n);

    if (rc != PP_OK)
        return rc;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
    return PP_OK;
}

void
pp_ctext_free(pp_ctext *t)
{
    free(t->p);
    t->p = NULL;
    t->len = t->cap = 0;
}
