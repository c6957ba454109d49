/* Where a frame a rule matched lands (site.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rules/site.h"

static int
col(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    if (name == NULL)
        return -1;
    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *n = json_is_object(c) ? json_string_value(json_object_get(c, "name")) :
                                            json_string_value(c);
        if (n != NULL && strcmp(n, name) == 0)
            return (int)i;
    }
    return -1;
}

static const char *
cell(const json_t *row, int i)
{
    const char *s = i >= 0 ? json_string_value(json_array_get(row, (size_t)i)) : NULL;

    return s != NULL ? s : "";
}

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
        int mi = col(t, "module"), ci = col(t, "class");

        if (subj == NULL || strcmp(subj, "module") != 0 || mi < 0 || ci < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row)
            if (strcmp(cell(row, mi), module) == 0)
                return cell(row, ci);
    }
    return "";
}

pp_ev_site
pp_ev_frame_site(const json_t *stage, const char *frame, char *site, size_t size)
{
    size_t k, i;
    json_t *t, *row;

    site[0] = '\0';
    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const json_t *decl = json_object_get(t, "decl");
        int si = col(t, json_string_value(json_object_get(decl, "subject")));
        int mi = col(t, "module"), ci = col(t, "call_site");

        if (!json_is_true(json_object_get(json_object_get(decl, "candidate"), "frame")) || si < 0 ||
            mi < 0)
            continue;
        json_array_foreach(json_object_get(t, "rows"), i, row) {
            const char *cls, *call;

            if (strcmp(cell(row, si), frame) != 0)
                continue;
            cls = module_class(stage, cell(row, mi));
            call = cell(row, ci);
            if (strcmp(cls, "application") == 0)
                return PP_EV_SITE_APP;
            if (cls[0] == '\0' || strcmp(cls, "unknown") == 0)
                return PP_EV_SITE_UNKNOWN;
            /* "(framework only)", "[no stack]": no frame of the application */
            if (call[0] == '\0' || call[0] == '(' || call[0] == '[' || strcmp(call, frame) == 0)
                return PP_EV_SITE_NONE;
            snprintf(site, size, "%s", call);
            return PP_EV_SITE_CALLER;
        }
    }
    return PP_EV_SITE_UNKNOWN;
}
