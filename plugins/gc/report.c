/* plugins/gc: finish() - the per-GC table, the per-generation table, the
 * callers of induced GCs, the totals, and the findings with their fix
 * shapes. Pause is PerfView's (model.c); the output says so. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc.h"
#include "../common/decl.h"

static const char PAUSE_DEFINITION[] =
    "pause = from the start of the runtime's suspension for the GC to the end of the restart that "
    "follows (PerfView/TraceEvent PauseDurationMSec); a background GC's pause is its initial "
    "suspension plus each suspension for it while it runs, not its whole duration";

#define SERVER_GC_FLAG 0x1000u /* Runtime/Start StartupFlags: STARTUP_SERVER_GC */

static double
ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static int64_t
mb_bytes(double mb)
{
    return pp_i64_from_double(mb * 1e6 + (mb >= 0 ? 0.5 : -0.5));
}

/* A byte count a damaged input may put past int64_t, saturated. */
static int64_t
clamp_u64(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

static uint64_t
sum5(const uint64_t *v)
{
    return v[0] + v[1] + v[2] + v[3] + v[4];
}

/* A GC's place in the per-GC table when top cuts it: its pause, its index. */
typedef struct gc_pick {
    int64_t pause;
    uint32_t i;
} gc_pick;

static int
cmp_pause_desc(const void *a, const void *b)
{
    const gc_pick *x = a, *y = b;
    if (x->pause != y->pause)
        return x->pause > y->pause ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int
cmp_index(const void *a, const void *b)
{
    const gc_pick *x = a, *y = b;
    return (x->i > y->i) - (x->i < y->i);
}

static int
per_gc_table(gc_state *st, pp_ctx *ctx, const gc_model *m)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_gc_tables[PP_GC_TABLE_GCS], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = m->count;
    gc_pick *idx = malloc((size_t)(n ? n : 1) * sizeof(*idx));
    if (!idx)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        idx[i].pause = m->gcs[i].pause;
        idx[i].i = i;
    }
    if (st->top > 0 && n > (uint64_t)st->top) { /* the longest pauses, shown in GC order */
        qsort(idx, n, sizeof(*idx), cmp_pause_desc);
        n = (uint32_t)st->top;
        qsort(idx, n, sizeof(*idx), cmp_index);
    }
    int rc = PP_OK;
    for (uint32_t k = 0; k < n && rc == PP_OK; k++) {
        const gc_one *g = &m->gcs[idx[k].i];
        pp_cell c[20];
        c[0] = pp_cell_int(g->number);
        c[1] = pp_cell_int(g->gen);
        c[2] = pp_cell_str(gc_type_name(g->type));
        c[3] = pp_cell_str(gc_reason_name(g->reason));
        c[4] = pp_cell_int(g->start);
        c[5] = pp_cell_int(g->suspend);
        c[6] = pp_cell_int(g->pause);
        c[7] = pp_cell_int(g->duration);
        c[8] = g->complete ? pp_cell_int(mb_bytes(g->before_mb)) : pp_cell_int(0);
        c[9] = g->has_stats ? pp_cell_int((int64_t)sum5(g->after)) : pp_cell_int(0);
        for (int q = 0; q < GC_GENS; q++)
            c[10 + q] = g->has_stats ? pp_cell_int((int64_t)g->after[q]) : pp_cell_int(0);
        c[15] = g->has_stats ? pp_cell_int((int64_t)sum5(g->promoted)) : pp_cell_int(0);
        c[16] = g->has_stats ? pp_cell_int(g->pinned) : pp_cell_int(0);
        c[17] = g->has_alloc_ticks ?
                    pp_cell_int(pp_i64_add_sat(g->alloc_since[0], g->alloc_since[1])) :
                    pp_cell_int(0);
        c[18] = g->heap_count > 0 ? pp_cell_int(g->heap_count) : pp_cell_int(0);
        c[19] = pp_cell_int(g->complete);
        rc = h->table_row(t, c);
    }
    free(idx);
    return rc;
}

