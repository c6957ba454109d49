/* Analyzer `gcdump-diff`: two heap snapshots (baseline, candidate) joined by
 * type name: counts, bytes, deltas and a status per type, totals for both,
 * sample paths to the root for the top growers, and the types that grew
 * (table leak_suspects: count grew past a threshold, hanging off a static
 * root; a finding "gcdump.grew" each, with the caution that two snapshots
 * cannot tell a leak from a bounded structure filling up). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "heap_common.h"
#include "gcdump_diff.h"

static const pp_option_decl options[] = {
    { "top", PP_OPT_INT, 0, "50",
      "rows of by_type, the largest byte changes either way (0 = all types)" },
    { "paths", PP_OPT_INT, 0, "5", "top growers that get a sample path to the root" },
    { "leak_threshold", PP_OPT_INT, 0, "1000",
      "a type whose count grew by more than this, reachable from a static root, is a leak suspect" },
    { "merge_size_buckets", PP_OPT_BOOL, 0, "true",
      "merge dotnet-gcdump's \"T (Bytes > 10K)\" pseudo-types into T, so a type keeps "
      "its identity when its instances change size bucket" },
};

static const char *const slots[] = { "baseline", "candidate" };

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    (void)ctx;
    state *st = calloc(1, sizeof(*st));
    if (!st) {
        host->error_set(err, PP_ENOMEM, "gcdump-diff: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->top = 50;
    st->paths = 5;
    st->threshold = 1000;
    st->merge = 1;
    host->opt_int(opts, "top", &st->top);
    host->opt_int(opts, "paths", &st->paths);
    host->opt_int(opts, "leak_threshold", &st->threshold);
    host->opt_bool(opts, "merge_size_buckets", &st->merge);
    if (st->top < 0 || st->paths < 0 || st->threshold < 0) {
        host->error_set(err, PP_EINVAL,
                        "gcdump-diff: options top, paths and leak_threshold must be >= 0");
        free(st);
        return PP_EINVAL;
    }
    *out = st;
    return PP_OK;
}

static int
consume(void *p, const pp_record *rec, pp_error *err)
{
    state *st = p;
    if (rec->kind != PP_KIND_GCDUMP)
        return PP_OK;
    if (rec->input_index > 1 || st->snap[rec->input_index]) {
        st->host->error_set(
            err, PP_EINVAL,
            "gcdump-diff: expected one heap snapshot per input (baseline, candidate)");
        return PP_EINVAL;
    }
    hc_snapshot_view(rec->u.heap, &st->view[rec->input_index]);
    st->snap[rec->input_index] = &st->view[rec->input_index];
    return PP_OK;
}

static int64_t
rnd(double v)
{
    return pp_i64_from_double(round(v));
}

static int
cmp_abs_delta(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    int64_t ax = llabs(x->dbytes), ay = llabs(y->dbytes);
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return gd_cmp_delta(a, b);
}

static const char *
status_of(const diff_row *r)
{
    if (r->count[0] == 0 && r->count[1] > 0)
        return "appeared";
    if (r->count[0] > 0 && r->count[1] == 0)
        return "disappeared";
    if (r->dbytes > 0 || (r->dbytes == 0 && r->dcount > 0))
        return "grew";
    if (r->dbytes < 0 || r->dcount < 0)
        return "shrank";
    return "unchanged";
}

/* Comparators over row indexes (qsort_r: no global state, stages may run
 * side by side). */
static int
cmp_order_delta(const void *a, const void *b, void *rows)
{
    const diff_row *g_rows = rows;
    return gd_cmp_delta(&g_rows[*(const uint32_t *)a], &g_rows[*(const uint32_t *)b]);
}

static int
cmp_order_abs(const void *a, const void *b, void *rows)
{
    const diff_row *g_rows = rows;
    return cmp_abs_delta(&g_rows[*(const uint32_t *)a], &g_rows[*(const uint32_t *)b]);
}

