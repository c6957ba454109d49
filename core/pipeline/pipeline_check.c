/* Pipeline validation: structure (ids, input references, output paths)
 * and, given the analyzers, inputs and options against their descriptors. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/loader.h"
#include "pipeline/internal.h"

int
pp_pipeline_valid_ident(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

static int
find_input(const pp_pipeline *p, const char *name)
{
    for (uint32_t k = 0; k < p->input_count; k++)
        if (strcmp(p->inputs[k].name, name) == 0)
            return (int)k;
    return -1;
}

static void
input_names(const pp_pipeline *p, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < p->input_count && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", p->inputs[k].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

int
pp_pipeline_check_structure(pp_pipeline *p, pp_error *err)
{
    for (uint32_t k = 0; k < p->stage_count; k++) {
        pp_pipeline_stage *s = &p->stages[k];
        for (uint32_t j = 0; j < k; j++)
            if (strcmp(p->stages[j].id, s->id) == 0)
                return pp_pipe_error(
                    err, PP_EINVAL, p->file, s->id_pos,
                    "duplicate stage id '%s' (first at %u:%u)%s", s->id,
                    (unsigned)p->stages[j].id_pos.line, (unsigned)p->stages[j].id_pos.column,
                    s->id_pos.line == s->pos.line && s->id_pos.column == s->pos.column ?
                        "; give each stage its own 'id'" :
                        "");
        free(s->input_index);
        s->input_index = calloc(s->input_count ? s->input_count : 1, sizeof *s->input_index);
        if (s->input_index == NULL)
            return pp_pipe_error(err, PP_ENOMEM, p->file, (pp_pos){ 0, 0 }, "out of memory");
        for (uint32_t j = 0; j < s->input_count; j++) {
            int idx = find_input(p, s->inputs[j].name);
            if (idx < 0) {
                char names[256];
                const char *cands[64];
                uint32_t n = p->input_count < 64 ? p->input_count : 64;
                for (uint32_t i = 0; i < n; i++)
                    cands[i] = p->inputs[i].name;
                const char *near = pp_pipe_nearest(s->inputs[j].name, cands, n);
                input_names(p, names, sizeof names);
                if (near != NULL)
                    return pp_pipe_error(err, PP_EINVAL, p->file, s->inputs[j].pos,
                                         "stage '%s' reads input '%s', which is not declared "
                                         "under 'inputs' (did you mean '%s'?); declared: %s",
                                         s->id, s->inputs[j].name, near, names);
                return pp_pipe_error(err, PP_EINVAL, p->file, s->inputs[j].pos,
                                     "stage '%s' reads input '%s', which is not declared under "
                                     "'inputs'; declared: %s",
                                     s->id, s->inputs[j].name, names);
            }
            for (uint32_t i = 0; i < j; i++)
                if (s->input_index[i] == (uint32_t)idx)
                    return pp_pipe_error(err, PP_EINVAL, p->file, s->inputs[j].pos,
                                         "stage '%s' lists input '%s' twice", s->id,
                                         s->inputs[j].name);
            s->input_index[j] = (uint32_t)idx;
        }
    }

    /* Outputs: "-" is stdout; no two outputs on one file or both on stdout
     * (interleaved formats), and never over an input. */
    for (uint32_t k = 0; k < p->output_count; k++) {
        pp_pipeline_output *o = &p->outputs[k];
        pp_pos at = o->path ? o->path_pos : o->pos;
        if (o->path != NULL && strcmp(o->path, "-") == 0) {
            free(o->path);
            o->path = NULL;
        }
        for (uint32_t j = 0; j < k; j++) {
            const pp_pipeline_output *q = &p->outputs[j];
            if (o->path == NULL && q->path == NULL)
                return pp_pipe_error(err, PP_EINVAL, p->file, at,
                                     "output %u (%s) and output %u (%s, at %u:%u) both write "
                                     "to stdout; give one of them a 'path'",
                                     (unsigned)k + 1, o->format, (unsigned)j + 1, q->format,
                                     (unsigned)q->pos.line, (unsigned)q->pos.column);
            if (o->path != NULL && q->path != NULL && strcmp(o->path, q->path) == 0)
                return pp_pipe_error(err, PP_EINVAL, p->file, at,
                                     "output %u writes to '%s', as output %u does (at %u:%u)",
                                     (unsigned)k + 1, o->path, (unsigned)j + 1,
                                     (unsigned)q->path_pos.line, (unsigned)q->path_pos.column);
        }
        for (uint32_t j = 0; o->path != NULL && j < p->input_count; j++)
            /* A names-only load keeps inputs without a path (the shorthand
             * fills them in later): nothing to collide with yet. */
            if (p->inputs[j].path != NULL && strcmp(o->path, p->inputs[j].path) == 0)
                return pp_pipe_error(err, PP_EINVAL, p->file, at,
                                     "output %u would overwrite input '%s' ('%s')", (unsigned)k + 1,
                                     p->inputs[j].name, o->path);
    }
    return PP_OK;
}

