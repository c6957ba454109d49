/* tests/unit: a mock pp_host_api for plugin unit tests.
 *
 * Drives an analyzer descriptor (create / consume / finish / destroy) the
 * way the engine does, and records everything the plugin reports - tables,
 * rows, findings, totals, log lines - in memory for assertions. Options are
 * given as text (as in YAML or on the CLI) and validated against the
 * descriptor's declarations before create(), like the real host.
 *
 * Traces: events built by hand carry mock_host_source(mh) as their source;
 * trace_symbolize then names addresses from a small fake symbol map
 * (mock_host_set_symbols), trace_info returns what mock_host_set_trace_info
 * gave, and trace_field answers PP_ENOTFOUND. To run a plugin over a real
 * trace, forward the three calls to a reader (mock_host_forward_trace), e.g.
 * pp_nettrace_symbolize / pp_nettrace_info / pp_nettrace_field.
 *
 * The mock checks the ABI rules the plugin must follow and counts breaches
 * (mock_host_violations): results outside finish(), cells whose type does
 * not fit the column, percentages outside 0..100, duplicate table names,
 * findings without a dotted code. */
#ifndef PP_TESTS_MOCK_HOST_H
#define PP_TESTS_MOCK_HOST_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/plugin.h>

typedef struct mock_host mock_host;
typedef struct mock_table mock_table;

typedef struct mock_symbol {
    uint64_t start;
    uint64_t size;
    const char *name;
} mock_symbol;

typedef const char *(*mock_symbolize_fn)(const pp_trace_source *src, uint64_t ip, uint32_t flags);
typedef int (*mock_info_fn)(const pp_trace_source *src, pp_trace_info *out);
typedef int (*mock_field_fn)(const pp_trace_event *ev, const char *name, pp_value *out);

/* A mock around an analyzer descriptor (borrowed). NULL on ENOMEM. */
mock_host *mock_host_new(const pp_analyzer *an);
/* Destroys the plugin state if still alive, frees everything. NULL-safe. */
void mock_host_free(mock_host *mh);

/* Option `name` as text; lists are comma-separated. Copied. Call before
 * mock_host_create. 0 or -1 (ENOMEM). */
int mock_host_set_option(mock_host *mh, const char *name, const char *value);
/* A run knob (host->knob). Copied. */
int mock_host_set_knob(mock_host *mh, const char *name, const char *value);
/* The fake symbol map (borrowed; a name for [start, start+size)). */
void mock_host_set_symbols(mock_host *mh, const mock_symbol *syms, size_t n);
void mock_host_set_trace_info(mock_host *mh, const pp_trace_info *info);
void mock_host_forward_trace(mock_host *mh, mock_symbolize_fn sym, mock_info_fn info,
                             mock_field_fn field);
/* The source handle hand-built events should carry. */
const pp_trace_source *mock_host_source(mock_host *mh);
const pp_host_api *mock_host_api(mock_host *mh);

/* Lifecycle, returning what the plugin returned (or PP_EINVAL for an
 * option the descriptor does not declare or cannot parse, with err set). */
int mock_host_create(mock_host *mh, pp_error *err);
int mock_host_consume(mock_host *mh, const pp_record *rec, pp_error *err);
int mock_host_consume_event(mock_host *mh, const pp_trace_event *ev, pp_error *err);
int mock_host_finish(mock_host *mh, pp_error *err);

/* Results. */
const mock_table *mock_host_table(const mock_host *mh, const char *name);
size_t mock_host_table_count(const mock_host *mh);
uint32_t mock_table_rows(const mock_table *t);
uint32_t mock_table_ncols(const mock_table *t);
uint32_t mock_table_nkey(const mock_table *t);
const pp_column *mock_table_column(const mock_table *t, uint32_t col);
/* Index of a column by name, or -1. */
int mock_table_col(const mock_table *t, const char *name);
const pp_cell *mock_table_cell(const mock_table *t, uint32_t row, uint32_t col);
/* Typed access by column name; abort()s on a missing column or wrong type
 * so a test cannot pass by reading nothing. */
const char *mock_table_str(const mock_table *t, uint32_t row, const char *col);
int64_t mock_table_int(const mock_table *t, uint32_t row, const char *col);
double mock_table_dbl(const mock_table *t, uint32_t row, const char *col);
/* First row whose string column col equals value, or -1. */
int mock_table_find(const mock_table *t, const char *col, const char *value);

size_t mock_host_finding_count(const mock_host *mh);
/* The message of the first finding with that code (NULL if none); its
 * severity in *severity when non-NULL. */
const char *mock_host_finding(const mock_host *mh, const char *code, uint32_t *severity);
/* 1 and *out when the total exists with that kind, else 0. */
int mock_host_total_int(const mock_host *mh, const char *name, int64_t *out);
int mock_host_total_double(const mock_host *mh, const char *name, double *out);
const char *mock_host_total_string(const mock_host *mh, const char *name);

/* Number of ABI-rule breaches seen; the first one's description. */
size_t mock_host_violations(const mock_host *mh);
const char *mock_host_first_violation(const mock_host *mh);

#endif
