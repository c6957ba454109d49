/* BenchmarkDotNet's JSON export:
 *   { "Title": "...", "HostEnvironmentInfo": {...}, "Benchmarks": [ {...}, ... ] }
 * The top-level object is walked member by member and every value is parsed
 * by jansson on its own (JSON_DISABLE_EOF_CHECK reports where the value
 * ended), so one benchmark is held parsed at a time, every message can say
 * where its value starts, and a file cut inside the Benchmarks array still
 * yields every benchmark before the cut. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn_private.h"

#define TRUNCATED 1

static size_t
ws(const pp_bdn_reader *r, size_t p)
{
    while (p < r->len &&
           (r->buf[p] == ' ' || r->buf[p] == '\t' || r->buf[p] == '\r' || r->buf[p] == '\n'))
        p++;
    return p;
}

/* One JSON value starting at `at`: PP_OK with *out (new reference) and *end,
 * TRUNCATED when the input ends inside it, or a sticky PP_EFORMAT. */
static int
value_at(pp_bdn_reader *r, size_t at, json_t **out, size_t *end, pp_error *err)
{
    json_error_t e;
    json_t *v = json_loadb(r->buf + at, r->len - at, JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK, &e);

    *out = NULL;
    if (v == NULL) {
        size_t where = at + (e.position > 0 ? (size_t)e.position : 0);

        if (json_error_code(&e) == json_error_premature_end_of_input)
            return TRUNCATED;
        if (where > r->len)
            where = r->len;
        return pp_bdn_fail(r, err, PP_EFORMAT, where, "malformed JSON: %s", e.text);
    }
    *out = v;
    *end = at + (size_t)e.position;
    return PP_OK;
}

static char *
dup_member(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));

    return s != NULL ? strdup(s) : NULL;
}

static void
take_host_info(pp_bdn_reader *r, const json_t *h)
{
    json_t *dbg = json_object_get(h, "HasAttachedDebugger");

    free(r->bdn_version);
    free(r->runtime_version);
    free(r->configuration);
    r->bdn_version = dup_member(h, "BenchmarkDotNetVersion");
    r->runtime_version = dup_member(h, "RuntimeVersion");
    r->configuration = dup_member(h, "Configuration");
    r->has_debugger = json_is_boolean(dbg) ? json_is_true(dbg) : -1;
}

/* Walk the top-level members up to the Benchmarks array. */
static int
begin(pp_bdn_reader *r, pp_error *err)
{
    size_t pos = r->pos, end;
    int first = 1;

    if (pos >= r->len || r->buf[pos] != '{')
        return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                           "expected '{' opening a BenchmarkDotNet "
                           "JSON export");
    pos++;
    for (;;) {
        json_t *key, *val;
        const char *k;
        int rc;

        pos = ws(r, pos);
        if (pos >= r->len)
            return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                               "truncated before the \"Benchmarks\" "
                               "array: no whole benchmark to read");
        if (r->buf[pos] == '}')
            return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                               "no \"Benchmarks\" array: not a "
                               "BenchmarkDotNet JSON export (JsonExporter.Full writes "
                               "*-report-full.json)");
        if (!first) {
            if (r->buf[pos] != ',')
                return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                                   "expected ',' or '}' after a "
                                   "member of the top-level object");
            pos = ws(r, pos + 1);
        }
        first = 0;
        if (pos >= r->len || r->buf[pos] != '"')
            return pp_bdn_fail(
                r, err, PP_EFORMAT, pos,
                pos >= r->len ?
                    "truncated before the \"Benchmarks\" array: no whole benchmark to read" :
                    "expected a member name (a string)");
        rc = value_at(r, pos, &key, &end, err);
        if (rc == TRUNCATED)
            return pp_bdn_fail(r, err, PP_EFORMAT, r->len,
                               "truncated before the \"Benchmarks\" "
                               "array: no whole benchmark to read");
        if (rc != PP_OK)
            return rc;
        k = json_string_value(key);
        pos = ws(r, end);
        if (pos >= r->len || r->buf[pos] != ':') {
            json_decref(key);
            return pp_bdn_fail(
                r, err, PP_EFORMAT, pos,
                pos >= r->len ?
                    "truncated before the \"Benchmarks\" array: no whole benchmark to read" :
                    "expected ':' after a member name");
        }
        pos = ws(r, pos + 1);
        if (strcmp(k, "Benchmarks") == 0) {
            json_decref(key);
            if (pos >= r->len)
                return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                                   "truncated before the \"Benchmarks\" "
                                   "array: no whole benchmark to read");
            if (r->buf[pos] != '[')
                return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                                   "expected \"Benchmarks\" to be an "
                                   "array");
            r->pos = pos + 1;
            r->started = 1;
            return PP_OK;
        }
        rc = value_at(r, pos, &val, &end, err);
        if (rc == TRUNCATED) {
            json_decref(key);
            return pp_bdn_fail(r, err, PP_EFORMAT, r->len,
                               "truncated before the \"Benchmarks\" "
                               "array: no whole benchmark to read");
        }
        if (rc != PP_OK) {
            json_decref(key);
            return rc;
        }
        if (strcmp(k, "HostEnvironmentInfo") == 0 && json_is_object(val))
            take_host_info(r, val);
        else if (strcmp(k, "Title") == 0 && json_is_string(val)) {
            free(r->title);
            r->title = strdup(json_string_value(val));
        }
        json_decref(key);
        json_decref(val);
        pos = end;
    }
}

