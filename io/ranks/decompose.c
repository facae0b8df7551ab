/* The split of the particles over the ranks (decompose.h), through Zoltan. */
#include "decompose.h"
#include "engine/fail.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <zoltan.h>

/* What Zoltan's callbacks read: the particles this rank hands it (every n_ranks-th, so
 * that the partition really moves particles between ranks) and their weights. */
typedef struct zoltan_input {
    const sim *s;
    size_t *index;   /* the particles this rank holds */
    size_t n;
    float *weight;
    /* A case without particles (yet: inlets fill it) splits its domain: objects n ..
     * n + grid^3 - 1 stand in at the centres of grid^3 equal cells over it, weight 1
     * each (rank 0's), and RCB cuts the domain into boxes of equal volume. */
    long grid;
} zoltan_input;

static size_t stand_ins(const zoltan_input *in)
{
    return (size_t)(in->grid * in->grid * in->grid);
}

/* Stand-in k's position (zoltan_input.grid). */
static void stand_in_at(const zoltan_input *in, size_t k, double *x)
{
    const sim_config *cfg = &in->s->cfg;
    size_t at[3] = {k % (size_t)in->grid, k / (size_t)in->grid % (size_t)in->grid,
                    k / (size_t)in->grid / (size_t)in->grid};
    for (int a = 0; a < 3; a++)
        x[a] = cfg->domain_min[a] +
               ((double)at[a] + 0.5) / (double)in->grid * (cfg->domain_max[a] - cfg->domain_min[a]);
}

static int count_objects(void *data, int *ierr)
{
    *ierr = ZOLTAN_OK;
    const zoltan_input *in = data;
    return (int)(in->n + stand_ins(in));
}

static void list_objects(void *data, int n_gid, int n_lid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                         int weight_dim, float *weights, int *ierr)
{
    const zoltan_input *in = data;
    for (size_t q = 0; q < in->n; q++) {
        gids[q] = (ZOLTAN_ID_TYPE)in->s->p.id[in->index[q]];
        lids[q] = (ZOLTAN_ID_TYPE)q;
        if (weight_dim == 1) weights[q] = in->weight[in->index[q]];
    }
    for (size_t q = in->n; q < in->n + stand_ins(in); q++) { /* (no particle ids to clash) */
        gids[q] = lids[q] = (ZOLTAN_ID_TYPE)q;
        if (weight_dim == 1) weights[q] = 1.0f;
    }
    (void)n_gid;
    (void)n_lid;
    *ierr = ZOLTAN_OK;
}

static int count_dimensions(void *data, int *ierr)
{
    (void)data;
    *ierr = ZOLTAN_OK;
    return 3;
}

static void list_positions(void *data, int n_gid, int n_lid, int n, ZOLTAN_ID_PTR gids,
                           ZOLTAN_ID_PTR lids, int dim, double *xyz, int *ierr)
{
    const zoltan_input *in = data;
    const particle_store *p = &in->s->p;
    for (int q = 0; q < n; q++) {
        if (lids[q] >= in->n) {
            stand_in_at(in, lids[q] - in->n, &xyz[dim * q]);
            continue;
        }
        size_t i = in->index[lids[q]];
        xyz[dim * q] = p->x[i];
        xyz[dim * q + 1] = p->y[i];
        xyz[dim * q + 2] = p->z[i];
    }
    (void)n_gid;
    (void)n_lid;
    (void)gids;
    *ierr = ZOLTAN_OK;
}

/* A particle's work in the force loop: one, plus one per contact that holds a force
 * (a pair counts for both its particles; the snapshots' n_contacts). Each own particle's
 * into w (or, w NULL, only their sum); returns the sum over them. */
static double particle_work_into(const sim *s, float *w)
{
    const particle_store *p = &s->p;
    double total = (double)p->n_local;
    if (w)
        for (size_t i = 0; i < p->n_local; i++) w[i] = 1.0f;
    const contact_list *lists[2] = {&s->pairs, &s->wall_pairs};
    for (int L = 0; L < 2; L++)
        for (size_t k = 0; k < lists[L]->n; k++) {
            const contact_list *c = lists[L];
            if (!contact_holds_force(c->touching[k])) continue;
            size_t ends[2] = {c->i[k], c->is_wall ? p->n_local : c->owner_j[k]};
            for (int e = 0; e < 2; e++)
                if (ends[e] < p->n_local) { /* not another rank's */
                    total += 1.0;
                    if (w) w[ends[e]] += 1.0f;
                }
        }
    return total;
}

static float *particle_work(const sim *s)
{
    float *w = malloc((s->p.n_local + 1) * sizeof *w);
    if (w) particle_work_into(s, w);
    return w;
}

double decompose_work_imbalance(const sim *s)
{
    int n_ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    double mine = particle_work_into(s, NULL), most, sum;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum > 0.0 ? most / (sum / n_ranks) : 1.0;
}

static const char *method_name(partition_method m)
{
    return m == PARTITION_RIB ? "RIB" : m == PARTITION_HSFC ? "HSFC" : "RCB";
}

