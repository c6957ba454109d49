/* load: a load-test result (input kind load) as latency percentiles,
 * throughput, status counts and the run's caveats. The records are copied
 * here (they are borrowed); report.c builds the results at finish. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

static const pp_option_decl options[] = {
    { "error_percent", PP_OPT_DOUBLE, 0, "0",
      "warn (load.errors) when more than this percentage of the requests failed" },
};

static int
ld_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    ld_state *st = calloc(1, sizeof *st);

    (void)ctx;
    if (st == NULL) {
        host->error_set(err, PP_ENOMEM, "load: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    if (host->opt_double(opts, "error_percent", &st->error_percent) != PP_OK)
        st->error_percent = 0;
    if (st->error_percent < 0 || st->error_percent > 100) {
        free(st);
        host->error_set(err, PP_EINVAL, "load: error_percent must be 0..100");
        return PP_EINVAL;
    }
    *out = st;
    return PP_OK;
}

static pp_load_count *
copy_counts(const pp_load_count *c, uint32_t n)
{
    pp_load_count *d = calloc(n ? n : 1, sizeof *d);

    for (uint32_t i = 0; d != NULL && i < n; i++) {
        d[i].count = c[i].count;
        if ((d[i].name = strdup(c[i].name)) == NULL) {
            for (uint32_t k = 0; k < i; k++)
                free((char *)d[k].name);
            free(d);
            return NULL;
        }
    }
    return d;
}

static pp_load_threshold *
copy_thresholds(const pp_load_threshold *t, uint32_t n)
{
    pp_load_threshold *d = calloc(n ? n : 1, sizeof *d);

    for (uint32_t i = 0; d != NULL && i < n; i++) {
        d[i] = t[i];
        d[i].metric = strdup(t[i].metric);
        d[i].expr = strdup(t[i].expr);
        if (d[i].metric == NULL || d[i].expr == NULL) {
            for (uint32_t k = 0; k <= i; k++) {
                free((char *)d[k].metric);
                free((char *)d[k].expr);
            }
            free(d);
            return NULL;
        }
    }
    return d;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The record's per-request latencies in ms, sorted, thinned to
 * LD_MAX_SAMPLES order statistics. PP_OK or PP_ENOMEM. */
static int
copy_samples(ld_scope *s, const pp_load_result *x)
{
    double *all;
    uint32_t n = 0;

    if (x->sample_count == 0 || x->samples_ns == NULL)
        return PP_OK;
    if ((all = malloc(x->sample_count * sizeof *all)) == NULL)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < x->sample_count; i++)
        if (isfinite(x->samples_ns[i]))
            all[n++] = x->samples_ns[i] / 1e6;
    qsort(all, n, sizeof *all, cmp_double);
    if (n > LD_MAX_SAMPLES) {
        for (uint32_t i = 0; i < LD_MAX_SAMPLES; i++)
            all[i] = all[(size_t)(((double)i + 0.5) * n / LD_MAX_SAMPLES)];
        n = LD_MAX_SAMPLES;
    }
    s->samples_ms = all;
    s->nsamples = n;
    return PP_OK;
}

static int
ld_consume(void *state, const pp_record *rec, pp_error *err)
{
    ld_state *st = state;
    const pp_load_result *x = rec->u.load;
    ld_scope *s;

    if (rec->kind != PP_KIND_LOAD)
        return PP_OK;
    if (st->nscopes == st->cap) {
        uint32_t cap = st->cap ? 2 * st->cap : 8;
        ld_scope *g = realloc(st->scopes, cap * sizeof *g);

        if (g == NULL)
            goto oom;
        st->scopes = g;
        st->cap = cap;
    }
    s = &st->scopes[st->nscopes];
    memset(s, 0, sizeof *s);
    /* a host older than the plugin's headers gives a shorter struct */
    memcpy(&s->x, x, x->struct_size < sizeof s->x ? x->struct_size : sizeof s->x);
    if (!PP_HAS_FIELD(x, pp_load_result, latency_samples))
        s->x.latency_samples = -1;
    s->x.statuses = NULL;
    s->x.error_kinds = NULL;
    s->x.thresholds = NULL;
    s->x.samples_ns = NULL;
    s->scope = strdup(x->scope);
    s->statuses = copy_counts(x->statuses, x->status_count);
    s->kinds = copy_counts(x->error_kinds, x->error_kind_count);
    s->thresholds = copy_thresholds(x->thresholds, x->threshold_count);
    s->nstatus = x->status_count;
    s->nkinds = x->error_kind_count;
    s->nthresholds = x->threshold_count;
    st->nscopes++;
    if (s->scope == NULL || s->statuses == NULL || s->kinds == NULL || s->thresholds == NULL ||
        copy_samples(s, x) != PP_OK)
        goto oom;
    if (st->tool == NULL &&
        ((st->tool = strdup(x->tool)) == NULL || (st->format = strdup(x->format)) == NULL ||
         (st->url = strdup(x->url)) == NULL))
        goto oom;
    return PP_OK;
oom:
    st->host->error_set(err, PP_ENOMEM, "load: out of memory");
    return PP_ENOMEM;
}

static int
ld_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return ld_report(state, ctx, err);
}

static void
free_counts(pp_load_count *c, uint32_t n)
{
    for (uint32_t i = 0; c != NULL && i < n; i++)
        free((char *)c[i].name);
    free(c);
}

static void
ld_destroy(void *state)
{
    ld_state *st = state;

    for (uint32_t i = 0; i < st->nscopes; i++) {
        ld_scope *s = &st->scopes[i];

        free(s->scope);
        free_counts(s->statuses, s->nstatus);
        free_counts(s->kinds, s->nkinds);
        for (uint32_t k = 0; s->thresholds != NULL && k < s->nthresholds; k++) {
            free((char *)s->thresholds[k].metric);
            free((char *)s->thresholds[k].expr);
        }
        free(s->thresholds);
        free(s->samples_ms);
    }
    free(st->scopes);
    free(st->tool);
    free(st->format);
    free(st->url);
    free(st);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "load",
    .version = "1.0.0",
    .summary = "L2 load-test results: latency percentiles, throughput, errors, the run's knobs",
    .input_kinds = PP_KIND_LOAD,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof options / sizeof options[0],
    .options = options,
    .create = ld_create,
    .consume = ld_consume,
    .finish = ld_finish,
    .destroy = ld_destroy,
    .tables = ld_tables,
};

PP_PLUGIN_DEFINE(descriptor);
