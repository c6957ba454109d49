/* The counters-csv analyzer, driven through a mock host table that records
 * tables, findings and totals into C arrays, fed by the real reader with
 * the test bed's captures (churn and leak, CSV and JSON) and the hand-made
 * inputs. */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <perfpipe/counters.h>
#include <perfpipe/plugin.h>

const pp_analyzer *perfpipe_plugin_entry(void);

/* ---- the mock host --------------------------------------------------------- */

#define MAX_COLS  32
#define MAX_ROWS  20000
#define MAX_ITEMS 64

typedef struct mock_table {
    char name[64];
    uint32_t ncol, nkey;
    pp_column cols[MAX_COLS];
    char colnames[MAX_COLS][32];
    size_t nrows;
    pp_cell *cells; /* nrows * ncol; strings strdup'ed */
} mock_table;

typedef struct mock_result {
    mock_table tables[4];
    size_t ntables;
    struct {
        uint32_t sev;
        char code[64];
        char msg[1024];
    } findings[MAX_ITEMS];
    size_t nfindings;
    struct {
        char name[64];
        uint32_t type;
        int is_int, is_str;
        int64_t i;
        double d;
        char s[64];
    } totals[MAX_ITEMS];
    size_t ntotals;
} mock_result;

struct pp_ctx {
    mock_result *res;
};
struct pp_options {
    const char *const *kv;
}; /* NULL-terminated name, value pairs */

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
    va_list ap;

    if (err == NULL)
        return;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

static const char *
opt_text(const pp_options *o, const char *name)
{
    const pp_analyzer *a = perfpipe_plugin_entry();

    for (size_t i = 0; o->kv != NULL && o->kv[i] != NULL; i += 2)
        if (strcmp(o->kv[i], name) == 0)
            return o->kv[i + 1];
    for (uint32_t i = 0; i < a->option_count; i++)
        if (strcmp(a->options[i].name, name) == 0)
            return a->options[i].default_value;
    return NULL;
}

static int
m_opt_bool(const pp_options *o, const char *name, int *out)
{
    const char *v = opt_text(o, name);
    if (v == NULL)
        return PP_ENOTFOUND;
    *out = strcmp(v, "true") == 0;
    return PP_OK;
}

static int
m_opt_double(const pp_options *o, const char *name, double *out)
{
    const char *v = opt_text(o, name);
    if (v == NULL)
        return PP_ENOTFOUND;
    *out = strtod(v, NULL);
    return PP_OK;
}

static int
m_opt_int(const pp_options *o, const char *name, int64_t *out)
{
    const char *v = opt_text(o, name);
    if (v == NULL)
        return PP_ENOTFOUND;
    *out = strtoll(v, NULL, 10);
    return PP_OK;
}

static int
m_opt_string(const pp_options *o, const char *name, const char **out)
{
    const char *v = opt_text(o, name);
    if (v == NULL)
        return PP_ENOTFOUND;
    *out = v;
    return PP_OK;
}

