/* Unit tests of the nettrace reader on hand-built inputs: V6 blocks (thread,
 * label list, metadata rows with every payload type, compressed and
 * uncompressed event rows), V4/V5 uncompressed headers with V2Params
 * metadata, cache flushes at sequence points, pipes, and bad input. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <perfpipe/nettrace.h>
#include "input/source.h"
#include "nettrace/nettrace_internal.h"
#include "nettrace/inspect.h"
#include "../nettrace/ntbuild.h"

static char tmpdir[] = "/tmp/pp-nt-unit-XXXXXX";

static const char *
write_tmp(const char *name, const nb *b)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (b->n)
        ck_assert_uint_eq(fwrite(b->p, 1, b->n, f), b->n);
    fclose(f);
    return path;
}

/* ---- V6 ---- */

static const uint8_t guid_a[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void
v6_payload(nb *p)
{
    nb_u32(p, 0xDEADBEEF); /* A u32 */
    nb_wstr(p, "hi");      /* S utf16z */
    nb_var(p, 9);          /* V varint: zigzag(-5) */
    nb_var(p, 300);        /* U varuint */
    nb_u16(p, 2);
    nb_u16(p, 7);
    nb_u16(p, 8); /* Arr u16[] */
    nb_u8(p, 1);
    nb_u8(p, 2);
    nb_u8(p, 3);           /* Fix u8[3] */
    nb_put(p, guid_a, 16); /* G guid */
    double d = 2.5;
    uint64_t du;
    memcpy(&du, &d, 8);
    nb_u64(p, du);           /* D f64 */
    nb_u32(p, 2u << 16 | 0); /* Rel: 2 bytes right after */
    nb_u8(p, 0xAA);
    nb_u8(p, 0xBB);
}

static void
field6(nb *fields, const char *name, const uint8_t *type, size_t tn)
{
    nb f = { 0 };
    nb_str8(&f, name);
    nb_put(&f, type, tn);
    nb_u16(fields, (uint16_t)f.n);
    nb_cat(fields, &f);
    nb_free(&f);
}

/* flush_meta: the sequence point also flushes metadata (flag 2) */
static void
build_v6(nb *f, uint32_t major, int flush_meta)
{
    nb b = { 0 };
    nb_put(f, "Nettrace", 8);
    nb_u32(f, 0);
    nb_u32(f, major);
    nb_u32(f, 99);
    /* TraceBlock */
    nb_systime(&b);
    nb_u64(&b, 1000);
    nb_u64(&b, 1000000000);
    nb_u32(&b, 8);
    nb_u32(&b, 1);
    nb_str8(&b, "ProcessId");
    nb_str8(&b, "4242");
    nb_block6(f, 1, &b);
    nb_free(&b);
    /* an unknown block kind is skipped */
    nb_u32(&b, 0x12345678);
    nb_block6(f, 42, &b);
    nb_free(&b);
    /* ThreadBlock: index 1 -> pid 42 tid 1234, index 2 -> pid 43 tid 5678 */
    for (int i = 1; i <= 2; i++) {
        nb row = { 0 };
        nb_var(&row, (uint64_t)i);
        nb_u8(&row, 1);
        nb_str8(&row, i == 1 ? "main" : "worker");
        nb_u8(&row, 2);
        nb_var(&row, i == 1 ? 42 : 43);
        nb_u8(&row, 3);
        nb_var(&row, i == 1 ? 1234 : 5678);
        nb_u16(&b, (uint16_t)row.n);
        nb_cat(&b, &row);
        nb_free(&row);
    }
    nb_block6(f, 6, &b);
    nb_free(&b);
    /* MetadataBlock */
    {
        nb row = { 0 }, fields = { 0 };
        static const uint8_t t_u32[] = { 10 }, t_s[] = { 18 }, t_vi[] = { 20 }, t_vu[] = { 21 },
                             t_arr[] = { 19, 8 }, t_fix[] = { 22, 6, 3, 0 }, t_g[] = { 17 },
                             t_d[] = { 14 }, t_rel[] = { 24, 6 };
        nb_u16(&fields, 9);
        field6(&fields, "A", t_u32, 1);
        field6(&fields, "S", t_s, 1);
        field6(&fields, "V", t_vi, 1);
        field6(&fields, "U", t_vu, 1);
        field6(&fields, "Arr", t_arr, 2);
        field6(&fields, "Fix", t_fix, 4);
        field6(&fields, "G", t_g, 1);
        field6(&fields, "D", t_d, 1);
        field6(&fields, "Rel", t_rel, 2);
        nb_var(&row, 1);
        nb_str8(&row, "TestProvider");
        nb_var(&row, 7);
        nb_str8(&row, "MyEvent");
        nb_cat(&row, &fields);
        nb_u16(&row, 6);
        nb_u8(&row, 1);
        nb_u8(&row, 1);
        nb_u8(&row, 9);
        nb_u8(&row, 2);
        nb_u8(&row, 8);
        nb_u8(&row, 4);
        nb_u8(&row, 0xEE); /* undefined trailing byte, skipped by size */
        nb_u16(&b, 0);     /* header size */
        nb_u16(&b, (uint16_t)row.n);
        nb_cat(&b, &row);
        nb_block6(f, 3, &b);
        nb_free(&b);
        nb_free(&row);
        nb_free(&fields);
    }
    /* StackBlock: id 1 = {0x1000, 0x2000} */
    nb_u32(&b, 1);
    nb_u32(&b, 1);
    nb_u32(&b, 16);
    nb_u64(&b, 0x1000);
    nb_u64(&b, 0x2000);
    nb_block6(f, 5, &b);
    nb_free(&b);
    /* LabelListBlock: list 1 = { ActivityId (last) } */
    nb_u32(&b, 1);
    nb_u32(&b, 1);
    nb_u8(&b, 0x81);
    nb_put(&b, guid_a, 16);
    nb_block6(f, 8, &b);
    nb_free(&b);
    /* EventBlock, compressed: two events */
    {
        nb pl = { 0 };
        v6_payload(&pl);
        nb_u16(&b, 20);
        nb_u16(&b, 1);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        nb_u8(&b, 0x9F);
        nb_var(&b, 1);
        nb_var(&b, 0);
        nb_var(&b, 1);
        nb_var(&b, 0);
        nb_var(&b, 2);
        nb_var(&b, 1);
        nb_var(&b, 2000);
        nb_var(&b, 1);
        nb_var(&b, pl.n);
        nb_cat(&b, &pl);
        nb_u8(&b, 0);
        nb_var(&b, 1);
        nb_cat(&b, &pl); /* everything repeats, ts + 1 */
        nb_block6(f, 2, &b);
        nb_free(&b);
        /* EventBlock, uncompressed: one event on thread index 1 */
        nb_u16(&b, 24);
        nb_u16(&b, 0);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        nb_u32(&b, 0);
        uint32_t esize = 48 + (uint32_t)((pl.n + 3) & ~3u);
        nb_u32(&b, esize);
        nb_u32(&b, 1 | 0x80000000u);
        nb_u32(&b, 3);
        nb_u64(&b, 1);
        nb_u64(&b, 1);
        nb_u32(&b, 0xFFFFFFFF);
        nb_u32(&b, 0);
        nb_u64(&b, 5000);
        nb_u32(&b, 0);
        nb_u32(&b, (uint32_t)pl.n);
        nb_cat(&b, &pl);
        while ((b.n - 24) % 4)
            nb_u8(&b, 0);
        nb_block6(f, 2, &b);
        nb_free(&b);
        /* SequencePoint: thread 1 at seq 3 */
        nb_u64(&b, 6000);
        nb_u32(&b, flush_meta ? 2 : 0);
        nb_u32(&b, 1);
        nb_var(&b, 1);
        nb_var(&b, 3);
        nb_block6(f, 4, &b);
        nb_free(&b);
        /* An event that still names stack 1: flushed, so no stack */
        nb_u16(&b, 20);
        nb_u16(&b, 1);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        nb_u8(&b, 0x8F);
        nb_var(&b, 1);
        nb_var(&b, 3);
        nb_var(&b, 1);
        nb_var(&b, 0);
        nb_var(&b, 1);
        nb_var(&b, 1);
        nb_var(&b, 7000);
        nb_var(&b, pl.n);
        nb_cat(&b, &pl);
        nb_block6(f, 2, &b);
        nb_free(&b);
        /* RemoveThread: index 2 at seq 2 */
        nb_var(&b, 2);
        nb_var(&b, 2);
        nb_block6(f, 7, &b);
        nb_free(&b);
        nb_free(&pl);
    }
    nb_u32(f, 0); /* EndOfStream */
}

static void
check_v6_fields(const pp_trace_event *ev)
{
    pp_value v;
    uint32_t ix;
    ck_assert_int_eq(pp_nettrace_field(ev, "A", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_UINT);
    ck_assert_uint_eq(v.v.u, 0xDEADBEEF);
    ck_assert_int_eq(pp_nettrace_field(ev, "S", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_STRING);
    ck_assert_str_eq(v.v.s, "hi");
    ck_assert_int_eq(pp_nettrace_field(ev, "V", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_INT);
    ck_assert_int_eq(v.v.i, -5);
    ck_assert_int_eq(pp_nettrace_field(ev, "U", &v), PP_OK);
    ck_assert_uint_eq(v.v.u, 300);
    ck_assert_int_eq(pp_nettrace_field(ev, "Arr", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_BYTES);
    ck_assert_uint_eq(v.size, 4);
    ck_assert_uint_eq(v.v.bytes[0], 7);
    ck_assert_uint_eq(v.v.bytes[2], 8);
    ck_assert_int_eq(pp_nettrace_field(ev, "Fix", &v), PP_OK);
    ck_assert_uint_eq(v.size, 3);
    ck_assert_uint_eq(v.v.bytes[2], 3);
    ck_assert_int_eq(pp_nettrace_field_index(ev, "G", &ix), PP_OK);
    ck_assert_uint_eq(ix, 6);
    ck_assert_int_eq(pp_nettrace_field_at(ev, ix, &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_GUID);
    ck_assert_mem_eq(v.v.g.bytes, guid_a, 16);
    ck_assert_int_eq(pp_nettrace_field(ev, "D", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_DOUBLE);
    ck_assert(v.v.d == 2.5);
    ck_assert_int_eq(pp_nettrace_field(ev, "Rel", &v), PP_OK);
    ck_assert_uint_eq(v.size, 2);
    ck_assert_uint_eq(v.v.bytes[0], 0xAA);
    ck_assert_int_eq(pp_nettrace_field(ev, "Nope", &v), PP_ENOTFOUND);
}

typedef struct bytes_seen {
    uint64_t n, sum;
    int warnings;
} bytes_seen;

static void
on_bytes(void *user, const void *d, size_t n)
{
    bytes_seen *s = user;
    for (size_t i = 0; i < n; i++)
        s->sum = s->sum * 31 + ((const uint8_t *)d)[i];
    s->n += n;
}

static void
on_warning(void *user, const pp_error *w)
{
    ((bytes_seen *)user)->warnings++;
    (void)w;
}

static void
run_v6(pp_trace_source *t, const nb *file)
{
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    bytes_seen bs = { 0, 0, 0 };

    pp_nettrace_set_callbacks(t, on_bytes, on_warning, &bs);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1);
    ck_assert_str_eq(ev->provider, "TestProvider");
    ck_assert_str_eq(ev->name, "MyEvent");
    ck_assert_uint_eq(ev->event_id, 7);
    ck_assert_uint_eq(ev->version, 2);
    ck_assert_uint_eq(ev->provider_known, PP_PROVIDER_OTHER);
    ck_assert_uint_eq(ev->thread_id, 5678);
    ck_assert_uint_eq(ev->capture_thread_id, 1234);
    ck_assert_uint_eq(ev->process_id, 43);
    ck_assert_uint_eq(ev->sequence_number, 1);
    ck_assert_int_eq(ev->time_ns, 1000);
    ck_assert_uint_eq(ev->stack_depth, 2);
    ck_assert_uint_eq(ev->stack[0], 0x1000);
    ck_assert_uint_eq(ev->stack[1], 0x2000);
    ck_assert_mem_eq(ev->activity_id.bytes, guid_a, 16);
    check_v6_fields(ev);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1);
    ck_assert_uint_eq(ev->timestamp, 2001);
    ck_assert_uint_eq(ev->sequence_number, 2);
    ck_assert_uint_eq(ev->stack_depth, 2);
    check_v6_fields(ev);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1); /* uncompressed */
    ck_assert_uint_eq(ev->thread_id, 1234);
    ck_assert_uint_eq(ev->process_id, 42);
    ck_assert_uint_eq(ev->sequence_number, 3);
    ck_assert_uint_eq(ev->processor_number, 0xFFFFFFFF);
    ck_assert_uint_eq(ev->stack_depth, 0);
    ck_assert_int_eq(ev->time_ns, 4000);
    check_v6_fields(ev);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1); /* after the sequence point */
    ck_assert_uint_eq(ev->stack_id, 1);
    ck_assert_uint_eq(ev->stack_depth, 0); /* the stack cache was flushed */
    ck_assert_uint_eq(ev->sequence_number, 4);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 0);
    ck_assert_uint_eq(bs.n, file->n);
    bytes_seen ref = { 0, 0, 0 };
    on_bytes(&ref, file->p, file->n);
    ck_assert_uint_eq(bs.sum, ref.sum);
    ck_assert_int_eq(bs.warnings, 0);

    pp_trace_info info = { .struct_size = sizeof info };
    ck_assert_int_eq(pp_nettrace_info(t, &info), PP_OK);
    ck_assert_uint_eq(info.format_version, 6);
    ck_assert_uint_eq(info.pointer_size, 8);
    ck_assert_uint_eq(info.process_id, 4242);
    ck_assert_uint_eq(info.clock_frequency, 1000000000u);
    ck_assert_int_eq(info.start_unix_ns,
                     INT64_C(1735787045006000000)); /* 2025-01-02T03:04:05.006Z */
    uint32_t pids[4];
    ck_assert_uint_eq(pp_nettrace_process_ids(t, pids, 4), 2);
    ck_assert_uint_eq(pids[0], 42);
    ck_assert_uint_eq(pids[1], 43);
    pp_nettrace_stats st = { .struct_size = sizeof st };
    ck_assert_int_eq(pp_nettrace_stats_get(t, &st), PP_OK);
    ck_assert_uint_eq(st.events, 4);
    ck_assert_uint_eq(st.dropped_events, 0);
    ck_assert_uint_eq(st.process_count, 2);
    ck_assert_str_eq(pp_nettrace_symbolize(t, 0x1000, 0), "?!0x1000");
}

START_TEST(test_v6_file)
{
    nb f = { 0 };
    pp_trace_source *t;
    pp_error err = PP_ERROR_INIT;
    build_v6(&f, 6, 0);
    ck_assert_int_eq(pp_nettrace_open(write_tmp("v6.nettrace", &f), &t, &err), PP_OK);
    run_v6(t, &f);
    pp_nettrace_close(t);
    nb_free(&f);
}
END_TEST

START_TEST(test_v6_pipe)
{
    nb f = { 0 };
    pp_trace_source *t;
    pp_error err = PP_ERROR_INIT;
    int fds[2];
    build_v6(&f, 6, 0);
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (size_t i = 0; i < f.n; i += 7) /* dribble in odd chunks */
            if (write(fds[1], f.p + i, f.n - i < 7 ? f.n - i : 7) < 0)
                _exit(1);
        _exit(0);
    }
    close(fds[1]);
    ck_assert_int_eq(pp_nettrace_open_fd(fds[0], "pipe", &t, &err), PP_OK);
    run_v6(t, &f);
    pp_nettrace_close(t);
    nb_free(&f);
}
END_TEST

START_TEST(test_v6_metadata_flush)
{
    nb f = { 0 };
    pp_trace_source *t;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    build_v6(&f, 6, 1);
    ck_assert_int_eq(pp_nettrace_open(write_tmp("v6f.nettrace", &f), &t, &err), PP_OK);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), PP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "metadata id 1"));
    ck_assert_int_gt(err.offset, 0);
    pp_nettrace_close(t);
    nb_free(&f);
}
END_TEST

