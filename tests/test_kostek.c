/* Kostek's elastic-plastic rough-contact law (docs/physics.md, "Kostek's law inverted";
 * R. Kostek 2012, J. Theor. Appl. Mech. 50(2), 509-530).
 *
 * The law inverts d(p) for p; these tests drive its force function along prescribed
 * overlap histories and check the result against the paper's forward relation
 * pressure -> deflection (eqs. 2.1, 2.4, 2.5), written out again here:
 *   virgin loading  d = e_e p^m_e + e_p p^m_p + e_ep_l p^m_ep
 *   stick           d = e_e p^m_e + e_p P^m_p + D            (D = d_ep, P = p_max, fixed)
 *   unloading       d = e_e p^m_e + e_p P^m_p + e_ep_unl p^m_ep
 * and the energies against closed-form integrals of p dd in the pressure parametrisation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/collide/collision.h"
#include "collision_helpers.h"

#define MPA 1e6

/* Table 1 of the paper (um, MPa) and its conversion to SI, e_SI = e 1e-6 (1e-6)^m. */
#define K_ME 0.462
#define K_MP 0.653
#define K_MEP 0.462
#define AREA 1e-6
static double E_E, E_P, E_L, E_U;

static void table1_in_si(void)
{
    E_E = 1.148 * 1e-6 * pow(1e-6, K_ME);
    E_P = 0.534 * 1e-6 * pow(1e-6, K_MP);
    E_L = 0.302 * 1e-6 * pow(1e-6, K_MEP);
    E_U = 0.523 * 1e-6 * pow(1e-6, K_MEP);
}

static double d_virgin(double p) { return E_E * pow(p, K_ME) + E_P * pow(p, K_MP) + E_L * pow(p, K_MEP); }
static double d_plastic_set(double p_max) { return E_P * pow(p_max, K_MP); }
/* the pressure where the unloading curve meets d_ep = D: the end of the stick band */
static double p_unloading_curve(double D) { return pow(D / E_U, 1.0 / K_MEP); }
static double p_loading_curve(double D) { return pow(D / E_L, 1.0 / K_MEP); }

/* int p d(e p^m) = m e p^(m+1) / (m+1): the work per area of a power-law term from 0 to p */
static double work_term(double e, double m, double p) { return m * e * pow(p, m + 1.0) / (m + 1.0); }

/* Work per area put in along the virgin loading curve up to P, and given back on the way
 * down from P: stick (d_e only) from P to P_u, then the unloading curve (d_e and d_ep). */
static double work_virgin(double P)
{
    return work_term(E_E, K_ME, P) + work_term(E_P, K_MP, P) + work_term(E_L, K_MEP, P);
}
static double work_unloading(double P)
{
    double P_u = p_unloading_curve(E_L * pow(P, K_MEP));
    return work_term(E_E, K_ME, P) + work_term(E_U, K_MEP, P_u);
}

/* The law with one contact, driven through its force function as the engine does: once
 * per step, with the stored history as the step-start state. */
typedef struct driver {
    const dem_law *law;
    law_coeffs c;
    double h[LAW_MAX_HISTORY];
    double d, rate, p;
} driver;

static double default_param(const dem_law *law, const char *name)
{
    int k = law_param_index(law, name);
    assert_true(k >= 0);
    return law->params[k].default_value;
}

static law_pair_props steel_pair(void)
{
    law_pair_props pp = {.young_eff = 2e11 / (2.0 * (1.0 - 0.09)), .shear_eff = 3e10,
                         .density_a = 7800, .density_b = 7800};
    return pp;
}

static int setup_with(const dem_law *law, const double *params, law_coeffs *c, char *err,
                      size_t err_len)
{
    law_pair_props pp = steel_pair();
    memset(c, 0, sizeof *c);
    c->young_eff = pp.young_eff;
    law_error why = {.param = -1};
    int rc = law->setup(params, &pp, c, &why);
    snprintf(err, err_len, "%s", why.msg);
    return rc;
}

static driver new_contact(void)
{
    driver dr;
    memset(&dr, 0, sizeof dr);
    dr.law = law_find("kostek");
    assert_non_null(dr.law);
    double params[LAW_MAX_PARAMS];
    for (int k = 0; k < dr.law->n_params; k++) params[k] = dr.law->params[k].default_value;
    char err[256] = "";
    assert_int_equal(setup_with(dr.law, params, &dr.c, err, sizeof err), 0);
    return dr;
}

