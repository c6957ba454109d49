/* plugins/cpu: blocking waits, sync over async (see blocking.h). */
#include "blocking.h"
#include "../common/decl.h"
#include "../common/interval.h"
#include "tables.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_NONE, KIND_RESULT, KIND_WAIT, KIND_GETRESULT, KIND_LOCK };

static const char *const kind_names[] = { "", "Task.Result", "Task.Wait or .Result (inlined)",
                                          "GetAwaiter().GetResult()", "lock (contention)" };

/* The kind of a task's synchronous block, or KIND_NONE. Generic
 * instantiations sit between the type and the method (Task`1[...]). */
static int
block_kind(const char *f)
{
    static const char task[] = "System.Threading.Tasks.Task";
    static const char csvc[] = "System.Runtime.CompilerServices.";

    if (strncmp(f, task, sizeof task - 1) == 0) {
        const char *m = f + sizeof task - 1;
        if (strstr(m, ".get_Result") || strstr(m, ".GetResultCore"))
            return KIND_RESULT;
        if (strncmp(m, ".Wait", 5) == 0 || strncmp(m, ".InternalWait", 13) == 0 ||
            strncmp(m, ".SpinThenBlockingWait", 21) == 0)
            return KIND_WAIT;
        if (strncmp(m, "s.ValueTask", 11) == 0 && strstr(m, ".get_Result"))
            return KIND_RESULT;
        return KIND_NONE;
    }
    if (strncmp(f, csvc, sizeof csvc - 1) == 0 && strstr(f, "Awaiter") && strstr(f, ".GetResult"))
        return KIND_GETRESULT;
    if (strncmp(f, "System.Threading.Monitor.Enter", 30) == 0 ||
        strncmp(f, "System.Threading.Monitor.ReliableEnter", 38) == 0 ||
        strncmp(f, "System.Threading.Lock.TryEnterSlow", 34) == 0 ||
        strncmp(f, "System.Threading.Lock.EnterAndGetCurrentThreadId", 48) == 0)
        return KIND_LOCK;
    return KIND_NONE;
}

/* The thread pool's worker loop: a stack under it is a pool thread's. */
static int
pool_root(const pp_pc_strtab *names, const uint32_t *ids, uint32_t from, uint32_t depth)
{
    for (uint32_t i = from; i < depth; i++) {
        const char *f = pp_pc_strtab_get(names, ids[i]);
        if (strncmp(f, "System.Threading.PortableThreadPool+WorkerThread.", 49) == 0 ||
            strncmp(f, "System.Threading.ThreadPoolWorkQueue.Dispatch", 45) == 0)
            return 1;
    }
    return 0;
}

/* A frame a task's block goes through on its way to the kernel (the wait
 * P/Invokes included). */
static int
threading_frame(const char *f)
{
    return strncmp(f, "System.Threading.", 17) == 0 ||
           (strncmp(f, "System.Runtime.CompilerServices.", 32) == 0 && strstr(f, "Awaiter")) ||
           strncmp(f, "Interop", 7) == 0 || pp_pc_frame_unresolved(f);
}

int
pp_cpu_blocking_init(pp_cpu_blocking *b, uint32_t nstacks)
{
    memset(b, 0, sizeof *b);
    pp_pc_agg_init(&b->rows, 2);
    b->nstacks = nstacks;
    b->row = calloc(nstacks ? nstacks : 1, sizeof *b->row);
    return b->row ? PP_OK : PP_ENOMEM;
}

void
pp_cpu_blocking_free(pp_cpu_blocking *b)
{
    free(b->row);
    free(b->kind);
    pp_pc_agg_free(&b->rows);
    memset(b, 0, sizeof *b);
}

