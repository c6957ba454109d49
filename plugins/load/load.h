/* plugins/load: load-test results (wrk, hey, k6, bombardier, vegeta) as
 * tables, totals and findings. Private to the plugin: the state load.c
 * fills from the records and report.c turns into results. */
#ifndef PP_PLUGIN_LOAD_H
#define PP_PLUGIN_LOAD_H

#include <perfpipe/plugin.h>

/* One scope of the run, copied from its record (records are borrowed). */
typedef struct ld_scope {
    char *scope;
    pp_load_result x; /* figures only: its pointers are not kept */
    uint32_t nstatus, nkinds, nthresholds;
    pp_load_count *statuses; /* names owned */
    pp_load_count *kinds;
    pp_load_threshold *thresholds;
    double *samples_ms; /* per-request latencies, sorted; at most LD_MAX_SAMPLES */
    uint32_t nsamples;
} ld_scope;

/* Per-request latencies kept per scope for compare's quantile test: more
 * are thinned to this many evenly spaced order statistics (the test then
 * sees the distribution's shape on fewer requests: a wider interval). */
#define LD_MAX_SAMPLES 20000u

typedef struct ld_state {
    const pp_host_api *host;
    ld_scope *scopes;
    uint32_t nscopes, cap;
    char *tool, *format, *url;
    double error_percent; /* option: the errors finding's floor */
} ld_state;

/* synthetic.c: latency samples no request had (wrk's coordinated-omission
 * correction). The requests' latencies as a percentage of duration x
 * connections (closed loop; NaN unknown); the samples the tool counted
 * beyond its requests (-1 unknown); whether the figures hold any. */
double ld_latency_sum_pct(const pp_load_result *x);
int64_t ld_synthetic_count(const pp_load_result *x);
int ld_synthetic(const pp_load_result *x);
/* The latency table's hints "not_judged"/"not_judged_why" for the run x:
 * the statistics its synthetic samples decide. PP_OK or PP_ENOMEM. */
int ld_synthetic_hints(const pp_host_api *h, pp_table *latency, const pp_load_result *x);
/* load.synthetic_latency, when x holds synthetic samples. */
void ld_synthetic_finding(const pp_host_api *h, pp_ctx *ctx, const pp_load_result *x,
                          const char *tool);

/* Tables, totals and findings of st. PP_OK or a PP_E* code with err. */
int ld_report(ld_state *st, pp_ctx *ctx, pp_error *err);

/* The tables ld_report writes, by their place in ld_tables (report.c, the
 * descriptor's declarations), ended by a NULL name. */
enum {
    LD_T_LATENCY,
    LD_T_REQUEST_LATENCY,
    LD_T_STATUSES,
    LD_T_ERROR_KINDS,
    LD_T_THRESHOLDS,
    LD_T_END
};
extern const pp_table_decl ld_tables[];

#endif
