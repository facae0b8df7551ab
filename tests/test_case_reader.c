/* The case-file reader: a full case loads with the right numbers, defaults apply, CSV
 * sources load, and every bad file fails with a message that names its line and key. */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "io/case/case.h"
#include "io/case/case_errors.h"

#define TOL 1e-12

/* cmocka 1.1.5 has no assert_double_equal */
#define assert_near(a, b, tol) check_near((a), (b), (tol), #a, __LINE__)

static void check_near(double a, double b, double tol, const char *what, int line)
{
    if (!(fabs(a - b) <= tol))
        fail_msg("line %d: %s = %.17g, expected %.17g", line, what, a, b);
}

static char case_dir[1024];

static const char *case_file(const char *name)
{
    static char path[1280];
    snprintf(path, sizeof path, "%s/%s", case_dir, name);
    return path;
}

static int find_data(void **state)
{
    const char *src = getenv("DEMPACT_SOURCE_DIR");
    snprintf(case_dir, sizeof case_dir, "%s/tests/data/cases", src ? src : ".");
    return 0;
}

static void load_ok(const char *name, sim_config *cfg)
{
    char err[2048];
    if (case_load(case_file(name), cfg, err, sizeof err) != 0) fail_msg("%s", err);
}

static double param(const law_binding *b, const char *name)
{
    int k = law_param_index(b->law, name);
    assert_true(k >= 0);
    return b->params[k];
}

static void test_good_case(void **state)
{
    sim_config cfg;
    load_ok("good.yaml", &cfg);
    assert_string_equal(cfg.name, "pour_test");
    assert_near(cfg.domain_max[2], 0.3, TOL);
    assert_true(cfg.periodic[0] && !cfg.periodic[1] && !cfg.periodic[2]);
    assert_near(cfg.gravity[2], -9.81, TOL);
    assert_near(cfg.end_time, 0.5, TOL);
    assert_near(cfg.dt, 1e-6, TOL);
    assert_false(cfg.dt_check);
    assert_near(cfg.output_interval, 0.05, TOL);
    assert_near(cfg.skin, 2e-4, TOL);
    assert_near(cfg.impact_speed_estimate, 0.0, TOL);

    assert_int_equal(cfg.n_materials, 2);
    assert_string_equal(cfg.materials[1].name, "steel");
    assert_near(cfg.materials[0].young, 5e7, TOL);
    assert_near(cfg.materials[1].poisson, 0.3, TOL);

    assert_int_equal(cfg.n_bindings, 2);
    const law_binding *glass = &cfg.bindings[0], *steel_glass = &cfg.bindings[1];
    assert_string_equal(glass->law->name, "linear");
    assert_int_equal(glass->material_a, 0);
    assert_int_equal(glass->material_b, 0);
    assert_true(glass->cohesion_removal);
    assert_near(param(glass, "restitution"), 0.8, TOL);
    assert_near(param(glass, "stiffness_formula"), 2.0, TOL); /* "time" */
    const law_param *damping = &glass->law->params[law_param_index(glass->law, "damping")];
    assert_near(param(glass, "damping"), damping->default_value, TOL);
    assert_string_equal(steel_glass->law->name, "hertz_tti");
    assert_int_equal(steel_glass->material_a, 1);
    assert_int_equal(steel_glass->material_b, 0);
    assert_false(steel_glass->cohesion_removal);
    assert_near(param(steel_glass, "restitution"), 0.5, TOL);

    assert_int_equal(cfg.n_walls, 2);
    assert_string_equal(cfg.walls[0].name, "floor");
    assert_int_equal(cfg.walls[0].kind, WALL_PLANE);
    assert_int_equal(cfg.walls[0].material, 1);
    assert_near(cfg.walls[0].normal[2], 1.0, TOL); /* [0, 0, 2] normalised */
    assert_string_equal(cfg.walls[1].name, "wall1");
    assert_int_equal(cfg.walls[1].kind, WALL_RECTANGLE);
    assert_near(cfg.walls[1].axis_u[0], 1.0, TOL); /* [3, 0, 0] normalised */
    assert_near(cfg.walls[1].half_size[1], 0.04, TOL);

    assert_int_equal(cfg.n_sources, 3);
    const particle_source *random = &cfg.sources[0], *lattice = &cfg.sources[1];
    assert_int_equal(random->kind, SOURCE_RANDOM);
    assert_int_equal(random->material, 0);
    assert_int_equal(random->count, 3000);
    assert_near(random->radius_min, 0.0015, TOL);
    assert_near(random->radius_max, 0.0025, TOL);
    assert_near(random->region_max[2], 0.28, TOL);
    assert_near(random->velocity[2], -1.0, TOL);
    assert_int_equal(random->seed, 42);
    assert_int_equal(lattice->kind, SOURCE_LATTICE);
    assert_int_equal(lattice->count, 0);
    assert_near(lattice->radius_min, 0.002, TOL);
    assert_near(lattice->radius_max, 0.002, TOL);
    assert_near(lattice->gap, 0.05, TOL);
    assert_int_equal(lattice->seed, 1);

    assert_non_null(cfg.case_path);
    assert_string_equal(cfg.case_path, case_file("good.yaml"));
    assert_non_null(cfg.case_text);
    assert_memory_equal(cfg.case_text, "# good.yaml", 11);
    sim_config_free(&cfg);
    assert_null(cfg.materials);
    sim_config_free(&cfg); /* harmless twice */
}

