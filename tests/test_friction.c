/* Friction and rolling resistance (models/tangential_*.c, models/rolling_*.c) against
 * rigid-body mechanics: a sphere launched sliding without spin on a plane, and a binary
 * oblique collision's conservation laws; the Mindlin-Deresiewicz microslip model against
 * its closed forms at constant normal force. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/step/friction.h"
#include "models/tangential_spring.h"
#include "engine/sim.h"
#include "engine/checks/timestep.h"
#include "world_helpers.h"

#define G 9.81

typedef floor_world plane_world;

/* A steel sphere (R = 1 cm) resting on a steel floor at its static Hertz overlap, moving
 * along x at v0 without spin; hertz_tti with e = 0.3 damps the normal direction. */
static void plane_world_init(plane_world *w, double v0, double mu, const char *rolling,
                             double mu_r)
{
    memset(w, 0, sizeof *w);
    double R = 0.01, rho = 7800, E = 2e11, nu = 0.3;
    w->mat = (material){"steel", rho, E, nu};
    w->bind = (law_binding){.law = law_find("hertz_tti"), .cohesion_removal = true};
    w->bind.params[0] = 0.3;
    w->bind.friction = (contact_friction){.mu = mu, .mu_rolling = mu_r,
                                          .rolling = rolling ? rolling_law_find(rolling) : NULL};
    w->floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    double m = rho * 4.0 / 3.0 * M_PI * R * R * R;
    double e_star = E / (1.0 - nu * nu); /* the wall has the same material */
    double k = 4.0 / 3.0 * e_star * sqrt(R);
    double d_static = pow(m * G / k, 2.0 / 3.0);
    w->pos[2] = R - d_static;
    w->vel[0] = v0;
    w->rad[0] = R;
    w->src = list_source(w->pos, w->vel, w->rad, 1);
    sim_config *c = &w->cfg;
    wire_world(c, &w->mat, &w->bind, &w->src, &w->floor, 1);
    c->gravity[2] = -G;
    c->impact_speed_estimate = v0;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -10.0; c->domain_max[a] = 10.0; }
    c->domain_min[2] = 0.0;
    c->domain_max[2] = 0.1;
}

