/* The case file's schema for libcyaml: the shape of the document (keys, nesting, list
 * lengths, required keys), built once per load because the params mapping takes the
 * parameter names of every registered law. yaml_schema_check walks the document against
 * it before libcyaml loads it, and case_shape.c words what it finds. */
#include "case_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------
 * The schema. Scalars are loaded as text: libcyaml 1.3.1 reads "maybe" as true and
 * "12abc" as the integer 12, so values are parsed strictly here instead.
 * ---------------------------------------------------------------------------------- */

#define TEXT(key, flags, type, member) \
    CYAML_FIELD_STRING_PTR(key, flags, type, member, 0, CYAML_UNLIMITED)
#define NUMBERS(key, flags, type, member, n) \
    CYAML_FIELD_SEQUENCE_FIXED(key, flags, type, member, &number_text, n)
#define SWITCHES(key, flags, type, member, n) \
    CYAML_FIELD_SEQUENCE_FIXED(key, flags, type, member, &switch_text, n)
#define MATERIAL_NAMES(key, flags, type, member, n) \
    CYAML_FIELD_SEQUENCE_FIXED(key, flags, type, member, &material_text, n)
#define REQUIRED CYAML_FLAG_DEFAULT
#define OPTIONAL CYAML_FLAG_OPTIONAL

/* The entries of fixed-length lists: the same text to libcyaml, three objects so that a
 * message can say what the entries are (case_schema_entry_words). */
static const cyaml_schema_value_t number_text = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char *, 0, CYAML_UNLIMITED)};
static const cyaml_schema_value_t switch_text = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char *, 0, CYAML_UNLIMITED)};
static const cyaml_schema_value_t material_text = {
    CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char *, 0, CYAML_UNLIMITED)};

const char *case_schema_entry_words(const cyaml_schema_value_t *entry)
{
    return entry == &switch_text     ? "true/false values"
           : entry == &material_text ? "material names"
                                     : "numbers";
}

static const cyaml_schema_field_t lees_edwards_fields[] = {
    TEXT("shear_rate", REQUIRED, raw_lees_edwards, shear_rate),
    TEXT("initial_profile", OPTIONAL, raw_lees_edwards, initial_profile),
    TEXT("pressure", OPTIONAL, raw_lees_edwards, pressure),
    TEXT("pressure_time", OPTIONAL, raw_lees_edwards, pressure_time),
    TEXT("max_strain_rate", OPTIONAL, raw_lees_edwards, max_strain_rate),
    CYAML_FIELD_END};

static const cyaml_schema_field_t domain_fields[] = {
    NUMBERS("min", REQUIRED, raw_domain, min, 3),
    NUMBERS("max", REQUIRED, raw_domain, max, 3),
    SWITCHES("periodic", OPTIONAL, raw_domain, periodic, 3),
    CYAML_FIELD_MAPPING_PTR("lees_edwards", OPTIONAL, raw_domain, lees_edwards, lees_edwards_fields),
    CYAML_FIELD_END};

static const cyaml_schema_field_t time_fields[] = {
    TEXT("end", REQUIRED, raw_time, end),
    TEXT("step", OPTIONAL, raw_time, step),
    TEXT("check_step", OPTIONAL, raw_time, check_step),
    TEXT("output_interval", OPTIONAL, raw_time, output_interval),
    TEXT("timeseries_interval", OPTIONAL, raw_time, timeseries_interval),
    CYAML_FIELD_END};

static const cyaml_schema_field_t neighbour_fields[] = {
    TEXT("skin", OPTIONAL, raw_neighbour, skin),
    CYAML_FIELD_END};

static const cyaml_schema_field_t watchdog_fields[] = {
    TEXT("on_error", OPTIONAL, raw_watchdog, on_error),
    TEXT("max_overlap_fraction", OPTIONAL, raw_watchdog, max_overlap_fraction),
    TEXT("interval", OPTIONAL, raw_watchdog, interval),
    TEXT("energy_tolerance", OPTIONAL, raw_watchdog, energy_tolerance),
    CYAML_FIELD_END};