static void test_csv_source(void **state)
{
    sim_config cfg;
    load_ok("good.yaml", &cfg);
    const particle_source *s = &cfg.sources[2];
    assert_int_equal(s->kind, SOURCE_LIST);
    assert_int_equal(s->n_list, 3); /* the comment and the blank line are skipped */
    assert_null(s->list_velocity);
    static const double x[] = {0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09};
    static const double r[] = {0.001, 0.002, 0.0015};
    for (int k = 0; k < 9; k++) assert_near(s->list_position[k], x[k], TOL);
    for (int k = 0; k < 3; k++) assert_near(s->list_radius[k], r[k], TOL);
    assert_near(s->radius_min, 0.001, TOL);
    assert_near(s->radius_max, 0.002, TOL);
    sim_config_free(&cfg);
}

static void test_defaults_and_csv_velocities(void **state)
{
    sim_config cfg;
    load_ok("minimal.yaml", &cfg);
    assert_string_equal(cfg.name, "minimal");
    assert_near(cfg.dt, 0.0, 0.0);
    assert_true(cfg.dt_check);
    assert_near(cfg.output_interval, 0.0, 0.0);
    assert_near(cfg.skin, 0.0, 0.0);
    for (int a = 0; a < 3; a++) {
        assert_false(cfg.periodic[a]);
        assert_near(cfg.gravity[a], 0.0, 0.0);
    }
    assert_int_equal(cfg.n_walls, 0);
    assert_true(cfg.bindings[0].cohesion_removal);
    assert_int_equal(cfg.sources[0].seed, 1);
    const particle_source *s = &cfg.sources[1];
    assert_int_equal(s->n_list, 2);
    assert_non_null(s->list_velocity);
    /* columns vz,x,radius,vy,y,vx,z */
    static const double x[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    static const double v[] = {0.25, 0.5, -1.5, 1, 2, 3};
    for (int k = 0; k < 6; k++) {
        assert_near(s->list_position[k], x[k], TOL);
        assert_near(s->list_velocity[k], v[k], TOL);
    }
    assert_near(s->list_radius[1], 0.02, TOL);
    sim_config_free(&cfg);
}

/* An adhesion mapping gives its pair the law and the values it names, on a particle pair
 * and on a wall's; an entry without one has none. */
static void test_adhesion(void **state)
{
    (void)state;
    sim_config cfg;
    load_ok("good_adhesion.yaml", &cfg);
    assert_int_equal(cfg.n_bindings, 3);
    const contact_adhesion *powder = &cfg.bindings[0].adhesion;
    const contact_adhesion *wall = &cfg.bindings[1].adhesion;
    assert_non_null(adhesion_law_find("jkr"));
    assert_ptr_equal(powder->law, adhesion_law_find("jkr"));
    int k = law_plugin_param(&powder->law->plugin, "work");
    assert_true(k >= 0);
    assert_true(powder->params[k] == 0.05);
    assert_ptr_equal(wall->law, adhesion_law_find("sjkr"));
    k = law_plugin_param(&wall->law->plugin, "energy_density");
    assert_true(k >= 0);
    assert_true(wall->params[k] == 2.5e5);
    assert_int_equal(cfg.walls[0].material, cfg.bindings[1].material_b);
    assert_null(cfg.bindings[2].adhesion.law); /* no adhesion unless the entry names it */
    sim_config_free(&cfg);
    load_ok("minimal.yaml", &cfg);
    assert_null(cfg.bindings[0].adhesion.law);
    sim_config_free(&cfg);
}

/* A bad file and what its message must contain (up to three pieces). */
typedef struct bad_case {
    const char *file;
    const char *expect[4];
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_fast_particles.yaml", {"bad_fast_particles.yaml:22: ", "particles[0].velocity",
                                 "above the 10000 m/s"}},
    {"bad_fast_wall.yaml", {"bad_fast_wall.yaml:23: ", "walls[0]", "above the 10000 m/s"}},
    {"bad_typo.yaml", {"bad_typo.yaml:21: ", "unknown key 'radiuss' in particles[0]",
                       "did you mean 'radius'"}},
    {"bad_negative_radius.yaml", {"bad_negative_radius.yaml:21: ", "particles[0].radius",
                                  "must be > 0"}},
    {"bad_unknown_law.yaml", {"bad_unknown_law.yaml:14: ", "unknown law 'hertz_ttl'",
                              "did you mean 'hertz_tti'"}},
    {"bad_missing_key.yaml", {"bad_missing_key.yaml:8: ", "materials[0]",
                              "missing required key 'young'"}},
    {"bad_wrong_type.yaml", {"bad_wrong_type.yaml:9: ", "materials[0].density",
                             "got 'heavy'"}},
    {"bad_truncated.yaml", {"bad_truncated.yaml:20: ", "YAML syntax error"}},
    {"bad_binary.yaml", {"bad_binary.yaml:1: ", "not a text file"}},
    {"bad_empty.yaml", {"bad_empty.yaml:1: ", "empty"}},
    {"bad_vector2.yaml", {"bad_vector2.yaml:4: ", "domain.max",
                          "expected a list of 3 numbers, got 2"}},
    {"bad_poisson.yaml", {"bad_poisson.yaml:11: ",
                          "materials[0].poisson = 0.7 is out of range (-1, 0.5)"}},
    {"bad_unknown_material.yaml", {"bad_unknown_material.yaml:18: ",
                                   "particles[0].material: unknown material 'glas'",
                                   "did you mean 'glass'"}},
    {"bad_missing_pair.yaml", {"bad_missing_pair.yaml:16: ", "contacts",
                               "[glass, steel]"}},
    {"bad_duplicate_pair.yaml", {"bad_duplicate_pair.yaml:16: ", "contacts[1].materials",
                                 "already has a contact entry"}},
    {"bad_unknown_param.yaml", {"bad_unknown_param.yaml:15: ", "no parameter 'xi'",
                                "its parameters are: restitution"}},
    {"bad_param_typo.yaml", {"bad_param_typo.yaml:15: ", "no parameter 'restitutoin'",
                             "did you mean 'restitution'"}},
    {"bad_missing_param.yaml", {"bad_missing_param.yaml:13: ", "law 'hertz_tti'",
                                "needs parameter 'restitution'"}},
    {"bad_choice.yaml", {"bad_choice.yaml:15: ", "contacts[0].params.stiffness_formula",
                         "expected one of: energy, overlap, time"}},
    {"bad_restitution.yaml", {"bad_restitution.yaml:15: ", "contacts[0].params.restitution",
                              "out of range"}},
    {"bad_csv_column.yaml", {"bad_column.csv:1: ", "unknown column 'colour'",
                             "bad_csv_column.yaml:19"}},
    {"bad_csv_number.yaml", {"bad_number.csv:4: ", "column 'y'", "'abc' is not a number"}},
    {"bad_csv_missing.yaml", {"bad_csv_missing.yaml:19: ", "no_such_file.csv",
                              "cannot open"}},
    {"bad_domain.yaml", {"bad_domain.yaml:4: ", "domain", "must be <"}},
    {"bad_region_outside.yaml", {"bad_region_outside.yaml:19: ", "particles[0].region",
                                 "outside the domain"}},
    {"bad_count.yaml", {"bad_count.yaml:20: ", "particles[0].count", "must be > 0"}},
    {"bad_radius_range.yaml", {"bad_radius_range.yaml:21: ", "particles[0].radius",
                               "must be <= max"}},
    {"bad_end.yaml", {"bad_end.yaml:6: ", "time.end", "must be > 0"}},
    {"bad_step.yaml", {"bad_step.yaml:7: ", "time.step", "must be > 0"}},
    {"bad_bool.yaml", {"bad_bool.yaml:7: ", "time.check_step", "got 'maybe'"}},
    {"bad_duplicate_key.yaml", {"bad_duplicate_key.yaml:11: ", "duplicate key 'density'",
                                "line 9"}},
    {"bad_not_mapping.yaml", {"bad_not_mapping.yaml:2: ", "mapping"}},
    {"bad_rectangle_axis.yaml", {"bad_rectangle_axis.yaml:33: ", "walls[0].axis",
                                 "perpendicular"}},
    {"bad_wall_normal.yaml", {"bad_wall_normal.yaml:33: ", "walls[0].normal", "non-zero"}},
    {"bad_top_typo.yaml", {"bad_top_typo.yaml:7: ", "unknown top-level key 'materails'",
                           "did you mean 'materials'"}},
    {"bad_list_as_scalar.yaml", {"bad_list_as_scalar.yaml:7: ", "materials:",
                                 "expected a list"}},
    {"bad_two_documents.yaml", {"bad_two_documents.yaml:22: ", "second YAML document"}},
    {"bad_alias.yaml", {"bad_alias.yaml:10: ", "materials[0].young", "aliases"}},
    {"bad_source_key.yaml", {"bad_source_key.yaml:21: ", "particles[0].gap",
                             "does not take 'gap'"}},
    {"bad_seed.yaml", {"bad_seed.yaml:21: ", "particles[0].seed", "got '-1'"}},
    /* issue 8: the malformed corpus (tests/e2e/malformed_corpus.sh runs them through
     * `dempact check` and `dempact run` as well) */
    {"bad_time_typo.yaml", {"bad_time_typo.yaml:7: ", "unknown key 'ened' in time",
                            "did you mean 'end'"}},
    {"bad_watchdog_action.yaml", {"bad_watchdog_action.yaml:6: ", "watchdog.on_error",
                                  "did you mean 'drop_particle'"}},
    {"bad_watchdog_overlap.yaml", {"bad_watchdog_overlap.yaml:6: ",
                                   "watchdog.max_overlap_fraction = 2", "(0, 1]"}},
    {"bad_watchdog_interval.yaml", {"bad_watchdog_interval.yaml:7: ", "watchdog.interval",
                                    "whole number"}},
    {"bad_watchdog_key.yaml", {"bad_watchdog_key.yaml:7: ", "unknown key 'on_eror' in watchdog",
                               "did you mean 'on_error'"}},
    {"bad_energy_tolerance.yaml", {"bad_energy_tolerance.yaml:7: ",
                                   "watchdog.energy_tolerance = -0.5", "must be > 0"}},
    {"bad_density_zero.yaml", {"bad_density_zero.yaml:9: ", "materials[0].density = 0",
                               "must be > 0"}},
    {"bad_young_negative.yaml", {"bad_young_negative.yaml:9: ", "materials[0].young",
                                 "must be > 0"}},
    {"bad_poisson_half.yaml", {"bad_poisson_half.yaml:9: ", "materials[0].poisson = 0.5",
                               "(-1, 0.5)"}},
    {"bad_restitution_zero.yaml", {"bad_restitution_zero.yaml:11: ",
                                   "contacts[0].params.restitution = 0", "out of range"}},
    {"bad_end_nan.yaml", {"bad_end_nan.yaml:7: ", "time.end", "finite number"}},
    {"bad_huge_number.yaml", {"bad_huge_number.yaml:9: ", "materials[0].young", "'1e999'"}},
    {"bad_output_interval.yaml", {"bad_output_interval.yaml:8: ", "time.output_interval",
                                  "must be >= 0"}},
    {"bad_skin_negative.yaml", {"bad_skin_negative.yaml:6: ", "neighbour.skin",
                                "must be >= 0"}},
    {"bad_gap_negative.yaml", {"bad_gap_negative.yaml:15: ", "particles[0].gap",
                               "must be >= 0"}},
    {"bad_region_behind_wall.yaml", {"bad_region_behind_wall.yaml:15: ",
                                     "particles[0].region", "behind wall floor"}},
    {"bad_no_floor.yaml", {"bad_no_floor.yaml:5: ", "gravity: pulls along -z",
                           "no wall faces it"}},
    {"bad_upside_down_floor.yaml", {"bad_upside_down_floor.yaml:5: ", "gravity",
                                    "no wall faces it"}},
    {"bad_unclosed_bracket.yaml", {"bad_unclosed_bracket.yaml:5: ", "YAML syntax error",
                                   "flow sequence"}},
    {"bad_unclosed_quote.yaml", {"bad_unclosed_quote.yaml:17: ", "YAML syntax error",
                                 "quoted scalar"}},
    {"bad_tab_indent.yaml", {"bad_tab_indent.yaml:7: ", "YAML syntax error"}},
    {"bad_materials_empty.yaml", {"bad_materials_empty.yaml:8: ", "materials",
                                  "at least 1 entry"}},
    {"bad_gravity_mapping.yaml", {"bad_gravity_mapping.yaml:5: ", "gravity",
                                  "got a mapping"}},
    {"bad_count_text.yaml", {"bad_count_text.yaml:15: ", "particles[0].count", "'many'"}},
    {"bad_periodic_number.yaml", {"bad_periodic_number.yaml:5: ", "domain.periodic[0]",
                                  "true or false"}},
    {"bad_missing_time.yaml", {"bad_missing_time.yaml:2: ", "missing required top-level key 'time'"}},
    {"bad_missing_domain_min.yaml", {"bad_missing_domain_min.yaml:2: ", "domain",
                                     "missing required key 'min'"}},
    {"bad_name_slash.yaml", {"bad_name_slash.yaml:2: ", "name: '../pour'", "'/'"}},
    {"bad_name_long.yaml", {"bad_name_long.yaml:2: ", "name", "longer than 63"}},
    {"bad_wall_material.yaml", {"bad_wall_material.yaml:13: ", "walls[0].material",
                                "did you mean 'glass'"}},
    {"bad_wall_type.yaml", {"bad_wall_type.yaml:13: ", "walls[0].type", "'plain'"}},
    {"bad_param_text.yaml", {"bad_param_text.yaml:11: ", "contacts[0].params.restitution",
                             "'high'"}},
    {"bad_step_text.yaml", {"bad_step_text.yaml:8: ", "time.step", "'fast'"}},
    {"bad_kostek_param.yaml", {"bad_kostek_param.yaml:11: ", "contacts[0].params.e_e = -1",
                               "out of range"}},
    {"bad_csv_overlap.yaml", {"bad_csv_overlap.yaml:15: ", "overlaps particle 1",
                              "limit 0.5"}},
    {"bad_csv_behind_wall.yaml", {"bad_csv_behind_wall.yaml:15: ", "particles[0].file",
                                  "behind wall floor"}},
    {"bad_deep_nesting.yaml", {"bad_deep_nesting.yaml:5: ", "nesting deeper than 64"}},
    {"bad_calibrate_kostek.yaml", {"bad_calibrate_kostek.yaml:11: ", "contacts[0].calibrate",
                                   "cannot be calibrated"}},
    {"bad_lattice_too_small.yaml", {"bad_lattice_too_small.yaml:15: ", "particles[0]",
                                    "too small for one sphere"}},
    {"bad_junk.yaml", {"bad_junk.yaml:1: ", "not a text file"}},
    {"bad_nul.yaml", {"bad_nul.yaml:9: ", "not a text file", "control characters"}},
    {"bad_utf8.yaml", {"bad_utf8.yaml:9: ", "not valid UTF-8"}},
    {"bad_friction_model.yaml", {"bad_friction_model.yaml:16: ",
                                 "contacts[0].friction.model = 'mindlin_deresiewitz'",
                                 "did you mean 'mindlin_deresiewicz'"}},
    {"bad_microslip_static.yaml", {"bad_microslip_static.yaml:16: ",
                                   "contacts[0].friction.static",
                                   "model mindlin_deresiewicz takes no key 'static'",
                                   "its own keys are: restitution"}},
    {"bad_microslip_stiffness.yaml", {"bad_microslip_stiffness.yaml:16: ",
                                      "contacts[0].friction.stiffness",
                                      "model mindlin_deresiewicz takes no key 'stiffness'"}},
    {"bad_linear_no_stiffness.yaml", {"bad_linear_no_stiffness.yaml:16: ", "contacts[0].friction",
                                      "model linear needs stiffness", "[N/m]"}},
    {"bad_static_below.yaml", {"bad_static_below.yaml:16: ", "contacts[0].friction.static = 0.2",
                               "below the (dynamic) coefficient 0.3"}},
    {"bad_viscous_restitution.yaml", {"bad_viscous_restitution.yaml:16: ",
                                      "contacts[0].friction.restitution",
                                      "model viscous takes no key 'restitution'",
                                      "its own keys are: damping"}},
    {"bad_rolling_viscous_no_damping.yaml", {"bad_rolling_viscous_no_damping.yaml:17: ",
                                             "contacts[0].rolling", "model viscous needs damping"}},
    {"bad_rolling_constant_damping.yaml", {"bad_rolling_constant_damping.yaml:16: ",
                                           "contacts[0].rolling.damping",
                                           "model constant takes no key 'damping'"}},
    {"bad_microslip_no_coefficient.yaml", {"bad_microslip_no_coefficient.yaml:16: ",
                                           "contacts[0].friction",
                                           "missing required key 'coefficient'"}},
    {"bad_csv_device.yaml", {"bad_csv_device.yaml:15: ", "particles[0].file",
                              "/dev/zero is not a regular file"}},
    {"bad_wall_motion.yaml", {"bad_wall_motion.yaml:37: ", "walls[1].motion[1].duration",
                               "must be > 0"}},
    {"bad_parallel_method.yaml", {"bad_parallel_method.yaml:18: ", "parallel.method",
                                  "expected rcb, rib or hsfc, got 'rcbx'", "did you mean 'rcb'"}},
    {"bad_parallel_reproducible.yaml", {"bad_parallel_reproducible.yaml:18: ",
                                        "parallel.reproducible", "expected true or false"}},
    {"bad_parallel_rebalance.yaml", {"bad_parallel_rebalance.yaml:18: ", "parallel.rebalance",
                                     "a number >= 1, got 0.8"}},
    /* a contact entry's adhesion (issue 40), on a particle pair and on a wall's pair */
    {"bad_adhesion_model.yaml", {"bad_adhesion_model.yaml:15: ",
                                 "contacts[0].adhesion.model = 'jkrr': expected one of: ",
                                 "sjkr", "did you mean 'jkr'"}},
    {"bad_adhesion_key.yaml", {"bad_adhesion_key.yaml:16: ", "contacts[0].adhesion.energy_density",
                               "model jkr takes no key 'energy_density'",
                               "its own keys are: work"}},
    {"bad_adhesion_typo.yaml", {"bad_adhesion_typo.yaml:16: ", "contacts[0].adhesion.wrok",
                                "model dmt takes no key 'wrok' (did you mean 'work'?)",
                                "its own keys are: work"}},
    {"bad_adhesion_range.yaml", {"bad_adhesion_range.yaml:16: ",
                                 "contacts[0].adhesion.work = -0.5 is out of range ["}},
    {"bad_adhesion_missing.yaml", {"bad_adhesion_missing.yaml:14: ", "contacts[0].adhesion",
                                   "model sjkr needs energy_density"}},
    {"bad_adhesion_twice.yaml", {"bad_adhesion_twice.yaml:15: ", "duplicate key 'adhesion'",
                                 "line 14"}},
    {"bad_adhesion_not_mapping.yaml", {"bad_adhesion_not_mapping.yaml:14: ",
                                       "contacts[0].adhesion: expected a mapping", "got 'jkr'"}},
    {"bad_adhesion_no_model.yaml", {"bad_adhesion_no_model.yaml:14: ", "contacts[0].adhesion",
                                    "missing required key 'model'"}},
    {"bad_adhesion_text.yaml", {"bad_adhesion_text.yaml:16: ", "contacts[0].adhesion.work",
                                "got 'strong'"}},
    {"bad_adhesion_normal.yaml", {"bad_adhesion_normal.yaml:15: ", "contacts[0].adhesion.model: jkr replaces",
                                  "law linear's elastic part is linear"}},
    {"bad_adhesion_wall.yaml", {"bad_adhesion_wall.yaml:20: ",
                                "contacts[1].adhesion.energy_density = -3 is out of range ["}},
};

