/* counters-csv verdicts: steady footprint growth that persists (leak
 * suspect), growth that stopped at a bound (a cache filling), churn, GC
 * time share, and a capture without the runtime's counters. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters_csv.h"

/* Footprint quantities whose steady growth means retained memory; gen0 and
 * gen1 sizes swing with every GC and say nothing about leaks. */
static int
is_leak_quantity(const char *q)
{
    static const char *const names[] = {
        "gc.heap.gen2",  "gc.heap.loh",  "gc.heap.poh",
        "gc.heap.total", "gc.committed", "memory.working_set",
    };

    if (q == NULL)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(q, names[i]) == 0)
            return 1;
    return 0;
}

static void
fmt_bytes(char *buf, size_t size, double b)
{
    double a = fabs(b);

    if (a >= 1e9)
        snprintf(buf, size, "%.2f GB", b / 1e9);
    else if (a >= 1e6)
        snprintf(buf, size, "%.1f MB", b / 1e6);
    else if (a >= 1e3)
        snprintf(buf, size, "%.1f kB", b / 1e3);
    else
        snprintf(buf, size, "%.0f B", b);
}

static const cc_row *
find_q(const cc_row *rows, size_t n, const char *q)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].s->quantity != NULL && strcmp(rows[i].s->quantity, q) == 0)
            return &rows[i];
    return NULL;
}

static void
label(char *buf, size_t size, const cc_series *s)
{
    if (s->tags[0] != '\0')
        snprintf(buf, size, "%s [%s]", s->name, s->tags);
    else
        snprintf(buf, size, "%s", s->name);
}

/* Growth persists when the last third of the trend window still sets new
 * highs: its peak rises above the peak before it by at least a fifth of
 * the whole growth (a steady leak puts a third of its growth there; a
 * cache that filled early and then held, none; a working set that kept
 * rising only while garbage piled up between two collections flattens
 * once they run), and the series ends near its peak, within a fifth of its
 * growth (a full collection that takes the heap well back found the growth
 * was garbage: evicted entries promoted to gen2 look like growth until one
 * runs). Footprints saw-tooth with each GC, so peaks, not single points,
 * are compared. */
static int
persists(const cc_row *r)
{
    const cc_series *s = r->s;
    int64_t cut = r->st.t_trend + (r->st.t_last - r->st.t_trend) * 2 / 3;
    double early = -INFINITY, late = -INFINITY, lo = INFINITY, last = NAN;
    size_t nl = 0;

    for (size_t i = 0; i < s->n; i++) {
        const cc_point *p = &s->pts[i];

        if (p->t < r->st.t_trend || p->t > r->st.t_last || !isfinite(p->v))
            continue;
        last = p->v;
        if (p->v < lo)
            lo = p->v;
        if (p->t <= cut) {
            if (p->v > early)
                early = p->v;
        } else {
            if (p->v > late)
                late = p->v;
            nl++;
        }
    }
    if (nl == 0 || !isfinite(early) || !(late > lo))
        return 0;
    return late - early >= 0.2 * (late - lo) && last >= late - 0.2 * (late - lo);
}

/* Distinct levels of the series in its trend window. A footprint the
 * runtime measures at each GC (the heap after the last collection, its
 * committed size) changes only when one runs: two levels are two
 * snapshots, which tell growth from nothing else (a leak, a cache
 * warming up, one promotion); a verdict needs three. */
static size_t
levels(const cc_row *r)
{
    const cc_series *s = r->s;
    double prev = NAN;
    size_t n = 0;

    for (size_t i = 0; i < s->n && n < 3; i++) {
        const cc_point *p = &s->pts[i];

        if (p->t < r->st.t_trend || p->t > r->st.t_last || !isfinite(p->v) || p->v == prev)
            continue;
        prev = p->v;
        n++;
    }
    return n;
}

void
cc_mark_trends(cc_row *rows, size_t n, const cc_thresholds *th)
{
    for (size_t i = 0; i < n; i++) {
        cc_row *r = &rows[i];

        r->leak = r->bounded = 0;
        if (!is_leak_quantity(r->s->quantity) || r->s->counter_type == PP_COUNTER_RATE)
            continue;
        if (r->st.n >= 3 && levels(r) >= 3 && isfinite(r->st.r2) && r->st.r2 >= th->leak_r2 &&
            isfinite(r->st.growth_pct) && r->st.growth_pct >= th->leak_growth_pct &&
            r->st.slope_per_min >= th->leak_min_slope) {
            if (persists(r))
                r->leak = 1;
            else
                r->bounded = 1;
        }
    }
}

/* One finding per footprint that keeps growing (leak suspect) or grew and
 * stopped (bounded), as cc_mark_trends marked them. */
