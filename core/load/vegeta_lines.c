/* vegeta's results as `vegeta encode --to json` writes them: one JSON object
 * a line per request (tsenart/vegeta lib/results.go: attack, seq, code,
 * timestamp, latency in ns, bytes_out, bytes_in, error, body; method and url
 * in later versions). Every line is a latency sample and a request by its
 * status code ("0": no response, as vegeta's report counts it); a request
 * failed when vegeta would not count it a success (no 2xx/3xx code), and its
 * error string is an error kind. The run lasts from the first request sent
 * to the last answer (vegeta's attack + wait); vegeta attacks at a fixed
 * rate. A cut last line is dropped and flagged. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"

typedef struct vg_walk {
    int64_t first_ns, end_ns; /* -1 before the first timed line */
    uint64_t urls;            /* lines that named a URL */
} vg_walk;

/* One request into the run and its URL's scope. */
static int
vg_request(pp_load_reader *r, void *ctx, const json_t *line)
{
    vg_walk *w = ctx;
    const char *url = json_string_value(json_object_get(line, "url"));
    const char *error = json_string_value(json_object_get(line, "error"));
    double lat = pp_load_json_num(json_object_get(line, "latency"));
    double code = pp_load_json_num(json_object_get(line, "code"));
    load_entry *e[2] = { r->entries[0], NULL };
    char scope[512], status[16];
    int64_t t;
    int rc = PP_OK;

    if (isnan(lat) || lat < 0 || isnan(code) || code < 0 || code > 999)
        return PP_EFORMAT;
    if (pp_load_rfc3339_ns(json_string_value(json_object_get(line, "timestamp")), &t)) {
        if (w->first_ns < 0 || t < w->first_ns)
            w->first_ns = t;
        if (t + (int64_t)lat > w->end_ns)
            w->end_ns = t + (int64_t)lat;
    }
    if (url != NULL && url[0] != '\0') {
        /* the run's url knob: its one URL, or none when the lines have several */
        if (w->urls == 0 && (e[0]->res.url = pp_load_str(r, url, (size_t)-1)) == NULL)
            return PP_ENOMEM;
        if (w->urls++ > 0 && strcmp(e[0]->res.url, url) != 0)
            e[0]->res.url = "";
        snprintf(scope, sizeof scope, "url=%s", url);
        if ((e[1] = pp_load_scope(r, scope)) == NULL)
            return PP_ENOMEM;
    }
    snprintf(status, sizeof status, "%d", (int)code);
    for (int k = 0; k < 2 && e[k] != NULL && rc == PP_OK; k++) {
        pp_load_result *x = &e[k]->res;
        int failed = code < 200 || code >= 400;

        x->requests = x->requests < 0 ? 1 : x->requests + 1;
        x->errors = (x->errors < 0 ? 0 : x->errors) + failed;
        rc = pp_load_add_sample(e[k], lat);
        if (rc == PP_OK)
            rc = pp_load_add_status(r, e[k], status, 1);
        if (rc == PP_OK && error != NULL && error[0] != '\0')
            rc = pp_load_add_error_kind(r, e[k], error, 1);
    }
    return rc;
}

int
pp_load_vegeta_lines(pp_load_reader *r, pp_error *err)
{
    vg_walk w = { -1, -1, 0 };
    load_entry *run;
    int rc;

    r->tool = "vegeta";
    r->format = "vegeta-lines";
    if ((run = pp_load_entry(r, "")) == NULL)
        return pp_load_fail(r, err, PP_ENOMEM, 0, "out of memory");
    rc = pp_load_json_lines(r, "vegeta encode --to json",
                            "expected {\"code\": STATUS, \"timestamp\": RFC3339, "
                            "\"latency\": NS, ...}",
                            vg_request, &w, err);
    if (rc != PP_OK)
        return rc;
    run->res.flags |= PP_LOAD_FIXED_RATE;
    if (run->res.requests < 0)
        run->res.requests = 0;
    if (run->res.errors < 0)
        run->res.errors = 0;
    if (w.first_ns >= 0 && w.end_ns > w.first_ns) {
        run->res.duration_ns = w.end_ns - w.first_ns;
        run->res.rps = (double)run->res.requests / ((double)run->res.duration_ns / 1e9);
    }
    for (size_t i = 0; i < r->nentries; i++) {
        r->entries[i]->res.flags |= PP_LOAD_FIXED_RATE;
        pp_load_from_samples(r->entries[i]);
    }
    return PP_OK;
}
