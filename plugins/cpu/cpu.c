/* plugins/cpu: where thread time goes (issue #6), from SampleProfiler
 * ThreadSample events. This file is the plugin's descriptor and its
 * consume side: each sample is weighted by the time since the previous
 * sample of the same thread (the sampler's period is not fixed: it sleeps
 * between sweeps and skips sweeps during GC suspensions), and aggregated by
 * (thread, stack as IPs); frames are named in finish() (report.c). */
#include "cpu.h"
#include "../common/modules.h"
#include "rtevents.h"
#include "tables.h"

#include <stdlib.h>
#include <string.h>

static const pp_option_decl cpu_options[] = {
    { "view", PP_OPT_STRING, 0, "thread-time",
      "thread-time: every sample (running, and blocked in native code); managed: only samples of threads running managed code" },
    { "top", PP_OPT_INT, 0, "25", "rows per table (0 = all)" },
    { "top-stacks", PP_OPT_INT, 0, "0", "rows of by_stack, the flame-graph table (0 = all)" },
    /* no declared default: an unset option is not echoed in the document,
     * which stays what it was before the option existed */
    { "thread-stacks", PP_OPT_BOOL, 0, NULL,
      "emit by_thread_stack, every stack per thread for speedscope's per-thread profiles (default true; "
      "`perfpipe cpu FILE` sets false unless the format is json, csv or speedscope)" },
    { "sort", PP_OPT_STRING, 0, "exclusive", "order of by_method: exclusive or inclusive time" },
    { "focus", PP_OPT_STRING, 0, NULL,
      "a method (full name, or its last dotted parts) whose callers and callees to list" },
    PP_PC_WINDOW_OPTION_DECLS,
};

static void
cpu_destroy(void *state)
{
    pp_cpu *c = state;
    if (!c)
        return;
    pp_pc_stacks_free(&c->stacks);
    pp_cpu_rt_free(c->rt);
    free(c->stack_samples);
    free(c->stack_managed);
    pp_pc_u64map_free(&c->thread_index);
    pp_pc_u64map_free(&c->raw_index);
    free(c->raw_key);
    free(c->raw_vals);
    free(c->threads);
    free(c->intervals);
    free(c->intervals_big.v);
    free(c->log);
    free(c->log_big.v);
    free(c);
}

static int
cpu_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state,
           pp_error *err)
{
    pp_cpu *c = calloc(1, sizeof *c);
    if (!c) {
        host->error_set(err, PP_ENOMEM, "cpu: out of memory");
        return PP_ENOMEM;
    }
    c->host = host;
    c->ctx = ctx;
    if (!(c->rt = pp_cpu_rt_new(host))) {
        free(c);
        host->error_set(err, PP_ENOMEM, "cpu: out of memory");
        return PP_ENOMEM;
    }
    c->first_ns = INT64_MAX;
    c->last_ns = INT64_MIN;
    c->top = 25;
    int rc = PP_OK;
    const char *s = NULL;
    if (host->opt_string(opts, "view", &s) == PP_OK) {
        if (!strcmp(s, "managed"))
            c->managed_only = 1;
        else if (strcmp(s, "thread-time") != 0) {
            host->error_set(err, PP_EINVAL,
                            "option 'view': expected thread-time or managed, got '%s'", s);
            rc = PP_EINVAL;
        }
    }
    if (rc == PP_OK && host->opt_string(opts, "sort", &s) == PP_OK) {
        if (!strcmp(s, "inclusive"))
            c->sort_inclusive = 1;
        else if (strcmp(s, "exclusive") != 0) {
            host->error_set(err, PP_EINVAL,
                            "option 'sort': expected exclusive or inclusive, got '%s'", s);
            rc = PP_EINVAL;
        }
    }
    if (rc == PP_OK && host->opt_int(opts, "top", &c->top) == PP_OK && c->top < 0) {
        host->error_set(err, PP_EINVAL, "option 'top': expected a row count >= 0 (0 = all)");
        rc = PP_EINVAL;
    }
    if (rc == PP_OK && host->opt_int(opts, "top-stacks", &c->top_stacks) == PP_OK &&
        c->top_stacks < 0) {
        host->error_set(err, PP_EINVAL, "option 'top-stacks': expected a row count >= 0 (0 = all)");
        rc = PP_EINVAL;
    }
    c->thread_stacks = 1;
    if (rc == PP_OK && host->opt_bool(opts, "thread-stacks", &c->thread_stacks) == PP_EINVAL) {
        host->error_set(err, PP_EINVAL, "option 'thread-stacks': expected true or false");
        rc = PP_EINVAL;
    }
    if (rc == PP_OK && host->opt_string(opts, "focus", &s) == PP_OK) {
        if (!*s) {
            host->error_set(err, PP_EINVAL, "option 'focus': expected a method name");
            rc = PP_EINVAL;
        }
        c->focus = s;
    }
    if (rc == PP_OK)
        rc = pp_pc_window_load(host, opts, &c->window, err);
    if (rc != PP_OK) {
        cpu_destroy(c);
        return rc;
    }
    *state = c;
    return PP_OK;
}

