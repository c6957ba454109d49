/* Command-line variables: --set (knobs and ${VAR}), --input (paths),
 * option overrides; then ${VAR} expansion of input and output paths. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline/internal.h"

static int
oom(const pp_pipeline *p, pp_error *err)
{
    return pp_pipe_error(err, PP_ENOMEM, p->file, (pp_pos){ 0, 0 }, "out of memory");
}

static int
apply_set(pp_pipeline *p, const pp_pipeline_kv *kv, pp_error *err)
{
    pp_pipeline_knob *grown;

    if (kv->key == NULL || !pp_pipeline_valid_ident(kv->key))
        return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                             "--set %s=...: not a valid knob name (letters, digits, '_', '.', "
                             "'-'; starting with a letter or '_')",
                             kv->key ? kv->key : "");
    for (uint32_t k = 0; k < p->knob_count; k++) {
        if (strcmp(p->knobs[k].key, kv->key) != 0)
            continue;
        char *v = strdup(kv->value ? kv->value : "");
        if (v == NULL)
            return oom(p, err);
        free(p->knobs[k].value);
        p->knobs[k].value = v;
        p->knobs[k].from_cli = 1;
        p->knobs[k].value_pos = (pp_pos){ 0, 0 };
        return PP_OK;
    }
    if (p->knob_count >= PP_PIPELINE_MAX_ENTRIES)
        return pp_pipe_error(err, PP_ELIMIT, p->file, (pp_pos){ 0, 0 }, "more than %u knobs",
                             PP_PIPELINE_MAX_ENTRIES);
    grown = realloc(p->knobs, (p->knob_count + 1) * sizeof *grown);
    if (grown == NULL)
        return oom(p, err);
    p->knobs = grown;
    pp_pipeline_knob *kn = &p->knobs[p->knob_count];
    memset(kn, 0, sizeof *kn);
    kn->key = strdup(kv->key);
    kn->value = strdup(kv->value ? kv->value : "");
    kn->from_cli = 1;
    p->knob_count++;
    if (kn->key == NULL || kn->value == NULL)
        return oom(p, err);
    return PP_OK;
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

static int
apply_input(pp_pipeline *p, const pp_pipeline_kv *kv, pp_error *err)
{
    for (uint32_t k = 0; k < p->input_count; k++) {
        pp_pipeline_input *in = &p->inputs[k];
        if (kv->key == NULL || strcmp(in->name, kv->key) != 0)
            continue;
        if (kv->value == NULL || kv->value[0] == '\0')
            return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                                 "--input %s=: the path is empty", in->name);
        char *v = strdup(kv->value);
        if (v == NULL)
            return oom(p, err);
        free(in->path);
        in->path = v;
        in->path_from_cli = 1;
        in->path_pos = (pp_pos){ 0, 0 };
        return PP_OK;
    }
    char names[256];
    input_names(p, names, sizeof names);
    return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                         "--input %s=...: the pipeline has no input '%s'; its inputs are: %s",
                         kv->key ? kv->key : "", kv->key ? kv->key : "", names);
}

static int
apply_option(pp_pipeline *p, const pp_pipeline_option_override *ov, pp_error *err)
{
    pp_pipeline_stage *s = NULL;
    pp_pipeline_option *o = NULL;

    if (ov->stage == NULL || ov->key == NULL || ov->value == NULL)
        return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                             "an option override needs a stage, a name and a value");
    if (strcmp(ov->stage, "*") == 0) {
        if (p->stage_count != 1)
            return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                                 "option '%s' from the command line: the pipeline has %u "
                                 "stages, say which one (STAGE.%s=VALUE)",
                                 ov->key, (unsigned)p->stage_count, ov->key);
        s = &p->stages[0];
    } else {
        for (uint32_t k = 0; k < p->stage_count; k++)
            if (strcmp(p->stages[k].id, ov->stage) == 0)
                s = &p->stages[k];
        if (s == NULL)
            return pp_pipe_error(err, PP_EINVAL, p->file, (pp_pos){ 0, 0 },
                                 "option %s.%s from the command line: the pipeline has no "
                                 "stage '%s'",
                                 ov->stage, ov->key, ov->stage);
    }
    for (uint32_t k = 0; k < s->option_count; k++)
        if (strcmp(s->options[k].name, ov->key) == 0)
            o = &s->options[k];
    if (o == NULL) {
        if (s->option_count >= PP_PIPELINE_MAX_ENTRIES)
            return pp_pipe_error(err, PP_ELIMIT, p->file, (pp_pos){ 0, 0 }, "more than %u options",
                                 PP_PIPELINE_MAX_ENTRIES);
        pp_pipeline_option *grown = realloc(s->options, (s->option_count + 1) * sizeof *grown);
        if (grown == NULL)
            return oom(p, err);
        s->options = grown;
        o = &s->options[s->option_count++];
        memset(o, 0, sizeof *o);
        if ((o->name = strdup(ov->key)) == NULL)
            return oom(p, err);
    } else {
        free(o->value);
        for (uint32_t k = 0; k < o->item_count; k++)
            free(o->items[k]);
        free(o->items);
        free(o->item_pos);
        o->value = NULL;
        o->items = NULL;
        o->item_pos = NULL;
        o->item_count = 0;
        o->is_list = 0;
    }
    o->from_cli = 1;
    o->pos = o->value_pos = (pp_pos){ 0, 0 };
    if ((o->value = strdup(ov->value)) == NULL)
        return oom(p, err);
    return PP_OK;
}

static const char *
lookup_var(void *user, const char *name)
{
    const pp_pipeline *p = user;
    const char *v = pp_pipeline_knob_value(p, name);

    if (v != NULL)
        return v;
    if (strcmp(name, "name") == 0)
        return p->name;
    if (strcmp(name, "date") == 0)
        return p->date;
    return NULL;
}

/* A value substituted into an output path is a name, never a path: '/',
 * ".." or a control character would move or forge the output (see
 * perfpipe-pipeline(5)). Such a value reads as undefined; unsafe says why. */
