/* Rule format version 1: a YAML tree -> checked rules. Every message
 * points at the key or value it blames (docs/rules.md, "Validation"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/yaml_tree.h"
#include "result/decl.h"
#include "rules/evidence.h"
#include "rules/rules.h"

typedef struct ctx {
    const char *file;
    pp_error *err;
    const json_t *schema; /* the set's (rules.h) */
} ctx;

static const char *const top_keys[] = { "version", "rules", NULL };
static const char *const rule_keys[] = {
    "id",       "title",        "axis",          "confidence",    "fix",
    "doc",      "finding",      "message",       "match",         "requires",
    "disabled", "experimental", "superseded_by", "l1_blind_spot", "requires_any",
    NULL
};
static const char *const clause_keys[] = { "analyzer", "table", "target", "where", "absent", NULL };
static const char *const op_names[] = {
    "equals", "regex", "not_regex", "glob", "min", "max", NULL
};
static const char *const confidences[] = { "high", "medium", "low", NULL };
static const char *const findings[] = { "none", "info", "warning", NULL };

static int
fail(ctx *c, int code, pp_pos pos, const char *msg)
{
    return pp_pipe_error(c->err, code, c->file, pos, "%s", msg);
}

/* Index of word in a NULL-terminated list, or -1 with a positioned
 * "unknown WHAT 'word' (did you mean ...); expected one of: ..." error. */
static int
one_of_in(ctx *c, const pp_ynode *n, const char *what, const char *where, const char *const *valid)
{
    for (int k = 0; valid[k] != NULL; k++)
        if (strcmp(n->text, valid[k]) == 0)
            return k;
    pp_pipe_unknown(c->err, c->file, n->pos, n->text, what, where, valid);
    return -1;
}

static int
one_of(ctx *c, const pp_ynode *n, const char *what, const char *const *valid)
{
    return one_of_in(c, n, what, NULL, valid);
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

static int
keys_known(ctx *c, const pp_ynode *map, const char *where, const char *const *valid)
{
    for (uint32_t k = 0; k < map->count; k++)
        if (one_of_in(c, map->items[2 * k], "key", where, valid) < 0)
            return PP_EINVAL;
    return PP_OK;
}

static const pp_ynode *
get(const pp_ynode *map, const char *key)
{
    for (uint32_t k = 0; k < map->count; k++)
        if (strcmp(map->items[2 * k]->text, key) == 0)
            return map->items[2 * k + 1];
    return NULL;
}

/* A non-empty scalar, copied into *out. */
static int
text_dup(ctx *c, const pp_ynode *n, const char *what, char **out)
{
    int rc = want(c, n, PP_YNODE_SCALAR, what);

    if (rc != PP_OK)
        return rc;
    if (pp_ynode_is_null(n) || n->text[0] == '\0')
        return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos,
                             "expected a value for %s, got nothing", what);
    if ((*out = strdup(n->text)) == NULL)
        return fail(c, PP_ENOMEM, n->pos, "out of memory");
    return PP_OK;
}

/* A required key of a mapping. */
static int
need(ctx *c, const pp_ynode *map, const char *key, const char *where, const pp_ynode **out)
{
    if ((*out = get(map, key)) != NULL)
        return PP_OK;
    return pp_pipe_error(c->err, PP_EINVAL, c->file, map->pos, "%s has no '%s' (required)", where,
                         key);
}

/* area.name, lowercase: [a-z][a-z0-9-]* parts joined by '.', two or more. */
static int
valid_id(const char *s)
{
    int parts = 0;

    while (*s != '\0') {
        if (*s < 'a' || *s > 'z')
            return 0;
        while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-')
            s++;
        if (s[-1] == '-')
            return 0;
        parts++;
        if (*s == '.')
            s++;
        else if (*s != '\0')
            return 0;
        else
            break;
    }
    return parts >= 2;
}

/* A glob fnmatch can use as written: every '[' closed. */
static int
valid_glob(const char *g)
{
    for (const char *p = g; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0') {
            p++;
        } else if (*p == '[') {
            const char *q = p + 1;
            if (*q == '!' || *q == '^')
                q++;
            if (*q == ']')
                q++;
            while (*q != '\0' && *q != ']')
                q++;
            if (*q == '\0')
                return 0;
            p = q;
        }
    }
    return 1;
}

