/* The tables of a candidates document besides candidates (candidates_emit.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "candidates_emit.h"
#include "rules/calltypes.h"

void
pp_cand_source_name(const json_t *doc, const json_t *stage, char *buf, size_t size)
{
    const char *p = json_string_value(json_object_get(doc, "pipeline"));
    const char *s = json_string_value(json_object_get(stage, "id"));

    snprintf(buf, size, "%s/%s", p ? p : "?", s ? s : "?");
}

/* The table object `name` of stage (to add row-aligned data to it). */
json_t *
pp_cand_table_obj(const json_t *stage, const char *name)
{
    /* the stage is the caller's to add to: the table is not const */
    return (json_t *)pp_ev_stage_table(stage, name);
}

/* Tooling follow-ups: every warning or error the inputs raised (rule
 * findings go to rule_findings, judged with the rules in force). */
int
pp_cand_emit_followups(const json_t *const *docs, size_t ndocs, pp_table *f, pp_error *err)
{
    int rc = PP_OK;

    for (size_t d = 0; d < ndocs && rc == PP_OK; d++) {
        size_t i, k;
        json_t *s, *fd;

        json_array_foreach(json_object_get(docs[d], "stages"), i, s)
            json_array_foreach(json_object_get(s, "findings"), k, fd) {
                const char *sev = json_string_value(json_object_get(fd, "severity"));
                const char *code = json_string_value(json_object_get(fd, "code"));
                char source[256];
                pp_cell row[4];

                if (sev == NULL || strcmp(sev, "info") == 0 ||
                    (code != NULL && strncmp(code, "rule.", 5) == 0))
                    continue;
                pp_cand_source_name(docs[d], s, source, sizeof source);
                row[0] = pp_cell_str(source);
                row[1] = pp_cell_str(sev);
                row[2] = pp_cell_str(code);
                row[3] = pp_cell_str(json_string_value(json_object_get(fd, "message")));
                if ((rc = pp_result_table_row(f, row, err)) != PP_OK)
                    break;
            }
    }
    return rc;
}

typedef struct finding_job {
    pp_table *t;
    const char *source;
    pp_error *err;
    int rc;
} finding_job;

static void
add_rule_finding(void *user, const pp_rule *r, const char *text)
{
    finding_job *j = user;
    pp_cell row[5];

    if (j->rc != PP_OK)
        return;
    row[0] = pp_cell_str(j->source);
    row[1] = pp_cell_str(r->id);
    row[2] = pp_cell_str(r->finding == PP_RULE_FINDING_WARNING ? "warning" : "info");
    row[3] = pp_cell_str(pp_rule_confidence(r));
    row[4] = pp_cell_str(text);
    j->rc = pp_result_table_row(j->t, row, j->err);
}

/* Rules that report on their own, over every stage of the inputs. */
int
pp_cand_emit_rule_findings(const json_t *const *docs, size_t ndocs, const pp_ruleset *rules,
                           pp_ev_cache *cache, pp_table *t, pp_error *err)
{
    finding_job job = { t, NULL, err, PP_OK };

    for (size_t d = 0; d < ndocs && rules != NULL && job.rc == PP_OK; d++) {
        size_t i;
        json_t *s;

        json_array_foreach(json_object_get(docs[d], "stages"), i, s) {
            char source[256];

            pp_cand_source_name(docs[d], s, source, sizeof source);
            job.source = source;
            pp_rules_stage_findings(rules, cache, docs, ndocs, s, add_rule_finding, &job);
        }
    }
    return job.rc;
}
