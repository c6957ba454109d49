/* The dotnet-counters reader: the test bed's real captures against the
 * test bed's independent parser (*.oracle.json), hand-made culture variants
 * of a real file, a truncated JSON capture and malformed inputs. */
#include "config.h"

#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/counters.h>
#include <perfpipe/perfpipe.h>

#include "counters/counters_private.h"
#include "input/source.h"

static const char *
env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : dflt;
}

static void
path_of(char *buf, size_t size, const char *dirvar, const char *dflt_sub, const char *file)
{
    char dflt[1024];

    snprintf(dflt, sizeof dflt, "%s/%s", TEST_SRCDIR, dflt_sub);
    snprintf(buf, size, "%s/%s", env_or(dirvar, dflt), file);
}

static void
handmade(char *buf, size_t size, const char *file)
{
    snprintf(buf, size, "%s/tests/counters/%s", env_or("PP_SRCDIR", TEST_SRCDIR), file);
}

static int
exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ---- hooks that record what the reader reports ------------------------- */

typedef struct rec_hooks {
    uint64_t bytes;
    uint64_t sum; /* simple checksum of the bytes seen */
    int warnings;
    pp_error last_warning;
} rec_hooks;

static void
on_bytes(void *user, const void *data, size_t len)
{
    rec_hooks *h = user;
    const unsigned char *p = data;

    h->bytes += len;
    for (size_t i = 0; i < len; i++)
        h->sum = h->sum * 31 + p[i];
}

static void
on_warning(void *user, const pp_error *w)
{
    rec_hooks *h = user;

    h->warnings++;
    h->last_warning = *w;
}

/* ---- timestamps and names ------------------------------------------------ */

START_TEST(test_time_formats)
{
    static const struct {
        const char *s;
        int64_t secs;
        int64_t frac;
    } ok[] = {
        { "11/29/2026 15:22:16", 1795965736, 0 },   /* Invariant */
        { "29.11.2026 15:22:16", 1795965736, 0 },   /* de-DE */
        { "29/11/2026 15:22:16", 1795965736, 0 },   /* en-GB: day > 12 */
        { "11/29/2026 3:22:16 PM", 1795965736, 0 }, /* en-US */
        { "2026-11-29 15:22:16", 1795965736, 0 },   /* sv-SE */
        { "2026-11-29T15:22:16Z", 1795965736, 0 },
        { "2026-08-07T14:37:45.2345678-07:00", 1786138665, 234567800 },
        { "02/29/2000 00:00:00", 951782400, 0 },
        { "2/29/2000 12:00:00 AM", 951782400, 0 },
    };
    static const char *const bad[] = {
        "",
        "11/29/2026",
        "13/13/2026 10:00:00",
        "02/30/2026 10:00:00",
        "11/29/2026 24:00:00",
        "11/29/26 10:00:00",
        "2026-11-29T10:00:00+25:00",
        "11/29/2026 10:00:00 xyz",
        "hello",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int order = PP_DATE_ORDER_UNKNOWN;
        int64_t ns = 0;
        size_t at = 0;
        ck_assert_msg(pp_counters_parse_time(ok[i].s, &order, &ns, &at) == PP_OK,
                      "rejected %s at %zu", ok[i].s, at);
        ck_assert_int_eq(ns, ok[i].secs * INT64_C(1000000000) + ok[i].frac);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int order = PP_DATE_ORDER_UNKNOWN;
        int64_t ns = 0;
        size_t at = 0;
        ck_assert_msg(pp_counters_parse_time(bad[i], &order, &ns, &at) == PP_EFORMAT, "accepted %s",
                      bad[i]);
    }
    /* A file's first unambiguous slash date fixes the order of later ones. */
    {
        int order = PP_DATE_ORDER_UNKNOWN;
        int64_t a = 0, b = 0;
        size_t at;
        ck_assert_int_eq(pp_counters_parse_time("29/11/2026 10:00:00", &order, &a, &at), PP_OK);
        ck_assert_int_eq(order, PP_DATE_ORDER_DMY);
        ck_assert_int_eq(pp_counters_parse_time("01/12/2026 10:00:00", &order, &b, &at), PP_OK);
        ck_assert_int_eq(b - a, INT64_C(2) * 86400 * 1000000000); /* 1 Dec, not 12 Jan */
    }
}
END_TEST

