/* plugins/alloc: the totals and findings of a report, from the figures its
 * tables were folded with (report.c). */
#ifndef PP_ALLOC_REPORT_TOTALS_H
#define PP_ALLOC_REPORT_TOTALS_H

#include <stdint.h>

#include "alloc.h"

#define NO_STACK_NAME "[no stack]"
/* The last row of a cut by_stack: every stack past top-stacks, summed. */
#define OTHER_STACKS_NAME "[other stacks]"

/* What the totals and findings need of the folded report. */
typedef struct pp_alloc_figures {
    int64_t total_bytes, total_ticks;
    int64_t stack_frames, stack_unresolved; /* tick-weighted */
    int64_t unresolved_resp_bytes;
    uint32_t cut_stacks, listed_stacks; /* by_stack past top-stacks */
    int64_t cut[2];                     /* their bytes and ticks */
} pp_alloc_figures;

/* The report's totals (sampled bytes, ticks, duration, rates, shares) and
 * findings (no ticks, window, sampling, cut stacks, malformed or missing
 * stacks, unresolved frames, a total below expect-min-bytes) into ctx.
 * PP_OK, or the host's error from storing a total. */
int pp_alloc_emit_totals(pp_alloc *a, pp_ctx *ctx, const pp_alloc_figures *r);

#endif
