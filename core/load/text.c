/* The text reports: wrk's (and wrk2's) report, hey's summary and hey's
 * `-o csv` lines. Each is read line by line with the exact shapes the
 * tools print (wrk: src/wrk.c's print_stats; hey: its report template);
 * a line the walk does not know is skipped, a known line that does not
 * parse is an error at its position. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"

typedef struct line_cursor {
    const char *buf;
    size_t len, pos;
} line_cursor;

/* The next line as [*at, *at + *n) without its newline; 0 at the end.
 * *whole is 0 for a last line with no newline (a cut file). */
static int
next_line(line_cursor *c, size_t *at, size_t *n, int *whole)
{
    const char *nl;

    if (c->pos >= c->len)
        return 0;
    *at = c->pos;
    nl = memchr(c->buf + c->pos, '\n', c->len - c->pos);
    *whole = nl != NULL;
    *n = (nl != NULL ? (size_t)(nl - c->buf) : c->len) - c->pos;
    c->pos += *n + (nl != NULL);
    if (*n > 0 && c->buf[*at + *n - 1] == '\r')
        (*n)--;
    return 1;
}

static const char *
skip_blank(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A finite number at p (no hex, no inf/nan); *end past it. */
static int
number(const char *p, double *out, const char **end)
{
    char *e;

    if (!(isdigit((unsigned char)*p) || ((*p == '-' || *p == '.') && isdigit((unsigned char)p[1]))))
        return 0;
    *out = strtod(p, &e);
    *end = e;
    return e != p && isfinite(*out);
}

/* wrk's times: a number and a unit us, ms, s, m or h (format_time_us/_s). */
static int
time_ns(const char *p, double *ns, const char **end)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {
        { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
    };
    double v;

    if (!number(p, &v, &p))
        return 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t n = strlen(units[i].unit);

        if (strncmp(p, units[i].unit, n) == 0 && !isalpha((unsigned char)p[n])) {
            *ns = v * units[i].ns;
            *end = p + n;
            return 1;
        }
    }
    return 0;
}

static int
starts(const char *p, const char *word)
{
    return strncmp(p, word, strlen(word)) == 0;
}

typedef struct wrk_walk {
    int64_t non2xx, sock[4];
    int have_requests, have_rps, in_dist;
} wrk_walk;

static void
set_percentile(pp_load_result *x, double pct, double ns)
{
    if (pct == 50)
        x->lat_p50_ns = ns;
    else if (pct == 75)
        x->lat_p75_ns = ns;
    else if (pct == 90)
        x->lat_p90_ns = ns;
    else if (pct == 95)
        x->lat_p95_ns = ns;
    else if (pct == 99)
        x->lat_p99_ns = ns;
}

