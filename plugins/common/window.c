/* plugins/common: time window and thread filter (see window.h). */
#include "window.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

static int
ms_option(const pp_host_api *host, const pp_options *opts, const char *name, int *has, int64_t *ns,
          pp_error *err)
{
    double ms = 0;
    int rc = host->opt_double(opts, name, &ms);
    if (rc == PP_ENOTFOUND)
        return PP_OK;
    /* 9.2e12 ms is the int64 ns range; reject beyond so the product is exact */
    if (rc != PP_OK || !isfinite(ms) || ms < 0 || ms > 9.2e12) {
        host->error_set(err, PP_EINVAL,
                        "option '%s': expected milliseconds >= 0 since the trace start", name);
        return PP_EINVAL;
    }
    *has = 1;
    *ns = pp_i64_from_double(round(ms * 1e6));
    return PP_OK;
}

int
pp_pc_window_load(const pp_host_api *host, const pp_options *opts, pp_pc_window *w, pp_error *err)
{
    *w = (pp_pc_window){ 0 };
    int rc = ms_option(host, opts, "from", &w->has_from, &w->from_ns, err);
    if (rc == PP_OK)
        rc = ms_option(host, opts, "to", &w->has_to, &w->to_ns, err);
    if (rc != PP_OK)
        return rc;
    if (w->has_from && w->has_to && w->to_ns <= w->from_ns) {
        host->error_set(err, PP_EINVAL,
                        "options 'from'/'to': empty window (to must be greater than from)");
        return PP_EINVAL;
    }
    int64_t tid = 0;
    rc = host->opt_int(opts, "thread", &tid);
    if (rc == PP_OK) {
        if (tid < 0) {
            host->error_set(err, PP_EINVAL, "option 'thread': expected an OS thread id >= 0");
            return PP_EINVAL;
        }
        w->has_thread = 1;
        w->thread = (uint64_t)tid;
    } else if (rc != PP_ENOTFOUND) {
        host->error_set(err, PP_EINVAL, "option 'thread': expected an integer");
        return PP_EINVAL;
    }
    return PP_OK;
}

int64_t
pp_pc_window_span(const pp_pc_window *w, int64_t first_ns, int64_t last_ns)
{
    int64_t a = first_ns, b = last_ns;
    if (w->has_from && w->from_ns > a)
        a = w->from_ns;
    if (w->has_to && w->to_ns < b)
        b = w->to_ns;
    return b > a ? b - a : 0;
}

void
pp_pc_window_describe(const pp_pc_window *w, char *buf, size_t size)
{
    char a[40] = "trace start", b[40] = "trace end";
    int n = 0;
    buf[0] = '\0';
    if (w->has_from)
        snprintf(a, sizeof a, "%.3f ms", (double)w->from_ns / 1e6);
    if (w->has_to)
        snprintf(b, sizeof b, "%.3f ms", (double)w->to_ns / 1e6);
    if (w->has_from || w->has_to)
        n = snprintf(buf, size, "window %s .. %s", a, b);
    if (w->has_thread && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "%sthread %" PRIu64, n ? ", " : "", w->thread);
}
