/* Typed stage options: built from declarations + text settings, read by
 * typed getters. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <perfpipe/perfpipe.h>

#include "pipeline/options.h"

/* A list option bigger than this is a mistake, not a configuration. */
#define OPT_LIST_MAX 4096u
#define OPT_TEXT_MAX 65536u

typedef struct opt_value {
    const pp_option_decl *decl;
    int set;
    int b;
    int64_t i;
    double d;
    char *s;      /* string */
    char **items; /* string list */
    uint32_t count;
    char *text; /* canonical text, built lazily */
} opt_value;

struct pp_options {
    uint32_t count;
    opt_value *v;
};

const char *
pp_option_type_name(uint32_t type)
{
    switch (type) {
    case PP_OPT_BOOL: return "bool";
    case PP_OPT_INT: return "int";
    case PP_OPT_DOUBLE: return "double";
    case PP_OPT_STRING: return "string";
    case PP_OPT_STRING_LIST: return "string list";
    default: return "?";
    }
}

int
pp_option_parse_bool(const char *t, int *out)
{
    static const char *const yes[] = { "true", "yes", "on" };
    static const char *const no[] = { "false", "no", "off" };

    for (size_t k = 0; k < 3; k++) {
        if (strcasecmp(t, yes[k]) == 0) {
            *out = 1;
            return PP_OK;
        }
        if (strcasecmp(t, no[k]) == 0) {
            *out = 0;
            return PP_OK;
        }
    }
    return PP_EINVAL;
}

int
pp_option_parse_int(const char *t, int64_t *out)
{
    const char *p = t;
    char *end;
    long long v;

    /* strtoll skips leading blanks and accepts hex with base 0; we want a
     * plain decimal integer and nothing else. */
    if (*p == '-' || *p == '+')
        p++;
    if (*p < '0' || *p > '9')
        return PP_EINVAL;
    errno = 0;
    v = strtoll(t, &end, 10);
    if (errno != 0 || *end != '\0')
        return PP_EINVAL;
    *out = (int64_t)v;
    return PP_OK;
}

int
pp_option_parse_double(const char *t, double *out)
{
    const char *p = t;
    char *end;
    double v;

    if (*p == '-' || *p == '+')
        p++;
    if (!((*p >= '0' && *p <= '9') || *p == '.'))
        return PP_EINVAL; /* no blanks, no "inf"/"nan" */
    errno = 0;
    v = strtod(t, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v))
        return PP_EINVAL;
    *out = v;
    return PP_OK;
}

static void
value_clear(opt_value *v)
{
    free(v->s);
    v->s = NULL;
    for (uint32_t k = 0; k < v->count; k++)
        free(v->items[k]);
    free(v->items);
    v->items = NULL;
    v->count = 0;
    free(v->text);
    v->text = NULL;
    v->set = 0;
}

void
pp_options_free(pp_options *o)
{
    if (o == NULL)
        return;
    for (uint32_t k = 0; k < o->count; k++)
        value_clear(&o->v[k]);
    free(o->v);
    free(o);
}

/* Where a message about a setting points and how it starts. */
typedef struct where {
    const char *file;
    pp_pos pos;
} where;

static int
list_push(opt_value *v, const char *text, size_t len)
{
    char **grown;

    if (v->count >= OPT_LIST_MAX)
        return PP_ELIMIT;
    grown = realloc(v->items, (v->count + 1) * sizeof *grown);
    if (grown == NULL)
        return PP_ENOMEM;
    v->items = grown;
    v->items[v->count] = strndup(text, len);
    if (v->items[v->count] == NULL)
        return PP_ENOMEM;
    v->count++;
    return PP_OK;
}

/* Comma-separated (command line and declared defaults): items are trimmed
 * of surrounding blanks; empty items are dropped so "a,,b" and "a, b" both
 * mean [a, b] and "" means the empty list. */
static int
list_from_commas(opt_value *v, const char *text)
{
    const char *p = text;

    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (b > a) {
            int rc = list_push(v, a, (size_t)(b - a));
            if (rc != PP_OK)
                return rc;
        }
        p = comma ? comma + 1 : end;
    }
    return PP_OK;
}

