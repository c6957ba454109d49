/* The gcdump input kind for the pipeline engine: one file, one record (the
 * whole heap snapshot). The file is mapped, handed to on_bytes once, in
 * order; its pages are given back to the page cache as they are hashed
 * and decoded, and the mapping is kept (for the node addresses) until
 * close. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/filemap.h"
#include "source.h"

typedef struct gcdump_source {
    char *path;
    pp_gcdump_map map;
    pp_gcdump *dump;
    const pp_source_hooks *hooks;
    int state;                   /* 0 not yet decoded, 1 delivered, 2 ended */
} gcdump_source;

#define READ_CHUNK (1u << 20)

static void source_close(void *p)
{
    gcdump_source *s = p;
    if (!s)
        return;
    pp_gcdump_free(s->dump);
    pp_gcdump_map_close(&s->map);
    free(s->path);
    free(s);
}

typedef struct hash_job {
    const pp_source_hooks *hooks;
    const pp_gcdump_map *map;
    const uint8_t *data;
    size_t size;
    int magic_ok;                /* out: the FastSerialization header is there */
} hash_job;

static int hash_run(void *p)
{
    hash_job *j = p;
    static const char magic[] = "\x14\0\0\0!FastSerialization.1";
    j->magic_ok = j->size >= 24 && memcmp(j->data, magic, 24) == 0;
    for (size_t at = 0; at < j->size && j->hooks && j->hooks->on_bytes; at += READ_CHUNK) {
        size_t len = j->size - at < READ_CHUNK ? j->size - at : READ_CHUNK;
        j->hooks->on_bytes(j->hooks->user, j->data + at, len);
        /* Hashed pages go back to the page cache: the decode faults them
         * in again as it goes, so the file is never resident whole. */
        pp_gcdump_map_release(j->map, at, at + len);
    }
    return PP_OK;
}

static int source_open(const char *path, const pp_source_hooks *hooks, void **out,
                       pp_error *err)
{
    *out = NULL;
    gcdump_source *s = calloc(1, sizeof(*s));
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path), PP_ENOMEM;
    }
    int rc = pp_gcdump_map_open(path, &s->map, err);
    if (rc != PP_OK) {
        source_close(s);
        return rc;
    }
    /* The graph needs the whole file (forward references resolve from its
     * end): the hash sees every byte now, in order, under the map guard. */
    s->hooks = hooks;
    hash_job job = { hooks, &s->map, s->map.data, s->map.size, 0 };
    if ((rc = pp_gcdump_map_run(&s->map, path, hash_run, &job, err)) != PP_OK) {
        source_close(s);
        return rc;
    }
    if (!job.magic_ok) {
        source_close(s);
        return pp_error_set_at(err, PP_EFORMAT, 0,
                               "%s: offset 0: not a .gcdump: expected the \"!FastSerialization.1\" header",
                               path), PP_EFORMAT;
    }
    *out = s;
    return PP_OK;
}

static int source_next(void *p, pp_record *rec, pp_error *err)
{
    gcdump_source *s = p;
    if (s->state == 0) {
        /* Lean: the 32-bit arrays only; the node addresses stay in the
         * mapping (kept until close, its pages given back to the page
         * cache now) for a stage of an older ABI minor (legacy.c). */
        int rc = pp_gcdump_read_mapped_lean(&s->map, s->path, &s->dump, err);
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
            pp_error_set(&w, PP_EFORMAT,
                         "%s: graph TotalSize %lld differs from the sum of node sizes %llu",
                         s->path, (long long)info.total_size,
                         (unsigned long long)info.sum_node_sizes);
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

static int source_describe(void *p, json_t *into)
{
    gcdump_source *s = p;
    if (!s->dump)
        return PP_OK;
    pp_gcdump_info info = { .struct_size = sizeof(info) };
    pp_gcdump_get_info(s->dump, &info);
    const pp_heap_snapshot *snap = pp_gcdump_snapshot(s->dump);
    json_t *o = json_pack("{s:i, s:s, s:i, s:I, s:I, s:I, s:I, s:b}",
                          "format_version", (int)info.format_version,
                          "creation_tool", info.creation_tool,
                          "pointer_size", (int)info.pointer_size,
                          "nodes", (json_int_t)snap->node_count,
                          "types", (json_int_t)snap->type_count,
                          "edges", (json_int_t)snap->edge_count,
                          "total_size", (json_int_t)info.total_size,
                          "sampled", snap->sampled ? 1 : 0);
    if (!o)
        return PP_ENOMEM;
    if (info.process_name[0])
        json_object_set_new(o, "process_name", json_string(info.process_name));
    if (info.process_id)
        json_object_set_new(o, "process_id", json_integer(info.process_id));
    if (snap->sampled) {
        json_object_set_new(o, "average_count_multiplier",
                            json_real(info.average_count_multiplier));
        json_object_set_new(o, "average_size_multiplier",
                            json_real(info.average_size_multiplier));
    }
    return json_object_set_new(into, "gcdump", o) == 0 ? PP_OK : PP_ENOMEM;
}

const pp_source_ops pp_gcdump_source_ops = {
    .kind = "gcdump",
    .kind_bit = PP_KIND_GCDUMP,
    .open = source_open,
    .next = source_next,
    .describe = source_describe,
    .close = source_close,
};
