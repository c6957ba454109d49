/* plugins/cpu: the runtime's exception and contention events (rtevents.h). */
#include "rtevents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/agg.h"
#include "../common/frames.h"
#include "../common/strtab.h"
#include "../common/u64map.h"
#include "blocked.h"
#include "tables.h"
#include "../common/decl.h"

#define EV_EXC_THROWN 80u
#define EV_CONT_START 81u
#define EV_CONT_STOP  91u
#define EV_EXC_CATCH  250u
#define NONE          UINT32_MAX
#define OTHER_NAME    "[other]"
#define NO_STACK_NAME "[no stack]"

typedef struct rt_thread {
    uint32_t last_type; /* type id of the thread's latest throw, NONE */
    uint32_t pend;      /* contention entry of an open Start, NONE */
    int64_t pend_ns;
} rt_thread;

typedef struct rt_catch {
    uint64_t eip;
    uint32_t type;
    int64_t count;
} rt_catch;
typedef struct rt_cont {
    uint32_t first, depth;
    int64_t count, ns;
} rt_cont;

struct pp_cpu_rt {
    const pp_host_api *host;
    pp_pc_u64map thread_index; /* tid -> threads[] */
    rt_thread *threads;
    uint32_t nthreads, capthreads;
    pp_pc_strtab types;       /* exception type names; id 0 = "[other]" */
    pp_pc_u64map catch_index; /* eip << 12 | type -> catches[] */
    rt_catch *catches;
    uint32_t ncatches, capcatches;
    pp_pc_u64map cont_index; /* region << 32 | stack id -> conts[] */
    rt_cont *conts;
    uint32_t nconts, capconts;
    uint64_t *ips; /* the contention stacks' frames, leaf first */
    uint64_t nips, capips;
    uint64_t exceptions, contentions;
};

pp_cpu_rt *
pp_cpu_rt_new(const pp_host_api *host)
{
    pp_cpu_rt *rt = calloc(1, sizeof *rt);
    uint32_t id;

    if (!rt)
        return NULL;
    rt->host = host;
    pp_pc_strtab_init(&rt->types);
    if (pp_pc_strtab_intern(&rt->types, OTHER_NAME, strlen(OTHER_NAME), &id) != PP_OK) {
        pp_cpu_rt_free(rt);
        return NULL;
    }
    return rt;
}

void
pp_cpu_rt_free(pp_cpu_rt *rt)
{
    if (!rt)
        return;
    pp_pc_u64map_free(&rt->thread_index);
    pp_pc_u64map_free(&rt->catch_index);
    pp_pc_u64map_free(&rt->cont_index);
    pp_pc_strtab_free(&rt->types);
    free(rt->threads);
    free(rt->catches);
    free(rt->conts);
    free(rt->ips);
    free(rt);
}

/* Grow *v (n used, *cap allocated, elements of size sz) by one. */
static int
grow(void **v, uint32_t n, uint32_t *cap, size_t sz)
{
    if (n < *cap)
        return PP_OK;
    uint32_t ncap = *cap ? *cap * 2 : 16;
    void *g = realloc(*v, (size_t)ncap * sz);
    if (!g)
        return PP_ENOMEM;
    *v = g;
    *cap = ncap;
    return PP_OK;
}

static int
thread_of(pp_cpu_rt *rt, uint64_t tid, rt_thread **out)
{
    uint32_t i;

    if (!pp_pc_u64map_get(&rt->thread_index, tid, &i)) {
        if (grow((void **)&rt->threads, rt->nthreads, &rt->capthreads, sizeof *rt->threads) !=
            PP_OK)
            return PP_ENOMEM;
        i = rt->nthreads++;
        rt->threads[i] = (rt_thread){ NONE, NONE, 0 };
        if (pp_pc_u64map_put(&rt->thread_index, tid, i) != PP_OK)
            return PP_ENOMEM;
    }
    *out = &rt->threads[i];
    return PP_OK;
}

static int
on_throw(pp_cpu_rt *rt, const pp_trace_event *ev, rt_thread *th)
{
    pp_value v;
    uint32_t id = 0;

    rt->exceptions++;
    if (rt->host->trace_field(ev, "ExceptionType", &v) == PP_OK && v.type == PP_VALUE_STRING &&
        v.v.s[0] != '\0') {
        size_t n = strlen(v.v.s);
        if (!pp_pc_strtab_find(&rt->types, v.v.s, n, &id)) {
            id = 0;
            if (rt->types.count < PP_CPU_RT_MAX_TYPES &&
                pp_pc_strtab_intern(&rt->types, v.v.s, n, &id) != PP_OK)
                return PP_ENOMEM;
        }
    }
    th->last_type = id;
    return PP_OK;
}