static pp_table *
m_table_new(pp_ctx *ctx, const char *name, uint32_t ncolumns, const pp_column *columns,
            uint32_t nkey)
{
    mock_table *t;

    ck_assert_uint_lt(ctx->res->ntables, 4);
    ck_assert_uint_le(ncolumns, MAX_COLS);
    t = &ctx->res->tables[ctx->res->ntables++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ncol = ncolumns;
    t->nkey = nkey;
    for (uint32_t i = 0; i < ncolumns; i++) {
        snprintf(t->colnames[i], sizeof t->colnames[i], "%s", columns[i].name);
        t->cols[i] = columns[i];
        t->cols[i].name = t->colnames[i];
    }
    t->cells = calloc((size_t)MAX_ROWS * ncolumns, sizeof *t->cells);
    ck_assert_ptr_nonnull(t->cells);
    return (pp_table *)t;
}

static int
m_table_row(pp_table *pt, const pp_cell *cells)
{
    mock_table *t = (mock_table *)pt;

    ck_assert_uint_lt(t->nrows, MAX_ROWS);
    for (uint32_t i = 0; i < t->ncol; i++) {
        pp_cell c = cells[i];
        if (c.type == PP_CELL_STRING)
            c.v.s = strdup(c.v.s);
        /* the declared column type must fit the cell */
        if (c.type == PP_CELL_STRING)
            ck_assert_uint_eq(t->cols[i].type, PP_COL_STRING);
        /* the same rules as core/result: integer columns take INT only */
        if (c.type == PP_CELL_DOUBLE || c.type == PP_CELL_NULL)
            ck_assert(t->cols[i].type == PP_COL_NUMBER || t->cols[i].type == PP_COL_PERCENT ||
                      (c.type == PP_CELL_NULL && t->cols[i].type == PP_COL_STRING));
        if (c.type == PP_CELL_INT)
            ck_assert(t->cols[i].type != PP_COL_STRING);
        t->cells[t->nrows * t->ncol + i] = c;
    }
    t->nrows++;
    return PP_OK;
}

static int
m_finding(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
{
    mock_result *r = ctx->res;
    va_list ap;

    ck_assert_uint_lt(r->nfindings, MAX_ITEMS);
    r->findings[r->nfindings].sev = severity;
    snprintf(r->findings[r->nfindings].code, sizeof r->findings[0].code, "%s", code);
    va_start(ap, fmt);
    vsnprintf(r->findings[r->nfindings].msg, sizeof r->findings[0].msg, fmt, ap);
    va_end(ap);
    r->nfindings++;
    return PP_OK;
}

static int
m_total_int(pp_ctx *ctx, const char *name, uint32_t type, int64_t value)
{
    mock_result *r = ctx->res;
    ck_assert_uint_lt(r->ntotals, MAX_ITEMS);
    snprintf(r->totals[r->ntotals].name, 64, "%s", name);
    r->totals[r->ntotals].type = type;
    r->totals[r->ntotals].is_int = 1;
    r->totals[r->ntotals].i = value;
    r->totals[r->ntotals].d = (double)value;
    r->ntotals++;
    return PP_OK;
}

static int
m_total_double(pp_ctx *ctx, const char *name, uint32_t type, double value)
{
    mock_result *r = ctx->res;
    ck_assert_uint_lt(r->ntotals, MAX_ITEMS);
    snprintf(r->totals[r->ntotals].name, 64, "%s", name);
    r->totals[r->ntotals].type = type;
    r->totals[r->ntotals].d = value;
    r->ntotals++;
    return PP_OK;
}

static int
m_total_string(pp_ctx *ctx, const char *name, const char *value)
{
    mock_result *r = ctx->res;
    ck_assert_uint_lt(r->ntotals, MAX_ITEMS);
    snprintf(r->totals[r->ntotals].name, 64, "%s", name);
    r->totals[r->ntotals].is_str = 1;
    snprintf(r->totals[r->ntotals].s, 64, "%s", value);
    r->ntotals++;
    return PP_OK;
}

static const pp_host_api mock_host = {
    .struct_size = sizeof(pp_host_api),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = PP_ABI_MINOR,
    .log = m_log,
    .error_set = m_error_set,
    .opt_bool = m_opt_bool,
    .opt_int = m_opt_int,
    .opt_double = m_opt_double,
    .opt_string = m_opt_string,
    .table_new = m_table_new,
    .table_row = m_table_row,
    .finding = m_finding,
    .total_int = m_total_int,
    .total_double = m_total_double,
    .total_string = m_total_string,
};

static void
result_free(mock_result *r)
{
    for (size_t k = 0; k < r->ntables; k++) {
        mock_table *t = &r->tables[k];
        for (size_t i = 0; i < t->nrows * t->ncol; i++)
            if (t->cells[i].type == PP_CELL_STRING)
                free((char *)t->cells[i].v.s);
        free(t->cells);
    }
    free(r);
}

/* ---- driving the plugin with the real reader -------------------------------- */

static const char *
env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : dflt;
}

static int
data_path(char *buf, size_t size, const char *file)
{
    struct stat st;

    snprintf(buf, size, "%s/%s", env_or("PP_TESTDATA", TEST_SRCDIR "/tests/data"), file);
    if (stat(buf, &st) != 0) {
        printf("SKIP: %s is absent (test bed fixtures not generated yet)\n", buf);
        return 0;
    }
    return 1;
}

static void
handmade(char *buf, size_t size, const char *file)
{
    snprintf(buf, size, "%s/tests/counters/%s", env_or("PP_SRCDIR", TEST_SRCDIR), file);
}

static mock_result *
run_with(const pp_analyzer *a, const char *path, const char *const *kv)
{
    mock_result *res = calloc(1, sizeof *res);
    struct pp_ctx ctx = { res };
    struct pp_options opts = { kv };
    pp_error err = PP_ERROR_INIT;
    pp_counters_reader *r = NULL;
    pp_counter_sample s;
    void *state = NULL;
    int rc;

    ck_assert_ptr_nonnull(res);
    ck_assert_int_eq(a->create(&mock_host, &ctx, &opts, &state, &err), PP_OK);
    ck_assert_msg(pp_counters_open(path, NULL, &r, &err) == PP_OK, "%s", err.message);
    while ((rc = pp_counters_next(r, &s, &err)) == 1) {
        pp_record rec = { sizeof rec, PP_KIND_COUNTERS, 0, 0, { 0 } };
        rec.u.counter = &s;
        ck_assert_int_eq(a->consume(state, &rec, &err), PP_OK);
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    pp_counters_close(r);
    ck_assert_msg(a->finish(state, &ctx, &err) == PP_OK, "%s", err.message);
    a->destroy(state);
    return res;
}

static mock_result *
run(const char *path, const char *const *kv)
{
    return run_with(perfpipe_plugin_entry(), path, kv);
}

static const mock_table *
table(const mock_result *r, const char *name)
{
    for (size_t i = 0; i < r->ntables; i++)
        if (strcmp(r->tables[i].name, name) == 0)
            return &r->tables[i];
    return NULL;
}

static int
col(const mock_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->ncol; i++)
        if (strcmp(t->colnames[i], name) == 0)
            return (int)i;
    ck_abort_msg("no column %s", name);
    return -1;
}

static const pp_cell *
cell(const mock_table *t, size_t row, const char *name)
{
    return &t->cells[row * t->ncol + (size_t)col(t, name)];
}

/* The row of a canonical quantity, or -1. */
static long
row_of(const mock_table *t, const char *quantity)
{
    for (size_t i = 0; i < t->nrows; i++) {
        const pp_cell *c = cell(t, i, "quantity");
        if (c->type == PP_CELL_STRING && strcmp(c->v.s, quantity) == 0)
            return (long)i;
    }
    return -1;
}

static const char *
total_str(const mock_result *r, const char *name)
{
    for (size_t i = 0; i < r->ntotals; i++)
        if (strcmp(r->totals[i].name, name) == 0 && r->totals[i].is_str)
            return r->totals[i].s;
    return NULL;
}

static int
total_num(const mock_result *r, const char *name, double *out)
{
    for (size_t i = 0; i < r->ntotals; i++)
        if (strcmp(r->totals[i].name, name) == 0 && !r->totals[i].is_str) {
            *out = r->totals[i].d;
            return 1;
        }
    return 0;
}

static int
has_finding(const mock_result *r, const char *code)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].code, code) == 0)
            return 1;
    return 0;
}