static int
number(ctx *c, const pp_ynode *n, const char *what, double *out)
{
    char *end;
    int rc = want(c, n, PP_YNODE_SCALAR, what);

    if (rc != PP_OK)
        return rc;
    *out = strtod(n->text, &end);
    if (n->text[0] == '\0' || *end != '\0' || !n->plain)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, n->pos,
                             "expected a number for %s, got '%s'", what, n->text);
    return PP_OK;
}

static int
parse_cond(ctx *c, const pp_rule_clause *cl, const pp_ynode *col, const pp_ynode *opk,
           const pp_ynode *val, pp_rule_cond *out)
{
    int op = one_of(c, opk, "condition", op_names);
    pp_ev_kind kind = pp_ev_schema(c->schema, cl->analyzer, cl->table, col->text);
    int rc;

    if (op < 0)
        return PP_EINVAL;
    out->op = (pp_rule_op)(op + 1);
    if ((out->column = strdup(col->text)) == NULL)
        return fail(c, PP_ENOMEM, col->pos, "out of memory");
    if (out->op == PP_RULE_MIN || out->op == PP_RULE_MAX) {
        if (kind == PP_EV_STRING)
            return pp_pipe_error(c->err, PP_EINVAL, c->file, opk->pos,
                                 "'%s' compares numbers, but %s/%s column '%s' holds text: use "
                                 "equals, regex, not_regex or glob",
                                 opk->text, cl->analyzer, cl->table, col->text);
        return number(c, val, opk->text, &out->number);
    }
    if (kind == PP_EV_NUMBER)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, opk->pos,
                             "'%s' matches text, but %s/%s column '%s' holds numbers: use min "
                             "or max",
                             opk->text, cl->analyzer, cl->table, col->text);
    if ((rc = text_dup(c, val, opk->text, &out->text)) != PP_OK)
        return rc;
    if (out->op == PP_RULE_REGEX || out->op == PP_RULE_NOT_REGEX) {
        int e = regcomp(&out->re, out->text, REG_EXTENDED | REG_NOSUB);

        if (e == REG_ESPACE) /* not the rule's fault: say what it is */
            return pp_pipe_error(c->err, PP_ENOMEM, c->file, val->pos, "out of memory");
        if (e != 0) {
            char why[128];

            regerror(e, &out->re, why, sizeof why);
            return pp_pipe_error(c->err, PP_EINVAL, c->file, val->pos,
                                 "bad regex '%s': %s (POSIX extended syntax)", out->text, why);
        }
        out->has_re = 1;
    } else if (out->op == PP_RULE_GLOB && !valid_glob(out->text)) {
        return pp_pipe_error(c->err, PP_EINVAL, c->file, val->pos,
                             "bad glob '%s': a '[' is not closed", out->text);
    }
    return PP_OK;
}

static int
parse_where(ctx *c, pp_rule_clause *cl, const pp_ynode *where)
{
    size_t total = 0;
    int rc = want(c, where, PP_YNODE_MAPPING, "'where' (column: { op: value })");

    if (rc != PP_OK)
        return rc;
    for (uint32_t k = 0; k < where->count; k++) {
        const pp_ynode *col = where->items[2 * k], *ops = where->items[2 * k + 1];
        pp_ev_kind kind = pp_ev_schema(c->schema, cl->analyzer, cl->table, col->text);

        if (kind == PP_EV_COLUMN_UNKNOWN) {
            char list[1024];

            pp_ev_schema_list(c->schema, cl->analyzer, cl->table, list, sizeof list);
            return pp_pipe_error(c->err, PP_EINVAL, c->file, col->pos,
                                 "unknown column '%s' of %s/%s; expected one of: %s", col->text,
                                 cl->analyzer, cl->table, list);
        }
        if ((rc = want(c, ops, PP_YNODE_MAPPING, "a condition ({ regex: ..., min: ... })")) !=
            PP_OK)
            return rc;
        if (ops->count == 0)
            return fail(c, PP_EINVAL, ops->pos, "expected at least one condition for the column");
        total += ops->count;
    }
    if (total > PP_RULES_MAX_CONDS)
        return pp_pipe_error(c->err, PP_ELIMIT, c->file, where->pos,
                             "more than %u conditions in one clause", PP_RULES_MAX_CONDS);
    if ((cl->conds = calloc(total + 1, sizeof *cl->conds)) == NULL)
        return fail(c, PP_ENOMEM, where->pos, "out of memory");
    for (uint32_t k = 0; k < where->count; k++) {
        const pp_ynode *col = where->items[2 * k], *ops = where->items[2 * k + 1];

        for (uint32_t o = 0; o < ops->count; o++) {
            rc = parse_cond(c, cl, col, ops->items[2 * o], ops->items[2 * o + 1],
                            &cl->conds[cl->nconds]);
            cl->nconds++;
            if (rc != PP_OK)
                return rc;
        }
    }
    return PP_OK;
}

