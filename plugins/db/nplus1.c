/* plugins/db: N+1 detection, judged where it can be judged.
 *
 * - Inside one request (the trace has request boundaries) or one creator
 *   activity: the same command shape run nplus1 times or more in one
 *   request is an N+1 of K per request. Confidence high.
 * - Without boundaries (or outside every request), back-to-back requests
 *   and concurrent clients make one query per request look like a loop, so
 *   a repeated command is only an N+1 when another command drives it: one
 *   that ran at least twice, interleaved with the repeats, and nplus1 or
 *   more times less often (K = the ratio, "per execution of ..."). Counts
 *   do not care how requests overlap, so this holds under any concurrency.
 *   Confidence medium, with the capture that would make it exact. A driver
 *   run from the same application method as the repeats (that method runs
 *   the parent query, then one query per row) needs only ONE_CALLER_MIN
 *   repeats per execution: the loop is in one frame, not inferred from two
 *   routes' rates (group "caller").
 * - A repeated command with no driver gets no N+1 verdict: an info finding
 *   says it cannot be told from one execution per request (confidence low)
 *   and gives the capture command that adds request boundaries. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "report.h"

#define HINT_ARGS        "--profile database --providers Microsoft.AspNetCore.Hosting -p PID"
#define MAX_LOW_FINDINGS 5
#define ONE_CALLER_MIN   2

enum { V_NONE, V_LOW, V_MEDIUM, V_HIGH };

typedef struct verdict {
    int level;
    uint32_t executions; /* counted in the verdict */
    double per;          /* K: per request, or per execution of the driver */
    uint32_t groups;     /* requests (high) or driver executions (medium) */
    uint32_t max_per;    /* the largest request's count (high) */
    uint32_t first;      /* an execution, for the caller */
    int64_t window_ns;
    uint32_t driver; /* command id (medium), DB_NO_ID otherwise */
    uint32_t route;  /* request route id (high, requests), DB_NO_ID otherwise */
    int by_request, concurrent;
    int one_parent; /* medium from one serial run after one parent, off any request */
    int one_caller; /* medium: the driver runs from the repeats' own application frame */
} verdict;

typedef struct grp {
    uint64_t group;
    uint32_t cmd, exec;
} grp;

static int
cmp_grp(const void *a, const void *b)
{
    const grp *x = a, *y = b;
    if (x->cmd != y->cmd)
        return x->cmd < y->cmd ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->exec > y->exec) - (x->exec < y->exec);
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int
zero_guid(const pp_guid *g)
{
    static const pp_guid z;
    return memcmp(g, &z, sizeof(z)) == 0;
}

#define TAG_REQUEST UINT64_C(0x8000000000000000)

/* The group of a counted execution: its request, else its creator
 * activity, else none (0). */
static uint64_t
group_of(const db_state *st, const db_work *w, uint32_t i)
{
    if (w->req && w->req[i] != DB_NO_ID)
        return TAG_REQUEST | w->req[i];
    if (!zero_guid(&st->execs[i].related))
        return pp_pc_guid_hash(&st->execs[i].related) & ~TAG_REQUEST;
    return 0;
}

