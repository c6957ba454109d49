/* The span-export reader under the verbs every reader shares (reader.h).
 * The whole input is read at open, so on_bytes sees it all then. The 0.1
 * names stay until the next soname. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/spans.h>

#include "spans/reader_internal.h"
#include "base/sized.h"

int
pp_spans_reader_open(const char *path, const pp_reader_hooks *hooks, pp_spans_reader **out,
                     pp_error *err)
{
    void (*on_bytes)(void *, const void *, size_t) = PP_READER_HOOK(hooks, on_bytes);
    char *buf;
    size_t len;
    int rc;

    *out = NULL;
    if ((rc = pp_spans_read_file(path, &buf, &len, err)) < 0)
        return rc;
    if (on_bytes != NULL)
        on_bytes(PP_READER_HOOK(hooks, user), buf, len);
    return pp_spans_open_buffer(buf, len, path, out, err); /* owns buf */
}

int
pp_spans_reader_open_memory(const void *data, size_t size, const char *name,
                            const pp_reader_hooks *hooks, pp_spans_reader **out, pp_error *err)
{
    void (*on_bytes)(void *, const void *, size_t) = PP_READER_HOOK(hooks, on_bytes);

    if (on_bytes != NULL)
        on_bytes(PP_READER_HOOK(hooks, user), data, size);
    return pp_spans_open_memory(data, size, name, out, err);
}

int
pp_spans_reader_next(pp_spans_reader *r, const pp_span **span, pp_error *err)
{
    return pp_spans_next(r, span, err);
}

void
pp_spans_reader_close(pp_spans_reader *r)
{
    pp_spans_close(r);
}

int
pp_spans_reader_get_info(const pp_spans_reader *r, pp_spans_info *out)
{
    pp_spans_info i;

    if (r == NULL || out == NULL || out->struct_size < sizeof out->struct_size)
        return PP_EINVAL;
    memset(&i, 0, sizeof i);
    i.struct_size = sizeof i;
    i.form = pp_spans_form(r);
    i.spans = pp_spans_count(r);
    i.documents = pp_spans_documents(r);
    pp_sized_copy(out, &i, sizeof i);
    return PP_OK;
}
