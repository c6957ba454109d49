/* Keeping a capture's module map: the sidecar written next to the trace
 * through the project's safe-output rules (core/outfile.c). Apart from the
 * reading side (maps.c) because only capture writes, and writing needs
 * libppcore. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"
#include "outfile.h"

int
pp_native_maps_save(const pp_native_maps *m, const char *path, pp_error *err)
{
    /* The project's output rules: atomic for a regular file, mode from the
     * umask, a symlink followed, a device or FIFO written in place. */
    pp_outfile o;
    int rc = pp_outfile_open(&o, path, 0, NULL, err);
    if (rc != PP_OK)
        return rc;
    fprintf(o.f, "%s pid=%" PRIu64 "\n# start-end perms offset build-id path\n",
            PP_NATIVE_MAPS_MAGIC, m->pid);
    for (size_t i = 0; i < m->n; i++) {
        const pp_native_mapping *x = &m->v[i];
        fprintf(o.f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %s %s\n", x->start, x->end,
                x->perms, x->offset, x->build_id[0] ? x->build_id : "-", x->path);
    }
    return pp_outfile_commit(&o, err);
}

int
pp_native_maps_keep(uint64_t pid, pp_native_maps *early, const char *trace, pp_error *err)
{
    pp_native_maps now;
    const pp_native_maps *m = early;
    if (pp_native_maps_read_proc(pid, &now, NULL) == PP_OK && now.n > 0)
        m = &now;
    else
        memset(&now, 0, sizeof now);
    int rc = PP_ENOTFOUND;
    struct stat st;
    if (stat(trace, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* A trace sent to a device or FIFO has no directory to sit beside. */
        pp_error_set(err, rc, "%s: not a regular file, so no module map is kept beside it; "
                     "native frames stay unnamed", trace);
    } else if (m->n == 0) {
        pp_error_set(err, rc, "pid %" PRIu64 ": no module map could be read (the process "
                     "exited?); native frames stay unnamed", pid);
    } else {
        size_t n = strlen(trace);
        char *mp = malloc(n + 6);
        if (!mp) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
        } else {
            memcpy(mp, trace, n);
            memcpy(mp + n, ".maps", 6);
            rc = pp_native_maps_save(m, mp, err);
            free(mp);
        }
    }
    pp_native_maps_free(&now);
    pp_native_maps_free(early);
    return rc;
}
