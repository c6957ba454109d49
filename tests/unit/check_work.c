/* core/result/work.c: the unit of work of a result document (WORK-CONTRACT.md). */
#include "config.h"

#include <check.h>
#include <math.h>
#include <string.h>
#include <jansson.h>

#include "result/result.h"
#include "result/work.h"

static json_t *
doc_of(const char *text)
{
    json_error_t je;
    json_t *d = json_loads(text, 0, &je);
    ck_assert_msg(d != NULL, "%s", je.text);
    return d;
}

/* A document written before "work" existed: derived from its inputs. */
START_TEST(derives_from_old_inputs)
{
    json_t *d = doc_of("{\"inputs\": [{\"nettrace\": {\"duration_ns\": 2500000000,"
                       " \"requests\": {\"started\": 41, \"completed\": 40}}}]}");
    pp_work w;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_work_of(d, &w, &err), PP_OK);
    ck_assert_str_eq(w.unit, "request");
    ck_assert_str_eq(w.requests_source, "hosting");
    ck_assert(w.requests == 40); /* completed: the work done inside the capture */
    ck_assert(fabs(w.seconds - 2.5) < 1e-12);
    ck_assert(w.operations < 0);
    ck_assert(pp_work_per(&w) == 40);
    json_decref(d);
}
END_TEST

START_TEST(seconds_without_requests_then_load)
{
    json_t *d = doc_of("{\"inputs\": [{\"nettrace\": {\"duration_ns\": 4000000000}}]}");
    pp_work w;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_work_of(d, &w, &err), PP_OK);
    ck_assert_str_eq(w.unit, "second");
    ck_assert(w.requests < 0 && w.requests_source == NULL);
    ck_assert(pp_work_per(&w) == 4);
    json_decref(d);
    /* a load tool's count beside a trace without Hosting events */
    d = doc_of(
        "{\"inputs\": [{\"nettrace\": {\"duration_ns\": 4000000000}},"
        " {\"load\": {\"tool\": \"wrk\", \"requests\": 812, \"duration_ns\": 20000000000}}]}");
    ck_assert_int_eq(pp_work_of(d, &w, &err), PP_OK);
    ck_assert_str_eq(w.unit, "request");
    ck_assert_str_eq(w.requests_source, "load:wrk");
    ck_assert(w.requests == 812 && w.seconds == 4);
    json_decref(d);
}
END_TEST

START_TEST(none_is_einval)
{
    json_t *d = doc_of("{\"inputs\": [{\"gcdump\": {}}]}");
    pp_work w;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_work_of(d, &w, &err), PP_EINVAL);
    ck_assert(w.unit == NULL);
    ck_assert(isnan(pp_work_per(&w)));
    ck_assert(strstr(err.message, "unit of work") != NULL);
    json_decref(d);
}
END_TEST

/* "work" written by core wins over the inputs, and round-trips. */
START_TEST(reads_written_work)
{
    json_t *d = doc_of("{\"work\": {\"unit\": \"operation\", \"requests\": null,"
                       " \"requests_source\": null, \"seconds\": 1.5, \"operations\": 1000},"
                       " \"inputs\": [{\"nettrace\": {\"duration_ns\": 9,"
                       " \"requests\": {\"started\": 3, \"completed\": 3}}}]}");
    pp_work w;
    pp_error err = PP_ERROR_INIT;

    ck_assert_int_eq(pp_work_of(d, &w, &err), PP_OK);
    ck_assert_str_eq(w.unit, "operation");
    ck_assert(pp_work_per(&w) == 1000 && w.requests < 0);
    json_t *again = pp_work_json(&w);
    ck_assert(json_equal(again, json_object_get(d, "work")));
    json_decref(again);
    json_decref(d);
}
END_TEST

START_TEST(attach_and_validate)
{
    json_t *d = pp_result_new("p");
    pp_error err = PP_ERROR_INIT;

    json_t *in = pp_result_add_input(d, "trace", "t.nettrace", "nettrace", 1, NULL, NULL);
    json_object_set_new(in, "nettrace", json_pack("{s:I}", "duration_ns", (json_int_t)3000000000));
    ck_assert_int_eq(pp_work_attach(d), PP_OK);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(d, "work"), "unit")),
                     "second");
    ck_assert_int_eq(pp_result_validate(d, &err), PP_OK);
    json_object_set_new(json_object_get(d, "work"), "unit", json_string("minute"));
    ck_assert_int_eq(pp_result_validate(d, &err), PP_EFORMAT);
    ck_assert(strstr(err.message, "/work/unit") != NULL);
    json_object_set_new(json_object_get(d, "work"), "unit", json_string("second"));
    json_object_set_new(json_object_get(d, "work"), "requests", json_integer(-1));
    ck_assert_int_eq(pp_result_validate(d, &err), PP_EFORMAT);
    ck_assert(strstr(err.message, "/work/requests") != NULL);
    json_decref(d);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("work");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, derives_from_old_inputs);
    tcase_add_test(tc, seconds_without_requests_then_load);
    tcase_add_test(tc, none_is_einval);
    tcase_add_test(tc, reads_written_work);
    tcase_add_test(tc, attach_and_validate);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
