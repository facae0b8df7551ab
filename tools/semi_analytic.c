/* The semi-analytic binary-collision integrator of Alaci et al. ("Method of
 * integration for equation of two balls in dumped collision"), for the Hertzian damping
 * laws F = K x^n (1 + chi x'/v0) of docs/physics.md.
 *
 * The method, as the paper gives it:
 *  1. First integral (the paper's eqs. 7-15). With s = v/v0 and
 *     m* v dv/dx = -K x^n (1 + chi s):
 *         s ds / (1 + chi s) = -(K / (m* v0^2)) x^n dx,
 *     and with h(s) = int_0^s u du / (1 + chi u) = (chi s - ln(1 + chi s)) / chi^2,
 *         h(1) - h(s) = K x^(n+1) / ((n+1) m* v0^2)
 *     on both branches (compression s > 0, restitution s < 0; the paper's eqs. 14 and 15
 *     at n = 3/2). The maximum approach is s = 0 (the paper's eq. 12 has its exponent
 *     upside down and drops factors; the form used here is derived afresh), and the
 *     speed at separation is the negative root of h(s) = h(1): e_out = -s.
 *  2. Grid (the paper's eq. 16): x_k = x_m (1 - alpha^(k/n)) / (1 - alpha), k = 0..n, with
 *     0 < alpha < 1, spacing alpha times finer at x_m than at 0; the restitution grid
 *     x'_k = x_m (beta^(k/n) - beta)/(1 - beta), beta = 1/alpha, is the same point set
 *     in reverse (x'_k = x_{n-k}), so each branch's speeds are computed at the same x.
 *  3. Time by dt = dx / v over the grid (eqs. 18, 23), t_m from the osculating circle
 *     at x_m (eq. 21), since 1/v is singular there.
 *
 * Choices where the paper is vague (all documented in the header too):
 *  - Variables. Everything is computed in scaled variables y = x / x_el, s = v / v0,
 *    tau = t v0 / x_el with x_el = ((n+1) m* v0^2 / (2K))^(1/(n+1)), the undamped
 *    maximum approach (the paper's eq. 22 at n = 3/2). Then h(1) - h(s) = y^(n+1) / 2,
 *    y_m = (2 h(1))^(1/(n+1)), and the results depend on chi and n only. The paper's
 *    circle (eq. 21) mixes units of time and length; in these variables it is
 *    dimensionless (and, for close points, insensitive to the scaling: it tends to the
 *    parabola with vertex at x_m).
 *  - Grid: the paper's law (eq. 16) with its alpha = 1/200 and its 20,000 points (the
 *    count it used for t_m / t_el) by default; alpha = 1 is accepted as the equidistant
 *    grid. Near x_m, 1 - x_k/x_m = (alpha^(k/n) - alpha)/(1 - alpha) is computed
 *    directly (not as 1 minus x_k), and h(1) - h(s) = h(1) (1 - (x/x_m)^(n+1)) with
 *    expm1/log1p, so the speeds next to x_m keep their digits.
 *  - Root finding: the paper bisects eqs. 14 and 15 to 1e-15. Here the unknown is found
 *    from G(s) = s sqrt(2 p(chi s)) = +-sqrt(2 (h(1) - y^(n+1)/2)), where
 *    p(u) = (u - ln(1+u))/u^2 (so h(s) = s^2 p(chi s)); G is smooth and increasing
 *    through s = 0 (G'(s) = 1/((1 + chi s) sqrt(2 p)) > 0, G ~ s), which removes the
 *    square-root behaviour of h near the turning point. Safeguarded Newton inside a
 *    bracket ([0, 1] on compression, [-min(1, 1/chi), 0] on restitution), converged to
 *    a couple of ulp. p is summed as a series for |u| <= 1/4 (h = (chi s -
 *    ln(1 + chi s))/chi^2 would cancel catastrophically for small chi, e.g. chi ~ 1e-3
 *    at e = 0.999).
 *  - Quadrature (SA_QUAD_ACCURATE, the default): on each interval
 *        dt = 2 dx / (|v_{k-1}| + |v_k|),
 *    the exact time when v^2 is linear in x over the interval (constant acceleration).
 *    It is second order on the smooth part, and on the interval that ends at x_m
 *    (v = 0) it gives 2 dx / v_{n-1}: the time along the osculating circle / parabola
 *    with its top at (t_m, x_m) through (t_{n-1}, x_{n-1}) with the known slope
 *    v_{n-1}. That is the paper's circle (eq. 21: centre on the vertical of x_m), fitted
 *    to the exact slope from the first integral instead of to the Euler time of the
 *    point before; the singular 1/v is never evaluated at x_m. The restitution branch
 *    starts at x_m with the same treatment.
 *  - Quadrature (SA_QUAD_SEED): the paper literally. Euler steps with the speed at the
 *    end of each step, t_k = t_{k-1} + (x_k - x_{k-1}) / v_k for k = 1..n-1 (eq. 18);
 *    t_m from the circle through (t_{n-2}, x_{n-2}), (t_{n-1}, x_{n-1}) and (t_m, x_m)
 *    whose centre lies on t = t_m (eq. 21), solved in closed form; then
 *    t'_k = t'_{k-1} + (x'_k - x'_{k-1}) / v'_k for k = 1..n (eq. 23). First order:
 *    each Euler step overestimates the compression time and underestimates the
 *    restitution time (the first restitution step by half).
 *  - What the paper printed (sa_seed_compression; tests/test_semi_analytic.c). For
 *    Lankarani-Nikravesh (the model of its section 2) at e = 0.999 with 20,000 points
 *    and alpha = 1/200, these Euler times reproduce its t'/t_el = 1.041884 (sine fit,
 *    eq. 19) and t''/t_el = 1.024045 (eq. 20, evaluated with eq. 19's t'_m in the
 *    denominator) to every printed digit, which confirms the grid, the Euler rule and
 *    t_el. Its t'''/t_el = 0.999574 is NOT what eq. 21 gives when solved: the circle
 *    gives 1.000276, in any units (for points this close to x_m the circle is the
 *    parabola with its top at x_m, and T = t_m - t_{n-1} = a / (sqrt(rho) - 1) with
 *    a = t_{n-1} - t_{n-2}, rho = (x_m - x_{n-2}) / (x_m - x_{n-1}) ~ 2, so T ~ 2.41 a;
 *    shrinking the time unit only lengthens T). The printed 0.999574 is, to all its
 *    digits (0.9995743), t_{n-1} + a: equal last two steps. That is where a solver of
 *    eq. 21 started from the equal-step guess would stop at once if its tolerance were
 *    absolute in SI units (the residuals are ~1e-15 s^2 for 1 cm steel balls at
 *    1 m/s): a guess about the paper's code, not something it says. The converged
 *    t_m/t_el is 0.999761
 *    (SA_QUAD_ACCURATE; grids of 2e4 and 2e5 agree to 1e-9): the printed 0.999574 is
 *    1.9e-4 low, eq. 21 on the paper's Euler times 2.6e-4 high.
 *  - Peak force: F = K x^n (1 + chi v/v0) is maximised over the grid points of both
 *    branches, then refined by golden-section search on the continuous F(x) (v(x) from
 *    the first integral) over the two intervals around the best point. The time of the
 *    peak is interpolated linearly in x between grid times.
 *  - t_el (the paper's eq. 22): x_el / v0 int_0^1 dy / sqrt(1 - y^(n+1)), the undamped
 *    compression time (half the contact), in closed form with Gamma functions. */
