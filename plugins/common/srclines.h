/* plugins/common: a `source` column (issue #42) for tables whose rows are
 * frames: the file:line (host: PP_SYM_SOURCE, from the portable PDB) of
 * each row's frame, the line most of the row's weight (samples, bytes) ran,
 * allocated or called from; and why application frames have none (no
 * IL-to-native map, no or a refused PDB). cpu's `running` and alloc's
 * `by_frame` use it; the findings' wording lives here only. */
#ifndef PP_PC_SRCLINES_H
#define PP_PC_SRCLINES_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "agg.h"

typedef struct pp_pc_srclines {
    const pp_host_api *host;
    const pp_trace_source *trace;
    pp_pc_agg lines;      /* key: row "\t" file:line; weight */
    uint32_t *stack_line; /* [nstacks] row in lines + 1, 0: none */
    uint8_t *noted;       /* [nstacks] 1 once the stack's frame was looked up */
    uint32_t nstacks;
    char why_map[512]; /* the first "no IL-to-native map" reason */
    char why_pdb[640]; /* the first PDB refused / missing reason */
    uint32_t app_frames, app_lined;
    uint64_t *ips; /* pp_pc_srclines_ips' buffer */
    uint32_t ips_cap;
} pp_pc_srclines;

/* NULL when the host cannot give source lines (no PP_HOST_SYM_SOURCE), the
 * trace is NULL, or out of memory; else ready for nstacks stacks of trace. */
pp_pc_srclines *pp_pc_srclines_new(const pp_host_api *h, const pp_trace_source *trace,
                                   uint32_t nstacks);
void pp_pc_srclines_free(pp_pc_srclines *s);
/* A buffer for depth addresses (one stack's), or NULL. */
uint64_t *pp_pc_srclines_ips(pp_pc_srclines *s, uint32_t depth);
/* Stack `stack` belongs to row `row` through the frame at ip, the `at`-th
 * from the leaf (a return address when at > 0); app: 1 when that frame is
 * application code (its missing line is then told). A stack noted before
 * keeps its first note. PP_OK or PP_ENOMEM. */
int pp_pc_srclines_note(pp_pc_srclines *s, uint32_t stack, uint32_t row, uint64_t ip, uint32_t at,
                        int app);
/* 1 when stack was noted. */
int pp_pc_srclines_noted(const pp_pc_srclines *s, uint32_t stack);
/* weight (samples, bytes) of stack goes to its row's line. */
void pp_pc_srclines_add(pp_pc_srclines *s, uint32_t stack, int64_t weight);
/* Per row (nrows), its heaviest line, or NULL; free() the array (the
 * strings live in s). NULL when out of memory. */
const char **pp_pc_srclines_best(const pp_pc_srclines *s, uint32_t nrows);
/* STAGE.source_no_map / STAGE.source_no_pdb (information: the figures
 * stand, only the column is empty) when application frames lack lines. */
void pp_pc_srclines_findings(const pp_pc_srclines *s, const char *stage, pp_ctx *ctx);

#endif
