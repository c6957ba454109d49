/* core/pipeline: loading, validating and checking declared pipelines.
 *
 * Error tests load one fixture from tests/pipelines/ each and assert the
 * exact "FILE:LINE:COLUMN: message"; the positions were checked by hand
 * against the fixture text (the fixture is the evidence). Analyzers are
 * fakes built here: descriptors only, with the option declarations and
 * input kinds real analyzers declare (alloc, cpu, gcdump-diff). */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "pipeline/pipeline.h"

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
static const pp_analyzer fake_cpu = {
    PP_ANALYZER_HEADER,
    .name = "cpu",
    .version = "1.0.0",
    .summary = "fake",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
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

static int lookups;

static const pp_analyzer *
lookup(void *user, const char *name, pp_error *err)
{
    (void)user;
    lookups++;
    if (strcmp(name, "alloc") == 0)
        return &fake_alloc;
    if (strcmp(name, "cpu") == 0)
        return &fake_cpu;
    if (strcmp(name, "gcdump-diff") == 0)
        return &fake_diff;
    pp_error_set(err, PP_ENOTFOUND, "no analyzer named '%s' (searched: test fakes)", name);
    return NULL;
}

/* The fixture's path, and the name messages show for it (relative to the
 * source dir, so expected strings do not depend on the checkout). */
static char fixture_path[4096];

static const char *
fixture(const char *name)
{
    const char *src = getenv("PP_SRCDIR");
    snprintf(fixture_path, sizeof fixture_path, "%s/tests/pipelines/%s", src ? src : TEST_SRCDIR,
             name);
    return fixture_path;
}

/* Load (then check) a fixture that must fail; returns the message with the
 * source-dir prefix removed and asserts the code. */
static char msg[PP_ERROR_MESSAGE_MAX];

static const char *
fails(const char *name, const pp_pipeline_vars *vars, int want_code, int at_check)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;
    const char *path = fixture(name);
    size_t plen = strlen(path) - strlen(name);
    int rc = pp_pipeline_load_file(path, vars, &p, &err);

    if (at_check) {
        ck_assert_msg(rc == PP_OK, "load %s: %s", name, err.message);
        rc = pp_pipeline_check(p, lookup, NULL, &err);
        pp_pipeline_free(p);
    } else {
        ck_assert_ptr_null(p);
    }
    ck_assert_int_eq(rc, want_code);
    ck_assert_int_eq(err.code, want_code);
    ck_assert_msg(strncmp(err.message, path, plen) == 0, "message lacks the file: %s", err.message);
    snprintf(msg, sizeof msg, "%s", err.message + plen);
    return msg;
}

#define D "2024-01-01"

START_TEST(error_empty)
{
    ck_assert_str_eq(fails("bad-empty.yaml", NULL, PP_EFORMAT, 0),
                     "bad-empty.yaml:1:1: empty pipeline; expected a mapping starting with "
                     "'version: 1'");
}
END_TEST

START_TEST(error_not_mapping)
{
    ck_assert_str_eq(fails("bad-not-mapping.yaml", NULL, PP_EFORMAT, 0),
                     "bad-not-mapping.yaml:1:1: expected a mapping at the top of the pipeline "
                     "(version, name, inputs, stages, ...), got a list");
}
END_TEST

START_TEST(error_syntax)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;
    ck_assert_str_eq(fails("bad-syntax.yaml", NULL, PP_EFORMAT, 0),
                     "bad-syntax.yaml:5:7: YAML syntax error: did not find expected ',' or '}' "
                     "(while parsing a flow mapping at 4:10)");
    /* err->line/column carry the position too. */
    pp_pipeline_load_file(fixture("bad-syntax.yaml"), NULL, &p, &err);
    ck_assert_uint_eq(err.line, 5);
    ck_assert_uint_eq(err.column, 7);
}
END_TEST

START_TEST(error_version_missing)
{
    ck_assert_str_eq(fails("bad-version-missing.yaml", NULL, PP_EINVAL, 0),
                     "bad-version-missing.yaml:1:1: missing 'version' in pipeline; expected "
                     "'version: 1'");
}
END_TEST

START_TEST(error_version_2)
{
    ck_assert_str_eq(fails("bad-version-2.yaml", NULL, PP_EINVAL, 0),
                     "bad-version-2.yaml:1:10: unsupported pipeline version '2'; this perfpipe "
                     "reads version 1");
}
END_TEST