START_TEST(test_split_name)
{
    char a[] = "dotnet.gc.collections ({collection} / 1 sec)[gc.heap.generation=gen2]";
    char b[] = "dotnet.process.memory.working_set (By)";
    char c[] = "Working Set (MB)";
    char d[] = "Allocation Rate Gen (MB / 60 sec)[foo=bar;baz=7]";
    char e[] = "ThreadPool Queue Length";
    pp_counter_name n;
    pp_ctext t = { 0 };
    const char *src[2];

    pp_counters_split_name(a, "System.Runtime", &n);
    ck_assert_str_eq(n.name, "dotnet.gc.collections");
    ck_assert_str_eq(n.unit, "");
    ck_assert_str_eq(n.raw_tags, "gc.heap.generation=gen2");
    ck_assert(n.interval_s == 1);
    pp_counters_split_name(b, "System.Runtime", &n);
    ck_assert_str_eq(n.name, "dotnet.process.memory.working_set");
    ck_assert_str_eq(n.unit, "B");
    ck_assert(n.scale == 1 && n.interval_s == 0);
    pp_counters_split_name(c, "System.Runtime", &n);
    ck_assert_str_eq(n.unit, "B");
    ck_assert(n.scale == 1e6);
    pp_counters_split_name(d, "MyApp", &n);
    ck_assert_str_eq(n.name, "Allocation Rate Gen");
    ck_assert_str_eq(n.unit, "MB"); /* only System.Runtime MB is known to be 10^6 */
    ck_assert(n.interval_s == 60);
    src[0] = n.raw_tags;
    ck_assert_int_eq(pp_counters_canon_tags(&t, src, ";", 1), PP_OK);
    ck_assert_str_eq(t.p, "baz=7;foo=bar");
    pp_counters_split_name(e, "System.Runtime", &n);
    ck_assert_str_eq(n.name, "ThreadPool Queue Length");
    ck_assert_str_eq(n.unit, "");
    /* JSON keeps tags in three comma-separated fields: merged and sorted. */
    src[0] = "b=2,a=1";
    src[1] = " c=3 ";
    ck_assert_int_eq(pp_counters_canon_tags(&t, src, ",,", 2), PP_OK);
    ck_assert_str_eq(t.p, "a=1;b=2;c=3");
    pp_ctext_free(&t);

    ck_assert_str_eq(pp_counters_quantity("System.Runtime", "dotnet.gc.last_collection.heap.size",
                                          "gc.heap.generation=gen2"),
                     "gc.heap.gen2");
    ck_assert_str_eq(pp_counters_quantity("System.Runtime", "gen-2-size", ""), "gc.heap.gen2");
    ck_assert_str_eq(pp_counters_quantity("System.Runtime", "Allocation Rate", ""), "alloc.bytes");
    ck_assert_ptr_null(pp_counters_quantity("MyApp", "Allocation Rate", ""));
    ck_assert_str_eq(pp_counters_quantity_axis("gc.heap.gen2"), "footprint");
    ck_assert_str_eq(pp_counters_quantity_axis("alloc.bytes"), "churn");
    ck_assert_str_eq(pp_counters_quantity_axis("gc.pause_time"), "time");
    ck_assert_ptr_null(pp_counters_quantity_axis(NULL));
}
END_TEST

/* ---- real captures against the test bed's parser ------------------------- */

typedef struct agg {
    char provider[128], name[256], tags[256];
    uint32_t type;
    long count;
    double first, last, min, max, sum;
} agg;

static const char *const fixtures[] = {
    "churn-counters.csv",
    "churn-counters.json",
    "leak-counters.csv",
    "leak-counters.json",
};

static int
close_enough(double a, double b)
{
    /* The oracle writes fractions rounded to 6 decimals. */
    return a == b || fabs(a - b) <= 1e-6 + 1e-9 * fmax(fabs(a), fabs(b));
}

