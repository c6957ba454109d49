/* libFuzzer target: the load-test result reader (core/load), one target per
 * format: FUZZ_LOAD_PREFIX (set by fuzz/Makefile.inc) is put before the
 * fuzzer's bytes so the content sniff always picks that format's walk, and
 * the mutations explore it rather than the sniff. Reads every result and
 * touches every string and count. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"

#ifndef FUZZ_LOAD_PREFIX
#error FUZZ_LOAD_PREFIX must name the format's first bytes
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char prefix[] = FUZZ_LOAD_PREFIX;
    size_t np = sizeof prefix - 1, len = np + size;
    pp_error err = PP_ERROR_INIT;
    pp_load_reader *r = NULL;
    const pp_load_result *x;
    uint64_t sum = 0;
    char *buf = malloc(len + 1);

    if (buf == NULL)
        return 0;
    memcpy(buf, prefix, np);
    if (size > 0)
        memcpy(buf + np, data, size);
    buf[len] = '\0';
    if (pp_load_open_buffer(buf, len, "fuzz", &r, &err) != PP_OK) {
        if (strlen(err.message) == 0)
            abort(); /* a refusal always says why */
        return 0;
    }
    while (pp_load_next(r, &x, &err) == 1) {
        sum += strlen(x->tool) + strlen(x->tool_version) + strlen(x->format) + strlen(x->scope) +
               strlen(x->url) + strlen(x->method);
        if (x->status_count > PP_LOAD_MAX_COUNTS || x->error_kind_count > PP_LOAD_MAX_COUNTS ||
            x->threshold_count > PP_LOAD_MAX_COUNTS)
            abort();
        for (uint32_t i = 0; i < x->status_count; i++)
            sum += strlen(x->statuses[i].name) + (uint64_t)x->statuses[i].count;
        for (uint32_t i = 0; i < x->error_kind_count; i++)
            sum += strlen(x->error_kinds[i].name);
        for (uint32_t i = 0; i < x->threshold_count; i++)
            sum += strlen(x->thresholds[i].metric) + strlen(x->thresholds[i].expr);
        for (uint32_t i = 0; i < x->sample_count; i++)
            sum += isfinite(x->samples_ns[i]);
    }
    if (pp_load_run(r) == NULL || pp_load_scopes(r) == 0)
        abort(); /* an open reader has its run */
    (void)pp_load_truncated_at(r);
    (void)sum;
    pp_load_close(r);
    return 0;
}
