/* The adhesion laws (models/adhesion_*.c) against what they do not compute themselves:
 * JKR's parametric force-overlap curve a -> (d, F) evaluated here, its extremes found by
 * scanning it (the largest pull 3/2 pi w R*, the break where dd/da = 0 and the force
 * -5/6 pi w R* there), DMT's constant pull, the circle where two spheres' surfaces cross
 * from the centres' distance and Pythagoras, each law's energy against a composite
 * Simpson quadrature of its force, and jkr's refusal of a normal law whose elastic part
 * is not plain Hertz. Every force goes through the law's batch function. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "law_helpers.h"
#include "models/adhesion_law.h"
#include "models/adhesion_parts.h"
#include "models/normal_parts.h"

/* Three pairs: glass beads (E* 35 GPa, R* 0.5 mm), a soft polymer powder (E* 10 MPa,
 * R* 20 um), a sphere on a wall (r_j 0: R* = r_i). */
typedef struct pair_case {
    double young_eff, work, r_i, r_j;
} pair_case;

static const pair_case cases[] = {
    {3.5e10, 0.05, 1e-3, 1e-3},
    {1e7, 0.2, 1.5e-5, 6e-5},
    {7e10, 0.1, 2e-3, 0.0},
};
#define N_CASES ((int)(sizeof cases / sizeof cases[0]))

static double r_eff_of(const pair_case *c)
{
    return c->r_j > 0.0 ? c->r_i * c->r_j / (c->r_i + c->r_j) : c->r_i;
}

/* The law set up with parameters p for case c beside the normal law hertz. */
static adhesion_coeffs set_up_with(const char *name, const pair_case *c, const double *p)
{
    const adhesion_law *law = adhesion_law_find(name);
    assert_non_null(law);
    const dem_law *hertz = law_find("hertz");
    law_pair_props pair = {.young_eff = c->young_eff, .shear_eff = NAN, .law_restitution = NAN};
    law_coeffs nc = {.young_eff = c->young_eff};
    adhesion_coeffs ac = {.law = law};
    law_error err = {.param = -1};
    if (law->setup(p, &pair, hertz, &nc, &ac, &err) != 0) fail_msg("%s: %s", name, err.msg);
    return ac;
}

/* ... with its one parameter `strength` */
static adhesion_coeffs set_up(const char *name, const pair_case *c, double strength)
{
    double p[ADHESION_MAX_PARAMS] = {strength};
    return set_up_with(name, c, p);
}

/* F_adh at overlap d and overlap rate `rate` through the law's batch function. */
static double force_at_rate(const adhesion_coeffs *ac, const pair_case *c, double d, double rate)
{
    double r_eff = r_eff_of(c), f = NAN;
    adhesion_batch b = {.n = 1, .overlap = &d, .overlap_rate = &rate, .r_eff = &r_eff,
                        .r_i = &c->r_i, .r_j = &c->r_j, .force = &f};
    ac->law->force(ac, &b);
    return f;
}

static double force_at(const adhesion_coeffs *ac, const pair_case *c, double d)
{
    return force_at_rate(ac, c, d, 0.0);
}

/* ---- JKR's parametric curve, written here from the paper's two equations ----------- */

static long double jkr_d(const pair_case *c, long double a)
{
    long double R = r_eff_of(c), E = c->young_eff, w = c->work;
    return a * a / R - sqrtl(2.0L * (long double)M_PI * w * a / E);
}

static long double jkr_f(const pair_case *c, long double a)
{
    long double R = r_eff_of(c), E = c->young_eff, w = c->work;
    return 4.0L * E * a * a * a / (3.0L * R) - sqrtl(8.0L * (long double)M_PI * w * E * a * a * a);
}

static long double hertz_f(const pair_case *c, long double d)
{
    long double R = r_eff_of(c), E = c->young_eff;
    return d > 0.0L ? 4.0L / 3.0L * E * sqrtl(R) * d * sqrtl(d) : 0.0L;
}