/* What `dempact check` does after reading: build the simulation and look at the state
 * it starts from. Returns 0 or -1 with the located message in err. */
static int build_and_check(sim_config *cfg, char *err, size_t err_len)
{
    sim s;
    char msg[2048];
    int rc = sim_create(&s, cfg, msg, sizeof msg);
    if (rc == 0) {
        watchdog_report r;
        if (watchdog_check_start(&s, &r) != WATCHDOG_OK) {
            watchdog_format(&r, &s, msg, sizeof msg);
            rc = -1;
        }
    }
    if (rc != 0) case_locate_error(cfg, msg, err, err_len);
    sim_free(&s);
    return rc;
}

static void test_bad_cases(void **state)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *b = &bad_cases[i];
        sim_config cfg;
        char err[2048];
        int rc = case_load(case_file(b->file), &cfg, err, sizeof err);
        bool loaded = rc == 0; /* refused only once the simulation is built */
        if (loaded && build_and_check(&cfg, err, sizeof err) == 0) {
            sim_config_free(&cfg);
            fail_msg("%s loaded and built, but it should fail", b->file);
        }
        for (int k = 0; k < 4 && b->expect[k]; k++)
            if (!strstr(err, b->expect[k]))
                fail_msg("%s: expected \"%s\" in the message:\n%s", b->file, b->expect[k],
                         err);
        /* the message starts with the path as given */
        if (strncmp(err, case_dir, strlen(case_dir)) != 0)
            fail_msg("%s: the message does not start with the path:\n%s", b->file, err);
        if (loaded) {
            sim_config_free(&cfg);
            continue;
        }
        assert_null(cfg.materials);
        assert_null(cfg.sources);
        assert_null(cfg.case_text);
    }
}

