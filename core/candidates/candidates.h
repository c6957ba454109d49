/* Private: ranked optimization candidates from one or more results.
 *
 * A diagnosis ends with what to change. Candidates rank on one scale, the
 * estimated cost per unit of work (candidates_cost.h: ms of running,
 * database or removable blocked time, bytes converted to time; per request,
 * else per second of capture), so rows from different captures and axes
 * compare; shares stay as evidence. One row per place a fix lands: a
 * framework frame's cost moves to the application frame that calls it (no
 * caller: a followup, never a candidate), rows of one target merge. Each
 * row carries its evidence, the rules (fix shapes) its evidence matches,
 * where the fix lands and a verification plan. Tooling follow-ups are a
 * separate table, never mixed in with candidates. */
#ifndef PP_CORE_CANDIDATES_H
#define PP_CORE_CANDIDATES_H

#include <stddef.h>
#include <jansson.h>

#include <perfpipe/error.h>

struct pp_ruleset;

/* docs: validated result documents; rules: the rules in force (borrowed;
 * NULL: none); alloc_ms_per_mib: the conversion of bytes to time (<= 0:
 * PP_CAND_ALLOC_MS_PER_MIB). *out: a new result document (pipeline "candidates") with
 * tables `candidates` (at most top rows; each with the rules matching it in
 * columns `rules` and `fix` and, per row, in the table's `row_rules` array
 * of {id, fix, confidence, doc, experimental} lists), `followups` (tooling) and
 * `rule_findings` (rules that report on their own, docs/rules.md). */
int pp_candidates(const json_t *const *docs, size_t ndocs, size_t top,
                  const struct pp_ruleset *rules, double alloc_ms_per_mib, json_t **out,
                  pp_error *err);

#endif