/* dF_JKR/dd = (dF/da) / (dd/da) at a */
static long double jkr_slope(const pair_case *c, long double a)
{
    long double R = r_eff_of(c), E = c->young_eff, w = c->work, pi = (long double)M_PI;
    long double df = 4.0L * E * a * a / R - 1.5L * sqrtl(8.0L * pi * w * E * a);
    long double dd = 2.0L * a / R - 0.5L * sqrtl(2.0L * pi * w / (E * a));
    return df / dd;
}

/* a_c from the break condition dd/da = 0: 2a/R = (1/2) sqrt(2 pi w / (E a)) */
static double jkr_a_break(const pair_case *c)
{
    double R = r_eff_of(c);
    return cbrt(M_PI * c->work * R * R / (8.0 * c->young_eff));
}

/* The closed-form root of x^4 - 4x = delta (adhesion_parts.h, jkr_root) against the root
 * bisected in long double, for delta from -2.999 to 1e12 (2,000 values): within 3e-15
 * relative, as its comment says. */
static void jkr_root_is_the_quartics_root(void **state)
{
    double worst = 0.0;
    for (int q = 0; q < 2000; q++) {
        double delta = q < 1000 ? -2.999 + 8.0 * q / 1000.0
                                : pow(10.0, -6.0 + 18.0 * (q - 1000) / 999.0);
        long double lo = 1.0L, hi = 2.0L + powl(fabsl((long double)delta), 0.25L);
        for (int it = 0; it < 200; it++) {
            long double mid = 0.5L * (lo + hi);
            if (mid * mid * mid * mid - 4.0L * mid < (long double)delta) lo = mid;
            else hi = mid;
        }
        double err = fabs((double)((jkr_root(delta) - lo) / lo));
        worst = fmax(worst, err);
        if (err > 3e-15)
            fail_msg("delta %.17g: root %.17g, bisected %.20Lg", delta, jkr_root(delta), lo);
    }
    print_message("jkr_root: within %.2g of the bisected root\n", worst);
}

/* Along the curve, a from 1.001 a_c to 1000 a_c: fed the overlap d(a), the law gives
 * F_adh with F_adh + F_Hertz(d) = F_JKR(a) within 1e-10 of max(|F_JKR|, pi w R*); and,
 * to 100 a_c (delta = d R* / a_c^2 up to 1e4), F_adh itself within 1e-10 relative of the
 * difference taken in long double (corrected to first order for d's rounding to double,
 * F_JKR's slope being large where F_adh is the small difference of two large forces). */
static void jkr_follows_the_parametric_curve(void **state)
{
    double worst_total = 0.0, worst_adh = 0.0;
    int n = 0;
    for (int k = 0; k < N_CASES; k++) {
        const pair_case *c = &cases[k];
        adhesion_coeffs ac = set_up("jkr", c, c->work);
        double a_c = jkr_a_break(c), scale = M_PI * c->work * r_eff_of(c);
        for (int q = 0; q <= 600; q++) {
            long double a = a_c * (1.001L + powl(1000.0L, q / 600.0L) - 1.0L);
            long double d_exact = jkr_d(c, a);
            double d = (double)d_exact;
            long double f_jkr = jkr_f(c, a);
            double f = force_at(&ac, c, d);
            double total = f + (double)hertz_f(c, d);
            double err = fabs(total - (double)f_jkr) / fmax(fabsl(f_jkr), scale);
            worst_total = fmax(worst_total, err);
            if (err > 1e-10)
                fail_msg("case %d, a = %.6g a_c, d = %.9g: F_adh + F_Hertz = %.15g, F_JKR = %.15Lg",
                         k, (double)(a / a_c), d, total, f_jkr);
            if (a <= 100.0L * a_c) {
                long double want = f_jkr + jkr_slope(c, a) * ((long double)d - d_exact) -
                                   hertz_f(c, d);
                double e2 = fabs(f - (double)want) / fabsl(want);
                worst_adh = fmax(worst_adh, e2);
                if (e2 > 1e-10)
                    fail_msg("case %d, a = %.6g a_c: F_adh = %.15g, the curve's %.15Lg", k,
                             (double)(a / a_c), f, want);
            }
            n++;
        }
    }
    print_message("jkr: %d points on the curve, F_adh + F_Hertz within %.2g of F_JKR, "
                  "F_adh within %.2g\n", n, worst_total, worst_adh);
}