static int
cmp_suspect(const void *a, const void *b, void *rows)
{
    const diff_row *g_rows = rows;
    const suspect *x = a, *y = b;
    int ox = x->owner_row != HC_NONE, oy = y->owner_row != HC_NONE;
    if (ox != oy)
        return ox - oy;
    const diff_row *rx = &g_rows[x->row], *ry = &g_rows[y->row];
    if (rx->dcount != ry->dcount)
        return rx->dcount > ry->dcount ? -1 : 1;
    return strcmp(rx->name, ry->name);
}

static void
work_free(work *w)
{
    hc_keys_free(&w->k[0]);
    hc_keys_free(&w->k[1]);
    hc_dom_free(&w->dom);
    free(w->rows);
    free(w->order);
    free(w->parent);
    free(w->from_static);
    free(w->sample);
    free(w->row_of_key);
    free(w->sus);
    free(w->buf);
    free(w->bfs);
    hc_growth_free(&w->growth);
    free(w->ret[0]);
    free(w->ret[1]);
    free(w->owner);
    if (w->gpath)
        for (uint32_t r = 0; r < w->nrows; r++)
            free(w->gpath[r]);
    free(w->gpath);
}

static int
join(state *st, work *w)
{
    if (hc_keys_build(st->snap[0], st->merge, &w->k[0]) != PP_OK ||
        hc_keys_build(st->snap[1], st->merge, &w->k[1]) != PP_OK)
        return PP_ENOMEM;
    hc_keys *k = w->k;
    w->rows = calloc((size_t)k[0].nkeys + k[1].nkeys + 1, sizeof(*w->rows));
    w->order = malloc(((size_t)k[0].nkeys + k[1].nkeys + 1) * sizeof(uint32_t));
    w->row_of_key = malloc(((size_t)k[1].nkeys + 1) * sizeof(uint32_t));
    if (!w->rows || !w->order || !w->row_of_key)
        return PP_ENOMEM;
    for (uint32_t i = 0, j = 0; i < k[0].nkeys || j < k[1].nkeys;) {
        int c = i == k[0].nkeys ? 1 : j == k[1].nkeys ? -1 : strcmp(k[0].name[i], k[1].name[j]);
        diff_row *r = &w->rows[w->nrows];
        r->key[0] = r->key[1] = HC_NONE;
        if (c <= 0) {
            r->name = k[0].name[i];
            r->key[0] = i;
            r->count[0] = rnd(k[0].scount[i]);
            r->bytes[0] = rnd(k[0].sbytes[i]);
            i++;
        }
        if (c >= 0) {
            r->name = k[1].name[j];
            r->key[1] = j;
            r->count[1] = rnd(k[1].scount[j]);
            r->bytes[1] = rnd(k[1].sbytes[j]);
            w->row_of_key[j] = w->nrows;
            j++;
        }
        r->dcount = r->count[1] - r->count[0];
        r->dbytes = r->bytes[1] - r->bytes[0];
        /* Types no node uses in either dump get no row. */
        if (r->count[0] == 0 && r->count[1] == 0) {
            if (r->key[1] != HC_NONE)
                w->row_of_key[r->key[1]] = HC_NONE;
            memset(r, 0, sizeof(*r));
            continue;
        }
        w->order[w->nrows] = w->nrows;
        w->nrows++;
    }
    return PP_OK;
}

/* Dominators and static reachability in the candidate; a sample instance
 * per type: reachable from a static root if any is, then the one retaining
 * the most (the path a leak hunter follows). The shortest paths come after
 * the dominator tree is freed (find_owners): the per-node arrays of the
 * phases never coexist, which holds gcdump-diff near one gcdump's peak
 * beside the two snapshots (bench/RESULTS.md, issue 35). */
