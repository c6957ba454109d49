/* plugins/cpu: the report side. In finish() the method maps are complete:
 * each distinct IP is named once, then the (thread, stack) aggregate is
 * folded into methods (exclusive at the leaf; inclusive once per sample for
 * every distinct method on the stack, so recursion is not double-counted),
 * threads, callers/callees of the focus method and folded stacks. Stacks
 * stay arrays of ids: a folded stack is a distinct sequence of name ids, and
 * its string is made only for the rows emitted. */
#include "report.h"
#include "rtevents.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/decl.h"
#include "../common/interval.h"
#include "tables.h"
#include "waits.h"

static int
cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The first sample of a thread has no predecessor: it gets the median gap
 * of all threads, the sampler's effective period: the element at n/2 of the
 * sorted gaps, found by counting (two passes over 16-bit halves) instead of
 * sorting a copy. */
static int
median_interval(report *r)
{
    pp_cpu *c = r->c;
    uint64_t n = c->nintervals, k = n / 2;
    if (!n)
        return PP_OK;
    uint64_t *cnt = calloc(65536, sizeof *cnt);
    if (!cnt)
        return PP_ENOMEM;
    for (uint64_t i = 0; i < n; i++)
        cnt[c->intervals[i] >> 16]++;
    uint32_t hi = 0;
    while (k >= cnt[hi])
        k -= cnt[hi++];
    memset(cnt, 0, 65536 * sizeof *cnt);
    for (uint64_t i = 0; i < n; i++)
        if (c->intervals[i] >> 16 == hi)
            cnt[c->intervals[i] & 0xFFFF]++;
    uint32_t lo = 0;
    while (k >= cnt[lo])
        k -= cnt[lo++];
    free(cnt);
    uint32_t v = hi << 16 | lo;
    if (v != PP_CPU_GAP_BIG) {
        r->median_ns = v;
        return PP_OK;
    }
    /* the median is one of the big gaps: the k-th of their exact values */
    qsort(c->intervals_big.v, c->intervals_big.n, sizeof *c->intervals_big.v, cmp_i64);
    r->median_ns = c->intervals_big.v[k];
    return PP_OK;
}

/* Each admitted sample's weight into its raw row. */
static void
weigh_samples(report *r)
{
    pp_cpu *c = r->c;
    int64_t cap = r->median_ns * PP_CPU_MAX_GAP_INTERVALS;
    uint64_t big = 0;
    for (uint64_t i = 0; i < c->nlog; i++) {
        uint32_t g = c->log[i].gap;
        int64_t w = g == PP_CPU_GAP_FIRST ? -1 :
                    g == PP_CPU_GAP_BIG   ? c->log_big.v[big++] :
                                            (int64_t)g;
        if (w < 0)
            w = r->median_ns;
        else if (w > cap) {
            r->unsampled_ns = pp_i64_add_sat(r->unsampled_ns, w - cap);
            r->capped_samples++;
            w = cap;
        }
        int64_t *v = pp_cpu_raw_vals(c, c->log[i].row);
        v[PP_CPU_NS] = pp_i64_add_sat(v[PP_CPU_NS], w);
    }
}

