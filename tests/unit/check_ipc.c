/* The diagnostics IPC client without a runtime: framing and UTF-16
 * strings, dotnet-trace's profile and --providers merging, capture specs,
 * and the client's side of ProcessInfo2 (with the ProcessInfo fallback),
 * CollectTracing2 and StopTracing against a scripted server on a Unix
 * socket. The real runtime is tests/ipc/test-ipc.sh. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <perfpipe/perfpipe.h>

#include "ipc/capture_source.h"
#include "ipc/heap_graph.h"
#include "ipc/ipc.h"
#include "ipc/providers.h"
#include "ipc/spool.h"

#include "fake_runtime.h"

START_TEST(strings_round_trip)
{
    const char *s = "Workload \xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80"; /* é, U+1F600 */
    pp_ipc_buf b = { 0 };
    pp_ipc_buf_string(&b, s);
    pp_ipc_buf_string(&b, "");
    ck_assert(!b.failed);
    /* 9 BMP chars + "t" ... count: "Workload " 9, "été" 3, " " 1, surrogate pair 2, NUL 1 */
    uint32_t units = (uint32_t)b.data[0] | (uint32_t)b.data[1] << 8;
    ck_assert_uint_eq(units, 9 + 3 + 1 + 2 + 1);
    pp_ipc_cursor c = { b.data, b.len, 0, 0 };
    char *back = pp_ipc_get_string(&c), *empty = pp_ipc_get_string(&c);
    ck_assert_str_eq(back, s);
    ck_assert_str_eq(empty, "");
    ck_assert(!c.failed);
    ck_assert_ptr_null(pp_ipc_get_string(&c)); /* past the end */
    ck_assert(c.failed);
    free(back);
    free(empty);
    pp_ipc_buf_free(&b);

    /* A count larger than the payload is refused, not read past. */
    uint8_t bad[8] = { 0xff, 0xff, 0, 0, 'a', 0, 0, 0 };
    pp_ipc_cursor c2 = { bad, sizeof bad, 0, 0 };
    ck_assert_ptr_null(pp_ipc_get_string(&c2));
}
END_TEST

static const pp_ipc_provider *
prov(const pp_capture_providers *cp, const char *name)
{
    for (size_t i = 0; i < cp->n; i++)
        if (strcmp(cp->v[i].name, name) == 0)
            return &cp->v[i];
    return NULL;
}