static void
kind_list(uint32_t bits, char *buf, size_t size)
{
    pp_pipeline_kind_list(bits, " or ", buf, size);
    if (buf[0] == '\0')
        snprintf(buf, size, "nothing");
}

static int
check_stage(pp_pipeline *p, pp_pipeline_stage *s, const pp_analyzer *a, pp_error *err)
{
    uint32_t slots = a->input_slot_count ? a->input_slot_count : 1;
    pp_option_setting *set = NULL;
    int rc;

    if (s->input_count != slots) {
        char names[256] = "";
        size_t used = 0;
        for (uint32_t k = 0; a->input_slots != NULL && k < slots && used < sizeof names; k++) {
            int n = snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "",
                             a->input_slots[k] ? a->input_slots[k] : "?");
            if (n < 0)
                break;
            used += (size_t)n;
        }
        pp_pos at = s->input_count ? s->inputs[0].pos : s->pos;
        if (used > 0)
            return pp_pipe_error(err, PP_EINVAL, p->file, at,
                                 "stage '%s': analyzer '%s' takes %u input%s (%s), got %u", s->id,
                                 a->name, (unsigned)slots, slots == 1 ? "" : "s", names,
                                 (unsigned)s->input_count);
        return pp_pipe_error(err, PP_EINVAL, p->file, at,
                             "stage '%s': analyzer '%s' takes %u input%s, got %u", s->id, a->name,
                             (unsigned)slots, slots == 1 ? "" : "s", (unsigned)s->input_count);
    }
    for (uint32_t k = 0; k < s->input_count; k++) {
        const pp_pipeline_input *in = &p->inputs[s->input_index[k]];
        if (!(in->kind_bit & a->input_kinds)) {
            char kinds[128];
            kind_list(a->input_kinds, kinds, sizeof kinds);
            return pp_pipe_error(err, PP_EINVAL, p->file, s->inputs[k].pos,
                                 "stage '%s': analyzer '%s' reads %s, but input '%s' is %s", s->id,
                                 a->name, kinds, in->name, in->kind);
        }
    }

    if (s->option_count > 0 && (set = calloc(s->option_count, sizeof *set)) == NULL)
        return pp_pipe_error(err, PP_ENOMEM, p->file, (pp_pos){ 0, 0 }, "out of memory");
    for (uint32_t k = 0; k < s->option_count; k++) {
        const pp_pipeline_option *o = &s->options[k];
        set[k].name = o->name;
        set[k].value = o->is_list ? NULL : o->value;
        set[k].items = o->is_list ? (const char *const *)o->items : NULL;
        set[k].item_count = o->item_count;
        set[k].item_pos = o->item_pos;
        set[k].from_file = !o->from_cli;
        set[k].name_pos = o->pos;
        set[k].value_pos = o->value_pos;
    }
    pp_options_free(s->opts);
    s->opts = NULL;
    rc = pp_options_build_settings(a, p->file, set, s->option_count, &s->opts, err);
    free(set);
    return rc;
}

int
pp_pipeline_check(pp_pipeline *p, pp_analyzer_lookup_fn lookup, void *user, pp_error *err)
{
    int rc = pp_pipeline_check_structure(p, err);

    if (rc != PP_OK)
        return rc;
    for (uint32_t k = 0; k < p->stage_count; k++) {
        pp_pipeline_stage *s = &p->stages[k];
        pp_error lerr = PP_ERROR_INIT;
        const pp_analyzer *a = lookup(user, s->analyzer_name, &lerr);

        if (a == NULL) {
            if (lerr.message[0] == '\0')
                snprintf(lerr.message, sizeof lerr.message, "unknown analyzer '%s'",
                         s->analyzer_name);
            return pp_pipe_error(err, lerr.code < 0 ? lerr.code : PP_ENOTFOUND, p->file,
                                 s->analyzer_pos, "%s", lerr.message);
        }
        s->analyzer = a;
        if (a->flags & PP_ANALYZER_FLAG_STANDIN)
            continue; /* a refused plugin's stand-in (core/loader/loader.h): fails when run */
        if ((rc = check_stage(p, s, a, err)) != PP_OK)
            return rc;
    }
    p->checked = 1;
    return PP_OK;
}