/* Zoltan's cut box of part r (RCB), clipped to the domain (Zoltan leaves the outer sides
 * open: +-DBL_MAX). */
static void cut_box(struct Zoltan_Struct *zz, const sim *s, int r, rank_share *sh)
{
    int ndim = 0;
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        sh->cut_lo[a] = s->cfg.domain_min[a];
        sh->cut_hi[a] = s->cfg.domain_max[a];
    }
    if (Zoltan_RCB_Box(zz, r, &ndim, &lo[0], &lo[1], &lo[2], &hi[0], &hi[1], &hi[2]) != ZOLTAN_OK)
        return;
    for (int a = 0; a < 3; a++) {
        sh->cut_lo[a] = fmax(lo[a], s->cfg.domain_min[a]);
        sh->cut_hi[a] = fmin(hi[a], s->cfg.domain_max[a]);
    }
}

/* decompose, and halo.h's rebalancing: `own_only`, each rank holds its own particles
 * (a split run) rather than all of them. */
static int split(const sim *s, decomposition *d, int own_only, char *err, size_t err_len);

int decompose(const sim *s, decomposition *d, char *err, size_t err_len)
{
    return split(s, d, 0, err, err_len);
}

int decompose_again(const sim *s, decomposition *d, char *err, size_t err_len)
{
    return split(s, d, 1, err, err_len);
}

