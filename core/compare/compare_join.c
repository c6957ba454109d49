/* compare: which columns of a table are keys, measures and shares, and the
 * join of both runs' rows by key. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare_internal.h"
#include "result/result.h"

double
cmp_num(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) :
           json_is_real(v)    ? json_real_value(v) :
                                0.0;
}

static int
is_measure(uint32_t t)
{
    return t == PP_COL_COUNT || t == PP_COL_BYTES || t == PP_COL_DURATION_NS || t == PP_COL_NUMBER;
}

/* bytes_lo, lo_ms, exclusive_hi_ms: the interval of a sampled figure
 * (plugins/common/interval.h). */
static int
interval_column(const char *name)
{
    size_t n = strlen(name);

    return (n > 3 && (strcmp(name + n - 3, "_lo") == 0 || strcmp(name + n - 3, "_hi") == 0)) ||
           strncmp(name, "lo_", 3) == 0 || strncmp(name, "hi_", 3) == 0 ||
           strstr(name, "_lo_") != NULL || strstr(name, "_hi_") != NULL;
}

json_t *
cmp_find_by(const json_t *array, const char *field, const char *value)
{
    size_t i;
    json_t *item;

    json_array_foreach(array, i, item) {
        const char *v = json_string_value(json_object_get(item, field));

        if (v != NULL && value != NULL && strcmp(v, value) == 0)
            return item;
    }
    return NULL;
}

int
cmp_columns(const json_t *tb, cmp_table *t)
{
    const json_t *cols = json_object_get(tb, "columns"), *keys = json_object_get(tb, "key");
    size_t ncols = json_array_size(cols);

    memset(t, 0, sizeof *t);
    t->name = json_string_value(json_object_get(tb, "name"));
    t->samples_col = -1;
    if (ncols > CMP_MAX_COLUMNS)
        return 0;
    for (size_t i = 0; i < ncols; i++) {
        const json_t *c = json_array_get(cols, i);
        cmp_col k = { json_string_value(json_object_get(c, "name")),
                      pp_column_type_from_name(json_string_value(json_object_get(c, "type"))), i };
        int is_key = 0;

        if (k.name == NULL)
            return 0;
        for (size_t j = 0; j < json_array_size(keys); j++) {
            const char *kn = json_string_value(json_array_get(keys, j));

            if (kn != NULL && strcmp(kn, k.name) == 0)
                is_key = 1;
        }
        if (!is_key && k.type == PP_COL_COUNT &&
            (strcmp(k.name, "samples") == 0 || strcmp(k.name, "ticks") == 0))
            t->samples_col = (int)i;
        if (!is_key && interval_column(k.name))
            continue; /* a figure's 95 % interval: compare makes its own per unit */
        if (is_key) {
            t->keyidx[t->nkey] = i;
            t->keys[t->nkey++] = k;
        } else if (is_measure(k.type)) {
            t->measures[t->nmeas++] = k;
        } else if (k.type == PP_COL_PERCENT) {
            t->shares[t->nshare++] = k;
        }
    }
    if (t->nkey == 0 || t->nmeas == 0)
        return 0; /* nothing to join or to measure: not an A/B table */
    t->stack_table = strcmp(t->keys[0].name, "stack") == 0 && t->keyidx[0] == 0;
    /* Thread and process ids name nothing across two processes. */
    t->local = strcmp(t->keys[0].name, "thread") == 0 || strcmp(t->keys[0].name, "tid") == 0 ||
               strcmp(t->keys[0].name, "thread_id") == 0 || strcmp(t->keys[0].name, "pid") == 0;
    /* An event count (db commands, requests) is not sampled, but divided
     * by the work it is a rate all the same: 1 setup command per run is
     * +30 % per second when one capture is shorter. Its rows take the
     * same rate test on the count itself. */
    if (t->samples_col < 0 && t->measures[0].type == PP_COL_COUNT) {
        t->samples_col = (int)t->measures[0].index;
        t->counts_exact = 1;
    }
    return 1;
}

const char *
cmp_shown_only(const json_t *tb, const json_t *tables)
{
    const json_t *c = json_object_get(json_object_get(tb, "decl"), "candidate"), *x;
    const char *by = json_string_value(json_object_get(c, "superseded_by"));
    size_t i;

    if (json_is_true(json_object_get(c, "rule_gated")))
        return "its rows are waits (declared): idle threads' waits are no work a change removes, "
               "so they are shown, not judged; waits that block an application frame are judged "
               "in their own table where the analyzer keeps one";
    json_array_foreach(tables, i, x)
        if (by != NULL && x != tb && json_is_string(json_object_get(x, "name")) &&
            strcmp(json_string_value(json_object_get(x, "name")), by) == 0)
            return "a view of the same cost that another table judges (declared superseded_by)";
    return NULL;
}

