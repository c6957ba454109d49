/* Keeping a capture's module map: the sidecar written next to the trace
 * through the project's safe-output rules (core/output/outfile.c). Apart from the
 * reading side (maps.c) because only capture writes, and writing needs
 * libppcore. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"
#include "output/outfile.h"

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
        fprintf(o.f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %s %s\n", x->start, x->end, x->perms,
                x->offset, x->build_id[0] ? x->build_id : "-", x->path);
    }
    return pp_outfile_commit(&o, err);
}

int
pp_native_maps_keep(uint64_t pid, pp_native_maps *seen, const char *trace, pp_error *err)
{
    pp_native_maps now;
    if (pp_native_maps_read_proc(pid, &now, NULL) == PP_OK)
        pp_native_maps_merge(seen, &now);
    int rc = PP_ENOTFOUND;
    struct stat st;
    if (stat(trace, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* A trace sent to a device or FIFO has no directory to sit beside. */
        pp_error_set(err, rc,
                     "%s: not a regular file, so no module map is kept beside it; "
                     "native frames stay unnamed",
                     trace);
    } else if (seen->n == 0) {
        pp_error_set(err, rc,
                     "pid %" PRIu64 ": no module map could be read (the process "
                     "exited?); native frames stay unnamed",
                     pid);
    } else {
        size_t n = strlen(trace);
        char *mp = malloc(n + 6);
        if (!mp) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
        } else {
            memcpy(mp, trace, n);
            memcpy(mp + n, ".maps", 6);
            rc = pp_native_maps_save(seen, mp, err);
            free(mp);
        }
    }
    pp_native_maps_free(seen);
    return rc;
}

struct pp_native_watch {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
    uint64_t pid;
    unsigned interval_ms;
    pp_native_maps seen;
};

static void *
watch_main(void *arg)
{
    pp_native_watch *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        pthread_mutex_unlock(&w->lock);
        pp_native_maps now;
        int alive = pp_native_maps_read_proc(w->pid, &now, NULL) == PP_OK;
        pthread_mutex_lock(&w->lock);
        if (alive)
            pp_native_maps_merge(&w->seen, &now);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += w->interval_ms / 1000;
        until.tv_nsec += (long)(w->interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

pp_native_watch *
pp_native_watch_start(uint64_t pid, unsigned interval_ms)
{
    pp_native_watch *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->pid = pid;
    w->interval_ms = interval_ms ? interval_ms : 1000;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        free(w);
        return NULL;
    }
    return w;
}

void
pp_native_watch_stop(pp_native_watch *w, pp_native_maps *out)
{
    memset(out, 0, sizeof *out);
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    *out = w->seen;
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
}
