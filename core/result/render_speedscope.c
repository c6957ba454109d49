/* The speedscope renderer: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), "sampled"
 * profiles. The first profile holds all threads; when the stack table has a
 * "thread" column, one profile per thread follows (dotnet-trace's own
 * export is per thread; people want both). Weights are time in
 * milliseconds where the table has a time column (pp_render_opts.weight),
 * else its count or bytes. Each merged stack is one sample (frame indices
 * root first) with its weight; frames are shared by all profiles and
 * numbered in order of first appearance in the sorted stacks, so the output
 * is deterministic. Frames are split at ';' outside brackets
 * (pp_render_frame_end), so a signature holding ';' stays one frame. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

typedef struct ss_ctx {
    json_t *index; /* frame name -> number (a lookup table only) */
    json_t *frames;
    const pp_stacks *s;
} ss_ctx;

static const char *
unit_of(const pp_stacks *s)
{
    if (s->ns_per_unit > 0)
        return "milliseconds";
    return s->weight_type == PP_COL_BYTES ? "bytes" : "none";
}

static json_t *
weight_value(const pp_stacks *s, int64_t w)
{
    if (s->ns_per_unit > 0)
        return json_real((double)w * (double)s->ns_per_unit / 1e6);
    return json_integer(w);
}

/* The frame indices of one stack, root first. */
static json_t *
sample_of(ss_ctx *c, const char *stack)
{
    json_t *sample = json_array();
    const char *f = stack;

    if (sample == NULL)
        return NULL;
    for (;;) {
        const char *end = pp_render_frame_end(f);
        size_t len = end ? (size_t)(end - f) : strlen(f);
        char *name = strndup(f, len);
        json_t *ix;
        if (name == NULL)
            goto fail;
        ix = json_object_get(c->index, name);
        if (ix == NULL) {
            json_t *fr = json_pack("{s:s}", "name", name);
            ix = json_integer((json_int_t)json_array_size(c->frames));
            if (fr == NULL || ix == NULL || json_array_append_new(c->frames, fr) != 0 ||
                json_object_set_new(c->index, name, ix) != 0) {
                free(name);
                goto fail;
            }
        }
        free(name);
        if (json_array_append_new(sample, json_integer(json_integer_value(ix))) != 0)
            goto fail;
        if (end == NULL)
            break;
        f = end + 1;
    }
    return sample;
fail:
    json_decref(sample);
    return NULL;
}

/* A sampled profile of entries [from, to) of c->s. */
static json_t *
profile_of(ss_ctx *c, const char *name, size_t from, size_t to)
{
    json_t *samples = json_array(), *weights = json_array();
    int64_t total = 0;

    if (samples == NULL || weights == NULL)
        goto fail;
    for (size_t i = from; i < to; i++) {
        json_t *sm = sample_of(c, c->s->v[i].stack);
        if (sm == NULL || json_array_append_new(samples, sm) != 0 ||
            json_array_append_new(weights, weight_value(c->s, c->s->v[i].weight)) != 0)
            goto fail;
        total += c->s->v[i].weight; /* a subset of s->total: no overflow */
    }
    return json_pack("{s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "type", "sampled", "name", name, "unit",
                     unit_of(c->s), "startValue", 0, "endValue", weight_value(c->s, total),
                     "samples", samples, "weights", weights);
fail:
    json_decref(samples);
    json_decref(weights);
    return NULL;
}

int
pp_render_speedscope(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
                     FILE *out, pp_error *err)
{
    pp_stacks all, per;
    ss_ctx c = { NULL, NULL, NULL };
    json_t *file = NULL, *profiles = NULL, *p;
    char name[512];
    const char *version = json_string_value(
        json_object_get(json_object_get(doc, "tool"), "version"));
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    int rc;

    memset(&per, 0, sizeof per);
    if ((rc = pp_stacks_collect_ex(tj, o->weight, 0, &all, err)) != PP_OK)
        return rc;
    if (pp_stacks_thread_column(tj) > 0 &&
        (rc = pp_stacks_collect_ex(tj, o->weight, 1, &per, err)) != PP_OK) {
        pp_stacks_free(&all);
        return rc;
    }
    snprintf(name, sizeof name, "%s/%s",
             json_string_value(json_object_get(st, "id")) ?
                 json_string_value(json_object_get(st, "id")) :
                 "?",
             json_string_value(json_object_get(tj, "name")));

    c.index = json_object();
    c.frames = json_array();
    profiles = json_array();
    if (c.index == NULL || c.frames == NULL || profiles == NULL)
        goto nomem;
    c.s = &all;
    {
        char label[600];
        const char *sid = json_string_value(json_object_get(st, "id"));
        if (per.n > 0)
            snprintf(label, sizeof label, "%s: all threads", sid ? sid : "?");
        else
            snprintf(label, sizeof label, "%s", name);
        if ((p = profile_of(&c, label, 0, all.n)) == NULL ||
            json_array_append_new(profiles, p) != 0)
            goto nomem;
    }
    c.s = &per;
    for (size_t i = 0; i < per.n;) {
        size_t j = i;
        const char *th = per.v[i].thread ? per.v[i].thread : "";
        char label[600];
        while (j < per.n && strcmp(per.v[j].thread ? per.v[j].thread : "", th) == 0)
            j++;
        snprintf(label, sizeof label, "%s: thread %s",
                 json_string_value(json_object_get(st, "id")) ?
                     json_string_value(json_object_get(st, "id")) :
                     "?",
                 th[0] ? th : "?");
        if ((p = profile_of(&c, label, i, j)) == NULL || json_array_append_new(profiles, p) != 0)
            goto nomem;
        i = j;
    }
    file = json_pack("{s:s, s:{s:O}, s:O, s:s, s:i, s:s+}", "$schema", SPEEDSCOPE_SCHEMA, "shared",
                     "frames", c.frames, "profiles", profiles, "name", pipeline ? pipeline : name,
                     "activeProfileIndex", 0, "exporter", "perfpipe ", version ? version : "");
    if (file == NULL)
        goto nomem;
    /* 15 digits: the shortest text of a millisecond figure kept in whole
     * microseconds or nanoseconds ("12.345", not "12.345000000000001"). */
    if (json_dumpf(file, out, JSON_COMPACT | JSON_REAL_PRECISION(15)) != 0) {
        rc = PP_EIO;
        pp_error_set(err, PP_EIO, "speedscope rendering failed while writing");
    } else {
        fputc('\n', out);
        rc = pp_render_check_io(out, "speedscope", err);
    }
    goto done;

nomem:
    pp_error_set(err, PP_ENOMEM, "speedscope rendering: out of memory");
    rc = PP_ENOMEM;
done:
    json_decref(file);
    json_decref(profiles);
    json_decref(c.index);
    json_decref(c.frames);
    pp_stacks_free(&all);
    pp_stacks_free(&per);
    return rc;
}
