/* core/result: the document builder, its validator and the human units. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"

/* The table wrappers of the stage under construction (result.h). */
static pp_table_set test_set;

static const pp_column by_type_cols[] = {
    { "type", PP_COL_STRING, 0 },
    { "ticks", PP_COL_COUNT, 0 },
    { "bytes", PP_COL_BYTES, 0 },
    { "share", PP_COL_PERCENT, 0 },
};

/* ---- units ---------------------------------------------------------------- */

#define FMT(fn, v) (fn(buf, sizeof buf, (v)), buf)

START_TEST(bytes_edges)
{
    char buf[64];

    ck_assert_str_eq(FMT(pp_format_bytes, 0), "0 B");
    ck_assert_str_eq(FMT(pp_format_bytes, 1), "1 B");
    ck_assert_str_eq(FMT(pp_format_bytes, 512), "512 B");
    ck_assert_str_eq(FMT(pp_format_bytes, 999), "999 B");
    ck_assert_str_eq(FMT(pp_format_bytes, 1000), "1.00 KB");
    ck_assert_str_eq(FMT(pp_format_bytes, 1234), "1.23 KB");
    ck_assert_str_eq(FMT(pp_format_bytes, 35400), "35.4 KB");
    ck_assert_str_eq(FMT(pp_format_bytes, 999499), "999 KB");
    /* 999.5 KB would print "1000 KB" at 3 digits: promoted. */
    ck_assert_str_eq(FMT(pp_format_bytes, 999500), "1.00 MB");
    ck_assert_str_eq(FMT(pp_format_bytes, 1210000000.0), "1.21 GB");
    ck_assert_str_eq(FMT(pp_format_bytes, 1e12), "1.00 TB");
    ck_assert_str_eq(FMT(pp_format_bytes, 85585496), "85.6 MB");
    ck_assert_str_eq(FMT(pp_format_bytes, 9995), "10.0 KB");
    ck_assert_str_eq(FMT(pp_format_bytes, 99950), "100 KB");
    /* Deltas are negative. */
    ck_assert_str_eq(FMT(pp_format_bytes, -35400), "-35.4 KB");
    ck_assert_str_eq(FMT(pp_format_bytes, -999), "-999 B");
    ck_assert_str_eq(FMT(pp_format_bytes, -0.2), "0 B");
    ck_assert_str_eq(FMT(pp_format_bytes, (double)INT64_MAX), "9.22 EB");
    ck_assert_str_eq(FMT(pp_format_bytes, NAN), "-");
    ck_assert_str_eq(FMT(pp_format_bytes, INFINITY), "-");
}
END_TEST

START_TEST(durations_edges)
{
    char buf[64];

    ck_assert_str_eq(FMT(pp_format_duration_ns, 0), "0 ns");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 12), "12 ns");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 999), "999 ns");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 1000), "1.00 us");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 850000), "850 us");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 35400000), "35.4 ms");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 1200000000), "1.20 s");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 3.6e12), "3600 s");
    ck_assert_str_eq(FMT(pp_format_duration_ns, 1e12), "1000 s");
    ck_assert_str_eq(FMT(pp_format_duration_ns, -2500000), "-2.50 ms");
}
END_TEST

START_TEST(counts_percent_timestamps)
{
    char buf[64];

    ck_assert_str_eq(FMT(pp_format_count, 0), "0");
    ck_assert_str_eq(FMT(pp_format_count, 999), "999");
    ck_assert_str_eq(FMT(pp_format_count, 1000), "1,000");
    ck_assert_str_eq(FMT(pp_format_count, 1234567), "1,234,567");
    ck_assert_str_eq(FMT(pp_format_count, -1234), "-1,234");
    ck_assert_str_eq(FMT(pp_format_count, INT64_MIN), "-9,223,372,036,854,775,808");
    ck_assert_str_eq(FMT(pp_format_percent, 12.345), "12.3%");
    ck_assert_str_eq(FMT(pp_format_percent, 0), "0.0%");
    ck_assert_str_eq(FMT(pp_format_percent, -0.01), "0.0%");
    ck_assert_str_eq(FMT(pp_format_percent, -3.25), "-3.2%");
    ck_assert_str_eq(FMT(pp_format_percent, 100), "100.0%");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, 1234500000), "1,234.5 ms");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, 0), "0.0 ms");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, 49999), "0.0 ms");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, 50000), "0.1 ms");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, 999950000), "1,000.0 ms");
    ck_assert_str_eq(FMT(pp_format_timestamp_ns, -1500000), "-1.5 ms");
    ck_assert_str_eq(FMT(pp_format_number, 0.98765), "0.9877");
    ck_assert_str_eq(FMT(pp_format_number, -0.0), "0");
    ck_assert_str_eq(FMT(pp_format_number, NAN), "-");
}
END_TEST

