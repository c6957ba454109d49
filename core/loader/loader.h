/* Private: finding analyzer plugins by name and checking them before any of
 * their code runs.
 *
 * Search order: every --plugin-dir in the order given, PERFPIPE_PLUGIN_PATH
 * (colon-separated; ignored when the process runs with special privileges),
 * the user's ~/.local/lib/perfpipe/plugins-ABI, then the installed plugin
 * directory, versioned by ABI major (or the build tree's, see paths.h). A plugin NAME
 * is the regular file NAME.so in the first directory that has one; it is
 * opened RTLD_NOW|RTLD_LOCAL and stays loaded until pp_loader_free. */
#ifndef PP_CORE_LOADER_H
#define PP_CORE_LOADER_H

#include <perfpipe/plugin.h>

typedef struct pp_loader pp_loader;

/* One file seen while listing: ok, or refused with the reason. */
typedef struct pp_plugin_candidate {
    const char *path;
    const char *file_name;       /* NAME from NAME.so */
    const pp_analyzer *analyzer; /* NULL when refused */
    const char *refusal;         /* NULL when ok */
    int broken;                  /* refused because loading it crashed, exited,
                                     printed or ran out of time (in the probe) */
} pp_plugin_candidate;

typedef void (*pp_candidate_fn)(void *user, const pp_plugin_candidate *c);

/* A loader with no directories. NULL on allocation failure. */
pp_loader *pp_loader_new(void);
void pp_loader_free(pp_loader *l);

/* Append a search directory (copied). */
int pp_loader_add_dir(pp_loader *l, const char *dir, pp_error *err);
/* Append PERFPIPE_PLUGIN_PATH's directories and the user's
 * ~/.local/lib/perfpipe/plugins-ABI (both unless privileged), then the
 * installed directory, or the build tree's plugins when the program runs
 * from its build tree (paths.h). Call after the --plugin-dir ones. */
int pp_loader_add_defaults(pp_loader *l, pp_error *err);

/* The analyzer called name, loading and checking it on first use.
 * NULL with err filled (PP_ENOTFOUND: listing the directories searched;
 * PP_EPLUGIN: the refusal, naming the file and both versions). The
 * descriptor lives until pp_loader_free. */
const pp_analyzer *pp_loader_get(pp_loader *l, const char *name, pp_error *err);

/* The flags bit only the host's stand-ins carry (a plugin setting it is
 * refused): such a descriptor is never run. */
#define PP_ANALYZER_FLAG_STANDIN 0x80000000u

/* The same, but a plugin that was found and refused (PP_EPLUGIN, err
 * filled) gives a stand-in instead of NULL: a host-made descriptor with
 * PP_ANALYZER_FLAG_STANDIN, the plugin's name, version "unloaded", the
 * refusal as summary, every input kind, no options and no callbacks, so a
 * pipeline can be checked (its stage unchecked) and run with that stage
 * failing alone. NULL still for an analyzer that is not found. Lives until
 * pp_loader_free. */
const pp_analyzer *pp_loader_get_or_standin(pp_loader *l, const char *name, pp_error *err);

/* Load each plugin in a throwaway child first (loader_probe.h), allowing
 * limit_s seconds; 0 loads in process without one (a debugger's choice).
 * The default is PP_LOADER_PROBE_TIMEOUT_DEFAULT. */
void pp_loader_set_probe(pp_loader *l, uint32_t limit_s);

/* Plugins writable by every user (the file, or its directory: anyone
 * could put code into the run). warn is called with one line naming the
 * path when such a plugin is loaded; with refuse set (perfpipe running as
 * root, not forced) the plugin is refused instead (PP_EPLUGIN). */
void pp_loader_set_writable_policy(pp_loader *l, void (*warn)(const char *line), int refuse);

/* Path of a loaded analyzer's file, or NULL. */
const char *pp_loader_path_of(pp_loader *l, const char *name);

/* Call fn for every *.so in every search directory, in search order, with
 * the check's verdict. A file whose name a directory earlier in the order
 * already provides is reported as shadowed. */
void pp_loader_scan(pp_loader *l, pp_candidate_fn fn, void *user);

/* The checks, usable alone: is d an acceptable descriptor for a plugin
 * asked for as `name` (NULL: any name) from file `path`? */
int pp_plugin_check(const pp_analyzer *d, const char *name, const char *path, pp_error *err);

/* Number of directories searched, and each of them. */
size_t pp_loader_dir_count(const pp_loader *l);
const char *pp_loader_dir(const pp_loader *l, size_t i);

#endif
