#include "particles.h"

#include "field_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every per-particle array but the ghosts' own and the spins' (below), with its element
 * type, for X(field, type). */
#define PARTICLE_FIELDS(X)                                                                 \
    X(id, int64_t) X(type, int32_t) X(radius, double) X(mass, double) X(inv_mass, double) \
    X(inv_inertia, double) X(x, double) X(y, double) X(z, double) X(vx, double)           \
    X(vy, double) X(vz, double) X(wx, double) X(wy, double) X(wz, double) X(fx, double)   \
    X(fy, double) X(fz, double) X(fx0, double) X(fy0, double) X(fz0, double) X(vhx, double) \
    X(vhy, double) X(vhz, double)

/* The torques and the spins' history (particles_keep_spin_history): all nine or none.
 * They exist exactly when something can exert a torque on a particle: a contact law with
 * friction or rolling resistance between some pair of materials, particle or wall
 * (pair_table_configure_lists, where !sim_spin_free), or an external torque
 * (sim_set_external_loads). Otherwise every torque would be 0 all run (integrate.h) and
 * its readers take 0 for a missing array. The spins themselves (wx, wy, wz) are always
 * held: a particle may spin without a torque. */
#define SPIN_FIELDS(X)                                                                     \
    X(tx, double) X(ty, double) X(tz, double) X(tx0, double) X(ty0, double)               \
    X(tz0, double) X(whx, double) X(why, double) X(whz, double)

/* PARTICLE_ARRAYS (particles.h) counts them */
#define COUNT(field, type) +1
_Static_assert(0 PARTICLE_FIELDS(COUNT) SPIN_FIELDS(COUNT) == PARTICLE_ARRAYS,
               "PARTICLE_ARRAYS: one per field");
#undef COUNT

#define GROW(field, type)                                                          \
    do {                                                                           \
        void *q = field_realloc(p->field, capacity * sizeof(type));                \
        if (!q) return -1;                                                         \
        p->field = q;                                                              \
    } while (0);

/* The external loads' arrays resize with the others where they are set. */
#define EXTERNAL_RESIZE(HOW, k) if (p->external[k]) HOW(external[k], double)

/* (a failed shrink leaves that array larger than needed, which is no harm) */
#define SHRINK(field, type)                                                        \
    do {                                                                           \
        void *q = field_realloc(p->field, capacity * sizeof(type));                \
        if (q) p->field = q;                                                       \
    } while (0);

int particles_reserve(particle_store *p, size_t capacity)
{
    if (capacity <= p->capacity) return 0;
    PARTICLE_FIELDS(GROW)
    if (p->tx0) { SPIN_FIELDS(GROW) }
    for (int k = 0; k < 6; k++) EXTERNAL_RESIZE(GROW, k)
    p->capacity = capacity;
    return 0;
}

void particles_shrink(particle_store *p)
{
    size_t capacity = p->n_total + p->n_total / 8 + 16;
    if (capacity >= p->capacity) return;
    PARTICLE_FIELDS(SHRINK)
    if (p->tx0) { SPIN_FIELDS(SHRINK) }
    for (int k = 0; k < 6; k++) EXTERNAL_RESIZE(SHRINK, k)
    p->capacity = capacity;
}

int particles_reserve_ghosts(particle_store *p, size_t n_ghosts)
{
    if (n_ghosts <= p->ghost_capacity && p->ghost_owner) return 0;
    size_t capacity = n_ghosts + n_ghosts / 2 + 16;
    GROW(ghost_owner, size_t);
    void *q = field_realloc(p->ghost_shift, 3 * capacity * sizeof(double));
    if (!q) return -1;
    p->ghost_shift = q;
    p->ghost_capacity = capacity;
    return 0;
}

int particles_keep_spin_history(particle_store *p)
{
    if (p->tx0) return 0;
    size_t capacity = p->capacity ? p->capacity : 1;
    double *a[9];
    for (int k = 0; k < 9; k++) {
        a[k] = field_realloc(NULL, capacity * sizeof(double));
        if (a[k]) continue;
        while (k-- > 0) field_free(a[k]);
        return -1;
    }
    /* no torque so far, none the step before; the mid-step spin of a particle not yet
     * stepped is its spin (as integrate_start_sums has it) */
    for (size_t i = 0; i < p->n_total; i++) {
        a[0][i] = a[1][i] = a[2][i] = a[3][i] = a[4][i] = a[5][i] = 0.0;
        a[6][i] = p->wx[i]; a[7][i] = p->wy[i]; a[8][i] = p->wz[i];
    }
    p->tx = a[0]; p->ty = a[1]; p->tz = a[2];
    p->tx0 = a[3]; p->ty0 = a[4]; p->tz0 = a[5];
    p->whx = a[6]; p->why = a[7]; p->whz = a[8];
    return 0;
}

