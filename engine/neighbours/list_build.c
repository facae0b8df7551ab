/* The neighbour lists (list_build.h). */
#include "list_build.h"

#include <stdlib.h>
#include <string.h>

#include "engine/step/force_loop.h"
#include "ghosts.h"
#include "lees_edwards.h"
#include "reorder.h"
#include "engine/checks/runaway.h"

/* The candidates of local particle i, in a fixed order: writes the first `room` of them
 * to out_j and returns how many there are. Reads the grid's packed copies
 * (neighbour_grid_pack). Each physical pair is kept once: from its lower-indexed
 * particle, or with `by_id` (a constant at each call) from its particle of lower id. */
static inline __attribute__((always_inline)) size_t
candidates_of(const sim *s, uint32_t i, uint32_t *out_j, size_t room, const int by_id)
{
    const neighbour_grid *g = &s->grid;
    const neighbour_item *restrict item = g->packed;
    const uint32_t *restrict owner = g->owner;
    const int64_t *restrict id = s->p.id;
    const double xi = s->p.x[i], yi = s->p.y[i], zi = s->p.z[i], ri = s->p.radius[i];
    const int64_t id_i = id[i];
    size_t begin[NEIGHBOUR_ROWS_MAX], end[NEIGHBOUR_ROWS_MAX], count = 0;
    /* another rank's particle (by id only: io/ranks/halo.h) pairs with this rank's own
     * particles alone, and only where it stands itself, not as an image: its pairs with
     * the others are that rank's */
    const size_t n_local = s->p.n_local;
    uint32_t partners_below = UINT32_MAX; /* a partner's owner must be below this */
    if (by_id && i >= n_local) {
        const double *shift = &s->p.ghost_shift[3 * (i - n_local)];
        if (shift[0] != 0.0 || shift[1] != 0.0 || shift[2] != 0.0) return 0;
        partners_below = (uint32_t)n_local;
    }
    const uint32_t *restrict items = g->items;
    const double skin = s->skin;
    size_t rows = neighbour_rows_around(g, i, begin, end);
    /* Without a branch on the outcome (about half the cells' particles are passed over as
     * lower-indexed, most of the rest as too far, in no pattern): every item is written
     * at the next slot, and the count moves on only for a candidate. */
    for (size_t r = 0; r < rows; r++)
        for (size_t k = begin[r]; k < end[r]; k++) {
            double dx = item[k].x - xi, dy = item[k].y - yi, dz = item[k].z - zi;
            double reach = ri + item[k].r + skin;
            int later = by_id ? (id[owner[k]] > id_i) & (owner[k] < partners_below) : owner[k] > i;
            int keep = later & !(dx * dx + dy * dy + dz * dz >= reach * reach);
            if (count < room) out_j[count] = items[k];
            count += (size_t)keep;
        }
    return count;
}

static size_t particle_candidates(const sim *s, uint32_t i, uint32_t *out_j, size_t room)
{
    return candidates_of(s, i, out_j, room, 0);
}

/* particle_candidates for sim_config.reproducible: each physical pair is kept from its
 * particle of lower id (not lower index), and a particle's candidates are sorted by
 * their id, so that the list holds the same pairs, the same way round, in the same
 * order per particle, however the particles are numbered (engine/step/force_loop.c). */
static size_t particle_candidates_by_id(const sim *s, uint32_t i, uint32_t *out_j, size_t room)
{
    size_t count = candidates_of(s, i, out_j, room, 1);
    if (count > room) return count; /* find_segment grows the buffer and asks again */
    /* insertion sort by the partner's id (a periodic image has its owner's; a particle
     * meets one image of another at most, the box being over two cutoffs long) */
    const int64_t *id = s->p.id;
    for (size_t q = 1; q < count; q++) {
        uint32_t j = out_j[q];
        int64_t key = id[particles_owner(&s->p, j)];
        size_t r = q;
        for (; r > 0 && id[particles_owner(&s->p, out_j[r - 1])] > key; r--) out_j[r] = out_j[r - 1];
        out_j[r] = j;
    }
    return count;
}