static int flag(ctx *c, const pp_ynode *n, const char *key, int *out);

static int
parse_clause(ctx *c, const pp_ynode *n, pp_rule_clause *cl)
{
    const pp_ynode *an, *tb, *tg, *wh;
    pp_ev_kind kind;
    int rc;

    cl->pos = n->pos;
    if ((rc = want(c, n, PP_YNODE_MAPPING, "a clause (analyzer, table, where)")) != PP_OK ||
        (rc = keys_known(c, n, "a clause", clause_keys)) != PP_OK ||
        (rc = need(c, n, "analyzer", "the clause", &an)) != PP_OK ||
        (rc = need(c, n, "table", "the clause", &tb)) != PP_OK ||
        (rc = text_dup(c, an, "analyzer", &cl->analyzer)) != PP_OK ||
        (rc = text_dup(c, tb, "table", &cl->table)) != PP_OK)
        return rc;
    kind = pp_ev_schema(c->schema, cl->analyzer, cl->table, NULL);
    if (kind == PP_EV_TABLE_UNKNOWN) {
        char list[512];

        pp_ev_schema_list(c->schema, cl->analyzer, NULL, list, sizeof list);
        return pp_pipe_error(c->err, PP_EINVAL, c->file, tb->pos,
                             "unknown table '%s' of analyzer %s; expected one of: %s", tb->text,
                             cl->analyzer, list);
    }
    /* In a `requires` clause, target ties the row to the candidate's own
     * target in ANOTHER result (a later snapshot pair) */
    if ((tg = get(n, "target")) != NULL) {
        if ((rc = text_dup(c, tg, "target", &cl->target)) != PP_OK)
            return rc;
        kind = pp_ev_schema(c->schema, cl->analyzer, cl->table, cl->target);
        if (kind == PP_EV_COLUMN_UNKNOWN || kind == PP_EV_NUMBER) {
            char list[1024];

            pp_ev_schema_list(c->schema, cl->analyzer, cl->table, list, sizeof list);
            return pp_pipe_error(c->err, PP_EINVAL, c->file, tg->pos,
                                 "target '%s' is not a text column of %s/%s (one naming a frame, "
                                 "method, command or type); columns: %s",
                                 tg->text, cl->analyzer, cl->table, list);
        }
    }
    if ((wh = get(n, "where")) != NULL && (rc = parse_where(c, cl, wh)) != PP_OK)
        return rc;
    if ((rc = flag(c, n, "absent", &cl->absent)) != PP_OK)
        return rc;
    if (cl->absent && cl->target == NULL)
        return fail(c, PP_EINVAL, n->pos,
                    "'absent: true' needs a 'target': it holds where another result's table "
                    "has no row naming the candidate's target");
    return PP_OK;
}

