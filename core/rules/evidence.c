/* The evidence rules match: analyzers' tables as they declare them or as
 * documents hold them, columns derived from them and views derived from
 * several (evidence.h). What is derived follows from what a table declares
 * (its column roles, figures, key and candidate flags), never from which
 * analyzer wrote it: a third-party analyzer's table gets the same. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/records.h>
#include <perfpipe/plugin.h>

#include "result/decl.h"
#include "result/jsonmem.h"
#include "rules/calltypes.h"
#include "rules/cells.h"
#include "rules/derive.h"
#include "rules/evidence.h"
#include "rules/selftime.h"
#include "rules/site.h"

/* The schema rule files are checked against: {analyzer: {table: {column:
 * "s" or "n"}}}, filled from what analyzers declare of their tables (ABI
 * 1.5, pp_table_decl) or from result documents, plus the columns and views
 * their declarations derive (below). An analyzer absent from it is one nobody
 * declared: anything goes, as for a plugin older than 1.5. What documents
 * show is partial (a run may have left a table or a column out): their
 * analyzers and tables carry the OPEN key, and what they lack is not an
 * error. */
#define OPEN "*"

/* What a table declares that derived evidence reads, from a descriptor's
 * pp_table_decl or a document's tables[i].decl: its column roles (ABI 1.7,
 * PP_COL_FLAG_*), its figure of unit "samples", its first figure on an
 * axis, and whether it is keyed by its stack (the stage's stack profile). */
typedef struct ev_decl {
    const char *sql, *calls, *async, *threads, *root_path, *stack, *type;
    const char *samples, *weight, *weight_axis;
    int keyed_by_stack;
} ev_decl;

/* e's column of role flag (its slot in the struct). */
static const char **
role_slot(ev_decl *e, uint32_t flag)
{
    switch (flag) {
    case PP_COL_FLAG_SQL: return &e->sql;
    case PP_COL_FLAG_CALLS: return &e->calls;
    case PP_COL_FLAG_ASYNC_CALLS: return &e->async;
    case PP_COL_FLAG_THREADS: return &e->threads;
    case PP_COL_FLAG_ROOT_PATH: return &e->root_path;
    case PP_COL_FLAG_STACK: return &e->stack;
    case PP_COL_FLAG_TYPE: return &e->type;
    default: return NULL;
    }
}

/* A figure (column, unit, axis) of a declaration, in declaration order. */
static void
add_figure(ev_decl *e, const char *column, const char *unit, const char *axis)
{
    if (e->samples == NULL && unit != NULL && strcmp(unit, "samples") == 0)
        e->samples = column;
    if (e->weight == NULL && axis != NULL) {
        e->weight = column;
        e->weight_axis = axis;
    }
}

static void
decl_of_descriptor(const pp_table_decl *d, ev_decl *e)
{
    memset(e, 0, sizeof *e);
    for (size_t i = 0; pp_decl_roles[i].word != NULL; i++) {
        const char **slot = role_slot(e, pp_decl_roles[i].flag);

        if (slot != NULL)
            *slot = pp_decl_role_column(d, pp_decl_roles[i].flag);
    }
    for (const pp_figure_decl *f = d->figures; f != NULL && f->column != NULL; f++)
        add_figure(e, f->column, f->unit, f->axis);
    e->keyed_by_stack = e->stack != NULL && d->key != NULL && d->key[0] != NULL &&
                        d->key[1] == NULL && strcmp(d->key[0], e->stack) == 0;
}

/* From a table object of a result document; all NULL without a decl (a
 * plugin older than ABI 1.5: its tables get no derived evidence). */
