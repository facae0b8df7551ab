/* Shared between the files of the case reader (io/case/case.c and the io/case/case_*.c that include
 * this; io/case/case_errors.c is apart: it works on a loaded sim_config). Not a public
 * interface, that is io/case/case.h: the document as libcyaml loads it, the reader's state,
 * and the helpers that more than one of the files uses. */
#ifndef DEMPACT_CASE_INTERNAL_H
#define DEMPACT_CASE_INTERNAL_H

#include <cyaml/cyaml.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "engine/fail.h"
#include "models/calibrate.h"
#include "yaml_locator.h"

/* ------------------------------------------------------------------------------------
 * The document as libcyaml loads it: every scalar as text, NULL when absent.
 * ---------------------------------------------------------------------------------- */

typedef struct raw_lees_edwards {
    char *shear_rate, *initial_profile, *pressure, *pressure_time, *max_strain_rate;
} raw_lees_edwards;

typedef struct raw_domain {
    char *min[3], *max[3], *periodic[3];
    raw_lees_edwards *lees_edwards;
} raw_domain;

typedef struct raw_time {
    char *end, *step, *check_step, *output_interval, *timeseries_interval;
} raw_time;

typedef struct raw_neighbour {
    char *skin;
} raw_neighbour;

typedef struct raw_watchdog {
    char *on_error, *max_overlap_fraction, *interval, *energy_tolerance;
} raw_watchdog;

typedef struct raw_parallel {
    char *reproducible, *method, *rebalance;
} raw_parallel;

typedef struct raw_material {
    char *name, *density, *young, *poisson;
} raw_material;

/* The friction, rolling and adhesion mappings: the keys every law of the kind takes,
 * then one slot per key some registered law takes (case_schema.key_slots, built from
 * models/friction_registry.c and models/adhesion_registry.c). */
#define LAW_KEY_SLOTS 16
typedef struct raw_friction {
    char *coefficient, *model;
    char *keys[LAW_KEY_SLOTS];
} raw_friction;

typedef struct raw_rolling {
    char *model, *coefficient;
    char *keys[LAW_KEY_SLOTS];
} raw_rolling;

typedef struct raw_adhesion {
    char *model;
    char *keys[LAW_KEY_SLOTS];
} raw_adhesion;

typedef struct raw_contact {
    char *materials[2];
    char *law;
    char *elastic, *damping; /* the law's parts, instead of its name */
    char *cohesion_removal;
    char *calibrate;
    raw_friction *friction;
    raw_rolling *rolling;
    raw_adhesion *adhesion;
    char **params; /* one slot per name of case_schema.param_names */
} raw_contact;

typedef struct raw_wall_rotation {
    char *axis_point[3], *axis[3], *angular_velocity;
} raw_wall_rotation;

typedef struct raw_wall_segment {
    char *duration, *velocity[3];
} raw_wall_segment;

typedef struct raw_servo_target {
    char *time, *force, *stress, *max_speed;
} raw_servo_target;

typedef struct raw_wall_servo {
    char *gain, *max_speed, *area, *force, *stress;
    raw_servo_target *targets;                    /* the target in time */
    unsigned targets_count;
} raw_wall_servo;

typedef struct raw_wall {
    char *name, *type, *material;
    char *point[3], *normal[3], *axis[3];
    char *half_size[2];
    char *radius, *radii[2], *length, *side;      /* cylinder, cone */
    char *file, *scale, *translation[3];          /* stl */
    char *velocity[3];                            /* motion, any wall */
    raw_wall_rotation *rotation;
    raw_wall_segment *motion;                     /* a piecewise-constant translation */
    unsigned motion_count;
    raw_wall_servo *servo;                        /* plane, rectangle */
} raw_wall;

typedef struct raw_region {
    char *min[3], *max[3];
} raw_region;

typedef struct raw_source {
    char *source, *material;
    raw_region *region;
    char *count;
    char *velocity[3];
    char *seed, *gap, *file;
    /* radius is a number or {min, max}: libcyaml cannot say "either", so it skips the
     * key and read_radius reads it from the locator. */
} raw_source;

