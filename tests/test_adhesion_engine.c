/* Adhesion through the engine (models/adhesion_law.h, engine/step/pair_adhesion.h):
 * two spheres, or a sphere and a plane, driven together and apart slowly enough that
 * the contact is quasi-static, their force read off the particles step by step and held
 * to Johnson, Kendall and Roberts' curve and to Derjaguin, Muller and Toporov's pull,
 * both computed here from the theories' own equations (JKR: the contact radius by
 * bisection on d(a) = a^2/R* - sqrt(2 pi w a/E*), then F(a) = 4 E* a^3/(3 R*) -
 * sqrt(8 pi w E* a^3)). What it checks of the engine: no force before touching, the
 * contact held past touching to the law's reach and then let go, the largest pull
 * (3/2 pi w R* and 2 pi w R*), and the force at every step in between. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "world_helpers.h"

enum { ON_WALL = 1 };

typedef struct stick_world {
    material mat[2];
    law_binding bind[2];
    particle_source src;
    wall_spec wall;
    double pos[6], vel[6], rad[2];
    sim_config cfg;
} stick_world;

static const double R = 1e-3, W = 0.05, YOUNG = 1e7, NU = 0.3, WALL_YOUNG = 2e8;

/* Two powder spheres (or one, over a steel plane at x = 0), with law hertz and the
 * adhesion `model` of work W, a gap `gap` apart (negative: overlapping). */
static void stick_world_init(stick_world *w, const char *model, int on_wall, double gap)
{
    memset(w, 0, sizeof *w);
    w->mat[0] = (material){"powder", 1500, YOUNG, NU};
    w->mat[1] = (material){"steel", 7800, WALL_YOUNG, NU};
    for (int b = 0; b < 2; b++) {
        w->bind[b] = (law_binding){.material_a = 0, .material_b = b, .law = law_find("hertz")};
        w->bind[b].adhesion.law = adhesion_law_find(model);
        w->bind[b].adhesion.params[0] = W;
    }
    if (on_wall) {
        double pos[3] = {R + gap, 0, 0};
        memcpy(w->pos, pos, sizeof pos);
        w->rad[0] = R;
        w->src = list_source(w->pos, w->vel, w->rad, 1);
        w->wall = (wall_spec){.kind = WALL_PLANE, .material = 1, .normal = {1, 0, 0}};
    } else {
        double pos[6] = {-R - gap / 2, 0, 0, R + gap / 2, 0, 0};
        memcpy(w->pos, pos, sizeof pos);
        w->rad[0] = w->rad[1] = R;
        w->src = list_source(w->pos, w->vel, w->rad, 2);
    }
    sim_config *c = &w->cfg;
    wire_world(c, w->mat, w->bind, &w->src, on_wall ? &w->wall : NULL, on_wall);
    c->n_materials = 2;
    c->n_bindings = 2;
    c->impact_speed_estimate = 0.01;
    for (int a = 0; a < 3; a++) { c->domain_min[a] = -0.01; c->domain_max[a] = 0.01; }
}

/* The pair's effective modulus and radius. */
static void pair_moduli(int on_wall, double *e_eff, double *r_eff)
{
    double s = (1 - NU * NU) / YOUNG;
    *e_eff = 1.0 / (on_wall ? s + (1 - NU * NU) / WALL_YOUNG : 2 * s);
    *r_eff = on_wall ? R : R / 2;
}

/* JKR's force at overlap d on the stable branch (a >= a_c), from its parametric curve. */
static double jkr_force(double d, double e_eff, double r_eff)
{
    long double pw = 3.14159265358979323846L * W;
    long double a_c = cbrtl(pw * r_eff * r_eff / (8 * e_eff)), lo = a_c, hi = 1.0L;
    for (int k = 0; k < 200; k++) {
        long double a = 0.5L * (lo + hi);
        long double da = a * a / r_eff - sqrtl(2 * pw * a / e_eff);
        if (da < d) lo = a; else hi = a;
    }
    long double a = 0.5L * (lo + hi);
    return (double)(4 * e_eff * a * a * a / (3 * r_eff) - sqrtl(8 * pw * e_eff * a * a * a));
}

