/* A simulation: particles, walls, contacts, the laws bound to each pair of material
 * types, and the step loop. */
#ifndef DEMPACT_SIM_H
#define DEMPACT_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include "config.h"
#include "engine/population/particles.h"
#include "engine/neighbours/contacts.h"
#include "engine/walls/walls.h"
#include "engine/neighbours/neighbour.h"
#include "engine/step/friction.h"
#include "engine/population/population.h"
#include "models/adhesion_law.h"
#include "models/calibrate.h"

typedef struct law_instance {
    const dem_law *law;
    law_coeffs coeffs;
    int binding; /* index in cfg.bindings */
    friction_coeffs friction;
    double v_floor;          /* the v_floor it runs with (the case's, or the default
                                from the case: timestep_velocity_floor); NAN: none */
    bool calibrated;         /* its damping coefficient was solved for ... */
    law_reference reference; /* ... in this binary collision (of the particles the case
                                places, so that split over ranks it is every rank's) */
    bool against_wall;       /* the collision is a particle's against a plane */
    double continuous;       /* the coefficient the continuous calibration solved (the
                                step's solve starts from it: pair_restitution.h) */
    int fused;               /* 1 + its fused pass (engine/step/fused_pass.h), 0: none */
    adhesion_coeffs adhesion; /* its adhesion (models/adhesion_law.h); law NULL: none */
} law_instance;

/* The overlap past touching at which a contact of law instance li with effective
 * radius r_eff lets go: its adhesion's reach (< 0), or 0 (at touching). */
static inline double law_reach(const law_instance *li, double r_eff)
{
    return li->adhesion.law ? li->adhesion.law->reach(&li->adhesion, r_eff) : 0.0;
}

/* Kinds of contact work and stored energy (sim.work, sim_stored_energy). */
enum { SIM_WORK_NORMAL, SIM_WORK_PLASTIC, SIM_WORK_TANGENTIAL, SIM_WORK_ROLLING,
       SIM_WORK_KINDS };
/* sim_stored_energy also reports what the contacts of conservative laws (dem_law
 * .conservative: no work booked) hold. */
enum { SIM_STORED_CONSERVATIVE = SIM_WORK_KINDS, SIM_STORED_KINDS };

/* The passes of a step (sim.pass_seconds): the neighbour build (the rebuild check, the
 * rebuild with its sort and carried springs, the ghosts' update; over ranks, the halo
 * exchange), the pair loop (force_loop_run over the particle and the wall pairs), the
 * integration (the half-kick and drift, the walls' motion, the stored forces' sums with
 * the velocity correction) and the books (everything else: the population's changes,
 * the walls' loads, the force sums' start). */
enum { SIM_PASS_NEIGHBOURS, SIM_PASS_PAIRS, SIM_PASS_INTEGRATION, SIM_PASS_BOOKS, SIM_PASSES };

struct sim;
/* Who makes and moves the ghosts when the particles are split over the ranks of an MPI
 * run (io/ranks/halo.h; sim_split): `make` at each rebuild (the particles' indices may change
 * there, and the ghosts are replaced), `update` at every other step; each returns 0 or
 * -1. `any` tells whether any rank found a rebuild due (the rebuild is everyone's).
 * Without them (one process) the periodic images are the only ghosts (ghosts.h). */
typedef struct sim_ghost_hooks {
    int (*make)(struct sim *s, void *ctx);
    int (*update)(struct sim *s, void *ctx);
    int (*any)(int due, void *ctx);
    /* adds up n exact sums (exact_sum.h) over the ranks, in place: the totals of the
     * energy books, the observables and the walls' loads are every rank's */
    void (*reduce)(struct exact_sum *sums, int n, void *ctx);
    /* the largest of the ranks' x */
    double (*largest)(double x, void *ctx);
    /* every rank's n rows of `width` doubles, in *all (malloc'ed, with room for `extra`
     * rows more; *n_all rows); `failed`: this rank could not make its rows (mine NULL).
     * Returns 0, or -1 on every rank if any failed */
    int (*gather)(const double *mine, size_t n, int width, size_t extra, int failed,
                  double **all, size_t *n_all, void *ctx);
    /* drops the particles from `first` on (new ones, every rank holding them all) that
     * lie in another rank's part. Returns 0 or -1 */
    int (*keep_own)(struct sim *s, size_t first, void *ctx);
    /* the lowest rank's text of those that have one (have != 0), in every rank's text
     * (len bytes); unchanged where none has one */
    void (*share)(char *text, size_t len, int have, void *ctx);
    void *ctx;
} sim_ghost_hooks;

