#include "contacts.h"

#include "engine/population/field_alloc.h"

#include <stdlib.h>
#include <string.h>

void contact_list_free(contact_list *c)
{
    field_free(c->i); field_free(c->j); field_free(c->owner_j); field_free(c->touching);
    field_free(c->impact_velocity);
    for (int k = 0; k < LAW_MAX_HISTORY; k++) field_free(c->history[k]);
    for (int a = 0; a < 3; a++) {
        field_free(c->force[a]); field_free(c->tangential[a]); field_free(c->rolling[a]);
    }
    for (int a = 0; a < 3; a++) {
        field_free(c->torque[a]); field_free(c->cross_force[a]); field_free(c->cross_torque[a]);
    }
    for (int h = 0; h < CONTACT_SLIP_HISTORY; h++) field_free(c->slip[h]);
    field_free(c->coulomb_margin);
    field_free(c->overlap); field_free(c->cross_slot); field_free(c->cross_pair);
    free(c->first_of_i); free(c->cross_first);
    free(c->key_i); free(c->key_j);
    memset(c, 0, sizeof *c);
}

void contact_list_configure(contact_list *c, int is_wall, int impact, int n_history,
                            int friction, int rolling, int slip)
{
    c->configured = 1;
    c->is_wall = is_wall;
    c->has_impact = impact;
    c->n_history = n_history;
    c->has_friction = friction;
    c->has_rolling = rolling;
    c->has_slip = slip;
    c->records_forces = 1; /* until told otherwise (contact_list_record_forces) */
}

void contact_list_configure_carrier(contact_list *c, int is_wall, int impact, int n_history,
                                    int friction, int rolling, int slip)
{
    contact_list_configure(c, is_wall, impact, n_history, friction, rolling, slip);
    c->history_only = 1;
    c->records_forces = 0; /* keeps_forces says */
}

#define GROW(ptr, count)                                                            \
    do {                                                                            \
        void *q = field_realloc(ptr, (count) * sizeof *(ptr));                      \
        if (!q) return -1;                                                          \
        ptr = q;                                                                    \
    } while (0)

/* Whether c holds force[3] (contact_list.force, .records_forces, .keeps_forces). */
static int holds_forces(const contact_list *c)
{
    if (c->history_only) return c->keeps_forces;
    return !c->configured || c->is_wall || c->records_forces;
}

int contact_list_reserve(contact_list *c, size_t capacity)
{
    int forces_missing = holds_forces(c) && !c->force[0];
    if (capacity <= c->capacity && c->owner_j && !forces_missing) return 0;
    if (capacity < c->capacity) capacity = c->capacity;
    if (capacity > CONTACT_MAX_PAIRS) return -1;
    if (capacity < 16) capacity = 16;
    int all = !c->configured, whole = !c->history_only;
    GROW(c->owner_j, capacity);
    GROW(c->touching, capacity);
    if (all || c->has_impact) GROW(c->impact_velocity, capacity);
    for (int k = 0; k < (all ? LAW_MAX_HISTORY : c->n_history); k++) GROW(c->history[k], capacity);
    for (int a = 0; a < 3; a++) {
        if (all || c->has_friction) GROW(c->tangential[a], capacity);
        if (all || c->has_rolling) GROW(c->rolling[a], capacity);
    }
    if (all || c->has_friction) GROW(c->coulomb_margin, capacity);
    for (int h = 0; h < CONTACT_SLIP_HISTORY && (all || c->has_slip); h++) GROW(c->slip[h], capacity);
    for (int a = 0; a < 3 && holds_forces(c); a++) GROW(c->force[a], capacity);
    if (whole) {
        GROW(c->i, capacity); GROW(c->j, capacity);
        for (int a = 0; a < 3 && (all || (c->has_friction && c->is_wall)); a++)
            GROW(c->torque[a], capacity);
        if (all || c->is_wall) GROW(c->overlap, capacity);
        if (all || !c->is_wall) GROW(c->cross_slot, capacity);
    }
    c->capacity = capacity;
    return 0;
}