int particles_init(particle_store *p, size_t capacity)
{
    memset(p, 0, sizeof *p);
    return particles_reserve(p, capacity > 0 ? capacity : 16);
}

#define FREE(field, type) field_free(p->field);

void particles_free(particle_store *p)
{
    PARTICLE_FIELDS(FREE)
    SPIN_FIELDS(FREE)
    for (int k = 0; k < 6; k++) field_free(p->external[k]);
    field_free(p->ghost_owner);
    field_free(p->ghost_shift);
    memset(p, 0, sizeof *p);
}

long particles_add(particle_store *p, int32_t type, double radius, double density,
                   const double pos[3], const double vel[3])
{
    if (p->n_total != p->n_local) return -1; /* ghosts would be overwritten */
    if (p->n_local == p->capacity && particles_reserve(p, 2 * p->capacity + 16) != 0)
        return -1;
    size_t i = p->n_local++;
    p->n_total = p->n_local;
    double mass = density * 4.0 / 3.0 * M_PI * radius * radius * radius;
    p->id[i] = p->next_id++;
    p->type[i] = type;
    p->radius[i] = radius;
    p->mass[i] = mass;
    p->inv_mass[i] = 1.0 / mass;
    p->inv_inertia[i] = 1.0 / (0.4 * mass * radius * radius); /* solid sphere */
    p->x[i] = pos[0]; p->y[i] = pos[1]; p->z[i] = pos[2];
    p->vx[i] = vel ? vel[0] : 0.0; p->vy[i] = vel ? vel[1] : 0.0; p->vz[i] = vel ? vel[2] : 0.0;
    p->wx[i] = p->wy[i] = p->wz[i] = 0.0;
    p->fx[i] = p->fy[i] = p->fz[i] = 0.0;
    /* no previous step: the first mid-step velocities are the initial ones */
    p->fx0[i] = p->fy0[i] = p->fz0[i] = 0.0;
    p->vhx[i] = p->vx[i]; p->vhy[i] = p->vy[i]; p->vhz[i] = p->vz[i];
    if (p->tx0) {
        p->tx[i] = p->ty[i] = p->tz[i] = 0.0;
        p->tx0[i] = p->ty0[i] = p->tz0[i] = 0.0;
        p->whx[i] = p->why[i] = p->whz[i] = 0.0;
    }
    for (int k = 0; k < 6; k++)
        if (p->external[k]) p->external[k][i] = 0.0; /* no load until one is set */
    return (long)i;
}

size_t particles_remove(particle_store *p, const uint8_t *remove, int64_t *new_index)
{
    size_t kept = 0;
#define MOVE(field, type) p->field[kept] = p->field[i];
    for (size_t i = 0; i < p->n_local; i++) {
        if (remove[i]) { new_index[i] = -1; continue; }
        new_index[i] = (int64_t)kept;
        if (kept != i) {
            PARTICLE_FIELDS(MOVE)
            if (p->tx0) { SPIN_FIELDS(MOVE) }
            for (int k = 0; k < 6; k++)
                if (p->external[k]) p->external[k][kept] = p->external[k][i];
        }
        kept++;
    }
#undef MOVE
    size_t removed = p->n_local - kept;
    p->n_local = p->n_total = kept;
    p->n_remote = 0;
    return removed;
}

/* new[i] = old[from[i]] for one array of n elements of `size` bytes, through scratch. */
static void permute_array(void *array, size_t size, const size_t *from, size_t n, void *scratch)
{
    char *a = array, *t = scratch;
    for (size_t i = 0; i < n; i++) memcpy(t + i * size, a + from[i] * size, size);
    memcpy(a, t, n * size);
}

#define LIST(field, type) array[n] = p->field; size[n++] = sizeof(type);
size_t particles_arrays(particle_store *p, void **array, size_t *size)
{
    size_t n = 0;
    PARTICLE_FIELDS(LIST)
    if (p->tx0) { SPIN_FIELDS(LIST) }
    return n;
}
#undef LIST

int particles_permute(particle_store *p, const size_t *from)
{
    if (p->n_total != p->n_local) return -1;
    size_t n = p->n_local;
    void *scratch = malloc((n ? n : 1) * sizeof(double)); /* the widest element */
    if (!scratch) return -1;
    void *array[PARTICLE_ARRAYS];
    size_t size[PARTICLE_ARRAYS], n_arrays = particles_arrays(p, array, size);
    for (size_t k = 0; k < n_arrays; k++) permute_array(array[k], size[k], from, n, scratch);
    for (int k = 0; k < 6; k++)
        if (p->external[k]) permute_array(p->external[k], sizeof(double), from, n, scratch);
    free(scratch);
    return 0;
}