START_TEST(test_v6_major7)
{
    nb f = { 0 };
    pp_trace_source *t;
    pp_error err = PP_ERROR_INIT;
    build_v6(&f, 7, 0);
    ck_assert_int_eq(pp_nettrace_open(write_tmp("v7.nettrace", &f), &t, &err), PP_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err.message, "version 7"));
    nb_free(&f);
}
END_TEST

/* ---- V4/V5 with uncompressed headers and V2Params ---- */

static void
v5_header(nb *f)
{
    nb_put(f, "Nettrace", 8);
    nb_u32(f, 20);
    nb_put(f, "!FastSerialization.1", 20);
    nb_u8(f, 5);
    nb_u8(f, 5);
    nb_u8(f, 1);
    nb_u32(f, 4);
    nb_u32(f, 4);
    nb_u32(f, 5);
    nb_put(f, "Trace", 5);
    nb_u8(f, 6);
    nb_systime(f);
    nb_u64(f, 100);
    nb_u64(f, 10000000);
    nb_u32(f, 8);
    nb_u32(f, 777);
    nb_u32(f, 4);
    nb_u32(f, 1000);
    nb_u8(f, 6);
}

static void
v5_uncompressed(nb *b, uint32_t meta, uint32_t seq, uint64_t tid, uint64_t ts, const nb *pl)
{
    size_t start = b->n;
    nb_u32(b, 0); /* EventSize, patched below */
    nb_u32(b, meta);
    nb_u32(b, seq);
    nb_u64(b, tid);
    nb_u64(b, tid);
    nb_u32(b, 0xFFFFFFFF);
    nb_u32(b, 0);
    nb_u64(b, ts);
    for (int i = 0; i < 16; i++)
        nb_u8(b, meta ? 0x11 : 0);
    for (int i = 0; i < 16; i++)
        nb_u8(b, 0);
    nb_u32(b, (uint32_t)pl->n);
    nb_cat(b, pl);
    while ((b->n - start) % 4)
        nb_u8(b, 0);
    uint32_t esize = (uint32_t)(b->n - start - 4);
    memcpy(b->p + start, &esize, 4);
}

