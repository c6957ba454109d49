/* The evidence rules match: analyzers' tables as they declare them or as
 * documents hold them, columns derived from them and views derived from
 * several (evidence.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "rules/evidence.h"
#include "rules/selftime.h"

/* The schema rule files are checked against: {analyzer: {table: {column:
 * "s" or "n"}}}, filled from what analyzers declare of their tables (ABI
 * 1.5, pp_table_decl) or from result documents, plus the columns and views
 * this file derives (below). An analyzer absent from it is one nobody
 * declared: anything goes, as for a plugin older than 1.5. What documents
 * show is partial (a run may have left a table or a column out): their
 * analyzers and tables carry the OPEN key, and what they lack is not an
 * error. */
#define OPEN "*"

/* Derived columns: added where the base table is (derivations of
 * copy_table). */
typedef struct ev_derived {
    const char *analyzer, *table, *when, *columns; /* when: a column the table must have */
} ev_derived;

static const ev_derived derived[] = {
    { "db", "by_command", NULL, "verb:s,select_columns:n,sync:n" },
    { "alloc", "by_type_frame_kind", NULL, "per_thread:n" },
    { "gcdump", NULL, "path", "root_kind:s" },
    { "gcdump-diff", NULL, "path", "root_kind:s" },
};

/* Derived views (build_callees), present when their analyzer is. */
static const ev_derived views[] = {
    { "alloc", "callees", NULL, "frame:s,callee:s,bytes:n,share:n,samples:n" },
    { "cpu", "callees", NULL, "frame:s,callee:s,ms:n,share:n,pool_ms:n,samples:n" },
    { "cpu", "self_time", NULL, PP_EV_SELF_TIME_COLUMNS },
};

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

/* The derived columns and views of one analyzer, once its tables are in. */
static int
add_derived(json_t *schema, const char *analyzer)
{
    json_t *a = json_object_get(schema, analyzer), *t;
    const char *tn;

    for (size_t i = 0; a != NULL && i < sizeof derived / sizeof derived[0]; i++) {
        if (strcmp(derived[i].analyzer, analyzer) != 0)
            continue;
        json_object_foreach(a, tn, t)
            if ((derived[i].table == NULL || strcmp(derived[i].table, tn) == 0) &&
                (derived[i].when == NULL || json_object_get(t, derived[i].when) != NULL) &&
                add_list(t, derived[i].columns) != 0)
                return -1;
    }
    for (size_t i = 0; a != NULL && i < sizeof views / sizeof views[0]; i++)
        if (strcmp(views[i].analyzer, analyzer) == 0 &&
            ((t = schema_table(schema, analyzer, views[i].table)) == NULL ||
             add_list(t, views[i].columns) != 0))
            return -1;
    return 0;
}

int
pp_ev_schema_add_analyzer(json_t *schema, const pp_analyzer *a)
{
    const pp_table_decl *d = PP_ANALYZER_HAS(a, tables) ? a->tables : NULL;

    for (; d != NULL && d->name != NULL; d++) {
        json_t *t = schema_table(schema, a->name, d->name);

        if (t == NULL)
            return PP_ENOMEM;
        for (const pp_column *c = d->columns; c != NULL && c->name != NULL; c++)
            if (json_object_set_new(t, c->name,
                                    json_string(c->type == PP_COL_STRING ? "s" : "n")) != 0)
                return PP_ENOMEM;
    }
    return add_derived(schema, a->name) == 0 ? PP_OK : PP_ENOMEM;
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
        }
        if (add_derived(schema, an) != 0)
            return PP_ENOMEM;
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

static const json_t *
stage_table(const json_t *stage, const char *name)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return t;
    return NULL;
}

static int
raw_column(const json_t *table, const char *name)
{
    size_t i;
    json_t *c;

    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *n = json_is_object(c) ? json_string_value(json_object_get(c, "name")) :
                                            json_string_value(c);
        if (n != NULL && strcmp(n, name) == 0)
            return (int)i;
    }
    return -1;
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

/* SELECT, INSERT, ... of a normalized command; "" when it has no word. */
static void
sql_verb(const char *cmd, char *buf, size_t size)
{
    size_t n = 0;

    while (*cmd == ' ' || *cmd == '(')
        cmd++;
    while (n + 1 < size && ((*cmd >= 'A' && *cmd <= 'Z') || (*cmd >= 'a' && *cmd <= 'z'))) {
        buf[n++] = (char)(*cmd >= 'a' ? *cmd - 32 : *cmd);
        cmd++;
    }
    buf[n] = '\0';
}