static int
analyze_candidate(state *st, work *w)
{
    const pp_heap_snapshot *c = st->snap[1];
    /* Static reachability first: its queue, 4 bytes a node, is freed
     * before the dominator tree is built. */
    if (hc_reachable_from_named(c, "[static vars]", &w->from_static, &w->nstatic) != PP_OK ||
        hc_dominators(c, &w->dom) != PP_OK)
        return PP_ENOMEM;
    w->sample = malloc(((size_t)w->k[1].nkeys + 1) * sizeof(uint32_t));
    w->buf = malloc(PATH_BUF);
    if (!w->sample || !w->buf)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < w->k[1].nkeys; i++)
        w->sample[i] = HC_NONE;
    /* Reachable from the root: in the dominator tree (the same nodes the
     * breadth-first search of find_owners reaches). */
    for (uint32_t v = 0; v < c->node_count; v++) {
        if (w->dom.idom[v] == HC_NONE)
            continue;
        uint32_t key = w->k[1].type_key[hc_node_type(c, v)];
        uint32_t b = w->sample[key];
        if (b == HC_NONE || (w->from_static[v] && !w->from_static[b]) ||
            (w->from_static[v] == w->from_static[b] && w->dom.retained[v] > w->dom.retained[b]))
            w->sample[key] = v;
    }
    return PP_OK;
}

static int
find_suspects(state *st, work *w)
{
    const pp_heap_snapshot *c = st->snap[1];
    w->sus = calloc((size_t)w->nrows + 1, sizeof(*w->sus));
    uint32_t *sus_of_row = malloc(((size_t)w->nrows + 1) * sizeof(uint32_t));
    uint64_t *ret = malloc(((size_t)w->k[1].nkeys + 1) * sizeof(uint64_t));
    uint32_t *owned = NULL;
    int rc = PP_ENOMEM;
    if (!w->sus || !sus_of_row || !ret)
        goto out;
    for (uint32_t r = 0; r < w->nrows; r++) {
        const diff_row *row = &w->rows[r];
        sus_of_row[r] = HC_NONE;
        if (row->dcount <= st->threshold || row->key[1] == HC_NONE)
            continue;
        uint32_t smp = w->sample[row->key[1]];
        /* Without static roots in the dump (older writers) reachability
         * cannot be checked; the finding says so. */
        if (w->nstatic > 0 && (smp == HC_NONE || !w->from_static[smp]))
            continue;
        sus_of_row[r] = w->nsus;
        w->sus[w->nsus++] = (suspect){ r, HC_NONE, 0 };
    }
    free(w->from_static); /* nstatic and the samples are what stays */
    w->from_static = NULL;
    if (hc_retained_by_key(c, &w->dom, &w->k[1], ret) != PP_OK)
        goto out;
    /* Only idom and the preorder are read from here on. */
    free(w->dom.retained);
    free(w->dom.ipre);
    w->dom.retained = NULL;
    w->dom.ipre = NULL;
    memcpy(w->ret[1], ret, (size_t)w->k[1].nkeys * sizeof(uint64_t));
    for (uint32_t q = 0; q < w->nsus; q++)
        w->sus[q].held = ret[w->rows[w->sus[q].row].key[1]];
    if (w->nsus > 1) {
        /* The owner of a suspect is the suspect whose instances immediately
         * dominate more than half of its instances: a majority vote
         * (Boyer-Moore) over the owners seen, then a count to confirm it.
         * Memory stays linear however many types grew. */
        owned = calloc((size_t)w->nsus * 3, sizeof(uint32_t));
        if (!owned)
            goto out;
        uint32_t *cand = owned, *votes = owned + w->nsus, *hits = owned + 2 * (size_t)w->nsus;
        for (int pass = 0; pass < 2; pass++) {
            for (uint32_t v = 0; v < c->node_count; v++) {
                uint32_t id = w->dom.idom[v];
                if (id == HC_NONE || v == c->root)
                    continue;
                uint32_t ra = w->row_of_key[w->k[1].type_key[hc_node_type(c, v)]];
                uint32_t ro = w->row_of_key[w->k[1].type_key[hc_node_type(c, id)]];
                if (ra == HC_NONE || ro == HC_NONE)
                    continue;
                uint32_t a = sus_of_row[ra], o = sus_of_row[ro];
                if (a == HC_NONE || o == HC_NONE || a == o)
                    continue;
                if (pass == 1) {
                    hits[a] += cand[a] == o;
                } else if (votes[a] == 0) {
                    cand[a] = o;
                    votes[a] = 1;
                } else {
                    votes[a] += cand[a] == o ? 1u : (uint32_t)-1;
                }
            }
        }
        for (uint32_t a = 0; a < w->nsus; a++) {
            const diff_row *ra = &w->rows[w->sus[a].row];
            if (2 * (int64_t)hits[a] > ra->count[1])
                w->sus[a].owner_row = w->sus[cand[a]].row;
        }
        /* Mutual ownership cannot make both payloads: the larger growth
         * stays independent. */
        for (uint32_t a = 0; a < w->nsus; a++) {
            uint32_t orow = w->sus[a].owner_row;
            if (orow == HC_NONE)
                continue;
            suspect *o = &w->sus[sus_of_row[orow]];
            if (o->owner_row == w->sus[a].row) {
                if (w->rows[o->row].dcount >= w->rows[w->sus[a].row].dcount)
                    o->owner_row = HC_NONE;
                else
                    w->sus[a].owner_row = HC_NONE;
            }
        }
    }
    qsort_r(w->sus, w->nsus, sizeof(*w->sus), cmp_suspect, w->rows);
    rc = PP_OK;
out:
    free(owned);
    free(sus_of_row);
    free(ret);
    return rc;
}

