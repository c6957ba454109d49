/* The block containers of a .nettrace (V4/V5 FastSerialization objects, V6
 * blocks) and the blocks other than events: metadata, stacks, sequence
 * points, V6 threads and label lists, plus the per-trace caches they fill.
 * Everything is bounds-checked against the current block; a block cut by the
 * end of the file ends the trace with a warning. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

/* A FastSerialization type name longer than this is not nettrace. */
#define NT_MAX_TYPE_NAME 64

static void
truncated(pp_trace_source *r, uint64_t block_off, const char *what)
{
    r->st.truncated = 1;
    r->st.truncated_at = (int64_t)block_off;
    r->done = 1;
    nt_warn_at(r, block_off,
               "%s: truncated at byte %llu: %s; events up to the last whole "
               "block were read",
               r->name, (unsigned long long)block_off, what);
}

/* ---- caches ---- */

int
nt_add_pid(pp_trace_source *r, uint32_t pid)
{
    for (size_t i = 0; i < r->npids; i++)
        if (r->pids[i] == pid)
            return 0;
    uint32_t *np = nt_grow(r->pids, &r->pids_cap, r->npids + 1, sizeof *np);
    if (!np)
        return -1;
    r->pids = np;
    r->pids[r->npids++] = pid;
    return 0;
}

size_t
nt_count_row(pp_trace_source *r, const char *provider, const char *name, uint32_t id, uint32_t ver)
{
    for (size_t i = 0; i < r->ncounts; i++)
        if (r->counts[i].event_id == id && r->counts[i].version == ver &&
            strcmp(r->counts[i].provider, provider) == 0)
            return i;
    nt_count *c = nt_grow(r->counts, &r->counts_cap, r->ncounts + 1, sizeof *c);
    if (!c)
        return SIZE_MAX;
    r->counts = c;
    memset(&c[r->ncounts], 0, sizeof *c);
    c[r->ncounts].provider = provider; /* lives as long as its nt_meta (until close) */
    c[r->ncounts].name = name;
    c[r->ncounts].event_id = id;
    c[r->ncounts].version = ver;
    return r->ncounts++;
}