#include "semi_analytic.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GRID 20000
#define DEFAULT_ALPHA (1.0 / 200.0)

/* p(u) = (u - ln(1 + u)) / u^2 = sum_k (-u)^k / (k + 2), so h(s) = s^2 p(chi s);
 * +inf at u <= -1. */
static double p_of(double u)
{
    if (fabs(u) <= 0.25) {
        double sum = 0.0, pw = 1.0;
        for (int k = 0; k < 64; k++) {
            double term = pw / (k + 2);
            sum += term;
            if (fabs(term) < 1e-18 * sum) break;
            pw *= -u;
        }
        return sum;
    }
    if (u <= -1.0) return HUGE_VAL;
    return (u - log1p(u)) / (u * u);
}

/* G(s) = sign(s) sqrt(2 h(s)) and its derivative. */
static double g_of(double s, double chi) { return s * sqrt(2.0 * p_of(chi * s)); }
static double g_prime(double s, double chi)
{
    double u = chi * s;
    return 1.0 / ((1.0 + u) * sqrt(2.0 * p_of(u)));
}

/* The s in [lo, hi] with G(s) = w (G(lo) <= w <= G(hi)): safeguarded Newton. */
static double solve_s(double w, double chi, double lo, double hi)
{
    if (w == 0.0) return 0.0;
    double s = fmin(fmax(w, lo), hi); /* G(s) ~ s */
    for (int it = 0; it < 300; it++) {
        double g = g_of(s, chi) - w;
        if (g == 0.0) return s;
        if (g > 0.0) hi = s; else lo = s;
        double next = s - g / g_prime(s, chi);
        if (!(next > lo && next < hi)) next = lo + 0.5 * (hi - lo);
        if (fabs(next - s) <= 2.0 * DBL_EPSILON * fabs(next)) return next;
        if (next <= lo || next >= hi) return next; /* bracket exhausted */
        s = next;
    }
    return s;
}

