/* The counters reader as a pipeline source (kind "counters"). */
#include "config.h"

#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "input/source.h"
#include "counters/counters_private.h"

typedef struct counters_source {
    pp_counters_reader *reader;
    pp_counter_sample sample;
} counters_source;

static int
src_open(const char *path, const pp_source_hooks *hooks, void **out, pp_error *err)
{
    pp_counters_hooks h = { sizeof h, 0, NULL, NULL, NULL };
    counters_source *s = calloc(1, sizeof *s);
    int rc;

    if (s == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (hooks != NULL) {
        h.on_bytes = hooks->on_bytes;
        h.on_warning = hooks->on_warning;
        h.user = hooks->user;
    }
    rc = pp_counters_open(path, &h, &s->reader, err);
    if (rc != PP_OK) {
        free(s);
        return rc;
    }
    *out = s;
    return PP_OK;
}

static int
src_next(void *p, pp_record *rec, pp_error *err)
{
    counters_source *s = p;
    int rc = pp_counters_next(s->reader, &s->sample, err);

    if (rc != 1)
        return rc;
    rec->struct_size = sizeof *rec;
    rec->kind = PP_KIND_COUNTERS;
    rec->input_index = 0;
    rec->reserved = 0;
    rec->u.counter = &s->sample;
    return 1;
}

static int
src_describe(void *p, json_t *into)
{
    counters_source *s = p;
    const char *proc = pp_counters_target_process(s->reader);
    int rc = 0;

    rc |= json_object_set_new(into, "format",
                              json_string(pp_counters_format(s->reader) == PP_COUNTERS_FORMAT_JSON ?
                                              "dotnet-counters-json" :
                                              "dotnet-counters-csv"));
    rc |= json_object_set_new(into, "samples",
                              json_integer((json_int_t)pp_counters_sample_count(s->reader)));
    rc |= json_object_set_new(into, "truncated", json_boolean(pp_counters_truncated(s->reader)));
    if (proc[0] != '\0')
        rc |= json_object_set_new(into, "target_process", json_string(proc));
    return rc == 0 ? PP_OK : PP_ENOMEM;
}

static void
src_close(void *p)
{
    counters_source *s = p;

    if (s == NULL)
        return;
    pp_counters_close(s->reader);
    free(s);
}

const pp_source_ops pp_counters_source_ops = {
    .kind = "counters",
    .kind_bit = PP_KIND_COUNTERS,
    .open = src_open,
    .next = src_next,
    .describe = src_describe,
    .close = src_close,
};
