/* The liquid bridge, adhesion law `capillary` (models/adhesion_capillary.c), against what
 * it does not compute itself: Willett et al.'s (2000) closed form written here as the
 * paper gives it, for two equal spheres of radius R with S the half-separation,
 * F = 2 pi R gamma cos(theta) / (1 + 2.1 S+ + 10 S+^2), S+ = S sqrt(R/V), taken to
 * unequal spheres by Derjaguin's approximation (R the harmonic mean of the radii) and
 * evaluated in long double; Lian et al.'s (1993) rupture distance (1 + theta/2) V^(1/3);
 * the energy against a composite Simpson quadrature of the force; the lubrication force
 * against Reynolds' 6 pi eta R*^2 v / S; a wall against a sphere a million times larger;
 * and the refusal of parameters that cannot work. Every force goes through the law's
 * batch function. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "models/adhesion_law.h"

/* A bridge: the radii (r_j 0: a wall) and the liquid, its contact angle in degrees. */
typedef struct bridge {
    double r_i, r_j, volume, angle_deg, tension, viscosity, roughness;
} bridge;

/* Water (0.072 N/m) between glass beads, unequal beads, a bead on a wall, an oil at
 * 40 degrees, a large bridge (V / R^3 = 0.05) and a small one (1e-5). */
static const bridge bridges[] = {
    {1e-3, 1e-3, 1e-12, 0.0, 0.072, 0.0, 0.0},
    {5e-4, 2e-3, 5e-13, 20.0, 0.072, 0.0, 0.0},
    {1e-3, 0.0, 2e-12, 10.0, 0.072, 0.0, 0.0},
    {2e-4, 3e-4, 1e-14, 40.0, 0.03, 0.0, 0.0},
    {1e-3, 1e-3, 5e-11, 0.0, 0.072, 0.0, 0.0},
    {1e-3, 1e-3, 1e-14, 60.0, 0.072, 0.0, 0.0},
};
#define N_BRIDGES ((int)(sizeof bridges / sizeof bridges[0]))

static double r_eff_of(const bridge *b)
{
    return b->r_j > 0.0 ? b->r_i * b->r_j / (b->r_i + b->r_j) : b->r_i;
}

static adhesion_coeffs set_up(const bridge *b)
{
    const adhesion_law *law = adhesion_law_find("capillary");
    assert_non_null(law);
    law_pair_props pair = {.young_eff = 1e9, .shear_eff = NAN, .law_restitution = NAN};
    adhesion_coeffs ac = {.law = law};
    law_error err = {.param = -1};
    double p[ADHESION_MAX_PARAMS] = {b->volume, b->angle_deg, b->tension, b->viscosity,
                                     b->roughness};
    if (law->setup(p, &pair, NULL, NULL, &ac, &err) != 0) fail_msg("capillary: %s", err.msg);
    return ac;
}

/* F_adh at overlap d and overlap rate `rate` through the law's batch function. */
static double force_at(const adhesion_coeffs *ac, const bridge *b, double d, double rate)
{
    double r_eff = r_eff_of(b), f = NAN;
    adhesion_batch batch = {.n = 1, .overlap = &d, .overlap_rate = &rate, .r_eff = &r_eff,
                            .r_i = &b->r_i, .r_j = &b->r_j, .force = &f};
    ac->law->force(ac, &batch);
    return f;
}

/* ---- the papers' formulas, written here --------------------------------------------- */

static const long double PI_L = 3.141592653589793238462643383279503L;

static long double theta_of(const bridge *b) { return b->angle_deg * PI_L / 180.0L; }

/* Willett et al.: the pull between equal spheres of radius R at half-separation S. */
static long double willett_equal(long double R, long double S, long double V,
                                 long double theta, long double gamma)
{
    long double s_plus = S * sqrtl(R / V);
    return 2.0L * PI_L * R * gamma * cosl(theta) / (1.0L + 2.1L * s_plus + 10.0L * s_plus * s_plus);
}

/* ... between unequal spheres (Derjaguin: R the harmonic mean of the radii, a wall a
 * sphere of infinite radius, R = 2 r_i), at the gap s = 2S between the surfaces. */
static long double willett(const bridge *b, long double gap)
{
    long double ri = b->r_i, rj = b->r_j;
    long double R = rj > 0.0L ? 2.0L * ri * rj / (ri + rj) : 2.0L * ri;
    return willett_equal(R, 0.5L * gap, b->volume, theta_of(b), b->tension);
}

