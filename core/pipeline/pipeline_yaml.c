/* Pipeline schema version 1: a YAML tree -> the pipeline model. Every
 * message points at the key or value it blames. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/internal.h"
#include "registry/kinds.h"
#include "result/formats.h"

typedef struct ctx {
    const char *file;
    pp_error *err;
} ctx;

static const char *const top_keys[] = { "version", "name",   "description", "knobs",
                                        "inputs",  "stages", "outputs",     NULL };
static const char *const input_keys[] = { "kind", "path", "capture", NULL };
static const char *const stage_keys[] = { "id",      "analyzer", "input", "inputs",
                                          "options", "timeout",  NULL };
static const char *const output_keys[] = { "format", "path", NULL };

static int
oom(ctx *c)
{
    return pp_pipe_error(c->err, PP_ENOMEM, c->file, (pp_pos){ 0, 0 }, "out of memory");
}

/* "unknown WHAT 'word' in WHERE (did you mean 'x'?); expected one of: ..." */
static int
unknown_word(ctx *c, const pp_ynode *n, const char *what, const char *where,
             const char *const *valid)
{
    return pp_pipe_unknown(c->err, c->file, n->pos, n->text, what, where, valid);
}

static int
want(ctx *c, const pp_ynode *n, pp_ynode_type type, const char *what)
{
    static const char *const names[] = { "", "a scalar", "a list", "a mapping" };
    if (n->type == type)
        return PP_OK;
    return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos, "expected %s for %s, got %s",
                         names[type], what, pp_ynode_type_name(n));
}

/* A non-empty scalar, copied. */
static int
scalar_dup(ctx *c, const pp_ynode *n, const char *what, char **out)
{
    int rc = want(c, n, PP_YNODE_SCALAR, what);
    if (rc != PP_OK)
        return rc;
    if (pp_ynode_is_null(n) || n->text[0] == '\0')
        return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos,
                             "expected a value for %s, got nothing", what);
    *out = strdup(n->text);
    return *out ? PP_OK : oom(c);
}

static int
ident_dup(ctx *c, const pp_ynode *n, const char *what, char **out)
{
    int rc = scalar_dup(c, n, what, out);
    if (rc != PP_OK)
        return rc;
    if (!pp_pipeline_valid_ident(*out)) {
        free(*out);
        *out = NULL;
        return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos,
                             "%s '%s' is not a valid name (letters, digits, '_', '.', '-'; "
                             "starting with a letter or '_')",
                             what, n->text);
    }
    return PP_OK;
}

static int
bounded(ctx *c, const pp_ynode *n, const char *what)
{
    if (n->count <= PP_PIPELINE_MAX_ENTRIES)
        return PP_OK;
    return pp_pipe_error(c->err, PP_ELIMIT, c->file, n->pos, "%s has more than %u entries", what,
                         PP_PIPELINE_MAX_ENTRIES);
}

static int
check_keys(ctx *c, const pp_ynode *map, const char *where, const char *const *valid)
{
    for (uint32_t k = 0; k < map->count; k++) {
        const pp_ynode *key = map->items[2 * k];
        size_t j;
        for (j = 0; valid[j] != NULL; j++)
            if (strcmp(key->text, valid[j]) == 0)
                break;
        if (valid[j] == NULL)
            return unknown_word(c, key, "key", where, valid);
    }
    return PP_OK;
}

static const pp_ynode *
get(const pp_ynode *map, const char *key, const pp_ynode **key_node)
{
    for (uint32_t k = 0; k < map->count; k++)
        if (strcmp(map->items[2 * k]->text, key) == 0) {
            if (key_node)
                *key_node = map->items[2 * k];
            return map->items[2 * k + 1];
        }
    return NULL;
}

