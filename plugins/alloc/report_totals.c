/* plugins/alloc: the totals and findings of a report (report_totals.h). */
#include "report_totals.h"

#include <inttypes.h>
#include <stdio.h>

#include "../common/interval.h"

static double
pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

static void
human_bytes(char *buf, size_t size, double b)
{
    static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
    int u = 0;
    while (b >= 1000.0 && u < 4) {
        b /= 1000.0;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}

int
pp_alloc_emit_totals(pp_alloc *a, pp_ctx *ctx, const pp_alloc_figures *r)
{
    const pp_host_api *h = a->host;
    char win[160], b1[32], b2[32];
    pp_pc_window_describe(&a->window, win, sizeof win);

    int64_t first = a->first_ns, last = a->last_ns;
    pp_trace_info info = { .struct_size = sizeof info };
    if (a->source && PP_HOST_HAS(h, trace_info) && h->trace_info &&
        h->trace_info(a->source, &info) == PP_OK && info.last_event_ns >= info.first_event_ns) {
        first = info.first_event_ns;
        last = info.last_event_ns;
    }
    int64_t duration = a->events ? pp_pc_window_span(&a->window, first, last) : 0;

    int rc = h->total_int(ctx, "sampled_bytes", PP_COL_BYTES, r->total_bytes);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "sampled_bytes_bound", PP_COL_BYTES,
                          (int64_t)a->nheap_kinds * PP_ALLOC_TICK_THRESHOLD);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "ticks", PP_COL_COUNT, r->total_ticks);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "ticks_with_stack", PP_COL_COUNT,
                          r->total_ticks - (int64_t)(a->ticks_no_stack + a->ticks_lost_stack));
    if (rc == PP_OK)
        rc = h->total_int(ctx, "duration", PP_COL_DURATION_NS, duration);
    if (rc == PP_OK)
        rc = h->total_double(ctx, "bytes_per_second", PP_COL_NUMBER,
                             duration > 0 ? (double)r->total_bytes * 1e9 / (double)duration : 0.0);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "tick_span", PP_COL_DURATION_NS,
                          a->ticks > 1 ? a->last_tick_ns - a->first_tick_ns : 0);
    if (rc == PP_OK)
        rc = h->total_double(ctx, "unresolved_frame_share", PP_COL_PERCENT,
                             pct(r->stack_unresolved, r->stack_frames));
    if (rc == PP_OK)
        rc = h->total_double(ctx, "unresolved_responsible_share", PP_COL_PERCENT,
                             pct(r->unresolved_resp_bytes, r->total_bytes));
    if (rc == PP_OK)
        rc = h->total_string(
            ctx, "method",
            "GCAllocationTick sampling: the runtime emits one tick per ~100 KB allocated "
            "per heap and attributes that amount to the object that crossed the threshold; "
            "bytes per row are estimates, trustworthy for large shares only");
    if (rc == PP_OK && win[0])
        rc = h->total_string(ctx, "filter", win);
    if (rc != PP_OK)
        return rc;

    char adv[320];
    if (a->ticks_seen == 0) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.no_ticks",
            "no GCAllocationTick events in this trace: capture with %s "
            "(the tick is a Verbose-level GC event: Microsoft-Windows-DotNETRuntime:0x1:5; at a lower level "
            "the runtime does not emit it)",
            pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, "--profile gc-verbose", adv, sizeof adv));
        return PP_OK;
    }
    if (a->ticks == 0) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.window_empty",
            "the trace has %" PRIu64
            " GCAllocationTick events but none in the %s: widen from/to or check the thread id",
            a->ticks_seen, win);
    }
    h->finding(
        ctx, PP_SEVERITY_INFO, "alloc.sampled",
        "bytes are sampled: each heap adds the allocation contexts it hands out (about 8 KB each for "
        "small objects, the object itself for large and pinned ones) to a running amount per object "
        "kind and emits a GCAllocationTick carrying it once it passes 100 KB, so per-row bytes are "
        "estimates (rows with few samples are noise). The total counts bytes handed out, not object "
        "bytes: it is at most %" PRIu32 " x 100 KB (one threshold per heap and kind seen: "
        "sampled_bytes_bound) below what was handed out in the window, since what a heap handed out "
        "after its last tick is in no tick, and a capture that starts mid-run adds up to that much "
        "from before; what is handed out exceeds the objects' bytes by the unused ends of "
        "contexts retired at each GC (%" PRIu64 " GCs here; up to one context per allocating "
        "thread each)",
        a->nheap_kinds, a->gcs);
    if (r->cut_stacks) {
        h->finding(ctx, PP_SEVERITY_INFO, "alloc.stacks_cut",
                   "by_stack lists the %" PRIu32 " heaviest of %" PRIu64
                   " distinct stacks; the other %" PRIu32 " (%.1f%% of the sampled bytes, %" PRId64
                   " ticks) are summed in the row \"" OTHER_STACKS_NAME "\". "
                   "Every stack: --option top-stacks=0, or --format folded / speedscope",
                   r->listed_stacks, (uint64_t)r->listed_stacks + r->cut_stacks, r->cut_stacks,
                   pct(r->cut[0], r->total_bytes), r->cut[1]);
    }
    if (a->malformed) {
        h->finding(ctx, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT, "alloc.malformed_ticks",
                   "%" PRIu64
                   " GCAllocationTick events were skipped as malformed; the first at %.3f ms: %s",
                   a->malformed, (double)a->malformed_first_ns / 1e6, a->malformed_what);
    }
    if (a->ticks_no_stack) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.no_stacks",
            "%" PRIu64 " of %" PRIu64
            " ticks (%.1f%%) carry no stack and are listed as \"" NO_STACK_NAME "\": "
            "the session did not collect stacks; capture with %s, "
            "which records a stack with every tick",
            a->ticks_no_stack, a->ticks, pct((int64_t)a->ticks_no_stack, (int64_t)a->ticks),
            pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, "--profile gc-verbose", adv, sizeof adv));
    }
    if (a->ticks_lost_stack) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.stacks_lost",
            "%" PRIu64 " of %" PRIu64
            " ticks (%.1f%%) name a stack the trace does not hold and are listed as \"" NO_STACK_NAME
            "\": the input is damaged (a stack block is missing; see the input's damage), "
            "not captured without stacks",
            a->ticks_lost_stack, a->ticks, pct((int64_t)a->ticks_lost_stack, (int64_t)a->ticks));
    }
    double unres = pct(r->stack_unresolved, r->stack_frames);
    if (r->stack_frames > 0 && unres > 50.0) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.unresolved",
            "%.1f%% of the stack frames are unresolved (%.1f%% of the bytes have an unresolved responsible frame): "
            "the trace has no method rundown, so the capture was stopped abruptly; %s, and keep "
            "the traced process alive until it has",
            unres, pct(r->unresolved_resp_bytes, r->total_bytes),
            pp_capture_advice(h, ctx, PP_CAPTURE_STOP, NULL, adv, sizeof adv));
    }
    if (a->expect_min_bytes > 0 && r->total_bytes < a->expect_min_bytes) {
        human_bytes(b1, sizeof b1, (double)r->total_bytes);
        human_bytes(b2, sizeof b2, (double)a->expect_min_bytes);
        h->finding(
            ctx, PP_SEVERITY_WARNING, "alloc.low_total",
            "sampled %s allocated, far below the expected %s (expect-min-bytes %s): wrong process traced? "
            "the `dotnet run` wrapper instead of the app: trace the app's pid, or start it with %s",
            b1, b2, a->expect_from,
            pp_capture_advice(h, ctx, PP_CAPTURE_LAUNCH, NULL, adv, sizeof adv));
    }
    return PP_OK;
}