/* The largest pull: the minimum of F_JKR over d, scanned on 200,000 overlaps from the
 * reach to 2 |reach|, is -3/2 pi w R* (within 0.5%; the scan does far better), and the
 * law's pull_off says so. */
static void jkr_pull_off_is_three_halves(void **state)
{
    for (int k = 0; k < N_CASES; k++) {
        const pair_case *c = &cases[k];
        adhesion_coeffs ac = set_up("jkr", c, c->work);
        double R = r_eff_of(c), reach = ac.law->reach(&ac, R), want = 1.5 * M_PI * c->work * R;
        double lowest = INFINITY;
        const int n = 200000;
        for (int q = 1; q <= n; q++) {
            double d = reach + (3.0 * fabs(reach)) * q / n;
            lowest = fmin(lowest, force_at(&ac, c, d) + (double)hertz_f(c, d));
        }
        double err = fabs(-lowest - want) / want;
        print_message("jkr case %d: the scan's largest pull %.10g, 3/2 pi w R* %.10g (%.2g)\n",
                      k, -lowest, want, err);
        assert_true(err < 0.005);
        assert_true(err < 1e-6);
        assert_true(fabs(ac.law->pull_off(&ac, R) - want) <= 1e-14 * want);
    }
}

/* The break: the law's reach is the smallest overlap along the curve (dd/da = 0, here
 * checked as the minimum of d(a) over a scan of a around a_c), the force there is
 * -5/6 pi w R* (just inside the reach; its slope in d is infinite there, so within
 * 1e-6), and past it there is no force. */
static void jkr_breaks_at_its_reach(void **state)
{
    for (int k = 0; k < N_CASES; k++) {
        const pair_case *c = &cases[k];
        adhesion_coeffs ac = set_up("jkr", c, c->work);
        double R = r_eff_of(c), reach = ac.law->reach(&ac, R), a_c = jkr_a_break(c);
        long double lowest = INFINITY;
        for (int q = -20000; q <= 20000; q++)
            lowest = fminl(lowest, jkr_d(c, a_c * (1.0L + q * 1e-6L)));
        assert_true(reach < 0.0);
        assert_true(fabs(reach - (double)lowest) <= 1e-10 * fabs(reach));
        double f_break = -5.0 / 6.0 * M_PI * c->work * R;
        double f = force_at(&ac, c, reach * (1.0 - 1e-14));
        print_message("jkr case %d: reach %.10g m (scan %.10Lg), force there %.10g (-5/6 pi w R* "
                      "%.10g)\n", k, reach, lowest, f, f_break);
        assert_true(fabs(f - f_break) <= 1e-6 * fabs(f_break));
        assert_true(force_at(&ac, c, reach * (1.0 + 1e-9)) == 0.0);
        assert_true(ac.law->energy(&ac, reach * (1.0 + 1e-9), R, c->r_i, c->r_j) == 0.0);
    }
}

/* DMT: a constant pull 2 pi w R* while the surfaces touch, the pull-off force; nothing
 * past touching, where its contact ends. */
static void dmt_pulls_two_pi_w_r(void **state)
{
    for (int k = 0; k < N_CASES; k++) {
        const pair_case *c = &cases[k];
        adhesion_coeffs ac = set_up("dmt", c, c->work);
        double R = r_eff_of(c), want = 2.0 * M_PI * c->work * R;
        for (double d = 1e-9; d < 1e-4; d *= 3.0)
            assert_true(fabs(force_at(&ac, c, d) + want) <= 1e-15 * want);
        assert_true(force_at(&ac, c, 0.0) == 0.0 && force_at(&ac, c, -1e-9) == 0.0);
        assert_true(fabs(ac.law->pull_off(&ac, R) - want) <= 1e-15 * want);
        assert_true(ac.law->reach(&ac, R) == 0.0);
    }
}

