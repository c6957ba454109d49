/* libFuzzer target: the OpenTelemetry span reader (core/spans), through
 * the verbs of reader.h (pp_spans_reader_open_memory), reading every span
 * and touching every string. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/spans.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_error err = PP_ERROR_INIT;
    pp_spans_reader *r = NULL;
    if (pp_spans_reader_open_memory(data, size, "fuzz.json", NULL, &r, &err) < 0) {
        (void)strlen(err.message);
        return 0;
    }
    const pp_span *sp;
    int rc;
    uint64_t sum = 0;
    while ((rc = pp_spans_reader_next(r, &sp, &err)) == 1) {
        sum += strlen(sp->trace_id) + strlen(sp->span_id) + strlen(sp->parent_span_id) +
               strlen(sp->name) + strlen(sp->service);
        if (sp->attr_count > PP_SPANS_MAX_ATTRS)
            abort();
        for (uint32_t i = 0; i < sp->attr_count; i++)
            sum += strlen(sp->attrs[i].key) + strlen(sp->attrs[i].value);
    }
    if (rc < 0) {
        (void)strlen(err.message);
        pp_error err2 = PP_ERROR_INIT;
        if (pp_spans_reader_next(r, &sp, &err2) != rc)
            abort();
    }
    pp_spans_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (pp_spans_reader_get_info(r, &info) != PP_OK)
        abort();
    (void)sum;
    pp_spans_reader_close(r);
    return 0;
}