static int
parse_version(ctx *c, const pp_ynode *root, pp_pipeline *p)
{
    const pp_ynode *v = get(root, "version", NULL);

    if (v == NULL)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, root->pos,
                             "missing 'version' in pipeline; expected 'version: %d'",
                             PP_PIPELINE_VERSION);
    if (v->type != PP_YNODE_SCALAR || strcmp(v->text, "1") != 0) {
        if (v->type != PP_YNODE_SCALAR)
            return want(c, v, PP_YNODE_SCALAR, "'version'");
        return pp_pipe_error(c->err, PP_EINVAL, c->file, v->pos,
                             "unsupported pipeline version '%s'; this perfpipe reads version %d",
                             v->text, PP_PIPELINE_VERSION);
    }
    p->version = PP_PIPELINE_VERSION;
    return PP_OK;
}

static int
parse_knobs(ctx *c, const pp_ynode *m, pp_pipeline *p)
{
    int rc = want(c, m, PP_YNODE_MAPPING, "'knobs'");
    if (rc == PP_OK)
        rc = bounded(c, m, "'knobs'");
    if (rc != PP_OK)
        return rc;
    p->knobs = calloc(m->count ? m->count : 1, sizeof *p->knobs);
    if (p->knobs == NULL)
        return oom(c);
    for (uint32_t k = 0; k < m->count; k++) {
        const pp_ynode *key = m->items[2 * k], *val = m->items[2 * k + 1];
        pp_pipeline_knob *kn = &p->knobs[p->knob_count];
        char what[300];

        if (!pp_pipeline_valid_ident(key->text))
            return pp_pipe_error(c->err, PP_EINVAL, c->file, key->pos,
                                 "knob name '%s' is not a valid name (letters, digits, '_', "
                                 "'.', '-'; starting with a letter or '_')",
                                 key->text);
        snprintf(what, sizeof what, "knob '%s' (knobs are scalars)", key->text);
        if ((rc = want(c, val, PP_YNODE_SCALAR, what)) != PP_OK)
            return rc;
        kn->key = strdup(key->text);
        kn->value = strdup(pp_ynode_is_null(val) ? "" : val->text);
        kn->pos = key->pos;
        kn->value_pos = val->pos;
        p->knob_count++;
        if (kn->key == NULL || kn->value == NULL)
            return oom(c);
    }
    return PP_OK;
}

static int
parse_inputs(ctx *c, const pp_ynode *m, pp_pipeline *p)
{
    int rc = want(c, m, PP_YNODE_MAPPING, "'inputs'");
    if (rc == PP_OK)
        rc = bounded(c, m, "'inputs'");
    if (rc != PP_OK)
        return rc;
    if (m->count == 0)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, m->pos,
                             "'inputs' is empty; declare at least one input");
    p->inputs = calloc(m->count, sizeof *p->inputs);
    if (p->inputs == NULL)
        return oom(c);
    for (uint32_t k = 0; k < m->count; k++) {
        const pp_ynode *key = m->items[2 * k], *val = m->items[2 * k + 1], *kn, *kind, *path;
        pp_pipeline_input *in = &p->inputs[p->input_count++];
        char where[300];

        if ((rc = ident_dup(c, key, "input name", &in->name)) != PP_OK)
            return rc;
        in->pos = key->pos;
        snprintf(where, sizeof where, "input '%s'", key->text);
        if ((rc = want(c, val, PP_YNODE_MAPPING, where)) != PP_OK)
            return rc;
        if ((rc = check_keys(c, val, where, input_keys)) != PP_OK)
            return rc;
        kind = get(val, "kind", &kn);
        if (kind == NULL) {
            char kinds[512];
            pp_pipeline_kind_list(UINT32_MAX, ", ", kinds, sizeof kinds);
            return pp_pipe_error(c->err, PP_EINVAL, c->file, val->pos,
                                 "missing 'kind' in input '%s'; expected one of: %s", in->name,
                                 kinds);
        }
        if ((rc = scalar_dup(c, kind, "'kind'", &in->kind)) != PP_OK)
            return rc;
        in->kind_pos = kind->pos;
        in->kind_bit = pp_pipeline_kind_bit(in->kind);
        if (in->kind_bit == 0) {
            const char *names[PP_PIPELINE_MAX_NAMES];
            pp_input_kind_names(UINT32_MAX, names, PP_PIPELINE_MAX_NAMES);
            return unknown_word(c, kind, "input kind", "", names);
        }
        path = get(val, "path", NULL);
        if (path != NULL) {
            /* An absent path is fine here: --input may give it (checked
             * after the overrides). */
            if ((rc = scalar_dup(c, path, "'path'", &in->path)) != PP_OK)
                return rc;
            in->path_pos = path->pos;
        }
        if ((path = get(val, "capture", NULL)) != NULL) {
            if (in->path != NULL ||
                (in->kind_bit != PP_KIND_NETTRACE && in->kind_bit != PP_KIND_GCDUMP))
                return pp_pipe_error(c->err, PP_EINVAL, c->file, path->pos,
                                     "input '%s': 'capture' is for a nettrace or gcdump input "
                                     "without 'path' (the capture is kept at capture.keep)",
                                     in->name);
            if ((rc = pp_pipe_capture_path(c->file, path, &in->path, c->err)) != PP_OK)
                return rc;
            in->path_pos = path->pos;
        }
    }
    return PP_OK;
}

