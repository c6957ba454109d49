/* The folded renderer: `frame;frame;... weight` per line, root first, the
 * input flamegraph.pl and inferno read. Equal stacks are merged and lines
 * sorted frame by frame, so the output is deterministic; rows with a zero,
 * negative or null weight are left out (a flame graph has no width for
 * them). Line breaks inside a stack become spaces.
 *
 * Weights: time where the table has it (pp_render_opts.weight), printed in
 * milliseconds with the exact decimals the table holds (3 for a table of
 * milliseconds, 6 for one of nanoseconds), so the lines re-sum to the
 * table's total exactly; flamegraph.pl and difffolded.pl read decimals.
 * Otherwise the whole count or bytes. */
#include "config.h"

#include <inttypes.h>

#include <perfpipe/perfpipe.h>

#include "result/render_util.h"

int
pp_render_folded(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                 FILE *out, pp_error *err)
{
    pp_stacks s;
    int rc;

    (void)doc;
    (void)st;
    if ((rc = pp_stacks_collect_ex(tj, o->weight, 0, &s, err)) != PP_OK)
        return rc;
    for (size_t i = 0; i < s.n; i++) {
        int64_t w = s.v[i].weight;
        for (const char *p = s.v[i].stack; *p; p++)
            fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
        if (s.ns_per_unit == 1000)
            fprintf(out, " %" PRId64 ".%03d\n", w / 1000, (int)(w % 1000));
        else if (s.ns_per_unit == 1)
            fprintf(out, " %" PRId64 ".%06d\n", w / 1000000, (int)(w % 1000000));
        else
            fprintf(out, " %" PRId64 "\n", w);
    }
    pp_stacks_free(&s);
    return pp_render_check_io(out, "folded", err);
}
