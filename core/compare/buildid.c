/* Same build on both sides (buildid.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "buildid.h"

/* Every application module of a document's inputs as {name: "guid/age"};
 * NULL when one has no identity or there is none. */
static json_t *
identities(const json_t *doc)
{
    json_t *ids = json_object(), *in, *m;
    size_t i, k;

    if (ids == NULL)
        return NULL;
    json_array_foreach(json_object_get(doc, "inputs"), i, in) {
        json_array_foreach(json_object_get(json_object_get(in, "nettrace"), "modules"), k, m) {
            const char *name = json_string_value(json_object_get(m, "name"));
            const char *guid = json_string_value(json_object_get(m, "pdb_guid"));
            char id[64];

            if (name == NULL || guid == NULL) {
                json_decref(ids);
                return NULL;
            }
            snprintf(id, sizeof id, "%s/%lld", guid,
                     (long long)json_integer_value(json_object_get(m, "pdb_age")));
            json_object_set_new(ids, name, json_string(id));
        }
    }
    if (json_object_size(ids) == 0) {
        json_decref(ids);
        return NULL;
    }
    return ids;
}

int
pp_buildid_same(const json_t *base, const json_t *cand, char *msg, size_t size)
{
    json_t *a = identities(base), *b = identities(cand), *v;
    const char *name;
    int same = a != NULL && b != NULL && json_object_size(a) == json_object_size(b);
    size_t used;
    int first = 1;

    msg[0] = '\0';
    if (same)
        json_object_foreach(a, name, v)
            if (!json_equal(v, json_object_get(b, name)))
                same = 0;
    if (same) {
        used = (size_t)snprintf(msg, size, "both sides ran the same build of ");
        json_object_foreach(a, name, v) {
            if (used >= size)
                break;
            used += (size_t)snprintf(msg + used, size - used, "%s%s (%s)", first ? "" : ", ", name,
                                     json_string_value(v));
            first = 0;
        }
        if (used < size)
            snprintf(msg + used, size - used,
                     ": the difference measured is the runs' "
                     "configuration, load or noise, not a code change (if a change was meant to "
                     "be deployed, it was not: rebuild, redeploy, restart and capture again)");
    }
    json_decref(a);
    json_decref(b);
    return same;
}

int
pp_buildid_verify_deployed(const json_t *before, const json_t *after, int config_only, char *msg,
                           size_t size)
{
    char same[1024];

    msg[0] = '\0';
    if (config_only || !pp_buildid_same(before, after, same, sizeof same))
        return 0;
    snprintf(msg, size,
             "cannot judge: the change is not deployed (%s). Deploy the changed build "
             "and restart the process before capturing the after run, or pass --config-only "
             "when the change is configuration only",
             same);
    return 1;
}
