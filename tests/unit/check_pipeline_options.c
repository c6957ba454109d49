/* core/pipeline options: typed getters, declared defaults, value parsing,
 * and pp_options_build from command-line name/value pairs. The descriptor
 * is a fake with one option of every type. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "pipeline/options.h"

static const pp_option_decl decls[] = {
    { "top", PP_OPT_INT, 0, "25", "rows" },
    { "framework", PP_OPT_STRING_LIST, 0, "System., Microsoft.", "prefixes" },
    { "signature", PP_OPT_BOOL, 0, "no", "signatures" },
    { "threshold", PP_OPT_DOUBLE, 0, "0.25", "percent" },
    { "group", PP_OPT_STRING, 0, NULL, "grouping" },
};
static const pp_analyzer fake = {
    PP_ANALYZER_HEADER,
    .name = "fake",
    .version = "1",
    .summary = "fake",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = 1,
    .option_count = 5,
    .options = decls,
};

START_TEST(defaults)
{
    pp_options *o = NULL;
    pp_error err = PP_ERROR_INIT;
    int64_t i = 0;
    int b = -1;
    double d = 0;
    uint32_t n = 0;
    const char *s = NULL;

    ck_assert_int_eq(pp_options_build(&fake, NULL, 0, &o, &err), PP_OK);
    ck_assert_int_eq(pp_options_int(o, "top", &i), PP_OK);
    ck_assert_int_eq(i, 25);
    ck_assert_int_eq(pp_options_bool(o, "signature", &b), PP_OK);
    ck_assert_int_eq(b, 0);
    ck_assert_int_eq(pp_options_double(o, "threshold", &d), PP_OK);
    ck_assert(d == 0.25);
    ck_assert_int_eq(pp_options_list_count(o, "framework", &n), PP_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(pp_options_list_item(o, "framework", 1, &s), PP_OK);
    ck_assert_str_eq(s, "Microsoft."); /* blanks trimmed */
    ck_assert_int_eq(pp_options_list_item(o, "framework", 2, &s), PP_ENOTFOUND);
    /* No default: declared but unset. */
    ck_assert_int_eq(pp_options_string(o, "group", &s), PP_ENOTFOUND);
    ck_assert_int_eq(pp_options_is_set(o, "group"), 0);
    ck_assert_int_eq(pp_options_is_set(o, "top"), 1);
    /* Undeclared, or the wrong type: PP_EINVAL. */
    ck_assert_int_eq(pp_options_int(o, "nope", &i), PP_EINVAL);
    ck_assert_int_eq(pp_options_bool(o, "top", &b), PP_EINVAL);
    ck_assert_int_eq(pp_options_is_set(o, "nope"), PP_EINVAL);
    ck_assert_str_eq(pp_options_text(o, "framework"), "System.,Microsoft.");
    ck_assert_str_eq(pp_options_text(o, "signature"), "false");
    ck_assert_str_eq(pp_options_text(o, "top"), "25");
    ck_assert_ptr_null(pp_options_text(o, "group"));
    pp_options_free(o);
    /* A NULL options object has no values. */
    ck_assert_int_eq(pp_options_int(NULL, "top", &i), PP_ENOTFOUND);
}
END_TEST

START_TEST(pairs)
{
    const char *const kv[] = { "top",  "-3",    "signature", "ON",        "threshold",
                               "1e-3", "group", "type",      "framework", "" };
    pp_options *o = NULL;
    pp_error err = PP_ERROR_INIT;
    int64_t i = 0;
    int b = 0;
    double d = 0;
    uint32_t n = 9;
    const char *s = NULL;

    ck_assert_int_eq(pp_options_build(&fake, kv, 5, &o, &err), PP_OK);
    ck_assert_int_eq(pp_options_int(o, "top", &i), PP_OK);
    ck_assert_int_eq(i, -3);
    ck_assert_int_eq(pp_options_bool(o, "signature", &b), PP_OK);
    ck_assert_int_eq(b, 1);
    ck_assert_int_eq(pp_options_double(o, "threshold", &d), PP_OK);
    ck_assert(d == 1e-3);
    ck_assert_int_eq(pp_options_string(o, "group", &s), PP_OK);
    ck_assert_str_eq(s, "type");
    ck_assert_int_eq(pp_options_list_count(o, "framework", &n), PP_OK);
    ck_assert_uint_eq(n, 0); /* "" = the empty list */
    pp_options_free(o);
}
END_TEST