double sa_restitution(double chi)
{
    if (!(chi >= 0.0)) return NAN;
    if (chi == 0.0) return 1.0;
    double lo = -fmin(1.0, 1.0 / chi);
    return -solve_s(-g_of(1.0, chi), chi, lo, 0.0);
}

double sa_elastic_time_factor(double n)
{
    double a = 1.0 / (n + 1.0);
    return sqrt(M_PI) * tgamma(1.0 + a) / tgamma(0.5 + a);
}

size_t sa_loop_size(const sa_options *opt)
{
    int n = opt && opt->grid > 0 ? opt->grid : DEFAULT_GRID;
    return 2 * (size_t)n + 1;
}

/* A branch of the first integral at the grid point with q = 1 - x/x_m. */
typedef struct branch_ctx {
    double chi, n, y_m, w_m; /* w_m = G(1) = sqrt(2 h(1)) = y_m^((n+1)/2) */
    int restitution;
} branch_ctx;

static double speed_at_q(const branch_ctx *b, double q)
{
    /* 1 - (x/x_m)^(n+1), accurate next to x_m */
    double c = -expm1((b->n + 1.0) * log1p(-q));
    double w = b->w_m * sqrt(fmax(c, 0.0));
    if (!b->restitution) return solve_s(w, b->chi, 0.0, 1.0);
    double lo = b->chi > 0.0 ? -fmin(1.0, 1.0 / b->chi) : -1.0;
    return solve_s(-w, b->chi, lo, 0.0);
}

/* Scaled force y^n (1 + chi s) at q. */
static double force_at_q(const branch_ctx *b, double q)
{
    double y = b->y_m * (1.0 - q), s = speed_at_q(b, q);
    return pow(y, b->n) * (1.0 + b->chi * s);
}

