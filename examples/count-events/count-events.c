/* count-events: a third-party perfpipe analyzer, built out of tree against
 * the installed headers only (see Makefile beside this file).
 *
 * It answers "what is in this capture?": records per input kind, and for
 * traces, events and payload bytes per provider — the first question to ask
 * of a trace that gives an analyzer nothing (wrong profile, wrong process).
 *
 * Everything it needs comes through the host table; it links only libc. */
/* strdup is POSIX, not C11. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#define MAX_PROVIDERS 256

typedef struct provider_count {
    char *name;
    int64_t events;
    int64_t payload_bytes;
    int64_t with_stack;
} provider_count;

typedef struct state {
    const pp_host_api *host;
    int64_t per_kind[4];
    provider_count providers[MAX_PROVIDERS];
    size_t nproviders;
    int64_t other_providers; /* events past MAX_PROVIDERS distinct names */
    int64_t min_events;
} state;

static const pp_option_decl options[] = {
    { "min-events", PP_OPT_INT, 0, "1", "hide providers with fewer events" },
};

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    state *s = calloc(1, sizeof *s);

    (void)ctx;
    if (s == NULL) {
        host->error_set(err, PP_ENOMEM, "count-events: out of memory");
        return PP_ENOMEM;
    }
    s->host = host;
    /* Options are validated and defaulted by the host before create. */
    s->min_events = 1;
    host->opt_int(opts, "min-events", &s->min_events);
    *out = s;
    return PP_OK;
}

static provider_count *
provider(state *s, const char *name)
{
    for (size_t i = 0; i < s->nproviders; i++)
        if (strcmp(s->providers[i].name, name) == 0)
            return &s->providers[i];
    if (s->nproviders == MAX_PROVIDERS || (s->providers[s->nproviders].name = strdup(name)) == NULL)
        return NULL;
    return &s->providers[s->nproviders++];
}

static int
consume(void *st, const pp_record *rec, pp_error *err)
{
    state *s = st;
    provider_count *p;

    (void)err;
    switch (rec->kind) {
    case PP_KIND_NETTRACE:
        s->per_kind[0]++;
        /* The provider string is borrowed: provider() keeps a copy. */
        if ((p = provider(s, rec->u.event->provider)) == NULL) {
            s->other_providers++;
            break;
        }
        p->events++;
        p->payload_bytes += rec->u.event->payload_size;
        if (rec->u.event->stack_depth > 0)
            p->with_stack++;
        break;
    case PP_KIND_GCDUMP: s->per_kind[1]++; break;
    case PP_KIND_COUNTERS: s->per_kind[2]++; break;
    case PP_KIND_SPANS: s->per_kind[3]++; break;
    default: break;
    }
    return PP_OK;
}

static int
by_events_desc(const void *a, const void *b)
{
    const provider_count *x = a, *y = b;

    return x->events < y->events ? 1 : x->events > y->events ? -1 : strcmp(x->name, y->name);
}

static int
finish(void *st, pp_ctx *ctx, pp_error *err)
{
    static const char *const kinds[] = { "nettrace", "gcdump", "counters", "spans" };
    static const pp_column kind_cols[] = {
        { "kind", PP_COL_STRING, 0 },
        { "records", PP_COL_COUNT, 0 },
    };
    static const pp_column prov_cols[] = {
        { "provider", PP_COL_STRING, 0 },
        { "events", PP_COL_COUNT, 0 },
        { "payload_bytes", PP_COL_BYTES, 0 },
        { "with_stack", PP_COL_COUNT, 0 },
    };
    state *s = st;
    const pp_host_api *h = s->host;
    pp_table *t = h->table_new(ctx, "by_kind", 2, kind_cols, 1);
    int64_t total = 0;

    (void)err;
    for (int k = 0; k < 4; k++) {
        pp_cell row[2] = { pp_cell_str(kinds[k]), pp_cell_int(s->per_kind[k]) };

        total += s->per_kind[k];
        if (s->per_kind[k] > 0)
            h->table_row(t, row);
    }
    qsort(s->providers, s->nproviders, sizeof s->providers[0], by_events_desc);
    if (s->per_kind[0] > 0) {
        t = h->table_new(ctx, "by_provider", 4, prov_cols, 1);
        for (size_t i = 0; i < s->nproviders; i++) {
            pp_cell row[4] = {
                pp_cell_str(s->providers[i].name),
                pp_cell_int(s->providers[i].events),
                pp_cell_int(s->providers[i].payload_bytes),
                pp_cell_int(s->providers[i].with_stack),
            };

            if (s->providers[i].events >= s->min_events)
                h->table_row(t, row);
        }
    }
    h->total_int(ctx, "records", PP_COL_COUNT, total);
    if (s->other_providers > 0)
        h->finding(ctx, PP_SEVERITY_WARNING, "count-events.too_many_providers",
                   "%lld events came from providers past the first %d distinct names and are "
                   "not listed",
                   (long long)s->other_providers, MAX_PROVIDERS);
    if (total == 0)
        h->finding(ctx, PP_SEVERITY_WARNING, "count-events.empty",
                   "the input holds no records: was the capture stopped before anything ran?");
    return PP_OK;
}

static void
destroy(void *st)
{
    state *s = st;

    for (size_t i = 0; i < s->nproviders; i++)
        free(s->providers[i].name);
    free(s);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "count-events",
    .version = "1.0.0",
    .summary = "records per input kind, and events and payload bytes per provider",
    .input_kinds = PP_KIND_NETTRACE | PP_KIND_GCDUMP | PP_KIND_COUNTERS | PP_KIND_SPANS,
    .input_slot_count = 1,
    .option_count = 1,
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
};

PP_PLUGIN_DEFINE(descriptor);