static int
oom(pp_cpu *c, pp_error *err)
{
    c->host->error_set(err, PP_ENOMEM, "cpu: out of memory");
    return PP_ENOMEM;
}

static int
push_i64(pp_cpu_i64s *l, int64_t v)
{
    if (l->n == l->cap) {
        uint64_t cap = l->cap ? l->cap * 2 : 16;
        int64_t *t = realloc(l->v, (size_t)cap * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        l->v = t;
        l->cap = cap;
    }
    l->v[l->n++] = v;
    return PP_OK;
}

/* A gap (>= 0) in 32 bits; a big one goes exactly to `big`. */
static int
gap32(int64_t w, pp_cpu_i64s *big, uint32_t *out)
{
    if (w < (int64_t)PP_CPU_GAP_BIG) {
        *out = (uint32_t)w;
        return PP_OK;
    }
    *out = PP_CPU_GAP_BIG;
    return push_i64(big, w);
}

/* The raw row of (slot, stack), created at zero. */
static int
raw_row(pp_cpu *c, uint32_t slot, uint32_t stack, uint32_t *row)
{
    uint64_t key = (uint64_t)slot << 32 | stack;
    if (pp_pc_u64map_get(&c->raw_index, key, row))
        return PP_OK;
    if (c->nraw == UINT32_MAX - 1)
        return PP_ENOMEM;
    if (c->nraw == c->capraw) {
        uint32_t cap = c->capraw ? c->capraw * 2 : 256;
        uint64_t *k = realloc(c->raw_key, (size_t)cap * sizeof *k);
        if (!k)
            return PP_ENOMEM;
        c->raw_key = k;
        int64_t *v = realloc(c->raw_vals, (size_t)cap * 2 * sizeof *v);
        if (!v)
            return PP_ENOMEM;
        c->raw_vals = v;
        c->capraw = cap;
    }
    if (pp_pc_u64map_put(&c->raw_index, key, c->nraw) != PP_OK)
        return PP_ENOMEM;
    c->raw_key[c->nraw] = key;
    c->raw_vals[(size_t)c->nraw * 2] = 0;
    c->raw_vals[(size_t)c->nraw * 2 + 1] = 0;
    *row = c->nraw++;
    return PP_OK;
}

static int
thread_slot(pp_cpu *c, uint64_t tid, uint32_t *slot, int *fresh)
{
    if (pp_pc_u64map_get(&c->thread_index, tid, slot)) {
        *fresh = 0;
        return PP_OK;
    }
    if (c->nthreads == c->capthreads) {
        uint32_t cap = c->capthreads ? c->capthreads * 2 : 16;
        pp_cpu_thread *t = realloc(c->threads, (size_t)cap * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        c->threads = t;
        c->capthreads = cap;
    }
    *slot = c->nthreads;
    c->threads[c->nthreads++] = (pp_cpu_thread){ .tid = tid, .last_ns = 0 };
    *fresh = 1;
    return pp_pc_u64map_put(&c->thread_index, tid, *slot);
}

static int
cpu_consume(void *state, const pp_record *rec, pp_error *err)
{
    pp_cpu *c = state;
    if (rec->kind != PP_KIND_NETTRACE)
        return PP_OK;
    const pp_trace_event *ev = rec->u.event;
    c->events++;
    if (!c->source)
        c->source = ev->source;
    if (ev->time_ns < c->first_ns)
        c->first_ns = ev->time_ns;
    if (ev->time_ns > c->last_ns)
        c->last_ns = ev->time_ns;
    if (ev->provider_known == PP_PROVIDER_RUNTIME) {
        if (pp_pc_window_admits(&c->window, ev) && pp_cpu_rt_event(c->rt, ev) != PP_OK)
            return oom(c, err);
        return PP_OK;
    }
    if (ev->provider_known != PP_PROVIDER_SAMPLE_PROFILER || ev->event_id != PP_CPU_SAMPLE_EVENT_ID)
        return PP_OK;
    c->samples_seen++;
    if (ev->payload_size < 4 || !ev->payload) {
        c->malformed++;
        return PP_OK;
    }
    uint32_t type = (uint32_t)ev->payload[0] | (uint32_t)ev->payload[1] << 8 |
                    (uint32_t)ev->payload[2] << 16 | (uint32_t)ev->payload[3] << 24;
    if (type > PP_CPU_SAMPLE_MANAGED)
        type = PP_CPU_SAMPLE_ERROR;

    /* the weight needs the thread's previous sample even when that one lies
     * outside the window or the view */
    uint32_t slot;
    int fresh;
    if (thread_slot(c, ev->thread_id, &slot, &fresh) != PP_OK)
        return oom(c, err);
    pp_cpu_thread *th = &c->threads[slot];
    int64_t weight = -1;
    if (!fresh) {
        weight = ev->time_ns - th->last_ns;
        if (weight < 0)
            weight = 0; /* file order is not time order across capture threads */
        if (c->nintervals == c->capintervals) {
            uint64_t cap = c->capintervals ? c->capintervals * 2 : 1024;
            uint32_t *iv = realloc(c->intervals, (size_t)cap * sizeof *iv);
            if (!iv)
                return oom(c, err);
            c->intervals = iv;
            c->capintervals = cap;
        }
        if (gap32(weight, &c->intervals_big, &c->intervals[c->nintervals]) != PP_OK)
            return oom(c, err);
        c->nintervals++;
    }
    if (fresh || ev->time_ns > th->last_ns)
        th->last_ns = ev->time_ns;

    if (!pp_pc_window_admits(&c->window, ev))
        return PP_OK;
    c->by_type[type]++;
    if (c->managed_only && type != PP_CPU_SAMPLE_MANAGED)
        return PP_OK;
    uint32_t stack_id, *memo_unused;
    if (ev->stack_depth == 0 && ev->stack_id != 0 && ev->stack == NULL)
        c->lost_stack++; /* its stack is in a block the trace lost: damage, not the profile */
    if (pp_pc_stacks_id(&c->stacks, ev, &stack_id, &memo_unused) != PP_OK)
        return oom(c, err);
    if (stack_id >= c->stack_cap) {
        uint32_t cap = c->stack_cap ? c->stack_cap : 256;
        while (cap <= stack_id)
            cap *= 2;
        uint32_t *a = realloc(c->stack_samples, (size_t)cap * sizeof *a);
        if (!a)
            return oom(c, err);
        c->stack_samples = a;
        uint32_t *m = realloc(c->stack_managed, (size_t)cap * sizeof *m);
        if (!m)
            return oom(c, err);
        c->stack_managed = m;
        memset(a + c->stack_cap, 0, (size_t)(cap - c->stack_cap) * sizeof *a);
        memset(m + c->stack_cap, 0, (size_t)(cap - c->stack_cap) * sizeof *m);
        c->stack_cap = cap;
    }
    c->stack_samples[stack_id]++;
    c->stack_managed[stack_id] += type == PP_CPU_SAMPLE_MANAGED;
    uint32_t row;
    if (raw_row(c, slot, stack_id, &row) != PP_OK)
        return oom(c, err);
    pp_cpu_raw_vals(c, row)[PP_CPU_SAMPLES]++;
    uint32_t gap = PP_CPU_GAP_FIRST;
    if (weight >= 0 && gap32(weight, &c->log_big, &gap) != PP_OK)
        return oom(c, err);
    if (c->nlog == c->caplog) {
        uint64_t cap = c->caplog ? c->caplog * 2 : 1024;
        pp_cpu_sample *l = realloc(c->log, (size_t)cap * sizeof *l);
        if (!l)
            return oom(c, err);
        c->log = l;
        c->caplog = cap;
    }
    c->log[c->nlog++] = (pp_cpu_sample){ row, gap };
    c->samples++;
    return PP_OK;
}

static int
cpu_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    pp_cpu *c = state;
    /* the report walks frames by pointer: 4 bytes each */
    if (pp_pc_stacks_seal(&c->stacks, 4) != PP_OK)
        return oom(c, err);
    return pp_cpu_report(c, ctx, err);
}

static const pp_analyzer cpu_analyzer = {
    PP_ANALYZER_HEADER,
    .name = "cpu",
    .version = "1.0.0",
    .summary =
        "where thread time goes: methods exclusive/inclusive, threads, callers/callees, stacks (SampleProfiler)",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof cpu_options / sizeof cpu_options[0],
    .options = cpu_options,
    .create = cpu_create,
    .consume = cpu_consume,
    .finish = cpu_finish,
    .destroy = cpu_destroy,
    .tables = pp_cpu_tables,
};

PP_PLUGIN_DEFINE(cpu_analyzer);
