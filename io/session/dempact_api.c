/* The library-side API of io/session/dempact_api.h: what `dempact check` and `dempact run` do
 * around the engine, with messages returned instead of printed. */
#define _POSIX_C_SOURCE 200809L
#include "dempact_api.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "io/case/case.h"
#include "io/case/case_errors.h"
#include "run_driver.h"
#include "engine/checks/timestep.h"

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The largest translation speed of a wall's motion (along n if not NULL), as the
 * engine bounds its surface speed (engine/walls/walls.c). */
static double translation_speed(const wall_spec *w, const double *n)
{
    double top = n ? fabs(w->velocity[0] * n[0] + w->velocity[1] * n[1] + w->velocity[2] * n[2])
                   : norm3(w->velocity);
    for (int k = 0; k < w->n_motion; k++) {
        const double *v = w->motion_velocity[k];
        double s = n ? fabs(v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) : norm3(v);
        if (s > top) top = s;
    }
    return top;
}

static double surface_translation_speed(const wall_spec *w)
{
    return translation_speed(w, w->kind == WALL_PLANE ? w->normal : NULL);
}

int dempact_open(dempact_run *r, const char *case_path, char *err, size_t err_len)
{
    memset(r, 0, sizeof *r);
    dem_error e;
    const session_request rq = {.case_path = case_path};
    if (session_open(&r->ss, &rq, &e) != 0) {
        snprintf(err, err_len, "%s", e.msg);
        dempact_close(r);
        return -1;
    }
    const sim *s = &r->ss.s;
    size_t nw = s->walls.n ? s->walls.n : 1;
    r->shift_free_speed = calloc(nw, sizeof *r->shift_free_speed);
    r->ss.wall_load = calloc(9 * nw, sizeof *r->ss.wall_load);
    if (!r->shift_free_speed || !r->ss.wall_load) {
        snprintf(err, err_len, "%s: out of memory", case_path);
        dempact_close(r);
        return -1;
    }
    for (size_t w = 0; w < s->walls.n; w++) {
        double rest = s->walls.state[w].surface_speed - surface_translation_speed(&s->walls.walls[w]);
        r->shift_free_speed[w] = rest > 0.0 ? rest : 0.0;
    }
    return 0;
}

void dempact_close(dempact_run *r)
{
    for (size_t k = 0; k < r->n_outs; k++) {
        snapshot_close(r->outs[k].file);
        free(r->outs[k].dir);
    }
    free(r->outs);
    free(r->shift_free_speed);
    r->ss.out = NULL; /* (one of the outputs above) */
    session_close(&r->ss);
    memset(r, 0, sizeof *r);
}

/* The steps to `end` through the session's loop (session_run) into o's file (NULL: the
 * steps alone), polled between steps: 0, DEMPACT_STOPPED, or -1 with a message. A
 * watchdog's stop or memory running out is final (r->stopped). */
static int run_until(dempact_run *r, int64_t end, dempact_output *o, char *err, size_t err_len)
{
    session *ss = &r->ss;
    sim *s = &ss->s;
    ss->out = o ? o->file : NULL;
    ss->total_steps = end;
    if (o) output_grids(&ss->cfg, s->dt, end, &ss->snapshots, &ss->samples);
    run_driver how = {.poll = r->poll, .poll_ctx = r->poll_ctx, .log = o ? stderr : NULL,
                      .who = "dempact", .written = o ? snapshot_count(o->file) : 0,
                      /* contacts() and write_snapshot() read the pairs' forces after
                         any step: each step records them (24 bytes per candidate pair) */
                      .record_always = 1};
    dem_error e;
    run_outcome outcome = session_run(ss, &how, &e);
    ss->out = NULL;
    if (o) o->changes = r->changes;
    switch (outcome) {
    case RUN_FINISHED:
        return 0;
    case RUN_STOPPED:
        return DEMPACT_STOPPED;
    case RUN_WATCHDOG:
        snprintf(r->stopped, sizeof r->stopped, "%s", e.msg);
        break;
    case RUN_NO_MEMORY:
        snprintf(r->stopped, sizeof r->stopped, "out of memory in step %lld", (long long)s->step + 1);
        break;
    case RUN_WRITE_FAILED:
        snprintf(err, err_len, "%s", e.msg);
        return -1;
    }
    snprintf(err, err_len, "%s", r->stopped);
    return -1;
}

