/* Walls: infinite one-sided planes, bounded rectangles, open cylinders and cones (inner
 * or outer side), and triangulated surfaces (STL), each at rest or moving with a
 * prescribed translation and rotation. A wall touches a sphere at the wall point closest
 * to the sphere's centre; a triangulated surface may touch one sphere at several points
 * (a sphere in a crease or a corner), one per face, edge or vertex whose region holds
 * the centre (walls_mesh_contacts).
 *
 * Motion is exact: the geometry at time t is the reference geometry moved by
 *   x(t) = c + R(w t) (x0 - c) + v t,
 * (v t: the sum of v_s t_s over the segments of a `motion` schedule up to t) evaluated
 * from t every step (nothing accumulates). Distances are computed by moving
 * the sphere's centre back into the reference frame, so a mesh's search grid is built
 * once. */
#ifndef DEMPACT_WALLS_H
#define DEMPACT_WALLS_H

#include <stddef.h>
#include <stdint.h>
#include "engine/config.h"
#include "engine/population/particles.h"

/* Contact-list entries one particle may hold with one STL wall: the simultaneous
 * contacts it can have with that surface (a sphere in a box corner has 3). */
#define WALL_MAX_SLOTS 8

typedef struct wall_mesh wall_mesh; /* engine/walls/wall_mesh.c */

/* One touching point: the distance from the sphere's centre (signed for one-sided
 * walls: negative behind them) and the unit direction from the centre to the point. */
typedef struct wall_contact {
    double distance;
    double n[3];
} wall_contact;

/* A wall's placement at the current time (walls_move). */
typedef struct wall_state {
    int moves;            /* has a prescribed motion (its surface velocity may be non-zero) */
    int shape_moves;      /* its surface, as a set of points, moves (a cylinder spinning
                             about its own axis or a plane sliding in itself does not) */
    double omega[3];      /* angular velocity vector [rad/s] */
    double centre[3];     /* the rotation point now: c + v t */
    double rot[9];        /* R(w t), row-major: reference -> world directions */
    int rotates_shape;    /* rot is applied to the geometry */
    double shift[3];      /* v t (or the motion schedule's displacement by t) */
    double velocity[3];   /* translation velocity now [m/s] */
    double ref_point[3];  /* where its torque is taken about, now */
    double surface_speed; /* bound on the speed of the surface as a set [m/s] */
    wall_mesh *mesh;      /* STL walls only */
    /* servo walls (wall_servo.c): the displacement along the normal is
     *   x(t) = servo_x + servo_v (t - servo_t)
     * from the controller's last decision at servo_t, and rebuild_x at rebuild_t, the
     * time of the last neighbour rebuild (where list replays put the wall) */
    int servo;
    double servo_x, servo_t, servo_v;
    double rebuild_x, rebuild_t;
    double servo_now;     /* x at the time walls_move placed it [m] */
} wall_state;

typedef struct wall_set {
    wall_spec *walls;     /* the config's walls (not owned) */
    size_t n;
    wall_state *state;    /* n, by walls_init */
    double time;          /* the time the walls were last moved to */
    double max_surface_speed; /* largest surface_speed: 0 if no wall's surface moves */
    /* The load each wall receives from the particles, after each force computation:
     * force [N] and torque [N m] about ref_point (3 per wall, wall w at [3 w + a]). */
    double *force;
    double *torque;
    double *ref_point;    /* 3 per wall: the reference point now [m] */
    double *work;         /* per wall: work it has done on the particles since t = 0 [J]
                             (moving walls only): the power -(F.v + T.w) of each step,
                             summed by the trapezoidal rule as sim_contact_work does */
    double *work_sum;     /* the same summed as P dt per step (work = work_sum - P dt / 2) */
    size_t n_moving;      /* walls with a prescribed motion */
    double *partial;      /* scratch for the load sum (6 per wall per block) */
    size_t load_block;    /* wall-list entries per block of that sum; 0: 2048 (tests set
                             a small one to exercise the combination of blocks) */
    size_t partial_cap;
    struct exact_sum *exact; /* scratch for the load sum by id (6 per wall:
                                sim_config.reproducible; engine/exact_sum.h) */
} wall_set;

/* Signed distance from the centre c to wall w at rest in its reference placement, and
 * the unit direction n from the centre towards the touching point (the contact normal,
 * pointing from particle to wall). Planes, rectangles, cylinders and cones only (an STL
 * wall needs walls_mesh_contacts). */
double wall_distance(const wall_spec *w, const double c[3], double n[3]);

/* Builds the walls' run-time data (meshes with their search grids, motion) for the
 * walls at time 0. Returns 0, or -1 with a message naming the wall in err. */
int walls_init(wall_set *ws, wall_spec *walls, size_t n, char *err, size_t err_len);
void walls_free(wall_set *ws);

/* Places every wall at time t (exactly, from its reference placement). */
void walls_move(wall_set *ws, double t);