START_TEST(profiles_and_providers)
{
    pp_capture_providers cp = { 0 };
    pp_error err = PP_ERROR_INIT;
    const pp_ipc_provider *p;

    ck_assert_int_eq(pp_capture_add_profiles(&cp, "gc-verbose", &err), PP_OK);
    ck_assert_int_eq(pp_capture_providers_finish(&cp, &err), PP_OK);
    ck_assert_uint_eq(cp.n, 1);
    ck_assert_str_eq(cp.v[0].name, "Microsoft-Windows-DotNETRuntime");
    ck_assert_uint_eq(cp.v[0].keywords, 0x8003);
    ck_assert_uint_eq(cp.v[0].level, 5);
    ck_assert_uint_eq(cp.rundown_keyword, PP_IPC_DEFAULT_RUNDOWN_KEYWORD);
    pp_capture_providers_free(&cp);

    /* Profiles union: same provider, keywords OR'ed, highest level. */
    ck_assert_int_eq(pp_capture_add_profiles(&cp, "dotnet-common, gc-verbose", &err), PP_OK);
    p = prov(&cp, "Microsoft-Windows-DotNETRuntime");
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->keywords, UINT64_C(0x100003801D) | 0x8003);
    ck_assert_uint_eq(p->level, 5);
    pp_capture_providers_free(&cp);

    /* --providers wins over a profile's entry for the same provider. */
    ck_assert_int_eq(pp_capture_add_providers(&cp,
                                              "Microsoft-Windows-DotNETRuntime:0x1:Informational,"
                                              "My-Source:0x2:5:a=\"x,y\";b=1",
                                              &err),
                     PP_OK);
    ck_assert_int_eq(pp_capture_add_profiles(&cp, "gc-verbose", &err), PP_OK);
    ck_assert_uint_eq(cp.n, 2);
    p = prov(&cp, "Microsoft-Windows-DotNETRuntime");
    ck_assert_uint_eq(p->keywords, 0x1);
    ck_assert_uint_eq(p->level, 4);
    p = prov(&cp, "My-Source");
    ck_assert_str_eq(p->arguments, "a=\"x,y\";b=1");
    pp_capture_providers_free(&cp);

    /* gc-collect asks for rundown keyword 0x1 (CollectTracing4). */
    ck_assert_int_eq(pp_capture_add_profiles(&cp, "gc-collect", &err), PP_OK);
    ck_assert_int_eq(pp_capture_providers_finish(&cp, &err), PP_OK);
    ck_assert_uint_eq(cp.rundown_keyword, 0x1);
    ck_assert_ptr_nonnull(prov(&cp, "Microsoft-Windows-DotNETRuntimePrivate"));
    pp_capture_providers_free(&cp);

    /* Nothing given: dotnet-trace's default pair. */
    ck_assert_int_eq(pp_capture_providers_finish(&cp, &err), PP_OK);
    ck_assert_uint_eq(cp.n, 2);
    ck_assert_uint_eq(prov(&cp, "Microsoft-DotNETCore-SampleProfiler")->keywords,
                      UINT64_C(0xF00000000000));
    pp_capture_providers_free(&cp);

    /* Counters: EventCounters with the interval, and the meter listener. */
    ck_assert_int_eq(
        pp_capture_add_counters(&cp, "System.Runtime,Microsoft.AspNetCore.Hosting", 2, &err),
        PP_OK);
    ck_assert_str_eq(prov(&cp, "System.Runtime")->arguments, "EventCounterIntervalSec=2");
    p = prov(&cp, "System.Diagnostics.Metrics");
    ck_assert_uint_eq(p->keywords, 0x2);
    ck_assert_ptr_nonnull(
        strstr(p->arguments, "Metrics=System.Runtime,Microsoft.AspNetCore.Hosting;"));
    ck_assert_ptr_nonnull(strstr(p->arguments, "RefreshInterval=2;"));
    pp_capture_providers_free(&cp);

    ck_assert_int_eq(pp_capture_add_profiles(&cp, "cpu-samplin", &err), PP_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown profile 'cpu-samplin'"));
    ck_assert_int_eq(pp_capture_add_providers(&cp, "X:0xZZ", &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "not hexadecimal"));
    ck_assert_int_eq(pp_capture_add_providers(&cp, "X:1:9", &err), PP_EINVAL);
    pp_capture_providers_free(&cp);
}
END_TEST

START_TEST(capture_specs)
{
    pp_capture_spec spec;
    pp_error err = PP_ERROR_INIT;
    char *text;

    ck_assert(pp_capture_spec_is("capture:pid=1"));
    ck_assert(!pp_capture_spec_is("trace.nettrace"));
    ck_assert_int_eq(pp_capture_spec_parse("capture:pid=42;profile=gc-verbose;duration=2m;"
                                           "providers=A:0x1:4:k=v\\;k2=v2;keep=x.nettrace;"
                                           "counters=true;follow_child=yes",
                                           &spec, &text, &err),
                     PP_OK);
    ck_assert_uint_eq(spec.pid, 42);
    ck_assert_str_eq(spec.profile, "gc-verbose");
    ck_assert_str_eq(spec.providers, "A:0x1:4:k=v;k2=v2");
    ck_assert(spec.duration_s == 120);
    ck_assert_str_eq(spec.output, "x.nettrace");
    ck_assert(spec.counters && spec.counter_list == NULL && spec.follow_child);
    free(text);
    ck_assert_int_eq(pp_capture_spec_parse("capture:pid=1;color=red", &spec, &text, &err),
                     PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "unknown key 'color'"));
    ck_assert_int_eq(pp_capture_spec_parse("capture:pid=1;process=a", &spec, &text, &err),
                     PP_EINVAL);
    ck_assert_int_eq(pp_capture_spec_parse("capture:pid=1;duration=soon", &spec, &text, &err),
                     PP_EINVAL);
}
END_TEST

/* ---- a scripted server ------------------------------------------------- */

typedef struct server {
    int lfd;
    int script;          /* 0: ProcessInfo2 refused then ProcessInfo; 1: session */
    uint8_t req[4][512]; /* requests as received */
    size_t req_len[4];
} server;

static void
reply(int fd, uint8_t set, uint8_t id, const pp_ipc_buf *payload)
{
    pp_ipc_send(fd, set, id, payload ? payload->data : NULL, payload ? payload->len : 0, NULL);
}