START_TEST(test_v5_uncompressed_v2params)
{
    nb f = { 0 }, b = { 0 }, md = { 0 }, pl = { 0 };
    pp_trace_source *t;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    pp_value v;

    v5_header(&f);
    /* metadata payload with an empty V1 list, an OpCode tag and V2Params */
    nb_u32(&md, 1);
    nb_wstr(&md, "Prov");
    nb_u32(&md, 3);
    nb_wstr(&md, "EvStart");
    nb_u64(&md, 0);
    nb_u32(&md, 1);
    nb_u32(&md, 4);
    nb_u32(&md, 0);
    nb_u32(&md, 1);
    nb_u8(&md, 1);
    nb_u8(&md, 1);
    {
        nb tag = { 0 }, f1 = { 0 }, f2 = { 0 };
        nb_wstr(&f1, "N");
        nb_u32(&f1, 9);
        nb_wstr(&f2, "Arr");
        nb_u32(&f2, 19);
        nb_u32(&f2, 10);
        nb_u32(&tag, 2);
        nb_u32(&tag, (uint32_t)f1.n + 4);
        nb_cat(&tag, &f1);
        nb_u32(&tag, (uint32_t)f2.n + 4);
        nb_cat(&tag, &f2);
        nb_u32(&md, (uint32_t)tag.n);
        nb_u8(&md, 2);
        nb_cat(&md, &tag);
        nb_free(&tag);
        nb_free(&f1);
        nb_free(&f2);
    }
    nb_u16(&b, 20);
    nb_u16(&b, 0);
    nb_u64(&b, 0);
    nb_u64(&b, 0);
    v5_uncompressed(&b, 0, 0, 0, 0, &md);
    nb_obj5(&f, "MetadataBlock", &b);
    nb_free(&b);
    /* payload: N = -3, Arr = {5, 6} (u16 count) */
    nb_u32(&pl, (uint32_t)-3);
    nb_u16(&pl, 2);
    nb_u32(&pl, 5);
    nb_u32(&pl, 6);
    nb_u16(&b, 20);
    nb_u16(&b, 0);
    nb_u64(&b, 0);
    nb_u64(&b, 0);
    v5_uncompressed(&b, 1 | 0x80000000u, 1, 77, 10100, &pl);
    v5_uncompressed(&b, 1, 2, 77, 10200, &pl);
    nb_obj5(&f, "EventBlock", &b);
    nb_free(&b);
    /* a sequence point saying thread 77 reached 5: three events dropped */
    nb_u64(&b, 20000);
    nb_u32(&b, 1);
    nb_u64(&b, 77);
    nb_u32(&b, 5);
    nb_obj5(&f, "SPBlock", &b);
    nb_free(&b);
    nb_u8(&f, 1);

    ck_assert_int_eq(pp_nettrace_open(write_tmp("v5.nettrace", &f), &t, &err), PP_OK);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1);
    ck_assert_str_eq(ev->provider, "Prov");
    ck_assert_str_eq(ev->name, "EvStart");
    ck_assert_uint_eq(ev->version, 1);
    ck_assert_uint_eq(ev->thread_id, 77);
    ck_assert_uint_eq(ev->process_id, 777);
    ck_assert_int_eq(ev->time_ns, 1000000); /* 10000 ticks at 10 MHz */
    ck_assert_uint_eq(ev->activity_id.bytes[0], 0x11);
    ck_assert_int_eq(pp_nettrace_field(ev, "N", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_INT);
    ck_assert_int_eq(v.v.i, -3);
    ck_assert_int_eq(pp_nettrace_field(ev, "Arr", &v), PP_OK);
    ck_assert_uint_eq(v.type, PP_VALUE_BYTES);
    ck_assert_uint_eq(v.size, 8);
    ck_assert_uint_eq(v.v.bytes[4], 6);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 1);
    ck_assert_uint_eq(ev->sequence_number, 2);
    ck_assert_int_eq(pp_nettrace_next(t, &ev, &err), 0);
    pp_trace_info info = { .struct_size = sizeof info };
    pp_nettrace_info(t, &info);
    ck_assert_uint_eq(info.format_version, 5); /* V5 tags seen */
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(t, &st);
    ck_assert_uint_eq(st.dropped_events, 3);
    ck_assert_uint_eq(st.sequence_points, 1);
    pp_nettrace_close(t);
    nb_free(&f);
    nb_free(&md);
    nb_free(&pl);
}
END_TEST

