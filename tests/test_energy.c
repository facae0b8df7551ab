/* The engine's energy balance (sim.work, sim_stored_energy): the work done on the
 * contacts accounts for the kinetic energy the particles lose, and what an elastic law
 * takes it gives back. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/step/observables.h"
#include "engine/sim.h"
#include "world_helpers.h"

typedef struct pair_world {
    material mat;
    law_binding bind;
    particle_source src;
    double pos[6], vel[6], rad[2];
    sim_config cfg;
} pair_world;

/* Two steel spheres (R = 1 cm) meeting at relative speed v, offset sideways by `offset`
 * of a diameter (an oblique impact when > 0). */
static void pair_world_init(pair_world *w, const char *law, double e, double mu,
                            double offset)
{
    memset(w, 0, sizeof *w);
    double R = 0.01;
    w->mat = (material){"steel", 7800, 2e11, 0.3};
    w->bind = (law_binding){.law = law_find(law), .cohesion_removal = true,
                            .friction = {.mu = mu, .rolling = mu > 0 ? rolling_law_find("spring") : NULL,
                                         .mu_rolling = mu > 0 ? 0.1 : 0.0,
                                         .rolling_params = {0.3}}};
    if (e > 0) w->bind.params[0] = e;
    double gap = 1e-4, y = offset * 2 * R;
    double pos[6] = {-R - gap, -y / 2, 0, R + gap, y / 2, 0}, vel[6] = {0.5, 0, 0, -0.5, 0, 0};
    memcpy(w->pos, pos, sizeof pos);
    memcpy(w->vel, vel, sizeof vel);
    w->rad[0] = w->rad[1] = R;
    w->src = list_source(w->pos, w->vel, w->rad, 2);
    sim_config *c = &w->cfg;
    wire_world(c, &w->mat, &w->bind, &w->src, NULL, 0);
    c->impact_speed_estimate = 1.0;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -0.1; c->domain_max[a] = 0.1; }
}

static double total_work(const sim *s)
{
    double work[SIM_WORK_KINDS], w = 0.0;
    sim_contact_work(s, work);
    for (int q = 0; q < SIM_WORK_KINDS; q++) w += work[q];
    return w;
}

static double mechanical_energy(const sim *s)
{
    return sim_kinetic_energy(s); /* translational + rotational, no gravity here */
}

/* Creates the world's simulation and steps it through the impact until the spheres are
 * apart again; returns the mechanical energy before it. */
static double run_impact(sim *s, pair_world *w)
{
    char err[256];
    if (sim_create(s, &w->cfg, err, sizeof err) != 0) fail_msg("%s", err);
    double e0 = mechanical_energy(s);
    int touched = 0;
    for (int n = 0; n < 400000; n++) {
        sim_step(s);
        if (s->max_overlap > 0.0) touched = 1;
        if (touched && s->max_overlap <= 0.0) break;
    }
    assert_true(touched);
    return e0;
}

/* Elastic Hertz, head on: the kinetic energy lost at every step is what the contact
 * stores (2/5 K d^(5/2)); the law has no dashpot, so no work is booked as dissipated
 * (exactly 0) and what the integration makes or loses is the balance's residual
 * (sim_observe: E + stored - E(0)), within velocity Verlet's error. */
