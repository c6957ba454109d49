/* libyaml events -> a bounded tree of positioned nodes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include <perfpipe/error.h>

#include "pipeline/yaml_tree.h"

static pp_pos
mark_pos(yaml_mark_t m)
{
    pp_pos p = { (uint32_t)m.line + 1, (uint32_t)m.column + 1 };
    return p;
}

void
pp_yaml_tree_free(pp_ynode *n)
{
    if (n == NULL)
        return;
    uint32_t total = n->type == PP_YNODE_MAPPING ? n->count * 2 : n->count;
    /* A key still waiting for its value is not in items: the builder
     * frees it (pending_key). */
    for (uint32_t k = 0; k < total; k++)
        pp_yaml_tree_free(n->items[k]);
    free(n->items);
    free(n->text);
    free(n);
}

int
pp_ynode_is_null(const pp_ynode *n)
{
    return n->type == PP_YNODE_SCALAR && n->plain &&
           (n->text[0] == '\0' || strcmp(n->text, "~") == 0 || strcmp(n->text, "null") == 0 ||
            strcmp(n->text, "Null") == 0 || strcmp(n->text, "NULL") == 0);
}

const char *
pp_ynode_type_name(const pp_ynode *n)
{
    switch (n->type) {
    case PP_YNODE_SCALAR: return "a scalar";
    case PP_YNODE_SEQUENCE: return "a list";
    case PP_YNODE_MAPPING: return "a mapping";
    }
    return "?";
}

typedef struct builder {
    const char *file;
    pp_error *err;
    pp_ynode *stack[PP_YAML_MAX_DEPTH + 1];
    uint32_t depth;
    /* Per open mapping: its pending key (children are appended in pairs). */
    pp_ynode *pending_key[PP_YAML_MAX_DEPTH + 1];
    uint32_t nodes;
    pp_ynode *root;
} builder;

static int
oom(builder *b)
{
    return pp_pipe_error(b->err, PP_ENOMEM, b->file, (pp_pos){ 0, 0 }, "out of memory");
}

/* Attach n to the open container (or make it the root). Takes n. */
static int
add_child(builder *b, pp_ynode *n)
{
    if (b->depth == 0) {
        b->root = n;
        return PP_OK;
    }
    pp_ynode *parent = b->stack[b->depth - 1];
    if (parent->type == PP_YNODE_MAPPING && b->pending_key[b->depth - 1] == NULL) {
        if (n->type != PP_YNODE_SCALAR) {
            int rc = pp_pipe_error(b->err, PP_EFORMAT, b->file, n->pos,
                                   "expected a scalar mapping key, got %s", pp_ynode_type_name(n));
            pp_yaml_tree_free(n);
            return rc;
        }
        if (strlen(n->text) > PP_YAML_MAX_KEY) {
            int rc = pp_pipe_error(b->err, PP_ELIMIT, b->file, n->pos, "key longer than %u bytes",
                                   PP_YAML_MAX_KEY);
            pp_yaml_tree_free(n);
            return rc;
        }
        for (uint32_t k = 0; k < parent->count; k++) {
            pp_ynode *prev = parent->items[2 * k];
            if (strcmp(prev->text, n->text) == 0) {
                int rc = pp_pipe_error(b->err, PP_EFORMAT, b->file, n->pos,
                                       "duplicate key '%s' (first at %u:%u)", n->text,
                                       (unsigned)prev->pos.line, (unsigned)prev->pos.column);
                pp_yaml_tree_free(n);
                return rc;
            }
        }
        b->pending_key[b->depth - 1] = n;
        return PP_OK;
    }
    uint32_t slots = parent->type == PP_YNODE_MAPPING ? 2 : 1;
    uint32_t used = parent->count * slots;
    pp_ynode **grown = realloc(parent->items, (used + slots) * sizeof *grown);
    if (grown == NULL) {
        pp_yaml_tree_free(n);
        return oom(b);
    }
    parent->items = grown;
    if (parent->type == PP_YNODE_MAPPING) {
        grown[used] = b->pending_key[b->depth - 1];
        grown[used + 1] = n;
        b->pending_key[b->depth - 1] = NULL;
    } else {
        grown[used] = n;
    }
    parent->count++;
    return PP_OK;
}

static pp_ynode *
new_node(builder *b, pp_ynode_type type, yaml_mark_t mark)
{
    pp_ynode *n;

    if (b->nodes >= PP_YAML_MAX_NODES) {
        pp_pipe_error(b->err, PP_ELIMIT, b->file, mark_pos(mark), "more than %u YAML nodes",
                      PP_YAML_MAX_NODES);
        return NULL;
    }
    n = calloc(1, sizeof *n);
    if (n == NULL) {
        oom(b);
        return NULL;
    }
    b->nodes++;
    n->type = type;
    n->pos = mark_pos(mark);
    return n;
}

static int
refuse_anchor(builder *b, const yaml_char_t *anchor, yaml_mark_t mark)
{
    if (anchor == NULL)
        return PP_OK;
    return pp_pipe_error(b->err, PP_EFORMAT, b->file, mark_pos(mark),
                         "YAML anchors (&%s) and aliases are not supported in pipelines",
                         (const char *)anchor);
}