static int
name_stacks(report *r)
{
    pp_cpu *c = r->c;
    uint32_t n = c->stacks.count;
    int rc = pp_pc_strtab_intern(&r->names, NO_STACK_NAME, strlen(NO_STACK_NAME),
                                 &r->no_stack_name);
    if (rc == PP_OK)
        rc = pp_pc_strtab_intern(&r->names, ROOT_NAME, strlen(ROOT_NAME), &r->root_name);
    if (rc == PP_OK)
        rc = pp_pc_strtab_intern(&r->names, SELF_NAME, strlen(SELF_NAME), &r->self_name);
    if (rc != PP_OK || n == 0)
        return rc;
    /* IP ids are numbered in the order the stacks first showed them, so
     * naming them in id order interns the names in the order naming every
     * stack's frames would. */
    r->ip_name = malloc((size_t)(c->stacks.nip ? c->stacks.nip : 1) * sizeof *r->ip_name);
    r->facts = calloc(n, sizeof *r->facts);
    r->folded_stack = malloc((size_t)n * sizeof *r->folded_stack);
    r->nfslots = 1;
    while (r->nfslots < (uint64_t)n * 2)
        r->nfslots *= 2;
    r->fslots = calloc(r->nfslots, sizeof *r->fslots);
    uint32_t maxdepth = 1;
    for (uint32_t s = 0; s < n; s++)
        if (c->stacks.len[s] > maxdepth)
            maxdepth = c->stacks.len[s];
    r->tmp_ids = malloc((size_t)maxdepth * sizeof *r->tmp_ids);
    if (!r->ip_name || !r->facts || !r->folded_stack || !r->fslots || !r->tmp_ids)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < c->stacks.nip && rc == PP_OK; i++)
        rc = pp_pc_symcache_name(&r->syms, c->source, pp_pc_stacks_ip(&c->stacks, i),
                                 &r->ip_name[i]);
    if (rc != PP_OK)
        return rc;
    uint8_t *unres = calloc(r->names.count ? r->names.count : 1, 1);
    if (!unres)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < r->names.count; i++) {
        const char *name = pp_pc_strtab_get(&r->names, i);
        unres[i] = (uint8_t)pp_pc_frame_unresolved(name);
        r->bare_addrs += strncmp(name, "?!0x", 4) == 0;
        r->native_named |= name[0] != '?' && strchr(name, '!') != NULL;
        if (strchr(name, ';'))
            r->folded_by_string = 1;
    }
    for (uint32_t s = 0; s < n && rc == PP_OK; s++) {
        uint32_t depth;
        const uint32_t *fr = pp_pc_stacks_frames32(&c->stacks, s, &depth);
        stack_facts *f = &r->facts[s];
        f->depth = depth;
        f->leaf = depth ? r->ip_name[fr[0]] : r->no_stack_name;
        for (uint32_t i = 0; i < depth; i++)
            f->unresolved += unres[r->ip_name[fr[i]]];
        rc = pp_cpu_fold_id(r, s, &f->folded);
        if (rc == PP_OK) {
            for (uint32_t i = 0; i < depth; i++)
                r->tmp_ids[i] = r->ip_name[fr[i]];
            if (r->states.source) { /* the source column (common/srclines.h) needs the addresses */
                uint64_t *ips = pp_pc_srclines_ips(r->states.source, depth);
                for (uint32_t i = 0; ips && i < depth; i++)
                    ips[i] = pp_pc_stacks_ip(&c->stacks, fr[i]);
                r->states.frame_ips = ips;
            }
            rc = pp_cpu_states_stack(&r->states, s, &r->names, r->tmp_ids, depth);
        }
    }
    free(unres);
    if (rc == PP_OK && r->folded_by_string)
        r->nfolded = r->folded.count;
    if (rc == PP_OK) {
        r->folded_vals = calloc((size_t)(r->nfolded ? r->nfolded : 1) * 2, sizeof *r->folded_vals);
        if (!r->folded_vals)
            rc = PP_ENOMEM;
    }
    return rc;
}

static int
focus_match(const char *name, const char *focus)
{
    size_t n = strlen(name), f = strlen(focus);
    if (n == f)
        return strcmp(name, focus) == 0;
    return n > f && name[n - f - 1] == '.' && strcmp(name + n - f, focus) == 0;
}

static int
alloc_sums(report *r)
{
    uint32_t n = r->names.count;
    r->m = calloc(n, sizeof *r->m);
    r->stamp = calloc(n, sizeof *r->stamp);
    r->is_focus = calloc(n, 1);
    r->callers = calloc(n, sizeof *r->callers);
    r->callees = calloc(n, sizeof *r->callees);
    r->thread_s = calloc(r->c->nthreads ? r->c->nthreads : 1, sizeof *r->thread_s);
    r->thread_ns = calloc(r->c->nthreads ? r->c->nthreads : 1, sizeof *r->thread_ns);
    if (!r->m || !r->stamp || !r->is_focus || !r->callers || !r->callees || !r->thread_s ||
        !r->thread_ns)
        return PP_ENOMEM;
    if (r->c->focus)
        for (uint32_t i = 0; i < n; i++)
            if (i != r->no_stack_name && i != r->root_name && i != r->self_name &&
                focus_match(pp_pc_strtab_get(&r->names, i), r->c->focus)) {
                r->is_focus[i] = 1;
                r->focus_names++;
            }
    return PP_OK;
}