int contact_list_record_forces(contact_list *c, int on)
{
    if (c->is_wall || c->history_only || !c->configured) return 0; /* they hold them always */
    c->records_forces = on != 0;
    if (!on) {
        for (int a = 0; a < 3; a++) { field_free(c->force[a]); c->force[a] = NULL; }
        return 0;
    }
    if (c->force[0] || c->capacity == 0) return 0; /* recording, or the first reserve allocates */
    for (int a = 0; a < 3; a++) {
        c->force[a] = field_realloc(NULL, c->capacity * sizeof(double));
        if (!c->force[a]) {
            contact_list_record_forces(c, 0);
            return -1;
        }
        memset(c->force[a], 0, c->n * sizeof(double));
    }
    return 0;
}

/* Copies pair k of `from` to entry m of `to`: its other end and its history. */
static void copy_history(contact_list *to, size_t m, const contact_list *from, size_t k)
{
    to->owner_j[m] = from->owner_j[k];
    to->touching[m] = from->touching[k];
    /* the last force, where `to` keeps it (contact_list.keeps_forces) */
    for (int a = 0; a < 3 && to->force[0] && from->force[0]; a++) to->force[a][m] = from->force[a][k];
    if (to->impact_velocity) to->impact_velocity[m] = from->impact_velocity[k];
    for (int h = 0; h < LAW_MAX_HISTORY && to->history[h]; h++) to->history[h][m] = from->history[h][k];
    for (int a = 0; a < 3 && to->tangential[0]; a++) to->tangential[a][m] = from->tangential[a][k];
    if (to->coulomb_margin) to->coulomb_margin[m] = from->coulomb_margin[k];
    for (int a = 0; a < 3 && to->rolling[0]; a++) to->rolling[a][m] = from->rolling[a][k];
    for (int h = 0; h < CONTACT_SLIP_HISTORY && to->slip[0]; h++) to->slip[h][m] = from->slip[h][k];
}

/* Particles per segment of contact_list_keep_touching: segments are counted, then
 * copied, in parallel; the carrier's order is the list's whatever the threads. */
#define KEEP_SEGMENT 1024

/* contact_list_keep_touching and, with ids, the carried pairs' keys. */
static int keep_touching(contact_list *carry, const contact_list *c, const int64_t *ids);

int contact_list_keep_touching(contact_list *carry, const contact_list *c)
{
    return keep_touching(carry, c, NULL);
}

int contact_list_keep_touching_by_id(contact_list *carry, const contact_list *c,
                                     const int64_t *ids)
{
    return keep_touching(carry, c, ids);
}

