/* Choosing and checking the timestep.
 *
 * Two estimates bound a stable and accurate explicit step:
 *  - the Rayleigh time T_R = pi r sqrt(rho / G) / (0.1631 nu + 0.8766) of the smallest
 *    sphere of each material (a surface wave crossing the particle);
 *  - the duration t_c of a binary contact at the largest expected impact speed, as each
 *    bound law estimates it (Hertz: 2 x 1.4716 d_max / v0), for the smallest pair of
 *    every pair of materials that can touch.
 * The stable limit is min(T_R, t_c / 5, t_s): at t_c / 5 one contact is resolved by about
 * ten steps and velocity Verlet stays stable for a particle with a dozen contacts; t_s
 * is the largest step at which it integrates the tangential and rolling springs and
 * dashpots stably (timestep_springs): a Mindlin spring's dashpot sets it in most
 * frictional cases, at 0.3 to 0.75 times t_c / 5, and never the automatic step.
 * A step chosen automatically is at most min(0.2 T_R, t_c / 50, t_s / 2): the largest step no
 * larger that divides the output grid (timestep_output_grid) a whole number of times,
 * so that snapshots and time-series samples fall exactly on their times (k x interval
 * = a whole number of steps). A given step is kept as it is (snapshots then go to the
 * step nearest each grid time); a given step above the limit is refused unless the
 * case turns the check off. */
#ifndef DEMPACT_TIMESTEP_H
#define DEMPACT_TIMESTEP_H

#include <stddef.h>
#include <stdint.h>

struct sim;
struct sim_config;

/* The Rayleigh time of the smallest particle of each material, and the shortest contact
 * time of the laws between the smallest particles (and walls) at the impact speed: the
 * least over the materials; NaN when out of memory. */
double timestep_rayleigh(const struct sim *s);
double timestep_contact_time(const struct sim *s, double impact_speed);
/* The pairs the step is sized for: visit(li, r_a, m_a, r_b, m_b, ctx) for the smallest
 * sphere of each material a (particles and what the inlets insert) against the smallest
 * of each material b, and against a wall of material b (r_b = m_b = 0), wherever a law
 * binds the two materials. Returns 0, or -1 when out of memory. */
struct law_instance;
typedef void (*timestep_pair_visit)(const struct law_instance *li, double r_a, double m_a, double r_b,
                                    double m_b, void *ctx);
int timestep_each_smallest_pair(const struct sim *s, timestep_pair_visit visit, void *ctx);
double timestep_impact_speed(const struct sim *s);
/* A bound on the speed of any material point of wall w inside the domain: |v| (a motion
 * schedule: its fastest segment) + |w| times the farthest corner of the domain from the
 * rotation point (a drum's rim, a piston; a wall spinning about its own axis moves its
 * material too). */
struct wall_spec;
double timestep_wall_speed(const struct sim_config *cfg, const struct wall_spec *w);
/* The tangential and rolling springs and dashpots (engine/checks/timestep_springs.c): the
 * largest step velocity Verlet integrates them stably at, (omega dt)^2 / 4 + gamma dt
 * <= 1, over the pairs of materials that have friction or rolling resistance, for their
 * smallest spheres at the overlap of an impact at impact_speed; HUGE_VAL when none has
 * a spring or dashpot, NaN when out of memory. *out says which sets it. */
/* timestep_spring.rolling for an adhesion's modes: its dashpot, and its neck (the range
 * past touching a contact holds, which the step must cross in at least
 * TIMESTEP_NECK_STEPS steps at the sticking speed: timestep_springs.c) */
enum { TIMESTEP_ADHESION = 2, TIMESTEP_NECK = 3 };
#define TIMESTEP_NECK_STEPS 2.0
typedef struct timestep_spring {
    double dt;       /* the largest stable step */
    int binding;     /* cfg.bindings[binding] sets it (-1: none) */
    int rolling;     /* 1: its rolling law; 0: its tangential law; TIMESTEP_ADHESION,
                        TIMESTEP_NECK: its adhesion's (models/adhesion_law.h) */
    int by_damping;  /* 1: its dashpot is above critical on that motion (c^2 > 4 k M) */
    double k, c;     /* the spring and dashpot ... */
    double mass;     /* ... on the contact point's mass [kg] (rolling: the inertia) */
    double overlap;  /* the overlap they were taken at [m] (the neck: its reach) */
    double speed;    /* the neck: the sticking speed it is crossed at [m/s] */
    int against_wall;
} timestep_spring;
double timestep_springs(const struct sim *s, double impact_speed, timestep_spring *out);
/* 2 / (gamma + sqrt(gamma^2 + omega^2)), omega^2 = k / m, gamma = c / m: the largest
 * step for a spring k and dashpot c on the mass m (HUGE_VAL for neither). */
double timestep_spring_dashpot_step(double k, double c, double m);
/* "contacts[0].friction.stiffness = 1e+12: the tangential spring of glass on glass (k
 * ..., c ... on the contact point's mass ...) is stable for a step up to ... s". */
void timestep_spring_describe(const struct sim *s, const timestep_spring *sp, char *buf,
                              size_t len);
