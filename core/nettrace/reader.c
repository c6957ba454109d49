/* The .nettrace reader: header, block containers (V4/V5 FastSerialization
 * objects, V6 blocks), event rows, stacks, sequence points, V6 threads and
 * label lists. Everything is bounds-checked against the current block; a
 * block cut by the end of the file ends the trace with a warning. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

/* A FastSerialization type name longer than this is not nettrace. */
#define NT_MAX_TYPE_NAME 64

void *
nt_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    if (ncap > SIZE_MAX / elem)
        return NULL;
    void *np = realloc(p, ncap * elem);
    if (np)
        *cap = ncap;
    return np;
}

int
nt_fail_at(pp_trace_source *r, pp_error *err, int code, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
    if (err)
        err->offset = (int64_t)off;
    r->failed = code;
    return code;
}

static void
warn_at(pp_trace_source *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
warn_at(pp_trace_source *r, uint64_t off, const char *fmt, ...)
{
    pp_error w = PP_ERROR_INIT;
    va_list ap;

    if (!r->on_warning)
        return;
    va_start(ap, fmt);
    pp_error_setv(&w, PP_EFORMAT, fmt, ap);
    va_end(ap);
    w.offset = (int64_t)off;
    r->on_warning(r->user, &w);
}

static void
truncated(pp_trace_source *r, uint64_t block_off, const char *what)
{
    r->st.truncated = 1;
    r->st.truncated_at = (int64_t)block_off;
    r->done = 1;
    warn_at(r, block_off, "%s: truncated at byte %llu: %s; events up to the last whole "
            "block were read", r->name, (unsigned long long)block_off, what);
}

/* ---- time ---- */

static int64_t
ticks_to_ns(const pp_trace_source *r, uint64_t ts)
{
    int64_t d = (int64_t)(ts - r->sync_qpc);
    if (r->qpc_freq == 1000000000u)
        return d;
    if (r->qpc_freq == 0)
        return 0;
    /* The timestamp and the frequency come from the file: a hostile pair
     * must saturate, not overflow. */
    __int128 ns = (__int128)d * 1000000000 / (__int128)r->qpc_freq;
    if (ns > INT64_MAX)
        return INT64_MAX;
    if (ns < INT64_MIN)
        return INT64_MIN;
    return (int64_t)ns;
}

static int64_t
systime_to_unix_ns(const uint16_t st[8])
{
    /* days from civil (Howard Hinnant), SYSTEMTIME: y m dow d h mi s ms */
    int64_t y = (int16_t)st[0], m = st[1], d = st[3];
    /* 0 = unknown: out-of-range fields, or a year whose nanoseconds since
     * 1970 do not fit an int64 (1970..2261). */
    if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1970 || y > 2261 || st[4] > 23 ||
        st[5] > 59 || st[6] > 60 || st[7] > 999)
        return 0;
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    return ((days * 86400 + st[4] * 3600 + st[5] * 60 + st[6]) * 1000 + st[7]) * 1000000;
}

/* ---- header ---- */

static const uint8_t *
need(pp_trace_source *r, uint64_t off, size_t len, pp_error *err, const char *what)
{
    size_t avail = 0;
    const uint8_t *p = nt_input_get(r, off, len, &avail, err);
    if (!p && err && err->code == 0)
        nt_fail_at(r, err, PP_EFORMAT, off + avail, "%s: file ends at byte %llu inside %s",
                   r->name, (unsigned long long)(off + avail), what);
    return p;
}

static int
read_trace_fields(pp_trace_source *r, const uint8_t *p)
{
    for (int i = 0; i < 8; i++)
        r->systime[i] = nt_rd16(p + 2 * i);
    r->sync_qpc = nt_rd64(p + 16);
    r->qpc_freq = nt_rd64(p + 24);
    r->pointer_size = nt_rd32(p + 32);
    r->start_unix_ns = systime_to_unix_ns(r->systime);
    return r->pointer_size == 4 || r->pointer_size == 8;
}

