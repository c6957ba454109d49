/* plugins/common: UTF-16LE to UTF-8 (see utf16.h). */
#include "utf16.h"

static size_t
put(char *out, uint32_t cp)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

int
pp_pc_utf16le_to_utf8(const uint8_t *p, size_t avail, char *out, size_t *consumed, size_t *outlen)
{
    size_t i = 0, n = 0;
    for (; i + 1 < avail; i += 2) {
        uint32_t u = (uint32_t)p[i] | ((uint32_t)p[i + 1] << 8);
        if (u == 0) {
            out[n] = '\0';
            *consumed = i + 2;
            *outlen = n;
            return 0;
        }
        if (u >= 0xD800 && u <= 0xDBFF && i + 3 < avail) {
            uint32_t lo = (uint32_t)p[i + 2] | ((uint32_t)p[i + 3] << 8);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                /* a pair: 4 input bytes, 4 output bytes, within the 3/2 bound */
                n += put(out + n, 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00));
                i += 2;
                continue;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF)
            u = 0xFFFD;
        n += put(out + n, u);
    }
    return -1;
}
