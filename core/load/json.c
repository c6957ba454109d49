/* The JSON documents: k6's end-of-test summary (handleSummary's data and
 * the legacy --summary-export), bombardier's -o json, vegeta's report
 * -type=json, oha's --output-format json (-j) and the object
 * examples/wrk-json/wrk-json.lua writes. One
 * document each, parsed whole with jansson; its shape says the tool. */
#define _GNU_SOURCE 1
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"

static int64_t
count_of(const json_t *v)
{
    double d = pp_load_json_num(v);

    return isnan(d) ? -1 : pp_i64_from_double(d);
}

static int
oom(pp_load_reader *r, pp_error *err, int rc, size_t at)
{
    return pp_load_fail(r, err, rc, at,
                        rc == PP_ELIMIT ? "more statuses, scopes or thresholds "
                                          "than the reader keeps (docs/limits.md)" :
                                          "out of memory");
}

/* ---- wrk-json.lua ------------------------------------------------------- */

/* "3s", "1m", "500ms" as wrk takes -d: a number and an optional unit. */
static int64_t
duration_arg(const char *s)
{
    char *end;
    double v = s ? strtod(s, &end) : NAN;

    if (s == NULL || end == s || !isfinite(v))
        return -1;
    if (strcmp(end, "ms") == 0)
        v *= 1e6;
    else if (strcmp(end, "m") == 0)
        v *= 60e9;
    else if (strcmp(end, "h") == 0)
        v *= 3600e9;
    else if (*end == '\0' || strcmp(end, "s") == 0)
        v *= 1e9;
    else
        return -1;
    return pp_i64_from_double(v);
}

int
pp_load_wrk_json(pp_load_reader *r, const json_t *root, size_t at, pp_error *err)
{
    const json_t *lat = json_object_get(root, "latency_us"), *e = json_object_get(root, "errors");
    const char *key;
    json_t *v;
    load_entry *en;
    pp_load_result *x;
    const char *c = json_string_value(json_object_get(root, "arg_c"));
    const char *rate = json_string_value(json_object_get(root, "arg_rate"));
    int rc = PP_OK;

    r->tool = "wrk";
    r->format = "wrk-json";
    if (!json_is_object(lat) || !json_is_integer(json_object_get(root, "requests")) ||
        !json_is_integer(json_object_get(root, "duration_us")))
        return pp_load_fail(r, err, PP_EFORMAT, at,
                            "wrk-json: expected wrk-json.lua's object "
                            "with \"requests\", \"duration_us\" and \"latency_us\"");
    if (r->nentries == 0 && pp_load_entry(r, "") == NULL)
        return oom(r, err, PP_ENOMEM, at);
    en = r->entries[0];
    x = &en->res;
    x->flags = rate != NULL ? PP_LOAD_FIXED_RATE : PP_LOAD_CLOSED_LOOP;
    if (rate != NULL)
        r->tool = "wrk2";
    x->requests = count_of(json_object_get(root, "requests"));
    x->duration_ns = pp_i64_from_double(pp_load_json_num(json_object_get(root, "duration_us")) *
                                        1e3);
    x->rps = x->duration_ns > 0 ? (double)x->requests / ((double)x->duration_ns / 1e9) : NAN;
    x->lat_min_ns = pp_load_json_num(json_object_get(lat, "min")) * 1e3;
    x->lat_max_ns = pp_load_json_num(json_object_get(lat, "max")) * 1e3;
    x->lat_mean_ns = pp_load_json_num(json_object_get(lat, "mean")) * 1e3;
    x->lat_stdev_ns = pp_load_json_num(json_object_get(lat, "stdev")) * 1e3;
    x->lat_p50_ns = pp_load_json_num(json_object_get(lat, "p50")) * 1e3;
    x->lat_p75_ns = pp_load_json_num(json_object_get(lat, "p75")) * 1e3;
    x->lat_p90_ns = pp_load_json_num(json_object_get(lat, "p90")) * 1e3;
    x->lat_p95_ns = pp_load_json_num(json_object_get(lat, "p95")) * 1e3;
    x->lat_p99_ns = pp_load_json_num(json_object_get(lat, "p99")) * 1e3;
    x->latency_samples = count_of(json_object_get(lat, "samples"));
    if (json_is_string(json_object_get(root, "url")) &&
        (x->url = pp_load_str(r, json_string_value(json_object_get(root, "url")), (size_t)-1)) ==
            NULL)
        return oom(r, err, PP_ENOMEM, at);
    x->method = "GET";
    x->threads = count_of(json_object_get(root, "threads"));
    x->connections = c != NULL ? atoll(c) : -1;
    x->target_duration_ns = duration_arg(json_string_value(json_object_get(root, "arg_d")));
    x->rate_per_s = rate != NULL ? strtod(rate, NULL) : NAN;
    x->errors = 0;
    json_object_foreach((json_t *)e, key, v) {
        int64_t n = count_of(v);

        if (n < 0)
            continue;
        x->errors = pp_i64_add_sat(x->errors, n);
        if (n > 0 && strcmp(key, "status") != 0)
            rc = rc ? rc : pp_load_add_error_kind(r, en, key, n);
    }
    json_object_foreach(json_object_get(root, "status_codes"), key, v)
        if (rc == PP_OK)
            rc = pp_load_add_status(r, en, key, count_of(v));
    return rc == PP_OK ? PP_OK : oom(r, err, rc, at);
}