START_TEST(test_oracle)
{
    const char *file = fixtures[_i];
    char path[2048], opath[2100];
    pp_counters_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, NULL };
    rec_hooks rh = { 0 };
    pp_counters_reader *r = NULL;
    pp_error err = PP_ERROR_INIT;
    pp_counter_sample s;
    static agg g[256];
    size_t ng = 0;
    long rows = 0;
    json_t *oracle, *series;
    json_error_t jerr;
    struct stat st;
    int rc;

    path_of(path, sizeof path, "PP_TESTDATA", "tests/data", file);
    snprintf(opath, sizeof opath, "%s.oracle.json", path);
    if (!exists(path) || !exists(opath)) {
        printf("SKIP: %s or its oracle is absent (test bed fixtures not generated yet)\n", path);
        return;
    }
    hooks.user = &rh;
    ck_assert_msg(pp_counters_open(path, &hooks, &r, &err) == PP_OK, "%s", err.message);
    while ((rc = pp_counters_next(r, &s, &err)) == 1) {
        size_t k;
        rows++;
        ck_assert_uint_eq(s.struct_size, sizeof s);
        for (k = 0; k < ng; k++)
            if (strcmp(g[k].provider, s.provider) == 0 && strcmp(g[k].name, s.name) == 0 &&
                strcmp(g[k].tags, s.tags) == 0)
                break;
        if (k == ng) {
            ck_assert_uint_lt(ng, 256);
            memset(&g[k], 0, sizeof g[k]);
            snprintf(g[k].provider, sizeof g[k].provider, "%s", s.provider);
            snprintf(g[k].name, sizeof g[k].name, "%s", s.name);
            snprintf(g[k].tags, sizeof g[k].tags, "%s", s.tags);
            g[k].type = s.counter_type;
            g[k].first = g[k].min = g[k].max = s.value;
            ng++;
        }
        g[k].count++;
        g[k].last = s.value;
        g[k].sum += s.value;
        g[k].min = fmin(g[k].min, s.value);
        g[k].max = fmax(g[k].max, s.value);
        if (s.counter_type == PP_COUNTER_RATE)
            ck_assert(s.interval_s == 1); /* --refresh-interval 1 */
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    ck_assert_int_eq(rh.warnings, 0);
    ck_assert_int_eq(pp_counters_truncated(r), 0);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(rh.bytes, (uint64_t)st.st_size);

    oracle = json_load_file(opath, 0, &jerr);
    ck_assert_msg(oracle != NULL, "%s: %s", opath, jerr.text);
    ck_assert_int_eq(rows, json_integer_value(json_object_get(oracle, "rows")));
    ck_assert_int_eq((json_int_t)pp_counters_sample_count(r), rows);
    series = json_object_get(oracle, "series");
    ck_assert_uint_eq(ng, json_array_size(series));
    ck_assert_int_eq((json_int_t)ng, json_integer_value(json_object_get(oracle, "series_count")));
    if (strstr(file, ".json") != NULL)
        ck_assert_str_eq(pp_counters_target_process(r),
                         json_string_value(json_object_get(oracle, "target_process")));
    for (size_t i = 0; i < json_array_size(series); i++) {
        json_t *o = json_array_get(series, i);
        char display[512];
        const char *src[1];
        pp_ctext tags = { 0 };
        pp_counter_name cn;
        size_t k;

        snprintf(display, sizeof display, "%s", json_string_value(json_object_get(o, "name")));
        pp_counters_split_name(display, json_string_value(json_object_get(o, "provider")), &cn);
        src[0] = cn.raw_tags;
        ck_assert_int_eq(pp_counters_canon_tags(&tags, src, ";", 1), PP_OK);
        for (k = 0; k < ng; k++)
            if (strcmp(g[k].name, cn.name) == 0 && strcmp(g[k].tags, pp_ctext_str(&tags)) == 0)
                break;
        ck_assert_msg(k < ng, "%s: series %s [%s] not read", file, cn.name, pp_ctext_str(&tags));
        ck_assert_int_eq(g[k].count, json_integer_value(json_object_get(o, "count")));
        ck_assert_uint_eq(g[k].type,
                          strcmp(json_string_value(json_object_get(o, "type")), "Rate") == 0 ?
                              PP_COUNTER_RATE :
                              PP_COUNTER_GAUGE);
        ck_assert_msg(close_enough(g[k].first, json_number_value(json_object_get(o, "first"))),
                      "%s first", cn.name);
        ck_assert(close_enough(g[k].last, json_number_value(json_object_get(o, "last"))));
        ck_assert(close_enough(g[k].min, json_number_value(json_object_get(o, "min"))));
        ck_assert(close_enough(g[k].max, json_number_value(json_object_get(o, "max"))));
        ck_assert_msg(close_enough(g[k].sum, json_number_value(json_object_get(o, "sum"))),
                      "%s sum %.17g vs %.17g", cn.name, g[k].sum,
                      json_number_value(json_object_get(o, "sum")));
        pp_ctext_free(&tags);
    }
    /* The runtime's counters are recognized. */
    {
        int alloc = 0, gen2 = 0;
        for (size_t k = 0; k < ng; k++) {
            const char *q = pp_counters_quantity(g[k].provider, g[k].name, g[k].tags);
            alloc |= q != NULL && strcmp(q, "alloc.bytes") == 0;
            gen2 |= q != NULL && strcmp(q, "gc.heap.gen2") == 0;
        }
        ck_assert(alloc && gen2);
    }
    printf("%s: %ld samples, %zu series match the oracle\n", file, rows, ng);
    json_decref(oracle);
    pp_counters_close(r);
}
END_TEST

