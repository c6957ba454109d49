/* Private to core/pipeline: the steps pp_pipeline_load_* chains. */
#ifndef PP_PIPELINE_INTERNAL_H
#define PP_PIPELINE_INTERNAL_H

#include "pipeline/pipeline.h"
#include "pipeline/yaml_tree.h"

/* Most entries a section (knobs, inputs, stages, outputs, one stage's
 * options, one list) may hold. */
#define PP_PIPELINE_MAX_ENTRIES 1024u

/* Schema version 1: the tree -> the model, paths not yet expanded.
 * `default_name` is used when the file has no `name:`. */
int pp_pipeline_from_tree(const char *file, const char *default_name, const pp_ynode *root,
                          pp_pipeline **out, pp_error *err);

/* Apply --set, --input and option overrides, then expand ${VAR} in paths. */
int pp_pipeline_apply_vars(pp_pipeline *p, const pp_pipeline_vars *vars, pp_error *err);

/* Plugin-independent cross-checks: duplicate stage ids, stage inputs that
 * are not declared, inputs without a path, output path collisions. */
int pp_pipeline_check_structure(pp_pipeline *p, pp_error *err);

/* The `capture:` mapping of an input as its path, a capture spec
 * ("capture:KEY=VALUE;..."). Errors name the key at fault. */
int pp_pipe_capture_path(const char *file, const pp_ynode *capture, char **path, pp_error *err);

/* Whether s is a name usable as an id / knob / variable:
 * [A-Za-z_][A-Za-z0-9_.-]*. */
int pp_pipeline_valid_ident(const char *s);

#endif
