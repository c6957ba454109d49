/* A positioned JSON parser for the span reader (see json.h). Recursive
 * descent bounded by max_depth, so hostile nesting cannot exhaust the stack;
 * every allocation is bounded by the input length (a node per value, the
 * arena holds at most the bytes of the strings and numbers). */
#include <config.h>

#include "spans/json.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

struct pp_json_arena_block {
    pp_json_arena_block *next;
    size_t used;
    size_t cap;
    char data[];
};

#define ARENA_BLOCK_MIN 16384u

static char *arena_alloc(pp_json_doc *doc, size_t n)
{
    pp_json_arena_block *b = doc->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK_MIN ? n : ARENA_BLOCK_MIN;
        b = malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->next = doc->blocks;
        b->used = 0;
        b->cap = cap;
        doc->blocks = b;
    }
    char *p = b->data + b->used;
    b->used += n;
    return p;
}

void pp_json_doc_free(pp_json_doc *doc)
{
    pp_json_arena_block *b = doc->blocks;
    while (b) {
        pp_json_arena_block *next = b->next;
        free(b);
        b = next;
    }
    free(doc->nodes);
    memset(doc, 0, sizeof(*doc));
}

typedef struct parser {
    pp_json_doc *doc;
    const char *buf;
    size_t len;
    size_t pos;
    uint32_t max_depth;
    pp_error *err;
} parser;

