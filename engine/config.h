/* What a simulation is made of, as plain data. io/case/case.c fills it from a YAML case
 * file, `dempact collide` and the tests fill it in code; sim_create() builds a
 * simulation from it. Nothing here is read by the force loop. */
#ifndef DEMPACT_CONFIG_H
#define DEMPACT_CONFIG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "models/adhesion_law.h"
#include "models/friction_law.h"
#include "models/law.h"

#define NAME_LEN 64
#define WALL_MAX_MOTION 16 /* segments of a wall's motion schedule */
#define WALL_MAX_SERVO 16  /* entries of a servo wall's target schedule */

typedef struct material {
    char name[NAME_LEN];
    double density; /* kg/m^3 */
    double young;   /* Pa */
    double poisson; /* - */
} material;

/* Which of its passes the force loop runs for a chunk of particle pairs that share a law
 * (engine/step/fused_pass.h): the fused pass where it measured faster than the generic
 * passes (AUTO, the default), the fused pass wherever there is one, or the generic
 * passes only. The same results whichever: the tests and `dempact bench --passes`
 * compare them. */
typedef enum force_passes { PASSES_AUTO, PASSES_FUSED, PASSES_GENERIC } force_passes;

/* Friction and rolling resistance of a pair of material types: a tangential law and a
 * rolling law from models/friction_registry.c, with their parameters (engine/step/friction.h).
 * All zero: frictionless. */
typedef struct contact_friction {
    double mu;                 /* Coulomb (dynamic) coefficient; 0: no tangential force */
    const tangential_law *tangential; /* NULL: the first registered (mindlin) */
    double tangential_params[FRICTION_MAX_PARAMS]; /* in the order of its params (all 0
                                  with tangential NULL: mindlin's defaults) */
    double mu_rolling;         /* rolling resistance coefficient */
    const rolling_law *rolling; /* NULL: no rolling resistance */
    double rolling_params[FRICTION_MAX_PARAMS];
} contact_friction;

/* The adhesion of a pair of material types: a law from models/adhesion_registry.c with
 * its parameters. law NULL: none (a pair has no adhesion unless its entry names one). */
typedef struct contact_adhesion {
    const adhesion_law *law;
    double params[ADHESION_MAX_PARAMS]; /* in the order of law->params */
} contact_adhesion;

/* The contact law for one unordered pair of material types. */
typedef struct law_binding {
    int material_a, material_b;
    const dem_law *law;
    double params[LAW_MAX_PARAMS]; /* in the order of law->params */
    bool cohesion_removal;
    bool calibrate; /* solve the damping coefficient so that restitution is exact */
    contact_friction friction;
    contact_adhesion adhesion;
    /* A pair the case gives no entry, mixed from its two materials' entries with
     * themselves (io/case/case_mixing.c): mixed_from holds their indices in bindings. */
    bool mixed;
    int mixed_from[2];
} law_binding;

typedef enum wall_kind {
    WALL_PLANE,     /* infinite, one-sided: particles live on the side `normal` points to */
    WALL_RECTANGLE, /* bounded plane: centre, normal, in-plane axis u, half sizes along u, v */
    WALL_CYLINDER,  /* open tube: `point` is the centre of one end, `axis` points to the
                       other end `length` away, radii[0] == radii[1] is the radius */
    WALL_CONE,      /* open frustum: as a cylinder, radius radii[0] at `point` and radii[1]
                       at point + length axis */
    WALL_STL        /* triangulated surface, two-sided: `mesh` holds its triangles */
} wall_kind;

typedef enum wall_side {
    WALL_SIDE_INNER, /* cylinder, cone: particles live inside (a drum, a hopper) */
    WALL_SIDE_OUTER  /* particles live outside (a pillar) */
} wall_side;

