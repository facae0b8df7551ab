/* The run driver (run_driver.h). */
#define _POSIX_C_SOURCE 200809L
#include "run_driver.h"

#include <math.h>
#include <sys/statvfs.h>

#include "engine/checks/dashpot_check.h"
#include "engine/step/observables.h"

snapshot_state run_driver_state(const sim *s)
{
    return (snapshot_state){.p = &s->p, .pairs = &s->pairs, .wall_pairs = &s->wall_pairs,
                            .walls = &s->walls, .position_at_rebuild = s->x_at_rebuild,
                            .engine = s, .time = s->time, .step = s->step,
                            .in_id_order = s->cfg.reproducible};
}

int run_driver_write_snapshot(snapshot_file *out, const sim *s, char *err, size_t err_len)
{
    snapshot_state st = run_driver_state(s);
    return snapshot_write(out, &st, err, err_len);
}

/* wall_load: 9 per wall, the forces (3 per wall), the torques, the displacements */
int run_driver_add_sample(snapshot_file *out, const sim *s, double *wall_load, char *err,
                          size_t err_len)
{
    sim_observables o = {.wall_force = wall_load, .wall_torque = wall_load + 3 * s->walls.n,
                         .wall_displacement = wall_load + 6 * s->walls.n};
    sim_observe(s, &o);
    return out ? snapshot_add_sample(out, &o, err, err_len) : 0;
}

/* Checked every 1000 steps (or every time-series sample, if they are further apart)
 * until it warns: two law evaluations per touching contact, about 0.1% of the steps
 * between checks (every 100 steps cost the hopper 1.2%). */
void run_driver_warn_dashpots(const sim *s, FILE *log, const char *who, int *warned)
{
    if (*warned || !log) return;
    dashpot_check dc;
    dashpot_check_run(s, &dc);
    if (dc.unresolved == 0) return;
    *warned = 1;
    const dem_law *law = dc.worst_law->law;
    fprintf(log, "%s: warning: at t = %.6g s, %zu %s a normal dashpot stiffer "
            "than the step can integrate (c dt / m* up to %.3g, above 1; law %s, overlap %.3g "
            "of R*): such a contact rings, and the energy balance will not close.\n", who,
            s->time, dc.unresolved, dc.unresolved == 1 ? "contact has" : "contacts have",
            dc.worst, law->name, dc.worst_overlap);
    if (!isnan(dc.worst_law->v_floor))
        fprintf(log, "  Contacts born at rest take v0 = v_floor = %g m/s: give %s a larger "
                "v_floor (params: {v_floor: ...}), or lower time.step.\n",
                dc.worst_law->v_floor, law->name);
    else
        fprintf(log, "  Lower time.step.\n");
}

/* Warns when the snapshots still to come will not fit on the output's file system. */
static void check_free_space(const run_driver *d, const char *h5_path, uint64_t snapshot_bytes,
                             int64_t snapshots_left)
{
    struct statvfs v;
    if (!d->log || snapshot_bytes == 0 || snapshots_left <= 0 || statvfs(h5_path, &v) != 0) return;
    double need = (double)snapshot_bytes * (double)snapshots_left, have = (double)v.f_bavail * v.f_frsize;
    if (need > have)
        fprintf(d->log, "%s: warning: the %lld snapshots to come need about %.3g MB and "
                        "only %.3g MB are free where %s is\n",
                d->who, (long long)snapshots_left, need / 1e6, have / 1e6, h5_path);
}

/* What ends the loop after a step, as every rank must see it alike. */
typedef struct step_end {
    int stop;          /* a stop was asked for (on some rank) */
    int no_memory;     /* the step ran out of memory (on some rank) */
    int problem;       /* the watchdog found a problem (on some rank) */
} step_end;

static int stop_asked(const run_driver *d)
{
    return (d->stop && *d->stop) || (d->poll && d->poll(d->poll_ctx));
}

/* The value of the stop (the signal's number; 0 for a poll's). */
static int stop_value(const run_driver *d) { return d->stop ? *d->stop : 0; }

/* Agrees on the step's end over the ranks, and counts the particles and contacts. */
static step_end agree(run_driver *d, int no_memory, int problem)
{
    const sim *s = d->s;
    step_end e = {.stop = stop_asked(d), .no_memory = no_memory, .problem = problem};
    size_t contacts = s->n_contacts;
    if (!d->ranks) {
        if (e.stop) d->stopped_by = stop_value(d);
        d->particles = s->p.n_local;
        d->contacts = contacts;
        return e;
    }
    /* a pair this rank computed from another rank's particle is that rank's to count */
    const contact_list *c = &s->pairs;
    if (c->first_of_i && c->n_first > s->p.n_local)
        for (size_t k = c->first_of_i[s->p.n_local]; k < c->first_of_i[c->n_first]; k++)
            contacts -= contact_holds_force(c->touching[k]) && contacts > 0;
    double v[5] = {e.stop, e.no_memory, e.problem, (double)s->p.n_local, (double)contacts};
    d->ranks->sum(v, 5, d->ranks->ctx);
    d->particles = (size_t)v[3];
    d->contacts = (size_t)v[4];
    if (v[0] > 0) { /* which stop: told to every rank (the one a signal reached, or all) */
        double value = e.stop ? (double)stop_value(d) : 0.0;
        d->ranks->largest(&value, 1, d->ranks->ctx);
        d->stopped_by = (int)value;
    }
    return (step_end){.stop = v[0] > 0, .no_memory = v[1] > 0, .problem = v[2] > 0};
}

/* One process without an output: the steps alone. */
static int steps_only(const run_driver *d) { return !d->out && !d->ranks; }

/* Whether the writing failed on any rank (a time-series sample on the writing one); its
 * status into d->failure: out of memory on any rank, else a failed write. */