/* Every wall within radius + skin of particle i, where the walls are now (moving walls
 * force rebuilds often enough for this to hold until the next one: walls.c). An STL
 * wall gets one entry per contact the particle may have with it (walls_slots); the
 * entries' history keys tell them apart (walls_pair_key in build_list). */
static size_t wall_candidates(const sim *s, uint32_t i, uint32_t *out_w, size_t room)
{
    const particle_store *p = &s->p;
    double c[3] = {p->x[i], p->y[i], p->z[i]};
    size_t count = 0;
    for (size_t w = 0; w < s->walls.n; w++) {
        size_t slots = walls_slots(&s->walls, w, c, p->radius[i] + s->skin);
        for (size_t q = 0; q < slots; q++) {
            if (count < room) out_w[count] = (uint32_t)w;
            count++;
        }
    }
    return count;
}

typedef size_t (*candidate_fn)(const sim *, uint32_t, uint32_t *, size_t);

/* Particles per segment of a list build: each segment's candidates are found once, into
 * a buffer of its own, and copied into the list once the counts are known. */
#define BUILD_SEGMENT 4096

/* The candidates of particles [lo, hi) into a new buffer (NULL: out of memory), each
 * particle's count into first[i + 1]; `per`: candidates per particle to expect. */
static uint32_t *find_segment(const sim *s, candidate_fn find, size_t lo, size_t hi, double per,
                              uint32_t *first)
{
    size_t used = 0, room = (size_t)(per * (double)(hi - lo)) + 64;
    uint32_t *buf = malloc(room * sizeof *buf);
    for (size_t i = lo; i < hi && buf; i++) {
        size_t got = find(s, (uint32_t)i, buf + used, room - used);
        if (got > room - used) { /* did not fit: grow, and find them again */
            room = 2 * (used + got);
            uint32_t *more = realloc(buf, room * sizeof *buf);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
            find(s, (uint32_t)i, buf + used, room - used);
        }
        first[i + 1] = (uint32_t)got;
        used += got;
    }
    return buf;
}

/* Fills list with the candidates of every local particle, taking their history from
 * `old` (the carrier of the list's touching pairs); `from`: how the particles were
 * renumbered since old was made (sort_particles), or NULL. The neighbour search runs
 * once per particle (it used to run twice: count, then fill). */
static int build_list(sim *s, contact_list *list, contact_list *old, candidate_fn find,
                      int is_wall, const size_t *from)
{
    /* by id, other ranks' particles are first particles too (their pairs with this
     * rank's of higher id; candidates_of) */
    const int by_id = s->cfg.reproducible;
    size_t n = s->p.n_local + (by_id && !is_wall ? s->p.n_remote : 0);
    size_t n_seg = (n + BUILD_SEGMENT - 1) / BUILD_SEGMENT;
    /* the last list's density, with room to spare (a buffer that fills up grows) */
    double per = s->search_room >= 0.0 ? s->search_room
                 : list->n_first ? 1.25 * (double)list->n / (double)list->n_first + 1.0 : 8.0;
    uint32_t *first = realloc(list->first_of_i, (n + 1) * sizeof *first);
    if (!first) return -1;
    list->first_of_i = first;
    first[0] = 0;
    uint32_t **found = calloc(n_seg ? n_seg : 1, sizeof *found);
    if (!found) return -1;
    int failed = 0;
    #pragma omp parallel for schedule(dynamic, 1) reduction(| : failed) if (n > s->parallel_min)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * BUILD_SEGMENT, hi = lo + BUILD_SEGMENT < n ? lo + BUILD_SEGMENT : n;
        found[g] = find_segment(s, find, lo, hi, per, first);
        failed |= found[g] == NULL;
    }
    size_t total = 0;
    int too_many = 0;
    for (size_t i = 0; i < n && !failed && !too_many; i++) {
        total += first[i + 1];
        too_many = total > CONTACT_MAX_PAIRS; /* beyond 32-bit list indices */
        first[i + 1] = (uint32_t)total;
    }
    if (failed || too_many || contact_list_reserve(list, total + total / 8) != 0) {
        for (size_t g = 0; g < n_seg; g++) free(found[g]);
        free(found);
        return too_many && !failed ? REBUILD_REFUSED : -1;
    }
    list->n = total;
    list->n_first = n;
    #pragma omp parallel for schedule(dynamic, 1) if (n > s->parallel_min)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * BUILD_SEGMENT, hi = lo + BUILD_SEGMENT < n ? lo + BUILD_SEGMENT : n;
        memcpy(list->j + first[lo], found[g], (first[hi] - first[lo]) * sizeof *list->j);
        free(found[g]);
        for (size_t i = lo; i < hi; i++)
            for (size_t k = first[i]; k < first[i + 1]; k++) {
                list->i[k] = (uint32_t)i;
                list->owner_j[k] = is_wall ? walls_pair_key(list->j, first[i], k, s->walls.n)
                                           : (uint32_t)particles_owner(&s->p, list->j[k]);
                if (is_wall) list->overlap[k] = 0.0;
                for (int a = 0; a < 3 && list->force[0]; a++) list->force[a][k] = 0.0;
                for (int a = 0; a < 3 && list->torque[0]; a++) list->torque[a][k] = 0.0;
            }
    }
    free(found);
    if (by_id) return contact_list_adopt_by_id(list, old, s->p.id, n > s->parallel_min);
    contact_list_adopt_history(list, old, n > s->parallel_min, from);
    return 0;
}

