/* FastSerialization container primitives for .gcdump files (see
 * ../shared/reference/gcdump.md §1-§3). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/fastser.h"
#include "gcdump/kind.h"

/* Nesting of objects inside one object's tagged tail; real files nest 2-3
 * deep, so anything deeper is damage, not data. */
#define PP_FS_MAX_NESTING 64

void
pp_fs_init(pp_fs *fs, const uint8_t *data, size_t size, const char *name, pp_error *err)
{
    memset(fs, 0, sizeof(*fs));
    fs->data = data;
    fs->size = size;
    fs->name = name ? name : PP_GCDUMP_KIND;
    fs->err = err;
}

void
pp_fs_release(pp_fs *fs)
{
    for (size_t i = 0; i < fs->ntypes; i++) {
        free(fs->types[i]->name);
        free(fs->types[i]);
    }
    free(fs->types);
    free(fs->objects);
    fs->types = NULL;
    fs->objects = NULL;
    fs->ntypes = fs->nobjects = 0;
}

int
pp_fs_fail(pp_fs *fs, int code, size_t offset, const char *fmt, ...)
{
    char msg[PP_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pp_error_set_at(fs->err, code, (int64_t)offset, "%s: offset %zu: %s", fs->name, offset, msg);
    return code;
}

int
pp_fs_need(pp_fs *fs, size_t n, const char *what)
{
    if (fs->pos > fs->size || fs->size - fs->pos < n)
        return pp_fs_fail(fs, PP_EFORMAT, fs->pos, "truncated: expected %zu bytes of %s, %zu left",
                          n, what, fs->pos <= fs->size ? fs->size - fs->pos : 0);
    return PP_OK;
}

static uint32_t
le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int
pp_fs_u8(pp_fs *fs, uint8_t *out, const char *what)
{
    int rc = pp_fs_need(fs, 1, what);
    if (rc == PP_OK)
        *out = fs->data[fs->pos++];
    return rc;
}

int
pp_fs_u32(pp_fs *fs, uint32_t *out, const char *what)
{
    int rc = pp_fs_need(fs, 4, what);
    if (rc == PP_OK) {
        *out = le32(fs->data + fs->pos);
        fs->pos += 4;
    }
    return rc;
}

int
pp_fs_i32(pp_fs *fs, int32_t *out, const char *what)
{
    uint32_t u;
    int rc = pp_fs_u32(fs, &u, what);
    if (rc == PP_OK)
        *out = (int32_t)u;
    return rc;
}

int
pp_fs_i64(pp_fs *fs, int64_t *out, const char *what)
{
    int rc = pp_fs_need(fs, 8, what);
    if (rc == PP_OK) {
        uint64_t v = (uint64_t)le32(fs->data + fs->pos) | (uint64_t)le32(fs->data + fs->pos + 4)
                                                              << 32;
        *out = (int64_t)v;
        fs->pos += 8;
    }
    return rc;
}

int
pp_fs_f32(pp_fs *fs, float *out, const char *what)
{
    uint32_t u;
    int rc = pp_fs_u32(fs, &u, what);
    if (rc == PP_OK)
        memcpy(out, &u, sizeof(*out));
    return rc;
}

/* One UTF-16 code unit from the CESU-8-like writer encoding
 * (MemoryStreamReader.ReadString's lead-byte rule). */
static int
read_unit(pp_fs *fs, uint32_t *out, const char *what)
{
    int rc = pp_fs_need(fs, 1, what);
    if (rc != PP_OK)
        return rc;
    const uint8_t *p = fs->data + fs->pos;
    uint8_t b = p[0];
    if (b < 0x80) {
        *out = b;
        fs->pos += 1;
    } else if (b < 0xE0) {
        if ((rc = pp_fs_need(fs, 2, what)) != PP_OK)
            return rc;
        *out = (uint32_t)(b & 0x1F) << 6 | (p[1] & 0x3Fu);
        fs->pos += 2;
    } else {
        if ((rc = pp_fs_need(fs, 3, what)) != PP_OK)
            return rc;
        *out = (uint32_t)(b & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3Fu);
        fs->pos += 3;
    }
    return PP_OK;
}

static size_t
put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | c >> 6);
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3F));
    o[2] = (char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static int
string_count(pp_fs *fs, int32_t *count, const char *what)
{
    size_t at = fs->pos;
    int rc = pp_fs_i32(fs, count, what);
    if (rc != PP_OK)
        return rc;
    if (*count < -1)
        return pp_fs_fail(fs, PP_EFORMAT, at, "%s: negative string length %d", what, (int)*count);
    /* Each unit takes at least one byte: a count beyond the file is damage. */
    if (*count > 0 && (size_t)*count > fs->size - fs->pos)
        return pp_fs_fail(fs, PP_EFORMAT, at,
                          "%s: string of %d units runs past the end of the file", what,
                          (int)*count);
    return PP_OK;
}

int
pp_fs_string(pp_fs *fs, char **out, const char *what)
{
    int32_t count;
    *out = NULL;
    int rc = string_count(fs, &count, what);
    if (rc != PP_OK || count < 0)
        return rc;
    /* 3 bytes of UTF-8 per unit at most (a joined pair: 4 for 2 units). */
    char *s = malloc((size_t)count * 3 + 1);
    if (!s)
        return pp_fs_fail(fs, PP_ENOMEM, fs->pos, "%s: out of memory", what);
    size_t n = 0;
    uint32_t pending = 0; /* a high surrogate waiting for its pair */
    for (int32_t i = 0; i < count; i++) {
        uint32_t c;
        if ((rc = read_unit(fs, &c, what)) != PP_OK) {
            free(s);
            return rc;
        }
        if (pending) {
            if (c >= 0xDC00 && c <= 0xDFFF) {
                n += put_utf8(s + n, 0x10000 + ((pending - 0xD800) << 10) + (c - 0xDC00));
                pending = 0;
                continue;
            }
            n += put_utf8(s + n, 0xFFFD);
            pending = 0;
        }
        if (c >= 0xD800 && c <= 0xDBFF)
            pending = c;
        else if (c >= 0xDC00 && c <= 0xDFFF)
            n += put_utf8(s + n, 0xFFFD);
        else if (c == 0)
            n += put_utf8(s + n, 0xFFFD); /* keep C strings whole */
        else
            n += put_utf8(s + n, c);
    }
    if (pending)
        n += put_utf8(s + n, 0xFFFD);
    s[n] = '\0';
    *out = s;
    return PP_OK;
}

int
pp_fs_skip_string(pp_fs *fs, const char *what)
{
    int32_t count;
    int rc = string_count(fs, &count, what);
    for (int32_t i = 0; rc == PP_OK && i < count; i++) {
        uint32_t c;
        rc = read_unit(fs, &c, what);
    }
    return rc;
}

int
pp_fs_header(pp_fs *fs)
{
    static const char magic[] = "!FastSerialization.1";
    if (fs->size < 4 + 20 || le32(fs->data) != 20 || memcmp(fs->data + 4, magic, 20) != 0)
        return pp_fs_fail(fs, PP_EFORMAT, 0,
                          "not a .gcdump: expected the \"!FastSerialization.1\" header");
    fs->pos = 24;
    return PP_OK;
}

static const pp_fs_type *
type_find(const pp_fs *fs, uint32_t label)
{
    for (size_t i = 0; i < fs->ntypes; i++)
        if (fs->types[i]->label == label)
            return fs->types[i];
    return NULL;
}

int
pp_fs_type_ref(pp_fs *fs, const pp_fs_type **out)
{
    size_t at = fs->pos;
    uint8_t tag;
    int rc = pp_fs_u8(fs, &tag, "type reference");
    if (rc != PP_OK)
        return rc;
    *out = NULL;
    if (tag == PP_FS_NULL)
        return PP_OK;
    if (tag == PP_FS_OBJREF) {
        uint32_t label;
        if ((rc = pp_fs_u32(fs, &label, "type record label")) != PP_OK)
            return rc;
        *out = type_find(fs, label);
        if (!*out)
            return pp_fs_fail(fs, PP_EFORMAT, at,
                              "type reference to offset %u, where no type record was defined",
                              (unsigned)label);
        return PP_OK;
    }
    if (tag == PP_FS_FWDDEF) {
        int32_t idx;
        if ((rc = pp_fs_i32(fs, &idx, "forward definition index")) != PP_OK)
            return rc;
        at = fs->pos;
        if ((rc = pp_fs_u8(fs, &tag, "type record")) != PP_OK)
            return rc;
    }
    if (tag != PP_FS_BEGIN && tag != PP_FS_BEGIN_PRIVATE)
        return pp_fs_fail(fs, PP_EFORMAT, at,
                          "expected a type reference (tag 1, 2 or 4), found byte 0x%02x", tag);
    const pp_fs_type *meta;
    /* A type record's own type is SerializationType, written as null: one
     * level is all a valid file nests. Bound it so a hostile chain of
     * BEGIN bytes cannot recurse the stack away. */
    if (fs->type_depth >= 4)
        return pp_fs_fail(fs, PP_EFORMAT, at, "type records nested more than 4 deep");
    fs->type_depth++;
    rc = pp_fs_type_ref(fs, &meta);
    fs->type_depth--;
    if (rc != PP_OK)
        return rc;
    if (meta)
        return pp_fs_fail(fs, PP_EFORMAT, at + 1,
                          "type record's own type must be SerializationType (null)");
    pp_fs_type t = { (uint32_t)at, 0, 0, NULL };
    if ((rc = pp_fs_i32(fs, &t.version, "type Version")) != PP_OK ||
        (rc = pp_fs_i32(fs, &t.min_reader, "type MinimumReaderVersion")) != PP_OK ||
        (rc = pp_fs_string(fs, &t.name, "type FullName")) != PP_OK)
        return rc;
    if (!t.name)
        return pp_fs_fail(fs, PP_EFORMAT, at, "type record without a name");
    if ((rc = pp_fs_end_object(fs, "type record")) != PP_OK) {
        free(t.name);
        return rc;
    }
    pp_fs_type *nt = malloc(sizeof(*nt));
    if (nt && fs->ntypes == fs->captypes) {
        size_t cap = fs->captypes ? fs->captypes * 2 : 16;
        pp_fs_type **grown = realloc(fs->types, cap * sizeof(*grown));
        if (!grown) {
            free(nt);
            nt = NULL;
        } else {
            fs->types = grown;
            fs->captypes = cap;
        }
    }
    if (!nt) {
        free(t.name);
        return pp_fs_fail(fs, PP_ENOMEM, at, "out of memory");
    }
    *nt = t;
    fs->types[fs->ntypes++] = nt;
    *out = nt;
    return PP_OK;
}

int
pp_fs_object_start(pp_fs *fs, int *tag, uint32_t *label, const pp_fs_type **type, const char *what)
{
    int rc;
    *type = NULL;
    *label = 0;
    for (;;) {
        size_t at = fs->pos;
        uint8_t b;
        if ((rc = pp_fs_u8(fs, &b, what)) != PP_OK)
            return rc;
        switch (b) {
        case PP_FS_BLOB: {
            int32_t n;
            if ((rc = pp_fs_i32(fs, &n, "blob size")) != PP_OK)
                return rc;
            if (n < 0 || (size_t)n > fs->size - fs->pos)
                return pp_fs_fail(fs, PP_EFORMAT, at, "%s: blob of %d bytes runs past the end",
                                  what, (int)n);
            fs->pos += (size_t)n;
            continue;
        }
        case PP_FS_NULL: *tag = PP_FS_NULL; return PP_OK;
        case PP_FS_OBJREF: *tag = PP_FS_OBJREF; return pp_fs_u32(fs, label, "object label");
        case PP_FS_FWDDEF: {
            int32_t idx;
            if ((rc = pp_fs_i32(fs, &idx, "forward definition index")) != PP_OK)
                return rc;
            at = fs->pos;
            if ((rc = pp_fs_u8(fs, &b, what)) != PP_OK)
                return rc;
            if (b != PP_FS_BEGIN && b != PP_FS_BEGIN_PRIVATE)
                return pp_fs_fail(
                    fs, PP_EFORMAT, at,
                    "%s: expected BeginObject after a forward definition, found 0x%02x", what, b);
        }
            /* fall through */
        case PP_FS_BEGIN:
        case PP_FS_BEGIN_PRIVATE:
            *tag = PP_FS_BEGIN;
            *label = (uint32_t)at;
            if ((rc = pp_fs_type_ref(fs, type)) != PP_OK)
                return rc;
            if (!*type)
                return pp_fs_fail(fs, PP_EFORMAT, at, "%s: object without a type", what);
            return PP_OK;
        case PP_FS_FWDREF:
            return pp_fs_fail(fs, PP_EUNSUPPORTED, at,
                              "%s: forward object references are not written by gcdump writers",
                              what);
        default:
            return pp_fs_fail(fs, PP_EFORMAT, at,
                              "%s: expected an object reference (tag 1, 2 or 4), found byte 0x%02x",
                              what, b);
        }
    }
}

int
pp_fs_end_object(pp_fs *fs, const char *what)
{
    int nesting = 0;
    int rc;
    for (;;) {
        size_t at = fs->pos;
        uint8_t b;
        if ((rc = pp_fs_u8(fs, &b, what)) != PP_OK)
            return rc;
        size_t skip = 0;
        switch (b) {
        case PP_FS_BYTE: skip = 1; break;
        case PP_FS_INT16: skip = 2; break;
        case PP_FS_INT32: skip = 4; break;
        case PP_FS_INT64: skip = 8; break;
        case PP_FS_OBJREF:
        case PP_FS_FWDREF:
        case PP_FS_FWDDEF: skip = 4; break;
        case PP_FS_NULL: break;
        case PP_FS_STRING:
            if ((rc = pp_fs_skip_string(fs, what)) != PP_OK)
                return rc;
            break;
        case PP_FS_BEGIN:
        case PP_FS_BEGIN_PRIVATE:
            if (++nesting > PP_FS_MAX_NESTING)
                return pp_fs_fail(fs, PP_EFORMAT, at, "%s: objects nested too deep", what);
            break;
        case PP_FS_END:
            if (--nesting < 0)
                return PP_OK;
            break;
        case PP_FS_SKIP: {
            int32_t idx;
            size_t to;
            if ((rc = pp_fs_i32(fs, &idx, "skip region index")) != PP_OK ||
                (rc = pp_fs_forward(fs, idx, &to)) != PP_OK)
                return rc;
            if (to <= at)
                return pp_fs_fail(fs, PP_EFORMAT, at,
                                  "%s: skip region ends at %zu, before it starts", what, to);
            fs->pos = to;
            break;
        }
        case PP_FS_BLOB: {
            int32_t n;
            if ((rc = pp_fs_i32(fs, &n, "blob size")) != PP_OK)
                return rc;
            if (n < 0)
                return pp_fs_fail(fs, PP_EFORMAT, at, "%s: negative blob size", what);
            skip = (size_t)n;
            break;
        }
        default:
            return pp_fs_fail(fs, PP_EFORMAT, at,
                              "%s: expected a tagged field or EndObject (0x06), found byte 0x%02x",
                              what, b);
        }
        if (skip && (rc = pp_fs_need(fs, skip, what)) != PP_OK)
            return rc;
        fs->pos += skip;
    }
}

/* The trailer (§3.6): last 4 bytes -> trailer label -> table label. */
static int
load_forward_table(pp_fs *fs)
{
    if (fs->fwd_loaded)
        return fs->fwd_loaded > 0 ? PP_OK : PP_EFORMAT;
    fs->fwd_loaded = -1;
    if (fs->size < 32)
        return pp_fs_fail(fs, PP_EFORMAT, fs->size, "no room for the trailer");
    uint32_t r = le32(fs->data + fs->size - 4);
    if ((size_t)r > fs->size - 8)
        return pp_fs_fail(fs, PP_EFORMAT, fs->size - 4, "suffix label %u points outside the file",
                          (unsigned)r);
    uint32_t t = le32(fs->data + r);
    if ((size_t)t > fs->size - 8)
        return pp_fs_fail(fs, PP_EFORMAT, r, "trailer label %u points outside the file",
                          (unsigned)t);
    uint32_t count = le32(fs->data + t);
    if (count > (fs->size - t - 4) / 4)
        return pp_fs_fail(fs, PP_EFORMAT, t,
                          "forward-reference table of %u entries runs past the end",
                          (unsigned)count);
    fs->fwd_count = count;
    fs->fwd_table = (size_t)t + 4;
    fs->fwd_loaded = 1;
    return PP_OK;
}

int
pp_fs_forward(pp_fs *fs, int32_t idx, size_t *out)
{
    int rc = load_forward_table(fs);
    if (rc != PP_OK)
        return fs->err && fs->err->code ? fs->err->code : rc;
    if (idx < 0 || (uint32_t)idx >= fs->fwd_count)
        return pp_fs_fail(fs, PP_EFORMAT, fs->pos - 4,
                          "forward reference %d not in the table of %u entries", (int)idx,
                          (unsigned)fs->fwd_count);
    uint32_t to = le32(fs->data + fs->fwd_table + 4 * (size_t)idx);
    if (to == UINT32_MAX || (size_t)to > fs->size)
        return pp_fs_fail(fs, PP_EFORMAT, fs->pos - 4,
                          "forward reference %d is undefined or outside the file", (int)idx);
    *out = to;
    return PP_OK;
}

int
pp_fs_object_add(pp_fs *fs, uint32_t label, const pp_fs_type *type, int64_t user)
{
    if (fs->nobjects == fs->capobjects) {
        size_t cap = fs->capobjects ? fs->capobjects * 2 : 16;
        pp_fs_object *no = realloc(fs->objects, cap * sizeof(*no));
        if (!no)
            return pp_fs_fail(fs, PP_ENOMEM, label, "out of memory");
        fs->objects = no;
        fs->capobjects = cap;
    }
    fs->objects[fs->nobjects++] = (pp_fs_object){ label, type, user };
    return PP_OK;
}

const pp_fs_object *
pp_fs_object_find(const pp_fs *fs, uint32_t label)
{
    for (size_t i = 0; i < fs->nobjects; i++)
        if (fs->objects[i].label == label)
            return &fs->objects[i];
    return NULL;
}
