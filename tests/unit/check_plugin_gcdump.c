/* The gcdump and gcdump-diff plugins, loaded from the build tree (dlopen, as
 * the engine does) and driven through a minimal mock host table that
 * records tables, findings and totals into plain arrays; records come from
 * the real reader on the real fixtures. Checked against the TraceEvent
 * oracle (per-type counts and bytes) and the workload's ground truth (leak
 * count delta, retained bytes of the leaked type). */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <perfpipe/gcdump.h>
#include <perfpipe/plugin.h>

/* ---- mock host ------------------------------------------------------------ */

#define MAX_TABLES 8
#define MAX_COLS   12

typedef struct mock_table {
    char name[64];
    uint32_t ncols;
    char col[MAX_COLS][32];
    uint32_t coltype[MAX_COLS];
    uint32_t nrows;
    pp_cell *cells; /* nrows * ncols; strings strdup'ed */
} mock_table;

typedef struct mock_run {
    mock_table tables[MAX_TABLES];
    uint32_t ntables;
    char findings[32][1024];
    char finding_code[32][64];
    uint32_t nfindings;
    char total_name[32][64];
    int64_t total_value[32];
    uint32_t ntotals;
    const pp_analyzer *a;
    const char *opt_names[8];
    const char *opt_values[8];
    uint32_t nopts;
} mock_run;

static mock_run *
run_of(pp_ctx *ctx)
{
    return (mock_run *)ctx;
}

static void
m_log(pp_ctx *ctx, int level, const char *fmt, ...)
{
    (void)ctx;
    (void)level;
    (void)fmt;
}

