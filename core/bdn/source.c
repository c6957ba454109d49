/* The engine's view of a BenchmarkDotNet export (core/input/source.h): one
 * PP_KIND_BENCH record per benchmark case; the whole file is shown to the
 * content hash once, as it is read; a truncated export is read up to its
 * last whole benchmark and says where it stopped. */
#include "config.h"

#include <stdlib.h>

#include <perfpipe/perfpipe.h>

#include "input/source.h"
#include "base/textfile.h"
#include "bdn/bdn.h"

static int
bdn_open_buffer(char *buf, size_t len, const char *path, void **reader, pp_error *err)
{
    pp_bdn_reader *r = NULL;
    int rc = pp_bdn_open_buffer(buf, len, path, &r, err);

    *reader = r;
    return rc;
}

static int
bdn_next(void *reader, pp_record *rec, pp_error *err)
{
    const pp_bench_result *b;
    int rc = pp_bdn_next(reader, &b, err);

    if (rc == 1)
        rec->u.bench = b;
    return rc;
}

static const pp_error *
bdn_warning(const void *reader)
{
    return pp_bdn_warning(reader);
}

static void
bdn_close(void *reader)
{
    pp_bdn_close(reader);
}

static const pp_text_reader bdn_reader = {
    PP_KIND_BENCH, pp_bdn_read_file, bdn_open_buffer, bdn_next, bdn_warning, bdn_close,
};

static int
bdn_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    return pp_text_source_open(&bdn_reader, path, hooks, src, err);
}

static int
bdn_describe(void *p, json_t *into)
{
    const pp_bdn_reader *r = pp_text_source_reader(p);
    int64_t cut = pp_bdn_truncated_at(r);
    int rc = 0;

    rc |= json_object_set_new(into, "format",
                              json_string(pp_bdn_form(r) == PP_BDN_FORM_CSV ?
                                              "benchmarkdotnet-csv" :
                                              "benchmarkdotnet-json"));
    rc |= json_object_set_new(into, "benchmarks", json_integer((json_int_t)pp_bdn_count(r)));
    rc |= json_object_set_new(into, "truncated_at", cut >= 0 ? json_integer(cut) : json_null());
    if (pp_bdn_version(r)[0] != '\0')
        rc |= json_object_set_new(into, "benchmarkdotnet_version", json_string(pp_bdn_version(r)));
    if (pp_bdn_title(r)[0] != '\0')
        rc |= json_object_set_new(into, "title", json_string(pp_bdn_title(r)));
    return rc == 0 ? PP_OK : PP_ENOMEM;
}

const pp_source_ops pp_bdn_source_ops = {
    .kind = "bench",
    .kind_bit = PP_KIND_BENCH,
    .open = bdn_open,
    .next = pp_text_source_next,
    .describe = bdn_describe,
    .close = pp_text_source_close,
};
