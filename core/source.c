/* The reader for each input kind. */
#include "config.h"

#include <string.h>

#include "source.h"
#include "ipc/capture_source.h"

static const pp_source_ops *const sources[] = {
    &pp_nettrace_source_ops,
    &pp_gcdump_source_ops,
    &pp_counters_source_ops,
    &pp_spans_source_ops,
    &pp_bdn_source_ops,
    &pp_load_source_ops,
};

const pp_source_ops *
pp_source_lookup(const char *kind)
{
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
        if (strcmp(sources[i]->kind, kind) == 0)
            return sources[i];
    return NULL;
}

const pp_source_ops *
pp_source_for_input(const char *kind, const char *path)
{
    /* A nettrace input whose path is a capture spec is read live. */
    if (strcmp(kind, "nettrace") == 0 && pp_capture_spec_is(path))
        return &pp_capture_source_ops;
    if (strcmp(kind, "gcdump") == 0 && pp_capture_spec_is(path))
        return &pp_gcdump_capture_source_ops;
    /* A counters input that is a trace of `collect --counters`. */
    size_t n = path ? strlen(path) : 0;
    if (strcmp(kind, "counters") == 0 && n > 9 && strcmp(path + n - 9, ".nettrace") == 0)
        return &pp_counters_nettrace_source_ops;
    return pp_source_lookup(kind);
}