/* ---- one benchmark ------------------------------------------------------ */

typedef struct elem {
    pp_bdn_reader *r;
    size_t at; /* where the benchmark's object starts */
    uint64_t index;
    pp_error *err;
} elem;

static int
wrong(elem *e, const char *path, const char *expected, const json_t *found)
{
    static const char *const names[] = { "object", "array", "string", "integer",
                                         "number", "true",  "false",  "null" };
    const char *f = found ? names[json_typeof(found)] : "nothing";

    return pp_bdn_fail(e->r, e->err, PP_EFORMAT, e->at,
                       "Benchmarks[%llu].%s: expected %s, "
                       "found %s",
                       (unsigned long long)e->index, path, expected, f);
}

/* A number member; absent or null leaves *out and returns 0, present 1. */
static int
num(elem *e, const json_t *obj, const char *key, const char *path, double *out, int *rc)
{
    json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (!json_is_number(v)) {
        *rc = wrong(e, path, "a number", v);
        return 0;
    }
    *out = json_number_value(v);
    return 1;
}

static int
integer(elem *e, const json_t *obj, const char *key, const char *path, int64_t *out, int *rc)
{
    json_t *v = json_object_get(obj, key);

    if (v == NULL || json_is_null(v))
        return 0;
    if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
        fabs(json_real_value(v)) < 9.0e18) {
        *out = (int64_t)json_real_value(v);
        return 1;
    }
    if (!json_is_integer(v)) {
        *rc = wrong(e, path, "an integer", v);
        return 0;
    }
    *out = (int64_t)json_integer_value(v);
    return 1;
}

static const char *
str(elem *e, const json_t *obj, const char *key, const char *path, int required, int *rc)
{
    json_t *v = json_object_get(obj, key);

    if ((v == NULL || json_is_null(v)) && !required)
        return "";
    if (!json_is_string(v)) {
        *rc = wrong(e, path, "a string", v);
        return "";
    }
    return json_string_value(v);
}

static uint32_t
mode_of(const char *s)
{
    return strcmp(s, "Workload") == 0 ? PP_BENCH_MODE_WORKLOAD :
           strcmp(s, "Overhead") == 0 ? PP_BENCH_MODE_OVERHEAD :
                                        PP_BENCH_MODE_OTHER;
}

static uint32_t
stage_of(const char *s)
{
    return strcmp(s, "Result") == 0  ? PP_BENCH_STAGE_RESULT :
           strcmp(s, "Actual") == 0  ? PP_BENCH_STAGE_ACTUAL :
           strcmp(s, "Warmup") == 0  ? PP_BENCH_STAGE_WARMUP :
           strcmp(s, "Pilot") == 0   ? PP_BENCH_STAGE_PILOT :
           strcmp(s, "Jitting") == 0 ? PP_BENCH_STAGE_JITTING :
                                       PP_BENCH_STAGE_OTHER;
}

static int
statistics(elem *e, const json_t *st, pp_bench_result *b)
{
    int rc = PP_OK;
    int64_t n = 0;
    json_t *ci, *outl;

    if (st == NULL || json_is_null(st))
        return PP_OK; /* the benchmark failed: no statistics */
    if (!json_is_object(st))
        return wrong(e, "Statistics", "an object", st);
    if (!integer(e, st, "N", "Statistics.N", &n, &rc) || n < 0 || n > UINT32_MAX)
        return rc != PP_OK ? rc : wrong(e, "Statistics.N", "a count", json_object_get(st, "N"));
    b->n = (uint32_t)n;
    if (!num(e, st, "Mean", "Statistics.Mean", &b->mean_ns, &rc))
        return rc != PP_OK ? rc : wrong(e, "Statistics.Mean", "a number", NULL);
    num(e, st, "Median", "Statistics.Median", &b->median_ns, &rc);
    num(e, st, "StandardDeviation", "Statistics.StandardDeviation", &b->stddev_ns, &rc);
    num(e, st, "Min", "Statistics.Min", &b->min_ns, &rc);
    num(e, st, "Max", "Statistics.Max", &b->max_ns, &rc);
    ci = json_object_get(st, "ConfidenceInterval");
    if (json_is_object(ci))
        num(e, ci, "Margin", "Statistics.ConfidenceInterval.Margin", &b->error_ns, &rc);
    outl = json_object_get(st, "AllOutliers");
    if (json_is_array(outl))
        b->outliers = (uint32_t)json_array_size(outl);
    if (rc == PP_OK)
        b->flags |= PP_BENCH_HAS_STATISTICS;
    return rc;
}