static void make(sim *s, plane_world *w)
{
    char err[512];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

/* Sliding, the friction mu m g slows the centre and spins the sphere up until
 * v = w R: at t = 2 v0 / (7 mu g), with v = 5/7 v0. Then, with no rolling resistance,
 * it rolls on at that speed. */
static void test_sliding_sphere_starts_rolling(void **state)
{
    double v0 = 1.0, mu = 0.3, R = 0.01;
    plane_world w;
    plane_world_init(&w, v0, mu, NULL, 0.0);
    sim s;
    make(&s, &w);
    double t_roll = 2.0 * v0 / (7.0 * mu * G), t_seen = NAN;
    while (s.time < 2.0 * t_roll) {
        sim_step(&s);
        double slip = s.p.vx[0] - s.p.wy[0] * R; /* contact point speed (w_y > 0 rolls +x) */
        if (isnan(t_seen) && slip < 1e-3 * v0) t_seen = s.time;
    }
    print_message("rolls from t = %.6f s (theory %.6f s); v = %.6f m/s (theory %.6f)\n",
                  t_seen, t_roll, s.p.vx[0], 5.0 / 7.0 * v0);
    assert_true(fabs(t_seen - t_roll) / t_roll < 0.01);
    assert_true(fabs(s.p.vx[0] - 5.0 / 7.0 * v0) / v0 < 2e-3);
    assert_true(fabs(s.p.vx[0] - s.p.wy[0] * R) < 2e-3 * v0); /* rolling, not sliding */
    sim_free(&s);
}

/* With the constant rolling torque mu_r R F_n the sphere stops. Sliding phase:
 * v' = -mu g, w' = 5 g (mu - mu_r) / (2R), rolling from t1 = v0 / (g (3.5 mu - 2.5 mu_r));
 * then v' = -(5/7) mu_r g. The distance is v0 t1 - mu g t1^2 / 2 + v1^2 / (10/7 mu_r g). */
static void test_constant_rolling_torque_stops_sphere(void **state)
{
    double v0 = 0.5, mu = 0.3, mu_r = 0.05;
    plane_world w;
    plane_world_init(&w, v0, mu, "constant", mu_r);
    sim s;
    make(&s, &w);
    double t1 = v0 / (G * (3.5 * mu - 2.5 * mu_r)), v1 = v0 - mu * G * t1;
    double distance = v0 * t1 - 0.5 * mu * G * t1 * t1 + v1 * v1 / (10.0 / 7.0 * mu_r * G);
    double t_stop = t1 + v1 / (5.0 / 7.0 * mu_r * G);
    double e0 = sim_kinetic_energy(&s);
    while (s.time < 1.5 * t_stop && s.p.vx[0] > 1e-4 * v0) sim_step(&s);
    print_message("stops at x = %.5f m after %.4f s (theory %.5f m after %.4f s)\n", s.p.x[0],
                  s.time, distance, t_stop);
    assert_true(fabs(s.p.x[0] - distance) / distance < 0.01);
    assert_true(fabs(s.time - t_stop) / t_stop < 0.01);
    /* the energy balance: sliding friction took what the sliding phase lost, rolling
     * resistance the rest (the sphere stays on the floor, so gravity does no work) */
    double work[SIM_WORK_KINDS], lost = e0 - sim_kinetic_energy(&s);
    sim_contact_work(&s, work);
    double slide_loss = e0 - 0.5 * (7.0 / 5.0) * (4.0 / 3.0 * M_PI * 1e-6 * 7800) * v1 * v1;
    print_message("energy lost %.6e J: friction %.6e J (sliding phase lost %.6e), rolling "
                  "%.6e J\n", lost, work[SIM_WORK_TANGENTIAL], slide_loss, work[SIM_WORK_ROLLING]);
    assert_true(fabs(work[SIM_WORK_TANGENTIAL] + work[SIM_WORK_ROLLING] - lost) < 0.01 * lost);
    sim_free(&s);
}

/* A sphere rolling without slip at v0 (w_y = v0 / R) that also spins about the normal
 * (w_z = u / R). `liggghts_cdt`'s torque is mu_r R F_n |w_t| / |w| with its twist part
 * dropped, and nothing acts on w_z, so while rolling (5/7 of the torque over m R slows
 * the centre) dv/dt = -(5/7) mu_r g v / sqrt(v^2 + u^2), and v falls from v0 to v1 in
 *   t = 7 / (5 mu_r g) [G(v0) - G(v1)],  G(v) = sqrt(v^2 + u^2) - u ln((u + sqrt(v^2 + u^2)) / v)
 * (0.490 s from 0.2 to 0.1 m/s at u = 0.2 m/s and mu_r = 0.05), while `constant`, which
 * keeps the full mu_r R F_n whatever the twist, takes 7 (v0 - v1) / (5 mu_r g) (0.285 s). */
static double rolling_halving_time(const char *law, double v0, double u, double mu_r)
{
    double R = 0.01;
    plane_world w;
    plane_world_init(&w, v0, 0.5, law, mu_r);
    sim s;
    make(&s, &w);
    s.p.wy[0] = v0 / R;
    s.p.wz[0] = u / R;
    while (s.p.vx[0] > 0.5 * v0 && s.time < 5.0) sim_step(&s);
    double t = s.time, spin = s.p.wz[0];
    sim_free(&s);
    assert_true(fabs(spin - u / R) <= 1e-9 * u / R); /* no torque about the normal */
    return t;
}

static double twisted_rolling_g(double v, double u)
{
    double s = sqrt(v * v + u * u);
    return s - u * log((u + s) / v);
}

static void test_liggghts_cdt_rolling_with_twist(void **state)
{
    double v0 = 0.2, u = 0.2, mu_r = 0.05;
    double t_cdt = rolling_halving_time("liggghts_cdt", v0, u, mu_r);
    double t_constant = rolling_halving_time("constant", v0, u, mu_r);
    double t_untwisted = rolling_halving_time("liggghts_cdt", v0, 0.0, mu_r);
    double theory_cdt = 7.0 / (5.0 * mu_r * G) *
                        (twisted_rolling_g(v0, u) - twisted_rolling_g(0.5 * v0, u));
    double theory_constant = 7.0 * 0.5 * v0 / (5.0 * mu_r * G);
    print_message("v halves after %.5f s (theory %.5f s) with liggghts_cdt and a twist of "
                  "%g rad/s, %.5f s without it and %.5f s with constant (theory %.5f s)\n",
                  t_cdt, theory_cdt, u / 0.01, t_untwisted, t_constant, theory_constant);
    assert_true(fabs(t_cdt - theory_cdt) < 0.01 * theory_cdt);
    assert_true(fabs(t_constant - theory_constant) < 0.01 * theory_constant);
    assert_true(fabs(t_untwisted - theory_constant) < 0.01 * theory_constant);
}

/* ---- Mindlin-Deresiewicz microslip at constant normal force -------------------------
 * One contact driven through friction_force() by a prescribed tangential displacement
 * delta along x (normal z, overlap and normal force fixed, no dashpot). Mindlin &
 * Deresiewicz (1953), in Johnson's "Contact Mechanics" (1985) section 7.3 notation with
 * 1/G* = (2 - nu_1)/G_1 + (2 - nu_2)/G_2, a = sqrt(R* d), k0 = 8 G* a and the
 * displacement at full slip delta_s = 3 mu N / (16 G* a) = 3 mu N / (2 k0):
 *   virgin loading:   T = mu N [1 - (1 - delta/delta_s)^(3/2)]       (initial slope k0)
 *   unloading from (delta*, T*):
 *                     T = T* - 2 mu N [1 - (1 - (delta* - delta)/(2 delta_s))^(3/2)]
 *   one cycle between +-T* (t = T* / (mu N)) dissipates
 *     W = 6 mu^2 N^2 / (5 k0) [6 - 5t - (6 - t)(1 - t)^(2/3)]
 *       = 9 mu^2 N^2/(10 a) * 1/(8 G*) * 1/6 [...]   (Johnson eq. 7.65 with "+" in the
 *   last bracket; T*^3 / (36 a G* mu N) for small t, Johnson eq. 7.66). */
typedef struct md_rig {
    friction_coeffs fc;
    contact_kinematics k;
    double xi[3], theta[3], slip[FRICTION_SLIP_HISTORY];
    double delta, work; /* x displacement so far; work of the force on it, trapezoidal */
    double mu, N, k0, delta_s;
} md_rig;

static void md_rig_init(md_rig *r)
{
    memset(r, 0, sizeof *r);
    double young_eff = 1.1e11, shear_eff = 3.0e10;
    contact_friction spec = {.mu = 0.3, .tangential = tangential_law_find("mindlin_deresiewicz")};
    friction_set_tangential_param(&spec, "restitution", 1.0); /* e_t = 1: no dashpot */
    law_error why;
    assert_int_equal(friction_setup(&spec, young_eff, shear_eff, NAN, &r->fc, &why), 0);
    r->k = (contact_kinematics){.n = {0, 0, 1}, .d = 1e-6, .r_eff = 0.01, .m_eff = 1e-3,
                                .f_normal = 10.0};
    r->mu = 0.3;
    r->N = r->k.f_normal;
    r->k0 = 8.0 * shear_eff * sqrt(r->k.r_eff * r->k.d);
    r->delta_s = 3.0 * r->mu * r->N / (2.0 * r->k0);
}

/* Moves the contact by dx along x in one step; returns T = xi_x. */
static double md_step(md_rig *r, double dx)
{
    double f_t[3], m_r[3], power[2], before = r->xi[0];
    r->k.v_rel[0] = r->k.disp[0] = dx; /* j's contact point moves by dx relative to i's
                                          (in a step of 1 s) */
    friction_force(&r->fc, &r->k, r->xi, NULL, r->theta, r->slip, f_t, m_r, power);
    assert_true(f_t[0] == r->xi[0] && f_t[1] == 0.0 && f_t[2] == 0.0); /* no dashpot */
    r->delta += dx;
    r->work += 0.5 * (before + r->xi[0]) * dx;
    return r->xi[0];
}

static double md_loading(const md_rig *r, double delta)
{
    double u = 1.0 - delta / r->delta_s;
    return u <= 0.0 ? r->mu * r->N : r->mu * r->N * (1.0 - pow(u, 1.5));
}

static double md_unloading(const md_rig *r, double delta_star, double t_star, double delta)
{
    double u = 1.0 - (delta_star - delta) / (2.0 * r->delta_s);
    return t_star - 2.0 * r->mu * r->N * (1.0 - pow(u, 1.5));
}

/* Virgin loading: slope k0 at the start, Mindlin's curve, mu N from delta_s on. */
static void test_microslip_loading_curve(void **state)
{
    md_rig r;
    md_rig_init(&r);
    int n = 20000;
    double h = r.delta_s / n, worst = 0.0;
    double t1 = md_step(&r, h);
    double slope_err = fabs(t1 / h - r.k0) / r.k0;
    for (int s = 1; s < n; s++) {
        double t = md_step(&r, h);
        worst = fmax(worst, fabs(t - md_loading(&r, r.delta)));
    }
    double at_slip = r.xi[0];
    double beyond = 0.0;
    for (int s = 0; s < n / 4; s++) beyond = fmax(beyond, fabs(md_step(&r, h) - r.mu * r.N));
    print_message("k0 = %.6e N/m, delta_s = %.6e m: first-step slope error %.2e; loading "
                  "curve within %.3e mu N; T(delta_s) = %.8f mu N; beyond: within %.2e mu N\n",
                  r.k0, r.delta_s, slope_err, worst / (r.mu * r.N), at_slip / (r.mu * r.N),
                  beyond / (r.mu * r.N));
    assert_true(slope_err < 1e-12);
    assert_true(worst < 1e-4 * r.mu * r.N);
    assert_true(fabs(at_slip - r.mu * r.N) < 1e-4 * r.mu * r.N);
    assert_true(beyond < 1e-12 * r.mu * r.N); /* full slip: the force stays at mu N */
    assert_true(md_loading(&r, 0.5 * r.delta_s) < 0.7 * r.mu * r.N); /* the closed form bends */
}

/* Unloading follows the doubled curve from the turning point, reaches -T* where the
 * symmetric loop closes (Masing), and a cycle dissipates the closed-form W. */
static void test_microslip_cycle_dissipation(void **state)
{
    double fractions[] = {0.2, 0.6, 0.95};
    for (int f = 0; f < 3; f++) {
        md_rig r;
        md_rig_init(&r);
        double t = fractions[f], t_star = t * r.mu * r.N;
        double delta_star = r.delta_s * (1.0 - pow(1.0 - t, 2.0 / 3.0));
        int n = 40000;
        for (int s = 0; s < n; s++) md_step(&r, delta_star / n);
        double peak = r.xi[0];
        r.work = 0.0;
        double worst = 0.0;
        for (int s = 0; s < 2 * n; s++) {
            double tt = md_step(&r, -delta_star / n);
            worst = fmax(worst, fabs(tt - md_unloading(&r, delta_star, peak, r.delta)));
        }
        double trough = r.xi[0];
        for (int s = 0; s < 2 * n; s++) md_step(&r, delta_star / n);
        double back = r.xi[0];
        double w_theory = 6.0 * r.mu * r.mu * r.N * r.N / (5.0 * r.k0) *
                          (6.0 - 5.0 * t - (6.0 - t) * pow(1.0 - t, 2.0 / 3.0));
        print_message("T* = %.2f mu N: peak %.6f, after unloading %.6f, after reloading %.6f "
                      "mu N; unloading curve within %.2e mu N; loop %.6e J (theory %.6e J, "
                      "error %.2e)\n", t, peak / (r.mu * r.N), trough / (r.mu * r.N),
                      back / (r.mu * r.N), worst / (r.mu * r.N), r.work, w_theory,
                      fabs(r.work - w_theory) / w_theory);
        assert_true(fabs(peak - t_star) < 1e-4 * r.mu * r.N);
        assert_true(worst < 5e-5 * r.mu * r.N);
        assert_true(fabs(trough + peak) < 5e-5 * r.mu * r.N);
        assert_true(fabs(back - peak) < 5e-5 * r.mu * r.N);
        assert_true(fabs(r.work - w_theory) < 5e-5 * w_theory);
    }
}

/* The energy friction_spring_energy() reports is what the force gives back when
 * unloaded to zero now: integrate the model's own unloading. */
static void test_microslip_stored_energy(void **state)
{
    double fractions[] = {0.01, 0.5, 0.9};
    for (int f = 0; f < 3; f++) {
        md_rig r;
        md_rig_init(&r);
        double t = fractions[f];
        double delta_star = r.delta_s * (1.0 - pow(1.0 - t, 2.0 / 3.0));
        int n = 40000;
        for (int s = 0; s < n; s++) md_step(&r, delta_star / n);
        double energy[2];
        friction_spring_energy(&r.fc, r.k.d, r.k.r_eff, r.xi, r.theta, r.slip, energy);
        double peak = r.xi[0], spring = 0.5 * peak * peak / r.k0;
        r.work = 0.0;
        double h = delta_star / n;
        while (r.xi[0] > 0.0) md_step(&r, -h);
        /* the last step overshot zero: take back the part below it (linear) */
        double last = r.xi[0], slope = r.k0; /* theta ~ its value there */
        r.work -= 0.5 * last * (last / slope);
        double given_back = -r.work;
        print_message("T = %.2f mu N: stored %.6e J, the unloading gives back %.6e J "
                      "(error %.2e); a no-slip spring would hold %.6e J\n", t, energy[0],
                      given_back, fabs(energy[0] - given_back) / given_back, spring);
        assert_true(fabs(energy[0] - given_back) < 5e-5 * given_back);
        assert_true(energy[1] == 0.0);
    }
}

/* 3D: a contact loaded along x and then moved along y turns its force towards y and
 * slides there at mu N, never above it; turning the contact plane keeps |T|. */
static void test_microslip_force_turns(void **state)
{
    md_rig r;
    md_rig_init(&r);
    int n = 20000;
    for (int s = 0; s < n / 2; s++) md_step(&r, 0.5 * r.delta_s / n);
    double worst = 0.0, f_t[3], m_r[3], power[2];
    r.k.v_rel[0] = r.k.disp[0] = 0.0;
    for (int s = 0; s < 4 * n; s++) {
        r.k.v_rel[1] = r.k.disp[1] = r.delta_s / n;
        friction_force(&r.fc, &r.k, r.xi, NULL, r.theta, r.slip, f_t, m_r, power);
        worst = fmax(worst, sqrt(f_t[0] * f_t[0] + f_t[1] * f_t[1]) - r.mu * r.N);
    }
    double mag = sqrt(r.xi[0] * r.xi[0] + r.xi[1] * r.xi[1]);
    double angle = atan2(fabs(r.xi[0]), r.xi[1]);
    /* now tilt the normal by 0.1 rad about x, at rest: the force follows, same length */
    r.k.v_rel[1] = r.k.disp[1] = 0.0;
    r.k.n[1] = -sin(0.1); r.k.n[2] = cos(0.1);
    friction_force(&r.fc, &r.k, r.xi, NULL, r.theta, r.slip, f_t, m_r, power);
    double mag2 = sqrt(r.xi[0] * r.xi[0] + r.xi[1] * r.xi[1] + r.xi[2] * r.xi[2]);
    double normal_part = r.xi[0] * r.k.n[0] + r.xi[1] * r.k.n[1] + r.xi[2] * r.k.n[2];
    print_message("after sliding along y: |T| = %.9f mu N at %.2e rad from y (never above "
                  "mu N by more than %.1e N); tilted: |T| changed by %.1e, normal part %.1e N\n",
                  mag / (r.mu * r.N), angle, worst, fabs(mag2 - mag) / mag, normal_part);
    assert_true(worst <= 1e-12 * r.mu * r.N);
    assert_true(fabs(mag - r.mu * r.N) < 1e-9 * r.mu * r.N);
    assert_true(angle < 1e-2);
    assert_true(fabs(mag2 - mag) < 1e-12 * mag);
    assert_true(fabs(normal_part) < 1e-12 * mag);
}

/* The force loop's batch (friction_force_batch) on contacts in every state at once, some
 * sticking, some sliding, some turning, some starting to slide (a margin kept from the
 * last step: the closing bump), with their springs and margins scattered through longer
 * arrays (slot), must give each contact exactly what friction_force gives it alone, and
 * leave the springs and margins of other slots alone. */
static void test_batch_matches_single_contacts(void **state)
{
    enum { N = 7, SLOTS = 12 };
    friction_coeffs fc;
    contact_friction spec = {.mu = 0.4, .rolling = rolling_law_find("constant"), .mu_rolling = 0.05};
    law_error why;
    assert_int_equal(friction_setup(&spec, 1e9, 4e8, 0.6, &fc, &why), 0);
    assert_true(friction_batchable(&fc));
    const uint32_t slot[N] = {9, 0, 4, 11, 2, 7, 5};
    double xi[3][SLOTS], margin[SLOTS], d[N], r_eff[N], m_eff[N], fn[N], nrm[3][N], v[3][N],
        w[3][N];
    double disp[3][N];
    for (int k = 0; k < SLOTS; k++) {
        for (int a = 0; a < 3; a++) xi[a][k] = 1e-6 * sin(1.0 + k + 3.7 * a);
        margin[k] = k % 2 ? 1e-3 * (1 + k) : 0.0; /* slots 9, 11, 7, 5 stuck last step */
    }
    for (int q = 0; q < N; q++) {
        double t = 0.9 * q, len = sqrt(1.0 + sin(t) * sin(t) + 0.25);
        nrm[0][q] = 1.0 / len; nrm[1][q] = sin(t) / len; nrm[2][q] = 0.5 / len;
        d[q] = 1e-6 * (1 + q);
        r_eff[q] = 1e-3 * (1 + 0.1 * q);
        m_eff[q] = 1e-4 * (2 + q);
        fn[q] = q == 3 ? 0.0 : 0.01 * (q % 3 + 1) * (q == 5 ? 1e-4 : 1.0); /* 5 slides */
        for (int a = 0; a < 3; a++) {
            v[a][q] = 0.01 * cos(q + 2.0 * a) * (q == 1 ? 100.0 : 1.0);  /* 1 slides */
            w[a][q] = q == 6 ? 0.0 : cos(3.0 * q + a);                   /* 6 does not roll */
            disp[a][q] = 1e-5 * v[a][q] * (1.0 + 0.1 * sin(q + a)); /* not v dt exactly */
        }
    }
    double expect_xi[3][SLOTS], expect_margin[SLOTS];
    memcpy(expect_xi, xi, sizeof xi);
    memcpy(expect_margin, margin, sizeof margin);
    double f_t[3][N], m_r[3][N], power[2][N];
    friction_batch b = {.n = N, .d = d, .r_eff = r_eff, .m_eff = m_eff,
                        .f_normal = fn, .margin = margin, .slot = slot,
                        .power = {power[0], power[1]},
                        .dt = 1e-7};
    for (int a = 0; a < 3; a++) {
        b.normal[a] = nrm[a]; b.v_rel[a] = v[a]; b.w_rel[a] = w[a]; b.disp[a] = disp[a];
        b.xi[a] = xi[a]; b.f_t[a] = f_t[a]; b.m_r[a] = m_r[a];
    }
    friction_force_batch(&fc, &b);
    int slid = 0, kinked = 0;
    for (int q = 0; q < N; q++) {
        contact_kinematics k = {.n = {nrm[0][q], nrm[1][q], nrm[2][q]}, .d = d[q],
                                .r_eff = r_eff[q], .m_eff = m_eff[q], .f_normal = fn[q],
                                .dt = 1e-7};
        for (int a = 0; a < 3; a++) {
            k.v_rel[a] = v[a][q];
            k.w_rel[a] = w[a][q];
            k.disp[a] = disp[a][q];
        }
        double one_xi[3] = {expect_xi[0][slot[q]], expect_xi[1][slot[q]], expect_xi[2][slot[q]]};
        double theta[3] = {0, 0, 0}, one_f[3], one_m[3], one_p[2];
        double stuck = expect_margin[slot[q]];
        friction_force(&fc, &k, one_xi, &expect_margin[slot[q]], theta, NULL, one_f, one_m,
                       one_p);
        for (int a = 0; a < 3; a++) {
            expect_xi[a][slot[q]] = one_xi[a];
            assert_memory_equal(&f_t[a][q], &one_f[a], sizeof(double));
            assert_memory_equal(&m_r[a][q], &one_m[a], sizeof(double));
        }
        assert_memory_equal(&power[0][q], &one_p[0], sizeof(double));
        assert_memory_equal(&power[1][q], &one_p[1], sizeof(double));
        double f = sqrt(one_f[0] * one_f[0] + one_f[1] * one_f[1] + one_f[2] * one_f[2]);
        if (fn[q] > 0.0 && expect_margin[slot[q]] == 0.0) {
            slid++;
            kinked += stuck > 0.0 && f > fc.mu * fn[q] * (1.0 + 1e-12);
        }
    }
    assert_memory_equal(xi, expect_xi, sizeof xi); /* slots 1, 3, 6, 8, 10 untouched too */
    assert_memory_equal(margin, expect_margin, sizeof margin);
    assert_true(slid >= 2);   /* the batch did cover sliding contacts */
    assert_true(kinked >= 1); /* and one that starts to slide */
}

/* Mindlin's batch runs the Coulomb cap as selects (tangential_spring_lane), the fused
 * pass and the contacts the lanes hand over as a branch (tangential_spring_force): on
 * contacts that stick, slide, have no spring yet, no stiffness or no normal force, the
 * two must give the same bits; the lane form must hand over exactly the contacts that
 * start to slide (the closing bump) and a sliding contact whose trial force's square
 * overflows. 2,000 generated contacts, a fixed sequence. */
static void test_cap_lanes_match_branch(void **state)
{
    uint64_t x = 88172645463325252ull; /* xorshift64 */
    int slid = 0, stuck = 0, kinked = 0;
    for (int q = 0; q < 2000; q++) {
        double r[20];
        for (int k = 0; k < 20; k++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            r[k] = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
        }
        double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]) + 1e-3;
        const double n[3] = {(r[0] + 1e-3) / len, r[1] / len, r[2] / len};
        const double u[3] = {0.1 * r[3], 0.1 * r[4], 0.1 * r[5]};
        const double p[3] = {1e-6 * r[6], 1e-6 * r[7], 1e-6 * r[8]};
        double s_in[3] = {1e-5 * r[9], 1e-5 * r[10], 1e-5 * r[11]};
        if (q % 7 == 0) s_in[0] = s_in[1] = s_in[2] = 0.0;            /* a first step */
        double k_t = q % 11 == 0 ? 0.0 : 1e4 * (1.5 + r[12]);
        double eta_t = 0.3 * (1.5 + r[13]), mu = 0.3 + 0.2 * r[14];
        double relax = q % 5 == 0 ? 0.0 : eta_t * 1e5 * (1.5 + r[17]); /* eta_t / dt */
        double mu_s = mu * (1.0 + 0.5 * fabs(r[15]));
        double fn = q % 13 == 0 ? 0.0 : 0.2 * (1.0 + r[16]) * (q % 3 ? 1.0 : 1e-3);
        double stuck_before = q % 2 ? 0.05 * fn * (1.0 + r[18]) : 0.0; /* a last margin */
        double s_lane[3], f_lane[3], p_lane, m_lane, s_branch[3] = {s_in[0], s_in[1], s_in[2]};
        double f_branch[3], m_branch = stuck_before;
        int big = tangential_spring_lane(n, u, p, s_in, k_t, eta_t, relax, mu, mu_s, fn,
                                         stuck_before, s_lane, f_lane, &m_lane, &p_lane);
        double p_branch = tangential_spring_force(n, u, p, s_branch, k_t, eta_t, relax, mu, mu_s,
                                                  fn, &m_branch, f_branch);
        assert_int_equal(big, m_branch == 0.0 && fn > 0.0 && stuck_before > 0.0);
        assert_memory_equal(&m_lane, &m_branch, sizeof m_lane);
        if (!big) {
            assert_memory_equal(s_lane, s_branch, sizeof s_lane);
            assert_memory_equal(f_lane, f_branch, sizeof f_lane);
            assert_memory_equal(&p_lane, &p_branch, sizeof p_lane);
        }
        memcpy(f_lane, f_branch, sizeof f_lane);
        double f = sqrt(f_lane[0] * f_lane[0] + f_lane[1] * f_lane[1] + f_lane[2] * f_lane[2]);
        if (fn > 0.0 && m_lane == 0.0) {
            slid++;
            kinked += stuck_before > 0.0;
            /* a bump only where it stuck before */
            if (stuck_before == 0.0) assert_true(fabs(f - mu * fn) <= 1e-12 * mu * fn);
        } else {
            stuck++;
        }
    }
    print_message("%d contacts slid (%d of them just started to), %d stuck\n", slid, kinked,
                  stuck);
    assert_true(slid > 200 && stuck > 200 && kinked > 100);
    /* a trial force of 1e160 N: its square overflows, and the lane form says so */
    const double n[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, huge_spring[3] = {1e156, 0, 0};
    double s_out[3], f_out[3], m_out, pw;
    assert_int_equal(tangential_spring_lane(n, zero, zero, huge_spring, 1e4, 0.0, 0.0, 0.5, 0.5,
                                            1.0, 0.0, s_out, f_out, &m_out, &pw), 1);
}

