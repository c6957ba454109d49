/* A test plugin, compiled several times with different FIXTURE_* macros to
 * make one good plugin and one of each kind the loader must refuse or the
 * engine must contain:
 *   FIXTURE_NAME     the descriptor's name (default "fixture-good")
 *   FIXTURE_MAJOR/MINOR/SIZE  the ABI words it claims
 *   FIXTURE_MODE     0 good, 1 create fails, 2 consume crashes, 3 finish
 *                    fails, 4 breaks a rule (wrong cell type), 5 exports no
 *                    entry symbol, 6 finishes with an error-severity finding,
 *                    7 never returns from consume (a stage timeout)
 *   FIXTURE_FORK     1: has fork and merge (ABI 1.3), so a big trace may be
 *                    read into children on several threads and merged
 * The good one counts records per input slot and kind, so tests can check
 * that the engine handed it every record exactly once. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/plugin.h>

#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture-good"
#endif
#ifndef FIXTURE_MAJOR
#define FIXTURE_MAJOR PP_ABI_MAJOR
#endif
#ifndef FIXTURE_MINOR
#define FIXTURE_MINOR PP_ABI_MINOR
#endif
#ifndef FIXTURE_SIZE
#define FIXTURE_SIZE sizeof(pp_analyzer)
#endif
#ifndef FIXTURE_MODE
#define FIXTURE_MODE 0
#endif
#ifndef FIXTURE_FORK
#define FIXTURE_FORK 0
#endif

typedef struct state {
    const pp_host_api *host;
    pp_ctx *ctx;
    const pp_options *opts;
    uint64_t count[2][4]; /* [slot][kind bit index] */
    uint64_t events_with_stack;
    uint64_t stack_regions; /* sum of their stack_region: the numbering is the serial one */
    int64_t top;
} state;

static const pp_option_decl options[] = {
    { "top", PP_OPT_INT, 0, "10", "rows to keep" },
    { "label", PP_OPT_STRING, 0, "fixture", "a label echoed in the totals" },
    { "verbose", PP_OPT_BOOL, 0, "false", "log every record kind once" },
    { "names", PP_OPT_STRING_LIST, 0, "a,b", "a list option" },
};

static const char *const slots[] = { "first", "second" };

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    state *s;

    if (FIXTURE_MODE == 1) {
        host->error_set(err, PP_EINVAL, "refusing to start, as this fixture always does");
        return PP_EINVAL;
    }
    if ((s = calloc(1, sizeof *s)) == NULL) {
        host->error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    s->host = host;
    s->ctx = ctx;
    s->opts = opts;
    host->opt_int(opts, "top", &s->top);
    *out = s;
    return PP_OK;
}

static int
kind_index(uint32_t kind)
{
    switch (kind) {
    case PP_KIND_NETTRACE: return 0;
    case PP_KIND_GCDUMP: return 1;
    case PP_KIND_COUNTERS: return 2;
    default: return 3;
    }
}

static int
consume(void *st, const pp_record *rec, pp_error *err)
{
    state *s = st;

    (void)err;
    /* abort(), not a wild pointer: sanitizers intercept SIGSEGV and exit
     * instead, which would hide what the test checks. */
    if (FIXTURE_MODE == 2)
        abort();
    while (FIXTURE_MODE == 7)
        pause();
    s->count[rec->input_index & 1][kind_index(rec->kind)]++;
    if (rec->kind == PP_KIND_NETTRACE && rec->u.event->stack_depth > 0) {
        s->events_with_stack++;
        s->stack_regions += rec->u.event->stack_region;
    }
    return PP_OK;
}

static int
finish(void *st, pp_ctx *ctx, pp_error *err)
{
    static const char *const kinds[] = { "nettrace", "gcdump", "counters", "spans" };
    static const pp_column cols[] = {
        { "input", PP_COL_STRING, 0 },
        { "kind", PP_COL_STRING, 0 },
        { "records", PP_COL_COUNT, 0 },
    };
    state *s = st;
    pp_table *t;

    if (FIXTURE_MODE == 3) {
        s->host->error_set(err, PP_EFORMAT, "finish fails, as this fixture always does");
        return PP_EFORMAT;
    }
    if (FIXTURE_MODE == 6)
        s->host->finding(ctx, PP_SEVERITY_ERROR, "fixture.cannot_answer",
                         "this fixture never has an answer");
    t = s->host->table_new(ctx, "records", 3, cols, 2);
    for (int slot = 0; slot < 2; slot++)
        for (int k = 0; k < 4; k++) {
            pp_cell row[3];

            if (s->count[slot][k] == 0)
                continue;
            row[0] = pp_cell_str(slots[slot]);
            row[1] = pp_cell_str(kinds[k]);
            row[2] = FIXTURE_MODE == 4 ? pp_cell_str("not a count") :
                                         pp_cell_int((int64_t)s->count[slot][k]);
            s->host->table_row(t, row);
        }
    s->host->total_int(ctx, "events_with_stack", PP_COL_COUNT, (int64_t)s->events_with_stack);
    s->host->total_int(ctx, "top", PP_COL_COUNT, s->top);
    if (FIXTURE_FORK)
        s->host->total_int(ctx, "stack_regions", PP_COL_COUNT, (int64_t)s->stack_regions);
    return PP_OK;
}

static void
destroy(void *st)
{
    free(st);
}

#if FIXTURE_FORK
static int
fork_state(void *st, void **child, pp_error *err)
{
    state *s = st;

    return create(s->host, s->ctx, s->opts, child, err);
}

/* Counts add up: the merged table is the serial one. */
static int
merge(void *st, void *child, pp_error *err)
{
    state *s = st, *c = child;

    (void)err;
    for (int slot = 0; slot < 2; slot++)
        for (int k = 0; k < 4; k++)
            s->count[slot][k] += c->count[slot][k];
    s->events_with_stack += c->events_with_stack;
    s->stack_regions += c->stack_regions;
    return PP_OK;
}
#endif

static const pp_analyzer descriptor = {
    .struct_size = FIXTURE_SIZE,
    .abi_major = FIXTURE_MAJOR,
    .abi_minor = FIXTURE_MINOR,
    .name = FIXTURE_NAME,
    .version = "1.0.0",
    .summary = "test fixture: counts records per input",
    .input_kinds = PP_KIND_NETTRACE | PP_KIND_GCDUMP | PP_KIND_COUNTERS | PP_KIND_SPANS,
    .input_slot_count = 2,
    .input_slots = slots,
    .option_count = sizeof options / sizeof options[0],
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
#if FIXTURE_FORK
    .fork = fork_state,
    .merge = merge,
#endif
};

#if FIXTURE_MODE == 5
PP_PLUGIN_EXPORT const pp_analyzer *not_the_entry(void);
PP_PLUGIN_EXPORT const pp_analyzer *
not_the_entry(void)
{
    return &descriptor;
}
#else
PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);
PP_PLUGIN_EXPORT const pp_analyzer *
perfpipe_plugin_entry(void)
{
    return &descriptor;
}
#endif
