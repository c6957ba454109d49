/* plugins/db: private to finish() — the aggregates report.c builds and the
 * detection rooms (nplus1.c, requests.c) read. */
#ifndef PP_PLUGIN_DB_REPORT_H
#define PP_PLUGIN_DB_REPORT_H

#include <stdint.h>

#include "db.h"
#include "../common/decl.h"
#include "../common/frames.h"
#include "../common/modules.h"
#include "../common/srclines.h"
#include "../common/u64map.h"

static inline double
db_ms(int64_t ns)
{
    return (double)ns / 1e6;
}

typedef struct db_cmd_agg {
    int64_t total_ns, ef_ns;
    uint32_t count, async, errors, slow, with_ef;
    int64_t max_ns;
    int64_t *walls;
    uint32_t filled;
} db_cmd_agg;

typedef struct db_work {
    db_cmd_agg *aggs;
    uint32_t *order;    /* commands by total time */
    uint32_t *by_start; /* counted executions by start time */
    uint32_t nexec;
    int64_t total_ns;
    /* callers */
    pp_pc_strtab frames;
    pp_pc_symcache sym;
    pp_pc_prefixes fw;
    uint32_t *caller;      /* exec index -> caller name id, DB_NO_ID if none */
    uint32_t *caller_mod;  /* exec index -> the caller's module id (0 unknown) */
    uint32_t *caller_site; /* exec index -> call site name id (first application frame
                                 from the caller outward), DB_NO_ID if none */
    pp_pc_modules mods;    /* the callers' modules (rundown), for module/call_site */
    int any_module;        /* some caller's module is known: by_caller gains them */
    int have_callers;
    pp_pc_srclines *src;  /* by_caller's source column, or NULL */
    pp_pc_u64map src_row; /* (caller name id << 32 | command) -> its row in src */
    struct db_caller_row *crow;
    /* requests (requests.c) */
    uint32_t *req;        /* exec index -> request index, DB_NO_ID if none; NULL without requests */
    uint32_t in_requests; /* counted executions inside a request */
} db_work;

/* requests.c: the request of every counted execution, the per_request
 * table (first, when the trace has request boundaries) and its totals. */
int db_requests_resolve(db_state *st, db_work *w);
int db_emit_per_request(db_state *st, pp_ctx *ctx, db_work *w);

/* nplus1.c: N+1 inside one request where boundaries exist, estimated from
 * the ratio to the query that drives the loop where they do not; a
 * repeated command with neither is said to be undecidable, with the
 * capture that would decide it. */
int db_find_n_plus_one(db_state *st, pp_ctx *ctx, db_work *w);

#endif
