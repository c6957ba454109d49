/* The span export reader (include/perfpipe/spans.h): walks OTLP/JSON
 * documents (cursor.h) down to their span arrays and has jansson parse one
 * span at a time, so memory is the file's bytes plus one span's tree (and
 * the current resource's), never a parsed document: 50 MB of spans cost
 * about 1x the file, not the 25x a whole-document tree of tiny values did. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "spans/cursor.h"
#include "spans/reader_internal.h"
#include "spans/reader_state.h"

static int
bad_text(pp_spans_reader *r, const pp_jc_problem *pr, pp_error *err)
{
    return pp_spans_bad(r, pr->offset, pr->code, err, "%s", pr->what);
}

static int
reader_new(char *buf, size_t len, const char *name, pp_spans_reader **out, pp_error *err)
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
    r->text = (pp_jc_text){ buf, len, PP_SPANS_MAX_DEPTH, PP_SPANS_MAX_VALUE };
    r->truncated_at = -1;
    *out = r;
    return PP_OK;
}

int
pp_spans_open_buffer(char *buf, size_t len, const char *name, pp_spans_reader **out, pp_error *err)
{
    *out = NULL;
    return reader_new(buf, len, name, out, err);
}

int
pp_spans_open_memory(const void *data, size_t len, const char *name, pp_spans_reader **out,
                     pp_error *err)
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

int
pp_spans_read_file(const char *path, char **buf, size_t *len, pp_error *err)
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

int
pp_spans_open(const char *path, pp_spans_reader **out, pp_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = pp_spans_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    return reader_new(buf, len, path, out, err);
}

void
pp_spans_close(pp_spans_reader *r)
{
    if (!r)
        return;
    json_decref(r->resource);
    json_decref(r->span);
    free(r->buf);
    free(r->name);
    free(r->attrs);
    free(r->attr_off);
    free(r->scratch);
    free(r);
}

uint64_t
pp_spans_count(const pp_spans_reader *r)
{
    return r->spans;
}
uint64_t
pp_spans_documents(const pp_spans_reader *r)
{
    return r->documents;
}
uint32_t
pp_spans_form(const pp_spans_reader *r)
{
    return r->form;
}
int64_t
pp_spans_truncated_at(const pp_spans_reader *r)
{
    return r->truncated_at;
}

/* ---- the walk down to the spans -------------------------------------------- */