static int
parse_option(ctx *c, const pp_ynode *key, const pp_ynode *val, pp_pipeline_option *o)
{
    char what[300];
    int rc;

    o->name = strdup(key->text);
    if (o->name == NULL)
        return oom(c);
    o->pos = key->pos;
    o->value_pos = val->pos;
    snprintf(what, sizeof what, "option '%s' (a scalar or a list of scalars)", key->text);
    if (val->type == PP_YNODE_MAPPING)
        return want(c, val, PP_YNODE_SCALAR, what);
    if (val->type == PP_YNODE_SCALAR) {
        if (pp_ynode_is_null(val))
            return pp_pipe_error(c->err, PP_EINVAL, c->file, val->pos, "option '%s' has no value",
                                 key->text);
        o->value = strdup(val->text);
        return o->value ? PP_OK : oom(c);
    }
    if ((rc = bounded(c, val, what)) != PP_OK)
        return rc;
    o->is_list = 1;
    o->items = calloc(val->count ? val->count : 1, sizeof *o->items);
    o->item_pos = calloc(val->count ? val->count : 1, sizeof *o->item_pos);
    if (o->items == NULL || o->item_pos == NULL)
        return oom(c);
    for (uint32_t k = 0; k < val->count; k++) {
        const pp_ynode *it = val->items[k];
        snprintf(what, sizeof what, "an item of option '%s'", key->text);
        if ((rc = want(c, it, PP_YNODE_SCALAR, what)) != PP_OK)
            return rc;
        o->items[k] = strdup(it->text);
        o->item_pos[k] = it->pos;
        o->item_count++;
        if (o->items[k] == NULL)
            return oom(c);
    }
    return PP_OK;
}

/* A stage's `timeout`: its progress limit in whole seconds (isolate.h). */
static int
parse_timeout(ctx *c, const pp_ynode *v, const char *where, pp_pipeline_stage *s)
{
    unsigned long n = 0;
    const char *p;
    char what[320];
    int rc;

    snprintf(what, sizeof what, "'timeout' of %s", where);
    if ((rc = want(c, v, PP_YNODE_SCALAR, what)) != PP_OK)
        return rc;
    for (p = v->text; *p >= '0' && *p <= '9' && n <= PP_PIPELINE_MAX_TIMEOUT; p++)
        n = n * 10 + (unsigned long)(*p - '0');
    if (p == v->text || *p != '\0' || n == 0 || n > PP_PIPELINE_MAX_TIMEOUT)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, v->pos,
                             "%s wants whole seconds from 1 to %u, not '%s'", what,
                             PP_PIPELINE_MAX_TIMEOUT, v->text);
    s->timeout_s = (uint32_t)n;
    s->timeout_pos = v->pos;
    return PP_OK;
}