/* The overlap and the normal force (repulsive > 0) of the world's contact now. */
static void contact_now(const sim *s, int on_wall, double *d, double *f)
{
    const particle_store *p = &s->p;
    *d = on_wall ? R - p->x[0] : 2 * R - (p->x[1] - p->x[0]);
    *f = p->fx[0] * (on_wall ? 1.0 : -1.0);
}

/* Drives the contact at overlap rate `rate` (the spheres' velocities set before every
 * step, so that the motion is the one prescribed whatever the force does) until the
 * overlap reaches `until` (from above when rate < 0); calls check on every step. */
typedef void (*step_check)(double d, double f, int in_contact, void *ctx);

static void drive(sim *s, int on_wall, double rate, double until, step_check check, void *ctx)
{
    for (int n = 0; n < 2000000; n++) {
        double d, f;
        contact_now(s, on_wall, &d, &f);
        if (rate > 0 ? d >= until : d <= until) return;
        if (on_wall) {
            s->p.vx[0] = -rate;
        } else {
            s->p.vx[0] = 0.5 * rate;
            s->p.vx[1] = -0.5 * rate;
        }
        sim_step(s);
        contact_now(s, on_wall, &d, &f);
        size_t touching = on_wall ? s->wall_pairs.n : s->pairs.n;
        int in_contact = 0;
        const contact_list *c = on_wall ? &s->wall_pairs : &s->pairs;
        for (size_t k = 0; k < touching; k++) in_contact |= contact_holds_force(c->touching[k]);
        check(d, f, in_contact, ctx);
    }
    fail_msg("the drive did not reach its overlap");
}

typedef struct jkr_trace {
    double e_eff, r_eff, reach;
    double least_force;    /* the largest pull seen */
    double worst;          /* largest |F - F_JKR| / (pi w R*) away from the ends */
    double last_d;         /* the overlap of the last step in contact */
    int touched, let_go, force_apart;
} jkr_trace;

static void jkr_step(double d, double f, int in_contact, void *ctx)
{
    jkr_trace *t = ctx;
    double unit = M_PI * W * t->r_eff;
    if (!t->touched && !in_contact) { /* approaching: no force before touching */
        if (f != 0.0) t->force_apart = 1;
        return;
    }
    if (!t->touched) { t->touched = 1; return; } /* the first step: an impulse over part of it */
    if (!in_contact) {
        t->let_go = 1;
        if (f != 0.0) t->force_apart = 1;
        return;
    }
    t->last_d = d;
    t->least_force = fmin(t->least_force, f);
    /* away from the break (where dF/dd is infinite and the last step integrates the
     * force over the part of it in contact) */
    if (d > t->reach + 0.05 * fabs(t->reach)) {
        double err = fabs(f - jkr_force(d, t->e_eff, t->r_eff)) / unit;
        t->worst = fmax(t->worst, err);
    }
}

/* JKR: approach from a gap, press, pull apart: the force is 0 until touching, then on
 * Johnson's curve, loading and unloading, through the pull-off 3/2 pi w R*, past
 * touching to the reach d_c = -3 a_c^2 / R*, where the contact lets go. */
