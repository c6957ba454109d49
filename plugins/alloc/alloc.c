/* plugins/alloc: who allocates (issue #5), by type and by responsible frame,
 * from GCAllocationTick events with stacks. This file is the plugin's
 * descriptor and its consume side: ticks are decoded and aggregated by
 * (type, stack as IPs, kind); frames are named in finish() (report.c),
 * when the method rundown at the end of the trace has been read. */
#include "alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tick.h"

static const pp_option_decl alloc_options[] = {
    { "top", PP_OPT_INT, 0, "25", "rows per table (0 = all)" },
    { "top-stacks", PP_OPT_INT, 0, "1000",
      "rows of by_stack, heaviest first; the rest are summed in one row \"[other stacks]\" (0 = every stack)" },
    { "type-stacks", PP_OPT_BOOL, 0, "false",
      "by_type_stack (stacks per allocated type) with every row (pprof's type labels; `perfpipe alloc FILE --format pprof` sets it); false: its top-stacks heaviest, the rest in one row" },
    { "fold-generated", PP_OPT_BOOL, 0, "true",
      "attribute lambdas, closures and async state machines to the method that wrote them" },
    { "framework", PP_OPT_STRING_LIST, 0, "System.,Microsoft.,Internal.",
      "name prefixes of framework code: the responsible frame is the first frame, from the allocation site outward, matching none" },
    { "focus", PP_OPT_STRING_LIST, 0, NULL,
      "name prefixes of the application's code: always responsible, even under a framework prefix" },
    { "expect-min-bytes", PP_OPT_INT, 0, NULL,
      "sampled bytes the scenario must at least allocate (also the run knob of that name); far less means the wrong process was traced" },
    PP_PC_WINDOW_OPTION_DECLS,
};

static int
parse_size(const char *s, int64_t *out)
{
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0))
        return -1;
    while (*end == ' ')
        end++;
    double mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1e3;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1e6;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1e9;
        end++;
        break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v * mul > 9.2e18)
        return -1;
    *out = (int64_t)(v * mul);
    return 0;
}

static void
alloc_destroy(void *state)
{
    pp_alloc *a = state;
    if (!a)
        return;
    pp_pc_prefixes_free(&a->framework);
    pp_pc_prefixes_free(&a->focus);
    pp_pc_strtab_free(&a->types);
    pp_pc_stacks_free(&a->stacks);
    pp_alloc_typecache_free(&a->type_cache);
    pp_alloc_rows_free(&a->raw);
    free(a->scratch);
    pp_pc_u64map_free(&a->heap_kinds);
    pp_pc_u64map_free(&a->row_threads);
    free(a);
}