static int
on_event(builder *b, const yaml_event_t *ev, int *documents)
{
    pp_ynode *n;
    int rc;

    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_STREAM_END_EVENT:
    case YAML_DOCUMENT_END_EVENT: return PP_OK;
    case YAML_DOCUMENT_START_EVENT:
        if (++*documents > 1)
            return pp_pipe_error(b->err, PP_EFORMAT, b->file, mark_pos(ev->start_mark),
                                 "a second YAML document; a pipeline file holds exactly one");
        return PP_OK;
    case YAML_ALIAS_EVENT:
        return pp_pipe_error(b->err, PP_EFORMAT, b->file, mark_pos(ev->start_mark),
                             "YAML aliases (*%s) are not supported in pipelines",
                             (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT:
        if ((rc = refuse_anchor(b, ev->data.scalar.anchor, ev->start_mark)) != PP_OK)
            return rc;
        if (ev->data.scalar.length > PP_YAML_MAX_SCALAR)
            return pp_pipe_error(b->err, PP_ELIMIT, b->file, mark_pos(ev->start_mark),
                                 "scalar longer than %u bytes", PP_YAML_MAX_SCALAR);
        if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length) != NULL)
            return pp_pipe_error(b->err, PP_EFORMAT, b->file, mark_pos(ev->start_mark),
                                 "scalar contains a NUL character");
        n = new_node(b, PP_YNODE_SCALAR, ev->start_mark);
        if (n == NULL)
            return b->err ? b->err->code : PP_ENOMEM;
        n->text = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        if (n->text == NULL) {
            pp_yaml_tree_free(n);
            return oom(b);
        }
        return add_child(b, n);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        const yaml_char_t *anchor = ev->type == YAML_SEQUENCE_START_EVENT ?
                                        ev->data.sequence_start.anchor :
                                        ev->data.mapping_start.anchor;
        if ((rc = refuse_anchor(b, anchor, ev->start_mark)) != PP_OK)
            return rc;
        if (b->depth >= PP_YAML_MAX_DEPTH)
            return pp_pipe_error(b->err, PP_ELIMIT, b->file, mark_pos(ev->start_mark),
                                 "nesting deeper than %u levels", PP_YAML_MAX_DEPTH);
        n = new_node(b,
                     ev->type == YAML_SEQUENCE_START_EVENT ? PP_YNODE_SEQUENCE : PP_YNODE_MAPPING,
                     ev->start_mark);
        if (n == NULL)
            return b->err ? b->err->code : PP_ENOMEM;
        /* Open it first so a key check failing in add_child frees it once. */
        b->stack[b->depth] = n;
        b->pending_key[b->depth] = NULL;
        b->depth++;
        return PP_OK;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        n = b->stack[--b->depth];
        b->stack[b->depth] = NULL;
        return add_child(b, n);
    case YAML_NO_EVENT: return PP_OK;
    }
    return PP_OK;
}

int
pp_yaml_tree_parse(const char *file, const char *text, size_t len, pp_ynode **root, pp_error *err)
{
    yaml_parser_t parser;
    builder b;
    int documents = 0;
    int rc = PP_OK;

    *root = NULL;
    if (len > PP_YAML_MAX_BYTES)
        return pp_pipe_error(err, PP_ELIMIT, file, (pp_pos){ 0, 0 },
                             "pipeline file is larger than %u bytes", PP_YAML_MAX_BYTES);
    memset(&b, 0, sizeof b);
    b.file = file;
    b.err = err;
    if (!yaml_parser_initialize(&parser))
        return oom(&b);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            if (parser.error == YAML_MEMORY_ERROR) {
                rc = oom(&b);
            } else if (parser.context != NULL) {
                rc = pp_pipe_error(err, PP_EFORMAT, file, mark_pos(parser.problem_mark),
                                   "YAML syntax error: %s (%s at %u:%u)",
                                   parser.problem ? parser.problem : "unknown problem",
                                   parser.context, (unsigned)parser.context_mark.line + 1,
                                   (unsigned)parser.context_mark.column + 1);
            } else {
                rc = pp_pipe_error(err, PP_EFORMAT, file, mark_pos(parser.problem_mark),
                                   "YAML syntax error: %s",
                                   parser.problem ? parser.problem : "unknown problem");
            }
            break;
        }
        rc = on_event(&b, &ev, &documents);
        int done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (rc != PP_OK || done)
            break;
    }
    yaml_parser_delete(&parser);
    /* On error, free whatever is still open, innermost first. */
    while (b.depth > 0) {
        b.depth--;
        pp_yaml_tree_free(b.pending_key[b.depth]);
        pp_yaml_tree_free(b.stack[b.depth]);
    }
    if (rc != PP_OK) {
        pp_yaml_tree_free(b.root);
        return rc;
    }
    if (b.root == NULL)
        return pp_pipe_error(err, PP_EFORMAT, file, (pp_pos){ 1, 1 },
                             "empty pipeline; expected a mapping starting with 'version: 1'");
    *root = b.root;
    return PP_OK;
}