static void *
serve(void *arg)
{
    server *sv = arg;
    int n = 2, stream_fd = -1;
    for (int i = 0; i < n; i++) {
        int fd = accept(sv->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        sv->req_len[i] = fake_runtime_read(fd, sv->req[i], sizeof sv->req[i]);
        pp_ipc_buf b = { 0 };
        if (sv->script == 0 && i == 0) {
            pp_ipc_buf_u32(&b, PP_IPC_HR_UNKNOWN_COMMAND);
            reply(fd, 0xFF, 0xFF, &b);
        } else if (sv->script == 0) {
            uint8_t cookie[16] = { 1, 2, 3 };
            pp_ipc_buf_u64(&b, 4242);
            for (int k = 0; k < 16; k++)
                pp_ipc_buf_u8(&b, cookie[k]);
            pp_ipc_buf_string(&b, "/usr/bin/dotnet App.dll --x");
            pp_ipc_buf_string(&b, "Linux");
            pp_ipc_buf_string(&b, "x64");
            reply(fd, 0xFF, 0x00, &b);
        } else if (i == 0) {
            pp_ipc_buf_u64(&b, 77);
            reply(fd, 0xFF, 0x00, &b);
            /* the "stream"; the connection stays open while StopTracing comes */
            ssize_t k = write(fd, "Nettrace", 8);
            (void)k;
            stream_fd = fd;
            pp_ipc_buf_free(&b);
            continue;
        } else {
            pp_ipc_buf_u64(&b, 77);
            reply(fd, 0xFF, 0x00, &b);
        }
        pp_ipc_buf_free(&b);
        close(fd);
    }
    if (stream_fd >= 0)
        close(stream_fd);
    return NULL;
}

static void
start_server(server *sv, char *path, size_t size, pthread_t *t)
{
    sv->lfd = fake_runtime_listen(path, size, "ipc", sv->script);
    ck_assert_int_ge(sv->lfd, 0);
    pthread_create(t, NULL, serve, sv);
}

START_TEST(process_info_fallback)
{
    server sv = { .script = 0 };
    char path[128];
    pthread_t t;
    pp_ipc_endpoint ep;
    pp_ipc_process_info info;
    pp_error err = PP_ERROR_INIT;

    start_server(&sv, path, sizeof path, &t);
    ck_assert_int_eq(pp_ipc_endpoint_connect(&ep, path, &err), PP_OK);
    ck_assert_int_eq(pp_ipc_process_info_get(&ep, 5000, &info, &err), PP_OK);
    pthread_join(t, NULL);
    /* First ProcessInfo2 (0x04 0x04), refused, then ProcessInfo (0x04 0x00). */
    ck_assert_uint_eq(sv.req_len[0], 20);
    ck_assert_mem_eq(sv.req[0], "DOTNET_IPC_V1\0\x14\0\x04\x04\0\0", 20);
    ck_assert_mem_eq(sv.req[1], "DOTNET_IPC_V1\0\x14\0\x04\x00\0\0", 20);
    ck_assert_uint_eq(info.pid, 4242);
    ck_assert_uint_eq(info.cookie[2], 3);
    ck_assert_str_eq(info.command_line, "/usr/bin/dotnet App.dll --x");
    ck_assert_str_eq(info.os, "Linux");
    ck_assert_str_eq(info.arch, "x64");
    ck_assert_ptr_null(info.clr_version);
    pp_ipc_process_info_free(&info);
    close(sv.lfd);
    unlink(path);
}
END_TEST

START_TEST(session_start_stop)
{
    server sv = { .script = 1 };
    char path[128], got[8];
    pthread_t t;
    pp_ipc_endpoint ep;
    pp_ipc_session *s;
    pp_error err = PP_ERROR_INIT;
    pp_ipc_provider p = { "Microsoft-Windows-DotNETRuntime", 0x8003, 5, NULL };
    pp_ipc_session_config cfg = { .rundown_keyword = PP_IPC_DEFAULT_RUNDOWN_KEYWORD,
                                  .request_stackwalk = 1,
                                  .nproviders = 1,
                                  .providers = &p };

    start_server(&sv, path, sizeof path, &t);
    ck_assert_int_eq(pp_ipc_endpoint_connect(&ep, path, &err), PP_OK);
    ck_assert_int_eq(pp_ipc_session_start(&ep, &cfg, 5000, &s, &err), PP_OK);
    ck_assert_uint_eq(pp_ipc_session_id(s), 77);
    ck_assert_int_eq((int)read(pp_ipc_session_fd(s), got, 8), 8);
    ck_assert_mem_eq(got, "Nettrace", 8);
    ck_assert_int_eq(pp_ipc_session_stop(s, 5000, &err), PP_OK);
    ck_assert_int_eq(pp_ipc_session_stop(s, 5000, &err), PP_OK); /* once only */
    pp_ipc_session_close(s);
    pthread_join(t, NULL);

    /* CollectTracing2: uint bufMB 256, uint format 1, bool rundown, 1 provider
     * {u64 keywords, u32 level, string name, string args (0)}. */
    const uint8_t *q = sv.req[0];
    size_t name_units = strlen(p.name) + 1;
    size_t want = 20 + 4 + 4 + 1 + 4 + 8 + 4 + 4 + 2 * name_units + 4;
    ck_assert_uint_eq(sv.req_len[0], want);
    ck_assert_uint_eq(q[14] | q[15] << 8, want);
    ck_assert_uint_eq(q[16], 0x02);
    ck_assert_uint_eq(q[17], 0x03);
    ck_assert_uint_eq(q[20] | q[21] << 8, 256);
    ck_assert_uint_eq(q[24], 1);
    ck_assert_uint_eq(q[28], 1); /* rundown */
    ck_assert_uint_eq(q[29], 1); /* one provider */
    ck_assert_uint_eq(q[33] | q[34] << 8, 0x8003);
    ck_assert_uint_eq(q[41], 5);
    ck_assert_uint_eq(q[45], name_units);
    ck_assert_uint_eq(q[49], 'M');
    /* StopTracing 0x02 0x01 with the session id. */
    ck_assert_uint_eq(sv.req_len[1], 28);
    ck_assert_uint_eq(sv.req[1][16], 0x02);
    ck_assert_uint_eq(sv.req[1][17], 0x01);
    ck_assert_uint_eq(sv.req[1][20], 77);
    close(sv.lfd);
    unlink(path);
}
END_TEST

START_TEST(missing_process)
{
    pp_ipc_endpoint ep;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_ipc_endpoint_pid(&ep, 999999999, &err), PP_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(err.message, "no .NET diagnostics socket"));
}
END_TEST