static int
open_v5(pp_trace_source *r, pp_error *err)
{
    /* "Nettrace" int32 20 "!FastSerialization.1" then the Trace object:
     * 05 05 01 int32 ver int32 minver int32 len "Trace" 06 <48 bytes> 06 */
    uint64_t off = 8 + 4 + 20;
    const uint8_t *p = need(r, off, 15, err, "the Trace object header");
    if (!p)
        return PP_EFORMAT;
    if (p[0] != 5 || p[1] != 5 || p[2] != 1)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: byte %llu: expected the Trace object "
                          "(tags 05 05 01)", r->name, (unsigned long long)off);
    int32_t ver = (int32_t)nt_rd32(p + 3);
    uint32_t len = nt_rd32(p + 11);
    if (len != 5)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: byte %llu: expected the type name "
                          "\"Trace\"", r->name, (unsigned long long)off);
    p = need(r, off + 15, 5 + 1 + 48 + 1, err, "the Trace object");
    if (!p)
        return PP_EFORMAT;
    if (memcmp(p, "Trace", 5) != 0 || p[5] != 6 || p[6 + 48] != 6)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: byte %llu: malformed Trace object",
                          r->name, (unsigned long long)off);
    if (ver != 4)
        return nt_fail_at(r, err, ver > 4 ? PP_EUNSUPPORTED : PP_EFORMAT, off + 3,
                          "%s: Trace object version %d: this reader reads version 4 "
                          "(nettrace V4/V5)", r->name, ver);
    if (!read_trace_fields(r, p + 6))
        return nt_fail_at(r, err, PP_EFORMAT, off + 15 + 6 + 32, "%s: pointer size %u: "
                          "expected 4 or 8", r->name, r->pointer_size);
    r->process_id = nt_rd32(p + 6 + 36);
    r->num_processors = nt_rd32(p + 6 + 40);
    r->sampling_rate = nt_rd32(p + 6 + 44);
    r->format = 4;
    r->pos = off + 15 + 5 + 1 + 48 + 1;
    return PP_OK;
}

static int add_pid(pp_trace_source *r, uint32_t pid);

static int
open_v6(pp_trace_source *r, pp_error *err)
{
    const uint8_t *p = need(r, 12, 8, err, "the version header");
    if (!p)
        return PP_EFORMAT;
    uint32_t major = nt_rd32(p), minor = nt_rd32(p + 4);
    if (major > 6)
        return nt_fail_at(r, err, PP_EUNSUPPORTED, 12, "%s: nettrace format version %u.%u is "
                          "newer than this reader understands (major 6)", r->name, major, minor);
    if (major != 6)
        return nt_fail_at(r, err, PP_EFORMAT, 12, "%s: nettrace header with reserved word 0 "
                          "declares major version %u; expected 6", r->name, major);
    r->format = 6;
    r->minor = minor;
    p = need(r, 20, 4, err, "the TraceBlock header");
    if (!p)
        return PP_EFORMAT;
    uint32_t x = nt_rd32(p), size = x & 0xFFFFFF, kind = x >> 24;
    if (kind != 1 || size < 40)
        return nt_fail_at(r, err, PP_EFORMAT, 20, "%s: byte 20: expected the TraceBlock "
                          "(kind 1, at least 40 bytes), found kind %u size %u", r->name, kind, size);
    p = need(r, 24, size, err, "the TraceBlock");
    if (!p)
        return PP_EFORMAT;
    if (!read_trace_fields(r, p))
        return nt_fail_at(r, err, PP_EFORMAT, 24 + 32, "%s: pointer size %u: expected 4 or 8",
                          r->name, r->pointer_size);
    uint32_t n = nt_rd32(p + 36);
    size_t at = 40;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kl, vl;
        size_t k = nt_varu32(p + at, size - at, &kl);
        if (!k || kl > size - at - k)
            goto bad;
        const char *key = (const char *)p + at + k;
        at += k + kl;
        k = nt_varu32(p + at, size - at, &vl);
        if (!k || vl > size - at - k)
            goto bad;
        const char *val = (const char *)p + at + k;
        char num[24];
        if (vl < sizeof num) {
            memcpy(num, val, vl);
            num[vl] = 0;
            if (kl == 9 && memcmp(key, "ProcessId", 9) == 0)
                r->process_id = (uint32_t)strtoul(num, NULL, 10);
            else if (kl == 19 && memcmp(key, "HardwareThreadCount", 19) == 0)
                r->num_processors = (uint32_t)strtoul(num, NULL, 10);
            else if (kl == 23 && memcmp(key, "ExpectedCPUSamplingRate", 23) == 0)
                r->sampling_rate = (uint32_t)strtoul(num, NULL, 10);
        }
        at += k + vl;
    }
    r->pos = 24 + (uint64_t)size;
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, 24 + at, "%s: malformed key/value pair in the "
                      "TraceBlock", r->name);
}