typedef struct out_lookup {
    const pp_pipeline *p;
    const char *unsafe;
} out_lookup;

static const char *
lookup_output_var(void *user, const char *name)
{
    out_lookup *o = user;
    const char *v = lookup_var((void *)o->p, name);

    /* ${stage} stays for the writer: one file per stage (perfpipe-pipeline(5)) */
    if (v == NULL && strcmp(name, "stage") == 0)
        return "${stage}";
    if (v != NULL && (strchr(v, '/') != NULL || strstr(v, "..") != NULL)) {
        o->unsafe = "contains '/' or '..'";
        return NULL;
    }
    for (const unsigned char *c = (const unsigned char *)v; c != NULL && *c; c++)
        if (*c < 0x20 || *c == 0x7f) {
            o->unsafe = "contains a control character";
            return NULL;
        }
    return v;
}

/* Expand *path in place; hint names the flag that could define a missing
 * variable for this path. */
static int
expand_path(pp_pipeline *p, char **path, pp_pos pos, const char *input_name, pp_error *err)
{
    char *out = NULL, *bad = NULL;
    out_lookup ol = { p, NULL };
    int rc = input_name != NULL ? pp_expand(*path, lookup_var, p, &out, &bad) :
                                  pp_expand(*path, lookup_output_var, &ol, &out, &bad);

    if (rc != PP_OK && ol.unsafe != NULL && bad != NULL) {
        rc = pp_pipe_error(err, PP_EINVAL, p->file, pos,
                           "the value of ${%s} %s; a value in an output path must be a plain "
                           "name",
                           bad, ol.unsafe);
        free(bad);
        return rc;
    }

    if (rc == PP_OK) {
        free(*path);
        *path = out;
        return PP_OK;
    }
    if (rc == PP_ENOMEM)
        return oom(p, err);
    if (rc == PP_ELIMIT)
        return pp_pipe_error(err, rc, p->file, pos, "path longer than 65536 bytes once expanded");
    if (bad == NULL)
        return pp_pipe_error(err, PP_EINVAL, p->file, pos,
                             "malformed variable reference in '%s'; expected ${NAME} "
                             "(or $$ for a literal $)",
                             *path);
    if (input_name != NULL)
        rc = pp_pipe_error(err, PP_EINVAL, p->file, pos,
                           "undefined variable ${%s} (give the file with --input %s=PATH, "
                           "or define it with --set %s=...)",
                           bad, input_name, bad);
    else
        rc = pp_pipe_error(err, PP_EINVAL, p->file, pos,
                           "undefined variable ${%s} (set it with --set %s=...)", bad, bad);
    free(bad);
    return rc;
}

int
pp_pipeline_apply_vars(pp_pipeline *p, const pp_pipeline_vars *vars, pp_error *err)
{
    int rc;

    if (vars != NULL && vars->date != NULL) {
        p->date = strdup(vars->date);
    } else {
        char buf[32];
        time_t now = time(NULL);
        struct tm tm;
        if (localtime_r(&now, &tm) == NULL || strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm) == 0)
            snprintf(buf, sizeof buf, "00000000-000000");
        p->date = strdup(buf);
    }
    if (p->date == NULL)
        return oom(p, err);
    if (vars != NULL) {
        for (size_t k = 0; k < vars->set_count; k++)
            if ((rc = apply_set(p, &vars->sets[k], err)) != PP_OK)
                return rc;
        for (size_t k = 0; k < vars->input_count; k++)
            if ((rc = apply_input(p, &vars->inputs[k], err)) != PP_OK)
                return rc;
        for (size_t k = 0; k < vars->option_count; k++)
            if ((rc = apply_option(p, &vars->options[k], err)) != PP_OK)
                return rc;
    }
    /* A names-only load (the shorthand learning the input names before it
     * maps positional files onto them) leaves paths unexpanded. */
    if (vars != NULL && vars->names_only)
        return PP_OK;
    /* An --input path is taken literally: the shell already expanded it. */
    for (uint32_t k = 0; k < p->input_count; k++) {
        pp_pipeline_input *in = &p->inputs[k];
        if (in->path == NULL)
            return pp_pipe_error(err, PP_EINVAL, p->file, in->pos,
                                 "input '%s' has no path; add 'path:' or give --input %s=PATH",
                                 in->name, in->name);
        if (!in->path_from_cli &&
            (rc = expand_path(p, &in->path, in->path_pos, in->name, err)) != PP_OK)
            return rc;
    }
    for (uint32_t k = 0; k < p->output_count; k++) {
        pp_pipeline_output *o = &p->outputs[k];
        if (o->path != NULL && (rc = expand_path(p, &o->path, o->path_pos, NULL, err)) != PP_OK)
            return rc;
    }
    return PP_OK;
}