static int
memory(elem *e, const json_t *m, pp_bench_result *b)
{
    int rc = PP_OK;

    if (m == NULL || json_is_null(m))
        return PP_OK;
    if (!json_is_object(m))
        return wrong(e, "Memory", "an object", m);
    if (integer(e, m, "BytesAllocatedPerOperation", "Memory.BytesAllocatedPerOperation",
                &b->bytes_per_op, &rc))
        b->flags |= PP_BENCH_HAS_MEMORY;
    if (rc == PP_OK && b->bytes_per_op < 0)
        return wrong(e, "Memory.BytesAllocatedPerOperation", "a byte count >= 0",
                     json_object_get(m, "BytesAllocatedPerOperation"));
    if (integer(e, m, "TotalOperations", "Memory.TotalOperations", &b->total_operations, &rc) &&
        integer(e, m, "Gen0Collections", "Memory.Gen0Collections", &b->gen0_collections, &rc) &&
        integer(e, m, "Gen1Collections", "Memory.Gen1Collections", &b->gen1_collections, &rc) &&
        integer(e, m, "Gen2Collections", "Memory.Gen2Collections", &b->gen2_collections, &rc) &&
        b->total_operations > 0) {
        b->flags |= PP_BENCH_HAS_GC_COUNTS;
        b->gen0_per_1k = 1000.0 * (double)b->gen0_collections / (double)b->total_operations;
        b->gen1_per_1k = 1000.0 * (double)b->gen1_collections / (double)b->total_operations;
        b->gen2_per_1k = 1000.0 * (double)b->gen2_collections / (double)b->total_operations;
    }
    return rc;
}

static int
measurements(elem *e, const json_t *arr, pp_bench_result *b)
{
    pp_bdn_reader *r = e->r;
    size_t n, i;
    json_t *m;
    int rc = PP_OK;

    if (arr == NULL || json_is_null(arr))
        return PP_OK; /* brief export */
    if (!json_is_array(arr))
        return wrong(e, "Measurements", "an array", arr);
    n = json_array_size(arr);
    if (n > PP_BDN_MAX_MEASUREMENTS)
        return pp_bdn_fail(r, e->err, PP_ELIMIT, e->at,
                           "Benchmarks[%llu].Measurements: %zu "
                           "measurements, more than the reader's limit of %u",
                           (unsigned long long)e->index, n, PP_BDN_MAX_MEASUREMENTS);
    if (n > r->meas_cap) {
        pp_bench_measurement *grown = realloc(r->meas, n * sizeof *grown);

        if (grown == NULL)
            return pp_bdn_fail(r, e->err, PP_ENOMEM, e->at,
                               "out of memory for %zu "
                               "measurements",
                               n);
        r->meas = grown;
        r->meas_cap = (uint32_t)n;
    }
    json_array_foreach(arr, i, m) {
        pp_bench_measurement *o = &r->meas[i];
        char path[96];
        int64_t li = 0, ii = 0;

        if (!json_is_object(m)) {
            snprintf(path, sizeof path, "Measurements[%zu]", i);
            return wrong(e, path, "an object", m);
        }
        memset(o, 0, sizeof *o);
        snprintf(path, sizeof path, "Measurements[%zu].IterationMode", i);
        o->mode = mode_of(str(e, m, "IterationMode", path, 1, &rc));
        snprintf(path, sizeof path, "Measurements[%zu].IterationStage", i);
        o->stage = stage_of(str(e, m, "IterationStage", path, 1, &rc));
        snprintf(path, sizeof path, "Measurements[%zu].Operations", i);
        if (rc == PP_OK && !integer(e, m, "Operations", path, &o->operations, &rc) && rc == PP_OK)
            rc = wrong(e, path, "an integer", NULL);
        snprintf(path, sizeof path, "Measurements[%zu].Nanoseconds", i);
        if (rc == PP_OK && !num(e, m, "Nanoseconds", path, &o->nanoseconds, &rc) && rc == PP_OK)
            rc = wrong(e, path, "a number", NULL);
        snprintf(path, sizeof path, "Measurements[%zu].LaunchIndex", i);
        if (rc == PP_OK)
            integer(e, m, "LaunchIndex", path, &li, &rc);
        snprintf(path, sizeof path, "Measurements[%zu].IterationIndex", i);
        if (rc == PP_OK)
            integer(e, m, "IterationIndex", path, &ii, &rc);
        if (rc != PP_OK)
            return rc;
        if (o->operations <= 0) {
            snprintf(path, sizeof path, "Measurements[%zu].Operations", i);
            return wrong(e, path, "a count > 0", json_object_get(m, "Operations"));
        }
        o->launch_index = li > 0 && li <= UINT32_MAX ? (uint32_t)li : 0;
        o->iteration_index = ii > 0 && ii <= UINT32_MAX ? (uint32_t)ii : 0;
    }
    b->measurements = r->meas;
    b->measurement_count = (uint32_t)n;
    b->flags |= PP_BENCH_HAS_MEASUREMENTS;
    return PP_OK;
}

