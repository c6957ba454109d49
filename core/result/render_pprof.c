/* The pprof renderer: a result document as a gzip-compressed
 * perftools.profiles.Profile (google/pprof's proto/profile.proto), the
 * format go tool pprof, speedscope, Pyroscope, Parca and Cloud Profiler
 * read. Like the other flame formats it is derived from the document only.
 *
 * A stack table (cpu's by_thread_stack or by_stack, alloc's by_stack, any
 * table --table names) gives one sample per row: its count, bytes and
 * duration columns are the values (count types first, as pprof's convention
 * asks; an "ms" column in nanoseconds, exact to the nanosecond the document
 * keeps), its other string columns labels (thread, cpu's running/waiting
 * "state", alloc's "type", a route where a table has one). Named for what
 * they measure, as the table declares its figures (tables[].decl):
 *   a time figure in ms of a stage with a sample_interval (a sampler):
 *            thread_time/nanoseconds (the view's name), its period the
 *            interval (cpu)
 *   sampled allocation (allocation figures in samples and bytes):
 *            alloc_ticks/count, alloc_space/bytes (GCAllocationTick's
 *            sampled bytes), from by_type_stack when the stage has it (alloc)
 * A heap stage has no stack table but a table of types (its subject is its
 * key) with footprint figures in count and bytes: each listed type is one
 * sample whose stack is its path from a GC root (a `path` column there or
 * in another table of the same subject), the type the leaf frame and a
 * "type" label:
 *   a snapshot   inuse_objects/count, inuse_space/bytes (gcdump's by_type)
 *   a change     objects_delta/count, space_delta/bytes (figures *_delta:
 *                gcdump-diff's growth)
 * The types a stage did not list are one "[other types]" sample holding
 * the rest of the stage's totals, so the profile's totals are the
 * document's.
 *
 * Every profile carries the capture's knobs as "knob.NAME" labels on every
 * sample, time_nanos (the trace's start), duration_nanos, period (cpu: the
 * sample interval; alloc: the tick threshold, 100 KB) and comments naming
 * perfpipe, the pipeline, stage and table. Modules: a frame named in a
 * table beside its module (cpu's running.method, alloc's by_frame.frame)
 * points at the module's mapping, whose file is the path of the stage's
 * `modules` table (and build_id from a build_id column, when one is there). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"
#include "result/pprof_build.h"

#define ALLOC_TICK_BYTES (100 * 1024) /* plugins/alloc: PP_ALLOC_TICK_THRESHOLD */
#define MAX_LABELS       16

/* Whether tj's allocation figures are samples (GCAllocationTick's). */
static int
sampled_allocation(const json_t *tj)
{
    return pp_render_figure_col(tj, "samples", PP_AXIS_ALLOCATION) != (size_t)-1;
}

static int64_t
total_int(const json_t *st, const char *name, int64_t dflt)
{
    const json_t *v = json_object_get(json_object_get(json_object_get(st, "totals"), name),
                                      "value");
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
}

/* Whether col of tj is a sampler's time: a time figure in ms of a stage
 * that has a sample interval (each sample stands for one). */
static int
sampled_time(const json_t *st, const json_t *tj, const char *col)
{
    return pp_render_figure_is(tj, col, "ms", PP_AXIS_TIME) &&
           json_object_get(json_object_get(st, "totals"), "sample_interval") != NULL;
}