/* ---- the heap graph's reading of the walk's events --------------------- */

typedef struct evbuf {
    uint8_t b[256];
    uint32_t n;
} evbuf;

static void
put(evbuf *e, uint64_t v, int w)
{
    for (int k = 0; k < w; k++)
        e->b[e->n++] = (uint8_t)(v >> (8 * k));
}

/* Feed one runtime event (pointer size 8) written by thread tid at ts. */
static int
feed(pp_heap_graph *g, uint32_t id, const evbuf *e, uint64_t tid, uint64_t ts, pp_error *err)
{
    pp_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.struct_size = sizeof ev;
    ev.provider_known = PP_PROVIDER_RUNTIME;
    ev.event_id = id;
    ev.version = 1;
    ev.pointer_size = 8;
    ev.name = "";
    ev.thread_id = ev.capture_thread_id = tid;
    ev.timestamp = ts;
    ev.payload = e->b;
    ev.payload_size = e->n;
    return pp_heap_graph_event(g, &ev, err);
}

static evbuf
gc_start(uint32_t count)
{
    evbuf e = { .n = 0 };
    put(&e, count, 4);
    put(&e, 2, 4);
    put(&e, 1, 4);
    put(&e, 0, 4); /* gen2 induced blocking */
    put(&e, 0, 2);
    put(&e, 0, 8);
    return e;
}

static evbuf
gc_end(uint32_t count)
{
    evbuf e = { .n = 0 };
    put(&e, count, 4);
    put(&e, 2, 4);
    put(&e, 0, 2);
    return e;
}

static evbuf
bulk_node(uint32_t index, uint64_t addr, uint64_t nedges)
{
    evbuf e = { .n = 0 };
    put(&e, index, 4);
    put(&e, 1, 4);
    put(&e, 0, 2);
    put(&e, addr, 8);
    put(&e, 24, 8);
    put(&e, 0x100, 8);
    put(&e, nedges, 8);
    return e;
}

static evbuf
bulk_edge(uint32_t index, uint64_t target)
{
    evbuf e = { .n = 0 };
    put(&e, index, 4);
    put(&e, 1, 4);
    put(&e, 0, 2);
    put(&e, target, 8);
    put(&e, 0, 4);
    return e;
}

/* Server GC as the runtime writes it (measured on .NET 10, 4 GC heaps):
 * the dump's GCStart is logged by one GC thread, the walk and GCEnd by
 * another, and EventPipe writes each thread's buffers in turn, so the
 * walk's first events come before the GCStart in the stream. All of the
 * walk is taken, its GC is the one that started before it, and a GCStart
 * read later that started after the walk is not the dump's. */
