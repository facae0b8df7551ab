/* The restart snapshot checked whole, chunk by chunk (restart_arrays.c reads them,
 * restart_values.c checks their values), then restored into the engine: all of it in one
 * process, each rank's share on ranks. */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"
#include "h5_read.h"
#include "population_h5.h"
#include "engine/neighbours/ghosts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A snapshot checked whole (restart_check_state), chunk by chunk, open for the rows to
 * be kept (restart_restore_state). */
/* A failure agreed over the ranks (restart_share): the message and the failure value
 * of the lowest failing rank, on every rank. Returns whether any rank failed. */
static int agreed(const restart_file *f, const restart_share *share, int failed, char *err, size_t err_len)
{
    int no_memory = f->no_memory && *f->no_memory;
    int value = !failed ? 0 : no_memory ? FAIL_NO_MEMORY : FAIL_REFUSED;
    value = share->agree(value, err, err_len, share->ctx);
    if (value == FAIL_NO_MEMORY && f->no_memory) *f->no_memory = 1;
    return value != 0;
}

struct restart_state {
    const restart_file *f;
    hid_t g;
    int k;
    double time, dt;
    int64_t step;
    size_t n, mc;
    const column *pc;
    column cc[CONTACT_COLUMNS_MAX];
    int n_cc;
    snap_arrays kept;       /* in one process every row, read in place; the engine's
                               arrays (work, inlets, outlets) either way */
    snap_arrays chunk;      /* on ranks: one chunk of the snapshot */
    int64_t *ids;           /* every particle id, sorted (the contacts' check) */
    int64_t next_id;
    double rebuild_wall_time;
    uint8_t list_stale;
    int has_lees_edwards;   /* the case shears: engine@lees_edwards was read */
    double lees_edwards[SIM_LEES_EDWARDS_STATE];
};

void restart_state_free(restart_state *rs)
{
    if (!rs) return;
    restart_arrays_free(&rs->kept);
    restart_arrays_free(&rs->chunk);
    free(rs->ids);
    free(rs);
}

/* Every particle row, chunk by chunk: checked, its id kept (sorted after), and in one
 * process (keep) the row itself. */
static int check_particle_rows(restart_state *rs, const checker *c0, int keep, char *err, size_t err_len)
{
    checker c = *c0;
    for (size_t first = 0; first < rs->n; first += RESTART_CHUNK) {
        size_t count = rs->n - first < RESTART_CHUNK ? rs->n - first : RESTART_CHUNK;
        snap_arrays at = keep ? restart_shifted(&rs->kept, rs->pc, PARTICLE_COLUMNS, first) : rs->chunk;
        if (restart_read_chunk(rs->f, rs->k, rs->g, rs->pc, PARTICLE_COLUMNS, &at, first, count, err, err_len) < 0)
            return -1;
        c.first = first;
        if (restart_check_particles(&c, &at, count, rs->next_id) < 0) return -1;
        memcpy(rs->ids + first, at.id, count * sizeof *rs->ids);
        /* files written before engine@list_stale mark a list to rebuild with +inf */
        for (size_t q = 0; q < 3 * count && !rs->list_stale; q++)
            rs->list_stale = !isfinite(at.position_at_rebuild[q]);
    }
    qsort(rs->ids, rs->n, sizeof *rs->ids, restart_cmp_i64);
    return 0;
}

static int check_contact_rows(restart_state *rs, const checker *c0, int keep, char *err, size_t err_len)
{
    checker c = *c0;
    for (size_t first = 0; first < rs->mc; first += RESTART_CHUNK) {
        size_t count = rs->mc - first < RESTART_CHUNK ? rs->mc - first : RESTART_CHUNK;
        snap_arrays at = keep ? restart_shifted(&rs->kept, rs->cc, rs->n_cc, first) : rs->chunk;
        if (restart_read_chunk(rs->f, rs->k, rs->g, rs->cc, rs->n_cc, &at, first, count, err, err_len) < 0) return -1;
        c.first = first;
        if (restart_check_contacts(&c, &at, rs->ids, rs->n, count) < 0) return -1;
    }
    return 0;
}