static int keep_touching(contact_list *carry, const contact_list *c, const int64_t *ids)
{
    carry->keeps_forces = ids != NULL && c->force[0] != NULL;
    if (!carry->keeps_forces) /* (kept while the list recorded) */
        for (int a = 0; a < 3; a++) { field_free(carry->force[a]); carry->force[a] = NULL; }
    size_t n_seg = (c->n_first + KEEP_SEGMENT - 1) / KEEP_SEGMENT;
    size_t *seg_first = malloc((n_seg + 1) * sizeof *seg_first);
    uint32_t *first = realloc(carry->first_of_i, (c->n_first + 1) * sizeof *first);
    if (!seg_first || !first) {
        free(seg_first);
        if (first) carry->first_of_i = first;
        return -1;
    }
    carry->first_of_i = first;
    seg_first[0] = 0;
    #pragma omp parallel for schedule(static) if (n_seg > 1)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * KEEP_SEGMENT, hi = lo + KEEP_SEGMENT < c->n_first ? lo + KEEP_SEGMENT : c->n_first;
        size_t m = 0;
        for (size_t k = c->first_of_i[lo]; k < c->first_of_i[hi]; k++) m += c->touching[k] != 0;
        seg_first[g + 1] = m;
    }
    for (size_t g = 0; g < n_seg; g++) seg_first[g + 1] += seg_first[g];
    size_t n = seg_first[n_seg];
    if (contact_list_reserve(carry, n + n / 8) != 0) {
        free(seg_first);
        return -1;
    }
    if (ids) {
        int64_t *ki = realloc(carry->key_i, (n + 1) * sizeof *ki);
        if (ki) carry->key_i = ki;
        int64_t *kj = ki ? realloc(carry->key_j, (n + 1) * sizeof *kj) : NULL;
        if (kj) carry->key_j = kj;
        if (!ki || !kj) {
            free(seg_first);
            return -1;
        }
    }
    #pragma omp parallel for schedule(static) if (n_seg > 1)
    for (size_t g = 0; g < n_seg; g++) {
        size_t lo = g * KEEP_SEGMENT, hi = lo + KEEP_SEGMENT < c->n_first ? lo + KEEP_SEGMENT : c->n_first;
        size_t m = seg_first[g];
        for (size_t p = lo; p < hi; p++) {
            first[p] = (uint32_t)m;
            for (size_t k = c->first_of_i[p]; k < c->first_of_i[p + 1]; k++) {
                if (!c->touching[k]) continue;
                if (ids) {
                    carry->key_i[m] = ids[p];
                    carry->key_j[m] = c->is_wall ? (int64_t)c->owner_j[k] : ids[c->owner_j[k]];
                }
                copy_history(carry, m++, c, k);
            }
        }
    }
    first[c->n_first] = (uint32_t)n;
    carry->n = n;
    carry->n_first = c->n_first;
    free(seg_first);
    return 0;
}

/* Whether pair k of particle i's block [lo, hi) is a cross pair (contact_list_index_cross):
 * with `all` (ordered by ids), every pair is one. */
static int is_cross(const contact_list *c, size_t k, uint32_t lo, uint32_t hi, int all)
{
    return all || c->owner_j[k] < lo || c->owner_j[k] >= hi;
}

/* Sorts the cross entries [lo, hi) of one particle by the id of the pair's particle i
 * (insertion sort: a particle has a handful), renumbering their cross slots. */
static void order_by_partner(contact_list *c, size_t lo, size_t hi, const int64_t *ids)
{
    for (size_t q = lo + 1; q < hi; q++) {
        uint32_t k = c->cross_pair[q];
        int64_t key = ids[c->i[k]];
        size_t r = q;
        for (; r > lo && ids[c->i[c->cross_pair[r - 1]]] > key; r--)
            c->cross_pair[r] = c->cross_pair[r - 1];
        c->cross_pair[r] = k;
    }
    for (size_t q = lo; q < hi; q++) c->cross_slot[c->cross_pair[q]] = (uint32_t)q;
}

/* Room for n cross pairs. Returns 0 or -1. */
static int reserve_cross(contact_list *c, size_t n)
{
    if (n <= c->cross_capacity && c->cross_pair) return 0;
    size_t capacity = n + n / 8 + 16;
    GROW(c->cross_pair, capacity);
    for (int a = 0; a < 3; a++) GROW(c->cross_force[a], capacity);
    for (int a = 0; a < 3 && (!c->configured || c->has_friction); a++)
        GROW(c->cross_torque[a], capacity);
    c->cross_capacity = capacity;
    return 0;
}

