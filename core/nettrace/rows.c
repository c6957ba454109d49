/* Event rows: the header of an event block and the (compressed or plain)
 * header of each event row in it. Shared by the event reader and the V4/V5
 * metadata block, whose rows are events too. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

/* Decode one event header at blk[blk_at]; sets payload, psize and the
 * header state. Returns PP_OK or an error. */
int
nt_decode_header(pp_trace_source *r, const uint8_t *b, size_t n, size_t *atp,
                 const uint8_t **payload, uint32_t *psize, uint64_t boff, pp_error *err)
{
    size_t at = *atp, k;
    const uint8_t *p = b + at;
    size_t left = n - at;

    if (r->blk_flags & 1) {
        size_t i = 1;
        if (left < 2)
            goto bad;
        uint8_t f = p[0];
        if (f & 1) {
            k = nt_varu32(p + i, left - i, &r->h.meta_id);
            if (!k)
                goto bad;
            i += k;
        }
        if (f & 2) {
            uint32_t d;
            k = nt_varu32(p + i, left - i, &d);
            if (!k)
                goto bad;
            i += k;
            r->h.seq += d + 1;
            k = nt_varu64(p + i, left - i, &r->h.capture_tid);
            if (!k)
                goto bad;
            i += k;
            k = nt_varu32(p + i, left - i, &r->h.proc);
            if (!k)
                goto bad;
            i += k;
        } else if (r->format == 6 || r->h.meta_id != 0) {
            r->h.seq++;
        }
        if (f & 4) {
            k = nt_varu64(p + i, left - i, &r->h.tid);
            if (!k)
                goto bad;
            i += k;
        }
        if (f & 8) {
            k = nt_varu32(p + i, left - i, &r->h.stack_id);
            if (!k)
                goto bad;
            i += k;
        }
        uint64_t dt;
        k = nt_varu64(p + i, left - i, &dt);
        if (!k)
            goto bad;
        i += k;
        r->h.ts += dt; /* deltas may wrap ("negative") */
        if (r->format == 6) {
            if (f & 16) {
                k = nt_varu32(p + i, left - i, &r->h.label_id);
                if (!k)
                    goto bad;
                i += k;
            }
        } else {
            if (f & 16) {
                if (left - i < 16)
                    goto bad;
                memcpy(r->h.act.bytes, p + i, 16);
                i += 16;
            }
            if (f & 32) {
                if (left - i < 16)
                    goto bad;
                memcpy(r->h.rel.bytes, p + i, 16);
                i += 16;
            }
        }
        if (f & 128) {
            k = nt_varu32(p + i, left - i, &r->h.payload_size);
            if (!k)
                goto bad;
            i += k;
        }
        if (r->h.payload_size > left - i)
            goto bad;
        *payload = p + i;
        *psize = r->h.payload_size;
        *atp = at + i + r->h.payload_size;
        return PP_OK;
    }
    /* uncompressed */
    size_t hs = r->format == 6 ? 52 : 80;
    if (left < hs)
        goto bad;
    uint32_t esize = nt_rd32(p);
    if (esize > left - 4 || esize + 4 < hs)
        goto bad;
    r->h.meta_id = nt_rd32(p + 4) & 0x7FFFFFFF;
    r->h.seq = nt_rd32(p + 8);
    r->h.tid = nt_rd64(p + 12);
    r->h.capture_tid = nt_rd64(p + 20);
    r->h.proc = nt_rd32(p + 28);
    r->h.stack_id = nt_rd32(p + 32);
    r->h.ts = nt_rd64(p + 36);
    if (r->format == 6) {
        r->h.label_id = nt_rd32(p + 44);
        r->h.payload_size = nt_rd32(p + 48);
    } else {
        memcpy(r->h.act.bytes, p + 44, 16);
        memcpy(r->h.rel.bytes, p + 60, 16);
        r->h.payload_size = nt_rd32(p + 76);
    }
    if (r->h.payload_size > esize + 4 - hs)
        goto bad;
    *payload = p + hs;
    *psize = r->h.payload_size;
    *atp = at + esize + 4;
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, boff + at,
                      "%s: event header at byte %llu runs past "
                      "the end of its block (block at byte %llu, %zu bytes)",
                      r->name, (unsigned long long)(boff + at), (unsigned long long)boff, n);
}

int
nt_event_block_header(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, size_t *at,
                      pp_error *err)
{
    if (n < 4)
        goto bad;
    uint16_t hs = nt_rd16(p);
    if (hs < 4 || hs > n)
        goto bad;
    r->blk_flags = nt_rd16(p + 2);
    memset(&r->h, 0, sizeof r->h);
    *at = hs;
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off,
                      "%s: block at byte %llu: expected a header "
                      "size between 4 and the block size (%zu)",
                      r->name, (unsigned long long)off, n);
}