/* ---- the order of the springs' time integration --------------------------------------
 * An oblique impact of an alumina sphere (R = 2.5 mm, 3.9 m/s: Chung & Ooi's test 4) on
 * a plane, resolved by N = 50, 100 and 200 steps per contact time (50: the step `run`
 * chooses) against the same impact at N = 20000. The springs grow by the contact points'
 * mid-step displacement (friction.h), so the tangential restitution's error must fall at
 * least 3.5-fold per halving of the step (second order; the end-of-step velocity gave
 * 2-fold). The tangential dashpot is off (e_t = 1): with it, every contact slides at
 * first touch until its d^(1/4) dashpot force falls below mu F_n ~ d^(3/2), a phase of
 * the model that no step near t_c / 50 resolves. Where Coulomb's cap switches on and off
 * (partial slip at larger angles) the error is smaller still but not smooth in dt (at
 * 20 degrees and mu = 0.092: 1e-5 at N = 50, with no order to measure).
 * oblique_rebound returns v_x / v_x0 after the rebound, and the spin. */
typedef struct oblique_impact {
    double angle_deg, mu, spin0, mu_r;
    const char *rolling; /* a rolling law, or NULL */
    int dashpot;         /* the tangential dashpot of the law's restitution, else e_t = 1 */
} oblique_impact;