/* The cell a baseline key cell joins as: --map OLD=NEW pairs a renamed or
 * replaced key (a twin route, a renamed method) with its new name. */
static json_t *
mapped(const json_t *cell, const pp_compare_options *o)
{
    const char *s = json_string_value(cell);

    for (size_t i = 0; o != NULL && s != NULL && i < o->nmap; i++)
        if (strcmp(s, o->map_old[i]) == 0)
            return json_string(o->map_new[i]);
    return json_incref((json_t *)cell);
}

static char *
row_key(const json_t *row, const size_t *keyidx, size_t nkey, const pp_compare_options *o)
{
    char *out = NULL;
    size_t len = 0;

    for (size_t i = 0; i < nkey; i++) {
        json_t *cell = mapped(json_array_get(row, keyidx[i]), o);
        char *part = cell ? json_dumps(cell, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

        json_decref(cell);
        size_t n = part ? strlen(part) : 0;
        char *grown = realloc(out, len + n + 2);

        if (grown == NULL) {
            free(part);
            free(out);
            return NULL;
        }
        out = grown;
        memcpy(out + len, part ? part : "", n);
        len += n;
        out[len++] = '\x1f';
        out[len] = '\0';
        free(part);
    }
    return out;
}

int
cmp_join(const json_t *tb, const json_t *tc, cmp_table *t, const pp_compare_options *o)
{
    const json_t *rows_b = json_object_get(tb, "rows"), *rows_c = json_object_get(tc, "rows");
    size_t nb = json_array_size(rows_b), nc = json_array_size(rows_c);
    json_t *index = json_object();
    int rc = PP_OK;

    t->rows = calloc(nb + nc + 1, sizeof *t->rows);
    if (index == NULL || t->rows == NULL) {
        json_decref(index);
        return PP_ENOMEM;
    }
    for (size_t i = 0; i < nb && rc == PP_OK; i++) {
        char *k = row_key(json_array_get(rows_b, i), t->keyidx, t->nkey, o);

        if (k == NULL) {
            rc = PP_ENOMEM;
            break;
        }
        t->rows[t->nrows].b = json_array_get(rows_b, i);
        if (json_object_set_new(index, k, json_integer((json_int_t)t->nrows)) != 0)
            rc = PP_ENOMEM;
        t->nrows++;
        free(k);
    }
    for (size_t i = 0; i < nc && rc == PP_OK; i++) {
        char *k = row_key(json_array_get(rows_c, i), t->keyidx, t->nkey, NULL);
        json_t *at;

        if (k == NULL) {
            rc = PP_ENOMEM;
            break;
        }
        at = json_object_get(index, k);
        if (at != NULL)
            t->rows[json_integer_value(at)].c = json_array_get(rows_c, i);
        else
            t->rows[t->nrows++].c = json_array_get(rows_c, i);
        free(k);
    }
    json_decref(index);
    return rc;
}

void
cmp_table_free(cmp_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->nrows = 0;
}

static const json_t *
column_named(const json_t *cols, const char *name, size_t *at)
{
    size_t i;
    json_t *c;

    json_array_foreach(cols, i, c) {
        const char *n = json_string_value(json_object_get(c, "name"));

        if (n != NULL && name != NULL && strcmp(n, name) == 0) {
            *at = i;
            return c;
        }
    }
    return NULL;
}

/* A column the verdict reads: a key joins the rows, a measure or a share
 * is judged. Anything else (a string describing the row) only shows. */
static int
judged_column(const json_t *c, const json_t *keys)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    uint32_t type = pp_column_type_from_name(json_string_value(json_object_get(c, "type")));
    size_t j;
    json_t *k;

    json_array_foreach(keys, j, k)
        if (name != NULL && json_is_string(k) && strcmp(json_string_value(k), name) == 0)
            return 1;
    return name != NULL && !interval_column(name) && (is_measure(type) || type == PP_COL_PERCENT);
}

/* Columns of `mine` the other side lacks (or types differently) into
 * only; 0 with why filled when one of them is judged. */
