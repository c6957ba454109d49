/* The gcdump reader under the verbs every reader shares (reader.h). The
 * dump is decoded whole at open; next hands its one graph out once. The
 * 0.1 names (read_file, read_memory, free) stay until the next soname. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"

/* The file's bytes, for a caller that wants to see them (on_bytes). */
static int
read_whole(const char *path, uint8_t **buf, size_t *len, pp_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t size, got;
    int ioerr;

    if (f == NULL) {
        pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
        return PP_EIO;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        pp_error_set(err, PP_EIO, "%s: not a regular file", path);
        return PP_EIO;
    }
    size = (size_t)st.st_size;
    if ((*buf = malloc(size ? size : 1)) == NULL) {
        fclose(f);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory for %zu bytes", path, size);
        return PP_ENOMEM;
    }
    got = fread(*buf, 1, size, f);
    ioerr = ferror(f);
    fclose(f);
    if (got != size || ioerr) {
        free(*buf);
        *buf = NULL;
        pp_error_set(err, PP_EIO, "%s: short read", path);
        return PP_EIO;
    }
    *len = size;
    return PP_OK;
}

int
pp_gcdump_reader_open(const char *path, const pp_reader_hooks *hooks, pp_gcdump_reader **out,
                      pp_error *err)
{
    void (*on_bytes)(void *, const void *, size_t) = PP_READER_HOOK(hooks, on_bytes);
    uint8_t *buf;
    size_t len;
    int rc;

    if (path == NULL || out == NULL) {
        pp_error_set(err, PP_EINVAL, "pp_gcdump_reader_open: bad arguments");
        return PP_EINVAL;
    }
    *out = NULL;
    if (on_bytes == NULL)
        return pp_gcdump_read_file(path, out, err);
    if ((rc = read_whole(path, &buf, &len, err)) < 0)
        return rc;
    on_bytes(PP_READER_HOOK(hooks, user), buf, len);
    rc = pp_gcdump_read_memory(buf, len, path, out, err);
    free(buf);
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
