/* k6's `--out json` stream: one JSON object a line, "Metric" lines that
 * declare a metric and "Point" lines that carry one value with its time and
 * tags. The HTTP points are aggregated here: every http_req_duration point
 * is a latency sample (of the run and of its URL, k6's "name" tag), every
 * http_reqs point a request with its "status" tag, every non-zero
 * http_req_failed point a failure. A cut last line is dropped and flagged. */
#define _GNU_SOURCE 1 /* timegm */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"

int
pp_load_rfc3339_ns(const char *s, int64_t *ns)
{
    struct tm tm;
    int y, mo, d, h, mi, sec, n = 0, oh = 0, om = 0, digits = 0;
    int64_t frac = 0, sign = 0, secs;
    const char *p;

    if (s == NULL || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6)
        return 0;
    p = s + n;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            if (digits++ < 9)
                frac = frac * 10 + (*p - '0');
    for (; digits < 9; digits++)
        frac *= 10;
    if (*p == '+' || *p == '-') {
        sign = *p == '+' ? 1 : -1;
        if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2)
            return 0;
    } else if (*p != 'Z') {
        return 0;
    }
    memset(&tm, 0, sizeof tm);
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    secs = (int64_t)timegm(&tm) - sign * (oh * 3600 + om * 60);
    if (secs < 0 || secs > INT64_C(9000000000))
        return 0;
    *ns = secs * INT64_C(1000000000) + frac;
    return 1;
}

typedef struct k6_walk {
    int64_t first_ns, last_ns; /* -1 before the first timed point */
    int64_t requests, failed;
} k6_walk;

static int
k6_point(pp_load_reader *r, k6_walk *w, const char *metric, const json_t *data)
{
    const json_t *tags = json_object_get(data, "tags");
    const char *name = json_string_value(json_object_get(tags, "name"));
    double value = pp_load_json_num(json_object_get(data, "value"));
    int64_t t;
    load_entry *run = r->entries[0], *url = NULL;
    char scope[512];
    int rc = PP_OK;

    if (isnan(value))
        return PP_EFORMAT;
    if (pp_load_rfc3339_ns(json_string_value(json_object_get(data, "time")), &t)) {
        if (w->first_ns < 0 || t < w->first_ns)
            w->first_ns = t;
        if (t > w->last_ns)
            w->last_ns = t;
    }
    if (name != NULL &&
        (strcmp(metric, "http_req_duration") == 0 || strcmp(metric, "http_reqs") == 0 ||
         strcmp(metric, "http_req_failed") == 0)) {
        snprintf(scope, sizeof scope, "url=%s", name);
        if ((url = pp_load_scope(r, scope)) == NULL)
            return PP_ENOMEM;
    }
    if (strcmp(metric, "http_req_duration") == 0) {
        rc = pp_load_add_sample(run, value * 1e6);
        if (rc == PP_OK && url != NULL)
            rc = pp_load_add_sample(url, value * 1e6);
    } else if (strcmp(metric, "http_reqs") == 0) {
        const char *status = json_string_value(json_object_get(tags, "status"));

        w->requests++;
        if (url != NULL)
            url->res.requests = url->res.requests < 0 ? 1 : url->res.requests + 1;
        if (status != NULL) {
            rc = pp_load_add_status(r, run, status, 1);
            if (rc == PP_OK && url != NULL)
                rc = pp_load_add_status(r, url, status, 1);
        }
    } else if (strcmp(metric, "http_req_failed") == 0 && value != 0) {
        w->failed++;
        if (url != NULL)
            url->res.errors = url->res.errors < 0 ? 1 : url->res.errors + 1;
    } else if (strcmp(metric, "vus") == 0 || strcmp(metric, "vus_max") == 0) {
        if (value > (double)run->res.connections)
            run->res.connections = pp_i64_from_double(value);
    } else if (strcmp(metric, "dropped_iterations") == 0) {
        run->res.flags |= PP_LOAD_FIXED_RATE;
    }
    return rc;
}

/* One line: a Point carries a value, a Metric only declares one. */
static int
k6_line(pp_load_reader *r, void *ctx, const json_t *line)
{
    const char *type = json_string_value(json_object_get(line, "type"));
    const char *metric = json_string_value(json_object_get(line, "metric"));

    if (type == NULL || metric == NULL)
        return PP_EFORMAT;
    return strcmp(type, "Point") == 0 ? k6_point(r, ctx, metric, json_object_get(line, "data")) :
                                        PP_OK;
}

int
pp_load_k6_stream(pp_load_reader *r, pp_error *err)
{
    k6_walk w = { -1, -1, 0, 0 };
    load_entry *run;
    int rc;

    r->tool = "k6";
    r->format = "k6-json";
    if ((run = pp_load_entry(r, "")) == NULL)
        return pp_load_fail(r, err, PP_ENOMEM, 0, "out of memory");
    rc = pp_load_json_lines(r, "k6 --out json",
                            "expected {\"type\": \"Metric\"|\"Point\", \"metric\": NAME, "
                            "\"data\": {\"time\", \"value\", \"tags\"}}",
                            k6_line, &w, err);
    if (rc != PP_OK)
        return rc;
    run->res.requests = w.requests;
    run->res.errors = w.failed;
    if (w.first_ns >= 0 && w.last_ns > w.first_ns) {
        run->res.duration_ns = w.last_ns - w.first_ns;
        run->res.rps = (double)w.requests / ((double)run->res.duration_ns / 1e9);
    }
    for (size_t i = 0; i < r->nentries; i++) {
        if (i > 0 && r->entries[i]->res.errors < 0 && r->entries[i]->res.requests >= 0)
            r->entries[i]->res.errors = 0;
        pp_load_from_samples(r->entries[i]);
    }
    return PP_OK;
}
