/* Restitution calibration (models/calibrate.c) and Zhang et al.'s law (models/zhang.c),
 * checked by binary collisions through the engine: against the requested restitution,
 * against Zhang's dimensionless equation integrated here, and against the paper's own
 * accuracy claim. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/collide/collision.h"
#include "collision_helpers.h"
#include "models/calibrate.h"
#include "models/zhang.h"

static const double requested[] = {0.1, 0.3, 0.5, 0.7, 0.9, 0.95};
#define N_REQUESTED (sizeof requested / sizeof requested[0])

static collision_spec spec_for(const char *law_name, double e, int cohesion_removal)
{
    const dem_law *law = law_find(law_name);
    if (!law) print_error("law %s is not registered\n", law_name);
    assert_non_null(law);
    collision_spec sp;
    collision_defaults(&sp, law);
    set_param(&sp, "restitution", e);
    sp.cohesion_removal = cohesion_removal;
    return sp;
}

/* Every law with a damping coefficient, both cohesion settings, e in [0.1, 0.95]: the
 * engine's collision restitutes the requested e within 0.2%. */
static void test_calibration_restitutes_requested_e(void **state)
{
    int n_laws = 0;
    double worst = 0.0;
    for (int k = 0; k < law_count(); k++) {
        const dem_law *law = law_at(k);
        if (!law->calibration) continue;
        n_laws++;
        for (int cohesion = 0; cohesion <= 1; cohesion++)
            for (size_t q = 0; q < N_REQUESTED; q++) {
                collision_spec sp = spec_for(law->name, requested[q], cohesion);
                sp.calibrate = true;
                collision_result r = collide(&sp);
                double err = rel(r.restitution_out, requested[q]);
                worst = fmax(worst, err);
                if (err > 2e-3)
                    print_error("%s, cohesion removal %d, e = %g: restitutes %.6f (%s = %g)\n",
                                law->name, cohesion, requested[q], r.restitution_out,
                                law->calibration->coefficient, r.calibrated_value);
                assert_true(err <= 2e-3);
                assert_true(isfinite(r.calibrated_value) && r.calibrated_value > 0.0);
            }
    }
    print_message("calibrated %d laws; worst relative restitution error %.2e\n", n_laws, worst);
    /* linear, critical ratio, TTI, KK, LH, the eight Hertzian damping laws and Zhang */
    assert_true(n_laws >= 14);
}

/* KK's restitution depends on the impact speed; calibration makes it exact at the speed
 * it was made for, whichever that is. */
static void test_calibration_of_speed_dependent_law(void **state)
{
    for (double v = 0.1; v < 20.0; v *= 7.0) {
        collision_spec sp = spec_for("hertz_kk", 0.6, 1);
        sp.calibrate = true;
        sp.velocity = v;
        collision_result r = collide(&sp);
        assert_true(rel(r.restitution_out, 0.6) < 2e-3);
    }
}

/* Restitution of Zhang's dimensionless equation x'' + k* x^n + lambda* x^m x' = 0,
 * x(0) = 0, x'(0) = 1, k* = e(n+1)/2, lambda* = 3(1-e)(m+1)/(4 alpha) (Zhang et al.
 * 2021, eqs. 42-46), integrated here with its own midpoint-corrected small steps; with
 * cohesion removal the force is not allowed to pull. */
static double zhang_dimensionless_restitution(double m, double n, double e, double alpha,
                                              int cohesion_removal)
{
    double k = e * (n + 1.0) / 2.0, lambda = 3.0 * (1.0 - e) * (m + 1.0) / (4.0 * alpha);
    double x = 0.0, v = 1.0, h = 2e-5;
    for (long step = 0; step < 10000000; step++) {
        /* classical RK4 on (x, v) */
        double xs[4], vs[4], ax[4], av[4];
        for (int s = 0; s < 4; s++) {
            double f = s == 0 ? 0.0 : (s == 3 ? 1.0 : 0.5);
            xs[s] = s == 0 ? x : x + f * h * ax[s - 1];
            vs[s] = s == 0 ? v : v + f * h * av[s - 1];
            double xp = fmax(xs[s], 0.0);
            double force = k * pow(xp, n) + lambda * pow(xp, m) * vs[s];
            if (cohesion_removal && force < 0.0) force = 0.0;
            ax[s] = vs[s];
            av[s] = -force;
        }
        double xn = x + h / 6.0 * (ax[0] + 2 * ax[1] + 2 * ax[2] + ax[3]);
        double vn = v + h / 6.0 * (av[0] + 2 * av[1] + 2 * av[2] + av[3]);
        if (xn <= 0.0 && step > 0) /* linear interpolation of v where x crosses 0 */
            return -(v + (vn - v) * x / (x - xn));
        x = xn;
        v = vn;
    }
    return NAN;
}

static const double zhang_m[] = {2.0, 1.5, 1.0, 0.65, 0.5, 0.25};

/* The engine's Zhang force (eq. 53-54, with the published alpha fits) restitutes what
 * the paper's dimensionless equation with the same alpha restitutes: eq. 53 is
 * implemented exactly, whatever the fit's quality. */
