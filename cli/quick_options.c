/* The options `perfpipe ANALYZER FILE` adds for the one output it will
 * write, so that a stage builds no table that output never shows. The
 * analyzers' own defaults keep every table (a pipeline's document may be
 * rendered later in any format); only the quick path, which knows its one
 * output, trims. */
#include "config.h"

#include <string.h>

#include "cli.h"
#include "pipeline/pipeline.h"
#include "shipped.h"

/* The rows the shipped cpu pipeline's `top` gives every other table. */
#define QUICK_TOP_DEFAULT "25"

static int
in(const char *s, const char *const *list)
{
    for (; *list != NULL; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* The last value given for `key`, by flag (NULL = any flag). */
static const char *
given(const pp_pipeline_option_override *opts, const char *const *flags, size_t n, const char *key,
      const char *flag)
{
    const char *v = NULL;

    for (size_t i = 0; i < n; i++)
        if (strcmp(opts[i].key, key) == 0 && (flag == NULL || strcmp(flags[i], flag) == 0))
            v = opts[i].value;
    return v;
}

/* Appends key=value, set by "--format", unless the user gave key. */
static int
add(pp_pipeline_option_override *opts, const char **flags, size_t *n, size_t max, const char *key,
    const char *value)
{
    if (given(opts, flags, *n, key, NULL) != NULL)
        return 0;
    if (*n >= max) {
        pp_cli_error("too many options");
        return -1;
    }
    opts[*n] = (pp_pipeline_option_override){ "*", key, value };
    flags[(*n)++] = "--format";
    return 0;
}

int
pp_cli_quick_options(const char *analyzer, const char *format, const char *table,
                     const char *evidence_dir, pp_pipeline_option_override *opts,
                     const char **flags, size_t *n, size_t max)
{
    static const char *const text[] = { "table", "markdown", NULL };
    static const char *const per_thread[] = { "json", "csv", "speedscope", "pprof", NULL };
    static const char *const every_stack[] = { "folded", "speedscope", "pprof", NULL };
    const pp_cli_shipped *shipped = pp_cli_shipped_of(analyzer);
    int typed = pp_cli_shipped_has(analyzer, PP_SHIPPED_TYPED_STACKS);
    int heap = pp_cli_shipped_has(analyzer, PP_SHIPPED_HEAP);

    if (format == NULL)
        format = "table";
    /* alloc keeps its 1000 heaviest stacks (the rest in one row); the
     * formats other tools read as a whole profile get every stack */
    /* pprof labels alloc's samples with their type: by_type_stack */
    if (typed && strcmp(format, "pprof") == 0 && table == NULL &&
        add(opts, flags, n, max, "type-stacks", "true") < 0)
        return -1;
    if (typed && in(format, every_stack))
        return add(opts, flags, n, max, "top-stacks", "0");
    /* a picture of a counters run needs its samples (the series table) */
    if (shipped != NULL && shipped->picture != NULL &&
        (strcmp(format, "html") == 0 || strcmp(format, "svg") == 0))
        return add(opts, flags, n, max, shipped->picture, "true");
    /* a heap's pprof: every type is a sample of its own (else the types
     * past `top` are one "[other types]" sample) */
    if (heap && strcmp(format, "pprof") == 0 && table == NULL)
        return add(opts, flags, n, max, "top", "0");
    /* --evidence-dir keeps the whole document; --table picks any table */
    if (!pp_cli_shipped_has(analyzer, PP_SHIPPED_TRIM_STACKS) || evidence_dir != NULL ||
        table != NULL)
        return 0;
    /* A text report prints by_stack beside tables of `top` rows: 329,193
     * stacks of ~1.7 KB each on a 97 MB trace are neither readable nor
     * cheap. --top N still keeps all of them, cut by the renderer with a
     * note, as it cuts every table. */
    if (in(format, text) && given(opts, flags, *n, "top", "--top") == NULL) {
        const char *top = given(opts, flags, *n, "top", NULL);
        if (add(opts, flags, n, max, "top-stacks", top != NULL ? top : QUICK_TOP_DEFAULT) < 0)
            return -1;
    }
    /* by_thread_stack only feeds speedscope's per-thread profiles and pprof's
     * thread labels */
    if (pp_cli_shipped_has(analyzer, PP_SHIPPED_THREAD_STACKS) && !in(format, per_thread))
        return add(opts, flags, n, max, "thread-stacks", "false");
    return 0;
}