static int
parse_stage(ctx *c, const pp_ynode *m, uint32_t index, pp_pipeline_stage *s)
{
    const pp_ynode *v, *kn, *in1, *inN, *k1 = NULL, *kN = NULL;
    char where[300];
    int rc;

    s->pos = m->pos;
    snprintf(where, sizeof where, "stage %u", (unsigned)index + 1);
    if ((rc = want(c, m, PP_YNODE_MAPPING, where)) != PP_OK)
        return rc;
    if ((v = get(m, "id", NULL)) != NULL) {
        if ((rc = ident_dup(c, v, "stage id", &s->id)) != PP_OK)
            return rc;
        s->id_pos = v->pos;
        snprintf(where, sizeof where, "stage '%s'", s->id);
    }
    if ((rc = check_keys(c, m, where, stage_keys)) != PP_OK)
        return rc;
    v = get(m, "analyzer", &kn);
    if (v == NULL)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, m->pos, "missing 'analyzer' in %s", where);
    if ((rc = ident_dup(c, v, "analyzer name", &s->analyzer_name)) != PP_OK)
        return rc;
    s->analyzer_pos = v->pos;
    if (s->id == NULL) {
        s->id = strdup(s->analyzer_name);
        if (s->id == NULL)
            return oom(c);
        s->id_pos = s->pos;
        snprintf(where, sizeof where, "stage '%s'", s->id);
    }

    in1 = get(m, "input", &k1);
    inN = get(m, "inputs", &kN);
    if (in1 != NULL && inN != NULL) {
        const pp_ynode *later = k1->pos.line > kN->pos.line || (k1->pos.line == kN->pos.line &&
                                                                k1->pos.column > kN->pos.column) ?
                                    k1 :
                                    kN;
        return pp_pipe_error(c->err, PP_EINVAL, c->file, later->pos,
                             "%s has both 'input' and 'inputs'; use 'input: NAME' for one "
                             "input or 'inputs: [A, B]' for several",
                             where);
    }
    if (in1 != NULL) {
        s->inputs = calloc(1, sizeof *s->inputs);
        if (s->inputs == NULL)
            return oom(c);
        if ((rc = ident_dup(c, in1, "'input'", &s->inputs[0].name)) != PP_OK)
            return rc;
        s->inputs[0].pos = in1->pos;
        s->input_count = 1;
    } else if (inN != NULL) {
        if ((rc = want(c, inN, PP_YNODE_SEQUENCE, "'inputs'")) != PP_OK)
            return rc;
        if ((rc = bounded(c, inN, "'inputs'")) != PP_OK)
            return rc;
        if (inN->count == 0)
            return pp_pipe_error(c->err, PP_EINVAL, c->file, inN->pos, "'inputs' of %s is empty",
                                 where);
        s->inputs_is_list = 1;
        s->inputs = calloc(inN->count, sizeof *s->inputs);
        if (s->inputs == NULL)
            return oom(c);
        for (uint32_t k = 0; k < inN->count; k++) {
            if ((rc = ident_dup(c, inN->items[k], "an item of 'inputs'", &s->inputs[k].name)) !=
                PP_OK)
                return rc;
            s->inputs[k].pos = inN->items[k]->pos;
            s->input_count++;
        }
    }

    if ((v = get(m, "timeout", NULL)) != NULL && (rc = parse_timeout(c, v, where, s)) != PP_OK)
        return rc;
    if ((v = get(m, "options", NULL)) != NULL) {
        char what[320];
        snprintf(what, sizeof what, "'options' of %s", where);
        if ((rc = want(c, v, PP_YNODE_MAPPING, what)) != PP_OK)
            return rc;
        if ((rc = bounded(c, v, what)) != PP_OK)
            return rc;
        s->options = calloc(v->count ? v->count : 1, sizeof *s->options);
        if (s->options == NULL)
            return oom(c);
        for (uint32_t k = 0; k < v->count; k++) {
            s->option_count++;
            if ((rc = parse_option(c, v->items[2 * k], v->items[2 * k + 1], &s->options[k])) !=
                PP_OK)
                return rc;
        }
    }
    return PP_OK;
}