static int
alloc_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state,
             pp_error *err)
{
    pp_alloc *a = calloc(1, sizeof *a);
    if (!a) {
        host->error_set(err, PP_ENOMEM, "alloc: out of memory");
        return PP_ENOMEM;
    }
    a->host = host;
    a->ctx = ctx;
    a->opts = opts;
    a->first_ns = INT64_MAX;
    a->last_ns = INT64_MIN;
    a->first_tick_ns = INT64_MAX;
    a->last_tick_ns = INT64_MIN;
    pp_pc_strtab_init(&a->types);
    int rc = PP_OK;
    a->top = 25;
    a->top_stacks = PP_ALLOC_TOP_STACKS;
    if (host->opt_int(opts, "top", &a->top) == PP_OK && a->top < 0) {
        host->error_set(err, PP_EINVAL, "option 'top': expected a row count >= 0 (0 = all)");
        rc = PP_EINVAL;
    }
    if (rc == PP_OK && host->opt_int(opts, "top-stacks", &a->top_stacks) == PP_OK &&
        a->top_stacks < 0) {
        host->error_set(err, PP_EINVAL, "option 'top-stacks': expected a row count >= 0 (0 = all)");
        rc = PP_EINVAL;
    }
    a->fold_generated = 1;
    if (rc == PP_OK)
        host->opt_bool(opts, "fold-generated", &a->fold_generated);
    if (rc == PP_OK)
        host->opt_bool(opts, "type-stacks", &a->type_stacks);
    if (rc == PP_OK)
        rc = pp_pc_prefixes_load(host, opts, "framework", &a->framework, err);
    if (rc == PP_OK)
        rc = pp_pc_prefixes_load(host, opts, "focus", &a->focus, err);
    if (rc == PP_OK)
        rc = pp_pc_window_load(host, opts, &a->window, err);
    if (rc == PP_OK) {
        int64_t v = 0;
        const char *knob = host->knob ? host->knob(ctx, "expect-min-bytes") : NULL;
        if (host->opt_int(opts, "expect-min-bytes", &v) == PP_OK) {
            if (v < 0) {
                host->error_set(err, PP_EINVAL, "option 'expect-min-bytes': expected bytes >= 0");
                rc = PP_EINVAL;
            }
            a->expect_min_bytes = v;
            a->expect_from = "option";
        } else if (knob) {
            if (parse_size(knob, &v) != 0) {
                host->error_set(
                    err, PP_EINVAL,
                    "knob 'expect-min-bytes': expected bytes (e.g. 200000000 or 200MB), got '%s'",
                    knob);
                rc = PP_EINVAL;
            }
            a->expect_min_bytes = v;
            a->expect_from = "knob";
        }
    }
    if (rc != PP_OK) {
        alloc_destroy(a);
        return rc;
    }
    *state = a;
    return PP_OK;
}

static int
oom(pp_alloc *a, pp_error *err)
{
    a->host->error_set(err, PP_ENOMEM, "alloc: out of memory");
    return PP_ENOMEM;
}

