/* plugins/db: finish() — cost per normalized command, the optional
 * timeline, the callers (first non-framework frame of the start event's
 * stack), and the findings: N+1, slow executions, unpaired events, EF Core's
 * own Duration disagreeing with the measured pair, and no data at all. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db.h"
#include "report.h"
#include "../common/frames.h"
#include "../common/quantile.h"

static int
counted(const db_exec *x)
{
    return x->done && !x->nested;
}

/* qsort_r: ctx is the commands' aggregates the indexes point into */
static int
cmp_cmd_total(const void *a, const void *b, void *ctx)
{
    const db_cmd_agg *aggs = ctx;
    const db_cmd_agg *x = &aggs[*(const uint32_t *)a], *y = &aggs[*(const uint32_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) -
           (*(const uint32_t *)a < *(const uint32_t *)b);
}

static int
cmp_exec_start(const void *a, const void *b, void *ctx) /* ctx: the executions */
{
    const db_exec *execs = ctx;
    const db_exec *x = &execs[*(const uint32_t *)a], *y = &execs[*(const uint32_t *)b];
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) -
           (*(const uint32_t *)a < *(const uint32_t *)b);
}

typedef struct db_caller_row {
    uint32_t caller; /* name id in the frame table */
    uint32_t cmd;
    uint32_t count;
    int64_t total_ns;
    uint32_t mod;  /* the caller's module id */
    uint32_t site; /* call site name id, DB_NO_ID if none */
} db_caller_row;

static int
cmp_caller(const void *a, const void *b)
{
    const db_caller_row *x = a, *y = b;
    if (x->caller != y->caller)
        return x->caller < y->caller ? -1 : 1;
    return (x->cmd > y->cmd) - (x->cmd < y->cmd);
}

static int
cmp_caller_total(const void *a, const void *b)
{
    const db_caller_row *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return cmp_caller(a, b);
}

static void
work_free(db_state *st, db_work *w)
{
    if (w->aggs)
        for (uint32_t i = 0; i < st->cmds.count; i++)
            free(w->aggs[i].walls);
    free(w->aggs);
    free(w->order);
    free(w->by_start);
    free(w->caller);
    free(w->caller_mod);
    free(w->caller_site);
    if (w->have_callers)
        pp_pc_modules_free(&w->mods);
    free(w->req);
    free(w->crow);
    if (w->have_callers)
        pp_pc_symcache_free(&w->sym);
    pp_pc_srclines_free(w->src);
    pp_pc_u64map_free(&w->src_row);
    pp_pc_strtab_free(&w->frames);
    pp_pc_prefixes_free(&w->fw);
}

static int
aggregate(db_state *st, db_work *w)
{
    uint32_t nc = st->cmds.count;
    w->aggs = calloc(nc ? nc : 1, sizeof(*w->aggs));
    w->order = malloc((nc ? nc : 1) * sizeof(uint32_t));
    w->by_start = malloc((st->count ? st->count : 1) * sizeof(uint32_t));
    if (!w->aggs || !w->order || !w->by_start)
        return PP_ENOMEM;
    int64_t slow_ns = (int64_t)(st->slow_ms * 1e6);
    for (uint32_t i = 0; i < st->count; i++) {
        const db_exec *x = &st->execs[i];
        if (!counted(x))
            continue;
        db_cmd_agg *a = &w->aggs[x->cmd];
        int64_t wall = x->end_ns - x->start_ns;
        a->count++;
        a->total_ns = pp_i64_add_sat(a->total_ns, wall);
        a->async += x->is_async;
        a->errors += x->error;
        a->slow += wall > slow_ns;
        if (wall > a->max_ns)
            a->max_ns = wall;
        if (x->ef_ns >= 0) {
            a->ef_ns = pp_i64_add_sat(a->ef_ns, x->ef_ns);
            a->with_ef++;
        }
        w->total_ns = pp_i64_add_sat(w->total_ns, wall);
        w->by_start[w->nexec++] = i;
    }
    for (uint32_t c = 0; c < nc; c++) {
        w->order[c] = c;
        if (w->aggs[c].count && !(w->aggs[c].walls = malloc(w->aggs[c].count * sizeof(int64_t))))
            return PP_ENOMEM;
    }
    qsort_r(w->by_start, w->nexec, sizeof(uint32_t), cmp_exec_start, st->execs);
    for (uint32_t k = 0; k < w->nexec; k++) {
        const db_exec *x = &st->execs[w->by_start[k]];
        db_cmd_agg *a = &w->aggs[x->cmd];
        a->walls[a->filled++] = x->end_ns - x->start_ns;
    }
    qsort_r(w->order, nc, sizeof(uint32_t), cmp_cmd_total, w->aggs);
    return PP_OK;
}