/* Lian et al.'s rupture distance (1 + theta/2) V^(1/3), theta in radians. */
static long double lian_rupture(const bridge *b)
{
    return (1.0L + 0.5L * theta_of(b)) * cbrtl((long double)b->volume);
}

/* The force against the gap, from touching (and overlapping, where it is the force at
 * contact) to the rupture distance, 2,000 gaps per bridge: the law's F_adh is -F_Willett
 * within 1e-13 relative, at contact and just inside the rupture distance too; the reach
 * is -S_c within 1e-15, and at and past it there is no force. The equal-sphere bridges
 * are the paper's expression as it stands (the harmonic mean of equal radii is R). */
static void follows_willett_to_the_rupture(void **state)
{
    double worst = 0.0;
    for (int k = 0; k < N_BRIDGES; k++) {
        const bridge *b = &bridges[k];
        adhesion_coeffs ac = set_up(b);
        double R = r_eff_of(b), s_c = (double)lian_rupture(b);
        double reach = ac.law->reach(&ac, R);
        if (!(fabs(reach + s_c) <= 1e-15 * s_c))
            fail_msg("bridge %d: reach %.17g, Lian's -S_c %.17g", k, reach, -s_c);
        for (int q = -20; q <= 2000; q++) {
            /* q < 0: overlapping, the force at contact; q = 2000: just inside S_c */
            double d = q < 0 ? 1e-7 * R * -q : q < 2000 ? -s_c * q / 2000.0 : -s_c * (1.0 - 1e-12);
            long double want = -willett(b, fmaxl(-(long double)d, 0.0L));
            double f = force_at(&ac, b, d, 0.0);
            double err = fabs((double)((f - want) / want));
            worst = fmax(worst, err);
            if (!(err <= 1e-13))
                fail_msg("bridge %d, d = %.9g: F_adh %.17g, Willett's %.17Lg", k, d, f, want);
        }
        long double at_contact = willett(b, 0.0L), at_rupture = willett(b, s_c);
        print_message("bridge %d: F(0) = %.6Lg N = 2 pi R gamma cos(theta), F(S_c) = %.6Lg N "
                      "(%.4Lg of it), S_c = %.6g m\n", k, at_contact, at_rupture,
                      at_rupture / at_contact, s_c);
        assert_true(fabs(ac.law->pull_off(&ac, R) - (double)at_contact) <= 1e-14 * (double)at_contact);
        assert_true(force_at(&ac, b, reach, 0.0) == 0.0);
        assert_true(force_at(&ac, b, -1.5 * s_c, 0.0) == 0.0);
        assert_true(force_at(&ac, b, -1.5 * s_c, 1.0) == 0.0);
    }
    print_message("capillary: the force within %.2g of Willett's\n", worst);
}

/* The largest pull of a slow contact is its pull-off force: the force at contact, which
 * a scan of 100,000 overlaps from the rupture to deep in the contact does not exceed. */
static void pull_off_is_the_force_at_contact(void **state)
{
    for (int k = 0; k < N_BRIDGES; k++) {
        const bridge *b = &bridges[k];
        adhesion_coeffs ac = set_up(b);
        double R = r_eff_of(b), reach = ac.law->reach(&ac, R), lowest = INFINITY;
        for (int q = 0; q <= 100000; q++)
            lowest = fmin(lowest, force_at(&ac, b, reach * (1.0 - 1.01 * q / 100000.0), 0.0));
        assert_true(-lowest == ac.law->pull_off(&ac, R));
    }
}

/* composite Simpson's rule of the force over [from, to], n (even) intervals */
static double simpson(const adhesion_coeffs *ac, const bridge *b, double from, double to, int n)
{
    double h = (to - from) / n;
    double sum = force_at(ac, b, from, 0.0) + force_at(ac, b, to, 0.0);
    for (int q = 1; q < n; q++) sum += (q % 2 ? 4.0 : 2.0) * force_at(ac, b, from + q * h, 0.0);
    return sum * h / 3.0;
}

/* U(d) is the integral of the force from the reach to d (the end of the interval just
 * inside the reach, where the force jumps to 0), split at touching where the force's
 * slope jumps: within 1e-10 relative of Simpson's rule (4,000 intervals a piece), from
 * next to the rupture to deep in the contact; 0 at and past the reach. A viscosity
 * changes no energy (the lubrication dissipates). */
