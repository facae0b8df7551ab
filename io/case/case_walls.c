/* The walls: planes, rectangles, cylinders, cones and STL surfaces, each with the keys
 * its type takes, and their motion (a velocity, a schedule of velocities, a rotation, or
 * a servo: case_servo.c). */
#include "case_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/readers/stl.h"

/* ------------------------------------------------------------------------------------
 * Walls.
 * ---------------------------------------------------------------------------------- */

static int read_direction(const case_reader *c, const char *path, char *const *text,
                          double *out)
{
    if (case_read_vector(c, path, text, 3, out) != 0) return -1;
    double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (!(len > 0.0) || !isfinite(len))
        return case_fail_at(c, path, "%s = [%g, %g, %g] must be a non-zero direction", path,
                            out[0], out[1], out[2]);
    for (int d = 0; d < 3; d++) out[d] /= len;
    return 0;
}

/* The keys each wall type takes besides name, type, material, velocity and rotation. */
static const char *const wall_types[] = {"plane", "rectangle", "cylinder", "cone", "stl"};
static const char *const wall_keys[][6] = {
    {"point", "normal"},
    {"point", "normal", "axis", "half_size"},
    {"point", "axis", "radius", "length", "side"},
    {"point", "axis", "radii", "length", "side"},
    {"file", "scale", "translation", "point"},
};

/* Refuses a key given to a wall type that does not take it. */
static int refuse_wall_keys(const case_reader *c, const char *at, const raw_wall *r, int type)
{
    const struct {
        const char *key;
        bool given;
    } keys[] = {
        {"point", r->point[0]},       {"normal", r->normal[0]}, {"axis", r->axis[0]},
        {"half_size", r->half_size[0]}, {"radius", r->radius},  {"radii", r->radii[0]},
        {"length", r->length},        {"side", r->side},        {"file", r->file},
        {"scale", r->scale},          {"translation", r->translation[0]},
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!keys[k].given) continue;
        bool taken = false;
        for (int q = 0; q < 6 && wall_keys[type][q]; q++)
            taken = taken || strcmp(wall_keys[type][q], keys[k].key) == 0;
        if (taken) continue;
        key_path extra = case_key("%s.%s", at, keys[k].key);
        char list[128] = "";
        for (int q = 0; q < 6 && wall_keys[type][q]; q++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", q ? ", " : "", wall_keys[type][q]);
        }
        return case_fail_at(c, extra.s, "%s: a %s wall does not take '%s' (its shape keys: %s)",
                            extra.s, wall_types[type], keys[k].key, list);
    }
    return 0;
}

/* Fails naming the first of the type's required keys that is missing. */
static int require_wall_key(const case_reader *c, const char *at, bool given, const char *type,
                            const char *name, const char *what)
{
    if (given) return 0;
    return case_fail_at(c, at, "%s: a %s wall needs '%s' (%s)", at, type, name, what);
}

static int read_plane(case_reader *c, const char *at, const raw_wall *r, wall_spec *w,
                      const char *type)
{
    key_path point = case_key("%s.point", at), normal = case_key("%s.normal", at);
    if (require_wall_key(c, at, r->point[0], type, "point", "a point on it") != 0 ||
        require_wall_key(c, at, r->normal[0], type, "normal",
                         "the direction the particles' side faces") != 0 ||
        case_read_vector(c, point.s, r->point, 3, w->point) != 0 ||
        read_direction(c, normal.s, r->normal, w->normal) != 0)
        return -1;
    return 0;
}

static int read_rectangle(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    key_path axis = case_key("%s.axis", at), half = case_key("%s.half_size", at);
    if (read_plane(c, at, r, w, "rectangle") != 0) return -1;
    if (!r->axis[0])
        return case_fail_at(c, at, "%s: a rectangle wall needs 'axis' (its in-plane u direction)",
                            at);
    if (!r->half_size[0])
        return case_fail_at(c, at, "%s: a rectangle wall needs 'half_size' ([half width along u, "
                              "along v])", at);
    if (read_direction(c, axis.s, r->axis, w->axis_u) != 0) return -1;
    double dot = w->axis_u[0] * w->normal[0] + w->axis_u[1] * w->normal[1] +
                 w->axis_u[2] * w->normal[2];
    if (fabs(dot) > 1e-9)
        return case_fail_at(c, axis.s, "%s must be perpendicular to the normal (axis . normal = "
                                  "%g after normalising)", axis.s, dot);
    for (int k = 0; k < 2; k++) {
        key_path item = case_key("%s[%d]", half.s, k);
        if (case_read_positive(c, item.s, r->half_size[k], &w->half_size[k]) != 0) return -1;
    }
    return 0;
}

/* cylinder: point (centre of one end), axis (towards the other), radius, length, side;
 * cone: the same with radii: [at point, at the other end]. */