static double
truth_number(const char *file, const char *key)
{
    char path[2048];
    json_error_t je;
    json_t *j;
    double v;

    if (!data_path(path, sizeof path, file))
        return NAN;
    j = json_load_file(path, 0, &je);
    ck_assert_msg(j != NULL, "%s: %s", path, je.text);
    v = json_number_value(json_object_get(j, key));
    json_decref(j);
    return v;
}

static void
print_table(const char *label, const mock_result *r)
{
    const mock_table *t = table(r, "by_counter");

    printf("== %s\n", label);
    for (size_t i = 0; t != NULL && i < t->nrows; i++) {
        const pp_cell *q = cell(t, i, "quantity"), *rate = cell(t, i, "rate"),
                      *sl = cell(t, i, "slope_per_min"), *r2 = cell(t, i, "r2");
        if (q->type != PP_CELL_STRING)
            continue;
        printf("  %-9s %-22s n=%-3lld mean=%-14.6g rate=%-12.6g slope/min=%-12.6g r2=%.3g\n",
               cell(t, i, "axis")->v.s, q->v.s, (long long)cell(t, i, "samples")->v.i,
               cell(t, i, "mean")->v.d, rate->type == PP_CELL_DOUBLE ? rate->v.d : NAN,
               sl->type == PP_CELL_DOUBLE ? sl->v.d : NAN,
               r2->type == PP_CELL_DOUBLE ? r2->v.d : NAN);
    }
    for (size_t i = 0; i < r->nfindings; i++)
        printf("  finding %s: %s\n", r->findings[i].code, r->findings[i].msg);
}

