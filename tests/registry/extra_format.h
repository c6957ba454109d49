/* Force-included (-include) into a copy of core/result/formats.c for
 * tests/registry/perfpipe-extra: one dummy output format, added the way
 * HACKING.md says to add one (a renderer and one row), to prove that
 * usage, errors, validation and completion know a format from its row. */
#include "config.h"

#include <perfpipe/perfpipe.h>

#include "result/formats.h"

static int
pp_extra_dummy_render(const json_t *doc, const pp_render_opts *o, FILE *out, pp_error *err)
{
    (void)o;
    if (fprintf(out, "dummy-format: %zu stage(s)\n",
                json_array_size(json_object_get(doc, "stages"))) < 0) {
        pp_error_set(err, PP_EIO, "dummy-format: write failed");
        return PP_EIO;
    }
    return PP_OK;
}

#define PP_REGISTRY_EXTRA_FORMATS                                                      \
    { .name = "dummy-format", .kind = PP_FORMAT_DOCUMENT, .doc = pp_extra_dummy_render, \
      .summary = "a line per document (tests/registry)" },