int contact_list_index_cross(contact_list *c, size_t n_particles, size_t block,
                             const int64_t *ids)
{
    const int all = ids != NULL;
    uint32_t *first = realloc(c->cross_first, (n_particles + 1) * sizeof *first);
    if (!first) return -1;
    c->cross_first = first;
    c->block = block;
    c->by_id = all;
    memset(first, 0, (n_particles + 1) * sizeof *first);
    /* Blocks in parallel: each marks its pairs within the block and lists its cross
     * pairs (those whose owner_j is outside it) in list order, at its own offset; the
     * few cross pairs are then sorted by owner, keeping list order (a counting sort):
     * the same index for any number of threads. */
    size_t n_blocks = (c->n_first + block - 1) / block;
    size_t *block_first = malloc((n_blocks + 1) * sizeof *block_first);
    if (!block_first) return -1;
    block_first[0] = 0;
    #pragma omp parallel for schedule(static) if (n_blocks > 1)
    for (size_t b = 0; b < n_blocks; b++) {
        uint32_t lo = (uint32_t)(b * block), hi = (uint32_t)(lo + block);
        size_t last = hi < c->n_first ? hi : c->n_first, n = 0;
        for (size_t k = c->first_of_i[lo]; k < c->first_of_i[last]; k++) n += is_cross(c, k, lo, hi, all);
        block_first[b + 1] = n;
    }
    for (size_t b = 0; b < n_blocks; b++) block_first[b + 1] += block_first[b];
    size_t n = block_first[n_blocks];
    uint32_t *in_list_order = malloc((n ? n : 1) * sizeof *in_list_order);
    uint32_t *fill = malloc((n_particles + 1) * sizeof *fill);
    if (!in_list_order || !fill || reserve_cross(c, n) != 0) {
        free(block_first); free(in_list_order); free(fill);
        return -1;
    }
    #pragma omp parallel for schedule(static) if (n_blocks > 1)
    for (size_t b = 0; b < n_blocks; b++) {
        uint32_t lo = (uint32_t)(b * block), hi = (uint32_t)(lo + block);
        size_t last = hi < c->n_first ? hi : c->n_first, q = block_first[b];
        for (size_t k = c->first_of_i[lo]; k < c->first_of_i[last]; k++) {
            if (is_cross(c, k, lo, hi, all)) in_list_order[q++] = (uint32_t)k;
            else c->cross_slot[k] = CONTACT_SAME_BLOCK;
        }
    }
    free(block_first);
    for (size_t q = 0; q < n; q++) first[c->owner_j[in_list_order[q]] + 1]++;
    for (size_t p = 0; p < n_particles; p++) first[p + 1] += first[p];
    c->n_cross = n;
    memcpy(fill, first, (n_particles + 1) * sizeof *fill);
    for (size_t t = 0; t < n; t++) {
        uint32_t k = in_list_order[t];
        size_t q = fill[c->owner_j[k]]++;
        c->cross_pair[q] = k;
        c->cross_slot[k] = (uint32_t)q;
    }
    free(in_list_order);
    free(fill);
    if (all) {
        #pragma omp parallel for schedule(static) if (n_particles > 4096)
        for (size_t p = 0; p < n_particles; p++) order_by_partner(c, first[p], first[p + 1], ids);
    }
    for (int a = 0; a < 3; a++) memset(c->cross_force[a], 0, n * sizeof(double));
    for (int a = 0; a < 3 && c->cross_torque[a]; a++) memset(c->cross_torque[a], 0, n * sizeof(double));
    return 0;
}

void contact_clear_history(contact_list *c, size_t k)
{
    c->touching[k] = 0;
    if (c->impact_velocity) c->impact_velocity[k] = 0.0;
    for (int h = 0; h < LAW_MAX_HISTORY && c->history[h]; h++) c->history[h][k] = 0.0;
    for (int a = 0; a < 3 && c->tangential[0]; a++) c->tangential[a][k] = 0.0;
    if (c->coulomb_margin) c->coulomb_margin[k] = 0.0;
    for (int a = 0; a < 3 && c->rolling[0]; a++) c->rolling[a][k] = 0.0;
    for (int h = 0; h < CONTACT_SLIP_HISTORY && c->slip[0]; h++) c->slip[h][k] = 0.0;
}