/* ---- bombardier --------------------------------------------------------- */

static int
bombardier(pp_load_reader *r, const json_t *root, size_t at, pp_error *err)
{
    static const char *const classes[] = { "req1xx", "req2xx", "req3xx",
                                           "req4xx", "req5xx", "others" };
    const json_t *spec = json_object_get(root, "spec"), *res = json_object_get(root, "result");
    const json_t *lat = json_object_get(res, "latency"), *pct = json_object_get(lat, "percentiles");
    const json_t *ev;
    load_entry *en = pp_load_entry(r, "");
    pp_load_result *x;
    size_t i;
    int rc = PP_OK;
    double secs = pp_load_json_num(json_object_get(res, "timeTakenSeconds"));

    r->tool = "bombardier";
    r->format = "bombardier-json";
    if (en == NULL)
        return oom(r, err, PP_ENOMEM, at);
    x = &en->res;
    x->requests = 0;
    x->errors = 0;
    for (int k = 0; k < 6 && rc == PP_OK; k++) {
        int64_t n = count_of(json_object_get(res, classes[k]));
        char name[8];

        if (n < 0)
            continue;
        x->requests = pp_i64_add_sat(x->requests, n);
        if (k >= 3)
            x->errors = pp_i64_add_sat(x->errors, n);
        snprintf(name, sizeof name, k < 5 ? "%dxx" : "other", k + 1);
        if (n > 0)
            rc = pp_load_add_status(r, en, name, n);
    }
    json_array_foreach(json_object_get(res, "errors"), i, ev) {
        int64_t n = count_of(json_object_get(ev, "count"));
        const char *d = json_string_value(json_object_get(ev, "description"));

        if (n <= 0 || rc != PP_OK)
            continue;
        x->requests = pp_i64_add_sat(x->requests, n);
        x->errors = pp_i64_add_sat(x->errors, n);
        rc = pp_load_add_error_kind(r, en, d ? d : "error", n);
    }
    if (rc != PP_OK)
        return oom(r, err, rc, at);
    x->duration_ns = isnan(secs) ? -1 : pp_i64_from_double(secs * 1e9);
    x->rps = pp_load_json_num(json_object_get(json_object_get(res, "rps"), "mean"));
    /* bombardier's latencies are microseconds. */
    x->lat_mean_ns = pp_load_json_num(json_object_get(lat, "mean")) * 1e3;
    x->lat_stdev_ns = pp_load_json_num(json_object_get(lat, "stddev")) * 1e3;
    x->lat_max_ns = pp_load_json_num(json_object_get(lat, "max")) * 1e3;
    x->lat_p50_ns = pp_load_json_num(json_object_get(pct, "50")) * 1e3;
    x->lat_p75_ns = pp_load_json_num(json_object_get(pct, "75")) * 1e3;
    x->lat_p90_ns = pp_load_json_num(json_object_get(pct, "90")) * 1e3;
    x->lat_p95_ns = pp_load_json_num(json_object_get(pct, "95")) * 1e3;
    x->lat_p99_ns = pp_load_json_num(json_object_get(pct, "99")) * 1e3;
    x->connections = count_of(json_object_get(spec, "numberOfConnections"));
    x->target_requests = count_of(json_object_get(spec, "numberOfRequests"));
    secs = pp_load_json_num(json_object_get(spec, "testDurationSeconds"));
    x->target_duration_ns = isnan(secs) ? -1 : pp_i64_from_double(secs * 1e9);
    x->rate_per_s = pp_load_json_num(json_object_get(spec, "rate"));
    x->flags = isnan(x->rate_per_s) ? PP_LOAD_CLOSED_LOOP : PP_LOAD_FIXED_RATE;
    if (json_is_string(json_object_get(spec, "url")) &&
        (x->url = pp_load_str(r, json_string_value(json_object_get(spec, "url")), (size_t)-1)) ==
            NULL)
        return oom(r, err, PP_ENOMEM, at);
    if (json_is_string(json_object_get(spec, "method")) &&
        (x->method = pp_load_str(r, json_string_value(json_object_get(spec, "method")),
                                 (size_t)-1)) == NULL)
        return oom(r, err, PP_ENOMEM, at);
    return PP_OK;
}

