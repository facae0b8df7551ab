/* Mixing rules (io/case/case_mixing.c, docs/case-file.md#mixing-pairs-without-an-entry): a
 * pair of materials without a contacts entry gets the values the documented rules give
 * from its materials' own entries, computed here from the entries (sqrt(a b), 2 a b /
 * (a + b)); the engine then restitutes the mixed restitution; an entry of the pair's
 * own wins; adhesion mixes its strength by the geometric mean, in both entries or in
 * neither; entries that do not mix are refused with the file, both entries' lines and
 * the reason; and no shipped case has a pair mixed (each gives every pair, so keeps its
 * bits). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine/collide/pair_restitution.h"
#include "engine/sim.h"
#include "io/case/case.h"
#include "io/case/case_errors.h"

/* The case: glass and steel beads on a steel floor. contacts: is line 8, the glass entry
 * line 9, the steel entry line 14; each field is one line (a comment where absent), so
 * that the lines hold for every variant. The steel entry's extra keys come last. */
static const char *case_template =
    "# two bead materials on a steel floor; only each material's entry with itself\n"
    "domain: {min: [0, 0, 0], max: [0.02, 0.02, 0.04]}\n"
    "gravity: [0, 0, -9.81]\n"
    "time: {end: 0.002}\n"
    "materials:\n"
    "  - {name: glass, density: 2500, young: 1.0e7, poisson: 0.25}\n"
    "  - {name: steel, density: 7800, young: 2.0e8, poisson: 0.3}\n"
    "contacts:\n"
    "  - materials: [glass, glass]\n"
    "    law: %s\n"
    "    params: %s\n"
    "    %s\n"
    "    %s\n"
    "  - materials: [steel, steel]\n"
    "    law: %s\n"
    "    params: %s\n"
    "    %s\n"
    "    %s\n"
    "%s"
    "walls:\n"
    "  - {name: floor, type: plane, material: steel, point: [0, 0, 0], normal: [0, 0, 1]}\n"
    "particles:\n"
    "  - {source: random, material: glass, count: 20, radius: 0.001, seed: 1,\n"
    "     region: {min: [0, 0, 0.002], max: [0.02, 0.02, 0.02]}}\n"
    "  - {source: random, material: steel, count: 20, radius: 0.001, seed: 2,\n"
    "     region: {min: [0, 0, 0.02], max: [0.02, 0.02, 0.038]}}\n";

/* One entry's lines: law, params, friction and rolling or adhesion (a comment where
 * absent). */
typedef struct entry {
    const char *law, *params, *friction, *rolling;
} entry;

static char case_path[512];