/* ---- inspect split at sequence points (inspect_par.c, region.c) ---- */

/* A V5 trace of three regions whose sequence numbers cross them: thread 88
 * is left out of the first point and jumps in region 2 (3 dropped, found
 * only by replaying its first sighting against region 1's number), thread
 * 99 first shows in region 2 and the second point puts it 3 ahead, 88 jumps
 * again in region 3. With behind != 0 a third point says thread 77 is at 1,
 * behind its 3: the serial reader keeps 3, a region cannot know. */
static const char *
seq_regions_file(const char *name, int behind)
{
    nb f = { 0 }, b = { 0 }, md = { 0 }, pl = { 0 };
    v5_header(&f);
    nb_u32(&md, 1);
    nb_wstr(&md, "Prov");
    nb_u32(&md, 3);
    nb_wstr(&md, "Ev");
    nb_u64(&md, 0);
    nb_u32(&md, 1);
    nb_u32(&md, 4);
    nb_u32(&md, 0);
    nb_u16(&b, 20);
    nb_u16(&b, 0);
    nb_u64(&b, 0);
    nb_u64(&b, 0);
    v5_uncompressed(&b, 0, 0, 0, 0, &md);
    nb_obj5(&f, "MetadataBlock", &b);
    nb_free(&b);
    nb_u32(&pl, 7);
    static const uint32_t ev[][3] = {
        /* block, thread, seq */
        { 0, 77, 1 }, { 0, 77, 2 }, { 0, 88, 1 }, { 1, 88, 5 },
        { 1, 99, 1 }, { 1, 77, 3 }, { 2, 99, 5 }, { 2, 88, 9 },
    };
    static const uint32_t sp[][4] = {
        /* after block, then (thread, seq) x n */
        { 1, 77, 2 },
        { 3, 77, 3 },
    };
    for (uint32_t blk = 0; blk < 3; blk++) {
        nb_u16(&b, 20);
        nb_u16(&b, 0);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
            if (ev[i][0] == blk)
                v5_uncompressed(&b, 1, ev[i][2], ev[i][1], 10000 + 100 * i, &pl);
        nb_obj5(&f, "EventBlock", &b);
        nb_free(&b);
        nb_u64(&b, 20000 + blk);
        if (blk == 0) {
            nb_u32(&b, 1);
            nb_u64(&b, sp[0][1]);
            nb_u32(&b, sp[0][2]);
        } else if (blk == 1) {
            nb_u32(&b, 3);
            nb_u64(&b, 77);
            nb_u32(&b, 3);
            nb_u64(&b, 99);
            nb_u32(&b, 4);
            nb_u64(&b, 88);
            nb_u32(&b, 5);
        } else if (behind) {
            nb_u32(&b, 1);
            nb_u64(&b, 77);
            nb_u32(&b, 1);
        } else {
            nb_free(&b);
            continue;
        }
        nb_obj5(&f, "SPBlock", &b);
        nb_free(&b);
    }
    nb_u8(&f, 1);
    const char *path = write_tmp(name, &f);
    nb_free(&f);
    nb_free(&md);
    nb_free(&pl);
    return path;
}