void contact_list_adopt_history(contact_list *c, const contact_list *old, int parallel,
                                const size_t *from)
{
    #pragma omp parallel for schedule(static) if (parallel)
    for (size_t p = 0; p < c->n_first; p++) {
        size_t was = from ? from[p] : p; /* p's index in the old list */
        for (size_t k = c->first_of_i[p]; k < c->first_of_i[p + 1]; k++) {
            contact_clear_history(c, k);
            /* where old keeps the pair: a wall pair under its particle, a particle pair
             * under its lower-indexed particle, which renumbering may have made the
             * other one (flip: i and j swapped) */
            size_t first = was, second = c->owner_j[k];
            int flip = 0;
            if (!c->is_wall) {
                size_t other = from ? from[c->owner_j[k]] : c->owner_j[k];
                flip = other < was;
                first = flip ? other : was;
                second = flip ? was : other;
            }
            if (first >= old->n_first) continue;
            for (size_t m = old->first_of_i[first]; m < old->first_of_i[first + 1]; m++) {
                if (old->owner_j[m] != second || !old->touching[m]) continue;
                c->touching[k] = old->touching[m];
                if (c->impact_velocity) c->impact_velocity[k] = old->impact_velocity[m];
                for (int h = 0; h < LAW_MAX_HISTORY && c->history[h]; h++)
                    c->history[h][k] = old->history[h][m];
                /* the springs are j's relative to i's: swapped pairs turn them round (the
                 * law's slots and the microslip state are the same from either side) */
                double sign = flip ? -1.0 : 1.0;
                for (int a = 0; a < 3 && c->tangential[0]; a++)
                    c->tangential[a][k] = sign * old->tangential[a][m];
                if (c->coulomb_margin) c->coulomb_margin[k] = old->coulomb_margin[m];
                for (int a = 0; a < 3 && c->rolling[0]; a++)
                    c->rolling[a][k] = sign * old->rolling[a][m];
                for (int h = 0; h < CONTACT_SLIP_HISTORY && c->slip[0]; h++)
                    c->slip[h][k] = old->slip[h][m];
                break;
            }
        }
    }
}

/* Moves entry `from` to `to` (to <= from), every per-pair array. */
static void move_entry(contact_list *c, size_t to, size_t from)
{
    copy_history(c, to, c, from);
    c->i[to] = c->i[from]; c->j[to] = c->j[from];
    if (c->overlap) c->overlap[to] = c->overlap[from];
    for (int a = 0; a < 3 && c->force[0]; a++) c->force[a][to] = c->force[a][from];
    for (int a = 0; a < 3 && c->torque[0]; a++) c->torque[a][to] = c->torque[a][from];
}

/* A carried pair's keys and place (contact_list_adopt_by_id sorts them). */
typedef struct keyed_pair {
    int64_t key_i, key_j;
    size_t m;
} keyed_pair;

static int by_keys(const void *a, const void *b)
{
    const keyed_pair *p = a, *q = b;
    if (p->key_i != q->key_i) return p->key_i < q->key_i ? -1 : 1;
    return p->key_j < q->key_j ? -1 : p->key_j > q->key_j;
}

int contact_list_adopt_by_id(contact_list *c, const contact_list *old, const int64_t *ids,
                             int parallel)
{
    keyed_pair *order = malloc((old->n + 1) * sizeof *order);
    if (!order) return -1;
    for (size_t m = 0; m < old->n; m++)
        order[m] = (keyed_pair){.key_i = old->key_i[m], .key_j = old->key_j[m], .m = m};
    qsort(order, old->n, sizeof *order, by_keys);
    #pragma omp parallel for schedule(static) if (parallel)
    for (size_t p = 0; p < c->n_first; p++)
        for (size_t k = c->first_of_i[p]; k < c->first_of_i[p + 1]; k++) {
            contact_clear_history(c, k);
            keyed_pair want = {.key_i = ids[p],
                               .key_j = c->is_wall ? (int64_t)c->owner_j[k] : ids[c->owner_j[k]]};
            const keyed_pair *hit = bsearch(&want, order, old->n, sizeof *order, by_keys);
            if (!hit) continue;
            uint32_t other = c->owner_j[k]; /* copy_history takes the carrier's owner_j */
            copy_history(c, k, old, hit->m);
            c->owner_j[k] = other;
        }
    free(order);
    return 0;
}