static int make_dir(void **state)
{
    (void)state;
    snprintf(case_path, sizeof case_path, "%s/dempact_mixing_%ld.yaml",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
    return 0;
}

static int remove_file(void **state)
{
    (void)state;
    remove(case_path);
    return 0;
}

/* Writes the case with entries a (glass) and b (steel), extra lines after b (NULL:
 * none), and loads it: 0, or -1 with the message in err. */
static int load(const entry *a, const entry *b, const char *extra, sim_config *cfg, char *err,
                size_t err_len)
{
    FILE *f = fopen(case_path, "w");
    assert_non_null(f);
    fprintf(f, case_template, a->law, a->params, a->friction, a->rolling, b->law, b->params,
            b->friction, b->rolling, extra ? extra : "");
    fclose(f);
    return case_load(case_path, cfg, err, err_len);
}

static void load_ok(const entry *a, const entry *b, const char *extra, sim_config *cfg)
{
    char err[2048];
    if (load(a, b, extra, cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

static double param(const law_binding *b, const char *name)
{
    int k = law_param_index(b->law, name);
    assert_true(k >= 0);
    return b->params[k];
}

static double key(const law_param *params, int n, const double *values, const char *name)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(params[k].name, name)) return values[k];
    fail_msg("no key %s", name);
    return NAN;
}

static double tangential(const law_binding *b, const char *name)
{
    const tangential_law *t = b->friction.tangential;
    return key(t->params, t->n_params, b->friction.tangential_params, name);
}

static double rolling(const law_binding *b, const char *name)
{
    const rolling_law *r = b->friction.rolling;
    return key(r->params, r->n_params, b->friction.rolling_params, name);
}

/* |got - want| within a few roundings of want. */
static void near(double got, double want, const char *what)
{
    if (!(fabs(got - want) <= 1e-15 * fabs(want)))
        fail_msg("%s = %.17g, the rule gives %.17g", what, got, want);
}

static double geometric(double a, double b) { return sqrt(a * b); }
static double harmonic(double a, double b) { return 2.0 * a * b / (a + b); }

/* The one pair the case leaves out, glass on steel, must be the last binding, mixed. */
static const law_binding *mixed_pair(const sim_config *cfg)
{
    assert_int_equal(cfg->n_bindings, 3);
    const law_binding *m = &cfg->bindings[2];
    assert_true(m->mixed);
    assert_false(cfg->bindings[0].mixed || cfg->bindings[1].mixed);
    assert_int_equal(m->material_a, 0);
    assert_int_equal(m->material_b, 1);
    assert_int_equal(m->mixed_from[0], 0);
    assert_int_equal(m->mixed_from[1], 1);
    return m;
}

/* Hertz-TTI with Mindlin friction and a rolling spring: restitution, friction
 * coefficients and rolling damping by the geometric mean, static's absent 0 as the
 * entry's coefficient, a value alike in both kept. The engine's pair table takes them,
 * E* from the materials, and its head-on collision restitutes the mixed e. Then 20
 * more draws of the entries' values (a fixed seed). */
static void test_mixed_closed_form(void **state)
{
    (void)state;
    char g_params[64], s_params[64], g_fric[128], s_fric[128], g_roll[128], s_roll[128];
    uint64_t seed = 12345;
    for (int draw = 0; draw <= 20; draw++) {
        double u[8];
        for (int k = 0; k < 8; k++) { /* a linear congruential draw in [0, 1) */
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            u[k] = (double)(seed >> 11) / 9007199254740992.0;
        }
        /* the first draw: round numbers */
        double e1 = draw ? 0.1 + 0.9 * u[0] : 0.5, e2 = draw ? 0.1 + 0.9 * u[1] : 0.9;
        double mu1 = draw ? u[2] : 0.3, mu2 = draw ? u[3] : 0.5;
        double st1 = mu1 * (1.0 + u[4]);
        double mr1 = draw ? 0.2 * u[5] : 0.05, mr2 = draw ? 0.2 * u[6] : 0.1;
        double z1 = draw ? 1.0 * u[7] + 0.01 : 0.2;
        snprintf(g_params, sizeof g_params, "{restitution: %.17g}", e1);
        snprintf(s_params, sizeof s_params, "{restitution: %.17g}", e2);
        snprintf(g_fric, sizeof g_fric, "friction: {coefficient: %.17g, static: %.17g}", mu1,
                 st1);
        snprintf(s_fric, sizeof s_fric, "friction: {coefficient: %.17g, model: mindlin}", mu2);
        snprintf(g_roll, sizeof g_roll, "rolling: {model: spring, coefficient: %.17g, "
                 "damping: %.17g}", mr1, z1);
        snprintf(s_roll, sizeof s_roll, "rolling: {model: spring, coefficient: %.17g}", mr2);
        entry glass = {"hertz_tti", g_params, g_fric, g_roll};
        entry steel = {"hertz_tti", s_params, s_fric, s_roll};
        sim_config cfg;
        load_ok(&glass, &steel, NULL, &cfg);
        const law_binding *m = mixed_pair(&cfg);
        assert_ptr_equal(m->law, law_find("hertz_tti"));
        near(param(m, "restitution"), geometric(e1, e2), "restitution");
        assert_true(param(m, "fit") == param(&cfg.bindings[0], "fit")); /* alike: kept */
        assert_true(m->cohesion_removal);
        assert_ptr_equal(m->friction.tangential, tangential_law_find("mindlin"));
        near(m->friction.mu, geometric(mu1, mu2), "friction.coefficient");
        near(tangential(m, "static"), geometric(st1, mu2), "friction.static");
        assert_true(tangential(m, "restitution") == 0.0); /* alike: the normal law's e */
        assert_ptr_equal(m->friction.rolling, rolling_law_find("spring"));
        near(m->friction.mu_rolling, geometric(mr1, mr2), "rolling.coefficient");
        near(rolling(m, "damping"), geometric(z1, 0.3), "rolling.damping"); /* default 0.3 */
        if (draw == 0) { /* through the engine */
            sim s;
            char err[1024];
            if (sim_create(&s, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
            const law_instance *li = &s.laws[0 * 2 + 1];
            assert_int_equal(li->binding, 2);
            assert_ptr_equal(li->law, m->law);
            double e_star = 1.0 / ((1.0 - 0.25 * 0.25) / 1.0e7 + (1.0 - 0.3 * 0.3) / 2.0e8);
            near(li->coeffs.young_eff, e_star, "E*");
            assert_true(li->friction.mu == m->friction.mu);
            assert_true(li->friction.mu_r == m->friction.mu_rolling);
            pair_restitution pr;
            if (pair_restitution_measure(&s, 2, &pr, err, sizeof err) != 0) fail_msg("%s", err);
            if (!(fabs(pr.actual - geometric(e1, e2)) < 1e-3))
                fail_msg("the mixed pair restitutes %g, sqrt(e1 e2) = %g", pr.actual,
                         geometric(e1, e2));
            for (int k = 0; k < 200; k++) sim_step(&s);
            assert_int_equal(s.fault, SIM_FAULT_NONE);
            sim_free(&s);
        }
        sim_config_free(&cfg);
    }
}

/* A given stiffness mixes as springs in series (harmonic mean), the normal and the
 * tangential one; linear's restitution and damping by the geometric mean. */
static void test_mixed_stiffness(void **state)
{
    (void)state;
    entry glass = {"linear", "{restitution: 0.8, stiffness: 1.0e4, damping: 0.5}",
                   "friction: {coefficient: 0.4, model: linear, stiffness: 2.0e3}",
                   "# no rolling"};
    entry steel = {"linear", "{restitution: 0.6, stiffness: 3.0e4, damping: 2.0}",
                   "friction: {coefficient: 0.4, model: linear, stiffness: 6.0e3}",
                   "# no rolling"};
    sim_config cfg;
    load_ok(&glass, &steel, NULL, &cfg);
    const law_binding *m = mixed_pair(&cfg);
    near(param(m, "stiffness"), harmonic(1.0e4, 3.0e4), "params.stiffness");
    near(param(m, "stiffness"), 1.5e4, "params.stiffness");
    near(param(m, "restitution"), geometric(0.8, 0.6), "params.restitution");
    near(param(m, "damping"), 1.0, "params.damping"); /* sqrt(0.5 x 2) */
    near(tangential(m, "stiffness"), harmonic(2.0e3, 6.0e3), "friction.stiffness");
    assert_true(m->friction.mu == 0.4); /* alike: kept */
    assert_null(m->friction.rolling);
    sim_config_free(&cfg);

    /* the viscous tangential law's damping rate, geometric */
    entry g2 = {"hertz", "{}", "friction: {coefficient: 0.2, model: viscous, damping: 100}",
                "# no rolling"};
    entry s2 = {"hertz", "{}", "friction: {coefficient: 0.8, model: viscous, damping: 400}",
                "# no rolling"};
    load_ok(&g2, &s2, NULL, &cfg);
    m = mixed_pair(&cfg);
    near(m->friction.mu, 0.4, "friction.coefficient");
    near(tangential(m, "damping"), 200.0, "friction.damping");
    sim_config_free(&cfg);

    /* frictionless in both: frictionless */
    entry g3 = {"hertz", "{}", "# no friction", "# no rolling"};
    load_ok(&g3, &g3, NULL, &cfg);
    m = mixed_pair(&cfg);
    assert_null(m->friction.tangential);
    assert_true(m->friction.mu == 0.0);
    sim_config_free(&cfg);
}

static double adhesion_key(const law_binding *b, const char *name)
{
    const adhesion_law *a = b->adhesion.law;
    assert_non_null(a);
    return key(a->params, a->n_params, b->adhesion.params, name);
}

/* Adhesion: the same model in both entries gives the pair that model, its strength by
 * the geometric mean (w_AB = sqrt(w_AA w_BB)), a value alike in both kept bit for bit;
 * neither entry with adhesion: the pair has none. Round numbers, then 10 draws (a fixed
 * seed) for each of jkr, dmt (work) and sjkr (energy_density). */
static void test_mixed_adhesion(void **state)
{
    (void)state;
    entry plain = {"hertz", "{}", "# no friction", "# no adhesion"};
    sim_config cfg;
    load_ok(&plain, &plain, NULL, &cfg);
    assert_null(mixed_pair(&cfg)->adhesion.law);
    assert_null(cfg.bindings[0].adhesion.law);
    sim_config_free(&cfg);

    const struct {
        const char *model, *key;
        double scale;
    } laws[] = {{"jkr", "work", 0.1}, {"dmt", "work", 0.1}, {"sjkr", "energy_density", 1e5}};
    char g_adh[128], s_adh[128];
    uint64_t seed = 4242;
    for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++)
        for (int draw = 0; draw <= 10; draw++) {
            double u[2];
            for (int k = 0; k < 2; k++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                u[k] = (double)(seed >> 11) / 9007199254740992.0;
            }
            /* the first draw: 0.4 and 0.9 of the scale, whose mean is 0.6 of it */
            double w1 = laws[l].scale * (draw ? 0.01 + u[0] : 0.4);
            double w2 = laws[l].scale * (draw ? 0.01 + u[1] : 0.9);
            snprintf(g_adh, sizeof g_adh, "adhesion: {model: %s, %s: %.17g}", laws[l].model,
                     laws[l].key, w1);
            snprintf(s_adh, sizeof s_adh, "adhesion: {%s: %.17g, model: %s}", laws[l].key, w2,
                     laws[l].model);
            entry glass = {"hertz_tti", "{restitution: 0.5}", "# no friction", g_adh};
            entry steel = {"hertz_tti", "{restitution: 0.5}", "# no friction", s_adh};
            load_ok(&glass, &steel, NULL, &cfg);
            const law_binding *m = mixed_pair(&cfg);
            assert_ptr_equal(m->adhesion.law, adhesion_law_find(laws[l].model));
            assert_true(adhesion_key(&cfg.bindings[0], laws[l].key) == w1);
            assert_true(adhesion_key(&cfg.bindings[1], laws[l].key) == w2);
            near(adhesion_key(m, laws[l].key), geometric(w1, w2), laws[l].key);
            if (draw == 0) near(adhesion_key(m, laws[l].key), 0.6 * laws[l].scale, laws[l].key);
            sim_config_free(&cfg);
            /* alike in both: the pair's, bit for bit */
            entry same = {"hertz_tti", "{restitution: 0.5}", "# no friction", g_adh};
            load_ok(&glass, &same, NULL, &cfg);
            assert_true(adhesion_key(mixed_pair(&cfg), laws[l].key) == w1);
            sim_config_free(&cfg);
        }
}

/* An entry of the pair's own wins: nothing is mixed. */
static void test_explicit_entry_wins(void **state)
{
    (void)state;
    entry glass = {"hertz_tti", "{restitution: 0.5}", "# no friction", "# no rolling"};
    entry steel = {"hertz_tti", "{restitution: 0.9}", "# no friction", "# no rolling"};
    sim_config cfg;
    load_ok(&glass, &steel,
            "  - materials: [steel, glass]\n    law: hunt_crossley\n    params: {restitution: 0.7}\n",
            &cfg);
    assert_int_equal(cfg.n_bindings, 3);
    for (int k = 0; k < 3; k++) assert_false(cfg.bindings[k].mixed);
    assert_ptr_equal(cfg.bindings[2].law, law_find("hunt_crossley"));
    assert_true(param(&cfg.bindings[2], "restitution") == 0.7);
    sim_config_free(&cfg);
}

/* A message the engine words about the mixed pair names it by its index in the bindings,
 * which no entry of the file has: the located message says which pair that is. */
static void test_engine_message_names_pair(void **state)
{
    (void)state;
    entry glass = {"hertz_tti", "{restitution: 0.5}", "# no friction", "# no rolling"};
    entry steel = {"hertz_tti", "{restitution: 0.9}", "# no friction", "# no rolling"};
    sim_config cfg;
    load_ok(&glass, &steel, NULL, &cfg);
    char out[1024], want[256];
    case_locate_error(&cfg, "contacts[2].params: something", out, sizeof out);
    snprintf(want, sizeof want, "%s:8: contacts[2].params: something (contacts[2] is the pair "
             "[glass, steel], mixed from contacts[0] and contacts[1]", case_path);
    if (!strstr(out, want)) fail_msg("'%s' lacks '%s'", out, want);
    case_locate_error(&cfg, "contacts[1].params: something", out, sizeof out);
    snprintf(want, sizeof want, "%s:16: contacts[1].params: something", case_path);
    if (strcmp(out, want)) fail_msg("'%s' is not '%s'", out, want);
    sim_config_free(&cfg);
}

/* Entries that do not mix: the message names the file and the contacts line, both
 * entries with their lines, and why. */
static void test_unmixable(void **state)
{
    (void)state;
    entry glass = {"hertz_tti", "{restitution: 0.5}",
                   "friction: {coefficient: 0.3, model: mindlin}",
                   "rolling: {model: constant, coefficient: 0.05}"};
    entry hc = {"hunt_crossley", "{restitution: 0.5}", "# no friction", "# no rolling"};
    const struct {
        entry a, b;
        const char *extra, *why;
    } bad[] = {
        {glass, {"hunt_crossley", "{restitution: 0.9}", glass.friction, glass.rolling}, NULL,
         "their laws differ (hertz_tti and hunt_crossley)"},
        {glass, {"hertz_tti", "{restitution: 0.9}",
                 "friction: {coefficient: 0.3, model: viscous, damping: 50}", glass.rolling},
         NULL, "their friction models differ (mindlin and viscous)"},
        {glass, {"hertz_tti", "{restitution: 0.9}", "# no friction", glass.rolling}, NULL,
         "contacts[0] has friction and contacts[1] none"},
        {glass, {"hertz_tti", "{restitution: 0.9}", glass.friction,
                 "rolling: {model: viscous, coefficient: 0.05, damping: 0.1}"}, NULL,
         "their rolling models differ (constant and viscous)"},
        {glass, {"hertz_tti", "{restitution: 0.9}", glass.friction, "# no rolling"}, NULL,
         "contacts[0] has rolling resistance and contacts[1] none"},
        {glass, {"hertz_tti", "{restitution: 0.9}", glass.friction, glass.rolling},
         "    cohesion_removal: false\n", "cohesion_removal is true in contacts[0] and false in "
                                          "contacts[1]"},
        {glass, {"hertz_tti", "{restitution: 0.9}", glass.friction, glass.rolling},
         "    calibrate: true\n", "calibrate is true in contacts[1] and false in contacts[0]"},
        {hc, {"hunt_crossley", "{restitution: 0.5, exponent: 2}", "# no friction", "# no rolling"},
         NULL, "params.exponent differs (1.5 and 2), and no rule mixes it"},
        {hc, {"hunt_crossley", "{restitution: 0.5, stiffness: 1.0e6}", "# no friction",
              "# no rolling"},
         NULL, "params.stiffness is 0 and 1e+06: a harmonic mean mixes given values (> 0) only"},
        {glass, {"hertz_tti", "{restitution: 0.9}",
                 "friction: {coefficient: 0.3, model: mindlin, restitution: 0.5}", glass.rolling},
         NULL, "friction.restitution is 0 and 0.5: a geometric mean mixes given values"},
        {{"hertz_kk", "{restitution: 0.5}", "calibrate: true", "# no rolling"},
         {"hertz_kk", "{restitution: 0.9, eta: 1000}", "calibrate: true", "# no rolling"}, NULL,
         "params.eta is left to calibration in one entry and 1000 in the other"},
        /* adhesion: in both or in neither, one model */
        {{"hertz", "{}", "# no friction", "adhesion: {model: jkr, work: 0.05}"},
         {"hertz", "{}", "# no friction", "# no adhesion"}, NULL,
         "contacts[0] has adhesion and contacts[1] none"},
        {{"hertz", "{}", "# no friction", "# no adhesion"},
         {"hertz", "{}", "# no friction", "adhesion: {model: dmt, work: 0.05}"}, NULL,
         "contacts[1] has adhesion and contacts[0] none"},
        {{"hertz", "{}", "# no friction", "adhesion: {model: jkr, work: 0.05}"},
         {"hertz", "{}", "# no friction", "adhesion: {model: dmt, work: 0.05}"}, NULL,
         "their adhesion models differ (jkr and dmt)"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sim_config cfg;
        char err[2048] = "", want[640];
        assert_int_equal(load(&bad[k].a, &bad[k].b, bad[k].extra, &cfg, err, sizeof err), -1);
        snprintf(want, sizeof want, "%s:8: contacts: no entry for [glass, steel] ", case_path);
        const char *frags[] = {want, "contacts[0] ([glass, glass], line 9)",
                               "contacts[1] ([steel, steel], line 14)", bad[k].why,
                               "give the pair an entry of its own ('- materials: [glass, steel]'"};
        for (size_t q = 0; q < sizeof frags / sizeof frags[0]; q++)
            if (!strstr(err, frags[q])) fail_msg("case %zu: '%s' lacks '%s'", k, err, frags[q]);
    }
    /* without the steel entry there is nothing to mix from */
    entry none = {"hertz_tti", "{restitution: 0.9}", "# no friction", "# no rolling"};
    FILE *f = fopen(case_path, "w");
    assert_non_null(f);
    fprintf(f, case_template, glass.law, glass.params, glass.friction, glass.rolling, none.law,
            none.params, none.friction, none.rolling, "");
    fclose(f);
    char text[4096];
    f = fopen(case_path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *steel = strstr(text, "  - materials: [steel, steel]");
    assert_non_null(steel);
    memcpy(steel, "  # materials: [steel, steel]", 29);
    memcpy(strstr(steel, "    law:"), "    #aw:", 8);
    memcpy(strstr(steel, "    params:"), "    #arams:", 11);
    f = fopen(case_path, "w");
    fputs(text, f);
    fclose(f);
    sim_config cfg;
    char err[2048] = "";
    assert_int_equal(case_load(case_path, &cfg, err, sizeof err), -1);
    if (!strstr(err, "no entry for [glass, steel]") || !strstr(err, "[steel, steel]") ||
        !strstr(err, "entries [a, a] and [b, b] to mix it from"))
        fail_msg("%s", err);
}

/* Every shipped case gives every pair that touches an entry: none is mixed, so each
 * keeps its bits. */
static void test_shipped_cases_mix_nothing(void **state)
{
    (void)state;
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/cases", src ? src : ".");
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
        char path[1400], err[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        sim_config cfg;
        if (case_load(path, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
        for (int k = 0; k < cfg.n_bindings; k++)
            if (cfg.bindings[k].mixed) fail_msg("%s: contacts pair %d was mixed", path, k);
        sim_config_free(&cfg);
        n++;
    }
    closedir(d);
    assert_true(n >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_closed_form),
        cmocka_unit_test(test_mixed_stiffness),
        cmocka_unit_test(test_mixed_adhesion),
        cmocka_unit_test(test_explicit_entry_wins),
        cmocka_unit_test(test_engine_message_names_pair),
        cmocka_unit_test(test_unmixable),
        cmocka_unit_test(test_shipped_cases_mix_nothing),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_file);
}
