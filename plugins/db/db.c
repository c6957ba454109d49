/* plugins/db: descriptor, options and the intake of DiagnosticSource
 * command events. Starts and stops are paired by ActivityID (async
 * commands stop on another thread; Start.ActivityID == Stop.ActivityID);
 * without activity ids (TplEventSource TasksFlowActivityIds off) EF Core
 * commands fall back to ConnectionId, SqlClient ones to the thread. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "db.h"
#include "normalize.h"

static const pp_option_decl options[] = {
    { "nplus1", PP_OPT_INT, 0, "10",
      "executions of one command in one request (without request boundaries: per execution of "
      "the command that drives it) that raise an N+1 finding" },
    { "slow_ms", PP_OPT_DOUBLE, 0, "100", "an execution longer than this (ms) is slow" },
    { "burst_gap_ms", PP_OPT_DOUBLE, 0, "100",
      "without request boundaries: the longest gap (ms) inside one serial run of a command" },
    { "timeline", PP_OPT_BOOL, 0, "false", "add the timeline table (one row per execution)" },
    { "top", PP_OPT_INT, 0, "0", "rows of by_command and by_caller (0 = all)" },
    { "framework", PP_OPT_STRING_LIST, 0,
      "System.,Microsoft.,Npgsql.,MySqlConnector.,MySql.,Oracle.,SQLitePCL.,Dapper.",
      "frame prefixes skipped when naming the caller of a command" },
};

static const char EF_SOURCE[] = "Microsoft.EntityFrameworkCore";
static const char EF_EXECUTING[] =
    "Microsoft.EntityFrameworkCore.Database.Command.CommandExecuting";
static const char EF_EXECUTED[] = "Microsoft.EntityFrameworkCore.Database.Command.CommandExecuted";
static const char EF_ERROR[] = "Microsoft.EntityFrameworkCore.Database.Command.CommandError";

uint64_t
db_guid_hash(const pp_guid *g)
{
    uint64_t a, b;
    memcpy(&a, g->bytes, 8);
    memcpy(&b, g->bytes + 8, 8);
    uint64_t h = pp_pc_hash_u64(a ^ pp_pc_hash_u64(b + 0x9e3779b97f4a7c15u));
    return h ? h : 1;
}

static int
guid_zero(const pp_guid *g)
{
    static const pp_guid z;
    return memcmp(g, &z, sizeof(z)) == 0;
}

static int
db_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state, pp_error *err)
{
    db_state *st = calloc(1, sizeof(*st));
    if (!st) {
        host->error_set(err, PP_ENOMEM, "db: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->ctx = ctx;
    st->opts = opts;
    st->nplus1 = 10;
    st->slow_ms = 100;
    st->burst_gap_ms = 100;
    st->top = 0;
    if (host->opt_int(opts, "nplus1", &st->nplus1) == PP_EINVAL ||
        host->opt_double(opts, "slow_ms", &st->slow_ms) == PP_EINVAL ||
        host->opt_double(opts, "burst_gap_ms", &st->burst_gap_ms) == PP_EINVAL ||
        host->opt_bool(opts, "timeline", &st->timeline) == PP_EINVAL ||
        host->opt_int(opts, "top", &st->top) == PP_EINVAL) {
        free(st);
        host->error_set(err, PP_EINVAL, "db: bad option type");
        return PP_EINVAL;
    }
    /* 1e9 ms (11.6 days) keeps ten times the gap, in ns, inside int64_t */
    if (st->nplus1 < 2 || !(st->slow_ms >= 0 && st->slow_ms <= 1e9) ||
        !(st->burst_gap_ms >= 0 && st->burst_gap_ms <= 1e9) || st->top < 0) {
        free(st);
        host->error_set(err, PP_EINVAL,
                        "db: nplus1 must be >= 2, top >= 0, slow_ms and burst_gap_ms "
                        "between 0 and 1e9");
        return PP_EINVAL;
    }
    *state = st;
    return PP_OK;
}