static int
open_header(pp_trace_source *r, pp_error *err)
{
    size_t avail = 0;
    const uint8_t *p = nt_input_get(r, 0, 12, &avail, err);
    if (!p) {
        if (err && err->code)
            return err->code;
        return nt_fail_at(r, err, PP_EFORMAT, 0, "%s: not a nettrace file: only %zu bytes",
                          r->name, avail);
    }
    if (memcmp(p, "Nettrace", 8) != 0) {
        if (nt_rd32(p) == 20) {
            const uint8_t *q = nt_input_get(r, 0, 24, &avail, err);
            if (q && memcmp(q + 4, "!FastSerialization.1", 20) == 0)
                return nt_fail_at(r, err, PP_EFORMAT, 0, "%s: this is a NetPerf file "
                                  "(EventPipe format V1-V3, .NET Core 2.x), not nettrace "
                                  "V4-V6; convert it with PerfView", r->name);
        }
        return nt_fail_at(r, err, PP_EFORMAT, 0, "%s: not a nettrace file (no \"Nettrace\" "
                          "magic at byte 0)", r->name);
    }
    uint32_t w = nt_rd32(p + 8);
    if (w == 20) {
        const uint8_t *q = need(r, 12, 20, err, "the stream header");
        if (!q)
            return PP_EFORMAT;
        if (memcmp(q, "!FastSerialization.1", 20) != 0)
            return nt_fail_at(r, err, PP_EFORMAT, 12, "%s: byte 12: expected "
                              "\"!FastSerialization.1\"", r->name);
        return open_v5(r, err);
    }
    if (w == 0)
        return open_v6(r, err);
    return nt_fail_at(r, err, PP_EFORMAT, 8, "%s: byte 8: expected 20 (V4/V5 stream header) "
                      "or 0 (V6 reserved word), found %u", r->name, w);
}

static void
free_all(pp_trace_source *r)
{
    for (size_t i = 0; i < r->nmetas; i++)
        nt_meta_free(r->metas[i]);
    free(r->metas);
    pp_u64map_free(&r->meta_by_id);
    free(r->stacks);
    free(r->stack_ips);
    pp_u64map_free(&r->threads);
    free(r->thread_rows);
    free(r->labels);
    pp_u64map_free(&r->seq_by_thread);
    pp_u64map_free(&r->label_map);
    free(r->pids);
    free(r->counts);
    nt_methods_free(r);
    free(r->scratch);
    nt_input_close(r);
    free(r->name);
    free(r);
}

int
pp_nettrace_open_fd(int fd, const char *name, pp_trace_source **out, pp_error *err)
{
    pp_trace_source *r = calloc(1, sizeof *r);
    int rc;

    *out = NULL;
    if (!r) {
        close(fd);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    r->fd = fd;
    r->name = strdup(name ? name : "(stream)");
    r->st.struct_size = sizeof r->st;
    r->st.truncated_at = -1;
    r->stacks_contiguous = 1;
    if (!r->name) {
        free_all(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (err)
        err->code = 0;
    rc = nt_input_open(r, fd, err);
    if (rc == PP_OK)
        rc = open_header(r, err);
    if (rc < 0) {
        free_all(r);
        return rc;
    }
    if (r->format == 4)
        add_pid(r, r->process_id);
    r->ev.struct_size = sizeof r->ev;
    r->ev.source = r;
    r->ev.pointer_size = r->pointer_size;
    *out = r;
    return PP_OK;
}

int
pp_nettrace_open(const char *path, pp_trace_source **out, pp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *out = NULL;
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    return pp_nettrace_open_fd(fd, path, out, err);
}

void
pp_nettrace_set_callbacks(pp_trace_source *r, pp_nettrace_bytes_fn on_bytes,
                          pp_nettrace_warning_fn on_warning, void *user)
{
    r->on_bytes = on_bytes;
    r->on_warning = on_warning;
    r->user = user;
    /* Hand over what open already consumed, so every byte is seen once. */
    if (on_bytes != NULL && r->early_len > 0 && r->early_len == r->hashed) {
        on_bytes(user, r->early, r->early_len);
        r->early_len = 0;
    }
}

void
pp_nettrace_close(pp_trace_source *r)
{
    if (r)
        free_all(r);
}

/* ---- caches ---- */

static int
add_pid(pp_trace_source *r, uint32_t pid)
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

static size_t
count_row(pp_trace_source *r, const char *provider, const char *name, uint32_t id, uint32_t ver)
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
    c[r->ncounts].provider = provider;   /* lives as long as its nt_meta (until close) */
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
    size_t row = count_row(r, m->provider, m->name, m->event_id, m->version);
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
    r->nstacks = 0;
    r->nips = 0;
    r->stacks_contiguous = 1;
    pp_u64map_clear(&r->label_map);
    r->nlabels = 0;
}

static const nt_stack *
find_stack(pp_trace_source *r, uint32_t id)
{
    if (r->nstacks == 0)
        return NULL;
    if (r->stacks_contiguous) {
        uint32_t base = r->stacks[0].id;
        if (id - base < r->nstacks)
            return &r->stacks[id - base];
        return NULL;
    }
    for (size_t i = r->nstacks; i-- > 0;)   /* rare: non-contiguous ids */
        if (r->stacks[i].id == id)
            return &r->stacks[i];
    return NULL;
}

static int
parse_stack_block(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, pp_error *err)
{
    if (n < 8)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: stack block at byte %llu: expected "
                          "first id and count (8 bytes), block has %zu", r->name,
                          (unsigned long long)off, n);
    uint32_t first = nt_rd32(p), count = nt_rd32(p + 4);
    size_t at = 8;
    uint32_t ps = r->pointer_size;
    if (count > (n - 8) / 4)
        return nt_fail_at(r, err, PP_EFORMAT, off + 4, "%s: stack block at byte %llu declares "
                          "%u stacks in %zu bytes", r->name, (unsigned long long)off, count, n);
    for (uint32_t i = 0; i < count; i++) {
        if (n - at < 4)
            goto bad;
        uint32_t sz = nt_rd32(p + at);
        at += 4;
        if (sz > n - at || sz % ps)
            goto bad;
        uint32_t depth = sz / ps;
        uint32_t id = first + i;
        nt_stack *s = nt_grow(r->stacks, &r->stacks_cap, r->nstacks + 1, sizeof *s);
        uint64_t *ips = nt_grow(r->stack_ips, &r->ips_cap, r->nips + depth + 1, sizeof *ips);
        if (!s || !ips) {
            if (s) r->stacks = s;
            if (ips) r->stack_ips = ips;
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        }
        r->stacks = s;
        r->stack_ips = ips;
        if (r->nstacks > 0 && r->stacks_contiguous &&
            id != r->stacks[0].id + (uint32_t)r->nstacks)
            r->stacks_contiguous = 0;
        s[r->nstacks].id = id;
        s[r->nstacks].depth = depth;
        s[r->nstacks].first = r->nips;
        if (ps == 8) {
            for (uint32_t k = 0; k < depth; k++)
                ips[r->nips + k] = nt_rd64(p + at + 8 * (size_t)k);
        } else {
            for (uint32_t k = 0; k < depth; k++)
                ips[r->nips + k] = nt_rd32(p + at + 4 * (size_t)k);
        }
        r->nips += depth;
        r->nstacks++;
        at += sz;
    }
    r->st.stacks += count;
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at, "%s: stack block at byte %llu: stack "
                      "size exceeds the block or is not a multiple of the pointer size",
                      r->name, (unsigned long long)off);
}

