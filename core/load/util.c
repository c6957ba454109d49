/* Helpers of core/load's reader, below reader.c and the format walks (which
 * all use them): positioned messages, owned strings, results and their
 * counts, and figures from a sample. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"
#include "base/textfile.h"

int
pp_load_fail(pp_load_reader *r, pp_error *err, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    r->failed = pp_textfile_vfail(&r->failure, err, code, r->name, r->buf, r->len, offset, fmt, ap);
    va_end(ap);
    return code;
}

void
pp_load_truncated(pp_load_reader *r, size_t offset, const char *what)
{
    r->truncated_at = (int64_t)offset;
    r->has_warning = 1;
    pp_textfile_truncated(&r->warning, r->name, r->buf, r->len, offset, ": %s", what);
}

const char *
pp_load_str(pp_load_reader *r, const char *s, size_t n)
{
    char *c;

    if (s == NULL)
        s = "";
    if (n == (size_t)-1)
        n = strlen(s);
    if (r->nstrings == r->strings_cap) {
        size_t cap = r->strings_cap ? 2 * r->strings_cap : 16;
        char **g = realloc(r->strings, cap * sizeof *g);

        if (g == NULL)
            return NULL;
        r->strings = g;
        r->strings_cap = cap;
    }
    if ((c = strndup(s, n)) == NULL)
        return NULL;
    r->strings[r->nstrings++] = c;
    return c;
}

load_entry *
pp_load_entry(pp_load_reader *r, const char *scope)
{
    load_entry *e;
    pp_load_result *x;

    if (r->nentries >= PP_LOAD_MAX_SCOPES)
        return NULL;
    if (r->nentries == r->entries_cap) {
        size_t cap = r->entries_cap ? 2 * r->entries_cap : 8;
        load_entry **g = realloc(r->entries, cap * sizeof *g);

        if (g == NULL)
            return NULL;
        r->entries = g;
        r->entries_cap = cap;
    }
    if ((e = calloc(1, sizeof *e)) == NULL)
        return NULL;
    x = &e->res;
    x->struct_size = sizeof *x;
    x->tool = x->tool_version = x->format = x->url = x->method = "";
    x->scope = pp_load_str(r, scope, (size_t)-1);
    if (x->scope == NULL) {
        free(e);
        return NULL;
    }
    x->requests = x->errors = x->duration_ns = -1;
    x->connections = x->threads = x->target_requests = x->target_duration_ns = -1;
    x->latency_samples = -1;
    x->rps = x->rate_per_s = NAN;
    x->lat_mean_ns = x->lat_stdev_ns = x->lat_min_ns = x->lat_max_ns = NAN;
    x->lat_p50_ns = x->lat_p75_ns = x->lat_p90_ns = x->lat_p95_ns = x->lat_p99_ns = NAN;
    r->entries[r->nentries++] = e;
    return e;
}

load_entry *
pp_load_scope(pp_load_reader *r, const char *scope)
{
    for (size_t i = 0; i < r->nentries; i++)
        if (strcmp(r->entries[i]->res.scope, scope) == 0)
            return r->entries[i];
    return pp_load_entry(r, scope);
}

static int
add_count(pp_load_reader *r, pp_load_count **arr, uint32_t *n, uint32_t *cap, const char *name,
          int64_t count)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp((*arr)[i].name, name) == 0) {
            (*arr)[i].count = pp_i64_add_sat((*arr)[i].count, count);
            return PP_OK;
        }
    if (*n >= PP_LOAD_MAX_COUNTS)
        return PP_ELIMIT;
    if (*n == *cap) {
        uint32_t c = *cap ? 2 * *cap : 8;
        pp_load_count *g = realloc(*arr, c * sizeof *g);

        if (g == NULL)
            return PP_ENOMEM;
        *arr = g;
        *cap = c;
    }
    if (((*arr)[*n].name = pp_load_str(r, name, (size_t)-1)) == NULL)
        return PP_ENOMEM;
    (*arr)[(*n)++].count = count;
    return PP_OK;
}

int
pp_load_add_status(pp_load_reader *r, load_entry *e, const char *name, int64_t count)
{
    int rc = add_count(r, &e->st, &e->res.status_count, &e->st_cap, name, count);

    e->res.statuses = e->st;
    return rc;
}

int
pp_load_add_error_kind(pp_load_reader *r, load_entry *e, const char *name, int64_t count)
{
    int rc = add_count(r, &e->ek, &e->res.error_kind_count, &e->ek_cap, name, count);

    e->res.error_kinds = e->ek;
    return rc;
}

int
pp_load_add_threshold(pp_load_reader *r, load_entry *e, const char *metric, const char *expr,
                      int failed)
{
    pp_load_threshold *t;

    if (e->res.threshold_count >= PP_LOAD_MAX_COUNTS)
        return PP_ELIMIT;
    if (e->res.threshold_count == e->th_cap) {
        uint32_t c = e->th_cap ? 2 * e->th_cap : 4;
        pp_load_threshold *g = realloc(e->th, c * sizeof *g);

        if (g == NULL)
            return PP_ENOMEM;
        e->th = g;
        e->th_cap = c;
    }
    t = &e->th[e->res.threshold_count];
    t->metric = pp_load_str(r, metric, (size_t)-1);
    t->expr = pp_load_str(r, expr, (size_t)-1);
    if (t->metric == NULL || t->expr == NULL)
        return PP_ENOMEM;
    t->failed = failed ? 1u : 0u;
    t->reserved = 0;
    e->res.threshold_count++;
    e->res.thresholds = e->th;
    return PP_OK;
}

int
pp_load_add_sample(load_entry *e, double ns)
{
    if (e->res.sample_count >= PP_LOAD_MAX_SAMPLES)
        return PP_ELIMIT;
    if (e->res.sample_count == e->samples_cap) {
        uint32_t c = e->samples_cap ? 2 * e->samples_cap : 256;
        double *g = realloc(e->samples, c * sizeof *g);

        if (g == NULL)
            return PP_ENOMEM;
        e->samples = g;
        e->samples_cap = c;
    }
    e->samples[e->res.sample_count++] = ns;
    e->res.samples_ns = e->samples;
    return PP_OK;
}

static int
by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

double
pp_load_sample_percentile(load_entry *e, double p)
{
    uint32_t n = e->res.sample_count;
    double rank;
    size_t i;

    if (n == 0)
        return NAN;
    qsort(e->samples, n, sizeof *e->samples, by_value);
    /* Nearest rank: the smallest value with at least p % of the sample at
     * or below it (what hey and k6's "p(N)" approximate). */
    rank = ceil(p / 100.0 * n);
    i = rank < 1 ? 0 : (size_t)rank - 1;
    return e->samples[i < n ? i : n - 1];
}