static int fail(parser *p, size_t at, const char *what)
{
    pp_error_set_at(p->err, PP_EFORMAT, (int64_t)at, "%s", what);
    return PP_EFORMAT;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        char c = p->buf[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int new_node(parser *p, uint32_t type, size_t offset, uint32_t *out)
{
    pp_json_doc *d = p->doc;
    if (d->count == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 64;
        if (cap < d->cap) {
            pp_error_set_at(p->err, PP_ELIMIT, (int64_t)offset, "too many JSON values in one document");
            return PP_ELIMIT;
        }
        pp_json_node *n = realloc(d->nodes, (size_t)cap * sizeof(*n));
        if (!n) {
            pp_error_set(p->err, PP_ENOMEM, "out of memory parsing JSON");
            return PP_ENOMEM;
        }
        d->nodes = n;
        d->cap = cap;
    }
    pp_json_node *n = &d->nodes[d->count];
    memset(n, 0, sizeof(*n));
    n->type = type;
    n->first = PP_JSON_NONE;
    n->next = PP_JSON_NONE;
    n->offset = offset;
    *out = d->count++;
    return PP_OK;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int read_hex4(parser *p, size_t at, uint32_t *out)
{
    if (p->len - at < 4)
        return fail(p, at, "expected 4 hex digits after \\u");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->buf[at + (size_t)i]);
        if (h < 0)
            return fail(p, at + (size_t)i, "expected a hex digit in \\u escape");
        v = (v << 4) | (uint32_t)h;
    }
    *out = v;
    return PP_OK;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* p->pos is at the opening quote. The unescaped text is never longer than
 * the raw text (an escape of n bytes yields at most n bytes of UTF-8). */
static int parse_string(parser *p, const char **text, size_t *tlen)
{
    size_t start = p->pos++;
    size_t end = p->pos;
    int escaped = 0;
    while (end < p->len && p->buf[end] != '"') {
        unsigned char c = (unsigned char)p->buf[end];
        if (c < 0x20)
            return fail(p, end, "control character inside a string (unterminated string?)");
        if (c == '\\') {
            escaped = 1;
            end++;
            if (end >= p->len)
                break;
        }
        end++;
    }
    if (end >= p->len)
        return fail(p, start, "unterminated string");
    char *out = arena_alloc(p->doc, end - p->pos + 1);
    if (!out) {
        pp_error_set(p->err, PP_ENOMEM, "out of memory parsing JSON");
        return PP_ENOMEM;
    }
    size_t o = 0;
    if (!escaped) {
        memcpy(out, p->buf + p->pos, end - p->pos);
        o = end - p->pos;
    } else {
        size_t i = p->pos;
        while (i < end) {
            char c = p->buf[i];
            if (c != '\\') {
                out[o++] = c;
                i++;
                continue;
            }
            char e = p->buf[i + 1];
            switch (e) {
            case '"': out[o++] = '"'; i += 2; break;
            case '\\': out[o++] = '\\'; i += 2; break;
            case '/': out[o++] = '/'; i += 2; break;
            case 'b': out[o++] = '\b'; i += 2; break;
            case 'f': out[o++] = '\f'; i += 2; break;
            case 'n': out[o++] = '\n'; i += 2; break;
            case 'r': out[o++] = '\r'; i += 2; break;
            case 't': out[o++] = '\t'; i += 2; break;
            case 'u': {
                uint32_t cp;
                int rc = read_hex4(p, i + 2, &cp);
                if (rc < 0)
                    return rc;
                i += 6;
                if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= end && p->buf[i] == '\\' &&
                    p->buf[i + 1] == 'u') {
                    uint32_t lo;
                    rc = read_hex4(p, i + 2, &lo);
                    if (rc < 0)
                        return rc;
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                if (cp >= 0xD800 && cp <= 0xDFFF)
                    cp = 0xFFFD;   /* a lone surrogate has no UTF-8 form */
                o += put_utf8(out + o, cp);
                break;
            }
            default:
                return fail(p, i, "invalid escape in string");
            }
        }
    }
    out[o] = '\0';
    *text = out;
    *tlen = o;
    p->pos = end + 1;
    return PP_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int parse_number(parser *p, uint32_t idx)
{
    size_t s = p->pos, i = p->pos;
    if (i < p->len && p->buf[i] == '-')
        i++;
    if (i >= p->len || !is_digit(p->buf[i]))
        return fail(p, s, "expected a JSON value");
    if (p->buf[i] == '0')
        i++;
    else
        while (i < p->len && is_digit(p->buf[i]))
            i++;
    if (i < p->len && p->buf[i] == '.') {
        i++;
        if (i >= p->len || !is_digit(p->buf[i]))
            return fail(p, i, "expected a digit after the decimal point");
        while (i < p->len && is_digit(p->buf[i]))
            i++;
    }
    if (i < p->len && (p->buf[i] == 'e' || p->buf[i] == 'E')) {
        i++;
        if (i < p->len && (p->buf[i] == '+' || p->buf[i] == '-'))
            i++;
        if (i >= p->len || !is_digit(p->buf[i]))
            return fail(p, i, "expected a digit in the exponent");
        while (i < p->len && is_digit(p->buf[i]))
            i++;
    }
    char *t = arena_alloc(p->doc, i - s + 1);
    if (!t) {
        pp_error_set(p->err, PP_ENOMEM, "out of memory parsing JSON");
        return PP_ENOMEM;
    }
    memcpy(t, p->buf + s, i - s);
    t[i - s] = '\0';
    p->doc->nodes[idx].text = t;
    p->doc->nodes[idx].len = i - s;
    p->pos = i;
    return PP_OK;
}

static int parse_value(parser *p, uint32_t depth, uint32_t *out);

static int parse_container(parser *p, uint32_t depth, uint32_t idx, int is_object)
{
    char close = is_object ? '}' : ']';
    uint32_t last = PP_JSON_NONE;
    p->pos++;   /* the opening bracket */
    skip_ws(p);
    if (p->pos < p->len && p->buf[p->pos] == close) {
        p->pos++;
        return PP_OK;
    }
    for (;;) {
        const char *key = NULL;
        size_t klen = 0;
        skip_ws(p);
        if (is_object) {
            if (p->pos >= p->len || p->buf[p->pos] != '"')
                return fail(p, p->pos, "expected a member name string");
            int rc = parse_string(p, &key, &klen);
            if (rc < 0)
                return rc;
            skip_ws(p);
            if (p->pos >= p->len || p->buf[p->pos] != ':')
                return fail(p, p->pos, "expected ':' after the member name");
            p->pos++;
        }
        uint32_t child;
        int rc = parse_value(p, depth + 1, &child);
        if (rc < 0)
            return rc;
        pp_json_node *nodes = p->doc->nodes;   /* may have moved */
        nodes[child].key = key;
        if (last == PP_JSON_NONE)
            nodes[idx].first = child;
        else
            nodes[last].next = child;
        last = child;
        nodes[idx].count++;
        skip_ws(p);
        if (p->pos < p->len && p->buf[p->pos] == ',') {
            p->pos++;
            continue;
        }
        if (p->pos < p->len && p->buf[p->pos] == close) {
            p->pos++;
            return PP_OK;
        }
        return fail(p, p->pos, is_object ? "expected ',' or '}' in object"
                                         : "expected ',' or ']' in array");
    }
}

static int parse_literal(parser *p, const char *word, uint32_t type, uint32_t *out)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->buf + p->pos, word, n) != 0)
        return fail(p, p->pos, "expected a JSON value");
    int rc = new_node(p, type, p->pos, out);
    if (rc < 0)
        return rc;
    p->pos += n;
    return PP_OK;
}

