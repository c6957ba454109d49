/* plugins/gc: descriptor, options, and the intake of the runtime's GC
 * events as records (gc.h says why records). Fields are decoded through
 * the host's manifest by name; GCPerHeapHistory's per-generation array,
 * which the manifest leaves as raw bytes, is read here. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "gc.h"

static const pp_option_decl options[] = {
    { "pause_share", PP_OPT_DOUBLE, 0, "10",
      "percent of the trace's time paused by GCs that raises gc.pause_share" },
    { "long_pause_ms", PP_OPT_DOUBLE, 0, "100",
      "a GC pause longer than this (ms) raises gc.long_pause" },
    { "storm_seconds", PP_OPT_DOUBLE, 0, "5",
      "gen2 GCs (not induced, not LOH-triggered) at least 3 and on average this close (s) raise gc.gen2_storm" },
    { "growth_ratio", PP_OPT_DOUBLE, 0, "1.5",
      "heap after the last gen2 over heap after the first (and 10 MB more) that raises gc.heap_growth" },
    { "pinned_objects", PP_OPT_INT, 0, "1000",
      "pinned objects seen at one GC (GCHeapStats) that raise gc.pinning" },
    { "top", PP_OPT_INT, 0, "0",
      "rows of the per-GC table (0 = all; the longest pauses first when cut)" },
    { "framework", PP_OPT_STRING_LIST, 0, "System.,Microsoft.,Interop.",
      "frame prefixes skipped when naming the caller of an induced GC" },
};

/* Runtime event ids (Microsoft-Windows-DotNETRuntime). */
enum {
    ID_GC_START = 1,
    ID_GC_END = 2,
    ID_RESTART_END = 3,
    ID_HEAPSTATS = 4,
    ID_SUSPEND_END = 8,
    ID_SUSPEND = 9,
    ID_ALLOC_TICK = 10,
    ID_TRIGGERED = 35,
    ID_RUNTIME_START = 187,
    ID_PERHEAP = 204,
    ID_GLOBAL = 205,
};

