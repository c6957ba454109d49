/* The speedscope renderer: one "sampled" profile in speedscope's file
 * format (https://www.speedscope.app/file-format-schema.json). Each merged
 * stack is one sample (frame indices root first) with its weight; frames
 * are shared and numbered in order of first appearance in the sorted
 * stacks, so the output is deterministic. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

static const char *
unit_of(uint32_t weight_type)
{
    switch (weight_type) {
    case PP_COL_BYTES:       return "bytes";
    case PP_COL_DURATION_NS: return "nanoseconds";
    default:                 return "none";
    }
}

int
pp_render_speedscope(const json_t *doc, const json_t *st, const json_t *tj, FILE *out, pp_error *err)
{
    pp_stacks s;
    json_t *file = NULL, *frames, *index, *samples, *weights, *profile, *profiles, *shared;
    char name[512];
    char *copy = NULL;
    const char *version = json_string_value(json_object_get(json_object_get(doc, "tool"), "version"));
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    int rc;

    if ((rc = pp_stacks_collect(tj, &s, err)) != PP_OK)
        return rc;
    snprintf(name, sizeof name, "%s/%s",
             json_string_value(json_object_get(st, "id")) ? json_string_value(json_object_get(st, "id")) : "?",
             json_string_value(json_object_get(tj, "name")));

    /* index maps a frame name to its number; it is only a lookup table. */
    index = json_object();
    frames = json_array();
    samples = json_array();
    weights = json_array();
    if (index == NULL || frames == NULL || samples == NULL || weights == NULL)
        goto nomem;
    for (size_t i = 0; i < s.n; i++) {
        json_t *sample = json_array();
        char *save = NULL, *tok;
        if (sample == NULL || json_array_append_new(samples, sample) != 0)
            goto nomem;
        if ((copy = strdup(s.v[i].stack)) == NULL)
            goto nomem;
        /* strtok_r would merge ";;": keep empty frames, they are data. */
        for (tok = copy; tok != NULL; tok = save) {
            json_t *ix;
            save = strchr(tok, ';');
            if (save != NULL)
                *save++ = '\0';
            ix = json_object_get(index, tok);
            if (ix == NULL) {
                json_t *fr = json_object();
                ix = json_integer((json_int_t)json_array_size(frames));
                if (fr == NULL || ix == NULL ||
                    json_object_set_new(fr, "name", json_string(tok)) != 0 ||
                    json_array_append_new(frames, fr) != 0 ||
                    json_object_set_new(index, tok, ix) != 0) {
                    json_decref(fr);
                    goto nomem;
                }
            }
            if (json_array_append_new(sample, json_integer(json_integer_value(ix))) != 0)
                goto nomem;
        }
        free(copy);
        copy = NULL;
        if (json_array_append_new(weights, json_integer(s.v[i].weight)) != 0)
            goto nomem;
    }

    profile = json_pack("{s:s, s:s, s:s, s:I, s:I, s:O, s:O}",
                        "type", "sampled", "name", name, "unit", unit_of(s.weight_type),
                        "startValue", (json_int_t)0, "endValue", (json_int_t)s.total,
                        "samples", samples, "weights", weights);
    shared = json_pack("{s:O}", "frames", frames);
    profiles = json_pack("[o]", profile);
    if (profile == NULL || shared == NULL || profiles == NULL) {
        json_decref(shared);
        goto nomem;
    }
    file = json_pack("{s:s, s:o, s:o, s:s, s:I, s:s+}",
                     "$schema", SPEEDSCOPE_SCHEMA, "shared", shared, "profiles", profiles,
                     "name", pipeline ? pipeline : name, "activeProfileIndex", (json_int_t)0,
                     "exporter", "perfpipe ", version ? version : "");
    if (file == NULL)
        goto nomem;
    if (json_dumpf(file, out, JSON_COMPACT) != 0) {
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
    free(copy);
    json_decref(file);
    json_decref(index);
    json_decref(frames);
    json_decref(samples);
    json_decref(weights);
    pp_stacks_free(&s);
    return rc;
}
