/* Rows of a result table that repeat a key (result.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"

/* The key cells of row `row`, each as compact JSON, joined by a unit
 * separator (no JSON text holds one raw). NULL: out of memory. */
static char *
key_text(const json_t *row, const size_t *idx, size_t nkey)
{
    json_t *cells = json_array();
    char *out;

    if (cells == NULL)
        return NULL;
    for (size_t i = 0; i < nkey; i++) {
        json_t *c = json_array_get(row, idx[i]);

        if (json_array_append(cells, c != NULL ? c : json_null()) != 0) {
            json_decref(cells);
            return NULL;
        }
    }
    out = json_dumps(cells, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(cells);
    return out;
}

int
pp_result_key_repeats(const json_t *table, pp_key_repeats *out)
{
    const json_t *keys = json_object_get(table, "key"), *cols = json_object_get(table, "columns");
    const json_t *rows = json_object_get(table, "rows");
    size_t nkey = json_array_size(keys), idx[64];
    json_t *seen;
    int rc = PP_OK;

    memset(out, 0, sizeof *out);
    if (nkey == 0 || nkey > sizeof idx / sizeof idx[0] || json_array_size(rows) < 2)
        return PP_OK;
    for (size_t k = 0; k < nkey; k++) {
        const char *kn = json_string_value(json_array_get(keys, k));
        size_t c;

        for (c = 0; c < json_array_size(cols); c++) {
            const char *cn = json_string_value(json_object_get(json_array_get(cols, c), "name"));

            if (kn != NULL && cn != NULL && strcmp(kn, cn) == 0)
                break;
        }
        if (c == json_array_size(cols))
            return PP_OK; /* a key naming no column: the validator's business */
        idx[k] = c;
    }
    if ((seen = json_object()) == NULL)
        return PP_ENOMEM;
    for (size_t r = 0; r < json_array_size(rows) && rc == PP_OK; r++) {
        char *k = key_text(json_array_get(rows, r), idx, nkey);

        if (k == NULL) {
            rc = PP_ENOMEM;
        } else if (json_object_get(seen, k) != NULL) {
            if (out->repeats++ == 0) {
                out->first_row = r;
                out->first_key = k;
                k = NULL;
            }
        } else if (json_object_set_new(seen, k, json_true()) != 0) {
            rc = PP_ENOMEM;
        }
        free(k);
    }
    json_decref(seen);
    if (rc != PP_OK) {
        free(out->first_key);
        memset(out, 0, sizeof *out);
    }
    return rc;
}