/* The corpus the issue asks for: at least 50 malformed files, each in the table. */
static void test_corpus_size(void **state)
{
    assert_true(sizeof bad_cases / sizeof bad_cases[0] >= 50);
}

static void test_missing_file(void **state)
{
    sim_config cfg;
    char err[512];
    assert_int_equal(case_load(case_file("no_such_case.yaml"), &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "no_such_case.yaml: cannot open: "));
    sim_config_free(&cfg);
}

static void test_small_error_buffer(void **state)
{
    sim_config cfg;
    char err[16];
    assert_int_equal(case_load(case_file("bad_typo.yaml"), &cfg, err, sizeof err), -1);
    assert_int_equal(strlen(err), sizeof err - 1);
    assert_int_equal(case_load(case_file("bad_typo.yaml"), &cfg, NULL, 0), -1);
}

#include <unistd.h>
#include "engine/population/fill.h"
#include "io/readers/particle_csv.h"

/* Optional wx, wy, wz columns give each particle an initial angular velocity (rad/s), in
 * any order with the others; fill_source() puts them on the particles; two of three are
 * refused. */
static void test_csv_angular_velocity(void **state)
{
    (void)state;
    char dir[] = "/tmp/dempact_csv_spin_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/spin.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("wy,x,y,z,radius,wz,vx,vy,vz,wx\n-80,0,0,0.01,0.002,3,1,0,-1,0.5\n"
          "1e2,0.1,0,0.01,0.001,0,0,0,0,-2\n", f);
    fclose(f);
    particle_source src = {.material = 0};
    char err[512];
    assert_int_equal(particle_csv_read(path, &src, err, sizeof err), 0);
    assert_int_equal(src.n_list, 2);
    assert_non_null(src.list_velocity);
    assert_non_null(src.list_angular_velocity);
    static const double w[] = {0.5, -80, 3, -2, 100, 0};
    for (int k = 0; k < 6; k++) assert_near(src.list_angular_velocity[k], w[k], TOL);
    assert_near(src.list_velocity[2], -1.0, TOL);
    material mat = {"m", 2500, 1e9, 0.3};
    particle_store p = {0};
    assert_int_equal(fill_source(&p, &src, &mat, 0, NULL, err, sizeof err), 0);
    assert_int_equal(p.n_local, 2);
    assert_near(p.wx[0], 0.5, TOL);
    assert_near(p.wy[0], -80, TOL);
    assert_near(p.wz[0], 3, TOL);
    assert_near(p.wy[1], 100, TOL);
    assert_near(p.vx[0], 1.0, TOL);
    particles_free(&p);
    free(src.list_position);
    free(src.list_velocity);
    free(src.list_radius);
    free(src.list_angular_velocity);

    f = fopen(path, "w"); /* without spin columns: NULL, spin starts at 0 */
    assert_non_null(f);
    fputs("x,y,z,radius\n0,0,0.01,0.002\n", f);
    fclose(f);
    assert_int_equal(particle_csv_read(path, &src, err, sizeof err), 0);
    assert_null(src.list_angular_velocity);
    free(src.list_position);
    free(src.list_radius);

    f = fopen(path, "w");
    assert_non_null(f);
    fputs("x,y,z,radius,wx,wz\n0,0,0.01,0.002,1,2\n", f);
    fclose(f);
    assert_int_equal(particle_csv_read(path, &src, err, sizeof err), -1);
    assert_non_null(strstr(err, "spin.csv:1: "));
    assert_non_null(strstr(err, "all of wx, wy, wz or none"));
    assert_null(src.list_angular_velocity);
    remove(path);
    rmdir(dir);
}