START_TEST(tiny_buffers)
{
    char one[1] = { 'x' }, four[4];

    pp_format_bytes(one, sizeof one, 123456);
    ck_assert_int_eq(one[0], '\0');
    pp_format_count(four, sizeof four, 1234567);
    ck_assert_str_eq(four, "1,2");
    pp_format_timestamp_ns(four, sizeof four, 1234500000);
    ck_assert_str_eq(four, "1,2");
}
END_TEST

/* ---- builder -------------------------------------------------------------- */

START_TEST(builds_document_shape)
{
    json_t *doc = pp_result_new("alloc");
    json_t *st, *in;
    pp_table *t;
    pp_cell row[4];
    pp_error err = PP_ERROR_INIT;

    ck_assert_ptr_nonnull(doc);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "format")), PP_RESULT_FORMAT);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(doc, "tool"), "version")),
                     pp_version());
    ck_assert_int_eq(pp_result_set_knob(doc, "items", "100"), PP_OK);
    in = pp_result_add_input(doc, "trace", "t.nettrace", "nettrace", 424402, "xxh3-128", "00ff");
    ck_assert_ptr_nonnull(in);
    ck_assert_int_eq(json_integer_value(json_object_get(in, "bytes")), 424402);
    st = pp_result_add_stage(doc, "alloc", "alloc", "1.0.0");
    ck_assert_ptr_nonnull(st);
    t = pp_result_table_new(&test_set, st, "by_type", 4, by_type_cols, 1, &err);
    ck_assert_msg(t != NULL, "%s", err.message);

    row[0] = pp_cell_str("System.String");
    row[1] = pp_cell_int(523);
    row[2] = pp_cell_int(INT64_MAX); /* exact, not through a double */
    row[3] = pp_cell_dbl(66.0);
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_OK);
    row[0] = pp_cell_null();
    row[1] = pp_cell_int(-1);
    row[2] = pp_cell_int(INT64_MIN);
    row[3] = pp_cell_dbl(NAN);
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_OK);
    row[3] = pp_cell_int(5); /* percent <- INT is allowed */
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_OK);

    ck_assert_int_eq(pp_result_finding(st, PP_SEVERITY_WARNING, "alloc.no_ticks", "none"), PP_OK);
    ck_assert_int_eq(pp_result_finding(st, 9, "x", "y"), PP_EINVAL);
    ck_assert_int_eq(pp_result_total_int(st, "sampled_bytes", PP_COL_BYTES, 86030176), PP_OK);
    ck_assert_int_eq(pp_result_total_double(st, "share", PP_COL_PERCENT, INFINITY), PP_OK);
    ck_assert_int_eq(pp_result_total_string(st, "note", "hi"), PP_OK);
    ck_assert_int_eq(pp_result_total_int(st, "bad", PP_COL_STRING, 1), PP_EINVAL);
    ck_assert_int_eq(pp_result_total_double(st, "bad", PP_COL_BYTES, 1.0), PP_EINVAL);

    {
        json_t *tj = json_array_get(json_object_get(st, "tables"), 0);
        json_t *rows = json_object_get(tj, "rows");
        ck_assert_int_eq(json_array_size(rows), 3);
        ck_assert(json_integer_value(json_array_get(json_array_get(rows, 0), 2)) == INT64_MAX);
        ck_assert(json_integer_value(json_array_get(json_array_get(rows, 1), 2)) == INT64_MIN);
        ck_assert(json_is_null(json_array_get(json_array_get(rows, 1), 0)));
        ck_assert(json_is_null(json_array_get(json_array_get(rows, 1), 3)));
        ck_assert_str_eq(json_string_value(json_array_get(json_object_get(tj, "key"), 0)), "type");
        ck_assert_str_eq(json_string_value(json_object_get(
                             json_array_get(json_object_get(tj, "columns"), 2), "type")),
                         "bytes");
    }
    ck_assert(json_is_null(
        json_object_get(json_object_get(json_object_get(st, "totals"), "share"), "value")));
    ck_assert_int_eq(pp_result_validate(doc, &err), PP_OK);

    /* Dumps and reloads to the same exact integers. */
    {
        char *s = json_dumps(doc, 0);
        json_t *back = json_loads(s, 0, NULL);
        ck_assert_ptr_nonnull(back);
        ck_assert(json_equal(doc, back));
        ck_assert_int_eq(pp_result_validate(back, &err), PP_OK);
        json_decref(back);
        free(s);
    }
    pp_result_tables_release(&test_set);
    pp_result_tables_release(&test_set); /* idempotent */
    json_decref(doc);
}
END_TEST