/* Top-level items of the SELECT list (commas outside parentheses and
 * quotes, up to the top-level FROM); 0 when the command is no SELECT. */
static json_int_t
select_columns(const char *cmd)
{
    const char *p = cmd;
    json_int_t items = 1;
    int depth = 0;
    char quote = 0;

    while (*p == ' ' || *p == '(')
        p++;
    if (strncasecmp(p, "SELECT", 6) != 0)
        return 0;
    for (p += 6; *p != '\0'; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
        } else if (*p == '"' || *p == '\'' || *p == '`' || *p == '[') {
            quote = *p == '[' ? ']' : *p;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            depth--;
        } else if (depth == 0 && *p == ',') {
            items++;
        } else if (depth == 0 && strncasecmp(p, " FROM ", 6) == 0) {
            break;
        }
    }
    return items;
}

/* The root group a heap path starts from: its segment after
 * "[.NET Roots] > ". */
static const char *
root_kind(const char *path)
{
    const char *seg = strstr(path, "[.NET Roots] > ");
    char low[64];
    size_t n = 0;

    if (seg == NULL)
        return "other";
    seg += strlen("[.NET Roots] > ");
    while (n + 1 < sizeof low && seg[n] != '\0' && seg[n] != '>') {
        char ch = seg[n];
        low[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    low[n] = '\0';
    if (strstr(low, "static") != NULL)
        return "static";
    if (strstr(low, "finaliz") != NULL)
        return "finalizer";
    if (strstr(low, "local") != NULL || strstr(low, "stack") != NULL)
        return "local";
    if (strstr(low, "handle") != NULL || strstr(low, "pinned") != NULL)
        return "handle";
    return "other";
}

/* Copy the stage's table (names only for columns) and append the derived
 * columns its analyzer has. */
static int
copy_table(const char *analyzer, const json_t *table, pp_ev_table *out)
{
    const char *name = json_string_value(json_object_get(table, "name"));
    int is_cmd = strcmp(analyzer, "db") == 0 && strcmp(name, "by_command") == 0;
    int is_heap = strncmp(analyzer, "gcdump", 6) == 0 && raw_column(table, "path") >= 0;
    int is_tfk = strcmp(analyzer, "alloc") == 0 && strcmp(name, "by_type_frame_kind") == 0 &&
                 raw_column(table, "per_thread") < 0;
    int si = raw_column(table, "samples"), thi = raw_column(table, "threads");
    int ci = raw_column(table, "command"), cnt = raw_column(table, "count");
    int ai = raw_column(table, "async"), pi = raw_column(table, "path");
    size_t i;
    json_t *c, *row;

    out->columns = json_array();
    out->rows = json_array();
    if (out->columns == NULL || out->rows == NULL)
        return -1;
    json_array_foreach(json_object_get(table, "columns"), i, c) {
        const char *n = json_is_object(c) ? json_string_value(json_object_get(c, "name")) :
                                            json_string_value(c);
        json_array_append_new(out->columns, json_string(n != NULL ? n : ""));
    }
    if (is_cmd) {
        json_array_append_new(out->columns, json_string("verb"));
        json_array_append_new(out->columns, json_string("select_columns"));
        json_array_append_new(out->columns, json_string("sync"));
    }
    if (is_heap && raw_column(table, "root_kind") < 0)
        json_array_append_new(out->columns, json_string("root_kind"));
    if (is_tfk)
        json_array_append_new(out->columns, json_string("per_thread"));
    json_array_foreach(json_object_get(table, "rows"), i, row) {
        json_t *copy = json_copy(row);

        if (copy == NULL)
            return -1;
        if (is_cmd) {
            const char *cmd = ci >= 0 ? json_string_value(json_array_get(row, (size_t)ci)) : NULL;
            json_t *cv = cnt >= 0 ? json_array_get(row, (size_t)cnt) : NULL;
            json_t *av = ai >= 0 ? json_array_get(row, (size_t)ai) : NULL;
            char verb[16];

            sql_verb(cmd != NULL ? cmd : "", verb, sizeof verb);
            json_array_append_new(copy, json_string(verb));
            json_array_append_new(copy, json_integer(cmd != NULL ? select_columns(cmd) : 0));
            json_array_append_new(
                copy, json_is_integer(cv) && json_is_integer(av) ?
                          json_integer(json_integer_value(cv) - json_integer_value(av)) :
                          json_null());
        }
        if (is_heap && raw_column(table, "root_kind") < 0) {
            const char *p = json_string_value(json_array_get(row, (size_t)pi));
            json_array_append_new(copy, json_string(root_kind(p != NULL ? p : "")));
        }
        if (is_tfk) {
            /* samples per allocating thread: a pooled buffer is allocated
             * about once per thread, a per-call one once per call */
            json_t *sv = si >= 0 ? json_array_get(row, (size_t)si) : NULL;
            json_t *tv = thi >= 0 ? json_array_get(row, (size_t)thi) : NULL;
            double th = json_is_number(tv) ? json_number_value(tv) : 0;

            json_array_append_new(copy, json_is_number(sv) && th > 0 ?
                                            json_real(json_number_value(sv) / th) :
                                            json_null());
        }
        json_array_append_new(out->rows, copy);
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

/* Add the frames of `col` in `table` to the set `frames` (name -> 0.0). */
static void
add_frames(json_t *frames, const json_t *table, const char *col)
{
    int ci = table ? raw_column(table, col) : -1;
    size_t i;
    json_t *row;

    if (ci < 0)
        return;
    json_array_foreach(json_object_get(table, "rows"), i, row) {
        const char *f = json_string_value(json_array_get(row, (size_t)ci));
        if (f != NULL && f[0] != '[' && json_object_get(frames, f) == NULL)
            json_object_set_new(frames, f, json_real(0));
    }
}

/* A stack run by a thread-pool thread: it passes through the pool's
 * dispatch loop (a thread of its own, Main, or a timer thread does not). */
static int
pool_stack(const char *stack)
{
    static const char *const loops[] = {
        "System.Threading.ThreadPoolWorkQueue.Dispatch",
        "System.Threading.PortableThreadPool+WorkerThread.",
        "System.Threading.PortableThreadPool+IOCompletionPoller.",
        "System.Threading.WindowsThreadPool.",
        "System.Threading._ThreadPoolWaitCallback.",
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        const char *p = strstr(stack, loops[i]);
        if (p != NULL && (p == stack || p[-1] == ';'))
            return 1;
    }
    return 0;
}

/* One stack "a;b;c" of weight w and `samples` ticks or samples: each frame
 * of the set it passes through gets w (once), and each distinct frame
 * deeper than that frame's first occurrence gets w in the (frame, callee)
 * sums and samples in `nsums`. pool: the stack is a thread-pool thread's;
 * its weight also goes to the (frame, callee) sums of `psums` (cpu's
 * pool_ms). */
static int
fold_stack(json_t *frames, json_t *sums, json_t *psums, json_t *nsums, char *stack, double w,
           json_int_t samples)
{
    char *names[512];
    size_t n = 0;
    json_t *seen = json_object();
    int pool = psums != NULL && pool_stack(stack);

    if (seen == NULL)
        return -1;
    for (char *save = NULL, *f = strtok_r(stack, ";", &save); f != NULL && n < 512;
         f = strtok_r(NULL, ";", &save))
        names[n++] = f;
    for (size_t i = 0; i < n; i++) {
        json_t *tot = json_object_get(frames, names[i]);

        if (tot == NULL || json_object_get(seen, names[i]) != NULL)
            continue;
        json_object_set_new(seen, names[i], json_true());
        json_real_set(tot, json_real_value(tot) + w);
        {
            json_t *callees = json_object();

            if (callees == NULL) {
                json_decref(seen);
                return -1;
            }
            for (size_t j = i + 1; j < n; j++) {
                char key[2048];
                json_t *s;

                if (strcmp(names[j], names[i]) == 0 || json_object_get(callees, names[j]) != NULL)
                    continue;
                json_object_set_new(callees, names[j], json_true());
                snprintf(key, sizeof key, "%s\x1f%s", names[i], names[j]);
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
            json_decref(callees);
        }
    }
    json_decref(seen);
    return 0;
}

/* alloc/cpu `callees`: frame, callee, weight (bytes or ms), share of the
 * frame's own stacks, largest first, (cpu) pool_ms, and the ticks (alloc)
 * or samples (cpu) through the callee: a count that grows with the calls
 * that reach it, where a share need not (a construction made once is most
 * of a frame that does little else). */
static int
build_callees(const char *analyzer, const json_t *stage, pp_ev_table *out)
{
    int is_cpu = strcmp(analyzer, "cpu") == 0;
    const char *wcol = is_cpu ? "ms" : "bytes";
    const json_t *stacks = stage_table(stage, "by_stack");
    int si = stacks ? raw_column(stacks, "stack") : -1, wi = stacks ? raw_column(stacks, wcol) : -1;
    int ni = stacks ? raw_column(stacks, "samples") : -1;
    json_t *frames = json_object(), *sums = json_object(), *nsums = json_object(), *row, *v;
    json_t *psums = is_cpu ? json_object() : NULL;
    pair *pairs = NULL;
    size_t i, n = 0;
    const char *key;
    int rc = -1;

    out->columns = is_cpu ? json_pack("[ssssss]", "frame", "callee", wcol, "share", "pool_ms",
                                      "samples") :
                            json_pack("[sssss]", "frame", "callee", wcol, "share", "samples");
    out->rows = json_array();
    if (frames == NULL || sums == NULL || nsums == NULL || (is_cpu && psums == NULL) ||
        out->columns == NULL || out->rows == NULL)
        goto out;
    if (is_cpu) {
        add_frames(frames, stage_table(stage, "running"), "method");
        add_frames(frames, stage_table(stage, "waiting"), "waiter");
    } else {
        add_frames(frames, stage_table(stage, "by_frame"), "frame");
    }
    if (si >= 0 && wi >= 0)
        json_array_foreach(json_object_get(stacks, "rows"), i, row) {
            const char *s = json_string_value(json_array_get(row, (size_t)si));
            json_t *wv = json_array_get(row, (size_t)wi);
            json_t *nv = ni >= 0 ? json_array_get(row, (size_t)ni) : NULL;
            double w = json_is_integer(wv) ? (double)json_integer_value(wv) : json_real_value(wv);
            json_int_t ns = json_is_integer(nv) ? json_integer_value(nv) : 0;
            char *copy;

            if (s == NULL || w <= 0 || (copy = strdup(s)) == NULL)
                continue;
            rc = fold_stack(frames, sums, psums, nsums, copy, w, ns);
            free(copy);
            if (rc != 0)
                goto out;
        }
    rc = -1;
    if ((pairs = calloc(json_object_size(sums) + 1, sizeof *pairs)) == NULL)
        goto out;
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

        if (f == NULL)
            goto out;
        pairs[i].frame = f;
    }
    qsort(pairs, n, sizeof *pairs, by_weight);
    for (i = 0; i < n; i++) {
        double tot = json_real_value(json_object_get(frames, pairs[i].frame));
        json_t *r = json_array();

        json_array_append_new(r, json_string(pairs[i].frame));
        json_array_append_new(r, json_string(pairs[i].callee));
        json_array_append_new(r, is_cpu ? json_real(pairs[i].w) :
                                          json_integer(pp_i64_from_double(pairs[i].w)));
        json_array_append_new(r, json_real(tot > 0 ? 100.0 * pairs[i].w / tot : 0));
        if (is_cpu) {
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
    const json_t *raw;
    ev_entry *e;
    int rc;

    if (c == NULL || an == NULL || strlen(name) >= sizeof c->e[0].name)
        return NULL;
    for (size_t i = 0; i < c->n; i++)
        if (c->e[i].stage == stage && strcmp(c->e[i].name, name) == 0)
            return c->e[i].present ? &c->e[i].t : NULL;
    if (c->n == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        ev_entry *g = realloc(c->e, ncap * sizeof *g);

        if (g == NULL)
            return NULL;
        c->e = g;
        c->cap = ncap;
    }
    e = &c->e[c->n++];
    memset(e, 0, sizeof *e);
    e->stage = stage;
    snprintf(e->name, sizeof e->name, "%s", name);
    if (strcmp(name, "callees") == 0 && (strcmp(an, "alloc") == 0 || strcmp(an, "cpu") == 0) &&
        stage_table(stage, "callees") == NULL) {
        rc = build_callees(an, stage, &e->t);
    } else if (strcmp(name, "self_time") == 0 && strcmp(an, "cpu") == 0 &&
               stage_table(stage, "self_time") == NULL) {
        rc = pp_ev_self_time(stage_table(stage, "running"), stage_table(stage, "by_stack"),
                             stage_table(stage, "modules"), &e->t);
    } else if ((raw = stage_table(stage, name)) != NULL) {
        rc = copy_table(an, raw, &e->t);
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