static void oblique_rebound(const oblique_impact *im, double steps_per_contact, double *e_t,
                            double *spin)
{
    plane_world w;
    memset(&w, 0, sizeof w);
    double R = 0.0025, v = 3.9, th = im->angle_deg * M_PI / 180.0;
    w.mat = (material){"alumina", 4000.0, 3.8e11, 0.23};
    w.bind = (law_binding){.law = law_find("exact"), .cohesion_removal = true};
    w.bind.params[law_param_index(w.bind.law, "restitution")] = 0.98;
    w.bind.params[law_param_index(w.bind.law, "exponent")] = 1.5;
    w.bind.params[law_param_index(w.bind.law, "v_floor")] = 1e-3;
    w.bind.friction = (contact_friction){.mu = im->mu, .mu_rolling = im->mu_r,
                                         .rolling = im->rolling ? rolling_law_find(im->rolling)
                                                                : NULL};
    if (!im->dashpot) friction_set_tangential_param(&w.bind.friction, "restitution", 1.0);
    w.floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    w.pos[2] = R * (1.0 + 1e-3);
    w.vel[0] = v * sin(th);
    w.vel[2] = -v * cos(th);
    w.rad[0] = R;
    double spin0[3] = {0.0, im->spin0, 0.0};
    w.src = list_source(w.pos, w.vel, w.rad, 1);
    w.src.list_angular_velocity = spin0;
    sim_config *c = &w.cfg;
    wire_world(c, &w.mat, &w.bind, &w.src, &w.floor, 1);
    c->impact_speed_estimate = v * cos(th);
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -0.05; c->domain_max[a] = 0.05; }
    c->domain_min[2] = 0.0;
    sim s;
    make(&s, &w);
    double t_c = timestep_contact_time(&s, v * cos(th));
    char err[256];
    assert_int_equal(sim_set_timestep(&s, t_c / steps_per_contact, err, sizeof err), 0);
    int touched = 0;
    for (long n = 0; n < 100 * (long)steps_per_contact; n++) {
        sim_step(&s);
        double gap = s.p.z[0] - R;
        if (gap < 0.0) touched = 1;
        if (touched && gap > 1e-3 * R) break;
    }
    assert_true(touched && s.p.z[0] > R);
    *e_t = s.p.vx[0] / w.vel[0];
    *spin = s.p.wy[0];
    sim_free(&s);
}

