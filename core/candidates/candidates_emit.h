/* Private: the tables of a candidates document that are not candidates:
 * `followups` (tooling warnings of the inputs, frames no fix lands in) and
 * `rule_findings` (rules that report on their own). */
#ifndef PP_CORE_CANDIDATES_EMIT_H
#define PP_CORE_CANDIDATES_EMIT_H

#include <stddef.h>
#include <jansson.h>

#include <perfpipe/error.h>

#include "result/result.h"
#include "rules/evidence.h"
#include "rules/rules.h"

/* "PIPELINE/STAGE" of a stage of doc. */
void pp_cand_source_name(const json_t *doc, const json_t *stage, char *buf, size_t size);

/* Every warning or error the inputs raised (rule findings excluded: they
 * go to rule_findings, judged with the rules in force), one row each. */
int pp_cand_emit_followups(const json_t *const *docs, size_t ndocs, pp_table *f, pp_error *err);

/* Rules that report on their own, over every stage of the inputs. */
int pp_cand_emit_rule_findings(const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
                               pp_ev_cache *cache, pp_table *t, pp_error *err);

/* The table object `name` of stage (to add row-aligned data to it). */
json_t *pp_cand_table_obj(const json_t *stage, const char *name);

#endif