/* ---- vegeta ------------------------------------------------------------- */

static int
vegeta(pp_load_reader *r, const json_t *root, size_t at, pp_error *err)
{
    const json_t *lat = json_object_get(root, "latencies");
    load_entry *en = pp_load_entry(r, "");
    pp_load_result *x;
    const char *key;
    json_t *v;
    int rc = PP_OK;
    double success = pp_load_json_num(json_object_get(root, "success"));
    int64_t d = count_of(json_object_get(root, "duration")),
            wait = count_of(json_object_get(root, "wait"));

    r->tool = "vegeta";
    r->format = "vegeta-json";
    if (en == NULL)
        return oom(r, err, PP_ENOMEM, at);
    x = &en->res;
    x->flags = PP_LOAD_FIXED_RATE;
    x->requests = count_of(json_object_get(root, "requests"));
    /* vegeta's success is the ratio of 2xx/3xx answers; the rest failed. */
    if (x->requests >= 0 && success >= 0 && success <= 1)
        x->errors = x->requests - pp_i64_from_double(round(success * (double)x->requests));
    x->duration_ns = d < 0 ? -1 : pp_i64_add_sat(d, wait > 0 ? wait : 0);
    x->rps = pp_load_json_num(json_object_get(root, "throughput"));
    /* vegeta's latencies are nanoseconds. */
    x->lat_mean_ns = pp_load_json_num(json_object_get(lat, "mean"));
    x->lat_min_ns = pp_load_json_num(json_object_get(lat, "min"));
    x->lat_max_ns = pp_load_json_num(json_object_get(lat, "max"));
    x->lat_p50_ns = pp_load_json_num(json_object_get(lat, "50th"));
    x->lat_p90_ns = pp_load_json_num(json_object_get(lat, "90th"));
    x->lat_p95_ns = pp_load_json_num(json_object_get(lat, "95th"));
    x->lat_p99_ns = pp_load_json_num(json_object_get(lat, "99th"));
    json_object_foreach((json_t *)json_object_get(root, "status_codes"), key, v)
        if (rc == PP_OK)
            rc = pp_load_add_status(r, en, key, count_of(v));
    /* vegeta's "errors" lists distinct messages without counts; the
     * failures are counted by status ("0": no response), so they are not
     * repeated as error kinds. */
    return rc == PP_OK ? PP_OK : oom(r, err, rc, at);
}