static void run_jkr(int on_wall)
{
    stick_world w;
    double e_eff, r_eff;
    pair_moduli(on_wall, &e_eff, &r_eff);
    double a_c = cbrt(M_PI * W * r_eff * r_eff / (8 * e_eff)), reach = -3 * a_c * a_c / r_eff;
    stick_world_init(&w, "jkr", on_wall, 0.2 * fabs(reach));
    sim s;
    char err[256];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    /* about 20,000 steps over the reach's length at 1e-4 m/s */
    double rate = 1e-4, dt = fabs(reach) / rate / 20000;
    if (sim_set_timestep(&s, dt, err, sizeof err) != 0) fail_msg("%s", err);
    jkr_trace t = {.e_eff = e_eff, .r_eff = r_eff, .reach = reach, .least_force = INFINITY};
    drive(&s, on_wall, rate, 2 * fabs(reach), jkr_step, &t);
    drive(&s, on_wall, -rate, 1.5 * reach, jkr_step, &t);
    double unit = M_PI * W * r_eff;
    printf("jkr %s: largest pull %.9g pi w R* (3/2), let go at %.6g d_c, "
           "worst |F - F_JKR| %.3g pi w R*\n", on_wall ? "on a wall" : "two spheres",
           -t.least_force / unit, t.last_d / reach, t.worst);
    assert_true(t.touched && t.let_go && !t.force_apart);
    assert_true(fabs(-t.least_force / unit - 1.5) < 0.005 * 1.5);
    assert_true(t.worst < 1e-6);
    /* held past touching, to within one step's travel of the reach */
    assert_true(t.last_d < 0.0);
    assert_true(t.last_d - reach <= 1.5 * rate * dt && t.last_d > reach);
    sim_free(&s);
}

static void test_jkr_two_spheres(void **state) { (void)state; run_jkr(0); }
static void test_jkr_on_a_wall(void **state) { (void)state; run_jkr(ON_WALL); }

typedef struct dmt_trace {
    double e_eff, r_eff, least_force, worst, last_d;
    double pending_d, pending_f; /* the last step in contact, held back: if the contact
                                    lets go at the next, it was the separation's step,
                                    whose force is the impulse of the part of it in
                                    contact (contact_ends.h), not a force at d */
    int touched, pending, let_go, force_apart;
} dmt_trace;

static void dmt_step(double d, double f, int in_contact, void *ctx)
{
    dmt_trace *t = ctx;
    if (!in_contact) {
        if (t->touched) t->let_go = 1;
        if (f != 0.0) t->force_apart = 1;
        return;
    }
    if (!t->touched) { t->touched = 1; return; } /* the first step's impulse, likewise */
    if (t->pending) {
        double dp = t->pending_d, fp = t->pending_f;
        t->last_d = dp;
        t->least_force = fmin(t->least_force, fp);
        double hertz = 4.0 / 3.0 * t->e_eff * sqrt(t->r_eff) * dp * sqrt(dp);
        t->worst = fmax(t->worst, fabs(fp - (hertz - 2 * M_PI * W * t->r_eff)) /
                                      (M_PI * W * t->r_eff));
    }
    t->pending = 1;
    t->pending_d = d;
    t->pending_f = f;
}

/* DMT: Hertz plus the pull 2 pi w R* while the spheres overlap, let go at touching. */
static void run_dmt(int on_wall)
{
    stick_world w;
    double e_eff, r_eff;
    pair_moduli(on_wall, &e_eff, &r_eff);
    double scale = 1e-7;
    stick_world_init(&w, "dmt", on_wall, 0.5 * scale);
    sim s;
    char err[256];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    double rate = 1e-4, dt = scale / rate / 20000;
    if (sim_set_timestep(&s, dt, err, sizeof err) != 0) fail_msg("%s", err);
    dmt_trace t = {.e_eff = e_eff, .r_eff = r_eff, .least_force = INFINITY};
    drive(&s, on_wall, rate, 4 * scale, dmt_step, &t);
    drive(&s, on_wall, -rate, -scale, dmt_step, &t);
    double unit = M_PI * W * r_eff;
    printf("dmt %s: largest pull %.9g pi w R* (2), last in contact at d = %.3g m, "
           "worst |F - F_DMT| %.3g pi w R*\n", on_wall ? "on a wall" : "two spheres",
           -t.least_force / unit, t.last_d, t.worst);
    assert_true(t.touched && t.let_go && !t.force_apart);
    assert_true(fabs(-t.least_force / unit - 2.0) < 0.005 * 2.0);
    assert_true(t.worst < 1e-9);
    /* the last force sample lies within two steps' travel of touching */
    assert_true(t.last_d > 0.0 && t.last_d <= 2.5 * rate * dt);
    sim_free(&s);
}