/* The circle where the surfaces cross, from the geometry of the two spheres: the centres
 * r = r_i + r_j - d apart, the circle's plane x = (r^2 + r_i^2 - r_j^2) / (2r) from i's
 * centre, its radius a^2 = r_i^2 - x^2 (Pythagoras); against a wall (r_j 0) the plane is
 * r_i - d from the centre. sjkr pulls -k_c pi a^2, sjkr2 -k_c 2 pi R* d. */
static void sjkr_pulls_with_the_crossing_circle(void **state)
{
    const double k_c = 3e5;
    const double radii[][2] = {{1e-3, 1e-3}, {1e-3, 4e-3}, {5e-4, 2e-4}, {2e-3, 0.0}};
    double worst = 0.0;
    for (int k = 0; k < 4; k++) {
        const pair_case c = {1e9, NAN, radii[k][0], radii[k][1]};
        adhesion_coeffs s1 = set_up("sjkr", &c, k_c), s2 = set_up("sjkr2", &c, k_c);
        double ri = c.r_i, rj = c.r_j, R = r_eff_of(&c);
        for (double f = 1e-3; f < 0.5; f *= 1.2) {
            double d = f * fmin(ri, rj > 0.0 ? rj : ri);
            double plane = rj > 0.0 ? ((ri + rj - d) * (ri + rj - d) + ri * ri - rj * rj) /
                                          (2.0 * (ri + rj - d))
                                    : ri - d;
            double area = M_PI * (ri * ri - plane * plane);
            double err = fabs(force_at(&s1, &c, d) + k_c * area) / (k_c * area);
            worst = fmax(worst, err);
            if (err > 1e-12 * (1.0 + ri / d * 1e-2))
                fail_msg("sjkr r_i %g r_j %g d %g: %.15g, the geometry's %.15g", ri, rj, d,
                         -force_at(&s1, &c, d), k_c * area);
            double f2 = -k_c * 2.0 * M_PI * R * d;
            assert_true(fabs(force_at(&s2, &c, d) - f2) <= 1e-15 * fabs(f2));
        }
        assert_true(force_at(&s1, &c, 0.0) == 0.0 && force_at(&s2, &c, -1e-9) == 0.0);
        assert_true(s1.law->reach(&s1, R) == 0.0 && s2.law->reach(&s2, R) == 0.0);
        assert_true(isnan(s1.law->pull_off(&s1, R)) && isnan(s2.law->pull_off(&s2, R)));
    }
    /* a wall is the limit of a sphere of infinite radius */
    const pair_case wall = {1e9, NAN, 1e-3, 0.0}, huge = {1e9, NAN, 1e-3, 1e6};
    adhesion_coeffs s1 = set_up("sjkr", &wall, k_c);
    double fw = force_at(&s1, &wall, 1e-5), fh = force_at(&s1, &huge, 1e-5);
    assert_true(fabs(fw - fh) <= 1e-8 * fabs(fw));
    print_message("sjkr: the crossing circle's area within %.2g of the geometry's\n", worst);
}

/* composite Simpson's rule of g over [0, s], n (even) intervals */
static double simpson(double (*g)(double, const void *), const void *ctx, double s, int n)
{
    double h = s / n, sum = g(0.0, ctx) + g(s, ctx);
    for (int q = 1; q < n; q++) sum += (q % 2 ? 4.0 : 2.0) * g(q * h, ctx);
    return sum * h / 3.0;
}

typedef struct piece {
    const adhesion_coeffs *ac;
    const pair_case *c;
    double from; /* the piece starts at overlap `from` */
} piece;

/* F(from + s^2) 2s: the force over d = from + s^2, smooth in s where F has a square-root
 * end (JKR at its reach) or a d^(3/2) term (the Hertz force jkr subtracts from d = 0). */
static double integrand(double s, const void *ctx)
{
    const piece *p = ctx;
    return force_at(p->ac, p->c, p->from + s * s) * 2.0 * s;
}

