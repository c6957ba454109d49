/* The callee_types view and the frames the derived views are of
 * (calltypes.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/jsonmem.h"
#include "rules/calltypes.h"
#include "rules/cells.h"
#include "rules/site.h"

#define MAX_DEPTH 512

const json_t *
pp_ev_stage_table(const json_t *stage, const char *name)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t)
        if (strcmp(json_string_value(json_object_get(t, "name")), name) == 0)
            return t;
    return NULL;
}

/* Add the frames of `col` in `table` to the set `frames` (name -> 0.0). */
static void
add_frames(json_t *frames, const json_t *table, const char *col)
{
    int ci = table ? pp_ev_raw_col(table, col) : -1;
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

void
pp_ev_candidate_frames(json_t *frames, const json_t *stage)
{
    size_t k;
    json_t *t;

    json_array_foreach(json_object_get(stage, "tables"), k, t) {
        const json_t *decl = json_object_get(t, "decl"), *c = json_object_get(decl, "candidate");
        const char *subject = json_string_value(json_object_get(decl, "subject"));
        const char *over = json_string_value(json_object_get(c, "superseded_by"));

        if (subject != NULL && json_is_true(json_object_get(c, "frame")) &&
            (over == NULL || pp_ev_stage_table(stage, over) == NULL))
            add_frames(frames, t, subject);
    }
}

int
pp_ev_callee_types_list(const char *weight, char *buf, size_t size)
{
    int n = snprintf(buf, size, "frame:s,type:s,via:s,%s:n,share:n,samples:n", weight);

    return n > 0 && (size_t)n < size ? 0 : -1;
}

int
pp_ev_list_columns(char *list, json_t *columns)
{
    for (char *save = NULL, *c = strtok_r(list, ",", &save); c != NULL;
         c = strtok_r(NULL, ",", &save)) {
        c[strcspn(c, ":")] = '\0';
        if (json_array_append_new(columns, json_string(c)) != 0)
            return -1;
    }
    return 0;
}

/* Add w and ns to the sums of key (weights in sums, counts in nsums). */
static int
add_sum(json_t *sums, json_t *nsums, const char *key, double w, json_int_t ns)
{
    json_t *s = json_object_get(sums, key), *c = json_object_get(nsums, key);

    if (s != NULL && c != NULL) {
        json_real_set(s, json_real_value(s) + w);
        json_integer_set(c, json_integer_value(c) + ns);
        return 0;
    }
    return json_object_set_new(sums, key, json_real(w)) != 0 ||
                   json_object_set_new(nsums, key, json_integer(ns)) != 0 ?
               -1 :
               0;
}

/* One stack "a;b;c" of weight w and ns ticks allocating `type`: each frame
 * of `frames` on it gets w in its total (once), and w in its (frame, type,
 * via) sum when no more than one application frame (of `app`: via) lies
 * between it and the allocation. */
static int
fold_typed_stack(json_t *frames, const json_t *app, json_t *sums, json_t *nsums, char *stack,
                 const char *type, double w, json_int_t ns)
{
    char *names[MAX_DEPTH];
    size_t n = 0;
    json_t *seen = json_object();
    int rc = seen == NULL ? -1 : 0;

    for (char *save = NULL, *f = strtok_r(stack, ";", &save); f != NULL && n < MAX_DEPTH;
         f = strtok_r(NULL, ";", &save))
        names[n++] = f;
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_t *tot = json_object_get(frames, names[i]);
        const char *via = "";
        size_t apps = 0;
        char *key;

        if (tot == NULL || json_object_get(seen, names[i]) != NULL)
            continue;
        json_object_set_new(seen, names[i], json_true());
        json_real_set(tot, json_real_value(tot) + w);
        for (size_t j = i + 1; j < n && apps < 2; j++)
            if (strcmp(names[j], names[i]) != 0 && json_object_get(app, names[j]) != NULL &&
                (apps == 0 || strcmp(names[j], via) != 0)) {
                via = apps == 0 ? names[j] : via;
                apps++;
            }
        if (apps >= 2)
            continue;
        /* sized to the names: a fixed buffer would cut a long generic
         * frame's key and lose the separators emit_rows splits on */
        key = malloc(strlen(names[i]) + strlen(type) + strlen(via) + 3);
        if (key == NULL) {
            rc = -1;
            break;
        }
        sprintf(key, "%s\x1f%s\x1f%s", names[i], type, via);
        rc = add_sum(sums, nsums, key, w, ns);
        free(key);
    }
    json_decref(seen);
    return rc;
}