/* ---- oha ----------------------------------------------------------------- */

/* oha's JSON (its schema.json): seconds everywhere; the requests are what
 * statusCodeDistribution and errorDistribution (transport errors, by
 * message) count. It names no knob (connections, URL, rate) and not
 * whether -q set a rate, so the loop is left unknown. */
static int
oha(pp_load_reader *r, const json_t *root, size_t at, pp_error *err)
{
    static const struct {
        const char *key;
        size_t off;
    } lat[] = {
        { "p50", offsetof(pp_load_result, lat_p50_ns) },
        { "p75", offsetof(pp_load_result, lat_p75_ns) },
        { "p90", offsetof(pp_load_result, lat_p90_ns) },
        { "p95", offsetof(pp_load_result, lat_p95_ns) },
        { "p99", offsetof(pp_load_result, lat_p99_ns) },
    };
    const json_t *sum = json_object_get(root, "summary"), *pct;
    load_entry *en = pp_load_entry(r, "");
    pp_load_result *x;
    const char *key;
    json_t *v;
    int rc = PP_OK;
    double secs = pp_load_json_num(json_object_get(sum, "total"));

    r->tool = "oha";
    r->format = "oha-json";
    if (en == NULL)
        return oom(r, err, PP_ENOMEM, at);
    x = &en->res;
    x->requests = 0;
    x->errors = 0;
    json_object_foreach((json_t *)json_object_get(root, "statusCodeDistribution"), key, v) {
        int64_t n = count_of(v);

        if (n < 0 || rc != PP_OK)
            continue;
        x->requests = pp_i64_add_sat(x->requests, n);
        if (atoi(key) >= 400)
            x->errors = pp_i64_add_sat(x->errors, n);
        rc = pp_load_add_status(r, en, key, n);
    }
    json_object_foreach((json_t *)json_object_get(root, "errorDistribution"), key, v) {
        int64_t n = count_of(v);

        if (n <= 0 || rc != PP_OK)
            continue;
        x->requests = pp_i64_add_sat(x->requests, n);
        x->errors = pp_i64_add_sat(x->errors, n);
        rc = pp_load_add_error_kind(r, en, key, n);
    }
    if (rc != PP_OK)
        return oom(r, err, rc, at);
    x->duration_ns = isnan(secs) ? -1 : pp_i64_from_double(secs * 1e9);
    x->rps = pp_load_json_num(json_object_get(sum, "requestsPerSec"));
    x->lat_mean_ns = pp_load_json_num(json_object_get(sum, "average")) * 1e9;
    x->lat_min_ns = pp_load_json_num(json_object_get(sum, "fastest")) * 1e9;
    x->lat_max_ns = pp_load_json_num(json_object_get(sum, "slowest")) * 1e9;
    pct = json_object_get(root, "latencyPercentiles");
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++)
        *(double *)((char *)x + lat[i].off) = pp_load_json_num(json_object_get(pct, lat[i].key)) *
                                              1e9;
    return PP_OK;
}

/* ---- k6 summary --------------------------------------------------------- */

/* A metric's figures: handleSummary nests them under "values", the legacy
 * --summary-export has them on the metric itself. */
static const json_t *
k6_values(const json_t *metric, int legacy)
{
    return legacy ? metric : json_object_get(metric, "values");
}

/* "http_req_duration{name:/x}" -> scope "tag:name=/x"; NULL for the plain metric. */
static const char *
k6_scope(pp_load_reader *r, const char *key, size_t base, char *buf, size_t size)
{
    const char *colon;
    size_t n = strlen(key);

    (void)r;
    if (key[base] != '{' || n < base + 2 || key[n - 1] != '}')
        return NULL;
    colon = memchr(key + base + 1, ':', n - base - 2);
    if (colon == NULL)
        snprintf(buf, size, "tag:%.*s", (int)(n - base - 2), key + base + 1);
    else
        snprintf(buf, size, "tag:%.*s=%.*s", (int)(colon - key - base - 1), key + base + 1,
                 (int)(key + n - 1 - colon - 1), colon + 1);
    return buf;
}