/* Modules and which frames belong to them, from the stage's tables. */
static int
add_modules(pp_pprof *p, const json_t *st)
{
    const json_t *mods = pp_render_table_of(st, "modules"), *t, *row;
    size_t i, r;

    /* the application's modules first: tools call mapping[0] the main binary */
    for (int pass = 0; mods != NULL && pass < 2; pass++) {
        size_t mi = pp_render_col_of(mods, "module"), pi = pp_render_col_of(mods, "path"),
               bi = pp_render_col_of(mods, "build_id");
        size_t ci = pp_render_col_of(mods, "class");
        json_array_foreach(json_object_get(mods, "rows"), r, row) {
            const char *m = json_string_value(json_array_get(row, mi));
            const char *cls = json_string_value(json_array_get(row, ci));
            if ((pass == 0) != (cls != NULL && strcmp(cls, "application") == 0))
                continue;
            if (m != NULL &&
                pp_pprof_module(
                    p, m, json_string_value(json_array_get(row, pi)),
                    bi == (size_t)-1 ? NULL : json_string_value(json_array_get(row, bi))) != PP_OK)
                return PP_ENOMEM;
        }
    }
    json_array_foreach(json_object_get(st, "tables"), i, t) {
        size_t mc = pp_render_col_of(t, "module"), fc = pp_render_col_of(t, "method");
        if (fc == (size_t)-1)
            fc = pp_render_col_of(t, "frame");
        if (mc == (size_t)-1 || fc == (size_t)-1)
            continue;
        json_array_foreach(json_object_get(t, "rows"), r, row) {
            const char *m = json_string_value(json_array_get(row, mc));
            const char *f = json_string_value(json_array_get(row, fc));
            if (m != NULL && m[0] && f != NULL && pp_pprof_frame_module(p, f, m) != PP_OK)
                return PP_ENOMEM;
        }
    }
    return PP_OK;
}

/* The header of every profile: times, comments, modules. */
static int
add_common(pp_pprof *p, const json_t *doc, const json_t *st, const char *table)
{
    const json_t *in = json_array_get(json_object_get(doc, "inputs"), 0);
    const json_t *nt = json_object_get(in, "nettrace");
    const char *version = json_string_value(
        json_object_get(json_object_get(doc, "tool"), "version"));
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    const char *sid = json_string_value(json_object_get(st, "id"));
    const char *method = json_string_value(
        json_object_get(json_object_get(json_object_get(st, "totals"), "method"), "value"));
    int64_t start = json_is_integer(json_object_get(nt, "start_unix_ns")) ?
                        json_integer_value(json_object_get(nt, "start_unix_ns")) :
                        0;
    int64_t dur = json_is_integer(json_object_get(nt, "duration_ns")) ?
                      json_integer_value(json_object_get(nt, "duration_ns")) :
                      0;
    char line[1024];

    pp_pprof_times(p, start, total_int(st, "duration", dur));
    snprintf(line, sizeof line, "perfpipe %s: pipeline %s, stage %s, %s", version ? version : "?",
             pipeline ? pipeline : "?", sid ? sid : "?", table);
    if (pp_pprof_comment(p, line) != PP_OK)
        return PP_ENOMEM;
    for (size_t i = 0; i < json_array_size(json_object_get(doc, "inputs")); i++) {
        const json_t *ii = json_array_get(json_object_get(doc, "inputs"), i);
        const char *path = json_string_value(json_object_get(ii, "path"));
        snprintf(line, sizeof line, "input %s: %s",
                 json_string_value(json_object_get(ii, "name")) ?
                     json_string_value(json_object_get(ii, "name")) :
                     "?",
                 path ? path : "?");
        if (pp_pprof_comment(p, line) != PP_OK)
            return PP_ENOMEM;
    }
    if (method != NULL && pp_pprof_comment(p, method) != PP_OK)
        return PP_ENOMEM;
    return add_modules(p, st);
}

/* The knobs as labels every sample carries; returns how many (at most max). */
static size_t
knob_labels(const json_t *doc, pp_pprof_label *l, char (*keys)[64], size_t max)
{
    const char *k;
    const json_t *v;
    size_t n = 0;

    json_object_foreach((json_t *)(uintptr_t)json_object_get(doc, "knobs"), k, v) {
        if (n == max || !json_is_string(v))
            continue;
        snprintf(keys[n], sizeof keys[n], "knob.%s", k);
        l[n] = (pp_pprof_label){ keys[n], json_string_value(v), 0, NULL };
        n++;
    }
    return n;
}

/* ---- stack tables --------------------------------------------------------- */

typedef struct value_col {
    size_t col;
    int ms;         /* a number of milliseconds, written in ns */
    int sampled_ms; /* a sampler's time: its period is the sample interval */
    char type[64];
    const char *unit;
} value_col;