/* The integral of F from `from` to `to` by Simpson in s = sqrt(d - from). */
static double work_of(const adhesion_coeffs *ac, const pair_case *c, double from, double to)
{
    piece p = {ac, c, from};
    return simpson(integrand, &p, sqrt(to - from), 4000);
}

/* Each law's energy U(d) is the integral of its force from its reach to d: against
 * Simpson's rule (split at touching, where jkr's subtracted Hertz force starts), within
 * 1e-8 relative, at overlaps from the reach to deep in the contact. */
static void energy_is_the_integral_of_the_force(void **state)
{
    const char *names[] = {"jkr", "dmt", "sjkr", "sjkr2"};
    double worst = 0.0;
    int n = 0;
    for (int L = 0; L < 4; L++)
        for (int k = 0; k < N_CASES; k++) {
            const pair_case *c = &cases[k];
            double strength = L < 2 ? c->work : 2e5;
            adhesion_coeffs ac = set_up(names[L], c, strength);
            double R = r_eff_of(c), reach = ac.law->reach(&ac, R);
            double scale = L == 0 ? fabs(reach) : 1e-3 * R;
            const double at[] = {-0.9, -0.5, -0.1, 0.05, 0.7, 3.0, 40.0, 500.0};
            for (int q = 0; q < 8; q++) {
                double d = at[q] * scale;
                if (d <= reach) continue;
                double want = d <= 0.0 ? work_of(&ac, c, reach, d)
                                       : (reach < 0.0 ? work_of(&ac, c, reach, 0.0) : 0.0) +
                                             work_of(&ac, c, 0.0, d);
                double got = ac.law->energy(&ac, d, R, c->r_i, c->r_j);
                double err = fabs(got - want) / fabs(want);
                worst = fmax(worst, err);
                n++;
                if (!(err <= 1e-8))
                    fail_msg("%s case %d, d = %g: energy %.15g, Simpson %.15g", names[L], k, d,
                             got, want);
                assert_true(got < 0.0);
            }
        }
    print_message("energy: %d overlaps, within %.2g of Simpson's integral of the force\n", n,
                  worst);
}

/* A normal law set up with its own parameters, `key` = `value` among them. */
static law_coeffs normal_set_up(const dem_law *law, const char *key, double value)
{
    double p[LAW_MAX_PARAMS];
    law_test_params(law, p);
    if (key) p[law_param_index(law, key)] = value;
    law_pair_props pair = {.young_eff = 1e9, .shear_eff = 4e8, .law_restitution = NAN};
    law_coeffs nc = {.young_eff = 1e9};
    law_error err = {.param = -1};
    if (law->setup(p, &pair, &nc, &err) != 0) fail_msg("%s: %s", law->name, err.msg);
    return nc;
}

/* jkr's setup with normal law `name` (its `key` = `value`): 0, or -1 and the message. */
static int jkr_beside(const char *name, const char *key, double value, law_error *err)
{
    const adhesion_law *jkr = adhesion_law_find("jkr");
    const dem_law *law = law_find(name);
    assert_non_null(law);
    law_coeffs nc = normal_set_up(law, key, value);
    law_pair_props pair = {.young_eff = 1e9, .shear_eff = 4e8, .law_restitution = NAN};
    adhesion_coeffs ac = {.law = jkr};
    double p[ADHESION_MAX_PARAMS] = {0.1};
    *err = (law_error){.param = -1};
    return jkr->setup(p, &pair, law, &nc, &ac, err);
}

/* jkr takes every law whose elastic part is Hertz's K_hz d^(3/2), and refuses, naming the
 * law and why, linear, kostek, and a hertz law with a stiffness or exponent of its own;
 * dmt takes them all. The case reader's call (no normal law, the moduli NAN) checks the
 * parameter alone: w in (0, ADHESION_MAX_WORK]. */