/* Parse one scalar into v according to its declared type. */
static int
value_set_scalar(opt_value *v, const char *stage_hint, const char *text, int comma_list, where w,
                 pp_error *err)
{
    const pp_option_decl *d = v->decl;
    int rc = PP_OK;

    if (strlen(text) > OPT_TEXT_MAX)
        return pp_pipe_error(err, PP_ELIMIT, w.file, w.pos,
                             "value of option '%s' is longer than %u bytes", d->name, OPT_TEXT_MAX);
    switch (d->type) {
    case PP_OPT_BOOL:
        if (pp_option_parse_bool(text, &v->b) != PP_OK)
            return pp_pipe_error(
                err, PP_EINVAL, w.file, w.pos,
                "option '%s'%s expects a bool (true/false, yes/no, on/off), got '%s'", d->name,
                stage_hint, text);
        break;
    case PP_OPT_INT:
        if (pp_option_parse_int(text, &v->i) != PP_OK)
            return pp_pipe_error(err, PP_EINVAL, w.file, w.pos,
                                 "option '%s'%s expects an integer, got '%s'", d->name, stage_hint,
                                 text);
        break;
    case PP_OPT_DOUBLE:
        if (pp_option_parse_double(text, &v->d) != PP_OK)
            return pp_pipe_error(err, PP_EINVAL, w.file, w.pos,
                                 "option '%s'%s expects a number, got '%s'", d->name, stage_hint,
                                 text);
        break;
    case PP_OPT_STRING:
        v->s = strdup(text);
        if (v->s == NULL)
            rc = PP_ENOMEM;
        break;
    case PP_OPT_STRING_LIST:
        if (comma_list) {
            rc = list_from_commas(v, text);
        } else {
            if (strchr(text, ',') != NULL)
                return pp_pipe_error(err, PP_EINVAL, w.file, w.pos,
                                     "option '%s'%s expects a list; write it as a YAML list "
                                     "([a, b]) rather than '%s'",
                                     d->name, stage_hint, text);
            rc = list_push(v, text, strlen(text));
        }
        break;
    default:
        return pp_pipe_error(err, PP_EPLUGIN, w.file, w.pos,
                             "option '%s' is declared with unknown type %u", d->name,
                             (unsigned)d->type);
    }
    if (rc == PP_ENOMEM)
        return pp_pipe_error(err, rc, NULL, w.pos, "out of memory");
    if (rc == PP_ELIMIT)
        return pp_pipe_error(err, rc, w.file, w.pos, "option '%s' has more than %u items", d->name,
                             OPT_LIST_MAX);
    v->set = 1;
    return PP_OK;
}

static int
apply_setting(opt_value *v, const char *file, const pp_option_setting *s, pp_error *err)
{
    where w = { file, s->from_file ? s->value_pos : (pp_pos){ 0, 0 } };
    const pp_option_decl *d = v->decl;
    int rc;

    value_clear(v);
    if (s->items != NULL) {
        if (d->type != PP_OPT_STRING_LIST)
            return pp_pipe_error(err, PP_EINVAL, file, w.pos,
                                 "option '%s' expects a single %s value, got a list", d->name,
                                 pp_option_type_name(d->type));
        for (uint32_t k = 0; k < s->item_count; k++) {
            rc = list_push(v, s->items[k], strlen(s->items[k]));
            if (rc == PP_ENOMEM)
                return pp_pipe_error(err, rc, NULL, w.pos, "out of memory");
            if (rc != PP_OK)
                return pp_pipe_error(err, rc, file, w.pos, "option '%s' has more than %u items",
                                     d->name, OPT_LIST_MAX);
        }
        v->set = 1;
        return PP_OK;
    }
    if (s->value == NULL)
        return pp_pipe_error(err, PP_EINVAL, file, w.pos, "option '%s' has no value", d->name);
    return value_set_scalar(v, "", s->value, !s->from_file, w, err);
}

