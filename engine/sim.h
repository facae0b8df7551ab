/* A simulation: particles, walls, contacts, the laws bound to each pair of material
 * types, and the step loop. */
#ifndef DEMPACT_SIM_H
#define DEMPACT_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include "config.h"
#include "particles.h"
#include "contacts.h"
#include "walls.h"
#include "neighbour.h"
#include "friction.h"
#include "../models/calibrate.h"

typedef struct law_instance {
    const dem_law *law;
    law_coeffs coeffs;
    int binding; /* index in cfg.bindings */
    friction_coeffs friction;
    bool calibrated;         /* its damping coefficient was solved for ... */
    law_reference reference; /* ... in this binary collision */
} law_instance;

typedef struct sim {
    sim_config cfg;           /* shallow copy: the caller keeps the config alive */
    particle_store p;
    wall_set walls;
    neighbour_grid grid;
    contact_list pairs;       /* particle-particle candidate pairs and their history */
    contact_list wall_pairs;  /* particle-wall candidate pairs (j = wall index) */
    law_instance *laws;       /* n_materials^2, [a * n_materials + b], symmetric */
    int n_materials;

    double dt, dt_limit;      /* chosen step and the stability limit it was checked against */
    double time;
    int64_t step;
    double cutoff;            /* largest diameter + skin: hash cell size, ghost band */
    double skin;
    double *x_at_rebuild;     /* 3 per local particle: positions at the last rebuild */
    int64_t n_rebuilds;
    size_t parallel_min;      /* loops over fewer items run on one thread */

    contact_list spare, wall_spare; /* the previous lists, refilled at the next rebuild */

    /* diagnostics of the last step */
    size_t n_contacts;        /* touching pairs (particle-particle + particle-wall) */
    double max_overlap;
} sim;

/* Builds the simulation (particles from the sources, laws set up, timestep chosen and
 * checked). Returns 0, or -1 with a message naming the problem in err. */
int sim_create(sim *s, const sim_config *cfg, char *err, size_t err_len);
void sim_free(sim *s);

/* Replaces the timestep, checking it against the stable limit (unless the case turned
 * the check off). Returns 0 or -1 with a message. */
int sim_set_timestep(sim *s, double dt, char *err, size_t err_len);

/* One velocity-Verlet step. */
void sim_step(sim *s);

/* Kinetic energy (translational + rotational) of the local particles. */
double sim_kinetic_energy(const sim *s);

/* ---- restart support ---- */
/* A restart rebuilds the neighbour list exactly as the run last built it (from the
 * positions of its last rebuild, which snapshots keep), then puts the particles back
 * where they were and restores each touching pair's history by particle ids. The
 * contact list then has the same pairs in the same order as in the run that wrote the
 * snapshot, so the continuation is bit-identical to a run that never stopped. */

/* The per-pair history arrays of contact_list that a restart restores (all that
 * contact_clear_history resets, besides the touching flag): the name of the dataset
 * that holds it in a snapshot's contacts group, the offset in contact_list of the
 * array (count == 1) or of the array of `count` arrays, and count. */
typedef struct pair_history_field {
    const char *name;
    size_t offset;
    int count;
} pair_history_field;
#define SIM_MAX_HISTORY_FIELDS 8
extern const pair_history_field sim_pair_history[];
extern const int sim_n_pair_history;
/* Component comp of history field f in list c. */
double *sim_pair_history_array(const contact_list *c, const pair_history_field *f, int comp);

/* What a snapshot holds for a restart. Vectors are 3 per particle (row-major). */
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
    const double *history[SIM_MAX_HISTORY_FIELDS]; /* per sim_pair_history field: count
                                                      values per contact */
} sim_restart_state;

/* Replaces the state of s (just made by sim_create from the same case) with st: the
 * particles (the case's particles matched by id: type, radius and mass must be the
 * same), time, step and dt, the neighbour list of the last rebuild and the contact
 * history. Returns 0, or -1 with a message. */
int sim_restore(sim *s, const sim_restart_state *st, char *err, size_t err_len);

#endif
