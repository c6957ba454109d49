/* core/compare/compare_quantile.c: the bootstrap interval of a percentile
 * difference, which compare uses on per-request latencies (issue #36). */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <perfpipe/error.h>

#include "compare/compare_quantile.h"

/* Requests that take 1..n ms, in a scrambled order (the sort is ours). */
static void
fill(double *v, size_t n, double shift)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (double)((i * 37) % n) + 1 + shift;
}

/* A p95 that moved by 50 ms: the interval holds 50 and stays clear of 0. */
START_TEST(shift_is_inside_and_clear_of_zero)
{
    double x[400], y[400], lo, hi;

    fill(x, 400, 0);
    fill(y, 400, 50);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 400, y, 400, 95, 2000, 1, &lo, &hi), PP_OK);
    ck_assert_msg(lo <= 50 && 50 <= hi, "[%g, %g]", lo, hi);
    ck_assert_msg(lo > 25, "lo %g", lo);
    ck_assert(hi > lo);
}
END_TEST

/* The same requests on both sides: the interval holds 0 (no verdict),
 * and the same seed gives the same interval (reproducible verdicts). */
START_TEST(same_sample_holds_zero_and_repeats)
{
    double x[300], lo, hi, lo2, hi2;

    fill(x, 300, 0);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 300, x, 300, 95, 2000, 7, &lo, &hi), PP_OK);
    ck_assert_msg(lo <= 0 && 0 <= hi, "[%g, %g]", lo, hi);
    ck_assert_msg(lo < 0 && hi > 0, "resampling spreads: [%g, %g]", lo, hi);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 300, x, 300, 95, 2000, 7, &lo2, &hi2), PP_OK);
    ck_assert(lo == lo2 && hi == hi2);
    ck_assert(x[0] == 1); /* the inputs are not sorted in place */
}
END_TEST

/* Every resample of n equal values has that value as its quantile. */
START_TEST(constant_samples_are_exact)
{
    double x[50], y[80], lo, hi;

    for (int i = 0; i < 50; i++)
        x[i] = 3;
    for (int i = 0; i < 80; i++)
        y[i] = 5;
    ck_assert_int_eq(pp_quantile_diff_interval(x, 50, y, 80, 50, 500, 3, &lo, &hi), PP_OK);
    ck_assert(lo == 2 && hi == 2);
}
END_TEST

START_TEST(bad_arguments)
{
    double x[3] = { 1, 2, 3 }, lo, hi;

    ck_assert_int_eq(pp_quantile_diff_interval(x, 0, x, 3, 95, 2000, 1, &lo, &hi), PP_EINVAL);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 3, x, 3, 100, 2000, 1, &lo, &hi), PP_EINVAL);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 3, x, 3, 0, 2000, 1, &lo, &hi), PP_EINVAL);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 3, x, 3, NAN, 2000, 1, &lo, &hi), PP_EINVAL);
    ck_assert_int_eq(pp_quantile_diff_interval(x, 3, x, 3, 95, 10, 1, &lo, &hi), PP_EINVAL);
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("quantile");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, shift_is_inside_and_clear_of_zero);
    tcase_add_test(tc, same_sample_holds_zero_and_repeats);
    tcase_add_test(tc, constant_samples_are_exact);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