static uint32_t
row_limit(const db_state *st, uint32_t n)
{
    return st->top > 0 && (uint64_t)st->top < n ? (uint32_t)st->top : n;
}

static int
emit_by_command(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_db_tables[PP_DB_T_BY_COMMAND], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = row_limit(st, st->cmds.count);
    for (uint32_t k = 0, shown = 0; k < st->cmds.count && shown < n; k++) {
        uint32_t c = w->order[k];
        db_cmd_agg *a = &w->aggs[c];
        if (a->count == 0)
            continue; /* only nested or unpaired executions */
        shown++;
        pp_pc_quantile_sort_i64(a->walls, a->count);
        pp_cell row[12] = {
            pp_cell_str(pp_pc_strtab_get(&st->cmds, c)),
            pp_cell_int(a->count),
            pp_cell_dbl(db_ms(a->total_ns)),
            pp_cell_dbl(db_ms(a->total_ns) / a->count),
            pp_cell_dbl(db_ms(pp_pc_quantile_sorted_i64(a->walls, a->count, 0.50))),
            pp_cell_dbl(db_ms(pp_pc_quantile_sorted_i64(a->walls, a->count, 0.95))),
            pp_cell_dbl(db_ms(a->max_ns)),
            pp_cell_dbl(w->total_ns > 0 ? 100.0 * (double)a->total_ns / (double)w->total_ns : 0.0),
            a->with_ef ? pp_cell_dbl(db_ms(a->ef_ns)) : pp_cell_null(),
            pp_cell_int(a->async),
            pp_cell_int(a->errors),
            pp_cell_str(pp_pc_strtab_get(&st->raws, st->example[c])),
        };
        int rc = h->table_row(t, row);
        if (rc < 0)
            return rc;
    }
    return PP_OK;
}

static int
emit_timeline(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_db_tables[PP_DB_T_TIMELINE], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    for (uint32_t k = 0; k < w->nexec; k++) {
        const db_exec *x = &st->execs[w->by_start[k]];
        pp_cell row[4] = {
            pp_cell_int(x->start_ns),
            pp_cell_int(x->end_ns - x->start_ns),
            pp_cell_str(pp_pc_strtab_get(&st->cmds, x->cmd)),
            pp_cell_int((int64_t)x->thread),
        };
        int rc = h->table_row(t, row);
        if (rc < 0)
            return rc;
    }
    return PP_OK;
}

/* Where the fix of execution i's caller (its frame f) lands: the caller's
 * module, and the first application frame from it outward (the caller
 * itself when it is application code; a package's caller otherwise). */
static int
caller_lands(db_state *st, db_work *w, uint32_t i, uint32_t f)
{
    const db_exec *x = &st->execs[i];
    if (!w->mods.on)
        return PP_OK;
    for (uint32_t g = f; g < x->stack_len; g++) {
        uint32_t mod, id;
        uint64_t ip = st->ips[x->stack_off + g];
        if (pp_pc_modules_of(&w->mods, st->src, ip, &mod) != PP_OK)
            return PP_ENOMEM;
        if (g == f) {
            w->caller_mod[i] = mod;
            if (mod == 0)
                return PP_OK; /* no rundown for it: nothing to say */
            w->any_module = 1;
        }
        if (pp_pc_modules_is_app(&w->mods, mod)) {
            if (pp_pc_symcache_name(&w->sym, st->src, ip, &id) != PP_OK)
                return PP_ENOMEM;
            w->caller_site[i] = id;
            return PP_OK;
        }
    }
    return PP_OK;
}