/* The three bounds on the step at the case's impact speed: the Rayleigh time, the
 * shortest contact time and the springs' stable step (with what sets it). Returns 0, or
 * -1 when out of memory. The stable limit is min(rayleigh, contact / 5, springs). */
typedef struct timestep_estimates {
    double rayleigh, contact, springs;
    timestep_spring spring;
} timestep_estimates;
int timestep_estimate(const struct sim *s, timestep_estimates *e);
/* What sets s->dt_limit, for `dempact check`: "the Rayleigh time", "a fifth of the
 * contact time", or "the tangential spring of contacts[0].friction.stiffness = 1e+12". */
void timestep_limit_source(const struct sim *s, char *buf, size_t len);
/* An automatic step takes at most this share of the springs' stable step. Half: the
 * ordinary Mindlin spring never comes near (timestep_springs.c: its stable step is 3
 * or more times the normal law's automatic step), and a spring that does keeps a
 * margin of two for the several contacts a particle has. */
#define TIMESTEP_SPRING_SHARE 0.5

/* Chooses or checks the step. Returns 0 or -1 with a message that starts with the key
 * at fault. What a case asks of the step is checked apart (timestep_check_speeds,
 * timestep_schedule: `dempact check` and `run` call them), since a simulation built in
 * code (dempact collide, bench, the tests) has no time.end. */
int choose_timestep(struct sim *s, char *err, size_t err_len);
/* The default v_floor of the laws that have one (models/law_params.h): sqrt(2 |g| d),
 * d the diameter of the smallest particle (or of what the inlets insert), under gravity;
 * 1 mm/s without. */
double timestep_velocity_floor(const struct sim *s);

/* A particle may move at most WATCHDOG_STEP_FRACTION (half) of its radius in one step:
 * beyond that the step cannot resolve its contacts. Refuses, naming the key, what would
 * move faster from the start: a particle's initial velocity (its id), an inlet's
 * velocity, a wall's motion (its fastest material point in the domain), and a free fall
 * across the whole domain under gravity. A particle file's rows are named by their source
 * (the config's sources must still be there: not after sim_config.sources_copied freed
 * them). Returns 0 or -1 with a message. */
int timestep_check_speeds(const struct sim *s, char *err, size_t err_len);
/* The same rule for local particle i at velocity v (its own, or one about to replace it):
 * |v| dt at most WATCHDOG_STEP_FRACTION of its radius. Returns 0 or -1 with a message
 * "WHO: particle ID at (x, y, z) m VERB |v| m/s: it would move ...". */
int timestep_check_particle_speed(const struct sim *s, size_t i, const double v[3], const char *who,
                                  const char *verb, char *err, size_t err_len);
/* The same check for wall k given the motion w (its own, or one about to replace it):
 * its fastest material point in the domain must move at most WATCHDOG_STEP_FRACTION of
 * the smallest radius per step. Returns 0 or -1 with a message naming walls[k]. */
int timestep_check_wall_speed(const struct sim *s, int k, const struct wall_spec *w,
                              char *err, size_t err_len);

/* The run in steps, from time.end, time.output_interval and time.timeseries_interval at
 * the step s->dt. */
#define TIMESTEP_MAX_STEPS 9007199254740992.0 /* 2^53: time = step x dt stays exact */
#define TIMESTEP_MAX_SNAPSHOTS 1000000.0
#define TIMESTEP_MAX_OUTPUT_BYTES 1e12 /* 1 TB */
#define TIMESTEP_SNAPSHOT_BYTES_PER_PARTICLE 212.0 /* the per-particle datasets alone */
typedef struct run_schedule {
    int64_t steps;        /* to time.end */
    int64_t every;        /* steps between snapshots (the last is written anyway) */
    int64_t sample_every; /* steps between time-series samples */
    int64_t snapshots;    /* how many the run writes, the first and last included */
    double particles;     /* the most particles a snapshot can hold (inlets included) */
    double bytes;         /* a floor of the output's size: the snapshots' per-particle data */
} run_schedule;

/* Fills *out. Refuses (returns -1 with a message naming the key, the value and the
 * limit) a time.end shorter than one step, more than TIMESTEP_MAX_STEPS steps, an output or time-series interval shorter
 * than the step, more than TIMESTEP_MAX_SNAPSHOTS snapshots or an output estimated above
 * TIMESTEP_MAX_OUTPUT_BYTES. Called by `dempact check` and again by `dempact run` once
 * --end-time and a restart have set the end and the step. Collective when split over
 * ranks (it counts every rank's particles). */
int timestep_schedule(const struct sim *s, run_schedule *out, char *err, size_t err_len);
/* The step a run to end_time ends at, the first whose time reaches it (ceil(end_time /
 * dt), within 1e-9 of a step); refuses, as timestep_schedule does (its first two checks),
 * an end shorter than one step and one beyond TIMESTEP_MAX_STEPS steps. */
int timestep_end_step(const struct sim *s, double end_time, int64_t *end_step, char *err,
                      size_t err_len);

/* The interval an automatic step divides: the time-series interval when the output
 * interval is a whole number of them (by default it is a tenth of the output
 * interval), else the output interval; the time-series interval when there is no
 * output interval (snapshots first and last only); 0 when neither is set (the step is
 * not adjusted). */
double timestep_output_grid(const struct sim_config *cfg);

#endif
