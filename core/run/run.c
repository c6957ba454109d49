/* Running a checked pipeline: the declared model becomes the engine's plan. */
#include "config.h"

#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "isolate.h"
#include "result/jsonmem.h"
#include "result/decl.h"
#include "rules/evidence.h"
#include "rules/rules.h"
#include "run.h"

/* Record each stage's effective options, so compare can tell runs apart. */
static int
record_options(json_t *doc, const pp_pipeline *p)
{
    json_t *stages = json_object_get(doc, "stages");
    int rc = PP_OK;

    for (uint32_t s = 0; s < p->stage_count && s < json_array_size(stages); s++) {
        const pp_analyzer *a = p->stages[s].analyzer;
        json_t *opts = json_object();

        for (uint32_t i = 0; i < a->option_count; i++) {
            const char *text = pp_options_text(p->stages[s].opts, a->options[i].name);

            if (text != NULL)
                json_object_set_new(opts, a->options[i].name, json_string(text));
            else if (pp_options_is_set(p->stages[s].opts, a->options[i].name) != 0)
                rc = PP_ENOMEM; /* set, but its text lost to memory: no short "ok" record */
        }
        json_object_set_new(json_array_get(stages, s), "options", opts);
        /* What the analyzer declares of its tables (ABI 1.5): readers of
         * the document (rules, candidates, compare) need no copy of it. */
        if (pp_decl_annotate(json_array_get(stages, s), a) != PP_OK)
            rc = PP_ENOMEM;
    }
    return rc;
}

/* Rules that report on their own add their findings to the stage that
 * owns the evidence (docs/rules.md); idempotent, like the rest. */
static int
decorate(json_t *doc, const pp_pipeline *p, const pp_ruleset *rules)
{
    /* A rule's finding or the description lost to memory would leave a
     * document that looks whole (jsonmem.h). */
    uint64_t lost = pp_jsonmem_failures();

    if (p->description != NULL)
        json_object_set_new(doc, "description", json_string(p->description));
    if (record_options(doc, p) != PP_OK)
        return PP_ENOMEM;
    if (rules != NULL)
        (void)pp_rules_annotate(rules, doc);
    return pp_jsonmem_failures() != lost ? PP_ENOMEM : PP_OK;
}

/* In the stages' process: the document gets what the pipeline knows
 * before the caller's deliver sees it. */
typedef struct run_deliver {
    const pp_pipeline *p;
    const pp_run_hooks *outer;
    const pp_ruleset *rules;
} run_deliver;

static int
decorate_and_deliver(void *user, json_t *doc, int rc, const pp_error *err)
{
    run_deliver *rd = user;
    pp_error oom = PP_ERROR_INIT;

    /* A document missing its tables' declarations is not the result: rules
     * and candidates would read it wrong. */
    if (doc != NULL && decorate(doc, rd->p, rd->rules) != PP_OK && rc == PP_OK) {
        pp_error_set(&oom, PP_ENOMEM,
                     "out of memory completing the result (tables' declarations, rules)");
        return rd->outer->deliver(rd->outer->deliver_user, NULL, PP_ENOMEM, &oom);
    }
    return rd->outer->deliver(rd->outer->deliver_user, doc, rc, err);
}

int
pp_run_pipeline(const pp_pipeline *p, const pp_run_hooks *hooks, json_t **doc, pp_error *err)
{
    pp_plan_knob *knobs = calloc(p->knob_count + 1, sizeof *knobs);
    pp_plan_input *inputs = calloc(p->input_count + 1, sizeof *inputs);
    pp_plan_stage *stages = calloc(p->stage_count + 1, sizeof *stages);
    pp_plan plan;
    pp_ruleset rules = PP_RULESET_INIT;
    json_t *schema = NULL;
    int rc;

    *doc = NULL;
    if (!p->checked) {
        pp_error_set(err, PP_EINVAL, "%s: pipeline was not checked", p->file);
        rc = PP_EINVAL;
        goto out;
    }
    if (knobs == NULL || inputs == NULL || stages == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        rc = PP_ENOMEM;
        goto out;
    }
    /* An invalid rule file is a configuration error, found before any work:
     * checked against what this pipeline's analyzers declare of their
     * tables (a rule on another analyzer is checked for its shape alone). */
    if ((schema = json_object()) == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        rc = PP_ENOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < p->stage_count; s++)
        if (pp_ev_schema_add_analyzer(schema, p->stages[s].analyzer) != PP_OK) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
            goto out;
        }
    rules.schema = schema;
    if ((rc = pp_rules_load_default(&rules, err)) != PP_OK) {
        if (rc != PP_ENOMEM && rc != PP_EIO)
            rc = PP_EINVAL;
        goto out;
    }
    for (uint32_t i = 0; i < p->knob_count; i++) {
        knobs[i].key = p->knobs[i].key;
        knobs[i].value = p->knobs[i].value;
    }
    for (uint32_t i = 0; i < p->input_count; i++) {
        inputs[i].name = p->inputs[i].name;
        inputs[i].kind = p->inputs[i].kind;
        inputs[i].path = p->inputs[i].path;
    }
    for (uint32_t s = 0; s < p->stage_count; s++) {
        stages[s].id = p->stages[s].id;
        stages[s].analyzer = p->stages[s].analyzer;
        stages[s].options = p->stages[s].opts;
        stages[s].ninputs = p->stages[s].input_count;
        stages[s].inputs = p->stages[s].input_index;
        stages[s].timeout_s = p->stages[s].timeout_s;
    }
    plan.pipeline = p->name;
    plan.nknobs = p->knob_count;
    plan.knobs = knobs;
    plan.ninputs = p->input_count;
    plan.inputs = inputs;
    plan.nstages = p->stage_count;
    plan.stages = stages;
    if (hooks != NULL && hooks->isolate) {
        pp_run_hooks h = *hooks;
        run_deliver rd = { p, hooks, &rules };

        if (h.deliver != NULL) {
            h.deliver = decorate_and_deliver;
            h.deliver_user = &rd;
        }
        rc = pp_isolate_run(&plan, &h, doc, err);
    } else {
        rc = pp_engine_run(&plan, hooks, doc, err);
    }
    /* Unisolated (or a document the stages' process could not write): the
     * same rule as decorate_and_deliver's, no document that looks whole. */
    if (*doc != NULL && decorate(*doc, p, &rules) != PP_OK && rc == PP_OK) {
        json_decref(*doc);
        *doc = NULL;
        pp_error_set(err, PP_ENOMEM,
                     "out of memory completing the result (tables' declarations, rules)");
        rc = PP_ENOMEM;
    }
out:
    pp_ruleset_free(&rules);
    json_decref(schema);
    free(knobs);
    free(inputs);
    free(stages);
    return rc;
}