static void jkr_needs_plain_hertz(void **state)
{
    law_error err;
    const char *plain[] = {"hertz", "hertz_tti", "hertz_kk", "hunt_crossley", "exact", "zhang"};
    for (int k = 0; k < 6; k++)
        if (jkr_beside(plain[k], NULL, 0.0, &err) != 0) fail_msg("%s: %s", plain[k], err.msg);
    struct {
        const char *law, *key;
        double value;
        const char *says;
    } refused[] = {
        {"linear", NULL, 0.0, "linear's elastic part is linear"},
        {"kostek", NULL, 0.0, "kostek is of one piece"},
        {"hunt_crossley", "stiffness", 1e6, "stiffness of its own"},
        {"flores", "exponent", 1.4, "exponent 1.4"},
        {"zhang", "n", 1.2, "exponent 1.2"},
    };
    for (int k = 0; k < 5; k++) {
        assert_int_equal(jkr_beside(refused[k].law, refused[k].key, refused[k].value, &err), -1);
        print_message("jkr beside %s: %s\n", refused[k].law, err.msg);
        assert_int_equal(err.param, -1);
        assert_non_null(strstr(err.msg, "Hertz"));
        assert_non_null(strstr(err.msg, refused[k].says));
    }
    /* a pair whose E* leaves pi w / (8 E*) outside [1e-100, 1e100] m: refused at work */
    {
        const adhesion_law *jkr = adhesion_law_find("jkr");
        law_coeffs nc = normal_set_up(law_find("hertz"), NULL, 0.0);
        law_pair_props stiff = {.young_eff = 1e300, .law_restitution = NAN};
        adhesion_coeffs ac = {.law = jkr};
        double p[ADHESION_MAX_PARAMS] = {1e-3};
        err = (law_error){.param = -1};
        assert_int_equal(jkr->setup(p, &stiff, law_find("hertz"), &nc, &ac, &err), -1);
        assert_int_equal(err.param, 0);
        print_message("jkr, E* 1e300 Pa: %s\n", err.msg);
    }
    /* dmt does not change the elastic part: any normal law */
    const adhesion_law *dmt = adhesion_law_find("dmt");
    law_coeffs nc = normal_set_up(law_find("linear"), NULL, 0.0);
    law_pair_props pair = {.young_eff = 1e9, .law_restitution = NAN};
    adhesion_coeffs ac = {.law = dmt};
    double p[ADHESION_MAX_PARAMS] = {0.1};
    assert_int_equal(dmt->setup(p, &pair, law_find("linear"), &nc, &ac, &err), 0);
    /* the case reader's call: the parameter alone */
    const law_pair_props unknown = {.young_eff = NAN, .shear_eff = NAN, .law_restitution = NAN};
    for (int L = 0; L < adhesion_law_count(); L++) {
        const adhesion_law *law = adhesion_law_at(L);
        double top = law->params[0].max_value;
        const double bad[] = {0.0, -1.0, 2.0 * top, NAN};
        for (int k = 1; k < law->n_params; k++) /* the others valid: default, or largest */
            p[k] = isfinite(law->params[k].default_value) ? law->params[k].default_value
                                                          : law->params[k].max_value;
        for (int k = 0; k < 4; k++) {
            p[0] = bad[k];
            err = (law_error){.param = -1};
            ac.law = law;
            assert_int_equal(law->setup(p, &unknown, NULL, NULL, &ac, &err), -1);
            assert_int_equal(err.param, 0);
        }
        p[0] = top;
        assert_int_equal(law->setup(p, &unknown, NULL, NULL, &ac, &err), 0);
    }
}

/* The registry: every law passes the kind's check (the plug-in form, ADHESION_MAX_PARAMS,
 * no state, ADHESION_LAW_CAPS, the functions, LAW_CAP_ENERGY with energy, names of their
 * own), each is found by its name, and the form's check refuses a copy given state, a
 * flag of another kind or a key without a finite largest value. */
