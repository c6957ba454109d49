/* Analyzer `gcdump`: one heap snapshot by type (count, bytes, share), totals,
 * and with `retained` the retained size per type from the dominator tree and
 * one sample path to the root for each top type. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "heap_common.h"
#include "../common/decl.h"

/* The tables finish writes, by their place in pp_gcdump_tables (below: the
 * descriptor's declarations; each writer makes its table from its entry). */
enum { PP_GCDUMP_T_BY_TYPE, PP_GCDUMP_T_PATHS };
extern const pp_table_decl pp_gcdump_tables[];

static const pp_option_decl options[] = {
    { "top", PP_OPT_INT, 0, "25", "rows of by_type (0 = all types)" },
    { "retained", PP_OPT_BOOL, 0, "true",
      "compute retained size per type (dominator tree) and sample paths to the root "
      "(false: by_type counts and bytes only)" },
    { "merge_size_buckets", PP_OPT_BOOL, 0, "false",
      "merge dotnet-gcdump's \"T (Bytes > 10K)\" pseudo-types into T" },
};

typedef struct state {
    const pp_host_api *host;
    int64_t top;
    int retained;
    int merge;
    const pp_heap_snapshot *snap; /* &view once consumed */
    pp_heap_snapshot view;        /* hc_snapshot_view; arrays valid until
                                      finish returns */
} state;

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    (void)ctx;
    state *st = calloc(1, sizeof(*st));
    if (!st) {
        host->error_set(err, PP_ENOMEM, "gcdump: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->top = 25;
    /* On by default, as in the shipped `heap` pipeline: what users run
     * (`perfpipe gcdump FILE`) and what `describe` says must agree. */
    st->retained = 1;
    host->opt_int(opts, "top", &st->top);
    host->opt_bool(opts, "retained", &st->retained);
    host->opt_bool(opts, "merge_size_buckets", &st->merge);
    if (st->top < 0) {
        host->error_set(err, PP_EINVAL, "gcdump: option top must be >= 0, got %lld",
                        (long long)st->top);
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
    if (st->snap) {
        st->host->error_set(err, PP_EINVAL,
                            "gcdump: more than one heap snapshot; use gcdump-diff to compare two");
        return PP_EINVAL;
    }
    hc_snapshot_view(rec->u.heap, &st->view);
    st->snap = &st->view;
    return PP_OK;
}

typedef struct row_order {
    uint32_t key;
    double bytes;
} row_order;

static int
cmp_rows(const void *a, const void *b)
{
    const row_order *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int64_t
rnd(double v)
{
    return pp_i64_from_double(round(v));
}

/* A graph that stops short says so: a node count at a round number, or
 * up to ROUND_SLACK nodes past it (a writer that stopped at a node limit
 * and added its pseudo nodes: dotnet-gcdump's files of a 1.65 GB heap
 * held 10,000,000 and 10,000,001 nodes, 99.9 % of them unreachable),
 * roots that reach under a tenth of the bytes (events lost, roots or
 * references cut), or references to nodes past the node table, which the
 * reader dropped (records.h, dangling_edges). Retained sizes and paths
 * then cover only what the roots reach through what the file holds. */
#define ROUND_NODES     1000000u
#define ROUND_SLACK     64u
#define MIN_REACH_SHARE 0.10
#define MIN_OBJECTS     1000u

static uint64_t
dangling_edges(const pp_heap_snapshot *s)
{
    return PP_HAS_FIELD(s, pp_heap_snapshot, dangling_edges) ? s->dangling_edges : 0;
}

static void
warn_incomplete(const pp_host_api *h, pp_ctx *ctx, const pp_heap_snapshot *s, int retained,
                uint64_t reach_bytes, uint32_t nreach, double total_bytes)
{
    int round = s->node_count >= ROUND_NODES && s->node_count % ROUND_NODES <= ROUND_SLACK;
    int cut = retained && s->node_count >= MIN_OBJECTS && total_bytes > 0 &&
              (double)reach_bytes < MIN_REACH_SHARE * total_bytes;
    uint64_t dangling = dangling_edges(s);
    if (!round && !cut && !dangling)
        return;
    char what[384] = "";
    size_t at = 0;
    if (dangling)
        at += (size_t)snprintf(what, sizeof what,
                               "%llu references held by %u objects point past its "
                               "%u nodes, to objects the file does not hold; they were dropped",
                               (unsigned long long)dangling, (unsigned)s->dangling_nodes,
                               (unsigned)s->node_count);
    if (round && at < sizeof what)
        at += (size_t)snprintf(what + at, sizeof what - at,
                               "%sit holds %u nodes, %s a round number: the tool that wrote "
                               "it likely stopped at a node limit",
                               at ? "; " : "", (unsigned)s->node_count,
                               s->node_count % ROUND_NODES ? "just past" : "exactly");
    if (cut && at < sizeof what)
        snprintf(what + at, sizeof what - at,
                 "%sits roots reach %u of %u "
                 "objects, %.1f %% of the bytes",
                 at ? "; " : "", (unsigned)nreach, (unsigned)s->node_count,
                 100.0 * (double)reach_bytes / total_bytes);
    h->total_int(ctx, "retained_unreliable", PP_COL_COUNT, 1);
    if (dangling)
        h->total_int(ctx, "dropped_references", PP_COL_COUNT, (int64_t)dangling);
    h->finding(
        ctx, PP_SEVERITY_WARNING, "gcdump.incomplete",
        "the heap graph is incomplete (%s): objects or references are missing (a node "
        "limit, or events the runtime dropped), so retained sizes are too small (retained_bytes and retained_share "
        "are unreliable), objects held only through missing ones show as unreachable, "
        "and paths to the root may be missing or wrong; counts and bytes by type cover "
        "only the objects in the file",
        what);
}

/* The snapshot's totals, its incompleteness and sampling findings. */
static void
emit_totals(const pp_host_api *h, pp_ctx *ctx, const pp_heap_snapshot *s, int retained,
            double total_objects, double total_bytes, uint32_t nused, uint64_t reach_bytes,
            uint32_t nreach)
{
    h->total_int(ctx, "objects", PP_COL_COUNT, rnd(total_objects));
    h->total_int(ctx, "bytes", PP_COL_BYTES, rnd(total_bytes));
    h->total_int(ctx, "types", PP_COL_COUNT, (int64_t)nused);
    warn_incomplete(h, ctx, s, retained, reach_bytes, nreach, total_bytes);
    if (s->sampled) {
        h->total_int(ctx, "recorded_objects", PP_COL_COUNT, (int64_t)s->node_count);
        h->finding(ctx, PP_SEVERITY_WARNING, "gcdump.sampled",
                   "the heap was sampled when the dump was taken: counts and bytes are "
                   "estimates scaled by the dump's per-type multipliers (%u objects recorded, "
                   "about %.0f estimated)%s",
                   (unsigned)s->node_count, total_objects,
                   retained ? "; retained sizes and paths are of the recorded sample, unscaled" :
                              "");
    }
}

typedef struct keys_job {
    const pp_heap_snapshot *s;
    int merge;
    hc_keys *k;
} keys_job;

typedef struct spares_job {
    hc_bfs_tree *tree;
    hc_spare *spare;
} spares_job;

static void *
spares_free(void *p)
{
    spares_job *j = p;
    hc_bfs_tree_free(j->tree);
    hc_spare_free(j->spare);
    return NULL;
}

static int
keys_run(void *p)
{
    keys_job *j = p;
    return hc_keys_build(j->s, j->merge, j->k);
}

/* The paths table's rows: a shortest path to the root from the instance
 * of each of the first nrows keys in order that retains the most (best),
 * from the BFS tree, which this frees with the spare buffers. PP_OK,
 * PP_ENOMEM, or the host's error adding a row. */
static int
path_rows(const pp_host_api *h, pp_table *pt, const pp_heap_snapshot *s, const hc_keys *k,
          const row_order *order, uint32_t nrows, const uint32_t *best, hc_bfs_tree *tree,
          hc_spare *spare)
{
    /* parent[] takes a buffer the dominator tree is done with. */
    char *buf = malloc(4096);
    uint32_t ntarget = 0, *parent = NULL;
    uint32_t *target = malloc(((size_t)nrows + 1) * sizeof(uint32_t));
    size_t pbytes = (s->node_count ? s->node_count : 1) * sizeof(uint32_t);
    if (buf && target && !(parent = hc_spare_take(spare, pbytes)))
        parent = malloc(pbytes);
    if (!buf || !target || !parent) {
        free(buf);
        free(target);
        free(parent);
        return PP_ENOMEM;
    }
    for (uint32_t r = 0; r < nrows; r++)
        if (best[order[r].key] != HC_NONE)
            target[ntarget++] = best[order[r].key];
    int rc = hc_bfs_tree_paths(tree, target, ntarget, parent);
    /* The tree and the spare buffers go back on a thread while the rows
     * are made and parent goes back here: ~280 MB of pages on a 21
     * M-object heap, 35-40 ms of this thread one after the other. */
    spares_job fj = { tree, spare };
    pthread_t ftid;
    int freeing = pthread_create(&ftid, NULL, spares_free, &fj) == 0;
    if (!freeing)
        spares_free(&fj);
    free(target);
    for (uint32_t r = 0; r < nrows && rc == PP_OK; r++) {
        uint32_t i = order[r].key;
        if (best[i] == HC_NONE)
            continue;
        uint32_t depth = hc_path_string(s, parent, best[i], buf, 4096);
        pp_cell cells[3] = { pp_cell_str(k->name[i]), pp_cell_int(depth), pp_cell_str(buf) };
        rc = h->table_row(pt, cells);
    }
    free(buf);
    free(parent);
    if (freeing)
        pthread_join(ftid, NULL);
    return rc;
}

static int
finish(void *p, pp_ctx *ctx, pp_error *err)
{
    state *st = p;
    const pp_host_api *h = st->host;
    const pp_heap_snapshot *s = st->snap;
    if (!s) {
        h->error_set(err, PP_EINVAL, "gcdump: the input held no heap snapshot");
        return PP_EINVAL;
    }
    int rc = PP_ENOMEM;
    hc_keys k;
    uint64_t *retained = NULL;
    uint32_t *best = NULL;
    row_order *order = NULL;
    uint64_t reach_bytes = 0;
    uint32_t nreach = 0;
    hc_spare spare = { { NULL, NULL }, { 0, 0 } };
    hc_bfs_tree tree;
    /* The sample paths' search runs on the second core while the dominator
     * tree is built and summed on this one: its targets are known only
     * then, so it builds the whole tree, small (heap_bfs_tree.c). */
    if (st->retained)
        hc_bfs_tree_start(&tree, s);
    else
        memset(&tree, 0, sizeof(tree));
    memset(&k, 0, sizeof(k));
    if (st->retained) {
        /* A key per type at most: the keys are built beside the dominator
         * pass's semidominators, on the core the paths' search has left
         * by then (a pass over every node, 27 ms of this thread on a 21
         * M-object heap). */
        size_t most = s->type_count ? s->type_count : 1;
        retained = malloc(most * sizeof(uint64_t));
        best = malloc(most * sizeof(uint32_t));
        keys_job kj = { s, st->merge, &k };
        /* Retained bytes per type and each type's instance retaining
         * the most (its sample path below), with no per-node result. */
        if (!retained || !best ||
            hc_retained_summary_beside(s, &k, retained, best, &reach_bytes, &nreach, &spare,
                                       keys_run, &kj) != PP_OK)
            goto oom;
    } else if (hc_keys_build(s, st->merge, &k) != PP_OK) {
        goto oom;
    }
    double total_bytes = 0, total_objects = 0;
    for (uint32_t i = 0; i < k.nkeys; i++) {
        total_bytes += k.sbytes[i];
        total_objects += k.scount[i];
    }
    order = malloc((k.nkeys ? k.nkeys : 1) * sizeof(*order));
    if (!order)
        goto oom;
    /* Types no node uses (the type table lists them too) get no row. */
    uint32_t nused = 0;
    for (uint32_t i = 0; i < k.nkeys; i++)
        if (k.count[i])
            order[nused++] = (row_order){ i, k.sbytes[i] };
    qsort(order, nused, sizeof(*order), cmp_rows);
    uint32_t nrows = st->top == 0 || (uint64_t)st->top > nused ? nused : (uint32_t)st->top;

    /* without the dominator tree (option retained off), no retained figures */
    static const char *const no_retained[] = { "retained_bytes", "retained_share", NULL };
    pp_table *t = pp_pc_table_new(h, ctx, &pp_gcdump_tables[PP_GCDUMP_T_BY_TYPE], 1,
                                  st->retained ? NULL : no_retained);
    if (!t)
        goto oom;
    rc = PP_OK;
    for (uint32_t r = 0; r < nrows; r++) {
        uint32_t i = order[r].key;
        pp_cell cells[6] = {
            pp_cell_str(k.name[i]),
            pp_cell_int(rnd(k.scount[i])),
            pp_cell_int(rnd(k.sbytes[i])),
            pp_cell_dbl(total_bytes > 0 ? 100.0 * k.sbytes[i] / total_bytes : 0.0),
            pp_cell_null(),
            pp_cell_null(),
        };
        if (st->retained) {
            cells[4] = pp_cell_int((int64_t)retained[i]);
            cells[5] = pp_cell_dbl(reach_bytes ? 100.0 * (double)retained[i] / (double)reach_bytes :
                                                 0.0);
        }
        if ((rc = h->table_row(t, cells)) != PP_OK)
            goto fail;
    }

    if (st->retained) {
        /* One sample path per top type: its instance retaining the most. */
        pp_table *pt = pp_pc_table_new(h, ctx, &pp_gcdump_tables[PP_GCDUMP_T_PATHS], 1, NULL);
        if (!pt)
            goto oom;
        if ((rc = path_rows(h, pt, s, &k, order, nrows, best, &tree, &spare)) == PP_ENOMEM)
            goto oom;
        if (rc != PP_OK)
            goto fail;
        h->total_int(ctx, "reachable_bytes", PP_COL_BYTES, (int64_t)reach_bytes);
        h->total_int(ctx, "unreachable_objects", PP_COL_COUNT, (int64_t)(s->node_count - nreach));
    }
    emit_totals(h, ctx, s, st->retained, total_objects, total_bytes, nused, reach_bytes, nreach);
    rc = PP_OK;
    goto done;
oom:
    rc = PP_ENOMEM;
fail:
    h->error_set(err, rc, "gcdump: %s",
                 rc == PP_ENOMEM ? "out of memory" : "could not add a result row");
done:
    hc_bfs_tree_free(&tree);
    hc_spare_free(&spare);
    free(best);
    free(order);
    free(retained);
    hc_keys_free(&k);
    return rc;
}

static void
destroy(void *p)
{
    free(p);
}

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_gcdump_tables[] = {
    [PP_GCDUMP_T_BY_TYPE] = {
        .name = "by_type",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "count", PP_COL_COUNT, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "retained_bytes", PP_COL_BYTES, 0 },
                                        { "retained_share", PP_COL_PERCENT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_FOOTPRINT },
                                             { "count", "count", PP_AXIS_FOOTPRINT },
                                             { "retained_bytes", "bytes", PP_AXIS_FOOTPRINT },
                                             { "share", "percent", NULL },
                                             { "retained_share", "percent", NULL },
                                             { NULL, NULL, NULL } },
    },
    [PP_GCDUMP_T_PATHS] = {
        .name = "paths",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "depth", PP_COL_COUNT, 0 },
                                        { "path", PP_COL_STRING, PP_COL_FLAG_ROOT_PATH },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
    },
    { .name = NULL },
};

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    /* reads edge_start32, and types and sizes through the shapes */
    .flags = PP_ANALYZER_FLAG_HEAP32 | PP_ANALYZER_FLAG_HEAP_SHAPES,
    .name = "gcdump",
    .version = "1.0.0",
    .summary = "Heap snapshot by type: count, bytes, share; retained size and paths to the root",
    .input_kinds = PP_KIND_GCDUMP,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
    .tables = pp_gcdump_tables,
};

PP_PLUGIN_DEFINE(descriptor);