static int
on_catch(pp_cpu_rt *rt, const pp_trace_event *ev, rt_thread *th)
{
    pp_value v;
    uint64_t eip = 0;
    uint32_t type = th->last_type == NONE ? 0 : th->last_type, i;

    if (rt->host->trace_field(ev, "EntryEIP", &v) == PP_OK &&
        (v.type == PP_VALUE_UINT || v.type == PP_VALUE_INT))
        eip = v.v.u;
    if (eip >> 52)
        eip = 0; /* not a user-space code address: "[other]" */
    uint64_t key = eip << 12 | type;
    if (!pp_pc_u64map_get(&rt->catch_index, key, &i)) {
        if (rt->ncatches >= PP_CPU_RT_MAX_ROWS) {
            key = 0; /* the "[other]" row */
            if (!pp_pc_u64map_get(&rt->catch_index, key, &i))
                i = NONE;
        } else {
            i = NONE;
        }
        if (i == NONE) {
            if (grow((void **)&rt->catches, rt->ncatches, &rt->capcatches, sizeof *rt->catches) !=
                PP_OK)
                return PP_ENOMEM;
            i = rt->ncatches++;
            rt->catches[i] = (rt_catch){ key >> 12, (uint32_t)(key & 0xfff), 0 };
            if (pp_pc_u64map_put(&rt->catch_index, key, i) != PP_OK)
                return PP_ENOMEM;
        }
    }
    rt->catches[i].count++;
    th->last_type = NONE;
    return PP_OK;
}

static int
on_contention_start(pp_cpu_rt *rt, const pp_trace_event *ev, rt_thread *th)
{
    uint32_t region = ev->struct_size >=
                              offsetof(pp_trace_event, stack_region) + sizeof ev->stack_region ?
                          ev->stack_region :
                          0;
    uint64_t key = ev->stack_depth ? (uint64_t)region << 32 | ev->stack_id : UINT64_MAX;
    uint32_t i;

    rt->contentions++;
    if (ev->stack_depth && ev->stack_id == 0)
        key = UINT64_MAX - 1; /* a stack with no id: one shared row, named by its first */
    if (!pp_pc_u64map_get(&rt->cont_index, key, &i)) {
        if (rt->nconts >= PP_CPU_RT_MAX_ROWS)
            key = UINT64_MAX; /* counted as "[no stack]" */
        if (!pp_pc_u64map_get(&rt->cont_index, key, &i)) {
            uint32_t depth = key == UINT64_MAX ? 0 : ev->stack_depth;
            if (depth > PP_CPU_RT_MAX_DEPTH)
                depth = PP_CPU_RT_MAX_DEPTH; /* the waiter sits near the leaf */
            if (grow((void **)&rt->conts, rt->nconts, &rt->capconts, sizeof *rt->conts) != PP_OK)
                return PP_ENOMEM;
            if (rt->nips + depth > rt->capips) {
                uint64_t cap = rt->capips ? rt->capips * 2 : 1024;
                while (cap < rt->nips + depth)
                    cap *= 2;
                uint64_t *g = realloc(rt->ips, (size_t)cap * sizeof *g);
                if (!g)
                    return PP_ENOMEM;
                rt->ips = g;
                rt->capips = cap;
            }
            if (depth)
                memcpy(rt->ips + rt->nips, ev->stack, depth * sizeof *ev->stack);
            i = rt->nconts++;
            rt->conts[i] = (rt_cont){ (uint32_t)rt->nips, depth, 0, 0 };
            rt->nips += depth;
            if (pp_pc_u64map_put(&rt->cont_index, key, i) != PP_OK)
                return PP_ENOMEM;
        }
    }
    rt->conts[i].count++;
    th->pend = i;
    th->pend_ns = ev->time_ns;
    return PP_OK;
}