int restart_check_state(const restart_file *f, hid_t g, const restart_point *rp, sim *s, int keep,
                        restart_state **out, char *err, size_t err_len)
{
    *out = NULL;
    int k = rp->index;
    snapshot_meta m;
    char why[512];
    if (snapshot_meta_read(g, f->format, &m, why, sizeof why) < 0)
        return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
    if (H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 || H5Lexists(g, "engine", H5P_DEFAULT) <= 0)
        return restart_refuse(f, err, err_len, "snapshot %d has no %s group (not written by this version of "
                              "dempact?)", k, H5Lexists(g, "contacts", H5P_DEFAULT) <= 0 ? "contacts" : "engine");
    restart_state *rs = calloc(1, sizeof *rs);
    if (!rs) return restart_fail_memory(f, err, err_len, "out of memory");
    *rs = (restart_state){.f = f, .g = g, .k = k, .time = rp->time, .dt = rp->dt, .step = rp->step,
                          .n = (size_t)m.n_particles, .mc = (size_t)m.n_contacts, .next_id = -1,
                          .rebuild_wall_time = NAN};
    rs->pc = restart_particle_columns;
    rs->n_cc = restart_contact_columns(g, rs->cc);
    int rc = -1;
    if (restart_check_shapes(f, k, g, rs->pc, PARTICLE_COLUMNS, rs->n, err, err_len) < 0 ||
        restart_check_shapes(f, k, g, rs->cc, rs->n_cc, rs->mc, err, err_len) < 0)
        goto done;
    snap_arrays *a = &rs->kept;
    size_t chunk = RESTART_CHUNK;
    if (!(rs->ids = malloc((rs->n + 1) * sizeof *rs->ids)) ||
        (keep ? restart_reserve_columns(a, rs->pc, PARTICLE_COLUMNS, rs->n) != 0 ||
                    restart_reserve_columns(a, rs->cc, rs->n_cc, rs->mc) != 0
              : restart_reserve_columns(&rs->chunk, rs->pc, PARTICLE_COLUMNS, chunk) != 0 ||
                    restart_reserve_columns(&rs->chunk, rs->cc, rs->n_cc, chunk) != 0)) {
        restart_fail_memory(f, err, err_len, "out of memory");
        goto done;
    }
    if (h5_read_attr(g, "engine", "next_id", H5T_NATIVE_INT64, &rs->next_id) < 0 ||
        h5_read_attr(g, "engine", "rebuild_wall_time", H5T_NATIVE_DOUBLE, &rs->rebuild_wall_time) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id or engine@rebuild_wall_time is "
                       "missing or unreadable", k);
        goto done;
    }
    /* the list to be rebuilt at the next step: engine@list_stale, or in files written
     * before it, a non-finite position_at_rebuild (check_particle_rows) */
    if (H5Aexists_by_name(g, "engine", "list_stale", H5P_DEFAULT) > 0 &&
        (h5_read_attr(g, "engine", "list_stale", H5T_NATIVE_UINT8, &rs->list_stale) < 0 ||
         rs->list_stale > 1)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@list_stale is unreadable or not 0 "
                       "or 1", k);
        goto done;
    }
    if (rs->next_id < 0 || rs->next_id > RESTART_MAX_ROWS * 2) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@next_id is %lld; it is in 0 .. 2^32", k,
                       (long long)rs->next_id);
        goto done;
    }
    if (s->cfg.lees_edwards.on) {
        int bad = H5Aexists_by_name(g, "engine", "lees_edwards", H5P_DEFAULT) <= 0 ||
                  h5_read_attr_n(g, "engine", "lees_edwards", H5T_NATIVE_DOUBLE,
                                 SIM_LEES_EDWARDS_STATE, rs->lees_edwards) < 0;
        for (int q = 0; q < SIM_LEES_EDWARDS_STATE && !bad; q++) bad = !isfinite(rs->lees_edwards[q]);
        rs->has_lees_edwards = 1;
        if (bad) {
            restart_refuse(f, err, err_len, "snapshot %d: attribute engine@lees_edwards (the shear's "
                           "offset and work) is missing, unreadable or not finite", k);
            goto done;
        }
    }
    double rwt = rs->rebuild_wall_time;
    if (!isnan(rwt) && (!isfinite(rwt) || rwt < 0.0 || rwt > rp->time)) {
        restart_refuse(f, err, err_len, "snapshot %d: attribute engine@rebuild_wall_time is %.17g s; it is in "
                       "0 .. the snapshot's time %.17g s (or NaN)", k, rwt, rp->time);
        goto done;
    }
    a->inlets_bytes = (size_t)s->cfg.n_inlets * sizeof *s->inlets;
    a->outlets_bytes = (size_t)s->cfg.n_outlets * sizeof *s->outlets;