static void
m_error_set(pp_error *err, int32_t code, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

/* Options: the run's explicit values, else the descriptor's default. */
static const char *
opt_text(const pp_options *o, const char *name, uint32_t type, int *rc)
{
    const mock_run *r = (const mock_run *)o;
    const pp_option_decl *decl = NULL;
    for (uint32_t i = 0; i < r->a->option_count; i++)
        if (strcmp(r->a->options[i].name, name) == 0)
            decl = &r->a->options[i];
    if (!decl || decl->type != type) {
        *rc = PP_EINVAL;
        return NULL;
    }
    for (uint32_t i = 0; i < r->nopts; i++)
        if (strcmp(r->opt_names[i], name) == 0) {
            *rc = PP_OK;
            return r->opt_values[i];
        }
    *rc = decl->default_value ? PP_OK : PP_ENOTFOUND;
    return decl->default_value;
}

static int
m_opt_bool(const pp_options *o, const char *name, int *out)
{
    int rc;
    const char *v = opt_text(o, name, PP_OPT_BOOL, &rc);
    if (rc == PP_OK)
        *out = strcmp(v, "true") == 0;
    return rc;
}

static int
m_opt_int(const pp_options *o, const char *name, int64_t *out)
{
    int rc;
    const char *v = opt_text(o, name, PP_OPT_INT, &rc);
    if (rc == PP_OK)
        *out = strtoll(v, NULL, 10);
    return rc;
}

static int
m_opt_double(const pp_options *o, const char *name, double *out)
{
    int rc;
    const char *v = opt_text(o, name, PP_OPT_DOUBLE, &rc);
    if (rc == PP_OK)
        *out = strtod(v, NULL);
    return rc;
}

static pp_table *
m_table_new(pp_ctx *ctx, const char *name, uint32_t ncolumns, const pp_column *columns,
            uint32_t nkey)
{
    mock_run *r = run_of(ctx);
    ck_assert_uint_lt(r->ntables, MAX_TABLES);
    ck_assert_uint_le(ncolumns, MAX_COLS);
    ck_assert_uint_ge(nkey, 1);
    mock_table *t = &r->tables[r->ntables++];
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->ncols = ncolumns;
    for (uint32_t i = 0; i < ncolumns; i++) {
        snprintf(t->col[i], sizeof(t->col[i]), "%s", columns[i].name);
        t->coltype[i] = columns[i].type;
    }
    return (pp_table *)t;
}

static int
m_table_row(pp_table *tp, const pp_cell *cells)
{
    mock_table *t = (mock_table *)tp;
    t->cells = realloc(t->cells, (size_t)(t->nrows + 1) * t->ncols * sizeof(pp_cell));
    for (uint32_t i = 0; i < t->ncols; i++) {
        pp_cell c = cells[i];
        if (c.type == PP_CELL_STRING)
            c.v.s = strdup(c.v.s);
        t->cells[(size_t)t->nrows * t->ncols + i] = c;
    }
    t->nrows++;
    return PP_OK;
}

static int
m_finding(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
{
    (void)severity;
    mock_run *r = run_of(ctx);
    ck_assert_uint_lt(r->nfindings, 32);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->findings[r->nfindings], sizeof(r->findings[0]), fmt, ap);
    va_end(ap);
    snprintf(r->finding_code[r->nfindings], sizeof(r->finding_code[0]), "%s", code);
    r->nfindings++;
    return PP_OK;
}

static int
m_total_int(pp_ctx *ctx, const char *name, uint32_t type, int64_t value)
{
    (void)type;
    mock_run *r = run_of(ctx);
    ck_assert_uint_lt(r->ntotals, 32);
    snprintf(r->total_name[r->ntotals], sizeof(r->total_name[0]), "%s", name);
    r->total_value[r->ntotals++] = value;
    return PP_OK;
}

static const pp_host_api host = {
    .struct_size = sizeof(pp_host_api),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = PP_ABI_MINOR,
    .log = m_log,
    .error_set = m_error_set,
    .opt_bool = m_opt_bool,
    .opt_int = m_opt_int,
    .opt_double = m_opt_double,
    .table_new = m_table_new,
    .table_row = m_table_row,
    .finding = m_finding,
    .total_int = m_total_int,
};

static void
run_free(mock_run *r)
{
    for (uint32_t t = 0; t < r->ntables; t++) {
        mock_table *tb = &r->tables[t];
        for (size_t i = 0; i < (size_t)tb->nrows * tb->ncols; i++)
            if (tb->cells[i].type == PP_CELL_STRING)
                free((char *)tb->cells[i].v.s);
        free(tb->cells);
    }
}

static const mock_table *
table(const mock_run *r, const char *name)
{
    for (uint32_t t = 0; t < r->ntables; t++)
        if (strcmp(r->tables[t].name, name) == 0)
            return &r->tables[t];
    ck_abort_msg("no table %s", name);
    return NULL;
}

static int
col(const mock_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (strcmp(t->col[i], name) == 0)
            return (int)i;
    ck_abort_msg("table %s has no column %s", t->name, name);
    return -1;
}

static const pp_cell *
cell(const mock_table *t, uint32_t row, const char *column)
{
    return &t->cells[(size_t)row * t->ncols + (uint32_t)col(t, column)];
}

/* Row whose first (key) column is key, or -1. */
static int
find_row(const mock_table *t, const char *key)
{
    for (uint32_t r = 0; r < t->nrows; r++)
        if (strcmp(t->cells[(size_t)r * t->ncols].v.s, key) == 0)
            return (int)r;
    return -1;
}

static int64_t
total(const mock_run *r, const char *name)
{
    for (uint32_t i = 0; i < r->ntotals; i++)
        if (strcmp(r->total_name[i], name) == 0)
            return r->total_value[i];
    ck_abort_msg("no total %s", name);
    return 0;
}

/* ---- loading and running ---------------------------------------------------- */

static const pp_analyzer *
load(const char *name, void **handle)
{
    const char *dir = getenv("PERFPIPE_PLUGIN_PATH");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.so", dir ? dir : TEST_BUILDDIR "/plugins/.libs", name);
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(*handle != NULL, "dlopen %s: %s", path, dlerror());
    pp_plugin_entry_fn entry = (pp_plugin_entry_fn)dlsym(*handle, PP_PLUGIN_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull(entry);
    const pp_analyzer *a = entry();
    ck_assert_uint_eq(a->abi_major, PP_ABI_MAJOR);
    ck_assert_uint_ge(a->struct_size, PP_ANALYZER_MIN_SIZE_1_0);
    ck_assert_str_eq(a->name, name);
    ck_assert_uint_eq(a->input_kinds, PP_KIND_GCDUMP);
    return a;
}

/* A hand-built snapshot (64-bit arrays) as a 1.2 host hands it: with the
 * 32-bit arrays the plugins read. Freed with free32. */
static pp_heap_snapshot *
with32(const pp_heap_snapshot *s)
{
    pp_heap_snapshot *c = malloc(sizeof(*c));
    uint32_t *size = malloc((s->node_count + 1) * sizeof(uint32_t));
    uint32_t *start = malloc((s->node_count + 1) * sizeof(uint32_t));
    ck_assert(c && size && start);
    *c = *s;
    for (uint32_t i = 0; i < s->node_count; i++) {
        ck_assert_uint_le(s->node_size[i], UINT32_MAX);
        size[i] = (uint32_t)s->node_size[i];
        start[i] = (uint32_t)s->edge_start[i];
    }
    start[s->node_count] = (uint32_t)s->edge_start[s->node_count];
    c->node_size32 = size;
    c->edge_start32 = start;
    return c;
}

static void
free32(pp_heap_snapshot *c)
{
    free((void *)c->node_size32);
    free((void *)c->edge_start32);
    free(c);
}

/* Run analyzer `name` over the snapshots (one per input slot). Returns the
 * finish status; r holds the results. */
static int
run(const char *name, const pp_heap_snapshot *const *snaps, uint32_t nsnaps, mock_run *r,
    pp_error *err)
{
    pp_heap_snapshot *own[8] = { 0 };
    ck_assert_uint_le(nsnaps, 8);
    void *handle;
    const pp_analyzer *a = load(name, &handle);
    r->a = a;
    void *state = NULL;
    int rc = a->create(&host, (pp_ctx *)r, (const pp_options *)r, &state, err);
    if (rc != PP_OK) {
        dlclose(handle);
        return rc;
    }
    for (uint32_t i = 0; i < nsnaps && rc == PP_OK; i++) {
        pp_record rec = { sizeof(pp_record), PP_KIND_GCDUMP, i, 0, { 0 } };
        rec.u.heap = snaps[i];
        if (!snaps[i]->node_size32)
            rec.u.heap = own[i] = with32(snaps[i]);
        rc = a->consume(state, &rec, err);
    }
    if (rc == PP_OK)
        rc = a->finish(state, (pp_ctx *)r, err);
    a->destroy(state);
    for (uint32_t i = 0; i < nsnaps; i++)
        if (own[i])
            free32(own[i]);
    dlclose(handle);
    return rc;
}

static pp_gcdump *
fixture(const char *name)
{
    const char *dir = getenv("PP_TESTDATA");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "", name);
    FILE *f = dir ? fopen(path, "rb") : NULL;
    if (!f)
        return NULL;
    fclose(f);
    pp_gcdump *d = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(pp_gcdump_read_file(path, &d, &err) == PP_OK, "%s", err.message);
    return d;
}

static json_t *
data_json(const char *name)
{
    const char *dir = getenv("PP_TESTDATA");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir ? dir : "", name);
    return dir ? json_load_file(path, 0, NULL) : NULL;
}

/* ---- gcdump ------------------------------------------------------------------ */