/* The pprof sample type name of a value column. */
static void
type_name(const json_t *st, const json_t *tj, const char *col, int is_ms, char *out, size_t size)
{
    int alloc = sampled_allocation(tj);

    if (alloc && pp_render_figure_is(tj, col, "bytes", PP_AXIS_ALLOCATION))
        snprintf(out, size, "alloc_space");
    else if (alloc && pp_render_figure_is(tj, col, "samples", PP_AXIS_ALLOCATION))
        snprintf(out, size, "alloc_ticks");
    else if (is_ms && sampled_time(st, tj, col)) {
        const char *view = json_string_value(
            json_object_get(json_object_get(json_object_get(st, "totals"), "view"), "value"));
        snprintf(out, size, "%s",
                 strcmp(view ? view : "thread-time", "thread-time") == 0 ? "thread_time" :
                                                                           "cpu_time");
    } else if (is_ms) {
        size_t n = strlen(col);
        if (strcmp(col, "ms") == 0)
            snprintf(out, size, "time");
        else
            snprintf(out, size, "%.*s", (int)(n - 3), col); /* "*_ms" */
    } else
        snprintf(out, size, "%s", col);
}

/* The value columns of tj, count types first. */
static size_t
value_cols(const json_t *st, const json_t *tj, value_col *v, size_t max)
{
    const json_t *c;
    size_t i, n = 0;

    for (int pass = 0; pass < 2; pass++)
        json_array_foreach(json_object_get(tj, "columns"), i, c) {
            const char *name = json_string_value(json_object_get(c, "name"));
            uint32_t t = pp_render_col_type(c);
            int ms = t == PP_COL_NUMBER && name != NULL && pp_render_name_is_ms(name);
            if (i == 0 || name == NULL || n == max ||
                !(t == PP_COL_COUNT || t == PP_COL_BYTES || t == PP_COL_DURATION_NS || ms) ||
                (pass == 0) != (t == PP_COL_COUNT))
                continue;
            v[n].col = i;
            v[n].ms = ms;
            v[n].sampled_ms = ms && sampled_time(st, tj, name);
            v[n].unit = t == PP_COL_COUNT ? "count" : t == PP_COL_BYTES ? "bytes" : "nanoseconds";
            type_name(st, tj, name, ms, v[n].type, sizeof v[n].type);
            n++;
        }
    return n;
}

static int64_t
cell_value(const json_t *cell, int ms)
{
    if (ms)
        return json_is_number(cell) ? (int64_t)llround(json_number_value(cell) * 1e6) : 0;
    return json_is_integer(cell) ? (int64_t)json_integer_value(cell) : 0;
}

static int
stack_samples(pp_pprof *p, const json_t *doc, const json_t *st, const json_t *tj,
              const pp_render_opts *o)
{
    value_col v[8];
    size_t nv = value_cols(st, tj, v, 8), wcol = pp_stacks_weight_column(tj, o->weight), r, i;
    pp_pprof_label labels[MAX_LABELS];
    char keys[MAX_LABELS][64];
    size_t nknobs = knob_labels(doc, labels, keys, MAX_LABELS / 2);
    const json_t *row, *c;
    int64_t vals[8];
    int rc;

    for (i = 0; i < nv; i++) {
        if ((rc = pp_pprof_sample_type(p, v[i].type, v[i].unit)) != PP_OK)
            return rc;
        if (v[i].col == wcol && (rc = pp_pprof_default_type(p, v[i].type)) != PP_OK)
            return rc;
    }
    for (i = 0; i < nv; i++) {
        if (v[i].sampled_ms)
            rc = pp_pprof_period(p, v[i].type, v[i].unit, total_int(st, "sample_interval", 0));
        else if (sampled_allocation(tj) && strcmp(v[i].type, "alloc_space") == 0)
            rc = pp_pprof_period(p, v[i].type, v[i].unit, ALLOC_TICK_BYTES);
        else
            continue;
        if (rc != PP_OK)
            return rc;
    }
    json_array_foreach(json_object_get(tj, "rows"), r, row) {
        const char *stack = json_string_value(json_array_get(row, 0));
        size_t nl = nknobs, nz = 0;
        if (stack == NULL)
            continue;
        for (i = 0; i < nv; i++)
            nz += (vals[i] = cell_value(json_array_get(row, v[i].col), v[i].ms)) != 0;
        if (nz == 0)
            continue;
        json_array_foreach(json_object_get(tj, "columns"), i, c) {
            const char *s = json_string_value(json_array_get(row, i));
            if (i > 0 && nl < MAX_LABELS && pp_render_col_type(c) == PP_COL_STRING && s != NULL &&
                s[0])
                labels[nl++] = (pp_pprof_label){ json_string_value(json_object_get(c, "name")), s,
                                                 0, NULL };
        }
        if ((rc = pp_pprof_sample(p, stack, vals, nv, labels, nl)) != PP_OK)
            return rc;
    }
    return PP_OK;
}

