/* One span of a span export, from its jansson tree to a pp_span: the
 * members OTLP defines, checked, and every attribute value as text. Offsets
 * for messages (and a number's own text) are found in the file only when
 * needed, by walking the span's text again (cursor.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "spans/cursor.h"
#include "spans/reader_state.h"

/* ---- positions inside the current span -------------------------------- */

static void
path_key(span_path *p, const char *key)
{
    if (p->n < PATH_MAX_STEPS) {
        p->key[p->n] = key;
        p->index[p->n] = 0;
    }
    p->n++;
}

static void
path_index(span_path *p, size_t index)
{
    if (p->n < PATH_MAX_STEPS) {
        p->key[p->n] = NULL;
        p->index[p->n] = index;
    }
    p->n++;
}

/* The offset of the value the path names, or of the deepest value on the
 * way that could be found. */
static size_t
resolve(const pp_spans_reader *r, const span_path *p)
{
    size_t pos = r->span_pos;
    uint32_t n = p->n < PATH_MAX_STEPS ? p->n : PATH_MAX_STEPS;
    for (uint32_t i = 0; i < n; i++) {
        size_t next = p->key[i] ? pp_jc_member_at(&r->text, pos, p->key[i]) :
                                  pp_jc_element_at(&r->text, pos, p->index[i]);
        if (next == SIZE_MAX)
            break;
        pos = next;
    }
    return pos;
}

static size_t
member_pos(const pp_spans_reader *r, const char *key)
{
    span_path p = { .n = 0 };
    path_key(&p, key);
    return resolve(r, &p);
}

/* ---- values of a span ---------------------------------------------------- */