/* One line of wrk's report; 0 when it does not parse. */
static int
wrk_line(pp_load_reader *r, load_entry *e, wrk_walk *w, const char *s)
{
    pp_load_result *x = &e->res;
    const char *p = skip_blank(s);
    double a, b, c, pct;

    if (w->in_dist) {
        const char *q;

        if (number(p, &pct, &q) && *q == '%' && time_ns(skip_blank(q + 1), &a, &q)) {
            set_percentile(x, pct, a);
            return 1;
        }
        w->in_dist = 0;
    }
    if (starts(s, "Running ")) {
        const char *at = strstr(s, " test @ ");
        if (at == NULL || !time_ns(s + 8, &a, &p))
            return 0;
        x->target_duration_ns = pp_i64_from_double(a);
        x->url = pp_load_str(r, skip_blank(at + 8), strcspn(skip_blank(at + 8), " \t\r\n"));
        return x->url != NULL;
    }
    if (starts(p, "Latency Distribution")) {
        w->in_dist = 1;
        return 1;
    }
    if (starts(p, "Thread calibration:") || strstr(p, "HdrHistogram") != NULL) {
        r->tool = "wrk2";
        x->flags = PP_LOAD_FIXED_RATE;
        return 1;
    }
    if (starts(p, "Latency ")) {
        p = skip_blank(p + 8);
        if (!time_ns(p, &a, &p) || !time_ns(skip_blank(p), &b, &p) ||
            !time_ns(skip_blank(p), &c, &p))
            return 0;
        x->lat_mean_ns = a;
        x->lat_stdev_ns = b;
        x->lat_max_ns = c;
        return 1;
    }
    if (strstr(p, " threads and ") != NULL && strstr(p, " connections") != NULL) {
        if (!number(p, &a, &p) || !starts(p, " threads and ") || !number(p + 13, &b, &p) ||
            !starts(p, " connections"))
            return 0;
        x->threads = pp_i64_from_double(a);
        x->connections = pp_i64_from_double(b);
        return 1;
    }
    if (strstr(p, " requests in ") != NULL) {
        if (!number(p, &a, &p) || !starts(p, " requests in ") || !time_ns(p + 13, &b, &p))
            return 0;
        if (a < 0 || b < 0)
            return 0;
        x->requests = pp_i64_from_double(a);
        x->duration_ns = pp_i64_from_double(b);
        w->have_requests = 1;
        return 1;
    }
    if (starts(p, "Socket errors:")) {
        long long k[4];

        if (sscanf(p, "Socket errors: connect %lld, read %lld, write %lld, timeout %lld", &k[0],
                   &k[1], &k[2], &k[3]) != 4 ||
            k[0] < 0 || k[1] < 0 || k[2] < 0 || k[3] < 0)
            return 0;
        for (int i = 0; i < 4; i++)
            w->sock[i] = k[i];
        return 1;
    }
    if (starts(p, "Non-2xx or 3xx responses:")) {
        long long n;

        if (sscanf(p, "Non-2xx or 3xx responses: %lld", &n) != 1 || n < 0)
            return 0;
        w->non2xx = n;
        return 1;
    }
    if (starts(p, "Requests/sec:")) {
        if (!number(skip_blank(p + 13), &x->rps, &p))
            return 0;
        w->have_rps = 1;
    }
    return 1;
}

/* The counts wrk gives: only "non-2xx or 3xx" and the socket errors. */
static int
wrk_counts(pp_load_reader *r, load_entry *e, const wrk_walk *w)
{
    static const char *const kinds[] = { "connect", "read", "write", "timeout" };
    pp_load_result *x = &e->res;
    int64_t errors = w->non2xx;
    /* Both are >= 0 (wrk_line refuses negatives): no overflow. */
    int rc = pp_load_add_status(r, e, "2xx/3xx", x->requests - w->non2xx);

    if (rc == PP_OK && w->non2xx > 0)
        rc = pp_load_add_status(r, e, "non-2xx/3xx", w->non2xx);
    for (int k = 0; k < 4 && rc == PP_OK; k++) {
        errors = pp_i64_add_sat(errors, w->sock[k]);
        if (w->sock[k] > 0)
            rc = pp_load_add_error_kind(r, e, kinds[k], w->sock[k]);
    }
    x->errors = errors;
    return rc;
}

int
pp_load_wrk_text(pp_load_reader *r, pp_error *err)
{
    line_cursor c = { r->buf, r->len, 0 };
    wrk_walk w;
    load_entry *e;
    size_t at = 0, n;
    int whole = 1, rc;

    memset(&w, 0, sizeof w);
    r->tool = "wrk";
    r->format = "wrk-text";
    if ((e = pp_load_entry(r, "")) == NULL)
        return pp_load_fail(r, err, PP_ENOMEM, 0, "out of memory");
    e->res.flags = PP_LOAD_CLOSED_LOOP;
    e->res.method = "GET";
    while (next_line(&c, &at, &n, &whole)) {
        char line[1024];

        if (r->buf[at] == '{') {
            /* wrk-json.lua printed its object after the report. */
            json_error_t je;
            json_t *root = json_loadb(r->buf + at, r->len - at, 0, &je);

            if (root == NULL)
                return pp_load_fail(r, err, PP_EFORMAT,
                                    at + (je.position > 0 ? (size_t)je.position : 0),
                                    "wrk-json.lua's object after the report: %s", je.text);
            rc = pp_load_wrk_json(r, root, at, err);
            json_decref(root);
            return rc;
        }
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1),
                 r->buf + at);
        if (!whole)
            break;
        if (!wrk_line(r, e, &w, line))
            return pp_load_fail(r, err, PP_EFORMAT, at,
                                "wrk report: this line does not parse "
                                "as wrk prints it: \"%.80s\"",
                                line);
    }
    if (!w.have_requests)
        return pp_load_fail(r, err, PP_EFORMAT, r->len,
                            "wrk report without its \"N requests "
                            "in T\" line (cut before the end of the run?)");
    if ((rc = wrk_counts(r, e, &w)) != PP_OK)
        return pp_load_fail(r, err, rc, at, "out of memory");
    if (!w.have_rps || !whole) {
        /* The error lines come after the request count: a cut may have
         * taken them, so the errors are not known. */
        pp_load_truncated(r, r->len, "the wrk report ends before its Requests/sec line");
        e->res.errors = -1;
    }
    return PP_OK;
}