/* "a, b, c" of the declared names, for "not declared" messages. */
static void
declared_list(const pp_analyzer *a, char *buf, size_t size)
{
    size_t used = 0;

    buf[0] = '\0';
    for (uint32_t k = 0; k < a->option_count && used < size; k++) {
        int n = snprintf(buf + used, size - used, "%s%s", k ? ", " : "", a->options[k].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (a->option_count == 0)
        snprintf(buf, size, "(none)");
}

int
pp_options_build_settings(const pp_analyzer *a, const char *file, const pp_option_setting *settings,
                          size_t n, pp_options **out, pp_error *err)
{
    pp_options *o;
    const pp_pos *seen;
    int rc;

    *out = NULL;
    if (a->option_count > 0 && a->options == NULL)
        return pp_pipe_error(err, PP_EPLUGIN, NULL, (pp_pos){ 0, 0 },
                             "analyzer '%s' declares %u options but no table", a->name,
                             (unsigned)a->option_count);
    o = calloc(1, sizeof *o);
    if (o == NULL)
        return pp_pipe_error(err, PP_ENOMEM, NULL, (pp_pos){ 0, 0 }, "out of memory");
    o->count = a->option_count;
    o->v = calloc(o->count ? o->count : 1, sizeof *o->v);
    seen = calloc(o->count ? o->count : 1, sizeof *seen);
    if (o->v == NULL || seen == NULL) {
        free((void *)seen);
        if (o->v == NULL)
            o->count = 0; /* nothing to free per option (it read v[k] of NULL) */
        pp_options_free(o);
        return pp_pipe_error(err, PP_ENOMEM, NULL, (pp_pos){ 0, 0 }, "out of memory");
    }

    /* Defaults first: a broken default is the plugin's bug, said as such. */
    for (uint32_t k = 0; k < o->count; k++) {
        const pp_option_decl *d = &a->options[k];
        o->v[k].decl = d;
        if (d->name == NULL) {
            rc = pp_pipe_error(err, PP_EPLUGIN, NULL, (pp_pos){ 0, 0 },
                               "analyzer '%s' declares an option without a name", a->name);
            goto fail;
        }
        if (d->default_value != NULL) {
            pp_error tmp = PP_ERROR_INIT;
            where w = { NULL, { 0, 0 } };
            if (value_set_scalar(&o->v[k], "", d->default_value, 1, w, &tmp) != PP_OK) {
                rc = pp_pipe_error(err, PP_EPLUGIN, NULL, (pp_pos){ 0, 0 },
                                   "analyzer '%s' has a bad default: %s", a->name, tmp.message);
                goto fail;
            }
        }
    }

    for (size_t s = 0; s < n; s++) {
        const pp_option_setting *st = &settings[s];
        pp_pos name_pos = st->from_file ? st->name_pos : (pp_pos){ 0, 0 };
        uint32_t k;

        for (k = 0; k < o->count; k++)
            if (strcmp(o->v[k].decl->name, st->name) == 0)
                break;
        if (k == o->count) {
            char names[300];
            const char *names_v[64];
            const char *near;
            uint32_t nn = o->count < 64 ? o->count : 64;
            for (uint32_t j = 0; j < nn; j++)
                names_v[j] = a->options[j].name;
            near = pp_pipe_nearest(st->name, names_v, nn);
            declared_list(a, names, sizeof names);
            if (near != NULL)
                rc = pp_pipe_error(err, PP_EINVAL, file, name_pos,
                                   "analyzer '%s' has no option '%s' (did you mean '%s'?); "
                                   "its options are: %s",
                                   a->name, st->name, near, names);
            else
                rc = pp_pipe_error(err, PP_EINVAL, file, name_pos,
                                   "analyzer '%s' has no option '%s'; its options are: %s", a->name,
                                   st->name, names);
            goto fail;
        }
        /* The same option twice from one source is a mistake; a command-line
         * value after a file value is an override and wins. */
        if (seen[k].line != 0 && st->from_file) {
            rc = pp_pipe_error(err, PP_EINVAL, file, name_pos,
                               "option '%s' is set twice (first at %u:%u)", st->name,
                               (unsigned)seen[k].line, (unsigned)seen[k].column);
            goto fail;
        }
        if (st->from_file)
            ((pp_pos *)seen)[k] = st->name_pos;
        rc = apply_setting(&o->v[k], file, st, err);
        if (rc != PP_OK)
            goto fail;
    }
    free((void *)seen);
    *out = o;
    return PP_OK;
fail:
    free((void *)seen);
    pp_options_free(o);
    return rc;
}

int
pp_options_build(const pp_analyzer *a, const char *const *pairs, size_t npairs, pp_options **out,
                 pp_error *err)
{
    pp_option_setting *s = NULL;
    int rc;

    if (npairs > 0) {
        s = calloc(npairs, sizeof *s);
        if (s == NULL)
            return pp_pipe_error(err, PP_ENOMEM, NULL, (pp_pos){ 0, 0 }, "out of memory");
    }
    for (size_t k = 0; k < npairs; k++) {
        s[k].name = pairs[2 * k];
        s[k].value = pairs[2 * k + 1];
    }
    rc = pp_options_build_settings(a, NULL, s, npairs, out, err);
    free(s);
    return rc;
}

/* The declared option `name` with type `type` (0 = any), or NULL with *rc. */
static const opt_value *
find(const pp_options *o, const char *name, uint32_t type, int *rc)
{
    if (o == NULL || name == NULL) {
        *rc = o == NULL ? PP_ENOTFOUND : PP_EINVAL;
        return NULL;
    }
    for (uint32_t k = 0; k < o->count; k++) {
        const opt_value *v = &o->v[k];
        if (strcmp(v->decl->name, name) != 0)
            continue;
        if (type != 0 && v->decl->type != type) {
            *rc = PP_EINVAL;
            return NULL;
        }
        if (!v->set) {
            *rc = PP_ENOTFOUND;
            return NULL;
        }
        *rc = PP_OK;
        return v;
    }
    *rc = PP_EINVAL;
    return NULL;
}

int
pp_options_bool(const pp_options *o, const char *name, int *out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_BOOL, &rc);
    if (v != NULL)
        *out = v->b;
    return rc;
}

int
pp_options_int(const pp_options *o, const char *name, int64_t *out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_INT, &rc);
    if (v != NULL)
        *out = v->i;
    return rc;
}