static void test_zhang_matches_dimensionless_equation(void **state)
{
    double worst = 0.0;
    for (int cohesion = 0; cohesion <= 1; cohesion++)
        for (size_t a = 0; a < 6; a++)
            for (double e = 0.1; e < 0.95; e += 0.4) {
                collision_spec sp = spec_for("zhang", e, cohesion);
                set_param(&sp, "m", zhang_m[a]);
                set_param(&sp, "fit", 1); /* published: the paper's alpha */
                collision_result r = collide(&sp);
                double expect = zhang_dimensionless_restitution(zhang_m[a], 1.5, e,
                                                                zhang_alpha_fit(zhang_m[a], e),
                                                                cohesion);
                worst = fmax(worst, rel(r.restitution_out, expect));
                if (rel(r.restitution_out, expect) > 2e-3)
                    print_error("m = %g, e = %g, cohesion removal %d: engine %.6f, equation %.6f\n",
                                zhang_m[a], e, cohesion, r.restitution_out, expect);
                assert_true(rel(r.restitution_out, expect) <= 2e-3);
            }
    print_message("Zhang: engine vs dimensionless equation, worst %.2e\n", worst);
}

/* The paper's claim (Zhang et al. 2021: post- and pre-restitution within 2%), with the
 * fits and cohesion removal off, on the region where it holds: m = 1.5 for every e in
 * [0.05, 0.95], m = 2 for e >= 0.2, the other tabulated m for e >= 0.6. docs/validation.md
 * tabulates the rest (up to 16% off for m = 0.25 at small e); the test for that region
 * is the dimensionless one above. */
static void test_zhang_fits_within_two_percent(void **state)
{
    for (size_t a = 0; a < 6; a++)
        for (int q = 1; q <= 19; q++) {
            double e = 0.05 * q, m = zhang_m[a];
            double from = m == 1.5 ? 0.05 : (m == 2.0 ? 0.2 : 0.6);
            if (e < from - 1e-9) continue;
            collision_spec sp = spec_for("zhang", e, 0);
            set_param(&sp, "m", m);
            set_param(&sp, "fit", 1); /* published: the paper's alpha fits */
            collision_result r = collide(&sp);
            if (rel(r.restitution_out, e) > 0.02)
                print_error("m = %g, e = %g: restitutes %.5f\n", m, e, r.restitution_out);
            assert_true(rel(r.restitution_out, e) <= 0.02);
        }
}

/* For (m, n) the paper did not tabulate, setup follows the paper's procedure (alpha
 * such that the restitution is e, cohesion removal off). */
static void test_zhang_any_exponents(void **state)
{
    const double cases[][2] = {{0.8, 1.5}, {1.0, 1.0}, {1.5, 2.0}, {0.0, 1.5}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (double e = 0.1; e < 1.0; e += 0.4) {
            collision_spec sp = spec_for("zhang", e, 0);
            set_param(&sp, "m", cases[c][0]);
            set_param(&sp, "n", cases[c][1]);
            set_param(&sp, "fit", 1); /* published: the paper's own procedure */
            if (cases[c][1] != 1.5) set_param(&sp, "stiffness", 1e9);
            collision_result r = collide(&sp);
            if (rel(r.restitution_out, e) > 2e-3)
                print_error("m = %g, n = %g, e = %g: restitutes %.6f\n", cases[c][0],
                            cases[c][1], e, r.restitution_out);
            assert_true(rel(r.restitution_out, e) <= 2e-3);
        }
}

static void expect_refusal(collision_spec *sp, const char *words)
{
    collision_result r;
    char err[512] = "";
    assert_int_equal(collision_run(sp, &r, err, sizeof err), -1);
    if (!strstr(err, words)) print_error("message '%s' lacks '%s'\n", err, words);
    assert_non_null(strstr(err, words));
}

static void test_calibration_refusals(void **state)
{
    collision_spec sp;
    collision_defaults(&sp, law_find("hertz"));
    sp.calibrate = true;
    expect_refusal(&sp, "cannot be calibrated");

    collision_defaults(&sp, law_find("hertz_kk")); /* a target without calibrate */
    set_param(&sp, "eta", 1e3);
    set_param(&sp, "restitution", 0.5);
    expect_refusal(&sp, "used only to calibrate");

    collision_defaults(&sp, law_find("hertz_lh")); /* calibrate without a target */
    sp.calibrate = true;
    expect_refusal(&sp, "calibrate needs the law's restitution");

    collision_defaults(&sp, law_find("hertz_kk")); /* eta is required without calibrate */
    expect_refusal(&sp, "needs parameter 'eta'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_restitutes_requested_e),
        cmocka_unit_test(test_calibration_of_speed_dependent_law),
        cmocka_unit_test(test_zhang_matches_dimensionless_equation),
        cmocka_unit_test(test_zhang_fits_within_two_percent),
        cmocka_unit_test(test_zhang_any_exponents),
        cmocka_unit_test(test_calibration_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
