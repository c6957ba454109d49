/* plugins/gcdump-diff: table growth, the accumulating types by retained
 * growth with their owners, payloads and growth paths (gcdump_diff.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcdump_diff.h"

/* The path that holds most of row r's bytes (computed once per row, at most
 * gpaths_left times); the sample path beyond that. NULL on ENOMEM. */
const char *
gd_growth_path(state *st, work *w, uint32_t r)
{
    const pp_heap_snapshot *c = st->snap[1];
    if (w->gpath[r])
        return w->gpath[r];
    uint32_t end = HC_NONE;
    if (w->rows[r].key[1] != HC_NONE) {
        if (w->gpaths_left > 0) {
            w->gpaths_left--;
            end = hc_growth_path_end(c, &w->growth, w->rows[r].key[1]);
        }
        if (end == HC_NONE)
            end = w->sample[w->rows[r].key[1]];
    }
    hc_path_string_ex(c, w->parent, end, w->buf, PATH_BUF, &w->unknown_class);
    w->gpath[r] = strdup(w->buf);
    return w->gpath[r];
}

static int
cmp_order_retained(const void *a, const void *b, void *arg)
{
    const work *w = arg;
    const diff_row *x = &w->rows[*(const uint32_t *)a], *y = &w->rows[*(const uint32_t *)b];
    int64_t rx = gd_retained_delta(w, x), ry = gd_retained_delta(w, y);
    if (rx != ry)
        return rx > ry ? -1 : 1;
    return gd_cmp_delta(x, y);
}

/* Table growth: accumulating types by retained growth, owners with their
 * payloads, each with the path that holds most of it. */
int
gd_emit_growth(state *st, work *w, pp_ctx *ctx)
{
    const pp_host_api *h = st->host;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_gd_tables[PP_GD_T_GROWTH], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = 0;
    int64_t gross = 0;
    uint32_t *order = malloc(((size_t)w->nrows + 1) * sizeof(uint32_t));
    if (!order)
        return PP_ENOMEM;
    for (uint32_t r = 0; r < w->nrows; r++) {
        if (w->rows[r].dbytes > 0)
            gross = pp_i64_add_sat(gross, w->rows[r].dbytes);
        if (gd_accumulating(&w->rows[r]))
            order[n++] = r;
    }
    qsort_r(order, n, sizeof(uint32_t), cmp_order_retained, w);
    uint32_t shown = st->top == 0 || (uint64_t)st->top > n ? n : (uint32_t)st->top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < shown && rc == PP_OK; i++) {
        uint32_t r = order[i];
        const diff_row *row = &w->rows[r];
        char payload[1024];
        size_t len = 0;
        payload[0] = '\0';
        for (uint32_t q = 0; q < w->nrows; q++) {
            if (w->owner[q] != r || len + 8 >= sizeof(payload))
                continue;
            char by[32];
            snprintf(by, sizeof(by), "%+lld B", (long long)w->rows[q].dbytes);
            int k = snprintf(payload + len, sizeof(payload) - len, "%s%s %+lld objects, %s",
                             len ? "; " : "", w->rows[q].name, (long long)w->rows[q].dcount, by);
            if (k > 0)
                len += (size_t)k < sizeof(payload) - len ? (size_t)k : sizeof(payload) - len - 1;
        }
        const char *path = gd_growth_path(st, w, r);
        if (!path) {
            free(order);
            return PP_ENOMEM;
        }
        int64_t rd = gd_retained_delta(w, row);
        pp_cell cells[10] = {
            pp_cell_str(row->name),
            pp_cell_int(row->dcount),
            pp_cell_int(row->dbytes),
            pp_cell_int(row->key[0] != HC_NONE ? (int64_t)w->ret[0][row->key[0]] : 0),
            pp_cell_int((int64_t)w->ret[1][row->key[1]]),
            pp_cell_int(rd),
            pp_cell_dbl(gross > 0 ? 100.0 * (double)rd / (double)gross : 0.0),
            pp_cell_str(w->owner[r] != HC_NONE ? w->rows[w->owner[r]].name : ""),
            pp_cell_str(payload),
            pp_cell_str(path),
        };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}