/* ---- tests --------------------------------------------------------------------- */

START_TEST(test_descriptor)
{
    const pp_analyzer *a = perfpipe_plugin_entry();

    ck_assert_uint_eq(a->abi_major, PP_ABI_MAJOR);
    ck_assert_uint_le(a->abi_minor, PP_ABI_MINOR);
    ck_assert_uint_ge(a->struct_size, PP_ANALYZER_MIN_SIZE_1_0);
    ck_assert_str_eq(a->name, "counters-csv");
    ck_assert_uint_eq(a->input_kinds, PP_KIND_COUNTERS);
    ck_assert_uint_eq(a->input_slot_count, 1);
    ck_assert_ptr_nonnull(a->create);
    ck_assert_ptr_nonnull(a->destroy);
}
END_TEST

/* Churn: alloc rate vs the workload's own count; no leak; named churn. */
static const char *const churn_files[][2] = {
    { "churn-counters.csv", "churn-counters.csv.truth.json" },
    { "churn-counters.json", "churn-counters.json.truth.json" },
};

START_TEST(test_churn)
{
    char path[2048];
    mock_result *r;
    const mock_table *t;
    double truth, rate = 0, mean;
    long row;

    if (!data_path(path, sizeof path, churn_files[_i][0]))
        return;
    truth = truth_number(churn_files[_i][1], "bytes_per_sec");
    if (isnan(truth))
        return;
    r = run(path, NULL);
    print_table(churn_files[_i][0], r);
    t = table(r, "by_counter");
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_null(table(r, "series"));
    row = row_of(t, "alloc.bytes");
    ck_assert_int_ge(row, 0);
    ck_assert_str_eq(cell(t, (size_t)row, "axis")->v.s, "churn");
    ck_assert_str_eq(cell(t, (size_t)row, "unit")->v.s, "B/s");
    rate = cell(t, (size_t)row, "rate")->v.d;
    mean = cell(t, (size_t)row, "mean")->v.d;
    ck_assert(fabs(rate - mean) <= 1e-6 * rate); /* 1-s intervals */
    printf("%s: allocation rate %.0f B/s, truth %.0f B/s (%+.1f%%)\n", churn_files[_i][0], rate,
           truth, (rate / truth - 1) * 100);
    ck_assert_msg(fabs(rate / truth - 1) <= 0.15, "alloc rate %.0f vs truth %.0f", rate, truth);
    ck_assert(!has_finding(r, "counters.leak_suspect"));
    ck_assert(has_finding(r, "counters.churn"));
    ck_assert(!has_finding(r, "counters.no_runtime_counters"));
    ck_assert_str_eq(total_str(r, "footprint_verdict"), "churn");
    {
        double tr;
        ck_assert(total_num(r, "alloc_bytes_per_sec", &tr));
        ck_assert(tr == rate);
        ck_assert(total_num(r, "gc_time_percent", &tr));
        ck_assert(tr >= 0 && tr < 100);
    }
    row = row_of(t, "gc.heap.gen2");
    ck_assert_int_ge(row, 0);
    ck_assert_str_eq(cell(t, (size_t)row, "axis")->v.s, "footprint");
    result_free(r);
}
END_TEST

/* Leak: steady gen2 growth flagged with the gcdump next step. */
static const char *const leak_files[] = { "leak-counters.csv", "leak-counters.json" };