/* Once per sample row: `id` gets the row's weight unless already marked. */
static void
once(report *r, method_sums *arr, uint32_t id, int64_t s, int64_t ns)
{
    if (r->stamp[id] == r->stamp_now)
        return;
    r->stamp[id] = r->stamp_now;
    arr[id].incl_s += s;
    arr[id].incl_ns = pp_i64_add_sat(arr[id].incl_ns, ns);
}

static int
fold_rows(report *r)
{
    pp_cpu *c = r->c;
    int rc = PP_OK;
    for (uint32_t row = 0; row < c->nraw && rc == PP_OK; row++) {
        uint32_t key[2] = { pp_cpu_raw_slot(c, row), pp_cpu_raw_stack(c, row) };
        const int64_t *v = pp_cpu_raw_vals(c, row);
        int64_t s = v[PP_CPU_SAMPLES];
        int64_t ns = v[PP_CPU_NS];
        const stack_facts *f = &r->facts[key[1]];
        uint32_t depth_unused;
        const uint32_t *frames = pp_pc_stacks_frames32(&c->stacks, key[1], &depth_unused);
        const uint32_t *ipn = r->ip_name;
#define ids(i) ipn[frames[i]]
        r->total_samples += s;
        r->total_ns = pp_i64_add_sat(r->total_ns, ns);
        r->frames += (int64_t)f->depth * s;
        r->unresolved_frames += (int64_t)f->unresolved * s;
        if (f->depth >= 100)
            r->truncated_samples += (uint64_t)s;

        r->m[f->leaf].excl_s += s;
        r->m[f->leaf].excl_ns = pp_i64_add_sat(r->m[f->leaf].excl_ns, ns);
        r->stamp_now++;
        if (f->depth == 0)
            once(r, r->m, f->leaf, s, ns);
        for (uint32_t i = 0; i < f->depth; i++)
            once(r, r->m, ids(i), s, ns);

        if (r->focus_names) {
            int hit = 0;
            for (uint32_t i = 0; i < f->depth; i++)
                hit |= r->is_focus[ids(i)];
            if (hit) {
                r->focus_s += s;
                r->focus_ns = pp_i64_add_sat(r->focus_ns, ns);
                r->stamp_now++;
                for (uint32_t i = 0; i < f->depth; i++)
                    if (r->is_focus[ids(i)])
                        once(r, r->callers, i + 1 < f->depth ? ids(i + 1) : r->root_name, s, ns);
                r->stamp_now++;
                for (uint32_t i = 0; i < f->depth; i++)
                    if (r->is_focus[ids(i)])
                        once(r, r->callees, i > 0 ? ids(i - 1) : r->self_name, s, ns);
            }
        }

        pp_cpu_states_add(&r->states, key[1], s, ns);
        r->thread_s[key[0]] += s;
        r->thread_ns[key[0]] = pp_i64_add_sat(r->thread_ns[key[0]], ns);
        uint32_t tk[2] = { key[0], f->leaf };
        int64_t d[2] = { s, ns };
        rc = pp_pc_agg_add(&r->thread_leaf, (const char *)tk, sizeof tk, d, NULL);
        r->folded_vals[(size_t)f->folded * 2] += s;
        r->folded_vals[(size_t)f->folded * 2 + 1] = pp_i64_add_sat(
            r->folded_vals[(size_t)f->folded * 2 + 1], ns);
#undef ids
    }
    return rc;
}

