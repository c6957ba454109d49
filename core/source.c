/* The reader for each input kind. */
#include "config.h"

#include <string.h>

#include "source.h"

static const pp_source_ops *const sources[] = {
    &pp_nettrace_source_ops,
    &pp_gcdump_source_ops,
    &pp_counters_source_ops,
    &pp_spans_source_ops,
};

const pp_source_ops *
pp_source_lookup(const char *kind)
{
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (strcmp(sources[i]->kind, kind) == 0)
            return sources[i];
    return NULL;
}