/* ---- culture variants built by hand from a real capture ----------------- */

typedef struct sample_copy {
    uint32_t type;
    int64_t t;
    char name[256], tags[256], unit[16];
    const char *quantity;
    double value, interval;
} sample_copy;

static size_t
read_all(const char *file, sample_copy *out, size_t max, rec_hooks *rh)
{
    char path[2048];
    pp_counters_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, rh };
    pp_counters_reader *r = NULL;
    pp_error err = PP_ERROR_INIT;
    pp_counter_sample s;
    size_t n = 0;
    int rc;

    handmade(path, sizeof path, file);
    ck_assert_msg(pp_counters_open(path, &hooks, &r, &err) == PP_OK, "%s", err.message);
    while ((rc = pp_counters_next(r, &s, &err)) == 1) {
        ck_assert_uint_lt(n, max);
        out[n].type = s.counter_type;
        out[n].t = s.time_ns;
        snprintf(out[n].name, sizeof out[n].name, "%s", s.name);
        snprintf(out[n].tags, sizeof out[n].tags, "%s", s.tags);
        snprintf(out[n].unit, sizeof out[n].unit, "%s", s.unit);
        out[n].quantity = s.quantity;
        out[n].value = s.value;
        out[n].interval = s.interval_s;
        n++;
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    pp_counters_close(r);
    return n;
}

START_TEST(test_cultures)
{
    static sample_copy a[100], b[100], c[100];
    rec_hooks ra = { 0 }, rb = { 0 }, rc = { 0 };
    size_t na = read_all("invariant.csv", a, 100, &ra);
    size_t nb = read_all("de-locale.csv", b, 100, &rb);
    size_t nc = read_all("en-us-12h.csv", c, 100, &rc);
    int fractional = 0;

    ck_assert_uint_eq(na, 60);
    ck_assert_uint_eq(nb, na);
    ck_assert_uint_eq(nc, na);
    for (size_t i = 0; i < na; i++) {
        ck_assert_int_eq(a[i].t, b[i].t);
        ck_assert_int_eq(a[i].t, c[i].t);
        ck_assert_str_eq(a[i].name, b[i].name);
        ck_assert_str_eq(a[i].tags, b[i].tags);
        ck_assert(a[i].value == b[i].value); /* "0,022903" == "0.022903" */
        ck_assert(a[i].value == c[i].value);
        ck_assert_uint_eq(a[i].type, b[i].type);
        fractional += a[i].value != floor(a[i].value);
    }
    ck_assert_int_gt(fractional, 0); /* the comma path was exercised */
    ck_assert_int_eq(a[na - 1].t, INT64_C(2000000000));
    ck_assert_int_eq(ra.warnings + rb.warnings + rc.warnings, 0);
}
END_TEST