static char *
inspect_json(const char *path, unsigned jobs)
{
    json_t *doc = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_nettrace_inspect_doc(path, jobs, &doc, &err), PP_OK);
    char *s = json_dumps(doc, JSON_SORT_KEYS);
    json_decref(doc);
    return s;
}

static int
log_has(const char *log, const char *what)
{
    char line[4200];
    int n = 0;
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return n;
}

START_TEST(test_inspect_split_sequences)
{
    char log[4096];
    snprintf(log, sizeof log, "%s/split-%d.log", P_tmpdir, (int)getpid());
    for (int behind = 0; behind < 2; behind++) {
        const char *path = seq_regions_file(behind ? "seq-behind.nettrace" : "seq.nettrace",
                                            behind);
        char *serial = inspect_json(path, 1);
        json_t *d = json_loads(serial, 0, NULL);
        json_t *tot = json_object_get(json_array_get(json_object_get(d, "stages"), 0), "totals");
        /* 3 (88 in region 2) + 3 (99 at the second point) + 3 (88 in region 3) */
        ck_assert_int_eq(
            json_integer_value(json_object_get(json_object_get(tot, "dropped_events"), "value")),
            9);
        ck_assert_int_eq(
            json_integer_value(json_object_get(json_object_get(tot, "events"), "value")), 8);
        json_decref(d);
        unlink(log);
        setenv("PERFPIPE_INSPECT_SPLIT", "every", 1);
        setenv("PERFPIPE_INSPECT_SPLIT_LOG", log, 1);
        for (unsigned jobs = 2; jobs <= 3; jobs++) {
            char *split = inspect_json(path, jobs);
            /* (not ck_assert_str_eq: the documents overflow its message) */
            ck_assert_msg(strcmp(split, serial) == 0, "--jobs %u differs from --jobs 1%s", jobs,
                          behind ? " (a point behind)" : "");
            free(split);
        }
        unsetenv("PERFPIPE_INSPECT_SPLIT");
        unsetenv("PERFPIPE_INSPECT_SPLIT_LOG");
        /* Folded when the numbers can be replayed; read serially when a
         * point is behind (the document is the serial one either way). */
        ck_assert_int_eq(log_has(log, behind ? "regions=4 serial" : "regions=3 folded"), 2);
        unlink(log);
        free(serial);
    }
}
END_TEST