static double p_max_of(const driver *dr) { return dr->h[0]; }
static double d_ep_of(const driver *dr) { return dr->h[1]; }

/* One accepted step at overlap d; returns the pressure F / A. */
static double step_to(driver *dr, double d)
{
    double v0 = 0.1, r = 0.005, m = 0.016, f = NAN;
    dr->rate = d > dr->d ? 0.1 : -0.1;
    law_batch b = {.n = 1, .overlap = &d, .overlap_rate = &dr->rate, .impact_velocity = &v0,
                   .r_eff = &r, .m_eff = &m, .force = &f};
    for (int k = 0; k < LAW_MAX_HISTORY; k++) b.history[k] = &dr->h[k];
    dr->law->force(&dr->c, &b);
    dr->d = d;
    dr->p = f / AREA;
    return dr->p;
}

/* Steps linearly from the current overlap to d in n steps, adding the trapezoid work
 * (F_prev + F) / 2 (d - d_prev) to *work when given. */
static void ramp(driver *dr, double d, int n, double *work)
{
    double d0 = dr->d;
    for (int k = 1; k <= n; k++) {
        double d_prev = dr->d, f_prev = dr->p * AREA;
        step_to(dr, d0 + (d - d0) * k / n);
        if (work) *work += 0.5 * (f_prev + dr->p * AREA) * (dr->d - d_prev);
    }
}

static void defaults_are_table1_in_si(void **state)
{
    table1_in_si();
    const dem_law *law = law_find("kostek");
    assert_non_null(law);
    const char *names[] = {"e_e", "e_p", "e_ep_l", "e_ep_unl", "m_e", "m_p", "m_ep", "area"};
    const double want[] = {E_E, E_P, E_L, E_U, K_ME, K_MP, K_MEP, AREA};
    for (int k = 0; k < 8; k++) {
        double got = default_param(law, names[k]);
        print_message("%-8s %.17g (Table 1 in SI: %.17g)\n", names[k], got, want[k]);
        assert_true(rel(got, want[k]) <= 1e-15);
    }
    assert_int_equal(law->n_state, 3);
    assert_string_equal(law->state_names[0], "p_max");
    assert_string_equal(law->state_names[1], "d_ep");
    assert_null(law->calibration);
}

/* Virgin loading: the solved p reproduces the loading curve at every step, and at chosen
 * pressures it recovers the pressure the overlap was computed from. */
static void virgin_loading_follows_loading_curve(void **state)
{
    table1_in_si();
    driver dr = new_contact();
    double worst = 0.0;
    for (int k = 1; k <= 2000; k++) {
        double d = d_virgin(20 * MPA) * k / 2000, p = step_to(&dr, d);
        assert_true(p > 0.0);
        worst = fmax(worst, rel(d_virgin(p), d));
        assert_true(rel(p_max_of(&dr), p) <= 1e-15);
        assert_true(rel(d_ep_of(&dr), E_L * pow(p, K_MEP)) <= 1e-13);
    }
    print_message("loading: worst |d(p) - d| / d over 2000 steps %.2e\n", worst);
    assert_true(worst <= 1e-13);
    const double ps[] = {0.01, 0.5, 2, 5, 10, 20, 100};
    driver fresh = new_contact();
    for (int k = 0; k < 7; k++) {
        double p = step_to(&fresh, d_virgin(ps[k] * MPA));
        print_message("p %6g MPa: d %.6e m, solved p / p - 1 = %.2e\n", ps[k],
                      d_virgin(ps[k] * MPA), p / (ps[k] * MPA) - 1.0);
        assert_true(rel(p, ps[k] * MPA) <= 1e-12);
    }
    /* the one step from a virgin state to 20 MPa lands on the same point */
    driver jump = new_contact();
    assert_true(rel(step_to(&jump, d_virgin(20 * MPA)), 20 * MPA) <= 1e-12);
}

/* Reversal from the maximum: first the stick (only d_e changes, d_ep fixed) down to the
 * unloading-curve pressure of the current d_ep, then the unloading curve, then p = 0 at
 * the plastic set e_p P^m_p. */
