/* The gcdump reader under the verbs every reader shares (reader.h). The
 * dump is decoded whole at open; next hands its one graph out once. The
 * 0.1 names (read_file, read_memory, free) stay until the next soname. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/filemap.h"

/* on_bytes over the mapping, under the map guard (mapguard.c). */
typedef struct bytes_job {
    void (*on_bytes)(void *, const void *, size_t);
    void *user;
    const pp_gcdump_map *m;
} bytes_job;

static int
bytes_run(void *p)
{
    bytes_job *j = p;
    j->on_bytes(j->user, j->m->data, j->m->size);
    return PP_OK;
}

int
pp_gcdump_reader_open(const char *path, const pp_reader_hooks *hooks, pp_gcdump_reader **out,
                      pp_error *err)
{
    void (*on_bytes)(void *, const void *, size_t) = PP_READER_HOOK(hooks, on_bytes);
    pp_gcdump_map m;
    int rc;

    if (path == NULL || out == NULL) {
        pp_error_set(err, PP_EINVAL, "pp_gcdump_reader_open: bad arguments");
        return PP_EINVAL;
    }
    *out = NULL;
    if (on_bytes == NULL)
        return pp_gcdump_read_file(path, out, err);
    if ((rc = pp_gcdump_map_open(path, &m, err)) < 0)
        return rc;
    bytes_job job = { on_bytes, PP_READER_HOOK(hooks, user), &m };
    rc = pp_gcdump_map_run(&m, path, bytes_run, &job, err);
    if (rc == PP_OK)
        rc = pp_gcdump_read_mapped(&m, path, out, err);
    pp_gcdump_map_close(&m);
    return rc;
}

int
pp_gcdump_reader_open_memory(const void *data, size_t size, const char *name,
                             const pp_reader_hooks *hooks, pp_gcdump_reader **out, pp_error *err)
{
    void (*on_bytes)(void *, const void *, size_t) = PP_READER_HOOK(hooks, on_bytes);

    if (out == NULL || (data == NULL && size > 0)) {
        pp_error_set(err, PP_EINVAL, "pp_gcdump_reader_open_memory: bad arguments");
        return PP_EINVAL;
    }
    *out = NULL;
    if (on_bytes != NULL)
        on_bytes(PP_READER_HOOK(hooks, user), data, size);
    return pp_gcdump_read_memory(data, size, name, out, err);
}

int
pp_gcdump_reader_next(pp_gcdump_reader *r, const pp_heap_snapshot **snap, pp_error *err)
{
    if (r == NULL || snap == NULL) {
        pp_error_set(err, PP_EINVAL, "pp_gcdump_reader_next: bad arguments");
        return PP_EINVAL;
    }
    if (r->delivered) {
        *snap = NULL;
        return 0;
    }
    r->delivered = 1;
    *snap = pp_gcdump_snapshot(r);
    return 1;
}

void
pp_gcdump_reader_close(pp_gcdump_reader *r)
{
    pp_gcdump_free(r);
}

int
pp_gcdump_reader_get_info(const pp_gcdump_reader *r, pp_gcdump_info *out)
{
    return pp_gcdump_get_info(r, out);
}