/* Inside requests and activities. */
static int
judge_groups(db_state *st, db_work *w, verdict *v)
{
    grp *g = malloc((w->nexec ? w->nexec : 1) * sizeof(*g));
    uint32_t *sizes = malloc((w->nexec ? w->nexec : 1) * sizeof(uint32_t));
    uint32_t n = 0;
    if (!g || !sizes) {
        free(g);
        free(sizes);
        return PP_ENOMEM;
    }
    for (uint32_t k = 0; k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        uint64_t key = group_of(st, w, i);
        if (key != 0)
            g[n++] = (grp){ key, st->execs[i].cmd, i };
    }
    qsort(g, n, sizeof(*g), cmp_grp);
    for (uint32_t a = 0; a < n;) {
        uint32_t c = g[a].cmd, ns = 0, b = a;
        verdict *x = &v[c];
        while (b < n && g[b].cmd == c) {
            uint32_t e = b;
            int64_t s0 = INT64_MAX, s1 = INT64_MIN;
            while (e < n && g[e].cmd == c && g[e].group == g[b].group) {
                const db_exec *ex = &st->execs[g[e].exec];
                if (ex->start_ns < s0)
                    s0 = ex->start_ns;
                if (ex->end_ns > s1)
                    s1 = ex->end_ns;
                e++;
            }
            uint32_t cnt = e - b;
            if (cnt >= (uint64_t)st->nplus1) {
                sizes[ns++] = cnt;
                x->executions += cnt;
                if (cnt > x->max_per) {
                    x->max_per = cnt;
                    x->first = g[b].exec;
                    x->window_ns = s1 - s0;
                    x->by_request = (g[b].group & TAG_REQUEST) != 0;
                    x->route = x->by_request ? st->reqs.v[g[b].group & ~TAG_REQUEST].route :
                                               DB_NO_ID;
                }
            }
            b = e;
        }
        if (ns > 0) {
            qsort(sizes, ns, sizeof(uint32_t), cmp_u32);
            x->level = V_HIGH;
            x->groups = ns;
            x->per = sizes[(ns - 1) / 2];
            x->driver = DB_NO_ID;
        }
        a = b;
    }
    free(g);
    free(sizes);
    return PP_OK;
}

typedef struct cmd_span {
    uint32_t count;
    int64_t first_ns, last_start_ns, last_end_ns;
    uint32_t first;
    int concurrent; /* two of its executions overlap */
} cmd_span;

/* A Y execution starting strictly inside X's span: Y is interleaved with
 * the repeats of X, as the parent query of a loop is (a query that ran
 * twice at startup, before the requests, is not). */
static int
interleaved(const db_state *st, const uint32_t *ids, uint32_t n, uint32_t y, const cmd_span *x)
{
    for (uint32_t k = 0; k < n; k++) {
        const db_exec *e = &st->execs[ids[k]];
        if (e->start_ns >= x->last_start_ns)
            break;
        if (e->cmd == y && e->start_ns > x->first_ns)
            return 1;
    }
    return 0;
}

/* One flow, no overlap: the longest run of X with no other command in
 * between, right after its parent (the command before the run), every gap
 * within burst_gap_ms (the first within ten times that). A loop in a
 * console job or a background task looks like this; so would one query
 * per request right after a start-up query, so the caller also requires
 * stacks that show no request. Returns the run's length (0 = none). */
static uint32_t
serial_run(const db_state *st, const uint32_t *ids, uint32_t n, uint32_t c, uint32_t *parent,
           uint32_t *first, int64_t *window)
{
    int64_t gap = (int64_t)(st->burst_gap_ms * 1e6);
    /* the first repeat compiles the query (hundreds of ms): it may start late */
    int64_t first_gap = 10 * gap;
    uint32_t best = 0;
    for (uint32_t k = 1; k < n;) {
        if (st->execs[ids[k]].cmd != c) {
            k++;
            continue;
        }
        uint32_t j = k;
        while (j + 1 < n && st->execs[ids[j + 1]].cmd == c &&
               st->execs[ids[j + 1]].start_ns - st->execs[ids[j]].end_ns <= gap &&
               st->execs[ids[j + 1]].start_ns >= st->execs[ids[j]].end_ns)
            j++;
        const db_exec *p = &st->execs[ids[k - 1]], *x = &st->execs[ids[k]];
        if (p->cmd != c && x->start_ns >= p->end_ns && x->start_ns - p->end_ns <= first_gap &&
            j - k + 1 > best) {
            best = j - k + 1;
            *parent = p->cmd;
            *first = ids[k];
            *window = st->execs[ids[j]].end_ns - x->start_ns;
        }
        k = j + 1;
    }
    return best;
}