static int read_round(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    bool cone = w->kind == WALL_CONE;
    const char *type = cone ? "cone" : "cylinder";
    key_path point = case_key("%s.point", at), axis = case_key("%s.axis", at),
             length = case_key("%s.length", at), side = case_key("%s.side", at);
    if (require_wall_key(c, at, r->point[0], type, "point", "the centre of its first end") != 0 ||
        require_wall_key(c, at, r->axis[0], type, "axis", "from the first end to the other") != 0 ||
        require_wall_key(c, at, cone ? r->radii[0] != NULL : r->radius != NULL, type,
                         cone ? "radii" : "radius",
                         cone ? "[radius at point, radius at the other end]" : "in m") != 0 ||
        require_wall_key(c, at, r->length, type, "length", "between its ends, in m") != 0)
        return -1;
    if (case_read_vector(c, point.s, r->point, 3, w->point) != 0 ||
        read_direction(c, axis.s, r->axis, w->axis) != 0 ||
        case_read_positive(c, length.s, r->length, &w->length) != 0)
        return -1;
    if (cone) {
        for (int k = 0; k < 2; k++) {
            key_path item = case_key("%s.radii[%d]", at, k);
            if (case_read_non_negative(c, item.s, r->radii[k], &w->radii[k]) != 0) return -1;
        }
        if (w->radii[0] == 0.0 && w->radii[1] == 0.0) {
            key_path radii = case_key("%s.radii", at);
            return case_fail_at(c, radii.s, "%s: at least one radius must be > 0", radii.s);
        }
    } else {
        key_path radius = case_key("%s.radius", at);
        if (case_read_positive(c, radius.s, r->radius, &w->radii[0]) != 0) return -1;
        w->radii[1] = w->radii[0];
    }
    w->side = WALL_SIDE_INNER;
    if (r->side) {
        if (strcmp(r->side, "inner") == 0) {
            w->side = WALL_SIDE_INNER;
        } else if (strcmp(r->side, "outer") == 0) {
            w->side = WALL_SIDE_OUTER;
        } else {
            name_list sides = {0};
            case_names_add(&sides, "inner");
            case_names_add(&sides, "outer");
            case_fail_at(c, side.s, "%s: expected inner (particles inside, a drum or a hopper) or "
                         "outer (particles outside, a pillar), got %s%s", side.s,
                         case_show(r->side).s, case_did_you_mean(&sides, r->side, TYPO_DISTANCE).s);
            case_names_free(&sides);
            return -1;
        }
    }
    return 0;
}

/* stl: file (relative to the case file's folder), scale (default 1), translation
 * (default 0): the case coordinates of a vertex x are scale x + translation. */
static int read_stl(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    key_path file = case_key("%s.file", at), scale_key = case_key("%s.scale", at),
             translation = case_key("%s.translation", at), point = case_key("%s.point", at);
    if (require_wall_key(c, at, r->file, "stl", "file", "an STL file, ASCII or binary") != 0)
        return -1;
    double scale = 1.0, shift[3] = {0.0, 0.0, 0.0};
    if (r->scale && case_read_positive(c, scale_key.s, r->scale, &scale) != 0) return -1;
    if (r->translation[0] && case_read_vector(c, translation.s, r->translation, 3, shift) != 0)
        return -1;
    if (r->point[0]) {
        if (case_read_vector(c, point.s, r->point, 3, w->point) != 0) return -1;
    } else {
        for (int a = 0; a < 3; a++) w->point[a] = shift[a];
    }
    if (!r->file[0]) return case_fail_at(c, file.s, "%s: must not be empty", file.s);
    char *path = case_csv_path(c->path, r->file);
    if (!path) return case_fail_memory(c, file.s, "out of memory");
    if (case_check_regular_file(c, file.s, path) != 0) {
        free(path);
        return -1;
    }
    char stl_err[512];
    double *tri = NULL;
    long n = 0;
    int rc = stl_read_stoppable(path, &tri, &n, c->cfg->stop, stl_err, sizeof stl_err);
    free(path);
    if (rc == FAIL_NO_MEMORY) return case_fail_memory(c, file.s, "%s: %s", file.s, stl_err);
    if (rc != 0) return case_fail_at(c, file.s, "%s: %s", file.s, stl_err);
    for (long k = 0; k < 9 * n; k++) {
        tri[k] = scale * tri[k] + shift[k % 3];
        if (!isfinite(tri[k])) {
            free(tri);
            return case_fail_at(c, scale_key.s, "%s: scaled and translated, triangle %ld of %s has "
                                "a coordinate that is not finite", at, k / 9 + 1, r->file);
        }
    }
    w->mesh = tri;
    w->n_triangles = n;
    return 0;
}

/* motion: [{duration: T, velocity: [vx, vy, vz]}, ...]: one segment after the other
 * from t = 0, then rest. */
