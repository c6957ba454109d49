/* Reading the raw tables of a result document (cells.h). */
#include "config.h"

#include <string.h>

#include "rules/cells.h"

int
pp_ev_raw_col(const json_t *table, const char *name)
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

const char *
pp_ev_raw_str(const json_t *row, int i)
{
    const char *s = i >= 0 ? json_string_value(json_array_get(row, (size_t)i)) : NULL;

    return s != NULL ? s : "";
}