typedef struct gen_agg {
    int64_t count, induced, total, max, promoted;
} gen_agg;

static int
gen_table(gc_state *st, pp_ctx *ctx, const gc_model *m, gen_agg *agg)
{
    for (uint32_t i = 0; i < m->count; i++) {
        const gc_one *g = &m->gcs[i];
        if (!g->complete || g->gen > 2)
            continue;
        gen_agg *a = &agg[g->gen];
        a->count++;
        a->induced += gc_is_induced(g->reason);
        a->total = pp_i64_add_sat(a->total, g->pause);
        if (g->pause > a->max)
            a->max = g->pause;
        a->promoted = pp_i64_add_sat(a->promoted, clamp_u64(sum5(g->promoted)));
    }
    pp_table *t = pp_pc_table_new(st->host, ctx, &pp_gc_tables[PP_GC_TABLE_BY_GENERATION], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    for (int gen = 0; gen <= 2; gen++) {
        const gen_agg *a = &agg[gen];
        pp_cell c[7] = { pp_cell_int(gen),
                         pp_cell_int(a->count),
                         pp_cell_int(a->induced),
                         pp_cell_int(a->total),
                         pp_cell_int(a->count ? a->total / a->count : 0),
                         pp_cell_int(a->max),
                         pp_cell_int(a->promoted) };
        if (st->host->table_row(t, c) != PP_OK)
            return PP_ENOMEM;
    }
    return PP_OK;
}

/* The application frame of each induced GC's GCTriggered stack, with the
 * GCs and the pause it caused: "frame" rows, the most pause first; the
 * first row's name goes to *top. */
typedef struct caller_row {
    const char *name; /* lives until finish returns (plugin.h) */
    int64_t gcs, pause;
} caller_row;

static const char *
caller_of(gc_state *st, const gc_rec *r)
{
    for (uint32_t f = 0; f < r->stack_len; f++) {
        const char *s = st->host->trace_symbolize(st->src, st->ips[r->stack_off + f], 0);
        if (s && !pp_pc_frame_unresolved(s) && !pp_pc_prefixes_match(&st->framework, s))
            return s;
    }
    return "[no application frame]";
}

static int
add_caller(caller_row **rows, uint32_t *n, uint32_t *cap, const char *name, int64_t pause)
{
    uint32_t k = 0;
    while (k < *n && strcmp((*rows)[k].name, name) != 0)
        k++;
    if (k == *n) {
        if (*n == *cap) {
            uint32_t c = *cap ? *cap * 2 : 8;
            caller_row *p = realloc(*rows, c * sizeof(*p));
            if (!p)
                return PP_ENOMEM;
            *rows = p;
            *cap = c;
        }
        (*rows)[k].name = name;
        (*rows)[k].gcs = 0;
        (*rows)[k].pause = 0;
        (*n)++;
    }
    (*rows)[k].gcs++;
    (*rows)[k].pause = pp_i64_add_sat((*rows)[k].pause, pause);
    return PP_OK;
}

static int
cmp_caller(const void *a, const void *b)
{
    const caller_row *x = a, *y = b;
    if (x->pause != y->pause)
        return x->pause > y->pause ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int
induced_callers(gc_state *st, pp_ctx *ctx, const gc_model *m, char *top, size_t topsz,
                int64_t *with_stack)
{
    caller_row *rows = NULL;
    uint32_t nrows = 0, cap = 0;
    int rc = PP_OK;
    top[0] = '\0';
    *with_stack = 0;
    for (uint32_t i = 0; i < m->count && rc == PP_OK; i++) {
        const gc_one *g = &m->gcs[i];
        if (!g->complete || !gc_is_induced(g->reason) || g->trigger < 0 || !st->src)
            continue;
        const gc_rec *r = &st->recs[g->trigger];
        if (!r->stack_len)
            continue;
        (*with_stack)++;
        rc = add_caller(&rows, &nrows, &cap, caller_of(st, r), g->pause);
    }
    if (rc == PP_OK && nrows) {
        qsort(rows, nrows, sizeof(*rows), cmp_caller);
        pp_table *t = pp_pc_table_new(st->host, ctx, &pp_gc_tables[PP_GC_TABLE_INDUCED_CALLERS], 1,
                                      NULL);
        rc = t ? PP_OK : PP_ENOMEM;
        for (uint32_t k = 0; k < nrows && rc == PP_OK; k++) {
            pp_cell c[4] = { pp_cell_str(rows[k].name), pp_cell_int(rows[k].gcs),
                             pp_cell_int(rows[k].pause), pp_cell_dbl(ms(rows[k].pause)) };
            rc = st->host->table_row(t, c);
        }
        snprintf(top, topsz, "%s", rows[0].name);
    }
    free(rows);
    return rc;
}

typedef struct summary {
    int64_t complete, induced, total_pause, longest, elapsed, loh_gen2, pinned_max;
    uint32_t longest_i, pinned_i;
    double share;
} summary;

static void
summarize(const gc_state *st, const gc_model *m, summary *s)
{
    memset(s, 0, sizeof(*s));
    s->elapsed = st->last_ns > st->first_ns ? st->last_ns - st->first_ns : 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const gc_one *g = &m->gcs[i];
        if (!g->complete)
            continue;
        s->complete++;
        s->induced += gc_is_induced(g->reason);
        s->total_pause = pp_i64_add_sat(s->total_pause, g->pause);
        if (g->pause > s->longest) {
            s->longest = g->pause;
            s->longest_i = i;
        }
        s->loh_gen2 += g->gen == 2 && g->reason == 4;
        if (g->has_stats && (int64_t)g->pinned > s->pinned_max) {
            s->pinned_max = g->pinned;
            s->pinned_i = i;
        }
    }
    s->share = s->elapsed ? 100.0 * (double)s->total_pause / (double)s->elapsed : 0;
    if (s->share > 100)
        s->share = 100;
}

static const char *
heap_mode(const gc_state *st, const gc_model *m)
{
    if ((st->startup_flags & SERVER_GC_FLAG) || m->heap_count > 1)
        return "server";
    if (st->saw_runtime_start)
        return "workstation";
    return "unknown";
}

/* TraceEvent's GetGCPauseTimePercentage: over the span from the first
 * complete GC's pause start to the last GCHeapStats, not the trace. */
static double
gc_span_percent(const gc_model *m, int64_t total_pause)
{
    for (uint32_t i = 0; i < m->count; i++)
        if (m->gcs[i].complete) {
            int64_t span = m->last_restart_end - m->gcs[i].pause_start;
            return span > 0 ? 100.0 * (double)total_pause / (double)span : 0;
        }
    return 0;
}

static void
totals(gc_state *st, pp_ctx *ctx, const gc_model *m, const summary *s, const gen_agg *agg)
{
    const pp_host_api *h = st->host;
    int64_t allocated = 0;
    for (uint32_t i = 0; i < m->count; i++)
        if (m->gcs[i].complete && m->gcs[i].has_alloc_ticks)
            allocated = pp_i64_add_sat(
                allocated, pp_i64_add_sat(m->gcs[i].alloc_since[0], m->gcs[i].alloc_since[1]));
    h->total_int(ctx, "gcs", PP_COL_COUNT, s->complete);
    h->total_int(ctx, "incomplete_gcs", PP_COL_COUNT, (int64_t)m->count - s->complete);
    h->total_int(ctx, "gen0_gcs", PP_COL_COUNT, agg[0].count);
    h->total_int(ctx, "gen1_gcs", PP_COL_COUNT, agg[1].count);
    h->total_int(ctx, "gen2_gcs", PP_COL_COUNT, agg[2].count);
    h->total_int(ctx, "induced_gcs", PP_COL_COUNT, s->induced);
    h->total_int(ctx, "loh_triggered_gen2_gcs", PP_COL_COUNT, s->loh_gen2);
    h->total_int(ctx, "total_pause", PP_COL_DURATION_NS, s->total_pause);
    h->total_int(ctx, "longest_pause", PP_COL_DURATION_NS, s->longest);
    h->total_int(ctx, "elapsed", PP_COL_DURATION_NS, s->elapsed);
    h->total_double(ctx, "pause_share", PP_COL_PERCENT, s->share);
    double span = gc_span_percent(m, s->total_pause);
    h->total_double(ctx, "pause_percent_perfview", PP_COL_NUMBER, span);
    h->total_double(ctx, "pause_ms_per_second", PP_COL_NUMBER,
                    s->elapsed ? ms(s->total_pause) / ((double)s->elapsed / 1e9) : 0);
    if (allocated)
        h->total_int(ctx, "allocated_between_gcs", PP_COL_BYTES, allocated);
    h->total_string(ctx, "heap_mode", heap_mode(st, m));
    if (m->heap_count > 0)
        h->total_int(ctx, "heap_count", PP_COL_COUNT, m->heap_count);
    h->total_string(ctx, "pause_definition", PAUSE_DEFINITION);
}

static void
finding_storm(gc_state *st, pp_ctx *ctx, const gc_model *m)
{
    int64_t n = 0, first = 0, last = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const gc_one *g = &m->gcs[i];
        if (!g->complete || g->gen != 2 || gc_is_induced(g->reason) || g->reason == 4)
            continue;
        if (n++ == 0)
            first = g->start;
        last = g->start;
    }
    if (n < 3)
        return;
    double every_s = (double)(last - first) / 1e9 / (double)(n - 1);
    if (every_s <= st->storm_seconds)
        st->host->finding(
            ctx, PP_SEVERITY_WARNING, "gc.gen2_storm",
            "%lld gen2 GCs, one every %.2f s (not induced, not LOH-triggered): objects live "
            "long enough to reach gen2 and die there (mid-life crisis). Fix: pool or reuse the "
            "objects that survive a few GCs (ObjectPool, ArrayPool), shorten their lifetime, or "
            "keep caches bounded; the alloc analyzer names who allocates them",
            (long long)n, every_s);
}