/* Retained bytes per key on both sides (the baseline's dominator tree is
 * built and dropped here, before the candidate's). */
static int
retained_both(state *st, work *w)
{
    uint64_t reach;
    uint32_t nreach;
    w->ret[0] = malloc(((size_t)w->k[0].nkeys + 1) * sizeof(uint64_t));
    w->ret[1] = malloc(((size_t)w->k[1].nkeys + 1) * sizeof(uint64_t));
    if (!w->ret[0] || !w->ret[1])
        return PP_ENOMEM;
    return hc_retained_summary(st->snap[0], &w->k[0], w->ret[0], NULL, &reach, &nreach, NULL);
}

/* The owner of an accumulating type: the accumulating type whose instances
 * are, for more than half of its instances, the nearest accumulating
 * dominator (containers whose count did not grow, like a list's array, are
 * looked through). A majority vote (Boyer-Moore) and a count to confirm:
 * memory stays linear in nodes and rows. */
static int
find_owners(state *st, work *w)
{
    const pp_heap_snapshot *c = st->snap[1];
    uint32_t n = c->node_count;
    uint32_t *a1 = malloc((n ? n : 1) * sizeof(uint32_t)),
             *a2 = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *cand = calloc((size_t)w->nrows + 1, sizeof(uint32_t));
    uint32_t *votes = calloc((size_t)w->nrows + 1, sizeof(uint32_t));
    uint32_t *hits = calloc((size_t)w->nrows + 1, sizeof(uint32_t));
    w->owner = malloc(((size_t)w->nrows + 1) * sizeof(uint32_t));
    int rc = PP_ENOMEM;
    if (!a1 || !a2 || !cand || !votes || !hits || !w->owner)
        goto out;
#define ROW_OF(v) w->row_of_key[w->k[1].type_key[hc_node_type(c, (v))]]
    /* a1/a2: the nearest two distinct accumulating rows among a node's
     * strict dominators, in dominator preorder (dominators first). */
    for (uint32_t i = 0; i < w->dom.nreach; i++) {
        uint32_t v = w->dom.rpo[i];
        a1[v] = a2[v] = HC_NONE;
        if (v == c->root)
            continue;
        uint32_t id = w->dom.idom[v], rid = ROW_OF(id);
        uint32_t seq[3] = { rid != HC_NONE && gd_accumulating(&w->rows[rid]) ? rid : HC_NONE,
                            a1[id], a2[id] };
        for (int k = 0; k < 3; k++) {
            if (seq[k] == HC_NONE)
                continue;
            if (a1[v] == HC_NONE)
                a1[v] = seq[k];
            else if (seq[k] != a1[v] && a2[v] == HC_NONE)
                a2[v] = seq[k];
        }
    }
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < w->dom.nreach; i++) {
            uint32_t v = w->dom.rpo[i], ra = ROW_OF(v);
            if (v == c->root || ra == HC_NONE || !gd_accumulating(&w->rows[ra]))
                continue;
            uint32_t o = a1[v] != ra ? a1[v] : a2[v];
            if (o == HC_NONE)
                continue;
            if (pass == 1)
                hits[ra] += cand[ra] == o;
            else if (votes[ra] == 0) {
                cand[ra] = o;
                votes[ra] = 1;
            } else
                votes[ra] += cand[ra] == o ? 1u : (uint32_t)-1;
        }