/* Rebuilds `list` in place with the current candidates: the history of its touching
 * pairs waits in `carry` meanwhile. The list's arrays are reused (no churn), and no
 * second whole list is kept for the history: a carrier takes about a quarter of that. */
static int refresh_list(sim *s, contact_list *list, contact_list *carry, candidate_fn find,
                        int is_wall, const size_t *from)
{
    /* by id, the carrier was kept before the particles moved (list_rebuild) */
    if (!s->cfg.reproducible && contact_list_keep_touching(carry, list) != 0) return -1;
    return build_list(s, list, carry, find, is_wall, from);
}

/* Sorts the local particles back into curve order if they have drifted out of it
 * (engine/neighbours/reorder.h); before the ghosts are made. *from: the renumbering (particle i
 * was from[i]), or NULL if the order stays. Returns 0 or -1. */
static int sort_particles(sim *s, size_t **from)
{
    s->p.n_total = s->p.n_local; /* the ghosts are made again after this */
    s->p.n_remote = 0;
    int due = reorder_plan(&s->p, s->reorder_min, s->cfg.domain_min, s->cutoff,
                          s->p.n_local > s->parallel_min, from);
    if (due <= 0) return due;
    if (particles_permute(&s->p, *from) != 0) return -1;
    s->n_reorders++;
    return 0;
}

int list_index_cross(sim *s)
{
    /* other ranks' particles take their j sides too (unread) */
    return contact_list_index_cross(&s->pairs, s->p.n_local + s->p.n_remote, s->block,
                                    s->cfg.reproducible ? s->p.id : NULL);
}

int list_keep_touching(sim *s)
{
    return contact_list_keep_touching_by_id(&s->carry, &s->pairs, s->p.id) != 0 ||
                   contact_list_keep_touching_by_id(&s->wall_carry, &s->wall_pairs, s->p.id) != 0
               ? -1 : 0;
}

/* Returns 0, -1 (out of memory) or REBUILD_REFUSED (s->fault says why). */
int list_rebuild(sim *s)
{
    /* by id, the touching pairs are carried by the ids of their ends, which stay
     * whatever renumbers the particles next (curve sorting, an MPI rank's migration) */
    int failed = s->cfg.reproducible && list_keep_touching(s) != 0;
    if (sim_failed_anywhere(s, failed)) return -1;
    return list_rebuild_carried(s);
}

/* This rank's outcome of a stage of the rebuild (0, -1 or REBUILD_REFUSED) made every
 * rank's when split over ranks, whose next call is collective: a refusal anywhere, else
 * a failure anywhere. A rank that did not refuse has no fault of its own then: the rank
 * that refused names the particle (the watchdog gathers every rank's problem). */
static int agreed(const sim *s, int rc)
{
    if (!s->ghost_hooks) return rc;
    double code = sim_reduce_largest(s, rc == REBUILD_REFUSED ? 2.0 : rc != 0 ? 1.0 : 0.0);
    return code == 2.0 ? REBUILD_REFUSED : code == 1.0 ? -1 : 0;
}