static const cyaml_schema_field_t parallel_fields[] = {
    TEXT("reproducible", OPTIONAL, raw_parallel, reproducible),
    TEXT("method", OPTIONAL, raw_parallel, method),
    TEXT("rebalance", OPTIONAL, raw_parallel, rebalance),
    CYAML_FIELD_END};

static const cyaml_schema_field_t material_fields[] = {
    TEXT("name", REQUIRED, raw_material, name),
    TEXT("density", REQUIRED, raw_material, density),
    TEXT("young", REQUIRED, raw_material, young),
    TEXT("poisson", REQUIRED, raw_material, poisson),
    CYAML_FIELD_END};
static const cyaml_schema_value_t material_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_material, material_fields)};

/* The friction, rolling and adhesion mappings' fixed keys; the laws' own keys are added
 * at run time from the friction and adhesion registries (collect_key_slots). */
static const cyaml_schema_field_t friction_fixed_fields[] = {
    TEXT("coefficient", REQUIRED, raw_friction, coefficient),
    TEXT("model", OPTIONAL, raw_friction, model)};
static const cyaml_schema_field_t rolling_fixed_fields[] = {
    TEXT("model", REQUIRED, raw_rolling, model),
    TEXT("coefficient", REQUIRED, raw_rolling, coefficient)};
static const cyaml_schema_field_t adhesion_fixed_fields[] = {
    TEXT("model", REQUIRED, raw_adhesion, model)};
static const cyaml_schema_field_t key_slot_template =
    TEXT("(key)", OPTIONAL, raw_friction, keys[0]);
_Static_assert(offsetof(raw_friction, keys) == offsetof(raw_rolling, keys),
               "one slot layout serves friction and rolling");

/* The params mapping's fields are made at run time from the law registry. */
static const cyaml_schema_field_t contact_fields_template[] = {
    MATERIAL_NAMES("materials", REQUIRED, raw_contact, materials, 2),
    TEXT("law", OPTIONAL, raw_contact, law), /* or its two parts (case_contacts.c) */
    TEXT("elastic", OPTIONAL, raw_contact, elastic),
    TEXT("damping", OPTIONAL, raw_contact, damping),
    TEXT("cohesion_removal", OPTIONAL, raw_contact, cohesion_removal),
    TEXT("calibrate", OPTIONAL, raw_contact, calibrate),
    CYAML_FIELD_MAPPING_PTR("friction", OPTIONAL, raw_contact, friction, NULL),
    CYAML_FIELD_MAPPING_PTR("rolling", OPTIONAL, raw_contact, rolling, NULL),
    CYAML_FIELD_MAPPING_PTR("adhesion", OPTIONAL, raw_contact, adhesion, NULL),
    CYAML_FIELD_MAPPING_PTR("params", OPTIONAL, raw_contact, params, NULL),
    CYAML_FIELD_END};
static const cyaml_schema_field_t param_field_template =
    TEXT("(param)", OPTIONAL, raw_contact, law);

static const cyaml_schema_field_t wall_rotation_fields[] = {
    NUMBERS("axis_point", REQUIRED, raw_wall_rotation, axis_point, 3),
    NUMBERS("axis", REQUIRED, raw_wall_rotation, axis, 3),
    TEXT("angular_velocity", REQUIRED, raw_wall_rotation, angular_velocity),
    CYAML_FIELD_END};
/* Which keys each type needs and takes is checked in read_wall. */
static const cyaml_schema_field_t wall_segment_fields[] = {
    TEXT("duration", REQUIRED, raw_wall_segment, duration),
    NUMBERS("velocity", REQUIRED, raw_wall_segment, velocity, 3),
    CYAML_FIELD_END};
static const cyaml_schema_value_t wall_segment_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_wall_segment, wall_segment_fields)};
static const cyaml_schema_field_t servo_target_fields[] = {
    TEXT("time", REQUIRED, raw_servo_target, time),
    TEXT("force", OPTIONAL, raw_servo_target, force),
    TEXT("stress", OPTIONAL, raw_servo_target, stress),
    TEXT("max_speed", OPTIONAL, raw_servo_target, max_speed),
    CYAML_FIELD_END};