/* by_type with top 0 equals the TraceEvent oracle on every name. */
static void
check_by_type_vs_oracle(const char *gcdump, const char *oracle_name)
{
    pp_gcdump *d = fixture(gcdump);
    json_t *oracle = data_json(oracle_name);
    if (!d || !oracle) {
        printf("SKIP: %s or %s absent\n", gcdump, oracle_name);
        pp_gcdump_free(d);
        json_decref(oracle);
        return;
    }
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "top";
    r.opt_values[0] = "0";
    r.nopts = 1;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(run("gcdump", &s, 1, &r, &err) == PP_OK, "%s", err.message);
    const mock_table *t = table(&r, "by_type");
    json_t *rows = json_object_get(oracle, "by_type");
    ck_assert_uint_eq(t->nrows, json_array_size(rows));
    int64_t objects = 0, bytes = 0;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const char *name = json_string_value(json_object_get(row, "type"));
        int at = find_row(t, name);
        ck_assert_msg(at >= 0, "%s: type %s missing", gcdump, name);
        ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i,
                         json_integer_value(json_object_get(row, "count")));
        ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i,
                         json_integer_value(json_object_get(row, "bytes")));
        objects += json_integer_value(json_object_get(row, "count"));
        bytes += json_integer_value(json_object_get(row, "bytes"));
    }
    ck_assert_int_eq(total(&r, "objects"), objects);
    ck_assert_int_eq(total(&r, "bytes"), bytes);
    /* Sorted by bytes, shares add up to 100. */
    double share = 0;
    for (uint32_t k = 0; k < t->nrows; k++) {
        share += cell(t, k, "share")->v.d;
        if (k)
            ck_assert_int_ge(cell(t, k - 1, "bytes")->v.i, cell(t, k, "bytes")->v.i);
    }
    ck_assert_double_eq_tol(share, 100.0, 1e-6);
    ck_assert_uint_eq(r.nfindings, 0); /* not sampled: nothing to say */
    printf("plugin gcdump: %s: %u types, %lld objects, %lld bytes equal the oracle\n", gcdump,
           t->nrows, (long long)objects, (long long)bytes);
    run_free(&r);
    json_decref(oracle);
    pp_gcdump_free(d);
}

START_TEST(test_gcdump_by_type_oracle_before)
{
    check_by_type_vs_oracle("leak-before.gcdump", "leak-before.oracle.json");
}
END_TEST

START_TEST(test_gcdump_by_type_oracle_after)
{
    check_by_type_vs_oracle("leak-after.gcdump", "leak-after.oracle.json");
}
END_TEST

/* Retained size of the leaked type = its instances plus the byte[] state
 * each holds alone (ground truth: 40 + 280 bytes per session). */
START_TEST(test_gcdump_retained_truth)
{
    pp_gcdump *d = fixture("leak-after.gcdump");
    json_t *truth = data_json("leak.truth.json");
    if (!d || !truth) {
        printf("SKIP: leak-after.gcdump or leak.truth.json absent\n");
        pp_gcdump_free(d);
        json_decref(truth);
        return;
    }
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "retained";
    r.opt_values[0] = "true";
    r.opt_names[1] = "merge_size_buckets";
    r.opt_values[1] = "true";
    r.nopts = 2;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(run("gcdump", &s, 1, &r, &err) == PP_OK, "%s", err.message);
    const mock_table *t = table(&r, "by_type");
    ck_assert_uint_eq(t->nrows, 25); /* option top's default */
    const char *leak = json_string_value(json_object_get(truth, "leak_type"));
    int64_t n = json_integer_value(json_object_get(truth, "leaked_after"));
    int64_t each = json_integer_value(json_object_get(truth, "leaked_session_object_bytes_each"));
    int64_t state_each = json_integer_value(json_object_get(truth, "leak_state_object_bytes_each"));
    int at = find_row(t, leak);
    ck_assert_int_ge(at, 0);
    ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, n);
    ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i, n * each);
    ck_assert_int_eq(cell(t, (uint32_t)at, "retained_bytes")->v.i, n * (each + state_each));
    /* The path goes through the static root and the list's array. */
    const mock_table *p = table(&r, "paths");
    int pr = find_row(p, leak);
    ck_assert_int_ge(pr, 0);
    const char *path = cell(p, (uint32_t)pr, "path")->v.s;
    const char *tail = " > Workload.LeakedSession";
    ck_assert_msg(strncmp(path, "[.NET Roots] > [static vars] > ", 31) == 0 &&
                      strstr(path, "> Workload.LeakedSession[]") &&
                      strcmp(path + strlen(path) - strlen(tail), tail) == 0,
                  "%s", path);
    printf("plugin gcdump: %s retained %lld bytes (truth %lld x (%lld + %lld)); path %s\n", leak,
           (long long)cell(t, (uint32_t)at, "retained_bytes")->v.i, (long long)n, (long long)each,
           (long long)state_each, path);
    ck_assert_int_le(total(&r, "reachable_bytes"), total(&r, "bytes"));
    run_free(&r);
    json_decref(truth);
    pp_gcdump_free(d);
}
END_TEST

/* A sampled dump (hand-built multipliers) is scaled and said plainly. */
START_TEST(test_gcdump_sampled_finding)
{
    static const pp_heap_type types[] = { { "[.NET Roots]", "" }, { "T", "" } };
    static const uint32_t node_type[] = { 0, 1, 1 };
    static const uint64_t node_size[] = { 0, 24, 24 };
    static const uint64_t addr[] = { 0, 16, 48 };
    static const uint64_t start[] = { 0, 2, 2, 2 };
    static const uint32_t edges[] = { 1, 2 };
    static const double mult[] = { 1.0, 50.0 };
    pp_heap_snapshot s = { .struct_size = sizeof(s),
                           .pointer_size = 8,
                           .node_count = 3,
                           .type_count = 2,
                           .edge_count = 2,
                           .root = 0,
                           .sampled = 1,
                           .types = types,
                           .node_type = node_type,
                           .node_size = node_size,
                           .node_address = addr,
                           .edge_start = start,
                           .edges = edges,
                           .type_count_multiplier = mult,
                           .type_size_multiplier = mult };
    const pp_heap_snapshot *sp = &s;
    mock_run r;
    memset(&r, 0, sizeof(r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", &sp, 1, &r, &err), PP_OK);
    const mock_table *t = table(&r, "by_type");
    int at = find_row(t, "T");
    ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, 100);
    ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i, 2400);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.sampled");
    ck_assert_ptr_nonnull(strstr(r.findings[0], "sampled"));
    ck_assert_int_eq(total(&r, "recorded_objects"), 3);
    ck_assert_int_eq(total(&r, "objects"), 101);
    run_free(&r);
}
END_TEST