static void test_dmt_two_spheres(void **state) { (void)state; run_dmt(0); }
static void test_dmt_on_a_wall(void **state) { (void)state; run_dmt(ON_WALL); }

/* A liquid bridge (capillary): V = 1e-12 m^3 of water (0.072 N/m) at 20 degrees. */
static const double BRIDGE_V = 1e-12, BRIDGE_DEG = 20.0, BRIDGE_GAMMA = 0.072;

/* Willett et al.'s pull at the gap s between the surfaces, as the paper gives it for
 * equal spheres of radius R at half-separation S = s/2, with Derjaguin's harmonic mean
 * radius for unequal ones (2 r against a wall). */
static double willett_pull(double s, double r_i, double r_j)
{
    double R = r_j > 0 ? 2 * r_i * r_j / (r_i + r_j) : 2 * r_i;
    double s_plus = 0.5 * s * sqrt(R / BRIDGE_V), theta = BRIDGE_DEG * M_PI / 180;
    return 2 * M_PI * R * BRIDGE_GAMMA * cos(theta) / (1 + 2.1 * s_plus + 10 * s_plus * s_plus);
}

typedef struct bridge_trace {
    double e_eff, r_eff, r_j, f0;
    double rupture;          /* Lian et al.'s S_c */
    double first_d, last_d;  /* the overlap of the first and last step in contact */
    double widest;           /* the widest gap a force sample was taken at */
    double eta, rho, rate;   /* the lubrication's viscosity and roughness; d' driven */
    double worst;            /* largest |F - F_expected| / (F_0 + |F_v|) */
    double pending_d, pending_f, pending_rate; /* the last step in contact, held back
                                                  (see dmt_trace), and its d' */
    int touched, pending, let_go, force_apart, samples;
} bridge_trace;

static void bridge_step(double d, double f, int in_contact, void *ctx)
{
    bridge_trace *t = ctx;
    if (!in_contact) {
        if (t->touched) t->let_go = 1;
        if (f != 0.0) t->force_apart = 1;
        return;
    }
    t->last_d = d;
    if (!t->touched) { t->touched = 1; t->first_d = d; return; } /* the first step's impulse */
    if (t->pending) {
        double dp = t->pending_d, fp = t->pending_f;
        double lub = 6 * M_PI * t->eta * t->r_eff * t->r_eff * t->pending_rate / fmax(-dp, t->rho);
        double want = dp > 0 ? 4.0 / 3.0 * t->e_eff * sqrt(t->r_eff) * dp * sqrt(dp) - t->f0
                             : -willett_pull(-dp, R, t->r_j);
        t->worst = fmax(t->worst, fabs(fp - want - lub) / (t->f0 + fabs(lub)));
        t->widest = fmax(t->widest, -dp);
        t->samples++;
    }
    t->pending = 1;
    t->pending_d = d;
    t->pending_f = f;
    t->pending_rate = t->rate;
}

/* capillary: approached from a gap of S_c / 2 there is no force until the surfaces
 * touch, where the bridge forms; pressed, the force is Hertz's less the pull at contact
 * 4 pi gamma cos(theta) R*; pulled apart it follows Willett's F(S) through the gap and
 * ruptures within one step's travel of Lian's S_c = (1 + theta/2) V^(1/3), with no force
 * after. With a viscosity eta (and the roughness rho), Reynolds' 6 pi eta R*^2 d' /
 * max(S, rho) is added: a push while the surfaces approach, a pull while they separate;
 * the overlap rate the engine gives the law is the driven one up to the bridge's
 * acceleration over a step, so the force is held to 2e-3 then (eta 1e-3 Pa s, rho
 * 1e-6 m: at the smallest gap the lubrication is 10 F_0). */