/* "KeyBench.FormatKeys: ShortRun(IterationCount=3, ...) [N=16]" -> "ShortRun". */
static size_t
job_of(const char *display, const char **start)
{
    const char *p = strstr(display, ": ");
    size_t n = 0;

    *start = "";
    if (p == NULL)
        return 0;
    p += 2;
    while (p[n] != '\0' && p[n] != '(' && p[n] != ' ' && p[n] != '[')
        n++;
    *start = p;
    return n;
}

static int
fill(pp_bdn_reader *r, json_t *v, size_t at, pp_error *err)
{
    elem e = { r, at, r->count, err };
    pp_bench_result *b = &r->cur;
    const char *ns, *type = "", *method = "", *job;
    size_t need, jn;
    int rc = PP_OK;

    json_decref(r->cur_json);
    r->cur_json = v;
    memset(b, 0, sizeof *b);
    if (!json_is_object(v))
        return wrong(&e, "", "an object (one benchmark case)", v);
    b->full_name = str(&e, v, "FullName", "FullName", 1, &rc);
    if (rc == PP_OK)
        type = str(&e, v, "Type", "Type", 1, &rc);
    if (rc == PP_OK)
        method = str(&e, v, "Method", "Method", 1, &rc);
    if (rc != PP_OK)
        return rc;
    ns = str(&e, v, "Namespace", "Namespace", 0, &rc);
    b->parameters = str(&e, v, "Parameters", "Parameters", 0, &rc);
    b->display_info = str(&e, v, "DisplayInfo", "DisplayInfo", 0, &rc);
    if (rc != PP_OK)
        return rc;
    jn = job_of(b->display_info, &job);
    need = strlen(ns) + strlen(type) + strlen(method) + jn + 4;
    if (need > r->cur_strings_cap) {
        char *grown = realloc(r->cur_strings, need);

        if (grown == NULL)
            return pp_bdn_fail(r, err, PP_ENOMEM, at, "out of memory");
        r->cur_strings = grown;
        r->cur_strings_cap = need;
    }
    {
        int w = snprintf(r->cur_strings, need, "%s%s%s.%s", ns, ns[0] ? "." : "", type, method);

        memcpy(r->cur_strings + w + 1, job, jn);
        r->cur_strings[w + 1 + jn] = '\0';
        b->benchmark = r->cur_strings;
        b->job = r->cur_strings + w + 1;
    }
    if ((rc = statistics(&e, json_object_get(v, "Statistics"), b)) != PP_OK ||
        (rc = memory(&e, json_object_get(v, "Memory"), b)) != PP_OK ||
        (rc = measurements(&e, json_object_get(v, "Measurements"), b)) != PP_OK)
        return rc;
    return 1;
}

int
pp_bdn_json_next(pp_bdn_reader *r, pp_error *err)
{
    size_t pos, at, end;
    json_t *v;
    int rc;

    if (!r->started && (rc = begin(r, err)) != PP_OK)
        return rc;
    pos = ws(r, r->pos);
    if (pos < r->len && r->buf[pos] == ']') {
        /* The array is whole; a file cut after it lost no benchmark. */
        pos = ws(r, pos + 1);
        if (pos >= r->len)
            pp_bdn_truncated(r, pos, "after the Benchmarks array (no benchmark lost)");
        return 0;
    }
    if (pos < r->len && r->count > 0) {
        if (r->buf[pos] != ',')
            return pp_bdn_fail(r, err, PP_EFORMAT, pos,
                               "expected ',' or ']' after benchmark "
                               "%llu",
                               (unsigned long long)r->count - 1);
        pos = ws(r, pos + 1);
    }
    at = pos;
    rc = pos < r->len ? value_at(r, pos, &v, &end, err) : TRUNCATED;
    if (rc == TRUNCATED) {
        if (r->count == 0)
            return pp_bdn_fail(r, err, PP_EFORMAT, at,
                               "truncated inside the first benchmark "
                               "(file ends at byte %zu): no whole benchmark to read",
                               r->len);
        pp_bdn_truncated(r, at, "inside the Benchmarks array");
        return 0;
    }
    if (rc != PP_OK)
        return rc;
    r->pos = end;
    return fill(r, v, at, err);
}
