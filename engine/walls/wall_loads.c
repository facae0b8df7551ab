/* The walls' loads (wall_loads.h). */
#include "wall_loads.h"

#include <stdlib.h>

#include "engine/exact_sum.h"

/* The load on each wall (s->walls.force, .torque): minus the force of each of its
 * contacts, and the torque about the wall's reference point O,
 *   (x_i - O) x (-F) - T,
 * with T the contact's torque on particle i about its centre (what the particle gains
 * about O the wall loses: the tangential force acts at the contact point, and the
 * rolling torque is a couple). Each block of WALL_LOAD_BLOCK list entries is summed in
 * list order (blocks in parallel), then the blocks in order: the same bits for any
 * number of threads. With sim_config.reproducible the contacts are summed exactly
 * instead (engine/exact_sum.h), in any order to the same bits. A moving wall's work on
 * the particles grows by -(F.v + T.w) dt (v: the velocity of O, w: the wall's angular
 * velocity), summed like the contacts' work (sim_contact_work). */
#define WALL_LOAD_BLOCK 2048

/* The load of contact k of the wall list on its wall: minus its force, and its torque
 * about the wall's reference point (see wall_loads_sum). */
static void contact_load(const sim *s, size_t k, double load[6])
{
    const contact_list *c = &s->wall_pairs;
    const particle_store *p = &s->p;
    uint32_t i = c->i[k], w = c->j[k];
    const double *o = s->walls.ref_point + 3 * w;
    double r[3] = {p->x[i] - o[0], p->y[i] - o[1], p->z[i] - o[2]};
    double f[3] = {c->force[0][k], c->force[1][k], c->force[2][k]};
    double rxf[3] = {r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2],
                     r[0] * f[1] - r[1] * f[0]};
    for (int a = 0; a < 3; a++) {
        load[a] = -f[a];
        load[3 + a] = -(rxf[a] + (c->torque[0] ? c->torque[a][k] : 0.0));
    }
}

/* The loads summed exactly (sim_config.reproducible): the same bits in whatever order
 * the particles, and so their contacts, are numbered. Serial: a wall list is short
 * beside the pair list. Returns 0 or -1 (out of memory). */
static int sum_exactly(sim *s)
{
    wall_set *ws = &s->walls;
    const contact_list *c = &s->wall_pairs;
    if (!ws->exact && !(ws->exact = malloc(6 * ws->n * sizeof *ws->exact))) return -1;
    for (size_t q = 0; q < 6 * ws->n; q++) exact_sum_clear(&ws->exact[q]);
    for (size_t k = 0; k < c->n; k++) {
        if (!(c->overlap[k] > 0.0)) continue;
        double load[6];
        contact_load(s, k, load);
        for (int a = 0; a < 6; a++) exact_sum_add(&ws->exact[6 * c->j[k] + a], load[a]);
    }
    sim_reduce_exact(s, ws->exact, (int)(6 * ws->n)); /* and the other ranks' contacts */
    for (size_t w = 0; w < ws->n; w++)
        for (int a = 0; a < 3; a++) {
            ws->force[3 * w + a] = exact_sum_value(&ws->exact[6 * w + a]);
            ws->torque[3 * w + a] = exact_sum_value(&ws->exact[6 * w + 3 + a]);
        }
    return 0;
}

/* The loads summed in blocks of the list (see wall_loads_sum). Returns 0 or -1. */
static int sum_in_blocks(sim *s)
{
    wall_set *ws = &s->walls;
    const contact_list *c = &s->wall_pairs;
    size_t block = ws->load_block ? ws->load_block : WALL_LOAD_BLOCK;
    size_t nw = ws->n, n_blocks = (c->n + block - 1) / block;
    size_t need = 6 * nw * (n_blocks + 1);
    if (need > ws->partial_cap) {
        double *q = realloc(ws->partial, need * sizeof *q);
        if (!q) return -1;
        ws->partial = q;
        ws->partial_cap = need;
    }
    #pragma omp parallel for schedule(static) if (c->n > s->parallel_min)
    for (size_t b = 0; b < n_blocks; b++) {
        double *part = ws->partial + 6 * nw * b;
        for (size_t q = 0; q < 6 * nw; q++) part[q] = 0.0;
        size_t end = (b + 1) * block < c->n ? (b + 1) * block : c->n;
        for (size_t k = b * block; k < end; k++) {
            if (!(c->overlap[k] > 0.0)) continue;
            double load[6];
            contact_load(s, k, load);
            for (int a = 0; a < 6; a++) part[6 * c->j[k] + a] += load[a];
        }
    }
    for (size_t w = 0; w < nw; w++)
        for (int a = 0; a < 3; a++) ws->force[3 * w + a] = ws->torque[3 * w + a] = 0.0;
    for (size_t b = 0; b < n_blocks; b++)
        for (size_t w = 0; w < nw; w++)
            for (int a = 0; a < 3; a++) {
                ws->force[3 * w + a] += ws->partial[6 * nw * b + 6 * w + a];
                ws->torque[3 * w + a] += ws->partial[6 * nw * b + 6 * w + 3 + a];
            }
    return 0;
}

int wall_loads_sum(sim *s)
{
    wall_set *ws = &s->walls;
    size_t nw = ws->n;
    if (nw == 0) return 0;
    if ((s->cfg.reproducible ? sum_exactly(s) : sum_in_blocks(s)) != 0) return -1;
    for (size_t w = 0; w < nw; w++) {
        if (!ws->state[w].moves) continue;
        const double *v = ws->state[w].velocity, *omega = walls_omega(ws, w);
        double power = 0.0;
        for (int a = 0; a < 3; a++)
            power -= ws->force[3 * w + a] * v[a] + ws->torque[3 * w + a] * omega[a];
        ws->work_sum[w] += power * s->dt;
        ws->work[w] = ws->work_sum[w] - 0.5 * power * s->dt; /* trapezoidal, as the contacts' */
    }
    walls_servo_update(ws); /* the servo walls' speeds for the next step, from these loads */
    return 0;
}
