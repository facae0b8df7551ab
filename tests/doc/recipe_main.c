/* The throw-away laws of docs/architecture.md's recipes, built by check_recipes.py with
 * copies of the registries that list them: each is checked against its closed form,
 * the registry checks, the case reader (its keys scoped to the model, its two parts
 * naming the normal law) and a run through the engine. Usage: recipe_check DIR (a
 * folder to write a case into). Exit 0 when every check passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/step/friction.h"
#include "engine/sim.h"
#include "io/case/case.h"
#include "models/adhesion_law.h"
#include "models/friction_law.h"
#include "models/law.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-13 * fabs(b); }

/* Normal law hertz_constant: F = 4/3 E* sqrt(R*) d^(3/2) + c d'. */
static void normal_law(void)
{
    const dem_law *law = law_find("hertz_constant");
    check(law != NULL, "law hertz_constant is registered");
    if (!law) return;
    check(law_find_parts("hertz", "constant") == law, "elastic hertz + damping constant name it");
    const double E = 1e9, c = 5.0;
    law_pair_props pair = {.young_eff = E, .law_restitution = NAN};
    law_coeffs coeffs = {.young_eff = E};
    law_error err = {.param = -1};
    double p[LAW_MAX_PARAMS] = {c};
    check(law->setup(p, &pair, &coeffs, &err) == 0, "its setup takes damping = 5");
    double d[3] = {1e-6, 3e-5, 2e-4}, rate[3] = {0.5, -0.2, 0.0}, v0[3] = {1, 1, 1};
    double r[3] = {1e-3, 5e-3, 2e-2}, m[3] = {1e-5, 2e-4, 3e-2}, f[3];
    law_batch b = {.n = 3, .overlap = d, .overlap_rate = rate, .impact_velocity = v0,
                   .r_eff = r, .m_eff = m, .force = f};
    law->force(&coeffs, &b);
    int ok = 1;
    for (int i = 0; i < 3; i++)
        ok &= close_to(f[i], 4.0 / 3.0 * E * sqrt(r[i]) * pow(d[i], 1.5) + c * rate[i]);
    check(ok, "its force is 4/3 E* sqrt(R*) d^(3/2) + c d' on three contacts");
    p[0] = -1.0;
    check(law->setup(p, &pair, &coeffs, &err) == -1 && err.param == 0,
          "its setup refuses damping = -1, naming the parameter");
}

/* Tangential law spring_dashpot and rolling law damper, through the engine's friction. */
static void friction_laws(void)
{
    const tangential_law *t = tangential_law_find("spring_dashpot");
    const rolling_law *r = rolling_law_find("damper");
    check(t && r, "tangential spring_dashpot and rolling damper are registered");
    if (!t || !r) return;
    check(tangential_law_at(0) != t, "the default tangential law stays the first");
    const tangential_law *v = tangential_law_find("viscous");
    int mine = friction_param_index(t->params, t->n_params, "damping");
    int theirs = friction_param_index(v->params, v->n_params, "damping");
    check(mine >= 0 && theirs >= 0 && strcmp(t->params[mine].unit, v->params[theirs].unit) != 0,
          "spring_dashpot's damping (N s/m) and viscous's (1/s) are two keys of one name");
    contact_friction spec = {.mu = 0.5, .tangential = t, .tangential_params = {1e5, 2.0},
                             .mu_rolling = 0.1, .rolling = r, .rolling_params = {3.0}};
    friction_coeffs fc;
    law_error err = {.param = -1};
    check(friction_setup(&spec, 1e9, 4e8, NAN, &fc, &err) == 0, "their setups take the keys");
    contact_kinematics k = {.n = {0, 0, 1}, .d = 1e-6, .r_eff = 0.01, .m_eff = 1e-3,
                            .inertia_r = 1e-8, .v_rel = {0.01, 0, 0.3}, .w_rel = {0, 1e-3, 5},
                            .disp = {1e-6, 0, 2e-7}, .f_normal = 10.0};
    double xi[3] = {0, 0, 0}, theta[3] = {0, 0, 0}, f_t[3], m_r[3], power[2];
    friction_force(&fc, &k, xi, NULL, theta, NULL, f_t, m_r, power);
    check(close_to(f_t[0], 1e5 * 1e-6 + 2.0 * 0.01) && f_t[1] == 0.0 && f_t[2] == 0.0,
          "below the cap F = k_t xi + c v_t (tangential parts only)");
    check(close_to(m_r[1], -3.0 * 1e-3) && m_r[0] == 0.0 && m_r[2] == 0.0,
          "below the cap M = -c w_r (rolling part only)");
    k.f_normal = 0.1;
    for (int a = 0; a < 3; a++) xi[a] = 0.0;
    k.w_rel[1] = 2.0;
    friction_force(&fc, &k, xi, NULL, theta, NULL, f_t, m_r, power);
    check(close_to(f_t[0], 0.5 * 0.1) && close_to(xi[0], 0.05 / 1e5),
          "above it F = mu F_n, the spring holding it");
    check(close_to(m_r[1], -0.1 * 0.01 * 0.1), "above it M = mu_r R* F_n");
    spec.tangential_params[0] = 0.0;
    check(friction_check(&spec, 0, &err) == -1 && err.param == 0,
          "a stiffness of 0 is refused, naming the key");
}