static void
seq_check(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp)
{
    uint64_t *last = pp_u64map_get(&r->seq_by_thread, thread);
    if (!last) {
        pp_u64map_put(&r->seq_by_thread, thread, seq);
        return;
    }
    uint32_t prev = (uint32_t)*last;
    if (prev != 0) {
        uint32_t expect = from_sp ? prev : prev + 1;
        int32_t gap = (int32_t)(seq - expect);
        if (gap > 0)
            r->st.dropped_events += (uint32_t)gap;
        if (from_sp && gap < 0)
            return;              /* the lower bound is behind: keep ours */
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
            seq_check(r, nt_rd64(p + at), nt_rd32(p + at + 8), 1);
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
            seq_check(r, idx, seq, 1);
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
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off, "%s: sequence point block at byte %llu: "
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
                if (!k || sl > end - at - k) goto bad;
                at += k + sl;
                break;
            case 2: case 3:
                k = nt_varu64(p + at, end - at, &v);
                if (!k) goto bad;
                at += k;
                if (kind == 2) th.pid = (uint32_t)v; else th.tid = v;
                break;
            case 4:
                for (int s = 0; s < 2; s++) {
                    k = nt_varu32(p + at, end - at, &sl);
                    if (!k || sl > end - at - k) goto bad;
                    at += k + sl;
                }
                break;
            default:
                at = end;       /* unknown info: the row size lets us skip */
                break;
            }
        }
        if (pp_u64map_get(&r->threads, idx))
            return nt_fail_at(r, err, PP_EFORMAT, off, "%s: thread block at byte %llu "
                              "redefines live thread index %llu", r->name,
                              (unsigned long long)off, (unsigned long long)idx);
        struct nt_thread *tr = nt_grow(r->thread_rows, &r->thread_rows_cap,
                                       r->nthread_rows + 1, sizeof *tr);
        if (!tr)
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        r->thread_rows = tr;
        tr[r->nthread_rows] = th;
        if (pp_u64map_put(&r->threads, idx, r->nthread_rows) < 0)
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        r->nthread_rows++;
        add_pid(r, th.pid);
        at = end;
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at, "%s: thread block at byte %llu: "
                      "malformed row", r->name, (unsigned long long)off);
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
        seq_check(r, idx, seq, 1);
        pp_u64map_del(&r->threads, idx);
        pp_u64map_del(&r->seq_by_thread, idx);
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off + at, "%s: remove-thread block at byte %llu: "
                      "malformed entry", r->name, (unsigned long long)off);
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
            case 1: if (n - at < 16) goto bad; memcpy(l.act.bytes, p + at, 16); l.has_act = 1; at += 16; break;
            case 2: if (n - at < 16) goto bad; memcpy(l.rel.bytes, p + at, 16); l.has_rel = 1; at += 16; break;
            case 3: if (n - at < 16) goto bad; at += 16; break;
            case 4: if (n - at < 8) goto bad; at += 8; break;
            case 5: case 6:
                k = nt_varu32(p + at, n - at, &sl);
                if (!k || sl > n - at - k) goto bad;
                at += k + sl;
                if ((kind & 0x7F) == 5) {
                    k = nt_varu32(p + at, n - at, &sl);
                    if (!k || sl > n - at - k) goto bad;
                    at += k + sl;
                } else {
                    k = nt_varu64(p + at, n - at, &v);
                    if (!k) goto bad;
                    at += k;
                }
                break;
            case 7: if (at >= n) goto bad; l.opcode = p[at++]; break;
            case 8: if (n - at < 8) goto bad; at += 8; break;
            case 9: if (at >= n) goto bad; at++; break;
            case 10: if (at >= n) goto bad; l.version = p[at++]; break;
            default:
                return nt_fail_at(r, err, PP_EFORMAT, off + at - 1, "%s: label list block at "
                                  "byte %llu: unknown label kind %u (labels have no size, so "
                                  "the block cannot be read on)", r->name,
                                  (unsigned long long)off, kind & 0x7F);
            }
            if (kind & 0x80)
                break;
        }
        struct nt_label *nl = nt_grow(r->labels, &r->labels_cap, r->nlabels + 1, sizeof *nl);
        if (!nl || pp_u64map_put(&r->label_map, (uint64_t)first + i, r->nlabels) < 0) {
            if (nl) r->labels = nl;
            return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
        }
        r->labels = nl;
        nl[r->nlabels++] = l;
    }
    return PP_OK;