/* Each bad value names the option, the expected type and the text. */
START_TEST(bad_values)
{
    static const struct {
        const char *name, *value, *msg;
    } cases[] = {
        { "top", "10K", "option 'top' expects an integer, got '10K'" },
        { "top", " 1", "option 'top' expects an integer, got ' 1'" },
        { "top", "0x10", "option 'top' expects an integer, got '0x10'" },
        { "top", "99999999999999999999",
          "option 'top' expects an integer, got '99999999999999999999'" },
        { "signature", "maybe",
          "option 'signature' expects a bool (true/false, yes/no, on/off), got 'maybe'" },
        { "threshold", "nan", "option 'threshold' expects a number, got 'nan'" },
        { "threshold", "1e999", "option 'threshold' expects a number, got '1e999'" },
        { "tpo", "1",
          "analyzer 'fake' has no option 'tpo' (did you mean 'top'?); its options "
          "are: top, framework, signature, threshold, group" },
        { "xyz", "1",
          "analyzer 'fake' has no option 'xyz'; its options are: top, framework, "
          "signature, threshold, group" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *kv[2] = { cases[k].name, cases[k].value };
        pp_options *o = NULL;
        pp_error err = PP_ERROR_INIT;
        ck_assert_int_eq(pp_options_build(&fake, kv, 1, &o, &err), PP_EINVAL);
        ck_assert_ptr_null(o);
        ck_assert_str_eq(err.message, cases[k].msg);
    }
}
END_TEST

/* Settings from a file: positions in messages, lists as YAML sequences, a
 * comma in a scalar list value is refused, an option set twice. */
START_TEST(file_settings)
{
    const char *items[] = { "A.", "B." };
    pp_option_setting s[2];
    pp_options *o = NULL;
    pp_error err = PP_ERROR_INIT;
    const char *v = NULL;

    memset(s, 0, sizeof s);
    s[0] = (pp_option_setting){ .name = "framework",
                                .items = items,
                                .item_count = 2,
                                .from_file = 1,
                                .name_pos = { 3, 5 },
                                .value_pos = { 3, 16 } };
    ck_assert_int_eq(pp_options_build_settings(&fake, "p.yaml", s, 1, &o, &err), PP_OK);
    ck_assert_int_eq(pp_options_list_item(o, "framework", 1, &v), PP_OK);
    ck_assert_str_eq(v, "B.");
    pp_options_free(o);

    s[0] = (pp_option_setting){ .name = "framework",
                                .value = "A.,B.",
                                .from_file = 1,
                                .name_pos = { 3, 5 },
                                .value_pos = { 3, 16 } };
    ck_assert_int_eq(pp_options_build_settings(&fake, "p.yaml", s, 1, &o, &err), PP_EINVAL);
    ck_assert_str_eq(err.message, "p.yaml:3:16: option 'framework' expects a list; write it as "
                                  "a YAML list ([a, b]) rather than 'A.,B.'");
    ck_assert_uint_eq(err.line, 3);
    ck_assert_uint_eq(err.column, 16);

    s[0] = (pp_option_setting){ .name = "top",
                                .items = items,
                                .item_count = 2,
                                .from_file = 1,
                                .name_pos = { 4, 5 },
                                .value_pos = { 4, 10 } };
    ck_assert_int_eq(pp_options_build_settings(&fake, "p.yaml", s, 1, &o, &err), PP_EINVAL);
    ck_assert_str_eq(err.message,
                     "p.yaml:4:10: option 'top' expects a single int value, got a list");

    s[0] = (pp_option_setting){
        .name = "top", .value = "1", .from_file = 1, .name_pos = { 4, 5 }, .value_pos = { 4, 10 }
    };
    s[1] = (pp_option_setting){
        .name = "top", .value = "2", .from_file = 1, .name_pos = { 5, 5 }, .value_pos = { 5, 10 }
    };
    ck_assert_int_eq(pp_options_build_settings(&fake, "p.yaml", s, 2, &o, &err), PP_EINVAL);
    ck_assert_str_eq(err.message, "p.yaml:5:5: option 'top' is set twice (first at 4:5)");
}
END_TEST

/* A default that does not parse is the plugin's bug. */
START_TEST(bad_default)
{
    static const pp_option_decl bad[] = { { "n", PP_OPT_INT, 0, "many", "count" } };
    static const pp_analyzer broken = {
        PP_ANALYZER_HEADER,
        .name = "broken",
        .version = "1",
        .summary = "x",
        .input_kinds = PP_KIND_NETTRACE,
        .input_slot_count = 1,
        .option_count = 1,
        .options = bad,
    };
    pp_options *o = NULL;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_options_build(&broken, NULL, 0, &o, &err), PP_EPLUGIN);
    ck_assert_str_eq(err.message, "analyzer 'broken' has a bad default: option 'n' expects an "
                                  "integer, got 'many'");
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("pipeline_options");
    TCase *t = tcase_create("options");
    SRunner *sr;
    int failed;

    tcase_add_test(t, defaults);
    tcase_add_test(t, pairs);
    tcase_add_test(t, bad_values);
    tcase_add_test(t, file_settings);
    tcase_add_test(t, bad_default);
    suite_add_tcase(s, t);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