static int
one_side_columns(const json_t *mine, const json_t *other, const json_t *keys, const char *side,
                 json_t *only, char *why, size_t whysz)
{
    size_t i, at;
    json_t *c;

    json_array_foreach(json_object_get(mine, "columns"), i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        const json_t *o = column_named(json_object_get(other, "columns"), name, &at);

        if (o != NULL && json_equal(json_object_get(o, "type"), json_object_get(c, "type")))
            continue;
        if (judged_column(c, keys)) {
            snprintf(why, whysz,
                     "table %s: column %s, a key or figure the verdict reads, is %s "
                     "(different analyzer versions or options?)",
                     json_string_value(json_object_get(mine, "name")), name ? name : "?",
                     o == NULL ? side : "of a different type on each side");
            return 0;
        }
        if (json_array_append_new(only, json_string(name ? name : "?")) != 0)
            return -1;
    }
    return 1;
}

/* A copy of t cut to cols (in the order of cols, by name). */
static json_t *
cut_to(const json_t *t, const json_t *cols)
{
    json_t *out = json_copy((json_t *)t), *rows = json_array(), *row, *names = json_array();
    size_t n = json_array_size(cols), *idx = calloc(n + 1, sizeof *idx), i;
    int ok = out != NULL && rows != NULL && names != NULL && idx != NULL;

    for (i = 0; ok && i < n; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(cols, i), "name"));
        const json_t *c = column_named(json_object_get(t, "columns"), name, &idx[i]);

        ok = c != NULL && json_array_append(names, (json_t *)c) == 0;
    }
    json_array_foreach(json_object_get(t, "rows"), i, row) {
        json_t *cut = json_array();

        ok = ok && cut != NULL;
        for (size_t k = 0; ok && k < n; k++)
            ok = json_array_append(cut, json_array_get(row, idx[k]) ? json_array_get(row, idx[k]) :
                                                                      json_null()) == 0;
        ok = ok && json_array_append_new(rows, cut) == 0;
        if (!ok)
            break;
    }
    free(idx);
    if (!ok || json_object_set_new(out, "columns", names) != 0 ||
        json_object_set_new(out, "rows", rows) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

int
cmp_shared_columns(const json_t *tb, const json_t *tc, json_t **pb, json_t **pc, json_t **one_side,
                   char *why, size_t whysz)
{
    const json_t *kb = json_object_get(tb, "key"), *kc = json_object_get(tc, "key");
    json_t *ob, *oc, *shared, *c;
    size_t i, at;
    int rc;

    *pb = *pc = *one_side = NULL;
    if (json_equal(json_object_get(tb, "columns"), json_object_get(tc, "columns")) &&
        json_equal(kb, kc))
        return 1;
    if (!json_equal(kb, kc)) {
        char *b = json_dumps(kb, JSON_ENCODE_ANY | JSON_COMPACT);
        char *k = json_dumps(kc, JSON_ENCODE_ANY | JSON_COMPACT);

        snprintf(why, whysz, "table %s: its key is %s in the baseline and %s in the candidate",
                 json_string_value(json_object_get(tb, "name")), b ? b : "?", k ? k : "?");
        free(b);
        free(k);
        return 0;
    }
    ob = json_array();
    oc = json_array();
    shared = json_array();
    rc = ob && oc && shared ? one_side_columns(tb, tc, kb, "only in the baseline", ob, why, whysz) :
                              -1;
    if (rc == 1)
        rc = one_side_columns(tc, tb, kb, "only in the candidate", oc, why, whysz);
    json_array_foreach(json_object_get(tb, "columns"), i, c) {
        const json_t *o = column_named(json_object_get(tc, "columns"),
                                       json_string_value(json_object_get(c, "name")), &at);

        if (rc == 1 && o != NULL &&
            json_equal(json_object_get(o, "type"), json_object_get(c, "type")))
            rc = json_array_append(shared, c) == 0 ? 1 : -1;
    }
    if (rc == 1) {
        *pb = cut_to(tb, shared);
        *pc = cut_to(tc, shared);
        *one_side = json_pack("{s:O,s:O}", "baseline", ob, "candidate", oc);
        if (*pb == NULL || *pc == NULL || *one_side == NULL) {
            json_decref(*pb);
            json_decref(*pc);
            json_decref(*one_side);
            *pb = *pc = *one_side = NULL;
            rc = -1;
        }
    }
    json_decref(ob);
    json_decref(oc);
    json_decref(shared);
    return rc;
}