static void unloading_sticks_then_follows_unloading_curve_to_plastic_set(void **state)
{
    table1_in_si();
    const double P = 20 * MPA, d_top = d_virgin(P);
    driver dr = new_contact();
    ramp(&dr, d_top, 2000, NULL);
    const double D = d_ep_of(&dr), P_u = p_unloading_curve(D);
    assert_true(rel(dr.p, P) <= 1e-12);
    assert_true(rel(D, E_L * pow(P, K_MEP)) <= 1e-13);
    const double d_stick_end = E_E * pow(P_u, K_ME) + d_plastic_set(P) + D;
    const double d_set = d_plastic_set(P);
    print_message("from P = 20 MPa: d_top %.6e m, stick ends at p %.4f MPa (d %.6e m), "
                  "plastic set %.6e m\n", d_top, P_u / MPA, d_stick_end, d_set);

    int n = 20000, n_stick = 0, n_unload = 0, n_apart = 0;
    double worst_stick = 0.0, worst_unload = 0.0, last_positive_d = NAN, first_zero_d = NAN;
    double d_prev = d_top, p_prev = P, worst_slope = 0.0;
    for (int k = 1; k <= n; k++) {
        double d = d_top * (1.0 - (double)k / n), p = step_to(&dr, d);
        assert_true(p_max_of(&dr) == P);
        if (d >= d_stick_end * (1.0 + 1e-12)) {
            /* stick: d_ep unchanged, d - d_top is the change of e_e p^m_e alone */
            n_stick++;
            assert_true(d_ep_of(&dr) == D);
            assert_true(p >= P_u);
            worst_stick = fmax(worst_stick, rel(E_E * pow(p, K_ME) - E_E * pow(P, K_ME), d - d_top));
            /* the secant slope is the elastic one, m_e e_e p^(m_e-1) at a mid pressure */
            double elastic = K_ME * E_E * pow(0.5 * (p + p_prev), K_ME - 1.0);
            worst_slope = fmax(worst_slope, rel((d - d_prev) / (p - p_prev), elastic));
        } else if (p > 0.0) {
            n_unload++;
            assert_true(p < P_u * (1.0 + 1e-12));
            assert_true(rel(d_ep_of(&dr), E_U * pow(p, K_MEP)) <= 1e-12);
            worst_unload = fmax(worst_unload,
                                rel(E_E * pow(p, K_ME) + d_set + E_U * pow(p, K_MEP), d));
            last_positive_d = d;
        } else {
            if (n_apart++ == 0) first_zero_d = d;
            assert_true(d <= d_set);
            assert_true(d_ep_of(&dr) == 0.0);
        }
        d_prev = d;
        p_prev = p;
    }
    print_message("stick: %d steps, worst rel error of d - d_top = e_e (p^m_e - P^m_e) %.2e, "
                  "of the secant slope vs m_e e_e p^(m_e-1) %.2e\n", n_stick, worst_stick,
                  worst_slope);
    print_message("unloading: %d steps, worst rel error of d(p) %.2e\n", n_unload, worst_unload);
    print_message("p = 0 from d = %.9e m; last p > 0 at d = %.9e m; e_p P^m_p = %.9e m "
                  "(%.4f um)\n", first_zero_d, last_positive_d, d_set, d_set * 1e6);
    assert_true(n_stick > 100 && n_unload > 100 && n_apart > 100);
    assert_true(worst_stick <= 1e-9); /* d - d_top is a difference of ~1e-5 m terms */
    assert_true(worst_slope <= 1e-6); /* secant vs tangent at the midpoint: O((dp/p)^2) */
    assert_true(worst_unload <= 1e-12);
    assert_true(first_zero_d <= d_set && last_positive_d > d_set);
    assert_true(last_positive_d - first_zero_d <= 1.5 * d_top / n);

    /* the plastic set itself, probed from the state at the maximum */
    driver at_top = new_contact();
    ramp(&at_top, d_top, 200, NULL);
    driver probe = at_top;
    assert_true(step_to(&probe, d_set * (1.0 + 1e-6)) > 0.0);
    probe = at_top;
    assert_true(step_to(&probe, d_set) == 0.0);
    probe = at_top;
    assert_true(step_to(&probe, d_set * (1.0 - 1e-6)) == 0.0);
    assert_true(rel(d_set, 0.534e-6 * pow(20.0, K_MP)) <= 1e-13); /* 3.78 um from Table 1 */
}