static int
define_meta(pp_trace_source *r, nt_meta *m, uint64_t off, pp_error *err)
{
    if (nt_meta_finish(r, m) < 0) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    nt_meta **nm = nt_grow(r->metas, &r->metas_cap, r->nmetas + 1, sizeof *nm);
    size_t row = nt_count_row(r, m->provider, m->name, m->event_id, m->version);
    if (!nm || row == SIZE_MAX) {
        if (nm)
            r->metas = nm;
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    r->metas = nm;
    m->stats_index = (uint32_t)row;
    if (r->format == 4 && pp_u64map_get(&r->meta_by_id, m->id)) {
        /* V4/V5 ids are global: a second definition replaces the first
         * (TraceEvent does the same). */
    }
    r->metas[r->nmetas] = m;
    if (pp_u64map_put(&r->meta_by_id, m->id, r->nmetas) < 0)
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    r->nmetas++;
    r->last_meta = NULL;
    r->st.metadata_entries++;
    return PP_OK;
}

static void
flush_stacks(pp_trace_source *r)
{
    if (r->on_region_end && r->nstacks)
        r->on_region_end(r->region_user, r);
    nt_sequence_region_end(r);
    r->nstacks = 0;
    r->nips = 0;
    r->stacks_contiguous = 1;
    pp_u64map_clear(&r->label_map);
    r->nlabels = 0;
}

const nt_stack *
nt_find_stack(pp_trace_source *r, uint32_t id)
{
    if (r->nstacks == 0)
        return NULL;
    if (r->stacks_contiguous) {
        uint32_t base = r->stacks[0].id;
        if (id - base < r->nstacks)
            return &r->stacks[id - base];
        return NULL;
    }
    for (size_t i = r->nstacks; i-- > 0;) /* rare: non-contiguous ids */
        if (r->stacks[i].id == id)
            return &r->stacks[i];
    return NULL;
}

static int
parse_stack_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    if (n < 8)
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: stack block at byte %llu: expected "
                          "first id and count (8 bytes), block has %zu",
                          r->name, (unsigned long long)off, n);
    uint32_t first = nt_rd32(p), count = nt_rd32(p + 4);
    size_t at = 8;
    uint32_t ps = r->pointer_size;
    if (count > (n - 8) / 4)
        return nt_fail_at(r, err, PP_EFORMAT, off + 4,
                          "%s: stack block at byte %llu declares "
                          "%u stacks in %zu bytes",
                          r->name, (unsigned long long)off, count, n);
    /* Room for the whole block at once, bounded by its size: at most
     * (n - 8) / ps frames. Not (n - 8 - 4 count) / ps: a damaged block can
     * declare more stacks than it holds, and the frames of the stacks
     * before the cut may then use the bytes the missing size fields would
     * have taken (the fuzz smoke wrote past the array that way). Locals,
     * not r->nips, in the copy loop: stores through a uint64_t * may alias
     * the size_t fields, which made the compiler reload them per frame. */
    size_t max_ips = (n - 8) / ps;
    nt_stack *s = nt_grow(r->stacks, &r->stacks_cap, r->nstacks + count, sizeof *s);
    if (s)
        r->stacks = s;
    uint64_t *ips = nt_grow(r->stack_ips, &r->ips_cap, r->nips + max_ips + 1, sizeof *ips);
    if (ips)
        r->stack_ips = ips;
    if (!s || !ips)
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    size_t nst = r->nstacks, nips = r->nips;
    int contiguous = r->stacks_contiguous;
    for (uint32_t i = 0; i < count; i++) {
        if (n - at < 4)
            goto bad;
        uint32_t sz = nt_rd32(p + at);
        at += 4;
        if (sz > n - at || sz % ps)
            goto bad;
        uint32_t depth = sz / ps;
        uint32_t id = first + i;
        if (nst > 0 && contiguous && id != s[0].id + (uint32_t)nst)
            contiguous = 0;
        s[nst].id = id;
        s[nst].depth = depth;
        s[nst].first = nips;
        uint64_t *dst = ips + nips;
        const uint8_t *src = p + at;
        if (ps == 8) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            memcpy(dst, src, (size_t)depth * 8); /* the file's order is the host's */
#else
            for (uint32_t k = 0; k < depth; k++)
                dst[k] = nt_rd64(src + 8 * (size_t)k);
#endif
        } else {
            for (uint32_t k = 0; k < depth; k++)
                dst[k] = nt_rd32(src + 4 * (size_t)k);
        }
        nips += depth;
        nst++;
        at += sz;
    }
    r->nstacks = nst;
    r->nips = nips;
    r->stacks_contiguous = contiguous;
    r->st.stacks += count;
    if (nt_sequence_stacks(r, first, count, off) < 0)
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at,
                      "%s: stack block at byte %llu: stack "
                      "size exceeds the block or is not a multiple of the pointer size",
                      r->name, (unsigned long long)off);
}

void
nt_seq_check(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp)
{
    uint64_t *last = pp_u64map_get(&r->seq_by_thread, thread);
    if (!last) {
        if (r->seq_logging)
            nt_seq_log_miss(r, thread, seq, from_sp);
        else
            nt_sequence_first(r, seq, from_sp);
        pp_u64map_put(&r->seq_by_thread, thread, seq);
        return;
    }
    uint32_t prev = (uint32_t)*last;
    if (prev != 0) {
        uint32_t expect = from_sp ? prev : prev + 1;
        int32_t gap = (int32_t)(seq - expect);
        if (gap > 0)
            r->st.dropped_events += (uint32_t)gap;
        if (from_sp && gap < 0) {
            r->seq_unsure |= r->seq_logging;
            return; /* the lower bound is behind: keep ours */
        }
    }
    *last = seq;
}

