/* The step the tangential and rolling springs allow (engine/checks/timestep_springs.c) against
 * closed forms and rigid-body mechanics: a linear tangential spring's limit is its
 * oscillation period over pi on the contact point's mass, a given step above it is
 * refused naming friction.stiffness, the stiffest accepted spring integrates an oblique
 * impact (finite, friction acting, the tangential impulse turning the sphere as a force
 * at its contact point does), and a blown-up rolling spring is named by its key. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/step/friction.h"
#include "engine/collide/pair_restitution.h"
#include "engine/sim.h"
#include "engine/checks/timestep.h"
#include "world_helpers.h"

#define RHO 7800.0
#define R1 0.01
#define R2 0.015

/* Two steel spheres of radii R1 and R2 apart on the x axis, elastic Hertz, linear
 * tangential spring k_t with no dashpot (e_t = 1), no gravity, impacts expected at 1 m/s. */
typedef struct pair_world {
    material mat;
    law_binding bind;
    particle_source src;
    double pos[6], vel[6], rad[2];
    sim_config cfg;
} pair_world;

static void pair_world_init(pair_world *w, double k_t)
{
    memset(w, 0, sizeof *w);
    w->mat = (material){"steel", RHO, 2e11, 0.3};
    w->bind = (law_binding){.law = law_find("hertz"), .cohesion_removal = true};
    const tangential_law *linear = tangential_law_find("linear");
    w->bind.friction = (contact_friction){.mu = 0.3, .tangential = linear};
    friction_param_defaults(linear->params, linear->n_params, w->bind.friction.tangential_params);
    w->bind.friction.tangential_params[0] = k_t; /* stiffness */
    w->bind.friction.tangential_params[2] = 1.0; /* restitution: no dashpot */
    double p[6] = {-0.02, 0, 0, 0.02, 0, 0};
    memcpy(w->pos, p, sizeof p);
    w->rad[0] = R1;
    w->rad[1] = R2;
    w->src = list_source(w->pos, w->vel, w->rad, 2);
    wire_world(&w->cfg, &w->mat, &w->bind, &w->src, NULL, 0);
    w->cfg.impact_speed_estimate = 1.0;
    for (int a = 0; a < 3; a++) { w->cfg.domain_min[a] = -0.1; w->cfg.domain_max[a] = 0.1; }
}

static double mass(double r) { return RHO * 4.0 / 3.0 * M_PI * r * r * r; }

/* A tangential force F at the contact point moves it by F (1/m + arm^2/I) per sphere:
 * the spring k_t oscillates on m_t = 1 / sum with period T = 2 pi sqrt(m_t / k_t), and
 * velocity Verlet is stable up to omega dt = 2, a step of T / pi. */
