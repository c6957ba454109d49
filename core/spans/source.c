/* The engine's view of a span export (core/input/source.h): one PP_KIND_SPANS
 * record per span, the whole file shown to the content hash once, as it is
 * read. */
#include <config.h>

#include <stdlib.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "input/source.h"
#include "spans/reader_internal.h"

typedef struct spans_source {
    pp_spans_reader *reader;
} spans_source;

static int
spans_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    char *buf;
    size_t len;
    *src = NULL;
    int rc = pp_spans_read_file(path, &buf, &len, err);
    if (rc < 0)
        return rc;
    if (hooks && hooks->on_bytes && len)
        hooks->on_bytes(hooks->user, buf, len);
    spans_source *s = calloc(1, sizeof(*s));
    if (!s) {
        free(buf);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    rc = pp_spans_open_buffer(buf, len, path, &s->reader, err);
    if (rc < 0) {
        free(s);
        return rc;
    }
    *src = s;
    return PP_OK;
}

static int
spans_next(void *src, pp_record *rec, pp_error *err)
{
    spans_source *s = src;
    const pp_span *span;
    int rc = pp_spans_next(s->reader, &span, err);
    if (rc <= 0)
        return rc;
    rec->struct_size = sizeof(*rec);
    rec->kind = PP_KIND_SPANS;
    rec->input_index = 0;
    rec->reserved = 0;
    rec->u.span = span;
    return 1;
}

static int
spans_describe(void *src, json_t *into)
{
    spans_source *s = src;
    uint32_t form = pp_spans_form(s->reader);
    const char *name = form == PP_SPANS_FORM_ASPIRE ? "aspire-json" :
                       form == PP_SPANS_FORM_OTLP   ? "otlp-json" :
                                                      "unknown";
    if (json_object_set_new(into, "format", json_string(name)) != 0 ||
        json_object_set_new(into, "spans", json_integer((json_int_t)pp_spans_count(s->reader))) !=
            0 ||
        json_object_set_new(into, "documents",
                            json_integer((json_int_t)pp_spans_documents(s->reader))) != 0)
        return PP_ENOMEM;
    return PP_OK;
}

static void
spans_close(void *src)
{
    spans_source *s = src;
    if (!s)
        return;
    pp_spans_close(s->reader);
    free(s);
}

static void
spans_damage(void *src, pp_source_damage *out)
{
    spans_source *s = src;
    out->truncated_at = pp_spans_truncated_at(s->reader);
}

const pp_source_ops pp_spans_source_ops = {
    .kind = "spans",
    .kind_bit = PP_KIND_SPANS,
    .open = spans_open,
    .next = spans_next,
    .describe = spans_describe,
    .close = spans_close,
    .damage = spans_damage,
};
