/* engine/exact_sum.h against exact arithmetic: sums whose true value is known although
 * floating-point addition loses it (cancelling giants around a small term, the three
 * doubles nearest 0.1, 0.2 and -0.3, the smallest subnormal), and the same bits for any
 * order of the terms and any split into partial sums. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/exact_sum.h"

static double sum_of(const double *x, size_t n)
{
    exact_sum s;
    exact_sum_clear(&s);
    for (size_t i = 0; i < n; i++) exact_sum_add(&s, x[i]);
    return exact_sum_value(&s);
}

/* A small term between cancelling giants survives, whatever their sizes. */
static void test_cancelling_giants(void **state)
{
    (void)state;
    const double a[] = {1e300, 1.0, -1e300};
    assert_true(sum_of(a, 3) == 1.0); /* in double: (1e300 + 1) - 1e300 = 0 */
    const double b[] = {DBL_MAX, DBL_MAX, -DBL_MAX, -DBL_MAX, 3e-310}; /* past DBL_MAX midway */
    assert_true(sum_of(b, 5) == 3e-310);
    const double c[] = {1.0, ldexp(1.0, -80), -1.0};
    assert_true(sum_of(c, 3) == ldexp(1.0, -80));
    const double d[] = {-1.5, 0.25};
    assert_true(sum_of(d, 2) == -1.25);
    const double e[] = {4.9406564584124654e-324, 4.9406564584124654e-324};
    assert_true(sum_of(e, 2) == 2 * 4.9406564584124654e-324);
}

/* The doubles nearest 0.1, 0.2 and 0.3 are 3602879701896397 2^-55, 3602879701896397
 * 2^-54 and 5404319552844595 2^-54: 0.1 + 0.2 - 0.3 is exactly 2^-55. */
static void test_tenths(void **state)
{
    (void)state;
    assert_true(0.1 == 3602879701896397.0 * ldexp(1.0, -55));
    assert_true(0.3 == 5404319552844595.0 * ldexp(1.0, -54));
    const double x[] = {0.1, 0.2, -0.3};
    assert_true(sum_of(x, 3) == ldexp(1.0, -55));
    assert_true((0.1 + 0.2) - 0.3 != ldexp(1.0, -55)); /* what plain addition gives */
}

/* 10,000 terms of mixed signs and sizes (2^-60 to 2^60), summed forwards, backwards and
 * as 7 partial sums merged: the same bits each way; and equal to the sum of the terms'
 * exact pairing x + (-x) + y, y kept aside, which is y. */
static void test_any_order(void **state)
{
    (void)state;
    enum { N = 10000 };
    double *x = malloc(N * sizeof *x);
    srand(7);
    for (int i = 0; i < N; i++)
        x[i] = ldexp((double)rand() / RAND_MAX - 0.5, rand() % 121 - 60);
    double forward = sum_of(x, N);
    exact_sum back, part[7], merged;
    exact_sum_clear(&back);
    exact_sum_clear(&merged);
    for (int k = 0; k < 7; k++) exact_sum_clear(&part[k]);
    for (int i = N - 1; i >= 0; i--) exact_sum_add(&back, x[i]);
    for (int i = 0; i < N; i++) exact_sum_add(&part[(i * 31) % 7], x[i]);
    for (int k = 6; k >= 0; k--) exact_sum_merge(&merged, &part[k]);
    double backward = exact_sum_value(&back), split = exact_sum_value(&merged);
    assert_memory_equal(&forward, &backward, sizeof forward);
    assert_memory_equal(&forward, &split, sizeof forward);
    /* every term and its negative, shuffled, around 1/3: exactly the nearest double to 1/3 */
    double *y = malloc((2 * N + 1) * sizeof *y);
    for (int i = 0; i < N; i++) {
        y[2 * i] = x[i];
        y[2 * i + 1] = -x[(i * 7919) % N];
    }
    y[2 * N] = 1.0 / 3.0;
    assert_true(sum_of(y, 2 * N + 1) == 1.0 / 3.0);
    free(x);
    free(y);
}

static void test_not_finite(void **state)
{
    (void)state;
    const double x[] = {1.0, INFINITY, -INFINITY};
    assert_true(isnan(sum_of(x, 3)));
    const double y[] = {NAN};
    assert_true(isnan(sum_of(y, 1)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancelling_giants),
        cmocka_unit_test(test_tenths),
        cmocka_unit_test(test_any_order),
        cmocka_unit_test(test_not_finite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
