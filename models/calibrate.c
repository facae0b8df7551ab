#include "calibrate.h"
#include "law_params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define STEPS_PER_CONTACT 4000
#define MAX_CONTACT_TIMES 200
#define RESTITUTION_TOLERANCE 1e-10
/* A solve gives up after this many Runge-Kutta steps of its trials (about 10 s): the
 * hardest solve that succeeds (hertz_lh to e = 1e-6 without cohesion removal) takes
 * 6.4e7; a trial that sticks takes 8e5, and a target the law cannot reach made up to
 * 260 of them. */
#define MAX_SOLVE_STEPS 100000000L

/* The law's normal force for one contact, with the engine's cohesion-removal clamp.
 * Where a Runge-Kutta stage looks past separation (d < 0) the law is evaluated at d = 0:
 * a continuous extension, so the last step keeps its accuracy for laws whose dashpot
 * force does not vanish with the overlap (linear, hertz_lh). */
static double force_at(const dem_law *law, const law_coeffs *c, const law_reference *ref,
                       double d, double rate, double *history)
{
    double f;
    d = fmax(d, 0.0);
    law_batch b = {.n = 1, .overlap = &d, .overlap_rate = &rate,
                   .impact_velocity = &ref->v0, .r_eff = &ref->r_eff, .m_eff = &ref->m_eff,
                   .force = &f};
    for (int h = 0; h < LAW_MAX_HISTORY; h++) b.history[h] = &history[h];
    law->force(c, &b);
    if (c->cohesion_removal && f < 0.0) f = 0.0;
    return f;
}

/* Where the overlap returns to 0 within the last step: the root of the cubic Hermite
 * interpolant through (d0, s0) and (d1, s1); returns the overlap rate there. */
static double rate_at_separation(double h, double d0, double s0, double d1, double s1)
{
    double lo = 0.0, hi = 1.0, t = 1.0;
    for (int it = 0; it < 80; it++) {
        t = 0.5 * (lo + hi);
        double t2 = t * t, t3 = t2 * t;
        double d = (2 * t3 - 3 * t2 + 1) * d0 + (t3 - 2 * t2 + t) * h * s0 +
                   (-2 * t3 + 3 * t2) * d1 + (t3 - t2) * h * s1;
        if (d > 0.0) lo = t; else hi = t;
    }
    double t2 = t * t;
    return ((6 * t2 - 6 * t) * d0 + (3 * t2 - 4 * t + 1) * h * s0 + (-6 * t2 + 6 * t) * d1 +
            (3 * t2 - 2 * t) * h * s1) / h;
}

/* law_restitution, adding the Runge-Kutta steps it took to *steps. */
static double restitution_counted(const dem_law *law, const law_coeffs *c,
                                  const law_reference *ref, long *steps);

double law_restitution(const dem_law *law, const law_coeffs *c, const law_reference *ref)
{
    long steps = 0;
    return restitution_counted(law, c, ref, &steps);
}

static double restitution_counted(const dem_law *law, const law_coeffs *c,
                                  const law_reference *ref, long *steps)
{
    double t_c = law->contact_time(c, ref->r_eff, ref->m_eff, ref->v0);
    if (!(t_c > 0.0) || !isfinite(t_c)) return NAN;
    double h = t_c / STEPS_PER_CONTACT, m = ref->m_eff;
    double history[LAW_MAX_HISTORY] = {0};
    double d = 0.0, s = ref->v0; /* overlap and its rate */
    for (long n = 0; n < (long)MAX_CONTACT_TIMES * STEPS_PER_CONTACT; n++) {
        ++*steps;
        double k1d = s, k1s = -force_at(law, c, ref, d, s, history) / m;
        double k2d = s + 0.5 * h * k1s;
        double k2s = -force_at(law, c, ref, d + 0.5 * h * k1d, k2d, history) / m;
        double k3d = s + 0.5 * h * k2s;
        double k3s = -force_at(law, c, ref, d + 0.5 * h * k2d, k3d, history) / m;
        double k4d = s + h * k3s;
        double k4s = -force_at(law, c, ref, d + h * k3d, k4d, history) / m;
        double d1 = d + h / 6.0 * (k1d + 2.0 * k2d + 2.0 * k3d + k4d);
        double s1 = s + h / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
        if (d1 <= 0.0 && n > 0) return fmax(0.0, -rate_at_separation(h, d, s, d1, s1)) / ref->v0;
        d = d1;
        s = s1;
    }
    return 0.0; /* stuck (the dashpot held the pair together): nothing restituted */
}