START_TEST(test_leak)
{
    char path[2048];
    mock_result *r;
    const mock_table *t;
    long row;
    int found = 0;

    if (!data_path(path, sizeof path, leak_files[_i]))
        return;
    r = run(path, NULL);
    print_table(leak_files[_i], r);
    t = table(r, "by_counter");
    ck_assert(has_finding(r, "counters.leak_suspect"));
    ck_assert(!has_finding(r, "counters.churn"));
    ck_assert_str_eq(total_str(r, "footprint_verdict"), "leak_suspect");
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].code, "counters.leak_suspect") == 0 &&
            strstr(r->findings[i].msg, "gc.heap.gen2") != NULL) {
            found = 1;
            ck_assert_ptr_nonnull(strstr(r->findings[i].msg, "dotnet-gcdump collect -p PID"));
            ck_assert_ptr_nonnull(strstr(r->findings[i].msg, "perfpipe gcdump-diff BASE CAND"));
        }
    /* the scenario adds its sessions in one step: gen2 after the last GC
     * has two levels (416 152 then 556 808 bytes: one collection's step),
     * two snapshots that cannot tell a leak from a cache warming up, so
     * gen2 gets no trend; what keeps growing (committed memory, three
     * levels) is the suspect */
    row = row_of(t, "gc.heap.gen2");
    ck_assert_msg(!found, "gen2's two levels judged a leak");
    ck_assert_str_eq(cell(t, (size_t)row, "trend")->v.s, "");
    ck_assert_str_eq(cell(t, (size_t)row_of(t, "gc.committed"), "trend")->v.s, "growing");
    ck_assert(has_finding(r, "counters.short_window")); /* a 7-s capture */
    ck_assert(cell(t, (size_t)row, "slope_per_min")->v.d > 1e6);
    ck_assert(cell(t, (size_t)row, "r2")->v.d >= 0.6);
    result_free(r);
}
END_TEST

/* A footprint series of n 1-s samples, v(i), written as a dotnet-counters
 * CSV to a temporary file (path out). */
static void
write_series(char *out, size_t size, double (*v)(int), int n)
{
    int fd;
    FILE *f;

    snprintf(out, size, "/tmp/pp-cc-trend-XXXXXX");
    fd = mkstemp(out);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "Timestamp,Provider,Counter Name,Counter Type,Mean/Increment\n");
    for (int i = 0; i < n; i++)
        fprintf(f,
                "11/29/2026 15:%02d:%02d,System.Runtime,dotnet.gc.last_collection.heap.size "
                "(By)[gc.heap.generation=gen2],Metric,%.0f\n",
                30 + i / 60, i % 60, v(i));
    fclose(f);
}

/* A cache bounded at 9 MB filled in the first 9 s of a 24-s run, then full;
 * a static list that gains 1 MB every second. */
static double
bounded_cache(int i)
{
    return 1e6 + (i < 9 ? i : 9) * 1e6;
}
static double
growing_list(int i)
{
    return 1e6 + i * 1e6;
}

/* Growth that stops at a bound is named bounded, never a leak; growth that
 * keeps setting new highs is the leak suspect. */
START_TEST(test_bounded_is_no_leak)
{
    char path[64];
    mock_result *r;
    const mock_table *t;
    long row;

    write_series(path, sizeof path, bounded_cache, 24);
    r = run(path, NULL);
    unlink(path);
    t = table(r, "by_counter");
    row = row_of(t, "gc.heap.gen2");
    ck_assert_int_ge(row, 0);
    ck_assert_msg(cell(t, (size_t)row, "r2")->v.d >= 0.6, "the fill must look steady (r2 %.2f)",
                  cell(t, (size_t)row, "r2")->v.d);
    ck_assert(!has_finding(r, "counters.leak_suspect"));
    ck_assert(has_finding(r, "counters.bounded_growth"));
    ck_assert_str_eq(total_str(r, "footprint_verdict"), "bounded");
    ck_assert_str_eq(cell(t, (size_t)row, "trend")->v.s, "bounded");
    result_free(r);

    write_series(path, sizeof path, growing_list, 24);
    r = run(path, NULL);
    unlink(path);
    t = table(r, "by_counter");
    row = row_of(t, "gc.heap.gen2");
    ck_assert(has_finding(r, "counters.leak_suspect"));
    ck_assert(!has_finding(r, "counters.bounded_growth"));
    ck_assert_str_eq(total_str(r, "footprint_verdict"), "leak_suspect");
    ck_assert_str_eq(cell(t, (size_t)row, "trend")->v.s, "growing");
    result_free(r);
}
END_TEST