static void test_springs_second_order(void **state)
{
    const oblique_impact cases[] = {
        {5.0, 0.2, 0.0, 0.0, NULL, 0},         /* sticks, slides as it ends */
        {10.0, 0.2, 0.0, 0.0, NULL, 0},        /* slides longer at both ends */
        {10.0, 0.5, -200.0, 0.05, "spring", 0}, /* spinning: the rolling spring */
    };
    int failed = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double ref_et, ref_w, et[3], wy[3], err[3], err_w[3];
        oblique_rebound(&cases[k], 20000.0, &ref_et, &ref_w);
        for (int h = 0; h < 3; h++) {
            oblique_rebound(&cases[k], 50.0 * (1 << h), &et[h], &wy[h]);
            err[h] = fabs(et[h] - ref_et);
            err_w[h] = fabs(wy[h] - ref_w);
        }
        print_message("%4.0f deg, mu %.3f, spin %g, rolling %s: e_t %.8f (N = 20000); errors "
                      "at N = 50, 100, 200: %.2e %.2e %.2e (ratios %.2f, %.2f); spin %.4f, "
                      "errors %.2e %.2e %.2e\n",
                      cases[k].angle_deg, cases[k].mu, cases[k].spin0,
                      cases[k].rolling ? cases[k].rolling : "none",
                      ref_et, err[0], err[1], err[2], err[0] / err[1], err[1] / err[2], ref_w,
                      err_w[0], err_w[1], err_w[2]);
        failed += !(err[0] >= 3.5 * err[1]) + !(err[1] >= 3.5 * err[2]);
    }
    assert_int_equal(failed, 0);
}