static int write_case(const char *dir, const char *name, const char *contacts)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/spheres.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "x,y,z,radius,vx,vy,vz\n-0.0102,0,0,0.01,0.5,0.05,0\n0.0102,0,0,0.01,-0.5,0,0\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w"))) return -1;
    fprintf(f, "name: recipe\n"
               "domain: {min: [-0.1, -0.1, -0.1], max: [0.1, 0.1, 0.1]}\n"
               "time: {end: 0.001, step: 1.0e-7, output_interval: 1.0e-4}\n"
               "materials:\n"
               "  - {name: steel, density: 7800, young: 2.0e11, poisson: 0.3}\n"
               "  - {name: glass, density: 2500, young: 6.0e10, poisson: 0.2}\n"
               "contacts:\n%s"
               "particles:\n"
               "  - {source: file, material: steel, file: spheres.csv}\n", contacts);
    fclose(f);
    return 0;
}

/* The reader: the recipe's keys in a case, each model's own. */
static void case_reader(const char *dir)
{
    char path[1024], err[2048];
    sim_config cfg;
    const char *good =
        "  - materials: [steel, steel]\n"
        "    elastic: hertz\n"
        "    damping: constant\n"
        "    params: {damping: 20}\n"
        "    friction: {coefficient: 0.5, model: spring_dashpot, stiffness: 1.0e5, damping: 2}\n"
        "    rolling: {model: damper, coefficient: 0.1, damping: 3.0e-6}\n"
        "  - materials: [glass, glass]\n"
        "    law: hertz\n"
        "    friction: {coefficient: 0.5, model: viscous, damping: 100}\n"
        "  - materials: [steel, glass]\n"
        "    law: hertz\n";
    snprintf(path, sizeof path, "%s/good.yaml", dir);
    if (write_case(dir, "good.yaml", good) != 0) { check(0, "write a case"); return; }
    int rc = case_load(path, &cfg, err, sizeof err);
    check(rc == 0, "a case with the recipe's laws reads");
    if (rc != 0) { printf("%s\n", err); return; }
    const law_binding *b = &cfg.bindings[0];
    check(b->law == law_find("hertz_constant") && b->params[0] == 20.0,
          "elastic: hertz, damping: constant name hertz_constant");
    check(b->friction.tangential == tangential_law_find("spring_dashpot") &&
          b->friction.tangential_params[0] == 1e5 && b->friction.tangential_params[1] == 2.0,
          "friction.damping is spring_dashpot's dashpot in N s/m");
    check(cfg.bindings[1].friction.tangential == tangential_law_find("viscous") &&
          cfg.bindings[1].friction.tangential_params[0] == 100.0,
          "friction.damping is viscous's rate in 1/s in another entry");
    sim s;
    char msg[512];
    rc = sim_create(&s, &cfg, msg, sizeof msg);
    check(rc == 0, "the engine builds the case");
    if (rc == 0) {
        while (s.time < 6e-4) sim_step(&s);
        double lo = fmin(s.p.vx[0], s.p.vx[1]), hi = fmax(s.p.vx[0], s.p.vx[1]);
        check(s.fault == 0 && lo < 0.0 && lo > -0.5 && hi > 0.0 && hi < 0.5,
              "the spheres meet and part, slower than they came (the dashpot)");
        sim_free(&s);
    } else {
        printf("%s\n", msg);
    }
    sim_config_free(&cfg);
    const char *bad =
        "  - materials: [steel, steel]\n"
        "    law: hertz\n"
        "    friction: {coefficient: 0.5, model: viscous, stiffness: 1.0e5}\n";
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    write_case(dir, "bad.yaml", bad);
    rc = case_load(path, &cfg, err, sizeof err);
    check(rc != 0 && strstr(err, "friction.stiffness") && strstr(err, "model viscous takes no key"),
          "viscous refuses spring_dashpot's stiffness");
    if (rc == 0) sim_config_free(&cfg);
}

int main(int argc, char **argv)
{
    char err[512];
    check(law_registry_check(err, sizeof err) == 0, "the normal laws pass the registry check");
    check(friction_registry_check(err, sizeof err) == 0,
          "the tangential and rolling laws pass the registry check");
    check(adhesion_registry_check(err, sizeof err) == 0,
          "the adhesion laws pass the registry check");
    normal_law();
    friction_laws();
    if (argc > 1) case_reader(argv[1]);
    printf("%d checks failed\n", failures);
    return failures ? 1 : 0;
}