int dempact_step(dempact_run *r, int64_t n, char *err, size_t err_len)
{
    const sim *s = &r->ss.s;
    if (n < 0) {
        snprintf(err, err_len, "step: n = %lld: a number of steps, at least 0", (long long)n);
        return -1;
    }
    if (n > (int64_t)TIMESTEP_MAX_STEPS - s->step) {
        snprintf(err, err_len, "step: n = %lld steps from step %lld go past step %.0f (2^53), the "
                 "most a run can count exactly (time = step x dt)", (long long)n,
                 (long long)s->step, TIMESTEP_MAX_STEPS);
        return -1;
    }
    if (n == 0) return 0;
    if (r->stopped[0]) {
        snprintf(err, err_len, "the run was stopped: %s", r->stopped);
        return -1;
    }
    return run_until(r, s->step + n, NULL, err, err_len);
}

long dempact_find(const dempact_run *r, int64_t id)
{
    const particle_store *p = &r->ss.s.p;
    for (size_t i = 0; i < p->n_local; i++)
        if (p->id[i] == id) return (long)i;
    return -1;
}

void dempact_driven(dempact_run *r)
{
    r->ss.wd.energy_budget = NAN;
    r->changes++;
    if (r->driven) return;
    r->driven = 1;
    /* (a failure here makes the output refuse its next write, which says why) */
    char ignored[256];
    for (size_t k = 0; k < r->n_outs; k++)
        snapshot_mark_driven(r->outs[k].file, ignored, sizeof ignored);
}

int dempact_check_velocity(const dempact_run *r, size_t i, const double v[3], const char *who,
                           char *err, size_t err_len)
{
    const particle_store *p = &r->ss.s.p;
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || norm3(v) > CASE_MAX_SPEED) {
        snprintf(err, err_len, "%s: particle %lld: the velocity (%g, %g, %g) m/s must be finite and "
                 "at most %g m/s", who, (long long)p->id[i], v[0], v[1], v[2], CASE_MAX_SPEED);
        return -1;
    }
    return timestep_check_particle_speed(&r->ss.s, i, v, who, "set to", err, err_len);
}

int dempact_set_velocity(dempact_run *r, int64_t id, const double v[3], char *err, size_t err_len)
{
    long i = dempact_find(r, id);
    if (i < 0) {
        snprintf(err, err_len, "set_velocity: no particle has id %lld", (long long)id);
        return -1;
    }
    if (dempact_check_velocity(r, (size_t)i, v, "set_velocity", err, err_len) != 0) return -1;
    particle_store *p = &r->ss.s.p;
    p->vx[i] = v[0];
    p->vy[i] = v[1];
    p->vz[i] = v[2];
    dempact_driven(r);
    return 0;
}

/* The wall's translation becomes a schedule of two segments: until now, the constant
 * velocity that takes it from its reference placement to where it is now (so its
 * placement now, which is all the engine reads from here on, is kept), then v. */
