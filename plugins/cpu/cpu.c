/* plugins/cpu: where thread time goes (issue #6), from SampleProfiler
 * ThreadSample events. This file is the plugin's descriptor and its
 * consume side: each sample is weighted by the time since the previous
 * sample of the same thread (the sampler's period is not fixed: it sleeps
 * between sweeps and skips sweeps during GC suspensions), and aggregated by
 * (thread, stack as IPs); frames are named in finish() (report.c). */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

static const pp_option_decl cpu_options[] = {
    { "view", PP_OPT_STRING, 0, "thread-time",
      "thread-time: every sample (running, and blocked in native code); managed: only samples of threads running managed code" },
    { "top", PP_OPT_INT, 0, "25", "rows per table (0 = all)" },
    { "top-stacks", PP_OPT_INT, 0, "0", "rows of by_stack, the flame-graph table (0 = all)" },
    { "sort", PP_OPT_STRING, 0, "exclusive", "order of by_method: exclusive or inclusive time" },
    { "focus", PP_OPT_STRING, 0, NULL,
      "a method (full name, or its last dotted parts) whose callers and callees to list" },
    PP_PC_WINDOW_OPTION_DECLS,
};

static void cpu_destroy(void *state)
{
    pp_cpu *c = state;
    if (!c)
        return;
    pp_pc_stackset_free(&c->stacks);
    pp_pc_u64map_free(&c->thread_index);
    pp_pc_agg_free(&c->raw);
    free(c->threads);
    free(c->intervals);
    free(c->log);
    free(c);
}

static int cpu_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts,
                      void **state, pp_error *err)
{
    pp_cpu *c = calloc(1, sizeof *c);
    if (!c) {
        host->error_set(err, PP_ENOMEM, "cpu: out of memory");
        return PP_ENOMEM;
    }
    c->host = host;
    c->ctx = ctx;
    c->first_ns = INT64_MAX;
    c->last_ns = INT64_MIN;
    c->top = 25;
    pp_pc_agg_init(&c->raw, 2);
    int rc = PP_OK;
    const char *s = NULL;
    if (host->opt_string(opts, "view", &s) == PP_OK) {
        if (!strcmp(s, "managed"))
            c->managed_only = 1;
        else if (strcmp(s, "thread-time") != 0) {
            host->error_set(err, PP_EINVAL, "option 'view': expected thread-time or managed, got '%s'", s);
            rc = PP_EINVAL;
        }
    }
    if (rc == PP_OK && host->opt_string(opts, "sort", &s) == PP_OK) {
        if (!strcmp(s, "inclusive"))
            c->sort_inclusive = 1;
        else if (strcmp(s, "exclusive") != 0) {
            host->error_set(err, PP_EINVAL, "option 'sort': expected exclusive or inclusive, got '%s'", s);
            rc = PP_EINVAL;
        }
    }
    if (rc == PP_OK && host->opt_int(opts, "top", &c->top) == PP_OK && c->top < 0) {
        host->error_set(err, PP_EINVAL, "option 'top': expected a row count >= 0 (0 = all)");
        rc = PP_EINVAL;
    }
    if (rc == PP_OK && host->opt_int(opts, "top-stacks", &c->top_stacks) == PP_OK && c->top_stacks < 0) {
        host->error_set(err, PP_EINVAL, "option 'top-stacks': expected a row count >= 0 (0 = all)");
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

static int oom(pp_cpu *c, pp_error *err)
{
    c->host->error_set(err, PP_ENOMEM, "cpu: out of memory");
    return PP_ENOMEM;
}

static int thread_slot(pp_cpu *c, uint64_t tid, uint32_t *slot, int *fresh)
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

static int cpu_consume(void *state, const pp_record *rec, pp_error *err)
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
            int64_t *iv = realloc(c->intervals, (size_t)cap * sizeof *iv);
            if (!iv)
                return oom(c, err);
            c->intervals = iv;
            c->capintervals = cap;
        }
        c->intervals[c->nintervals++] = weight;
    }
    if (fresh || ev->time_ns > th->last_ns)
        th->last_ns = ev->time_ns;

    if (!pp_pc_window_admits(&c->window, ev))
        return PP_OK;
    c->by_type[type]++;
    if (c->managed_only && type != PP_CPU_SAMPLE_MANAGED)
        return PP_OK;
    uint32_t stack_id;
    if (pp_pc_stackset_intern(&c->stacks, ev->stack, ev->stack ? ev->stack_depth : 0, &stack_id) != PP_OK)
        return oom(c, err);
    uint32_t key[2] = { slot, stack_id };
    int64_t delta[2] = { 1, 0 };
    uint32_t row;
    if (pp_pc_agg_add(&c->raw, (const char *)key, sizeof key, delta, &row) != PP_OK)
        return oom(c, err);
    if (c->nlog == c->caplog) {
        uint64_t cap = c->caplog ? c->caplog * 2 : 1024;
        pp_cpu_sample *l = realloc(c->log, (size_t)cap * sizeof *l);
        if (!l)
            return oom(c, err);
        c->log = l;
        c->caplog = cap;
    }
    c->log[c->nlog++] = (pp_cpu_sample){ row, weight };
    c->samples++;
    return PP_OK;
}

static int cpu_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return pp_cpu_report(state, ctx, err);
}

static const pp_analyzer cpu_analyzer = {
    PP_ANALYZER_HEADER,
    .name = "cpu",
    .version = "1.0.0",
    .summary = "where thread time goes: methods exclusive/inclusive, threads, callers/callees, stacks (SampleProfiler)",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof cpu_options / sizeof cpu_options[0],
    .options = cpu_options,
    .create = cpu_create,
    .consume = cpu_consume,
    .finish = cpu_finish,
    .destroy = cpu_destroy,
};

PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);

PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void)
{
    return &cpu_analyzer;
}