static void run_capillary(int on_wall, double eta, double rho)
{
    stick_world w;
    double e_eff, r_eff;
    pair_moduli(on_wall, &e_eff, &r_eff);
    double s_c = (1 + 0.5 * BRIDGE_DEG * M_PI / 180) * cbrt(BRIDGE_V);
    stick_world_init(&w, "capillary", on_wall, 0.5 * s_c);
    for (int b = 0; b < 2; b++) {
        const double p[] = {BRIDGE_V, BRIDGE_DEG, BRIDGE_GAMMA, eta, rho};
        memcpy(w.bind[b].adhesion.params, p, sizeof p);
    }
    sim s;
    char err[256];
    if (sim_create(&s, &w.cfg, err, sizeof err) != 0) fail_msg("%s", err);
    /* 40,000 steps over S_c at 1 cm/s: the bridge's pull moves a sphere by a dt^2 / 2, a
     * thousandth of the step's travel (at 0.1 mm/s, as jkr, the pull would stop it) */
    double rate = 1e-2, dt = s_c / rate / 40000;
    if (sim_set_timestep(&s, dt, err, sizeof err) != 0) fail_msg("%s", err);
    bridge_trace t = {.e_eff = e_eff, .r_eff = r_eff, .r_j = on_wall ? 0.0 : R,
                      .f0 = willett_pull(0.0, R, on_wall ? 0.0 : R), .rupture = s_c,
                      .eta = eta, .rho = rho, .rate = rate};
    drive(&s, on_wall, rate, 2e-6, bridge_step, &t);
    t.rate = -rate;
    drive(&s, on_wall, -rate, -1.3 * s_c, bridge_step, &t);
    printf("capillary %s%s: F_0 %.6g N, formed at d = %.3g m (%.2f steps' travel), %d samples "
           "to a gap of %.6f S_c within %.3g (F_0 + |F_v|) of Hertz - F_0 or Willett's F(S), "
           "plus F_v, ruptured "
           "at %.8f S_c (%.2f steps' travel inside)\n", on_wall ? "on a wall" : "two spheres",
           eta > 0 ? ", lubricated" : "",
           t.f0, t.first_d, t.first_d / (rate * dt), t.samples, t.widest / s_c, t.worst,
           -t.last_d / s_c, (t.last_d + s_c) / (rate * dt));
    assert_true(t.touched && t.let_go && !t.force_apart);
    /* the bridge formed at touching, not before */
    assert_true(t.first_d > 0.0 && t.first_d <= 1.01 * rate * dt);
    assert_true(t.worst < (eta > 0 ? 2e-3 : 1e-9));
    assert_true(t.widest > 0.999 * s_c);
    /* held through the gap, to within one step's travel of S_c */
    assert_true(t.last_d > -s_c && t.last_d + s_c <= 1.01 * rate * dt);
    sim_free(&s);
}

static void test_capillary_two_spheres(void **state) { (void)state; run_capillary(0, 0, 0); }
static void test_capillary_on_a_wall(void **state) { (void)state; run_capillary(ON_WALL, 0, 0); }
static void test_capillary_lubricated(void **state)
{
    (void)state;
    run_capillary(0, 1e-3, 1e-6);
    run_capillary(ON_WALL, 1e-3, 1e-6);
}

/* The skin must exceed the farthest reach: a case whose skin is below it is refused,
 * naming the entry and the key to raise. */
static void test_reach_beyond_skin_refused(void **state)
{
    (void)state;
    stick_world w;
    stick_world_init(&w, "jkr", 0, 1e-6);
    w.cfg.skin = 1e-9;
    sim s;
    char err[512] = "";
    assert_int_not_equal(sim_create(&s, &w.cfg, err, sizeof err), 0);
    printf("%s\n", err);
    assert_non_null(strstr(err, "contacts[0].adhesion"));
    assert_non_null(strstr(err, "neighbour.skin"));
    sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jkr_two_spheres),
        cmocka_unit_test(test_jkr_on_a_wall),
        cmocka_unit_test(test_dmt_two_spheres),
        cmocka_unit_test(test_dmt_on_a_wall),
        cmocka_unit_test(test_capillary_two_spheres),
        cmocka_unit_test(test_capillary_on_a_wall),
        cmocka_unit_test(test_capillary_lubricated),
        cmocka_unit_test(test_reach_beyond_skin_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
