/* Byte-by-byte builders for hand-made .nettrace inputs (V4/V5 and V6), used
 * by tests/unit/check_nettrace.c: the runtime seldom or never writes
 * uncompressed headers or V6 blocks, so tests construct them here. */
#ifndef PP_TESTS_NTBUILD_H
#define PP_TESTS_NTBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct nb {
    uint8_t *p;
    size_t n, cap;
} nb;

static inline void
nb_put(nb *b, const void *d, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}
static inline void
nb_u8(nb *b, uint8_t v)
{
    nb_put(b, &v, 1);
}
static inline void
nb_u16(nb *b, uint16_t v)
{
    uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    nb_put(b, x, 2);
}
static inline void
nb_u32(nb *b, uint32_t v)
{
    nb_u16(b, (uint16_t)v);
    nb_u16(b, (uint16_t)(v >> 16));
}
static inline void
nb_u64(nb *b, uint64_t v)
{
    nb_u32(b, (uint32_t)v);
    nb_u32(b, (uint32_t)(v >> 32));
}
static inline void
nb_var(nb *b, uint64_t v)
{
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        nb_u8(b, (uint8_t)(c | (v ? 0x80 : 0)));
    } while (v);
}
/* V6 string: varuint length + UTF-8 */
static inline void
nb_str8(nb *b, const char *s)
{
    nb_var(b, strlen(s));
    nb_put(b, s, strlen(s));
}
/* UTF-16LE, NUL-terminated (ASCII input) */
static inline void
nb_wstr(nb *b, const char *s)
{
    for (; *s; s++)
        nb_u16(b, (uint8_t)*s);
    nb_u16(b, 0);
}
static inline void
nb_pad4(nb *b)
{
    while (b->n % 4)
        nb_u8(b, 0);
}
static inline void
nb_cat(nb *b, const nb *o)
{
    nb_put(b, o->p, o->n);
}
static inline void
nb_free(nb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* V6 block: header word (size | kind << 24) + body */
static inline void
nb_block6(nb *f, uint8_t kind, const nb *body)
{
    nb_u32(f, (uint32_t)body->n | (uint32_t)kind << 24);
    nb_put(f, body->p, body->n);
}

/* V4/V5 FastSerialization object with a block body (padding to an aligned
 * absolute offset before the body). */
static inline void
nb_obj5(nb *f, const char *name, const nb *body)
{
    nb_u8(f, 5);
    nb_u8(f, 5);
    nb_u8(f, 1);
    nb_u32(f, 2);
    nb_u32(f, 2);
    nb_u32(f, (uint32_t)strlen(name));
    nb_put(f, name, strlen(name));
    nb_u8(f, 6);
    nb_u32(f, (uint32_t)body->n);
    nb_pad4(f);
    nb_put(f, body->p, body->n);
    nb_u8(f, 6);
}

static inline void
nb_systime(nb *b)
{
    static const uint16_t st[8] = { 2025, 1, 3, 2, 3, 4, 5, 6 };
    for (int i = 0; i < 8; i++)
        nb_u16(b, st[i]);
}

#endif
