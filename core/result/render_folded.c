/* The folded renderer: `frame;frame;... weight` per line, root first, the
 * input flamegraph.pl and inferno read. Equal stacks are merged and lines
 * sorted frame by frame, so the output is deterministic; rows with a zero,
 * negative or null weight are left out (a flame graph has no width for
 * them). Line breaks inside a stack become spaces. */
#include "config.h"

#include <inttypes.h>

#include <perfpipe/perfpipe.h>

#include "result/render_util.h"

int
pp_render_folded(const json_t *doc, const json_t *st, const json_t *tj, FILE *out, pp_error *err)
{
    pp_stacks s;
    int rc;

    if ((rc = pp_stacks_collect(tj, &s, err)) != PP_OK)
        return rc;
    for (size_t i = 0; i < s.n; i++) {
        for (const char *p = s.v[i].stack; *p; p++)
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
        fprintf(out, " %" PRId64 "\n", s.v[i].weight);
    }
    pp_stacks_free(&s);
    return pp_render_check_io(out, "folded", err);
}