static const cyaml_schema_value_t servo_target_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_servo_target, servo_target_fields)};
static const cyaml_schema_field_t wall_servo_fields[] = {
    TEXT("gain", REQUIRED, raw_wall_servo, gain),
    TEXT("max_speed", REQUIRED, raw_wall_servo, max_speed),
    TEXT("area", OPTIONAL, raw_wall_servo, area),
    TEXT("force", OPTIONAL, raw_wall_servo, force),
    TEXT("stress", OPTIONAL, raw_wall_servo, stress),
    CYAML_FIELD_SEQUENCE("targets", OPTIONAL | CYAML_FLAG_POINTER, raw_wall_servo, targets,
                         &servo_target_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};

static const cyaml_schema_field_t wall_fields[] = {
    TEXT("name", OPTIONAL, raw_wall, name),
    TEXT("type", REQUIRED, raw_wall, type),
    TEXT("material", REQUIRED, raw_wall, material),
    NUMBERS("point", OPTIONAL, raw_wall, point, 3),
    NUMBERS("normal", OPTIONAL, raw_wall, normal, 3),
    NUMBERS("axis", OPTIONAL, raw_wall, axis, 3),
    NUMBERS("half_size", OPTIONAL, raw_wall, half_size, 2),
    TEXT("radius", OPTIONAL, raw_wall, radius),
    NUMBERS("radii", OPTIONAL, raw_wall, radii, 2),
    TEXT("length", OPTIONAL, raw_wall, length),
    TEXT("side", OPTIONAL, raw_wall, side),
    TEXT("file", OPTIONAL, raw_wall, file),
    TEXT("scale", OPTIONAL, raw_wall, scale),
    NUMBERS("translation", OPTIONAL, raw_wall, translation, 3),
    NUMBERS("velocity", OPTIONAL, raw_wall, velocity, 3),
    CYAML_FIELD_MAPPING_PTR("rotation", OPTIONAL, raw_wall, rotation, wall_rotation_fields),
    CYAML_FIELD_SEQUENCE("motion", OPTIONAL | CYAML_FLAG_POINTER, raw_wall, motion,
                         &wall_segment_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_MAPPING_PTR("servo", OPTIONAL, raw_wall, servo, wall_servo_fields),
    CYAML_FIELD_END};
static const cyaml_schema_value_t wall_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_wall, wall_fields)};

static const cyaml_schema_field_t region_fields[] = {
    NUMBERS("min", REQUIRED, raw_region, min, 3),
    NUMBERS("max", REQUIRED, raw_region, max, 3),
    CYAML_FIELD_END};

static const cyaml_schema_field_t source_fields[] = {
    TEXT("source", REQUIRED, raw_source, source),
    TEXT("material", REQUIRED, raw_source, material),
    CYAML_FIELD_MAPPING_PTR("region", OPTIONAL, raw_source, region, region_fields),
    TEXT("count", OPTIONAL, raw_source, count),
    CYAML_FIELD_IGNORE("radius", OPTIONAL),
    NUMBERS("velocity", OPTIONAL, raw_source, velocity, 3),
    TEXT("seed", OPTIONAL, raw_source, seed),
    TEXT("gap", OPTIONAL, raw_source, gap),
    TEXT("file", OPTIONAL, raw_source, file),
    CYAML_FIELD_END};
static const cyaml_schema_value_t source_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_source, source_fields)};

static const cyaml_schema_field_t inlet_fields[] = {
    TEXT("name", OPTIONAL, raw_inlet, name),
    TEXT("material", REQUIRED, raw_inlet, material),
    CYAML_FIELD_MAPPING_PTR("region", REQUIRED, raw_inlet, region, region_fields),
    TEXT("rate", OPTIONAL, raw_inlet, rate),
    TEXT("mass_rate", OPTIONAL, raw_inlet, mass_rate),
    CYAML_FIELD_IGNORE("radius", OPTIONAL),
    NUMBERS("velocity", OPTIONAL, raw_inlet, velocity, 3),
    TEXT("start", OPTIONAL, raw_inlet, start),
    TEXT("stop", OPTIONAL, raw_inlet, stop),
    TEXT("interval", OPTIONAL, raw_inlet, interval),
    TEXT("seed", OPTIONAL, raw_inlet, seed),
    CYAML_FIELD_END};
