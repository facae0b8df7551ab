/* The registries against the plug-in form (models/plugin.h): every registered normal,
 * tangential, rolling and adhesion law passes its kind's check (capacities, flags that
 * match the functions, calibration indices), each composed law is found again from its two parts,
 * the check refuses a law that breaks the form, and a law that declares
 * LAW_CAP_LINEAR_IN_RATE is affine in the overlap rate (the dashpot check's assumption,
 * engine/checks/dashpot_check.c), checked on generated contacts. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "models/adhesion_law.h"
#include "models/friction_law.h"
#include "models/law.h"
#include "law_helpers.h"
#include "models/normal_parts.h"

static void every_law_fits_the_form(void **state)
{
    char err[256] = "";
    if (law_registry_check(err, sizeof err) != 0) fail_msg("%s", err);
    if (friction_registry_check(err, sizeof err) != 0) fail_msg("%s", err);
    if (adhesion_registry_check(err, sizeof err) != 0) fail_msg("%s", err);
}

/* Each law with parts is the one law_find_parts returns for them; each part is listed. */
static void parts_name_their_law(void **state)
{
    int composed = 0;
    for (int k = 0; k < law_count(); k++) {
        const dem_law *law = law_at(k);
        if (!law->elastic) continue;
        composed++;
        assert_ptr_equal(law_find_parts(law->elastic, law->damping), law);
        int found[2] = {0, 0};
        for (int kind = 0; kind < 2; kind++)
            for (int q = 0; law_part_at(kind, q); q++)
                found[kind] |= !strcmp(law_part_at(kind, q), kind ? law->damping : law->elastic);
        assert_true(found[0] && found[1]);
    }
    assert_true(composed >= 15); /* every law but kostek */
    assert_null(law_find_parts("hertz", "no_such_dashpot"));
    assert_null(law_find_parts(NULL, NULL));
}

/* The check can fail: a copy of a registered law broken one way at a time. */
static void the_check_refuses_a_broken_plugin(void **state)
{
    const dem_law *good = law_find("hertz_tti");
    char err[256];
    law_plugin p = good->plugin;
    assert_int_equal(law_plugin_check(&p, LAW_MAX_PARAMS, LAW_MAX_HISTORY, 0, LAW_NORMAL_CAPS,
                                      err, sizeof err), 0);
    p.n_params = LAW_MAX_PARAMS + 1;
    assert_int_equal(law_plugin_check(&p, LAW_MAX_PARAMS, LAW_MAX_HISTORY, 0, LAW_NORMAL_CAPS,
                                      err, sizeof err), -1);
    print_message("refused: %s\n", err);
    p = good->plugin;
    p.n_state = LAW_MAX_HISTORY + 1;
    assert_int_equal(law_plugin_check(&p, LAW_MAX_PARAMS, LAW_MAX_HISTORY, 0, LAW_NORMAL_CAPS,
                                      err, sizeof err), -1);
    p = good->plugin;
    p.caps |= LAW_CAP_USES_TURN; /* a rolling law's flag */
    assert_int_equal(law_plugin_check(&p, LAW_MAX_PARAMS, LAW_MAX_HISTORY, 0, LAW_NORMAL_CAPS,
                                      err, sizeof err), -1);
    /* a friction key needs a finite largest value (friction_law.h) */
    const tangential_law *t = tangential_law_find("viscous");
    law_param wide = t->params[0];
    wide.max_value = HUGE_VAL;
    p = t->plugin;
    p.params = &wide;
    assert_int_equal(law_plugin_check(&p, FRICTION_MAX_PARAMS, FRICTION_SLIP_HISTORY, 1,
                                      TANGENTIAL_LAW_CAPS, err, sizeof err), -1);
}

/* A small deterministic generator (xorshift), so that the contacts are the same each run. */
static double uniform(uint64_t *s, double lo, double hi)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return lo + (hi - lo) * (double)(*s >> 11) / 9007199254740992.0;
}

/* F(d') - F(0) scales with d' for a law that says so: F(2r) - F(r) = F(r) - F(0), to
 * rounding, on 200 generated contacts per law (fresh history, so the state that is set
 * at first touch is the same in each of the three). */
static void linear_in_rate_means_affine(void **state)
{
    uint64_t seed = 0x9e3779b97f4a7c15u;
    int checked = 0;
    for (int L = 0; L < law_count(); L++) {
        const dem_law *law = law_at(L);
        if (!law_has(&law->plugin, LAW_CAP_LINEAR_IN_RATE)) continue;
        double p[LAW_MAX_PARAMS];
        law_test_params(law, p);
        law_pair_props pair = {.young_eff = 1e9, .shear_eff = 4e8, .density_a = 2500,
                               .density_b = 2500, .law_restitution = NAN};
        law_coeffs c = {.young_eff = 1e9};
        law_error why;
        if (law->setup(p, &pair, &c, &why) != 0) fail_msg("%s: %s", law->name, why.msg);
        for (int n = 0; n < 200; n++) {
            double d = uniform(&seed, 1e-8, 1e-4), r = uniform(&seed, 1e-4, 1e-2);
            double m = uniform(&seed, 1e-6, 1e-2), v0 = uniform(&seed, 1e-3, 5.0);
            double rate = uniform(&seed, -2.0, 2.0), f[3];
            for (int q = 0; q < 3; q++) {
                double h[LAW_MAX_HISTORY] = {0}, x = q * rate;
                law_batch b = {.n = 1, .overlap = &d, .overlap_rate = &x,
                               .impact_velocity = &v0, .r_eff = &r, .m_eff = &m, .force = &f[q]};
                for (int k = 0; k < LAW_MAX_HISTORY; k++) b.history[k] = &h[k];
                law->force(&c, &b);
            }
            double scale = fabs(f[0]) + fabs(f[1]) + fabs(f[2]);
            if (!(fabs((f[2] - f[1]) - (f[1] - f[0])) <= 1e-12 * scale))
                fail_msg("%s: F(0) = %.17g, F(d') = %.17g, F(2d') = %.17g: not affine in d'",
                         law->name, f[0], f[1], f[2]);
        }
        checked++;
    }
    assert_true(checked >= 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_law_fits_the_form),
        cmocka_unit_test(parts_name_their_law),
        cmocka_unit_test(the_check_refuses_a_broken_plugin),
        cmocka_unit_test(linear_in_rate_means_affine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
