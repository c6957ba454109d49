/* The span export reader (include/perfpipe/spans.h): walks OTLP/JSON
 * documents one top-level value at a time and turns each span into a
 * pp_span. Only the current document is held parsed, so NDJSON of any
 * length costs memory for one line plus the file bytes. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "spans/json.h"
#include "spans/reader_internal.h"

struct pp_spans_reader {
    char *buf;
    size_t len;
    char *name;
    size_t pos;                 /* where the next document starts */
    pp_json_doc doc;
    int have_doc;
    /* cursor inside the current document */
    const pp_json_node *rs;     /* current resourceSpans element */
    const pp_json_node *ss;     /* current scopeSpans element */
    const pp_json_node *span;   /* next span to deliver */
    const char *service;
    uint64_t spans;
    uint64_t documents;
    uint32_t form;
    int failed;                 /* sticky error code, 0 if none */
    pp_error failure;
    pp_span cur;
    pp_span_attr *attrs;
    size_t *attr_off;           /* scratch offsets while building attrs */
    uint32_t attr_cap;
    char *scratch;              /* text of non-string attribute values */
    size_t scratch_len;
    size_t scratch_cap;
};

/* Record a format error about `node` (or `offset` when node is NULL) and
 * make it sticky. */
static int bad(pp_spans_reader *r, const pp_json_node *node, size_t offset,
               int code, pp_error *err, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int bad(pp_spans_reader *r, const pp_json_node *node, size_t offset,
               int code, pp_error *err, const char *fmt, ...)
{
    char what[PP_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (node)
        offset = node->offset;
    uint32_t line, col;
    pp_json_locate(r->buf, r->len, offset, &line, &col);
    pp_error *e = &r->failure;
    *e = (pp_error)PP_ERROR_INIT;
    pp_error_set_at(e, code, (int64_t)offset, "%s:%u:%u: %s", r->name, (unsigned)line,
                    (unsigned)col, what);
    e->line = line;
    e->column = col;
    r->failed = code;
    if (err) {
        uint32_t size = err->struct_size;
        *err = *e;
        if (size)
            err->struct_size = size;
    }
    return code;
}

static int reader_new(char *buf, size_t len, const char *name, pp_spans_reader **out,
                      pp_error *err)
{
    pp_spans_reader *r = calloc(1, sizeof(*r));
    char *n = strdup(name ? name : "<memory>");
    if (!r || !n) {
        free(r);
        free(n);
        free(buf);
        pp_error_set(err, PP_ENOMEM, "out of memory opening span export");
        return PP_ENOMEM;
    }
    r->buf = buf;
    r->len = len;
    r->name = n;
    *out = r;
    return PP_OK;
}

int pp_spans_open_buffer(char *buf, size_t len, const char *name, pp_spans_reader **out,
                         pp_error *err)
{
    *out = NULL;
    return reader_new(buf, len, name, out, err);
}

int pp_spans_open_memory(const void *data, size_t len, const char *name,
                         pp_spans_reader **out, pp_error *err)
{
    *out = NULL;
    char *copy = malloc(len + 1);
    if (!copy) {
        pp_error_set(err, PP_ENOMEM, "out of memory copying %zu bytes of span export", len);
        return PP_ENOMEM;
    }
    if (len)
        memcpy(copy, data, len);
    copy[len] = '\0';
    return reader_new(copy, len, name, out, err);
}

int pp_spans_read_file(const char *path, char **buf, size_t *len, pp_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        pp_error_set(err, PP_EIO, "%s: not a regular file", path);
        return PP_EIO;
    }
    size_t size = (size_t)st.st_size;
    char *b = malloc(size + 1);
    if (!b) {
        fclose(f);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory reading %zu bytes", path, size);
        return PP_ENOMEM;
    }
    size_t got = fread(b, 1, size, f);
    int rerr = ferror(f);
    fclose(f);
    if (rerr || got != size) {
        free(b);
        pp_error_set(err, PP_EIO, "%s: read failed after %zu of %zu bytes", path, got, size);
        return PP_EIO;
    }
    b[size] = '\0';
    *buf = b;
    *len = size;
    return PP_OK;
}

int pp_spans_open(const char *path, pp_spans_reader **out, pp_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = pp_spans_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    return reader_new(buf, len, path, out, err);
}

void pp_spans_close(pp_spans_reader *r)
{
    if (!r)
        return;
    pp_json_doc_free(&r->doc);
    free(r->buf);
    free(r->name);
    free(r->attrs);
    free(r->attr_off);
    free(r->scratch);
    free(r);
}

uint64_t pp_spans_count(const pp_spans_reader *r) { return r->spans; }
uint64_t pp_spans_documents(const pp_spans_reader *r) { return r->documents; }
uint32_t pp_spans_form(const pp_spans_reader *r) { return r->form; }

/* ---- document structure ---------------------------------------------- */

/* The array member `key` of obj, or NULL when absent; an error when present
 * with another type (null counts as absent: some exporters write it). */
static int get_array(pp_spans_reader *r, const pp_json_node *obj, const char *key,
                     const char *where, const pp_json_node **out, pp_error *err)
{
    const pp_json_node *n = pp_json_get(&r->doc, obj, key);
    *out = NULL;
    if (!n || n->type == PP_JSON_NULL)
        return PP_OK;
    if (n->type != PP_JSON_ARRAY)
        return bad(r, n, 0, PP_EFORMAT, err, "expected \"%s\" of %s to be an array, found %s",
                   key, where, pp_json_type_name(n->type));
    *out = n;
    return PP_OK;
}

static int expect_object(pp_spans_reader *r, const pp_json_node *n, const char *what,
                         pp_error *err)
{
    if (n->type != PP_JSON_OBJECT)
        return bad(r, n, 0, PP_EFORMAT, err, "expected %s to be an object, found %s", what,
                   pp_json_type_name(n->type));
    return PP_OK;
}

/* Unsigned decimal text of at most 19 digits into int64. */
static int parse_u63(const char *s, size_t len, int64_t *out)
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

static int get_time(pp_spans_reader *r, const pp_json_node *span, const char *key,
                    int64_t *out, pp_error *err)
{
    const pp_json_node *n = pp_json_get(&r->doc, span, key);
    if (!n)
        return bad(r, span, 0, PP_EFORMAT, err, "expected member \"%s\" in span", key);
    if ((n->type != PP_JSON_STRING && n->type != PP_JSON_NUMBER) ||
        parse_u63(n->text, n->len, out) != 0)
        return bad(r, n, 0, PP_EFORMAT, err,
                   "expected \"%s\" to be unix nanoseconds (a string or integer of digits)", key);
    return PP_OK;
}

static int get_string(pp_spans_reader *r, const pp_json_node *obj, const char *key,
                      int required, const char *where, const char **out, pp_error *err)
{
    const pp_json_node *n = pp_json_get(&r->doc, obj, key);
    *out = "";
    if (!n || n->type == PP_JSON_NULL) {
        if (required)
            return bad(r, obj, 0, PP_EFORMAT, err, "expected member \"%s\" (string) in %s", key,
                       where);
        return PP_OK;
    }
    if (n->type != PP_JSON_STRING)
        return bad(r, n, 0, PP_EFORMAT, err, "expected \"%s\" to be a string, found %s", key,
                   pp_json_type_name(n->type));
    *out = n->text;
    return PP_OK;
}

/* An integer, or one of the enum names (matched after the given prefix,
 * case-insensitively, so "SPAN_KIND_SERVER" and "Server" both work). */
static int get_enum(pp_spans_reader *r, const pp_json_node *n, const char *key,
                    const char *prefix, const char *const *names, uint32_t nnames,
                    uint32_t *out, pp_error *err)
{
    if (n->type == PP_JSON_NUMBER) {
        int64_t v;
        if (parse_u63(n->text, n->len, &v) == 0 && v < (int64_t)nnames) {
            *out = (uint32_t)v;
            return PP_OK;
        }
    } else if (n->type == PP_JSON_STRING) {
        const char *s = n->text;
        size_t pl = strlen(prefix);
        if (strncasecmp(s, prefix, pl) == 0)
            s += pl;
        for (uint32_t i = 0; i < nnames; i++)
            if (strcasecmp(s, names[i]) == 0) {
                *out = i;
                return PP_OK;
            }
    }
    return bad(r, n, 0, PP_EFORMAT, err, "expected \"%s\" to be an integer 0..%u or a %s* name",
               key, (unsigned)(nnames - 1), prefix);
}

static const char *const kind_names[] = { "UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT",
                                          "PRODUCER", "CONSUMER" };
static const char *const status_names[] = { "UNSET", "OK", "ERROR" };

/* ---- attribute values --------------------------------------------------- */

static int scratch_put(pp_spans_reader *r, const char *s, size_t n)
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

static int value_text(pp_spans_reader *r, const pp_json_node *anyvalue, uint32_t depth,
                      pp_error *err);

/* Arrays render as [a, b]; kvlists as {k: v, ...}: readable, and nobody
 * matches on them. */
static int list_text(pp_spans_reader *r, const pp_json_node *list, int kv, uint32_t depth,
                     pp_error *err)
{
    const pp_json_node *values = pp_json_get(&r->doc, list, "values");
    int rc = scratch_put(r, kv ? "{" : "[", 1);
    if (rc == PP_OK && values && values->type == PP_JSON_ARRAY) {
        int firstv = 1;
        for (const pp_json_node *v = pp_json_first(&r->doc, values); v && rc == PP_OK;
             v = pp_json_next(&r->doc, v)) {
            if (!firstv)
                rc = scratch_put(r, ", ", 2);
            firstv = 0;
            const pp_json_node *val = v;
            if (kv) {
                const char *k = "";
                const pp_json_node *kn = pp_json_get(&r->doc, v, "key");
                if (kn && kn->type == PP_JSON_STRING)
                    k = kn->text;
                if (rc == PP_OK)
                    rc = scratch_put(r, k, strlen(k));
                if (rc == PP_OK)
                    rc = scratch_put(r, ": ", 2);
                val = pp_json_get(&r->doc, v, "value");
            }
            if (rc == PP_OK && val)
                rc = value_text(r, val, depth + 1, err);
        }
    }
    if (rc == PP_OK)
        rc = scratch_put(r, kv ? "}" : "]", 1);
    return rc;
}

static int value_text(pp_spans_reader *r, const pp_json_node *anyvalue, uint32_t depth,
                      pp_error *err)
{
    if (anyvalue->type != PP_JSON_OBJECT)
        return bad(r, anyvalue, 0, PP_EFORMAT, err,
                   "expected an attribute value object like {\"stringValue\": ...}, found %s",
                   pp_json_type_name(anyvalue->type));
    const pp_json_node *v = pp_json_first(&r->doc, anyvalue);
    if (!v)
        return PP_OK;   /* {} is an empty AnyValue */
    const char *k = v->key;
    if (strcmp(k, "stringValue") == 0 || strcmp(k, "bytesValue") == 0) {
        if (v->type != PP_JSON_STRING)
            return bad(r, v, 0, PP_EFORMAT, err, "expected \"%s\" to be a string", k);
        return scratch_put(r, v->text, v->len);
    }
    if (strcmp(k, "intValue") == 0 || strcmp(k, "doubleValue") == 0) {
        if (v->type != PP_JSON_STRING && v->type != PP_JSON_NUMBER)
            return bad(r, v, 0, PP_EFORMAT, err, "expected \"%s\" to be a number", k);
        return scratch_put(r, v->text, v->len);
    }
    if (strcmp(k, "boolValue") == 0) {
        if (v->type != PP_JSON_TRUE && v->type != PP_JSON_FALSE)
            return bad(r, v, 0, PP_EFORMAT, err, "expected \"boolValue\" to be true or false");
        return v->type == PP_JSON_TRUE ? scratch_put(r, "true", 4) : scratch_put(r, "false", 5);
    }
    if (strcmp(k, "arrayValue") == 0 || strcmp(k, "kvlistValue") == 0)
        return list_text(r, v, k[0] == 'k', depth, err);
    return bad(r, v, 0, PP_EFORMAT, err,
               "unknown attribute value type \"%s\" (expected stringValue, intValue, "
               "doubleValue, boolValue, arrayValue, kvlistValue or bytesValue)", k);
}

static int build_attrs(pp_spans_reader *r, const pp_json_node *span, pp_error *err)
{
    const pp_json_node *arr;
    int rc = get_array(r, span, "attributes", "span", &arr, err);
    r->cur.attr_count = 0;
    r->cur.attrs = NULL;
    r->scratch_len = 0;
    if (rc < 0 || !arr || arr->count == 0)
        return rc;
    if (arr->count > PP_SPANS_MAX_ATTRS)
        return bad(r, arr, 0, PP_ELIMIT, err, "span has %u attributes, more than the limit %u",
                   (unsigned)arr->count, (unsigned)PP_SPANS_MAX_ATTRS);
    if (arr->count > r->attr_cap) {
        pp_span_attr *a = realloc(r->attrs, arr->count * sizeof(*a));
        if (a)
            r->attrs = a;
        size_t *o = realloc(r->attr_off, arr->count * sizeof(*o));
        if (o)
            r->attr_off = o;
        if (!a || !o) {
            pp_error_set(err, PP_ENOMEM, "out of memory reading span attributes");
            return PP_ENOMEM;
        }
        r->attr_cap = arr->count;
    }
    uint32_t i = 0;
    for (const pp_json_node *kv = pp_json_first(&r->doc, arr); kv; kv = pp_json_next(&r->doc, kv)) {
        if ((rc = expect_object(r, kv, "an attribute", err)) < 0)
            return rc;
        const char *key;
        if ((rc = get_string(r, kv, "key", 1, "attribute", &key, err)) < 0)
            return rc;
        const pp_json_node *val = pp_json_get(&r->doc, kv, "value");
        r->attr_off[i] = r->scratch_len;
        if (val && val->type != PP_JSON_NULL && (rc = value_text(r, val, 0, err)) < 0)
            return rc;
        if ((rc = scratch_put(r, "", 0)) < 0) {   /* NUL-terminate, even when empty */
            pp_error_set(err, PP_ENOMEM, "out of memory reading span attributes");
            return PP_ENOMEM;
        }
        r->scratch_len++;
        r->attrs[i].key = key;
        i++;
    }
    /* The scratch buffer may have moved while growing: point in only now. */
    for (uint32_t j = 0; j < i; j++)
        r->attrs[j].value = r->scratch + r->attr_off[j];
    r->cur.attrs = r->attrs;
    r->cur.attr_count = i;
    return PP_OK;
}

/* The service.name of a resourceSpans element, "" if none. */
static int resource_service(pp_spans_reader *r, const pp_json_node *rs, const char **out,
                            pp_error *err)
{
    *out = "";
    const pp_json_node *res = pp_json_get(&r->doc, rs, "resource");
    if (!res || res->type == PP_JSON_NULL)
        return PP_OK;
    int rc = expect_object(r, res, "\"resource\"", err);
    const pp_json_node *attrs;
    if (rc < 0 || (rc = get_array(r, res, "attributes", "resource", &attrs, err)) < 0 || !attrs)
        return rc;
    for (const pp_json_node *kv = pp_json_first(&r->doc, attrs); kv; kv = pp_json_next(&r->doc, kv)) {
        const pp_json_node *k = pp_json_get(&r->doc, kv, "key");
        if (!k || k->type != PP_JSON_STRING || strcmp(k->text, "service.name") != 0)
            continue;
        const pp_json_node *v = pp_json_get(&r->doc, pp_json_get(&r->doc, kv, "value"), "stringValue");
        if (v && v->type == PP_JSON_STRING)
            *out = v->text;
    }
    return PP_OK;
}

/* ---- the cursor ------------------------------------------------------- */

/* Parse the next top-level value and position the cursor on its first
 * resourceSpans element. 0 = no more documents. */
static int load_document(pp_spans_reader *r, pp_error *err)
{
    pp_json_doc_free(&r->doc);
    r->have_doc = 0;
    r->rs = r->ss = r->span = NULL;
    pp_error perr = PP_ERROR_INIT;
    size_t pos = r->pos;
    int rc = pp_json_parse(&r->doc, r->buf, r->len, &pos, PP_SPANS_MAX_DEPTH, &perr);
    if (rc == PP_ENOTFOUND) {
        r->pos = pos;
        return 0;
    }
    if (rc == PP_ENOMEM) {
        pp_error_set(err, PP_ENOMEM, "%s: %s", r->name, perr.message);
        return rc;
    }
    if (rc < 0)
        return bad(r, NULL, perr.offset >= 0 ? (size_t)perr.offset : 0, rc, err,
                   "%s", perr.message);
    r->pos = pos;
    r->have_doc = 1;
    r->documents++;
    const pp_json_node *root = &r->doc.nodes[0];
    const pp_json_node *holder = root;
    uint32_t form = PP_SPANS_FORM_OTLP;
    const pp_json_node *data = pp_json_get(&r->doc, root, "data");
    if (root->type == PP_JSON_OBJECT && !pp_json_get(&r->doc, root, "resourceSpans") && data &&
        data->type == PP_JSON_OBJECT) {
        holder = data;
        form = PP_SPANS_FORM_ASPIRE;
    }
    const pp_json_node *rsa = pp_json_get(&r->doc, holder, "resourceSpans");
    if (root->type != PP_JSON_OBJECT || !rsa)
        return bad(r, root, 0, PP_EFORMAT, err,
                   "expected an OTLP/JSON trace object {\"resourceSpans\": [...]} or an Aspire "
                   "snapshot {\"data\": {\"resourceSpans\": [...]}}, found %s",
                   root->type == PP_JSON_OBJECT ? "an object without \"resourceSpans\""
                                                : pp_json_type_name(root->type));
    if (rsa->type != PP_JSON_ARRAY && rsa->type != PP_JSON_NULL)
        return bad(r, rsa, 0, PP_EFORMAT, err, "expected \"resourceSpans\" to be an array, found %s",
                   pp_json_type_name(rsa->type));
    if (r->documents == 1)
        r->form = form;
    r->rs = rsa->type == PP_JSON_ARRAY ? pp_json_first(&r->doc, rsa) : NULL;
    return 1;
}

/* Move to the next span to deliver, entering resourceSpans and scopeSpans
 * elements as needed. Sets r->span (NULL when the document is exhausted). */
static int advance(pp_spans_reader *r, pp_error *err)
{
    int rc;
    while (!r->span) {
        if (r->ss) {
            r->ss = pp_json_next(&r->doc, r->ss);
        } else if (r->rs) {
            /* entering a resourceSpans element */
            if ((rc = expect_object(r, r->rs, "a resourceSpans element", err)) < 0)
                return rc;
            if ((rc = resource_service(r, r->rs, &r->service, err)) < 0)
                return rc;
            const pp_json_node *ssa;
            if ((rc = get_array(r, r->rs, "scopeSpans", "resourceSpans element", &ssa, err)) < 0)
                return rc;
            /* OTLP before 0.19 named it instrumentationLibrarySpans */
            if (!ssa && (rc = get_array(r, r->rs, "instrumentationLibrarySpans",
                                        "resourceSpans element", &ssa, err)) < 0)
                return rc;
            r->ss = ssa ? pp_json_first(&r->doc, ssa) : NULL;
            if (!r->ss) {
                r->rs = pp_json_next(&r->doc, r->rs);
                continue;
            }
        } else {
            return PP_OK;   /* document done */
        }
        if (!r->ss) {       /* scopeSpans of this resource done */
            r->rs = pp_json_next(&r->doc, r->rs);
            continue;
        }
        if ((rc = expect_object(r, r->ss, "a scopeSpans element", err)) < 0)
            return rc;
        const pp_json_node *spans;
        if ((rc = get_array(r, r->ss, "spans", "scopeSpans element", &spans, err)) < 0)
            return rc;
        r->span = spans ? pp_json_first(&r->doc, spans) : NULL;
    }
    return PP_OK;
}

static int build_span(pp_spans_reader *r, const pp_json_node *s, pp_error *err)
{
    int rc;
    pp_span *p = &r->cur;
    memset(p, 0, sizeof(*p));
    p->struct_size = sizeof(*p);
    if ((rc = expect_object(r, s, "a span", err)) < 0 ||
        (rc = get_string(r, s, "traceId", 1, "span", &p->trace_id, err)) < 0 ||
        (rc = get_string(r, s, "spanId", 1, "span", &p->span_id, err)) < 0 ||
        (rc = get_string(r, s, "parentSpanId", 0, "span", &p->parent_span_id, err)) < 0 ||
        (rc = get_string(r, s, "name", 1, "span", &p->name, err)) < 0 ||
        (rc = get_time(r, s, "startTimeUnixNano", &p->start_unix_ns, err)) < 0 ||
        (rc = get_time(r, s, "endTimeUnixNano", &p->end_unix_ns, err)) < 0)
        return rc;
    if (p->end_unix_ns < p->start_unix_ns)
        return bad(r, pp_json_get(&r->doc, s, "endTimeUnixNano"), 0, PP_EFORMAT, err,
                   "endTimeUnixNano is before startTimeUnixNano");
    const pp_json_node *kind = pp_json_get(&r->doc, s, "kind");
    if (kind && kind->type != PP_JSON_NULL &&
        (rc = get_enum(r, kind, "kind", "SPAN_KIND_", kind_names, 6, &p->kind, err)) < 0)
        return rc;
    const pp_json_node *status = pp_json_get(&r->doc, s, "status");
    if (status && status->type != PP_JSON_NULL) {
        if ((rc = expect_object(r, status, "\"status\"", err)) < 0)
            return rc;
        const pp_json_node *code = pp_json_get(&r->doc, status, "code");
        if (code && code->type != PP_JSON_NULL &&
            (rc = get_enum(r, code, "status.code", "STATUS_CODE_", status_names, 3, &p->status,
                           err)) < 0)
            return rc;
    }
    p->service = r->service ? r->service : "";
    return build_attrs(r, s, err);
}

int pp_spans_next(pp_spans_reader *r, const pp_span **span, pp_error *err)
{
    *span = NULL;
    if (r->failed) {
        if (err) {
            uint32_t size = err->struct_size;
            *err = r->failure;
            if (size)
                err->struct_size = size;
        }
        return r->failed;
    }
    int rc;
    for (;;) {
        if (r->have_doc && (rc = advance(r, err)) < 0)
            return rc;
        if (r->have_doc && r->span)
            break;
        rc = load_document(r, err);
        if (rc <= 0)
            return rc;
    }
    const pp_json_node *s = r->span;
    r->span = pp_json_next(&r->doc, s);
    if ((rc = build_span(r, s, err)) < 0)
        return rc;
    r->spans++;
    *span = &r->cur;
    return 1;
}
