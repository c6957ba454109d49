/* Where a candidate's fix lands (see candidates_lands.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "base/advice.h"
#include "candidates_emit.h"
#include "candidates_lands.h"

static int
col(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *n = json_is_string(c) ? json_string_value(c) :
                                            json_string_value(json_object_get(c, "name"));
        if (n != NULL && strcmp(n, name) == 0)
            return (int)i;
    }
    return -1;
}

static const char *
cell(const json_t *table, const json_t *row, const char *name)
{
    int i = col(table, name);
    const char *s = i >= 0 ? json_string_value(json_array_get(row, (size_t)i)) : NULL;

    return s != NULL ? s : "";
}

/* The heaviest caller of target (the callers table is ranked) in the
 * stage's table callers: its subject (the caller) and module. */
static void
heaviest_caller(const json_t *stage, const char *callers, const char *subject_col,
                const char *target, pp_lands *out)
{
    const json_t *t = pp_cand_table_obj(stage, callers);
    const char *caller = json_string_value(json_object_get(json_object_get(t, "decl"), "subject"));
    size_t i;
    json_t *row;

    json_array_foreach(t &&caller ? json_object_get(t, "rows") : NULL, i, row)
        if (strcmp(cell(t, row, subject_col), target) == 0) {
            snprintf(out->call_site, sizeof out->call_site, "%s", cell(t, row, caller));
            snprintf(out->module, sizeof out->module, "%s", cell(t, row, "module"));
            return;
        }
}

void
pp_candidates_lands(const json_t *stage, const json_t *table, const json_t *row, const char *target,
                    const char *subject_col, const char *callers, int heap_type, int perfpipe,
                    pp_lands *out)
{
    const json_t *mods = pp_cand_table_obj(stage, "modules");
    int has_module = col(table, "module") >= 0;
    size_t i;
    json_t *m;

    memset(out, 0, sizeof *out);
    snprintf(out->cls, sizeof out->cls, "unknown");
    snprintf(out->module, sizeof out->module, "%s", cell(table, row, "module"));
    snprintf(out->call_site, sizeof out->call_site, "%s", cell(table, row, "call_site"));
    if (callers != NULL) {
        heaviest_caller(stage, callers, subject_col, target, out);
        has_module = 1;
    }
    if (out->call_site[0] == '(' || out->call_site[0] == '[')
        out->call_site[0] = '\0'; /* "(framework only)", "[no stack]": no frame of the app */
    if (heap_type) {
        snprintf(out->why, sizeof out->why,
                 "a heap type: a heap snapshot names no module; the "
                 "fix lands where instances are created or kept (alloc by_type_frame, or the "
                 "retention path)");
        return;
    }
    if (!has_module) {
        snprintf(out->why, sizeof out->why,
                 "the stage records no module for its rows (a result "
                 "written before module identity): rerun the analyzer on the capture");
        return;
    }
    if (out->module[0] == '\0' && out->call_site[0] == '\0' &&
        (callers != NULL || col(table, "call_site") >= 0)) {
        /* The analyzer names call sites and none reached this frame, and no
         * module claims it: a runtime-generated stub (a P/Invoke's
         * marshalling stub) or framework-only code, not a missing rundown
         * (the frame is named). */
        out->no_app = 1;
        snprintf(out->why, sizeof out->why,
                 "no module claims this frame and no application frame on its stacks reached "
                 "it: a runtime-generated stub (a P/Invoke's marshalling stub) or "
                 "framework-only code; a follow-up, not a target");
        return;
    }
    if (out->module[0] == '\0') {
        char stop[160];
        snprintf(out->why, sizeof out->why,
                 "no module: the trace has no module and method rundown for this frame; let the "
                 "capture end normally (%s%s), so MethodDCEndVerbose and ModuleDCEnd name every "
                 "frame's module",
                 pp_advice_capture(perfpipe, PP_CAPTURE_STOP, NULL, stop, sizeof stop),
                 perfpipe ? "" : ", without `--rundown false`");
        return;
    }
    json_array_foreach(mods ? json_object_get(mods, "rows") : NULL, i, m)
        if (strcmp(cell(mods, m, "module"), out->module) == 0) {
            const char *path = cell(mods, m, "path");

            snprintf(out->cls, sizeof out->cls, "%s", cell(mods, m, "class"));
            snprintf(out->why, sizeof out->why, "%s", cell(mods, m, "why"));
            /* a module with no file (a path with no directory) was emitted in
             * memory: a DynamicMethod such as a compiled route delegate */
            out->dynamic = strcmp(out->cls, "unknown") == 0 && path[0] != '\0' &&
                           strchr(path, '/') == NULL && strchr(path, '\\') == NULL;
            break;
        }
    if (strcmp(out->cls, "application") == 0 && out->call_site[0] == '\0')
        snprintf(out->call_site, sizeof out->call_site, "%s", target);
    else if (out->call_site[0] == '\0' && strcmp(out->cls, "unknown") != 0) {
        size_t n = strlen(out->why);
        snprintf(out->why + n, sizeof out->why - n,
                 "%sno application frame on its stacks "
                 "reached it",
                 n ? "; " : "");
    }
}