static void energy_is_the_integral_of_the_force(void **state)
{
    double worst = 0.0;
    int n = 0;
    for (int k = 0; k < N_BRIDGES; k++) {
        const bridge *b = &bridges[k];
        adhesion_coeffs ac = set_up(b);
        bridge wet = *b;
        wet.viscosity = 1.0;
        wet.roughness = 1e-7;
        adhesion_coeffs viscous = set_up(&wet);
        double R = r_eff_of(b), reach = ac.law->reach(&ac, R), s_c = -reach;
        double start = reach * (1.0 - 1e-15);
        const double at[] = {-0.999, -0.9, -0.5, -0.1, -1e-3, 0.0, 1e-3, 0.05, 0.5};
        for (int q = 0; q < 9; q++) {
            double d = at[q] * s_c;
            double want = d <= 0.0 ? simpson(&ac, b, start, d, 4000)
                                   : simpson(&ac, b, start, 0.0, 4000) + simpson(&ac, b, 0.0, d, 4000);
            double got = ac.law->energy(&ac, d, R, b->r_i, b->r_j);
            double err = fabs(got - want) / fabs(want);
            worst = fmax(worst, err);
            n++;
            if (!(err <= 1e-10))
                fail_msg("bridge %d, d = %g: energy %.15g, Simpson %.15g", k, d, got, want);
            assert_true(got < 0.0);
            assert_true(viscous.law->energy(&viscous, d, R, b->r_i, b->r_j) == got);
        }
        assert_true(ac.law->energy(&ac, reach, R, b->r_i, b->r_j) == 0.0);
        assert_true(ac.law->energy(&ac, 2.0 * reach, R, b->r_i, b->r_j) == 0.0);
    }
    print_message("capillary energy: %d overlaps, within %.2g of Simpson's integral\n", n, worst);
}

/* The lubrication force is F(d, d') - F(d, 0) = 6 pi eta R*^2 d' / max(S, roughness):
 * Reynolds' squeeze film, repulsive approaching (d' > 0) and a pull separating, at gaps
 * from a thousandth of the roughness (and overlapping, where the gap is the roughness)
 * to the rupture; within 1e-13 relative of the formula computed here. Without a
 * viscosity the rate changes nothing, bit for bit. */
static void lubrication_is_reynolds(void **state)
{
    double worst = 0.0;
    for (int k = 0; k < N_BRIDGES; k++) {
        bridge wet = bridges[k];
        wet.viscosity = 1e-3 * (1 + k);
        wet.roughness = 1e-3 * r_eff_of(&wet);
        adhesion_coeffs ac = set_up(&wet), dry = set_up(&bridges[k]);
        double R = r_eff_of(&wet), s_c = -ac.law->reach(&ac, R);
        for (int q = 0; q <= 60; q++) {
            double gap = q == 0 ? -1e-3 * wet.roughness
                                : wet.roughness * pow(10.0, -3.0 + 6.0 * q / 60.0);
            if (gap >= s_c) break;
            double d = -gap;
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double v = sgn * 3e-3;
                long double want = 6.0L * PI_L * wet.viscosity * (long double)R * R * v /
                                   fmaxl(gap, wet.roughness);
                double got = force_at(&ac, &wet, d, v) - force_at(&ac, &wet, d, 0.0);
                double err = fabs((double)((got - want) / want));
                worst = fmax(worst, err);
                if (!(err <= 1e-13))
                    fail_msg("bridge %d, gap %g, v %g: lubrication %.17g, Reynolds' %.17Lg", k,
                             gap, v, got, want);
                assert_true(sgn > 0 ? got > 0.0 : got < 0.0);
                double f_dry = force_at(&dry, &bridges[k], d, v), f_still = force_at(&dry, &bridges[k], d, 0.0);
                assert_memory_equal(&f_dry, &f_still, sizeof f_dry);
            }
        }
    }
    print_message("capillary lubrication within %.2g of 6 pi eta R*^2 v / max(S, roughness)\n",
                  worst);
}

/* A wall is a sphere of infinite radius: against a sphere 1e6 times larger the force,
 * the energy and the pull-off agree within 2e-6 (R* differs by 1e-6), the reach exactly;
 * the force at contact is the sphere-on-plane 4 pi r gamma cos(theta). */