static int
parse_sp_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    size_t at;
    uint32_t flags = 0, count;

    if (r->format == 4) {
        if (n < 12)
            goto bad;
        count = nt_rd32(p + 8);
        at = 12;
        if (count > (n - 12) / 12)
            goto bad;
        for (uint32_t i = 0; i < count; i++, at += 12)
            nt_seq_check(r, nt_rd64(p + at), nt_rd32(p + at + 8), 1);
    } else {
        if (n < 16)
            goto bad;
        flags = nt_rd32(p + 8);
        count = nt_rd32(p + 12);
        at = 16;
        if (count > (n - 16) / 2)
            goto bad;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t idx;
            uint32_t seq;
            size_t k = nt_varu64(p + at, n - at, &idx);
            if (!k)
                goto bad;
            at += k;
            k = nt_varu32(p + at, n - at, &seq);
            if (!k)
                goto bad;
            at += k;
            nt_seq_check(r, idx, seq, 1);
        }
    }
    flush_stacks(r);
    if (flags & 1) {
        pp_u64map_clear(&r->threads);
        r->nthread_rows = 0;
    }
    if (flags & 2) {
        pp_u64map_clear(&r->meta_by_id);
        r->last_meta = NULL;
    }
    r->st.sequence_points++;
    nt_sequence_point(r);
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off,
                      "%s: sequence point block at byte %llu: "
                      "expected timestamp, %sthread count and entries within %zu bytes",
                      r->name, (unsigned long long)off, r->format == 6 ? "flags, " : "", n);
}

static int
parse_thread_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    size_t at = 0;
    while (at < n) {
        if (n - at < 2)
            goto bad;
        uint16_t rs = nt_rd16(p + at);
        at += 2;
        if (rs > n - at)
            goto bad;
        size_t end = at + rs, k;
        uint64_t idx, v;
        k = nt_varu64(p + at, end - at, &idx);
        if (!k)
            goto bad;
        at += k;
        struct nt_thread th = { 0, 0, 1 };
        while (at < end) {
            uint8_t kind = p[at++];
            uint32_t sl;
            switch (kind) {
            case 1:
                k = nt_varu32(p + at, end - at, &sl);
                if (!k || sl > end - at - k)
                    goto bad;
                at += k + sl;
                break;
            case 2:
            case 3:
                k = nt_varu64(p + at, end - at, &v);
                if (!k)
                    goto bad;
                at += k;
                if (kind == 2)
                    th.pid = (uint32_t)v;
                else
                    th.tid = v;
                break;
            case 4:
                for (int s = 0; s < 2; s++) {
                    k = nt_varu32(p + at, end - at, &sl);
                    if (!k || sl > end - at - k)
                        goto bad;
                    at += k + sl;
                }
                break;
            default:
                at = end; /* unknown info: the row size lets us skip */
                break;
            }
        }
        if (pp_u64map_get(&r->threads, idx))
            return nt_fail_at(r, err, PP_EFORMAT, off,
                              "%s: thread block at byte %llu "
                              "redefines live thread index %llu",
                              r->name, (unsigned long long)off, (unsigned long long)idx);
        struct nt_thread *tr = nt_grow(r->thread_rows, &r->thread_rows_cap, r->nthread_rows + 1,
                                       sizeof *tr);
        if (!tr)
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        r->thread_rows = tr;
        tr[r->nthread_rows] = th;
        if (pp_u64map_put(&r->threads, idx, r->nthread_rows) < 0)
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        r->nthread_rows++;
        nt_add_pid(r, th.pid);
        at = end;
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at,
                      "%s: thread block at byte %llu: "
                      "malformed row",
                      r->name, (unsigned long long)off);
}