/* ---- the cache ------------------------------------------------------------------------ */

typedef struct cached_calibration {
    const dem_law *law;
    law_coeffs coeffs; /* as setup left them */
    law_reference ref;
    double target, solved;
} cached_calibration;

#define CACHE_SIZE 64
static cached_calibration cache[CACHE_SIZE];
static int cache_used, cache_next;

static int cache_match(const cached_calibration *e, const dem_law *law, const law_coeffs *c,
                       const law_reference *ref, double target)
{
    return e->law == law && e->target == target && memcmp(&e->ref, ref, sizeof *ref) == 0 &&
           memcmp(&e->coeffs, c, sizeof *c) == 0;
}

static int cache_find(const dem_law *law, const law_coeffs *c, const law_reference *ref,
                      double target, double *solved)
{
    int found = 0;
    #pragma omp critical(dempact_calibration_cache)
    for (int k = 0; k < cache_used && !found; k++)
        if (cache_match(&cache[k], law, c, ref, target)) {
            *solved = cache[k].solved;
            found = 1;
        }
    return found;
}

static void cache_store(const dem_law *law, const law_coeffs *c, const law_reference *ref,
                        double target, double solved)
{
    #pragma omp critical(dempact_calibration_cache)
    {
        cached_calibration *e = &cache[cache_next];
        e->law = law; e->coeffs = *c; e->ref = *ref; e->target = target; e->solved = solved;
        cache_next = (cache_next + 1) % CACHE_SIZE;
        if (cache_used < CACHE_SIZE) cache_used++;
    }
}

/* ---- the solve ------------------------------------------------------------------------- */

/* The poll of this thread's caller (law_calibrate_set_poll). */
static _Thread_local int (*calibrate_poll)(void *ctx);
static _Thread_local void *calibrate_poll_ctx;

void law_calibrate_set_poll(int (*poll)(void *ctx), void *ctx)
{
    calibrate_poll = poll;
    calibrate_poll_ctx = ctx;
}

typedef struct calibration_problem {
    const dem_law *law;
    law_coeffs trial;
    const law_reference *ref;
    double target;
    int evaluations;
    long steps;  /* Runge-Kutta steps of all trials */
    int stopped; /* the caller's poll asked to stop, or the trials' budget ran out */
} calibration_problem;

/* Restitution error as a function of u = ln(coefficient): the coefficient spans many
 * decades, and e_out is smooth and monotone in u. */
static double mismatch(calibration_problem *p, double u)
{
    if (p->stopped || (calibrate_poll && calibrate_poll(calibrate_poll_ctx))) {
        p->stopped = 1;
        return NAN;
    }
    if (p->steps > MAX_SOLVE_STEPS) {
        p->stopped = 2;
        return NAN;
    }
    p->trial.c[p->law->calibration->coeff] = exp(u);
    p->evaluations++;
    return restitution_counted(p->law, &p->trial, p->ref, &p->steps) - p->target;
}

/* Finds u_a, u_b with mismatches of opposite signs, walking from u0 in growing steps
 * towards more damping if the restitution is too high, less if too low. */
static int bracket(calibration_problem *p, double u0, double f0, double *ua, double *fa,
                   double *ub, double *fb)
{
    int more_damping = f0 > 0.0;
    double dir = more_damping != p->law->calibration->raises_restitution ? 1.0 : -1.0;
    double u = u0, f = f0, step = log(2.0);
    for (int k = 0; k < 60; k++, step *= 1.5) {
        double un = u + dir * step, fn = mismatch(p, un);
        if (isnan(fn)) return -1;
        if (fn * f <= 0.0) {
            *ua = u; *fa = f; *ub = un; *fb = fn;
            return 0;
        }
        u = un;
        f = fn;
    }
    return -1;
}

/* Why the solve stopped early: the caller's poll, or its budget of steps. */
static int solve_stopped(const calibration_problem *p, char *err, size_t err_len)
{
    if (p->stopped == 1)
        snprintf(err, err_len, "interrupted");
    else
        snprintf(err, err_len, "law %s: calibration to e = %g did not converge within %d trial "
                 "collisions (%ld integration steps, the limit)", p->law->name, p->target,
                 p->evaluations, p->steps);
    return -1;
}

