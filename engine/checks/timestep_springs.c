/* The step the tangential and rolling springs and dashpots allow (timestep.h).
 *
 * Velocity Verlet with predicted velocities for the dashpots (engine/step/integrate.c)
 * integrates a spring-dashpot M x'' = -k x - c x' stably while
 *     (omega dt)^2 / 4 + gamma dt <= 1,   omega^2 = k / M, gamma = c / M,
 * that is dt <= 2 / (gamma + sqrt(gamma^2 + omega^2)): one step maps (x, v, a) by a
 * matrix whose largest eigenvalue reaches modulus 1 there (2 / omega for a spring
 * alone, 1 / gamma for a dashpot alone, as engine/checks/dashpot_check.h has it). Each
 * friction law declares its spring and dashpot (friction_law.h: `stiffness`); what they
 * act on is:
 *  - a tangential force F at the contact point moves that point by F/m + arm^2 F/I for
 *    each sphere: the mass M = 1 / (1/m_i + arm_i^2/I_i + 1/m_j + arm_j^2/I_j), 2/7 m*
 *    for solid spheres (m_j, I_j infinite for a wall);
 *  - a rolling torque turns each sphere about its centre when the contact slides: the
 *    inertia M = I_i I_j / (I_i + I_j) (I_i for a wall). The rolling laws scale their
 *    dashpot with the inertia about the contact point (the engine's inertia_r, 3.5
 *    times I for a sphere), which a sliding contact does not have: the central one is
 *    the smaller, so the stricter.
 * They are taken for the smallest spheres of each pair of materials (and of a
 * material against a wall) at the largest overlap an impact at the expected speed v
 * makes, v t_c / 2 (Hertz's is 0.68 of it), at most half the smaller radius (the
 * watchdog's default limit).
 *
 * An ordinary Mindlin spring does not set the automatic step: its k_t = 8 G* a is
 * 4 G* / E* = 2 (1 - nu) / (2 - nu) <= 1 times the Hertz normal stiffness 2 E* a for nu
 * in [0, 0.5], but on the contact point's 2/7 m* it oscillates up to sqrt(3.5) = 1.87
 * times as fast as the normal spring at its largest overlap, and with its dashpot
 * (restitution 0.1 or more) its stable step is 3 or more times the normal law's
 * automatic step t_c / 50 (TIMESTEP_SPRING_SHARE takes half). It does set the stable
 * limit of most frictional cases, at 0.3 (e_t 0.1) to 0.75 (e_t 0.5) times t_c / 5:
 * there its dashpot is no longer integrated (a packing with e_t = 0.05 at t_c / 5 ran
 * with an energy residual 16 times the frictionless one). */
#include "timestep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sim.h"

/* The largest step (omega dt)^2 / 4 + gamma dt <= 1 allows, from the spring k and
 * dashpot c on the mass (or inertia) m; HUGE_VAL for neither. */
double timestep_spring_dashpot_step(double k, double c, double m)
{
    if (!(k > 0.0) && !(c > 0.0)) return HUGE_VAL;
    double omega = sqrt(k / m), gamma = c / m;
    return 2.0 / (gamma + hypot(gamma, omega));
}

/* Which of the two a refusal names: the dashpot when it is above critical on the motion
 * it damps (c > 2 sqrt(k m): gamma > 2 omega), else the spring. Below critical the
 * dashpot scales with the spring (a restitution, a fraction of critical: c grows as
 * sqrt(k)), and the spring is what to soften. */
static int dashpot_sets(double k, double c, double m)
{
    return c * c > 4.0 * k * m;
}

/* The reduced radius and mass of sphere a against sphere b (mb = 0: a wall, whose side
 * is a sphere of infinite radius and mass); returns whether b is a wall. */
static int reduced(double ra, double ma, double rb, double mb, double *r_eff, double *m_eff)
{
    int wall = !(mb > 0.0);
    *r_eff = wall ? ra : ra * rb / (ra + rb);
    *m_eff = wall ? ma : ma * mb / (ma + mb);
    return wall;
}

/* One pair's two modes against the best so far. */
static void consider(timestep_spring *best, double dt, int binding, int rolling, double k,
                     double c, double m, double d, int against_wall)
{
    if (!(dt < best->dt)) return;
    *best = (timestep_spring){.dt = dt, .binding = binding, .rolling = rolling,
                              .by_damping = dashpot_sets(k, c, m), .k = k, .c = c,
                              .mass = m, .overlap = d, .against_wall = against_wall};
}