void
pp_load_from_samples(load_entry *e)
{
    pp_load_result *x = &e->res;
    uint32_t n = x->sample_count;
    double sum = 0, sq = 0, mean;

    if (n == 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        sum += e->samples[i];
    mean = sum / n;
    for (uint32_t i = 0; i < n; i++)
        sq += (e->samples[i] - mean) * (e->samples[i] - mean);
    if (isnan(x->lat_mean_ns))
        x->lat_mean_ns = mean;
    if (isnan(x->lat_stdev_ns))
        x->lat_stdev_ns = n > 1 ? sqrt(sq / (n - 1)) : 0;
    if (isnan(x->lat_p50_ns))
        x->lat_p50_ns = pp_load_sample_percentile(e, 50);
    if (isnan(x->lat_p75_ns))
        x->lat_p75_ns = pp_load_sample_percentile(e, 75);
    if (isnan(x->lat_p90_ns))
        x->lat_p90_ns = pp_load_sample_percentile(e, 90);
    if (isnan(x->lat_p95_ns))
        x->lat_p95_ns = pp_load_sample_percentile(e, 95);
    if (isnan(x->lat_p99_ns))
        x->lat_p99_ns = pp_load_sample_percentile(e, 99);
    if (isnan(x->lat_min_ns))
        x->lat_min_ns = e->samples[0];
    if (isnan(x->lat_max_ns))
        x->lat_max_ns = e->samples[n - 1];
}

double
pp_load_json_num(const json_t *v)
{
    double d;

    if (!json_is_number(v))
        return NAN;
    d = json_number_value(v);
    return isfinite(d) ? d : NAN;
}

int
pp_load_json_lines(pp_load_reader *r, const char *what, const char *expected, pp_load_line_fn each,
                   void *ctx, pp_error *err)
{
    size_t pos = 0;

    while (pos < r->len) {
        const char *nl = memchr(r->buf + pos, '\n', r->len - pos);
        size_t n = (nl != NULL ? (size_t)(nl - r->buf) : r->len) - pos;
        json_error_t je;
        json_t *line;
        int rc;

        if (n == 0 || (n == 1 && r->buf[pos] == '\r')) {
            pos += n + 1;
            continue;
        }
        if (n > PP_LOAD_MAX_LINE)
            return pp_load_fail(r, err, PP_ELIMIT, pos,
                                "a %s line of %zu bytes, more than the limit %u", what, n,
                                PP_LOAD_MAX_LINE);
        line = json_loadb(r->buf + pos, n, 0, &je);
        if (line == NULL || nl == NULL) {
            char cut[96];

            json_decref(line);
            if (nl == NULL) {
                snprintf(cut, sizeof cut, "the last %s line has no newline (dropped)", what);
                pp_load_truncated(r, pos, cut);
                break;
            }
            return pp_load_fail(r, err, PP_EFORMAT,
                                pos + (je.position > 0 ? (size_t)je.position : 0), "%s line: %s",
                                what, je.text);
        }
        rc = json_is_object(line) ? each(r, ctx, line) : PP_EFORMAT;
        json_decref(line);
        if (rc != PP_OK)
            return pp_load_fail(r, err, rc, pos, "%s line: %s", what,
                                rc == PP_EFORMAT ? expected :
                                rc == PP_ELIMIT  ? "more values or scopes than the reader keeps "
                                                   "(docs/limits.md)" :
                                                   "out of memory");
        pos += n + 1;
    }
    return PP_OK;
}