/* ---- bad input ---- */

static int
open_bytes(const char *name, const void *d, size_t n, pp_error *err)
{
    nb b = { 0 };
    pp_trace_source *t;
    nb_put(&b, d, n);
    int rc = pp_nettrace_open(write_tmp(name, &b), &t, err);
    if (rc == PP_OK) {
        const pp_trace_event *ev;
        while ((rc = pp_nettrace_next(t, &ev, err)) == 1)
            ;
        pp_nettrace_close(t);
    }
    nb_free(&b);
    return rc;
}

START_TEST(test_refusals)
{
    pp_error err = PP_ERROR_INIT;
    nb b = { 0 };
    /* NetPerf (V1-V3): FastSerialization without the Nettrace magic */
    nb_u32(&b, 20);
    nb_put(&b, "!FastSerialization.1", 20);
    nb_u8(&b, 5);
    ck_assert_int_eq(open_bytes("netperf", b.p, b.n, &err), PP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "NetPerf"));
    nb_free(&b);
    /* a gcdump is FastSerialization too: the head of a real one
     * (tests/data/leak-after.gcdump) names its GCHeapDump object */
    static const uint8_t gc_head[] = { 4, 4, 1, 10, 0, 0, 0, 8, 0, 0, 0, 10, 0, 0, 0 };
    nb_u32(&b, 20);
    nb_put(&b, "!FastSerialization.1", 20);
    nb_put(&b, gc_head, sizeof gc_head);
    nb_put(&b, "GCHeapDump", 10);
    for (int i = 0; i < 64; i++)
        nb_u8(&b, 0);
    ck_assert_int_eq(open_bytes("gcdump", b.p, b.n, &err), PP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "gcdump heap snapshot"));
    ck_assert_ptr_null(strstr(err.message, "NetPerf"));
    nb_free(&b);
    ck_assert_int_eq(open_bytes("empty", "", 0, &err), PP_EFORMAT);
    ck_assert_int_eq(open_bytes("text", "hello, world, this is text", 26, &err), PP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "not a nettrace"));
    /* random bytes after a valid V5 header: an error or a truncation, never a crash */
    srand(12345);
    for (int k = 0; k < 200; k++) {
        nb_free(&b);
        v5_header(&b);
        size_t n = (size_t)(rand() % 400);
        for (size_t i = 0; i < n; i++)
            nb_u8(&b, (uint8_t)(k % 3 == 0 ? (i < 3 ? 5 - (i == 2) * 4 : rand()) : rand()));
        int rc = open_bytes("random", b.p, b.n, &err);
        ck_assert(rc == 0 || rc == PP_EFORMAT || rc == PP_EUNSUPPORTED);
    }
    /* random garbage V6 blocks */
    for (int k = 0; k < 200; k++) {
        nb_free(&b);
        nb f6 = { 0 };
        build_v6(&f6, 6, 0);
        size_t cut = 60 + (size_t)(rand() % (int)(f6.n - 60));
        nb_put(&b, f6.p, cut);
        for (int i = 0; i < 40; i++)
            nb_u8(&b, (uint8_t)rand());
        int rc = open_bytes("random6", b.p, b.n, &err);
        ck_assert(rc == 0 || rc == PP_EFORMAT);
        nb_free(&f6);
    }
    nb_free(&b);
}
END_TEST

