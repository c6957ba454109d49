/* plugins/spans: requests, their latency, and where their time went.
 *
 * A request is a server span with no server span above it (a downstream
 * service's server span sits under our client span and is not a request).
 * Downstream calls are attributed to the request whose interval contains
 * their start — by time, not by trace id, so calls on untraced threads or
 * with broken propagation still count. That is only sound when requests do
 * not overlap (one virtual user), so overlapping requests refuse the
 * attribution. Per request and kind the UNION of the call intervals is
 * taken, never the sum (parallel calls overlap), and a call nested under
 * another downstream call (a client span and the database span beneath it,
 * another service's work under our http call) is not counted again. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "spans.h"
#include "../common/decl.h"
#include "../common/quantile.h"

/* One attributed downstream call, clipped to its request. */
typedef struct sp_item {
    uint32_t req; /* index into the sorted requests */
    uint32_t ds_kind;
    uint32_t name;
    int64_t s, e;
} sp_item;

/* A contribution to an attribution row; reduced by (op, kind, name). */
typedef struct sp_contrib {
    uint32_t op;
    uint32_t kind; /* SP_DS_*, SP_DS_NONE = in-proc */
    uint32_t name; /* SP_NO_ID = all of the kind */
    int64_t ns;
    int64_t calls;
} sp_contrib;

typedef struct sp_op {
    uint32_t name;
    uint32_t requests;
    uint32_t overlaps;
    int64_t total_ns;
    int64_t *durations; /* [requests] */
    uint32_t filled;
} sp_op;

typedef struct sp_vec {
    sp_contrib *v;
    size_t n, cap;
} sp_vec;

static int
vec_push(sp_vec *c, uint32_t op, uint32_t kind, uint32_t name, int64_t ns, int64_t calls)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        sp_contrib *v = realloc(c->v, cap * sizeof(*v));
        if (!v)
            return PP_ENOMEM;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (sp_contrib){ op, kind, name, ns, calls };
    return PP_OK;
}

