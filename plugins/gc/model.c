/* plugins/gc: the GC model. Written after the rules TraceEvent's
 * TraceLoadedDotNetRuntime applies (PerfView's GCStats), so that every
 * GC's pause is the one PerfView reports:
 *  - only suspensions for a GC (reason 1) or for a background GC's
 *    preparation (reason 6) count; the sample profiler's suspensions
 *    (reason "other") are no GC pause;
 *  - a blocking GC's pause runs from its suspension's start to the end of
 *    the restart that follows it, and the GC completes there if its
 *    GCHeapStats came;
 *  - a background GC's pause is its initial suspension plus each later
 *    suspension for it (start to restart end); it completes at its
 *    GCHeapStats, since it ends without a restart;
 *  - the ephemeral GC a background GC starts with pauses from its own
 *    GCStart;
 *  - heap size before is the per-heap histories' SizeBefore over every
 *    generation (gen0..POH: TraceEvent 4.0.0's HeapSizeBeforeMB includes
 *    the POH, checked on the fixtures), else estimated from the last
 *    GCHeapStats before it. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "gc.h"

#define REASON_PM_FULL      12u
#define SUSPEND_FOR_GC      1u
#define SUSPEND_FOR_GC_PREP 6u

typedef struct walk {
    gc_model *m;
    int64_t tid_gc, tid_bgc, tid_other; /* -1: none */
    int64_t suspend_t, suspend_end_t;   /* -1: none */
    uint32_t last_suspend_reason;
    int64_t current_bgc; /* index, -1 */
    int64_t alloc_now[2], alloc_at_last[2];
    int alloc_ticks;
    int64_t trigger; /* the last GCTriggered record not yet given to a GC */
} walk;

const char *
gc_reason_name(uint32_t r)
{
    static const char *const names[] = { "AllocSmall",        "Induced",
                                         "LowMemory",         "Empty",
                                         "AllocLarge",        "OutOfSpaceSOH",
                                         "OutOfSpaceLOH",     "InducedNotForced",
                                         "Internal",          "InducedLowMemory",
                                         "InducedCompacting", "LowMemoryHost",
                                         "PMFullGC",          "LowMemoryHostBlocking" };
    return r < sizeof(names) / sizeof(names[0]) ? names[r] : "Unknown";
}

const char *
gc_type_name(uint32_t t)
{
    return t == GC_TYPE_BLOCKING   ? "blocking" :
           t == GC_TYPE_BACKGROUND ? "background" :
           t == GC_TYPE_FOREGROUND ? "foreground" :
                                     "unknown";
}

int
gc_is_induced(uint32_t r)
{
    return r == 1 || r == 7;
}