typedef struct wall_spec {
    char name[NAME_LEN];
    wall_kind kind;
    int material;
    double point[3];  /* a point on the plane (the centre for a rectangle); cylinder and
                         cone: centre of the first end; STL: the torque's reference point */
    double normal[3]; /* unit normal (normalised by the reader) */
    double axis_u[3]; /* rectangle only: unit in-plane axis, v = normal x u */
    double half_size[2];
    /* cylinder and cone */
    double axis[3];   /* unit axis, from the first end to the second */
    double radii[2];  /* radius at the first and at the second end [m] */
    double length;    /* distance between the ends [m] */
    wall_side side;
    /* STL: 9 doubles per triangle (three vertices, in case coordinates: scaled and
     * translated by the reader); owned by the config (sim_config_free frees it) */
    double *mesh;
    long n_triangles;
    /* prescribed motion, all zero for a wall at rest: a point x0 of the wall is at
     *   x(t) = c + R(w t) (x0 - c) + v t
     * with c = rotation_point, R(w t) the rotation by the angle w t about rotation_axis. */
    double velocity[3];        /* v [m/s] */
    double rotation_point[3];  /* c [m] */
    double rotation_axis[3];   /* unit (zero when the wall does not rotate) */
    double angular_velocity;   /* w [rad/s], right-handed about rotation_axis */
    /* or, instead of v t, a piecewise-constant translation (`motion`): from t = 0 the
     * wall moves at motion_velocity[s] for motion_duration[s], segment after segment, and
     * rests after the last; n_motion = 0: no schedule (velocity applies). */
    int n_motion;
    double motion_duration[WALL_MAX_MOTION];   /* s, > 0 */
    double motion_velocity[WALL_MAX_MOTION][3]; /* m/s */
    /* or a servo (plane and rectangle, no other motion; engine/walls/wall_servo.c): the
     * wall moves along its normal at u = gain (F_target(t) - F), |u| <= the speed limit,
     * F the particles' load on it along -normal; n_servo = 0: no servo. The target is
     * linear in t between entries (equal times: a step), constant outside them; the
     * speed limit of entry k holds from servo_time[k] on (before the first: the first's). */
    int n_servo;
    double servo_gain;                      /* m/(N s), > 0 */
    double servo_time[WALL_MAX_SERVO];      /* s, non-decreasing */
    double servo_force[WALL_MAX_SERVO];     /* N, >= 0 */
    double servo_speed[WALL_MAX_SERVO];     /* m/s, > 0 */
} wall_spec;

typedef enum source_kind {
    SOURCE_LATTICE, /* simple cubic lattice filling region, spacing = 2 r_max (1 + gap) */
    SOURCE_RANDOM,  /* `count` random non-overlapping spheres in region */
    SOURCE_LIST     /* explicit particles (read from a CSV file by io/) */
} source_kind;

typedef struct particle_source {
    source_kind kind;
    int material;
    double region_min[3], region_max[3];
    long count;                  /* random: how many; lattice: at most (0 = fill) */
    double radius_min, radius_max; /* uniform distribution; equal for one size */
    double velocity[3];          /* initial velocity of every particle */
    double gap;                  /* lattice: extra spacing as a fraction of 2 r_max */
    uint64_t seed;
    /* SOURCE_LIST: n_list particles, arrays of length n_list (velocities may be NULL) */
    long n_list;
    double *list_position; /* 3 n_list */
    double *list_velocity; /* 3 n_list or NULL */
    double *list_angular_velocity; /* 3 n_list or NULL (rad/s) */
    double *list_radius;   /* n_list */
} particle_source;

/* An inlet: particles inserted into a box region at a steady rate, never overlapping
 * what is there (engine/population/population.h). */
typedef struct inlet_spec {
    char name[NAME_LEN];
    int material;
    double region_min[3], region_max[3];
    double rate;                   /* particles per second (from mass_rate if given) */
    double mass_rate;              /* kg/s, or 0 */
    double radius_min, radius_max; /* uniform distribution */
    double velocity[3];
    double start, stop;            /* active while start <= t < stop (stop 0: forever) */
    double interval;               /* s between insertions; 0: 100 steps */
    uint64_t seed;
} inlet_spec;

/* An outlet: particles whose centre enters the box region are removed and counted. */
typedef struct outlet_spec {
    char name[NAME_LEN];
    double region_min[3], region_max[3];
} outlet_spec;

/* What the numerical watchdog (engine/checks/watchdog.h) checks and does; all zero: defaults. */
typedef enum watchdog_action {
    WATCHDOG_ACTION_STOP = 0,      /* write a last snapshot and stop the run (exit 4) */
    WATCHDOG_ACTION_DROP_PARTICLE  /* remove the offending particle and go on */
} watchdog_action;

typedef struct watchdog_settings {
    watchdog_action on_error;
    double max_overlap_fraction; /* overlap / smaller radius allowed; 0: 0.5 */
    int interval;                /* steps between checks; 0: 1 (every step) */
    double energy_tolerance;     /* relative rise allowed above the start; 0: 0.01; < 0: off */
} watchdog_settings;

/* How the engine divides its work: a zeroed struct keeps every default. block and
 * reorder_min change the order of some sums, so the results' last bits; parallel_min
 * and search_room change nothing in them. The program sets them from the environment
 * (DEMPACT_PARALLEL_MIN, DEMPACT_BLOCK, DEMPACT_SEARCH_ROOM, DEMPACT_REORDER_MIN:
 * io/commands/cli_engine.c), so that tests can run small systems through the paths of large ones. */
