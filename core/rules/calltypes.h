/* Private: the `callee_types` view (docs/rules.md, Evidence): the types
 * each candidate frame's calls allocate, from the stage's table of one row
 * per stack and type (PP_COL_FLAG_STACK and PP_COL_FLAG_TYPE, ABI 1.8).
 * Tier-1 code inlines the framework frames a callee rule keys on (the
 * logging extension methods); what they allocate keeps its type. Also the
 * frames the derived views are of, which this view shares with callees. */
#ifndef PP_CORE_RULES_CALLTYPES_H
#define PP_CORE_RULES_CALLTYPES_H

#include <stddef.h>

#include <jansson.h>

#include "rules/evidence.h"

/* The table `name` of a stage object, or NULL. */
const json_t *pp_ev_stage_table(const json_t *stage, const char *name);

/* Add to `frames` (name -> 0.0) the subjects of the stage's tables that
 * give frame candidates (decl.candidate.frame), but for a table superseded
 * by one the stage has (no candidate comes from it then). */
void pp_ev_candidate_frames(json_t *frames, const json_t *stage);

/* The view's columns, "a:s,b:n" as evidence.c lists them, for a profile
 * whose weight column is `weight`. 0, or -1 when buf is too small. */
int pp_ev_callee_types_list(const char *weight, char *buf, size_t size);

/* Append the names of a "a:s,b:n" list (cut in place) to the array
 * columns. 0, or -1 when memory ran out. */
int pp_ev_list_columns(char *list, json_t *columns);

/* Build the view into *out from `profile`, a table of `stage` whose stack
 * column is `stack`, type column `type`, weight `weight` (its first figure
 * on an axis) and samples `samples` (NULL: none): for each candidate frame F
 * (pp_ev_candidate_frames) and each type, what is allocated on F's stacks
 * by F itself, the framework code it calls, and the next application frame
 * it calls (`via`, "" for F's own level), not deeper: what a second
 * application frame down allocates is that frame's caller's. share = the
 * weight / the weight of all of F's stacks, 0-100. 0, or -1 when memory ran
 * out (pp_jsonmem_lost counted). */
int pp_ev_callee_types(const json_t *stage, const json_t *profile, const char *stack,
                       const char *type, const char *weight, const char *samples, pp_ev_table *out);

#endif