START_TEST(test_legacy_eventcounters)
{
    static sample_copy a[40];
    rec_hooks rh = { 0 };
    size_t n = read_all("legacy-eventcounters.csv", a, 40, &rh);

    ck_assert_uint_eq(n, 18);
    ck_assert_str_eq(a[1].name, "Working Set");
    ck_assert_str_eq(a[1].quantity, "memory.working_set");
    ck_assert_str_eq(a[1].unit, "B");
    ck_assert(a[1].value == 81e6);
    ck_assert_str_eq(a[4].quantity, "alloc.bytes");
    ck_assert_uint_eq(a[4].type, PP_COUNTER_RATE);
    ck_assert(a[4].interval == 1 && a[4].value == 65432);
    ck_assert_str_eq(a[5].quantity, "gc.time_percent");
    ck_assert_str_eq(a[6].quantity, "gc.heap.gen2");
    ck_assert_str_eq(a[8].name, "ThreadPool Queue Length");
    ck_assert_int_eq(a[17].t, INT64_C(1000000000));
}
END_TEST

START_TEST(test_truncated_json)
{
    static sample_copy a[40];
    rec_hooks rh = { 0 };
    char path[2048];
    struct stat st;
    size_t n = read_all("truncated.json", a, 40, &rh);

    handmade(path, sizeof path, "truncated.json");
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(n, 25); /* 25 whole events, the 26th is cut */
    ck_assert_int_eq(rh.warnings, 1);
    ck_assert_ptr_nonnull(strstr(rh.last_warning.message, "not closed"));
    ck_assert_int_eq(rh.last_warning.offset, st.st_size);
    ck_assert_uint_eq(rh.bytes, (uint64_t)st.st_size);
    ck_assert_str_eq(a[0].name, "dotnet.process.memory.working_set");
}
END_TEST

START_TEST(test_empty_events)
{
    static sample_copy a[4];
    rec_hooks rh = { 0 };

    ck_assert_uint_eq(read_all("empty-events.json", a, 4, &rh), 0);
    ck_assert_int_eq(rh.warnings, 0);
}
END_TEST

static int
open_expect_error(const char *file, pp_error *err)
{
    char path[2048];
    pp_counters_reader *r = NULL;
    pp_counter_sample s;
    int rc;

    handmade(path, sizeof path, file);
    rc = pp_counters_open(path, NULL, &r, err);
    if (rc != PP_OK)
        return rc;
    while ((rc = pp_counters_next(r, &s, err)) == 1)
        ;
    /* sticky */
    if (rc < 0) {
        pp_error again = PP_ERROR_INIT;
        ck_assert_int_eq(pp_counters_next(r, &s, &again), rc);
        ck_assert_str_eq(again.message, err->message);
    }
    pp_counters_close(r);
    return rc;
}

START_TEST(test_bad_inputs)
{
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(open_expect_error("bad-timestamp.csv", &err), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 3);
    ck_assert_uint_eq(err.column, 1);
    ck_assert_ptr_nonnull(strstr(err.message, "bad-timestamp.csv:3:1: expected a timestamp"));
    ck_assert_int_eq(err.offset, 150);

    pp_error_clear(&err);
    ck_assert_int_eq(open_expect_error("bad-json.json", &err), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_uint_eq(err.column, 379);
    ck_assert_ptr_nonnull(strstr(err.message, "expected ',' or '}'"));

    pp_error_clear(&err);
    ck_assert_int_eq(open_expect_error("does-not-exist.csv", &err), PP_EIO);
}
END_TEST

static int
mem_read(const char *text, uint64_t *n, rec_hooks *rh, pp_error *err, double *last)
{
    pp_counters_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, rh };
    pp_counters_reader *r = NULL;
    pp_counter_sample s;
    int rc = pp_counters_open_memory(text, strlen(text), "mem", &hooks, &r, err);

    if (rc != PP_OK)
        return rc;
    while ((rc = pp_counters_next(r, &s, err)) == 1)
        *last = s.value;
    *n = pp_counters_sample_count(r);
    pp_counters_close(r);
    return rc;
}

