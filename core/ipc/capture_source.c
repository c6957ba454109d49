/* The live capture source: a nettrace input whose bytes come from a
 * runtime's EventPipe session instead of a file. The engine sees one more
 * source (core/input/source.h): records are the nettrace reader's, read from the
 * socket as they arrive, and every byte is also written to the kept file,
 * which is renamed into place when the stream ends, so re-running the
 * pipeline on it gives the same result.
 *
 * An input is a capture when its path is a capture spec:
 *   capture:KEY=VALUE;KEY=VALUE...   ("\;" is a ';' inside a value)
 * keys: pid, process, port, profile, providers, counters, interval,
 * duration, keep, follow_child, buffersize. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>

#include "ipc/capture.h"
#include "ipc/capture_source.h"
#include "ipc/ipc.h"
#include "nettrace/stream.h"
#include "input/source.h"

typedef struct cap_src {
    pp_capture *cap;
    pp_trace_source *r;
    const pp_source_hooks *hooks;
    pp_capture_spec spec;
    char *text; /* the spec's storage */
    int ended, finished;
} cap_src;

int
pp_capture_spec_is(const char *path)
{
    return path != NULL && strncmp(path, PP_CAPTURE_PREFIX, strlen(PP_CAPTURE_PREFIX)) == 0;
}

static double
parse_duration(const char *s)
{
    char *end;
    if (strchr(s, ':')) {
        unsigned v[4] = { 0 };
        int n = sscanf(s, "%u:%u:%u:%u", &v[0], &v[1], &v[2], &v[3]);
        double secs = 0, mult[4] = { 1, 60, 3600, 86400 };
        if (n < 2)
            return -1;
        for (int i = 0; i < n; i++)
            secs += v[n - 1 - i] * mult[i];
        return secs;
    }
    double d = strtod(s, &end);
    if (end == s || d < 0)
        return -1;
    if (*end == '\0' || strcmp(end, "s") == 0)
        return d;
    if (strcmp(end, "ms") == 0)
        return d / 1000;
    if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        return d * 60;
    if (strcmp(end, "h") == 0)
        return d * 3600;
    return -1;
}

double
pp_capture_parse_duration(const char *s)
{
    double d = parse_duration(s);
    return d <= PP_CAPTURE_MAX_SECONDS ? d : -1; /* NaN is none too */
}

void
pp_capture_delay(double seconds)
{
    if (seconds <= 0)
        return;
    struct timespec left = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&left, &left) != 0 && errno == EINTR && !pp_ipc_cancel)
        ;
}

static int
truthy(const char *v)
{
    return strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0;
}