/* ---- heap stages ---------------------------------------------------------- */

/* The stack of a heap type: its path (render_heap.c reads it), ending in
 * the type itself (malloc'd). */
static char *
path_stack(const char *path, const char *type)
{
    char *s = pp_render_heap_path_stack(path ? path : "");
    const char *last;
    size_t n, tl = strlen(type);
    char *out;

    if (s == NULL)
        return NULL;
    last = strrchr(s, ';') ? strrchr(s, ';') + 1 : s;
    if (s[0] != '\0' && strcmp(last, type) == 0)
        return s;
    n = strlen(s);
    if ((out = realloc(s, n + tl + 2)) == NULL) {
        free(s);
        return NULL;
    }
    snprintf(out + n, tl + 2, "%s%s", n ? ";" : "", type);
    return out;
}

static const char *
path_of(const json_t *paths, const char *type)
{
    size_t ti = pp_render_col_of(paths, "type"), pi = pp_render_col_of(paths, "path"), r;
    const json_t *row;

    json_array_foreach(json_object_get(paths, "rows"), r, row) {
        const char *t = json_string_value(json_array_get(row, ti));
        if (t != NULL && strcmp(t, type) == 0)
            return json_string_value(json_array_get(row, pi));
    }
    return NULL;
}

static int
has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int
heap_samples(pp_pprof *p, const json_t *doc, const json_t *st)
{
    size_t ci = (size_t)-1, bi = (size_t)-1;
    const json_t *tj = pp_render_heap_table(st, &ci, &bi);
    const json_t *paths = tj != NULL ? pp_render_paths_table(st, tj) : NULL, *row;
    const char *subject = json_string_value(
        json_object_get(json_object_get(tj, "decl"), "subject"));
    const char *bytes_col = json_string_value(
        json_object_get(json_array_get(json_object_get(tj, "columns"), bi), "name"));
    /* figures of a change between two snapshots (gcdump-diff's growth) */
    int diff = bytes_col != NULL && has_suffix(bytes_col, "_delta");
    size_t ti = pp_render_col_of(tj, subject != NULL ? subject : ""),
           pi = pp_render_col_of(tj, "path"), r, nl;
    int64_t sum[2] = { 0, 0 }, rest[2];
    pp_pprof_label labels[MAX_LABELS];
    char keys[MAX_LABELS][64];
    size_t nknobs = knob_labels(doc, labels, keys, MAX_LABELS - 1);
    int rc;

    if (tj == NULL || ti == (size_t)-1)
        return PP_ENOTFOUND;
    if ((rc = pp_pprof_sample_type(p, diff ? "objects_delta" : "inuse_objects", "count")) !=
            PP_OK ||
        (rc = pp_pprof_sample_type(p, diff ? "space_delta" : "inuse_space", "bytes")) != PP_OK ||
        (rc = pp_pprof_default_type(p, diff ? "space_delta" : "inuse_space")) != PP_OK)
        return rc;
    json_array_foreach(json_object_get(tj, "rows"), r, row) {
        const char *type = json_string_value(json_array_get(row, ti));
        const char *path = pi != (size_t)-1 ? json_string_value(json_array_get(row, pi)) :
                           paths != NULL && type != NULL ? path_of(paths, type) :
                                                           NULL;
        int64_t v[2] = { cell_value(json_array_get(row, ci), 0),
                         cell_value(json_array_get(row, bi), 0) };
        char *stack;
        if (type == NULL || (v[0] == 0 && v[1] == 0))
            continue;
        if ((stack = path_stack(path, type)) == NULL)
            return PP_ENOMEM;
        nl = nknobs;
        labels[nl++] = (pp_pprof_label){ "type", type, 0, NULL };
        rc = pp_pprof_sample(p, stack, v, 2, labels, nl);
        free(stack);
        if (rc != PP_OK)
            return rc;
        sum[0] += v[0];
        sum[1] += v[1];
    }
    rest[0] = total_int(st, diff ? "objects_delta" : "objects", sum[0]) - sum[0];
    rest[1] = total_int(st, diff ? "bytes_delta" : "bytes", sum[1]) - sum[1];
    if (rest[0] != 0 || rest[1] != 0)
        return pp_pprof_sample(p, "[other types]", rest, 2, labels, nknobs);
    return PP_OK;
}