static int
emit_methods(report *r)
{
    const pp_host_api *h = r->c->host;
    /* lo_ms .. hi_ms: the 95 % interval of exclusive_ms from the exclusive sample
     * count (../common/interval.h) */
    /* module: declared, not written (running names each method's module) */
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_cpu_tables[PP_CPU_T_BY_METHOD], 1,
                                  (const char *const[]){ "module", NULL });
    if (!t)
        return PP_ENOMEM;
    uint32_t n;
    uint32_t *order = pp_cpu_ranked(r, r->m, r->c->sort_inclusive, &n);
    if (!order)
        return PP_ENOMEM;
    if (r->c->top > 0 && (uint64_t)r->c->top < n)
        n = (uint32_t)r->c->top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const method_sums *m = &r->m[order[i]];
        double lo, hi;
        pp_pc_interval95(pp_cpu_ms(m->excl_ns), m->excl_s, &lo, &hi);
        pp_cell cells[8] = {
            pp_cell_str(pp_pc_strtab_get(&r->names, order[i])),
            pp_cell_int(m->excl_s),
            pp_cell_int(m->incl_s),
            pp_cell_dbl(pp_cpu_ms(m->excl_ns)),
            pp_cell_dbl(pp_cpu_ms(m->incl_ns)),
            pp_cell_dbl(pp_cpu_pct(m->excl_ns, r->total_ns)),
            pp_cell_dbl(lo),
            pp_cell_dbl(hi),
        };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

static int
emit_relatives(report *r, uint32_t table, const method_sums *sums)
{
    const pp_host_api *h = r->c->host;
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_cpu_tables[table], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n;
    uint32_t *order = pp_cpu_ranked(r, sums, 1, &n);
    if (!order)
        return PP_ENOMEM;
    if (r->c->top > 0 && (uint64_t)r->c->top < n)
        n = (uint32_t)r->c->top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const method_sums *m = &sums[order[i]];
        pp_cell cells[4] = { pp_cell_str(pp_pc_strtab_get(&r->names, order[i])),
                             pp_cell_int(m->incl_s), pp_cell_dbl(pp_cpu_ms(m->incl_ns)),
                             pp_cell_dbl(pp_cpu_pct(m->incl_ns, r->focus_ns)) };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

static int
emit_threads(report *r)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_cpu_tables[PP_CPU_T_BY_THREAD], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t nt = c->nthreads;
    if (!nt)
        return PP_OK;
    /* each thread's hottest leaf: thread_leaf ranked by ns, first hit wins */
    uint32_t *best = malloc((size_t)nt * sizeof *best);
    uint32_t *order = malloc((size_t)nt * sizeof *order);
    uint32_t *leaf_order = pp_pc_agg_rank(&r->thread_leaf, 1, 0);
    int rc = PP_OK;
    if (!best || !order || (pp_pc_agg_count(&r->thread_leaf) && !leaf_order))
        rc = PP_ENOMEM;
    if (rc == PP_OK) {
        for (uint32_t i = 0; i < nt; i++)
            best[i] = UINT32_MAX;
        for (uint32_t i = 0; i < pp_pc_agg_count(&r->thread_leaf); i++) {
            uint32_t k[2];
            memcpy(k, pp_pc_agg_key(&r->thread_leaf, leaf_order[i]), sizeof k);
            if (best[k[0]] == UINT32_MAX)
                best[k[0]] = k[1];
        }
        uint32_t n = 0;
        for (uint32_t i = 0; i < nt; i++)
            if (r->thread_s[i] > 0)
                order[n++] = i;
        /* insertion sort by ms desc, tid asc: thread counts are small */
        for (uint32_t i = 1; i < n; i++) {
            uint32_t x = order[i], j = i;
            while (j > 0 && (r->thread_ns[order[j - 1]] < r->thread_ns[x] ||
                             (r->thread_ns[order[j - 1]] == r->thread_ns[x] &&
                              c->threads[order[j - 1]].tid > c->threads[x].tid))) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        if (c->top > 0 && (uint64_t)c->top < n)
            n = (uint32_t)c->top;
        for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
            uint32_t s = order[i];
            char tid[24];
            snprintf(tid, sizeof tid, "%" PRIu64, c->threads[s].tid);
            pp_cell cells[4] = {
                pp_cell_str(tid),
                pp_cell_int(r->thread_s[s]),
                pp_cell_dbl(pp_cpu_ms(r->thread_ns[s])),
                best[s] == UINT32_MAX ? pp_cell_null() :
                                        pp_cell_str(pp_pc_strtab_get(&r->names, best[s])),
            };
            rc = h->table_row(t, cells);
        }
    }
    free(best);
    free(order);
    free(leaf_order);
    return rc;
}