/* --param KEY=VALUE on the command lines (bench, collide, hysteresis): the law's own
 * table decides what is accepted, and each refusal names what was wrong. */
static void test_command_line_param(void **state)
{
    const dem_law *law = law_find("linear");
    assert_non_null(law);
    double params[LAW_MAX_PARAMS] = {0};
    char err[256];
    int e = law_param_index(law, "restitution"), f = law_param_index(law, "stiffness_formula");
    assert_true(e >= 0 && f >= 0);
    assert_int_equal(law_param_set(law, params, "restitution=0.7", err, sizeof err), e);
    assert_true(params[e] == 0.7);
    int time = -1;
    for (int c = 0; law->params[f].choices[c]; c++)
        if (!strcmp(law->params[f].choices[c], "time")) time = c;
    assert_true(time >= 0);
    assert_int_equal(law_param_set(law, params, "stiffness_formula=time", err, sizeof err), f);
    assert_true(params[f] == time);
    const struct { const char *arg, *says; } bad[] = {
        {"restitution=nan", "must be a number in"}, {"restitution=inf", "must be a number in"},
        {"restitution=1.5", "must be a number in"}, {"restitution=", "must be a number in"},
        {"restitution=0.5x", "must be a number in"}, {"restitutio=0.5", "no parameter 'restitutio'"},
        {"restitution", "KEY=VALUE"}, {"=0.5", "KEY=VALUE"},
        {"stiffness_formula=energyy", "is one of"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        params[e] = 0.7;
        err[0] = '\0';
        assert_int_equal(law_param_set(law, params, bad[k].arg, err, sizeof err), -1);
        if (!strstr(err, bad[k].says)) fail_msg("%s: '%s'", bad[k].arg, err);
        assert_true(params[e] == 0.7); /* nothing set */
    }
    assert_non_null(strstr(err, "energy")); /* the choices are listed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_case),
        cmocka_unit_test(test_csv_source),
        cmocka_unit_test(test_defaults_and_csv_velocities),
        cmocka_unit_test(test_adhesion),
        cmocka_unit_test(test_bad_cases),
        cmocka_unit_test(test_corpus_size),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_small_error_buffer),
        cmocka_unit_test(test_csv_angular_velocity),
        cmocka_unit_test(test_command_line_param),
    };
    return cmocka_run_group_tests(tests, find_data, NULL);
}