int
pp_render_pprof_heap_known(const json_t *st)
{
    size_t ci, bi;
    return pp_render_heap_table(st, &ci, &bi) != NULL;
}

int
pp_render_pprof(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                FILE *out, pp_error *err)
{
    pp_pprof *p = pp_pprof_new();
    int heap = tj == NULL;
    int rc;

    if (p == NULL) {
        pp_error_set(err, PP_ENOMEM, "pprof rendering: out of memory");
        return PP_ENOMEM;
    }
    rc = add_common(p, doc, st,
                    heap ? "heap types by their path from a GC root" :
                           json_string_value(json_object_get(tj, "name")));
    if (rc == PP_OK)
        rc = heap ? heap_samples(p, doc, st) : stack_samples(p, doc, st, tj, o);
    if (rc == PP_OK)
        rc = pp_pprof_write(p, out, err);
    else if (rc == PP_ENOTFOUND)
        pp_error_set(
            err, rc,
            "pprof: stage \"%s\" has no growth or by_type table with type, count and bytes",
            json_string_value(json_object_get(st, "id")) ?
                json_string_value(json_object_get(st, "id")) :
                "?");
    else if (rc == PP_ENOMEM)
        pp_error_set(err, rc, "pprof rendering: out of memory");
    else if (rc != PP_EIO)
        pp_error_set(err, rc, "pprof rendering: a sample does not match the sample types");
    pp_pprof_free(p);
    return rc;
}

/* The stack table of st that splits tj's stacks the finest: the one with
 * the most string columns besides the stack (cpu's by_thread_stack: thread
 * and state; alloc's by_type_stack: type), which pprof makes labels. */
static const json_t *
labelled_twin(const json_t *st, const json_t *tj)
{
    const json_t *t, *best = tj;
    size_t i, most = 0;

    json_array_foreach(json_object_get(st, "tables"), i, t) {
        const json_t *c;
        size_t j, n = 0;
        if (!pp_render_is_stack_table(t))
            continue;
        json_array_foreach(json_object_get(t, "columns"), j, c)
            n += j > 0 && pp_render_col_type(c) == PP_COL_STRING;
        if (n > most) {
            most = n;
            best = t;
        }
    }
    return best;
}

int
pp_render_pprof_doc(const json_t *doc, const char *table, const pp_render_opts *o, FILE *out,
                    pp_error *err)
{
    const json_t *st = NULL, *tj = NULL;
    size_t si = 0, ti = 0, i;
    int rc = pp_render_find_table(doc, table, 1, &st, &tj, &si, &ti, err);

    if (rc == PP_OK)
        return pp_render_pprof(doc, st, table == NULL ? labelled_twin(st, tj) : tj, o, out, err);
    if (rc != PP_ENOTFOUND || table != NULL)
        return rc;
    json_array_foreach(json_object_get(doc, "stages"), i, st)
        if (pp_render_pprof_heap_known(st))
            return pp_render_pprof(doc, st, NULL, o, out, err);
    return rc;
}