static int
parse_stages(ctx *c, const pp_ynode *n, pp_pipeline *p)
{
    int rc = want(c, n, PP_YNODE_SEQUENCE, "'stages'");
    if (rc == PP_OK)
        rc = bounded(c, n, "'stages'");
    if (rc != PP_OK)
        return rc;
    if (n->count == 0)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos,
                             "'stages' is empty; declare at least one stage");
    p->stages = calloc(n->count, sizeof *p->stages);
    if (p->stages == NULL)
        return oom(c);
    for (uint32_t k = 0; k < n->count; k++) {
        p->stage_count++;
        if ((rc = parse_stage(c, n->items[k], k, &p->stages[k])) != PP_OK)
            return rc;
    }
    return PP_OK;
}

static int
parse_outputs(ctx *c, const pp_ynode *n, pp_pipeline *p)
{
    int rc = want(c, n, PP_YNODE_SEQUENCE, "'outputs'");
    if (rc == PP_OK)
        rc = bounded(c, n, "'outputs'");
    if (rc != PP_OK)
        return rc;
    p->outputs = calloc(n->count ? n->count : 1, sizeof *p->outputs);
    if (p->outputs == NULL)
        return oom(c);
    for (uint32_t k = 0; k < n->count; k++) {
        const pp_ynode *m = n->items[k], *fmt, *path;
        pp_pipeline_output *o = &p->outputs[p->output_count++];
        char where[64];

        o->pos = m->pos;
        snprintf(where, sizeof where, "output %u", (unsigned)k + 1);
        if (m->type == PP_YNODE_SCALAR) {
            fmt = m; /* "- json": a format on stdout */
            path = NULL;
        } else {
            if (m->type != PP_YNODE_MAPPING)
                return pp_pipe_error(c->err, PP_EINVAL, c->file, m->pos,
                                     "expected a mapping ({ format: F, path: P }) for %s, "
                                     "got %s",
                                     where, pp_ynode_type_name(m));
            if ((rc = check_keys(c, m, where, output_keys)) != PP_OK)
                return rc;
            fmt = get(m, "format", NULL);
            path = get(m, "path", NULL);
            if (fmt == NULL)
                return pp_pipe_error(c->err, PP_EINVAL, c->file, m->pos, "missing 'format' in %s",
                                     where);
        }
        if ((rc = scalar_dup(c, fmt, "'format'", &o->format)) != PP_OK)
            return rc;
        o->format_pos = fmt->pos;
        if (!pp_pipeline_format_known(o->format)) {
            const char *names[PP_PIPELINE_MAX_NAMES];
            pp_output_format_names(PP_FORMAT_DOCUMENT | PP_FORMAT_STACKS, names,
                                   PP_PIPELINE_MAX_NAMES);
            return unknown_word(c, fmt, "output format", "", names);
        }
        if (path != NULL && !pp_ynode_is_null(path)) {
            if ((rc = scalar_dup(c, path, "'path'", &o->path)) != PP_OK)
                return rc;
            o->path_pos = path->pos;
        }
    }
    return PP_OK;
}