/* Sphere a (radius ra, mass ma) against sphere b (mb = 0: a wall) under li. */
static void pair_modes(timestep_spring *best, const law_instance *li, double ra, double ma,
                       double rb, double mb, double v)
{
    const friction_coeffs *fc = &li->friction;
    double r_eff, m_eff;
    int wall = reduced(ra, ma, rb, mb, &r_eff, &m_eff);
    double t_c = li->law->contact_time(&li->coeffs, r_eff, m_eff, v);
    double d = fmin(0.5 * v * t_c, 0.5 * (wall ? ra : fmin(ra, rb)));
    if (!(d > 0.0)) return;
    /* the arms from each centre to the contact point, and the spheres' inertias */
    double arm_a = ra - 0.5 * d, arm_b = rb - 0.5 * d;
    double ia = 0.4 * ma * ra * ra, ib = wall ? 0.0 : 0.4 * mb * rb * rb;
    if (fc->tangential && fc->tangential->stiffness) {
        double k, c;
        fc->tangential->stiffness(fc, d, r_eff, m_eff, &k, &c);
        double per = 1.0 / ma + arm_a * arm_a / ia;
        if (!wall) per += 1.0 / mb + arm_b * arm_b / ib;
        double m_t = 1.0 / per;
        consider(best, timestep_spring_dashpot_step(k, c, m_t), li->binding, 0, k, c, m_t, d,
                 wall);
    }
    if (fc->rolling && fc->rolling->stiffness) {
        double k, c;
        /* the engine's reduced rolling inertia about the contact point (inertia_r) */
        double pa = ia + ma * arm_a * arm_a, pb = wall ? 0.0 : ib + mb * arm_b * arm_b;
        double inertia_r = wall ? pa : pa * pb / (pa + pb);
        fc->rolling->stiffness(fc, d, r_eff, inertia_r, &k, &c);
        double central = wall ? ia : ia * ib / (ia + ib);
        consider(best, timestep_spring_dashpot_step(k, c, central), li->binding, 1, k, c,
                 central, d, wall);
    }
}

typedef struct stiffest_spring {
    timestep_spring *best;
    double v;
} stiffest_spring;

/* An adhesion's dashpot (a liquid bridge's lubrication at its smallest gap) on the
 * pair's reduced mass: it acts along the line of centres, as the normal law does. */
static void adhesion_mode(timestep_spring *best, const law_instance *li, double ra, double ma,
                          double rb, double mb)
{
    const adhesion_law *a = li->adhesion.law;
    if (!a || !a->dashpot) return;
    double r_eff, m_eff;
    int wall = reduced(ra, ma, rb, mb, &r_eff, &m_eff);
    double c = a->dashpot(&li->adhesion, r_eff);
    if (c > 0.0)
        consider(best, timestep_spring_dashpot_step(0.0, c, m_eff), li->binding,
                 TIMESTEP_ADHESION, 0.0, c, m_eff, 0.0, wall);
}

/* An adhesion whose contacts last past touching: whether a collision sticks is decided
 * in the neck between touching and the reach, which a pair at the sticking speed
 * (V_s = sqrt(2 W / m*), W = -U(0) the work from touching to the reach: JKR's loop, a
 * bridge's) crosses in |reach| / V_s: the step must take at least TIMESTEP_NECK_STEPS
 * steps over it. Measured with collide (jkr, 1 mm spheres, E 1e8 Pa, w 0.1 J/m^2, the
 * neck crossed in 4.75e-5 s): the sticking speed lies in the same 5% bracket from 2 to
 * 50 steps across the neck, while the restitution just above it (1.02 V_s, 0.192
 * exactly) comes out 0.296, 0.217, 0.198 at 2, 4 and 10 steps (at 1.3 V_s: 5.5%, 1%,
 * 0.1% off); below 2 steps the pull's impulse is no longer integrated through the neck. */
static void neck_mode(timestep_spring *best, const law_instance *li, double ra, double ma,
                      double rb, double mb)
{
    const adhesion_law *a = li->adhesion.law;
    if (!a || !a->energy) return;
    double r_eff, m_eff;
    int wall = reduced(ra, ma, rb, mb, &r_eff, &m_eff);
    double reach = a->reach(&li->adhesion, r_eff);
    double work = -a->energy(&li->adhesion, 0.0, r_eff, ra, wall ? 0.0 : rb);
    if (!(reach < 0.0) || !(work > 0.0)) return;
    double v_s = sqrt(2.0 * work / m_eff), dt = -reach / v_s / TIMESTEP_NECK_STEPS;
    if (!(dt < best->dt)) return;
    *best = (timestep_spring){.dt = dt, .binding = li->binding, .rolling = TIMESTEP_NECK,
                              .mass = m_eff, .overlap = reach, .speed = v_s,
                              .against_wall = wall};
}

static void spring_modes_of(const law_instance *li, double ra, double ma, double rb, double mb, void *ctx)
{
    const stiffest_spring *c = ctx;
    if (li->friction.active) pair_modes(c->best, li, ra, ma, rb, mb, c->v);
    adhesion_mode(c->best, li, ra, ma, rb, mb);
    neck_mode(c->best, li, ra, ma, rb, mb);
}

double timestep_springs(const sim *s, double v, timestep_spring *out)
{
    *out = (timestep_spring){.dt = HUGE_VAL, .binding = -1};
    stiffest_spring c = {.best = out, .v = v};
    return timestep_each_smallest_pair(s, spring_modes_of, &c) == 0 ? out->dt : NAN;
}

/* The key of contacts[k]'s friction or rolling that sets sp, and its value where the
 * case gives one: "contacts[0].friction.stiffness = 1e+12". */