typedef struct raw_inlet {
    char *name, *material;
    raw_region *region;
    char *rate, *mass_rate;
    char *velocity[3];
    char *start, *stop, *interval, *seed;
    /* radius: a number or {min, max}, read from the locator as for sources */
} raw_inlet;

typedef struct raw_outlet {
    char *name;
    raw_region *region;
} raw_outlet;

typedef struct raw_case {
    char *name;
    raw_domain domain;
    char *gravity[3];
    raw_time time;
    raw_neighbour *neighbour;
    raw_watchdog *watchdog;
    raw_parallel *parallel;
    raw_material *materials;
    unsigned materials_count;
    raw_contact *contacts;
    unsigned contacts_count;
    raw_wall *walls;
    unsigned walls_count;
    raw_source *particles;
    unsigned particles_count;
    raw_inlet *inlets;
    unsigned inlets_count;
    raw_outlet *outlets;
    unsigned outlets_count;
} raw_case;

/* ------------------------------------------------------------------------------------
 * The schema (case_schema.c).
 * ---------------------------------------------------------------------------------- */

/* The entries of case_schema.c's contact_fields_template and top_fields_template, the
 * end marker included (checked there). */
#define CONTACT_FIELD_COUNT 11
#define TOP_FIELD_COUNT 14

/* The keys of a friction, rolling or adhesion mapping: its n_fixed fixed keys (two, or
 * adhesion's one), then every key a registered law of the kind takes, once
 * (raw_friction.keys[k] holds names[k]'s text). */
typedef struct key_slots {
    const char *names[LAW_KEY_SLOTS];
    int n, n_fixed;
    cyaml_schema_field_t fields[2 + LAW_KEY_SLOTS + 1];
} key_slots;

typedef struct case_schema {
    const char **param_names; /* every parameter name of every law, once */
    int n_param_names;
    cyaml_schema_field_t *param_fields;
    key_slots friction, rolling, adhesion;
    cyaml_schema_field_t contact_fields[CONTACT_FIELD_COUNT];
    cyaml_schema_value_t contact_entry;
    cyaml_schema_field_t top_fields[TOP_FIELD_COUNT];
    cyaml_schema_value_t top;
} case_schema;

case_schema *case_schema_build(void);
void case_schema_free(case_schema *s);
int case_param_name_index(const case_schema *s, const char *name);
/* Index of a key in a friction, rolling or adhesion mapping's slots, or -1. */
int case_key_slot(const key_slots *k, const char *name);
/* What the entries of a fixed-length list with this entry schema are, in a message
 * ("numbers", "true/false values", "material names"). */
const char *case_schema_entry_words(const cyaml_schema_value_t *entry);

/* ------------------------------------------------------------------------------------
 * Names: lists, edit distance, suggestions (case_names.c).
 * ---------------------------------------------------------------------------------- */

typedef struct name_list {
    const char **names;
    int n, cap;
} name_list;

/* " (did you mean 'x'?)" or "". */
typedef struct hint {
    char s[128];
} hint;

/* "a, b, c" */
typedef struct joined {
    char s[768];
} joined;

void case_names_add(name_list *l, const char *name);
void case_names_free(name_list *l);
hint case_did_you_mean(const name_list *l, const char *word, int max_distance);
joined case_join(const name_list *l);

/* ------------------------------------------------------------------------------------
 * The reader and its errors; values (case_reader.c).
 * ---------------------------------------------------------------------------------- */

#define PATH_LEN 256
#define TYPO_DISTANCE 3

typedef struct case_reader {
    const char *path;
    char *text;
    size_t len;
    yaml_locator loc;
    case_schema *schema;
    raw_case *raw;
    sim_config *cfg;
    char *err;
    size_t err_len;
    int *failure;      /* FAIL_NO_MEMORY once an allocation failed (case_fail_memory) */
} case_reader;

typedef struct key_path {
    char s[PATH_LEN];
} key_path;

/* How a value appears in a message: 'text', or "an empty value"; a key: text. Either
 * on one line and cut short when long. */
typedef struct shown {
    char s[128];
} shown;