int
pp_capture_spec_parse(const char *path, pp_capture_spec *spec, char **storage, pp_error *err)
{
    memset(spec, 0, sizeof *spec);
    spec->listen_timeout_ms = 60000;
    *storage = NULL;
    if (!pp_capture_spec_is(path)) {
        pp_error_set(err, PP_EINVAL, "'%s' is not a capture spec (capture:pid=N;...)", path);
        return PP_EINVAL;
    }
    char *text = strdup(path + strlen(PP_CAPTURE_PREFIX));
    if (!text) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    /* Entries are separated by ';'; "\;" and "\\" stand for ';' and '\'. */
    char *next = text;
    while (next) {
        char *kv = next, *w = next, *r = next;
        next = NULL;
        for (; *r; r++) {
            if (r[0] == '\\' && (r[1] == ';' || r[1] == '\\')) {
                *w++ = *++r;
                continue;
            }
            if (*r == ';') {
                next = r + 1;
                break;
            }
            *w++ = *r;
        }
        *w = '\0';
        while (*kv == ' ')
            kv++;
        if (*kv == '\0')
            continue;
        char *eq = strchr(kv, '=');
        if (!eq) {
            pp_error_set(err, PP_EINVAL, "capture: '%s' is not KEY=VALUE", kv);
            goto bad;
        }
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        char *end;
        if (strcmp(k, "pid") == 0) {
            spec->pid = strtoull(v, &end, 10);
            if (*end || spec->pid == 0 || end == v || v[0] == '-' || spec->pid > INT32_MAX) {
                pp_error_set(err, PP_EINVAL, "capture: pid '%s' is not a process id", v);
                goto bad;
            }
        } else if (strcmp(k, "process") == 0) {
            spec->process_name = v;
        } else if (strcmp(k, "port") == 0) {
            spec->diagnostic_port = v;
        } else if (strcmp(k, "profile") == 0) {
            spec->profile = v;
        } else if (strcmp(k, "providers") == 0) {
            spec->providers = v;
        } else if (strcmp(k, "counters") == 0) {
            if (strcasecmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0)
                continue;
            spec->counters = 1;
            if (!truthy(v))
                spec->counter_list = v;
        } else if (strcmp(k, "interval") == 0) {
            unsigned long s = strtoul(v, &end, 10);
            if (*end || s == 0 || s > 3600) {
                pp_error_set(err, PP_EINVAL, "capture: interval '%s' is not 1-3600 seconds", v);
                goto bad;
            }
            spec->interval_s = (unsigned)s;
        } else if (strcmp(k, "duration") == 0) {
            if ((spec->duration_s = pp_capture_parse_duration(v)) <= 0) {
                pp_error_set(err, PP_EINVAL,
                             "capture: duration '%s' is not a time (30s, 2m, "
                             "500ms, dd:hh:mm:ss, at most 11 days)",
                             v);
                goto bad;
            }
        } else if (strcmp(k, "delay") == 0 || strcmp(k, "timeout") == 0) {
            double d = pp_capture_parse_duration(v);
            if (d < 0 || (d == 0 && k[0] == 't')) {
                pp_error_set(err, PP_EINVAL,
                             "capture: %s '%s' is not a time (30s, 2m, 500ms, "
                             "dd:hh:mm:ss, at most 11 days)",
                             k, v);
                goto bad;
            }
            if (k[0] == 'd')
                spec->delay_s = d;
            else
                spec->timeout_s = d;
        } else if (strcmp(k, "keep") == 0) {
            spec->output = v;
        } else if (strcmp(k, "follow_child") == 0) {
            spec->follow_child = truthy(v);
        } else if (strcmp(k, "buffersize") == 0) {
            unsigned long mb = strtoul(v, &end, 10);
            if (*end || mb == 0 || mb > 4096) {
                pp_error_set(err, PP_EINVAL, "capture: buffersize '%s' is not 1-4096 MB", v);
                goto bad;
            }
            spec->buffer_mb = (uint32_t)mb;
        } else {
            pp_error_set(err, PP_EINVAL,
                         "capture: unknown key '%s'; keys: pid, process, port, "
                         "profile, providers, counters, interval, duration, keep, follow_child, "
                         "buffersize, delay, timeout",
                         k);
            goto bad;
        }
    }
    if ((spec->pid != 0) + (spec->process_name != NULL) + (spec->diagnostic_port != NULL) != 1) {
        pp_error_set(err, PP_EINVAL, "capture: give exactly one of pid, process or port");
        goto bad;
    }
    *storage = text;
    return PP_OK;
bad:
    free(text);
    memset(spec, 0, sizeof *spec);
    return PP_EINVAL;
}

static void
cs_bytes(void *user, const void *data, size_t len)
{
    cap_src *cs = user;
    pp_capture_write(cs->cap, data, len);
    if (cs->hooks && cs->hooks->on_bytes)
        cs->hooks->on_bytes(cs->hooks->user, data, len);
}

static void
cs_warning(void *user, const pp_error *w)
{
    cap_src *cs = user;
    if (cs->hooks && cs->hooks->on_warning)
        cs->hooks->on_warning(cs->hooks->user, w);
}

static void cs_close(void *src);