/* ---- the spring in the stick regime --------------------------------------------------
 * Chung & Ooi's test 4 (alumina, e = 0.98, mu = 0.092, 3.9 m/s) at 5 and 10 degrees from
 * the normal, with Mindlin's tangential dashpot (e_t = e): the contact sticks for most of
 * its time and changes between sticking and sliding near the cap. The rebound spin must
 * converge as the step shrinks, against the same impact at N = 64000 steps per contact
 * time. A spring reset that stored the dashpot's share at each sliding step missed all of
 * these (models/tangential_spring.h):
 *   - N = 4000 (collide's default) and 16000 agree within 0.01 rad/s;
 *   - at both angles the error falls at least 3-fold per halving from N = 20 to 160;
 *   - at 10 degrees the contact changes from sticking to sliding while its points still
 *     move apart: a kink in the force that a step meets at any phase. Without the closing
 *     bump (tangential_spring.h) the error of one N jumped up and down as N grew (0.384,
 *     0.334, 0.0268, 0.0271 rad/s at N = 20, 40, 80, 160; 4.8e-3 at N = 95, 4.2e-2 at
 *     113). So there the steps between are run too (four per octave, N 2^(q/4)), and the
 *     largest error over an octave must fall at least 27-fold from [20, 40) to
 *     [160, 320): 3-fold per halving whatever the phase. */
