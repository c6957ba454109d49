/* The reader for each input kind: the registry's row (registry/kinds.h),
 * or a live capture for a capture spec. */
#include "config.h"

#include <string.h>

#include "source.h"
#include "ipc/capture_source.h"
#include "registry/kinds.h"

const pp_source_ops *
pp_source_lookup(const char *kind)
{
    const pp_input_kind *k = pp_input_kind_named(kind);

    return k != NULL ? k->reader : NULL;
}

const pp_source_ops *
pp_source_for_input(const char *kind, const char *path)
{
    /* A nettrace input whose path is a capture spec is read live. */
    if (strcmp(kind, pp_nettrace_source_ops.kind) == 0 && pp_capture_spec_is(path))
        return &pp_capture_source_ops;
    if (strcmp(kind, pp_gcdump_source_ops.kind) == 0 && pp_capture_spec_is(path))
        return &pp_gcdump_capture_source_ops;
    /* A counters input that is a trace of `collect --counters` (also
     * compressed afterwards: unpack.h). */
    static const char *const packed[] = { "", ".xz", ".gz", ".zst" };
    size_t n = path ? strlen(path) : 0;
    for (size_t i = 0; strcmp(kind, pp_counters_source_ops.kind) == 0 && i < 4; i++) {
        size_t k = strlen(packed[i]);
        if (n > 9 + k && strcmp(path + n - k, packed[i]) == 0 &&
            strncmp(path + n - k - 9, ".nettrace", 9) == 0)
            return &pp_counters_nettrace_source_ops;
    }
    return pp_source_lookup(kind);
}