START_TEST(error_unknown_key)
{
    ck_assert_str_eq(fails("bad-unknown-key.yaml", NULL, PP_EINVAL, 0),
                     "bad-unknown-key.yaml:5:1: unknown key 'stagse' in pipeline (did you mean "
                     "'stages'?); expected one of: version, name, description, knobs, inputs, "
                     "stages, outputs");
}
END_TEST

START_TEST(error_wrong_type)
{
    ck_assert_str_eq(fails("bad-wrong-type.yaml", NULL, PP_EINVAL, 0),
                     "bad-wrong-type.yaml:2:7: expected a scalar for 'name', got a mapping");
}
END_TEST

START_TEST(error_unknown_kind)
{
    ck_assert_str_eq(
        fails("bad-unknown-kind.yaml", NULL, PP_EINVAL, 0),
        "bad-unknown-kind.yaml:3:18: unknown input kind 'nettrac' (did you mean "
        "'nettrace'?); expected one of: nettrace, gcdump, counters, spans, bench, load");
}
END_TEST

START_TEST(error_unknown_format)
{
    ck_assert_str_eq(fails("bad-unknown-format.yaml", NULL, PP_EINVAL, 0),
                     "bad-unknown-format.yaml:7:15: unknown output format 'jsn' (did you mean "
                     "'json'?); expected one of: table, json, markdown, csv, html, "
                     "folded, speedscope, svg, pprof");
}
END_TEST

START_TEST(error_undeclared_input)
{
    ck_assert_str_eq(fails("bad-undeclared-input.yaml", NULL, PP_EINVAL, 0),
                     "bad-undeclared-input.yaml:6:12: stage 'alloc' reads input 'traec', which "
                     "is not declared under 'inputs' (did you mean 'trace'?); declared: trace");
}
END_TEST

START_TEST(error_duplicate_stage)
{
    ck_assert_str_eq(fails("bad-duplicate-stage.yaml", NULL, PP_EINVAL, 0),
                     "bad-duplicate-stage.yaml:7:9: duplicate stage id 'alloc' (first at 5:9)");
}
END_TEST

START_TEST(error_alias)
{
    ck_assert_str_eq(fails("bad-alias.yaml", NULL, PP_EFORMAT, 0),
                     "bad-alias.yaml:2:8: YAML anchors (&k) and aliases are not supported in "
                     "pipelines");
}
END_TEST

START_TEST(error_undefined_var)
{
    ck_assert_str_eq(fails("bad-undefined-var.yaml", NULL, PP_EINVAL, 0),
                     "bad-undefined-var.yaml:3:34: undefined variable ${TRACE} (give the file "
                     "with --input trace=PATH, or define it with --set TRACE=...)");
}
END_TEST

START_TEST(error_output_collision)
{
    ck_assert_str_eq(fails("bad-output-collision.yaml", NULL, PP_EINVAL, 0),
                     "bad-output-collision.yaml:8:26: output 2 writes to 'out/report', as "
                     "output 1 does (at 7:27)");
}
END_TEST

START_TEST(error_duplicate_key)
{
    ck_assert_str_eq(fails("bad-duplicate-key.yaml", NULL, PP_EFORMAT, 0),
                     "bad-duplicate-key.yaml:4:3: duplicate key 'trace' (first at 3:3)");
}
END_TEST

START_TEST(error_unknown_analyzer)
{
    ck_assert_str_eq(fails("bad-unknown-analyzer.yaml", NULL, PP_ENOTFOUND, 1),
                     "bad-unknown-analyzer.yaml:6:15: no analyzer named 'allocc' (searched: "
                     "test fakes)");
}
END_TEST

START_TEST(error_undeclared_option)
{
    ck_assert_str_eq(fails("bad-undeclared-option.yaml", NULL, PP_EINVAL, 1),
                     "bad-undeclared-option.yaml:8:7: analyzer 'alloc' has no option 'tpo' "
                     "(did you mean 'top'?); its options are: top, framework, signature, "
                     "min-share, group");
}
END_TEST

START_TEST(error_option_value)
{
    ck_assert_str_eq(fails("bad-option-value.yaml", NULL, PP_EINVAL, 1),
                     "bad-option-value.yaml:6:21: option 'top' expects an integer, got 'ten'");
}
END_TEST

