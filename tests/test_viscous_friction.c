/* The two friction laws without a spring, against rigid-body mechanics: a steel sphere on
 * a steel floor (hertz_tti normal law) with
 * - the tangential law `viscous` (F = gamma_t m* v_t, capped at mu F_n): launched
 *   sliding without spin, its contact point's slip u first falls at the Coulomb rate
 *   3.5 mu g, and below u1 = mu g / gamma_t relaxes as u1 exp(-3.5 gamma_t t);
 * - the rolling law `viscous` (M = -eta_r w_r, capped at mu_r R F_n), no tangential
 *   friction: spinning about a horizontal axis, its spin first falls at the capped rate
 *   mu_r R m g / I, and below w1 = mu_r R m g / eta_r decays as w1 exp(-eta_r t / I),
 *   eta_r = 2 zeta_r sqrt(I_r k_r), I_r = I + m R^2, k_r = 2.25 mu_r^2 R^2 2 E* sqrt(R d). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/step/friction.h"
#include "engine/sim.h"
#include "world_helpers.h"

#define G 9.81
#define R 0.01
#define RHO 7800.0
#define YOUNG 2e11
#define POISSON 0.3

static double sphere_mass(void) { return RHO * 4.0 / 3.0 * M_PI * R * R * R; }

/* E* of the sphere on the floor (of the same steel: 1/E* = 2 (1 - nu^2) / E), and the
 * sphere's static Hertz overlap there */
static double floor_young_eff(void) { return YOUNG / (2.0 * (1.0 - POISSON * POISSON)); }

static double static_overlap(void)
{
    double k = 4.0 / 3.0 * floor_young_eff() * sqrt(R);
    return pow(sphere_mass() * G / k, 2.0 / 3.0);
}

static void floor_init(floor_world *w, contact_friction friction)
{
    memset(w, 0, sizeof *w);
    w->mat = (material){"steel", RHO, YOUNG, POISSON};
    w->bind = (law_binding){.law = law_find("hertz_tti"), .cohesion_removal = true,
                            .friction = friction};
    w->bind.params[0] = 0.3;
    w->floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    w->pos[2] = R - static_overlap();
    w->rad[0] = R;
    w->src = list_source(w->pos, w->vel, w->rad, 1);
    sim_config *c = &w->cfg;
    wire_world(c, &w->mat, &w->bind, &w->src, &w->floor, 1);
    c->gravity[2] = -G;
    c->impact_speed_estimate = 1.0;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -10.0; c->domain_max[a] = 10.0; }
    c->domain_min[2] = 0.0;
    c->domain_max[2] = 0.1;
}