/* The command text's normalized id, remembering the first raw text. */
static int
intern_command(db_state *st, const char *text, uint32_t *id)
{
    size_t n = strlen(text);
    size_t need = 2 * n + 8;
    if (need > st->norm_cap) {
        char *b = realloc(st->norm, need);
        if (!b)
            return PP_ENOMEM;
        st->norm = b;
        st->norm_cap = need;
    }
    size_t len = db_normalize_sql(text, st->norm, st->norm_cap);
    uint32_t before = st->cmds.count;
    if (pp_pc_strtab_intern(&st->cmds, st->norm, len, id) != PP_OK)
        return PP_ENOMEM;
    if (st->cmds.count > before) { /* new command: keep this raw text as its example */
        if (*id >= st->example_cap) {
            uint32_t cap = st->example_cap ? st->example_cap * 2 : 64;
            uint32_t *e = realloc(st->example, (size_t)cap * sizeof(*e));
            if (!e)
                return PP_ENOMEM;
            st->example = e;
            st->example_cap = cap;
        }
        if (pp_pc_strtab_intern(&st->raws, text, n, &st->example[*id]) != PP_OK)
            return PP_ENOMEM;
    }
    return PP_OK;
}

static int
push_exec(db_state *st, db_exec **out)
{
    if (st->count == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 256;
        db_exec *e = cap > st->cap ? realloc(st->execs, (size_t)cap * sizeof(*e)) : NULL;
        if (!e)
            return PP_ENOMEM;
        st->execs = e;
        st->cap = cap;
    }
    *out = &st->execs[st->count++];
    memset(*out, 0, sizeof(**out));
    return PP_OK;
}

static int
keep_stack(db_state *st, const pp_trace_event *e, db_exec *x)
{
    uint32_t n = e->stack_depth < DB_MAX_STACK ? e->stack_depth : DB_MAX_STACK;
    if (!e->stack || n == 0)
        return PP_OK;
    if (st->nips + n > st->ips_cap) {
        size_t cap = st->ips_cap ? st->ips_cap * 2 : 4096;
        while (cap < st->nips + n)
            cap *= 2;
        uint64_t *p = realloc(st->ips, cap * sizeof(*p));
        if (!p)
            return PP_ENOMEM;
        st->ips = p;
        st->ips_cap = cap;
    }
    memcpy(st->ips + st->nips, e->stack, n * sizeof(uint64_t));
    x->stack_off = (uint32_t)st->nips;
    x->stack_len = n;
    st->nips += n;
    return PP_OK;
}

/* The pending execution a stop closes, or DB_NO_ID. */
static uint32_t
find_pending(db_state *st, const pp_trace_event *e, uint32_t source, uint64_t conn)
{
    if (!guid_zero(&e->activity_id)) {
        uint32_t i;
        if (pp_pc_u64map_get(&st->pending, db_guid_hash(&e->activity_id), &i) && i != DB_NO_ID &&
            !st->execs[i].done && memcmp(&st->execs[i].activity, &e->activity_id, 16) == 0)
            return i;
        /* a hash collision or a reused slot: look at the open ones */
        for (uint32_t k = st->count; k-- > 0;)
            if (!st->execs[k].done && memcmp(&st->execs[k].activity, &e->activity_id, 16) == 0)
                return k;
        return DB_NO_ID;
    }
    /* No activity id: the most recent open command of the same source on the
     * same connection (EF) or thread (SqlClient). */
    for (uint32_t k = st->count; k-- > 0;) {
        const db_exec *x = &st->execs[k];
        if (x->done || x->source != source || !guid_zero(&x->activity))
            continue;
        if ((conn && x->conn) ? x->conn == conn : x->thread == e->thread_id)
            return k;
    }
    return DB_NO_ID;
}

static uint64_t
conn_hash(const char *c)
{
    if (!c || !c[0])
        return 0;
    uint64_t h = pp_pc_hash_bytes(c, strlen(c), 0);
    return h ? h : 1;
}

