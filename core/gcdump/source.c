/* The gcdump input kind for the pipeline engine: one file, one record (the
 * whole heap snapshot). The file is read once, in order, through on_bytes. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "source.h"

typedef struct gcdump_source {
    char *path;
    uint8_t *data;
    size_t size;
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
    free(s->data);
    free(s->path);
    free(s);
}

static int source_open(const char *path, const pp_source_hooks *hooks, void **out,
                       pp_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno)), PP_EIO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return pp_error_set(err, PP_EIO, "%s: not a regular file", path), PP_EIO;
    }
    gcdump_source *s = calloc(1, sizeof(*s));
    size_t size = (size_t)st.st_size;
    if (s) {
        s->path = strdup(path);
        s->data = malloc(size ? size : 1);
    }
    if (!s || !s->path || !s->data) {
        fclose(f);
        source_close(s);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory for %zu bytes", path, size),
               PP_ENOMEM;
    }
    /* The graph needs the whole file (forward references resolve from its
     * end), so read it all now, feeding the hash as the bytes arrive. */
    size_t got = 0;
    while (got < size) {
        size_t want = size - got < READ_CHUNK ? size - got : READ_CHUNK;
        size_t n = fread(s->data + got, 1, want, f);
        if (n == 0)
            break;
        if (hooks && hooks->on_bytes)
            hooks->on_bytes(hooks->user, s->data + got, n);
        got += n;
    }
    int ioerr = ferror(f);
    fclose(f);
    if (got != size || ioerr) {
        source_close(s);
        return pp_error_set(err, PP_EIO, "%s: short read (%zu of %zu bytes)", path, got, size),
               PP_EIO;
    }
    s->size = size;
    s->hooks = hooks;
    static const char magic[] = "\x14\0\0\0!FastSerialization.1";
    if (size < 24 || memcmp(s->data, magic, 24) != 0) {
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
        int rc = pp_gcdump_read_memory(s->data, s->size, s->path, &s->dump, err);
        free(s->data);           /* the dump copied what it keeps */
        s->data = NULL;
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