#define READ(field, path, n_rows) \
    if (!(a->field = restart_read_array(f, k, g, path, H5T_NATIVE_DOUBLE, 8, n_rows, 0, err, err_len))) goto done
    READ(work, "engine/work", SIM_WORK_KINDS);
    if (s->walls.n > 0) READ(wall_work, "engine/wall_work", s->walls.n);
    if (s->walls.n > 0 && H5Lexists(g, "engine/wall_work_sum", H5P_DEFAULT) > 0) /* older files: none */
        READ(wall_work_sum, "engine/wall_work_sum", s->walls.n);
    if (walls_n_servo(&s->walls) > 0) { /* servo walls: their state, which nothing else gives */
        if (H5Lexists(g, "engine/wall_servo", H5P_DEFAULT) <= 0) {
            restart_refuse(f, err, err_len, "snapshot %d: engine/wall_servo is missing: the case has "
                           "servo walls, the snapshot not their state (another case?)", k);
            goto done;
        }
        if (!(a->wall_servo = restart_read_array(f, k, g, "engine/wall_servo", H5T_NATIVE_DOUBLE, 8,
                                                 s->walls.n, WALL_SERVO_STATE, err, err_len)))
            goto done;
    }
#undef READ
    if (!(a->inlets = malloc(a->inlets_bytes + 1)) || !(a->outlets = malloc(a->outlets_bytes + 1))) {
        restart_fail_memory(f, err, err_len, "out of memory");
        goto done;
    }
    if (population_h5_read_inlets(g, "engine/inlets", (inlet_state *)(void *)a->inlets,
                                  (size_t)s->cfg.n_inlets, why, sizeof why) < 0 ||
        population_h5_read_outlets(g, "engine/outlets", (outlet_state *)(void *)a->outlets,
                                   (size_t)s->cfg.n_outlets, why, sizeof why) < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        goto done;
    }
    double reach = 0.0;
    for (int ax = 0; ax < 3; ax++)
        reach += (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]) * (s->cfg.domain_max[ax] - s->cfg.domain_min[ax]);
    checker c = {f, k, s, sqrt(reach), err, err_len, 0};
    if (check_particle_rows(rs, &c, keep, err, err_len) < 0 || check_contact_rows(rs, &c, keep, err, err_len) < 0 ||
        restart_check_population(&c, a, rp->time, rs->next_id) < 0 ||
        restart_check_sums(&c, "engine/work", a->work, SIM_WORK_KINDS) < 0 ||
        restart_check_sums(&c, "engine/wall_work", a->wall_work, s->walls.n) < 0 ||
        restart_check_sums(&c, "engine/wall_work_sum", a->wall_work_sum, s->walls.n) < 0 ||
        restart_check_servo(&c, a->wall_servo, s->walls.n * WALL_SERVO_STATE) < 0)
        goto done;
    rc = 0;
done:
    if (rc == 0) *out = rs;
    else restart_state_free(rs);
    return rc;
}

/* The restart state of the rows a holds (n particles, mc contacts). */
static sim_restart_state state_of(const restart_state *rs, const snap_arrays *a, size_t n, size_t mc)
{
    sim_restart_state st = {.time = rs->time, .dt = rs->dt, .step = rs->step, .n = n, .id = a->id,
                            .type = a->type, .radius = a->radius, .mass = a->mass,
                            .position = a->position, .position_at_rebuild = a->position_at_rebuild,
                            .velocity = a->velocity, .angular_velocity = a->angular_velocity,
                            .force = a->force, .torque = a->torque, .n_contacts = mc,
                            .contact_id = a->contact_id, .contact_wall = a->contact_wall,
                            .contact_slot = a->contact_slot, .contact_ended = a->contact_ended,
                            .next_id = rs->next_id, .work = rs->kept.work,
                            .wall_work = rs->kept.wall_work, .wall_work_sum = rs->kept.wall_work_sum,
                            .wall_servo = rs->kept.wall_servo,
                            .inlets = rs->kept.inlets, .outlets = rs->kept.outlets,
                            .inlets_bytes = rs->kept.inlets_bytes, .outlets_bytes = rs->kept.outlets_bytes,
                            .rebuild_wall_time = rs->rebuild_wall_time, .list_stale = rs->list_stale,
                            .lees_edwards = rs->has_lees_edwards ? rs->lees_edwards : NULL};
    for (int h = 0; h < sim_n_pair_history; h++) st.history[h] = a->history[h];
    return st;
}