/* CSV and JSON of one scenario give the same table: same counters, units,
 * axes, kinds, and the allocation rate and GC counts agree. */
START_TEST(test_csv_json_same_table)
{
    static const char *const pairs[][2] = {
        { "churn-counters.csv", "churn-counters.json" },
        { "leak-counters.csv", "leak-counters.json" },
    };
    char pc[2048], pj[2048];
    mock_result *rc, *rj;
    const mock_table *tc, *tj;
    long a, b;

    if (!data_path(pc, sizeof pc, pairs[_i][0]) || !data_path(pj, sizeof pj, pairs[_i][1]))
        return;
    rc = run(pc, NULL);
    rj = run(pj, NULL);
    tc = table(rc, "by_counter");
    tj = table(rj, "by_counter");
    ck_assert_uint_eq(tc->nrows, tj->nrows);
    ck_assert_uint_eq(tc->ncol, tj->ncol);
    for (size_t i = 0; i < tc->nrows; i++) {
        static const char *const same[] = { "provider", "counter", "tags", "unit", "axis", "kind" };
        for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
            ck_assert_str_eq(cell(tc, i, same[k])->v.s, cell(tj, i, same[k])->v.s);
    }
    /* The test bed captures CSV and JSON in two runs of the scenario: only
     * the rate-controlled churn workload allocates at the same rate in both
     * (the leak workload's allocation rate varies run to run). */
    a = row_of(tc, "alloc.bytes");
    b = row_of(tj, "alloc.bytes");
    ck_assert(a >= 0 && b >= 0);
    if (_i == 0)
        ck_assert(fabs(cell(tc, (size_t)a, "rate")->v.d / cell(tj, (size_t)b, "rate")->v.d - 1) <
                  0.15);
    ck_assert_str_eq(total_str(rc, "footprint_verdict"), total_str(rj, "footprint_verdict"));
    /* Both runs last the same number of 1-s intervals: every series has as
     * many samples in the CSV as in the JSON, leading zeros included. */
    for (size_t i = 0; i < tc->nrows; i++)
        ck_assert_msg(cell(tc, i, "samples")->v.i == cell(tj, i, "samples")->v.i,
                      "%s [%s]: %lld samples in the CSV, %lld in the JSON",
                      cell(tc, i, "counter")->v.s, cell(tc, i, "tags")->v.s,
                      (long long)cell(tc, i, "samples")->v.i,
                      (long long)cell(tj, i, "samples")->v.i);
    result_free(rc);
    result_free(rj);
}
END_TEST

/* Every series: samples and mean equal the oracle's count and sum/count
 * (its own parser of the documented formats), leading zeros included. */
static const char *const oracle_files[] = { "churn-counters.csv", "churn-counters.json",
                                            "leak-counters.csv", "leak-counters.json" };