static void
k6_trend(pp_load_result *x, const json_t *v)
{
    /* k6's trends of times are milliseconds. */
    x->lat_mean_ns = pp_load_json_num(json_object_get(v, "avg")) * 1e6;
    x->lat_min_ns = pp_load_json_num(json_object_get(v, "min")) * 1e6;
    x->lat_max_ns = pp_load_json_num(json_object_get(v, "max")) * 1e6;
    x->lat_p50_ns = pp_load_json_num(json_object_get(v, "med")) * 1e6;
    x->lat_p75_ns = pp_load_json_num(json_object_get(v, "p(75)")) * 1e6;
    x->lat_p90_ns = pp_load_json_num(json_object_get(v, "p(90)")) * 1e6;
    x->lat_p95_ns = pp_load_json_num(json_object_get(v, "p(95)")) * 1e6;
    x->lat_p99_ns = pp_load_json_num(json_object_get(v, "p(99)")) * 1e6;
}

/* A metric's thresholds: legacy {"expr": failed?}; handleSummary {"expr": {"ok": passed?}}. */
static int
k6_thresholds(pp_load_reader *r, load_entry *run, const char *metric, const json_t *m, int legacy)
{
    const char *expr;
    json_t *t;
    int rc = PP_OK;

    json_object_foreach(json_object_get(m, "thresholds"), expr, t) {
        int failed = legacy ? json_is_true(t) : json_is_false(json_object_get(t, "ok"));

        if (rc == PP_OK &&
            (legacy ? json_is_boolean(t) : json_is_boolean(json_object_get(t, "ok"))))
            rc = pp_load_add_threshold(r, run, metric, expr, failed);
    }
    return rc;
}

/* One metric of the summary into its scope's entry. */
static int
k6_metric(pp_load_reader *r, const char *key, const json_t *m, int legacy)
{
    static const char *const names[] = { "http_req_duration", "http_reqs", "http_req_failed",
                                         "vus_max", "dropped_iterations" };
    const json_t *v = k6_values(m, legacy);
    load_entry *run = r->entries[0], *e = run;
    char buf[512];
    int which = -1, rc;

    for (int k = 0; k < 5 && which < 0; k++) {
        size_t n = strlen(names[k]);

        if (strncmp(key, names[k], n) == 0 && (key[n] == '\0' || key[n] == '{')) {
            which = k;
            if (key[n] == '{') {
                const char *scope = k6_scope(r, key, n, buf, sizeof buf);

                if (scope == NULL || (e = pp_load_scope(r, scope)) == NULL)
                    return scope == NULL ? PP_OK : PP_ENOMEM;
            }
        }
    }
    if ((rc = k6_thresholds(r, run, key, m, legacy)) != PP_OK)
        return rc;
    switch (which) {
    case 0: k6_trend(&e->res, v); break;
    case 1:
        e->res.requests = count_of(json_object_get(v, "count"));
        e->res.rps = pp_load_json_num(json_object_get(v, "rate"));
        break;
    case 2:
        /* A k6 Rate counts its non-zero values as "passes": here, failures. */
        e->res.errors = count_of(json_object_get(v, "passes"));
        break;
    case 3:
        /* vus_max is a gauge: its value (and max) is the VUs k6 allocated. */
        e->res.connections = count_of(json_object_get(v, "max"));
        if (e->res.connections < 0)
            e->res.connections = count_of(json_object_get(v, "value"));
        break;
    case 4: run->res.flags |= PP_LOAD_FIXED_RATE; break;
    default: break;
    }
    return PP_OK;
}