/* The state of a Lees-Edwards shear (cfg.lees_edwards; engine/neighbours/lees_edwards.h). */
typedef struct sim_lees_edwards {
    double offset;            /* m: the x shift of the images above the top face, grown by
                                 shear_rate x height x dt each step (whole box lengths
                                 taken off at each rebuild) */
    double offset_at_rebuild; /* m: the offset the last rebuild placed the images with */
    uint32_t *pairs;          /* the pairs whose partner is an image across a z face */
    size_t n_pairs, pairs_capacity;
    double plane_force[3];    /* N: the force the particles above the z faces' plane exert
                                 through it on those below, at the last force evaluation */
    double power;             /* W: the shear's power then, speed x plane_force[0] */
    double work_sum;          /* J: power x dt summed over the steps, plus the kinetic
                                 energy each crossing of a z face changed and the
                                 barostat's work */
    double height_at_rebuild; /* m: the box height the last rebuild placed the images with */
    double top_at_rebuild;    /* m: the top face then (domain_max[2]) */
    /* the box's stress the barostat acts on (lees_edwards_box_stress), made by the force
     * evaluation before its action [Pa] */
    double stress[6];
} sim_lees_edwards;

typedef struct sim {
    sim_config cfg;           /* shallow copy: the caller keeps the config alive */
    const sim_ghost_hooks *ghost_hooks; /* NULL in one process */
    particle_store p;
    wall_set walls;
    neighbour_grid grid;
    contact_list pairs;       /* particle-particle candidate pairs and their history */
    contact_list wall_pairs;  /* particle-wall candidate pairs (j = wall index) */
    law_instance *laws;       /* n_materials^2, [a * n_materials + b], symmetric */
    int n_materials;

    double dt, dt_limit;      /* chosen step and the stability limit it was checked against */
    double spring_span;       /* what the springs advance by in this force evaluation: dt
                                 within a step, 0 for the forces at the start */
    double time;
    int64_t step;
    double cutoff;            /* largest diameter + skin: hash cell size, ghost band */
    double skin;
    int has_reach;            /* some law's contacts last past touching (law_reach < 0):
                                 the pair loop looks for them where a pair opens */
    double *x_at_rebuild;     /* 3 per local particle: positions at the last rebuild */
    int list_stale;           /* the particles changed outside a rebuild (the watchdog
                                 dropped one): the next step rebuilds the lists */
    double rebuild_wall_time; /* the time the walls were at in the last rebuild (a
                                 restart rebuilds with its moving walls there) */
    int64_t n_rebuilds;
    size_t parallel_min;      /* loops over fewer items run on one thread */
    size_t block;             /* particles per block of the force loop (CONTACT_BLOCK) */
    double search_room;       /* candidates per particle a rebuild's search buffers start
                                 with; < 0: from the last list (cfg.tuning) */
    int reorder;              /* sort the particles along a curve at rebuilds (reorder.h) */
    size_t reorder_min;       /* ... when there are at least this many */
    int64_t n_reorders;       /* how many rebuilds did */

    contact_list carry, wall_carry; /* the touching pairs' history while a list is
                                       rebuilt (contact_list_keep_touching) */

    /* Work done on the contacts since t = 0 [J], by kind (SIM_WORK_*): what the normal
     * force of dashpot and plastic laws, the tangential force and the rolling torque took
     * from the particles' relative motion. Minus what the contacts store now
     * (sim_stored_energy) it is what they dissipated. */
    double work[4];
    double work_step[4];      /* what the last step added to work */
    double *chunk_work;       /* per-chunk partial sums, combined in chunk order */
    struct exact_sum *chunk_exact; /* the same summed exactly (cfg.reproducible) */
    size_t chunk_work_capacity;
    double external_work;     /* done on the particles by the external loads since t = 0
                                 [J] (engine/step/external_loads.h) */

    double initial_energy;    /* kinetic, gravitational and stored energy of the state the
                              case creates (a restart makes the same state first): the
                              energy balance's start (observables.h) */
    double largest_radius;    /* of the particles and of what the inlets insert */
    inlet_state *inlets;      /* cfg.n_inlets (engine/population/population.h) */
    outlet_state *outlets;    /* cfg.n_outlets */
    uint8_t *leaving;         /* scratch: particles an outlet removes this step */
    struct exact_sum *outlet_step; /* 2 cfg.n_outlets: a step's count and mass per outlet,
                                      summed by id (made with the outlets: no allocation
                                      between a step's collectives) */

    double force_seconds;     /* wall-clock time in the force loops since the start (an
                                 MPI run's measure of its ranks' balance) */
    double pass_seconds[SIM_PASSES]; /* wall-clock time in sim_step since the start, by
                                 pass (SIM_PASS_*): every stretch of a step goes to one */

    sim_lees_edwards le;      /* cfg.lees_edwards */

    int pair_forces_recorded; /* the last force evaluation recorded the particle pairs'
                                 forces (sim_record_pair_forces) */

    /* diagnostics of the last step */
    size_t n_contacts;        /* touching pairs (particle-particle + particle-wall) */
    double max_overlap;

    /* A step that could not be completed (SIM_FAULT_*): sim_step does nothing more, and
     * the watchdog reports it (watchdog_check, exit 4 in `dempact run`). */
    int fault;
    int fault_memory;         /* SIM_FAULT_NO_MEMORY: what ran out of it (SIM_MEMORY_*) */
    long fault_particle;      /* SIM_FAULT_RUNAWAY: the local index of the particle */
    int fault_axis;           /* ... and the axis along which it is too far out */
} sim;

