/* One way into a simulation (session.h). */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "io/case/case.h"
#include "io/case/case_errors.h"
#include "tuning_env.h"
#include "engine/checks/timestep.h"

/* The message of a failure after the case's own check, started with rq->who. */
static int failed(const session_request *rq, dem_error *e, int status, const char *what)
{
    return rq->who ? dem_fail(e, status, "%s: %s", rq->who, what) : dem_fail(e, status, "%s", what);
}

/* A signal's flag set while reading or building: the loops gave up on it. */
static int stopped_by(const session_request *rq, dem_error *e)
{
    if (!rq->stop || !*rq->stop) return 0;
    int sig = *rq->stop;
    return dem_fail(e, STATUS_SIGNAL + sig, "%s: stopped by %s before the first step; nothing was written",
                    rq->case_path, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
}

/* A failed building or check (rc a failure value): out of memory, or bad input whose
 * message points at the case's line. */
static int refused(const sim_config *cfg, int rc, const char *err, dem_error *e)
{
    if (rc == FAIL_NO_MEMORY)
        return dem_fail(e, STATUS_NO_MEMORY, "%s: %s", cfg->case_path ? cfg->case_path : cfg->name, err);
    case_locate_error(cfg, err, e->msg, sizeof e->msg);
    return e->status = STATUS_BAD_INPUT;
}

/* Agreed over the ranks (each rank's status and message: the lowest failing rank's). */
static int agreed(const session *ss, dem_error *e)
{
    if (ss->ranks) e->status = ss->ranks->agree(e->status, e->msg, sizeof e->msg);
    return e->status;
}

/* Read, tuned and placed (sim_place), its starting speeds and its schedule checked. */
static int place(session *ss, const session_request *rq, int by_id, dem_error *e)
{
    char err[4096] = "";
    int rc = case_load_stoppable(rq->case_path, &ss->cfg, rq->stop, err, sizeof err);
    if (rc != 0) {
        if (stopped_by(rq, e)) return e->status;
        return dem_fail(e, status_of_fail(rc, STATUS_BAD_INPUT), "%s", err);
    }
    ss->opened = 1;
    if (rq->tuning) ss->cfg.tuning = *rq->tuning;
    else tuning_from_env(&ss->cfg.tuning);
    if (by_id) ss->cfg.reproducible = true;
    if ((rc = sim_place(&ss->s, &ss->cfg, err, sizeof err)) != 0) {
        if (stopped_by(rq, e)) return e->status;
        return refused(&ss->cfg, rc, err, e);
    }
    if (stopped_by(rq, e)) return e->status;
    run_schedule plan;
    if ((rc = timestep_check_speeds(&ss->s, err, sizeof err)) != 0 ||
        (rc = timestep_schedule(&ss->s, &plan, err, sizeof err)) != 0)
        return refused(&ss->cfg, rc, err, e);
    return 0;
}

/* The first list and forces (sim_start), and the state they start from; split over
 * ranks from the start, then the split by their contacts. */
static int start(session *ss, dem_error *e)
{
    char err[4096] = "";
    sim *s = &ss->s;
    int rc = sim_start(s, err, sizeof err);
    if (rc != 0) return refused(&ss->cfg, rc, err, e);
    watchdog_report r;
    int problem = watchdog_check_start(s, &r) != WATCHDOG_OK;
    int anywhere = sim_failed_anywhere(s, problem);
    if (problem) {
        watchdog_format(&r, s, err, sizeof err);
        return refused(&ss->cfg, FAIL_REFUSED, err, e);
    }
    if (anywhere) return 0; /* another rank's problem, which it reports (agree) */
    if (ss->split_from_start && (rc = ss->ranks->weigh(s, err, sizeof err)) != 0)
        return refused(&ss->cfg, rc, err, e);
    return 0;
}

/* The case to its first step: placed, then started or (a restart from a file that
 * holds the energy its run started with) left for the snapshot to replace. */
static int open_case(session *ss, const session_request *rq, int by_id, int placed_only, dem_error *e)
{
    int status = place(ss, rq, by_id, e);
    if (ss->ranks) {
        /* from here on the ranks call collectives: all go on, or none */
        if ((status = agreed(ss, e)) != 0) return status;
        if (placed_only && !ss->split_from_start) return stopped_by(rq, e);
        char err[4096] = "";
        int rc = ss->split_from_start ? ss->ranks->begin(&ss->s, err, sizeof err) : 0;
        if (rc != 0) return dem_fail(e, status_of_fail(rc, STATUS_BAD_INPUT), "%s: %s", rq->case_path, err);
    } else if (status == 0 && placed_only) {
        return stopped_by(rq, e);
    }
    if (status == 0) status = start(ss, e);
    /* (on ranks, a signal one saw alone is agreed after the collectives) */
    if (status == 0) status = stopped_by(rq, e);
    return status;
}

/* The snapshot restored into the simulation; on ranks each keeps its share. */
static int restore(session *ss, const session_request *rq, int file_by_id, int shared, dem_error *e)
{
    char err[4096] = "";
    if (ss->ranks && file_by_id == 0) {
        /* its pairs were listed by index: a list by id holds many of them the other way
         * round, their springs pointing the other way */
        snprintf(err, sizeof err, "--restart %s: the run that wrote it did not sum by id, as a "
                 "run on several ranks does, and its contacts' history cannot be taken over; "
                 "continue it on one process (without mpirun), or run the case with "
                 "parallel: {reproducible: true}, whose output continues on any number of "
                 "ranks", rq->restart);
        return failed(rq, e, STATUS_BAD_INPUT, err);
    }
    ss->restart = rq->restart;
    int status = 0;
    int rc = restart_from_file_shared(rq->restart, rq->from_step, ss->cfg.case_text,
                                      shared ? ss->ranks->share : NULL, &ss->s, &ss->rp, err, sizeof err);
    if (rc != 0) status = status_of_fail(rc, STATUS_BAD_INPUT);
    /* a share restored: the split by its contacts, as after a run's start */
    else if (shared && ss->ranks->weigh(&ss->s, err, sizeof err) != 0)
        status = STATUS_NO_MEMORY;
    if (status) failed(rq, e, status, err);
    return agreed(ss, e);
}

int session_open(session *ss, const session_request *rq, dem_error *e)
{
    memset(ss, 0, sizeof *ss);
    e->status = 0;
    e->msg[0] = '\0';
    ss->ranks = rq->ranks && rq->ranks->count > 1 ? rq->ranks : NULL;
    ss->who = rq->who;
    /* a run split over ranks sums by id (sim_split), and so does the restart of a run
     * that summed so, to go on bit for bit */
    const int file_by_id = rq->restart ? restart_sums_by_id(rq->restart) : 0;
    /* a restart from a file that holds the energy its run started with needs no start of
     * the case (its lists and forces): the case is placed, the snapshot replaces it */
    const int file_energy = rq->restart && restart_has_initial_energy(rq->restart) == 1;
    /* on ranks each rank places the whole case, then keeps its own particles before the
     * first neighbour list; a restart keeps its share of the snapshot (from an older
     * file: splits once the whole snapshot is restored) */
    ss->split_from_start = ss->ranks && !rq->restart;
    const int shared = ss->ranks && file_energy && file_by_id == 1;
    int status = open_case(ss, rq, ss->ranks || rq->sums_by_id || file_by_id == 1, file_energy, e);
    if (ss->ranks) status = agreed(ss, e);
    if (status != 0) return status;
    sim *s = &ss->s;
    if (rq->end_time > 0.0) ss->cfg.end_time = s->cfg.end_time = rq->end_time;
    if (rq->restart && (status = restore(ss, rq, file_by_id, shared, e)) != 0) return status;
    if (shared) ss->split_from_start = 1;
    /* steps, snapshots and time-series samples (by default ten per snapshot interval, a
     * hundred over the run when there are only the first and last snapshots), checked
     * again with the end time and the restart's step */
    run_schedule plan;
    char err[4096] = "";
    if (timestep_schedule(s, &plan, err, sizeof err) != 0) {
        char with[4200];
        snprintf(with, sizeof with, "%s%s", err, rq->end_time > 0.0 ? " (with --end-time)" : "");
        return failed(rq, e, STATUS_BAD_INPUT, with);
    }
    ss->total_steps = plan.steps;
    output_grids(&ss->cfg, s->dt, ss->total_steps, &ss->snapshots, &ss->samples);
    if (ss->ranks && !ss->split_from_start) { /* the restart of an older file: split it now */
        int rc = ss->ranks->start(s, err, sizeof err);
        if (rc != 0) dem_fail(e, status_of_fail(rc, STATUS_BAD_INPUT), "%s%s%s: %s", rq->who ? rq->who : "",
                              rq->who ? ": " : "", rq->case_path, err);
        if ((status = agreed(ss, e)) != 0) return status;
    }
    watchdog_start(&ss->wd, s, rq->log);
    return 0;
}

/* e's status and message, the message started with the session's `who`. */
static int prefixed(const session *ss, dem_error *e, int status, const char *what)
{
    char text[sizeof e->msg];
    snprintf(text, sizeof text, "%s", what);
    if (ss->who) return dem_fail(e, status, "%s: %s", ss->who, text);
    return dem_fail(e, status, "%s", text);
}

int session_output(session *ss, const char *dir, int overwrite, dem_error *e)
{
    sim *s = &ss->s;
    const sim_config *cfg = &ss->cfg;
    int self = ss->ranks ? ss->ranks->self : 0;
    ss->wall_load = calloc(9 * (s->walls.n ? s->walls.n : 1), sizeof *ss->wall_load);
    int status = ss->wall_load ? 0 : STATUS_NO_MEMORY;
    if (ss->ranks) status = ss->ranks->worst(status);
    if (status) return prefixed(ss, e, status, "out of memory");
    snapshot_run_info info = {.case_name = cfg->name, .case_text = cfg->case_text,
                              .version = DEMPACT_VERSION, .build = DEMPACT_BUILD_TYPE, .dt = s->dt,
                              .walls = &s->walls, .overwrite = overwrite,
                              .sums_by_id = cfg->reproducible, .initial_energy = s->initial_energy};
    memcpy(info.domain_min, cfg->domain_min, sizeof info.domain_min);
    memcpy(info.domain_max, cfg->domain_max, sizeof info.domain_max);
    /* rank 0 writes the output (split_output.h) */
    int rc = 0;
    if (self == 0 &&
        ((rc = snapshot_check_output(dir, cfg->name, &info, ss->restart, e->msg, sizeof e->msg)) != 0 ||
         (rc = snapshot_open(dir, cfg->name, &info, ss->restart ? &ss->rp.carry : NULL, &ss->out, e->msg,
                             sizeof e->msg)) != 0))
        status = status_of_fail(rc, STATUS_BAD_INPUT);
    if (ss->ranks) status = ss->ranks->worst(status);
    if (status) return prefixed(ss, e, status, e->msg);
    if (ss->restart) return 0;
    /* the first sample and snapshot of a run from the start (split: every rank writes) */
    run_driver d = {.s = s, .out = ss->out, .wall_load = ss->wall_load,
                    .ranks = ss->ranks ? ss->ranks->driver : NULL};
    if (run_driver_begin(&d, e->msg, sizeof e->msg) != 0) return prefixed(ss, e, d.failure, e->msg);
    return 0;
}

void session_close(session *ss)
{
    snapshot_close(ss->out);
    restart_point_free(&ss->rp);
    free(ss->wall_load);
    if (ss->opened) {
        sim_free(&ss->s);
        sim_config_free(&ss->cfg);
    }
    memset(ss, 0, sizeof *ss);
}

run_outcome session_run(session *ss, const run_driver *how, dem_error *e)
{
    sim *s = &ss->s;
    run_driver *d = &ss->d;
    *d = (run_driver){.s = s, .out = ss->out, .total_steps = ss->total_steps,
                      .snapshots = ss->snapshots, .samples = ss->samples, .wd = &ss->wd,
                      .wall_load = ss->wall_load, .stop = how->stop, .log = how->log, .who = how->who,
                      .ranks = ss->ranks ? ss->ranks->driver : NULL, .progress = how->progress,
                      .progress_ctx = how->progress_ctx, .poll = how->poll, .poll_ctx = how->poll_ctx,
                      .written = how->written, .record_always = how->record_always};
    e->status = 0;
    e->msg[0] = '\0';
    run_outcome outcome = run_driver_loop(d, e->msg, sizeof e->msg);
    switch (outcome) {
    case RUN_FINISHED: break;
    case RUN_STOPPED: e->status = STATUS_SIGNAL + d->stopped_by; break;
    case RUN_WATCHDOG: e->status = STATUS_WATCHDOG; break;
    case RUN_NO_MEMORY: e->status = STATUS_NO_MEMORY; break;
    case RUN_WRITE_FAILED: e->status = d->failure; break;
    }
    return outcome;
}