/* qsort_r: ctx is the spans the indexes point into */
static int
cmp_req_start(const void *a, const void *b, void *ctx)
{
    const sp_span *spans = ctx;
    const sp_span *x = &spans[*(const uint32_t *)a], *y = &spans[*(const uint32_t *)b];
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static int
cmp_item_name(const void *a, const void *b)
{
    const sp_item *x = a, *y = b;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    if (x->ds_kind != y->ds_kind)
        return x->ds_kind < y->ds_kind ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

static int
cmp_item_kind(const void *a, const void *b)
{
    const sp_item *x = a, *y = b;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    if (x->ds_kind != y->ds_kind)
        return x->ds_kind < y->ds_kind ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

static int
cmp_item_req(const void *a, const void *b)
{
    const sp_item *x = a, *y = b;
    if (x->req != y->req)
        return x->req < y->req ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

static int
cmp_contrib_key(const void *a, const void *b)
{
    const sp_contrib *x = a, *y = b;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* Report order: operations by total time, kinds in SP_DS order with
 * in-proc last, the kind's "*" row first, then downstreams by time. */
static int
cmp_contrib_report(const void *a, const void *b, void *ctx) /* ctx: each op's rank */
{
    const sp_contrib *x = a, *y = b;
    const uint32_t *op_rank = ctx;
    uint32_t rx = op_rank[x->op], ry = op_rank[y->op];
    if (rx != ry)
        return rx < ry ? -1 : 1;
    uint32_t kx = x->kind == SP_DS_NONE ? 99 : x->kind, ky = y->kind == SP_DS_NONE ? 99 : y->kind;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    int ax = x->name == SP_NO_ID, ay = y->name == SP_NO_ID;
    if (ax != ay)
        return ax ? -1 : 1;
    if (x->ns != y->ns)
        return x->ns > y->ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

static int
cmp_op_report(const void *a, const void *b, void *ctx) /* ctx: the ops indexed */
{
    const sp_op *ops = ctx;
    const sp_op *x = &ops[*(const uint32_t *)a], *y = &ops[*(const uint32_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* Total length of the union of sorted-by-start intervals it[0..n). */
static int64_t
union_ns(const sp_item *it, size_t n)
{
    int64_t total = 0, cs = 0, ce = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        if (!open || it[i].s > ce) {
            if (open)
                total = pp_i64_add_sat(total, ce - cs);
            cs = it[i].s;
            ce = it[i].e;
            open = 1;
        } else if (it[i].e > ce) {
            ce = it[i].e;
        }
    }
    if (open)
        total = pp_i64_add_sat(total, ce - cs);
    return total;
}

/* Walk up the parent chain; returns 1 when an ancestor satisfies the test.
 * Bounded by the span count, so a cyclic export cannot hang us. */
static int
has_ancestor(const sp_state *st, const uint32_t *by_id, uint32_t i, int want_server)
{
    uint32_t steps = 0;
    uint32_t p = st->spans[i].parent_id;
    while (p != SP_NO_ID && steps++ < st->count) {
        uint32_t j = by_id[p];
        if (j == SP_NO_ID)
            return 0;
        const sp_span *a = &st->spans[j];
        if (want_server ? a->kind == PP_SPAN_SERVER : a->ds_kind != SP_DS_NONE)
            return 1;
        p = a->parent_id;
    }
    return 0;
}

static double
ms(int64_t ns)
{
    return (double)ns / 1e6;
}

typedef struct sp_work {
    uint32_t *by_id; /* span id -> span index */
    uint32_t *reqs;  /* request span indices, sorted by start */
    uint32_t nreq;
    uint8_t *req_overlap; /* [nreq] */
    uint32_t *op_index;   /* names id -> index into ops, or SP_NO_ID */
    sp_op *ops;
    uint32_t nops;
    uint32_t *op_order; /* ops in report order */
    uint32_t *op_rank;  /* ops index -> rank */
    sp_item *items;
    size_t nitems;
    sp_vec contrib;
    uint32_t unattributed;
} sp_work;

static void
work_free(sp_work *w)
{
    free(w->by_id);
    free(w->reqs);
    free(w->req_overlap);
    free(w->op_index);
    if (w->ops)
        for (uint32_t i = 0; i < w->nops; i++)
            free(w->ops[i].durations);
    free(w->ops);
    free(w->op_order);
    free(w->op_rank);
    free(w->items);
    free(w->contrib.v);
}

/* Requests, sorted, overlaps marked, grouped into operations. */
static int
find_requests(sp_state *st, sp_work *w)
{
    w->by_id = malloc((size_t)(st->ids.count ? st->ids.count : 1) * sizeof(uint32_t));
    w->reqs = malloc((size_t)st->count * sizeof(uint32_t));
    w->op_index = malloc((size_t)(st->names.count ? st->names.count : 1) * sizeof(uint32_t));
    if (!w->by_id || !w->reqs || !w->op_index)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < st->ids.count; i++)
        w->by_id[i] = SP_NO_ID;
    for (uint32_t i = 0; i < st->count; i++)
        w->by_id[st->spans[i].span_id] = i;
    for (uint32_t i = 0; i < st->names.count; i++)
        w->op_index[i] = SP_NO_ID;

    for (uint32_t i = 0; i < st->count; i++)
        if (st->spans[i].kind == PP_SPAN_SERVER && !has_ancestor(st, w->by_id, i, 1))
            w->reqs[w->nreq++] = i;
    qsort_r(w->reqs, w->nreq, sizeof(uint32_t), cmp_req_start, st->spans);
    /* A server span of ANOTHER service inside a request is that request's
     * downstream even when trace context was not propagated (no parent
     * link): it is not a request of its own. */
    uint32_t kept = 0, outer = SP_NO_ID;
    for (uint32_t r = 0; r < w->nreq; r++) {
        const sp_span *s = &st->spans[w->reqs[r]];
        if (outer != SP_NO_ID) {
            const sp_span *o = &st->spans[outer];
            if (s->service != o->service && s->start >= o->start && s->end <= o->end)
                continue;
        }
        if (outer == SP_NO_ID || s->end > st->spans[outer].end)
            outer = w->reqs[r];
        w->reqs[kept++] = w->reqs[r];
    }
    w->nreq = kept;

    w->req_overlap = calloc(w->nreq ? w->nreq : 1, 1);
    w->ops = calloc(w->nreq ? w->nreq : 1, sizeof(sp_op));
    if (!w->req_overlap || !w->ops)
        return PP_ENOMEM;
    /* An overlap with an earlier request shows as a start before the
     * latest end so far; with a later one as the next start before our end. */
    int64_t max_end = INT64_MIN;
    for (uint32_t r = 0; r < w->nreq; r++) {
        const sp_span *s = &st->spans[w->reqs[r]];
        if (r > 0 && s->start < max_end)
            w->req_overlap[r] = 1;
        if (r + 1 < w->nreq && st->spans[w->reqs[r + 1]].start < s->end)
            w->req_overlap[r] = 1;
        if (s->end > max_end)
            max_end = s->end;
    }
    for (uint32_t r = 0; r < w->nreq; r++) {
        const sp_span *s = &st->spans[w->reqs[r]];
        uint32_t o = w->op_index[s->op];
        if (o == SP_NO_ID) {
            o = w->nops++;
            w->op_index[s->op] = o;
            w->ops[o].name = s->op;
        }
        w->ops[o].requests++;
        w->ops[o].overlaps += w->req_overlap[r];
        w->ops[o].total_ns = pp_i64_add_sat(w->ops[o].total_ns, s->end - s->start);
    }
    for (uint32_t o = 0; o < w->nops; o++) {
        w->ops[o].durations = malloc(w->ops[o].requests * sizeof(int64_t));
        if (!w->ops[o].durations)
            return PP_ENOMEM;
    }
    for (uint32_t r = 0; r < w->nreq; r++) {
        const sp_span *s = &st->spans[w->reqs[r]];
        sp_op *op = &w->ops[w->op_index[s->op]];
        op->durations[op->filled++] = s->end - s->start;
    }
    w->op_order = malloc((w->nops ? w->nops : 1) * sizeof(uint32_t));
    w->op_rank = malloc((w->nops ? w->nops : 1) * sizeof(uint32_t));
    if (!w->op_order || !w->op_rank)
        return PP_ENOMEM;
    for (uint32_t o = 0; o < w->nops; o++)
        w->op_order[o] = o;
    qsort_r(w->op_order, w->nops, sizeof(uint32_t), cmp_op_report, w->ops);
    for (uint32_t i = 0; i < w->nops; i++)
        w->op_rank[w->op_order[i]] = i;
    return PP_OK;
}

/* The request whose interval contains t, or SP_NO_ID. Requests do not
 * overlap here, so at most one does. */
static uint32_t
request_at(const sp_state *st, const sp_work *w, int64_t t)
{
    uint32_t lo = 0, hi = w->nreq;
    while (lo < hi) { /* first request starting after t */
        uint32_t mid = lo + (hi - lo) / 2;
        if (st->spans[w->reqs[mid]].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return SP_NO_ID;
    const sp_span *r = &st->spans[w->reqs[lo - 1]];
    return t < r->end ? lo - 1 : SP_NO_ID;
}

static int
attribute(sp_state *st, sp_work *w)
{
    w->items = malloc((size_t)(st->count ? st->count : 1) * sizeof(sp_item));
    if (!w->items)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < st->count; i++) {
        const sp_span *s = &st->spans[i];
        if (s->ds_kind == SP_DS_NONE || s->kind == PP_SPAN_SERVER)
            continue;
        if (has_ancestor(st, w->by_id, i, 0))
            continue; /* inside another downstream call: counted there */
        uint32_t r = request_at(st, w, s->start);
        if (r == SP_NO_ID) {
            w->unattributed++;
            continue;
        }
        const sp_span *req = &st->spans[w->reqs[r]];
        /* Only calls the request's own service makes: another service's
         * calls happen inside our call to it, already counted. */
        if (s->service != req->service)
            continue;
        w->items[w->nitems++] = (sp_item){ r, s->ds_kind, s->ds_name, s->start,
                                           s->end < req->end ? s->end : req->end };
    }
    sp_item *it = w->items;
    size_t n = w->nitems;
    int rc = PP_OK;

    /* per request, kind and downstream */
    qsort(it, n, sizeof(*it), cmp_item_name);
    for (size_t i = 0; i < n && rc == PP_OK;) {
        size_t j = i;
        while (j < n && it[j].req == it[i].req && it[j].ds_kind == it[i].ds_kind &&
               it[j].name == it[i].name)
            j++;
        uint32_t op = w->op_index[st->spans[w->reqs[it[i].req]].op];
        rc = vec_push(&w->contrib, op, it[i].ds_kind, it[i].name, union_ns(it + i, j - i),
                      (int64_t)(j - i));
        i = j;
    }
    /* per request and kind */
    qsort(it, n, sizeof(*it), cmp_item_kind);
    for (size_t i = 0; i < n && rc == PP_OK;) {
        size_t j = i;
        while (j < n && it[j].req == it[i].req && it[j].ds_kind == it[i].ds_kind)
            j++;
        uint32_t op = w->op_index[st->spans[w->reqs[it[i].req]].op];
        rc = vec_push(&w->contrib, op, it[i].ds_kind, SP_NO_ID, union_ns(it + i, j - i),
                      (int64_t)(j - i));
        i = j;
    }
    /* per request: what no downstream call explains */
    qsort(it, n, sizeof(*it), cmp_item_req);
    size_t i = 0;
    for (uint32_t r = 0; r < w->nreq && rc == PP_OK; r++) {
        size_t j = i;
        while (j < n && it[j].req == r)
            j++;
        const sp_span *req = &st->spans[w->reqs[r]];
        int64_t explained = union_ns(it + i, j - i);
        rc = vec_push(&w->contrib, w->op_index[req->op], SP_DS_NONE, SP_NO_ID,
                      (req->end - req->start) - explained, 0);
        i = j;
    }
    if (rc != PP_OK)
        return rc;

    /* reduce by key */
    sp_contrib *c = w->contrib.v;
    qsort(c, w->contrib.n, sizeof(*c), cmp_contrib_key);
    size_t out = 0;
    for (size_t k = 0; k < w->contrib.n; k++) {
        if (out > 0 && cmp_contrib_key(&c[out - 1], &c[k]) == 0) {
            c[out - 1].ns = pp_i64_add_sat(c[out - 1].ns, c[k].ns);
            c[out - 1].calls += c[k].calls;
        } else {
            c[out++] = c[k];
        }
    }
    w->contrib.n = out;
    qsort_r(c, out, sizeof(*c), cmp_contrib_report, w->op_rank);
    return PP_OK;
}

static int
emit_by_operation(sp_state *st, pp_ctx *ctx, sp_work *w)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_spans_tables[PP_SPANS_T_BY_OPERATION], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    for (uint32_t k = 0; k < w->nops; k++) {
        sp_op *op = &w->ops[w->op_order[k]];
        pp_pc_quantile_sort_i64(op->durations, op->requests);
        pp_cell row[7] = {
            pp_cell_str(pp_pc_strtab_get(&st->names, op->name)),
            pp_cell_int(op->requests),
            pp_cell_dbl(ms(pp_pc_quantile_sorted_i64(op->durations, op->requests, 0.50))),
            pp_cell_dbl(ms(pp_pc_quantile_sorted_i64(op->durations, op->requests, 0.95))),
            pp_cell_dbl(ms(op->durations[op->requests - 1])),
            pp_cell_int(op->overlaps),
            pp_cell_dbl(ms(op->total_ns)),
        };
        int rc = h->table_row(t, row);
        if (rc < 0)
            return rc;
    }
    return PP_OK;
}

static int
emit_attribution(sp_state *st, pp_ctx *ctx, sp_work *w)
{
    const pp_host_api *h = st->host;
    char adv[320];
    pp_table *t = pp_pc_table_new(h, ctx, &pp_spans_tables[PP_SPANS_T_ATTRIBUTION], 3, NULL);
    if (!t)
        return PP_ENOMEM;
    for (size_t k = 0; k < w->contrib.n; k++) {
        const sp_contrib *c = &w->contrib.v[k];
        const sp_op *op = &w->ops[c->op];
        double share = op->total_ns > 0 ? 100.0 * (double)c->ns / (double)op->total_ns : 0.0;
        if (share > 100.0)
            share = 100.0;
        pp_cell row[6] = {
            pp_cell_str(pp_pc_strtab_get(&st->names, op->name)),
            pp_cell_str(sp_ds_kind_name(c->kind)),
            pp_cell_str(c->name == SP_NO_ID ? "*" : pp_pc_strtab_get(&st->names, c->name)),
            pp_cell_dbl(ms(c->ns)),
            pp_cell_dbl(share),
            pp_cell_int(c->calls),
        };
        int rc = h->table_row(t, row);
        if (rc < 0)
            return rc;
        const char *opname = pp_pc_strtab_get(&st->names, op->name);
        if (c->kind == SP_DS_NONE && share >= st->inproc_share && op->total_ns > 0)
            h->finding(ctx, PP_SEVERITY_WARNING, "spans.in_proc",
                       "%s: %.1f%% of its time (%.1f ms over %u requests) is in-proc: no "
                       "downstream call explains it. Next step: capture a trace under the same "
                       "load (%s, or --profile gc-verbose) and run the cpu and alloc analyzers "
                       "on it",
                       opname, share, ms(c->ns), (unsigned)op->requests,
                       pp_capture_advice(h, ctx, PP_CAPTURE_ATTACH,
                                         "--profile dotnet-sampled-thread-time", adv, sizeof adv));
        if (c->kind != SP_DS_NONE && c->name != SP_NO_ID && op->requests > 0 &&
            c->calls >= st->nplus1 * (int64_t)op->requests)
            h->finding(ctx, PP_SEVERITY_WARNING, "spans.n_plus_one",
                       "%s: %.1f calls to %s %s per request (%lld calls over %u requests, "
                       "%.1f ms, %.1f%% of its time): an N+1 pattern; fetch in one round trip "
                       "(a join/Include, WHERE ... IN, a batch endpoint) or cache",
                       opname, (double)c->calls / op->requests, sp_ds_kind_name(c->kind),
                       pp_pc_strtab_get(&st->names, c->name), (long long)c->calls,
                       (unsigned)op->requests, ms(c->ns), share);
    }
    return PP_OK;
}

int
sp_report(sp_state *st, pp_ctx *ctx, pp_error *err)
{
    const pp_host_api *h = st->host;
    sp_work w;
    memset(&w, 0, sizeof(w));
    int rc = PP_OK;

    h->total_int(ctx, "spans", PP_COL_COUNT, st->count);
    if (st->count == 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "spans.no_spans",
                   "the input holds no spans: export them with `aspire otel spans --format Json` "
                   "(or an OTLP/JSON file exporter) while the load runs");
        return PP_OK;
    }
    if ((rc = find_requests(st, &w)) != PP_OK)
        goto done;
    uint32_t overlapping = 0;
    for (uint32_t r = 0; r < w.nreq; r++)
        overlapping += w.req_overlap[r];
    h->total_int(ctx, "requests", PP_COL_COUNT, w.nreq);
    h->total_int(ctx, "operations", PP_COL_COUNT, w.nops);
    h->total_int(ctx, "overlapping_requests", PP_COL_COUNT, overlapping);
    if (w.nreq == 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "spans.no_requests",
                   "none of the %u spans is a server span (kind 2): there is no request to "
                   "attribute time to; export the spans of the service that receives the load",
                   (unsigned)st->count);
        goto done;
    }
    if ((rc = emit_by_operation(st, ctx, &w)) != PP_OK)
        goto done;
    if (overlapping > 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "spans.overlapping_requests",
                   "%u of %u requests overlap in time (more than one virtual user): a downstream "
                   "call cannot be attributed to a request by time containment, so the "
                   "attribution table is not produced. Rerun the load with one virtual user "
                   "(k6 --vus 1, wrk -c1 -t1) and export the spans again; the latency per "
                   "operation above is valid as it is",
                   (unsigned)overlapping, (unsigned)w.nreq);
        goto done;
    }
    if ((rc = attribute(st, &w)) != PP_OK)
        goto done;
    h->total_int(ctx, "unattributed_calls", PP_COL_COUNT, w.unattributed);
    if ((rc = emit_attribution(st, ctx, &w)) != PP_OK)
        goto done;
    if (w.unattributed > 0)
        h->finding(ctx, PP_SEVERITY_INFO, "spans.unattributed_calls",
                   "%u downstream calls started outside every request (startup, background "
                   "work) and are not attributed",
                   (unsigned)w.unattributed);
done:
    if (rc == PP_ENOMEM)
        h->error_set(err, PP_ENOMEM, "spans: out of memory");
    else if (rc < 0)
        h->error_set(err, rc, "spans: could not add a result");
    work_free(&w);
    return rc;
}