static void registry_is_consistent(void **state)
{
    char err[256] = "";
    if (adhesion_registry_check(err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(adhesion_law_count(), 5);
    for (int k = 0; k < adhesion_law_count(); k++)
        assert_ptr_equal(adhesion_law_find(adhesion_law_at(k)->name), adhesion_law_at(k));
    assert_null(adhesion_law_find("jkr2"));
    assert_null(adhesion_law_at(adhesion_law_count()));
    const adhesion_law *jkr = adhesion_law_find("jkr");
    law_plugin p = jkr->plugin;
    p.n_state = 1;
    p.state_names = (const char *const[]){"a"};
    assert_int_equal(law_plugin_check(&p, ADHESION_MAX_PARAMS, 0, 1, ADHESION_LAW_CAPS, err,
                                      sizeof err), -1);
    p = jkr->plugin;
    p.caps |= LAW_CAP_CONTACT_TIME;
    assert_int_equal(law_plugin_check(&p, ADHESION_MAX_PARAMS, 0, 1, ADHESION_LAW_CAPS, err,
                                      sizeof err), -1);
    law_param wide = jkr->params[0];
    wide.max_value = HUGE_VAL;
    p = jkr->plugin;
    p.params = &wide;
    assert_int_equal(law_plugin_check(&p, ADHESION_MAX_PARAMS, 0, 1, ADHESION_LAW_CAPS, err,
                                      sizeof err), -1);
}

/* A batch of mixed contacts gives each contact what it gives alone (walls and spheres,
 * in tension, at touching and pressed, approaching and separating), whatever its
 * neighbours; only a bridge's lubrication pushes, and only approaching. */
static void batch_matches_single_contacts(void **state)
{
    enum { N = 64 };
    for (int L = 0; L < adhesion_law_count(); L++) {
        const adhesion_law *law = adhesion_law_at(L);
        double d[N], rate[N], r_eff[N], r_i[N], r_j[N], f[N];
        const pair_case *c0 = &cases[0];
        /* capillary: 1e-13 m^3 of water at 20 degrees, lubricating (eta 1e-3 Pa s) */
        const double wet[ADHESION_MAX_PARAMS] = {1e-13, 20.0, 0.072, 1e-3, 1e-7};
        const int bridge = strcmp(law->name, "capillary") == 0;
        adhesion_coeffs ac = bridge ? set_up_with(law->name, c0, wet)
                                    : set_up(law->name, c0, L < 2 ? c0->work : 2e5);
        for (int q = 0; q < N; q++) {
            r_i[q] = 1e-3 * (1.0 + 0.37 * (q % 5));
            r_j[q] = q % 3 == 0 ? 0.0 : 1e-3 * (1.0 + 0.21 * (q % 7));
            r_eff[q] = r_j[q] > 0.0 ? r_i[q] * r_j[q] / (r_i[q] + r_j[q]) : r_i[q];
            d[q] = 1e-7 * (q - 20) * (1.0 + 0.1 * (q % 4));
            rate[q] = 0.01 * (q % 9) - 0.04;
        }
        adhesion_batch b = {N, d, rate, r_eff, r_i, r_j, f};
        law->force(&ac, &b);
        for (int q = 0; q < N; q++) {
            pair_case c = {c0->young_eff, c0->work, r_i[q], r_j[q]};
            double one = force_at_rate(&ac, &c, d[q], rate[q]);
            assert_memory_equal(&one, &f[q], sizeof one);
            assert_true(isfinite(f[q]) && (f[q] <= 0.0 || (bridge && rate[q] > 0.0)));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_is_consistent),
        cmocka_unit_test(jkr_root_is_the_quartics_root),
        cmocka_unit_test(jkr_follows_the_parametric_curve),
        cmocka_unit_test(jkr_pull_off_is_three_halves),
        cmocka_unit_test(jkr_breaks_at_its_reach),
        cmocka_unit_test(dmt_pulls_two_pi_w_r),
        cmocka_unit_test(sjkr_pulls_with_the_crossing_circle),
        cmocka_unit_test(energy_is_the_integral_of_the_force),
        cmocka_unit_test(jkr_needs_plain_hertz),
        cmocka_unit_test(batch_matches_single_contacts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
