/* plugins/cpu: the stack tables: running_stacks (the default flame graph),
 * waiting_stacks, by_stack (folded stacks, thread time) and by_thread_stack
 * (each thread's stacks, for speedscope). */
#include "report.h"
#include "tables.h"
#include "../common/decl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* by_stack's order: ms, then samples, descending, then the folded string
 * ascending (what ranking the string-keyed aggregate gave). */
static int
cmp_folded(const void *pa, const void *pb, void *arg)
{
    const report *r = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const int64_t *va = r->folded_vals + (size_t)a * 2, *vb = r->folded_vals + (size_t)b * 2;
    if (va[1] != vb[1])
        return va[1] > vb[1] ? -1 : 1;
    if (va[0] != vb[0])
        return va[0] > vb[0] ? -1 : 1;
    return pp_cpu_folded_cmp(r, a, b);
}

int
pp_cpu_emit_stacks(report *r)
{
    const pp_host_api *h = r->c->host;
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_cpu_tables[PP_CPU_T_BY_STACK], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    /* only folded stacks some row reached (a stack outside the view has
     * none), as the string-keyed aggregate held */
    uint32_t n = 0;
    uint32_t *order = malloc((size_t)(r->nfolded ? r->nfolded : 1) * sizeof *order);
    uint8_t *used = calloc(r->nfolded ? r->nfolded : 1, 1);
    if (!order || !used) {
        free(order);
        free(used);
        return PP_ENOMEM;
    }
    for (uint32_t row = 0; row < r->c->nraw; row++)
        used[r->facts[pp_cpu_raw_stack(r->c, row)].folded] = 1;
    for (uint32_t f = 0; f < r->nfolded; f++)
        if (used[f])
            order[n++] = f;
    free(used);
    qsort_r(order, n, sizeof *order, cmp_folded, r);
    if (r->c->top_stacks > 0 && (uint64_t)r->c->top_stacks < n)
        n = (uint32_t)r->c->top_stacks;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = r->folded_vals + (size_t)order[i] * 2;
        if (r->folded_by_string) {
            pp_pc_strbuf_clear(&r->buf);
            rc = pp_pc_strbuf_adds(&r->buf, pp_pc_strtab_get(&r->folded, order[i]));
        } else
            rc = pp_cpu_fold_string(r, r->folded_stack[order[i]]);
        if (rc != PP_OK)
            break;
        pp_cell cells[3] = { pp_cell_str(r->buf.data), pp_cell_int(v[0]),
                             pp_cell_dbl(pp_cpu_ms(v[1])) };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

/* The raw rows' order as ranking the aggregate keyed by the 8 key bytes
 * {slot, stack id} gave: ns, then samples, descending, then strcmp of the
 * key bytes (which stops at the first zero byte). */
static int
cmp_raw(const void *pa, const void *pb, void *arg)
{
    const pp_cpu *c = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const int64_t *va = pp_cpu_raw_vals(c, a), *vb = pp_cpu_raw_vals(c, b);
    if (va[PP_CPU_NS] != vb[PP_CPU_NS])
        return va[PP_CPU_NS] > vb[PP_CPU_NS] ? -1 : 1;
    if (va[PP_CPU_SAMPLES] != vb[PP_CPU_SAMPLES])
        return va[PP_CPU_SAMPLES] > vb[PP_CPU_SAMPLES] ? -1 : 1;
    uint32_t ka[2] = { pp_cpu_raw_slot(c, a), pp_cpu_raw_stack(c, a) };
    uint32_t kb[2] = { pp_cpu_raw_slot(c, b), pp_cpu_raw_stack(c, b) };
    char sa[sizeof ka + 1], sb[sizeof kb + 1];
    memcpy(sa, ka, sizeof ka);
    memcpy(sb, kb, sizeof kb);
    sa[sizeof ka] = sb[sizeof kb] = 0;
    return strcmp(sa, sb);
}

/* A per-thread stack table (PP_CPU_T_*) keeps all raw rows with their
 * state (by_thread_stack), or only the running or only the waiting ones
 * (running_stacks, waiting_stacks: no state column, it is the table). */
static int
emit_thread_stacks(report *r, uint32_t table)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    /* no key: thread ids differ between runs, so compare has nothing to join */
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_cpu_tables[table], 0, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = c->nraw;
    uint32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_raw, c);
    int rc = PP_OK;
    /* top-stacks bounds the flame tables as it bounds by_stack (the text
     * formats of a deep trace); by_thread_stack is for speedscope, whole */
    uint64_t left = table != PP_CPU_T_BY_THREAD_STACK && c->top_stacks > 0 ?
                        (uint64_t)c->top_stacks :
                        UINT64_MAX;
    for (uint32_t i = 0; i < n && rc == PP_OK && left > 0; i++) {
        uint32_t slot = pp_cpu_raw_slot(c, order[i]), stack = pp_cpu_raw_stack(c, order[i]);
        const int64_t *v = pp_cpu_raw_vals(c, order[i]);
        int waiting = stack < r->states.nstacks && r->states.is_waiting[stack];
        if (v[PP_CPU_SAMPLES] <= 0 || (table == PP_CPU_T_RUNNING_STACKS && waiting) ||
            (table == PP_CPU_T_WAITING_STACKS && !waiting))
            continue;
        char tid[24];
        snprintf(tid, sizeof tid, "%" PRIu64, c->threads[slot].tid);
        uint32_t f = r->facts[stack].folded;
        if (r->folded_by_string) {
            pp_pc_strbuf_clear(&r->buf);
            rc = pp_pc_strbuf_adds(&r->buf, pp_pc_strtab_get(&r->folded, f));
        } else {
            rc = pp_cpu_fold_string(r, r->folded_stack[f]);
        }
        if (rc != PP_OK)
            break;
        pp_cell cells[5] = { pp_cell_str(r->buf.data), pp_cell_int(v[PP_CPU_SAMPLES]),
                             pp_cell_dbl(pp_cpu_ms(v[PP_CPU_NS])), pp_cell_str(tid),
                             pp_cell_str(waiting ? "waiting" : "running") };
        rc = h->table_row(t, cells);
        left--;
    }
    free(order);
    return rc;
}

/* by_thread_stack: the stacks of each thread, for flame formats that keep
 * threads apart (speedscope's per-thread profiles, pprof's thread labels);
 * the renderer merges threads back for the all-threads view. Ranked by
 * time. Its "state" is the running/waiting split of blocked.c, so a
 * profile can keep the waits apart (pprof's state label). */
int
pp_cpu_emit_thread_stacks(report *r)
{
    return emit_thread_stacks(r, PP_CPU_T_BY_THREAD_STACK);
}

/* running_stacks: the stacks of samples where the thread ran, per thread.
 * Emitted before every other stack table, so the flame formats (svg, html,
 * folded, speedscope) draw running time by default: thread time of an idle
 * pool is mostly threads parked in a wait, which would bury the hot
 * method. by_stack stays the thread-time view (--table by_stack). */
int
pp_cpu_emit_running_stacks(report *r)
{
    return emit_thread_stacks(r, PP_CPU_T_RUNNING_STACKS);
}

/* waiting_stacks: the waits alone, their own graph (--table waiting_stacks). */
int
pp_cpu_emit_waiting_stacks(report *r)
{
    return emit_thread_stacks(r, PP_CPU_T_WAITING_STACKS);
}