static int parse_value(parser *p, uint32_t depth, uint32_t *out)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return fail(p, p->pos, "unexpected end of input, expected a JSON value");
    if (depth > p->max_depth) {
        pp_error_set_at(p->err, PP_ELIMIT, (int64_t)p->pos,
                        "JSON nested deeper than %u levels", (unsigned)p->max_depth);
        return PP_ELIMIT;
    }
    char c = p->buf[p->pos];
    int rc;
    switch (c) {
    case '{':
    case '[':
        rc = new_node(p, c == '{' ? PP_JSON_OBJECT : PP_JSON_ARRAY, p->pos, out);
        if (rc < 0)
            return rc;
        return parse_container(p, depth, *out, c == '{');
    case '"': {
        rc = new_node(p, PP_JSON_STRING, p->pos, out);
        if (rc < 0)
            return rc;
        const char *t;
        size_t tl;
        rc = parse_string(p, &t, &tl);
        if (rc < 0)
            return rc;
        p->doc->nodes[*out].text = t;
        p->doc->nodes[*out].len = tl;
        return PP_OK;
    }
    case 't': return parse_literal(p, "true", PP_JSON_TRUE, out);
    case 'f': return parse_literal(p, "false", PP_JSON_FALSE, out);
    case 'n': return parse_literal(p, "null", PP_JSON_NULL, out);
    default:
        if (c != '-' && !is_digit(c))
            return fail(p, p->pos, "expected a JSON value");
        rc = new_node(p, PP_JSON_NUMBER, p->pos, out);
        if (rc < 0)
            return rc;
        return parse_number(p, *out);
    }
}

int pp_json_parse(pp_json_doc *doc, const char *buf, size_t len, size_t *pos,
                  uint32_t max_depth, pp_error *err)
{
    parser p = { doc, buf, len, *pos, max_depth, err };
    skip_ws(&p);
    /* A UTF-8 byte order mark is tolerated at the start of the input. */
    if (p.pos == 0 && len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        p.pos = 3;
        skip_ws(&p);
    }
    if (p.pos >= len) {
        *pos = p.pos;
        return PP_ENOTFOUND;
    }
    uint32_t root;
    int rc = parse_value(&p, 1, &root);
    if (rc < 0)
        return rc;
    *pos = p.pos;
    return PP_OK;
}

const pp_json_node *pp_json_first(const pp_json_doc *doc, const pp_json_node *n)
{
    return n->first == PP_JSON_NONE ? NULL : &doc->nodes[n->first];
}

const pp_json_node *pp_json_next(const pp_json_doc *doc, const pp_json_node *n)
{
    return n->next == PP_JSON_NONE ? NULL : &doc->nodes[n->next];
}

const pp_json_node *pp_json_get(const pp_json_doc *doc, const pp_json_node *obj,
                                const char *key)
{
    if (!obj || obj->type != PP_JSON_OBJECT)
        return NULL;
    for (const pp_json_node *c = pp_json_first(doc, obj); c; c = pp_json_next(doc, c))
        if (strcmp(c->key, key) == 0)
            return c;
    return NULL;
}

void pp_json_locate(const char *buf, size_t len, size_t offset, uint32_t *line,
                    uint32_t *column)
{
    uint32_t l = 1;
    size_t line_start = 0;
    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++)
        if (buf[i] == '\n') {
            l++;
            line_start = i + 1;
        }
    *line = l;
    *column = (uint32_t)(offset - line_start + 1);
}

const char *pp_json_type_name(uint32_t type)
{
    switch (type) {
    case PP_JSON_NULL: return "null";
    case PP_JSON_FALSE:
    case PP_JSON_TRUE: return "boolean";
    case PP_JSON_NUMBER: return "number";
    case PP_JSON_STRING: return "string";
    case PP_JSON_ARRAY: return "array";
    case PP_JSON_OBJECT: return "object";
    default: return "nothing";
    }
}