static int
cmp_rec(const void *a, const void *b)
{
    const gc_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* TraceEvent's "current GC": the last one while incomplete, else the
 * background GC in flight. */
static gc_one *
current(walk *w)
{
    gc_model *m = w->m;
    if (m->count == 0)
        return NULL;
    if (!m->gcs[m->count - 1].complete)
        return &m->gcs[m->count - 1];
    return w->current_bgc >= 0 ? &m->gcs[w->current_bgc] : NULL;
}

static void
on_suspend(walk *w, const gc_rec *r)
{
    if (r->a == SUSPEND_FOR_GC)
        w->tid_gc = (int64_t)r->thread;
    else if (r->a == SUSPEND_FOR_GC_PREP)
        w->tid_bgc = (int64_t)r->thread;
    else {
        w->tid_other = (int64_t)r->thread;
        return;
    }
    w->last_suspend_reason = r->a;
    w->suspend_t = r->t;
}

static void
on_suspend_end(walk *w, const gc_rec *r)
{
    int64_t tid = (int64_t)r->thread;
    if (tid != w->tid_bgc && tid != w->tid_gc)
        return;
    if (w->tid_bgc > 0 && w->current_bgc >= 0) {
        gc_one *b = &w->m->gcs[w->current_bgc];
        b->suspend = pp_i64_add_sat(b->suspend, pp_i64_add_sat(r->t, -w->suspend_t));
    }
    w->suspend_end_t = r->t;
}

static void
concurrent_pause(walk *w, gc_one *g, int64_t restart_end)
{
    if (w->tid_bgc > 0)
        g->pause = pp_i64_add_sat(g->pause, pp_i64_add_sat(restart_end, -w->suspend_t));
    else
        g->pause = pp_i64_add_sat(restart_end, -g->pause_start);
}

static void
on_restart_end(walk *w, const gc_rec *r)
{
    int64_t tid = (int64_t)r->thread;
    if (tid == w->tid_other)
        w->tid_other = -1;
    if (tid != w->tid_bgc && tid != w->tid_gc)
        return;
    gc_one *g = current(w);
    if (g) {
        if (g->type == GC_TYPE_BACKGROUND || g->duration == 0) {
            concurrent_pause(w, g, r->t);
        } else {
            g->pause = r->t - g->pause_start;
            if (g->has_stats)
                g->complete = 1;
        }
    }
    w->suspend_t = -1;
    w->tid_bgc = -1;
    w->tid_gc = -1;
}

static int
on_start(walk *w, const gc_rec *r)
{
    gc_model *m = w->m;
    if (!(w->tid_gc > 0 || w->tid_other > 0))
        return PP_OK;
    if (m->count > 0 && m->gcs[m->count - 1].number == r->a)
        return PP_OK; /* the second GCStart of one GC */
    int ephemeral_at_bgc = m->count > 0 && m->gcs[m->count - 1].type == GC_TYPE_BACKGROUND &&
                           !m->gcs[m->count - 1].complete && r->d == GC_TYPE_BLOCKING;
    if (m->count == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 64;
        gc_one *p = realloc(m->gcs, (size_t)cap * sizeof(*p));
        if (!p)
            return PP_ENOMEM;
        m->gcs = p;
        m->cap = cap;
    }
    if (r->c == REASON_PM_FULL) {
        gc_one *last = current(w);
        if (last)
            last->complete = 1;
    }
    gc_one *g = &m->gcs[m->count];
    memset(g, 0, sizeof(*g));
    g->number = r->a;
    g->gen = r->b;
    g->reason = r->c;
    g->type = r->d;
    g->heap_count = m->heap_count;
    g->trigger = w->trigger; /* GCTriggered fires just before the GCStart it causes */
    w->trigger = -1;
    if (ephemeral_at_bgc || r->c == REASON_PM_FULL) {
        g->pause_start = r->t;
    } else {
        g->pause_start = w->suspend_t;
        if (w->suspend_end_t == -1)
            w->suspend_end_t = r->t;
        g->suspend = w->suspend_end_t - w->suspend_t;
    }
    g->start = r->t;
    if (g->type == GC_TYPE_BACKGROUND) {
        w->current_bgc = m->count;
        g->pause = g->suspend;
    }
    m->count++;
    return PP_OK;
}

static void
on_heapstats(walk *w, const gc_rec *r)
{
    gc_one *g = current(w);
    if (g) {
        g->has_stats = 1;
        memcpy(g->after, r->size, sizeof(g->after));
        memcpy(g->promoted, r->promoted, sizeof(g->promoted));
        g->pinned = r->a;
        if (w->alloc_ticks) {
            g->has_alloc_ticks = 1;
            g->alloc_since[0] = w->alloc_now[0] - w->alloc_at_last[0];
            g->alloc_since[1] = w->alloc_now[1] - w->alloc_at_last[1];
        }
        if (g->type == GC_TYPE_BACKGROUND && w->current_bgc >= 0) {
            w->m->gcs[w->current_bgc].complete = 1;
            w->current_bgc = -1;
        }
    }
    w->alloc_at_last[0] = w->alloc_now[0];
    w->alloc_at_last[1] = w->alloc_now[1];
    w->m->last_restart_end = r->t;
}

static void
on_history(walk *w, const gc_rec *r)
{
    gc_one *g = current(w);
    if (r->kind == GC_EV_GLOBAL) {
        if (w->m->heap_count == -1)
            w->m->heap_count = (int32_t)r->a;
        if (g && g->heap_count == -1)
            g->heap_count = (int32_t)r->a;
        return;
    }
    if (!g)
        return;
    g->heaps_hist++;
    for (int k = 0; k < GC_GENS; k++)
        g->before_hist[k] += r->size[k];
}

/* TraceEvent's GetGenSizeBeforeMB summed over the generations, in MB. */
static double
size_before_mb(const gc_model *m, uint32_t i)
{
    const gc_one *g = &m->gcs[i];
    double mb = 0;
    if (g->heaps_hist) {
        for (int k = 0; k < GC_GENS; k++)
            mb += (double)g->before_hist[k] / 1e6;
        return mb;
    }
    double gen0_ticks = (double)g->alloc_since[0] / 1e6;
    if (i == 0)
        return gen0_ticks;
    const gc_one *prev = NULL;
    for (uint32_t j = i - 1; j > 0; j--) /* index 0 is never looked at, as in TraceEvent */
        if (m->gcs[j].has_stats) {
            prev = &m->gcs[j];
            break;
        }
    if (!prev)
        return 0;
    double g0 = (double)prev->after[0] / 1e6;
    uint64_t loh = prev->after[3], poh = prev->after[4];
    if (g->has_stats && g->after[3] > loh)
        loh = g->after[3];
    if (g->has_stats && g->after[4] > poh)
        poh = g->after[4];
    return (g0 > gen0_ticks ? g0 : gen0_ticks) + (double)prev->after[1] / 1e6 +
           (double)prev->after[2] / 1e6 + (double)loh / 1e6 + (double)poh / 1e6;
}

int
gc_model_build(gc_state *st, gc_model *m)
{
    memset(m, 0, sizeof(*m));
    m->heap_count = -1;
    m->last_restart_end = -1;
    if (st->nrecs > 1) /* recs is NULL when the trace had no GC event */
        qsort(st->recs, (size_t)st->nrecs, sizeof(gc_rec), cmp_rec);
    walk w = { m, -1, -1, -1, -1, -1, 0, -1, { 0, 0 }, { 0, 0 }, 0, -1 };
    for (uint64_t i = 0; i < st->nrecs; i++) {
        const gc_rec *r = &st->recs[i];
        switch (r->kind) {
        case GC_EV_SUSPEND: on_suspend(&w, r); break;
        case GC_EV_SUSPEND_END: on_suspend_end(&w, r); break;
        case GC_EV_RESTART_END: on_restart_end(&w, r); break;
        case GC_EV_START:
            if (on_start(&w, r) != PP_OK)
                return PP_ENOMEM;
            break;
        case GC_EV_END: {
            gc_one *g = current(&w);
            if (g)
                g->duration = r->t - g->start;
            break;
        }
        case GC_EV_HEAPSTATS: on_heapstats(&w, r); break;
        case GC_EV_GLOBAL:
        case GC_EV_PERHEAP: on_history(&w, r); break;
        case GC_EV_TRIGGERED: w.trigger = (int64_t)i; break;
        case GC_EV_ALLOC: {
            /* A damaged amount saturates the running sum, never wraps it. */
            int64_t *now = &w.alloc_now[r->a == 0 ? 0 : 1];
            w.alloc_ticks = 1;
            *now = pp_i64_add_sat(*now, r->amount > INT64_MAX ? INT64_MAX : (int64_t)r->amount);
            break;
        }
        default: break;
        }
    }
    for (uint32_t i = 0; i < m->count; i++)
        m->gcs[i].before_mb = size_before_mb(m, i);
    return PP_OK;
}

void
gc_model_free(gc_model *m)
{
    free(m->gcs);
    memset(m, 0, sizeof(*m));
}
