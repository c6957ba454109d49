/* Private: running a checked pipeline in one pass.
 *
 * The engine works on a plan (resolved inputs, loaded analyzers, built
 * options), not on YAML, so the CLI's shorthand, `run` and the tests all go
 * through the same code. Each input is opened once and read once; every
 * record goes to every stage that consumes that input. */
#ifndef PP_CORE_ENGINE_H
#define PP_CORE_ENGINE_H

#include <stdint.h>
#include <jansson.h>

#include <perfpipe/plugin.h>

typedef struct pp_plan_input {
    const char *name;
    const char *kind; /* an input kind's name (registry/kinds.c) */
    const char *path;
} pp_plan_input;

typedef struct pp_plan_stage {
    const char *id;
    const pp_analyzer *analyzer;
    const pp_options *options; /* built against the analyzer's declarations */
    uint32_t ninputs;          /* == analyzer's slot count */
    const uint32_t *inputs;    /* per slot: index into pp_plan.inputs */
    uint32_t timeout_s;        /* the stage's progress limit (isolate only);
                                    0 = the run's (pp_run_hooks) */
} pp_plan_stage;

typedef struct pp_plan_knob {
    const char *key;
    const char *value;
} pp_plan_knob;

typedef struct pp_plan {
    const char *pipeline;
    size_t nknobs;
    const pp_plan_knob *knobs;
    size_t ninputs;
    const pp_plan_input *inputs;
    size_t nstages;
    const pp_plan_stage *stages;
} pp_plan;

typedef struct pp_run_hooks {
    const char *hash_algo; /* NULL = "xxh3-128" */
    /* Progress of reading one input (throttled); may be NULL. */
    void (*progress)(void *user, const char *input, uint64_t done, uint64_t total);
    /* A reader warning (also recorded in the document); may be NULL. */
    void (*warning)(void *user, const char *input, const char *message);
    /* A plugin's log line, already prefixed with the stage id; may be NULL. */
    void (*log)(void *user, int level, const char *message);
    void *user;
    /* Run the stages in a child process (core/run/isolate.h), so a plugin that
     * crashes, exits, writes to stdout or stops making progress fails its
     * stage alone. Only pp_run_pipeline honours it. */
    int isolate;
    /* Seconds one plugin callback may run without returning before its
     * stage is failed (isolate only); when set it wins over every stage's
     * timeout_s (the command line over the file); 0 = each stage's
     * timeout_s, else PP_STAGE_TIMEOUT_DEFAULT. */
    uint32_t stage_timeout_s;
    /* Isolate only, may be NULL: called in the stages' process with the
     * finished document (NULL when rc < 0: an input error), to render and
     * write it there, so a large document never crosses to the parent. Its
     * return (an exit status 0..255) is stored in *delivered, which stays
     * -1 when deliver did not run (then *doc is returned as usual). */
    int (*deliver)(void *user, json_t *doc, int rc, const pp_error *err);
    void *deliver_user;
    int *delivered;
    /* Threads a big nettrace input may be read on when every stage that
     * reads it can merge (plugin.h, fork/merge); the document is the
     * serial one either way. 1 = serial, 0 = PERFPIPE_JOBS when set
     * (nt_inspect_default_jobs), else 1. */
    unsigned jobs;
} pp_run_hooks;

/* The documented default progress limit (perfpipe(1) --stage-timeout). */
#define PP_STAGE_TIMEOUT_DEFAULT 60u

/* Run the plan. Returns:
 *  PP_OK       every stage succeeded; *doc is the result document;
 *  PP_EPLUGIN  one or more stages failed; *doc still holds every stage
 *              (failed ones with status "failed" and their error), and err
 *              names the first failure;
 *  other < 0   an input could not be read (err: FILE: offset: what); *doc
 *              is NULL — no partial result poses as a result.
 * The caller owns *doc (json_decref). */
int pp_engine_run(const pp_plan *plan, const pp_run_hooks *hooks, json_t **doc, pp_error *err);

/* The same, telling g->watch (may be NULL) which callback runs, and not
 * running the stages g->faults names (they fail with that error object). */
struct pp_guard;
int pp_engine_run_guarded(const pp_plan *plan, const pp_run_hooks *hooks, const struct pp_guard *g,
                          json_t **doc, pp_error *err);

#endif