static void
decl_of_table(const json_t *table, ev_decl *e)
{
    const json_t *decl = json_object_get(table, "decl"), *roles = json_object_get(decl, "roles");
    const json_t *key = json_object_get(decl, "key"), *f;
    const char *k;

    memset(e, 0, sizeof *e);
    for (size_t i = 0; pp_decl_roles[i].word != NULL; i++) {
        const char **slot = role_slot(e, pp_decl_roles[i].flag);

        if (slot != NULL)
            *slot = json_string_value(json_object_get(roles, pp_decl_roles[i].word));
    }
    /* figures keep their declaration order (pp_decl_json writes them so) */
    json_object_foreach(json_object_get(decl, "figures"), k, f)
        add_figure(e, k, json_string_value(json_object_get(f, "unit")),
                   json_string_value(json_object_get(f, "axis")));
    e->keyed_by_stack = e->stack != NULL && json_array_size(key) == 1 &&
                        json_is_string(json_array_get(key, 0)) &&
                        strcmp(json_string_value(json_array_get(key, 0)), e->stack) == 0;
}

/* The derived columns a declaration gives its table, "a:s,b:n" (copy_table
 * computes them in this order). */
static void
derived_list(const ev_decl *e, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s", e->sql ? "verb:s,select_columns:n," : "",
             e->calls && e->async ? "sync:n," : "", e->root_path ? "root_kind:s," : "",
             e->threads && e->samples ? "per_thread:n," : "");
}

/* The callees view of a stage whose stack profile e declares: frame, callee,
 * the weight, share, the thread-pool part of a time weight, samples. */
static int
callees_list(const ev_decl *e, char *buf, size_t size)
{
    int pool = strcmp(e->weight_axis, PP_AXIS_TIME) == 0;
    int n = snprintf(buf, size, "frame:s,callee:s,%s:n,share:n,%s%s%ssamples:n", e->weight,
                     pool ? "pool_" : "", pool ? e->weight : "", pool ? ":n," : "");

    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* Add "a:s,b:n" to the table object t. */
static int
add_list(json_t *t, const char *list)
{
    char name[128];

    for (const char *p = list; *p != '\0';) {
        size_t n = strcspn(p, ":");

        if (p[n] != ':' || n >= sizeof name)
            return -1;
        memcpy(name, p, n);
        name[n] = '\0';
        if (json_object_get(t, name) == NULL &&
            json_object_set_new(t, name, json_string(p[n + 1] == 'n' ? "n" : "s")) != 0)
            return -1;
        p += n + 2;
        p += *p == ',';
    }
    return 0;
}

/* The table object of analyzer/table in schema, made when absent. */
static json_t *
schema_table(json_t *schema, const char *analyzer, const char *table)
{
    json_t *a = json_object_get(schema, analyzer), *t;

    if (a == NULL && (json_object_set_new(schema, analyzer, json_object()) != 0 ||
                      (a = json_object_get(schema, analyzer)) == NULL))
        return NULL;
    if ((t = json_object_get(a, table)) == NULL &&
        (json_object_set_new(a, table, json_object()) != 0 ||
         (t = json_object_get(a, table)) == NULL))
        return NULL;
    return t;
}

/* The derived columns of table t (its schema object) that e declares, and
 * the callees view when e is its stage's stack profile. */
static int
add_derived(json_t *schema, const char *analyzer, json_t *t, const ev_decl *e)
{
    char list[256];
    json_t *v;

    derived_list(e, list, sizeof list);
    if (add_list(t, list) != 0)
        return -1;
    if (e->stack != NULL && e->type != NULL && e->weight != NULL &&
        (pp_ev_callee_types_list(e->weight, list, sizeof list) != 0 ||
         (v = schema_table(schema, analyzer, "callee_types")) == NULL || add_list(v, list) != 0))
        return -1;
    if (!e->keyed_by_stack || e->weight == NULL)
        return 0;
    if (callees_list(e, list, sizeof list) != 0 ||
        (v = schema_table(schema, analyzer, "callees")) == NULL || add_list(v, list) != 0)
        return -1;
    /* a time profile also gives the self_time view (rules/selftime.h) */
    return strcmp(e->weight_axis, PP_AXIS_TIME) != 0 ||
                   ((v = schema_table(schema, analyzer, "self_time")) != NULL &&
                    add_list(v, PP_EV_SELF_TIME_COLUMNS) == 0) ?
               0 :
               -1;
}

int
pp_ev_schema_add_analyzer(json_t *schema, const pp_analyzer *a)
{
    const pp_table_decl *d = PP_ANALYZER_HAS(a, tables) ? a->tables : NULL;

    for (; d != NULL && d->name != NULL; d++) {
        json_t *t = schema_table(schema, a->name, d->name);
        ev_decl e;

        if (t == NULL)
            return PP_ENOMEM;
        for (const pp_column *c = d->columns; c != NULL && c->name != NULL; c++)
            if (json_object_set_new(t, c->name,
                                    json_string(c->type == PP_COL_STRING ? "s" : "n")) != 0)
                return PP_ENOMEM;
        decl_of_descriptor(d, &e);
        if (add_derived(schema, a->name, t, &e) != 0)
            return PP_ENOMEM;
    }
    return PP_OK;
}

int
pp_ev_schema_add_doc(json_t *schema, const json_t *doc)
{
    const json_t *st, *tj, *c;
    size_t i, k, n;

    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        const char *an = pp_ev_analyzer(st);

        if (an == NULL)
            continue;
        json_array_foreach(json_object_get(st, "tables"), k, tj) {
            const char *tn = json_string_value(json_object_get(tj, "name"));
            json_t *t = tn != NULL ? schema_table(schema, an, tn) : NULL;
            ev_decl e;

            if (t == NULL || json_object_set_new(t, OPEN, json_true()) != 0 ||
                json_object_set_new(json_object_get(schema, an), OPEN, json_true()) != 0)
                return PP_ENOMEM;
            json_array_foreach(json_object_get(tj, "columns"), n, c) {
                const char *cn = json_string_value(json_object_get(c, "name"));
                const char *ty = json_string_value(json_object_get(c, "type"));

                if (cn != NULL && ty != NULL &&
                    json_object_set_new(t, cn,
                                        json_string(strcmp(ty, "string") == 0 ? "s" : "n")) != 0)
                    return PP_ENOMEM;
            }
            decl_of_table(tj, &e);
            if (add_derived(schema, an, t, &e) != 0)
                return PP_ENOMEM;
        }
    }
    return PP_OK;
}