static int read_schedule(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    key_path motion = case_key("%s.motion", at);
    if (r->velocity[0])
        return case_fail_at(c, motion.s, "%s: give velocity or motion, not both (motion is a "
                            "schedule of velocities)", motion.s);
    if (r->motion_count == 0)
        return case_fail_at(c, motion.s, "%s: must list at least one segment {duration: T, "
                            "velocity: [vx, vy, vz]}", motion.s);
    if (r->motion_count > WALL_MAX_MOTION)
        return case_fail_at(c, motion.s, "%s: %u segments, at most %d", motion.s, r->motion_count,
                            WALL_MAX_MOTION);
    for (unsigned s = 0; s < r->motion_count; s++) {
        key_path d = case_key("%s[%u].duration", motion.s, s), v = case_key("%s[%u].velocity",
                                                                            motion.s, s);
        if (case_read_positive(c, d.s, r->motion[s].duration, &w->motion_duration[s]) != 0 ||
            case_read_vector(c, v.s, r->motion[s].velocity, 3, w->motion_velocity[s]) != 0)
            return -1;
    }
    w->n_motion = (int)r->motion_count;
    return 0;
}

/* velocity: [vx, vy, vz] or motion (read_schedule); rotation: {axis_point: [..], axis:
 * [..], angular_velocity: w}. */
static int read_motion(case_reader *c, const char *at, const raw_wall *r, wall_spec *w)
{
    key_path velocity = case_key("%s.velocity", at);
    if ((r->motion || yaml_locator_find(&c->loc, case_key("%s.motion", at).s)) &&
        read_schedule(c, at, r, w) != 0)
        return -1;
    if (r->velocity[0] && case_read_vector(c, velocity.s, r->velocity, 3, w->velocity) != 0)
        return -1;
    const raw_wall_rotation *rot = r->rotation;
    if (!rot) return 0;
    key_path point = case_key("%s.rotation.axis_point", at), axis = case_key("%s.rotation.axis",
                                                                             at),
             rate = case_key("%s.rotation.angular_velocity", at);
    if (case_read_vector(c, point.s, rot->axis_point, 3, w->rotation_point) != 0 ||
        read_direction(c, axis.s, rot->axis, w->rotation_axis) != 0 ||
        case_read_number(c, rate.s, rot->angular_velocity, &w->angular_velocity) != 0)
        return -1;
    if (w->kind == WALL_PLANE && w->angular_velocity != 0.0) {
        const double *u = w->rotation_axis, *n = w->normal;
        double x[3] = {u[1] * n[2] - u[2] * n[1], u[2] * n[0] - u[0] * n[2],
                       u[0] * n[1] - u[1] * n[0]};
        if (sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) > 1e-12)
            return case_fail_at(c, axis.s, "%s: an infinite plane can only turn about its "
                                "normal; use a rectangle or an STL surface for a turning flat "
                                "wall", axis.s);
    }
    return 0;
}

static int read_wall(case_reader *c, int i, wall_spec *w)
{
    const raw_wall *r = &c->raw->walls[i];
    key_path at = case_key("walls[%d]", i);
    key_path name = case_key("%s.name", at.s), type = case_key("%s.type", at.s);
    if (r->name) {
        if (case_read_name(c, name.s, r->name, w->name) != 0) return -1;
    } else {
        snprintf(w->name, NAME_LEN, "wall%d", i);
    }
    static const wall_kind kinds[] = {WALL_PLANE, WALL_RECTANGLE, WALL_CYLINDER, WALL_CONE,
                                      WALL_STL};
    int t = -1;
    for (int k = 0; k < 5 && t < 0; k++)
        if (strcmp(r->type, wall_types[k]) == 0) t = k;
    if (t < 0) {
        name_list known = {0};
        for (int k = 0; k < 5; k++) case_names_add(&known, wall_types[k]);
        case_fail_at(c, type.s, "%s: expected plane, rectangle, cylinder, cone or stl, got %s%s",
                     type.s, case_show(r->type).s, case_did_you_mean(&known, r->type,
                                                                     TYPO_DISTANCE).s);
        case_names_free(&known);
        return -1;
    }
    w->kind = kinds[t];
    key_path mat = case_key("%s.material", at.s);
    if (case_resolve_material(c, mat.s, r->material, &w->material) != 0 ||
        refuse_wall_keys(c, at.s, r, t) != 0)
        return -1;
    int rc;
    switch (w->kind) {
    case WALL_PLANE: rc = read_plane(c, at.s, r, w, "plane"); break;
    case WALL_RECTANGLE: rc = read_rectangle(c, at.s, r, w); break;
    case WALL_STL: rc = read_stl(c, at.s, r, w); break;
    default: rc = read_round(c, at.s, r, w); break;
    }
    if (rc != 0 || read_motion(c, at.s, r, w) != 0) return -1;
    return r->servo ? case_read_servo(c, at.s, r, w) : 0;
}

int case_read_walls(case_reader *c)

{
    sim_config *cfg = c->cfg;
    int n = (int)c->raw->walls_count;
    if (n == 0) return 0;
    if (!(cfg->walls = calloc((size_t)n, sizeof *cfg->walls)))
        return case_fail_memory(c, NULL, "out of memory");
    cfg->n_walls = n;
    for (int i = 0; i < n; i++)
        if (read_wall(c, i, &cfg->walls[i]) != 0) return -1;
    return 0;
}
