/* Particle data, kept as one array per field (and per component) so that loops over
 * particles vectorise. Entries 0..n_local-1 are the particles this process owns;
 * n_local..n_total-1 are ghost copies near periodic faces (engine/neighbours/ghosts.c), which
 * carry position, velocity, radius, mass and type but no forces. */
#ifndef DEMPACT_PARTICLES_H
#define DEMPACT_PARTICLES_H

#include <stddef.h>
#include <stdint.h>

typedef struct particle_store {
    size_t n_local, n_total, capacity;
    /* of the ghosts, the first n_remote (entries n_local .. n_local + n_remote - 1) are
     * copies of other ranks' particles in an MPI run (io/ranks/halo.c): each is its own owner,
     * with its shift already added and its own mid-step velocities; 0 otherwise */
    size_t n_remote;
    int64_t next_id;      /* the id the next added particle gets */
    int64_t *id;          /* stable identifier: 0..N-1 at creation, never reused */
    int32_t *type;        /* material index */
    double *radius, *mass, *inv_mass, *inv_inertia;
    double *x, *y, *z;    /* position [m] */
    double *vx, *vy, *vz; /* velocity [m/s] */
    double *wx, *wy, *wz; /* angular velocity [rad/s] */
    double *fx, *fy, *fz; /* force [N] (local particles only) */
    double *tx, *ty, *tz; /* torque [N m] (local particles only; NULL with the spins'
                             history, below) */
    double *fx0, *fy0, *fz0, *tx0, *ty0, *tz0; /* the previous step's force and torque,
                                                  kept while velocities are predicted */
    /* the mid-step velocity and angular velocity v(n+1/2), w(n+1/2) that drifted the
     * positions (local particles and remote ghosts; a periodic ghost reads its owner's):
     * the springs' increments */
    double *vhx, *vhy, *vhz, *whx, *why, *whz;
    /* tx0, ty0, tz0, whx, why, whz (the spins' history) and the torques tx, ty, tz are
     * NULL until particles_keep_spin_history: a run whose contacts exert no torque and
     * that has no external torque never turns a spin (engine/step/integrate.h,
     * sim_spin_free), and every torque would stay 0: it spares their 72 bytes per
     * particle, and whatever reads a torque reads 0 where tx is NULL */
    /* the external loads set from outside the engine (engine/step/external_loads.h), by
     * component: force x, y, z [N], then torque x, y, z [N m], per local particle; NULL
     * where none is set (the torques may be NULL alone). Moved with their particles by
     * particles_remove and particles_permute, 0 for a particle particles_add appends; not
     * among particles_arrays' (a split run takes none) */
    double *external[6];
    /* ghosts only (ghost g is entry n_local + g): the local particle it copies and the
     * periodic shift added to that particle's position; particles_owner() */
    size_t *ghost_owner;  /* ghost_capacity */
    double *ghost_shift;  /* 3 per ghost */
    size_t ghost_capacity;
    /* some particle is fixed (particles_fixed): set by fill_source, never cleared */
    int has_fixed;
} particle_store;

int particles_init(particle_store *p, size_t capacity);
/* Holds the torques and the spins' history from now on (the torque and the previous
 * torque 0, the mid-step spin the spin), for every particle and every one added later.
 * Returns 0 or -1. */
int particles_keep_spin_history(particle_store *p);
/* Room for n_ghosts ghosts' owners and shifts. Returns 0 or -1. */
int particles_reserve_ghosts(particle_store *p, size_t n_ghosts);

/* Whether entry q (local or ghost) is fixed (particle_source.fixed): its 1/mass is 0,
 * so that every kick of velocity Verlet (v += dt/2 f/m) and every external load leaves
 * it at rest without a test in the integrator; 1/inertia is 0 likewise. Its mass stays
 * its own (snapshots, gravity, the timestep's estimates). */
static inline int particles_fixed(const particle_store *p, size_t q)
{
    return p->inv_mass[q] == 0.0;
}

/* The effective mass of a pair of which one or both are fixed: the moving partner's
 * mass, as if the fixed one were infinitely massive (LAMMPS's granular pair styles do
 * the same with fix freeze: meff = the other particle's mass); m_eff as given otherwise.
 * With both fixed, j's (no force on either moves anything). */
static inline double particles_pair_mass(const particle_store *p, size_t i, size_t j,
                                         double m_eff)
{
    if (particles_fixed(p, i)) return p->mass[j];
    if (particles_fixed(p, j)) return p->mass[i];
    return m_eff;
}

/* The rotational kinetic energy 1/2 I w^2 of a spin w2 = |w|^2 with 1/inertia ii: 0 for
 * a fixed particle (ii 0, w 0), whose 0 / 0 would be NaN; the same bits as
 * 0.5 * w2 / ii otherwise (a NaN spin stays NaN). */
static inline double particles_spin_energy(double w2, double ii)
{
    return ii == 0.0 ? 0.0 : 0.5 * w2 / ii;
}

/* The local particle entry q stands for: itself, or a ghost's owner. */
static inline size_t particles_owner(const particle_store *p, size_t q)
{
    return q < p->n_local ? q : p->ghost_owner[q - p->n_local];
}
int particles_reserve(particle_store *p, size_t capacity);
/* Gives back the room beyond the entries held and a little more (an MPI rank that kept
 * its own particles of a whole case: its arrays' pages go back to the system). */
void particles_shrink(particle_store *p);
void particles_free(particle_store *p);

/* Appends one local particle (only valid while there are no ghosts). Mass and inertia
 * follow from radius and density. Returns the index or -1 on allocation failure. */
long particles_add(particle_store *p, int32_t type, double radius, double density,
                   const double pos[3], const double vel[3]);

/* Removes the local particles with remove[i] != 0 (only valid while there are no
 * ghosts), keeping the others in order. new_index[i] receives particle i's new index,
 * or -1 if it was removed. Returns how many were removed. */
size_t particles_remove(particle_store *p, const uint8_t *remove, int64_t *new_index);

/* Every per-particle array p holds but the ghosts' own (ghost_owner, ghost_shift), for
 * code that moves whole particles: writes their addresses to array[] and their
 * elements' sizes to size[] (room for PARTICLE_ARRAYS of each) and returns how many
 * (PARTICLE_ARRAYS with the torques and the spins' history, 9 fewer without). */
enum { PARTICLE_ARRAYS = 33 };
size_t particles_arrays(particle_store *p, void **array, size_t *size);

/* Puts the local particles in a new order: particle i becomes the one that was
 * from[i] (a permutation of 0..n_local-1). Only valid while there are no ghosts.
 * Returns 0, or -1 (ghosts present, or out of memory: nothing changed). */
int particles_permute(particle_store *p, const size_t *from);

#endif