bad:
    return nt_fail_at(r, err, PP_EFORMAT, off, "%s: label list block at byte %llu: malformed "
                      "or cut label list", r->name, (unsigned long long)off);
}

/* ---- event rows ---- */

/* Decode one event header at blk[blk_at]; sets payload, psize and the
 * header state. Returns PP_OK or an error. */
static int
decode_header(pp_trace_source *r, const uint8_t *b, size_t n, size_t *atp,
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
            k = nt_varu32(p + i, left - i, &r->h.meta_id); if (!k) goto bad; i += k;
        }
        if (f & 2) {
            uint32_t d;
            k = nt_varu32(p + i, left - i, &d); if (!k) goto bad; i += k;
            r->h.seq += d + 1;
            k = nt_varu64(p + i, left - i, &r->h.capture_tid); if (!k) goto bad; i += k;
            k = nt_varu32(p + i, left - i, &r->h.proc); if (!k) goto bad; i += k;
        } else if (r->format == 6 || r->h.meta_id != 0) {
            r->h.seq++;
        }
        if (f & 4) {
            k = nt_varu64(p + i, left - i, &r->h.tid); if (!k) goto bad; i += k;
        }
        if (f & 8) {
            k = nt_varu32(p + i, left - i, &r->h.stack_id); if (!k) goto bad; i += k;
        }
        uint64_t dt;
        k = nt_varu64(p + i, left - i, &dt); if (!k) goto bad; i += k;
        r->h.ts += dt;           /* deltas may wrap ("negative") */
        if (r->format == 6) {
            if (f & 16) {
                k = nt_varu32(p + i, left - i, &r->h.label_id); if (!k) goto bad; i += k;
            }
        } else {
            if (f & 16) {
                if (left - i < 16) goto bad;
                memcpy(r->h.act.bytes, p + i, 16); i += 16;
            }
            if (f & 32) {
                if (left - i < 16) goto bad;
                memcpy(r->h.rel.bytes, p + i, 16); i += 16;
            }
        }
        if (f & 128) {
            k = nt_varu32(p + i, left - i, &r->h.payload_size); if (!k) goto bad; i += k;
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
    return nt_fail_at(r, err, PP_EFORMAT, boff + at, "%s: event header at byte %llu runs past "
                      "the end of its block (block at byte %llu, %zu bytes)", r->name,
                      (unsigned long long)(boff + at), (unsigned long long)boff, n);
}