START_TEST(error_option_mapping)
{
    ck_assert_str_eq(fails("bad-option-mapping.yaml", NULL, PP_EINVAL, 0),
                     "bad-option-mapping.yaml:7:18: expected a scalar for option 'framework' "
                     "(a scalar or a list of scalars), got a mapping");
}
END_TEST

START_TEST(error_input_kind)
{
    ck_assert_str_eq(fails("bad-input-kind.yaml", NULL, PP_EINVAL, 1),
                     "bad-input-kind.yaml:6:12: stage 'alloc': analyzer 'alloc' reads nettrace, "
                     "but input 'heap' is gcdump");
}
END_TEST

START_TEST(error_input_count)
{
    ck_assert_str_eq(fails("bad-input-count.yaml", NULL, PP_EINVAL, 1),
                     "bad-input-count.yaml:7:14: stage 'diff': analyzer 'gcdump-diff' takes 2 "
                     "inputs (baseline, candidate), got 1");
}
END_TEST

START_TEST(error_missing_file)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;
    ck_assert_int_eq(pp_pipeline_load_file("/nonexistent/x.yaml", NULL, &p, &err), PP_EIO);
    ck_assert_str_eq(err.message, "/nonexistent/x.yaml: cannot open: No such file or directory");
}
END_TEST

/* ---- valid pipelines ---------------------------------------------------- */

static const pp_pipeline_kv full_sets[] = { { "TRACE", "runs/a.nettrace" },
                                            { "items", "200" },
                                            { "host", "box1" } };