static int split(const sim *s, decomposition *d, int own_only, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    int self = 0, n_ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &self);
    MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
    const particle_store *p = &s->p;
    zoltan_input in = {.s = s};
    size_t room = own_only ? p->n_local + 1 : p->n_local / (size_t)n_ranks + 2;
    in.index = malloc(room * sizeof *in.index);
    in.weight = particle_work(s);
    d->share = calloc((size_t)n_ranks, sizeof *d->share);
    int *dest = malloc(room * sizeof *dest);
    size_t nr = (size_t)n_ranks;
    double *sums = calloc(2 * nr, sizeof *sums), *box = malloc(6 * nr * sizeof *box);
    /* every rank goes on to the collective calls, or none does */
    int have = in.index && in.weight && d->share && dest && sums && box, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_have) {
        free(in.index); free(in.weight); free(dest); free(sums); free(box);
        free(d->share);
        d->share = NULL;
        snprintf(err, err_len, "out of memory");
        return FAIL_NO_MEMORY;
    }
    const size_t first = own_only ? 0 : (size_t)self, stride = own_only ? 1 : (size_t)n_ranks;
    for (size_t i = first; i < p->n_local; i += stride) in.index[in.n++] = i;
    for (size_t q = 0; q < in.n; q++) dest[q] = self;
    unsigned long long everywhere = p->n_local;
    if (own_only)
        MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (everywhere == 0 && self == 0) /* at least 64 stand-ins per rank */
        for (in.grid = 16; in.grid * in.grid * in.grid < 64L * n_ranks; in.grid *= 2) {}

    static int initialised = 0;
    float version;
    if (!initialised && Zoltan_Initialize(0, NULL, &version) == ZOLTAN_OK) initialised = 1;
    struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
    char parts[32];
    snprintf(parts, sizeof parts, "%d", n_ranks);
    Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
    Zoltan_Set_Param(zz, "LB_METHOD", method_name(s->cfg.partition));
    Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", "1");
    Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "1");
    Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
    Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", parts);
    Zoltan_Set_Param(zz, "RETURN_LISTS", "EXPORT");
    Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.05");
    Zoltan_Set_Param(zz, "KEEP_CUTS", "1");
    /* RCB: centres on a cut all go to one side, so that a rank owns exactly the centres
     * in its box (by default Zoltan may split them to balance better) */
    Zoltan_Set_Param(zz, "RCB_RECTILINEAR_BLOCKS", "1");
    Zoltan_Set_Num_Obj_Fn(zz, count_objects, &in);
    Zoltan_Set_Obj_List_Fn(zz, list_objects, &in);
    Zoltan_Set_Num_Geom_Fn(zz, count_dimensions, &in);
    Zoltan_Set_Geom_Multi_Fn(zz, list_positions, &in);
    int changes, n_gid, n_lid, n_import, n_export;
    ZOLTAN_ID_PTR import_gids = NULL, import_lids = NULL, export_gids = NULL, export_lids = NULL;
    int *import_procs = NULL, *import_parts = NULL, *export_procs = NULL, *export_parts = NULL;
    int rc = Zoltan_LB_Partition(zz, &changes, &n_gid, &n_lid, &n_import, &import_gids,
                                 &import_lids, &import_procs, &import_parts, &n_export,
                                 &export_gids, &export_lids, &export_procs, &export_parts);
    int ok = rc == ZOLTAN_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_ok) {
        for (int q = 0; q < n_export; q++)
            if (export_lids[q] < in.n) dest[export_lids[q]] = export_parts[q]; /* (not a stand-in) */
        /* this rank's sums of what each rank gets, then the sums over all ranks */
        for (size_t r = 0; r < nr; r++)
            for (int a = 0; a < 3; a++) box[6 * r + a] = box[6 * r + 3 + a] = HUGE_VAL;
        for (size_t q = 0; q < in.n; q++) {
            size_t i = in.index[q], r = (size_t)dest[q];
            const double x[3] = {p->x[i], p->y[i], p->z[i]};
            sums[2 * r] += 1.0;
            sums[2 * r + 1] += in.weight[i];
            for (int a = 0; a < 3; a++) {
                box[6 * r + a] = fmin(box[6 * r + a], x[a]);       /* lo */
                box[6 * r + 3 + a] = fmin(box[6 * r + 3 + a], -x[a]); /* -hi */
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, sums, 2 * n_ranks, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, box, 6 * n_ranks, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        double largest = 0.0, total = 0.0;
        for (size_t r = 0; r < nr; r++) {
            rank_share *sh = &d->share[r];
            sh->particles = (size_t)sums[2 * r];
            sh->weight = sums[2 * r + 1];
            for (int a = 0; a < 3; a++) {
                sh->lo[a] = box[6 * r + a];
                sh->hi[a] = -box[6 * r + 3 + a];
            }
            if (s->cfg.partition == PARTITION_RCB) cut_box(zz, s, (int)r, sh);
            largest = fmax(largest, sh->weight);
            total += sh->weight;
        }
        d->imbalance = total > 0.0 ? largest / (total / n_ranks) : 1.0;
    }
    free(sums);
    free(box);
    Zoltan_LB_Free_Part(&import_gids, &import_lids, &import_procs, &import_parts);
    Zoltan_LB_Free_Part(&export_gids, &export_lids, &export_procs, &export_parts);
    free(in.index);
    free(in.weight);
    free(dest);
    if (!all_ok) {
        Zoltan_Destroy(&zz);
        free(d->share);
        d->share = NULL;
        snprintf(err, err_len, "parallel: Zoltan could not partition the particles (%s)",
                 method_name(s->cfg.partition));
        return -1;
    }
    d->n_ranks = n_ranks;
    d->method = s->cfg.partition;
    d->zoltan = zz; /* its callbacks point at `in`, gone now: only its cuts are used */
    return 0;
}

int decompose_check(const sim *s, const decomposition *d, char *err, size_t err_len)
{
    const double cut = s->cutoff;
    double cells = 1.0;
    for (int a = 0; a < 3; a++)
        cells *= fmax(1.0, floor((s->cfg.domain_max[a] - s->cfg.domain_min[a]) / cut));
    if ((double)d->n_ranks > cells) {
        snprintf(err, err_len, "parallel: %d ranks for a domain of %.0f neighbour cells (cells "
                 "of the cutoff, %g m: the largest diameter plus the skin); use at most %.0f",
                 d->n_ranks, cells, cut, cells);
        return -1;
    }
    if (d->method != PARTITION_RCB) return 0;
    for (int r = 0; r < d->n_ranks; r++)
        for (int a = 0; a < 3; a++) {
            const rank_share *sh = &d->share[r];
            double width = sh->cut_hi[a] - sh->cut_lo[a];
            int was_cut = sh->cut_lo[a] > s->cfg.domain_min[a] || sh->cut_hi[a] < s->cfg.domain_max[a];
            if (was_cut && width < cut) {
                snprintf(err, err_len, "parallel: rank %d's sub-domain is %g m wide along %c, "
                         "less than the cutoff %g m (the largest diameter plus the skin): its "
                         "ghosts would come from beyond its neighbours; use fewer ranks",
                         r, width, "xyz"[a], cut);
                return -1;
            }
        }
    return 0;
}

/* The sub-domains to the last bit (a centre on a cut belongs to the part below it). */
void decompose_print(FILE *out, const decomposition *d)
{
    fprintf(out, "  ranks      %d, split by %s (Zoltan), weighted by 1 + contacts per particle: "
                 "imbalance %.3f (largest over mean)\n",
            d->n_ranks, method_name(d->method), d->imbalance);
    for (int r = 0; r < d->n_ranks; r++) {
        const rank_share *sh = &d->share[r];
        fprintf(out, "    rank %-4d %zu particles, weight %g", r, sh->particles, sh->weight);
        if (d->method == PARTITION_RCB)
            fprintf(out, ", sub-domain [%.17g, %.17g] x [%.17g, %.17g] x [%.17g, %.17g] m", sh->cut_lo[0],
                    sh->cut_hi[0], sh->cut_lo[1], sh->cut_hi[1], sh->cut_lo[2], sh->cut_hi[2]);
        if (sh->particles > 0)
            fprintf(out, ", centres in [%.6g, %.6g] x [%.6g, %.6g] x [%.6g, %.6g] m", sh->lo[0],
                    sh->hi[0], sh->lo[1], sh->hi[1], sh->lo[2], sh->hi[2]);
        fputc('\n', out);
    }
}

void decompose_free(decomposition *d)
{
    if (d->zoltan) Zoltan_Destroy(&d->zoltan);
    free(d->share);
    memset(d, 0, sizeof *d);
}