static int
valid_pipeline_name(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

int
pp_pipeline_from_tree(const char *file, const char *default_name, const pp_ynode *root,
                      pp_pipeline **out, pp_error *err)
{
    ctx c = { file, err };
    pp_pipeline *p;
    const pp_ynode *v;
    int rc;

    *out = NULL;
    if (root->type != PP_YNODE_MAPPING)
        return pp_pipe_error(err, PP_EFORMAT, file, root->pos,
                             "expected a mapping at the top of the pipeline (version, name, "
                             "inputs, stages, ...), got %s",
                             pp_ynode_type_name(root));
    p = calloc(1, sizeof *p);
    if (p == NULL || (p->file = strdup(file)) == NULL) {
        free(p);
        return oom(&c);
    }
    /* The version first: keys that are unknown to version 1 may be valid in
     * the version the file says it is. */
    if ((rc = parse_version(&c, root, p)) != PP_OK)
        goto fail;
    if ((rc = check_keys(&c, root, "pipeline", top_keys)) != PP_OK)
        goto fail;
    if ((v = get(root, "name", NULL)) != NULL) {
        if ((rc = scalar_dup(&c, v, "'name'", &p->name)) != PP_OK)
            goto fail;
        p->name_pos = v->pos;
        if (!valid_pipeline_name(p->name)) {
            rc = pp_pipe_error(err, PP_EINVAL, file, v->pos,
                               "pipeline name '%s' may hold only letters, digits, '_', '.' "
                               "and '-' (it names output files)",
                               p->name);
            goto fail;
        }
    } else {
        p->name = strdup(default_name);
        if (p->name == NULL) {
            rc = oom(&c);
            goto fail;
        }
    }
    if ((v = get(root, "description", NULL)) != NULL) {
        if ((rc = want(&c, v, PP_YNODE_SCALAR, "'description'")) != PP_OK)
            goto fail;
        if ((p->description = strdup(v->text)) == NULL) {
            rc = oom(&c);
            goto fail;
        }
    }
    if ((v = get(root, "knobs", NULL)) != NULL && (rc = parse_knobs(&c, v, p)) != PP_OK)
        goto fail;
    if ((v = get(root, "inputs", NULL)) == NULL) {
        rc = pp_pipe_error(err, PP_EINVAL, file, root->pos,
                           "missing 'inputs' in pipeline; expected e.g. "
                           "'inputs: { trace: { kind: nettrace, path: \"${TRACE}\" } }'");
        goto fail;
    }
    if ((rc = parse_inputs(&c, v, p)) != PP_OK)
        goto fail;
    if ((v = get(root, "stages", NULL)) == NULL) {
        rc = pp_pipe_error(err, PP_EINVAL, file, root->pos,
                           "missing 'stages' in pipeline; expected a list of "
                           "{ id, analyzer, input, options }");
        goto fail;
    }
    if ((rc = parse_stages(&c, v, p)) != PP_OK)
        goto fail;
    if ((v = get(root, "outputs", NULL)) != NULL) {
        if ((rc = parse_outputs(&c, v, p)) != PP_OK)
            goto fail;
    }
    if (p->output_count == 0) {
        free(p->outputs);
        p->outputs = calloc(1, sizeof *p->outputs);
        if (p->outputs == NULL || (p->outputs[0].format = strdup("table")) == NULL) {
            rc = oom(&c);
            goto fail;
        }
        p->output_count = 1;
        p->outputs_defaulted = 1;
    }
    /* One input and stages that do not say: they read it. */
    for (uint32_t k = 0; k < p->stage_count; k++) {
        pp_pipeline_stage *s = &p->stages[k];
        if (s->input_count > 0)
            continue;
        if (p->input_count != 1) {
            rc = pp_pipe_error(err, PP_EINVAL, file, s->pos,
                               "stage '%s' does not say which input it reads; add "
                               "'input: NAME' or 'inputs: [A, B]'",
                               s->id);
            goto fail;
        }
        s->inputs = calloc(1, sizeof *s->inputs);
        if (s->inputs == NULL || (s->inputs[0].name = strdup(p->inputs[0].name)) == NULL) {
            rc = oom(&c);
            goto fail;
        }
        s->inputs[0].pos = s->pos;
        s->input_count = 1;
    }
    *out = p;
    return PP_OK;
fail:
    pp_pipeline_free(p);
    return rc;
}