START_TEST(rejects_bad_cells_with_message)
{
    json_t *doc = pp_result_new("p");
    json_t *st = pp_result_add_stage(doc, "s", "a", NULL);
    pp_table *t = pp_result_table_new(&test_set, st, "by_type", 4, by_type_cols, 1, NULL);
    pp_cell row[4] = { pp_cell_str("x"), pp_cell_dbl(1.5), pp_cell_int(1), pp_cell_dbl(1) };
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_result_table_row(t, row, &err), PP_EINVAL);
    ck_assert_int_eq(err.code, PP_EINVAL);
    ck_assert_str_eq(
        err.message,
        "result table \"by_type\" row 0 column 1 (\"ticks\"): a count column cannot hold a double cell");
    ck_assert_str_eq(pp_result_table_error(t), err.message);
    row[1] = pp_cell_int(1);
    row[0] = pp_cell_int(7);
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_EINVAL);
    ck_assert_ptr_nonnull(
        strstr(pp_result_table_error(t), "a string column cannot hold a integer cell"));
    row[0] = pp_cell_str("x");
    row[3] = pp_cell_str("12%");
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_EINVAL);
    row[2] = pp_cell_null();
    row[3] = pp_cell_dbl(1.0);
    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_EINVAL);
    /* Nothing half-appended. */
    ck_assert_int_eq(
        json_array_size(json_object_get(json_array_get(json_object_get(st, "tables"), 0), "rows")),
        0);
    pp_result_tables_release(&test_set);
    json_decref(doc);
}
END_TEST

START_TEST(rejects_bad_tables)
{
    json_t *doc = pp_result_new("p");
    json_t *st = pp_result_add_stage(doc, "s", "a", "1");
    pp_error err = PP_ERROR_INIT;
    pp_column dup[2] = { { "a", PP_COL_COUNT, 0 }, { "a", PP_COL_BYTES, 0 } };
    pp_column badtype[1] = { { "a", 99, 0 } };

    ck_assert_ptr_null(pp_result_table_new(&test_set, st, "t", 2, dup, 1, &err));
    ck_assert_str_eq(err.message, "result table \"t\": column \"a\" appears twice");
    ck_assert_ptr_null(pp_result_table_new(&test_set, st, "t", 1, badtype, 0, &err));
    ck_assert_str_eq(err.message, "result table \"t\": column \"a\" has unknown type 99");
    ck_assert_ptr_null(pp_result_table_new(&test_set, st, "t", 4, by_type_cols, 5, &err));
    ck_assert_str_eq(err.message, "result table \"t\": 5 key columns but only 4 columns");
    ck_assert_ptr_null(pp_result_table_new(&test_set, st, "t", 0, by_type_cols, 0, &err));
    ck_assert_ptr_nonnull(pp_result_table_new(&test_set, st, "t", 4, by_type_cols, 1, &err));
    ck_assert_ptr_null(pp_result_table_new(&test_set, st, "t", 4, by_type_cols, 1, &err));
    ck_assert_str_eq(err.message, "result table \"t\": the stage already has a table of that name");
    pp_result_tables_release(&test_set);
    json_decref(doc);
}
END_TEST