/* Execution i's caller frame f: its line goes to the by_caller row
 * (caller, command), weighted by the execution's time. */
static int
caller_line(db_state *st, db_work *w, uint32_t i, uint32_t f)
{
    const db_exec *x = &st->execs[i];
    uint64_t key = (uint64_t)w->caller[i] << 32 | x->cmd;
    uint32_t row;
    if (!pp_pc_u64map_get(&w->src_row, key, &row)) {
        row = w->src_row.count;
        if (pp_pc_u64map_put(&w->src_row, key, row) != PP_OK)
            return PP_ENOMEM;
    }
    int rc = pp_pc_srclines_note(w->src, i, row, st->ips[x->stack_off + f], f,
                                 pp_pc_modules_is_app(&w->mods, w->caller_mod[i]));
    if (rc == PP_OK)
        pp_pc_srclines_add(w->src, i, x->end_ns - x->start_ns);
    return rc;
}

/* The first frame (leaf first) that is resolved and not framework code. */
static int
resolve_callers(db_state *st, db_work *w, pp_error *err)
{
    int any = 0;
    for (uint32_t k = 0; k < w->nexec && !any; k++)
        any = st->execs[w->by_start[k]].stack_len > 0;
    if (!any || !st->src || !PP_HOST_HAS(st->host, trace_symbolize))
        return PP_OK;
    int rc = pp_pc_prefixes_load(st->host, st->opts, "framework", &w->fw, err);
    if (rc != PP_OK)
        return rc;
    pp_pc_symcache_init(&w->sym, st->host, &w->frames);
    pp_pc_modules_init(&w->mods, st->host);
    w->have_callers = 1;
    w->caller = malloc(st->count * sizeof(uint32_t));
    w->caller_mod = calloc(st->count ? st->count : 1, sizeof(uint32_t));
    w->caller_site = malloc((st->count ? st->count : 1) * sizeof(uint32_t));
    if (!w->caller || !w->caller_mod || !w->caller_site)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < st->count; i++)
        w->caller[i] = w->caller_site[i] = DB_NO_ID;
    /* the callers' lines (each execution a stack) */
    if (w->mods.on && !(w->src = pp_pc_srclines_new(st->host, st->src, st->count)) &&
        (st->host->host_features & PP_HOST_SYM_SOURCE))
        return PP_ENOMEM;
    for (uint32_t k = 0; k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        const db_exec *x = &st->execs[i];
        for (uint32_t f = 0; f < x->stack_len; f++) {
            uint32_t id;
            if (pp_pc_symcache_name(&w->sym, st->src, st->ips[x->stack_off + f], &id) != PP_OK)
                return PP_ENOMEM;
            const char *name = pp_pc_strtab_get(&w->frames, id);
            /* dynamicClass.* are runtime-generated (LCG) shapers, never the caller */
            if (pp_pc_frame_unresolved(name) || pp_pc_prefixes_match(&w->fw, name) ||
                strncmp(name, "dynamicClass.", 13) == 0)
                continue;
            w->caller[i] = id;
            if (caller_lands(st, w, i, f) != PP_OK)
                return PP_ENOMEM;
            if (w->src && caller_line(st, w, i, f) != PP_OK)
                return PP_ENOMEM;
            break;
        }
    }
    return PP_OK;
}

/* The line of by_caller row r, or NULL. */
static const char *
caller_row_line(const db_work *w, const db_caller_row *r, const char **lines)
{
    uint32_t row;
    if (!lines || r->caller == DB_NO_ID ||
        !pp_pc_u64map_get(&w->src_row, (uint64_t)r->caller << 32 | r->cmd, &row))
        return NULL;
    return lines[row];
}