int dempact_set_wall_velocity(dempact_run *r, size_t w, const double v[3], char *err,
                              size_t err_len)
{
    wall_set *ws = &r->ss.s.walls;
    if (w >= ws->n) {
        snprintf(err, err_len, "wall index %zu: the case has %zu walls", w, ws->n);
        return -1;
    }
    if (ws->state[w].servo) {
        snprintf(err, err_len, "walls[%zu] ('%s') is a servo wall: it moves itself to hold its "
                 "target load, and takes no velocity", w, ws->walls[w].name);
        return -1;
    }
    if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || norm3(v) > CASE_MAX_SPEED) {
        snprintf(err, err_len, "walls[%zu] velocity: must be finite and at most %g m/s", w,
                 CASE_MAX_SPEED);
        return -1;
    }
    wall_spec *spec = &ws->walls[w];
    wall_state *st = &ws->state[w];
    /* the step was chosen (or checked) for the case's wall speeds: a faster wall than it
     * can resolve is refused, as `dempact check` refuses it in a case, and nothing
     * changes */
    wall_spec trial = *spec;
    trial.n_motion = 0;
    for (int a = 0; a < 3; a++) trial.velocity[a] = v[a];
    if (timestep_check_wall_speed(&r->ss.s, (int)w, &trial, err, err_len) != 0) return -1;
    double t = r->ss.s.time;
    walls_move(ws, t);
    double shift[3] = {st->shift[0], st->shift[1], st->shift[2]};
    int k = 0;
    if (t > 0.0) {
        spec->motion_duration[k] = t;
        for (int a = 0; a < 3; a++) spec->motion_velocity[k][a] = shift[a] / t;
        k++;
    }
    spec->motion_duration[k] = HUGE_VAL; /* the last segment never ends */
    for (int a = 0; a < 3; a++) {
        spec->motion_velocity[k][a] = v[a];
        spec->velocity[a] = 0.0;
    }
    spec->n_motion = k + 1;
    /* the bounds the neighbour rebuilds and contact velocities read (engine/walls/walls.c) */
    st->surface_speed = r->shift_free_speed[w] + surface_translation_speed(spec);
    st->shape_moves = st->surface_speed > 0.0;
    st->moves = translation_speed(spec, NULL) > 0.0 || spec->angular_velocity != 0.0;
    ws->max_surface_speed = 0.0;
    ws->n_moving = 0;
    for (size_t q = 0; q < ws->n; q++) {
        if (ws->state[q].surface_speed > ws->max_surface_speed)
            ws->max_surface_speed = ws->state[q].surface_speed;
        ws->n_moving += ws->state[q].moves != 0;
    }
    walls_move(ws, t);
    /* a moving wall does work: the energy check no longer applies */
    dempact_driven(r);
    return 0;
}

/* The output in folder dir: this simulation's (found by the folder's real path), or a
 * new one there (a new output replaces an earlier one of the same case, as `dempact run`
 * does). `who` starts the messages. */