pp_ev_kind
pp_ev_schema(const json_t *schema, const char *analyzer, const char *table, const char *column)
{
    const json_t *a = json_object_get(schema, analyzer), *t, *k = NULL;

    if (a == NULL || strcmp(table, OPEN) == 0)
        return PP_EV_ANALYZER_UNKNOWN;
    if ((t = json_object_get(a, table)) == NULL)
        return json_object_get(a, OPEN) != NULL ? PP_EV_ANALYZER_UNKNOWN : PP_EV_TABLE_UNKNOWN;
    if (column == NULL)
        return PP_EV_STRING;
    if (strcmp(column, OPEN) == 0 ||
        ((k = json_object_get(t, column)) == NULL && json_object_get(t, OPEN) != NULL))
        return PP_EV_ANALYZER_UNKNOWN;
    if (k == NULL)
        return PP_EV_COLUMN_UNKNOWN;
    return strcmp(json_string_value(k), "n") == 0 ? PP_EV_NUMBER : PP_EV_STRING;
}

void
pp_ev_schema_list(const json_t *schema, const char *analyzer, const char *table, char *buf,
                  size_t size)
{
    const json_t *a = json_object_get(schema, analyzer);
    const json_t *over = table != NULL ? json_object_get(a, table) : a;
    const char *k;
    const json_t *v;
    size_t used = 0;

    buf[0] = '\0';
    json_object_foreach((json_t *)over, k, v) {
        int w;

        if (strcmp(k, OPEN) == 0)
            continue;
        w = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", k);

        if (w < 0 || (size_t)w >= size - used)
            return;
        used += (size_t)w;
    }
}

const char *
pp_ev_analyzer(const json_t *stage)
{
    return json_string_value(json_object_get(json_object_get(stage, "analyzer"), "name"));
}

int
pp_ev_column(const pp_ev_table *t, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(t->columns, i, c)
        if (strcmp(json_string_value(c), name) == 0)
            return (int)i;
    return -1;
}