/* One clause or a list of them. */
static int
parse_clauses(ctx *c, const pp_ynode *n, pp_rule_clause **out, size_t *count)
{
    size_t want_n = n->type == PP_YNODE_SEQUENCE ? n->count : 1;

    if (n->type == PP_YNODE_SCALAR)
        return want(c, n, PP_YNODE_MAPPING, "a clause or a list of clauses");
    if (want_n == 0)
        return fail(c, PP_EINVAL, n->pos, "expected at least one clause, got an empty list");
    if (want_n > PP_RULES_MAX_CLAUSES)
        return pp_pipe_error(c->err, PP_ELIMIT, c->file, n->pos, "more than %u clauses",
                             PP_RULES_MAX_CLAUSES);
    if ((*out = calloc(want_n, sizeof **out)) == NULL)
        return fail(c, PP_ENOMEM, n->pos, "out of memory");
    for (size_t i = 0; i < want_n; i++) {
        int rc = parse_clause(c, n->type == PP_YNODE_SEQUENCE ? n->items[i] : n, &(*out)[i]);
        (*count)++;
        if (rc != PP_OK)
            return rc;
    }
    return PP_OK;
}

/* Index of a rule's axis in pp_decl_axes (the axes analyzers declare
 * figures on), or -1 with a positioned error. A word that starts an axis
 * name (a rule file written before rules used them said `alloc`) is told
 * the whole name to write. */
static int
axis_of(ctx *c, const pp_ynode *v)
{
    size_t n = strlen(v->text), used = 0;
    char list[128] = "";

    for (int k = 0; pp_decl_axes[k] != NULL && used < sizeof list; k++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", k ? ", " : "", pp_decl_axes[k]);

        used = w < 0 ? sizeof list : used + (size_t)w;
    }
    for (int k = 0; n >= 3 && pp_decl_axes[k] != NULL; k++)
        if (strncmp(v->text, pp_decl_axes[k], n) == 0 && pp_decl_axes[k][n] != '\0') {
            pp_pipe_error(c->err, PP_EINVAL, c->file, v->pos,
                          "unknown axis '%s': write 'axis: %s' (a rule's axis is one analyzers "
                          "declare figures on: %s)",
                          v->text, pp_decl_axes[k], list);
            return -1;
        }
    return one_of(c, v, "axis", pp_decl_axes);
}

/* The keys every enabled rule has, and their sets. */
static int
parse_body(ctx *c, const pp_ynode *n, pp_rule *r)
{
    const pp_ynode *v;
    int rc, k;

    if ((rc = need(c, n, "title", "the rule", &v)) != PP_OK ||
        (rc = text_dup(c, v, "title", &r->title)) != PP_OK ||
        (rc = need(c, n, "axis", "the rule", &v)) != PP_OK ||
        (rc = want(c, v, PP_YNODE_SCALAR, "axis")) != PP_OK)
        return rc;
    if ((k = axis_of(c, v)) < 0)
        return PP_EINVAL;
    if ((r->axis = strdup(pp_decl_axes[k])) == NULL)
        return fail(c, PP_ENOMEM, v->pos, "out of memory");
    if ((rc = need(c, n, "confidence", "the rule", &v)) != PP_OK ||
        (rc = want(c, v, PP_YNODE_SCALAR, "confidence")) != PP_OK)
        return rc;
    if ((k = one_of(c, v, "confidence", confidences)) < 0)
        return PP_EINVAL;
    if ((r->confidence = strdup(confidences[k])) == NULL)
        return fail(c, PP_ENOMEM, v->pos, "out of memory");
    if ((rc = need(c, n, "fix", "the rule", &v)) != PP_OK ||
        (rc = text_dup(c, v, "fix", &r->fix)) != PP_OK ||
        (rc = need(c, n, "doc", "the rule", &v)) != PP_OK ||
        (rc = text_dup(c, v, "doc", &r->doc)) != PP_OK)
        return rc;
    if (strncmp(r->doc, "https://", 8) != 0 && strncmp(r->doc, "http://", 7) != 0)
        return fail(c, PP_EINVAL, v->pos, "expected a public documentation URL (https://...)");
    if ((v = get(n, "finding")) != NULL) {
        if ((rc = want(c, v, PP_YNODE_SCALAR, "finding")) != PP_OK)
            return rc;
        if ((k = one_of(c, v, "finding", findings)) < 0)
            return PP_EINVAL;
        r->finding = (pp_rule_finding)k;
    }
    if ((v = get(n, "message")) != NULL && (rc = text_dup(c, v, "message", &r->message)) != PP_OK)
        return rc;
    if ((v = get(n, "superseded_by")) != NULL &&
        (rc = text_dup(c, v, "superseded_by", &r->superseded_by)) != PP_OK)
        return rc;
    if ((rc = need(c, n, "match", "the rule", &v)) != PP_OK ||
        (rc = parse_clauses(c, v, &r->match, &r->nmatch)) != PP_OK)
        return rc;
    if ((v = get(n, "requires")) != NULL &&
        (rc = parse_clauses(c, v, &r->requires, &r->nrequires)) != PP_OK)
        return rc;
    return PP_OK;
}