START_TEST(test_corrupt_block_offset)
{
    nb f = { 0 };
    pp_error err = PP_ERROR_INIT;
    build_v6(&f, 6, 0);
    /* find the first event block (kind 2) and make its first event's
     * payload size huge */
    size_t at = 20;
    while (at + 4 <= f.n) {
        uint32_t x;
        memcpy(&x, f.p + at, 4);
        if (x >> 24 == 2)
            break;
        at += 4 + (x & 0xFFFFFF);
    }
    f.p[at + 4 + 20 + 10] = 0x7F; /* payload size varint of event 1 */
    ck_assert_int_eq(open_bytes("corrupt", f.p, f.n, &err), PP_EFORMAT);
    ck_assert_int_eq(err.offset, (int64_t)(at + 4 + 20));
    ck_assert_ptr_nonnull(strstr(err.message, "runs past the end of its block"));
    nb_free(&f);
}
END_TEST

/* ---- the engine adapter ---- */

START_TEST(test_source_ops)
{
    nb f = { 0 };
    bytes_seen bs = { 0, 0, 0 };
    pp_source_hooks hooks = { on_bytes, on_warning, &bs };
    pp_error err = PP_ERROR_INIT;
    void *src;
    pp_record rec;
    int rc, n = 0;

    build_v6(&f, 6, 0);
    /* cut the end-of-stream block off: a truncation warning, not an error */
    f.n -= 4;
    ck_assert_str_eq(pp_nettrace_source_ops.kind, "nettrace");
    ck_assert_int_eq(pp_nettrace_source_ops.open(write_tmp("ops.nettrace", &f), &hooks, &src, &err),
                     PP_OK);
    while ((rc = pp_nettrace_source_ops.next(src, &rec, &err)) == 1) {
        ck_assert_uint_eq(rec.kind, PP_KIND_NETTRACE);
        ck_assert_ptr_eq(rec.u.event->source, src); /* the reader is the handle */
        n++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(n, 4);
    ck_assert_uint_eq(bs.n, f.n);
    ck_assert_int_eq(bs.warnings, 1);
    /* after the end the handle still answers */
    ck_assert_str_eq(pp_nettrace_symbolize(src, 0x2000, PP_SYM_SIGNATURE), "?!0x2000");
    json_t *o = json_object();
    ck_assert_int_eq(pp_nettrace_source_ops.describe(src, o), PP_OK);
    json_t *nt = json_object_get(o, "nettrace");
    ck_assert_int_eq(json_integer_value(json_object_get(nt, "format_version")), 6);
    ck_assert_int_eq(json_integer_value(json_object_get(nt, "events")), 4);
    ck_assert_int_eq(json_array_size(json_object_get(nt, "process_ids")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(nt, "truncated_at")), (json_int_t)f.n);
    json_decref(o);
    pp_nettrace_source_ops.close(src);
    nb_free(&f);
}
END_TEST

/* ---- caches follow sequence points: memory does not grow with length ---- */

START_TEST(test_caches_bounded)
{
    nb f = { 0 }, b = { 0 };
    pp_trace_source *t;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    nb_put(&f, "Nettrace", 8);
    nb_u32(&f, 0);
    nb_u32(&f, 6);
    nb_u32(&f, 0);
    nb_systime(&b);
    nb_u64(&b, 0);
    nb_u64(&b, 1000000000);
    nb_u32(&b, 8);
    nb_u32(&b, 0);
    nb_block6(&f, 1, &b);
    nb_free(&b);
    {
        nb row = { 0 };
        nb_var(&row, 1);
        nb_u8(&row, 3);
        nb_var(&row, 99);
        nb_u16(&b, (uint16_t)row.n);
        nb_cat(&b, &row);
        nb_free(&row);
        nb_block6(&f, 6, &b);
        nb_free(&b);
        nb_var(&row, 1);
        nb_str8(&row, "P");
        nb_var(&row, 1);
        nb_str8(&row, "E");
        nb_u16(&row, 0);
        nb_u16(&row, 0);
        nb_u16(&b, 0);
        nb_u16(&b, (uint16_t)row.n);
        nb_cat(&b, &row);
        nb_free(&row);
        nb_block6(&f, 3, &b);
        nb_free(&b);
    }
    /* 2000 regions: 50 stacks each (ids restart at 1), 50 events, a sequence point */
    for (int region = 0; region < 2000; region++) {
        nb_u32(&b, 1);
        nb_u32(&b, 50);
        for (int i = 0; i < 50; i++) {
            nb_u32(&b, 24);
            nb_u64(&b, (uint64_t)region);
            nb_u64(&b, (uint64_t)i);
            nb_u64(&b, 7);
        }
        nb_block6(&f, 5, &b);
        nb_free(&b);
        nb_u16(&b, 20);
        nb_u16(&b, 1);
        nb_u64(&b, 0);
        nb_u64(&b, 0);
        for (int i = 0; i < 50; i++) {
            nb_u8(&b, i == 0 ? 0x0F : 0x08);
            if (i == 0) {
                nb_var(&b, 1);
                nb_var(&b, 0);
                nb_var(&b, 1);
                nb_var(&b, 0);
                nb_var(&b, 1);
            }
            nb_var(&b, (uint64_t)i + 1);
            nb_var(&b, 1);
        }
        nb_block6(&f, 2, &b);
        nb_free(&b);
        nb_u64(&b, 0);
        nb_u32(&b, 0);
        nb_u32(&b, 0);
        nb_block6(&f, 4, &b);
        nb_free(&b);
    }
    nb_u32(&f, 0);
    ck_assert_int_eq(pp_nettrace_open(write_tmp("long.nettrace", &f), &t, &err), PP_OK);
    uint64_t n = 0;
    while (pp_nettrace_next(t, &ev, &err) == 1) {
        /* every event sees the stack of ITS region */
        ck_assert_uint_eq(ev->stack_depth, 3);
        ck_assert_uint_eq(ev->stack[0], n / 50);
        ck_assert_uint_eq(ev->stack[1], n % 50);
        n++;
    }
    ck_assert_uint_eq(n, 100000);
    /* the stack cache holds one region, not the trace */
    ck_assert_uint_le(t->stacks_cap, 64);
    ck_assert_uint_le(t->ips_cap, 256);
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(t, &st);
    ck_assert_uint_eq(st.stacks, 100000);
    ck_assert_uint_eq(st.sequence_points, 2000);
    pp_nettrace_close(t);
    nb_free(&f);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("nettrace");
    TCase *tc = tcase_create("hand-built");
    tcase_add_test(tc, test_v6_file);
    tcase_add_test(tc, test_inspect_split_sequences);
    tcase_add_test(tc, test_v6_pipe);
    tcase_add_test(tc, test_v6_metadata_flush);
    tcase_add_test(tc, test_v6_major7);
    tcase_add_test(tc, test_v5_uncompressed_v2params);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_corrupt_block_offset);
    tcase_add_test(tc, test_source_ops);
    tcase_add_test(tc, test_caches_bounded);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 99;
    }
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        failed++;
    return failed ? 1 : 0;
}