START_TEST(full_model)
{
    pp_pipeline_vars vars = { .sets = full_sets, .set_count = 3, .date = "20240101-120000" };
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;

    ck_assert_int_eq(pp_pipeline_load_file(fixture("full.yaml"), &vars, &p, &err), PP_OK);
    ck_assert_int_eq(p->version, 1);
    ck_assert_str_eq(p->name, "full-demo");
    ck_assert_str_eq(p->description, "All features in one pipeline");

    /* Knobs: file order, --set overrides in place, new --set appended. */
    ck_assert_uint_eq(p->knob_count, 5);
    ck_assert_str_eq(p->knobs[0].key, "scenario");
    ck_assert_str_eq(p->knobs[0].value, "getFullCart");
    ck_assert_uint_eq(p->knobs[0].pos.line, 6);
    ck_assert_uint_eq(p->knobs[0].pos.column, 10);
    ck_assert_int_eq(p->knobs[0].from_cli, 0);
    ck_assert_str_eq(p->knobs[1].key, "items");
    ck_assert_str_eq(p->knobs[1].value, "200");
    ck_assert_int_eq(p->knobs[1].from_cli, 1);
    ck_assert_str_eq(p->knobs[2].value, "50");
    ck_assert_str_eq(p->knobs[3].key, "TRACE");
    ck_assert_str_eq(p->knobs[4].key, "host");
    ck_assert_str_eq(pp_pipeline_knob_value(p, "host"), "box1");
    ck_assert_ptr_null(pp_pipeline_knob_value(p, "nope"));

    /* Inputs, expanded; $$ is a literal $. */
    ck_assert_uint_eq(p->input_count, 3);
    ck_assert_str_eq(p->inputs[0].name, "trace");
    ck_assert_str_eq(p->inputs[0].kind, "nettrace");
    ck_assert_uint_eq(p->inputs[0].kind_bit, PP_KIND_NETTRACE);
    ck_assert_str_eq(p->inputs[0].path, "runs/a.nettrace");
    ck_assert_uint_eq(p->inputs[0].pos.line, 8);
    ck_assert_uint_eq(p->inputs[0].pos.column, 3);
    ck_assert_uint_eq(p->inputs[0].path_pos.line, 8);
    ck_assert_uint_eq(p->inputs[0].path_pos.column, 34);
    ck_assert_str_eq(p->inputs[1].path, "heaps/getFullCart-before.gcdump");
    ck_assert_uint_eq(p->inputs[1].kind_bit, PP_KIND_GCDUMP);
    ck_assert_str_eq(p->inputs[2].path, "heaps/${literal}-after.gcdump");

    /* Stages. */
    ck_assert_uint_eq(p->stage_count, 2);
    pp_pipeline_stage *s = &p->stages[0];
    ck_assert_str_eq(s->id, "alloc");
    ck_assert_str_eq(s->analyzer_name, "alloc");
    ck_assert_uint_eq(s->input_count, 1);
    ck_assert_int_eq(s->inputs_is_list, 0);
    ck_assert_str_eq(s->inputs[0].name, "trace");
    ck_assert_uint_eq(s->option_count, 2);
    ck_assert_str_eq(s->options[0].name, "top");
    ck_assert_str_eq(s->options[0].value, "25");
    ck_assert_int_eq(s->options[1].is_list, 1);
    ck_assert_uint_eq(s->options[1].item_count, 2);
    ck_assert_str_eq(s->options[1].items[0], "System.");
    ck_assert_str_eq(s->options[1].items[1], "Microsoft.");
    ck_assert_uint_eq(s->options[1].item_pos[1].line, 17);
    ck_assert_uint_eq(s->options[1].item_pos[1].column, 46);
    s = &p->stages[1];
    ck_assert_str_eq(s->id, "heapdiff");
    ck_assert_int_eq(s->inputs_is_list, 1);
    ck_assert_uint_eq(s->input_count, 2);
    ck_assert_str_eq(s->inputs[0].name, "before");
    ck_assert_str_eq(s->inputs[1].name, "after");
    ck_assert_uint_eq(s->input_index[0], 1);
    ck_assert_uint_eq(s->input_index[1], 2);

    /* Outputs: stdout, then ${name}/${date} and a knob in paths. */
    ck_assert_uint_eq(p->output_count, 3);
    ck_assert_int_eq(p->outputs_defaulted, 0);
    ck_assert_str_eq(p->outputs[0].format, "table");
    ck_assert_ptr_null(p->outputs[0].path);
    ck_assert_str_eq(p->outputs[1].format, "json");
    ck_assert_str_eq(p->outputs[1].path, "evidence/full-demo-20240101-120000.json");
    ck_assert_str_eq(p->outputs[2].format, "markdown");
    ck_assert_str_eq(p->outputs[2].path, "evidence/getFullCart.md");

    /* Checked: typed options with defaults filled in. */
    ck_assert_int_eq(pp_pipeline_check(p, lookup, NULL, &err), PP_OK);
    ck_assert_int_eq(p->checked, 1);
    ck_assert_ptr_eq(p->stages[0].analyzer, &fake_alloc);
    int64_t top = 0;
    uint32_t n = 0;
    const char *item = NULL;
    int b = -1;
    double d = 0;
    ck_assert_int_eq(pp_options_int(p->stages[0].opts, "top", &top), PP_OK);
    ck_assert_int_eq(top, 25);
    ck_assert_int_eq(pp_options_list_count(p->stages[0].opts, "framework", &n), PP_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(pp_options_list_item(p->stages[0].opts, "framework", 1, &item), PP_OK);
    ck_assert_str_eq(item, "Microsoft.");
    ck_assert_int_eq(pp_options_bool(p->stages[0].opts, "signature", &b), PP_OK);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(pp_options_double(p->stages[0].opts, "min-share", &d), PP_OK);
    ck_assert(d == 0.5);
    ck_assert_int_eq(pp_options_int(p->stages[1].opts, "min-bytes", &top), PP_OK);
    ck_assert_int_eq(top, 1024);
    pp_pipeline_free(p);
}
END_TEST

/* --input replaces a path, whose ${...} then need not resolve; an option
 * override for the only stage ("*"), a list from the command line. */
START_TEST(input_override_and_cli_options)
{
    static const char text[] = "version: 1\n"
                               "inputs:\n"
                               "  trace: { kind: nettrace, path: \"${TRACE}\" }\n"
                               "stages:\n"
                               "  - analyzer: alloc\n"
                               "    options: { top: 5, framework: [A.] }\n";
    pp_pipeline_kv in[] = { { "trace", "/data/${weird}.nettrace" } };
    pp_pipeline_option_override ov[] = { { "*", "top", "10" },
                                         { "*", "framework", "System., Microsoft.,Foo" },
                                         { "alloc", "signature", "on" } };
    pp_pipeline_vars vars = { .inputs = in, .input_count = 1, .options = ov, .option_count = 3 };
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;
    int64_t top = 0;
    uint32_t n = 0;
    const char *item = NULL;
    int b = 0;

    ck_assert_int_eq(pp_pipeline_load_string("mem.yaml", text, sizeof text - 1, &vars, &p, &err),
                     PP_OK);
    ck_assert_str_eq(p->name, "mem"); /* defaulted from the display name */
    ck_assert_str_eq(p->inputs[0].path, "/data/${weird}.nettrace");
    ck_assert_int_eq(p->inputs[0].path_from_cli, 1);
    ck_assert_int_eq(p->outputs_defaulted, 1);
    ck_assert_str_eq(p->outputs[0].format, "table");
    ck_assert_str_eq(p->stages[0].id, "alloc");
    ck_assert_uint_eq(p->stages[0].input_count, 1); /* the only input, implied */
    ck_assert_int_eq(pp_pipeline_check(p, lookup, NULL, &err), PP_OK);
    ck_assert_int_eq(pp_options_int(p->stages[0].opts, "top", &top), PP_OK);
    ck_assert_int_eq(top, 10);
    ck_assert_int_eq(pp_options_list_count(p->stages[0].opts, "framework", &n), PP_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(pp_options_list_item(p->stages[0].opts, "framework", 1, &item), PP_OK);
    ck_assert_str_eq(item, "Microsoft.");
    ck_assert_int_eq(pp_options_bool(p->stages[0].opts, "signature", &b), PP_OK);
    ck_assert_int_eq(b, 1);
    pp_pipeline_free(p);
}
END_TEST

/* Issue #12 (fuzz): a names-only load (the shorthand) keeps an input that
 * has no path; the output/input collision check must skip it, not pass
 * NULL to strcmp (tests/malformed/pipeline/input-without-path.yaml). */
START_TEST(names_only_input_without_path)
{
    static const char text[] = "version: 1\n"
                               "inputs:\n"
                               "  trace: { kind: nettrace }\n"
                               "stages:\n"
                               "  - analyzer: alloc\n"
                               "outputs:\n"
                               "  - { format: json, path: out.json }\n";
    pp_pipeline_vars vars = { .names_only = 1 };
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;

    ck_assert_int_eq(pp_pipeline_load_string("mem.yaml", text, sizeof text - 1, &vars, &p, &err),
                     PP_OK);
    ck_assert_ptr_null(p->inputs[0].path);
    pp_pipeline_free(p);
}
END_TEST

START_TEST(cli_errors)
{
    static const char text[] = "version: 1\n"
                               "inputs:\n"
                               "  trace: { kind: nettrace, path: a.nettrace }\n"
                               "stages:\n"
                               "  - analyzer: alloc\n"
                               "  - analyzer: cpu\n";
    pp_pipeline_kv in[] = { { "trce", "x" } };
    pp_pipeline_option_override star[] = { { "*", "top", "10" } };
    pp_pipeline_option_override bad[] = { { "alloc", "top", "1x" } };
    pp_pipeline_vars v1 = { .inputs = in, .input_count = 1 };
    pp_pipeline_vars v2 = { .options = star, .option_count = 1 };
    pp_pipeline_vars v3 = { .options = bad, .option_count = 1 };
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;

    ck_assert_int_eq(pp_pipeline_load_string("m.yaml", text, sizeof text - 1, &v1, &p, &err),
                     PP_EINVAL);
    ck_assert_str_eq(err.message, "m.yaml: --input trce=...: the pipeline has no input 'trce'; "
                                  "its inputs are: trace");
    ck_assert_int_eq(pp_pipeline_load_string("m.yaml", text, sizeof text - 1, &v2, &p, &err),
                     PP_EINVAL);
    ck_assert_str_eq(err.message, "m.yaml: option 'top' from the command line: the pipeline "
                                  "has 2 stages, say which one (STAGE.top=VALUE)");
    ck_assert_int_eq(pp_pipeline_load_string("m.yaml", text, sizeof text - 1, &v3, &p, &err),
                     PP_OK);
    ck_assert_int_eq(pp_pipeline_check(p, lookup, NULL, &err), PP_EINVAL);
    ck_assert_str_eq(err.message, "m.yaml: option 'top' expects an integer, got '1x'");
    ck_assert_uint_eq(err.line, 0);
    pp_pipeline_free(p);
}
END_TEST

/* Limits: nesting and size are refused with PP_ELIMIT, aliases never
 * expand. */
START_TEST(limits)
{
    char deep[200];
    size_t k;
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;

    for (k = 0; k < 40; k++)
        deep[k] = '[';
    deep[k] = '\0';
    ck_assert_int_eq(pp_pipeline_load_string("deep.yaml", deep, k, NULL, &p, &err), PP_ELIMIT);
    ck_assert_str_eq(err.message, "deep.yaml:1:17: nesting deeper than 16 levels");

    size_t big = (1u << 20) + 1;
    char *text = malloc(big);
    ck_assert_ptr_nonnull(text);
    memset(text, '#', big);
    ck_assert_int_eq(pp_pipeline_load_string("big.yaml", text, big, NULL, &p, &err), PP_ELIMIT);
    ck_assert_str_eq(err.message, "big.yaml: pipeline file is larger than 1048576 bytes");
    free(text);

    static const char alias[] = "version: 1\nname: *x\n";
    ck_assert_int_eq(pp_pipeline_load_string("a.yaml", alias, sizeof alias - 1, NULL, &p, &err),
                     PP_EFORMAT);
    ck_assert_str_eq(err.message, "a.yaml:2:7: YAML aliases (*x) are not supported in pipelines");

    static const char two[] = "version: 1\n---\nversion: 1\n";
    ck_assert_int_eq(pp_pipeline_load_string("t.yaml", two, sizeof two - 1, NULL, &p, &err),
                     PP_EFORMAT);
    ck_assert_str_eq(err.message,
                     "t.yaml:2:1: a second YAML document; a pipeline file holds exactly one");
}
END_TEST

/* Every prefix of the full fixture either loads or fails with one
 * positioned message: no crash, no leak (ASan), never an empty message. */
START_TEST(prefixes)
{
    FILE *f = fopen(fixture("full.yaml"), "rb");
    char text[4096];
    size_t len, ok = 0, failed = 0;
    pp_pipeline_vars vars = { .sets = full_sets, .set_count = 1, .date = "d" };

    ck_assert_ptr_nonnull(f);
    len = fread(text, 1, sizeof text, f);
    fclose(f);
    ck_assert_uint_gt(len, 100);
    for (size_t k = 0; k <= len; k++) {
        pp_error err = PP_ERROR_INIT;
        pp_pipeline *p = NULL;
        int rc = pp_pipeline_load_string("full.yaml", text, k, &vars, &p, &err);
        if (rc == PP_OK) {
            ok++;
            pp_pipeline_free(p);
        } else {
            failed++;
            ck_assert_ptr_null(p);
            ck_assert_msg(strncmp(err.message, "full.yaml:", 10) == 0, "prefix %zu: %s", k,
                          err.message);
        }
    }
    /* The file is complete only near its end. */
    ck_assert_uint_gt(failed, len / 2);
    ck_assert_uint_ge(ok, 1);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *e = tcase_create("errors");
    TCase *v = tcase_create("valid");

    tcase_add_test(e, error_empty);
    tcase_add_test(e, error_not_mapping);
    tcase_add_test(e, error_syntax);
    tcase_add_test(e, error_version_missing);
    tcase_add_test(e, error_version_2);
    tcase_add_test(e, error_unknown_key);
    tcase_add_test(e, error_wrong_type);
    tcase_add_test(e, error_unknown_kind);
    tcase_add_test(e, error_unknown_format);
    tcase_add_test(e, error_undeclared_input);
    tcase_add_test(e, error_duplicate_stage);
    tcase_add_test(e, error_alias);
    tcase_add_test(e, error_undefined_var);
    tcase_add_test(e, error_output_collision);
    tcase_add_test(e, error_duplicate_key);
    tcase_add_test(e, error_unknown_analyzer);
    tcase_add_test(e, error_undeclared_option);
    tcase_add_test(e, error_option_value);
    tcase_add_test(e, error_option_mapping);
    tcase_add_test(e, error_input_kind);
    tcase_add_test(e, error_input_count);
    tcase_add_test(e, error_missing_file);
    tcase_add_test(e, limits);
    tcase_add_test(e, cli_errors);
    tcase_add_test(v, full_model);
    tcase_add_test(v, prefixes);
    tcase_add_test(v, input_override_and_cli_options);
    tcase_add_test(v, names_only_input_without_path);
    suite_add_tcase(s, e);
    suite_add_tcase(s, v);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