/* Why sim_step stopped (sim.fault). */
enum {
    SIM_FAULT_NONE = 0,
    /* A particle's centre is farther outside the domain than SIM_RUNAWAY_MARGIN domain
     * lengths along some axis (after periodic wrapping): the rebuild refuses it before the
     * neighbour grid is sized for it. The watchdog stops a run at the first step a
     * particle is outside the domain at all, so this guards the steps between its checks
     * (watchdog.interval) and runs without a watchdog (dempact bench). */
    SIM_FAULT_RUNAWAY,
    /* The neighbour grid could not be sized for the particles (neighbour.h). */
    SIM_FAULT_GRID,
    /* The neighbour list would hold more candidate pairs than its 32-bit indices count
     * (CONTACT_MAX_PAIRS): particles crowded into few cells. */
    SIM_FAULT_PAIRS,
    /* Memory ran out (sim.fault_memory says where): the state is not a step's end. The
     * program reports it and stops (exit 3 in `dempact run`), without a last snapshot. */
    SIM_FAULT_NO_MEMORY
};
/* Where memory ran out (sim.fault_memory). */
enum {
    SIM_MEMORY_POPULATION,  /* inserting or removing particles */
    SIM_MEMORY_REBUILD,     /* the neighbour rebuild */
    SIM_MEMORY_WALL_LOADS,  /* summing the wall loads */
    SIM_MEMORY_DROP,        /* the watchdog dropping a particle */
    SIM_MEMORY_FORCES       /* recording the pairs' forces (sim_record_pair_forces) */
};
#define SIM_RUNAWAY_MARGIN 1.0

/* Builds the simulation (particles from the sources, laws set up, timestep chosen and
 * checked). Returns 0, or -1 with a message naming the problem in err. */
int sim_create(sim *s, const sim_config *cfg, char *err, size_t err_len);
/* sim_create in two halves: sim_place makes everything up to the first neighbour list
 * (particles, walls, laws, the step: what needs every particle), sim_start the list, the
 * forces and the starting energy. Between them a run split over ranks hands the ghosts
 * to its hooks (sim.ghost_hooks): sim_start's rebuild then keeps each rank's own
 * particles, so that no rank ever holds the whole case's lists. Each returns 0, or -1
 * with a message; sim_start is collective when split. */
int sim_place(sim *s, const sim_config *cfg, char *err, size_t err_len);
int sim_start(sim *s, char *err, size_t err_len);
void sim_free(sim *s);
/* Hands the ghosts to `hooks` (which must outlive s) and makes the last neighbour
 * rebuild again through them: the particles are then those the hooks keep (an MPI
 * rank's, after every rank built the whole case, or restored the whole snapshot), with
 * their forces and their pairs' history, and the run goes on as in one process. Needs
 * sums by id (sim_config.reproducible: each pair is computed alike by every rank that
 * holds it). Returns 0, or -1 with a message. */
int sim_split(sim *s, const sim_ghost_hooks *hooks, char *err, size_t err_len);
/* Engine-internal: exact sums of this rank's terms made every rank's (the hooks'
 * reduce; nothing in one process). Every rank calls it at the same point. */
