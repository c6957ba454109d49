/* Table declarations in the result document (decl.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "result/decl.h"
#include "result/result.h"

const char *const pp_decl_axes[] = { PP_AXIS_TIME,     PP_AXIS_ALLOCATION, PP_AXIS_FOOTPRINT,
                                     PP_AXIS_DATABASE, PP_AXIS_LOAD,       NULL };

const pp_decl_role pp_decl_roles[] = {
    { PP_COL_FLAG_SQL, "sql" },
    { PP_COL_FLAG_CALLS, "calls" },
    { PP_COL_FLAG_ASYNC_CALLS, "async_calls" },
    { PP_COL_FLAG_THREADS, "threads" },
    { PP_COL_FLAG_ROOT_PATH, "root_path" },
    { PP_COL_FLAG_STACK, "stack" },
    { PP_COL_FLAG_TYPE, "type" },
    { 0, NULL },
};

const char *
pp_decl_role_column(const pp_table_decl *decl, uint32_t flag)
{
    for (const pp_column *c = decl->columns; c != NULL && c->name != NULL; c++)
        if (c->flags & flag)
            return c->name;
    return NULL;
}

const pp_table_decl *
pp_decl_find(const pp_analyzer *a, const char *name)
{
    if (a == NULL || name == NULL || !PP_ANALYZER_HAS(a, tables) || a->tables == NULL)
        return NULL;
    for (const pp_table_decl *t = a->tables; t->name != NULL; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* The table's column object named name, or NULL. */
static const json_t *
column(const json_t *table, const char *name)
{
    const json_t *c;
    size_t i;

    json_array_foreach(json_object_get(table, "columns"), i, c)
        if (json_is_string(json_object_get(c, "name")) &&
            strcmp(json_string_value(json_object_get(c, "name")), name) == 0)
            return c;
    return NULL;
}

/* names (NULL-terminated) as an array of those the table has (all, for
 * totals: table NULL). */