/* Golden-section search for the max of force_at_q on [a, c]; returns the max, sets *q_best. */
static double refine_peak(const branch_ctx *b, double a, double c, double *q_best)
{
    const double r = 0.5 * (sqrt(5.0) - 1.0);
    double x1 = c - r * (c - a), x2 = a + r * (c - a);
    double f1 = force_at_q(b, x1), f2 = force_at_q(b, x2);
    for (int it = 0; it < 200 && c - a > 1e-15; it++) {
        if (f1 >= f2) { c = x2; x2 = x1; f2 = f1; x1 = c - r * (c - a); f1 = force_at_q(b, x1); }
        else          { a = x1; x1 = x2; f1 = f2; x2 = a + r * (c - a); f2 = force_at_q(b, x2); }
    }
    /* the ends too: the max may sit on an end (at x_m when chi = 0) */
    double best = f1 >= f2 ? f1 : f2, qb = f1 >= f2 ? x1 : x2;
    double fa = force_at_q(b, a), fc = force_at_q(b, c);
    if (fa > best) { best = fa; qb = a; }
    if (fc > best) { best = fc; qb = c; }
    *q_best = qb;
    return best;
}

/* Seed eq. 21 in closed form: the circle through (t2, x2), (t1, x1), (t_m, x_m) with its
 * centre at (t_m, x_O). With d_j = x_m - x_j, a = t1 - t2 and T = t_m - t1:
 * T^2 = d1 (2r - d1), (T + a)^2 = d2 (2r - d2), r = x_m - x_O; eliminating r,
 * (rho - 1) T^2 - 2 a T - (a^2 + d2 (d2 - d1)) = 0 with rho = d2/d1 > 1. */
static double circle_time(double a, double d1, double d2)
{
    double rho = d2 / d1;
    double c = a * a + d2 * (d2 - d1);
    return (a + sqrt(a * a + (rho - 1.0) * c)) / (rho - 1.0);
}

/* The grid and the speeds on it, in scaled variables; tc/tr are left to the caller. */
typedef struct grid {
    int n_grid;
    double chi, n, x_el, t_scale, f_scale, w_m, y_m;
    double *q, *y, *sc, *sr, *tc, *tr;
    branch_ctx bc, br;
} grid;

static void grid_free(grid *g)
{
    free(g->q); free(g->y); free(g->sc); free(g->sr); free(g->tc); free(g->tr);
}

static int grid_build(grid *g, const sa_problem *p, const sa_options *opt, char *err,
                      size_t err_len)
{
    memset(g, 0, sizeof *g);
    int n_grid = opt && opt->grid > 0 ? opt->grid : DEFAULT_GRID;
    double alpha = opt && opt->alpha > 0.0 ? opt->alpha : DEFAULT_ALPHA;
    if (!(p->chi >= 0.0 && isfinite(p->chi)) || !(p->n > 0.0 && isfinite(p->n)) ||
        !(p->K > 0.0 && isfinite(p->K)) || !(p->m_eff > 0.0 && isfinite(p->m_eff)) ||
        !(p->v0 > 0.0 && isfinite(p->v0))) {
        snprintf(err, err_len, "chi = %g, n = %g, K = %g, m* = %g, v0 = %g: give chi >= 0 and "
                 "positive n, K, m*, v0", p->chi, p->n, p->K, p->m_eff, p->v0);
        return -1;
    }
    if (n_grid < 3 || !(alpha > 0.0 && alpha <= 1.0)) {
        snprintf(err, err_len, "grid = %d, alpha = %g: give grid >= 3 and alpha in (0, 1]",
                 n_grid, alpha);
        return -1;
    }
    const double chi = p->chi, n = p->n;
    g->n_grid = n_grid;
    g->chi = chi;
    g->n = n;
    g->x_el = pow((n + 1.0) * p->m_eff * p->v0 * p->v0 / (2.0 * p->K), 1.0 / (n + 1.0));
    g->t_scale = g->x_el / p->v0;
    g->f_scale = p->K * pow(g->x_el, n);
    g->w_m = g_of(1.0, chi);                    /* sqrt(2 h(1)) */
    g->y_m = pow(g->w_m, 2.0 / (n + 1.0));      /* y_m^(n+1) = 2 h(1) */

    size_t np = (size_t)n_grid + 1;
    g->q = malloc(np * sizeof *g->q);
    g->y = malloc(np * sizeof *g->y);
    g->sc = malloc(np * sizeof *g->sc);
    g->sr = malloc(np * sizeof *g->sr);
    g->tc = malloc(np * sizeof *g->tc);
    g->tr = malloc(np * sizeof *g->tr);
    if (!g->q || !g->y || !g->sc || !g->sr || !g->tc || !g->tr) {
        grid_free(g);
        snprintf(err, err_len, "out of memory for a grid of %d points", n_grid);
        return -1;
    }
    /* grid (the paper's eq. 16), q_k = 1 - x_k/x_m */
    const double la = log(alpha);
    for (int k = 0; k <= n_grid; k++) {
        double qk;
        if (k == 0) qk = 1.0;
        else if (k == n_grid) qk = 0.0;
        else if (alpha == 1.0) qk = (double)(n_grid - k) / n_grid;
        else qk = (exp(la * k / n_grid) - alpha) / (1.0 - alpha);
        g->q[k] = qk;
        g->y[k] = g->y_m * (1.0 - qk);
    }
    g->bc = (branch_ctx){.chi = chi, .n = n, .y_m = g->y_m, .w_m = g->w_m, .restitution = 0};
    g->br = g->bc;
    g->br.restitution = 1;
    for (int k = 0; k <= n_grid; k++) {
        g->sc[k] = k == 0 ? 1.0 : speed_at_q(&g->bc, g->q[k]);
        g->sr[k] = speed_at_q(&g->br, g->q[k]); /* sr[0] = -e_out */
    }
    g->sc[n_grid] = 0.0;
    g->sr[n_grid] = 0.0;
    return 0;
}