int law_calibrate(const dem_law *law, law_coeffs *coeffs, const law_reference *ref,
                  double target, char *err, size_t err_len)
{
    const law_calibration *cal = law->calibration;
    if (!cal) {
        snprintf(err, err_len, "law %s has no damping coefficient to calibrate", law->name);
        return -1;
    }
    if (!(target > 0.0 && target <= 1.0)) {
        snprintf(err, err_len, "calibration needs a restitution in (0, 1], not %g", target);
        return -1;
    }
    double solved;
    if (cache_find(law, coeffs, ref, target, &solved)) {
        coeffs->c[cal->coeff] = solved;
        return 0;
    }
    calibration_problem p = {.law = law, .trial = *coeffs, .ref = ref, .target = target};
    double x0 = coeffs->c[cal->coeff];
    if (!(x0 > 0.0) || !isfinite(x0)) x0 = 1.0;
    double u0 = log(x0), f0 = mismatch(&p, u0);
    double ua, fa, ub, fb, u = u0, f = f0;
    if (p.stopped) return solve_stopped(&p, err, err_len);
    if (isnan(f0)) {
        snprintf(err, err_len, "law %s: the reference collision (R* = %g m, m* = %g kg, "
                 "v0 = %g m/s) cannot be integrated", law->name, ref->r_eff, ref->m_eff, ref->v0);
        return -1;
    }
    if (fabs(f0) > RESTITUTION_TOLERANCE) {
        if (bracket(&p, u0, f0, &ua, &fa, &ub, &fb) != 0 || p.stopped) {
            if (p.stopped) return solve_stopped(&p, err, err_len);
            snprintf(err, err_len, "law %s cannot restitute e = %g at any %s (from %g it "
                     "restitutes %g)", law->name, target, cal->coefficient, x0, f0 + target);
            return -1;
        }
        /* Illinois regula falsi: bisection's safety, near-secant speed */
        for (int it = 0; it < 200; it++) {
            u = (ua * fb - ub * fa) / (fb - fa);
            f = mismatch(&p, u);
            if (p.stopped) return solve_stopped(&p, err, err_len);
            if (fabs(f) <= RESTITUTION_TOLERANCE || fabs(ub - ua) < 1e-14 * fmax(1.0, fabs(u)))
                break;
            if (f * fb < 0.0) {
                ua = ub; fa = fb;
            } else {
                fa *= 0.5;
            }
            ub = u; fb = f;
        }
        if (fabs(f) > 1e3 * RESTITUTION_TOLERANCE) {
            snprintf(err, err_len, "law %s: calibration to e = %g did not converge (best %s = "
                     "%g restitutes %g)", law->name, target, cal->coefficient, exp(u), f + target);
            return -1;
        }
    }
    solved = exp(u);
    cache_store(law, coeffs, ref, target, solved);
    coeffs->c[cal->coeff] = solved;
    return 0;
}

/* ---- parameter rules -------------------------------------------------------------------- */

double law_target_restitution(const dem_law *law, const double *params)
{
    return law->calibration ? params[law->calibration->target] : NAN;
}

bool law_calibrates_by_default(const dem_law *law, const double *params)
{
    const law_calibration *cal = law->calibration;
    if (!cal || cal->fit < 0 || params[cal->fit] != LAW_FIT_CALIBRATED) return false;
    double e = params[cal->target];
    return e > 0.0 && e < 1.0 && (cal->given_damping < 0 || params[cal->given_damping] < 0.0);
}

bool law_param_required(const dem_law *law, int k, bool calibrate)
{
    return isnan(law->params[k].default_value) &&
           !(calibrate && law->calibration && law->calibration->solved_param == k);
}

int law_check_calibration(const dem_law *law, const double *params, bool calibrate,
                          char *err, size_t err_len)
{
    double e = law_target_restitution(law, params);
    if (calibrate) {
        if (!law->calibration) {
            snprintf(err, err_len, "law %s cannot be calibrated: it has no damping coefficient",
                     law->name);
            return -1;
        }
        if (!(e > 0.0 && e <= 1.0)) {
            snprintf(err, err_len, "calibrate needs the law's restitution, the e in (0, 1] that "
                     "a binary collision must restitute");
            return -1;
        }
        return 0;
    }
    /* hertz_kk, hertz_lh, hertz_critical_ratio: restitution is only a calibration target */
    if (law->calibration && law->calibration->solved_param >= 0 && e > 0.0) {
        snprintf(err, err_len, "restitution = %g is used only to calibrate law %s: add "
                 "calibrate: true, or drop it (%s sets the damping)", e, law->name,
                 law->params[law->calibration->solved_param].name);
        return -1;
    }
    return 0;
}