static double spin_error(double angle_deg, double steps, double ref)
{
    const oblique_impact im = {angle_deg, 0.092, 0.0, 0.0, NULL, 1};
    double e_t, w;
    oblique_rebound(&im, steps, &e_t, &w);
    return fabs(w - ref);
}

static void test_stick_regime_converges(void **state)
{
    int failed = 0;
    for (int k = 0; k < 2; k++) {
        const double angle = k ? 10.0 : 5.0;
        const oblique_impact im = {angle, 0.092, 0.0, 0.0, NULL, 1};
        double e_t, ref, w4000, w16000, worst[4];
        oblique_rebound(&im, 64000.0, &e_t, &ref);
        oblique_rebound(&im, 4000.0, &e_t, &w4000);
        oblique_rebound(&im, 16000.0, &e_t, &w16000);
        failed += !(fabs(w4000 - w16000) <= 0.01);
        print_message("%4.0f deg: spin %.6f rad/s (N = 64000), N = 4000 vs 16000: %.1e\n",
                      angle, ref, fabs(w4000 - w16000));
        double at[4];
        for (int o = 0; o < 4; o++) {
            double n = 20.0 * (1 << o);
            worst[o] = at[o] = spin_error(angle, n, ref);
            print_message("    N = %6.1f: error %.2e\n", n, at[o]);
            for (int q = 1; q < 4 && k; q++) {
                double err = spin_error(angle, n * pow(2.0, q / 4.0), ref);
                worst[o] = fmax(worst[o], err);
                print_message("    N = %6.1f: error %.2e\n", n * pow(2.0, q / 4.0), err);
            }
        }
        for (int o = 0; o + 1 < 4; o++) failed += !(at[o] >= 3.0 * at[o + 1]);
        if (k) failed += !(worst[0] >= 27.0 * worst[3]);
        print_message("    errors at N = 20, 40, 80, 160: %.2e %.2e %.2e %.2e (ratios %.1f %.1f "
                      "%.1f)\n", at[0], at[1], at[2], at[3], at[0] / at[1], at[1] / at[2],
                      at[2] / at[3]);
        if (k)
            print_message("    largest error per octave: %.2e %.2e %.2e %.2e (%.0f-fold over "
                          "three)\n", worst[0], worst[1], worst[2], worst[3], worst[0] / worst[3]);
    }
    assert_int_equal(failed, 0);
}

