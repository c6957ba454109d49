/* BenchmarkDotNet's CSV summary (CsvExporter, `*-report.csv`): a header
 *   Method,Job,<job characteristics...>,<parameters...>,Mean,Error,StdDev,...,Allocated
 * and one row per case, cells formatted for people ("1,080.6 ns", "1408 B",
 * "-" for zero GC counts, "NA" for a failed case). A fallback: the summary
 * has no measurements, so these cases carry statistics and memory only, and
 * an allocation printed in KB or MB is rounded (PP_BENCH_ALLOC_ROUNDED). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn_private.h"

/* Columns BenchmarkDotNet prints for job characteristics (0.13-0.15); any
 * other column between "Job" and the first statistic is a parameter. */
static const char *const job_columns[] = { "AnalyzeLaunchVariance",
                                           "EvaluateOverhead",
                                           "MaxAbsoluteError",
                                           "MaxRelativeError",
                                           "MinInvokeCount",
                                           "MinIterationTime",
                                           "OutlierMode",
                                           "Affinity",
                                           "EnvironmentVariables",
                                           "Jit",
                                           "LargeAddressAware",
                                           "Platform",
                                           "PowerPlanMode",
                                           "Runtime",
                                           "AllowVeryLargeObjects",
                                           "Concurrent",
                                           "CpuGroups",
                                           "Force",
                                           "HeapAffinitizeMask",
                                           "HeapCount",
                                           "NoAffinitize",
                                           "RetainVm",
                                           "Server",
                                           "Arguments",
                                           "BuildConfiguration",
                                           "Clock",
                                           "EngineFactory",
                                           "NuGetReferences",
                                           "Toolchain",
                                           "IsMutator",
                                           "InvocationCount",
                                           "IterationCount",
                                           "IterationTime",
                                           "LaunchCount",
                                           "MaxIterationCount",
                                           "MaxWarmupIterationCount",
                                           "MemoryRandomization",
                                           "MinIterationCount",
                                           "MinWarmupIterationCount",
                                           "RunStrategy",
                                           "UnrollFactor",
                                           "WarmupCount",
                                           "Id",
                                           "Baseline",
                                           "Categories",
                                           NULL };

static const char *const stat_columns[] = { "Mean",        "Error", "StdDev", "Median", "Min",
                                            "Max",         "Q1",    "Q3",     "Op/s",   "Ratio",
                                            "RatioSD",     "Gen0",  "Gen1",   "Gen2",   "Allocated",
                                            "Alloc Ratio", "Rank",  NULL };

static int
in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

static char
separator(const pp_bdn_reader *r)
{
    return r->buf[r->pos + 6]; /* the header starts "Method" + separator (detect()) */
}

/* Split the line at r->pos into fields (owned strings, quotes removed).
 * Returns the number of fields, or < 0 on an error (sticky). *line_start is
 * where the line began. */
static int
split(pp_bdn_reader *r, char sep, char ***out, uint32_t *nout, size_t *line_start, pp_error *err)
{
    size_t p = r->pos;
    char **f = NULL;
    uint32_t n = 0, cap = 0;

    *line_start = p;
    for (;;) {
        size_t cap_s = 64, len = 0;
        char *s = malloc(cap_s);
        int quoted = 0;

        if (s == NULL)
            goto nomem;
        if (p < r->len && r->buf[p] == '"') {
            quoted = 1;
            p++;
        }
        for (;;) {
            char c;

            if (p >= r->len) {
                if (quoted) {
                    free(s);
                    for (uint32_t i = 0; i < n; i++)
                        free(f[i]);
                    free(f);
                    return pp_bdn_fail(r, err, PP_EFORMAT, *line_start,
                                       "unterminated quoted "
                                       "cell: the CSV summary is cut short");
                }
                break;
            }
            c = r->buf[p];
            if (quoted && c == '"') {
                if (p + 1 < r->len && r->buf[p + 1] == '"') {
                    p += 2;
                    c = '"';
                } else {
                    quoted = 0;
                    p++;
                    continue;
                }
            } else if (!quoted && (c == sep || c == '\n' || c == '\r')) {
                break;
            } else {
                p++;
            }
            if (len + 2 > cap_s) {
                char *g = realloc(s, cap_s *= 2);

                if (g == NULL) {
                    free(s);
                    goto nomem;
                }
                s = g;
            }
            s[len++] = c;
        }
        s[len] = '\0';
        if (n == cap) {
            uint32_t nc = cap ? cap * 2 : 16;
            char **g = nc <= PP_BDN_MAX_COLUMNS * 2 ? realloc(f, nc * sizeof *g) : NULL;

            if (g == NULL) {
                free(s);
                for (uint32_t i = 0; i < n; i++)
                    free(f[i]);
                free(f);
                if (nc > PP_BDN_MAX_COLUMNS * 2)
                    return pp_bdn_fail(r, err, PP_ELIMIT, *line_start,
                                       "more than %u cells "
                                       "in a line",
                                       PP_BDN_MAX_COLUMNS);
                return pp_bdn_fail(r, err, PP_ENOMEM, *line_start, "out of memory");
            }
            f = g;
            cap = nc;
        }
        f[n++] = s;
        if (n > PP_BDN_MAX_COLUMNS) {
            for (uint32_t i = 0; i < n; i++)
                free(f[i]);
            free(f);
            return pp_bdn_fail(r, err, PP_ELIMIT, *line_start, "more than %u cells in a line",
                               PP_BDN_MAX_COLUMNS);
        }
        if (p < r->len && r->buf[p] == sep) {
            p++;
            continue;
        }
        break;
    }
    if (p < r->len && r->buf[p] == '\r')
        p++;
    if (p < r->len && r->buf[p] == '\n')
        p++;
    r->pos = p;
    *out = f;
    *nout = n;
    return (int)n;
nomem:
    for (uint32_t i = 0; i < n; i++)
        free(f[i]);
    free(f);
    return pp_bdn_fail(r, err, PP_ENOMEM, *line_start, "out of memory");
}