START_TEST(test_memory_edge_cases)
{
    static const char hdr[] = "Timestamp,Provider,Counter Name,Counter Type,Mean/Increment\n";
    char buf[1024];
    pp_error err = PP_ERROR_INIT;
    rec_hooks rh = { 0 };
    uint64_t n = 0;
    double last = 0;

    /* A row cut by a killed tool (no newline) is dropped with a warning. */
    snprintf(buf, sizeof buf,
             "%s11/29/2026 15:22:16,System.Runtime,x (By),Metric,1\n"
             "11/29/2026 15:22:17,System.Runtime,x (By),Metric,46",
             hdr);
    ck_assert_int_eq(mem_read(buf, &n, &rh, &err, &last), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(rh.warnings, 1);
    ck_assert_uint_eq(rh.bytes, strlen(buf));

    /* Comma decimal separator splits the value into two fields. */
    memset(&rh, 0, sizeof rh);
    snprintf(buf, sizeof buf, "%s29.11.2026 15:22:16,System.Runtime,x (s / 1 sec),Rate,0,5\n", hdr);
    ck_assert_int_eq(mem_read(buf, &n, &rh, &err, &last), 0);
    ck_assert(last == 0.5);

    /* Not a counters file at all. */
    ck_assert_int_eq(mem_read("Nettrace\x14\0\0\0", &n, &rh, &err, &last), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_int_eq(mem_read("", &n, &rh, &err, &last), PP_EFORMAT);
    ck_assert_int_eq(mem_read("Timestamp;Provider\n", &n, &rh, &err, &last), PP_EFORMAT);

    /* A JSON file cut right after "}," and one cut before the array. */
    memset(&rh, 0, sizeof rh);
    ck_assert_int_eq(
        mem_read("{ \"TargetProcess\": \"a\", \"Events\": [{ \"timestamp\": "
                 "\"2026-11-29T15:22:21.2193116+00:00\", \"provider\": \"System.Runtime\", "
                 "\"name\": \"n (By)\", \"tags\": \"\", \"counterType\": \"Metric\", "
                 "\"value\": 7 },",
                 &n, &rh, &err, &last),
        0);
    ck_assert_uint_eq(n, 1);
    ck_assert(last == 7);
    ck_assert_int_eq(rh.warnings, 1);
    memset(&rh, 0, sizeof rh);
    ck_assert_int_eq(mem_read("{ \"TargetProcess\": \"a\", \"Sta", &n, &rh, &err, &last), 0);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(rh.warnings, 1);
    /* Unknown counter type. */
    snprintf(buf, sizeof buf, "%s11/29/2026 15:22:16,System.Runtime,x (By),Gauge,1\n", hdr);
    ck_assert_int_eq(mem_read(buf, &n, &rh, &err, &last), PP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    /* Garbage value. */
    snprintf(buf, sizeof buf, "%s11/29/2026 15:22:16,System.Runtime,x (By),Metric,12abc\n", hdr);
    ck_assert_int_eq(mem_read(buf, &n, &rh, &err, &last), PP_EFORMAT);
    ck_assert_uint_eq(err.column, 50);
}
END_TEST

static char *
slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Every prefix of a real capture (a tool killed at any byte) and random
 * byte damage: a result or one clear error, never a crash (ASan/UBSan). */
START_TEST(test_prefixes_and_damage)
{
    static const char *const files[] = { "invariant.csv", "truncated.json", "de-locale.csv" };
    char path[2048];
    size_t len;
    char *buf;
    uint32_t seed = 12345;

    handmade(path, sizeof path, files[_i]);
    buf = slurp(path, &len);
    for (size_t cut = 0; cut <= len; cut += (cut < 200 ? 1 : 13)) {
        rec_hooks rh = { 0 };
        pp_counters_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, &rh };
        pp_counters_reader *r = NULL;
        pp_error err = PP_ERROR_INIT;
        pp_counter_sample s;
        int rc = pp_counters_open_memory(buf, cut, "prefix", &hooks, &r, &err);
        if (rc != PP_OK) {
            ck_assert_int_lt(rc, 0);
            ck_assert(err.message[0] != '\0');
            continue;
        }
        while ((rc = pp_counters_next(r, &s, &err)) == 1)
            ck_assert(s.name != NULL && s.tags != NULL && s.unit != NULL);
        if (rc < 0)
            ck_assert(err.message[0] != '\0');
        else
            ck_assert_uint_eq(rh.bytes, cut);
        /* a JSON capture cut anywhere is read with a warning, never refused */
        if (strstr(files[_i], ".json") != NULL && cut > 0)
            ck_assert_msg(rc == 0 && rh.warnings == 1, "cut at %zu: rc %d", cut, rc);
        pp_counters_close(r);
    }
    for (int round = 0; round < 300; round++) {
        char *dam = malloc(len + 1);
        pp_counters_reader *r = NULL;
        pp_error err = PP_ERROR_INIT;
        pp_counter_sample s;
        int rc;
        memcpy(dam, buf, len);
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            dam[(seed >> 8) % len] = (char)(seed >> 24);
        }
        rc = pp_counters_open_memory(dam, len, "damaged", NULL, &r, &err);
        if (rc == PP_OK) {
            while ((rc = pp_counters_next(r, &s, &err)) == 1)
                ;
            pp_counters_close(r);
        }
        free(dam);
    }
    free(buf);
}
END_TEST

/* The engine's view: pp_counters_source_ops yields PP_KIND_COUNTERS records,
 * hands every byte to on_bytes and describes the input. */
START_TEST(test_source_ops)
{
    const pp_source_ops *ops = &pp_counters_source_ops;
    pp_source_hooks hooks = { NULL, NULL, NULL };
    rec_hooks rh = { 0 };
    char path[2048];
    struct stat st;
    pp_error err = PP_ERROR_INIT;
    pp_record rec;
    void *src = NULL;
    json_t *desc;
    int rc, n = 0;

    hooks.on_bytes = on_bytes;
    hooks.on_warning = on_warning;
    hooks.user = &rh;
    ck_assert_str_eq(ops->kind, "counters");
    ck_assert_uint_eq(ops->kind_bit, PP_KIND_COUNTERS);
    handmade(path, sizeof path, "truncated.json");
    ck_assert_int_eq(ops->open(path, &hooks, &src, &err), PP_OK);
    while ((rc = ops->next(src, &rec, &err)) == 1) {
        ck_assert_uint_eq(rec.kind, PP_KIND_COUNTERS);
        ck_assert_ptr_nonnull(rec.u.counter);
        ck_assert_uint_eq(rec.u.counter->struct_size, sizeof(pp_counter_sample));
        n++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(n, 25);
    ck_assert_int_eq(rh.warnings, 1);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(rh.bytes, (uint64_t)st.st_size);
    desc = json_object();
    ck_assert_int_eq(ops->describe(src, desc), PP_OK);
    ck_assert_str_eq(json_string_value(json_object_get(desc, "format")), "dotnet-counters-json");
    ck_assert_int_eq(json_integer_value(json_object_get(desc, "samples")), 25);
    ck_assert(json_is_true(json_object_get(desc, "truncated")));
    ck_assert_str_eq(json_string_value(json_object_get(desc, "target_process")), "dotnet");
    json_decref(desc);
    ops->close(src);

    pp_error_clear(&err);
    handmade(path, sizeof path, "bad-timestamp.csv");
    ck_assert_int_eq(ops->open(path, NULL, &src, &err), PP_OK);
    while ((rc = ops->next(src, &rec, &err)) == 1)
        ;
    ck_assert_int_eq(rc, PP_EFORMAT);
    ck_assert_uint_eq(err.line, 3);
    ops->close(src);
}
END_TEST

static Suite *
counters_suite(void)
{
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("reader");

    tcase_add_test(tc, test_time_formats);
    tcase_add_test(tc, test_split_name);
    tcase_add_loop_test(tc, test_oracle, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_test(tc, test_cultures);
    tcase_add_test(tc, test_legacy_eventcounters);
    tcase_add_test(tc, test_truncated_json);
    tcase_add_test(tc, test_empty_events);
    tcase_add_test(tc, test_bad_inputs);
    tcase_add_test(tc, test_memory_edge_cases);
    tcase_add_test(tc, test_source_ops);
    tcase_add_loop_test(tc, test_prefixes_and_damage, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(counters_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