static void test_elastic_contact_gives_back_its_work(void **state)
{
    pair_world w;
    pair_world_init(&w, "hertz", 0.0, 0.0, 0.0);
    sim s;
    char err[256];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    /* 500 steps per contact: velocity Verlet's own energy error is then ~1e-5 */
    if (sim_set_timestep(&s, s.dt / 10.0, err, sizeof err) != 0) fail_msg("%s", err);
    double e0 = mechanical_energy(&s), worst = 0.0, peak = 0.0;
    for (int n = 0; n < 200000 && (s.max_overlap > 0.0 || s.time < 1e-3); n++) {
        sim_step(&s);
        double stored[SIM_STORED_KINDS];
        sim_stored_energy(&s, stored);
        double work[SIM_WORK_KINDS];
        sim_contact_work(&s, work);
        for (int q = 0; q < SIM_WORK_KINDS; q++) assert_true(work[q] == 0.0);
        assert_true(stored[SIM_WORK_NORMAL] == 0.0);
        double held = stored[SIM_STORED_CONSERVATIVE];
        peak = fmax(peak, held);
        sim_observables o = {0};
        sim_observe(&s, &o);
        assert_true(o.dissipated_damping == 0.0);
        double residual = mechanical_energy(&s) + held - e0;
        assert_true(fabs(o.energy_residual - residual) < 1e-12 * e0);
        worst = fmax(worst, fabs(residual));
        /* energy conservation through the contact */
        assert_true(fabs(residual) < 1e-4 * e0);
        if (s.time > 1e-3 && s.max_overlap == 0.0) break;
    }
    print_message("elastic: peak stored %.6e J of %.6e J; |residual| <= %.2e J\n", peak, e0,
                  worst);
    assert_true(peak > 0.9 * e0);
    assert_true(worst < 1e-4 * e0);
    sim_free(&s);
}

/* Damped, oblique, with friction and rolling resistance: after the impact the kinetic
 * (translational + rotational) energy lost equals the work done on the contact, split
 * into normal damping, friction and rolling, each dissipating (>= 0). */
static void test_dissipation_accounts_for_lost_energy(void **state)
{
    pair_world w;
    pair_world_init(&w, "hertz_tti", 0.5, 0.3, 0.3);
    sim s;
    double e0 = run_impact(&s, &w);
    double stored[SIM_STORED_KINDS];
    sim_stored_energy(&s, stored);
    double lost = e0 - mechanical_energy(&s);
    print_message("lost %.6e J of %.6e; work: normal %.6e, friction %.6e, rolling %.6e\n", lost,
                  e0, s.work[SIM_WORK_NORMAL], s.work[SIM_WORK_TANGENTIAL],
                  s.work[SIM_WORK_ROLLING]);
    for (int q = 0; q < SIM_STORED_KINDS; q++) assert_true(stored[q] == 0.0); /* apart */
    sim_observables o = {0};
    sim_observe(&s, &o);
    print_message("energy residual %.3e J (%.2e of the energy)\n", o.energy_residual,
                  o.energy_residual / e0);
    assert_true(fabs(o.energy_residual) < 1e-3 * e0);
    assert_true(s.work[SIM_WORK_NORMAL] > 0.0);
    assert_true(s.work[SIM_WORK_TANGENTIAL] > 0.0);
    assert_true(s.work[SIM_WORK_ROLLING] >= 0.0);
    assert_true(fabs(total_work(&s) - lost) < 1e-3 * lost);
    sim_free(&s);
}

/* Without friction the normal force passes through both centres: an oblique impact of
 * two spinning spheres leaves each spin exactly as it was and no torque on either, and
 * the kinetic energy lost is the normal dashpot's work (the steps skip the spins then:
 * sim_spin_free in engine/step/integrate.h). */
static void test_frictionless_impact_keeps_the_spins(void **state)
{
    pair_world w;
    pair_world_init(&w, "hertz_tti", 0.5, 0.0, 0.3);
    double spin[6] = {30.0, -20.0, 10.0, 0.0, 0.0, -40.0};
    w.src.list_angular_velocity = spin;
    sim s;
    double e0 = run_impact(&s, &w);
    for (size_t i = 0; i < 2; i++) {
        size_t k = s.p.id[i] == 0 ? 0 : 3;
        assert_true(s.p.wx[i] == spin[k] && s.p.wy[i] == spin[k + 1] && s.p.wz[i] == spin[k + 2]);
    }
    /* nothing can exert a torque: no torque arrays are held (particles.h) */
    assert_null(s.p.tx);
    assert_null(s.p.ty);
    assert_null(s.p.tz);
    double lost = e0 - mechanical_energy(&s);
    assert_true(s.work[SIM_WORK_NORMAL] > 0.0);
    assert_true(fabs(s.work[SIM_WORK_NORMAL] - lost) < 1e-3 * lost);
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elastic_contact_gives_back_its_work),
        cmocka_unit_test(test_dissipation_accounts_for_lost_energy),
        cmocka_unit_test(test_frictionless_impact_keeps_the_spins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