static int
emit_by_caller(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    w->crow = malloc((w->nexec ? w->nexec : 1) * sizeof(*w->crow));
    if (!w->crow)
        return PP_ENOMEM;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        const db_exec *x = &st->execs[i];
        w->crow[n++] = (db_caller_row){ w->caller[i],
                                        x->cmd,
                                        1,
                                        x->end_ns - x->start_ns,
                                        w->caller_mod ? w->caller_mod[i] : 0,
                                        w->caller_site ? w->caller_site[i] : DB_NO_ID };
    }
    qsort(w->crow, n, sizeof(*w->crow), cmp_caller);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (m > 0 && cmp_caller(&w->crow[m - 1], &w->crow[k]) == 0) {
            w->crow[m - 1].count++;
            w->crow[m - 1].total_ns = pp_i64_add_sat(w->crow[m - 1].total_ns, w->crow[k].total_ns);
            /* one caller name, one module; the call site: the lowest id, whatever qsort did */
            if (w->crow[k].site < w->crow[m - 1].site)
                w->crow[m - 1].site = w->crow[k].site;
            if (w->crow[m - 1].mod == 0)
                w->crow[m - 1].mod = w->crow[k].mod;
        } else {
            w->crow[m++] = w->crow[k];
        }
    }
    qsort(w->crow, m, sizeof(*w->crow), cmp_caller_total);
    /* module and call_site only where the trace has module rundown: a result of a
     * trace without it stays what it was; source (common/srclines.h: the line
     * most of the row's time called from) only when some row has one */
    const char **lines = w->any_module && w->src ? pp_pc_srclines_best(w->src, w->src_row.count) :
                                                   NULL;
    if (w->any_module && w->src && !lines)
        return PP_ENOMEM;
    int with_src = 0;
    for (uint32_t k = 0; k < m && !with_src; k++)
        with_src = caller_row_line(w, &w->crow[k], lines) != NULL;
    static const char *const no_module[] = { "module", "call_site", "source", NULL };
    pp_table *t = pp_pc_table_new(h, ctx, &pp_db_tables[PP_DB_T_BY_CALLER], 2,
                                  !w->any_module ? no_module :
                                  with_src       ? NULL :
                                                   no_module + 2);
    if (!t) {
        free(lines);
        return PP_ENOMEM;
    }
    uint32_t lim = row_limit(st, m);
    for (uint32_t k = 0; k < lim; k++) {
        const db_caller_row *r = &w->crow[k];
        if (w->any_module && r->caller != DB_NO_ID)
            pp_pc_modules_use(&w->mods, r->mod);
        const char *line = caller_row_line(w, r, lines);
        pp_cell row[8] = {
            pp_cell_str(r->caller == DB_NO_ID ? "(framework only)" :
                                                pp_pc_strtab_get(&w->frames, r->caller)),
            pp_cell_str(pp_pc_strtab_get(&st->cmds, r->cmd)),
            pp_cell_int(r->count),
            pp_cell_dbl(db_ms(r->total_ns)),
            pp_cell_dbl(w->total_ns > 0 ? 100.0 * (double)r->total_ns / (double)w->total_ns : 0.0),
            pp_cell_str(r->caller == DB_NO_ID ? "" : pp_pc_modules_name(&w->mods, r->mod)),
            pp_cell_str(r->site == DB_NO_ID ? "" : pp_pc_strtab_get(&w->frames, r->site)),
            pp_cell_str(line ? line : ""),
        };
        int rc = h->table_row(t, row);
        if (rc < 0) {
            free(lines);
            return rc;
        }
    }
    free(lines);
    if (w->src)
        pp_pc_srclines_findings(w->src, "db", ctx);
    return w->any_module ? pp_pc_modules_emit(&w->mods, ctx) : PP_OK;
}

static void duration_findings(db_state *st, pp_ctx *ctx, db_work *w);

