/* compare: the replicates of one side pooled into one result document.
 *
 * `perfpipe compare A1 A2 -- B1 B2` judges each side by the sum of its
 * captures: counts, bytes, times and sample counts add up (totals and
 * table rows joined by key), the work done adds up (requests, seconds,
 * operations), and figures that are already a rate or a statistic of one
 * operation (mean_ms, p99_ms, commands_per_request, shares) are averaged
 * over the replicates. The replicates themselves stay with the options
 * (pp_compare_options.reps_b/reps_c): the rate test takes its between-run
 * term from them (compare_reps.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "result/result.h"
#include "result/work.h"

/* A figure that is already a rate or a statistic (compare_classify.c
 * divides none of these by the work either): averaged, not summed. */
static int
averaged(const char *name, uint32_t type)
{
    static const char *const prefixes[] = { "mean", "p50", "p90",    "p95",   "p99",
                                            "max",  "min", "median", "avg",   "sample_interval",
                                            "lo_",  "hi_", "rate",   "share", "ratio" };

    if (type != PP_COL_COUNT && type != PP_COL_BYTES && type != PP_COL_DURATION_NS &&
        type != PP_COL_NUMBER)
        return 1;
    if (strstr(name, "_per_") != NULL || strstr(name, "_pct") != NULL ||
        strstr(name, "_lo") != NULL || strstr(name, "_hi") != NULL)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* v += add (or the running mean of n values when avg), keeping integers
 * integers. */
static json_t *
fold(const json_t *v, const json_t *add, int avg, size_t n)
{
    double a = cmp_num(v), b = cmp_num(add);

    if (!json_is_number(v) || !json_is_number(add))
        return json_incref((json_t *)v);
    if (avg)
        return json_real(a + (b - a) / (double)n);
    if (json_is_integer(v) && json_is_integer(add))
        return json_integer(json_integer_value(v) + json_integer_value(add));
    return json_real(a + b);
}

static void
pool_totals(json_t *into, const json_t *add, size_t n)
{
    const char *k;
    json_t *v;

    json_object_foreach(into, k, v) {
        const json_t *o = json_object_get(add, k);
        uint32_t type = pp_column_type_from_name(json_string_value(json_object_get(v, "type")));

        if (o != NULL && json_object_get(v, "value") != NULL)
            json_object_set_new(v, "value",
                                fold(json_object_get(v, "value"), json_object_get(o, "value"),
                                     averaged(k, type), n));
    }
}

/* "a\x1fb": a row's key cells, to find it in another replicate. */
int
cmp_row_key(const json_t *row, const size_t *keyidx, size_t nkey, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < nkey; i++) {
        const json_t *c = json_array_get(row, keyidx[i]);
        char num[64];
        const char *s = json_is_string(c) ? json_string_value(c) : num;

        if (!json_is_string(c))
            snprintf(num, sizeof num, "%.17g", cmp_num(c));
        used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s", i ? "\x1f" : "",
                                 s);
    }
    return used < size;
}

/* An index key -> row of a table's rows. NULL when out of memory. */
json_t *
cmp_row_index(const json_t *tb, const cmp_table *t)
{
    json_t *idx = json_object(), *r;
    char key[2048];
    size_t i;

    json_array_foreach(json_object_get(tb, "rows"), i, r)
        if (idx != NULL && cmp_row_key(r, t->keyidx, t->nkey, key, sizeof key) &&
            json_object_get(idx, key) == NULL)
            json_object_set(idx, key, r);
    return idx;
}

static int
pool_table(json_t *into, const json_t *add, size_t n)
{
    cmp_table t;
    json_t *idx, *rows = json_object_get(into, "rows"), *r;
    const json_t *cols = json_object_get(into, "columns");
    char key[2048];
    size_t i;

    if (!json_equal(cols, json_object_get(add, "columns")) || !cmp_columns(into, &t))
        return PP_OK; /* not a joinable table: the first replicate's stands */
    if ((idx = cmp_row_index(into, &t)) == NULL)
        return PP_ENOMEM;
    json_array_foreach(json_object_get(add, "rows"), i, r) {
        json_t *mine;

        if (!cmp_row_key(r, t.keyidx, t.nkey, key, sizeof key))
            continue;
        if ((mine = json_object_get(idx, key)) == NULL) {
            json_t *copy = json_deep_copy(r);

            json_array_append_new(rows, copy);
            json_object_set(idx, key, copy);
            continue;
        }
        for (size_t c = 0; c < json_array_size(cols); c++) {
            const json_t *col = json_array_get(cols, c);
            const char *name = json_string_value(json_object_get(col, "name"));
            uint32_t type = pp_column_type_from_name(
                json_string_value(json_object_get(col, "type")));
            int is_key = 0;

            for (size_t k = 0; k < t.nkey; k++)
                is_key |= t.keyidx[k] == c;
            if (!is_key && name != NULL)
                json_array_set_new(
                    mine, c,
                    fold(json_array_get(mine, c), json_array_get(r, c), averaged(name, type), n));
        }
    }
    json_decref(idx);
    return PP_OK;
}

static void
pool_work(json_t *into, const json_t *add)
{
    static const char *const sums[] = { "requests", "seconds", "operations" };

    for (size_t i = 0; i < sizeof sums / sizeof sums[0]; i++) {
        const json_t *a = json_object_get(into, sums[i]), *b = json_object_get(add, sums[i]);

        if (json_is_number(a) && json_is_number(b) && cmp_num(a) >= 0 && cmp_num(b) >= 0)
            json_object_set_new(into, sums[i], json_real(cmp_num(a) + cmp_num(b)));
        else if (a != NULL)
            json_object_set_new(into, sums[i], json_null());
    }
}

int
pp_compare_pool(const json_t *const *docs, size_t n, json_t **out, pp_error *err)
{
    json_t *doc = json_deep_copy(docs[0]), *st;
    int rc = PP_OK;
    size_t i;

    *out = NULL;
    if (doc == NULL || (json_object_get(doc, "work") == NULL && pp_work_attach(doc) != PP_OK)) {
        json_decref(doc);
        pp_error_set(err, PP_ENOMEM, "out of memory pooling replicates");
        return PP_ENOMEM;
    }
    for (size_t d = 1; d < n && rc == PP_OK; d++) {
        json_t *add = json_deep_copy(docs[d]);

        if (add == NULL || (json_object_get(add, "work") == NULL && pp_work_attach(add) != PP_OK)) {
            json_decref(add);
            rc = PP_ENOMEM;
            break;
        }
        pool_work(json_object_get(doc, "work"), json_object_get(add, "work"));
        json_array_extend(json_object_get(doc, "inputs"), json_object_get(add, "inputs"));
        json_array_foreach(json_object_get(doc, "stages"), i, st) {
            const char *id = json_string_value(json_object_get(st, "id"));
            const json_t *other = cmp_find_by(json_object_get(add, "stages"), "id", id);
            json_t *tb;
            size_t k;

            if (other == NULL)
                continue;
            pool_totals(json_object_get(st, "totals"), json_object_get(other, "totals"), d + 1);
            json_array_foreach(json_object_get(st, "tables"), k, tb) {
                const json_t *ta = cmp_find_by(json_object_get(other, "tables"), "name",
                                               json_string_value(json_object_get(tb, "name")));

                if (ta != NULL && (rc = pool_table(tb, ta, d + 1)) != PP_OK)
                    break;
            }
        }
        json_decref(add);
    }
    if (rc != PP_OK) {
        json_decref(doc);
        pp_error_set(err, PP_ENOMEM, "out of memory pooling replicates");
        return rc;
    }
    *out = doc;
    return PP_OK;
}
