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
#include "../models/calibrate.h"

typedef struct law_instance {
    const dem_law *law;
    law_coeffs coeffs;
    int binding; /* index in cfg.bindings */
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


#endif