static void
free_fields(char **f, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(f[i]);
    free(f);
}

static int
col_index(const pp_bdn_reader *r, const char *name)
{
    for (uint32_t i = 0; i < r->ncols; i++)
        if (strcmp(r->cols[i], name) == 0)
            return (int)i;
    return -1;
}

/* "1,080.6 ns" -> 1080.6 (and the unit after the number). 1 parsed, 0 "-",
 * "NA" or empty, -1 not a number. */
static int
number(const char *cell, char sep, double *out, const char **unit)
{
    char buf[64];
    size_t n = 0;
    const char *p = cell;
    char *end;

    while (*p == ' ')
        p++;
    if (*p == '\0' || strcmp(p, "-") == 0 || strcmp(p, "NA") == 0 || strcmp(p, "?") == 0)
        return 0;
    for (; *p != '\0' && *p != ' ' && n + 1 < sizeof buf; p++) {
        if (sep == ',' && *p == ',')
            continue; /* thousands */
        if (sep != ',' && (*p == '.' || (unsigned char)*p == 0xA0))
            continue;
        buf[n++] = sep != ',' && *p == ',' ? '.' : *p;
    }
    buf[n] = '\0';
    *out = strtod(buf, &end);
    if (end == buf || *end != '\0' || !isfinite(*out))
        return -1;
    while (*p == ' ' || (unsigned char)*p == 0xC2 || (unsigned char)*p == 0xA0)
        p++;
    *unit = p;
    return 1;
}

static double
time_scale(const char *u)
{
    if (strcmp(u, "ns") == 0 || *u == '\0')
        return 1;
    if (strcmp(u, "us") == 0 || strcmp(u, "\xCE\xBCs") == 0 || strcmp(u, "\xC2\xB5s") == 0)
        return 1e3;
    if (strcmp(u, "ms") == 0)
        return 1e6;
    if (strcmp(u, "s") == 0)
        return 1e9;
    return -1;
}

static double
size_scale(const char *u, int *rounded)
{
    *rounded = strcmp(u, "B") != 0;
    if (strcmp(u, "B") == 0)
        return 1;
    if (strcmp(u, "KB") == 0)
        return 1024.0;
    if (strcmp(u, "MB") == 0)
        return 1024.0 * 1024.0;
    if (strcmp(u, "GB") == 0)
        return 1024.0 * 1024.0 * 1024.0;
    return -1;
}

static int
header(pp_bdn_reader *r, pp_error *err)
{
    size_t at;
    int rc;

    r->sep = separator(r);
    rc = split(r, r->sep, &r->cols, &r->ncols, &at, err);

    if (rc < 0)
        return rc;
    if (col_index(r, "Mean") < 0)
        return pp_bdn_fail(r, err, PP_EFORMAT, at,
                           "CSV header has no \"Mean\" column: not a "
                           "BenchmarkDotNet summary (CsvExporter)");
    r->started = 1;
    return PP_OK;
}

static int
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = (*len + n + 1) * 2;
        char *g = realloc(*buf, nc);

        if (g == NULL)
            return PP_ENOMEM;
        *buf = g;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return PP_OK;
}