/* ---- derived columns ---- */

/* Append the derived columns of one row (derived_list's order). */
static int
derive_row(const ev_decl *e, const int *ix, const json_t *row, json_t *copy)
{
    int rc = 0;

    if (e->sql) {
        const char *cmd = json_string_value(json_array_get(row, (size_t)ix[0]));
        char verb[16];

        pp_ev_sql_verb(cmd != NULL ? cmd : "", verb, sizeof verb);
        rc |= json_array_append_new(copy, json_string(verb));
        rc |= json_array_append_new(copy,
                                    json_integer(cmd != NULL ? pp_ev_select_columns(cmd) : 0));
    }
    if (e->calls && e->async) {
        json_t *cv = json_array_get(row, (size_t)ix[1]), *av = json_array_get(row, (size_t)ix[2]);

        rc |= json_array_append_new(
            copy, json_is_integer(cv) && json_is_integer(av) ?
                      json_integer(json_integer_value(cv) - json_integer_value(av)) :
                      json_null());
    }
    if (e->root_path) {
        const char *p = json_string_value(json_array_get(row, (size_t)ix[3]));

        rc |= json_array_append_new(copy, json_string(pp_ev_root_kind(p != NULL ? p : "")));
    }
    if (e->threads && e->samples) {
        /* samples per thread: a pooled buffer is allocated about once per
         * thread, a per-call one once per call */
        json_t *sv = json_array_get(row, (size_t)ix[4]), *tv = json_array_get(row, (size_t)ix[5]);
        double th = json_is_number(tv) ? json_number_value(tv) : 0;

        rc |= json_array_append_new(copy, json_is_number(sv) && th > 0 ?
                                              json_real(json_number_value(sv) / th) :
                                              json_null());
    }
    return rc;
}

/* Copy the stage's table (names only for columns) and append the derived
 * columns its declaration gives it (a derived column the table already has
 * is not derived again). */
static int
copy_table(const json_t *table, pp_ev_table *out)
{
    ev_decl e;
    char list[256];
    int ix[6];
    size_t i;
    json_t *c, *row;

    decl_of_table(table, &e);
    if (e.root_path != NULL && pp_ev_raw_col(table, "root_kind") >= 0)
        e.root_path = NULL;
    if (e.threads != NULL && pp_ev_raw_col(table, "per_thread") >= 0)
        e.threads = NULL;
    ix[0] = pp_ev_raw_col(table, e.sql);
    ix[1] = pp_ev_raw_col(table, e.calls);
    ix[2] = pp_ev_raw_col(table, e.async);
    ix[3] = pp_ev_raw_col(table, e.root_path);
    ix[4] = pp_ev_raw_col(table, e.samples);
    ix[5] = pp_ev_raw_col(table, e.threads);
    out->columns = json_array();
    out->rows = json_array();
    if (out->columns == NULL || out->rows == NULL)
        return -1;
    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *n = json_is_object(c) ? json_string_value(json_object_get(c, "name")) :
                                            json_string_value(c);
        json_array_append_new(out->columns, json_string(n != NULL ? n : ""));
    }
    derived_list(&e, list, sizeof list);
    for (char *save = NULL, *n = strtok_r(list, ",", &save); n != NULL;
         n = strtok_r(NULL, ",", &save)) {
        n[strcspn(n, ":")] = '\0';
        json_array_append_new(out->columns, json_string(n));
    }
    json_array_foreach(json_object_get(table, "rows"), i, row) {
        json_t *copy = json_copy(row);

        if (copy == NULL)
            return -1;
        if (derive_row(&e, ix, row, copy) != 0) {
            json_decref(copy);
            return -1;
        }
        if (json_array_append_new(out->rows, copy) != 0)
            return -1;
    }
    return 0;
}

/* ---- the callees view ---- */

typedef struct pair {
    const char *frame, *callee, *key;
    double w;
} pair;

static int
by_weight(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    int c;

    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    if ((c = strcmp(x->frame, y->frame)) != 0)
        return c;
    return strcmp(x->callee, y->callee);
}