/* A graph cut at a node limit: n nodes, the root holding only nodes 1..k
 * (their parents past the cut are gone), every other object unreachable. */
static void
cut_graph(uint32_t n, uint32_t k, mock_run *r)
{
    static const pp_heap_type types[] = { { "[.NET Roots]", "" }, { "T", "" } };
    uint32_t *node_type = malloc(n * sizeof *node_type), *edges = malloc(k * sizeof *edges);
    uint64_t *node_size = malloc(n * sizeof *node_size), *addr = malloc(n * sizeof *addr);
    uint64_t *start = malloc((n + 1) * sizeof *start);
    ck_assert(node_type && edges && node_size && addr && start);
    for (uint32_t i = 0; i < n; i++) {
        node_type[i] = i ? 1 : 0;
        node_size[i] = i ? 48 : 0;
        addr[i] = 0x10000 + 64 * (uint64_t)i;
        start[i] = i ? k : 0;
    }
    start[n] = k;
    for (uint32_t j = 0; j < k; j++)
        edges[j] = j + 1;
    pp_heap_snapshot s = { .struct_size = sizeof(s),
                           .pointer_size = 8,
                           .node_count = n,
                           .type_count = 2,
                           .edge_count = k,
                           .root = 0,
                           .types = types,
                           .node_type = node_type,
                           .node_size = node_size,
                           .node_address = addr,
                           .edge_start = start,
                           .edges = edges };
    const pp_heap_snapshot *sp = &s;
    memset(r, 0, sizeof(*r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", &sp, 1, r, &err), PP_OK);
    free(node_type);
    free(edges);
    free(node_size);
    free(addr);
    free(start);
}

/* Cut at a round node count with roots reaching a few objects (what
 * dotnet-gcdump wrote for a 1.65 GB heap): one warning naming both, and
 * the retained columns said to be unreliable. Not round, roots reaching
 * 1 %: the same warning for the roots alone. Roots reaching all: none. */
START_TEST(test_gcdump_incomplete_graph)
{
    mock_run r;
    cut_graph(1000000, 1000, &r);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.incomplete");
    ck_assert_ptr_nonnull(strstr(r.findings[0], "1000000 nodes, exactly a round number"));
    ck_assert_ptr_nonnull(strstr(r.findings[0], "roots reach 1001 of 1000000 objects"));
    ck_assert_ptr_nonnull(
        strstr(r.findings[0], "retained_bytes and retained_share are unreliable"));
    ck_assert_int_eq(total(&r, "retained_unreliable"), 1);
    run_free(&r);
    cut_graph(20001, 200, &r);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.incomplete");
    ck_assert_ptr_null(strstr(r.findings[0], "round"));
    ck_assert_ptr_nonnull(strstr(r.findings[0], "roots reach 201 of 20001 objects, 1.0 %"));
    run_free(&r);
    cut_graph(20001, 20000, &r);
    ck_assert_uint_eq(r.nfindings, 0);
    run_free(&r);
    cut_graph(2000003, 2000002, &r); /* all reachable, 3 past a round number */
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_ptr_nonnull(strstr(r.findings[0], "2000003 nodes, just past a round number"));
    ck_assert_ptr_null(strstr(r.findings[0], "roots reach"));
    run_free(&r);
    cut_graph(999, 9, &r); /* too small to judge */
    ck_assert_uint_eq(r.nfindings, 0);
    run_free(&r);
}
END_TEST

START_TEST(test_gcdump_bad_option_and_no_input)
{
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "top";
    r.opt_values[0] = "-1";
    r.nopts = 1;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", NULL, 0, &r, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "top"));
    memset(&r, 0, sizeof(r));
    ck_assert_int_eq(run("gcdump", NULL, 0, &r, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "no heap snapshot"));
    ck_assert_int_eq(run("gcdump-diff", NULL, 0, &r, &err), PP_EINVAL);
}
END_TEST

static pp_gcdump *
hand_built(const char *name)
{
    const char *src = getenv("PP_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/gcdump/%s", src ? src : TEST_SRCDIR, name);
    pp_gcdump *d = NULL;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(pp_gcdump_read_file(path, &d, &err) == PP_OK, "%s", err.message);
    return d;
}

/* tests/gcdump/small.gcdump and sampled.gcdump: figures from its README. */
START_TEST(test_gcdump_hand_built_retained_and_sampled)
{
    pp_gcdump *d = hand_built("small.gcdump");
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "retained";
    r.opt_values[0] = "true";
    r.nopts = 1;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", &s, 1, &r, &err), PP_OK);
    const mock_table *t = table(&r, "by_type");
    static const struct {
        const char *type;
        int64_t count, bytes, retained;
    } want[] = {
        { "App.Cache", 1, 32, 1968 },
        { "App.Entry", 4, 96, 1936 },
        { "System.Byte[]", 4, 1840, 1840 },
    };
    for (size_t i = 0; i < 3; i++) {
        int at = find_row(t, want[i].type);
        ck_assert_int_ge(at, 0);
        ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, want[i].count);
        ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i, want[i].bytes);
        ck_assert_int_eq(cell(t, (uint32_t)at, "retained_bytes")->v.i, want[i].retained);
    }
    ck_assert_str_eq(cell(t, 0, "type")->v.s, "System.Byte[]");
    ck_assert_str_eq(cell(table(&r, "paths"), 0, "path")->v.s,
                     "[.NET Roots] > [static vars] > App.Cache > App.Entry > System.Byte[]");
    ck_assert_int_eq(total(&r, "bytes"), 1968);
    ck_assert_int_eq(total(&r, "reachable_bytes"), 1968);
    ck_assert_int_eq(total(&r, "unreachable_objects"), 0);
    run_free(&r);
    pp_gcdump_free(d);

    d = hand_built("sampled.gcdump");
    s = pp_gcdump_snapshot(d);
    memset(&r, 0, sizeof(r));
    ck_assert_int_eq(run("gcdump", &s, 1, &r, &err), PP_OK);
    t = table(&r, "by_type");
    int at = find_row(t, "System.Byte[]");
    ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, 40);
    ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i, 18400);
    at = find_row(t, "App.Entry");
    ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, 40);
    ck_assert_int_eq(cell(t, (uint32_t)at, "bytes")->v.i, 960);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.sampled");
    run_free(&r);
    pp_gcdump_free(d);
}
END_TEST