static void linear_spring_limit_is_its_period_over_pi(void **state)
{
    (void)state;
    const double k_t = 1e10;
    pair_world w;
    pair_world_init(&w, k_t);
    sim s;
    char err[1024];
    if (sim_place(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    timestep_spring sp;
    double t_s = timestep_springs(&s, timestep_impact_speed(&s), &sp);
    /* the step is taken for the smallest spheres of each material (as the contact
     * time is): two of radius R1 */
    double d = sp.overlap, per = 0.0;
    const double r[2] = {R1, R1};
    for (int i = 0; i < 2; i++) {
        double m = mass(r[i]), inertia = 0.4 * m * r[i] * r[i], arm = r[i] - 0.5 * d;
        per += 1.0 / m + arm * arm / inertia;
    }
    double m_t = 1.0 / per, period = 2.0 * M_PI * sqrt(m_t / k_t);
    print_message("k_t %g N/m on m_t %.6g kg (2/7 m* = %.6g kg): period %.6g s, limit %.6g s, "
                  "step %.6g s\n", k_t, m_t, 2.0 / 7.0 * 0.5 * mass(R1),
                  period, t_s, s.dt);
    assert_true(d > 0.0 && d < 0.01 * R1);
    assert_true(fabs(t_s - period / M_PI) <= 1e-12 * t_s);
    assert_int_equal(sp.binding, 0);
    assert_int_equal(sp.rolling, 0);
    assert_int_equal(sp.by_damping, 0);
    /* it sets the limit, and the automatic step is half of it */
    assert_true(s.dt_limit == t_s);
    assert_true(fabs(s.dt - 0.5 * t_s) <= 1e-15 * t_s);
    sim_free(&s);

    /* a given step above it is refused, naming the key; just below it, accepted */
    w.cfg.dt = 1.01 * t_s;
    assert_int_equal(sim_place(&s, &w.cfg, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "contacts[0].friction.stiffness = 1e+10: the tangential spring"));
    assert_non_null(strstr(err, "time.step ="));
    char limit[64];
    snprintf(limit, sizeof limit, "up to %.4g s", t_s);
    assert_non_null(strstr(err, limit));
    sim_free(&s);
    w.cfg.dt = 0.99 * t_s;
    if (sim_place(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    sim_free(&s);
}

/* The stiffest spring a case may give (FRICTION_MAX_STIFFNESS) on a steel sphere hitting
 * a steel plane at 45 degrees, at the automatic step: it leaves with finite velocity and
 * spin, friction has acted (its tangential velocity changed), and the tangential impulse
 * J changed m v_x by J and I w_y by -arm J (a force at the contact point: any spring,
 * however stiff, obeys it), with no energy gained. */
static void stiffest_spring_integrates_an_oblique_impact(void **state)
{
    (void)state;
    floor_world w;
    memset(&w, 0, sizeof w);
    w.mat = (material){"steel", RHO, 2e11, 0.3};
    w.bind = (law_binding){.law = law_find("hertz"), .cohesion_removal = true};
    const tangential_law *linear = tangential_law_find("linear");
    w.bind.friction = (contact_friction){.mu = 0.3, .tangential = linear};
    friction_param_defaults(linear->params, linear->n_params, w.bind.friction.tangential_params);
    w.bind.friction.tangential_params[0] = linear->params[0].max_value;
    assert_true(linear->params[0].max_value == FRICTION_MAX_STIFFNESS);
    w.floor = (wall_spec){.kind = WALL_PLANE, .normal = {0, 0, 1}};
    const double v = 1.0;
    w.pos[2] = R1 + 1e-5;
    w.vel[0] = v;
    w.vel[2] = -v;
    w.rad[0] = R1;
    w.src = list_source(w.pos, w.vel, w.rad, 1);
    wire_world(&w.cfg, &w.mat, &w.bind, &w.src, &w.floor, 1);
    for (int a = 0; a < 3; a++) { w.cfg.domain_min[a] = -1.0; w.cfg.domain_max[a] = 1.0; }
    w.cfg.domain_min[2] = 0.0;
    sim s;
    char err[1024];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    double m = mass(R1), inertia = 0.4 * m * R1 * R1;
    double e_in = 0.5 * m * 2.0 * v * v;
    int touched = 0;
    long n = 0;
    for (; n < 10000000 && !(touched && s.n_contacts == 0 && s.p.vz[0] > 0.0); n++) {
        sim_step(&s);
        touched |= s.n_contacts > 0;
    }
    double vx = s.p.vx[0], vz = s.p.vz[0], wy = s.p.wy[0];
    double e_out = 0.5 * m * (vx * vx + s.p.vy[0] * s.p.vy[0] + vz * vz) +
                   0.5 * inertia * (wy * wy + s.p.wx[0] * s.p.wx[0] + s.p.wz[0] * s.p.wz[0]);
    print_message("k_t %g N/m, step %.4g s (limit %.4g s), %ld steps: v_out (%.6g, %.6g) m/s, "
                  "w_y %.6g rad/s, energy out/in %.9f\n", FRICTION_MAX_STIFFNESS, s.dt,
                  s.dt_limit, n, vx, vz, wy, e_out / e_in);
    assert_true(touched && s.n_contacts == 0);
    assert_true(isfinite(vx) && isfinite(vz) && isfinite(wy));
    assert_true(fabs(vx - v) > 0.01 * v);  /* friction acted */
    assert_true(vz > 0.5 * v);             /* it bounced (elastic Hertz: about v) */
    /* I dw_y = -arm m dv_x, arm = R within the overlap (1e-4 of R here) */
    double expected_wy = -R1 * m * (vx - v) / inertia;
    assert_true(fabs(wy - expected_wy) <= 2e-3 * fabs(expected_wy));
    assert_true(e_out <= e_in * (1.0 + 1e-6));
    sim_free(&s);
}

/* A rolling spring that overflows (mu_r beyond the reader's bound, set in code) makes the
 * reference collision of its pair unusable: the message names contacts[0].rolling. */
static void unusable_rolling_spring_is_named(void **state)
{
    (void)state;
    pair_world w;
    pair_world_init(&w, 1e6);
    w.bind.law = law_find("hertz_tti");
    w.bind.params[law_param_index(w.bind.law, "restitution")] = 0.5;
    w.bind.friction.rolling = rolling_law_find("spring");
    w.bind.friction.mu_rolling = 0.1;
    friction_param_defaults(w.bind.friction.rolling->params, w.bind.friction.rolling->n_params,
                            w.bind.friction.rolling_params);
    sim s;
    char err[1024];
    if (sim_place(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    pair_restitution pr;
    assert_int_equal(pair_restitution_measure(&s, 0, &pr, err, sizeof err), 0);
    w.bind.friction.mu_rolling = 1e300; /* what the reader refuses: k_r overflows */
    assert_int_equal(pair_restitution_measure(&s, 0, &pr, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_true(strncmp(err, "contacts[0].rolling", 19) == 0);
    sim_free(&s);
    assert_int_equal(sim_place(&s, &w.cfg, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_true(strncmp(err, "contacts[0].rolling.coefficient = 1e+300", 40) == 0);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_spring_limit_is_its_period_over_pi),
        cmocka_unit_test(stiffest_spring_integrates_an_oblique_impact),
        cmocka_unit_test(unusable_rolling_spring_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