static int failed(run_driver *d, int rc)
{
    double v = rc == 0 ? 0.0 : rc == FAIL_NO_MEMORY ? STATUS_NO_MEMORY : STATUS_RUN_FAILED;
    if (d->ranks) d->ranks->largest(&v, 1, d->ranks->ctx);
    d->failure = (int)v;
    return v > 0;
}

static int write_snapshot(run_driver *d, char *err, size_t err_len)
{
    if (steps_only(d)) return 0;
    /* (split: every rank returns the same) */
    int rc = d->ranks ? d->ranks->write_snapshot(d->ranks->ctx, d->out, d->s, err, err_len)
                      : run_driver_write_snapshot(d->out, d->s, err, err_len);
    if (rc == 0) return 0;
    double v = rc == FAIL_NO_MEMORY ? STATUS_NO_MEMORY : STATUS_RUN_FAILED;
    if (d->ranks) d->ranks->largest(&v, 1, d->ranks->ctx); /* out of memory on any */
    d->failure = (int)v;
    return -1;
}

int run_driver_begin(run_driver *d, char *err, size_t err_len)
{
    if (failed(d, run_driver_add_sample(d->out, d->s, d->wall_load, err, err_len))) return -1;
    return write_snapshot(d, err, err_len);
}

/* Whether step s->step + 1 records the particle pairs' forces (run_driver
 * .record_always); `stopping`: a stop takes effect after it. The same on every rank. */
static int records_next(const run_driver *d, int stopping)
{
    const sim *s = d->s;
    if (d->record_always || stopping ||
        s->cfg.watchdog.on_error == WATCHDOG_ACTION_DROP_PARTICLE)
        return 1;
    int64_t next = s->step + 1;
    return !steps_only(d) && (output_grid_due(&d->snapshots, next) || next == d->total_steps);
}

run_outcome run_driver_loop(run_driver *d, char *err, size_t err_len)
{
    sim *s = d->s;
    /* the dashpot check's cadence (run_driver_warn_dashpots) */
    int64_t dashpot_every = d->samples.every > 1000 ? d->samples.every : 1000;
    /* a stop asked before the first step (one process: the ranks agree after a step) */
    step_end end = {.stop = !d->ranks && stop_asked(d)};
    if (end.stop) d->stopped_by = stop_value(d);
    /* A stop agreed after a step that did not record the pairs' forces takes effect
     * one step later, a recorded one, so that its snapshot holds the contact forces. */
    int stopping = 0;
    int recording = 0; /* what the last step asked (the same on every rank) */
    while (s->step < d->total_steps && !end.stop) {
        const int record = records_next(d, stopping);
        int short_of_memory = sim_record_pair_forces(s, record) != 0;
        /* turning the recording on allocates, and may fail on one rank alone: every rank
         * then skips the step (its collectives), not that one alone */
        if (record && !recording) short_of_memory = sim_failed_anywhere(s, short_of_memory);
        recording = record;
        if (short_of_memory && !s->fault) {
            s->fault = SIM_FAULT_NO_MEMORY; /* (the step then does nothing) */
            s->fault_memory = SIM_MEMORY_FORCES;
        }
        sim_step(s);
        watchdog_report wr;
        /* memory may run out in the step, or as the watchdog drops a particle */
        watchdog_problem guard =
            s->fault == SIM_FAULT_NO_MEMORY ? WATCHDOG_OK : watchdog_guard(s, d->wd, &wr);
        end = agree(d, s->fault == SIM_FAULT_NO_MEMORY, guard != WATCHDOG_OK);
        if (end.no_memory) return RUN_NO_MEMORY;
        if (end.problem) {
            char why[4096] = "";
            if (guard != WATCHDOG_OK) watchdog_format(&wr, s, why, sizeof why);
            if (d->ranks) d->ranks->share(why, sizeof why, guard != WATCHDOG_OK, d->ranks->ctx);
            if (d->log) fprintf(d->log, "%s: %s\n", d->who, why);
            /* a cause the watchdog cannot name */
            run_driver_warn_dashpots(s, d->log, d->who, &d->warned_dashpots);
            if (write_snapshot(d, err, err_len) != 0) return RUN_WRITE_FAILED;
            d->written++;
            snprintf(err, err_len, "%s", why);
            return RUN_WATCHDOG;
        }
        int last = s->step == d->total_steps;
        if (stopping) end.stop = 1;
        else if (end.stop && !last && !steps_only(d) && !sim_pair_forces_recorded(s))
            end.stop = 0, stopping = 1;
        if (!steps_only(d) && (output_grid_due(&d->samples, s->step) || last) &&
            failed(d, run_driver_add_sample(d->out, s, d->wall_load, err, err_len)))
            return RUN_WRITE_FAILED;
        if (s->step % dashpot_every == 0)
            run_driver_warn_dashpots(s, d->log, d->who, &d->warned_dashpots);
        if (output_grid_due(&d->snapshots, s->step) || last || end.stop) {
            if (write_snapshot(d, err, err_len) != 0) return RUN_WRITE_FAILED;
            /* the size of a typical snapshot: the second of a new file (the first also
             * allocates the file's shared datasets) */
            if (++d->written == 2 && d->out)
                check_free_space(d, snapshot_h5_path(d->out), snapshot_last_size(d->out),
                                 output_grid_count(&d->snapshots, s->step, d->total_steps) + 1);
        }
        if (d->ranks && !last) d->ranks->balance(d->ranks->ctx, s);
        if (d->progress) d->progress(d->progress_ctx, d, last);
    }
    if (failed(d, d->out ? snapshot_flush(d->out, err, err_len) : 0)) return RUN_WRITE_FAILED;
    return end.stop ? RUN_STOPPED : RUN_FINISHED;
}
