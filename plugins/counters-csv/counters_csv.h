/* Private to the counters-csv plugin: the per-series sample store and the
 * statistics computed from it. */
#ifndef PP_PLUGIN_COUNTERS_CSV_H
#define PP_PLUGIN_COUNTERS_CSV_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/plugin.h>

typedef struct cc_point {
    int64_t t; /* ns since the file's first sample */
    double v;  /* as read: a level, or an increment */
} cc_point;

/* One counter and tag set. */
typedef struct cc_series {
    char *provider, *name, *tags, *unit, *quantity; /* quantity NULL if none */
    uint32_t counter_type;                          /* PP_COUNTER_* of the first sample */
    double interval_s;                              /* RATE: seconds per sample (>0) */
    cc_point *pts;
    size_t n, cap;
} cc_series;

typedef struct cc_store {
    cc_series *s;
    size_t n, cap;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    size_t nslots;
} cc_store;

/* Add one sample to its series (created on first sight; strings copied).
 * PP_OK or PP_ENOMEM. */
int cc_store_add(cc_store *st, const pp_counter_sample *s);
void cc_store_free(cc_store *st);

/* What the tables and findings need of one series over a time window. */
typedef struct cc_stats {
    size_t n;                                /* points used */
    double first, last, min, mean, max, p95; /* per second for RATE series */
    double delta;                            /* RATE: sum of increments; GAUGE: last - first */
    double rate;                             /* RATE: delta per second; NAN for gauges */
    double slope_per_min; /* GAUGE: least squares, value per minute; NAN if n < 3 */
    double r2;            /* NAN when undefined (flat series, n < 3) */
    double growth_pct;    /* GAUGE: slope x window / mean, in %; NAN if undefined */
    int64_t t_first, t_last;
    int64_t t_trend;    /* where the trend starts (see trend_after_zeros) */
    double trend_first; /* the value there */
} cc_stats;

/* Compute stats of series over [from_ns, to_ns]. Every finite point in the
 * window is a sample (n, first, min, mean...), leading zeros included.
 * Footprint heap sizes read 0 until the first GC: with trend_after_zeros the
 * trend (slope, r2, growth) starts at the first non-zero point (t_trend).
 * Returns 0 if no point is in the window. Uses scratch (grown as needed);
 * PP_ENOMEM on failure. */
int cc_stats_compute(const cc_series *s, int64_t from_ns, int64_t to_ns, int trend_after_zeros,
                     double **scratch, size_t *scratch_cap, cc_stats *out);

/* d rounded and clamped into int64 (NaN -> 0): casts of out-of-range
 * doubles are undefined. */
int64_t cc_to_i64(double d);

/* "churn", "time", "footprint" or "other" for a quantity (may be NULL). */
const char *cc_axis(const char *quantity);

/* One by_counter row: a series and its stats over the window. */
typedef struct cc_row {
    const cc_series *s;
    cc_stats st;
    const char *axis;
    int leak;    /* steady growth that persists (cc_mark_trends) */
    int bounded; /* steady growth that stopped: a bound */
} cc_row;

typedef struct cc_thresholds {
    double leak_r2;             /* minimum R^2 of the footprint trend */
    double leak_growth_pct;     /* minimum growth over the window, % of mean */
    double leak_min_slope;      /* minimum slope, bytes per minute */
    double gc_time_pct;         /* GC pause share that deserves a finding */
    double churn_bytes_per_sec; /* allocation rate worth calling churn */
} cc_thresholds;

/* Mark in rows the footprints that grow steadily and keep growing (leak)
 * or that grew and stopped (bounded). */
void cc_mark_trends(cc_row *rows, size_t n, const cc_thresholds *th);

/* Emit (rows marked by cc_mark_trends) the findings and verdict totals.
 * Returns PP_OK or the host's error. */
int cc_findings(const pp_host_api *host, pp_ctx *ctx, cc_row *rows, size_t n,
                const cc_thresholds *th, int64_t window_ns);

/* The tables finish writes, by their place in pp_counters_tables (counters_csv.c: the descriptor's
 * declarations, each writer makes its table from its entry). */
enum {
    PP_CTR_T_BY_COUNTER,
    PP_CTR_T_SERIES,
};
extern const pp_table_decl pp_counters_tables[];

#endif
