/* plugins/load: latency samples no request had. A closed-loop connection
 * has one request out at a time, so its requests' own latencies add up to
 * at most duration x connections (latency_sum_pct, 100 %). wrk (4.x) adds
 * samples after the run, for coordinated omission: each response slower
 * than twice its expected interval (duration / requests per connection) is
 * also counted at its latency minus 1, 2, ... intervals, so one stall
 * stands for many requests. Those samples all lie above twice the
 * interval: they move the mean and the upper percentiles, and the median
 * only once they are many. Which statistics they decide is declared to
 * compare (the latency table's hints "not_judged" and "not_judged_why"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load.h"

double
ld_latency_sum_pct(const pp_load_result *x)
{
    if (!(x->flags & PP_LOAD_CLOSED_LOOP) || !isfinite(x->lat_mean_ns) || x->requests <= 0 ||
        x->duration_ns <= 0 || x->connections <= 0)
        return NAN;
    return 100.0 * x->lat_mean_ns * (double)x->requests /
           ((double)x->duration_ns * (double)x->connections);
}

int64_t
ld_synthetic_count(const pp_load_result *x)
{
    return x->latency_samples >= 0 && x->requests >= 0 && x->latency_samples >= x->requests ?
               x->latency_samples - x->requests :
               -1;
}

/* Beyond the rounding of a text report (wrk prints the mean to 3 or 4
 * figures and the duration to 10 ms): the sum proves synthetic samples. */
#define LD_SUM_PCT 102.0

int
ld_synthetic(const pp_load_result *x)
{
    return ld_latency_sum_pct(x) > LD_SUM_PCT || ld_synthetic_count(x) > 0;
}

/* With the count: the samples' share s puts the q quantile of all samples
 * at the requests' q / (1 - s) (each synthetic sample lies above it): past
 * halfway into its tail, the figure is the stalls'. The mean's synthetic
 * part is at most s x max / mean: over a quarter, the stalls'. Without the
 * count, a sum beyond 100 % proves some and bounds none: the mean and the
 * upper percentiles are not judged, p50 is. */
#define LD_MEAN_SHARE 0.25

static void
not_judged_names(const pp_load_result *x, char *buf, size_t size)
{
    static const struct {
        const char *name;
        double q;
    } stat[] = { { "p50_ms", 0.50 }, { "p90_ms", 0.90 }, { "p95_ms", 0.95 }, { "p99_ms", 0.99 } };
    int64_t n = ld_synthetic_count(x);
    double s = n >= 0 && x->latency_samples > 0 ? (double)n / (double)x->latency_samples : NAN;
    size_t used = 0;

    buf[0] = '\0';
    if (isnan(s) || !(x->lat_mean_ns > 0) || s * x->lat_max_ns / x->lat_mean_ns > LD_MEAN_SHARE)
        used += (size_t)snprintf(buf + used, size - used, "mean_ms");
    for (size_t i = 0; i < sizeof stat / sizeof stat[0] && used < size; i++)
        if (isnan(s) ? stat[i].q > 0.5 : stat[i].q / (1 - s) - stat[i].q > (1 - stat[i].q) / 2)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? " " : "",
                                     stat[i].name);
}

int
ld_synthetic_hints(const pp_host_api *h, pp_table *latency, const pp_load_result *x)
{
    char names[64];

    if (!ld_synthetic(x))
        return PP_OK;
    not_judged_names(x, names, sizeof names);
    if (names[0] == '\0')
        return PP_OK;
    if (h->table_hint(latency, "not_judged", names) != PP_OK ||
        h->table_hint(latency, "not_judged_why",
                      ld_synthetic_count(x) > 0 ?
                          "synthetic samples: the tool counted more latencies than requests "
                          "(synthetic_samples), as wrk's coordinated-omission correction counts "
                          "one stall as many requests" :
                          "synthetic samples: the latencies add up to more than duration x "
                          "connections, latency_sum_pct over 100, as wrk's coordinated-omission "
                          "correction counts one stall as many requests") != PP_OK)
        return PP_ENOMEM;
    return PP_OK;
}

void
ld_synthetic_finding(const pp_host_api *h, pp_ctx *ctx, const pp_load_result *x, const char *tool)
{
    double pct = ld_latency_sum_pct(x);
    int64_t n = ld_synthetic_count(x);
    char count[96] = "", sum[192] = "", stall[160] = ",", names[64], verdict[128];

    if (!ld_synthetic(x))
        return;
    not_judged_names(x, names, sizeof names);
    if (n > 0)
        snprintf(count, sizeof count, "; %lld latencies for %lld requests (%lld synthetic)",
                 (long long)x->latency_samples, (long long)x->requests, (long long)n);
    if (isfinite(pct)) {
        double interval_ms = (double)x->duration_ns * (double)x->connections / (double)x->requests /
                             1e6;

        snprintf(sum, sizeof sum,
                 "; latencies adding up to %.0f %% of what its %lld connection%s could wait "
                 "(mean %.3f ms x %lld requests = %.3f s in %.3f s)",
                 pct, (long long)x->connections, x->connections == 1 ? "" : "s",
                 x->lat_mean_ns / 1e6, (long long)x->requests,
                 x->lat_mean_ns * (double)x->requests / 1e9, (double)x->duration_ns / 1e9);
        if (isfinite(x->lat_max_ns))
            snprintf(stall, sizeof stall,
                     ", here %.3f ms (its slowest response, %.1f ms, alone stands for up to "
                     "%.0f requests),",
                     interval_ms, x->lat_max_ns / 1e6, x->lat_max_ns / 1e6 / interval_ms);
    }
    if (names[0] != '\0')
        snprintf(verdict, sizeof verdict, "compare shows %s without judging them", names);
    else
        snprintf(verdict, sizeof verdict, "too few to move the statistics: compare judges them");
    h->finding(ctx, PP_SEVERITY_WARNING, "load.synthetic_latency",
               "%s's figures hold synthetic samples%s%s; wrk's coordinated-omission correction "
               "counts a response slower than twice the expected interval, duration / "
               "requests per connection%s again at its latency minus 1, 2, ... intervals; %s",
               tool, count, sum, stall, verdict);
}