/* y interval (k-1, k), from the q's so that the ones next to x_m keep their digits */
static double dy(const grid *g, int k) { return g->y_m * (g->q[k - 1] - g->q[k]); }

/* Seed eq. 18: Euler times t_0..t_{n-1} on the compression branch (scaled). */
static void seed_euler_compression(grid *g)
{
    g->tc[0] = 0.0;
    for (int k = 1; k < g->n_grid; k++) g->tc[k] = g->tc[k - 1] + dy(g, k) / g->sc[k];
}

int sa_solve(const sa_problem *p, const sa_options *opt, sa_result *r, sa_sample *loop,
             char *err, size_t err_len)
{
    grid g;
    if (grid_build(&g, p, opt, err, err_len) != 0) return -1;
    sa_quadrature quad = opt ? opt->quadrature : SA_QUAD_ACCURATE;
    const int n_grid = g.n_grid;
    const double chi = g.chi, n = g.n, y_m = g.y_m;
    const double *q = g.q, *y = g.y, *sc = g.sc, *sr = g.sr;
    double *tc = g.tc, *tr = g.tr;

    /* time on the compression branch, tc[k] at y[k]; on the restitution branch, tr[k]
     * at y[k] counted from t_m (tr[n] = 0, tr[0] = restitution time) */
    tc[0] = 0.0;
    tr[n_grid] = 0.0;
    if (quad == SA_QUAD_SEED) {
        seed_euler_compression(&g);
        double a = tc[n_grid - 1] - tc[n_grid - 2];
        double d1 = y_m * q[n_grid - 1], d2 = y_m * q[n_grid - 2];
        tc[n_grid] = tc[n_grid - 1] + circle_time(a, d1, d2);
        /* eq. 23: t'_k = t'_{k-1} + (x'_k - x'_{k-1}) / v'_k, x'_k = x_{n-k} */
        for (int k = n_grid - 1; k >= 0; k--) tr[k] = tr[k + 1] + dy(&g, k + 1) / -sr[k];
    } else {
        for (int k = 1; k <= n_grid; k++)
            tc[k] = tc[k - 1] + 2.0 * dy(&g, k) / (sc[k - 1] + sc[k]);
        for (int k = n_grid - 1; k >= 0; k--)
            tr[k] = tr[k + 1] + 2.0 * dy(&g, k + 1) / (-sr[k] - sr[k + 1]);
    }
    const double tau_m = tc[n_grid], tau_r = tr[0];

    /* peak force: the grid, then golden section around the best point of each branch */
    double f_best = -1.0, q_best = 0.0, t_best = 0.0;
    for (int b = 0; b < 2; b++) {
        const double *s = b ? sr : sc;
        const branch_ctx *ctx = b ? &g.br : &g.bc;
        int kb = 0;
        double fb = -1.0;
        for (int k = 0; k <= n_grid; k++) {
            double f = pow(y[k], n) * (1.0 + chi * s[k]);
            if (f > fb) { fb = f; kb = k; }
        }
        double lo = q[kb < n_grid ? kb + 1 : n_grid], hi = q[kb > 0 ? kb - 1 : 0];
        double qb, fr = refine_peak(ctx, lo, hi, &qb);
        if (fr < fb) { fr = fb; qb = q[kb]; }
        if (fr > f_best) {
            f_best = fr;
            q_best = qb;
            /* time: linear in x between the grid points around qb */
            int k = kb;
            if (k < n_grid && qb < q[k]) k++; /* qb lies in [q[k], q[k-1]] */
            if (k == 0) k = 1;
            const double *t = b ? tr : tc;
            double w = (q[k - 1] - qb) / (q[k - 1] - q[k]);
            double tk = t[k - 1] + w * (t[k] - t[k - 1]);
            t_best = b ? tau_m + tau_r - tk : tk;
        }
    }

    const double x_el = g.x_el, t_scale = g.t_scale, f_scale = g.f_scale;
    r->restitution = -sr[0];
    r->x_max = y_m * x_el;
    r->t_compression = tau_m * t_scale;
    r->t_restitution = tau_r * t_scale;
    r->t_contact = (tau_m + tau_r) * t_scale;
    r->peak_force = f_best * f_scale;
    r->x_at_peak = y_m * (1.0 - q_best) * x_el;
    r->t_at_peak = t_best * t_scale;
    r->x_elastic = x_el;
    r->t_elastic = sa_elastic_time_factor(n) * t_scale;

    if (loop) {
        size_t i = 0;
        for (int k = 0; k <= n_grid; k++, i++) {
            loop[i].t = tc[k] * t_scale;
            loop[i].x = y[k] * x_el;
            loop[i].v = sc[k] * p->v0;
            loop[i].f = pow(y[k], n) * (1.0 + chi * sc[k]) * f_scale;
        }
        for (int k = n_grid - 1; k >= 0; k--, i++) {
            loop[i].t = (tau_m + tr[k]) * t_scale;
            loop[i].x = y[k] * x_el;
            loop[i].v = sr[k] * p->v0;
            loop[i].f = pow(y[k], n) * (1.0 + chi * sr[k]) * f_scale;
        }
    }
    grid_free(&g);
    return 0;
}