void sim_reduce_exact(const sim *s, struct exact_sum *sums, int n);
/* The particles of every rank (this one's in one process); collective when split. */
size_t sim_particles_everywhere(const sim *s);
/* The largest of the ranks' x (x in one process); collective like sim_reduce_exact. */
double sim_reduce_largest(const sim *s, double x);
/* Whether this rank failed, or (split over ranks) any did: every rank then gives up at
 * the same point, before a collective the others would wait in. Collective when split. */
int sim_failed_anywhere(const sim *s, int failed);
/* Engine-internal: every ghost (another rank's particle, an image) brought to where its
 * particle is now, with its motion. Collective when split. Returns 0 or -1 (out of
 * memory, on some rank). */
int sim_update_ghosts(sim *s);

/* The binary collision of a binding's typical particles (calibration's reference), and
 * whether it is a particle against a wall (one of the materials has no particles). */
law_reference sim_binding_reference(const sim *s, int binding);
int sim_binding_against_wall(const sim *s, int binding);

/* Replaces the timestep, checking it against the stable limit (unless the case turned
 * the check off). Returns 0 or -1 with a message. */
int sim_set_timestep(sim *s, double dt, char *err, size_t err_len);

/* Whether the force evaluations from now on record each particle pair's force on the
 * pair (contact_list.force of s->pairs, 24 bytes per candidate pair): what snapshots'
 * contact forces, the watchdog's contact reports and energy budget, the watchdog's
 * drop_particle and the Python package read. A particle's forces never need them (a
 * cross pair keeps its j side on its cross slot), so a run records only the steps whose
 * forces someone reads (io/session/run_driver.c); a simulation records from its start
 * until told otherwise (sim_place). Starting zeroes every pair's (pairs apart read 0;
 * the next force evaluation writes those in contact), stopping frees them; wall pairs
 * keep theirs always. Returns 0 or -1 (out of memory: nothing is recorded). */
int sim_record_pair_forces(sim *s, int on);
/* Whether the last force evaluation recorded the particle pairs' forces (on every rank,
 * split: the runs record on the same schedule). */
static inline int sim_pair_forces_recorded(const sim *s) { return s->pair_forces_recorded; }

/* One velocity-Verlet step. A step that cannot be done sets sim.fault (SIM_FAULT_*)
 * and returns; every later step then returns at once. */
void sim_step(sim *s);

/* Energy [J] the touching contacts hold now, by kind (SIM_WORK_*): the normal law's
 * elastic energy (split as dashpot or plastic law, and SIM_STORED_CONSERVATIVE for a
 * law without either) and the tangential and rolling springs. Serial, in list order. */
void sim_stored_energy(const sim *s, double stored[SIM_STORED_KINDS]);
/* The energy contact k of list c holds in its normal law and adhesion at overlap d
 * (what sim_stored_energy counts of it besides its springs), and in *kind where it is
 * booked (SIM_WORK_NORMAL, SIM_WORK_PLASTIC or SIM_STORED_CONSERVATIVE). */
double sim_contact_normal_energy(const sim *s, const contact_list *c, size_t k, double d, int *kind);
/* Energy [J] the adhesion of this rank's contacts holds now (models/adhesion_law.h,
 * `energy`: <= 0, the surface energy the contacts have turned into motion or lost), 0
 * when no law has adhesion. Serial, in list order. */
double sim_adhesion_energy(const sim *s);
/* The law of contact k of list c (s->pairs or s->wall_pairs) and its R* (and m*, when
 * m_eff is not NULL), as the force loop has them: against a wall, the particle's own. */
const law_instance *sim_contact_law(const sim *s, const contact_list *c, size_t k,
                                    double *r_eff, double *m_eff);

/* Work done on the contacts since t = 0 [J], by kind, by the trapezoidal rule in time
 * (sim.work is the running rectangle sum). */
void sim_contact_work(const sim *s, double work[SIM_WORK_KINDS]);

/* Kinetic energy (translational + rotational) of the local particles. */
double sim_kinetic_energy(const sim *s);

/* ---- restart support ---- */
/* A restart rebuilds the neighbour list exactly as the run last built it (from the
 * positions of its last rebuild, which snapshots keep), then puts the particles back
 * where they were and restores each touching pair's history. The contact lists then
 * hold the same pairs in the same order as in the run that wrote the snapshot, so the
 * continuation is bit-identical to a run that never stopped. */