/* Reloading from a partial unload: stiffer than virgin loading (no plastic term while
 * p < P), p_max unchanged until the old maximum is passed, then the virgin curve. */
static void reloading_is_stiffer_and_rejoins_virgin_curve(void **state)
{
    table1_in_si();
    const double P = 20 * MPA, p_low = 2 * MPA, P2 = 30 * MPA;
    driver dr = new_contact();
    ramp(&dr, d_virgin(P), 2000, NULL);
    double d_low = E_E * pow(p_low, K_ME) + d_plastic_set(P) + E_U * pow(p_low, K_MEP);
    ramp(&dr, d_low, 2000, NULL);
    assert_true(rel(dr.p, p_low) <= 1e-12);
    const double D = d_ep_of(&dr), p_join_loading = p_loading_curve(D);
    assert_true(rel(D, E_U * pow(p_low, K_MEP)) <= 1e-12);

    int n = 20000, n_below = 0, n_above = 0;
    double worst_below = 0.0, worst_above = 0.0, min_stiffness_ratio = HUGE_VAL;
    double d_prev = dr.d, p_prev = dr.p;
    for (int k = 1; k <= n; k++) {
        double d = d_low + (d_virgin(P2) - d_low) * k / n, p = step_to(&dr, d);
        if (p <= P) {
            n_below++;
            assert_true(p_max_of(&dr) == P);
            /* the paper's forward relation with the step-start state */
            double d_ep = p > p_join_loading ? E_L * pow(p, K_MEP) : D;
            assert_true(rel(d_ep_of(&dr), d_ep) <= 1e-12);
            worst_below = fmax(worst_below, rel(E_E * pow(p, K_ME) + d_plastic_set(P) + d_ep, d));
            /* stiffer: the secant dp/dd beats the virgin tangent at the upper end */
            double virgin_slope = 1.0 / (K_ME * E_E * pow(p, K_ME - 1.0) +
                                         K_MP * E_P * pow(p, K_MP - 1.0) +
                                         K_MEP * E_L * pow(p, K_MEP - 1.0));
            min_stiffness_ratio = fmin(min_stiffness_ratio, (p - p_prev) / (d - d_prev) / virgin_slope);
        } else {
            n_above++;
            assert_true(rel(p_max_of(&dr), p) <= 1e-15);
            worst_above = fmax(worst_above, rel(d_virgin(p), d));
        }
        d_prev = d;
        p_prev = p;
    }
    print_message("reload from %g MPa: d_ep sticks until %.4f MPa; %d steps below the old "
                  "maximum (worst rel error of d(p) %.2e, smallest reload/virgin stiffness "
                  "%.3f), %d above it (worst rel error vs virgin curve %.2e)\n",
                  p_low / MPA, p_join_loading / MPA, n_below, worst_below, min_stiffness_ratio,
                  n_above, worst_above);
    assert_true(n_below > 100 && n_above > 100);
    assert_true(worst_below <= 1e-12 && worst_above <= 1e-12);
    assert_true(min_stiffness_ratio > 1.0);
    assert_true(rel(dr.p, P2) <= 1e-12);
}

/* The work integral of F dd along the prescribed steps (trapezoid) against the loop area
 * in closed form. The trapezoid rule is second order in the step: halving the step must
 * divide the error by about four, which shows that what is left is quadrature error. */
static double loop_work(int n, double P, double *second_cycle)
{
    driver dr = new_contact();
    double d_top = d_virgin(P), d_end = 0.5 * d_plastic_set(P), w1 = 0.0, w2 = 0.0;
    ramp(&dr, d_top, n, &w1); /* first cycle: virgin loading, full unloading */
    ramp(&dr, d_end, n, &w1);
    ramp(&dr, d_top, n, &w2); /* second cycle: reloading from p = 0, unloading */
    ramp(&dr, d_end, n, &w2);
    *second_cycle = w2;
    return w1;
}