/* Least-squares sine fits of the paper's eqs. 19-20 over the points k = 0..m-1. */
typedef struct fit_data {
    const double *t, *x;
    int m;
    double x_m, t_through; /* eq. 20: the sine passes through (t_through, x_m) */
} fit_data;

/* eq. 19 with A eliminated (variable projection): S(mu) = sum x^2 - (sum x s)^2 / sum s^2 */
static double fit_free_amplitude(const fit_data *d, double mu)
{
    double xs = 0.0, ss = 0.0, xx = 0.0;
    for (int k = 0; k < d->m; k++) {
        double s = sin(mu * d->t[k]);
        xs += d->x[k] * s;
        ss += s * s;
        xx += d->x[k] * d->x[k];
    }
    return ss > 0.0 ? xx - xs * xs / ss : xx;
}

static double fit_through_top(const fit_data *d, double mu)
{
    double a = d->x_m / sin(mu * d->t_through), sum = 0.0;
    for (int k = 0; k < d->m; k++) {
        double r = a * sin(mu * d->t[k]) - d->x[k];
        sum += r * r;
    }
    return sum;
}

/* Golden-section minimum of f(d, mu) on [a, c]. */
static double golden_min(double (*f)(const fit_data *, double), const fit_data *d, double a,
                         double c)
{
    const double r = 0.5 * (sqrt(5.0) - 1.0);
    double x1 = c - r * (c - a), x2 = a + r * (c - a), f1 = f(d, x1), f2 = f(d, x2);
    for (int it = 0; it < 200 && c - a > 1e-14 * c; it++) {
        if (f1 < f2) { c = x2; x2 = x1; f2 = f1; x1 = c - r * (c - a); f1 = f(d, x1); }
        else         { a = x1; x1 = x2; f1 = f2; x2 = a + r * (c - a); f2 = f(d, x2); }
    }
    return 0.5 * (a + c);
}