static int
parse_remove_thread_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off,
                          pp_error *err)
{
    size_t at = 0;
    while (at < n) {
        uint64_t idx;
        uint32_t seq;
        size_t k = nt_varu64(p + at, n - at, &idx);
        if (!k)
            goto bad;
        at += k;
        k = nt_varu32(p + at, n - at, &seq);
        if (!k)
            goto bad;
        at += k;
        nt_seq_check(r, idx, seq, 1);
        pp_u64map_del(&r->threads, idx);
        pp_u64map_del(&r->seq_by_thread, idx);
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at,
                      "%s: remove-thread block at byte %llu: "
                      "malformed entry",
                      r->name, (unsigned long long)off);
}

static int
parse_label_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    if (n < 8)
        goto bad;
    uint32_t first = nt_rd32(p), count = nt_rd32(p + 4);
    size_t at = 8;
    if (first == 0 || count > n - 8)
        goto bad;
    for (uint32_t i = 0; i < count; i++) {
        struct nt_label l;
        memset(&l, 0, sizeof l);
        l.opcode = -1;
        l.version = -1;
        for (;;) {
            if (at >= n)
                goto bad;
            uint8_t kind = p[at++];
            uint32_t sl;
            size_t k;
            uint64_t v;
            switch (kind & 0x7F) {
            case 1:
                if (n - at < 16)
                    goto bad;
                memcpy(l.act.bytes, p + at, 16);
                l.has_act = 1;
                at += 16;
                break;
            case 2:
                if (n - at < 16)
                    goto bad;
                memcpy(l.rel.bytes, p + at, 16);
                l.has_rel = 1;
                at += 16;
                break;
            case 3:
                if (n - at < 16)
                    goto bad;
                at += 16;
                break;
            case 4:
                if (n - at < 8)
                    goto bad;
                at += 8;
                break;
            case 5:
            case 6:
                k = nt_varu32(p + at, n - at, &sl);
                if (!k || sl > n - at - k)
                    goto bad;
                at += k + sl;
                if ((kind & 0x7F) == 5) {
                    k = nt_varu32(p + at, n - at, &sl);
                    if (!k || sl > n - at - k)
                        goto bad;
                    at += k + sl;
                } else {
                    k = nt_varu64(p + at, n - at, &v);
                    if (!k)
                        goto bad;
                    at += k;
                }
                break;
            case 7:
                if (at >= n)
                    goto bad;
                l.opcode = p[at++];
                break;
            case 8:
                if (n - at < 8)
                    goto bad;
                at += 8;
                break;
            case 9:
                if (at >= n)
                    goto bad;
                at++;
                break;
            case 10:
                if (at >= n)
                    goto bad;
                l.version = p[at++];
                break;
            default:
                return nt_fail_at(r, err, PP_EFORMAT, off + at - 1,
                                  "%s: label list block at "
                                  "byte %llu: unknown label kind %u (labels have no size, so "
                                  "the block cannot be read on)",
                                  r->name, (unsigned long long)off, kind & 0x7F);
            }
            if (kind & 0x80)
                break;
        }
        struct nt_label *nl = nt_grow(r->labels, &r->labels_cap, r->nlabels + 1, sizeof *nl);
        if (!nl || pp_u64map_put(&r->label_map, (uint64_t)first + i, r->nlabels) < 0) {
            if (nl)
                r->labels = nl;
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        }
        r->labels = nl;
        nl[r->nlabels++] = l;
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off,
                      "%s: label list block at byte %llu: malformed "
                      "or cut label list",
                      r->name, (unsigned long long)off);
}