START_TEST(invalid_utf8_is_replaced)
{
    json_t *doc = pp_result_new("p");
    json_t *st = pp_result_add_stage(doc, "s", "a", "1");
    pp_table *t = pp_result_table_new(&test_set, st, "by_type", 4, by_type_cols, 1, NULL);
    pp_cell row[4] = { pp_cell_str("ab\xff"
                                   "c\xc3"),
                       pp_cell_int(1), pp_cell_int(2), pp_cell_dbl(3) };
    json_t *cell;
    char *s;

    ck_assert_int_eq(pp_result_table_row(t, row, NULL), PP_OK);
    cell = json_array_get(
        json_array_get(json_object_get(json_array_get(json_object_get(st, "tables"), 0), "rows"),
                       0),
        0);
    ck_assert_str_eq(json_string_value(cell), "ab\xef\xbf\xbd"
                                              "c\xef\xbf\xbd");
    s = json_dumps(doc, 0);
    ck_assert_ptr_nonnull(s);
    free(s);
    pp_result_tables_release(&test_set);
    json_decref(doc);
}
END_TEST

START_TEST(column_type_names)
{
    for (uint32_t t = PP_COL_STRING; t <= PP_COL_NUMBER; t++)
        ck_assert_uint_eq(pp_column_type_from_name(pp_column_type_name(t)), t);
    ck_assert_uint_eq(pp_column_type_from_name("duration_ns"), PP_COL_DURATION_NS);
    ck_assert_uint_eq(pp_column_type_from_name("nope"), 0);
    ck_assert_ptr_null(pp_column_type_name(0));
    ck_assert_ptr_null(pp_column_type_name(8));
}
END_TEST

/* ---- validation ------------------------------------------------------------ */

static void
expect_invalid(const char *json, const char *message)
{
    json_error_t je;
    json_t *doc = json_loads(json, 0, &je);
    pp_error err = PP_ERROR_INIT;

    ck_assert_msg(doc != NULL, "test JSON does not parse: %s", je.text);
    ck_assert_int_eq(pp_result_validate(doc, &err), PP_EFORMAT);
    ck_assert_int_eq(err.code, PP_EFORMAT);
    ck_assert_str_eq(err.message, message);
    json_decref(doc);
}

#define HEAD "{\"format\":\"perfpipe-result/1\",\"tool\":{\"name\":\"perfpipe\",\"version\":\"0\"},"
#define TABLE_COLS                                                                                 \
    "\"columns\":[{\"name\":\"type\",\"type\":\"string\"},{\"name\":\"bytes\",\"type\":\"bytes\"}]"

