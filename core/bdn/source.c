/* The engine's view of a BenchmarkDotNet export (core/source.h): one
 * PP_KIND_BENCH record per benchmark case; the whole file is shown to the
 * content hash once, as it is read; a truncated export is read up to its
 * last whole benchmark and says where it stopped. */
#include "config.h"

#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "source.h"
#include "bdn/bdn.h"

typedef struct bdn_source {
    pp_bdn_reader *reader;
    pp_source_hooks hooks;
    int warned;
} bdn_source;

static int
bdn_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    bdn_source *s;
    char *buf;
    size_t len;
    int rc;

    *src = NULL;
    if ((rc = pp_bdn_read_file(path, &buf, &len, err)) != PP_OK)
        return rc;
    if (hooks != NULL && hooks->on_bytes != NULL && len > 0)
        hooks->on_bytes(hooks->user, buf, len);
    if ((s = calloc(1, sizeof *s)) == NULL) {
        free(buf);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    if (hooks != NULL)
        s->hooks = *hooks;
    if ((rc = pp_bdn_open_buffer(buf, len, path, &s->reader, err)) != PP_OK) {
        free(s);
        return rc;
    }
    *src = s;
    return PP_OK;
}

static int
bdn_next(void *p, pp_record *rec, pp_error *err)
{
    bdn_source *s = p;
    const pp_bench_result *b;
    int rc = pp_bdn_next(s->reader, &b, err);

    if (rc == 0 && !s->warned && pp_bdn_warning(s->reader) != NULL) {
        s->warned = 1;
        if (s->hooks.on_warning != NULL)
            s->hooks.on_warning(s->hooks.user, pp_bdn_warning(s->reader));
    }
    if (rc != 1)
        return rc;
    rec->struct_size = sizeof *rec;
    rec->kind = PP_KIND_BENCH;
    rec->input_index = 0;
    rec->reserved = 0;
    rec->u.bench = b;
    return 1;
}

static int
bdn_describe(void *p, json_t *into)
{
    bdn_source *s = p;
    int64_t cut = pp_bdn_truncated_at(s->reader);
    int rc = 0;

    rc |= json_object_set_new(into, "format",
                              json_string(pp_bdn_form(s->reader) == PP_BDN_FORM_CSV ?
                                              "benchmarkdotnet-csv" :
                                              "benchmarkdotnet-json"));
    rc |= json_object_set_new(into, "benchmarks",
                              json_integer((json_int_t)pp_bdn_count(s->reader)));
    rc |= json_object_set_new(into, "truncated_at", cut >= 0 ? json_integer(cut) : json_null());
    if (pp_bdn_version(s->reader)[0] != '\0')
        rc |= json_object_set_new(into, "benchmarkdotnet_version",
                                  json_string(pp_bdn_version(s->reader)));
    if (pp_bdn_title(s->reader)[0] != '\0')
        rc |= json_object_set_new(into, "title", json_string(pp_bdn_title(s->reader)));
    return rc == 0 ? PP_OK : PP_ENOMEM;
}

static void
bdn_close(void *p)
{
    bdn_source *s = p;

    if (s == NULL)
        return;
    pp_bdn_close(s->reader);
    free(s);
}

const pp_source_ops pp_bdn_source_ops = {
    .kind = "bench",
    .kind_bit = PP_KIND_BENCH,
    .open = bdn_open,
    .next = bdn_next,
    .describe = bdn_describe,
    .close = bdn_close,
};