static dempact_output *output_in(dempact_run *r, const char *dir, const char *who, char *err,
                                 size_t err_len)
{
    if (!dir || !dir[0]) {
        snprintf(err, err_len, "%s: the output folder must be a non-empty path", who);
        return NULL;
    }
    char *real = realpath(dir, NULL);
    for (size_t k = 0; real && k < r->n_outs; k++)
        if (strcmp(r->outs[k].dir, real) == 0) {
            free(real);
            return &r->outs[k];
        }
    free(real);
    sim *s = &r->ss.s;
    dempact_output *grown = realloc(r->outs, (r->n_outs + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    r->outs = grown;
    snapshot_run_info info = {.case_name = r->ss.cfg.name, .case_text = r->ss.cfg.case_text,
                              .version = DEMPACT_VERSION, .build = DEMPACT_BUILD_TYPE,
                              .dt = s->dt, .walls = &s->walls,
                              .sums_by_id = r->ss.cfg.reproducible,
                              .initial_energy = s->initial_energy, .driven = r->driven};
    memcpy(info.domain_min, r->ss.cfg.domain_min, sizeof info.domain_min);
    memcpy(info.domain_max, r->ss.cfg.domain_max, sizeof info.domain_max);
    char msg[4096];
    snapshot_file *f = NULL;
    if (snapshot_check_output(dir, r->ss.cfg.name, &info, NULL, msg, sizeof msg) != 0 ||
        !(f = snapshot_create(dir, r->ss.cfg.name, &info, NULL, msg, sizeof msg))) {
        snprintf(err, err_len, "%s: %s", who, msg);
        return NULL;
    }
    if (!(real = realpath(dir, NULL))) {
        snprintf(err, err_len, "%s: '%s': %s", who, dir, strerror(errno));
        snapshot_close(f);
        return NULL;
    }
    dempact_output *o = &r->outs[r->n_outs++];
    *o = (dempact_output){.file = f, .dir = real, .changes = r->changes};
    return o;
}

int dempact_write_snapshot(dempact_run *r, const char *dir, char *err, size_t err_len)
{
    sim *s = &r->ss.s;
    if (r->stopped[0]) { /* (dempact_run_to wrote the state the watchdog stopped) */
        snprintf(err, err_len, "write_snapshot: the run was stopped: %s", r->stopped);
        return -1;
    }
    dempact_output *o = output_in(r, dir, "write_snapshot", err, err_len);
    if (!o) return -1;
    r->out = o->file;
    if (snapshot_last_step(o->file) == s->step) {
        if (o->changes == r->changes) return 0; /* it holds this very state */
        snprintf(err, err_len, "write_snapshot: %s holds a snapshot of step %lld already, written "
                 "before velocities, walls or external loads were set; take a step before "
                 "writing again",
                 snapshot_h5_path(o->file), (long long)s->step);
        return -1;
    }
    if (snapshot_count(o->file) >= TIMESTEP_MAX_SNAPSHOTS) {
        snprintf(err, err_len, "write_snapshot: %s holds %d snapshots, the most an output may "
                 "(as time.output_interval's limit)", snapshot_h5_path(o->file),
                 snapshot_count(o->file));
        return -1;
    }
    if (run_driver_add_sample(o->file, s, r->ss.wall_load, err, err_len) != 0 ||
        run_driver_write_snapshot(o->file, s, err, err_len) != 0 ||
        snapshot_flush(o->file, err, err_len) != 0)
        return -1;
    o->changes = r->changes;
    return 0;
}

int dempact_run_to(dempact_run *r, double until, const char *dir, char *err, size_t err_len)
{
    sim *s = &r->ss.s;
    if (!isfinite(until)) {
        snprintf(err, err_len, "run: until = %g s: a finite time", until);
        return -1;
    }
    /* the checks of `dempact run --end-time until` on the simulation's step */
    char msg[2048];
    int64_t end = 0;
    int refused;
    if (dir) {
        double case_end = s->cfg.end_time;
        run_schedule plan;
        s->cfg.end_time = until;
        refused = timestep_schedule(s, &plan, msg, sizeof msg) != 0;
        s->cfg.end_time = case_end;
        end = plan.steps;
    } else {
        refused = timestep_end_step(s, until, &end, msg, sizeof msg) != 0;
    }
    if (refused) {
        snprintf(err, err_len, "run: %s (with until = %g s%s)", msg, until, dir ? " and output" : "");
        return -1;
    }
    if (end < s->step) {
        snprintf(err, err_len, "run: until = %g s ends at step %lld, before the simulation's step "
                 "%lld (t = %g s)", until, (long long)end, (long long)s->step, s->time);
        return -1;
    }
    if (!dir) return dempact_step(r, end - s->step, err, err_len);
    if (r->stopped[0]) {
        snprintf(err, err_len, "the run was stopped: %s", r->stopped);
        return -1;
    }
    dempact_output *o = output_in(r, dir, "run", err, err_len);
    if (!o) return -1;
    r->out = o->file;
    if (snapshot_last_step(o->file) != s->step) { /* the state it starts from */
        if (run_driver_add_sample(o->file, s, r->ss.wall_load, err, err_len) != 0 ||
            run_driver_write_snapshot(o->file, s, err, err_len) != 0)
            return -1;
        o->changes = r->changes;
    }
    return run_until(r, end, o, err, err_len);
}