static int
on_start(db_state *st, const pp_trace_event *e, const db_ds_event *d, uint32_t source)
{
    const char *text = db_ds_arg_get(d, "CommandText");
    if (!text)
        text = "(command text not captured)";
    db_exec *x;
    if (push_exec(st, &x) != PP_OK)
        return PP_ENOMEM;
    uint32_t idx = st->count - 1;
    x->start_ns = e->time_ns;
    x->end_ns = -1;
    x->ef_ns = -1;
    x->thread = e->thread_id;
    x->conn = conn_hash(db_ds_arg_get(d, "ConnectionId"));
    x->activity = e->activity_id;
    x->related = e->related_activity_id;
    x->source = source;
    const char *as = db_ds_arg_get(d, "IsAsync");
    x->is_async = as && (strcmp(as, "True") == 0 || strcmp(as, "true") == 0);
    if (intern_command(st, text, &x->cmd) != PP_OK || keep_stack(st, e, x) != PP_OK)
        return PP_ENOMEM;
    st->open++;
    if (guid_zero(&e->activity_id)) {
        st->zero_activity++;
    } else if (pp_pc_u64map_put(&st->pending, db_guid_hash(&e->activity_id), idx) != PP_OK) {
        return PP_ENOMEM;
    }
    /* SqlClient under EF Core is the same command seen twice: the EF start
     * is its creator activity, or (no activity ids) the open EF command on
     * this thread with the same text. */
    if (source == DB_SRC_SQLCLIENT) {
        for (uint32_t k = idx; k-- > 0;) {
            const db_exec *o = &st->execs[k];
            if (o->done || o->source != DB_SRC_EF)
                continue;
            if ((!guid_zero(&e->related_activity_id) &&
                 memcmp(&o->activity, &e->related_activity_id, 16) == 0) ||
                (o->thread == e->thread_id && o->cmd == x->cmd)) {
                x->nested = 1;
                break;
            }
        }
    }
    return PP_OK;
}

static void
on_stop(db_state *st, const pp_trace_event *e, const db_ds_event *d, uint32_t source, int error)
{
    uint32_t i = find_pending(st, e, source, conn_hash(db_ds_arg_get(d, "ConnectionId")));
    if (i == DB_NO_ID) {
        st->unmatched_stops++;
        return;
    }
    db_exec *x = &st->execs[i];
    x->done = 1;
    x->error = (uint8_t)error;
    x->end_ns = e->time_ns < x->start_ns ? x->start_ns : e->time_ns;
    int64_t ef;
    if (db_parse_timespan(db_ds_arg_get(d, "Duration"), &ef) == 0 && ef >= 0)
        x->ef_ns = ef;
    st->open--;
    if (!guid_zero(&x->activity))
        (void)pp_pc_u64map_put(&st->pending, db_guid_hash(&x->activity), DB_NO_ID);
}

/* A request boundary: the request's activity id is the related id of
 * every command start inside it. */
static int
on_request(db_state *st, const pp_trace_event *e, int kind, const char *method, const char *path)
{
    st->request_events++;
    if (kind == 2) {
        pp_pc_requests_stop(&st->reqs, &e->activity_id, e->time_ns);
        return PP_OK;
    }
    return pp_pc_requests_start(&st->reqs, &e->activity_id, e->time_ns, method, path);
}

static int
on_hosting(db_state *st, const pp_trace_event *e, int kind)
{
    char method[32] = "", path[448] = "";
    pp_value v;
    if (kind == 1 && PP_HOST_HAS(st->host, trace_field)) {
        if (st->host->trace_field(e, "method", &v) == PP_OK && v.type == PP_VALUE_STRING)
            snprintf(method, sizeof(method), "%s", v.v.s);
        if (st->host->trace_field(e, "path", &v) == PP_OK && v.type == PP_VALUE_STRING)
            snprintf(path, sizeof(path), "%s", v.v.s);
    }
    return on_request(st, e, kind, method, path);
}

