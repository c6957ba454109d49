/* libFuzzer target: the .nettrace reader (core/nettrace), symbolizer included.
 *
 * The input is opened with pp_nettrace_reader_open_memory (reader.h), which
 * copies it into a memfd, so the reader maps it as it maps a real file.
 * Every event is read; each payload field is decoded by index; every stack
 * IP seen is kept (up to a cap) and symbolized after the end, with and
 * without signatures, as the analyzers do.
 *
 * Then the same bytes go through `perfpipe inspect` twice, serially and
 * split into a region per sequence point on two threads (the test knob
 * PERFPIPE_INSPECT_SPLIT=every): the documents, or the error codes and
 * messages, must be equal, else the target aborts (differential fuzzing
 * of inspect_par.c / region.c against the serial reader). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>

#include "nettrace/inspect.h"

#define MAX_IPS    4096u
#define MAX_FIELDS 64u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("PERFPIPE_INSPECT_SPLIT", "every", 1);
    return 0;
}

/* inspect serially and split: the same document or the same error. */
static void
inspect_both(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-inspect", MFD_CLOEXEC);
    char path[64];
    if (fd < 0)
        return;
    if (size > 0 && write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return;
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    json_t *doc[2] = { NULL, NULL };
    pp_error err[2] = { PP_ERROR_INIT, PP_ERROR_INIT };
    int rc[2];
    for (int i = 0; i < 2; i++)
        rc[i] = pp_nettrace_inspect_doc(path, i ? 2 : 1, &doc[i], &err[i]);
    close(fd);
    if (rc[0] != rc[1] || (rc[0] < 0 && strcmp(err[0].message, err[1].message) != 0))
        abort();
    if (rc[0] == PP_OK) {
        char *a = json_dumps(doc[0], JSON_SORT_KEYS), *b = json_dumps(doc[1], JSON_SORT_KEYS);
        if (!a || !b || strcmp(a, b) != 0)
            abort();
        free(a);
        free(b);
    }
    json_decref(doc[0]);
    json_decref(doc[1]);
}

static void
on_bytes(void *user, const void *d, size_t n)
{
    /* Touch every byte handed out, so ASan sees an out-of-range span. */
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
    pp_error err = PP_ERROR_INIT;
    pp_nettrace_reader *src = NULL;
    uint64_t sum = 0;
    pp_reader_hooks hooks = { sizeof hooks, 0, on_bytes, on_warning, &sum };
    if (pp_nettrace_reader_open_memory(data, size, "fuzz.nettrace", &hooks, &src, &err) < 0) {
        (void)strlen(err.message);
        inspect_both(data, size);
        return 0;
    }

    uint64_t *ips = calloc(MAX_IPS, sizeof *ips);
    uint32_t nips = 0;
    const pp_trace_event *ev;
    int rc;
    while ((rc = pp_nettrace_reader_next(src, &ev, &err)) == 1) {
        if (ev->provider)
            (void)strlen(ev->provider);
        if (ev->name)
            (void)strlen(ev->name);
        for (uint32_t i = 0; i < ev->payload_size; i++)
            sum += ev->payload[i];
        for (uint32_t i = 0; i < MAX_FIELDS; i++) {
            pp_value v;
            int frc = pp_nettrace_field_at(ev, i, &v);
            if (frc == PP_ENOTFOUND)
                break;
            if (frc == PP_OK && v.type == PP_VALUE_STRING)
                (void)strlen(v.v.s);
            else if (frc == PP_OK && v.type == PP_VALUE_BYTES && v.size)
                sum += v.v.bytes[v.size - 1];
        }
        pp_value v;
        (void)pp_nettrace_field(ev, "TypeName", &v);
        (void)pp_nettrace_field(ev, "MethodNamespace", &v);
        for (uint32_t i = 0; i < ev->stack_depth; i++) {
            if (ips && nips < MAX_IPS)
                ips[nips++] = ev->stack[i];
        }
    }
    if (rc < 0)
        (void)strlen(err.message);

    for (uint32_t i = 0; i < nips; i++) {
        (void)strlen(pp_nettrace_symbolize(src, ips[i], 0));
        (void)strlen(pp_nettrace_symbolize(src, ips[i], PP_SYM_SIGNATURE));
        /* Inside a method, and just past its start. */
        (void)strlen(pp_nettrace_symbolize(src, ips[i] + 1, 0));
    }
    pp_trace_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    (void)pp_nettrace_reader_get_info(src, &info);
    pp_nettrace_stats st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    (void)pp_nettrace_stats_get(src, &st);
    uint32_t pids[8];
    (void)pp_nettrace_process_ids(src, pids, 8);
    free(ips);
    pp_nettrace_reader_close(src);
    inspect_both(data, size);
    return 0;
}