static int
trend_findings(const pp_host_api *h, pp_ctx *ctx, const cc_row *rows, size_t n)
{
    char a[64], b[64], c[64], lab[512];
    int rc = PP_OK;

    for (size_t i = 0; i < n && rc == PP_OK; i++) {
        const cc_row *r = &rows[i];
        if (!r->leak)
            continue;
        fmt_bytes(a, sizeof a, r->st.slope_per_min);
        fmt_bytes(b, sizeof b, r->st.trend_first);
        fmt_bytes(c, sizeof c, r->st.last);
        label(lab, sizeof lab, r->s);
        rc = h->finding(ctx, PP_SEVERITY_WARNING, "counters.leak_suspect",
                        "footprint grows steadily and keeps growing: %s (%s) +%s/min, R2 %.2f, "
                        "+%.0f%% over %.0f s (%s -> %s), still setting new highs in the last "
                        "third of the window: leak suspect. Next: take two gcdumps a few "
                        "minutes apart: dotnet-gcdump collect -p PID, and run perfpipe "
                        "gcdump-diff BASE CAND",
                        r->s->quantity, lab, a, r->st.r2, r->st.growth_pct,
                        (double)(r->st.t_last - r->st.t_trend) / 1e9, b, c);
    }
    for (size_t i = 0; i < n && rc == PP_OK; i++) {
        const cc_row *r = &rows[i];
        if (!r->bounded)
            continue;
        fmt_bytes(a, sizeof a, r->st.last);
        fmt_bytes(b, sizeof b, r->st.trend_first);
        fmt_bytes(c, sizeof c, r->st.max);
        label(lab, sizeof lab, r->s);
        rc = h->finding(ctx, PP_SEVERITY_INFO, "counters.bounded_growth",
                        "footprint grew, then stopped: %s (%s) rose from %s to %s and ended "
                        "the %.0f s window at %s, hardly higher in its last third or well "
                        "below its peak: a structure filling up to a bound (a cache warming "
                        "up) or garbage a full collection took back, not a leak. A leak keeps "
                        "growing: confirm over a longer run",
                        r->s->quantity, lab, b, c, (double)(r->st.t_last - r->st.t_trend) / 1e9, a);
    }
    return rc;
}

