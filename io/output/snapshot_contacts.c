/* The contact network of a snapshot: one row per touching pair (particle-particle, then
 * particle-wall, each in the order of its contact list). See docs/output.md. */
#include "snapshot_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void contact_table_free(contact_table *t)
{
    free(t->id); free(t->wall); free(t->slot); free(t->ended); free(t->point); free(t->normal);
    free(t->normal_force_vector); free(t->tangential_force); free(t->overlap);
    free(t->normal_force); free(t->endpoints);
    for (int f = 0; f < SIM_MAX_HISTORY_FIELDS; f++) free(t->history[f]);
    memset(t, 0, sizeof *t);
}

/* Rows of the table: touching pairs whose first particle is local (in an MPI run the
 * pairs a rank computes from another rank's particle are that rank's rows). */
static int is_row(const contact_list *c, size_t k, size_t n_local)
{
    return c->touching[k] != 0 && c->i[k] < n_local;
}

static size_t count_rows(const contact_list *c, size_t n_local)
{
    size_t n = 0;
    if (c)
        for (size_t k = 0; k < c->n; k++) n += is_row(c, k, n_local);
    return n;
}

/* Row r of the table from pair k of list c; a particle pair's force NaN where the pairs'
 * forces were not recorded (t->unrecorded). */
static void fill_row(contact_table *t, size_t r, const snapshot_state *st, const contact_list *c,
                     size_t k, int is_wall)
{
    const particle_store *p = st->p;
    uint32_t i = c->i[k], j = c->j[k];
    double xi[3] = {p->x[i], p->y[i], p->z[i]}, n[3], other[3], contact_dist;
    double d = contact_overlap(c, p, k);
    if (!is_wall) {
        double xj[3] = {p->x[j], p->y[j], p->z[j]}; /* a ghost is the image beside i */
        double dist = sqrt((xj[0] - xi[0]) * (xj[0] - xi[0]) + (xj[1] - xi[1]) * (xj[1] - xi[1]) +
                           (xj[2] - xi[2]) * (xj[2] - xi[2]));
        for (int a = 0; a < 3; a++) {
            n[a] = dist > 0.0 ? (xj[a] - xi[a]) / dist : 0.0;
            other[a] = xj[a];
        }
        t->id[2 * r] = p->id[i];
        t->id[2 * r + 1] = p->id[c->owner_j[k]];
        t->wall[r] = 0;
        contact_dist = p->radius[i] - 0.5 * d;
    } else {
        /* n: from the particle to the wall where it is now, as the engine finds it (an
         * STL wall's entry `slot` takes the slot-th closest of its contacts) */
        const wall_set *ws = st->walls;
        if (ws->walls[j].kind == WALL_STL) {
            wall_contact mc[WALL_MAX_SLOTS];
            int nm = walls_mesh_contacts(ws, j, xi, p->radius[i], mc, WALL_MAX_SLOTS);
            size_t slot = c->owner_j[k] / ws->n;
            for (int a = 0; a < 3; a++) n[a] = (int)slot < nm ? mc[slot].n[a] : 0.0;
        } else {
            walls_distance(ws, j, xi, n);
        }
        for (int a = 0; a < 3; a++) other[a] = xi[a] + (p->radius[i] - d) * n[a];
        t->id[2 * r] = p->id[i];
        t->id[2 * r + 1] = (int64_t)j;
        t->wall[r] = 1;
        contact_dist = p->radius[i] - 0.5 * d;
    }
    t->slot[r] = (int64_t)(k - c->first_of_i[i]);
    t->ended[r] = contact_ended_code(c->touching[k]);
    double f[3] = {NAN, NAN, NAN}; /* on i */
    if (is_wall || !t->unrecorded)
        for (int a = 0; a < 3; a++) f[a] = c->force[a][k];
    double fn = f[0] * n[0] + f[1] * n[1] + f[2] * n[2];
    for (int a = 0; a < 3; a++) {
        t->point[3 * r + a] = xi[a] + contact_dist * n[a];
        t->normal[3 * r + a] = n[a];
        t->normal_force_vector[3 * r + a] = fn * n[a];
        t->tangential_force[3 * r + a] = f[a] - fn * n[a];
        t->endpoints[6 * r + a] = xi[a];
        t->endpoints[6 * r + 3 + a] = other[a];
    }
    t->overlap[r] = d;
    t->normal_force[r] = -fn; /* the force on i is -F n: F > 0 pushes apart */
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        for (int comp = 0; comp < hf->count; comp++) {
            const double *src = sim_pair_history_array(c, hf, comp); /* NULL: not in use */
            t->history[h][r * hf->count + comp] = src ? src[k] : 0.0;
        }
    }
}