static void
on_contention_stop(pp_cpu_rt *rt, const pp_trace_event *ev, rt_thread *th)
{
    pp_value v;
    int64_t ns = ev->time_ns - th->pend_ns;

    if (th->pend == NONE)
        return; /* its Start lies before the trace or the window */
    if (rt->host->trace_field(ev, "DurationNs", &v) == PP_OK && v.type == PP_VALUE_DOUBLE &&
        v.v.d >= 0 && v.v.d < 9e18)
        ns = (int64_t)v.v.d;
    if (ns > 0)
        rt->conts[th->pend].ns = pp_i64_add_sat(rt->conts[th->pend].ns, ns);
    th->pend = NONE;
}

int
pp_cpu_rt_event(pp_cpu_rt *rt, const pp_trace_event *ev)
{
    rt_thread *th;

    if (!rt->host->trace_field || ev->provider_known != PP_PROVIDER_RUNTIME ||
        (ev->event_id != EV_EXC_THROWN && ev->event_id != EV_EXC_CATCH &&
         ev->event_id != EV_CONT_START && ev->event_id != EV_CONT_STOP))
        return PP_OK;
    if (thread_of(rt, ev->thread_id, &th) != PP_OK)
        return PP_ENOMEM;
    switch (ev->event_id) {
    case EV_EXC_THROWN: return on_throw(rt, ev, th);
    case EV_EXC_CATCH: return on_catch(rt, ev, th);
    case EV_CONT_START: return on_contention_start(rt, ev, th);
    default: on_contention_stop(rt, ev, th); return PP_OK;
    }
}

/* ---- finish ---- */

static int
add_row(pp_pc_agg *a, const char *x, const char *y, const int64_t *vals)
{
    size_t nx = strlen(x), ny = strlen(y);
    char *key = malloc(nx + ny + 2);
    if (!key)
        return PP_ENOMEM;
    memcpy(key, x, nx);
    key[nx] = '\t';
    memcpy(key + nx + 1, y, ny + 1);
    int rc = pp_pc_agg_add(a, key, nx + ny + 1, vals, NULL);
    free(key);
    return rc;
}

/* The blocking frame and the waiter of a contention stack (blocked.h's
 * rules: the waiter is the first user frame from the leaf, else the frame
 * that called the wait). */
static int
name_contention(pp_pc_symcache *syms, const pp_trace_source *src, const uint64_t *ips,
                uint32_t depth, const char **lock, const char **waiter)
{
    int32_t wait = -1, user = -1;
    uint32_t id, ids[PP_CPU_RT_MAX_DEPTH];

    *lock = *waiter = NO_STACK_NAME;
    for (uint32_t i = 0; i < depth; i++) {
        if (pp_pc_symcache_name(syms, src, ips[i], &id) != PP_OK)
            return PP_ENOMEM;
        ids[i] = id;
        const char *f = pp_pc_strtab_get(syms->names, id);
        if (!pp_cpu_frame_framework(f)) {
            user = (int32_t)i;
            break;
        }
        if (wait < 0 && pp_cpu_frame_blocks(f))
            wait = (int32_t)i;
    }
    if (depth == 0)
        return PP_OK;
    uint32_t named = user >= 0 ? (uint32_t)user + 1 : depth;
    *lock = pp_pc_strtab_get(syms->names, ids[wait >= 0 ? (uint32_t)wait : 0]);
    uint32_t w = wait >= 0 ? (uint32_t)wait : 0;
    if (user >= 0) {
        w = (uint32_t)user;
    } else {
        while (w + 1 < named && pp_cpu_frame_blocks(pp_pc_strtab_get(syms->names, ids[w + 1])))
            w++;
        w = w + 1 < named ? w + 1 : w;
    }
    *waiter = pp_pc_strtab_get(syms->names, ids[w]);
    return PP_OK;
}

/* Blocked time as a share of the thread time, at most 100: the samples
 * weigh only threads the sampler saw (a thread blocked from before the
 * trace began, or outside the window, has contention time and no samples). */
static double
share(int64_t ns, int64_t thread_ns)
{
    double s = thread_ns > 0 ? 100.0 * (double)ns / (double)thread_ns : 0.0;
    return s > 100.0 ? 100.0 : s;
}