/* ---- gcdump-diff ---------------------------------------------------------------- */

/* tests/gcdump/cut-at-limit.gcdump (written by core/gcdump/writer.c, see
 * its README): 2,001 nodes, the root holding 20; the same warning from a
 * file as from memory. */
START_TEST(test_gcdump_cut_file)
{
    pp_gcdump *d = hand_built("cut-at-limit.gcdump");
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    mock_run r;
    memset(&r, 0, sizeof(r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", &s, 1, &r, &err), PP_OK);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.incomplete");
    ck_assert_ptr_nonnull(strstr(r.findings[0], "roots reach 21 of 2001 objects, 1.0 %"));
    ck_assert_int_eq(total(&r, "retained_unreliable"), 1);
    run_free(&r);
    pp_gcdump_free(d);
}
END_TEST

/* tests/gcdump/edges-past-table.gcdump (written by core/gcdump/writer.c
 * in check_gcdump_writer, keep_nodes): 30 of 40 nodes, each App.Holder's
 * second reference pointing past the table. Read, not refused; what is
 * whole is right (each holder retains its item: 10 x 80 B; the orphans
 * held only by cut nodes are unreachable) and the warning says what is
 * missing and what it does to the retained columns. */
START_TEST(test_gcdump_edges_past_table)
{
    pp_gcdump *d = hand_built("edges-past-table.gcdump");
    const pp_heap_snapshot *s = pp_gcdump_snapshot(d);
    mock_run r;
    memset(&r, 0, sizeof(r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump", &s, 1, &r, &err), PP_OK);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.incomplete");
    ck_assert_ptr_nonnull(strstr(r.findings[0], "10 references held by 10 objects point past its "
                                                "30 nodes, to objects the file does not hold"));
    ck_assert_ptr_nonnull(
        strstr(r.findings[0], "retained_bytes and retained_share are unreliable"));
    ck_assert_ptr_nonnull(strstr(r.findings[0], "paths to the root may be missing"));
    ck_assert_int_eq(total(&r, "retained_unreliable"), 1);
    ck_assert_int_eq(total(&r, "dropped_references"), 10);
    ck_assert_int_eq(total(&r, "reachable_bytes"), 800);
    ck_assert_int_eq(total(&r, "unreachable_objects"), 9);
    const mock_table *t = table(&r, "by_type");
    int at = find_row(t, "App.Holder");
    ck_assert_int_ge(at, 0);
    ck_assert_int_eq(cell(t, (uint32_t)at, "count")->v.i, 10);
    ck_assert_int_eq(cell(t, (uint32_t)at, "retained_bytes")->v.i, 800);
    run_free(&r);
    /* Without retained sizes the warning stands: counts cover the file. */
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "retained";
    r.opt_values[0] = "false";
    r.nopts = 1;
    ck_assert_int_eq(run("gcdump", &s, 1, &r, &err), PP_OK);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.incomplete");
    run_free(&r);
    pp_gcdump_free(d);
}
END_TEST

START_TEST(test_diff_leak_truth)
{
    pp_gcdump *b = fixture("leak-before.gcdump");
    pp_gcdump *a = fixture("leak-after.gcdump");
    json_t *truth = data_json("leak.truth.json");
    json_t *ob = data_json("leak-before.oracle.json");
    json_t *oa = data_json("leak-after.oracle.json");
    if (!b || !a || !truth || !ob || !oa) {
        printf("SKIP: leak fixtures, oracles or truth absent\n");
        goto out;
    }
    const pp_heap_snapshot *snaps[2] = { pp_gcdump_snapshot(b), pp_gcdump_snapshot(a) };
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "top";
    r.opt_values[0] = "0";
    r.nopts = 1;
    pp_error err = PP_ERROR_INIT;
    ck_assert_msg(run("gcdump-diff", snaps, 2, &r, &err) == PP_OK, "%s", err.message);
    const char *leak = json_string_value(json_object_get(truth, "leak_type"));
    const char *churn = json_string_value(json_object_get(truth, "churn_type"));
    const mock_table *t = table(&r, "by_type");
    int at = find_row(t, leak);
    ck_assert_int_ge(at, 0);
    ck_assert_int_eq(cell(t, (uint32_t)at, "count_delta")->v.i,
                     json_integer_value(json_object_get(truth, "leaked_delta")));
    ck_assert_str_eq(cell(t, (uint32_t)at, "status")->v.s, "grew");
    /* Sorted by bytes_delta. */
    for (uint32_t k = 1; k < t->nrows; k++)
        ck_assert_int_ge(cell(t, k - 1, "bytes_delta")->v.i, cell(t, k, "bytes_delta")->v.i);
    /* Totals equal the oracle sums of both dumps. */
    json_t *o[2] = { ob, oa };
    static const char *const tn[2][2] = { { "baseline_objects", "baseline_bytes" },
                                          { "candidate_objects", "candidate_bytes" } };
    for (int side = 0; side < 2; side++) {
        int64_t c = 0, by = 0;
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(o[side], "by_type"), i, row) {
            c += json_integer_value(json_object_get(row, "count"));
            by += json_integer_value(json_object_get(row, "bytes"));
        }
        ck_assert_int_eq(total(&r, tn[side][0]), c);
        ck_assert_int_eq(total(&r, tn[side][1]), by);
    }
    /* The leak tops the suspects and is the first finding; its byte[] state
     * is reported as owned by it; the churned type is no suspect. */
    const mock_table *s = table(&r, "leak_suspects");
    ck_assert_uint_ge(s->nrows, 1);
    ck_assert_str_eq(cell(s, 0, "type")->v.s, leak);
    ck_assert_str_eq(cell(s, 0, "owned_by")->v.s, "");
    ck_assert_int_lt(find_row(s, churn), 0);
    int st = find_row(s, json_string_value(json_object_get(truth, "leak_state_type")));
    if (st >= 0)
        ck_assert_str_eq(cell(s, (uint32_t)st, "owned_by")->v.s, leak);
    ck_assert_uint_ge(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.grew");
    ck_assert_msg(strncmp(r.findings[0], leak, strlen(leak)) == 0, "%s", r.findings[0]);
    for (uint32_t f = 0; f < r.nfindings; f++)
        ck_assert_msg(strncmp(r.findings[f], churn, strlen(churn)) != 0, "%s", r.findings[f]);
    int ct = find_row(t, churn);
    ck_assert_int_ge(ct, 0);
    ck_assert_int_le(llabs(cell(t, (uint32_t)ct, "count_delta")->v.i),
                     json_integer_value(json_object_get(truth, "churn_items_live_max")));
    /* The leaked type has a path in the candidate, through the static root. */
    const mock_table *p = table(&r, "paths");
    ck_assert_uint_ge(p->nrows, 1);
    ck_assert_ptr_nonnull(strstr(cell(s, 0, "path")->v.s, "[static vars]"));
    /* growth: the owner first by retained growth, its byte[] payload named
     * under it (and owned by it), and both paths through the static list
     * the workload keeps them in (truth: retained_by names the field). */
    const mock_table *g = table(&r, "growth");
    const char *state = json_string_value(json_object_get(truth, "leak_state_type"));
    int64_t dl = json_integer_value(json_object_get(truth, "leaked_delta"));
    int64_t each = json_integer_value(json_object_get(truth, "leaked_session_object_bytes_each"));
    int64_t state_each = json_integer_value(json_object_get(truth, "leak_state_object_bytes_each"));
    ck_assert_str_eq(cell(g, 0, "type")->v.s, leak);
    ck_assert_str_eq(cell(g, 0, "owned_by")->v.s, "");
    ck_assert_int_eq(cell(g, 0, "count_delta")->v.i, dl);
    /* every session retains itself and its byte[]: exact */
    ck_assert_int_eq(cell(g, 0, "retained_delta")->v.i, dl * (each + state_each));
    for (uint32_t k = 1; k < g->nrows; k++)
        ck_assert_int_ge(cell(g, k - 1, "retained_delta")->v.i, cell(g, k, "retained_delta")->v.i);
    ck_assert_msg(strstr(cell(g, 0, "payload")->v.s, state) != NULL, "%s",
                  cell(g, 0, "payload")->v.s);
    int gs = find_row(g, state);
    ck_assert_int_ge(gs, 0);
    ck_assert_str_eq(cell(g, (uint32_t)gs, "owned_by")->v.s, leak);
    const char *rb = json_string_value(json_object_get(truth, "retained_by"));
    const char *field = strrchr(rb, '.') + 1; /* "...LeakScenario.Sessions" */
    char step[128];
    snprintf(step, sizeof(step), " > [static field ?.%s] > System.Collections.Generic.List<%s> > ",
             field, leak);
    for (int k = 0; k < 2; k++) {
        const char *gp = cell(g, k == 0 ? 0 : (uint32_t)gs, "path")->v.s;
        ck_assert_msg(strstr(gp, step) != NULL, "%s", gp);
    }
    /* The dump itself has no declaring class for the static: no name in it
     * mentions LeakScenario (the "?" is the honest label). */
    const pp_heap_snapshot *cs = snaps[1];
    for (uint32_t ty = 0; ty < cs->type_count; ty++)
        ck_assert_ptr_null(strstr(cs->types[ty].name, "LeakScenario"));
    int unknown = 0;
    for (uint32_t f = 0; f < r.nfindings; f++)
        unknown |= strcmp(r.finding_code[f], "gcdump.static_class_unknown") == 0;
    ck_assert(unknown);
    printf(
        "plugin gcdump-diff growth: %s retained %+lld (truth %lld x (%lld + %lld)), payload %s; path %s\n",
        leak, (long long)cell(g, 0, "retained_delta")->v.i, (long long)dl, (long long)each,
        (long long)state_each, cell(g, 0, "payload")->v.s, cell(g, (uint32_t)gs, "path")->v.s);
    printf(
        "plugin gcdump-diff: %s count_delta %lld (truth %lld), bytes_delta %lld; top by bytes: %s %+lld; "
        "first suspect %s; finding: %s\n",
        leak, (long long)cell(t, (uint32_t)at, "count_delta")->v.i,
        (long long)json_integer_value(json_object_get(truth, "leaked_delta")),
        (long long)cell(t, (uint32_t)at, "bytes_delta")->v.i, cell(t, 0, "type")->v.s,
        (long long)cell(t, 0, "bytes_delta")->v.i, cell(s, 0, "type")->v.s, r.findings[0]);
    run_free(&r);
out:
    pp_gcdump_free(a);
    pp_gcdump_free(b);
    json_decref(truth);
    json_decref(ob);
    json_decref(oa);
}
END_TEST

/* Identity across size buckets and duplicate names; status values. */
START_TEST(test_diff_identity_and_status)
{
    static const pp_heap_type bt[] = { { "[.NET Roots]", "" }, { "[static vars]", "" },
                                       { "L[]", "" },          { "Gone", "" },
                                       { "Same", "" },         { "Dup", "a.dll" },
                                       { "Small", "" } };
    static const uint32_t bnt[] = { 0, 1, 2, 3, 4, 5, 6 };
    static const uint64_t bns[] = { 0, 0, 800, 10, 5, 7, 9 };
    static const uint64_t bst[] = { 0, 1, 2, 2, 2, 2, 2, 2 };
    static const uint32_t be[] = { 1, 2 };
    /* The candidate: L[] moved to the "(Bytes > 1K)" bucket, Dup is in two
     * modules (two type indexes), New appeared, Gone went, Small shrank. */
    static const pp_heap_type ct[] = {
        { "[.NET Roots]", "" }, { "[static vars]", "" }, { "L[] (Bytes > 1K)", "" }, { "New", "" },
        { "Same", "" },         { "Dup", "a.dll" },      { "Dup", "b.dll" },         { "Small", "" }
    };
    static const uint32_t cnt[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    static const uint64_t cns[] = { 0, 0, 8000, 3, 5, 7, 7, 4 };
    static const uint64_t cst[] = { 0, 1, 2, 2, 2, 2, 2, 2, 2 };
    static const uint32_t ce[] = { 1, 2 };
    pp_heap_snapshot s0 = { .struct_size = sizeof(s0),
                            .node_count = 7,
                            .type_count = 7,
                            .edge_count = 2,
                            .types = bt,
                            .node_type = bnt,
                            .node_size = bns,
                            .edge_start = bst,
                            .edges = be };
    pp_heap_snapshot s1 = { .struct_size = sizeof(s1),
                            .node_count = 8,
                            .type_count = 8,
                            .edge_count = 2,
                            .types = ct,
                            .node_type = cnt,
                            .node_size = cns,
                            .edge_start = cst,
                            .edges = ce };
    const pp_heap_snapshot *snaps[2] = { &s0, &s1 };
    mock_run r;
    memset(&r, 0, sizeof(r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump-diff", snaps, 2, &r, &err), PP_OK);
    const mock_table *t = table(&r, "by_type");
    static const struct {
        const char *type;
        const char *status;
        int64_t dc, db;
    } want[] = {
        { "L[]", "grew", 0, 7200 },   { "New", "appeared", 1, 3 },
        { "Dup", "grew", 1, 7 },      { "Same", "unchanged", 0, 0 },
        { "Small", "shrank", 0, -5 }, { "Gone", "disappeared", -1, -10 },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int at = find_row(t, want[i].type);
        ck_assert_msg(at >= 0, "no row %s", want[i].type);
        ck_assert_str_eq(cell(t, (uint32_t)at, "status")->v.s, want[i].status);
        ck_assert_int_eq(cell(t, (uint32_t)at, "count_delta")->v.i, want[i].dc);
        ck_assert_int_eq(cell(t, (uint32_t)at, "bytes_delta")->v.i, want[i].db);
    }
    ck_assert_int_lt(find_row(t, "L[] (Bytes > 1K)"), 0);
    ck_assert_str_eq(cell(t, 0, "type")->v.s, "L[]");
    ck_assert_str_eq(cell(t, t->nrows - 1, "type")->v.s, "Gone");
    ck_assert_uint_eq(table(&r, "leak_suspects")->nrows, 0);
    run_free(&r);
}
END_TEST

/* A built heap: root -> [static vars] -> [static var S] -> L -> arr ->
 * nsess x Sess -> Buf each; root -> [local vars] -> nlocal x Local. */
typedef struct built {
    pp_heap_snapshot s;
    uint32_t *node_type;
    uint64_t *node_size, *edge_start;
    uint32_t *edges;
} built;

static const pp_heap_type leak_types[] = {
    { "[.NET Roots]", "" },
    { "[static vars]", "" },
    { "[static var S]", "" },
    { "L", "" },
    { "Sess[]", "" },
    { "Sess", "" },
    { "Buf", "" },
    { "[local vars]", "" },
    { "Local", "" },
};

static void
build_leak(built *b, uint32_t nsess, uint32_t nlocal)
{
    uint32_t n = 6 + 2 * nsess + nlocal;
    b->node_type = malloc(n * sizeof(uint32_t));
    b->node_size = malloc(n * sizeof(uint64_t));
    b->edge_start = malloc((n + 1) * sizeof(uint64_t));
    b->edges = malloc(2 * n * sizeof(uint32_t));
    uint64_t e = 0;
    uint32_t v = 0;
    /* 0 root, 1 statics, 2 static var, 3 L, 4 arr, 5 locals */
    static const uint32_t fixed_type[] = { 0, 1, 2, 3, 4, 7 };
    for (; v < 6; v++) {
        b->node_type[v] = fixed_type[v];
        b->node_size[v] = v == 3 ? 32 : v == 4 ? 24 + 8 * nsess : 0;
        b->edge_start[v] = e;
        if (v == 0) {
            b->edges[e++] = 1;
            b->edges[e++] = 5;
        } else if (v < 4) {
            b->edges[e++] = v + 1;
        } else if (v == 4) {
            for (uint32_t i = 0; i < nsess; i++)
                b->edges[e++] = 6 + 2 * i;
        } else {
            for (uint32_t i = 0; i < nlocal; i++)
                b->edges[e++] = 6 + 2 * nsess + i;
        }
    }
    for (uint32_t i = 0; i < nsess; i++, v += 2) {
        b->node_type[v] = 5;
        b->node_size[v] = 40;
        b->edge_start[v] = e;
        b->edges[e++] = v + 1;
        b->node_type[v + 1] = 6;
        b->node_size[v + 1] = 280;
        b->edge_start[v + 1] = e;
    }
    for (uint32_t i = 0; i < nlocal; i++, v++) {
        b->node_type[v] = 8;
        b->node_size[v] = 24;
        b->edge_start[v] = e;
    }
    b->edge_start[n] = e;
    b->s = (pp_heap_snapshot){ .struct_size = sizeof(pp_heap_snapshot),
                               .pointer_size = 8,
                               .node_count = n,
                               .type_count = 9,
                               .edge_count = e,
                               .root = 0,
                               .types = leak_types,
                               .node_type = b->node_type,
                               .node_size = b->node_size,
                               .edge_start = b->edge_start,
                               .edges = b->edges };
}

static void
built_free(built *b)
{
    free(b->node_type);
    free(b->node_size);
    free(b->edge_start);
    free(b->edges);
}

/* Only growth reachable from a static root is a suspect; the payload a
 * suspect owns is reported under it; the threshold is strict. */
START_TEST(test_diff_suspects_built)
{
    built b0, b1;
    build_leak(&b0, 10, 10);
    build_leak(&b1, 2010, 5010);
    const pp_heap_snapshot *snaps[2] = { &b0.s, &b1.s };
    mock_run r;
    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "leak_threshold";
    r.opt_values[0] = "2000";
    r.nopts = 1;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump-diff", snaps, 2, &r, &err), PP_OK);
    const mock_table *s = table(&r, "leak_suspects");
    ck_assert_uint_eq(s->nrows, 0); /* +2000 is not more than 2000 */
    run_free(&r);

    memset(&r, 0, sizeof(r));
    r.opt_names[0] = "leak_threshold";
    r.opt_values[0] = "1999";
    r.nopts = 1;
    ck_assert_int_eq(run("gcdump-diff", snaps, 2, &r, &err), PP_OK);
    s = table(&r, "leak_suspects");
    ck_assert_uint_eq(s->nrows, 2);
    ck_assert_str_eq(cell(s, 0, "type")->v.s, "Sess");
    ck_assert_str_eq(cell(s, 0, "owned_by")->v.s, "");
    ck_assert_int_eq(cell(s, 0, "count_delta")->v.i, 2000);
    ck_assert_int_eq(cell(s, 0, "retained_bytes")->v.i, 2010 * 320);
    ck_assert_str_eq(cell(s, 1, "type")->v.s, "Buf");
    ck_assert_str_eq(cell(s, 1, "owned_by")->v.s, "Sess");
    ck_assert_str_eq(cell(s, 0, "path")->v.s,
                     "[.NET Roots] > [static vars] > [static var S] > L > Sess[] > Sess");
    /* Local grew by 5000 but hangs off local vars only. */
    ck_assert_int_lt(find_row(s, "Local"), 0);
    ck_assert_uint_eq(r.nfindings, 1);
    ck_assert_str_eq(r.finding_code[0], "gcdump.grew");
    ck_assert_ptr_nonnull(strstr(r.findings[0], "with Buf +2000"));
    /* Bytes: Buf +560000 tops by_type, then Local +120000, Sess +80000. */
    const mock_table *t = table(&r, "by_type");
    ck_assert_str_eq(cell(t, 0, "type")->v.s, "Buf");
    ck_assert_int_eq(cell(t, (uint32_t)find_row(t, "Local"), "count_delta")->v.i, 5000);
    const mock_table *p = table(&r, "paths");
    ck_assert_uint_eq(p->nrows, 4); /* Buf, Local, Sess, Sess[] grew */
    ck_assert_str_eq(cell(p, 0, "type")->v.s, "Buf");
    ck_assert_str_eq(cell(p, 0, "path")->v.s,
                     "[.NET Roots] > [static vars] > [static var S] > L > Sess[] > Sess > Buf");
    run_free(&r);
    built_free(&b0);
    built_free(&b1);
}
END_TEST

/* A static whose recorded type is not the held object's: that type is the
 * declaring class, and the label says so; the payload type nested below
 * a container is owned through it. */
START_TEST(test_diff_static_declaring_class)
{
    static const pp_heap_type types[] = {
        { "[.NET Roots]", "" },
        { "[static vars]", "" },
        { "[static var App.Holder.Cache]", "" },
        { "L", "" },
        { "Sess[]", "" },
        { "Sess", "" },
        { "Buf", "" },
        { "[local vars]", "" },
        { "Local", "" },
    };
    built b0, b1;
    build_leak(&b0, 10, 0);
    build_leak(&b1, 1010, 0);
    b0.s.types = types;
    b1.s.types = types;
    const pp_heap_snapshot *snaps[2] = { &b0.s, &b1.s };
    mock_run r;
    memset(&r, 0, sizeof(r));
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(run("gcdump-diff", snaps, 2, &r, &err), PP_OK);
    const mock_table *g = table(&r, "growth");
    ck_assert_str_eq(cell(g, 0, "type")->v.s, "Sess");
    ck_assert_int_eq(cell(g, 0, "retained_delta")->v.i, 1000 * 320);
    ck_assert_str_eq(cell(g, 0, "payload")->v.s, "Buf +1000 objects, +280000 B");
    ck_assert_str_eq(cell(g, 1, "type")->v.s, "Buf");
    ck_assert_str_eq(cell(g, 1, "owned_by")->v.s, "Sess");
    ck_assert_str_eq(
        cell(g, 1, "path")->v.s,
        "[.NET Roots] > [static vars] > [static App.Holder.Cache] > L > Sess[] > Sess > Buf");
    for (uint32_t f = 0; f < r.nfindings; f++)
        ck_assert_str_ne(r.finding_code[f], "gcdump.static_class_unknown");
    run_free(&r);
    built_free(&b0);
    built_free(&b1);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("plugin_gcdump");
    TCase *tc = tcase_create("plugins");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gcdump_by_type_oracle_before);
    tcase_add_test(tc, test_gcdump_by_type_oracle_after);
    tcase_add_test(tc, test_gcdump_retained_truth);
    tcase_add_test(tc, test_gcdump_sampled_finding);
    tcase_add_test(tc, test_gcdump_incomplete_graph);
    tcase_add_test(tc, test_gcdump_edges_past_table);
    tcase_add_test(tc, test_gcdump_cut_file);
    tcase_add_test(tc, test_gcdump_bad_option_and_no_input);
    tcase_add_test(tc, test_gcdump_hand_built_retained_and_sampled);
    tcase_add_test(tc, test_diff_leak_truth);
    tcase_add_test(tc, test_diff_identity_and_status);
    tcase_add_test(tc, test_diff_suspects_built);
    tcase_add_test(tc, test_diff_static_declaring_class);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