static void dissipated_energy_equals_loop_area(void **state)
{
    table1_in_si();
    const double P = 20 * MPA;
    /* first cycle: virgin loading minus unloading; second: reloading from p = 0 (d_ep on
     * the loading curve from 0, d_p fixed) minus the same unloading */
    double area1 = AREA * (work_virgin(P) - work_unloading(P));
    double area2 = AREA * (work_term(E_E, K_ME, P) + work_term(E_L, K_MEP, P) - work_unloading(P));
    const int ns[3] = {5000, 10000, 20000};
    double err1[3], err2[3];
    for (int k = 0; k < 3; k++) {
        double w2, w1 = loop_work(ns[k], P, &w2);
        err1[k] = rel(w1, area1);
        err2[k] = rel(w2, area2);
        print_message("%5d steps a leg: first cycle work %.10e J vs loop area %.10e J (rel "
                      "diff %.2e); second cycle %.10e J vs %.10e J (%.2e)\n", ns[k], w1,
                      area1, err1[k], w2, area2, err2[k]);
    }
    print_message("error ratios on halving the step: first cycle %.2f %.2f (over both %.1f), "
                  "second %.2f %.2f (%.1f); input work %.6e J\n", err1[0] / err1[1],
                  err1[1] / err1[2], err1[0] / err1[2], err2[0] / err2[1], err2[1] / err2[2],
                  err2[0] / err2[2], AREA * work_virgin(P));
    assert_true(area1 > area2 && area2 > 0.0);
    /* What is left is the trapezoid error, O(h^2). Where d_ep changes stage F(d) has a
     * kink whose O(h^2) share depends on where in its step the kink falls, so the ratio
     * per halving wanders about 4; over two halvings it must be near 16 (above 8). The
     * coarsest errors (1.9e-8, 7.3e-8) extrapolated by 1/16 give ~5e-9 at the finest
     * step: 1e-8 allows a factor 2 for the kinks. A wrong loop (a missing stick stage, a
     * wrong plastic set) would leave an error that does not shrink with the step. */
    assert_true(err1[0] / err1[2] > 8.0 && err2[0] / err2[2] > 8.0);
    assert_true(err1[2] <= 1e-8 && err2[2] <= 1e-8);
}

static void setup_names_a_bad_parameter(void **state)
{
    const dem_law *law = law_find("kostek");
    assert_non_null(law);
    double good[LAW_MAX_PARAMS];
    for (int k = 0; k < law->n_params; k++) good[k] = law->params[k].default_value;
    law_coeffs c;
    char err[256];
    assert_int_equal(setup_with(law, good, &c, err, sizeof err), 0);
    const double bad_values[] = {0.0, -1.0, NAN, HUGE_VAL};
    for (int k = 0; k < law->n_params; k++)
        for (int b = 0; b < 4; b++) {
            double p[LAW_MAX_PARAMS];
            memcpy(p, good, sizeof p);
            p[k] = bad_values[b];
            err[0] = '\0';
            assert_int_equal(setup_with(law, p, &c, err, sizeof err), -1);
            assert_non_null(strstr(err, law->params[k].name));
        }
    /* the stick band needs e_ep_unl > e_ep_l */
    int l = law_param_index(law, "e_ep_l"), u = law_param_index(law, "e_ep_unl");
    double p[LAW_MAX_PARAMS];
    memcpy(p, good, sizeof p);
    p[u] = p[l];
    assert_int_equal(setup_with(law, p, &c, err, sizeof err), -1);
    print_message("e_ep_unl = e_ep_l: %s\n", err);
    assert_non_null(strstr(err, "e_ep_unl"));
    p[u] = 0.5 * p[l];
    assert_int_equal(setup_with(law, p, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "e_ep_unl"));
}

/* Contacts in different states in one batch give what each gives alone. */
static void batch_results_do_not_depend_on_neighbours(void **state)
{
    table1_in_si();
    driver a = new_contact(), b = new_contact();
    ramp(&a, d_virgin(20 * MPA), 50, NULL);
    ramp(&b, d_virgin(5 * MPA), 50, NULL);
    driver a1 = a, b1 = b;
    double da = 0.9 * a.d, db = 1.1 * b.d;
    step_to(&a1, da);
    step_to(&b1, db);
    double d[2] = {da, db}, rate[2] = {-0.1, 0.1}, v0[2] = {0.1, 0.1}, r[2] = {0.005, 0.005};
    double m[2] = {0.016, 0.016}, f[2], h[3][2];
    law_batch batch = {.n = 2, .overlap = d, .overlap_rate = rate, .impact_velocity = v0,
                       .r_eff = r, .m_eff = m, .force = f};
    for (int k = 0; k < 3; k++) {
        h[k][0] = a.h[k];
        h[k][1] = b.h[k];
        batch.history[k] = h[k];
    }
    a.law->force(&a.c, &batch);
    assert_true(f[0] == a1.p * AREA && f[1] == b1.p * AREA);
    for (int k = 0; k < 3; k++) assert_true(h[k][0] == a1.h[k] && h[k][1] == b1.h[k]);
}

