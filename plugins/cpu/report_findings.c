/* plugins/cpu: the stage's totals and findings. */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "waits.h"

int
pp_cpu_emit_totals(report *r, int64_t span)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_ctx *ctx = r->ctx;
    char win[160];
    pp_pc_window_describe(&c->window, win, sizeof win);
    int rc = h->total_int(ctx, "samples", PP_COL_COUNT, r->total_samples);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_external", PP_COL_COUNT,
                          (int64_t)c->by_type[PP_CPU_SAMPLE_EXTERNAL]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_managed", PP_COL_COUNT,
                          (int64_t)c->by_type[PP_CPU_SAMPLE_MANAGED]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_error", PP_COL_COUNT,
                          (int64_t)c->by_type[PP_CPU_SAMPLE_ERROR]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "thread_time", PP_COL_DURATION_NS, r->total_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "duration", PP_COL_DURATION_NS, span);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "sample_interval", PP_COL_DURATION_NS, r->median_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "unsampled_time", PP_COL_DURATION_NS, r->unsampled_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "threads", PP_COL_COUNT, (int64_t)c->nthreads);
    if (rc == PP_OK)
        rc = h->total_double(ctx, "unresolved_frame_share", PP_COL_PERCENT,
                             pp_cpu_pct(r->unresolved_frames, r->frames));
    if (rc == PP_OK)
        rc = h->total_string(ctx, "view", c->managed_only ? "managed" : "thread-time");
    if (rc == PP_OK)
        rc = h->total_string(
            ctx, "method",
            c->managed_only ?
                "managed view: only samples of threads running managed code, each weighted by the "
                "time since the previous sample of its thread (wall time, not CPU time; a thread's first sample weighs "
                "the median interval, a gap counts at most 100 intervals)" :
                "thread time: every sample (running or blocked), each weighted by the time since the "
                "previous sample of its thread (wall time, not CPU time; a thread's first sample weighs the median "
                "interval, a gap counts at most 100 intervals); async waits are invisible");
    if (rc == PP_OK && win[0])
        rc = h->total_string(ctx, "filter", win);
    return rc;
}

void
pp_cpu_emit_findings(report *r, int64_t span)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_ctx *ctx = r->ctx;
    char adv[320];
    if (c->samples_seen == 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.no_samples",
                   "no SampleProfiler ThreadSample events in this trace: capture with %s (the "
                   "default profile of both collect commands)",
                   pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH,
                                     "--profile dotnet-sampled-thread-time", adv, sizeof adv));
        return;
    }
    if (r->total_samples == 0) {
        char win[160];
        pp_pc_window_describe(&c->window, win, sizeof win);
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.view_empty",
                   "the trace has %" PRIu64 " thread samples but none in the %s view%s%s",
                   c->samples_seen, c->managed_only ? "managed" : "thread-time",
                   win[0] ? " and the " : "", win);
        return;
    }
    if (c->malformed)
        h->finding(
            ctx, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT, "cpu.malformed_samples",
            "%" PRIu64
            " ThreadSample events had a payload shorter than its 4-byte Type and were skipped",
            c->malformed);
    if (c->lost_stack)
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.stacks_lost",
                   "%" PRIu64 " of %" PRId64
                   " samples (%.1f%%) name a stack the trace does not hold and are listed as "
                   "\"[no stack]\": the input is damaged (a stack block is missing; see the "
                   "input's damage), not captured without stacks",
                   c->lost_stack, r->total_samples,
                   pp_cpu_pct((int64_t)c->lost_stack, r->total_samples));
    double unres = pp_cpu_pct(r->unresolved_frames, r->frames);
    if (r->frames > 0 && unres > 50.0)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "cpu.unresolved",
            "%.1f%% of the sampled frames are unresolved: the trace has no method rundown, so the capture was "
            "stopped abruptly; %s, and keep the traced process alive until it has",
            unres, pp_capture_advice(h, ctx, PP_CAPTURE_STOP, NULL, adv, sizeof adv));
    if (r->bare_addrs > 0 && !r->native_named)
        h->finding(
            ctx, PP_SEVERITY_INFO, "cpu.native_unnamed",
            "%" PRIu32
            " native code addresses have no name (?!0x...): the trace has no module map; "
            "capture with `perfpipe collect -p PID -o FILE.nettrace` (it saves FILE.nettrace.maps "
            "beside it) to name them module!function",
            r->bare_addrs);
    if (r->total_samples < 200 || span < 500000000) {
        /* 95% interval of a share p from n samples: 1.96 * sqrt(p(1-p)/n) */
        double half = 196.0 * sqrt(0.25 / (double)r->total_samples);
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.short_trace",
                   "only %" PRId64
                   " samples over %.1f ms: any share is uncertain by up to +-%.1f points; "
                   "capture longer (several seconds of the scenario) before ranking methods",
                   r->total_samples, pp_cpu_ms(span), half);
    }
    if (r->capped_samples && r->unsampled_ns > r->total_ns / 20)
        h->finding(
            ctx, PP_SEVERITY_INFO, "cpu.unsampled_gaps",
            "%" PRIu64
            " samples followed gaps longer than %d sampling intervals (%.1f ms each); the %.1f ms "
            "beyond that are left unattributed (unsampled_time) instead of being charged to one sample: a "
            "thread without managed frames (e.g. the finalizer thread while idle) is not sampled, and "
            "sweeps are skipped while a GC suspends the runtime",
            r->capped_samples, PP_CPU_MAX_GAP_INTERVALS, pp_cpu_ms(r->median_ns),
            pp_cpu_ms(r->unsampled_ns));
    if (r->truncated_samples)
        h->finding(
            ctx, PP_SEVERITY_INFO, "cpu.truncated_stacks",
            "%" PRIu64
            " samples have stacks of 100 frames or more: EventPipe keeps at most 100, so their "
            "outer frames are missing and inclusive time of outer methods is undercounted",
            r->truncated_samples);
    if (c->focus && r->focus_names == 0)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "cpu.focus_not_found",
            "no sampled frame is named '%s' (give the full name Namespace.Type.Method or its last parts)",
            c->focus);

    /* waits among the top methods by exclusive time */
    uint32_t n;
    uint32_t *order = pp_cpu_ranked(r, r->m, 0, &n);
    if (!order)
        return;
    int64_t wait_ns = 0;
    const char *top_wait = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = pp_pc_strtab_get(&r->names, order[i]);
        if (pp_cpu_is_wait(name)) {
            wait_ns = pp_i64_add_sat(wait_ns, r->m[order[i]].excl_ns);
            if (!top_wait && i < 5)
                top_wait = name;
        }
    }
    int first_is_wait = n > 0 && pp_cpu_is_wait(pp_pc_strtab_get(&r->names, order[0]));
    if (top_wait && (first_is_wait || pp_cpu_pct(wait_ns, r->total_ns) >= 25.0))
        h->finding(
            ctx, PP_SEVERITY_INFO, "cpu.waits",
            "%.1f%% of the thread time is threads blocked in waits (top: %s): thread-time sampling only sees "
            "threads that exist; an `await` releases its thread, so async waits are invisible here. For wall "
            "time of requests and database calls use the db analyzer or spans; for CPU only, use view=managed",
            pp_cpu_pct(wait_ns, r->total_ns), top_wait);
    free(order);
}