static int
gc_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state, pp_error *err)
{
    gc_state *st = calloc(1, sizeof(*st));
    if (!st) {
        host->error_set(err, PP_ENOMEM, "gc: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->ctx = ctx;
    st->opts = opts;
    st->pause_share_pct = 10;
    st->long_pause_ms = 100;
    st->storm_seconds = 5;
    st->growth_ratio = 1.5;
    st->pinned_objects = 1000;
    st->first_ns = INT64_MAX;
    st->last_ns = INT64_MIN;
    if (host->opt_double(opts, "pause_share", &st->pause_share_pct) == PP_EINVAL ||
        host->opt_double(opts, "long_pause_ms", &st->long_pause_ms) == PP_EINVAL ||
        host->opt_double(opts, "storm_seconds", &st->storm_seconds) == PP_EINVAL ||
        host->opt_double(opts, "growth_ratio", &st->growth_ratio) == PP_EINVAL ||
        host->opt_int(opts, "pinned_objects", &st->pinned_objects) == PP_EINVAL ||
        host->opt_int(opts, "top", &st->top) == PP_EINVAL) {
        free(st);
        host->error_set(err, PP_EINVAL, "gc: bad option type");
        return PP_EINVAL;
    }
    if (!(st->pause_share_pct >= 0 && st->pause_share_pct <= 100) ||
        !(st->long_pause_ms >= 0 && st->long_pause_ms <= 1e9) ||
        !(st->storm_seconds > 0 && st->storm_seconds <= 1e6) ||
        !(st->growth_ratio >= 1 && st->growth_ratio <= 1e6) || st->pinned_objects < 1 ||
        st->top < 0) {
        free(st);
        host->error_set(
            err, PP_EINVAL,
            "gc: pause_share must be 0..100, long_pause_ms 0..1e9, storm_seconds above 0, "
            "growth_ratio >= 1, pinned_objects >= 1, top >= 0");
        return PP_EINVAL;
    }
    int rc = pp_pc_prefixes_load(host, opts, "framework", &st->framework, err);
    if (rc != PP_OK) {
        free(st);
        return rc;
    }
    *state = st;
    return PP_OK;
}

static int
push(gc_state *st, gc_rec **out)
{
    if (st->nrecs == st->cap) {
        uint64_t cap = st->cap ? st->cap * 2 : 256;
        gc_rec *r = realloc(st->recs, (size_t)cap * sizeof(*r));
        if (!r)
            return PP_ENOMEM;
        st->recs = r;
        st->cap = cap;
    }
    *out = &st->recs[st->nrecs++];
    memset(*out, 0, sizeof(**out));
    return PP_OK;
}

static uint64_t
field_u(const gc_state *st, const pp_trace_event *e, const char *name)
{
    pp_value v;
    if (st->host->trace_field(e, name, &v) != PP_OK)
        return 0;
    if (v.type == PP_VALUE_UINT)
        return v.v.u;
    if (v.type == PP_VALUE_INT)
        return v.v.i < 0 ? 0 : (uint64_t)v.v.i;
    return 0;
}

static int
keep_stack(gc_state *st, const pp_trace_event *e, gc_rec *r)
{
    uint32_t n = e->stack_depth < GC_MAX_STACK ? e->stack_depth : GC_MAX_STACK;
    if (!e->stack || n == 0)
        return PP_OK;
    if (st->nips + n > st->ips_cap) {
        uint64_t cap = st->ips_cap ? st->ips_cap * 2 : 1024;
        while (cap < st->nips + n)
            cap *= 2;
        uint64_t *p = realloc(st->ips, (size_t)cap * sizeof(*p));
        if (!p)
            return PP_ENOMEM;
        st->ips = p;
        st->ips_cap = cap;
    }
    memcpy(st->ips + st->nips, e->stack, n * sizeof(uint64_t));
    r->stack_off = (uint32_t)st->nips;
    r->stack_len = n;
    st->nips += n;
    return PP_OK;
}

static uint64_t
rd_ptr(const uint8_t *p, uint32_t ps)
{
    if (ps == 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* GCPerHeapHistory v3: 2 + 7 pointers + 6 u32 of fixed fields, then Count
 * entries of 10 pointers whose first is SizeBefore. Other versions and
 * sizes that do not add up are left out (TraceEvent drops them too). */
static int
perheap(gc_state *st, const pp_trace_event *e, gc_rec *r)
{
    uint32_t ps = e->pointer_size == 4 ? 4 : 8;
    uint64_t fixed = 30 + 7 * (uint64_t)ps, count = field_u(st, e, "Count");
    if (e->version != 3 || count > GC_GENS || count < 4 ||
        e->payload_size != fixed + count * 10 * ps)
        return 0;
    for (uint64_t g = 0; g < count; g++)
        r->size[g] = rd_ptr(e->payload + fixed + g * 10 * ps, ps);
    return 1;
}

static int
heapstats(gc_state *st, const pp_trace_event *e, gc_rec *r)
{
    static const char *const sizes[GC_GENS] = { "GenerationSize0", "GenerationSize1",
                                                "GenerationSize2", "GenerationSize3",
                                                "GenerationSize4" };
    static const char *const prom[GC_GENS] = { "TotalPromotedSize0", "TotalPromotedSize1",
                                               "TotalPromotedSize2", "TotalPromotedSize3",
                                               "TotalPromotedSize4" };
    for (int g = 0; g < GC_GENS; g++) {
        r->size[g] = field_u(st, e, sizes[g]);
        r->promoted[g] = field_u(st, e, prom[g]);
    }
    r->a = (uint32_t)field_u(st, e, "PinnedObjectCount");
    return 1;
}

/* The record for one runtime event, or none (returns 0). */
static int
decode(gc_state *st, const pp_trace_event *e, gc_rec *r)
{
    switch (e->event_id) {
    case ID_GC_START:
        r->kind = GC_EV_START;
        r->a = (uint32_t)field_u(st, e, "Count");
        r->b = (uint32_t)field_u(st, e, "Depth");
        r->c = (uint32_t)field_u(st, e, "Reason");
        r->d = (uint32_t)field_u(st, e, "Type");
        return 1;
    case ID_GC_END:
        r->kind = GC_EV_END;
        r->a = (uint32_t)field_u(st, e, "Count");
        return 1;
    case ID_SUSPEND:
        r->kind = GC_EV_SUSPEND;
        r->a = (uint32_t)field_u(st, e, "Reason");
        return 1;
    case ID_SUSPEND_END: r->kind = GC_EV_SUSPEND_END; return 1;
    case ID_RESTART_END: r->kind = GC_EV_RESTART_END; return 1;
    case ID_HEAPSTATS: r->kind = GC_EV_HEAPSTATS; return heapstats(st, e, r);
    case ID_GLOBAL:
        r->kind = GC_EV_GLOBAL;
        r->a = (uint32_t)field_u(st, e, "NumHeaps");
        return 1;
    case ID_PERHEAP: r->kind = GC_EV_PERHEAP; return perheap(st, e, r);
    case ID_ALLOC_TICK:
        r->kind = GC_EV_ALLOC;
        r->a = (uint32_t)field_u(st, e, "AllocationKind");
        r->amount = e->version >= 2 ? field_u(st, e, "AllocationAmount64") :
                                      field_u(st, e, "AllocationAmount");
        return 1;
    case ID_TRIGGERED:
        r->kind = GC_EV_TRIGGERED;
        r->a = (uint32_t)field_u(st, e, "Reason");
        return 1;
    default: return 0;
    }
}

static int
gc_consume(void *state, const pp_record *rec, pp_error *err)
{
    gc_state *st = state;
    if (rec->kind != PP_KIND_NETTRACE)
        return PP_OK;
    const pp_trace_event *e = rec->u.event;
    if (!st->src)
        st->src = e->source;
    if (e->time_ns < st->first_ns)
        st->first_ns = e->time_ns;
    if (e->time_ns > st->last_ns)
        st->last_ns = e->time_ns;
    if (e->provider_known != PP_PROVIDER_RUNTIME && e->provider_known != PP_PROVIDER_RUNDOWN)
        return PP_OK;
    if (e->event_id == ID_RUNTIME_START) {
        st->startup_flags = (uint32_t)field_u(st, e, "StartupFlags");
        st->saw_runtime_start = 1;
        return PP_OK;
    }
    if (e->provider_known != PP_PROVIDER_RUNTIME)
        return PP_OK;
    st->events++;
    gc_rec tmp;
    memset(&tmp, 0, sizeof(tmp));
    if (!decode(st, e, &tmp))
        return PP_OK;
    gc_rec *r;
    if (push(st, &r) != PP_OK)
        goto oom;
    *r = tmp;
    r->t = e->time_ns;
    r->thread = e->thread_id;
    r->order = st->nrecs - 1;
    if (r->kind == GC_EV_TRIGGERED && keep_stack(st, e, r) != PP_OK)
        goto oom;
    return PP_OK;
oom:
    st->host->error_set(err, PP_ENOMEM, "gc: out of memory");
    return PP_ENOMEM;
}

static int
gc_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return gc_report(state, ctx, err);
}

static void
gc_destroy(void *state)
{
    gc_state *st = state;
    if (!st)
        return;
    free(st->recs);
    free(st->ips);
    pp_pc_prefixes_free(&st->framework);
    free(st);
}

static int
gc_fork(void *state, void **child, pp_error *err)
{
    gc_state *st = state;
    return gc_create(st->host, st->ctx, st->opts, child, err);
}

/* The child read the part of the file after the parent's: its records
 * follow the parent's, its stacks shift by the parent's frame count. */
static int
gc_merge(void *state, void *child, pp_error *err)
{
    gc_state *st = state, *c = child;
    uint64_t base = st->nips;
    for (uint64_t i = 0; i < c->nrecs; i++) {
        gc_rec *r;
        if (push(st, &r) != PP_OK)
            goto oom;
        *r = c->recs[i];
        r->order = st->nrecs - 1;
        if (r->stack_len)
            r->stack_off += (uint32_t)base;
    }
    if (c->nips) {
        if (st->nips + c->nips > st->ips_cap) {
            uint64_t *p = realloc(st->ips, (size_t)(st->nips + c->nips) * sizeof(*p));
            if (!p)
                goto oom;
            st->ips = p;
            st->ips_cap = st->nips + c->nips;
        }
        memcpy(st->ips + st->nips, c->ips, (size_t)c->nips * sizeof(uint64_t));
        st->nips += c->nips;
    }
    if (!st->src)
        st->src = c->src;
    st->events += c->events;
    if (c->first_ns < st->first_ns)
        st->first_ns = c->first_ns;
    if (c->last_ns > st->last_ns)
        st->last_ns = c->last_ns;
    if (c->saw_runtime_start && !st->saw_runtime_start) {
        st->saw_runtime_start = 1;
        st->startup_flags = c->startup_flags;
    }
    return PP_OK;
oom:
    st->host->error_set(err, PP_ENOMEM, "gc: out of memory merging a region");
    return PP_ENOMEM;
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "gc",
    .version = "1.0.0",
    .summary =
        "Garbage collections (PerfView's GCStats): every GC's generation, reason, pause and heap sizes",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options = options,
    .create = gc_create,
    .consume = gc_consume,
    .finish = gc_finish,
    .destroy = gc_destroy,
    .fork = gc_fork,
    .merge = gc_merge,
    .tables = pp_gc_tables,
};

PP_PLUGIN_DEFINE(descriptor);
