/* libFuzzer target: the dotnet-counters CSV/JSON reader (core/counters),
 * through the verbs of reader.h (pp_counters_reader_open_memory), reading every sample and touching every
 * string it hands out. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/counters.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
on_bytes(void *user, const void *d, size_t n)
{
    const uint8_t *p = d;
    uint64_t *sum = user;
    for (size_t i = 0; i < n; i++)
        *sum += p[i];
}

static void
on_warning(void *user, const pp_error *w)
{
    (void)user;
    (void)strlen(w->message);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader borrows the buffer: give it an exact-size copy, so a read
     * one past the end is an ASan report (libFuzzer's buffer is exact too,
     * but this keeps the target honest if that changes). */
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    uint64_t sum = 0;
    pp_reader_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, &sum };
    pp_error err = PP_ERROR_INIT;
    pp_counters_reader *r = NULL;
    if (pp_counters_reader_open_memory(copy, size, "fuzz", &hooks, &r, &err) < 0) {
        (void)strlen(err.message);
        free(copy);
        return 0;
    }
    const pp_counter_sample *s;
    int rc;
    unsigned long guard = 0;
    while ((rc = pp_counters_reader_next(r, &s, &err)) == 1) {
        sum += strlen(s->provider) + strlen(s->name) + strlen(s->tags) + strlen(s->unit);
        if (s->quantity)
            sum += strlen(s->quantity);
        if (++guard > 10u * 1000u * 1000u)
            abort(); /* more samples than bytes: a loop */
    }
    if (rc < 0) {
        (void)strlen(err.message);
        /* "After an error, further calls return the same error." */
        pp_error err2 = PP_ERROR_INIT;
        if (pp_counters_reader_next(r, &s, &err2) != rc)
            abort();
    }
    pp_counters_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (pp_counters_reader_get_info(r, &info) != PP_OK || info.target_process == NULL)
        abort();
    sum += strlen(info.target_process);
    pp_counters_reader_close(r);
    free(copy);
    return 0;
}
