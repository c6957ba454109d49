/* Private: ranked optimization candidates from one or more results.
 *
 * A diagnosis ends with what to change, ranked by the share of its axis
 * (allocation churn, time, footprint) each candidate accounts for, each with
 * its absolute figure, where it points (frame, method, command, type), the
 * evidence, and a verification plan: which pipeline to rerun with which
 * knobs, and which compare verdict would confirm the fix. Tooling
 * follow-ups (unresolved frames, wrong profile...) are a separate table,
 * never mixed in with candidates. */
#ifndef PP_CORE_CANDIDATES_H
#define PP_CORE_CANDIDATES_H

#include <stddef.h>
#include <jansson.h>

#include <perfpipe/error.h>

struct pp_ruleset;

/* docs: validated result documents; rules: the rules in force (borrowed;
 * NULL: none). *out: a new result document (pipeline "candidates") with
 * tables `candidates` (at most top rows; each with the rules matching it in
 * columns `rules` and `fix` and, per row, in the table's `row_rules` array
 * of {id, fix, confidence, doc} lists), `followups` (tooling) and
 * `rule_findings` (rules that report on their own, docs/rules.md). */
int pp_candidates(const json_t *const *docs, size_t ndocs, size_t top,
                  const struct pp_ruleset *rules, json_t **out, pp_error *err);

#endif
