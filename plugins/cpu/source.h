/* plugins/cpu: the `source` column of `running` (issue #42): the file:line
 * (host: PP_SYM_SOURCE, from the portable PDB) of each row's responsible
 * frame, the line most of the row's samples ran or called from; and why
 * application frames have none (no IL-to-native map, no or a refused PDB). */
#ifndef PP_CPU_SOURCE_H
#define PP_CPU_SOURCE_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"

typedef struct pp_cpu_source {
    const pp_host_api *host;
    const pp_trace_source *trace;
    pp_pc_agg lines;      /* key: row "\t" file:line; samples */
    uint32_t *stack_line; /* [nstacks] row in lines + 1, 0: none */
    uint32_t nstacks;
    char why_map[512]; /* the first "no IL-to-native map" reason */
    char why_pdb[640]; /* the first PDB refused / missing reason */
    uint32_t app_frames, app_lined;
    uint64_t *ips; /* pp_cpu_source_ips' buffer */
    uint32_t ips_cap;
} pp_cpu_source;

/* NULL when the host cannot give source lines (no PP_HOST_SYM_SOURCE) or
 * out of memory; else ready for nstacks stacks of trace. */
pp_cpu_source *pp_cpu_source_new(const pp_host_api *h, const pp_trace_source *trace,
                                 uint32_t nstacks);
void pp_cpu_source_free(pp_cpu_source *s);
/* A buffer for depth addresses (one stack's), or NULL. */
uint64_t *pp_cpu_source_ips(pp_cpu_source *s, uint32_t depth);
/* Stack `stack` belongs to running row `row` through the frame at ip, the
 * `at`-th from the leaf (a return address when at > 0); app: 1 when that
 * frame is application code (its missing line is then told). */
int pp_cpu_source_note(pp_cpu_source *s, uint32_t stack, uint32_t row, uint64_t ip, uint32_t at,
                       int app);
void pp_cpu_source_add(pp_cpu_source *s, uint32_t stack, int64_t samples);
/* Per running row (nrows), its most-sampled line, or NULL; free() it. */
const char **pp_cpu_source_best(const pp_cpu_source *s, uint32_t nrows);
/* cpu.source_no_map / cpu.source_no_pdb when application frames lack lines. */
void pp_cpu_source_findings(const pp_cpu_source *s, const pp_host_api *h, pp_ctx *ctx);

#endif