START_TEST(test_samples_match_oracle)
{
    char path[2048], opath[2048], oname[2100];
    json_error_t je;
    json_t *o, *series, *sv;
    mock_result *r;
    const mock_table *t;
    size_t k, matched = 0;

    snprintf(oname, sizeof oname, "%s.oracle.json", oracle_files[_i]);
    if (!data_path(path, sizeof path, oracle_files[_i]) || !data_path(opath, sizeof opath, oname))
        return;
    o = json_load_file(opath, 0, &je);
    ck_assert_msg(o != NULL, "%s: %s", opath, je.text);
    series = json_object_get(o, "series");
    r = run(path, NULL);
    t = table(r, "by_counter");
    ck_assert_ptr_nonnull(t);
    json_array_foreach(series, k, sv) {
        const char *name = json_string_value(json_object_get(sv, "name"));
        double count = json_number_value(json_object_get(sv, "count"));
        double sum = json_number_value(json_object_get(sv, "sum"));
        long row = -1;

        /* oracle name: "counter (unit)" + "[tags]" when tagged */
        for (size_t i = 0; i < t->nrows && row < 0; i++) {
            const char *cn = cell(t, i, "counter")->v.s, *tg = cell(t, i, "tags")->v.s;
            size_t cl = strlen(cn), nl = strlen(name), tl = strlen(tg);
            if (strncmp(name, cn, cl) != 0 || name[cl] != ' ')
                continue;
            if (tl ? nl > tl + 2 && name[nl - 1] == ']' && name[nl - tl - 2] == '[' &&
                         strncmp(name + nl - tl - 1, tg, tl) == 0 :
                     name[nl - 1] != ']')
                row = (long)i;
        }
        ck_assert_msg(row >= 0, "%s: oracle series %s not in by_counter", oracle_files[_i], name);
        ck_assert_msg((double)cell(t, (size_t)row, "samples")->v.i == count,
                      "%s: %s has %lld samples, the oracle %.0f", oracle_files[_i], name,
                      (long long)cell(t, (size_t)row, "samples")->v.i, count);
        /* 1-s intervals: a rate's per-second mean is the mean increment.
         * The oracle prints doubles rounded to 6 significant digits. */
        ck_assert_msg(fabs(cell(t, (size_t)row, "mean")->v.d - sum / count) <=
                          2e-6 * fabs(sum / count) + 1e-6,
                      "%s: %s mean %.17g, oracle %.17g", oracle_files[_i], name,
                      cell(t, (size_t)row, "mean")->v.d, sum / count);
        matched++;
    }
    ck_assert_uint_eq(matched, t->nrows);
    printf("%s: %zu series, samples and means equal the oracle's\n", oracle_files[_i], matched);
    result_free(r);
    json_decref(o);
}
END_TEST

START_TEST(test_window_and_series)
{
    static const char *const kv[] = { "from", "2", "series", "true", NULL };
    char path[2048];
    mock_result *all, *win;
    const mock_table *ta, *tw, *ts;
    long ra, rw;
    int64_t total = 0;

    handmade(path, sizeof path, "invariant.csv");
    all = run(path, NULL);
    win = run(path, kv);
    ta = table(all, "by_counter");
    tw = table(win, "by_counter");
    ts = table(win, "series");
    ck_assert_ptr_nonnull(ts);
    ck_assert_uint_eq(ts->nkey, 0);
    ra = row_of(ta, "memory.working_set");
    rw = row_of(tw, "memory.working_set");
    /* invariant.csv: working set at t = 0, 1, 2 s */
    ck_assert_int_eq(cell(ta, (size_t)ra, "samples")->v.i, 3);
    ck_assert_int_eq(cell(tw, (size_t)rw, "samples")->v.i, 1);
    for (size_t i = 0; i < tw->nrows; i++)
        total += cell(tw, i, "samples")->v.i;
    ck_assert_uint_eq(ts->nrows, (size_t)total);
    for (size_t i = 0; i < ts->nrows; i++)
        ck_assert_int_ge(cell(ts, i, "time_ns")->v.i, INT64_C(2000000000));
    result_free(all);
    result_free(win);
}
END_TEST

START_TEST(test_wrong_providers)
{
    char path[2048];
    mock_result *r;

    handmade(path, sizeof path, "wrong-providers.csv");
    r = run(path, NULL);
    ck_assert(has_finding(r, "counters.no_runtime_counters"));
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].code, "counters.no_runtime_counters") == 0)
            ck_assert_ptr_nonnull(strstr(
                r->findings[i].msg, "dotnet-counters collect -p PID --counters System.Runtime"));
    ck_assert_uint_eq(table(r, "by_counter")->nrows, 2);
    result_free(r);
}
END_TEST