/* The type of the value at pos; a scalar is loaded (checked) for it. */
static int
value_type(pp_spans_reader *r, size_t pos, uint32_t *type, pp_error *err)
{
    pp_jc_problem pr;
    json_t *v;
    size_t end;
    *type = pp_jc_type(&r->text, pos);
    if (*type == PP_JC_OBJECT || *type == PP_JC_ARRAY)
        return PP_OK;
    if (pp_jc_load(&r->text, pos, &v, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    json_decref(v);
    return PP_OK;
}

/* Check a value the walk skipped and will not enter. */
static int
check_value(pp_spans_reader *r, size_t pos, pp_error *err)
{
    pp_jc_problem pr;
    json_t *v;
    size_t end;
    if (pos == SIZE_MAX)
        return PP_OK;
    if (pp_jc_load(&r->text, pos, &v, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    json_decref(v);
    return PP_OK;
}

/* Open the array member at pos into c, unless absent or null. `what`: for
 * the message, e.g. "\"spans\" of scopeSpans element". */
static int
open_array(pp_spans_reader *r, size_t pos, arr_cursor *c, const char *what, pp_error *err)
{
    pp_jc_problem pr;
    uint32_t type;
    int rc;
    c->open = 0;
    if (pos == SIZE_MAX)
        return PP_OK;
    if ((rc = value_type(r, pos, &type, err)) < 0)
        return rc;
    if (type == PP_JC_NULL)
        return PP_OK;
    if (type != PP_JC_ARRAY)
        return pp_spans_bad(r, pos, PP_EFORMAT, err, "expected %s to be an array, found %s", what,
                            pp_jc_type_name(type));
    if (pp_jc_array_open(&r->text, pos, &c->at, &pr) < 0)
        return bad_text(r, &pr, err);
    c->open = 1;
    c->first = 1;
    return PP_OK;
}

/* The service.name of a resource, "" if none. */
static void
resource_service(pp_spans_reader *r)
{
    size_t i;
    const json_t *kv;
    r->service = "";
    json_array_foreach(json_object_get(r->resource, "attributes"), i, kv) {
        const json_t *k = json_object_get(kv, "key");
        if (!json_is_string(k) || strcmp(json_string_value(k), "service.name") != 0)
            continue;
        const json_t *v = json_object_get(json_object_get(kv, "value"), "stringValue");
        if (json_is_string(v))
            r->service = json_string_value(v);
    }
}

static int
enter_resource_spans(pp_spans_reader *r, size_t elem, pp_error *err)
{
    static const char *const keys[] = { "resource", "scopeSpans", "instrumentationLibrarySpans" };
    pp_jc_problem pr;
    size_t vals[3], end;
    int rc;
    if (pp_jc_type(&r->text, elem) != PP_JC_OBJECT) {
        uint32_t type;
        if ((rc = value_type(r, elem, &type, err)) < 0)
            return rc;
        return pp_spans_bad(r, elem, PP_EFORMAT, err,
                            "expected a resourceSpans element to be an object, found %s",
                            pp_jc_type_name(type));
    }
    if (pp_jc_members(&r->text, elem, keys, 3, vals, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    r->rs.at = end;
    json_decref(r->resource);
    r->resource = NULL;
    r->service = "";
    if (vals[0] != SIZE_MAX) {
        if (pp_jc_load(&r->text, vals[0], &r->resource, &end, &pr) < 0)
            return bad_text(r, &pr, err);
        if (!json_is_null(r->resource) && !json_is_object(r->resource))
            return pp_spans_bad(r, vals[0], PP_EFORMAT, err,
                                "expected \"resource\" to be an object, found %s",
                                pp_spans_kind_name(r->resource));
        const json_t *attrs = json_object_get(r->resource, "attributes");
        if (attrs && !json_is_null(attrs) && !json_is_array(attrs))
            return pp_spans_bad(r, pp_jc_member_at(&r->text, vals[0], "attributes"), PP_EFORMAT,
                                err, "expected \"attributes\" of resource to be an array, found %s",
                                pp_spans_kind_name(attrs));
        resource_service(r);
    }
    if ((rc = open_array(r, vals[1], &r->ss, "\"scopeSpans\" of resourceSpans element", err)) < 0)
        return rc;
    if (r->ss.open)
        return check_value(r, vals[2], err);
    /* OTLP before 0.19 named it instrumentationLibrarySpans */
    return open_array(r, vals[2], &r->ss,
                      "\"instrumentationLibrarySpans\" of resourceSpans element", err);
}

static int
enter_scope_spans(pp_spans_reader *r, size_t elem, pp_error *err)
{
    static const char *const keys[] = { "spans" };
    pp_jc_problem pr;
    size_t val, end;
    int rc;
    if (pp_jc_type(&r->text, elem) != PP_JC_OBJECT) {
        uint32_t type;
        if ((rc = value_type(r, elem, &type, err)) < 0)
            return rc;
        return pp_spans_bad(r, elem, PP_EFORMAT, err,
                            "expected a scopeSpans element to be an object, found %s",
                            pp_jc_type_name(type));
    }
    if (pp_jc_members(&r->text, elem, keys, 1, &val, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    r->ss.at = end;
    return open_array(r, val, &r->sp, "\"spans\" of scopeSpans element", err);
}

/* The next top-level value: checked for nesting and closed brackets, then
 * positioned on its resourceSpans array. 0 = no more documents. */
static int
load_document(pp_spans_reader *r, pp_error *err)
{
    static const char *const keys[] = { "resourceSpans", "data" };
    pp_jc_problem pr;
    size_t pos = pp_jc_ws(&r->text, r->pos), doc_end, vals[2], end;
    uint32_t type;
    int rc;
    if (pos >= r->len) {
        r->pos = pos;
        return 0;
    }
    if (pp_jc_type(&r->text, pos) == PP_JC_NONE)
        return pp_spans_bad(r, pos, PP_EFORMAT, err, "expected a JSON value");
    if (pp_jc_skip(&r->text, pos, 0, &doc_end, &pr) < 0) {
        /* A stream of documents (one per line) whose last one runs off the
         * end was cut while being written: what came before is whole. */
        if (r->documents > 0 && pr.code == PP_EFORMAT && pr.offset >= r->len) {
            r->truncated_at = (int64_t)pos;
            r->pos = r->len;
            return 0;
        }
        return bad_text(r, &pr, err);
    }
    if ((rc = value_type(r, pos, &type, err)) < 0)
        return rc;
    r->pos = doc_end;
    r->documents++;
    if (type != PP_JC_OBJECT)
        return pp_spans_bad(
            r, pos, PP_EFORMAT, err,
            "expected an OTLP/JSON trace object {\"resourceSpans\": [...]} or an Aspire "
            "snapshot {\"data\": {\"resourceSpans\": [...]}}, found %s",
            pp_jc_type_name(type));
    if (pp_jc_members(&r->text, pos, keys, 2, vals, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    uint32_t form = PP_SPANS_FORM_OTLP;
    size_t rs = vals[0];
    if (rs == SIZE_MAX && vals[1] != SIZE_MAX && pp_jc_type(&r->text, vals[1]) == PP_JC_OBJECT) {
        static const char *const inner[] = { "resourceSpans" };
        form = PP_SPANS_FORM_ASPIRE;
        if (pp_jc_members(&r->text, vals[1], inner, 1, &rs, &end, &pr) < 0)
            return bad_text(r, &pr, err);
    } else if ((rc = check_value(r, vals[1], err)) < 0) {
        return rc;
    }
    if (rs == SIZE_MAX)
        return pp_spans_bad(
            r, pos, PP_EFORMAT, err,
            "expected an OTLP/JSON trace object {\"resourceSpans\": [...]} or an Aspire "
            "snapshot {\"data\": {\"resourceSpans\": [...]}}, found an object without "
            "\"resourceSpans\"");
    if ((rc = open_array(r, rs, &r->rs, "\"resourceSpans\"", err)) < 0)
        return rc;
    if (r->documents == 1)
        r->form = form;
    return 1;
}

/* The position of the next span, entering resourceSpans and scopeSpans
 * elements and documents as needed: 1 = *elem set, 0 = end of input. */
static int
next_span_pos(pp_spans_reader *r, size_t *elem, pp_error *err)
{
    pp_jc_problem pr;
    int rc;
    for (;;) {
        arr_cursor *c = r->sp.open ? &r->sp : r->ss.open ? &r->ss : r->rs.open ? &r->rs : NULL;
        if (!c) {
            if ((rc = load_document(r, err)) <= 0)
                return rc;
            continue;
        }
        size_t at;
        rc = pp_jc_array_next(&r->text, &c->at, c->first, &at, &pr);
        if (rc < 0)
            return bad_text(r, &pr, err);
        if (rc == 0) {
            c->open = 0;
            continue;
        }
        c->first = 0;
        if (c == &r->sp) {
            *elem = at;
            return 1;
        }
        rc = c == &r->ss ? enter_scope_spans(r, at, err) : enter_resource_spans(r, at, err);
        if (rc < 0)
            return rc;
    }
}

int
pp_spans_next(pp_spans_reader *r, const pp_span **span, pp_error *err)
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
    pp_jc_problem pr;
    size_t pos = 0, end;
    int rc = next_span_pos(r, &pos, err);
    if (rc <= 0)
        return rc;
    json_decref(r->span);
    r->span = NULL;
    r->span_pos = pos;
    if (pp_jc_load(&r->text, pos, &r->span, &end, &pr) < 0)
        return bad_text(r, &pr, err);
    r->sp.at = end;
    if ((rc = pp_spans_build(r, err)) < 0)
        return rc;
    r->spans++;
    *span = &r->cur;
    return 1;
}