int contact_table_alloc(contact_table *t, size_t m)
{
    memset(t, 0, sizeof *t);
    size_t alloc = m ? m : 1;
    t->m = m;
    t->id = malloc(2 * alloc * sizeof *t->id);
    t->wall = malloc(alloc * sizeof *t->wall);
    t->slot = malloc(alloc * sizeof *t->slot);
    t->ended = malloc(alloc * sizeof *t->ended);
    t->point = malloc(3 * alloc * sizeof *t->point);
    t->normal = malloc(3 * alloc * sizeof *t->normal);
    t->normal_force_vector = malloc(3 * alloc * sizeof *t->normal_force_vector);
    t->tangential_force = malloc(3 * alloc * sizeof *t->tangential_force);
    t->overlap = malloc(alloc * sizeof *t->overlap);
    t->normal_force = malloc(alloc * sizeof *t->normal_force);
    t->endpoints = malloc(6 * alloc * sizeof *t->endpoints);
    int ok = t->id && t->wall && t->slot && t->ended && t->point && t->normal && t->normal_force_vector &&
             t->tangential_force && t->overlap && t->normal_force && t->endpoints;
    for (int h = 0; h < sim_n_pair_history && ok; h++) {
        t->history[h] = malloc((size_t)sim_pair_history[h].count * alloc * sizeof(double));
        ok = t->history[h] != NULL;
    }
    if (!ok) {
        contact_table_free(t);
        return -1;
    }
    return 0;
}

int contact_table_columns(const contact_table *t, void *data[], size_t row_bytes[])
{
    int n = 0;
#define COLUMN(p, count) (data[n] = (void *)(p), row_bytes[n++] = (count) * sizeof *(p))
    COLUMN(t->id, 2);
    COLUMN(t->wall, 1);
    COLUMN(t->slot, 1);
    COLUMN(t->ended, 1);
    COLUMN(t->point, 3);
    COLUMN(t->normal, 3);
    COLUMN(t->normal_force_vector, 3);
    COLUMN(t->tangential_force, 3);
    COLUMN(t->overlap, 1);
    COLUMN(t->normal_force, 1);
    COLUMN(t->endpoints, 6);
    for (int h = 0; h < sim_n_pair_history; h++) COLUMN(t->history[h], (size_t)sim_pair_history[h].count);
#undef COLUMN
    return n;
}

int contact_table_build(contact_table *t, const snapshot_state *st)
{
    size_t n_local = st->p->n_local;
    size_t np = count_rows(st->pairs, n_local), nw = st->walls ? count_rows(st->wall_pairs, n_local) : 0;
    if (contact_table_alloc(t, np + nw) != 0) return -1;
    /* a simulation's pairs hold the last step's forces where it recorded them; a list
     * without an engine, where it holds them */
    t->unrecorded = st->pairs && (!st->pairs->force[0] ||
                                  (st->engine && !sim_pair_forces_recorded(st->engine)));
    size_t r = 0;
    const contact_list *lists[2] = {st->pairs, st->walls ? st->wall_pairs : NULL};
    for (int L = 0; L < 2; L++) {
        if (!lists[L]) continue;
        for (size_t k = 0; k < lists[L]->n; k++)
            if (is_row(lists[L], k, n_local)) fill_row(t, r++, st, lists[L], k, L == 1);
    }
    return 0;
}
