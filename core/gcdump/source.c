/* The gcdump input kind for the pipeline engine: one file, one record (the
 * whole heap snapshot). The file is mapped and decoded, its pages given
 * back to the page cache behind the decode, and the mapping kept (for the
 * node addresses) until close; meanwhile a thread reads it again for
 * on_bytes (hash_thread below). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/filemap.h"
#include "gcdump/kind.h"
#include "input/source.h"

/* The file's hash runs on a thread of its own while the graph is decoded
 * (on the bench heap 35-50 ms of a 0.15 s decode), reading through its own
 * descriptor: no page of the mapping is touched twice, and a file cut
 * short is a short read, not a SIGBUS. next() joins it before it hands
 * out the record, so on_bytes has seen every byte, in order, once the
 * input ends (source.h) and is never called beside the engine. */
typedef struct hash_thread {
    pthread_t tid;
    int running;
    _Atomic int stop; /* close() before next() joined it */
    int fd;
    uint64_t at, size;
    const pp_source_hooks *hooks;
    uint8_t *buf; /* [READ_CHUNK] */
} hash_thread;

typedef struct gcdump_source {
    char *path;
    pp_gcdump_map map;
    pp_gcdump *dump;
    const pp_source_hooks *hooks;
    hash_thread hash;
    int state; /* 0 not yet decoded, 1 delivered, 2 ended */
} gcdump_source;

#define READ_CHUNK (1u << 18) /* stays in L2 */

static void
hash_range(hash_thread *h)
{
    while (h->at < h->size && !atomic_load_explicit(&h->stop, memory_order_relaxed)) {
        size_t want = h->size - h->at < READ_CHUNK ? (size_t)(h->size - h->at) : READ_CHUNK;
        ssize_t got = pread(h->fd, h->buf, want, (off_t)h->at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return; /* the file shrank (or failed): h->at < h->size */
        if (h->hooks && h->hooks->on_bytes)
            h->hooks->on_bytes(h->hooks->user, h->buf, (size_t)got);
        h->at += (uint64_t)got;
    }
}

static void *
hash_main(void *p)
{
    hash_range(p);
    return NULL;
}

/* Waits for the hash (or runs it here if no thread could start); PP_EIO
 * with err filled if the file ended before the bytes it had at open. */
static int
hash_join(gcdump_source *s, pp_error *err)
{
    hash_thread *h = &s->hash;
    if (h->running)
        pthread_join(h->tid, NULL);
    else if (h->fd >= 0)
        hash_range(h);
    h->running = 0;
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    free(h->buf);
    h->buf = NULL;
    if (h->at != h->size)
        return pp_error_set_at(err, PP_EIO, (int64_t)h->at,
                               "%s: offset %llu: the file ended early while it was read "
                               "(%llu bytes at open); is something still writing it?",
                               s->path, (unsigned long long)h->at, (unsigned long long)h->size),
               PP_EIO;
    return PP_OK;
}

static void
source_close(void *p)
{
    gcdump_source *s = p;
    if (!s)
        return;
    if (s->hash.running || s->hash.fd >= 0) {
        /* Not joined by next(): stop reading at once. */
        atomic_store_explicit(&s->hash.stop, 1, memory_order_relaxed);
        hash_join(s, NULL);
    }
    pp_gcdump_free(s->dump);
    pp_gcdump_map_close(&s->map);
    free(s->path);
    free(s);
}

typedef struct magic_job {
    const uint8_t *data;
    size_t size;
    int magic_ok; /* out: the FastSerialization header is there */
} magic_job;

static int
magic_run(void *p)
{
    magic_job *j = p;
    static const char magic[] = "\x14\0\0\0!FastSerialization.1";
    j->magic_ok = j->size >= 24 && memcmp(j->data, magic, 24) == 0;
    return PP_OK;
}

static int
source_open(const char *path, const pp_source_hooks *hooks, void **out, pp_error *err)
{
    *out = NULL;
    gcdump_source *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path), PP_ENOMEM;
    }
    s->hash.fd = -1;
    atomic_init(&s->hash.stop, 0);
    int rc = pp_gcdump_map_open(path, &s->map, err);
    if (rc != PP_OK) {
        source_close(s);
        return rc;
    }
    s->hooks = hooks;
    magic_job job = { s->map.data, s->map.size, 0 };
    if ((rc = pp_gcdump_map_run(&s->map, path, magic_run, &job, err)) != PP_OK) {
        source_close(s);
        return rc;
    }
    if (!job.magic_ok) {
        source_close(s);
        return pp_error_set_at(
                   err, PP_EFORMAT, 0,
                   "%s: offset 0: not a .gcdump: expected the \"!FastSerialization.1\" header",
                   path),
               PP_EFORMAT;
    }
    /* The graph needs the whole file (forward references resolve from its
     * end): the hash sees every byte of what was mapped. */
    hash_thread *h = &s->hash;
    h->hooks = hooks;
    h->size = s->map.size;
    h->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    h->buf = malloc(READ_CHUNK);
    if (h->fd < 0 || !h->buf) {
        rc = h->fd < 0 ? PP_EIO : PP_ENOMEM;
        pp_error_set(err, rc, "%s: %s", path, h->fd < 0 ? strerror(errno) : "out of memory");
        source_close(s);
        return rc;
    }
    h->running = pthread_create(&h->tid, NULL, hash_main, h) == 0;
    *out = s;
    return PP_OK;
}