/* The rebuild after the ghosts are made: the grid, the lists, the buffers. Returns 0, -1
 * (out of memory) or REBUILD_REFUSED (s->fault says why); collective-free. */
static int build_lists(sim *s, const size_t *from)
{
    int grid = neighbour_grid_build(&s->grid, &s->p, s->cutoff);
    if (grid == NEIGHBOUR_BAD_SPREAD) {
        s->fault = SIM_FAULT_GRID;
        return REBUILD_REFUSED;
    }
    if (grid != 0 || neighbour_grid_pack(&s->grid, &s->p) != 0) return -1;
    int failed = refresh_list(s, &s->pairs, &s->carry,
                              s->cfg.reproducible ? particle_candidates_by_id
                                                  : particle_candidates, 0, from);
    /* nothing reads the grid until the next rebuild, which bins every particle afresh:
     * it is not kept between rebuilds (14 bytes per particle in a bed) */
    neighbour_grid_free(&s->grid);
    if (failed == REBUILD_REFUSED) {
        s->fault = SIM_FAULT_PAIRS;
        return REBUILD_REFUSED;
    }
    if (failed ||
        list_index_cross(s) != 0 ||
        lees_edwards_index_pairs(s) != 0 ||
        refresh_list(s, &s->wall_pairs, &s->wall_carry, wall_candidates, 1, from) != 0 ||
        force_loop_reserve_work(s) != 0)
        return -1;
    double *xr = realloc(s->x_at_rebuild, 3 * (s->p.n_local + 1) * sizeof *xr);
    if (!xr) return -1;
    s->x_at_rebuild = xr;
    return 0;
}

int list_rebuild_carried(sim *s)
{
    lees_edwards_rebase(s);
    ghosts_wrap(s);
    size_t *from = NULL;
    int rc = 0;
    long far = runaway_find(s, &s->fault_axis);
    if (far >= 0) {
        s->fault = SIM_FAULT_RUNAWAY;
        s->fault_particle = far;
        rc = REBUILD_REFUSED;
    } else if (s->reorder && sort_particles(s, &from) != 0) {
        rc = -1;
    }
    if ((rc = agreed(s, rc)) != 0) goto done; /* the make below is collective */
    rc = -1;
    if (s->ghost_hooks) {
        if (s->ghost_hooks->make(s, s->ghost_hooks->ctx) != 0) goto done;
    } else {
        if (ghosts_make(s) != 0) goto done;
        ghosts_update(s, &s->p);
    }
    if ((rc = agreed(s, build_lists(s, from))) != 0) goto done;
    s->list_stale = 0;
    for (size_t i = 0; i < s->p.n_local; i++) {
        s->x_at_rebuild[3 * i] = s->p.x[i];
        s->x_at_rebuild[3 * i + 1] = s->p.y[i];
        s->x_at_rebuild[3 * i + 2] = s->p.z[i];
    }
    s->rebuild_wall_time = s->walls.time;
    walls_mark_rebuild(&s->walls); /* where a servo wall is (it moves by its loads) */
    s->n_rebuilds++;
done:
    free(from);
    return rc;
}

/* worst_d2: the largest squared displacement of a particle since the last rebuild (from
 * integrate_advance_positions). A rebuild is due when a sphere has moved half the skin,
 * or a moving wall will have moved far enough during this step. */
int list_needs_rebuild(const sim *s, double worst_d2)
{
    if (s->list_stale) return 1;
    /* moving walls: the step from s->time to s->time + dt (walls.c) */
    if (walls_need_rebuild(&s->walls, (double)s->step * s->dt, (double)(s->step + 1) * s->dt,
                           s->skin))
        return 1;
    /* under Lees-Edwards an image across a z face moves with the offset too */
    if (s->cfg.lees_edwards.on) {
        double images = lees_edwards_image_drift2(s);
        worst_d2 = images > worst_d2 ? images : worst_d2;
    }
    return !(worst_d2 <= 0.25 * s->skin * s->skin);
}