int
pp_options_double(const pp_options *o, const char *name, double *out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_DOUBLE, &rc);
    if (v != NULL)
        *out = v->d;
    return rc;
}

int
pp_options_string(const pp_options *o, const char *name, const char **out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_STRING, &rc);
    if (v != NULL)
        *out = v->s;
    return rc;
}

int
pp_options_list_count(const pp_options *o, const char *name, uint32_t *out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_STRING_LIST, &rc);
    if (v != NULL)
        *out = v->count;
    return rc;
}

int
pp_options_list_item(const pp_options *o, const char *name, uint32_t index, const char **out)
{
    int rc;
    const opt_value *v = find(o, name, PP_OPT_STRING_LIST, &rc);
    if (v == NULL)
        return rc;
    if (index >= v->count)
        return PP_ENOTFOUND;
    *out = v->items[index];
    return PP_OK;
}

int
pp_options_is_set(const pp_options *o, const char *name)
{
    int rc;
    const opt_value *v = find(o, name, 0, &rc);
    if (v != NULL)
        return 1;
    return rc == PP_ENOTFOUND ? 0 : rc;
}

const char *
pp_options_text(const pp_options *o, const char *name)
{
    int rc;
    opt_value *v = (opt_value *)find(o, name, 0, &rc);
    char buf[64];
    size_t len = 0;

    if (v == NULL)
        return NULL;
    if (v->text != NULL)
        return v->text;
    switch (v->decl->type) {
    case PP_OPT_BOOL: v->text = strdup(v->b ? "true" : "false"); break;
    case PP_OPT_INT:
        snprintf(buf, sizeof buf, "%lld", (long long)v->i);
        v->text = strdup(buf);
        break;
    case PP_OPT_DOUBLE:
        snprintf(buf, sizeof buf, "%.17g", v->d);
        v->text = strdup(buf);
        break;
    case PP_OPT_STRING: v->text = strdup(v->s); break;
    case PP_OPT_STRING_LIST:
        for (uint32_t k = 0; k < v->count; k++)
            len += strlen(v->items[k]) + 1;
        v->text = malloc(len + 1);
        if (v->text != NULL) {
            char *p = v->text;
            *p = '\0';
            for (uint32_t k = 0; k < v->count; k++) {
                size_t l = strlen(v->items[k]);
                if (k)
                    *p++ = ',';
                memcpy(p, v->items[k], l);
                p += l;
                *p = '\0';
            }
        }
        break;
    default: break;
    }
    return v->text;
}