/* One stack "a;b;c" of weight w and `samples` ticks or samples: each frame
 * of the set it passes through gets w (once), and each distinct frame it
 * calls before the next application frame (one of `app`) gets w in the
 * (frame, callee) sums and samples in `nsums`, once per stack. What an
 * application frame deeper down calls is its own: a fix of that call lands
 * there, not in its application callers (a driver's loop is not where a
 * GC.Collect three calls down is removed). pool: the stack is a thread-pool
 * thread's; its weight also goes to the (frame, callee) sums of `psums`
 * (pool_ms, on a time weight). */
static int
fold_stack(json_t *frames, const json_t *app, json_t *sums, json_t *psums, json_t *nsums,
           char *stack, double w, json_int_t samples)
{
    char *names[512];
    size_t n = 0;
    json_t *seen = json_object(), *done = json_object();
    int pool = psums != NULL && pp_ev_pool_stack(stack), rc = -1;

    if (seen == NULL || done == NULL)
        goto out;
    for (char *save = NULL, *f = strtok_r(stack, ";", &save); f != NULL && n < 512;
         f = strtok_r(NULL, ";", &save))
        names[n++] = f;
    for (size_t i = 0; i < n; i++) {
        json_t *tot = json_object_get(frames, names[i]);

        if (tot == NULL)
            continue;
        if (json_object_get(seen, names[i]) == NULL) {
            json_object_set_new(seen, names[i], json_true());
            json_real_set(tot, json_real_value(tot) + w);
        }
        for (size_t j = i + 1; j < n && json_object_get(app, names[j]) == NULL; j++) {
            char key[2048];
            json_t *s;

            if (strcmp(names[j], names[i]) == 0)
                continue;
            snprintf(key, sizeof key, "%s\x1f%s", names[i], names[j]);
            if (json_object_get(done, key) != NULL)
                continue;
            json_object_set_new(done, key, json_true());
            if ((s = json_object_get(sums, key)) != NULL)
                json_real_set(s, json_real_value(s) + w);
            else
                json_object_set_new(sums, key, json_real(w));
            if ((s = json_object_get(nsums, key)) != NULL)
                json_integer_set(s, json_integer_value(s) + samples);
            else
                json_object_set_new(nsums, key, json_integer(samples));
            if (pool && (s = json_object_get(psums, key)) != NULL)
                json_real_set(s, json_real_value(s) + w);
            else if (pool)
                json_object_set_new(psums, key, json_real(w));
        }
    }
    rc = 0;
out:
    json_decref(seen);
    json_decref(done);
    return rc;
}

/* The stage's stack profile: its table keyed by its stack column alone
 * (PP_COL_FLAG_STACK), with a figure on an axis; NULL when it has none. */
static const json_t *
stack_profile(const json_t *stage, ev_decl *e)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        decl_of_table(t, e);
        if (e->keyed_by_stack && e->weight != NULL)
            return t;
    }
    return NULL;
}

/* The stage's table of one row per stack and type (PP_COL_FLAG_STACK and
 * PP_COL_FLAG_TYPE), with a figure on an axis; NULL when it has none. */
static const json_t *
type_profile(const json_t *stage, ev_decl *e)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        decl_of_table(t, e);
        if (e->stack != NULL && e->type != NULL && e->weight != NULL)
            return t;
    }
    return NULL;
}

/* The tables the self_time view reads: the first frame-candidate table
 * (decl.candidate.frame, not superseded) whose candidate names its stacks
 * table (decl.candidate.stacks) when the stage has it; 0 when none does. */
static int
self_time_tables(const json_t *stage, const json_t **frames, const json_t **stacks)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const json_t *c = json_object_get(json_object_get(t, "decl"), "candidate");
        const char *over = json_string_value(json_object_get(c, "superseded_by"));
        const char *st = json_string_value(json_object_get(c, "stacks"));

        if (json_is_true(json_object_get(c, "frame")) && st != NULL &&
            (over == NULL || pp_ev_stage_table(stage, over) == NULL) &&
            (*stacks = pp_ev_stage_table(stage, st)) != NULL) {
            *frames = t;
            return 1;
        }
    }
    return 0;
}