static void
findings(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    char adv[320];
    uint32_t slow_reported = 0, slow_cmds = 0;
    for (uint32_t k = 0; k < st->cmds.count; k++) {
        uint32_t c = w->order[k];
        const db_cmd_agg *a = &w->aggs[c];
        if (a->slow == 0)
            continue;
        slow_cmds++;
        if (slow_reported++ < 10)
            h->finding(ctx, PP_SEVERITY_WARNING, "db.slow_command",
                       "\"%s\": %u of %u executions took over %.0f ms (max %.1f ms)",
                       pp_pc_strtab_get(&st->cmds, c), (unsigned)a->slow, (unsigned)a->count,
                       st->slow_ms, db_ms(a->max_ns));
    }
    if (slow_cmds > 10)
        h->finding(ctx, PP_SEVERITY_WARNING, "db.slow_command",
                   "%u more commands have slow executions (see max_ms in by_command)",
                   (unsigned)(slow_cmds - 10));

    uint32_t unmatched = 0;
    for (uint32_t i = 0; i < st->count; i++)
        unmatched += !st->execs[i].done && !st->execs[i].nested;
    if (unmatched)
        h->finding(ctx, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT, "db.unmatched_starts",
                   "%u command starts have no stop (the trace ended mid-command, or a newer "
                   "start on the same async flow replaced the activity); they are not counted",
                   (unsigned)unmatched);
    if (st->unmatched_stops)
        h->finding(ctx, PP_SEVERITY_INFO, "db.unmatched_stops",
                   "%llu command stops have no start (the trace began mid-command)",
                   (unsigned long long)st->unmatched_stops);
    if (st->undecodable)
        h->finding(ctx, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT, "db.undecodable_events",
                   "%llu DiagnosticSource events had a payload that is not SourceName, EventName, "
                   "uint16 count, Key/Value pairs; they are skipped",
                   (unsigned long long)st->undecodable);
    if (st->zero_activity)
        h->finding(
            ctx, PP_SEVERITY_INFO, "db.no_activity_ids",
            "%llu command starts carry no activity id, so starts and stops were paired by "
            "ConnectionId or thread; async commands may pair wrongly. Enable "
            "System.Threading.Tasks.TplEventSource:0x80 (TasksFlowActivityIds), as "
            "%s does",
            (unsigned long long)st->zero_activity,
            pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, "--profile database", adv, sizeof adv));

    duration_findings(st, ctx, w);
}

/* What tracing costs the figures, and which of the two times to trust.
 * EF Core starts its stopwatch before it writes CommandExecuting and reads
 * it before it writes CommandExecuted; the trace times the two events
 * themselves. Under `--profile database` each event carries the command's
 * arguments, serialized inside the command's own time, so both figures
 * include the profiler's work and neither is the untraced time. */
static void
duration_findings(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    int64_t ef = 0, pair = 0;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->nexec; k++) {
        const db_exec *x = &st->execs[w->by_start[k]];
        if (x->ef_ns < 0)
            continue;
        ef += x->ef_ns;
        pair += x->end_ns - x->start_ns;
        n++;
    }
    if (w->nexec > 0) {
        double per = (double)st->command_event_bytes / w->nexec;
        h->total_double(ctx, "event_bytes_per_command", PP_COL_NUMBER, per);
        char both[96] = "";
        if (n)
            snprintf(both, sizeof(both), " and EF Core's Duration (%.1f ms) both", db_ms(ef));
        h->finding(ctx, PP_SEVERITY_INFO, "db.profiler_overhead",
                   "these times come from a traced run: every command wrote a start and a stop "
                   "DiagnosticSource event carrying its arguments (%.0f bytes per command here), "
                   "serialized on the command's own thread inside its measured time, so db_ms "
                   "(%.1f ms)%s over-state the untraced time by the profiler's share. Compare "
                   "traced runs with traced runs; for absolute database time use a run without "
                   "`--profile database` (EF Core's own metrics, dotnet-counters "
                   "Microsoft.EntityFrameworkCore)",
                   per, db_ms(w->total_ns), both);
    }
    if (pair <= 0)
        return;
    double diff = 100.0 * (double)(ef - pair) / (double)pair;
    h->total_double(ctx, "ef_duration_ms", PP_COL_NUMBER, db_ms(ef));
    if ((diff > 10.0 || diff < -10.0) && (ef - pair > 1000000 || pair - ef > 1000000))
        h->finding(ctx, PP_SEVERITY_INFO, "db.duration_mismatch",
                   "EF Core's own Duration adds up to %.1f ms, %+.1f%% off the %.1f ms between its "
                   "CommandExecuting and CommandExecuted events. Trust the span between the events "
                   "(db_ms, the times in these tables) for where this run waited: the trace timed "
                   "both ends itself. EF Core's stopwatch starts before it writes CommandExecuting "
                   "and so also counts that event's argument serialization and EF's own logging "
                   "(ef_duration_ms keeps it). Neither is the untraced time (see "
                   "db.profiler_overhead)",
                   db_ms(ef), diff, db_ms(pair));
}