static int
emit_agg(const pp_host_api *h, pp_ctx *ctx, uint32_t table, const pp_pc_agg *a, uint32_t rank_col,
         int64_t top, int64_t span_ns, int64_t thread_ns)
{
    pp_table *t = pp_pc_table_new(h, ctx, &pp_cpu_tables[table], 2, NULL);
    uint32_t n = pp_pc_agg_count(a);
    uint32_t *order = n ? pp_pc_agg_rank(a, rank_col, 0) : NULL;
    int rc = PP_OK;

    if (!t || (n && !order)) {
        free(order);
        return PP_ENOMEM;
    }
    for (uint32_t i = 0; i < n && (top == 0 || i < (uint64_t)top) && rc == PP_OK; i++) {
        const char *key = pp_pc_agg_key(a, order[i]);
        const char *tab = strchr(key, '\t');
        const int64_t *v = pp_pc_agg_vals(a, order[i]);
        char x[1024];
        size_t xl = (size_t)(tab - key) < sizeof x - 1 ? (size_t)(tab - key) : sizeof x - 1;

        memcpy(x, key, xl);
        x[xl] = '\0';
        if (table == PP_CPU_T_EXCEPTIONS) { /* frame, type, count, per_sec */
            pp_cell c[4] = { pp_cell_str(x), pp_cell_str(tab + 1), pp_cell_int(v[0]),
                             pp_cell_dbl(span_ns > 0 ? (double)v[0] * 1e9 / (double)span_ns :
                                                       0.0) };
            rc = h->table_row(t, c);
        } else { /* contention: lock, waiter, count, ms, share */
            pp_cell c[5] = { pp_cell_str(x), pp_cell_str(tab + 1), pp_cell_int(v[0]),
                             pp_cell_dbl((double)v[1] / 1e6), pp_cell_dbl(share(v[1], thread_ns)) };
            rc = h->table_row(t, c);
        }
    }
    free(order);
    return rc;
}

int
pp_cpu_rt_emit(pp_cpu_rt *rt, pp_ctx *ctx, const pp_trace_source *src, int64_t top, int64_t span_ns,
               int64_t thread_ns)
{
    pp_pc_strtab names;
    pp_pc_symcache syms;
    pp_pc_agg exc, cont;
    int rc = PP_OK;

    if (!rt || (rt->ncatches == 0 && rt->nconts == 0))
        return PP_OK;
    pp_pc_strtab_init(&names);
    pp_pc_symcache_init(&syms, rt->host, &names);
    pp_pc_agg_init(&exc, 1);
    pp_pc_agg_init(&cont, 2);
    for (uint32_t i = 0; i < rt->ncatches && rc == PP_OK; i++) {
        const rt_catch *k = &rt->catches[i];
        const char *frame = OTHER_NAME;
        uint32_t id;

        if (k->eip) {
            if ((rc = pp_pc_symcache_name(&syms, src, k->eip, &id)) != PP_OK)
                break;
            frame = pp_pc_strtab_get(&names, id);
        }
        rc = add_row(&exc, frame, pp_pc_strtab_get(&rt->types, k->type), &k->count);
    }
    for (uint32_t i = 0; i < rt->nconts && rc == PP_OK; i++) {
        const rt_cont *k = &rt->conts[i];
        const char *lock, *waiter;
        int64_t v[2] = { k->count, k->ns };

        /* no contention had a stack: ips is NULL, and NULL + 0 is UB */
        rc = name_contention(&syms, src, k->depth ? rt->ips + k->first : NULL, k->depth, &lock,
                             &waiter);
        if (rc == PP_OK)
            rc = add_row(&cont, lock, waiter, v);
    }
    if (rc == PP_OK && rt->ncatches)
        rc = emit_agg(rt->host, ctx, PP_CPU_T_EXCEPTIONS, &exc, 0, top, span_ns, thread_ns);
    if (rc == PP_OK && rt->nconts)
        rc = emit_agg(rt->host, ctx, PP_CPU_T_CONTENTION, &cont, 1, top, span_ns, thread_ns);
    if (rc == PP_OK && rt->exceptions)
        rc = rt->host->total_int(ctx, "exceptions_thrown", PP_COL_COUNT, (int64_t)rt->exceptions);
    if (rc == PP_OK && rt->contentions)
        rc = rt->host->total_int(ctx, "lock_contentions", PP_COL_COUNT, (int64_t)rt->contentions);
    pp_pc_agg_free(&exc);
    pp_pc_agg_free(&cont);
    pp_pc_symcache_free(&syms);
    pp_pc_strtab_free(&names);
    return rc;
}
