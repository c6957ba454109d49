/* libFuzzer target: the YAML pipeline loader (core/pipeline):
 * pp_pipeline_load_string, then pp_pipeline_check against fake analyzers
 * declaring every option type and both input shapes (one slot, two named
 * slots), as the real alloc, cpu and gcdump-diff do. Loads twice: once
 * expanding variables (with --set/--input/option overrides, fixed date) and
 * once names_only, the two modes the CLI uses. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "pipeline/pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const pp_option_decl alloc_opts[] = {
    { "top", PP_OPT_INT, 0, "25", "rows per table" },
    { "framework", PP_OPT_STRING_LIST, 0, "System.,Microsoft.", "framework prefixes" },
    { "signature", PP_OPT_BOOL, 0, "false", "print method signatures" },
    { "min-share", PP_OPT_DOUBLE, 0, "0.5", "hide rows below this percent" },
    { "group", PP_OPT_STRING, 0, NULL, "group rows by" },
};
static const pp_analyzer fake_alloc = {
    PP_ANALYZER_HEADER,
    .name = "alloc",
    .version = "1.0.0",
    .summary = "fake",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .option_count = 5,
    .options = alloc_opts,
};
static const pp_analyzer fake_counters = {
    PP_ANALYZER_HEADER, .name = "counters-csv",          .version = "1.0.0",
    .summary = "fake",  .input_kinds = PP_KIND_COUNTERS, .input_slot_count = 1,
};
static const char *const diff_slots[] = { "baseline", "candidate" };
static const pp_option_decl diff_opts[] = {
    { "min-bytes", PP_OPT_INT, 0, "0", "hide smaller deltas" },
};
static const pp_analyzer fake_diff = {
    PP_ANALYZER_HEADER,
    .name = "gcdump-diff",
    .version = "1.0.0",
    .summary = "fake",
    .input_kinds = PP_KIND_GCDUMP,
    .input_slot_count = 2,
    .input_slots = diff_slots,
    .option_count = 1,
    .options = diff_opts,
};

static const pp_analyzer *
lookup(void *user, const char *name, pp_error *err)
{
    (void)user;
    if (strcmp(name, "alloc") == 0)
        return &fake_alloc;
    if (strcmp(name, "counters-csv") == 0)
        return &fake_counters;
    if (strcmp(name, "gcdump-diff") == 0)
        return &fake_diff;
    pp_error_set(err, PP_ENOTFOUND, "no analyzer named '%s'", name);
    return NULL;
}

static void
one(const char *text, size_t len, const pp_pipeline_vars *vars)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;
    int rc = pp_pipeline_load_string("fuzz.yaml", text, len, vars, &p, &err);
    if (rc < 0) {
        (void)strlen(err.message);
        if (p)
            abort(); /* failure must not hand out a pipeline */
        return;
    }
    rc = pp_pipeline_check(p, lookup, NULL, &err);
    if (rc < 0)
        (void)strlen(err.message);
    for (uint32_t i = 0; i < p->knob_count; i++)
        (void)pp_pipeline_knob_value(p, p->knobs[i].key);
    for (uint32_t i = 0; i < p->input_count; i++)
        (void)pp_pipeline_find_input(p, p->inputs[i].name);
    pp_pipeline_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const pp_pipeline_kv sets[] = { { "TRACE", "/tmp/x.nettrace" }, { "items", "7" } };
    static const pp_pipeline_kv inputs[] = { { "trace", "/tmp/y.nettrace" } };
    static const pp_pipeline_option_override opts[] = { { "*", "top", "3" } };
    pp_pipeline_vars full = { sets, 2, inputs, 1, opts, 1, "2026-01-01", 0 };
    pp_pipeline_vars names = { NULL, 0, NULL, 0, NULL, 0, "2026-01-01", 1 };

    one((const char *)data, size, &full);
    one((const char *)data, size, &names);
    one((const char *)data, size, NULL);
    return 0;
}