/* True if a moving wall requires a neighbour rebuild at the step from t_old to t_new
 * (see walls.c: each time t crosses a multiple of skin / (4 V), V the fastest surface
 * speed, and every step if V dt > skin / 4). */
int walls_need_rebuild(const wall_set *ws, double t_old, double t_new, double skin);

/* Distance (as wall_distance) from c to analytic wall w where it is now. */
double walls_distance(const wall_set *ws, size_t w, const double c[3], double n[3]);

/* The contacts, now, of a sphere centred at c with STL wall w closer than `reach`, the
 * closest first (ties: lower triangle first); at most max. Returns how many. */
int walls_mesh_contacts(const wall_set *ws, size_t w, const double c[3], double reach,
                        wall_contact *out, int max);

/* How many contact-list entries a particle at c needs for wall w when its reach (radius
 * plus skin) is `reach`: 0 or 1 for analytic walls, for STL walls the number of
 * triangles within reach, at most WALL_MAX_SLOTS. */
size_t walls_slots(const wall_set *ws, size_t w, const double c[3], double reach);

/* Velocity now of the wall w's material point at x [m/s]. */
void walls_point_velocity(const wall_set *ws, size_t w, const double x[3], double v[3]);

/* The angular velocity vector of wall w. */
static inline const double *walls_omega(const wall_set *ws, size_t w)
{
    return ws->state[w].omega;
}

/* The history key of wall-list entry k (entries first..k-1 belong to the same
 * particle): the wall index for the first entry with that wall, plus n_walls for each
 * earlier entry with the same wall. An STL wall's entries are its contact slots: slot
 * s takes the s-th closest contact (walls_mesh_contacts). */
static inline uint32_t walls_pair_key(const uint32_t *j, size_t first, size_t k,
                                      size_t n_walls)
{
    uint32_t slot = 0;
    for (size_t q = first; q < k; q++) slot += j[q] == j[k];
    return j[k] + (uint32_t)(slot * n_walls);
}

/* Refuses particles that start on the wrong side of a one-sided curved wall (centre
 * outside an inner cylinder or cone, or inside an outer one, between its ends).
 * Returns 0, or -1 with "walls[k]: ..." in err. */
int walls_check_particles(const wall_set *ws, const particle_store *p, char *err,
                          size_t err_len);

/* ---- engine/walls/wall_servo.c ---- */
/* The values of a servo wall's state a restart needs, per wall (zeros for other walls). */
#define WALL_SERVO_STATE 5
/* Refuses a servo that is not well formed (as the case reader refuses it, for walls
 * made in code). Returns 0, or -1 with "walls[k]...: ..." in err. */
int wall_servo_check(const wall_spec *w, size_t k, char *err, size_t err_len);
/* The target normal force [N] at time t, and the speed limit then [m/s] in *limit. */
double wall_servo_target(const wall_spec *w, double t, double *limit);
/* The controller: after the loads at ws->time are summed, each servo wall takes its
 * speed along its normal for the next step from its load (walls.force). */
void walls_servo_update(wall_set *ws);
/* The servo walls' placement at t (walls_move). */
void walls_servo_place(const wall_spec *w, wall_state *st, double t);
/* Records where the servo walls are now as their placement at a neighbour rebuild. */
void walls_mark_rebuild(wall_set *ws);
/* How many walls are servo walls. */
size_t walls_n_servo(const wall_set *ws);
/* The restart state: WALL_SERVO_STATE values per wall into out, or from in (then the
 * walls are placed at ws->time again). walls_servo_load returns 0, or -1 with a message
 * when a value is not finite. */
void walls_servo_save(const wall_set *ws, double *out);
int walls_servo_load(wall_set *ws, const double *in, char *err, size_t err_len);

/* ---- engine/walls/wall_mesh.c ---- */
/* Builds a mesh from n triangles (9 doubles each): vertices welded where their
 * coordinates are equal, edge and vertex adjacency, a uniform search grid. Triangles
 * of zero area are dropped. Returns NULL with a message in err, and *no_memory 1 when
 * an allocation failed. */
wall_mesh *wall_mesh_build(const double *tri, long n, int *no_memory, char *err, size_t err_len);
void wall_mesh_free(wall_mesh *m);
/* Largest distance of a vertex from the line through c along unit u. */
double wall_mesh_reach(const wall_mesh *m, const double c[3], const double u[3]);
/* Contacts of the sphere (centre c, reference frame) closer than reach, closest first. */
int wall_mesh_contacts(const wall_mesh *m, const double c[3], double reach,
                       wall_contact *out, int max);
/* Triangles closer than reach to c (stops counting at max). */
size_t wall_mesh_count_near(const wall_mesh *m, const double c[3], double reach, size_t max);
/* Triangles kept (zero-area ones dropped). */
size_t wall_mesh_triangles(const wall_mesh *m);

/* ---- engine/walls/wall_shapes.c ---- */
/* Closest point q on triangle (a, b, c) to p; returns the feature: 0 inside the face,
 * 1-3 vertex a, b, c, 4-6 edge ab, bc, ca. */
int wall_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                             const double c[3], double q[3]);

#endif