START_TEST(heap_walk_before_its_gcstart)
{
    pp_heap_graph *g;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_heap_graph_new(&g, &err), PP_OK);
    evbuf e;
    e = bulk_node(0, 0x1000, 1);
    ck_assert_int_eq(feed(g, 18, &e, 11, 200, &err), PP_OK);
    e = bulk_node(1, 0x2000, 0);
    ck_assert_int_eq(feed(g, 18, &e, 11, 210, &err), PP_OK);
    e = gc_start(8); /* another GC, read first, started later */
    ck_assert_int_eq(feed(g, 1, &e, 12, 400, &err), PP_OK);
    e = gc_start(7); /* the dump's, read after the walk's first events */
    ck_assert_int_eq(feed(g, 1, &e, 12, 100, &err), PP_OK);
    e = gc_end(6);
    ck_assert_int_eq(feed(g, 2, &e, 12, 90, &err), PP_OK);
    ck_assert(!pp_heap_graph_done(g));
    e = bulk_edge(0, 0x2000);
    ck_assert_int_eq(feed(g, 19, &e, 11, 220, &err), PP_OK);
    ck_assert(!pp_heap_graph_done(g));
    e = gc_end(7);
    ck_assert_int_eq(feed(g, 2, &e, 11, 300, &err), PP_OK);
    ck_assert(pp_heap_graph_done(g));
    pp_heap_graph_stats st;
    pp_heap_graph_stats_get(g, &st);
    ck_assert_uint_eq(st.nodes, 2);
    ck_assert_uint_eq(st.edges, 1);
    ck_assert_uint_eq(st.gc_number, 7);
    /* A second walk after the end (another session's dump) is not taken. */
    e = bulk_node(0, 0x3000, 0);
    ck_assert_int_eq(feed(g, 18, &e, 11, 500, &err), PP_OK);
    const pp_heap_snapshot *snap;
    ck_assert_int_eq(pp_heap_graph_finish(g, &snap, &err), PP_OK);
    pp_heap_graph_stats_get(g, &st);
    ck_assert_uint_eq(st.nodes, 2);
    pp_heap_graph_free(g);
}
END_TEST

/* Enough addresses that the address map (keyed on the node addresses
 * themselves, heap_map.h) doubles four times mid-walk: objects referring
 * to ones defined before and after them, to themselves, and every 97th
 * to an address never defined (a node of its own, once however often it
 * is named). Every object's edge reaches the address it named. */
START_TEST(heap_walk_many_addresses)
{
    enum { N = 20000 };
    pp_heap_graph *g;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_heap_graph_new(&g, &err), PP_OK);
    evbuf e = gc_start(3);
    ck_assert_int_eq(feed(g, 1, &e, 11, 100, &err), PP_OK);
    uint64_t *want = malloc(N * sizeof *want);
    for (uint32_t i = 0; i < N; i++) {
        uint64_t addr = 0x7f0000000000u + 24 * (uint64_t)i;
        want[i] = i % 97 == 0 ? 0x100000u + 8 * (uint64_t)(i % 5) :
                                0x7f0000000000u + 24 * (uint64_t)((i * 7919u + 13) % N);
        e = bulk_node(i, addr, 1);
        ck_assert_int_eq(feed(g, 18, &e, 11, 200 + 2 * (uint64_t)i, &err), PP_OK);
        e = bulk_edge(i, want[i]);
        ck_assert_int_eq(feed(g, 19, &e, 11, 201 + 2 * (uint64_t)i, &err), PP_OK);
    }
    e = gc_end(3);
    ck_assert_int_eq(feed(g, 2, &e, 11, 200 + 2 * (uint64_t)N, &err), PP_OK);
    ck_assert(pp_heap_graph_done(g));
    const pp_heap_snapshot *snap;
    ck_assert_msg(pp_heap_graph_finish(g, &snap, &err) == PP_OK, "%s", err.message);
    uint32_t objects = 0, undefined = 0;
    for (uint32_t v = 0; v < snap->node_count; v++) {
        uint64_t a = snap->node_address[v];
        if (a >= 0x7f0000000000u) {
            uint64_t i = (a - 0x7f0000000000u) / 24;
            ck_assert_uint_lt(i, N);
            ck_assert_uint_eq(snap->edge_start[v + 1] - snap->edge_start[v], 1);
            ck_assert_uint_eq(snap->node_address[snap->edges[snap->edge_start[v]]], want[i]);
            objects++;
        } else if (a >= 0x100000u) {
            ck_assert_uint_eq(snap->edge_start[v + 1], snap->edge_start[v]);
            undefined++;
        }
    }
    ck_assert_uint_eq(objects, N);
    ck_assert_uint_eq(undefined, 5);
    free(want);
    pp_heap_graph_free(g);
}
END_TEST