static void wall_is_a_very_large_sphere(void **state)
{
    for (int k = 0; k < N_BRIDGES; k++) {
        bridge wall = bridges[k], huge = bridges[k];
        wall.r_j = 0.0;
        huge.r_j = 1e6 * wall.r_i;
        adhesion_coeffs ac = set_up(&wall);
        double Rw = r_eff_of(&wall), Rh = r_eff_of(&huge), s_c = -ac.law->reach(&ac, Rw);
        assert_true(ac.law->reach(&ac, Rw) == ac.law->reach(&ac, Rh));
        for (int q = -2; q < 10; q++) {
            double d = -s_c * q / 10.0;
            double fw = force_at(&ac, &wall, d, 0.0), fh = force_at(&ac, &huge, d, 0.0);
            assert_true(fabs(fw - fh) <= 2e-6 * fabs(fw));
            double uw = ac.law->energy(&ac, d, Rw, wall.r_i, 0.0);
            double uh = ac.law->energy(&ac, d, Rh, huge.r_i, huge.r_j);
            assert_true(fabs(uw - uh) <= 2e-6 * fabs(uw));
        }
        double plane = 4.0 * M_PI * wall.r_i * wall.tension * cos(wall.angle_deg * M_PI / 180.0);
        assert_true(fabs(-force_at(&ac, &wall, 0.0, 0.0) - plane) <= 1e-14 * plane);
        assert_true(fabs(ac.law->pull_off(&ac, Rw) - ac.law->pull_off(&ac, Rh)) <=
                    2e-6 * ac.law->pull_off(&ac, Rw));
    }
}

/* The refusals, each naming its key: a volume, surface tension or viscosity out of
 * range, a contact angle outside [0, 90] degrees, a viscosity without a roughness (the
 * lubrication force would be unbounded at touching); and the defaults (contact angle 0,
 * no viscosity) accepted. */
static void refuses_what_cannot_work(void **state)
{
    const adhesion_law *law = adhesion_law_find("capillary");
    const law_pair_props unknown = {.young_eff = NAN, .shear_eff = NAN, .law_restitution = NAN};
    struct {
        double p[5];
        int param;
        const char *says;
    } bad[] = {
        {{0.0, 0.0, 0.07, 0.0, 0.0}, 0, "m^3"},
        {{-1e-12, 0.0, 0.07, 0.0, 0.0}, 0, "m^3"},
        {{2.0, 0.0, 0.07, 0.0, 0.0}, 0, "m^3"},
        {{NAN, 0.0, 0.07, 0.0, 0.0}, 0, "m^3"},
        {{1e-12, 91.0, 0.07, 0.0, 0.0}, 1, "degrees"},
        {{1e-12, -1.0, 0.07, 0.0, 0.0}, 1, "degrees"},
        {{1e-12, 0.0, 0.0, 0.0, 0.0}, 2, "N/m"},
        {{1e-12, 0.0, 2e3, 0.0, 0.0}, 2, "N/m"},
        {{1e-12, 0.0, 0.07, -1.0, 0.0}, 3, "Pa s"},
        {{1e-12, 0.0, 0.07, 1e-3, 0.0}, 4, "above 0 with a viscosity"},
        {{1e-12, 0.0, 0.07, 0.0, -1e-9}, 4, "[0, 1] m"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        adhesion_coeffs ac = {.law = law};
        law_error err = {.param = -1};
        assert_int_equal(law->setup(bad[k].p, &unknown, NULL, NULL, &ac, &err), -1);
        if (err.param != bad[k].param || !strstr(err.msg, bad[k].says))
            fail_msg("case %zu: param %d (%s), wanted %d saying '%s'", k, err.param, err.msg,
                     bad[k].param, bad[k].says);
        print_message("%s: %s\n", law->params[err.param].name, err.msg);
    }
    law_error err = {.param = -1};
    double p[ADHESION_MAX_PARAMS];
    for (int k = 0; k < law->n_params; k++) p[k] = law->params[k].default_value;
    p[0] = 1e-12;
    p[2] = 0.072;
    adhesion_coeffs ac = {.law = law};
    assert_int_equal(law->setup(p, &unknown, NULL, NULL, &ac, &err), 0);
    assert_true(ac.law->pull_off(&ac, 1e-3) == 4.0 * M_PI * 0.072 * 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(follows_willett_to_the_rupture),
        cmocka_unit_test(pull_off_is_the_force_at_contact),
        cmocka_unit_test(energy_is_the_integral_of_the_force),
        cmocka_unit_test(lubrication_is_reynolds),
        cmocka_unit_test(wall_is_a_very_large_sphere),
        cmocka_unit_test(refuses_what_cannot_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