/* Through the engine: two steel spheres at 0.1 m/s. The law is rate independent, so the
 * impact is fixed by energy alone: the largest pressure P solves (1/2) m* v0^2 =
 * A int p dd along the virgin curve, the rebound energy is A times the unloading work
 * from P, e^2 = unloading work / loading work, the peak force is A P and the largest
 * overlap d_virgin(P). */
static void engine_collision_matches_energy_balance(void **state)
{
    table1_in_si();
    const dem_law *law = law_find("kostek");
    assert_non_null(law);
    collision_spec sp;
    collision_defaults(&sp, law);
    sp.velocity = 0.1;
    collision_result r = collide(&sp);
    double m_eff = 0.5 * sp.density * 4.0 / 3.0 * M_PI * pow(sp.radius, 3);
    double target = 0.5 * m_eff * sp.velocity * sp.velocity / AREA, lo = 0.0, hi = 1e12;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (work_virgin(mid) < target) lo = mid; else hi = mid;
    }
    double P = 0.5 * (lo + hi), e = sqrt(work_unloading(P) / work_virgin(P));
    double lost = AREA * (work_virgin(P) - work_unloading(P));
    double lost_engine = 0.5 * m_eff * sp.velocity * sp.velocity * (1.0 - r.restitution_out * r.restitution_out);
    law_coeffs c;
    char err[256];
    double params[LAW_MAX_PARAMS];
    memcpy(params, sp.params, sizeof params);
    assert_int_equal(setup_with(law, params, &c, err, sizeof err), 0);
    double t_estimate = law->contact_time(&c, sp.radius / 2, m_eff, sp.velocity);
    print_message("engine: e %.6f (energy balance %.6f, rel diff %.2e), peak force %.5f N "
                  "(A P = %.5f N, %.2e), max overlap %.6e m (%.6e, %.2e)\n",
                  r.restitution_out, e, rel(r.restitution_out, e), r.peak_force, AREA * P,
                  rel(r.peak_force, AREA * P), r.max_overlap, d_virgin(P),
                  rel(r.max_overlap, d_virgin(P)));
    print_message("energy lost %.6e J (loop area %.6e J, %.2e); contact %.4e s, timestep "
                  "estimate %.4e s, dt %.3e s\n", lost_engine, lost, rel(lost_engine, lost),
                  r.contact_time, t_estimate, r.dt);
    assert_true(r.restitution_out > 0.0 && r.restitution_out < 1.0 && r.peak_force > 0.0);
    /* measured ~3e-9 at the engine's default 4000 steps per estimated contact time;
     * 1e-6 leaves room for the velocity-Verlet O(dt^2) error at other steps */
    assert_true(rel(r.restitution_out, e) <= 1e-6);
    assert_true(rel(lost_engine, lost) <= 2e-6);
    assert_true(rel(r.peak_force, AREA * P) <= 1e-6);
    assert_true(rel(r.max_overlap, d_virgin(P)) <= 1e-6);
    /* the estimate resolves the stiffest (stick) stage: shorter than the whole contact */
    assert_true(t_estimate > 0.0 && t_estimate < r.contact_time);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_table1_in_si),
        cmocka_unit_test(virgin_loading_follows_loading_curve),
        cmocka_unit_test(unloading_sticks_then_follows_unloading_curve_to_plastic_set),
        cmocka_unit_test(reloading_is_stiffer_and_rejoins_virgin_curve),
        cmocka_unit_test(dissipated_energy_equals_loop_area),
        cmocka_unit_test(setup_names_a_bad_parameter),
        cmocka_unit_test(batch_results_do_not_depend_on_neighbours),
        cmocka_unit_test(engine_collision_matches_energy_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