START_TEST(validation_messages)
{
    expect_invalid(
        "[]", "not a perfpipe-result/1 document: the top level is an array, expected an object");
    expect_invalid(
        "{\"format\":\"perfpipe-result/2\",\"stages\":[]}",
        "not a perfpipe-result/1 document: \"format\" is \"perfpipe-result/2\" at /format");
    expect_invalid("{\"stages\":[]}",
                   "not a perfpipe-result/1 document: no \"format\" string at /format");
    expect_invalid(HEAD "\"inputs\":[]}",
                   "not a perfpipe-result/1 document: no \"stages\" array at /stages");
    expect_invalid(
        HEAD
        "\"inputs\":[{\"name\":\"t\",\"path\":\"p\",\"kind\":\"nettrace\",\"bytes\":\"12\"}],\"stages\":[]}",
        "not a perfpipe-result/1 document: input 0: \"bytes\" is a string, expected an integer at /inputs/0/bytes");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"tables\":[{\"name\":\"by_type\",\"key\":[\"type\"]," TABLE_COLS
        ",\"rows\":[[\"a\",1],[\"b\",2],[\"c\",3],[\"d\",\"4\"]]}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" table \"by_type\" row 3 column 1 (\"bytes\", bytes): a string, expected an integer at /stages/0/tables/0/rows/3/1");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"tables\":[{\"name\":\"by_type\",\"key\":[\"type\"]," TABLE_COLS
        ",\"rows\":[[\"a\",1.5]]}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" table \"by_type\" row 0 column 1 (\"bytes\", bytes): a real number, expected an integer at /stages/0/tables/0/rows/0/1");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"tables\":[{\"name\":\"by_type\",\"key\":[\"type\"]," TABLE_COLS
        ",\"rows\":[[\"a\"]]}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" table \"by_type\" row 0 has 1 cells, expected 2 at /stages/0/tables/0/rows/0");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"tables\":[{\"name\":\"by_type\",\"key\":[\"frame\"]," TABLE_COLS
        ",\"rows\":[]}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" table \"by_type\": key column \"frame\" is not a column at /stages/0/tables/0/key/0");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"tables\":[{\"name\":\"by_type\",\"key\":[],"
        "\"columns\":[{\"name\":\"x\",\"type\":\"gigawatts\"}],\"rows\":[]}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" table \"by_type\" column 0 (\"x\"): unknown type \"gigawatts\" at /stages/0/tables/0/columns/0/type");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"findings\":[{\"severity\":\"fatal\",\"code\":\"c\",\"message\":\"m\"}]}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" finding 0: severity \"fatal\" is not info, warning or error at /stages/0/findings/0/severity");
    expect_invalid(
        HEAD
        "\"stages\":[{\"id\":\"alloc\",\"analyzer\":{\"name\":\"alloc\"},\"totals\":{\"sampled\":{\"type\":\"bytes\",\"value\":1.5}}}]}",
        "not a perfpipe-result/1 document: stage \"alloc\" total \"sampled\" (bytes): value is a real number, expected an integer at /stages/0/totals/sampled/value");
    expect_invalid(
        HEAD "\"stages\":[{\"analyzer\":{\"name\":\"alloc\"}}]}",
        "not a perfpipe-result/1 document: stage 0 has no \"id\" string at /stages/0/id");
    expect_invalid(
        HEAD "\"stages\":[{\"id\":\"a\",\"analyzer\":{\"name\":\"alloc\"},\"status\":\"meh\"}]}",
        "not a perfpipe-result/1 document: stage \"a\": \"status\" must be \"ok\", \"partial\" or \"failed\" at /stages/0/status");
}
END_TEST

START_TEST(validation_accepts_minimal)
{
    json_t *doc = json_loads(HEAD "\"stages\":[]}", 0, NULL);
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_result_validate(doc, &err), PP_OK);
    json_decref(doc);
    ck_assert_int_eq(pp_result_validate(NULL, &err), PP_EFORMAT);
}
END_TEST

static Suite *
result_suite(void)
{
    Suite *s = suite_create("result");
    TCase *units = tcase_create("units");
    TCase *build = tcase_create("build");
    TCase *valid = tcase_create("validate");

    tcase_add_test(units, bytes_edges);
    tcase_add_test(units, durations_edges);
    tcase_add_test(units, counts_percent_timestamps);
    tcase_add_test(units, tiny_buffers);
    tcase_add_test(build, builds_document_shape);
    tcase_add_test(build, rejects_bad_cells_with_message);
    tcase_add_test(build, rejects_bad_tables);
    tcase_add_test(build, invalid_utf8_is_replaced);
    tcase_add_test(build, column_type_names);
    tcase_add_test(valid, validation_messages);
    tcase_add_test(valid, validation_accepts_minimal);
    suite_add_tcase(s, units);
    suite_add_tcase(s, build);
    suite_add_tcase(s, valid);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(result_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