static int
parse_metadata_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    size_t at;
    int rc;

    if (r->format == 6) {
        if (n < 2)
            goto bad6;
        at = 2 + (size_t)nt_rd16(p);
        if (at > n)
            goto bad6;
        while (at < n) {
            if (n - at < 2)
                goto bad6;
            uint16_t rs = nt_rd16(p + at);
            if (rs > n - at - 2)
                goto bad6;
            nt_meta *m;
            rc = nt_meta_parse_v6(r, p + at + 2, rs, off + at + 2, &m, err);
            if (rc < 0)
                return rc;
            rc = define_meta(r, m, off + at, err);
            if (rc < 0)
                return rc;
            at += 2 + (size_t)rs;
        }
        return PP_OK;
    bad6:
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: metadata block at byte %llu: a row "
                          "runs past the end of the block",
                          r->name, (unsigned long long)off);
    }
    rc = nt_event_block_header(r, p, n, off, &at, err);
    if (rc < 0)
        return rc;
    while (at < n) {
        const uint8_t *pl;
        uint32_t ps;
        size_t at0 = at;
        rc = nt_decode_header(r, p, n, &at, &pl, &ps, off, err);
        if (rc < 0)
            return rc;
        nt_meta *m;
        rc = nt_meta_parse_v5(r, pl, ps, off + (size_t)(pl - p), &m, err);
        if (rc < 0)
            return rc;
        rc = define_meta(r, m, off + at0, err);
        if (rc < 0)
            return rc;
    }
    return PP_OK;
}

/* A V4 object at *offp (the nettrace "!FastSerialization" framing: tags,
 * type name, size, aligned body, end tag): its body, length and kind (2
 * event, 3 metadata, 4 sequence point, 5 stack, -1 skipped), *offp moved to
 * the body. 1 a block was read; 0 the stream ends here (its end tag, or cut:
 * said through truncated()); a negative error code otherwise. */
static int
v4_object(pp_trace_source *r, uint64_t *offp, const uint8_t **bodyp, size_t *lenp, int *kindp,
          pp_error *err)
{
    uint64_t off = *offp;
    const uint8_t *body;
    size_t len, avail = 0;
    int kind;

    const uint8_t *p = nt_input_get(r, off, 1, &avail, err);
    if (!p) {
        if (err && err->code)
            return r->failed = err->code;
        truncated(r, off, "the file ends without the end-of-stream tag");
        return 0;
    }
    if (p[0] == 1) { /* NullReference: end of stream */
        r->pos = off + 1;
        r->done = 1;
        return 0;
    }
    p = nt_input_get(r, off, 15, &avail, err);
    if (!p) {
        truncated(r, off, "an object header is cut");
        return 0;
    }
    if (p[0] != 5 || p[1] != 5 || p[2] != 1)
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: byte %llu: expected an object "
                          "(tags 05 05 01) or the end-of-stream tag 01, found %02x %02x %02x",
                          r->name, (unsigned long long)off, p[0], p[1], p[2]);
    uint32_t nlen = nt_rd32(p + 11);
    if (nlen == 0 || nlen > NT_MAX_TYPE_NAME)
        return nt_fail_at(r, err, PP_EFORMAT, off + 11,
                          "%s: byte %llu: object type "
                          "name length %u is not plausible",
                          r->name, (unsigned long long)(off + 11), nlen);
    p = nt_input_get(r, off, 15 + nlen + 1 + 4, &avail, err);
    if (!p) {
        truncated(r, off, "an object header is cut");
        return 0;
    }
    const char *tn = (const char *)p + 15;
    if (p[15 + nlen] != 6)
        return nt_fail_at(r, err, PP_EFORMAT, off + 15 + nlen,
                          "%s: byte %llu: expected "
                          "the end-of-type tag 06",
                          r->name, (unsigned long long)(off + 15 + nlen));
    if (nlen == 10 && memcmp(tn, "EventBlock", 10) == 0)
        kind = 2;
    else if (nlen == 13 && memcmp(tn, "MetadataBlock", 13) == 0)
        kind = 3;
    else if (nlen == 7 && memcmp(tn, "SPBlock", 7) == 0)
        kind = 4;
    else if (nlen == 10 && memcmp(tn, "StackBlock", 10) == 0)
        kind = 5;
    else
        kind = -1;
    int32_t bsize = (int32_t)nt_rd32(p + 15 + nlen + 1);
    uint64_t boff = off + 15 + nlen + 1 + 4;
    if (bsize < 0)
        return nt_fail_at(r, err, PP_EFORMAT, boff - 4,
                          "%s: byte %llu: negative block "
                          "size %d",
                          r->name, (unsigned long long)(boff - 4), bsize);
    boff = (boff + 3) & ~(uint64_t)3; /* padding to an aligned absolute offset */
    len = (size_t)bsize;
    body = nt_input_get(r, off, (size_t)(boff - off) + len + 1, &avail, err);
    if (!body) {
        if (err && err->code)
            return r->failed = err->code;
        truncated(r, off, "the last block is cut");
        return 0;
    }
    body += boff - off;
    if (body[len] != 6)
        return nt_fail_at(r, err, PP_EFORMAT, boff + len,
                          "%s: byte %llu: expected the "
                          "end-of-object tag 06 after the %.*s at byte %llu",
                          r->name, (unsigned long long)(boff + len), (int)nlen, tn,
                          (unsigned long long)off);
    r->pos = boff + len + 1;
    *offp = boff;
    *bodyp = body;
    *lenp = len;
    *kindp = kind;
    return 1;
}

