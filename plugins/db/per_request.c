/* plugins/db: requests as a unit — which request each command ran in (its
 * start's related activity id is the request's activity id) and the
 * per_request table: commands, database time and request time per request,
 * by route. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "report.h"

int
db_requests_resolve(db_state *st, db_work *w)
{
    if (st->reqs.count == 0)
        return PP_OK;
    w->req = malloc((st->count ? st->count : 1) * sizeof(uint32_t));
    if (!w->req)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < st->count; i++)
        w->req[i] = DB_NO_ID;
    for (uint32_t k = 0; k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        const db_exec *x = &st->execs[i];
        uint32_t r = pp_pc_requests_find(&st->reqs, &x->related);
        if (r == PP_PC_NO_REQUEST)
            r = pp_pc_requests_find(&st->reqs, &x->activity);
        if (r != PP_PC_NO_REQUEST) {
            w->req[i] = r;
            w->in_requests++;
        }
    }
    return PP_OK;
}

typedef struct route_agg {
    uint32_t requests, commands, max_per_request;
    int64_t db_ns, request_ns;
    uint32_t timed; /* requests with a stop */
} route_agg;

int
db_emit_per_request(db_state *st, pp_ctx *ctx, db_work *w)
{
    const pp_host_api *h = st->host;
    const pp_pc_requests *rq = &st->reqs;
    if (!w->req)
        return PP_OK;
    uint32_t *per = calloc(rq->count ? rq->count : 1, sizeof(uint32_t));
    int64_t *db_ns = calloc(rq->count ? rq->count : 1, sizeof(int64_t));
    route_agg *ra = calloc(rq->routes.count ? rq->routes.count : 1, sizeof(*ra));
    int rc = per && db_ns && ra ? PP_OK : PP_ENOMEM;
    for (uint32_t k = 0; rc == PP_OK && k < w->nexec; k++) {
        uint32_t i = w->by_start[k];
        if (w->req[i] == DB_NO_ID)
            continue;
        per[w->req[i]]++;
        db_ns[w->req[i]] = pp_i64_add_sat(db_ns[w->req[i]],
                                          st->execs[i].end_ns - st->execs[i].start_ns);
    }
    uint32_t complete = 0;
    for (uint32_t r = 0; rc == PP_OK && r < rq->count; r++) {
        route_agg *a = &ra[rq->v[r].route];
        a->requests++;
        a->commands += per[r];
        a->db_ns = pp_i64_add_sat(a->db_ns, db_ns[r]);
        if (per[r] > a->max_per_request)
            a->max_per_request = per[r];
        if (rq->v[r].stop_ns >= 0) {
            a->request_ns = pp_i64_add_sat(a->request_ns, rq->v[r].stop_ns - rq->v[r].start_ns);
            a->timed++;
            complete++;
        }
    }
    pp_table *t = rc == PP_OK ?
                      pp_pc_table_new(h, ctx, &pp_db_tables[PP_DB_T_PER_REQUEST], 1, NULL) :
                      NULL;
    if (rc == PP_OK && !t)
        rc = PP_ENOMEM;
    for (uint32_t c = 0; rc == PP_OK && c < rq->routes.count; c++) {
        const route_agg *a = &ra[c];
        pp_cell row[8] = {
            pp_cell_str(pp_pc_strtab_get(&rq->routes, c)),
            pp_cell_int(a->requests),
            pp_cell_int(a->commands),
            pp_cell_dbl((double)a->commands / a->requests),
            pp_cell_int(a->max_per_request),
            pp_cell_dbl(db_ms(a->db_ns)),
            pp_cell_dbl(db_ms(a->db_ns) / a->requests),
            a->timed ? pp_cell_dbl(db_ms(a->request_ns) / a->timed) : pp_cell_null(),
        };
        rc = h->table_row(t, row);
    }
    if (rc == PP_OK) {
        h->total_int(ctx, "requests", PP_COL_COUNT, complete);
        h->total_int(ctx, "commands_in_requests", PP_COL_COUNT, w->in_requests);
        if (rq->count)
            h->total_double(ctx, "commands_per_request", PP_COL_NUMBER,
                            (double)w->in_requests / rq->count);
    }
    free(per);
    free(db_ns);
    free(ra);
    return rc;
}