static const cyaml_schema_value_t inlet_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_inlet, inlet_fields)};
static const cyaml_schema_field_t outlet_fields[] = {
    TEXT("name", OPTIONAL, raw_outlet, name),
    CYAML_FIELD_MAPPING_PTR("region", REQUIRED, raw_outlet, region, region_fields),
    CYAML_FIELD_END};
static const cyaml_schema_value_t outlet_entry = {
    CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_outlet, outlet_fields)};

static const cyaml_schema_field_t top_fields_template[] = {
    TEXT("name", OPTIONAL, raw_case, name),
    CYAML_FIELD_MAPPING("domain", REQUIRED, raw_case, domain, domain_fields),
    NUMBERS("gravity", OPTIONAL, raw_case, gravity, 3),
    CYAML_FIELD_MAPPING("time", REQUIRED, raw_case, time, time_fields),
    CYAML_FIELD_MAPPING_PTR("neighbour", OPTIONAL, raw_case, neighbour, neighbour_fields),
    CYAML_FIELD_MAPPING_PTR("watchdog", OPTIONAL, raw_case, watchdog, watchdog_fields),
    CYAML_FIELD_MAPPING_PTR("parallel", OPTIONAL, raw_case, parallel, parallel_fields),
    CYAML_FIELD_SEQUENCE("materials", REQUIRED | CYAML_FLAG_POINTER, raw_case, materials,
                         &material_entry, 1, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("contacts", REQUIRED | CYAML_FLAG_POINTER, raw_case, contacts,
                         NULL, 1, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("walls", OPTIONAL | CYAML_FLAG_POINTER, raw_case, walls,
                         &wall_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("particles", OPTIONAL | CYAML_FLAG_POINTER, raw_case, particles,
                         &source_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("inlets", OPTIONAL | CYAML_FLAG_POINTER, raw_case, inlets,
                         &inlet_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_SEQUENCE("outlets", OPTIONAL | CYAML_FLAG_POINTER, raw_case, outlets,
                         &outlet_entry, 0, CYAML_UNLIMITED),
    CYAML_FIELD_END};

#define N_FIELDS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(N_FIELDS(contact_fields_template) == CONTACT_FIELD_COUNT,
               "CONTACT_FIELD_COUNT (case_internal.h)");
_Static_assert(N_FIELDS(top_fields_template) == TOP_FIELD_COUNT,
               "TOP_FIELD_COUNT (case_internal.h)");

static cyaml_schema_field_t *field_named(cyaml_schema_field_t *fields, const char *key)
{
    for (; fields->key; fields++)
        if (strcmp(fields->key, key) == 0) return fields;
    return NULL;
}

int case_param_name_index(const case_schema *s, const char *name)
{
    for (int k = 0; k < s->n_param_names; k++)
        if (strcmp(s->param_names[k], name) == 0) return k;
    return -1;
}

static int collect_param_names(case_schema *s)
{
    int cap = 0;
    for (int l = 0; l < law_count(); l++) cap += law_at(l) ? law_at(l)->n_params : 0;
    s->param_names = calloc((size_t)cap + 1, sizeof *s->param_names);
    s->param_fields = calloc((size_t)cap + 1, sizeof *s->param_fields);
    if (!s->param_names || !s->param_fields) return -1;
    for (int l = 0; l < law_count(); l++) {
        const dem_law *law = law_at(l);
        for (int k = 0; law && k < law->n_params; k++) {
            const char *name = law->params[k].name;
            if (!name || case_param_name_index(s, name) >= 0) continue;
            cyaml_schema_field_t *f = &s->param_fields[s->n_param_names];
            *f = param_field_template;
            f->key = name;
            f->data_offset = (uint32_t)(s->n_param_names * sizeof(char *));
            s->param_names[s->n_param_names++] = name;
        }
    }
    return 0;
}

int case_key_slot(const key_slots *k, const char *name)
{
    for (int u = 0; u < k->n; u++)
        if (strcmp(k->names[u], name) == 0) return u;
    return -1;
}

/* The fixed fields, then a slot for each of the names (repeats taken once), at
 * keys_offset in the mapping's raw struct. */
static int add_key_slot(key_slots *k, const char *name, size_t keys_offset)
{
    if (case_key_slot(k, name) >= 0) return 0;
    if (k->n == LAW_KEY_SLOTS) return -1; /* raise LAW_KEY_SLOTS (case_internal.h) */
    cyaml_schema_field_t *f = &k->fields[k->n_fixed + k->n];
    *f = key_slot_template;
    f->key = name;
    f->data_offset = (uint32_t)(keys_offset + (size_t)k->n * sizeof(char *));
    k->names[k->n++] = name;
    return 0;
}

static void fixed_keys(key_slots *k, const cyaml_schema_field_t *fields, int n)
{
    memcpy(k->fields, fields, (size_t)n * sizeof *fields);
    k->n_fixed = n;
}

#define FIXED_KEYS(k, fields) fixed_keys(k, fields, (int)(sizeof(fields) / sizeof((fields)[0])))

static int collect_key_slots(case_schema *s)
{
    FIXED_KEYS(&s->friction, friction_fixed_fields);
    FIXED_KEYS(&s->rolling, rolling_fixed_fields);
    FIXED_KEYS(&s->adhesion, adhesion_fixed_fields);
    const size_t friction_keys = offsetof(raw_friction, keys);
    for (int l = 0; l < tangential_law_count(); l++) {
        const tangential_law *law = tangential_law_at(l);
        for (int k = 0; k < law->n_params; k++)
            if (add_key_slot(&s->friction, law->params[k].name, friction_keys) != 0) return -1;
    }
    for (int l = 0; l < rolling_law_count(); l++) {
        const rolling_law *law = rolling_law_at(l);
        for (int k = 0; k < law->n_params; k++)
            if (add_key_slot(&s->rolling, law->params[k].name, friction_keys) != 0) return -1;
    }
    for (int l = 0; l < adhesion_law_count(); l++) {
        const adhesion_law *law = adhesion_law_at(l);
        for (int k = 0; k < law->n_params; k++)
            if (add_key_slot(&s->adhesion, law->params[k].name, offsetof(raw_adhesion, keys)) != 0)
                return -1;
    }
    key_slots *all[] = {&s->friction, &s->rolling, &s->adhesion};
    for (size_t m = 0; m < sizeof all / sizeof all[0]; m++)
        all[m]->fields[all[m]->n_fixed + all[m]->n] = (cyaml_schema_field_t)CYAML_FIELD_END;
    return 0;
}

void case_schema_free(case_schema *s)
{
    if (!s) return;
    free(s->param_names);
    free(s->param_fields);
    free(s);
}

case_schema *case_schema_build(void)
{
    case_schema *s = calloc(1, sizeof *s);
    if (!s || collect_param_names(s) != 0 || collect_key_slots(s) != 0) {
        case_schema_free(s);
        return NULL;
    }
    memcpy(s->contact_fields, contact_fields_template, sizeof s->contact_fields);
    cyaml_schema_field_t *params = field_named(s->contact_fields, "params");
    params->value.mapping.fields = s->param_fields;
    field_named(s->contact_fields, "friction")->value.mapping.fields = s->friction.fields;
    field_named(s->contact_fields, "rolling")->value.mapping.fields = s->rolling.fields;
    field_named(s->contact_fields, "adhesion")->value.mapping.fields = s->adhesion.fields;
    params->value.data_size =
        (uint32_t)((s->n_param_names > 0 ? s->n_param_names : 1) * sizeof(char *));
    s->contact_entry = (cyaml_schema_value_t){
        CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, raw_contact, s->contact_fields)};
    memcpy(s->top_fields, top_fields_template, sizeof s->top_fields);
    field_named(s->top_fields, "contacts")->value.sequence.entry = &s->contact_entry;
    s->top = (cyaml_schema_value_t){
        CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, raw_case, s->top_fields)};
    return s;
}