static void spring_key(const sim *s, const timestep_spring *sp, char *buf, size_t len)
{
    if (sp->rolling == TIMESTEP_ADHESION || sp->rolling == TIMESTEP_NECK) {
        /* the dashpot's key; the neck's: the law's first, its strength (work, volume) */
        const contact_adhesion *a = &s->cfg.bindings[sp->binding].adhesion;
        int k = sp->rolling == TIMESTEP_NECK ? 0 : law_plugin_param(&a->law->plugin, a->law->damping_key);
        snprintf(buf, len, "contacts[%d].adhesion.%s = %g", sp->binding,
                 k >= 0 ? a->law->params[k].name : "model", k >= 0 ? a->params[k] : NAN);
        return;
    }
    const contact_friction *f = &s->cfg.bindings[sp->binding].friction;
    const tangential_law *t = friction_tangential_law(f);
    const char *part = sp->rolling ? "rolling" : "friction";
    const char *model = sp->rolling ? f->rolling->name : t->name;
    const law_param *params = sp->rolling ? f->rolling->params : t->params;
    int n_params = sp->rolling ? f->rolling->n_params : t->n_params;
    const double *values = sp->rolling ? f->rolling_params : f->tangential_params;
    const char *key = sp->by_damping ? (sp->rolling ? f->rolling->damping_key : t->damping_key)
                                     : (sp->rolling ? f->rolling->stiffness_key
                                                    : t->stiffness_key);
    if (!key) { /* the law's own form */
        snprintf(buf, len, "contacts[%d].%s (model %s)", sp->binding, part, model);
        return;
    }
    if (strcmp(key, "coefficient") == 0) {
        snprintf(buf, len, "contacts[%d].%s.coefficient = %g", sp->binding, part,
                 sp->rolling ? f->mu_rolling : f->mu);
        return;
    }
    int k = friction_param_index(params, n_params, key);
    double value = k >= 0 ? values[k] : 0.0;
    if (k >= 0 && value > 0.0) {
        snprintf(buf, len, "contacts[%d].%s.%s = %g", sp->binding, part, key, value);
        return;
    }
    /* a default of 0 means "not given" (friction_law.h): its help says what then, after
     * "0: " */
    const char *help = k >= 0 && params[k].help ? strstr(params[k].help, "0: ") : NULL;
    snprintf(buf, len, "contacts[%d].%s.%s (not given: %s)", sp->binding, part, key,
             help ? help + 3 : "its default");
}

static const char *spring_name(const timestep_spring *sp)
{
    if (sp->rolling == TIMESTEP_ADHESION) return "adhesion's dashpot";
    if (sp->rolling == TIMESTEP_NECK) return "adhesive neck";
    return sp->rolling ? (sp->by_damping ? "rolling dashpot" : "rolling spring")
                       : (sp->by_damping ? "tangential dashpot" : "tangential spring");
}

void timestep_spring_describe(const sim *s, const timestep_spring *sp, char *buf, size_t len)
{
    char key[256];
    spring_key(s, sp, key, sizeof key);
    const law_binding *b = &s->cfg.bindings[sp->binding];
    if (sp->rolling == TIMESTEP_NECK) {
        snprintf(buf, len, "%s: the adhesive neck of %s on %s%s (from touching to %.3g m past it, "
                 "crossed in %.3g s at the sticking speed %.3g m/s of the smallest spheres) "
                 "needs a step up to %.4g s (%g steps across it)", key,
                 s->cfg.materials[b->material_a].name, s->cfg.materials[b->material_b].name,
                 sp->against_wall ? " against a wall" : "", -sp->overlap,
                 -sp->overlap / sp->speed, sp->speed, sp->dt, TIMESTEP_NECK_STEPS);
        return;
    }
    const int turns = sp->rolling == 1;
    snprintf(buf, len, "%s: the %s of %s on %s%s (k %.4g %s, c %.4g %s on the %s %.4g %s of "
             "the smallest spheres, at the overlap %.3g m) is stable for a step up to %.4g s "
             "((omega dt)^2/4 + gamma dt <= 1)", key, spring_name(sp),
             s->cfg.materials[b->material_a].name, s->cfg.materials[b->material_b].name,
             sp->against_wall ? " against a wall" : "", sp->k, turns ? "N m/rad" : "N/m",
             sp->c, turns ? "N m s/rad" : "N s/m",
             turns                              ? "central rolling inertia"
             : sp->rolling == TIMESTEP_ADHESION ? "reduced mass"
                                                : "contact point's mass",
             sp->mass, turns ? "kg m^2" : "kg", sp->overlap, sp->dt);
}

void timestep_limit_source(const sim *s, char *buf, size_t len)
{
    timestep_estimates e;
    if (timestep_estimate(s, &e) != 0) {
        snprintf(buf, len, "out of memory");
        return;
    }
    if (e.springs < fmin(e.rayleigh, e.contact / 5.0)) {
        char key[256];
        spring_key(s, &e.spring, key, sizeof key);
        snprintf(buf, len, "the %s of %s", spring_name(&e.spring), key);
    } else {
        snprintf(buf, len, e.rayleigh <= e.contact / 5.0 ? "the Rayleigh time" : "a fifth of the contact time");
    }
}