static json_t *
names_json(const char *const *names, const json_t *table)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && names[i] != NULL; i++)
        if ((table == NULL || column(table, names[i]) != NULL) &&
            json_array_append_new(a, json_string(names[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/* decl's candidate part as {"cost", "label", ..., "frame": true, ...}, the
 * columns it names kept where the table has them; NULL when the table has
 * no cost figure (no candidates) or out of memory (*bad set). */
static json_t *
candidate_json(const pp_table_decl *decl, const json_t *table, int *bad)
{
    const pp_candidate_decl *c = decl->candidate;
    const char *cost = c->cost;
    json_t *o;

    for (size_t i = 0; cost == NULL && decl->figures != NULL && decl->figures[i].column; i++)
        if (decl->figures[i].axis != NULL)
            cost = decl->figures[i].column;
    if (cost == NULL || column(table, cost) == NULL)
        return NULL;
    /* flags as members that are there only when set */
    o = json_pack("{s:s, s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:s*, s:s*}", "cost", cost, "label",
                  c->label, "does", c->does, "status",
                  c->status && column(table, c->status) ? c->status : NULL, "superseded_by",
                  c->superseded_by, "skip_if",
                  c->skip_if && column(table, c->skip_if) ? c->skip_if : NULL, "stacks", c->stacks,
                  "waits", c->waits, "callers", c->callers);
    if (o != NULL &&
        (((c->flags & PP_CANDIDATE_FRAME) && json_object_set_new(o, "frame", json_true())) ||
         ((c->flags & PP_CANDIDATE_NO_WAITS) && json_object_set_new(o, "no_waits", json_true())) ||
         ((c->flags & PP_CANDIDATE_RULE_GATED) &&
          json_object_set_new(o, "rule_gated", json_true())) ||
         ((c->flags & PP_CANDIDATE_HEAP_TYPE) &&
          json_object_set_new(o, "heap_type", json_true())) ||
         (c->evidence != NULL &&
          json_object_set_new(o, "evidence", names_json(c->evidence, table)) != 0))) {
        json_decref(o);
        o = NULL;
    }
    *bad |= o == NULL;
    return o;
}

/* decl's column roles (ABI 1.7) as o's "roles": {role: column}, for the
 * columns table has; no member when it has none. */
static int
roles_json(const pp_table_decl *decl, const json_t *table, json_t *o)
{
    json_t *r = json_object();
    int rc = r == NULL;

    for (size_t i = 0; rc == 0 && pp_decl_roles[i].word != NULL; i++) {
        const char *col = pp_decl_role_column(decl, pp_decl_roles[i].flag);

        if (col != NULL && column(table, col) != NULL)
            rc = json_object_set_new(r, pp_decl_roles[i].word, json_string(col));
    }
    if (rc == 0 && json_object_size(r) > 0)
        rc = json_object_set(o, "roles", r);
    json_decref(r);
    return rc;
}

json_t *
pp_decl_json(const pp_table_decl *decl, const json_t *table)
{
    json_t *o = json_object(), *figs = json_object();
    int bad = o == NULL || figs == NULL;

    if (!bad && decl->subject != NULL && column(table, decl->subject) != NULL)
        bad |= json_object_set_new(o, "subject", json_string(decl->subject)) != 0;
    if (!bad && decl->key != NULL)
        bad |= json_object_set_new(o, "key", names_json(decl->key, table)) != 0;
    for (size_t i = 0; !bad && decl->figures != NULL && decl->figures[i].column != NULL; i++) {
        const pp_figure_decl *f = &decl->figures[i];

        if (column(table, f->column) == NULL)
            continue;
        bad |= json_object_set_new(figs, f->column,
                                   json_pack("{s:s, s:s?}", "unit", f->unit, "axis", f->axis)) != 0;
    }
    if (!bad && json_object_size(figs) > 0)
        bad |= json_object_set(o, "figures", figs) != 0;
    if (!bad && decl->work_totals != NULL)
        bad |= json_object_set_new(o, "work_totals", names_json(decl->work_totals, NULL)) != 0;
    if (!bad)
        bad |= roles_json(decl, table, o) != 0;
    if (!bad && decl->candidate != NULL) {
        json_t *c = candidate_json(decl, table, &bad);

        if (c != NULL)
            bad |= json_object_set_new(o, "candidate", c) != 0;
    }
    json_decref(figs);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* 0 when table's columns are, in order, some of decl's with the same
 * types (a run may leave a declared column out); else -1 with the first
 * one that is not in why. */
static int
drifted(const pp_table_decl *decl, const json_t *table, char *why, size_t size)
{
    const json_t *c;
    size_t i, k = 0;

    if (decl->columns == NULL)
        return 0;
    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *type = json_string_value(json_object_get(c, "type"));

        while (decl->columns[k].name != NULL && name != NULL &&
               strcmp(decl->columns[k].name, name) != 0)
            k++;
        if (name == NULL || decl->columns[k].name == NULL || type == NULL ||
            pp_column_type_name(decl->columns[k].type) == NULL ||
            strcmp(pp_column_type_name(decl->columns[k].type), type) != 0) {
            snprintf(why, size, "column '%s' (%s)", name ? name : "?", type ? type : "?");
            return -1;
        }
        k++;
    }
    return 0;
}

int
pp_decl_annotate(json_t *stage, const pp_analyzer *a)
{
    json_t *t;
    size_t i;

    json_array_foreach(json_object_get(stage, "tables"), i, t) {
        const pp_table_decl *d = pp_decl_find(a, json_string_value(json_object_get(t, "name")));
        json_t *j;

        char why[192], msg[512];

        if (d == NULL || json_object_get(t, "decl") != NULL)
            continue;
        /* The declaration is what rules are checked against: a table that
         * strays from it is the analyzer's bug, said where it shows. */
        if (drifted(d, t, why, sizeof why) != 0) {
            snprintf(msg, sizeof msg,
                     "table '%s' has %s, which its declaration (pp_table_decl "
                     "of analyzer '%s') does not list in that order or type: rules and "
                     "candidates cannot trust it; report it to the analyzer's author",
                     d->name, why, a->name);
            if (pp_result_finding(stage, PP_SEVERITY_WARNING | PP_FINDING_CAVEAT,
                                  "host.undeclared_column", msg) != PP_OK)
                return PP_ENOMEM;
        }
        if ((j = pp_decl_json(d, t)) == NULL || json_object_set_new(t, "decl", j) != 0)
            return PP_ENOMEM;
    }
    return PP_OK;
}

/* A column of table whose type is a number. */
static int
number_column(const json_t *table, const char *name)
{
    const json_t *c = column(table, name);
    const char *type = c ? json_string_value(json_object_get(c, "type")) : NULL;

    return type != NULL && strcmp(type, "string") != 0;
}

static int
check_names(const json_t *a, const json_t *table, const char *what, char *why, size_t size)
{
    const json_t *v;
    size_t i;

    if (a == NULL)
        return 0;
    if (!json_is_array(a)) {
        snprintf(why, size, "\"decl\".\"%s\" must be an array of names", what);
        return -1;
    }
    json_array_foreach(a, i, v)
        if (!json_is_string(v) || (table != NULL && column(table, json_string_value(v)) == NULL)) {
            snprintf(why, size, "\"decl\".\"%s\" item %zu is not a column of the table", what, i);
            return -1;
        }
    return 0;
}

int
pp_decl_check(const json_t *decl, const json_t *table, char *why, size_t size)
{
    const json_t *subject = json_object_get(decl, "subject"),
                 *figs = json_object_get(decl, "figures"), *roles = json_object_get(decl, "roles");
    const char *k;
    const json_t *f;

    if (!json_is_object(decl)) {
        snprintf(why, size, "\"decl\" must be an object");
        return -1;
    }
    if (subject != NULL &&
        (!json_is_string(subject) || column(table, json_string_value(subject)) == NULL)) {
        snprintf(why, size, "\"decl\".\"subject\" must name a column of the table");
        return -1;
    }
    if (check_names(json_object_get(decl, "key"), table, "key", why, size) != 0 ||
        check_names(json_object_get(decl, "work_totals"), NULL, "work_totals", why, size) != 0)
        return -1;
    if (roles != NULL && !json_is_object(roles)) {
        snprintf(why, size, "\"decl\".\"roles\" must be an object");
        return -1;
    }
    json_object_foreach((json_t *)roles, k, f)
        if (!json_is_string(f) || column(table, json_string_value(f)) == NULL) {
            snprintf(why, size, "\"decl\" role \"%s\" must name a column of the table", k);
            return -1;
        }
    if (figs != NULL && !json_is_object(figs)) {
        snprintf(why, size, "\"decl\".\"figures\" must be an object");
        return -1;
    }
    json_object_foreach((json_t *)figs, k, f) {
        const json_t *axis = json_object_get(f, "axis");

        if (!number_column(table, k) || !json_is_string(json_object_get(f, "unit")) ||
            (axis != NULL && !json_is_string(axis) && !json_is_null(axis))) {
            snprintf(why, size,
                     "\"decl\" figure \"%s\" must be a number column of the "
                     "table with {\"unit\": string, \"axis\": string or null}",
                     k);
            return -1;
        }
    }
    return 0;
}