static void
finding_growth(gc_state *st, pp_ctx *ctx, const gc_model *m)
{
    const gc_one *first = NULL, *last = NULL;
    int64_t n = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const gc_one *g = &m->gcs[i];
        if (!g->complete || g->gen != 2 || !g->has_stats)
            continue;
        if (!first)
            first = g;
        last = g;
        n++;
    }
    if (n < 3)
        return;
    double a = (double)sum5(first->after), b = (double)sum5(last->after);
    if (b >= a * st->growth_ratio && b - a >= 10e6)
        st->host->finding(
            ctx, PP_SEVERITY_WARNING, "gc.heap_growth",
            "the heap after gen2 GCs grew from %.1f MB (GC #%u) to %.1f MB (GC #%u) over %lld "
            "gen2s: what survives a full GC keeps growing (footprint, a leak or an unbounded "
            "cache). Fix: take two gcdumps and diff them (perfpipe heap-diff) to see what holds "
            "the growth, then bound or release it",
            a / 1e6, first->number, b / 1e6, last->number, (long long)n);
}

static void
findings(gc_state *st, pp_ctx *ctx, const gc_model *m, const summary *s, const char *caller,
         int64_t with_stack)
{
    const pp_host_api *h = st->host;
    if (m->count == 0) {
        h->finding(
            ctx, PP_SEVERITY_INFO, "gc.no_gcs",
            "no GC in this trace (%llu runtime events): capture with dotnet-trace --profile gc-collect "
            "(or gc-verbose) while the application allocates",
            (unsigned long long)st->events);
        return;
    }
    if (s->share > st->pause_share_pct)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "gc.pause_share",
            "GCs paused the process %.1f%% of the trace (%.1f ms of %.1f ms, %lld GCs): the GC is the "
            "problem. Fix: allocate less (the alloc analyzer ranks who allocates), keep fewer objects "
            "alive across GCs, and check the GC mode (Server GC, DATAS, GCgen0size)",
            s->share, ms(s->total_pause), ms(s->elapsed), (long long)s->complete);
    if (ms(s->longest) > st->long_pause_ms) {
        const gc_one *g = &m->gcs[s->longest_i];
        int64_t over = 0;
        for (uint32_t i = 0; i < m->count; i++)
            over += m->gcs[i].complete && ms(m->gcs[i].pause) > st->long_pause_ms;
        h->finding(
            ctx, PP_SEVERITY_WARNING, "gc.long_pause",
            "%lld GC pauses over %.0f ms; the longest %.1f ms (GC #%u, gen%u %s, %s): requests in "
            "flight wait that long. Fix: fewer survivors per GC (what a blocking gen1/gen2 copies "
            "is what it costs), background GC left on (no GCConcurrent=0), and for gen2s avoid "
            "induced or LOH-triggered ones",
            (long long)over, st->long_pause_ms, ms(g->pause), g->number, g->gen,
            gc_type_name(g->type), gc_reason_name(g->reason));
    }
    finding_storm(st, ctx, m);
    if (s->induced > 0)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "gc.induced",
            "%lld induced GCs (GC.Collect or GC.AddMemoryPressure)%s%s%s. Fix: remove the GC.Collect "
            "call; the GC's own budgets collect when it pays, and a forced gen2 costs a full "
            "blocking collection each time",
            (long long)s->induced, caller[0] ? ", called from " : "", caller,
            caller[0] ?
                "" :
                (with_stack ?
                     "" :
                     " (no stacks: capture GCTriggered with a method rundown to see the caller)"));
    if (s->loh_gen2 > 0)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "gc.loh_gen2",
            "%lld gen2 GCs triggered by large-object allocations (reason AllocLarge): each buffer "
            "of 85,000 bytes or more goes to the LOH, and its budget forces a full GC. Fix: rent "
            "large buffers from ArrayPool<T>.Shared or reuse them, split them under 85 KB, or "
            "stream instead of buffering whole payloads",
            (long long)s->loh_gen2);
    finding_growth(st, ctx, m);
    if (s->pinned_max >= st->pinned_objects) {
        const gc_one *g = &m->gcs[s->pinned_i];
        h->finding(
            ctx, PP_SEVERITY_WARNING, "gc.pinning",
            "%lld pinned objects at GC #%u (gen%u): pinned objects cannot move, so gen0 fragments "
            "and survivors are demoted. Fix: pin for short spans (fixed, Memory<T>.Pin) or allocate "
            "long-lived pinned buffers on the POH (GC.AllocateArray(pinned: true)) once",
            (long long)s->pinned_max, g->number, g->gen);
    }
}

int
gc_report(gc_state *st, pp_ctx *ctx, pp_error *err)
{
    gc_model m;
    gen_agg agg[3];
    summary s;
    char caller[512];
    int64_t with_stack = 0;
    memset(agg, 0, sizeof(agg));
    int rc = gc_model_build(st, &m);
    if (rc == PP_OK)
        rc = per_gc_table(st, ctx, &m);
    if (rc == PP_OK)
        rc = gen_table(st, ctx, &m, agg);
    if (rc == PP_OK)
        rc = induced_callers(st, ctx, &m, caller, sizeof(caller), &with_stack);
    if (rc == PP_OK) {
        summarize(st, &m, &s);
        totals(st, ctx, &m, &s, agg);
        findings(st, ctx, &m, &s, caller, with_stack);
    }
    gc_model_free(&m);
    if (rc != PP_OK)
        st->host->error_set(err, rc, "gc: %s while writing the results",
                            rc == PP_ENOMEM ? "out of memory" : "a table refused a row");
    return rc;
}