void contact_list_remap(contact_list *c, const int64_t *new_index, size_t n_particles,
                        int is_wall)
{
    size_t kept = 0;
    for (size_t k = 0; k < c->n; k++) {
        int64_t i = new_index[c->i[k]];
        int64_t j = is_wall ? (int64_t)c->owner_j[k] : new_index[c->owner_j[k]];
        if (i < 0 || j < 0) continue;
        if (kept != k) move_entry(c, kept, k);
        c->i[kept] = (uint32_t)i;
        c->owner_j[kept] = (uint32_t)j;
        kept++;
    }
    c->n = kept;
    /* i is still non-decreasing (removal keeps the particles' order): recount */
    for (size_t p = 0; p <= n_particles; p++) c->first_of_i[p] = 0;
    for (size_t k = 0; k < c->n; k++) c->first_of_i[c->i[k] + 1]++;
    for (size_t p = 0; p < n_particles; p++) c->first_of_i[p + 1] += c->first_of_i[p];
    c->n_first = n_particles;
}

size_t contact_carried_width(const contact_list *c)
{
    return 3 + (size_t)(c->has_impact != 0) + (size_t)c->n_history + 4 * (size_t)(c->has_friction != 0) +
           3 * (size_t)(c->has_rolling != 0) + CONTACT_SLIP_HISTORY * (size_t)(c->has_slip != 0);
}

void contact_carried_pack(const contact_list *c, size_t m, double *out)
{
    size_t q = 0;
    memcpy(&out[q++], &c->key_i[m], sizeof(double));
    memcpy(&out[q++], &c->key_j[m], sizeof(double));
    out[q++] = c->touching[m];
    if (c->has_impact) out[q++] = c->impact_velocity[m];
    for (int h = 0; h < c->n_history; h++) out[q++] = c->history[h][m];
    for (int a = 0; a < 3 && c->has_friction; a++) out[q++] = c->tangential[a][m];
    if (c->has_friction) out[q++] = c->coulomb_margin[m];
    for (int a = 0; a < 3 && c->has_rolling; a++) out[q++] = c->rolling[a][m];
    for (int h = 0; h < CONTACT_SLIP_HISTORY && c->has_slip; h++) out[q++] = c->slip[h][m];
}

int contact_carried_reserve(contact_list *c, size_t extra)
{
    size_t need = c->n + extra;
    if (contact_list_reserve(c, need) != 0) return -1;
    int64_t *ki = realloc(c->key_i, (need + 1) * sizeof *ki);
    if (!ki) return -1;
    c->key_i = ki;
    int64_t *kj = realloc(c->key_j, (need + 1) * sizeof *kj);
    if (!kj) return -1;
    c->key_j = kj;
    return 0;
}

void contact_carried_append(contact_list *c, const double *in)
{
    size_t m = c->n++, q = 0;
    memcpy(&c->key_i[m], &in[q++], sizeof(double));
    memcpy(&c->key_j[m], &in[q++], sizeof(double));
    c->touching[m] = (uint8_t)in[q++];
    c->owner_j[m] = c->is_wall ? (uint32_t)c->key_j[m] : 0; /* a particle's is unread */
    if (c->has_impact) c->impact_velocity[m] = in[q++];
    for (int h = 0; h < c->n_history; h++) c->history[h][m] = in[q++];
    for (int a = 0; a < 3 && c->has_friction; a++) c->tangential[a][m] = in[q++];
    if (c->has_friction) c->coulomb_margin[m] = in[q++];
    for (int a = 0; a < 3 && c->has_rolling; a++) c->rolling[a][m] = in[q++];
    for (int h = 0; h < CONTACT_SLIP_HISTORY && c->has_slip; h++) c->slip[h][m] = in[q++];
}