int
nt_read_block(pp_trace_source *r, pp_error *err)
{
    {
        uint64_t off = r->pos;
        const uint8_t *body = NULL;
        size_t len = 0, avail = 0;
        int kind = -1; /* 2 event 3 meta 4 sp 5 stack 6 thread 7 rmthread 8 label, -1 skip */

        if (r->stop_at && off >= r->stop_at) {
            r->done = 1; /* a region's end: the next worker reads on */
            r->stopped = 1;
            return 0;
        }
        nt_input_consume(r, off);
        if (r->format == 4) {
            int got = v4_object(r, &off, &body, &len, &kind, err);
            if (got <= 0)
                return got;
        } else {
            const uint8_t *p = nt_input_get(r, off, 4, &avail, err);
            if (!p) {
                if (err && err->code)
                    return r->failed = err->code;
                truncated(r, off, "the file ends without the end-of-stream block");
                return 0;
            }
            uint32_t x = nt_rd32(p);
            len = x & 0xFFFFFF;
            kind = (int)(x >> 24);
            if (kind == 0) {
                r->pos = off + 4;
                r->done = 1;
                return 0;
            }
            body = nt_input_get(r, off, 4 + len, &avail, err);
            if (!body) {
                if (err && err->code)
                    return r->failed = err->code;
                truncated(r, off, "the last block is cut");
                return 0;
            }
            body += 4;
            r->pos = off + 4 + len;
            off += 4;
            if (kind == 1)
                return nt_fail_at(r, err, PP_EFORMAT, off - 4,
                                  "%s: byte %llu: a second "
                                  "TraceBlock",
                                  r->name, (unsigned long long)(off - 4));
            if (kind > 8)
                kind = -1; /* unknown kinds are skipped */
        }
        r->st.blocks++;
        int rc = PP_OK;
        switch (kind) {
        case 2: {
            size_t at;
            if (nt_sequence_block(r, body, len, off))
                return 2;
            rc = nt_event_block_header(r, body, len, off, &at, err);
            if (rc < 0)
                return rc;
            r->blk = body;
            r->blk_len = len;
            r->blk_at = at;
            r->blk_off = off;
            return 1;
        }
        case 3: rc = parse_metadata_block(r, body, len, off, err); break;
        case 4: rc = parse_sp_block(r, body, len, off, err); break;
        case 5: rc = parse_stack_block(r, body, len, off, err); break;
        case 6: rc = parse_thread_block(r, body, len, off, err); break;
        case 7: rc = parse_remove_thread_block(r, body, len, off, err); break;
        case 8: rc = parse_label_block(r, body, len, off, err); break;
        default: break;
        }
        if (rc < 0)
            return rc;
        return 2;
    }
}

/* Read blocks until an event block is current (1), the end (0) or an error. */
int
nt_next_block(pp_trace_source *r, pp_error *err)
{
    int rc;

    while ((rc = nt_read_block(r, err)) == 2)
        ;
    return rc;
}
