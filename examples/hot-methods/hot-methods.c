/* hot-methods: a third-party perfpipe analyzer, built out of tree against
 * the installed headers only (see Makefile beside this file), that
 * describes its table (plugin ABI 1.5) so that perfpipe's rules, candidates
 * and compare can read it like a shipped analyzer's.
 *
 * It answers "which method is on top of the stack?": the leaf frame of each
 * SampleProfiler sample of a trace (dotnet-trace's default profile), as
 * samples and milliseconds (the runtime samples every thread once a
 * millisecond). A thread blocked in a wait has the wait on top: `perfpipe
 * cpu` tells running from waiting; this is the smallest honest example. Everything it needs comes through the host table; it links
 * only libc. */
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#define MS_PER_SAMPLE 1.0 /* EventPipe's default sampling interval */

typedef struct leaf {
    uint64_t ip;
    int64_t samples;
} leaf;

typedef struct method {
    const char *name; /* the host's, valid until finish returns */
    int64_t samples;
} method;

typedef struct state {
    const pp_host_api *host;
    const pp_trace_source *source;
    leaf *leaves; /* open addressing on ip; ip 0 = empty */
    size_t cap, count;
    int64_t top;
} state;

static const pp_option_decl options[] = {
    { "top", PP_OPT_INT, 0, "25", "methods listed, the hottest first" },
};

/* What finish builds: the subject a candidate names, the time figure it is
 * ranked by, and (table_new below) the columns themselves. */
static const pp_table_decl tables[] = {
    { .name = "hot",
      .columns = (const pp_column[]){ { "method", PP_COL_STRING, 0 },
                                      { "samples", PP_COL_COUNT, 0 },
                                      { "ms", PP_COL_NUMBER, 0 },
                                      { NULL, 0, 0 } },
      .key = (const char *const[]){ "method", NULL },
      .subject = "method",
      .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                           { "samples", "samples", PP_AXIS_TIME },
                                           { NULL, NULL, NULL } },
      /* candidates rank the methods by their time per unit of work */
      .candidate = &(const pp_candidate_decl){ .cost = "ms" } },
    { .name = NULL },
};

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    state *s = calloc(1, sizeof *s);

    (void)ctx;
    if (s == NULL || (s->leaves = calloc(1024, sizeof *s->leaves)) == NULL) {
        free(s);
        host->error_set(err, PP_ENOMEM, "hot-methods: out of memory");
        return PP_ENOMEM;
    }
    s->host = host;
    s->cap = 1024;
    s->top = 25;
    host->opt_int(opts, "top", &s->top);
    *out = s;
    return PP_OK;
}

static leaf *
slot(leaf *v, size_t cap, uint64_t ip)
{
    size_t i = (size_t)(ip * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (cap - 1);

    while (v[i].ip != 0 && v[i].ip != ip)
        i = (i + 1) & (cap - 1);
    return &v[i];
}

static int
grow(state *s)
{
    leaf *bigger = calloc(s->cap * 2, sizeof *bigger);

    if (bigger == NULL)
        return PP_ENOMEM;
    for (size_t i = 0; i < s->cap; i++)
        if (s->leaves[i].ip != 0)
            *slot(bigger, s->cap * 2, s->leaves[i].ip) = s->leaves[i];
    free(s->leaves);
    s->leaves = bigger;
    s->cap *= 2;
    return PP_OK;
}

static int
consume(void *st, const pp_record *rec, pp_error *err)
{
    state *s = st;
    const pp_trace_event *ev = rec->u.event;
    leaf *l;

    if (rec->kind != PP_KIND_NETTRACE || ev->provider_known != PP_PROVIDER_SAMPLE_PROFILER ||
        ev->stack_depth == 0 || ev->stack[0] == 0)
        return PP_OK;
    s->source = ev->source;
    if (2 * (s->count + 1) > s->cap && grow(s) != PP_OK) {
        s->host->error_set(err, PP_ENOMEM, "hot-methods: out of memory");
        return PP_ENOMEM;
    }
    l = slot(s->leaves, s->cap, ev->stack[0]);
    if (l->ip == 0) {
        l->ip = ev->stack[0];
        s->count++;
    }
    l->samples++;
    return PP_OK;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(((const method *)a)->name, ((const method *)b)->name);
}

static int
by_samples_desc(const void *a, const void *b)
{
    const method *x = a, *y = b;

    return x->samples < y->samples ? 1 : x->samples > y->samples ? -1 : strcmp(x->name, y->name);
}

/* Methods are named only now: the trace's method maps are complete once it
 * was read whole (rundown comes last). Leaves of one method sum. */
static int
finish(void *st, pp_ctx *ctx, pp_error *err)
{
    state *s = st;
    const pp_host_api *h = s->host;
    method *m = calloc(s->count + 1, sizeof *m);
    size_t n = 0, out = 0;
    pp_table *t;

    if (m == NULL) {
        h->error_set(err, PP_ENOMEM, "hot-methods: out of memory");
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < s->cap; i++)
        if (s->leaves[i].ip != 0) {
            m[n].name = h->trace_symbolize(s->source, s->leaves[i].ip, 0);
            m[n++].samples = s->leaves[i].samples;
        }
    qsort(m, n, sizeof *m, by_name);
    for (size_t i = 0; i < n; i++) {
        if (out > 0 && strcmp(m[out - 1].name, m[i].name) == 0)
            m[out - 1].samples += m[i].samples;
        else
            m[out++] = m[i];
    }
    qsort(m, out, sizeof *m, by_samples_desc);
    if ((t = h->table_new(ctx, "hot", 3, tables[0].columns, 1)) == NULL) {
        free(m);
        h->error_set(err, PP_ENOMEM, "hot-methods: out of memory");
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < out && (int64_t)i < s->top; i++) {
        pp_cell row[3] = { pp_cell_str(m[i].name), pp_cell_int(m[i].samples),
                           pp_cell_dbl((double)m[i].samples * MS_PER_SAMPLE) };

        if (h->table_row(t, row) != PP_OK)
            break;
    }
    free(m);
    return PP_OK;
}

static void
destroy(void *st)
{
    state *s = st;

    free(s->leaves);
    free(s);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "hot-methods",
    .version = "1.0.0",
    .summary = "which method is on top of the stack: leaf frames of CPU samples (an example)",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .option_count = sizeof options / sizeof options[0],
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
    .tables = tables,
};

PP_PLUGIN_DEFINE(descriptor);