int sa_seed_compression(const sa_problem *p, const sa_options *opt, sa_seed_times *out,
                        char *err, size_t err_len)
{
    grid g;
    if (grid_build(&g, p, opt, err, err_len) != 0) return -1;
    const int n = g.n_grid;
    seed_euler_compression(&g);
    const double *t = g.tc, y_m = g.y_m;
    double a = t[n - 1] - t[n - 2];
    double t_circle = t[n - 1] + circle_time(a, y_m * g.q[n - 1], y_m * g.q[n - 2]);

    /* the fits: mu near pi / (2 t_m); the sums are unimodal over [0.5, 1.5] of that */
    fit_data d = {.t = t, .x = g.y, .m = n, .x_m = y_m};
    double mu0 = 0.5 * M_PI / t[n - 1];
    double mu1 = golden_min(fit_free_amplitude, &d, 0.5 * mu0, 1.5 * mu0);
    double t_sine = 0.5 * M_PI / mu1;
    d.t_through = t_sine;
    /* x_m sin(mu t)/sin(mu t') needs mu t' < pi */
    double mu2 = golden_min(fit_through_top, &d, 0.5 * mu0, fmin(1.5 * mu0, 0.999 * M_PI / t_sine));

    out->t_sine = t_sine * g.t_scale;
    out->t_sine_xm = 0.5 * M_PI / mu2 * g.t_scale;
    out->t_circle = t_circle * g.t_scale;
    out->t_linear = (2.0 * t[n - 1] - t[n - 2]) * g.t_scale;
    out->t_last = t[n - 1] * g.t_scale;
    out->t_elastic = sa_elastic_time_factor(g.n) * g.t_scale;
    grid_free(&g);
    return 0;
}

double sa_law_chi(const char *law, double e)
{
    if (!law || !(e > 0.0 && e <= 1.0)) return NAN;
    if (!strcmp(law, "hunt_crossley")) return 1.5 * (1.0 - e);
    if (!strcmp(law, "lankarani_nikravesh")) return 0.75 * (1.0 - e) * (1.0 + e);
    if (!strcmp(law, "flores")) return 8.0 * (1.0 - e) / (5.0 * e);
    if (!strcmp(law, "gharib_hurmuzlu")) return 1.0 / e;
    if (!strcmp(law, "hu_guo")) return 3.0 * (1.0 - e) / (2.0 * e);
    if (!strcmp(law, "safaeifar_farshidianfar")) return 5.0 * (1.0 - e) / (4.0 * e);
    if (!strcmp(law, "sheikhi_azqandi_safaeifar")) return 200.0 / 159.0 * (1.0 - e) / e;
    if (!strcmp(law, "exact")) {
        /* the chi whose first-integral restitution is e: sa_restitution decreases in chi */
        if (e == 1.0) return 0.0;
        double lo = 0.0, hi = 1.0 / e;
        for (int it = 0; it < 2000; it++) {
            double mid = lo + 0.5 * (hi - lo);
            if (mid <= lo || mid >= hi) break;
            if (sa_restitution(mid) > e) lo = mid; else hi = mid;
        }
        return 0.5 * (lo + hi);
    }
    return NAN;
}