/* The `callees` view of a stage with a stack profile: frame, callee (each
 * frame it calls before the next application frame: fold_stack), the
 * profile's weight (its first figure on an axis: ms, bytes...), share of
 * the frame's own stacks, largest first, on a time axis the part on
 * thread-pool threads (pool_ms), and the samples through the callee (the
 * profile's figure of unit "samples"): a count that grows with the calls
 * that reach it, where a share need not (a construction made once is most
 * of a frame that does little else). */
static int
build_callees(const json_t *stage, pp_ev_table *out)
{
    ev_decl e;
    const json_t *stacks = stack_profile(stage, &e);
    char list[256];
    int si = stacks ? pp_ev_raw_col(stacks, e.stack) : -1,
        wi = stacks ? pp_ev_raw_col(stacks, e.weight) : -1;
    int ni = stacks && e.samples ? pp_ev_raw_col(stacks, e.samples) : -1;
    const char *wtype = json_string_value(
        json_object_get(json_array_get(json_object_get(stacks, "columns"), (size_t)wi), "type"));
    int real = wtype != NULL && (strcmp(wtype, "number") == 0 || strcmp(wtype, "percent") == 0);
    int pool;
    json_t *frames = json_object(), *sums = json_object(), *nsums = json_object(), *row, *v;
    json_t *psums = NULL, *app = json_object();
    pair *pairs = NULL;
    size_t i, n = 0;
    const char *key;
    int rc = -1;

    if (stacks == NULL || callees_list(&e, list, sizeof list) != 0)
        goto out;
    pool = strcmp(e.weight_axis, PP_AXIS_TIME) == 0;
    out->columns = json_array();
    out->rows = json_array();
    if (pool)
        psums = json_object();
    if (frames == NULL || sums == NULL || nsums == NULL || (pool && psums == NULL) || app == NULL ||
        out->columns == NULL || out->rows == NULL || pp_ev_app_frames(stage, app) != 0 ||
        pp_ev_list_columns(list, out->columns) != 0)
        goto out;
    pp_ev_candidate_frames(frames, stage);
    if (si >= 0 && wi >= 0)
        json_array_foreach(json_object_get(stacks, "rows"), i, row) {
            const char *s = json_string_value(json_array_get(row, (size_t)si));
            json_t *wv = json_array_get(row, (size_t)wi);
            json_t *nv = ni >= 0 ? json_array_get(row, (size_t)ni) : NULL;
            double w = json_is_integer(wv) ? (double)json_integer_value(wv) : json_real_value(wv);
            json_int_t ns = json_is_integer(nv) ? json_integer_value(nv) : 0;
            char *copy;

            if (s == NULL || w <= 0)
                continue;
            if ((copy = strdup(s)) == NULL) {
                /* Counted (jsonmem.h): without the view a rule would read
                 * "no such evidence" and match nothing; the document built
                 * on it is refused, never written with a rule quietly lost. */
                pp_jsonmem_lost();
                rc = -1;
                goto out;
            }
            rc = fold_stack(frames, app, sums, psums, nsums, copy, w, ns);
            free(copy);
            if (rc != 0)
                goto out;
        }
    rc = -1;
    if ((pairs = calloc(json_object_size(sums) + 1, sizeof *pairs)) == NULL) {
        pp_jsonmem_lost();
        goto out;
    }
    json_object_foreach(sums, key, v) {
        const char *sep = strchr(key, '\x1f');
        pairs[n].frame = pairs[n].key = key;
        pairs[n].callee = sep + 1;
        pairs[n].w = json_real_value(v);
        n++;
    }
    /* the frame part of each key, copied (the key stays whole in sums) */
    for (i = 0; i < n; i++) {
        size_t fl = (size_t)(pairs[i].callee - 1 - pairs[i].frame);
        char *f = strndup(pairs[i].frame, fl);

        if (f == NULL) {
            pp_jsonmem_lost();
            goto out;
        }
        pairs[i].frame = f;
    }
    qsort(pairs, n, sizeof *pairs, by_weight);
    for (i = 0; i < n; i++) {
        double tot = json_real_value(json_object_get(frames, pairs[i].frame));
        json_t *r = json_array();

        json_array_append_new(r, json_string(pairs[i].frame));
        json_array_append_new(r, json_string(pairs[i].callee));
        json_array_append_new(r, real ? json_real(pairs[i].w) :
                                        json_integer(pp_i64_from_double(pairs[i].w)));
        json_array_append_new(r, json_real(tot > 0 ? 100.0 * pairs[i].w / tot : 0));
        if (pool) {
            json_t *p = json_object_get(psums, pairs[i].key);
            json_array_append_new(r, json_real(p != NULL ? json_real_value(p) : 0));
        }
        json_array_append_new(
            r, json_integer(json_integer_value(json_object_get(nsums, pairs[i].key))));
        json_array_append_new(out->rows, r);
    }
    rc = 0;
out:
    for (i = 0; pairs != NULL && i < n; i++)
        if (pairs[i].frame != NULL && strchr(pairs[i].frame, '\x1f') == NULL)
            free((char *)pairs[i].frame);
    free(pairs);
    /* the rows hold copies: sums (whose keys the callees point into) can go */
    json_decref(frames);
    json_decref(sums);
    json_decref(nsums);
    json_decref(psums);
    json_decref(app);
    return rc;
}

