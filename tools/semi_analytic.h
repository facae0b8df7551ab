/* The semi-analytic integrator of a binary collision under a Hertzian damping law
 * (the Hertzian damping laws of docs/physics.md; S. Alaci, D. A. Cerlinca, F. C. Ciornei,
 * C. Filote, G. Frunza, "Method of integration for equation of two balls in dumped
 * collision"):
 *
 *     m* x'' = -K x^n (1 + chi x'/v0),   x(0) = 0, x'(0) = v0,
 *
 * solved by the paper's method: the first integral gives the speed as a function of the
 * indentation x on both branches, hence the maximum approach x_m and the restitution;
 * time follows from dt = dx / v summed over a grid dense near x_m; the compression time
 * t_m comes from the osculating circle at x_m. See semi_analytic.c for the choices made
 * where the paper is vague.
 *
 * Independent of the engine: only <math.h>. */
#ifndef DEMPACT_SEMI_ANALYTIC_H
#define DEMPACT_SEMI_ANALYTIC_H

#include <stddef.h>

typedef struct sa_problem {
    double chi;   /* damping factor chi >= 0 (0: undamped Hertz) */
    double n;     /* exponent n > 0 (3/2: Hertz) */
    double K;     /* stiffness K > 0 [N/m^n] */
    double m_eff; /* effective mass m* > 0 [kg] */
    double v0;    /* impact velocity v0 > 0 [m/s] */
} sa_problem;

typedef enum sa_quadrature {
    /* dt = 2 dx / (|v_{k-1}| + |v_k|) on every interval (exact when v^2 is linear in x
     * over the interval, i.e. for a constant acceleration), including the one that
     * ends at x_m, where it is the osculating circle's (parabola's) time from the
     * last grid point with the known slope v_{n-1}. Second order; the default. */
    SA_QUAD_ACCURATE = 0,
    /* The paper exactly: Euler steps dt = dx / v_k (eqs. 18 and 23) and t_m from the
     * circle through the last three points of x(t) centred on the vertical of x_m
     * (eq. 21). First order; kept to reproduce the paper (see sa_seed_compression). */
    SA_QUAD_SEED = 1,
} sa_quadrature;

typedef struct sa_options {
    int grid;        /* points per branch n (intervals); 0: 20000, the paper's count */
    double alpha;    /* parameter of the grid law (the paper's eq. 16) in (0, 1); 0: 1/200,
                        the paper's */
    sa_quadrature quadrature;
} sa_options;

typedef struct sa_result {
    double restitution;   /* e_out = -v_final / v0 from the first integral */
    double x_max;         /* maximum approach x_m [m] */
    double t_compression; /* t_m [s] */
    double t_restitution; /* time from x_m back to x = 0 [s] */
    double t_contact;     /* t_m + t_restitution [s] */
    double peak_force;    /* max of K x^n (1 + chi v/v0) over both branches [N] */
    double x_at_peak;     /* indentation at the peak force [m] */
    double t_at_peak;     /* time of the peak force [s] */
    /* the undamped Hertz reference at the same K, n, m*, v0 (the paper's eq. 22) */
    double x_elastic;     /* ((n+1) m* v0^2 / (2K))^(1/(n+1)) [m] */
    double t_elastic;     /* compression time x_el/v0 int_0^1 dy / sqrt(1 - y^(n+1)) [s]
                             (1.4716 x_el / v0 at n = 3/2): half the contact time */
} sa_result;

/* One point of the trajectory on the grid. */
typedef struct sa_sample {
    double t; /* s */
    double x; /* indentation [m] */
    double v; /* dx/dt [m/s]: > 0 approaching, < 0 separating */
    double f; /* force K x^n (1 + chi v/v0) [N] */
} sa_sample;

/* Number of samples sa_solve writes to `loop`: the compression branch k = 0..n
 * (x = 0 to x_m), then the restitution branch k = 1..n (x_m back to 0). */
size_t sa_loop_size(const sa_options *opt);

/* Solves the collision. opt may be NULL (defaults). loop may be NULL, or hold
 * sa_loop_size(opt) samples. Returns 0, or -1 with a message in err. */
int sa_solve(const sa_problem *p, const sa_options *opt, sa_result *r, sa_sample *loop,
             char *err, size_t err_len);

/* The paper's three extrapolations of its Euler times to t_m (section 3), on the
 * compression branch of the SA_QUAD_SEED integration (grid and alpha from opt; the
 * quadrature field is ignored). All times in seconds. */
typedef struct sa_seed_times {
    double t_sine;    /* t'_m: x = A sin(mu t) fitted by least squares to the points
                         k = 0..n-1 (eq. 19), t'_m = pi / (2 mu) */
    double t_sine_xm; /* t''_m: x = x_m sin(mu t) / sin(mu t'_m) fitted for mu (eq. 20
                         with eq. 19's t'_m in the denominator: that is what reproduces
                         the printed value), t''_m = pi / (2 mu) */
    double t_circle;  /* eq. 21 solved exactly: the circle through points n-2, n-1 and
                         (t_m, x_m) with its centre on t = t_m */
    double t_linear;  /* 2 t_{n-1} - t_{n-2} (equal last two steps): what the paper
                         printed as its circle value (see semi_analytic.c) */
    double t_last;    /* t_{n-1}, the last Euler time */
    double t_elastic; /* the paper's eq. 22 */
} sa_seed_times;

int sa_seed_compression(const sa_problem *p, const sa_options *opt, sa_seed_times *out,
                        char *err, size_t err_len);

/* int_0^1 dy / sqrt(1 - y^(n+1)) = sqrt(pi) Gamma(1 + 1/(n+1)) / Gamma(1/2 + 1/(n+1));
 * 1.47164... at n = 3/2. */
double sa_elastic_time_factor(double n);

/* The restitution chi produces, e_out, from the first integral alone (no grid). */
double sa_restitution(double chi);

/* chi(e) of a Hertzian damping law by its engine name (docs/physics.md's table, written here
 * independently of models/hertz_damping.c; "exact" is solved with sa_restitution).
 * NAN for an unknown name or e outside (0, 1]. */
double sa_law_chi(const char *law, double e);

#endif
