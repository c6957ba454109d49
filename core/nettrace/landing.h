/* Private: where a fix lands. A module (assembly) is the application's own
 * code, a third-party package, or the framework, judged from its file path
 * and name (docs/landing.md has the rule and why it is so):
 *
 *   1. no file, or a path without a directory (a dynamic, in-memory module): unknown;
 *   2. under a shared framework dir (shared/Microsoft.NETCore.App/,
 *      shared/Microsoft.AspNetCore.App/, shared/Microsoft.WindowsDesktop.App/)
 *      or the runtime's own dir: framework;
 *   3. under a NuGet package cache (.nuget/packages/, NuGetFallbackFolder/,
 *      $NUGET_PACKAGES): package;
 *   4. the app's own assembly (named by the process command line): application;
 *   5. beside the app with a package publisher's name (System.*, Microsoft.*,
 *      Newtonsoft.*, Serilog*, Npgsql*, ...: what `dotnet build` copies out of
 *      the package cache): package;
 *   6. anything else beside the app (or anywhere, when the app's dir is not
 *      known): application; outside the app's dir: unknown.
 *
 * Pure functions over strings: no reader state. */
#ifndef PP_NETTRACE_LANDING_H
#define PP_NETTRACE_LANDING_H

#include <stddef.h>

typedef enum pp_lands_class {
    PP_LANDS_UNKNOWN = 0,
    PP_LANDS_APPLICATION,
    PP_LANDS_PACKAGE,
    PP_LANDS_FRAMEWORK
} pp_lands_class;

/* What is known of the app: its assembly name, its dir, the runtime's dir
 * (each "" when unknown). */
typedef struct pp_lands_app {
    char name[256];
    char dir[1024];
    char runtime_dir[1024];
} pp_lands_app;

/* From the process command line ("dotnet App.dll ...", "/srv/App ...") and
 * the runtime's path (RuntimeInformation's RuntimeDllPath); either may be
 * NULL. */
void pp_lands_app_init(pp_lands_app *app, const char *command_line, const char *runtime_dll);

/* The assembly name of a module file: its base name without .dll/.exe
 * (and without .ni), into out ("" for NULL or empty). */
void pp_lands_module_name(const char *path, char *out, size_t size);

/* The directory part of path (without the trailing separator) into out. */
void pp_lands_dir_of(const char *path, char *out, size_t size);

/* Classify a module by path (NUL-terminated, may be NULL) and assembly name.
 * *why (never NULL on return) is a static sentence saying which rule held. */
pp_lands_class pp_lands_classify(const pp_lands_app *app, const char *path, const char *name,
                                 const char **why);

/* "application", "package", "framework", "unknown". */
const char *pp_lands_class_name(pp_lands_class c);

#endif