/* ---- hey ---------------------------------------------------------------- */

typedef struct hey_walk {
    int section; /* 0 summary, 1 latency distribution, 2 status, 3 errors */
    int have_total, have_status;
    int64_t responses, failed;
} hey_walk;

static int
secs(const char *p, const char *label, double *ns)
{
    double v;

    p = skip_blank(p);
    if (!starts(p, label))
        return 0;
    if (!number(skip_blank(p + strlen(label)), &v, &p))
        return -1;
    *ns = v * 1e9;
    return 1;
}

static int
hey_line(pp_load_reader *r, load_entry *e, hey_walk *w, const char *s)
{
    pp_load_result *x = &e->res;
    const char *p = skip_blank(s);
    double v, pct;
    int got;

    if (starts(p, "Latency distribution:"))
        return (w->section = 1);
    if (starts(p, "Status code distribution:"))
        return (w->section = 2) != 0;
    if (starts(p, "Error distribution:"))
        return (w->section = 3) != 0;
    if (starts(p, "Details") || starts(p, "Response time histogram:"))
        return (w->section = 0) == 0;
    if (w->section == 1 && *p != '\0') {
        if (!number(p, &pct, &p) || !starts(p, "% in ") || !number(p + 5, &v, &p))
            return 0;
        set_percentile(x, pct, v * 1e9);
        return 1;
    }
    if (w->section == 2 && *p == '[') {
        long long code, count;
        char name[32];

        if (sscanf(p, "[%lld]\t%lld responses", &code, &count) != 2 &&
            sscanf(p, "[%lld] %lld responses", &code, &count) != 2)
            return 0;
        if (count < 0)
            return 0;
        snprintf(name, sizeof name, "%lld", code);
        w->responses = pp_i64_add_sat(w->responses, count);
        w->have_status = 1;
        if (code >= 400)
            w->failed = pp_i64_add_sat(w->failed, count);
        return pp_load_add_status(r, e, name, count) == PP_OK;
    }
    if (w->section == 3 && *p == '[') {
        long long count;
        const char *close = strchr(p, ']');

        if (sscanf(p, "[%lld]", &count) != 1 || close == NULL || count < 0)
            return 0;
        w->failed = pp_i64_add_sat(w->failed, count);
        w->responses = pp_i64_add_sat(w->responses, count);
        return pp_load_add_error_kind(r, e, skip_blank(close + 1), count) == PP_OK;
    }
    if (w->section != 0)
        return 1;
    if ((got = secs(p, "Total:", &v)) != 0) {
        x->duration_ns = pp_i64_from_double(v);
        w->have_total = 1;
    } else if ((got = secs(p, "Slowest:", &v)) != 0) {
        x->lat_max_ns = v;
    } else if ((got = secs(p, "Fastest:", &v)) != 0) {
        x->lat_min_ns = v;
    } else if ((got = secs(p, "Average:", &v)) != 0) {
        x->lat_mean_ns = v;
    } else if ((got = secs(p, "Requests/sec:", &v)) != 0) {
        x->rps = v / 1e9;
    }
    return got >= 0;
}

