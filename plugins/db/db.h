/* plugins/db: shared state of the database command analyzer (issue #7).
 *
 * consume() decodes DiagnosticSource events, pairs each command's start and
 * stop by activity id and keeps one db_exec per execution; finish() (in
 * report.c) aggregates by normalized command and raises the findings. */
#ifndef PP_PLUGIN_DB_H
#define PP_PLUGIN_DB_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/strtab.h"
#include "../common/u64map.h"
#include "../common/requests.h"
#include "dsevent.h"

#define DB_SRC_EF        1u /* Microsoft.EntityFrameworkCore CommandExecuting/Executed */
#define DB_SRC_SQLCLIENT 2u /* SqlClientDiagnosticListener WriteCommandBefore/After */

#define DB_NO_ID     UINT32_MAX
#define DB_MAX_STACK 256u /* frames kept per execution for by_caller */

typedef struct db_exec {
    int64_t start_ns; /* trace time of the start event */
    int64_t end_ns;   /* of the stop event; -1 while pending */
    int64_t ef_ns;    /* EF Core's Duration argument, -1 if absent */
    uint64_t thread;  /* thread of the start */
    uint64_t conn;    /* hash of ConnectionId (pairing fallback), 0 if none */
    pp_guid activity;
    pp_guid related;
    uint32_t cmd;                  /* normalized command id in st->cmds */
    uint32_t source;               /* DB_SRC_* */
    uint32_t stack_off, stack_len; /* into st->ips */
    uint8_t is_async;
    uint8_t done;
    uint8_t nested; /* a SqlClient command inside an EF command: not counted */
    uint8_t error;  /* stopped by a *Error event */
} db_exec;

typedef struct db_state {
    const pp_host_api *host;
    pp_ctx *ctx;
    const pp_options *opts;
    int64_t nplus1;
    double slow_ms;
    double burst_gap_ms;
    int timeline;
    int64_t top;
    const pp_trace_source *src; /* for symbolization in finish() */

    db_ds_decoder dec;
    db_ds_event ev; /* scratch for the decoder (large) */
    char *norm;     /* scratch for normalization */
    size_t norm_cap;

    db_exec *execs;
    uint32_t count, cap;
    pp_pc_u64map pending; /* activity hash -> exec index */
    uint32_t open;        /* pending executions */
    pp_pc_strtab cmds;    /* normalized texts */
    uint32_t *example;    /* cmd id -> raw text id in st->raws */
    uint32_t example_cap;
    pp_pc_strtab raws;
    uint64_t *ips;
    size_t nips, ips_cap;

    /* counters for findings and totals */
    uint64_t ds_events;
    uint64_t undecodable;
    uint64_t unmatched_stops;
    uint64_t zero_activity;  /* starts without an activity id */
    uint64_t other_commands; /* command-like events of listeners we do not decode */

    uint64_t command_event_bytes; /* payload bytes of the command start/stop events */
    pp_pc_requests reqs;          /* request boundaries (Hosting events, HttpRequestIn) */
    uint64_t request_events;      /* boundary events seen, with or without activity id */
} db_state;

/* A hash of a GUID for the pending map (0 reserved for "none"). */
uint64_t db_guid_hash(const pp_guid *g);

int db_report(db_state *st, pp_ctx *ctx, pp_error *err);

/* The tables finish writes, by their place in pp_db_tables (db.c: the descriptor's
 * declarations, each writer makes its table from its entry). */
enum {
    PP_DB_T_BY_COMMAND,
    PP_DB_T_BY_CALLER,
    PP_DB_T_N_PLUS_ONE,
    PP_DB_T_PER_REQUEST,
    PP_DB_T_TIMELINE,
};
extern const pp_table_decl pp_db_tables[];

#endif