/* A gap in the walk's Index is a loss, named as such. */
START_TEST(heap_walk_gap_is_a_loss)
{
    pp_heap_graph *g;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_heap_graph_new(&g, &err), PP_OK);
    evbuf e = gc_start(3);
    ck_assert_int_eq(feed(g, 1, &e, 1, 10, &err), PP_OK);
    e = bulk_node(0, 0x1000, 0);
    ck_assert_int_eq(feed(g, 18, &e, 1, 20, &err), PP_OK);
    e = bulk_node(2, 0x2000, 0);
    ck_assert_int_eq(feed(g, 18, &e, 1, 30, &err), PP_EFORMAT);
    ck_assert_ptr_nonnull(strstr(err.message, "GCBulkNode event 2 arrived where 1 was due"));
    pp_heap_graph_free(g);
}
END_TEST

/* ---- the stream's spool ------------------------------------------------- */

#define SPOOL_BYTES (6u << 20)

static void *
spool_writer(void *arg)
{
    int fd = *(int *)arg;
    uint8_t buf[65536];
    for (size_t at = 0; at < SPOOL_BYTES; at += sizeof buf) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)((at + i) * 7 + ((at + i) >> 16));
        for (size_t off = 0; off < sizeof buf;) {
            ssize_t w = send(fd, buf + off, sizeof buf - off, MSG_NOSIGNAL);
            if (w <= 0)
                return NULL; /* the spool stopped reading */
            off += (size_t)w;
        }
    }
    shutdown(fd, SHUT_WR);
    return NULL;
}

/* A reader that starts late gets every byte in order and then the end;
 * the backlog was held by the spool (the writer never waited for it). */
START_TEST(spool_hands_on_every_byte)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pp_spool *sp;
    int rfd;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_spool_start(sv[1], &sp, &rfd, &err), PP_OK);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, spool_writer, &sv[0]), 0);
    pthread_join(t, NULL); /* all written before a byte is read */
    uint8_t buf[50000];
    size_t total = 0;
    int same = 1;
    for (;;) {
        ssize_t k = read(rfd, buf, sizeof buf);
        ck_assert_int_ge(k, 0);
        if (k == 0)
            break;
        for (ssize_t i = 0; i < k; i++)
            same &= buf[i] == (uint8_t)((total + (size_t)i) * 7 + ((total + (size_t)i) >> 16));
        total += (size_t)k;
    }
    ck_assert(same);
    ck_assert_uint_eq(total, SPOOL_BYTES);
    close(rfd);
    uint64_t peak = 0;
    pp_spool_finish(sp, &peak);
    ck_assert_uint_gt(peak, SPOOL_BYTES / 2);
    close(sv[0]);
    close(sv[1]);
}
END_TEST

/* A reader that leaves early ends the pump; nothing waits forever. */
START_TEST(spool_reader_leaves)
{
    int sv[2];
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pp_spool *sp;
    int rfd;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_spool_start(sv[1], &sp, &rfd, &err), PP_OK);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, spool_writer, &sv[0]), 0);
    uint8_t buf[4096];
    ck_assert_int_gt(read(rfd, buf, sizeof buf), 0);
    close(rfd);
    pp_spool_finish(sp, NULL);
    close(sv[1]); /* the writer's sends fail now, if it still sends */
    pthread_join(t, NULL);
    close(sv[0]);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("ipc");
    TCase *tc = tcase_create("client");
    tcase_add_test(tc, strings_round_trip);
    tcase_add_test(tc, profiles_and_providers);
    tcase_add_test(tc, capture_specs);
    tcase_add_test(tc, process_info_fallback);
    tcase_add_test(tc, session_start_stop);
    tcase_add_test(tc, missing_process);
    tcase_add_test(tc, heap_walk_before_its_gcstart);
    tcase_add_test(tc, heap_walk_gap_is_a_loss);
    tcase_add_test(tc, heap_walk_many_addresses);
    tcase_add_test(tc, spool_hands_on_every_byte);
    tcase_add_test(tc, spool_reader_leaves);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