typedef struct typed {
    const char *key;
    double w;
} typed;

static int
by_weight(const void *a, const void *b)
{
    const typed *x = a, *y = b;

    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return strcmp(x->key, y->key);
}

/* The rows of the view from the sums, heaviest first. */
static int
emit_rows(const json_t *frames, const json_t *sums, const json_t *nsums, int real, pp_ev_table *out)
{
    typed *v = calloc(json_object_size(sums) + 1, sizeof *v);
    const char *key;
    json_t *s;
    size_t n = 0;
    int rc = 0;

    if (v == NULL)
        return -1;
    json_object_foreach((json_t *)sums, key, s) {
        v[n].key = key;
        v[n++].w = json_real_value(s);
    }
    qsort(v, n, sizeof *v, by_weight);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *buf = strdup(v[i].key), *type, *via;
        json_t *r = json_array();
        double tot;

        /* the key holds two separators by construction (fold_typed_stack);
         * a NULL here is strdup's */
        if (buf == NULL || (type = strchr(buf, '\x1f')) == NULL ||
            (via = strchr(type + 1, '\x1f')) == NULL) {
            free(buf);
            json_decref(r);
            rc = -1;
            break;
        }
        *type++ = '\0';
        *via++ = '\0';
        tot = json_real_value(json_object_get(frames, buf));
        rc |= r == NULL || json_array_append_new(r, json_string(buf)) != 0 ||
              json_array_append_new(r, json_string(type)) != 0 ||
              json_array_append_new(r, json_string(via)) != 0 ||
              json_array_append_new(r, real ? json_real(v[i].w) :
                                              json_integer(pp_i64_from_double(v[i].w))) != 0 ||
              json_array_append_new(r, json_real(tot > 0 ? 100.0 * v[i].w / tot : 0)) != 0 ||
              json_array_append_new(
                  r, json_integer(json_integer_value(json_object_get(nsums, v[i].key)))) != 0 ||
              json_array_append_new(out->rows, r) != 0;
        free(buf);
    }
    free(v);
    return rc ? -1 : 0;
}

int
pp_ev_callee_types(const json_t *stage, const json_t *profile, const char *stack, const char *type,
                   const char *weight, const char *samples, pp_ev_table *out)
{
    int si = pp_ev_raw_col(profile, stack), ti = pp_ev_raw_col(profile, type),
        wi = pp_ev_raw_col(profile, weight), ni = samples ? pp_ev_raw_col(profile, samples) : -1;
    const char *wtype = json_string_value(
        json_object_get(json_array_get(json_object_get(profile, "columns"), (size_t)wi), "type"));
    int real = wtype != NULL && (strcmp(wtype, "number") == 0 || strcmp(wtype, "percent") == 0);
    json_t *frames = json_object(), *sums = json_object(), *nsums = json_object();
    json_t *app = json_object(), *row;
    char list[256];
    size_t i;
    int rc = -1;

    out->columns = json_array();
    out->rows = json_array();
    if (frames == NULL || sums == NULL || nsums == NULL || app == NULL || out->columns == NULL ||
        out->rows == NULL || si < 0 || ti < 0 || wi < 0 ||
        pp_ev_callee_types_list(weight, list, sizeof list) != 0 ||
        pp_ev_app_frames(stage, app) != 0)
        goto out;
    if (pp_ev_list_columns(list, out->columns) != 0)
        goto out;
    pp_ev_candidate_frames(frames, stage);
    json_array_foreach(json_object_get(profile, "rows"), i, row) {
        const char *s = json_string_value(json_array_get(row, (size_t)si));
        const char *ty = json_string_value(json_array_get(row, (size_t)ti));
        json_t *wv = json_array_get(row, (size_t)wi), *nv = json_array_get(row, (size_t)ni);
        double w = json_is_integer(wv) ? (double)json_integer_value(wv) : json_real_value(wv);
        char *copy;

        if (s == NULL || ty == NULL || w <= 0)
            continue;
        if ((copy = strdup(s)) == NULL)
            goto out;
        rc = fold_typed_stack(frames, app, sums, nsums, copy, ty, w,
                              json_is_integer(nv) ? json_integer_value(nv) : 0);
        free(copy);
        if (rc != 0)
            goto out;
        rc = -1;
    }
    rc = emit_rows(frames, sums, nsums, real, out);
out:
    if (rc != 0)
        pp_jsonmem_lost(); /* the document built on it is refused (jsonmem.h) */
    json_decref(frames);
    json_decref(sums);
    json_decref(nsums);
    json_decref(app);
    return rc;
}