key_path case_key(const char *fmt, ...);
int case_fail_line(const case_reader *c, int line, const char *fmt, ...);
int case_fail_at(const case_reader *c, const char *path, const char *fmt, ...);
/* An allocation failed: the message at the line of `path` (NULL: the file's first line),
 * and case_load returns FAIL_NO_MEMORY. Returns FAIL_NO_MEMORY. */
int case_fail_memory(const case_reader *c, const char *path, const char *fmt, ...);
shown case_show(const char *text);
shown case_show_key(const char *text);

bool case_parse_number(const char *text, double *out);
int case_read_number(const case_reader *c, const char *path, const char *text, double *out);
int case_read_positive(const case_reader *c, const char *path, const char *text,
                       double *out);
int case_read_non_negative(const case_reader *c, const char *path, const char *text,
                           double *out);
int case_read_vector(const case_reader *c, const char *path, char *const *text, int n,
                     double *out);
int case_read_bool(const case_reader *c, const char *path, const char *text, bool *out);
int case_read_count(const case_reader *c, const char *path, const char *text, long *out);
int case_read_seed(const case_reader *c, const char *path, const char *text, uint64_t *out);
int case_read_name(const case_reader *c, const char *path, const char *text, char *out);

/* ------------------------------------------------------------------------------------
 * The document's shape, checked against the schema before libcyaml loads it
 * (case_shape.c).
 * ---------------------------------------------------------------------------------- */

/* 0, or -1 with a message naming the line and key path of the first problem. */
int case_check_shape(const case_reader *c);
/* The message for libcyaml refusing a document that case_check_shape passed. */
int case_report_load_failure(const case_reader *c, cyaml_err_t e);

/* ------------------------------------------------------------------------------------
 * The top-level scalars and the materials (case_settings.c).
 * ---------------------------------------------------------------------------------- */

int case_read_header(case_reader *c);
int case_read_domain(case_reader *c);
int case_read_time(case_reader *c);
int case_read_watchdog(case_reader *c);
int case_read_parallel(case_reader *c);

int case_resolve_material(const case_reader *c, const char *path, const char *name,
                          int *out);
int case_read_materials(case_reader *c);

/* ------------------------------------------------------------------------------------
 * Contacts (case_contacts.c).
 * ---------------------------------------------------------------------------------- */

int case_report_unknown_param(const case_reader *c, const char *mapping_path,
                              const char *name, const dem_law *law);
/* A key `name` at `path` that the friction, rolling or adhesion law `model` (its
 * params[n_params]) does not take: the message names its own keys. Returns -1. */
int case_report_unknown_key(const case_reader *c, const char *path, const char *name,
                            const char *model, const law_param *params, int n_params);
int case_read_contacts(case_reader *c);

/* ------------------------------------------------------------------------------------
 * Walls (case_walls.c).
 * ---------------------------------------------------------------------------------- */

int case_read_walls(case_reader *c);
/* walls[i].servo of r into w (case_servo.c; `at`: "walls[i]"). */
int case_read_servo(case_reader *c, const char *at, const raw_wall *r, wall_spec *w);

/* ------------------------------------------------------------------------------------
 * Particle sources; inlets and outlets (case_particles.c).
 * ---------------------------------------------------------------------------------- */

int case_check_regular_file(const case_reader *c, const char *key_at, const char *path);
char *case_csv_path(const char *case_path, const char *file);
int case_read_sources(case_reader *c);
int case_read_population(case_reader *c);

/* ------------------------------------------------------------------------------------
 * The checks across sections, once all are read (case_checks.c).
 * ---------------------------------------------------------------------------------- */

int case_check_walls_hold(case_reader *c);
int case_check_walls_reach(case_reader *c);
int case_check_contact_pairs(case_reader *c);

/* The pair [a, b] (a != b), which can touch (`touch`: how, for the message) and has no
 * entry, mixed from the entries [a, a] and [b, b] and appended to cfg->bindings
 * (case_mixing.c): 1; 0 if either entry is missing; -1 with a message naming both
 * entries and their lines if they do not mix. */
int case_mix_pair(case_reader *c, int a, int b, const char *touch);

/* Every speed at most CASE_MAX_SPEED (case_speeds.c). */
int case_check_speeds(case_reader *c);

#endif