static int
cs_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    cap_src *cs = calloc(1, sizeof *cs);
    int rc;

    if (!cs) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    cs->hooks = hooks;
    if ((rc = pp_capture_spec_parse(path, &cs->spec, &cs->text, err)) != PP_OK)
        goto fail;
    if (cs->spec.timeout_s > 0) {
        pp_error_set(err, PP_EINVAL,
                     "capture: timeout is for gcdump captures (a trace stops "
                     "after its duration)");
        rc = PP_EINVAL;
        goto fail;
    }
    pp_capture_delay(cs->spec.delay_s);
    if ((rc = pp_capture_open(&cs->spec, &cs->cap, err)) != PP_OK) {
        /* No such process is an input that cannot be read (exit 3), as a
         * missing file is; a refused target stays a usage error. */
        if (rc == PP_ENOTFOUND) {
            rc = PP_EIO;
            if (err)
                err->code = rc;
        }
        goto fail;
    }
    int fd = dup(pp_capture_stream_fd(cs->cap));
    if (fd < 0) {
        pp_error_set(err, PP_EIO, "dup failed");
        rc = PP_EIO;
        goto fail;
    }
    if ((rc = pp_nettrace_open_fd(fd, pp_capture_output(cs->cap), &cs->r, err)) != PP_OK) {
        cs->r = NULL;
        goto fail;
    }
    pp_nettrace_set_callbacks(cs->r, cs_bytes, cs_warning, cs);
    *src = cs;
    return PP_OK;
fail:
    cs_close(cs);
    return rc;
}

static int
cs_finish(cap_src *cs, int whole, pp_error *err)
{
    if (cs->finished)
        return PP_OK;
    cs->finished = 1;
    return pp_capture_finish(cs->cap, whole, err);
}

static int
cs_next(void *src, pp_record *rec, pp_error *err)
{
    cap_src *cs = src;
    const pp_trace_event *ev;

    if (cs->ended)
        return 0;
    int rc = pp_nettrace_next(cs->r, &ev, err);
    if (rc < 0) {
        /* The kept file stays whole even when the reader cannot follow. */
        pp_error ignored = PP_ERROR_INIT;
        pp_nettrace_drain(cs->r);
        cs_finish(cs, 0, &ignored);
        return rc;
    }
    if (rc == 0) {
        cs->ended = 1;
        pp_nettrace_stats st = { .struct_size = sizeof st };
        pp_nettrace_stats_get(cs->r, &st);
        if ((rc = cs_finish(cs, !st.truncated, err)) != PP_OK)
            return rc;
        return 0;
    }
    /* the process identity (and so the app whose code a frame is) */
    pp_nettrace_observe_process(cs->r, ev);
    memset(rec, 0, sizeof *rec);
    rec->struct_size = sizeof *rec;
    rec->kind = PP_KIND_NETTRACE;
    rec->u.event = ev;
    return 1;
}

static int
cs_describe(void *src, json_t *into)
{
    cap_src *cs = src;
    int rc = pp_nettrace_source_ops.describe(cs->r, into);
    /* The input is the kept file from now on: re-running on it is the
     * same analysis. */
    json_object_set_new(into, "path", json_string(pp_capture_output(cs->cap)));
    json_object_set_new(into, "bytes", json_integer((json_int_t)pp_capture_bytes(cs->cap)));
    json_object_set_new(into, "capture", pp_capture_describe(cs->cap));
    return rc;
}

static void
cs_damage(void *src, pp_source_damage *out)
{
    cap_src *cs = src;
    if (pp_nettrace_source_ops.damage)
        pp_nettrace_source_ops.damage(cs->r, out);
}

static void
cs_close(void *src)
{
    cap_src *cs = src;
    if (!cs)
        return;
    if (cs->cap && !cs->finished) {
        /* Closed before the end (a failure elsewhere): stop, keep what came. */
        pp_error ignored = PP_ERROR_INIT;
        pp_capture_request_stop(cs->cap);
        if (cs->r)
            pp_nettrace_drain(cs->r);
        cs_finish(cs, 0, &ignored);
    }
    if (cs->r) {
        pp_nettrace_forget_process(cs->r);
        pp_nettrace_close(cs->r);
    }
    pp_capture_free(cs->cap);
    free(cs->text);
    free(cs);
}

const pp_source_ops pp_capture_source_ops = { "nettrace",  PP_KIND_NETTRACE, cs_open,  cs_next,
                                              cs_describe, cs_close,         cs_damage };