/* An optional true/false key of a rule into *out (left alone when absent). */
static int
flag(ctx *c, const pp_ynode *n, const char *key, int *out)
{
    const pp_ynode *v = get(n, key);
    int rc;

    if (v == NULL)
        return PP_OK;
    if ((rc = want(c, v, PP_YNODE_SCALAR, key)) != PP_OK)
        return rc;
    if (strcmp(v->text, "true") == 0)
        *out = 1;
    else if (strcmp(v->text, "false") != 0)
        return pp_pipe_error(c->err, PP_EINVAL, c->file, v->pos,
                             "expected true or false for %s, got '%s'", key, v->text);
    return PP_OK;
}

static int
parse_rule(ctx *c, const pp_ynode *n, pp_rule *r)
{
    const pp_ynode *v;
    int rc;

    if ((rc = want(c, n, PP_YNODE_MAPPING, "a rule")) != PP_OK ||
        (rc = keys_known(c, n, "a rule", rule_keys)) != PP_OK ||
        (rc = need(c, n, "id", "the rule", &v)) != PP_OK ||
        (rc = text_dup(c, v, "id", &r->id)) != PP_OK)
        return rc;
    r->pos = v->pos;
    if (!valid_id(r->id))
        return pp_pipe_error(c->err, PP_EINVAL, c->file, v->pos,
                             "rule id '%s' is not area.name (lowercase letters, digits and '-', "
                             "parts joined by '.', e.g. ef.n-plus-one)",
                             r->id);
    if ((r->file = strdup(c->file)) == NULL)
        return fail(c, PP_ENOMEM, v->pos, "out of memory");
    if ((rc = flag(c, n, "disabled", &r->disabled)) != PP_OK ||
        (rc = flag(c, n, "experimental", &r->experimental)) != PP_OK ||
        (rc = flag(c, n, "l1_blind_spot", &r->l1_blind_spot)) != PP_OK ||
        (rc = flag(c, n, "requires_any", &r->requires_any)) != PP_OK)
        return rc;
    /* A disabled rule only needs its id: it exists to switch one off. */
    if (r->disabled && get(n, "match") == NULL)
        return PP_OK;
    return parse_body(c, n, r);
}

static void
clauses_free(pp_rule_clause *cl, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < cl[i].nconds; k++) {
            free(cl[i].conds[k].column);
            free(cl[i].conds[k].text);
            if (cl[i].conds[k].has_re)
                regfree(&cl[i].conds[k].re);
        }
        free(cl[i].conds);
        free(cl[i].analyzer);
        free(cl[i].table);
        free(cl[i].target);
    }
    free(cl);
}

static void
rule_free(pp_rule *r)
{
    clauses_free(r->match, r->nmatch);
    clauses_free(r->requires, r->nrequires);
    free(r->id);
    free(r->title);
    free(r->axis);
    free(r->confidence);
    free(r->fix);
    free(r->doc);
    free(r->superseded_by);
    free(r->message);
    free(r->file);
}

void
pp_ruleset_free(pp_ruleset *set)
{
    for (size_t i = 0; i < set->count; i++)
        rule_free(&set->rules[i]);
    free(set->rules);
    set->rules = NULL;
    set->count = set->cap = 0;
}

const char *
pp_rule_confidence(const pp_rule *r)
{
    if (r->experimental && r->confidence != NULL && strcmp(r->confidence, "high") == 0)
        return "medium";
    return r->confidence;
}