static int
db_consume(void *state, const pp_record *rec, pp_error *err)
{
    db_state *st = state;
    if (rec->kind != PP_KIND_NETTRACE)
        return PP_OK;
    const pp_trace_event *e = rec->u.event;
    if (!st->src)
        st->src = e->source;
    int hk = e->provider_known == PP_PROVIDER_OTHER ? pp_pc_requests_hosting_kind(e) : 0;
    if (hk) {
        if (on_hosting(st, e, hk) != PP_OK) {
            st->host->error_set(err, PP_ENOMEM, "db: out of memory");
            return PP_ENOMEM;
        }
        return PP_OK;
    }
    if (e->provider_known != PP_PROVIDER_DIAGNOSTIC_SOURCE &&
        !(e->provider && strcmp(e->provider, "Microsoft-Diagnostics-DiagnosticSource") == 0))
        return PP_OK;
    st->ds_events++;
    uint32_t slot;
    uint32_t method = db_ds_method(e->name, &slot);
    if (method != DB_DS_START && method != DB_DS_STOP && method != DB_DS_EVENT)
        return PP_OK; /* Message, Version, NewDiagnosticListener */
    int rc = db_ds_decode(&st->dec, e->name, e->payload, e->payload_size, &st->ev);
    if (rc == -2) {
        st->host->error_set(err, PP_ENOMEM, "db: out of memory");
        return PP_ENOMEM;
    }
    if (rc != 0) {
        st->undecodable++;
        return PP_OK;
    }
    const db_ds_event *d = &st->ev;
    int rk = pp_pc_requests_ds_kind(d->source, d->event);
    if (rk) {
        if (on_request(st, e, rk, db_ds_arg_get(d, "Method"), db_ds_arg_get(d, "Path")) != PP_OK) {
            st->host->error_set(err, PP_ENOMEM, "db: out of memory");
            return PP_ENOMEM;
        }
        return PP_OK;
    }
    uint32_t source = 0;
    int start = 0, stop = 0, error = 0;
    if (strcmp(d->source, EF_SOURCE) == 0) {
        source = DB_SRC_EF;
        start = strcmp(d->event, EF_EXECUTING) == 0;
        stop = strcmp(d->event, EF_EXECUTED) == 0;
        error = strcmp(d->event, EF_ERROR) == 0;
    } else if (strcmp(d->source, "SqlClientDiagnosticListener") == 0) {
        source = DB_SRC_SQLCLIENT;
        const char *ev = d->event;
        if (strncmp(ev, "System.Data.SqlClient.", 22) == 0)
            ev += 22;
        else if (strncmp(ev, "Microsoft.Data.SqlClient.", 25) == 0)
            ev += 25;
        start = strcmp(ev, "WriteCommandBefore") == 0;
        stop = strcmp(ev, "WriteCommandAfter") == 0;
        error = strcmp(ev, "WriteCommandError") == 0;
    } else if (strstr(d->event, "Command")) {
        st->other_commands++;
    }
    if (start || stop || error)
        st->command_event_bytes += e->payload_size;
    if (start) {
        if (on_start(st, e, d, source) != PP_OK) {
            st->host->error_set(err, PP_ENOMEM, "db: out of memory");
            return PP_ENOMEM;
        }
    } else if (stop || error) {
        on_stop(st, e, d, source, error);
    }
    return PP_OK;
}

static int
db_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return db_report(state, ctx, err);
}

static void
db_destroy(void *state)
{
    db_state *st = state;
    if (!st)
        return;
    db_ds_decoder_free(&st->dec);
    free(st->norm);
    free(st->execs);
    pp_pc_u64map_free(&st->pending);
    pp_pc_strtab_free(&st->cmds);
    pp_pc_strtab_free(&st->raws);
    free(st->example);
    free(st->ips);
    pp_pc_requests_free(&st->reqs);
    free(st);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "db",
    .version = "1.1.0",
    .summary =
        "Database commands (EF Core / SqlClient DiagnosticSource): cost per command, N+1, slow",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options = options,
    .create = db_create,
    .consume = db_consume,
    .finish = db_finish,
    .destroy = db_destroy,
    .tables = pp_db_tables,
};

PP_PLUGIN_DEFINE(descriptor);
