/* Where a frame a rule matched lands (site.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rules/cells.h"
#include "rules/site.h"

/* The class (application, package, framework, unknown) of module, from the
 * stage's table whose subject is the module; "" when none says. */
static const char *
module_class(const json_t *stage, const char *module)
{
    size_t k, i;
    json_t *t, *row;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const char *subj = json_string_value(
            json_object_get(json_object_get(t, "decl"), "subject"));
        int mi = pp_ev_raw_col(t, "module"), ci = pp_ev_raw_col(t, "class");

        if (subj == NULL || strcmp(subj, "module") != 0 || mi < 0 || ci < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row)
            if (strcmp(pp_ev_raw_str(row, mi), module) == 0)
                return pp_ev_raw_str(row, ci);
    }
    return "";
}

/* 1 when a call_site cell names a frame: "(framework only)", "[no stack]"
 * and "" name none. */
static int
names_frame(const char *call)
{
    return call[0] != '\0' && call[0] != '(' && call[0] != '[';
}

int
pp_ev_app_frames(const json_t *stage, json_t *set)
{
    size_t k, i;
    json_t *t, *row;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const json_t *decl = json_object_get(t, "decl");
        int si = pp_ev_raw_col(t, json_string_value(json_object_get(decl, "subject")));
        int mi = pp_ev_raw_col(t, "module"), ci = pp_ev_raw_col(t, "call_site");

        if (!json_is_true(json_object_get(json_object_get(decl, "candidate"), "frame")) || si < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row) {
            const char *f = pp_ev_raw_str(row, si), *call = pp_ev_raw_str(row, ci);

            if (mi >= 0 && f[0] != '\0' &&
                strcmp(module_class(stage, pp_ev_raw_str(row, mi)), "application") == 0 &&
                json_object_set_new(set, f, json_true()) != 0)
                return -1;
            if (names_frame(call) && json_object_set_new(set, call, json_true()) != 0)
                return -1;
        }
    }
    return 0;
}

pp_ev_site
pp_ev_frame_site(const json_t *stage, const char *frame, char *site, size_t size)
{
    size_t k, i;
    json_t *t, *row;

    site[0] = '\0';
    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const json_t *decl = json_object_get(t, "decl");
        int si = pp_ev_raw_col(t, json_string_value(json_object_get(decl, "subject")));
        int mi = pp_ev_raw_col(t, "module"), ci = pp_ev_raw_col(t, "call_site");

        if (!json_is_true(json_object_get(json_object_get(decl, "candidate"), "frame")) || si < 0 ||
            mi < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row) {
            const char *cls, *call;

            if (strcmp(pp_ev_raw_str(row, si), frame) != 0)
                continue;
            cls = module_class(stage, pp_ev_raw_str(row, mi));
            call = pp_ev_raw_str(row, ci);
            if (strcmp(cls, "application") == 0)
                return PP_EV_SITE_APP;
            if (cls[0] == '\0' || strcmp(cls, "unknown") == 0)
                return PP_EV_SITE_UNKNOWN;
            /* "(framework only)", "[no stack]": no frame of the application */
            if (!names_frame(call) || strcmp(call, frame) == 0)
                return PP_EV_SITE_NONE;
            snprintf(site, size, "%s", call);
            return PP_EV_SITE_CALLER;
        }
    }
    return PP_EV_SITE_UNKNOWN;
}