int
pp_cpu_blocking_stack(pp_cpu_blocking *b, uint32_t stack, const pp_pc_strtab *names,
                      const uint32_t *ids, uint32_t depth, int32_t wait, int32_t user)
{
    static const int64_t zero[2] = { 0, 0 };
    int kind = KIND_NONE;
    uint32_t row;

    if (stack >= b->nstacks)
        return PP_EINVAL;
    if (wait < 0 || user <= wait || (uint32_t)user >= depth)
        return PP_OK;
    for (int32_t i = wait; i < user; i++) {
        const char *f = pp_pc_strtab_get(names, ids[i]);
        int k = block_kind(f);
        if (!threading_frame(f) && k == KIND_NONE)
            return PP_OK; /* a library between: not the caller's own block */
        if (k != KIND_NONE)
            kind = k; /* the outermost block names it */
    }
    /* a task block counts on a pool thread (Main or a driver thread waiting
     * for its workers is no request's cost); a lock's contention on any */
    if (kind == KIND_NONE || (kind != KIND_LOCK && !pool_root(names, ids, (uint32_t)user, depth)))
        return PP_OK;
    const char *waiter = pp_pc_strtab_get(names, ids[user]);
    int rc = pp_pc_agg_add(&b->rows, waiter, strlen(waiter), zero, &row);
    if (rc != PP_OK)
        return rc;
    if (row >= b->kind_cap) {
        uint32_t ncap = b->kind_cap ? b->kind_cap * 2 : 64;
        while (ncap <= row)
            ncap *= 2;
        uint8_t *g = realloc(b->kind, ncap);
        if (!g)
            return PP_ENOMEM;
        memset(g + b->kind_cap, 0, ncap - b->kind_cap);
        b->kind = g;
        b->kind_cap = ncap;
    }
    if (b->kind[row] == KIND_NONE)
        b->kind[row] = (uint8_t)kind;
    b->row[stack] = row + 1;
    return PP_OK;
}

void
pp_cpu_blocking_add(pp_cpu_blocking *b, uint32_t stack, int64_t s, int64_t ns)
{
    if (stack >= b->nstacks || b->row[stack] == 0)
        return;
    int64_t *v = pp_pc_agg_vals_mut(&b->rows, b->row[stack] - 1);
    v[0] += s;
    v[1] = pp_i64_add_sat(v[1], ns);
    b->s += s;
    b->ns = pp_i64_add_sat(b->ns, ns);
}

int
pp_cpu_blocking_emit(const pp_cpu_blocking *b, const pp_host_api *h, pp_ctx *ctx, int64_t top,
                     pp_pc_symcache *syms)
{
    pp_table *t = pp_pc_table_new(h, ctx, &pp_cpu_tables[PP_CPU_T_BLOCKING], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = pp_pc_agg_count(&b->rows);
    uint32_t *order = n ? pp_pc_agg_rank(&b->rows, 1, 0) : NULL;
    if (n && !order)
        return PP_ENOMEM;
    int rc = PP_OK;
    for (uint32_t i = 0, shown = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = pp_pc_agg_vals(&b->rows, order[i]);
        if (v[0] == 0)
            continue; /* a stack outside the view or window */
        if (top > 0 && shown >= (uint64_t)top)
            break;
        shown++;
        const char *w = pp_pc_agg_key(&b->rows, order[i]);
        double ms = (double)v[1] / 1e6, lo, hi;
        pp_pc_interval95(ms, v[0], &lo, &hi);
        pp_cell c[8] = { pp_cell_str(w),
                         pp_cell_str(kind_names[b->kind[order[i]]]),
                         pp_cell_int(v[0]),
                         pp_cell_dbl(ms),
                         pp_cell_dbl(b->ns > 0 ? 100.0 * (double)v[1] / (double)b->ns : 0.0),
                         pp_cell_dbl(lo),
                         pp_cell_dbl(hi),
                         pp_cell_str(syms ? pp_pc_symcache_module(syms, w) : "") };
        rc = h->table_row(t, c);
    }
    free(order);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "blocking_time", PP_COL_DURATION_NS, b->ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "blocking_samples", PP_COL_COUNT, b->s);
    return rc;
}