static int
source_next(void *p, pp_record *rec, pp_error *err)
{
    gcdump_source *s = p;
    if (s->state == 0) {
        /* Lean: the 32-bit arrays only; the node addresses stay in the
         * mapping (kept until close, its pages given back to the page
         * cache now) for a stage of an older ABI minor (legacy.c). */
        int rc = pp_gcdump_read_mapped_lean(&s->map, s->path, &s->dump, err);
        /* A decode error is the one to report; the file may have changed. */
        int hrc = hash_join(s, rc == PP_OK ? err : NULL);
        if (rc == PP_OK)
            rc = hrc;
        if (rc != PP_OK)
            pp_gcdump_map_close(&s->map);
        else
            pp_gcdump_map_release(&s->map, 0, s->map.size);
        if (rc != PP_OK) {
            s->state = 2;
            return rc;
        }
        /* The writer sums node sizes into TotalSize; a mismatch means the
         * graph is not what was written, though it still reads. */
        pp_gcdump_info info = { .struct_size = sizeof(info) };
        pp_gcdump_get_info(s->dump, &info);
        if (info.total_size != (int64_t)info.sum_node_sizes && s->hooks && s->hooks->on_warning) {
            pp_error w = PP_ERROR_INIT;
            pp_error_set(
                &w, PP_EFORMAT, "%s: graph TotalSize %lld differs from the sum of node sizes %llu",
                s->path, (long long)info.total_size, (unsigned long long)info.sum_node_sizes);
            s->hooks->on_warning(s->hooks->user, &w);
        }
        /* Damage travels with the data: every stage reading the dump is
         * partial, gcdump-diff's too (gcdump says what it costs). */
        if (info.dangling_edges && s->hooks && s->hooks->on_warning) {
            pp_error w = PP_ERROR_INIT;
            pp_error_set(&w, PP_EFORMAT,
                         "%s: %llu references held by %u objects point past the %u-node table "
                         "(a dump cut at a node limit?); they were dropped",
                         s->path, (unsigned long long)info.dangling_edges,
                         (unsigned)info.dangling_nodes,
                         (unsigned)pp_gcdump_snapshot(s->dump)->node_count);
            s->hooks->on_warning(s->hooks->user, &w);
        }
        memset(rec, 0, sizeof(*rec));
        rec->struct_size = sizeof(*rec);
        rec->kind = PP_KIND_GCDUMP;
        rec->u.heap = pp_gcdump_snapshot(s->dump);
        s->state = 1;
        return 1;
    }
    s->state = 2;
    return 0;
}

static int
source_describe(void *p, json_t *into)
{
    gcdump_source *s = p;
    if (!s->dump)
        return PP_OK;
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(s->dump, &info);
    const pp_heap_snapshot *snap = pp_gcdump_snapshot(s->dump);
    json_t *o = json_pack("{s:i, s:s, s:i, s:I, s:I, s:I, s:I, s:b}", "format_version",
                          (int)info.format_version, "creation_tool", info.creation_tool,
                          "pointer_size", (int)info.pointer_size, "nodes",
                          (json_int_t)snap->node_count, "types", (json_int_t)snap->type_count,
                          "edges", (json_int_t)snap->edge_count, "total_size",
                          (json_int_t)info.total_size, "sampled", snap->sampled ? 1 : 0);
    if (!o)
        return PP_ENOMEM;
    if (info.process_name[0])
        json_object_set_new(o, "process_name", json_string(info.process_name));
    if (info.process_id)
        json_object_set_new(o, "process_id", json_integer(info.process_id));
    if (info.dangling_edges)
        json_object_set_new(o, "dropped_references", json_integer((json_int_t)info.dangling_edges));
    if (snap->sampled) {
        json_object_set_new(o, "average_count_multiplier",
                            json_real(info.average_count_multiplier));
        json_object_set_new(o, "average_size_multiplier", json_real(info.average_size_multiplier));
    }
    return json_object_set_new(into, PP_GCDUMP_KIND, o) == 0 ? PP_OK : PP_ENOMEM;
}

const pp_source_ops pp_gcdump_source_ops = {
    .kind = PP_GCDUMP_KIND,
    .kind_bit = PP_KIND_GCDUMP,
    .open = source_open,
    .next = source_next,
    .describe = source_describe,
    .close = source_close,
};