/* ---- the cache ---- */

typedef struct ev_entry {
    const json_t *stage;
    char name[64];
    pp_ev_table t;
    int present;
} ev_entry;

struct pp_ev_cache {
    ev_entry *e;
    size_t n, cap;
};

pp_ev_cache *
pp_ev_cache_new(void)
{
    return calloc(1, sizeof(pp_ev_cache));
}

void
pp_ev_cache_free(pp_ev_cache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->n; i++) {
        json_decref(c->e[i].t.columns);
        json_decref(c->e[i].t.rows);
    }
    free(c->e);
    free(c);
}

const pp_ev_table *
pp_ev_get(pp_ev_cache *c, const json_t *stage, const char *name)
{
    const char *an = pp_ev_analyzer(stage);
    const json_t *raw, *frames = NULL, *stacks = NULL;
    ev_entry *e;
    ev_decl d;
    int rc;

    if (c == NULL || an == NULL || strlen(name) >= sizeof c->e[0].name)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].stage == stage && strcmp(c->e[i].name, name) == 0)
            return c->e[i].present ? &c->e[i].t : NULL;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        ev_entry *g = realloc(c->e, ncap * sizeof *g);

        if (g == NULL) {
            pp_jsonmem_lost();
            return NULL;
        }
        c->e = g;
        c->cap = ncap;
    }
    e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->stage = stage;
    snprintf(e->name, sizeof e->name, "%s", name);
    if ((raw = pp_ev_stage_table(stage, name)) != NULL) {
        rc = copy_table(raw, &e->t);
    } else if (strcmp(name, "callees") == 0 && stack_profile(stage, &d) != NULL) {
        rc = build_callees(stage, &e->t);
    } else if (strcmp(name, "callee_types") == 0 && (raw = type_profile(stage, &d)) != NULL) {
        rc = pp_ev_callee_types(stage, raw, d.stack, d.type, d.weight, d.samples, &e->t);
    } else if (strcmp(name, "self_time") == 0 && stack_profile(stage, &d) != NULL &&
               strcmp(d.weight_axis, PP_AXIS_TIME) == 0 &&
               self_time_tables(stage, &frames, &stacks)) {
        rc = pp_ev_self_time(frames, stacks, pp_ev_stage_table(stage, "modules"), &e->t);
    } else {
        return NULL;
    }
    if (rc != 0) {
        json_decref(e->t.columns);
        json_decref(e->t.rows);
        e->t.columns = e->t.rows = NULL;
        return NULL;
    }
    e->present = 1;
    return &e->t;
}
