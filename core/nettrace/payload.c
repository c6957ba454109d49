/* Payload decoding: sizes of variable-length values and one field's value
 * as a pp_value, bounds-checked against the payload. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"

#define NT_MAX_DEPTH 16

int64_t
nt_utf16z_to_utf8(const uint8_t *p, size_t n, char **buf, size_t *cap, size_t *outlen)
{
    size_t units = 0, o = 0;

    while (2 * units + 1 < n && (p[2 * units] | p[2 * units + 1]))
        units++;
    if (2 * units + 1 >= n)
        return -1; /* no terminator at an even offset */
    /* Worst case 3 bytes of UTF-8 per UTF-16 unit. */
    size_t need = units * 3 + 1;
    if (*cap < need) {
        char *nb = realloc(*buf, need);
        if (!nb)
            return -2;
        *buf = nb;
        *cap = need;
    }
    char *d = *buf;
    for (size_t i = 0; i < units; i++) {
        uint32_t c = nt_rd16(p + 2 * i);
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < units) {
            uint32_t c2 = nt_rd16(p + 2 * i + 2);
            if (c2 >= 0xDC00 && c2 < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (c2 - 0xDC00);
                i++;
            }
        }
        if (c >= 0xD800 && c < 0xE000)
            c = 0xFFFD; /* lone surrogate */
        if (c < 0x80) {
            d[o++] = (char)c;
        } else if (c < 0x800) {
            d[o++] = (char)(0xC0 | c >> 6);
            d[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            d[o++] = (char)(0xE0 | c >> 12);
            d[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            d[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            d[o++] = (char)(0xF0 | c >> 18);
            d[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
            d[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            d[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    d[o] = 0;
    if (outlen)
        *outlen = o;
    return (int64_t)(2 * units + 2);
}

static int64_t
value_size(const nt_meta *m, uint32_t t, const uint8_t *p, size_t n, uint32_t ps, int depth)
{
    const nt_type *ty;

    if (t >= m->ntypes || depth > NT_MAX_DEPTH)
        return -1;
    ty = &m->types[t];
    if (ty->fixed_size >= 0)
        return (size_t)ty->fixed_size <= n ? ty->fixed_size : -1;
    switch (ty->code) {
    case NT_T_UTF16Z: {
        for (size_t i = 0; i + 1 < n; i += 2)
            if ((p[i] | p[i + 1]) == 0)
                return (int64_t)i + 2;
        return -1;
    }
    case NT_T_VARINT:
    case NT_T_VARUINT: {
        uint64_t v;
        size_t k = nt_varu64(p, n, &v);
        return k ? (int64_t)k : -1;
    }
    case NT_T_ARRAY:
    case NT_T_FIXARRAY: {
        size_t at = 0;
        uint32_t count = ty->fixed_count;
        if (ty->code == NT_T_ARRAY) {
            if (n < 2)
                return -1;
            count = nt_rd16(p);
            at = 2;
        }
        const nt_type *et = ty->elem < m->ntypes ? &m->types[ty->elem] : NULL;
        if (!et)
            return -1;
        if (et->fixed_size >= 0) {
            uint64_t tot = (uint64_t)count * (uint64_t)et->fixed_size;
            return tot <= n - at ? (int64_t)(at + tot) : -1;
        }
        for (uint32_t i = 0; i < count; i++) {
            int64_t s = value_size(m, ty->elem, p + at, n - at, ps, depth + 1);
            if (s < 0)
                return -1;
            at += (size_t)s;
        }
        return (int64_t)at;
    }
    case NT_T_OBJECT: {
        size_t at = 0;
        for (uint32_t i = 0; i < ty->member_count; i++) {
            int64_t s = value_size(m, m->members[ty->first_member + i].type, p + at, n - at, ps,
                                   depth + 1);
            if (s < 0)
                return -1;
            at += (size_t)s;
        }
        return (int64_t)at;
    }
    default: return -1;
    }
}

int64_t
nt_value_size(const nt_meta *m, uint32_t t, const uint8_t *p, size_t n, uint32_t ptr_size)
{
    return value_size(m, t, p, n, ptr_size, 0);
}

/* Where member starts in payload: its fixed offset, else walked from the
 * last member whose offset is known. PP_OK or PP_EFORMAT. */
static int
member_offset(pp_trace_source *r, const nt_meta *m, uint32_t member, const uint8_t *payload,
              size_t n, size_t *out)
{
    const nt_type *root = &m->types[0];
    size_t at;

    const nt_member *mm = &m->members[root->first_member + member];
    if (mm->offset >= 0) {
        at = (size_t)mm->offset;
    } else {
        /* Walk from the last member with a known offset. */
        uint32_t k = member;
        while (k > 0 && m->members[root->first_member + k].offset < 0)
            k--;
        at = (size_t)(m->members[root->first_member + k].offset > 0 ?
                          m->members[root->first_member + k].offset :
                          0);
        for (; k < member; k++) {
            if (at > n)
                return PP_EFORMAT;
            int64_t s = nt_value_size(m, m->members[root->first_member + k].type, payload + at,
                                      n - at, r->pointer_size);
            if (s < 0)
                return PP_EFORMAT;
            at += (size_t)s;
        }
    }
    *out = at;
    return PP_OK;
}

/* The value of type ty at payload[at] (sz bytes) into out; strings go
 * through r's scratch buffer. PP_OK or PP_EFORMAT. */
static int
decode_value(pp_trace_source *r, const nt_type *ty, const uint8_t *payload, size_t n, size_t at,
             int64_t sz, pp_value *out)
{
    const uint8_t *p = payload + at;
    size_t left = n - at;

    switch (ty->code) {
    case NT_T_BOOL32:
        out->type = PP_VALUE_INT;
        out->v.i = nt_rd32(p) != 0;
        out->size = 4;
        break;
    case NT_T_CHAR16:
        out->type = PP_VALUE_INT;
        out->v.i = nt_rd16(p);
        out->size = 2;
        break;
    case NT_T_I8:
        out->type = PP_VALUE_INT;
        out->v.i = (int8_t)p[0];
        out->size = 1;
        break;
    case NT_T_U8:
    case NT_T_UTF8CU:
        out->type = PP_VALUE_UINT;
        out->v.u = p[0];
        out->size = 1;
        break;
    case NT_T_I16:
        out->type = PP_VALUE_INT;
        out->v.i = (int16_t)nt_rd16(p);
        out->size = 2;
        break;
    case NT_T_U16:
        out->type = PP_VALUE_UINT;
        out->v.u = nt_rd16(p);
        out->size = 2;
        break;
    case NT_T_I32:
        out->type = PP_VALUE_INT;
        out->v.i = (int32_t)nt_rd32(p);
        out->size = 4;
        break;
    case NT_T_U32:
        out->type = PP_VALUE_UINT;
        out->v.u = nt_rd32(p);
        out->size = 4;
        break;
    case NT_T_I64:
    case NT_T_DATETIME:
        if (ty->fixed_size == 8) {
            out->type = PP_VALUE_INT;
            out->v.i = (int64_t)nt_rd64(p);
            out->size = 8;
        } else {
            out->type = PP_VALUE_BYTES;
            out->v.bytes = p;
            out->size = (uint32_t)sz;
        }
        break;
    case NT_T_U64:
        out->type = PP_VALUE_UINT;
        out->v.u = nt_rd64(p);
        out->size = 8;
        break;
    case NT_T_PTR:
        out->type = PP_VALUE_UINT;
        out->v.u = r->pointer_size == 4 ? nt_rd32(p) : nt_rd64(p);
        out->size = r->pointer_size;
        break;
    case NT_T_F32: {
        float f;
        uint32_t u = nt_rd32(p);
        memcpy(&f, &u, 4);
        out->type = PP_VALUE_DOUBLE;
        out->v.d = f;
        out->size = 4;
        break;
    }
    case NT_T_F64: {
        double d;
        uint64_t u = nt_rd64(p);
        memcpy(&d, &u, 8);
        out->type = PP_VALUE_DOUBLE;
        out->v.d = d;
        out->size = 8;
        break;
    }
    case NT_T_GUID:
        out->type = PP_VALUE_GUID;
        memcpy(out->v.g.bytes, p, 16);
        out->size = 16;
        break;
    case NT_T_UTF16Z: {
        size_t len;
        int64_t k = nt_utf16z_to_utf8(p, left, &r->scratch, &r->scratch_cap, &len);
        if (k < 0)
            return k == -2 ? PP_ENOMEM : PP_EFORMAT;
        out->type = PP_VALUE_STRING;
        out->v.s = r->scratch;
        out->size = (uint32_t)len;
        break;
    }
    case NT_T_VARINT: {
        uint64_t v = 0;
        nt_varu64(p, left, &v);
        out->type = PP_VALUE_INT;
        out->v.i = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
        out->size = (uint32_t)sz;
        break;
    }
    case NT_T_VARUINT: {
        uint64_t v = 0;
        nt_varu64(p, left, &v);
        out->type = PP_VALUE_UINT;
        out->v.u = v;
        out->size = (uint32_t)sz;
        break;
    }
    case NT_T_ARRAY:
        out->type = PP_VALUE_BYTES;
        out->v.bytes = p + 2;
        out->size = (uint32_t)(sz - 2);
        break;
    case NT_T_RELLOC:
    case NT_T_DATALOC: {
        uint32_t v = nt_rd32(p), size = v >> 16, pos = v & 0xFFFF;
        size_t base = ty->code == NT_T_RELLOC ? at + 4 : 0;
        if (base + pos > n || size > n - base - pos)
            return PP_EFORMAT;
        out->type = PP_VALUE_BYTES;
        out->v.bytes = payload + base + pos;
        out->size = size;
        break;
    }
    default:
        out->type = PP_VALUE_BYTES;
        out->v.bytes = p;
        out->size = (uint32_t)sz;
        break;
    }
    return PP_OK;
}

int
nt_decode_member(pp_trace_source *r, const nt_meta *m, uint32_t member, const uint8_t *payload,
                 size_t n, pp_value *out)
{
    const nt_type *root = &m->types[0];
    size_t at;

    memset(out, 0, sizeof *out);
    if (member >= root->member_count)
        return PP_ENOTFOUND;
    const nt_member *mm = &m->members[root->first_member + member];
    if (member_offset(r, m, member, payload, n, &at) != PP_OK || at > n)
        return PP_EFORMAT;
    int64_t sz = nt_value_size(m, mm->type, payload + at, n - at, r->pointer_size);
    if (sz < 0)
        return PP_EFORMAT;
    return decode_value(r, &m->types[mm->type], payload, n, at, sz, out);
}
