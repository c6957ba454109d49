/* The .nettrace header: the magic, the V4/V5 FastSerialization stream and
 * Trace object or the V6 version header and TraceBlock; opening and closing
 * a reader. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

/* ---- time ---- */

static int64_t
systime_to_unix_ns(const uint16_t st[8])
{
    /* days from civil (Howard Hinnant), SYSTEMTIME: y m dow d h mi s ms */
    int64_t y = (int16_t)st[0], m = st[1], d = st[3];
    /* 0 = unknown: out-of-range fields, or a year whose nanoseconds since
     * 1970 do not fit an int64 (1970..2261). */
    if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1970 || y > 2261 || st[4] > 23 || st[5] > 59 ||
        st[6] > 60 || st[7] > 999)
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
        nt_fail_at(r, err, PP_EFORMAT, off + avail, "%s: file ends at byte %llu inside %s", r->name,
                   (unsigned long long)(off + avail), what);
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
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: byte %llu: expected the Trace object "
                          "(tags 05 05 01)",
                          r->name, (unsigned long long)off);
    int32_t ver = (int32_t)nt_rd32(p + 3);
    uint32_t len = nt_rd32(p + 11);
    if (len != 5)
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: byte %llu: expected the type name "
                          "\"Trace\"",
                          r->name, (unsigned long long)off);
    p = need(r, off + 15, 5 + 1 + 48 + 1, err, "the Trace object");
    if (!p)
        return PP_EFORMAT;
    if (memcmp(p, "Trace", 5) != 0 || p[5] != 6 || p[6 + 48] != 6)
        return nt_fail_at(r, err, PP_EFORMAT, off, "%s: byte %llu: malformed Trace object", r->name,
                          (unsigned long long)off);
    if (ver != 4)
        return nt_fail_at(r, err, ver > 4 ? PP_EUNSUPPORTED : PP_EFORMAT, off + 3,
                          "%s: Trace object version %d: this reader reads version 4 "
                          "(nettrace V4/V5)",
                          r->name, ver);
    if (!read_trace_fields(r, p + 6))
        return nt_fail_at(r, err, PP_EFORMAT, off + 15 + 6 + 32,
                          "%s: pointer size %u: "
                          "expected 4 or 8",
                          r->name, r->pointer_size);
    r->process_id = nt_rd32(p + 6 + 36);
    r->num_processors = nt_rd32(p + 6 + 40);
    r->sampling_rate = nt_rd32(p + 6 + 44);
    r->format = 4;
    r->pos = off + 15 + 5 + 1 + 48 + 1;
    return PP_OK;
}

static int
open_v6(pp_trace_source *r, pp_error *err)
{
    const uint8_t *p = need(r, 12, 8, err, "the version header");
    if (!p)
        return PP_EFORMAT;
    uint32_t major = nt_rd32(p), minor = nt_rd32(p + 4);
    if (major > 6)
        return nt_fail_at(r, err, PP_EUNSUPPORTED, 12,
                          "%s: nettrace format version %u.%u is "
                          "newer than this reader understands (major 6)",
                          r->name, major, minor);
    if (major != 6)
        return nt_fail_at(r, err, PP_EFORMAT, 12,
                          "%s: nettrace header with reserved word 0 "
                          "declares major version %u; expected 6",
                          r->name, major);
    r->format = 6;
    r->minor = minor;
    p = need(r, 20, 4, err, "the TraceBlock header");
    if (!p)
        return PP_EFORMAT;
    uint32_t x = nt_rd32(p), size = x & 0xFFFFFF, kind = x >> 24;
    if (kind != 1 || size < 40)
        return nt_fail_at(r, err, PP_EFORMAT, 20,
                          "%s: byte 20: expected the TraceBlock "
                          "(kind 1, at least 40 bytes), found kind %u size %u",
                          r->name, kind, size);
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
    return nt_fail_at(r, err, PP_EFORMAT, 24 + at,
                      "%s: malformed key/value pair in the "
                      "TraceBlock",
                      r->name);
}

static int
open_header(pp_trace_source *r, pp_error *err)
{
    size_t avail = 0;
    const uint8_t *p = nt_input_get(r, 0, 12, &avail, err);
    if (!p) {
        if (err && err->code)
            return err->code;
        return nt_fail_at(r, err, PP_EFORMAT, 0, "%s: not a nettrace file: only %zu bytes", r->name,
                          avail);
    }
    if (memcmp(p, "Nettrace", 8) != 0) {
        if (nt_rd32(p) == 20) {
            const uint8_t *q = nt_input_get(r, 0, 24, &avail, err);
            if (q && memcmp(q + 4, "!FastSerialization.1", 20) == 0) {
                /* a gcdump is a FastSerialization stream too: its first
                 * object names its type within the first 64 bytes */
                const uint8_t *g = nt_input_get(r, 0, 64, &avail, err);
                for (size_t i = 24; g && i + 10 <= 64; i++)
                    if (memcmp(g + i, "GCHeapDump", 10) == 0)
                        return nt_fail_at(r, err, PP_EFORMAT, 0,
                                          "%s: this is a gcdump heap "
                                          "snapshot, not a nettrace trace",
                                          r->name);
                return nt_fail_at(r, err, PP_EFORMAT, 0,
                                  "%s: this is a NetPerf file "
                                  "(EventPipe format V1-V3, .NET Core 2.x), not nettrace "
                                  "V4-V6; convert it with PerfView",
                                  r->name);
            }
        }
        return nt_fail_at(r, err, PP_EFORMAT, 0,
                          "%s: not a nettrace file (no \"Nettrace\" "
                          "magic at byte 0)",
                          r->name);
    }
    uint32_t w = nt_rd32(p + 8);
    if (w == 20) {
        const uint8_t *q = need(r, 12, 20, err, "the stream header");
        if (!q)
            return PP_EFORMAT;
        if (memcmp(q, "!FastSerialization.1", 20) != 0)
            return nt_fail_at(r, err, PP_EFORMAT, 12,
                              "%s: byte 12: expected "
                              "\"!FastSerialization.1\"",
                              r->name);
        return open_v5(r, err);
    }
    if (w == 0)
        return open_v6(r, err);
    return nt_fail_at(r, err, PP_EFORMAT, 8,
                      "%s: byte 8: expected 20 (V4/V5 stream header) "
                      "or 0 (V6 reserved word), found %u",
                      r->name, w);
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
    nt_sequence_free(&r->seqs);
    pp_u64map_free(&r->label_map);
    free(r->pids);
    free(r->counts);
    free(r->seq_log);
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
        nt_add_pid(r, r->process_id);
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
    int rc = pp_nettrace_open_fd(fd, path, out, err);
    if (rc == PP_OK)
        nt_native_attach(*out, path);
    return rc;
}

void
pp_nettrace_set_callbacks(pp_trace_source *r, pp_nettrace_bytes_fn on_bytes,
                          pp_nettrace_warning_fn on_warning, void *user)
{
    r->on_bytes = on_bytes;
    r->on_warning = on_warning;
    r->user = user;
    if (on_warning != NULL && r->native_warning[0]) {
        pp_error w = PP_ERROR_INIT;
        pp_error_set(&w, PP_EFORMAT, "%s", r->native_warning);
        r->native_warning[0] = 0;
        on_warning(user, &w);
    }
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