int
db_report(db_state *st, pp_ctx *ctx, pp_error *err)
{
    const pp_host_api *h = st->host;
    char adv[320];
    db_work w;
    memset(&w, 0, sizeof(w));
    int rc = PP_OK;
    h->total_int(ctx, "diagnostic_source_events", PP_COL_COUNT, (int64_t)st->ds_events);
    if (st->ds_events == 0) {
        h->finding(
            ctx, PP_SEVERITY_WARNING, "db.no_diagnostic_source",
            "the trace has no Microsoft-Diagnostics-DiagnosticSource events, so there are "
            "no database commands to report. Capture with %s (it enables EF Core's CommandExecuting/Executed "
            "and System.Data.SqlClient's WriteCommandBefore/After; Microsoft.Data.SqlClient "
            "publishes Microsoft.Data.SqlClient.* names that profile does not list — add "
            "them to its FilterAndPayloadSpecs)",
            pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH, "--profile database -p PID", adv,
                              sizeof adv));
        return PP_OK;
    }
    if ((rc = aggregate(st, &w)) != PP_OK)
        goto done;
    h->total_int(ctx, "commands", PP_COL_COUNT, w.nexec);
    uint32_t distinct = 0;
    for (uint32_t c = 0; c < st->cmds.count; c++)
        distinct += w.aggs[c].count > 0;
    h->total_int(ctx, "distinct_commands", PP_COL_COUNT, distinct);
    h->total_double(ctx, "db_ms", PP_COL_NUMBER, db_ms(w.total_ns));
    if (w.nexec == 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "db.no_commands",
                   "%llu DiagnosticSource events but no completed EF Core or SqlClient command: "
                   "is the app using another data provider? Microsoft.Data.SqlClient publishes "
                   "Microsoft.Data.SqlClient.WriteCommandBefore/After, which `--profile database` "
                   "does not enable — add them to the FilterAndPayloadSpecs of "
                   "Microsoft-Diagnostics-DiagnosticSource",
                   (unsigned long long)st->ds_events);
        findings(st, ctx, &w);
        goto done;
    }
    if ((rc = resolve_callers(st, &w, err)) != PP_OK)
        goto done;
    /* per-request figures first, when the trace has request boundaries */
    if ((rc = db_requests_resolve(st, &w)) != PP_OK ||
        (rc = db_emit_per_request(st, ctx, &w)) != PP_OK)
        goto done;
    if ((rc = emit_by_command(st, ctx, &w)) != PP_OK)
        goto done;
    if (st->timeline && (rc = emit_timeline(st, ctx, &w)) != PP_OK)
        goto done;
    if (w.caller && (rc = emit_by_caller(st, ctx, &w)) != PP_OK)
        goto done;
    if ((rc = db_find_n_plus_one(st, ctx, &w)) != PP_OK)
        goto done;
    findings(st, ctx, &w);
done:
    if (rc == PP_ENOMEM)
        h->error_set(err, PP_ENOMEM, "db: out of memory");
    else if (rc < 0 && err && err->code == 0)
        h->error_set(err, rc, "db: could not add a result");
    work_free(st, &w);
    return rc;
}