/* Whether an execution ran inside an ASP.NET Core request, by its stack:
 * 1 an ASP.NET Core frame is on it, 0 the stack is resolved and has none,
 * -1 unknown (no stack, no method names: no rundown). */
static int
on_web_stack(db_state *st, db_work *w, uint32_t i)
{
    const db_exec *x = &st->execs[i];
    uint32_t resolved = 0;
    if (!w->have_callers || x->stack_len == 0)
        return -1;
    for (uint32_t f = 0; f < x->stack_len; f++) {
        uint32_t id;
        if (pp_pc_symcache_name(&w->sym, st->src, st->ips[x->stack_off + f], &id) != PP_OK)
            return -1;
        const char *name = pp_pc_strtab_get(&w->frames, id);
        if (pp_pc_frame_unresolved(name))
            continue;
        resolved++;
        if (strncmp(name, "Microsoft.AspNetCore.", 21) == 0)
            return 1;
    }
    return resolved > x->stack_len / 2 ? 0 : -1;
}

/* 1 when executions a and b were run from one application frame (their
 * first frame outside the framework). */
static int
same_caller(const db_work *w, uint32_t a, uint32_t b)
{
    return w->caller != NULL && w->caller[a] != DB_NO_ID && w->caller[a] == w->caller[b];
}

/* Outside requests: the command that drives a loop. Counts are taken over
 * every execution outside a request, so concurrency and pauses (a first
 * query's JIT) change nothing. */
static int
judge_ungrouped(db_state *st, db_work *w, verdict *v)
{
    uint32_t nc = st->cmds.count, n = 0;
    uint32_t *ids = malloc((w->nexec ? w->nexec : 1) * sizeof(uint32_t));
    cmd_span *cs = calloc(nc ? nc : 1, sizeof(*cs));
    if (!ids || !cs) {
        free(ids);
        free(cs);
        return PP_ENOMEM;
    }
    for (uint32_t k = 0; k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        const db_exec *x = &st->execs[i];
        cmd_span *c = &cs[x->cmd];
        if (group_of(st, w, i) != 0)
            continue;
        ids[n++] = i;
        if (c->count++ == 0) {
            c->first_ns = x->start_ns;
            c->first = i;
        } else if (x->start_ns < c->last_end_ns) {
            c->concurrent = 1;
        }
        c->last_start_ns = x->start_ns;
        if (x->end_ns > c->last_end_ns)
            c->last_end_ns = x->end_ns;
    }
    for (uint32_t c = 0; c < nc; c++) {
        const cmd_span *x = &cs[c];
        uint32_t driver = DB_NO_ID, mine = DB_NO_ID;
        if (x->count < (uint64_t)st->nplus1 || v[c].level == V_HIGH)
            continue;
        for (uint32_t d = 0; d < nc; d++) {
            const cmd_span *y = &cs[d];
            if (d == c || y->count < 2 ||
                (uint64_t)x->count < ONE_CALLER_MIN * (uint64_t)y->count ||
                !interleaved(st, ids, n, d, x))
                continue;
            if ((uint64_t)x->count >= (uint64_t)st->nplus1 * y->count &&
                (driver == DB_NO_ID || y->count > cs[driver].count))
                driver = d;
            else if (same_caller(w, x->first, y->first) &&
                     (mine == DB_NO_ID || y->count > cs[mine].count))
                mine = d;
        }
        int one_caller = driver == DB_NO_ID && mine != DB_NO_ID;
        if (one_caller)
            driver = mine;
        v[c] = (verdict){ driver != DB_NO_ID ? V_MEDIUM : V_LOW,
                          x->count,
                          driver != DB_NO_ID ? (double)x->count / cs[driver].count : 0,
                          driver != DB_NO_ID ? cs[driver].count : 0,
                          0,
                          x->first,
                          x->last_end_ns - x->first_ns,
                          driver,
                          DB_NO_ID,
                          0,
                          x->concurrent,
                          0,
                          one_caller };
        uint32_t parent = DB_NO_ID, first = 0, run;
        int64_t window = 0;
        /* one parent, one serial run: a loop only where no request can be
         * (resolved stacks with no ASP.NET Core frame) */
        if (driver == DB_NO_ID && !x->concurrent &&
            (run = serial_run(st, ids, n, c, &parent, &first, &window)) >= (uint64_t)st->nplus1 &&
            on_web_stack(st, w, first) == 0)
            v[c] = (verdict){
                V_MEDIUM, run, run, 1, 0, first, window, parent, DB_NO_ID, 0, 0, 1, 0
            };
    }
    free(ids);
    free(cs);
    return PP_OK;
}