static int
k6_summary(pp_load_reader *r, const json_t *root, size_t at, pp_error *err)
{
    const json_t *metrics = json_object_get(root, "metrics");
    const char *key;
    json_t *m;
    int legacy = 1, rc = PP_OK;
    double ms = pp_load_json_num(
        json_object_get(json_object_get(root, "state"), "testRunDurationMs"));

    json_object_foreach((json_t *)metrics, key, m)
        if (json_is_object(json_object_get(m, "values")))
            legacy = 0;
    r->tool = "k6";
    r->format = legacy ? "k6-summary-export" : "k6-summary";
    if (pp_load_entry(r, "") == NULL)
        return oom(r, err, PP_ENOMEM, at);
    if (!json_is_object(json_object_get(metrics, "http_req_duration")))
        return pp_load_fail(r, err, PP_EFORMAT, at,
                            "k6 summary without an http_req_duration "
                            "metric: perfpipe reads HTTP load tests");
    json_object_foreach((json_t *)metrics, key, m)
        if (rc == PP_OK && json_is_object(m))
            rc = k6_metric(r, key, m, legacy);
    if (rc != PP_OK)
        return oom(r, err, rc, at);
    if (!isnan(ms))
        r->entries[0]->res.duration_ns = pp_i64_from_double(ms * 1e6);
    /* A summary without http_reqs still counts the trend's values. */
    if (r->entries[0]->res.requests < 0)
        r->entries[0]->res.requests = count_of(json_object_get(
            k6_values(json_object_get(metrics, "http_req_duration"), legacy), "count"));
    return PP_OK;
}

int
pp_load_json(pp_load_reader *r, size_t start, pp_error *err)
{
    json_error_t je;
    json_t *root;
    int rc;

    /* A summary is kilobytes; a huge document of tiny values would cost
     * jansson ~25x its size. */
    if (r->len - start > PP_LOAD_MAX_DOCUMENT)
        return pp_load_fail(r, err, PP_ELIMIT, start,
                            "a JSON document of %zu bytes, more than "
                            "the limit %u for a load tool's summary",
                            r->len - start, PP_LOAD_MAX_DOCUMENT);
    root = json_loadb(r->buf + start, r->len - start, 0, &je);
    if (root == NULL) {
        size_t at = start + (je.position > 0 ? (size_t)je.position : 0);

        if (at >= r->len)
            return pp_load_fail(r, err, PP_EFORMAT, r->len,
                                "the JSON document ends at byte %zu "
                                "before it closes (a cut file: one document cannot be read in "
                                "part): %s",
                                r->len, je.text);
        return pp_load_fail(r, err, PP_EFORMAT, at, "%s", je.text);
    }
    if (json_is_object(json_object_get(root, "spec")) &&
        json_is_object(json_object_get(root, "result")))
        rc = bombardier(r, root, start, err);
    else if (json_is_object(json_object_get(root, "latencies")) &&
             json_object_get(root, "requests") != NULL)
        rc = vegeta(r, root, start, err);
    else if (json_is_object(json_object_get(root, "metrics")) &&
             json_object_get(json_object_get(root, "metrics"), "http_req_duration") != NULL)
        rc = k6_summary(r, root, start, err);
    else if (json_is_object(json_object_get(root, "latency_us")))
        rc = pp_load_wrk_json(r, root, start, err);
    else if (json_is_object(json_object_get(root, "summary")) &&
             json_object_get(root, "latencyPercentiles") != NULL)
        rc = oha(r, root, start, err);
    else
        rc = pp_load_fail(r, err, PP_EFORMAT, start,
                          "a JSON object of no load tool perfpipe "
                          "reads: expected k6's summary (\"metrics\" with http_req_duration), "
                          "bombardier's (\"spec\", \"result\"), vegeta's (\"latencies\", "
                          "\"requests\"), oha's (\"summary\", \"latencyPercentiles\") or "
                          "wrk-json.lua's (\"latency_us\")");
    json_decref(root);
    return rc;
}
