/* The registry of shipped pipelines (shipped.h). */
#include "config.h"

#include <string.h>

#include "diag.h"
#include "shipped.h"

static const pp_cli_shipped rows[] = {
    { "alloc", NULL, "gc-verbose", PP_SHIPPED_TRIM_STACKS | PP_SHIPPED_TYPED_STACKS, NULL },
    { "cpu", NULL, NULL, PP_SHIPPED_TRIM_STACKS | PP_SHIPPED_THREAD_STACKS, NULL },
    { "db", NULL, "database", 0, NULL },
    { "gc", NULL, "gc-collect", 0, NULL },
    /* pipelines named for what they read */
    { "counters-csv", "counters", NULL, PP_SHIPPED_DIAG_COUNTERS, "series" },
    { "gcdump", "heap", NULL, PP_SHIPPED_HEAP, NULL },
    { "gcdump-diff", "heap-diff", NULL, PP_SHIPPED_HEAP | PP_SHIPPED_DIAG_HEAP_DIFF, NULL },
};
#define NROWS (sizeof rows / sizeof rows[0])

const pp_cli_shipped *
pp_cli_shipped_of(const char *analyzer)
{
    for (size_t i = 0; analyzer != NULL && i < NROWS; i++)
        if (strcmp(rows[i].analyzer, analyzer) == 0)
            return &rows[i];
    return NULL;
}

const pp_cli_shipped *
pp_cli_shipped_with(unsigned flag)
{
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].flags & flag)
            return &rows[i];
    return NULL;
}

int
pp_cli_shipped_has(const char *analyzer, unsigned flag)
{
    const pp_cli_shipped *s = pp_cli_shipped_of(analyzer);
    return s != NULL && (s->flags & flag) != 0;
}

const pp_diag_capture pp_diag_captures[] = {
    { "alloc", PP_DIAG_ALLOC, "gc-verbose", NULL, "alloc" },
    /* dotnet-common's runtime keywords plus Contention (0x4000); the
     * sampler's thread time: cpu's `running`, `waiting`, `exceptions` and
     * `contention` tables from one trace. */
    { "cpu", PP_DIAG_CPU | PP_DIAG_EXCEPTIONS | PP_DIAG_CONTENTION, "dotnet-sampled-thread-time",
      "Microsoft-Windows-DotNETRuntime:0x100003C01D:4", "cpu" },
    { "db", PP_DIAG_DB, "database", NULL, "db" },
    { "gc", PP_DIAG_GC, "gc-collect", NULL, "gc" },
};
const unsigned pp_diag_ncaptures = sizeof pp_diag_captures / sizeof pp_diag_captures[0];

const char *const pp_diag_axis_names[PP_DIAG_NAXES] = {
    "alloc", "cpu", "db", "gc", "exceptions", "contention", "heap",
};