/* INSERT/UPDATE/DELETE/MERGE: the fix of a repeated write is batching. */
static const char *
fix_of(const char *cmd)
{
    static const char *const verbs[] = { "INSERT", "UPDATE", "DELETE", "MERGE", NULL };
    for (const char *const *p = verbs; *p; p++)
        if (strncasecmp(cmd, *p, strlen(*p)) == 0)
            return "batch the writes (one round trip: EF Core batching, ExecuteUpdate/"
                   "ExecuteDelete, a bulk insert)";
    return "fetch the rows in one query (Include/join, WHERE ... IN) or cache them";
}

static void
say(db_state *st, pp_ctx *ctx, const db_work *w, uint32_t c, const verdict *x, const char *caller)
{
    const pp_host_api *h = st->host;
    const char *cmd = pp_pc_strtab_get(&st->cmds, c);
    const char *sep = caller[0] ? ", called from " : "";
    char adv[320];
    const char *hint = pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, HINT_ARGS, adv, sizeof adv);
    if (x->level == V_HIGH)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "db.n_plus_one",
            "N+1 inside one %s: \"%s\" ran %.0f times per %s (max %u) in %u %s%s%s%s "
            "(%u executions, %.1f ms in all; confidence high)%s%s: %s",
            x->by_request ? "request" : "activity", cmd, x->per,
            x->by_request ? "request" : "activity", (unsigned)x->max_per, (unsigned)x->groups,
            x->by_request ? "requests" : "activities", x->route != DB_NO_ID ? " of " : "",
            x->route != DB_NO_ID ? pp_pc_strtab_get(&st->reqs.routes, x->route) : "", "",
            (unsigned)w->aggs[c].count, db_ms(w->aggs[c].total_ns), sep, caller, fix_of(cmd));
    else if (x->level == V_MEDIUM && x->one_parent)
        h->finding(ctx, PP_SEVERITY_WARNING, "db.n_plus_one",
                   "N+1 (one flow, no request boundaries; confidence medium): \"%s\" ran %u times "
                   "in a row after \"%s\", none overlapping, from code that is not serving an "
                   "ASP.NET Core request (no such frame on its stacks)%s%s: %s. If it does serve "
                   "requests, capture with %s to judge it per request",
                   cmd, (unsigned)x->executions, pp_pc_strtab_get(&st->cmds, x->driver), sep,
                   caller, fix_of(cmd), hint);
    else if (x->level == V_MEDIUM && x->one_caller)
        h->finding(ctx, PP_SEVERITY_WARNING, "db.n_plus_one",
                   "N+1 (one method runs the parent query and the repeats, no request "
                   "boundaries; confidence medium): \"%s\" ran %u times, %.1f per execution of "
                   "\"%s\" (%u executions), both from %s: %s. For exact counts per request, "
                   "capture with %s",
                   cmd, (unsigned)x->executions, x->per, pp_pc_strtab_get(&st->cmds, x->driver),
                   (unsigned)x->groups, caller, fix_of(cmd), hint);
    else if (x->level == V_MEDIUM)
        h->finding(
            ctx, PP_SEVERITY_WARNING, "db.n_plus_one",
            "N+1 (estimated: the trace has no request boundaries; confidence medium): \"%s\" "
            "ran %u times, %.1f per execution of \"%s\" (%u executions)%s%s%s: %s. For "
            "exact counts per request, capture with %s",
            cmd, (unsigned)x->executions, x->per, pp_pc_strtab_get(&st->cmds, x->driver),
            (unsigned)x->groups, x->concurrent ? ", among overlapping commands" : "", sep, caller,
            fix_of(cmd), hint);
    else if (st->reqs.count > 0)
        h->finding(ctx, PP_SEVERITY_INFO, "db.repeated_command",
                   "\"%s\" ran %u times within %.1f ms outside every request (start-up or "
                   "background work) with no other command driving it: no N+1 verdict "
                   "(confidence low)%s%s",
                   cmd, (unsigned)x->executions, db_ms(x->window_ns), sep, caller);
    else
        h->finding(ctx, PP_SEVERITY_INFO, "db.repeated_command",
                   "\"%s\" ran %u times within %.1f ms%s, but no other command drives it and the "
                   "trace has no request boundaries, so it cannot be told from one execution per "
                   "request: no N+1 verdict (confidence low)%s%s. To judge it per request, capture "
                   "with %s",
                   cmd, (unsigned)x->executions, db_ms(x->window_ns),
                   x->concurrent ? " among overlapping commands (concurrent requests)" : "", sep,
                   caller, hint);
}

