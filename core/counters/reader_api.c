/* The dotnet-counters reader under the verbs every reader shares
 * (reader.h): the shared hooks struct, a borrowed sample from next, the
 * getters in one info struct. The 0.1 names stay until the next soname. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "counters/counters_private.h"
#include "base/sized.h"

/* The 0.1 hooks struct has the shared one's layout; copy member by member
 * rather than cast, so neither depends on the other staying so. */
static const pp_counters_hooks *
to_counters_hooks(const pp_reader_hooks *hooks, pp_counters_hooks *h)
{
    if (hooks == NULL)
        return NULL;
    memset(h, 0, sizeof *h);
    h->struct_size = sizeof *h;
    h->on_bytes = PP_READER_HOOK(hooks, on_bytes);
    h->on_warning = PP_READER_HOOK(hooks, on_warning);
    h->user = PP_READER_HOOK(hooks, user);
    return h;
}

int
pp_counters_reader_open(const char *path, const pp_reader_hooks *hooks, pp_counters_reader **out,
                        pp_error *err)
{
    pp_counters_hooks h;

    return pp_counters_open(path, to_counters_hooks(hooks, &h), out, err);
}

int
pp_counters_reader_open_memory(const void *data, size_t size, const char *name,
                               const pp_reader_hooks *hooks, pp_counters_reader **out,
                               pp_error *err)
{
    pp_counters_hooks h;

    return pp_counters_open_memory(data, size, name, to_counters_hooks(hooks, &h), out, err);
}

int
pp_counters_reader_next(pp_counters_reader *r, const pp_counter_sample **sample, pp_error *err)
{
    int rc;

    memset(&r->api_sample, 0, sizeof r->api_sample);
    r->api_sample.struct_size = sizeof r->api_sample;
    rc = pp_counters_next(r, &r->api_sample, err);
    *sample = rc == 1 ? &r->api_sample : NULL;
    return rc;
}

void
pp_counters_reader_close(pp_counters_reader *r)
{
    pp_counters_close(r);
}

int
pp_counters_reader_get_info(const pp_counters_reader *r, pp_counters_info *out)
{
    pp_counters_info i;

    if (r == NULL || out == NULL || out->struct_size < sizeof out->struct_size)
        return PP_EINVAL;
    memset(&i, 0, sizeof i);
    i.struct_size = sizeof i;
    i.format = pp_counters_format(r);
    i.sample_count = pp_counters_sample_count(r);
    i.start_unix_ns = pp_counters_start_unix_ns(r);
    i.truncated = pp_counters_truncated(r);
    i.target_process = pp_counters_target_process(r);
    pp_sized_copy(out, &i, sizeof i);
    return PP_OK;
}