static int
parse_event_block_header(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off,
                         size_t *at, pp_error *err)
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
    return nt_fail_at(r, err, PP_EFORMAT, off, "%s: block at byte %llu: expected a header "
                      "size between 4 and the block size (%zu)", r->name,
                      (unsigned long long)off, n);
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
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: metadata block at byte %llu: a row "
                          "runs past the end of the block", r->name, (unsigned long long)off);
    }
    rc = parse_event_block_header(r, p, n, off, &at, err);
    if (rc < 0)
        return rc;
    while (at < n) {
        const uint8_t *pl;
        uint32_t ps;
        size_t at0 = at;
        rc = decode_header(r, p, n, &at, &pl, &ps, off, err);
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

/* Read the next block; returns 1 if an event block is now current, 0 at
 * the end, or an error. */
static int
next_block(pp_trace_source *r, pp_error *err)
{
    for (;;) {
        uint64_t off = r->pos;
        const uint8_t *body;
        size_t len, avail = 0;
        int kind;               /* 2 event 3 meta 4 sp 5 stack 6 thread 7 rmthread 8 label, -1 skip */

        nt_input_consume(r, off);
        if (r->format == 4) {
            const uint8_t *p = nt_input_get(r, off, 1, &avail, err);
            if (!p) {
                if (err && err->code) return r->failed = err->code;
                truncated(r, off, "the file ends without the end-of-stream tag");
                return 0;
            }
            if (p[0] == 1) {    /* NullReference: end of stream */
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
                return nt_fail_at(r, err, PP_EFORMAT, off, "%s: byte %llu: expected an object "
                                  "(tags 05 05 01) or the end-of-stream tag 01, found %02x %02x %02x",
                                  r->name, (unsigned long long)off, p[0], p[1], p[2]);
            uint32_t nlen = nt_rd32(p + 11);
            if (nlen == 0 || nlen > NT_MAX_TYPE_NAME)
                return nt_fail_at(r, err, PP_EFORMAT, off + 11, "%s: byte %llu: object type "
                                  "name length %u is not plausible", r->name,
                                  (unsigned long long)(off + 11), nlen);
            p = nt_input_get(r, off, 15 + nlen + 1 + 4, &avail, err);
            if (!p) {
                truncated(r, off, "an object header is cut");
                return 0;
            }
            const char *tn = (const char *)p + 15;
            if (p[15 + nlen] != 6)
                return nt_fail_at(r, err, PP_EFORMAT, off + 15 + nlen, "%s: byte %llu: expected "
                                  "the end-of-type tag 06", r->name,
                                  (unsigned long long)(off + 15 + nlen));
            if (nlen == 10 && memcmp(tn, "EventBlock", 10) == 0) kind = 2;
            else if (nlen == 13 && memcmp(tn, "MetadataBlock", 13) == 0) kind = 3;
            else if (nlen == 7 && memcmp(tn, "SPBlock", 7) == 0) kind = 4;
            else if (nlen == 10 && memcmp(tn, "StackBlock", 10) == 0) kind = 5;
            else kind = -1;
            int32_t bsize = (int32_t)nt_rd32(p + 15 + nlen + 1);
            uint64_t boff = off + 15 + nlen + 1 + 4;
            if (bsize < 0)
                return nt_fail_at(r, err, PP_EFORMAT, boff - 4, "%s: byte %llu: negative block "
                                  "size %d", r->name, (unsigned long long)(boff - 4), bsize);
            boff = (boff + 3) & ~(uint64_t)3;       /* padding to an aligned absolute offset */
            len = (size_t)bsize;
            body = nt_input_get(r, off, (size_t)(boff - off) + len + 1, &avail, err);
            if (!body) {
                if (err && err->code) return r->failed = err->code;
                truncated(r, off, "the last block is cut");
                return 0;
            }
            body += boff - off;
            if (body[len] != 6)
                return nt_fail_at(r, err, PP_EFORMAT, boff + len, "%s: byte %llu: expected the "
                                  "end-of-object tag 06 after the %.*s at byte %llu", r->name,
                                  (unsigned long long)(boff + len), (int)nlen, tn,
                                  (unsigned long long)off);
            r->pos = boff + len + 1;
            off = boff;
        } else {
            const uint8_t *p = nt_input_get(r, off, 4, &avail, err);
            if (!p) {
                if (err && err->code) return r->failed = err->code;
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
                if (err && err->code) return r->failed = err->code;
                truncated(r, off, "the last block is cut");
                return 0;
            }
            body += 4;
            r->pos = off + 4 + len;
            off += 4;
            if (kind == 1)
                return nt_fail_at(r, err, PP_EFORMAT, off - 4, "%s: byte %llu: a second "
                                  "TraceBlock", r->name, (unsigned long long)(off - 4));
            if (kind > 8)
                kind = -1;      /* unknown kinds are skipped */
        }
        r->st.blocks++;
        int rc = PP_OK;
        switch (kind) {
        case 2: {
            size_t at;
            rc = parse_event_block_header(r, body, len, off, &at, err);
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
    }
}

static int
resolve_thread(pp_trace_source *r, uint64_t idx, uint64_t *tid, uint32_t *pid, uint64_t off,
               pp_error *err)
{
    if (idx == 0) {
        *tid = 0;
        return PP_OK;
    }
    uint64_t *slot = pp_u64map_get(&r->threads, idx);
    if (!slot)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: event at byte %llu references thread "
                          "index %llu, which is not defined", r->name,
                          (unsigned long long)off, (unsigned long long)idx);
    *tid = r->thread_rows[*slot].tid;
    if (pid)
        *pid = r->thread_rows[*slot].pid;
    return PP_OK;
}

int
pp_nettrace_next(pp_trace_source *r, const pp_trace_event **out, pp_error *err)
{
    pp_trace_event *ev = &r->ev;

    *out = NULL;
    if (r->failed)
        return nt_fail_at(r, err, r->failed, r->pos, "%s: the reader already failed", r->name);
    if (err)
        err->code = 0;
    for (;;) {
        if (r->done) {
            nt_input_drain(r);
            r->st.bytes = r->hashed;
            return 0;
        }
        if (!r->blk || r->blk_at >= r->blk_len) {
            r->blk = NULL;
            int rc = next_block(r, err);
            if (rc < 0) {
                r->failed = rc;
                return rc;
            }
            r->st.bytes = r->pos;
            continue;
        }
        uint64_t eoff = r->blk_off + r->blk_at;
        const uint8_t *payload;
        uint32_t psize;
        int rc = decode_header(r, r->blk, r->blk_len, &r->blk_at, &payload, &psize,
                               r->blk_off, err);
        if (rc < 0)
            return rc;
        nt_meta *m = r->last_meta;
        if (!m || m->id != r->h.meta_id) {
            uint64_t *ix = pp_u64map_get(&r->meta_by_id, r->h.meta_id);
            if (!ix)
                return nt_fail_at(r, err, PP_EFORMAT, eoff, "%s: event at byte %llu references "
                                  "metadata id %u, which is not defined", r->name,
                                  (unsigned long long)eoff, r->h.meta_id);
            m = r->last_meta = r->metas[*ix];
        }
        ev->provider_known = m->provider_known;
        ev->event_id = m->event_id;
        ev->version = m->version;
        ev->metadata_id = m->id;
        ev->provider = m->provider;
        ev->name = m->name;
        ev->timestamp = r->h.ts;
        ev->time_ns = ticks_to_ns(r, r->h.ts);
        ev->processor_number = r->h.proc;
        ev->sequence_number = r->h.seq;
        ev->stack_id = r->h.stack_id;
        ev->payload = payload;
        ev->payload_size = psize;
        size_t row = m->stats_index;
        if (r->format == 6) {
            uint32_t pid = 0;
            if (resolve_thread(r, r->h.tid, &ev->thread_id, &pid, eoff, err) < 0 ||
                resolve_thread(r, r->h.capture_tid, &ev->capture_thread_id, NULL, eoff, err) < 0)
                return r->failed;
            ev->process_id = pid;
            memset(&ev->activity_id, 0, sizeof ev->activity_id);
            memset(&ev->related_activity_id, 0, sizeof ev->related_activity_id);
            if (r->h.label_id) {
                uint64_t *li = pp_u64map_get(&r->label_map, r->h.label_id);
                if (!li)
                    return nt_fail_at(r, err, PP_EFORMAT, eoff, "%s: event at byte %llu "
                                      "references label list %u, which is not defined since "
                                      "the last sequence point", r->name,
                                      (unsigned long long)eoff, r->h.label_id);
                const struct nt_label *l = &r->labels[*li];
                ev->activity_id = l->act;
                ev->related_activity_id = l->rel;
                if (l->version >= 0 && (uint32_t)l->version != m->version) {
                    ev->version = (uint32_t)l->version;
                    row = count_row(r, m->provider, m->name, m->event_id, ev->version);
                    if (row == SIZE_MAX)
                        return nt_fail_at(r, err, PP_ENOMEM, eoff, "out of memory");
                }
            }
        } else {
            ev->thread_id = r->h.tid;
            ev->capture_thread_id = r->h.capture_tid;
            ev->process_id = r->process_id;
            ev->activity_id = r->h.act;
            ev->related_activity_id = r->h.rel;
        }
        if (r->h.stack_id) {
            const nt_stack *s = find_stack(r, r->h.stack_id);
            if (s) {
                ev->stack = r->stack_ips + s->first;
                ev->stack_depth = s->depth;
            } else {
                ev->stack = NULL;
                ev->stack_depth = 0;
            }
        } else {
            ev->stack = NULL;
            ev->stack_depth = 0;
        }
        if (r->h.capture_tid)
            seq_check(r, r->h.capture_tid, r->h.seq, 0);
        r->counts[row].count++;
        r->counts[row].payload_bytes += psize;
        r->st.events++;
        r->st.payload_bytes += psize;
        if (!r->have_time) {
            r->first_ns = r->last_ns = ev->time_ns;
            r->have_time = 1;
        } else {
            if (ev->time_ns < r->first_ns) r->first_ns = ev->time_ns;
            if (ev->time_ns > r->last_ns) r->last_ns = ev->time_ns;
        }
        if (m->kind != NT_KIND_NONE && nt_methods_add_verbose(r, ev) < 0)
            return nt_fail_at(r, err, PP_ENOMEM, eoff, "out of memory");
        *out = ev;
        return 1;
    }
}

/* ---- queries ---- */

static const nt_meta *
event_meta(const pp_trace_event *ev)
{
    const pp_trace_source *r = ev->source;
    if (!r)
        return NULL;
    if (r->last_meta && r->last_meta->id == ev->metadata_id)
        return r->last_meta;
    uint64_t *ix = pp_u64map_get(&r->meta_by_id, ev->metadata_id);
    return ix ? r->metas[*ix] : NULL;
}

const nt_meta *
nt_event_meta(const pp_trace_event *ev)
{
    return event_meta(ev);
}

int
pp_nettrace_field_index(const pp_trace_event *ev, const char *name, uint32_t *index)
{
    const nt_meta *m = event_meta(ev);
    if (!m || !m->has_layout || m->ntypes == 0)
        return PP_ENOTFOUND;
    const nt_type *root = &m->types[0];
    for (uint32_t i = 0; i < root->member_count; i++)
        if (strcmp(m->members[root->first_member + i].name, name) == 0) {
            *index = i;
            return PP_OK;
        }
    return PP_ENOTFOUND;
}

int
pp_nettrace_field_at(const pp_trace_event *ev, uint32_t index, pp_value *out)
{
    const nt_meta *m = event_meta(ev);
    if (!m || !m->has_layout || m->ntypes == 0)
        return PP_ENOTFOUND;
    return nt_decode_member((pp_trace_source *)ev->source, m, index, ev->payload,
                            ev->payload_size, out);
}

int
pp_nettrace_field(const pp_trace_event *ev, const char *name, pp_value *out)
{
    uint32_t ix;
    int rc = pp_nettrace_field_index(ev, name, &ix);
    if (rc < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    return pp_nettrace_field_at(ev, ix, out);
}

int
pp_nettrace_info(const pp_trace_source *r, pp_trace_info *out)
{
    if (!r || !out || out->struct_size < offsetof(pp_trace_info, start_unix_ns))
        return PP_EINVAL;
    pp_trace_info i;
    memset(&i, 0, sizeof i);
    i.struct_size = sizeof i;
    i.format_version = r->format == 6 ? 6 : (r->st.metadata_entries && r->v5_tags ? 5 : 4);
    i.pointer_size = r->pointer_size;
    i.process_id = r->process_id;
    i.clock_frequency = r->qpc_freq;
    i.start_unix_ns = r->start_unix_ns;
    i.first_event_ns = r->first_ns;
    i.last_event_ns = r->last_ns;
    size_t n = out->struct_size < sizeof i ? out->struct_size : sizeof i;
    memcpy(out, &i, n);
    out->struct_size = (uint32_t)n;
    return PP_OK;
}

int
pp_nettrace_stats_get(const pp_trace_source *r, pp_nettrace_stats *out)
{
    if (!r || !out || out->struct_size < sizeof(uint32_t))
        return PP_EINVAL;
    pp_nettrace_stats s = r->st;
    s.methods = r->nmethods;
    s.process_count = (uint32_t)(r->npids ? r->npids : 1);
    size_t n = out->struct_size < sizeof s ? out->struct_size : sizeof s;
    s.struct_size = (uint32_t)n;
    memcpy(out, &s, n);
    return PP_OK;
}

uint32_t
pp_nettrace_process_ids(const pp_trace_source *r, uint32_t *ids, uint32_t max)
{
    for (size_t i = 0; i < r->npids && i < max; i++)
        ids[i] = r->pids[i];
    return (uint32_t)r->npids;
}