START_TEST(test_legacy_and_empty)
{
    char path[2048];
    mock_result *r;
    double v = 0;
    const mock_table *t;
    long row;

    handmade(path, sizeof path, "legacy-eventcounters.csv");
    r = run(path, NULL);
    t = table(r, "by_counter");
    ck_assert(total_num(r, "gc_time_percent", &v));
    ck_assert(v == 2.5); /* mean of 2 % and 3 % */
    row = row_of(t, "memory.working_set");
    ck_assert(cell(t, (size_t)row, "last")->v.d == 82e6);
    ck_assert(cell(t, (size_t)row, "delta")->v.d == 1e6);
    row = row_of(t, "alloc.bytes");
    ck_assert(cell(t, (size_t)row, "rate")->v.d == (65432.0 + 70000.0) / 2);
    ck_assert(cell(t, (size_t)row, "delta")->v.d == 65432.0 + 70000.0);
    result_free(r);

    handmade(path, sizeof path, "empty-events.json");
    r = run(path, NULL);
    ck_assert(has_finding(r, "counters.no_samples"));
    ck_assert_uint_eq(table(r, "by_counter")->nrows, 0);
    result_free(r);
}
END_TEST

START_TEST(test_bad_options)
{
    static const char *const kv[] = { "from", "5", "to", "2", NULL };
    const pp_analyzer *a = perfpipe_plugin_entry();
    mock_result res = { 0 };
    struct pp_ctx ctx = { &res };
    struct pp_options opts = { kv };
    pp_error err = PP_ERROR_INIT;
    void *state = NULL;

    ck_assert_int_eq(a->create(&mock_host, &ctx, &opts, &state, &err), PP_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.message, "from"));
}
END_TEST

/* The built plugin itself: loads with RTLD_NOW (no unresolved symbol),
 * exports the entry, and gives the same table as the compiled-in sources. */
START_TEST(test_built_plugin)
{
    const char *dir = getenv("PERFPIPE_PLUGIN_PATH");
    char so[2048], path[2048];
    pp_plugin_entry_fn entry;
    const pp_analyzer *a;
    mock_result *r1, *r2;
    void *h;

    if (dir == NULL || *dir == '\0') {
        printf("SKIP: PERFPIPE_PLUGIN_PATH unset (run through make check)\n");
        return;
    }
    snprintf(so, sizeof so, "%s/counters-csv.so", dir);
    h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("SKIP: %s not built: %s\n", so, dlerror());
        return;
    }
    *(void **)&entry = dlsym(h, PP_PLUGIN_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull(entry);
    ck_assert_ptr_null(dlsym(h, "cc_store_add")); /* nothing else exported */
    a = entry();
    ck_assert_str_eq(a->name, "counters-csv");
    ck_assert_uint_eq(a->abi_major, PP_ABI_MAJOR);
    handmade(path, sizeof path, "legacy-eventcounters.csv");
    r1 = run_with(a, path, NULL);
    r2 = run(path, NULL);
    ck_assert_uint_eq(table(r1, "by_counter")->nrows, table(r2, "by_counter")->nrows);
    ck_assert_uint_eq(r1->nfindings, r2->nfindings);
    result_free(r1);
    result_free(r2);
    dlclose(h);
}
END_TEST

START_TEST(test_threadpool_queue)
{
    char path[2048];
    mock_result *r;
    double peak = 0;

    handmade(path, sizeof path, "threadpool-queue.csv");
    r = run(path, NULL);
    ck_assert(total_num(r, "threadpool_queue_peak_rise", &peak));
    ck_assert(peak == 5); /* running sum 3, 5, 1, 2 */
    ck_assert(has_finding(r, "counters.threadpool_queue"));
    /* only runtime time-axis counters: no footprint verdict beyond "flat" */
    ck_assert_str_eq(total_str(r, "footprint_verdict"), "flat");
    result_free(r);
}
END_TEST

static Suite *
plugin_suite(void)
{
    Suite *s = suite_create("plugin_counters");
    TCase *tc = tcase_create("counters-csv");

    tcase_add_test(tc, test_descriptor);
    tcase_add_loop_test(tc, test_churn, 0, 2);
    tcase_add_loop_test(tc, test_leak, 0, 2);
    tcase_add_test(tc, test_bounded_is_no_leak);
    tcase_add_loop_test(tc, test_csv_json_same_table, 0, 2);
    tcase_add_loop_test(tc, test_samples_match_oracle, 0, 4);
    tcase_add_test(tc, test_window_and_series);
    tcase_add_test(tc, test_wrong_providers);
    tcase_add_test(tc, test_legacy_and_empty);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_threadpool_queue);
    tcase_add_test(tc, test_built_plugin);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(plugin_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