static int
report(db_state *st, pp_ctx *ctx, db_work *w, const verdict *v)
{
    const pp_host_api *h = st->host;
    pp_table *t = NULL;
    uint32_t low = 0;
    int rc = PP_OK;
    for (uint32_t k = 0; k < st->cmds.count && rc == PP_OK; k++) {
        uint32_t c = w->order[k];
        const verdict *x = &v[c];
        const char *caller = "";
        if (x->level == V_NONE || (x->level == V_LOW && low++ >= MAX_LOW_FINDINGS))
            continue;
        if (w->caller && w->caller[x->first] != DB_NO_ID)
            caller = pp_pc_strtab_get(&w->frames, w->caller[x->first]);
        say(st, ctx, w, c, x, caller);
        if (x->level == V_LOW)
            continue;
        if (!t && !(t = pp_pc_table_new(h, ctx, &pp_db_tables[PP_DB_T_N_PLUS_ONE], 1, NULL)))
            return PP_ENOMEM;
        const char *group = x->level == V_HIGH ? (x->by_request ? "request" : "activity") :
                            x->one_caller      ? "caller" :
                            x->concurrent      ? "burst (concurrent)" :
                                                 "burst";
        pp_cell row[8] = {
            pp_cell_str(pp_pc_strtab_get(&st->cmds, c)),
            pp_cell_int(x->executions),
            pp_cell_dbl(db_ms(x->window_ns)),
            pp_cell_str(group),
            pp_cell_str(caller),
            pp_cell_dbl(x->per),
            pp_cell_int(x->groups),
            pp_cell_str(x->level == V_HIGH ? "high" : "medium"),
        };
        rc = h->table_row(t, row);
    }
    if (low > MAX_LOW_FINDINGS)
        h->finding(ctx, PP_SEVERITY_INFO, "db.repeated_command",
                   "%u more repeated commands without a verdict (see by_command)",
                   (unsigned)(low - MAX_LOW_FINDINGS));
    return rc;
}

int
db_find_n_plus_one(db_state *st, pp_ctx *ctx, db_work *w)
{
    verdict *v = calloc(st->cmds.count ? st->cmds.count : 1, sizeof(*v));
    if (!v)
        return PP_ENOMEM;
    int rc = judge_groups(st, w, v);
    if (rc == PP_OK)
        rc = judge_ungrouped(st, w, v);
    if (rc == PP_OK)
        rc = report(st, ctx, w, v);
    free(v);
    return rc;
}