#undef ROW_OF
    for (uint32_t r = 0; r < w->nrows; r++) {
        w->owner[r] = HC_NONE;
        if (gd_accumulating(&w->rows[r]) &&
            2 * (uint64_t)hits[r] > w->k[1].count[w->rows[r].key[1]])
            w->owner[r] = cand[r];
    }
    /* Mutual ownership cannot make both payloads: the larger count growth
     * stays the owner. */
    for (uint32_t r = 0; r < w->nrows; r++) {
        uint32_t o = w->owner[r];
        if (o != HC_NONE && w->owner[o] == r) {
            if (w->rows[o].dcount >= w->rows[r].dcount)
                w->owner[o] = HC_NONE;
            else
                w->owner[r] = HC_NONE;
        }
    }
    /* The dominator tree is done with: the shortest-path tree takes its
     * place. */
    free(a1);
    free(a2);
    a1 = a2 = NULL;
    hc_dom_free(&w->dom);
    w->gpath = calloc((size_t)w->nrows + 1, sizeof(char *));
    w->gpaths_left = (uint32_t)(st->paths < 1000 ? st->paths : 1000) + 10;
    rc = w->gpath && hc_bfs_order(c, &w->parent, &w->bfs, &w->nbfs) == PP_OK &&
                 hc_growth_init(c, w->parent, w->bfs, w->nbfs, w->k[1].type_key, &w->growth) ==
                     PP_OK ?
             PP_OK :
             PP_ENOMEM;
out:
    free(a1);
    free(a2);
    free(cand);
    free(votes);
    free(hits);
    return rc;
}

/* The finding of one type that grew. One growth between two snapshots
 * cannot tell a leak from a cache warming up: "grew", with the caution; a
 * leak verdict needs growth that persists (docs/rules.md,
 * leak.static-collection). held: what grew along with it, or "". */
static void
grew_finding(const pp_host_api *h, pp_ctx *ctx, const diff_row *r, uint64_t retained,
             const char *held, int has_statics, const char *path)
{
    h->finding(ctx, PP_SEVERITY_WARNING, "gcdump.grew",
               "%s grew by %lld objects (%+lld bytes)%s; its instances retain %llu bytes%s%s%s; "
               "path: %s. Grew between two snapshots only: that cannot tell a leak from a "
               "structure filling up to its bound (a cache warming up). A leak keeps "
               "growing: take a third snapshot later under the same load and diff it "
               "with the second, or read a counters series over the run (perfpipe "
               "counters-csv: trend growing, not bounded)",
               r->name, (long long)r->dcount, (long long)r->dbytes,
               has_statics ? " and is reachable from a static root" :
                             " (the dump records no static roots: reachability not checked)",
               (unsigned long long)retained, held[0] ? " (with " : "", held, held[0] ? ")" : "",
               path);
}

