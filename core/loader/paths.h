/* Private: where plugins and pipelines are found, installed or in a build
 * tree. */
#ifndef PP_CORE_PATHS_H
#define PP_CORE_PATHS_H

#include <stddef.h>

#include <perfpipe/error.h>

/* "a/b" as a malloc'd string the caller frees; NULL when out of memory.
 * The directory searches here and core/rules' share it. */
char *pp_path_join(const char *a, const char *b);

/* Name of the file configure writes at the top of a build tree, beside the
 * built perfpipe program. */
#define PP_BUILD_TREE_MARKER ".perfpipe-build-tree"

/* The build tree the running program was built in: when the file
 * PP_BUILD_TREE_MARKER lies beside the executable (or beside the libtool
 * .libs/ directory it runs from) and names both a plugindir= and a
 * pipelinedir=, copies them into the buffers and returns 1; otherwise 0
 * (also when the process runs with special privileges). An installed
 * program has no marker beside it. */
int pp_build_tree_dirs(char *plugindir, size_t plugindir_size, char *pipelinedir,
                       size_t pipelinedir_size);

/* The default plugin directories in search order, as malloc'd strings the
 * caller frees: PERFPIPE_PLUGIN_PATH (colon-separated; ignored when
 * privileged), the user's ~/.local/lib/perfpipe/plugins-ABI (likewise), then
 * the build tree's plugins, or the installed PLUGINDIR and the local
 * administrator's LOCALPLUGINDIR (/usr/local/lib/perfpipe/plugins-ABI). Returns how many were
 * stored (at most max), or -1 when out of memory (err filled). */
int pp_plugin_default_dirs(char **dirs, size_t max, pp_error *err);

/* The pipeline directories in search order, malloc'd: PERFPIPE_PIPELINE_PATH
 * (colon-separated; ignored when privileged), the user's
 * ~/.config/perfpipe/pipelines ($XDG_CONFIG_HOME honoured), then in a build
 * tree the source tree's etc/perfpipe/pipelines, else the administrator's
 * SYSCONFDIR/perfpipe/pipelines and the shipped PKGDATADIR/pipelines.
 * Returns how many were stored (at most max); a failed allocation drops
 * that directory. */
size_t pp_pipeline_dirs(char **dirs, size_t max);

/* Resolve a pipeline argument: a path (it contains '/' or ends in .yaml/.yml
 * and exists) is returned as is; a NAME is searched as NAME.yaml in the
 * pp_pipeline_dirs order. Returns a malloc'd path the caller frees, or NULL
 * with err naming every place searched (PP_ENOTFOUND). */
char *pp_pipeline_find(const char *name_or_path, pp_error *err);

#endif