/* What the engine and the reader take for granted of every registered tangential and
 * rolling law (models/friction_law.h), so that a law added wrongly fails here rather than
 * in a run: a unique name, a citation, a setup, exactly one of a batch or a per-contact
 * force (a law with state has no batch), its keys within FRICTION_MAX_PARAMS and none named
 * as the fixed keys, its state within FRICTION_SLIP_HISTORY. */
static void check_keys(const char *name, const law_param *params, int n)
{
    if (n > FRICTION_MAX_PARAMS) fail_msg("%s: %d keys", name, n);
    for (int k = 0; k < n; k++)
        if (!strcmp(params[k].name, "coefficient") || !strcmp(params[k].name, "model"))
            fail_msg("%s: key '%s' is one of the fixed keys", name, params[k].name);
}

static void test_registry_is_consistent(void **state)
{
    assert_true(tangential_law_count() >= 1 && rolling_law_count() >= 1);
    for (int k = 0; k < tangential_law_count(); k++) {
        const tangential_law *t = tangential_law_at(k);
        assert_ptr_equal(tangential_law_find(t->name), t);
        assert_true(t->source && *t->source && t->summary && t->setup);
        assert_true((t->batch != NULL) != (t->one != NULL));
        assert_true(t->n_state >= 0 && t->n_state <= FRICTION_SLIP_HISTORY);
        assert_true(t->n_state == 0 || t->batch == NULL);
        check_keys(t->name, t->params, t->n_params);
    }
    for (int k = 0; k < rolling_law_count(); k++) {
        const rolling_law *r = rolling_law_at(k);
        assert_ptr_equal(rolling_law_find(r->name), r);
        assert_true(r->source && *r->source && r->summary && r->setup);
        assert_true((r->batch != NULL) != (r->one != NULL));
        /* a batch has no turn or inertia */
        assert_true(r->batch == NULL || !law_has(&r->plugin, LAW_CAP_USES_TURN));
        check_keys(r->name, r->params, r->n_params);
    }
    assert_null(tangential_law_find("no_such_law"));
    assert_null(rolling_law_find("no_such_law"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_sphere_starts_rolling),
        cmocka_unit_test(test_cap_lanes_match_branch),
        cmocka_unit_test(test_constant_rolling_torque_stops_sphere),
        cmocka_unit_test(test_liggghts_cdt_rolling_with_twist),
        cmocka_unit_test(test_microslip_loading_curve),
        cmocka_unit_test(test_microslip_cycle_dissipation),
        cmocka_unit_test(test_microslip_stored_energy),
        cmocka_unit_test(test_microslip_force_turns),
        cmocka_unit_test(test_batch_matches_single_contacts),
        cmocka_unit_test(test_springs_second_order),
        cmocka_unit_test(test_stick_regime_converges),
        cmocka_unit_test(test_registry_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