typedef struct sim_tuning {
    bool set_parallel_min;
    size_t parallel_min;  /* loops over this many items or fewer run on one thread
                             (default 4096; 0 with set_parallel_min: every loop splits) */
    size_t block;         /* particles per block of the force loop; 0: CONTACT_BLOCK
                             (smaller blocks give small systems cross pairs) */
    bool set_search_room;
    double search_room;   /* candidates per particle a rebuild's search buffers start
                             with (default: from the last list; 0 makes them grow) */
    bool set_reorder_min;
    size_t reorder_min;   /* sort the particles along the curve at rebuilds when there are
                             at least this many (default REORDER_MIN, engine/neighbours/reorder.h) */
} sim_tuning;

/* How an MPI run splits the particles over its ranks (parallel.method): Zoltan's
 * recursive coordinate bisection, recursive inertial bisection or Hilbert space-filling
 * curve. Read by the program (io/ranks/decompose.c), not by the engine. */
typedef enum partition_method { PARTITION_RCB = 0, PARTITION_RIB, PARTITION_HSFC } partition_method;
#define PARALLEL_REBALANCE 1.2

/* domain.lees_edwards: simple shear without walls (Lees & Edwards 1972). The flow is
 * along x and the gradient along z, both periodic: the images of the particles beyond
 * the top z face slide along +x at shear_rate times the box height, those below the
 * bottom face along -x, and a particle crossing a z face comes back shifted in x and
 * in velocity to match (engine/neighbours/ghosts.c). */
typedef struct lees_edwards_spec {
    bool on;
    double shear_rate;    /* 1/s: dv_x/dz of the imposed flow */
    bool initial_profile; /* the particles placed at t = 0 get vx += shear_rate (z - z_centre) */
    /* a pressure-controlled box (pressure > 0): its height follows the normal stress
     * sigma_zz to `pressure` (engine/neighbours/lees_edwards.h, the barostat) */
    double pressure;        /* Pa; 0: constant volume */
    double pressure_time;   /* s: the barostat's relaxation time */
    double max_strain_rate; /* 1/s: the largest |d height/dt| / height */
} lees_edwards_spec;

typedef struct sim_config {
    char name[NAME_LEN];
    material *materials;
    int n_materials;
    law_binding *bindings;
    int n_bindings;
    wall_spec *walls;
    int n_walls;
    particle_source *sources;
    int n_sources;
    inlet_spec *inlets;
    int n_inlets;
    outlet_spec *outlets;
    int n_outlets;

    double domain_min[3], domain_max[3]; /* the box; periodic axes wrap at its faces */
    bool periodic[3];
    lees_edwards_spec lees_edwards;
    double gravity[3];

    double dt;             /* 0: chosen from the Rayleigh and contact-time estimates */
    bool dt_check;         /* refuse a dt above the stable limit (default true) */
    double end_time;
    double output_interval; /* simulated seconds between snapshots; 0: first and last only */
    double timeseries_interval; /* s between time-series samples; 0: output_interval / 10 */
    double skin;           /* neighbour skin [m]; 0: 0.1 x largest diameter */
    double impact_speed_estimate; /* for the timestep; 0: from gravity, domain, velocities */
    bool reproducible;     /* parallel.reproducible: each particle's contact forces are
                              summed in an order set by the particle ids alone, so that
                              the results do not depend on how the particles are numbered
                              or split into blocks (engine/step/force_loop.c) */
    force_passes passes;   /* which passes the force loop runs (the same results) */
    partition_method partition; /* parallel.method (default RCB) */
    double rebalance;      /* parallel.rebalance: an MPI run splits its particles afresh
                              when the slowest rank's force loop takes more than this
                              many times the ranks' mean (>= 1; 0: the default,
                              PARALLEL_REBALANCE); the program's, not the engine's */
    bool calibration_fixed; /* calibrated laws keep the continuous calibration, not solved
                               again at the step (engine/collide/pair_restitution.h: the reference
                               collisions of that solve themselves) */

    watchdog_settings watchdog; /* the case's watchdog: block (io/case/case.c) */
    sim_tuning tuning;          /* zero: the defaults */

    /* Called once sim_create has copied every source's particles, before it builds the
     * first neighbour list, where a run's memory peaks: a caller holding a large list
     * of particles (dempact bench's bed) frees it there. The sources are never read
     * again. NULL: nothing is called. */
    void (*sources_copied)(void *ctx);
    void *sources_copied_ctx;

    /* Set non-zero by the caller (a signal handler: the engine calls no signal API) to
     * ask the long loops (the random and lattice fills, inlet insertion, the case
     * reader's checks) to give up; NULL: never. case_load keeps it. */
    volatile sig_atomic_t *stop;

    char *case_path;       /* where it came from (may be NULL) */
    char *case_text;       /* the case file's full text, stored with the output (may be NULL) */
} sim_config;

void sim_config_free(sim_config *cfg);

#endif