static void make(sim *s, floor_world *w)
{
    char err[512];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

static void test_viscous_tangential_law(void **state)
{
    const double u0 = 0.2, mu = 0.3, gamma = 100.0;
    contact_friction f = {.mu = mu, .tangential = tangential_law_find("viscous")};
    assert_non_null(f.tangential);
    f.tangential_params[0] = gamma;
    floor_world w;
    floor_init(&w, f);
    w.vel[0] = u0;
    sim s;
    make(&s, &w);
    const double u1 = mu * G / gamma, rate = 3.5 * gamma;
    const double t1 = (u0 - u1) / (3.5 * mu * G), t_check = t1 + 2.0 / rate;
    double t_seen = NAN, u_check = NAN;
    while (s.time < t_check + 1.0 / rate) {
        sim_step(&s);
        double slip = s.p.vx[0] - s.p.wy[0] * R;
        if (isnan(t_seen) && slip <= u1) t_seen = s.time;
        if (isnan(u_check) && s.time >= t_check) u_check = slip;
    }
    double u_theory = u1 * exp(-2.0);
    print_message("slip reaches mu g / gamma_t at t = %.6f s (theory %.6f s); two relaxation "
                  "times later %.6e m/s (theory %.6e m/s)\n", t_seen, t1, u_check, u_theory);
    assert_true(fabs(t_seen - t1) / t1 < 0.01);
    assert_true(fabs(u_check - u_theory) / u_theory < 0.02);
    /* it ends rolling at 5/7 of the launch speed, as with a Coulomb slider */
    while (s.time < t_check + 10.0 / rate) sim_step(&s);
    print_message("rolls on at %.6f m/s (theory %.6f m/s)\n", s.p.vx[0], 5.0 / 7.0 * u0);
    assert_true(fabs(s.p.vx[0] - 5.0 / 7.0 * u0) < 1e-3 * u0);
    sim_free(&s);
}

static void test_viscous_rolling_law(void **state)
{
    const double w0 = 1.0, mu_r = 0.05, zeta = 0.3;
    contact_friction f = {.mu_rolling = mu_r, .rolling = rolling_law_find("viscous")};
    assert_non_null(f.rolling);
    f.rolling_params[0] = zeta;
    floor_world w;
    floor_init(&w, f);
    sim s;
    make(&s, &w);
    s.p.wx[0] = w0; /* spinning about x: all of it rolling, none twisting about z */
    const double m = sphere_mass(), inertia = 0.4 * m * R * R, d = static_overlap();
    const double k_r = 2.25 * mu_r * mu_r * R * R * 2.0 * floor_young_eff() * sqrt(R * d);
    const double eta_r = 2.0 * zeta * sqrt((inertia + m * R * R) * k_r);
    const double cap_rate = mu_r * R * m * G / inertia, w1 = mu_r * R * m * G / eta_r;
    const double t1 = (w0 - w1) / cap_rate, tau = inertia / eta_r, t_check = t1 + 2.0 * tau;
    double t_seen = NAN, w_check = NAN;
    while (s.time < t_check + tau) {
        sim_step(&s);
        if (isnan(t_seen) && s.p.wx[0] <= w1) t_seen = s.time;
        if (isnan(w_check) && s.time >= t_check) w_check = s.p.wx[0];
    }
    double w_theory = w1 * exp(-2.0);
    print_message("spin reaches the cap's end %.5f rad/s at t = %.6f s (theory %.6f s); two "
                  "decay times (%.3e s) later %.6e rad/s (theory %.6e rad/s)\n", w1, t_seen, t1,
                  tau, w_check, w_theory);
    assert_true(fabs(t_seen - t1) / t1 < 0.01);
    assert_true(fabs(w_check - w_theory) / w_theory < 0.02);
    /* no tangential friction: the centre never moved sideways */
    assert_true(fabs(s.p.vx[0]) + fabs(s.p.vy[0]) == 0.0);
    sim_free(&s);
}

/* Neither law stores energy, so all the work they take is dissipated: the kinetic
 * energy lost equals the work the tangential and rolling books hold. */
static void test_viscous_laws_book_their_work(void **state)
{
    contact_friction f = {.mu = 0.3, .tangential = tangential_law_find("viscous"),
                          .mu_rolling = 0.05, .rolling = rolling_law_find("viscous")};
    f.tangential_params[0] = 100.0;
    f.rolling_params[0] = 0.3;
    floor_world w;
    floor_init(&w, f);
    w.vel[0] = 0.2;
    sim s;
    make(&s, &w);
    s.p.wy[0] = -5.0; /* spinning backwards: slides and rolls against itself */
    double e0 = sim_kinetic_energy(&s);
    while (s.time < 0.05) sim_step(&s);
    double work[SIM_WORK_KINDS], lost = e0 - sim_kinetic_energy(&s);
    sim_contact_work(&s, work);
    print_message("kinetic energy lost %.6e J; tangential work %.6e J, rolling %.6e J\n", lost,
                  work[SIM_WORK_TANGENTIAL], work[SIM_WORK_ROLLING]);
    assert_true(lost > 0.5 * e0);
    assert_true(work[SIM_WORK_ROLLING] > 0.0);
    assert_true(fabs(work[SIM_WORK_TANGENTIAL] + work[SIM_WORK_ROLLING] - lost) < 0.01 * lost);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_viscous_tangential_law),
        cmocka_unit_test(test_viscous_rolling_law),
        cmocka_unit_test(test_viscous_laws_book_their_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
