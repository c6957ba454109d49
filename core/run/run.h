/* Private: running a checked pipeline — the bridge from the declared model
 * (pipeline/pipeline.h) to the engine's plan (engine.h). */
#ifndef PP_CORE_RUN_H
#define PP_CORE_RUN_H

#include <jansson.h>

#include "engine/engine.h"
#include "pipeline/pipeline.h"

/* Run p (pp_pipeline_check must have succeeded). Same returns as
 * pp_engine_run. The document also records the pipeline's description, the
 * options each stage ran with, and the analyzer input slots. */
int pp_run_pipeline(const pp_pipeline *p, const pp_run_hooks *hooks, json_t **doc, pp_error *err);

#endif