int
cc_findings(const pp_host_api *h, pp_ctx *ctx, cc_row *rows, size_t n, const cc_thresholds *th,
            int64_t window_ns)
{
    const cc_row *alloc, *pause, *gcpct, *gen2;
    char a[64], b[64], c[64];
    char adv[320];
    double window_s = (double)window_ns / 1e9;
    size_t nleak = 0, nbounded = 0, nruntime = 0;
    int rc = PP_OK;

    if (n == 0)
        return h->finding(ctx, PP_SEVERITY_WARNING, "counters.no_samples",
                          "no counter samples in the analysed window: the capture is empty "
                          "or the from/to options exclude every sample");
    for (size_t i = 0; i < n; i++) {
        if (rows[i].s->quantity != NULL)
            nruntime++;
        nleak += rows[i].leak != 0;
        nbounded += rows[i].bounded != 0;
    }
    if (nruntime == 0) {
        rc = h->finding(ctx, PP_SEVERITY_WARNING, "counters.no_runtime_counters",
                        "none of the System.Runtime counters (allocation, GC, working set) "
                        "are in this capture (first provider seen: %s): it was collected "
                        "with another provider set. Collect them with: dotnet-counters "
                        "collect -p PID --counters System.Runtime --format csv -o counters.csv "
                        "(add your own providers after a comma)",
                        rows[0].s->provider);
        if (rc == PP_OK)
            rc = h->total_string(ctx, "footprint_verdict", "unknown");
        return rc;
    }
    rc = trend_findings(h, ctx, rows, n);
    alloc = find_q(rows, n, "alloc.bytes");
    gen2 = find_q(rows, n, "gc.heap.gen2");
    if (rc == PP_OK && alloc != NULL) {
        rc = h->total_double(ctx, "alloc_bytes_per_sec", PP_COL_NUMBER, alloc->st.rate);
        if (rc == PP_OK)
            rc = h->total_int(ctx, "allocated_bytes", PP_COL_BYTES, cc_to_i64(alloc->st.delta));
    }
    if (rc == PP_OK && alloc != NULL && nleak == 0 && alloc->st.rate >= th->churn_bytes_per_sec) {
        fmt_bytes(a, sizeof a, alloc->st.rate);
        if (gen2 != NULL) {
            fmt_bytes(b, sizeof b, gen2->st.last);
            snprintf(c, sizeof c, "%+.1f%%",
                     isfinite(gen2->st.growth_pct) ? gen2->st.growth_pct : 0.0);
        } else {
            snprintf(b, sizeof b, "n/a");
            snprintf(c, sizeof c, "n/a");
        }
        rc = h->finding(ctx, PP_SEVERITY_INFO, "counters.churn",
                        "allocation churn: %s/s with no steady footprint growth (gen2 after "
                        "GC %s, trend %s over the window): the GC reclaims what is allocated; "
                        "this is churn, not a leak. Find who allocates: %s, then perfpipe "
                        "alloc TRACE",
                        a, b, c,
                        pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, "--profile gc-verbose -p PID",
                                          adv, sizeof adv));
    }
    /* A trend over seconds is a hint, not a verdict: say so. */
    if (rc == PP_OK && window_s < 60 &&
        (nleak > 0 || nbounded > 0 || (alloc != NULL && alloc->st.rate >= th->churn_bytes_per_sec)))
        rc = h->finding(ctx, PP_SEVERITY_INFO, "counters.short_window",
                        "the analysed window is %.0f s: footprint trends over less than a "
                        "minute include warm-up and single GCs; confirm over several minutes "
                        "of steady load (dotnet-counters collect --duration 00:00:05:00, then "
                        "the from option to skip warm-up)",
                        window_s);
    if (rc == PP_OK)
        rc = h->total_string(ctx, "footprint_verdict",
                             nleak > 0    ? "leak_suspect" :
                             nbounded > 0 ? "bounded" :
                             (alloc != NULL && alloc->st.rate >= th->churn_bytes_per_sec) ?
                                            "churn" :
                                            "flat");
    /* GC time share: the Meter's pause time per second, or the legacy %. */
    pause = find_q(rows, n, "gc.pause_time");
    gcpct = find_q(rows, n, "gc.time_percent");
    if (rc == PP_OK && (pause != NULL || gcpct != NULL)) {
        double share = pause != NULL ? pause->st.rate * 100.0 : gcpct->st.mean;
        rc = h->total_double(ctx, "gc_time_percent", PP_COL_PERCENT, share);
        if (rc == PP_OK && share >= th->gc_time_pct) {
            const cc_row *g[3] = { find_q(rows, n, "gc.collections.gen0"),
                                   find_q(rows, n, "gc.collections.gen1"),
                                   find_q(rows, n, "gc.collections.gen2") };
            rc = h->finding(ctx, PP_SEVERITY_WARNING, "counters.gc_time",
                            "GC pauses take %.1f%% of the time over %.0f s (%.0f gen0, %.0f gen1, "
                            "%.0f gen2 GCs): cut the allocation rate (perfpipe alloc) or the "
                            "survival of short-lived objects",
                            share, window_s, g[0] ? g[0]->st.delta : 0.0,
                            g[1] ? g[1]->st.delta : 0.0, g[2] ? g[2]->st.delta : 0.0);
        }
    }
    /* dotnet-counters collect writes the Meter's queue length (declared an
     * ObservableCounter) as a per-interval change: the running sum is the
     * level above the one at the start, which is what a user asks about. */
    {
        const cc_row *ql = find_q(rows, n, "threadpool.queue_length");
        if (rc == PP_OK && ql != NULL && ql->s->counter_type == PP_COUNTER_RATE) {
            double run = 0, peak = 0;
            for (size_t i = 0; i < ql->s->n; i++) {
                if (ql->s->pts[i].t < ql->st.t_first || ql->s->pts[i].t > ql->st.t_last ||
                    !isfinite(ql->s->pts[i].v))
                    continue;
                run += ql->s->pts[i].v;
                if (run > peak)
                    peak = run;
            }
            rc = h->total_double(ctx, "threadpool_queue_peak_rise", PP_COL_NUMBER, peak);
            if (rc == PP_OK && peak > 0)
                rc = h->finding(ctx, PP_SEVERITY_INFO, "counters.threadpool_queue",
                                "thread-pool queue grew by up to %.0f work items above its "
                                "level at the start (dotnet-counters collect writes "
                                "dotnet.thread_pool.queue.length as per-interval changes; "
                                "the table's mean is of those changes, not of the length)",
                                peak);
        }
    }
    for (int k = 0; k < 3 && rc == PP_OK; k++) {
        static const char *const q[3] = { "gc.collections.gen0", "gc.collections.gen1",
                                          "gc.collections.gen2" };
        static const char *const tn[3] = { "gc_count_gen0", "gc_count_gen1", "gc_count_gen2" };
        const cc_row *g = find_q(rows, n, q[k]);
        if (g != NULL)
            rc = h->total_int(ctx, tn[k], PP_COL_COUNT, cc_to_i64(g->st.delta));
    }
    if (rc == PP_OK) {
        const cc_row *u = find_q(rows, n, "cpu.time.user"), *s = find_q(rows, n, "cpu.time.system");
        if (u != NULL || s != NULL)
            rc = h->total_double(ctx, "cpu_cores", PP_COL_NUMBER,
                                 (u ? u->st.rate : 0.0) + (s ? s->st.rate : 0.0));
    }
    return rc;
}