/* Unsigned decimal text of at most 19 digits into int64. */
static int
parse_u63(const char *s, size_t len, int64_t *out)
{
    if (len == 0 || len > 19)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        int d = s[i] - '0';
        if (v > (INT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* A non-negative integer, as a JSON integer or a string of digits. */
static int
as_u63(const json_t *v, int64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (int64_t)json_integer_value(v);
        return 0;
    }
    if (json_is_string(v))
        return parse_u63(json_string_value(v), json_string_length(v), out);
    return -1;
}

static int
get_time(pp_spans_reader *r, const char *key, int64_t *out, pp_error *err)
{
    const json_t *n = json_object_get(r->span, key);
    if (!n)
        return pp_spans_bad(r, r->span_pos, PP_EFORMAT, err, "expected member \"%s\" in span", key);
    if (as_u63(n, out) != 0)
        return pp_spans_bad(
            r, member_pos(r, key), PP_EFORMAT, err,
            "expected \"%s\" to be unix nanoseconds (a string or integer of digits)", key);
    return PP_OK;
}

static int
get_string(pp_spans_reader *r, const char *key, int required, const char **out, pp_error *err)
{
    const json_t *n = json_object_get(r->span, key);
    *out = "";
    if (!n || json_is_null(n)) {
        if (required)
            return pp_spans_bad(r, r->span_pos, PP_EFORMAT, err,
                                "expected member \"%s\" (string) in span", key);
        return PP_OK;
    }
    if (!json_is_string(n))
        return pp_spans_bad(r, member_pos(r, key), PP_EFORMAT, err,
                            "expected \"%s\" to be a string, found %s", key, pp_spans_kind_name(n));
    *out = json_string_value(n);
    return PP_OK;
}

/* An integer, or one of the enum names (matched after the given prefix,
 * case-insensitively, so "SPAN_KIND_SERVER" and "Server" both work). */
static int
get_enum(pp_spans_reader *r, const json_t *n, const span_path *at, const char *key,
         const char *prefix, const char *const *names, uint32_t nnames, uint32_t *out,
         pp_error *err)
{
    if (json_is_integer(n)) {
        json_int_t v = json_integer_value(n);
        if (v >= 0 && v < (json_int_t)nnames) {
            *out = (uint32_t)v;
            return PP_OK;
        }
    } else if (json_is_string(n)) {
        const char *s = json_string_value(n);
        size_t pl = strlen(prefix);
        if (strncasecmp(s, prefix, pl) == 0)
            s += pl;
        for (uint32_t i = 0; i < nnames; i++)
            if (strcasecmp(s, names[i]) == 0) {
                *out = i;
                return PP_OK;
            }
    }
    return pp_spans_bad(r, resolve(r, at), PP_EFORMAT, err,
                        "expected \"%s\" to be an integer 0..%u or a %s* name", key,
                        (unsigned)(nnames - 1), prefix);
}

static const char *const kind_names[] = { "UNSPECIFIED", "INTERNAL", "SERVER",
                                          "CLIENT",      "PRODUCER", "CONSUMER" };
static const char *const status_names[] = { "UNSET", "OK", "ERROR" };

/* ---- attribute values --------------------------------------------------- */

static int
scratch_put(pp_spans_reader *r, const char *s, size_t n)
{
    if (r->scratch_cap - r->scratch_len < n + 1) {
        size_t cap = r->scratch_cap ? r->scratch_cap : 256;
        while (cap - r->scratch_len < n + 1)
            cap *= 2;
        char *b = realloc(r->scratch, cap);
        if (!b)
            return PP_ENOMEM;
        r->scratch = b;
        r->scratch_cap = cap;
    }
    memcpy(r->scratch + r->scratch_len, s, n);
    r->scratch_len += n;
    r->scratch[r->scratch_len] = '\0';
    return PP_OK;
}

/* A number as the file wrote it (the text at its position), so "0.05"
 * stays "0.05"; jansson's value when the text cannot be found. */
static int
number_text(pp_spans_reader *r, const json_t *v, const span_path *at)
{
    size_t pos = resolve(r, at);
    if (pp_jc_type(&r->text, pos) == PP_JC_NUMBER) {
        size_t e = pos;
        while (e < r->len && strchr("+-.0123456789eE", r->buf[e]) != NULL && r->buf[e] != '\0')
            e++;
        return scratch_put(r, r->buf + pos, e - pos);
    }
    char num[64];
    if (json_is_integer(v))
        snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else
        snprintf(num, sizeof(num), "%.17g", json_real_value(v));
    return scratch_put(r, num, strlen(num));
}

static int value_text(pp_spans_reader *r, const json_t *anyvalue, span_path *at, pp_error *err);

/* Arrays render as [a, b]; kvlists as {k: v, ...}: readable, and nobody
 * matches on them. at names the arrayValue/kvlistValue member. */
static int
list_text(pp_spans_reader *r, const json_t *list, int kv, span_path *at, pp_error *err)
{
    const json_t *values = json_object_get(list, "values");
    int rc = scratch_put(r, kv ? "{" : "[", 1);
    uint32_t depth = at->n;
    if (rc == PP_OK && json_is_array(values)) {
        size_t i;
        const json_t *v;
        json_array_foreach(values, i, v) {
            if (rc != PP_OK)
                break;
            if (i > 0)
                rc = scratch_put(r, ", ", 2);
            at->n = depth;
            path_key(at, "values");
            path_index(at, i);
            const json_t *val = v;
            if (kv) {
                const json_t *kn = json_object_get(v, "key");
                const char *k = json_is_string(kn) ? json_string_value(kn) : "";
                if (rc == PP_OK)
                    rc = scratch_put(r, k, strlen(k));
                if (rc == PP_OK)
                    rc = scratch_put(r, ": ", 2);
                val = json_object_get(v, "value");
                path_key(at, "value");
            }
            if (rc == PP_OK && val)
                rc = value_text(r, val, at, err);
        }
    }
    at->n = depth;
    if (rc == PP_OK)
        rc = scratch_put(r, kv ? "}" : "]", 1);
    return rc;
}

static int
value_text(pp_spans_reader *r, const json_t *anyvalue, span_path *at, pp_error *err)
{
    if (at->n > 2 * PP_SPANS_MAX_DEPTH)
        return pp_spans_bad(r, resolve(r, at), PP_ELIMIT, err, "attribute value nested too deep");
    if (!json_is_object(anyvalue))
        return pp_spans_bad(
            r, resolve(r, at), PP_EFORMAT, err,
            "expected an attribute value object like {\"stringValue\": ...}, found %s",
            pp_spans_kind_name(anyvalue));
    void *it = json_object_iter((json_t *)anyvalue);
    if (!it)
        return PP_OK; /* {} is an empty AnyValue */
    const char *k = json_object_iter_key(it);
    const json_t *v = json_object_iter_value(it);
    uint32_t depth = at->n;
    path_key(at, k);
    int rc;
    if (strcmp(k, "stringValue") == 0 || strcmp(k, "bytesValue") == 0) {
        if (!json_is_string(v))
            return pp_spans_bad(r, resolve(r, at), PP_EFORMAT, err,
                                "expected \"%s\" to be a string", k);
        rc = scratch_put(r, json_string_value(v), json_string_length(v));
    } else if (strcmp(k, "intValue") == 0 || strcmp(k, "doubleValue") == 0) {
        if (json_is_string(v))
            rc = scratch_put(r, json_string_value(v), json_string_length(v));
        else if (json_is_number(v))
            rc = number_text(r, v, at);
        else
            return pp_spans_bad(r, resolve(r, at), PP_EFORMAT, err,
                                "expected \"%s\" to be a number", k);
    } else if (strcmp(k, "boolValue") == 0) {
        if (!json_is_boolean(v))
            return pp_spans_bad(r, resolve(r, at), PP_EFORMAT, err,
                                "expected \"boolValue\" to be true or false");
        rc = json_is_true(v) ? scratch_put(r, "true", 4) : scratch_put(r, "false", 5);
    } else if (strcmp(k, "arrayValue") == 0 || strcmp(k, "kvlistValue") == 0) {
        rc = list_text(r, v, k[0] == 'k', at, err);
    } else {
        return pp_spans_bad(r, resolve(r, at), PP_EFORMAT, err,
                            "unknown attribute value type \"%s\" (expected stringValue, intValue, "
                            "doubleValue, boolValue, arrayValue, kvlistValue or bytesValue)",
                            k);
    }
    at->n = depth;
    return rc;
}

static int
build_attrs(pp_spans_reader *r, pp_error *err)
{
    const json_t *arr = json_object_get(r->span, "attributes");
    r->cur.attr_count = 0;
    r->cur.attrs = NULL;
    r->scratch_len = 0;
    if (!arr || json_is_null(arr))
        return PP_OK;
    if (!json_is_array(arr))
        return pp_spans_bad(r, member_pos(r, "attributes"), PP_EFORMAT, err,
                            "expected \"attributes\" of span to be an array, found %s",
                            pp_spans_kind_name(arr));
    size_t count = json_array_size(arr);
    if (count == 0)
        return PP_OK;
    if (count > PP_SPANS_MAX_ATTRS)
        return pp_spans_bad(r, member_pos(r, "attributes"), PP_ELIMIT, err,
                            "span has %zu attributes, more than the limit %u", count,
                            (unsigned)PP_SPANS_MAX_ATTRS);
    if (count > r->attr_cap) {
        pp_span_attr *a = realloc(r->attrs, count * sizeof(*a));
        if (a)
            r->attrs = a;
        size_t *o = realloc(r->attr_off, count * sizeof(*o));
        if (o)
            r->attr_off = o;
        if (!a || !o) {
            pp_error_set(err, PP_ENOMEM, "out of memory reading span attributes");
            return PP_ENOMEM;
        }
        r->attr_cap = (uint32_t)count;
    }
    size_t i;
    const json_t *kv;
    span_path at;
    json_array_foreach(arr, i, kv) {
        at.n = 0;
        path_key(&at, "attributes");
        path_index(&at, i);
        if (!json_is_object(kv))
            return pp_spans_bad(r, resolve(r, &at), PP_EFORMAT, err,
                                "expected an attribute to be an object, found %s",
                                pp_spans_kind_name(kv));
        const json_t *key = json_object_get(kv, "key");
        if (!key || json_is_null(key))
            return pp_spans_bad(r, resolve(r, &at), PP_EFORMAT, err,
                                "expected member \"key\" (string) in attribute");
        if (!json_is_string(key)) {
            path_key(&at, "key");
            return pp_spans_bad(r, resolve(r, &at), PP_EFORMAT, err,
                                "expected \"key\" to be a string, found %s",
                                pp_spans_kind_name(key));
        }
        const json_t *val = json_object_get(kv, "value");
        r->attr_off[i] = r->scratch_len;
        path_key(&at, "value");
        int rc;
        if (val && !json_is_null(val) && (rc = value_text(r, val, &at, err)) < 0)
            return rc;
        if (scratch_put(r, "", 0) < 0) { /* NUL-terminate, even when empty */
            pp_error_set(err, PP_ENOMEM, "out of memory reading span attributes");
            return PP_ENOMEM;
        }
        r->scratch_len++;
        r->attrs[i].key = json_string_value(key);
    }
    /* The scratch buffer may have moved while growing: point in only now. */
    for (size_t j = 0; j < count; j++)
        r->attrs[j].value = r->scratch + r->attr_off[j];
    r->cur.attrs = r->attrs;
    r->cur.attr_count = (uint32_t)count;
    return PP_OK;
}

int
pp_spans_build(pp_spans_reader *r, pp_error *err)
{
    int rc;
    pp_span *p = &r->cur;
    memset(p, 0, sizeof(*p));
    p->struct_size = sizeof(*p);
    if (!json_is_object(r->span))
        return pp_spans_bad(r, r->span_pos, PP_EFORMAT, err,
                            "expected a span to be an object, found %s",
                            pp_spans_kind_name(r->span));
    if ((rc = get_string(r, "traceId", 1, &p->trace_id, err)) < 0 ||
        (rc = get_string(r, "spanId", 1, &p->span_id, err)) < 0 ||
        (rc = get_string(r, "parentSpanId", 0, &p->parent_span_id, err)) < 0 ||
        (rc = get_string(r, "name", 1, &p->name, err)) < 0 ||
        (rc = get_time(r, "startTimeUnixNano", &p->start_unix_ns, err)) < 0 ||
        (rc = get_time(r, "endTimeUnixNano", &p->end_unix_ns, err)) < 0)
        return rc;
    if (p->end_unix_ns < p->start_unix_ns)
        return pp_spans_bad(r, member_pos(r, "endTimeUnixNano"), PP_EFORMAT, err,
                            "endTimeUnixNano is before startTimeUnixNano");
    span_path at = { .n = 0 };
    const json_t *kind = json_object_get(r->span, "kind");
    path_key(&at, "kind");
    if (kind && !json_is_null(kind) &&
        (rc = get_enum(r, kind, &at, "kind", "SPAN_KIND_", kind_names, 6, &p->kind, err)) < 0)
        return rc;
    const json_t *status = json_object_get(r->span, "status");
    if (status && !json_is_null(status)) {
        if (!json_is_object(status))
            return pp_spans_bad(r, member_pos(r, "status"), PP_EFORMAT, err,
                                "expected \"status\" to be an object, found %s",
                                pp_spans_kind_name(status));
        const json_t *code = json_object_get(status, "code");
        at.n = 0;
        path_key(&at, "status");
        path_key(&at, "code");
        if (code && !json_is_null(code) &&
            (rc = get_enum(r, code, &at, "status.code", "STATUS_CODE_", status_names, 3, &p->status,
                           err)) < 0)
            return rc;
    }
    p->service = r->service ? r->service : "";
    return build_attrs(r, err);
}
