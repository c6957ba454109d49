/* plugins/alloc: by_type_stack, every folded stack per allocated type.
 *
 * by_stack merges the types of a stack, by_type_frame keeps only the
 * responsible frame: a profile that labels each stack's samples with their
 * type (pprof's "type" label) needs both at once. A deep trace has hundreds
 * of thousands of stacks, each repeated per type: by default the table keeps
 * as many rows as by_stack (top-stacks; rules read the types allocated under
 * a frame from it: docs/rules.md, callee_types), the option type-stacks
 * every row (`perfpipe alloc FILE --format pprof` sets it). */
#ifndef PP_ALLOC_TYPE_STACKS_H
#define PP_ALLOC_TYPE_STACKS_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/agg.h"
#include "../common/strtab.h"
#include "folded.h"

/* Add bytes and ticks (d[0], d[1]) of type id `type` on folded stack
 * `folded` (UINT32_MAX: no stack) to a (2 columns). PP_OK or PP_ENOMEM. */
int pp_alloc_type_stack_add(pp_pc_agg *a, uint32_t type, uint32_t folded, const int64_t *d);

/* by_type_stack's columns (its declaration's, alloc.c), NULL-terminated. */
extern const pp_column pp_alloc_type_stack_columns[];

/* The table by_type_stack (stack, bytes, samples, type) by bytes then
 * ticks descending: its `top` heaviest rows (0 = every row), the rest summed
 * in one row whose stack and type are `other`. no_stack names the
 * stackless rows. */
int pp_alloc_emit_type_stacks(const pp_host_api *h, pp_ctx *ctx, const pp_pc_agg *a,
                              const pp_pc_strtab *types, pp_alloc_folded *folded,
                              const char *no_stack, int64_t top, const char *other);

#endif
