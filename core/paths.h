/* Private: where shipped and user pipelines are found. */
#ifndef PP_CORE_PATHS_H
#define PP_CORE_PATHS_H

#include <stddef.h>

#include <perfpipe/error.h>

/* Resolve a pipeline argument: a path (it contains '/' or ends in .yaml/.yml
 * and exists) is returned as is; a NAME is searched as NAME.yaml in
 * PERFPIPE_PIPELINE_PATH (colon-separated), ~/.config/perfpipe/pipelines
 * ($XDG_CONFIG_HOME honoured), then SYSCONFDIR/perfpipe/pipelines.
 * Returns a malloc'd path the caller frees, or NULL with err naming every
 * place searched (PP_ENOTFOUND). */
char *pp_pipeline_find(const char *name_or_path, pp_error *err);

#endif