static int
alloc_consume(void *state, const pp_record *rec, pp_error *err)
{
    pp_alloc *a = state;
    if (rec->kind != PP_KIND_NETTRACE)
        return PP_OK;
    const pp_trace_event *ev = rec->u.event;
    a->events++;
    if (!a->source)
        a->source = ev->source;
    if (ev->time_ns < a->first_ns)
        a->first_ns = ev->time_ns;
    if (ev->time_ns > a->last_ns)
        a->last_ns = ev->time_ns;
    if (ev->provider_known == PP_PROVIDER_RUNTIME && ev->event_id == 1 &&
        pp_pc_window_admits_time(&a->window, ev->time_ns))
        a->gcs++; /* GCStart: contexts are retired */
    if (ev->provider_known != PP_PROVIDER_RUNTIME || ev->event_id != PP_ALLOC_TICK_EVENT_ID)
        return PP_OK;
    a->ticks_seen++;
    if (!pp_pc_window_admits(&a->window, ev))
        return PP_OK;

    pp_alloc_tick tick;
    uint32_t type_id;
    if (!pp_alloc_typecache_hit(&a->type_cache, ev->payload, ev->payload_size, ev->version,
                                ev->pointer_size, &tick, &type_id)) {
        /* the UTF-8 TypeName is at most 3/2 the payload: bounded by the input */
        size_t need = (size_t)(ev->payload_size / 2) * 3 + 1;
        if (need > a->scratch_cap) {
            char *s = realloc(a->scratch, need);
            if (!s)
                return oom(a, err);
            a->scratch = s;
            a->scratch_cap = need;
        }
        const char *what = NULL;
        size_t at = 0;
        if (pp_alloc_tick_decode(ev->payload, ev->payload_size, ev->version, ev->pointer_size,
                                 a->scratch, &tick, &what, &at) != 0) {
            /* one bad event should not void the analysis: count it, report it once */
            if (a->malformed++ == 0) {
                a->malformed_first_ns = ev->time_ns;
                snprintf(a->malformed_what, sizeof a->malformed_what,
                         "V%u payload of %u bytes lacks %s at payload offset %zu", ev->version,
                         ev->payload_size, what, at);
            }
            return PP_OK;
        }
        const char *tname = tick.has_type ? tick.type :
                                            "[type not recorded: GCAllocationTick V0/V1]";
        if (pp_pc_strtab_intern(&a->types, tname, strlen(tname), &type_id) != PP_OK)
            return oom(a, err);
        pp_alloc_typecache_put(&a->type_cache, ev->payload, ev->pointer_size, &tick, type_id);
    }
    if (tick.amount > (uint64_t)INT64_MAX / 4)
        tick.amount = (uint64_t)INT64_MAX / 4; /* keep sums exact-or-saturated, never wrapped */

    uint32_t stack_id = PP_ALLOC_NO_STACK;
    uint32_t no_hint = 0, *hint = &no_hint; /* the stack's last row + 1 (rows.h) */
    if (ev->stack_depth > 0 && ev->stack) {
        int rc = pp_pc_stacks_id(&a->stacks, ev, &stack_id, &hint);
        if (rc != PP_OK)
            return oom(a, err);
    } else if (ev->stack_id != 0 && ev->stack == NULL) {
        a->ticks_lost_stack++; /* named a stack the trace lost: damage, not the profile */
    } else {
        a->ticks_no_stack++;
    }
    uint64_t hk = (uint64_t)tick.heap_index << 8 | (tick.kind & 0xff);
    uint32_t seen;
    if (!pp_pc_u64map_get(&a->heap_kinds, hk, &seen)) {
        if (pp_pc_u64map_put(&a->heap_kinds, hk, 1) != PP_OK)
            return oom(a, err);
        a->nheap_kinds++;
    }
    /* The previous tick goes to the rows now, then this one waits (its
     * row prefetched) until the next: alloc.h, pp_alloc_pending. */
    if (pp_alloc_flush(a) != PP_OK)
        return oom(a, err);
    pp_alloc_pending *p = &a->pend;
    *p = (pp_alloc_pending){ 1,
                             type_id,
                             stack_id,
                             tick.kind,
                             (uint32_t)ev->thread_id,
                             (int64_t)tick.amount,
                             *hint,
                             hint == &no_hint ? NULL : hint,
                             a->stacks.gen };
    if (p->hint > 0 && p->hint <= a->raw.count)
        PP_ALLOC_PREFETCH(&a->raw.row[p->hint - 1]);
    a->ticks++;
    if (ev->time_ns < a->first_tick_ns)
        a->first_tick_ns = ev->time_ns;
    if (ev->time_ns > a->last_tick_ns)
        a->last_tick_ns = ev->time_ns;
    return PP_OK;
}

static int
alloc_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    pp_alloc *a = state;
    if (pp_alloc_flush(a) != PP_OK)
        return oom(a, err);
    /* the lookup indexes are done with: their memory goes to the report */
    if (pp_pc_stacks_seal(&a->stacks, 1) != PP_OK)
        return oom(a, err);
    pp_alloc_rows_seal(&a->raw);
    return pp_alloc_report(a, ctx, err);
}

/* A child is what create makes of the same options: the aggregates fill
 * in consume, and everything cut or ranked waits for finish (report.c). */
static int
alloc_fork(void *state, void **child, pp_error *err)
{
    pp_alloc *a = state;
    return alloc_create(a->host, a->ctx, a->opts, child, err);
}

static int
alloc_merge(void *state, void *child, pp_error *err)
{
    return pp_alloc_merge(state, child, err);
}

static const pp_analyzer alloc_analyzer = {
    PP_ANALYZER_HEADER,
    .name = "alloc",
    .version = "1.0.0",
    .summary =
        "who allocates: sampled bytes by type, responsible frame, kind and stack (GCAllocationTick)",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof alloc_options / sizeof alloc_options[0],
    .options = alloc_options,
    .create = alloc_create,
    .consume = alloc_consume,
    .finish = alloc_finish,
    .destroy = alloc_destroy,
    .fork = alloc_fork,
    .merge = alloc_merge,
    .tables = pp_alloc_tables,
};

PP_PLUGIN_DEFINE(alloc_analyzer);