static int
emit(state *st, work *w, pp_ctx *ctx)
{
    const pp_host_api *h = st->host;
    const pp_heap_snapshot *c = st->snap[1];
    int rc = PP_OK;

    rc = gd_emit_growth(st, w, ctx);
    if (rc != PP_OK)
        return rc;
    pp_table *t = pp_pc_table_new(h, ctx, &pp_gd_tables[PP_GD_T_BY_TYPE], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t shown = st->top == 0 || (uint64_t)st->top > w->nrows ? w->nrows : (uint32_t)st->top;
    /* Keep the largest changes either way, then list by bytes_delta. */
    qsort_r(w->order, w->nrows, sizeof(uint32_t), cmp_order_abs, w->rows);
    qsort_r(w->order, shown, sizeof(uint32_t), cmp_order_delta, w->rows);
    for (uint32_t i = 0; i < shown && rc == PP_OK; i++) {
        const diff_row *r = &w->rows[w->order[i]];
        pp_cell cells[8] = {
            pp_cell_str(r->name),   pp_cell_int(r->count[0]),  pp_cell_int(r->count[1]),
            pp_cell_int(r->dcount), pp_cell_int(r->bytes[0]),  pp_cell_int(r->bytes[1]),
            pp_cell_int(r->dbytes), pp_cell_str(status_of(r)),
        };
        rc = h->table_row(t, cells);
    }
    if (rc != PP_OK)
        return rc;

    /* Sample paths for the top growers, in the candidate. */
    pp_table *pt = pp_pc_table_new(h, ctx, &pp_gd_tables[PP_GD_T_PATHS], 1, NULL);
    if (!pt)
        return PP_ENOMEM;
    qsort_r(w->order, w->nrows, sizeof(uint32_t), cmp_order_delta, w->rows);
    for (uint32_t i = 0, n = 0; i < w->nrows && n < (uint64_t)st->paths && rc == PP_OK; i++) {
        const diff_row *r = &w->rows[w->order[i]];
        if (r->dbytes <= 0 && r->dcount <= 0)
            break;
        if (r->key[1] == HC_NONE || w->sample[r->key[1]] == HC_NONE)
            continue;
        const char *gp = gd_growth_path(st, w, w->order[i]);
        if (!gp)
            return PP_ENOMEM;
        uint32_t depth = 1;
        for (const char *q = strstr(gp, " > "); q; q = strstr(q + 3, " > "))
            depth++;
        pp_cell cells[4] = { pp_cell_str(r->name), pp_cell_int(r->dbytes), pp_cell_int(depth),
                             pp_cell_str(gp) };
        rc = h->table_row(pt, cells);
        n++;
    }
    if (rc != PP_OK)
        return rc;

    /* Leak suspects: independent ones first. */
    pp_table *stab = pp_pc_table_new(h, ctx, &pp_gd_tables[PP_GD_T_LEAK_SUSPECTS], 1, NULL);
    if (!stab)
        return PP_ENOMEM;
    for (uint32_t q = 0; q < w->nsus && rc == PP_OK; q++) {
        const suspect *s = &w->sus[q];
        const diff_row *r = &w->rows[s->row];
        const char *gp = gd_growth_path(st, w, s->row);
        if (!gp)
            return PP_ENOMEM;
        snprintf(w->buf, PATH_BUF, "%s", gp);
        pp_cell cells[6] = {
            pp_cell_str(r->name),
            pp_cell_int(r->dcount),
            pp_cell_int(r->dbytes),
            pp_cell_int((int64_t)s->held),
            s->owner_row == HC_NONE ? pp_cell_str("") : pp_cell_str(w->rows[s->owner_row].name),
            pp_cell_str(w->buf),
        };
        rc = h->table_row(stab, cells);
        if (rc != PP_OK || s->owner_row != HC_NONE)
            continue;
        /* Name what grew along with it (its payload). */
        char held[512];
        size_t len = 0;
        held[0] = '\0';
        for (uint32_t o = 0; o < w->nsus; o++) {
            const suspect *so = &w->sus[o];
            if (so->owner_row != s->row || len + 8 >= sizeof(held))
                continue;
            int n = snprintf(held + len, sizeof(held) - len, "%s%s +%lld", len ? ", " : "",
                             w->rows[so->row].name, (long long)w->rows[so->row].dcount);
            if (n > 0)
                len += (size_t)n < sizeof(held) - len ? (size_t)n : sizeof(held) - len - 1;
        }
        grew_finding(h, ctx, r, s->held, held, w->nstatic != 0, w->buf);
    }
    if (rc != PP_OK)
        return rc;

    static const char *const side[2] = { "baseline", "candidate" };
    for (int i = 0; i < 2; i++) {
        double cnt = 0, by = 0;
        for (uint32_t key = 0; key < w->k[i].nkeys; key++) {
            cnt += w->k[i].scount[key];
            by += w->k[i].sbytes[key];
        }
        char name[40];
        snprintf(name, sizeof(name), "%s_objects", side[i]);
        h->total_int(ctx, name, PP_COL_COUNT, rnd(cnt));
        snprintf(name, sizeof(name), "%s_bytes", side[i]);
        h->total_int(ctx, name, PP_COL_BYTES, rnd(by));
        if (st->snap[i]->sampled)
            h->finding(ctx, PP_SEVERITY_WARNING, "gcdump.sampled",
                       "the %s heap was sampled when the dump was taken: its counts and bytes "
                       "are estimates scaled by the dump's per-type multipliers (%u objects "
                       "recorded, about %.0f estimated)",
                       side[i], (unsigned)st->snap[i]->node_count, cnt);
    }
    int64_t dc = 0, db = 0;
    for (uint32_t r = 0; r < w->nrows; r++) {
        dc = pp_i64_add_sat(dc, w->rows[r].dcount);
        db = pp_i64_add_sat(db, w->rows[r].dbytes);
    }
    h->total_int(ctx, "objects_delta", PP_COL_COUNT, dc);
    h->total_int(ctx, "bytes_delta", PP_COL_BYTES, db);
    h->total_int(ctx, "leak_suspects", PP_COL_COUNT, (int64_t)w->nsus);
    if (w->unknown_class)
        h->finding(ctx, PP_SEVERITY_INFO, "gcdump.static_class_unknown",
                   "paths show static roots as [static field ?.NAME]: this dump names each static "
                   "by the type of the object it holds (the runtime's GCBulkRootStaticVar event "
                   "carries no declaring class), so the class declaring NAME is not recorded; the "
                   "next step of the path is the held object's type: look for a static field NAME "
                   "of that type");
    if (st->snap[0]->pointer_size && c->pointer_size &&
        st->snap[0]->pointer_size != c->pointer_size)
        h->finding(ctx, PP_SEVERITY_WARNING, "gcdump.pointer_size_differs",
                   "the dumps come from %u-bit and %u-bit processes: object sizes differ by design",
                   (unsigned)st->snap[0]->pointer_size * 8, (unsigned)c->pointer_size * 8);
    return PP_OK;
}

static int
finish(void *p, pp_ctx *ctx, pp_error *err)
{
    state *st = p;
    const pp_host_api *h = st->host;
    if (!st->snap[0] || !st->snap[1]) {
        h->error_set(err, PP_EINVAL, "gcdump-diff: needs two heap snapshots, got %s",
                     st->snap[0] ? "no candidate" : "no baseline");
        return PP_EINVAL;
    }
    work w;
    memset(&w, 0, sizeof(w));
    int rc = join(st, &w);
    if (rc == PP_OK)
        rc = retained_both(st, &w);
    if (rc == PP_OK)
        rc = analyze_candidate(st, &w);
    if (rc == PP_OK)
        rc = find_suspects(st, &w);
    if (rc == PP_OK)
        rc = find_owners(st, &w);
    if (rc == PP_OK)
        rc = emit(st, &w, ctx);
    if (rc != PP_OK)
        h->error_set(err, rc, "gcdump-diff: %s",
                     rc == PP_ENOMEM ? "out of memory" : "could not add a result row");
    work_free(&w);
    return rc;
}

static void
destroy(void *p)
{
    free(p);
}

/* What finish builds (ABI 1.5): tables.c. */

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    /* reads edge_start32, and types and sizes through the shapes */
    .flags = PP_ANALYZER_FLAG_HEAP32 | PP_ANALYZER_FLAG_HEAP_SHAPES,
    .name = "gcdump-diff",
    .version = "1.0.0",
    .summary = "Two heap snapshots compared by type: growth, leak suspects, paths to the root",
    .input_kinds = PP_KIND_GCDUMP,
    .input_slot_count = 2,
    .input_slots = slots,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
    .tables = pp_gd_tables,
};

PP_PLUGIN_DEFINE(descriptor);
