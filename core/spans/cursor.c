/* Finding one's way in a span export's text (see cursor.h). Values are
 * parsed by jansson, one at a time; this file only matches brackets and
 * strings to find where a value ends, and checks the punctuation of the
 * levels the reader walks. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "spans/cursor.h"

/* pp_jc_skip's bracket stack: deeper input is refused before this. */
#define JC_STACK 256u

static int problem(pp_jc_problem *pr, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int
problem(pp_jc_problem *pr, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;

    pr->code = code;
    pr->offset = offset;
    va_start(ap, fmt);
    vsnprintf(pr->what, sizeof pr->what, fmt, ap);
    va_end(ap);
    return code;
}

size_t
pp_jc_ws(const pp_jc_text *t, size_t pos)
{
    while (pos < t->len && (t->buf[pos] == ' ' || t->buf[pos] == '\t' || t->buf[pos] == '\n' ||
                            t->buf[pos] == '\r'))
        pos++;
    return pos;
}

uint32_t
pp_jc_type(const pp_jc_text *t, size_t pos)
{
    if (pos >= t->len)
        return PP_JC_NONE;
    switch (t->buf[pos]) {
    case '{': return PP_JC_OBJECT;
    case '[': return PP_JC_ARRAY;
    case '"': return PP_JC_STRING;
    case 't':
    case 'f': return PP_JC_BOOL;
    case 'n': return PP_JC_NULL;
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9': return PP_JC_NUMBER;
    default: return PP_JC_NONE;
    }
}

const char *
pp_jc_type_name(uint32_t type)
{
    static const char *const names[] = { "nothing", "null",  "boolean", "number",
                                         "string",  "array", "object" };
    return type <= PP_JC_OBJECT ? names[type] : "nothing";
}

/* One past the closing quote of the string at pos, or 0 at the end. */
static size_t
string_end(const pp_jc_text *t, size_t pos)
{
    for (size_t i = pos + 1; i < t->len; i++) {
        if (t->buf[i] == '\\')
            i++;
        else if (t->buf[i] == '"')
            return i + 1;
    }
    return 0;
}

static int
is_delim(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' ||
           c == ':' || c == '\0';
}

int
pp_jc_skip(const pp_jc_text *t, size_t pos, uint32_t depth, size_t *end, pp_jc_problem *pr)
{
    uint8_t stack[JC_STACK];
    uint32_t max = t->max_depth < JC_STACK ? t->max_depth : JC_STACK;
    uint32_t level = 0;
    size_t i = pos;

    while (i < t->len) {
        char c = t->buf[i];

        if (c == '"') {
            size_t e = string_end(t, i);
            if (e == 0)
                return problem(pr, PP_EFORMAT, t->len, "unexpected end of input in a string");
            i = e;
            if (level == 0)
                break;
        } else if (c == '{' || c == '[') {
            if (depth + level + 1 > max)
                return problem(pr, PP_ELIMIT, i, "JSON nested deeper than %u levels",
                               (unsigned)max);
            stack[level++] = (uint8_t)c;
            i++;
        } else if (c == '}' || c == ']') {
            if (level == 0)
                return problem(pr, PP_EFORMAT, i, "expected a JSON value");
            if ((c == '}') != (stack[level - 1] == '{'))
                return problem(pr, PP_EFORMAT, i,
                               stack[level - 1] == '{' ? "expected ',' or '}' in object" :
                                                         "expected ',' or ']' in array");
            level--;
            i++;
            if (level == 0)
                break;
        } else if (level == 0) {
            while (i < t->len && !is_delim(t->buf[i]))
                i++;
            break;
        } else {
            i++;
        }
    }
    if (level > 0)
        return problem(pr, PP_EFORMAT, t->len,
                       "unexpected end of input, expected a JSON value or '%c'",
                       stack[level - 1] == '{' ? '}' : ']');
    *end = i;
    return 0;
}

int
pp_jc_load(const pp_jc_text *t, size_t pos, json_t **out, size_t *end, pp_jc_problem *pr)
{
    json_error_t je;
    size_t e;
    int rc;

    *out = NULL;
    if (pp_jc_type(t, pos) == PP_JC_NONE)
        return problem(pr, PP_EFORMAT, pos,
                       pos >= t->len ? "unexpected end of input, expected a JSON value" :
                                       "expected a JSON value");
    if ((rc = pp_jc_skip(t, pos, 0, &e, pr)) < 0)
        return rc;
    if (e - pos > t->max_value)
        return problem(pr, PP_ELIMIT, pos,
                       "a span (or member) of %zu bytes, more than the limit %zu", e - pos,
                       t->max_value);
    /* Duplicate names are refused: a message points at the first one, as
     * the walk does, and jansson would keep the last. */
    *out = json_loadb(t->buf + pos, e - pos, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (*out == NULL && json_error_code(&je) == json_error_out_of_memory)
        return problem(pr, PP_ENOMEM, pos, "out of memory parsing a JSON value of %zu bytes",
                       e - pos);
    if (*out == NULL) {
        /* jansson's position is past the token it choked on: inside a
         * container that is near enough, a bad scalar is shown at its start. */
        size_t at = je.position > 0 && (t->buf[pos] == '{' || t->buf[pos] == '[') ?
                        pos + (size_t)je.position - 1 :
                        pos;
        return problem(pr, PP_EFORMAT, at < e ? at : e, "invalid JSON: %s", je.text);
    }
    *end = e;
    return 0;
}

/* The member name at pos (a string) into *key (jansson's, decref it), *end
 * past it. */
static int
member_name(const pp_jc_text *t, size_t pos, json_t **key, size_t *end, pp_jc_problem *pr)
{
    if (pos >= t->len || t->buf[pos] != '"')
        return problem(pr, PP_EFORMAT, pos, "expected a member name string");
    return pp_jc_load(t, pos, key, end, pr);
}

/* Shared walk of an object: visit(user, name, value_pos, &value_end).
 * raw_names: the names are compared, not checked (text jansson has already
 * loaded): a name without escapes is passed as it is written, unquoted. */
typedef int (*member_fn)(void *user, const char *name, size_t val, size_t *vend, pp_jc_problem *pr);

static int
raw_name(const pp_jc_text *t, size_t pos, char *name, size_t size, size_t *end)
{
    size_t e;

    if (pos >= t->len || t->buf[pos] != '"' || (e = string_end(t, pos)) == 0)
        return -1;
    if (e - pos - 2 >= size || memchr(t->buf + pos + 1, '\\', e - pos - 2) != NULL)
        return -1;
    memcpy(name, t->buf + pos + 1, e - pos - 2);
    name[e - pos - 2] = '\0';
    *end = e;
    return 0;
}

static int
walk_object(const pp_jc_text *t, size_t pos, member_fn visit, void *user, int raw_names,
            size_t *end, pp_jc_problem *pr)
{
    size_t i = pp_jc_ws(t, pos + 1);
    int rc;

    if (i < t->len && t->buf[i] == '}') {
        *end = i + 1;
        return 0;
    }
    for (;;) {
        json_t *key = NULL;
        char raw[128];
        size_t kend, vend;

        if (!raw_names || raw_name(t, i, raw, sizeof raw, &kend) < 0) {
            if ((rc = member_name(t, i, &key, &kend, pr)) < 0)
                return rc;
        }
        i = pp_jc_ws(t, kend);
        if (i >= t->len || t->buf[i] != ':') {
            json_decref(key);
            return problem(pr, PP_EFORMAT, i, "expected ':' after the member name");
        }
        i = pp_jc_ws(t, i + 1);
        if (pp_jc_type(t, i) == PP_JC_NONE) {
            json_decref(key);
            return problem(pr, PP_EFORMAT, i, "expected a JSON value");
        }
        rc = visit(user, key ? json_string_value(key) : raw, i, &vend, pr);
        json_decref(key);
        if (rc < 0)
            return rc;
        if (rc > 0) { /* found what it looked for */
            *end = SIZE_MAX;
            return 0;
        }
        i = pp_jc_ws(t, vend);
        if (i < t->len && t->buf[i] == '}') {
            *end = i + 1;
            return 0;
        }
        if (i >= t->len || t->buf[i] != ',')
            return problem(pr, PP_EFORMAT, i, "expected ',' or '}' in object");
        i = pp_jc_ws(t, i + 1);
    }
}

typedef struct members_job {
    const pp_jc_text *t;
    const char *const *keys;
    size_t n;
    size_t *vals;
} members_job;

static int
members_visit(void *user, const char *name, size_t val, size_t *vend, pp_jc_problem *pr)
{
    members_job *j = user;
    json_t *v;

    for (size_t k = 0; k < j->n; k++)
        if (j->vals[k] == SIZE_MAX && strcmp(name, j->keys[k]) == 0) {
            j->vals[k] = val;
            return pp_jc_skip(j->t, val, 0, vend, pr);
        }
    /* A member the reader does not use: still well-formed JSON. */
    int rc = pp_jc_load(j->t, val, &v, vend, pr);
    json_decref(v);
    return rc;
}

int
pp_jc_members(const pp_jc_text *t, size_t pos, const char *const *keys, size_t n, size_t *vals,
              size_t *end, pp_jc_problem *pr)
{
    members_job j = { t, keys, n, vals };

    for (size_t k = 0; k < n; k++)
        vals[k] = SIZE_MAX;
    return walk_object(t, pos, members_visit, &j, 0, end, pr);
}

int
pp_jc_array_open(const pp_jc_text *t, size_t pos, size_t *at, pp_jc_problem *pr)
{
    if (pos >= t->len || t->buf[pos] != '[')
        return problem(pr, PP_EFORMAT, pos, "expected an array");
    *at = pos + 1;
    return 0;
}

int
pp_jc_array_next(const pp_jc_text *t, size_t *at, int first, size_t *elem, pp_jc_problem *pr)
{
    size_t i = pp_jc_ws(t, *at);

    if (i < t->len && t->buf[i] == ']') {
        *at = i + 1;
        return 0;
    }
    if (!first) {
        if (i >= t->len || t->buf[i] != ',')
            return problem(pr, PP_EFORMAT, i, "expected ',' or ']' in array");
        i = pp_jc_ws(t, i + 1);
    }
    if (pp_jc_type(t, i) == PP_JC_NONE)
        return problem(pr, PP_EFORMAT, i,
                       i >= t->len ? "unexpected end of input, expected a JSON value" :
                                     "expected a JSON value");
    *elem = i;
    return 1;
}

typedef struct find_job {
    const pp_jc_text *t;
    const char *key;
    size_t found;
} find_job;

static int
find_visit(void *user, const char *name, size_t val, size_t *vend, pp_jc_problem *pr)
{
    find_job *j = user;

    if (strcmp(name, j->key) == 0) {
        j->found = val;
        return 1;
    }
    return pp_jc_skip(j->t, val, 0, vend, pr);
}

size_t
pp_jc_member_at(const pp_jc_text *t, size_t pos, const char *key)
{
    find_job j = { t, key, SIZE_MAX };
    pp_jc_problem pr;
    size_t end;

    if (pp_jc_type(t, pos) != PP_JC_OBJECT || walk_object(t, pos, find_visit, &j, 1, &end, &pr) < 0)
        return SIZE_MAX;
    return j.found;
}

size_t
pp_jc_element_at(const pp_jc_text *t, size_t pos, size_t index)
{
    pp_jc_problem pr;
    size_t at, elem, end;

    if (pp_jc_type(t, pos) != PP_JC_ARRAY || pp_jc_array_open(t, pos, &at, &pr) < 0)
        return SIZE_MAX;
    for (size_t k = 0; pp_jc_array_next(t, &at, k == 0, &elem, &pr) == 1; k++) {
        if (k == index)
            return elem;
        if (pp_jc_skip(t, elem, 0, &end, &pr) < 0)
            return SIZE_MAX;
        at = end;
    }
    return SIZE_MAX;
}

void
pp_jc_locate(const pp_jc_text *t, size_t offset, uint32_t *line, uint32_t *column)
{
    uint32_t l = 1;
    size_t start = 0;

    if (offset > t->len)
        offset = t->len;
    for (const char *p = t->buf; (p = memchr(p, '\n', (size_t)(t->buf + offset - p))) != NULL;
         p++) {
        l++;
        start = (size_t)(p - t->buf) + 1;
    }
    *line = l;
    *column = (uint32_t)(offset - start + 1);
}