int
pp_cpu_report(pp_cpu *c, pp_ctx *ctx, pp_error *err)
{
    report r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.ctx = ctx;
    pp_pc_strtab_init(&r.names);
    pp_pc_strtab_init(&r.folded);
    pp_pc_symcache_init(&r.syms, c->host, &r.names);
    pp_pc_agg_init(&r.thread_leaf, 2);

    int64_t first = c->first_ns, last = c->last_ns;
    pp_trace_info info = { .struct_size = sizeof info };
    if (c->source && PP_HOST_HAS(c->host, trace_info) && c->host->trace_info &&
        c->host->trace_info(c->source, &info) == PP_OK &&
        info.last_event_ns >= info.first_event_ns) {
        first = info.first_event_ns;
        last = info.last_event_ns;
    }
    int64_t span = c->events ? pp_pc_window_span(&c->window, first, last) : 0;

    int rc = median_interval(&r);
    if (rc == PP_OK) {
        weigh_samples(&r);
        rc = pp_cpu_states_init_with(&r.states, c->stacks.count, &r.syms);
        r.states.stack_samples = c->stack_samples;
        r.states.stack_managed = c->stack_managed;
        r.states.stack_known = c->stack_cap;
        if (rc == PP_OK && r.states.syms)
            r.states.source = pp_pc_srclines_new(c->host, c->source, c->stacks.count);
    }
    if (rc == PP_OK)
        rc = name_stacks(&r);
    if (rc == PP_OK)
        rc = alloc_sums(&r);
    if (rc == PP_OK)
        rc = fold_rows(&r);
    if (rc == PP_OK)
        rc = pp_cpu_states_emit(&r.states, c->host, ctx, c->top);
    if (rc == PP_OK)
        rc = emit_methods(&r);
    if (rc == PP_OK)
        rc = emit_threads(&r);
    if (rc == PP_OK && c->focus)
        rc = emit_relatives(&r, PP_CPU_T_CALLERS, r.callers);
    if (rc == PP_OK && c->focus)
        rc = emit_relatives(&r, PP_CPU_T_CALLEES, r.callees);
    if (rc == PP_OK)
        rc = pp_cpu_emit_running_stacks(&r);
    if (rc == PP_OK)
        rc = pp_cpu_emit_stacks(&r);
    if (rc == PP_OK)
        rc = pp_cpu_emit_waiting_stacks(&r);
    if (rc == PP_OK && c->thread_stacks)
        rc = pp_cpu_emit_thread_stacks(&r);
    if (rc == PP_OK)
        rc = pp_cpu_rt_emit(c->rt, ctx, c->source, c->top, span,
                            r.states.run_ns + r.states.wait_ns);
    if (rc == PP_OK)
        rc = pp_cpu_emit_totals(&r, span);
    if (rc == PP_OK)
        pp_cpu_emit_findings(&r, span);
    if (rc != PP_OK)
        c->host->error_set(err, rc, "cpu: %s while building the report",
                           rc == PP_ENOMEM ? "out of memory" : "the host refused a result");

    pp_pc_symcache_free(&r.syms);
    pp_pc_strtab_free(&r.names);
    pp_pc_strtab_free(&r.folded);
    pp_pc_agg_free(&r.thread_leaf);
    pp_cpu_states_free(&r.states);
    free(r.tmp_ids);
    pp_pc_strbuf_free(&r.buf);
    free(r.facts);
    free(r.ip_name);
    free(r.folded_stack);
    free(r.fslots);
    free(r.folded_vals);
    free(r.m);
    free(r.stamp);
    free(r.is_focus);
    free(r.callers);
    free(r.callees);
    free(r.thread_s);
    free(r.thread_ns);
    return rc;
}
