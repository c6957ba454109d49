/* The live heap-snapshot source: a gcdump input whose path is a capture
 * spec ("capture:pid=N;keep=before.gcdump;delay=10s"). Opening it takes
 * the snapshot (heapsnap.h) into the kept file, which is then read by the
 * ordinary gcdump reader, so the pipeline's result is the result of
 * re-running it on the kept file. The engine opens inputs in order, each
 * after the previous one is read: two such inputs, the second with a
 * delay, are two snapshots that far apart.
 *
 * Keys: pid, process, port, follow_child, keep, delay, timeout, buffersize
 * (the trace keys profile, providers, counters, interval, duration are
 * refused). Without keep the file is yyyyMMdd_HHmmss_PID.gcdump (with
 * -2, -3... when that name exists). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/kind.h"
#include "ipc/capture_source.h"
#include "ipc/heapsnap.h"
#include "ipc/ipc.h"
#include "input/source.h"

typedef struct snap_src {
    void *inner; /* the gcdump reader's source */
    char *text;  /* the spec's storage */
    char *kept;
    pp_heapsnap_result res;
} snap_src;

static char *
default_name(uint64_t pid)
{
    char stamp[32], *p = malloc(300);
    struct stat st;
    time_t now = time(NULL);
    struct tm tm;
    if (!p)
        return NULL;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &tm);
    snprintf(p, 300, "%s_%llu.gcdump", stamp, (unsigned long long)pid);
    for (int k = 2; lstat(p, &st) == 0 && k < 1000; k++)
        snprintf(p, 300, "%s_%llu-%d.gcdump", stamp, (unsigned long long)pid, k);
    return p;
}

static void
ss_close(void *p)
{
    snap_src *s = p;
    if (!s)
        return;
    if (s->inner)
        pp_gcdump_source_ops.close(s->inner);
    free(s->text);
    free(s->kept);
    free(s);
}

static int
refuse_trace_keys(const pp_capture_spec *spec, pp_error *err)
{
    const char *k = spec->profile        ? "profile" :
                    spec->providers      ? "providers" :
                    spec->counters       ? "counters" :
                    spec->interval_s     ? "interval" :
                    spec->duration_s > 0 ? "duration" :
                                           NULL;
    if (!k)
        return PP_OK;
    pp_error_set(err, PP_EINVAL,
                 "capture: '%s' is for nettrace captures; a gcdump capture "
                 "takes pid/process/port, keep, delay, timeout, follow_child, buffersize",
                 k);
    return PP_EINVAL;
}

static int
ss_open(const char *path, const pp_source_hooks *hooks, void **out, pp_error *err)
{
    snap_src *s = calloc(1, sizeof *s);
    pp_capture_spec spec;
    int rc;

    *out = NULL;
    if (!s) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if ((rc = pp_capture_spec_parse(path, &spec, &s->text, err)) != PP_OK ||
        (rc = refuse_trace_keys(&spec, err)) != PP_OK)
        goto fail;
    s->kept = spec.output ? strdup(spec.output) : default_name(spec.pid);
    if (!s->kept) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        rc = PP_ENOMEM;
        goto fail;
    }
    struct stat st;
    if (lstat(s->kept, &st) == 0 && !S_ISREG(st.st_mode)) {
        pp_error_set(err, PP_EINVAL,
                     "capture: keep=%s exists and is not a regular file; "
                     "refusing to replace it",
                     s->kept);
        rc = PP_EINVAL;
        goto fail;
    }
    pp_capture_delay(spec.delay_s);
    if (pp_ipc_cancel) {
        pp_error_set(err, PP_EIO, "capture: interrupted before the heap snapshot");
        rc = PP_EIO;
        goto fail;
    }
    pp_heapsnap_spec hs = { .target = spec, .timeout_s = spec.timeout_s };
    hs.target.output = s->kept;
    if ((rc = pp_heapsnap_collect(&hs, &s->res, err)) != PP_OK) {
        /* No such process is an input that cannot be read, as a missing
         * file is; a refused target stays a usage error. */
        if (rc == PP_ENOTFOUND || rc == PP_EFORMAT) {
            rc = PP_EIO;
            if (err)
                err->code = rc;
        }
        goto fail;
    }
    if ((rc = pp_gcdump_source_ops.open(s->kept, hooks, &s->inner, err)) != PP_OK) {
        s->inner = NULL;
        goto fail;
    }
    *out = s;
    return PP_OK;
fail:
    ss_close(s);
    return rc;
}

static int
ss_next(void *p, pp_record *rec, pp_error *err)
{
    snap_src *s = p;
    return pp_gcdump_source_ops.next(s->inner, rec, err);
}

static int
ss_describe(void *p, json_t *into)
{
    snap_src *s = p;
    int rc = pp_gcdump_source_ops.describe ? pp_gcdump_source_ops.describe(s->inner, into) : PP_OK;
    struct stat st;
    json_object_set_new(into, "path", json_string(s->kept));
    if (stat(s->kept, &st) == 0)
        json_object_set_new(into, "bytes", json_integer((json_int_t)st.st_size));
    json_t *c = json_pack(
        "{s:I, s:s, s:s, s:I, s:I, s:f, s:f}", "pid", (json_int_t)s->res.pid, "process",
        s->res.process, "kept", s->kept, "objects", (json_int_t)s->res.graph.nodes, "stream_bytes",
        (json_int_t)s->res.stream_bytes, "dump_s", s->res.dump_s, "elapsed_s", s->res.elapsed_s);
    if (c)
        json_object_set_new(into, "capture", c);
    return rc;
}

const pp_source_ops pp_gcdump_capture_source_ops = {
    PP_GCDUMP_KIND, PP_KIND_GCDUMP, ss_open, ss_next, ss_describe, ss_close, NULL
};