int
pp_bdn_csv_next(pp_bdn_reader *r, pp_error *err)
{
    char sep;
    pp_bench_result *b = &r->cur;
    char **f = NULL, *s = NULL;
    uint32_t n = 0;
    size_t at, slen = 0, scap = 0, off_bench, off_params, off_job;
    int imean, ijob, rc;
    int rounded = 0;

    if (!r->started && (rc = header(r, err)) != PP_OK)
        return rc;
    sep = r->sep;
    while (r->pos < r->len && (r->buf[r->pos] == '\n' || r->buf[r->pos] == '\r'))
        r->pos++;
    if (r->pos >= r->len)
        return 0;
    if ((rc = split(r, sep, &f, &n, &at, err)) < 0)
        return rc;
    if (n != r->ncols) {
        free_fields(f, n);
        if (r->pos >= r->len && r->count > 0) {
            pp_bdn_truncated(r, at, "inside a CSV row");
            return 0;
        }
        return pp_bdn_fail(r, err, PP_EFORMAT, at, "expected %u cells as in the header, found %u",
                           r->ncols, n);
    }
    memset(b, 0, sizeof *b);
    imean = col_index(r, "Mean");
    ijob = col_index(r, "Job");
    /* strings: benchmark \0 params \0 job \0 */
    rc = append(&s, &slen, &scap, f[0], strlen(f[0]));
    off_bench = 0;
    slen++;
    off_params = slen;
    for (int c = ijob + 1; rc == PP_OK && c < imean; c++) {
        if (in_list(job_columns, r->cols[c]) || in_list(stat_columns, r->cols[c]))
            continue;
        if (slen > off_params)
            rc = append(&s, &slen, &scap, ", ", 2);
        if (rc == PP_OK)
            rc = append(&s, &slen, &scap, r->cols[c], strlen(r->cols[c]));
        if (rc == PP_OK)
            rc = append(&s, &slen, &scap, "=", 1);
        if (rc == PP_OK)
            rc = append(&s, &slen, &scap, f[c], strlen(f[c]));
    }
    if (rc == PP_OK)
        rc = append(&s, &slen, &scap, "", 0);
    slen++;
    off_job = slen;
    if (rc == PP_OK)
        rc = append(&s, &slen, &scap, ijob >= 0 ? f[ijob] : "", ijob >= 0 ? strlen(f[ijob]) : 0);
    if (rc != PP_OK) {
        free(s);
        free_fields(f, n);
        return pp_bdn_fail(r, err, PP_ENOMEM, at, "out of memory");
    }
    free(r->cur_strings);
    r->cur_strings = s;
    r->cur_strings_cap = scap;
    b->benchmark = s + off_bench;
    b->full_name = s + off_bench;
    b->parameters = s + off_params;
    b->job = s + off_job;
    b->display_info = "";
    {
        static const struct {
            const char *col;
            size_t off;
        } times[] = {
            { "Mean", offsetof(pp_bench_result, mean_ns) },
            { "Error", offsetof(pp_bench_result, error_ns) },
            { "StdDev", offsetof(pp_bench_result, stddev_ns) },
            { "Median", offsetof(pp_bench_result, median_ns) },
            { "Min", offsetof(pp_bench_result, min_ns) },
            { "Max", offsetof(pp_bench_result, max_ns) },
        };
        static const struct {
            const char *col;
            size_t off;
        } gens[] = {
            { "Gen0", offsetof(pp_bench_result, gen0_per_1k) },
            { "Gen1", offsetof(pp_bench_result, gen1_per_1k) },
            { "Gen2", offsetof(pp_bench_result, gen2_per_1k) },
        };
        int have_mean = 0;

        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            int c = col_index(r, times[t].col);
            const char *unit = "";
            double v = 0, scale;
            int k;

            if (c < 0)
                continue;
            k = number(f[c], sep, &v, &unit);
            if (k < 0 || (k == 1 && (scale = time_scale(unit)) < 0)) {
                rc = pp_bdn_fail(r, err, PP_EFORMAT, at,
                                 "column %s: expected a time such as "
                                 "\"12.3 ns\", found \"%s\"",
                                 times[t].col, f[c]);
                free_fields(f, n);
                return rc;
            }
            if (k == 1) {
                *(double *)((char *)b + times[t].off) = v * scale;
                have_mean |= t == 0;
            }
        }
        if (have_mean)
            b->flags |= PP_BENCH_HAS_STATISTICS;
        for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++) {
            int c = col_index(r, gens[g].col);
            const char *unit = "";
            double v = 0;

            if (c >= 0 && number(f[c], sep, &v, &unit) == 1)
                *(double *)((char *)b + gens[g].off) = v;
        }
        {
            int c = col_index(r, "Allocated");
            const char *unit = "";
            double v = 0, scale;
            int k = c >= 0 ? number(f[c], sep, &v, &unit) : -2;

            if (k == -1 || (k == 1 && (scale = size_scale(unit, &rounded)) < 0)) {
                rc = pp_bdn_fail(r, err, PP_EFORMAT, at,
                                 "column Allocated: expected a size "
                                 "such as \"1408 B\", found \"%s\"",
                                 f[c]);
                free_fields(f, n);
                return rc;
            }
            if (k == 1) {
                b->bytes_per_op = pp_i64_from_double(round(v * scale));
                b->flags |= PP_BENCH_HAS_MEMORY | (rounded ? PP_BENCH_ALLOC_ROUNDED : 0);
            } else if (k == 0 && strcmp(f[c], "-") == 0) {
                b->flags |= PP_BENCH_HAS_MEMORY; /* "-": zero */
            }
        }
    }
    free_fields(f, n);
    return 1;
}