/* The per-pair history arrays of contact_list that a restart restores (all that
 * contact_clear_history resets, besides the touching flag): the name of the dataset
 * that holds it in a snapshot's contacts group, the offset in contact_list of the
 * array (count == 1) or of the array of `count` arrays, and count. */
typedef struct pair_history_field {
    const char *name;
    size_t offset;
    int count;
    int zero_if_absent; /* added later: a snapshot without it had none (all zero) */
} pair_history_field;
#define SIM_MAX_HISTORY_FIELDS 8
extern const pair_history_field sim_pair_history[];
extern const int sim_n_pair_history;
/* Component comp of history field f in list c. */
double *sim_pair_history_array(const contact_list *c, const pair_history_field *f, int comp);

/* What a snapshot holds for a restart. Vectors are 3 per particle (row-major). */
/* The state of a Lees-Edwards shear a restart needs (sim_restart_state.lees_edwards, a
 * snapshot's engine@lees_edwards): the offset and its value at the last rebuild, the
 * running sum behind the shear's work, the power, the force through the faces' plane
 * (3), the box height and its value at the last rebuild, the box stress (6). */
enum { SIM_LEES_EDWARDS_STATE = 15 };
void sim_lees_edwards_state(const struct sim *s, double state[SIM_LEES_EDWARDS_STATE]);

typedef struct sim_restart_state {
    double time, dt;
    int64_t step;
    size_t n;                     /* particles, in the order the run had them */
    const int64_t *id;
    const int32_t *type;          /* type, radius, mass: checked against the case's */
    const double *radius, *mass;
    const double *position, *position_at_rebuild, *velocity, *angular_velocity;
    const double *force, *torque;
    size_t n_contacts;            /* touching pairs */
    const int64_t *contact_id;    /* 2 per contact: particle id, then particle id or wall index */
    const uint8_t *contact_wall;  /* 1: the second is a wall index */
    const int64_t *contact_slot;  /* the pair's place among its first particle's entries
                                     of its list (pairs or walls) */
    const uint8_t *contact_ended; /* 0 in contact, 1 ending, 2 ended (contact_list.touching);
                                     NULL: all in contact */
    int list_stale;               /* sim.list_stale when the snapshot was taken */
    const double *history[SIM_MAX_HISTORY_FIELDS]; /* per sim_pair_history field: count
                                                      values per contact */
    /* the rest of the engine's state (NULL / NaN: not in the snapshot) */
    int64_t next_id;              /* -1: unknown */
    const double *work;           /* SIM_WORK_KINDS */
    const double *wall_work;      /* walls.n */
    const double *wall_work_sum;  /* walls.n: the running sums behind wall_work (NULL:
                                     files from before these sums were kept) */
    const double *wall_servo;     /* WALL_SERVO_STATE per wall (walls_servo_save; NULL: no
                                     servo walls) */
    const void *inlets, *outlets; /* the inlet_state and outlet_state arrays, as bytes */
    size_t inlets_bytes, outlets_bytes;
    double rebuild_wall_time;     /* where the walls were at the last rebuild (NaN: at
                                     `time`; only matters for moving walls) */
    /* Lees-Edwards (sim.le): offset, offset_at_rebuild, work_sum, power, plane_force[3],
     * the box height, height_at_rebuild, stress[6]; NULL without */
    const double *lees_edwards;
    /* a rank's share (sim_restore_share): each particle's and contact's row in the
     * snapshot, which a refusal names; NULL otherwise */
    const int64_t *row, *contact_row;
} sim_restart_state;

/* Replaces the state of s (just made by sim_create from the same case) with st: the
 * particles (matched by id to the case's; particles an inlet inserted are made again
 * from their material and radius: type, radius and mass must agree), time, step and dt,
 * the neighbour list of the last rebuild, the contact history and the engine's
 * accumulators. Returns 0, or -1 with a message. */
int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len);
/* sim_restore over ranks, each with its share of the snapshot: st holds the particles
 * this rank owns (by where the run's last rebuild had them) and the contacts of those,
 * with their rows; s is placed from the case (sim_place, every particle of it, against
 * which the rows are checked; no lists yet). The store becomes the share, the last
 * rebuild is made again over the ranks (hooks, as sim_split does) and the pairs' history
 * restored. A refusal is the one one process would give (the earliest row of the file
 * over the ranks), on every rank. Collective. Returns 0, or -1 with a message. */
int sim_restore_share(sim *s, const sim_restart_state *st, const sim_ghost_hooks *hooks, char *err,
                      size_t err_len);

#endif