int
pp_load_hey_text(pp_load_reader *r, pp_error *err)
{
    line_cursor c = { r->buf, r->len, 0 };
    hey_walk w;
    load_entry *e;
    size_t at = 0, n;
    int whole = 1;

    memset(&w, 0, sizeof w);
    r->tool = "hey";
    r->format = "hey-text";
    if ((e = pp_load_entry(r, "")) == NULL)
        return pp_load_fail(r, err, PP_ENOMEM, 0, "out of memory");
    e->res.flags = PP_LOAD_CLOSED_LOOP;
    while (next_line(&c, &at, &n, &whole)) {
        char line[1024];

        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1),
                 r->buf + at);
        if (!whole)
            break;
        if (!hey_line(r, e, &w, line))
            return pp_load_fail(r, err, PP_EFORMAT, at,
                                "hey summary: this line does not parse "
                                "as hey prints it: \"%.80s\"",
                                line);
    }
    if (!w.have_total)
        return pp_load_fail(r, err, PP_EFORMAT, at, "hey summary without its \"Total:\" line");
    if (!w.have_status)
        pp_load_truncated(r, whole ? r->len : at,
                          "the hey summary ends before its status "
                          "code distribution");
    else {
        e->res.requests = w.responses;
        e->res.errors = w.failed;
    }
    return PP_OK;
}

/* hey -o csv: response-time,DNS+dialup,DNS,Request-write,Response-delay,
 * Response-read,status-code,offset (seconds; offset from the run's start). */
int
pp_load_hey_csv(pp_load_reader *r, pp_error *err)
{
    line_cursor c = { r->buf, r->len, 0 };
    load_entry *e;
    size_t at = 0, n;
    int whole = 1, first = 1, rc;
    double end = 0;
    int64_t rows = 0, failed = 0;

    r->tool = "hey";
    r->format = "hey-csv";
    if ((e = pp_load_entry(r, "")) == NULL)
        return pp_load_fail(r, err, PP_ENOMEM, 0, "out of memory");
    e->res.flags = PP_LOAD_CLOSED_LOOP;
    while (next_line(&c, &at, &n, &whole)) {
        double f[6], offset;
        long long code;
        char name[32], line[512];
        const char *p;

        if (first || n == 0) {
            first = 0;
            continue;
        }
        snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1),
                 r->buf + at);
        p = line;
        for (int k = 0; k < 6; k++)
            if (!number(p, &f[k], &p) || *p++ != ',')
                goto bad;
        if (sscanf(p, "%lld,", &code) != 1 || (p = strchr(p, ',')) == NULL ||
            !number(p + 1, &offset, &p) || *p != '\0')
            goto bad;
        if (!whole) {
            pp_load_truncated(r, at, "the last hey csv line has no newline");
            break;
        }
        snprintf(name, sizeof name, "%lld", code);
        if ((rc = pp_load_add_status(r, e, name, 1)) != PP_OK ||
            (rc = pp_load_add_sample(e, f[0] * 1e9)) != PP_OK)
            return pp_load_fail(r, err, rc, at,
                                rc == PP_ELIMIT ? "too many requests or "
                                                  "statuses (docs/limits.md)" :
                                                  "out of memory");
        rows++;
        failed += code >= 400 || code == 0;
        if (offset + f[0] > end)
            end = offset + f[0];
        continue;
    bad:
        if (!whole) {
            pp_load_truncated(r, at, "the last hey csv line is cut");
            break;
        }
        return pp_load_fail(r, err, PP_EFORMAT, at,
                            "hey csv: expected 6 numbers, a status "
                            "code and an offset (response-time,...,status-code,offset)");
    }
    e->res.requests = rows;
    e->res.errors = failed;
    /* The run's length as the requests show it (hey's own Total also counts
     * its start-up: the two differ by a few ms). */
    e->res.duration_ns = pp_i64_from_double(end * 1e9);
    e->res.rps = end > 0 ? (double)rows / end : NAN;
    pp_load_from_samples(e);
    return PP_OK;
}