/* Where the replayed rebuild puts row r of a (restart_share): its position then, or
 * now if the list was stale, wrapped as a rebuild wraps it. */
static void replayed_at(const restart_state *rs, const sim *s, const snap_arrays *a, size_t r, double x[3])
{
    const double *from = rs->list_stale ? a->position : a->position_at_rebuild;
    for (int ax = 0; ax < 3; ax++) x[ax] = from[3 * r + ax];
    ghosts_wrap_point(s, x);
}

/* Appends the rows of the chunk (count rows) that `keep` marks to `to` (*n rows, room
 * for *cap), with their rows in the snapshot (first + q) to *rows. */
static int keep_rows(snap_arrays *to, size_t *n, size_t *cap, int64_t **rows, snap_arrays *chunk,
                     const column *c, int n_c, const uint8_t *keep, size_t first, size_t count)
{
    size_t add = 0;
    for (size_t q = 0; q < count; q++) add += keep[q];
    if (*n + add > *cap) {
        size_t room = *n + add + *n / 2 + 16;
        int64_t *more = realloc(*rows, room * sizeof *more);
        if (more) *rows = more;
        if (!more || restart_reserve_columns(to, c, n_c, room) != 0) return -1;
        *cap = room;
    }
    for (size_t q = 0; q < count; q++)
        if (keep[q]) {
            restart_copy_row(to, *n, chunk, q, c, n_c);
            (*rows)[(*n)++] = (int64_t)(first + q);
        }
    return 0;
}

/* On ranks: the split (restart_share.split) from each rank's block of rows, then the
 * rows of the particles this rank owns and of their contacts, restored. */