const pp_rule *
pp_ruleset_find(const pp_ruleset *set, const char *id)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->rules[i].id, id) == 0)
            return &set->rules[i];
    return NULL;
}

static int
blank(const char *text, size_t len)
{
    int comment = 0;

    for (size_t i = 0; i < len; i++) {
        if (text[i] == '#')
            comment = 1;
        else if (text[i] == '\n')
            comment = 0;
        else if (!comment && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
            return 0;
    }
    return 1;
}

/* The rules sequence of a parsed file into set (first_new: where this
 * file's rules start, for duplicates). */
static int
add_rules(ctx *c, pp_ruleset *set, const pp_ynode *list, size_t first_new)
{
    for (uint32_t i = 0; i < list->count; i++) {
        pp_rule r;
        const pp_rule *old;
        int rc;

        memset(&r, 0, sizeof r);
        if ((rc = parse_rule(c, list->items[i], &r)) != PP_OK) {
            rule_free(&r);
            return rc;
        }
        old = pp_ruleset_find(set, r.id);
        if (old != NULL && (size_t)(old - set->rules) >= first_new) {
            rc = pp_pipe_error(c->err, PP_EINVAL, c->file, r.pos,
                               "rule id '%s' is defined twice (first at %s:%u)", r.id, old->file,
                               (unsigned)old->pos.line);
            rule_free(&r);
            return rc;
        }
        if (old != NULL) { /* an earlier file overrides this one */
            rule_free(&r);
            continue;
        }
        if (set->count == set->cap) {
            size_t ncap = set->cap ? set->cap * 2 : 32;
            pp_rule *g = realloc(set->rules, ncap * sizeof *g);

            if (g == NULL) {
                rule_free(&r);
                return fail(c, PP_ENOMEM, list->pos, "out of memory");
            }
            set->rules = g;
            set->cap = ncap;
        }
        set->rules[set->count++] = r;
    }
    return PP_OK;
}

int
pp_rules_load_text(pp_ruleset *set, const char *file, const char *text, size_t len, pp_error *err)
{
    return pp_rules_load_text_in(set, set->count, file, text, len, err);
}

int
pp_rules_load_text_in(pp_ruleset *set, size_t first_new, const char *file, const char *text,
                      size_t len, pp_error *err)
{
    ctx c = { file, err, set->schema };
    pp_ynode *root = NULL;
    const pp_ynode *v, *list;
    size_t before = set->count;
    int rc;

    if (blank(text, len))
        return fail(&c, PP_EINVAL, (pp_pos){ 1, 1 },
                    "empty rule file; expected a mapping starting with 'version: 1'");
    if ((rc = pp_yaml_tree_parse(file, text, len, &root, err)) != PP_OK)
        return rc;
    if ((rc = want(&c, root, PP_YNODE_MAPPING, "a rule file (version, rules)")) != PP_OK ||
        (rc = keys_known(&c, root, "a rule file", top_keys)) != PP_OK ||
        (rc = need(&c, root, "version", "the rule file", &v)) != PP_OK)
        goto out;
    if (v->type != PP_YNODE_SCALAR || strcmp(v->text, "1") != 0) {
        rc = pp_pipe_error(err, PP_EINVAL, file, v->pos,
                           "unsupported rule format version '%s'; this perfpipe reads version 1",
                           v->type == PP_YNODE_SCALAR ? v->text : pp_ynode_type_name(v));
        goto out;
    }
    if ((rc = need(&c, root, "rules", "the rule file", &list)) != PP_OK ||
        (rc = want(&c, list, PP_YNODE_SEQUENCE, "rules (a list of rules)")) != PP_OK)
        goto out;
    if (list->count > PP_RULES_MAX_RULES) {
        rc = pp_pipe_error(err, PP_ELIMIT, file, list->pos, "more than %u rules in one file",
                           PP_RULES_MAX_RULES);
        goto out;
    }
    rc = add_rules(&c, set, list, first_new);
out:
    pp_yaml_tree_free(root);
    if (rc != PP_OK) { /* all of a file or none of it */
        while (set->count > before)
            rule_free(&set->rules[--set->count]);
    }
    return rc;
}