static int restore_share(restart_state *rs, sim *s, const restart_share *share, char *err, size_t err_len)
{
    const restart_file *f = rs->f;
    int k = rs->k, rc = -1;
    snap_arrays own = {0};
    int64_t *rows = NULL, *contact_rows = NULL, *own_ids = NULL;
    uint8_t *keep = malloc(RESTART_CHUNK);
    double *x = NULL;
    size_t n_own = 0, cap = 0, mc_own = 0, contact_cap = 0;
    /* this rank's block: rows n * r / N .. n * (r + 1) / N - 1 */
    size_t first = rs->n * (size_t)share->rank / (size_t)share->ranks;
    size_t count = rs->n * (size_t)(share->rank + 1) / (size_t)share->ranks - first;
    int failed = 0;
    for (size_t done = 0; !failed && done < count; done += RESTART_CHUNK) {
        size_t part = count - done < RESTART_CHUNK ? count - done : RESTART_CHUNK;
        double *more = realloc(x, 3 * (done + part) * sizeof *x);
        int64_t *ids = realloc(own_ids, (done + part + 1) * sizeof *ids);
        if (more) x = more;
        if (ids) own_ids = ids;
        if (!keep || !more || !ids) {
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
            break;
        }
        failed = restart_read_chunk(f, k, rs->g, rs->pc, PARTICLE_COLUMNS, &rs->chunk, first + done, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            replayed_at(rs, s, &rs->chunk, q, &x[3 * (done + q)]);
            own_ids[done + q] = rs->chunk.id[q];
        }
    }
    if (!failed && !keep) failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    char sub[1024] = "";
    /* (the split's message is its own: it names the case and parallel, not the file) */
    int split = share->split(s, own_ids, x, count, share->ctx, err, err_len);
    if (split == FAIL_NO_MEMORY && f->no_memory) *f->no_memory = 1;
    failed = split != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    free(x);
    x = NULL;
    free(own_ids);
    own_ids = NULL;
    /* the particles this rank owns, chunk by chunk */
    for (size_t at = 0; !failed && at < rs->n; at += RESTART_CHUNK) {
        size_t part = rs->n - at < RESTART_CHUNK ? rs->n - at : RESTART_CHUNK;
        failed = restart_read_chunk(f, k, rs->g, rs->pc, PARTICLE_COLUMNS, &rs->chunk, at, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            double p[3];
            replayed_at(rs, s, &rs->chunk, q, p);
            keep[q] = share->owns(p, share->ctx);
        }
        if (!failed && keep_rows(&own, &n_own, &cap, &rows, &rs->chunk, rs->pc, PARTICLE_COLUMNS, keep, at, part) != 0)
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    }
    /* their contacts: those of a pair with one of them, or with a wall */
    if (!failed && !(own_ids = malloc((n_own + 1) * sizeof *own_ids)))
        failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (!failed) {
        memcpy(own_ids, own.id, n_own * sizeof *own_ids);
        qsort(own_ids, n_own, sizeof *own_ids, restart_cmp_i64);
    }
    for (size_t at = 0; !failed && at < rs->mc; at += RESTART_CHUNK) {
        size_t part = rs->mc - at < RESTART_CHUNK ? rs->mc - at : RESTART_CHUNK;
        failed = restart_read_chunk(f, k, rs->g, rs->cc, rs->n_cc, &rs->chunk, at, part, err, err_len) < 0;
        for (size_t q = 0; !failed && q < part; q++) {
            const int64_t *ab = &rs->chunk.contact_id[2 * q];
            keep[q] = restart_find_sorted(own_ids, n_own, ab[0]) ||
                      (!rs->chunk.contact_wall[q] && restart_find_sorted(own_ids, n_own, ab[1]));
        }
        if (!failed &&
            keep_rows(&own, &mc_own, &contact_cap, &contact_rows, &rs->chunk, rs->cc, rs->n_cc, keep, at, part) != 0)
            failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    }
    restart_arrays_free(&rs->chunk); /* (nothing reads the file after this) */
    memset(&rs->chunk, 0, sizeof rs->chunk);
    if (agreed(f, share, failed, err, err_len)) goto done;
    /* every column exists, also with no row kept */
    if (restart_reserve_columns(&own, rs->pc, PARTICLE_COLUMNS, n_own) != 0 ||
        restart_reserve_columns(&own, rs->cc, rs->n_cc, mc_own) != 0 ||
        (!rows && !(rows = malloc(sizeof *rows))) || (!contact_rows && !(contact_rows = malloc(sizeof *rows))))
        failed = restart_fail_memory(f, err, err_len, "out of memory") != 0;
    if (agreed(f, share, failed, err, err_len)) goto done;
    sim_restart_state st = state_of(rs, &own, n_own, mc_own);
    st.row = rows;
    st.contact_row = contact_rows;
    int restored = sim_restore_share(s, &st, share->hooks, sub, sizeof sub);
    if (restored != 0) {
        if (restored == FAIL_NO_MEMORY) restart_fail_memory(f, err, err_len, "cannot restart from snapshot %d: %s", k, sub);
        else restart_refuse(f, err, err_len, "cannot restart from snapshot %d: %s", k, sub);
        goto done;
    }
    rc = 0;
done:
    restart_arrays_free(&own);
    free(rows);
    free(contact_rows);
    free(own_ids);
    free(keep);
    free(x);
    return rc;
}

int restart_restore_state(restart_state *rs, sim *s, const restart_share *share, char *err, size_t err_len)
{
    if (!share) {
        sim_restart_state st = state_of(rs, &rs->kept, rs->n, rs->mc);
        char sub[1024];
        int restored = sim_restore(s, &st, sub, sizeof sub);
        if (restored == FAIL_NO_MEMORY)
            return restart_fail_memory(rs->f, err, err_len, "cannot restart from snapshot %d: %s", rs->k, sub);
        if (restored != 0)
            return restart_refuse(rs->f, err, err_len, "cannot restart from snapshot %d: %s", rs->k, sub);
        return 0;
    }
    /* the file is the same on every rank, and so are the checks so far: an id twice is
     * named as sim_restore names it */
    for (size_t r = 1; r < rs->n; r++)
        if (rs->ids[r] == rs->ids[r - 1])
            return restart_refuse(rs->f, err, err_len, "cannot restart from snapshot %d: particle id %lld appears "
                                  "twice in the snapshot", rs->k, (long long)rs->ids[r]);
    return restore_share(rs, s, share, err, err_len);
}
