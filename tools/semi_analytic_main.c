/* semi_analytic: Alaci et al.'s semi-analytic integrator of a binary collision under a
 * Hertzian damping law (tools/semi_analytic.h), as a command-line check of the engine. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semi_analytic.h"

static const char *const laws[] = {
    "hunt_crossley", "lankarani_nikravesh", "flores", "gharib_hurmuzlu", "hu_guo",
    "safaeifar_farshidianfar", "sheikhi_azqandi_safaeifar", "exact", NULL,
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: semi_analytic --law NAME --restitution E [--chi CHI]\n"
            "         [--velocity V0] [--radius R] [--density RHO] [--young Y] [--poisson NU]\n"
            "         [--stiffness K] [--exponent N] [--grid N] [--alpha A] [--seed-quadrature]\n"
            "         [--loop]\n"
            "       semi_analytic --seed-check [--grid N] [--alpha A]\n\n"
            "Solves m* x'' = -K x^n (1 + chi x'/v0) for two identical spheres meeting head on\n"
            "at relative speed V0, by the method of Alaci et al. (first integral for v(x),\n"
            "time by dt = dx/v over a grid dense near the maximum approach, osculating circle\n"
            "at the top), and prints the restitution, maximum approach, compression,\n"
            "restitution and contact times and peak force, in SI units. chi comes from the\n"
            "law's chi(e) (docs/physics.md) or from --chi. --loop then prints the\n"
            "force-overlap loop on the grid as CSV (overlap,force; the results become '#'\n"
            "comment lines).\n"
            "--seed-quadrature uses the paper's Euler steps and circle instead of the\n"
            "second-order rule. --seed-check prints the paper's t_m / t_el at e = 0.999\n"
            "(Lankarani-Nikravesh) by each of its extrapolations, beside the printed ones.\n\n"
            "laws: hunt_crossley lankarani_nikravesh flores gharib_hurmuzlu hu_guo\n"
            "      safaeifar_farshidianfar sheikhi_azqandi_safaeifar exact\n"
            "defaults: R = 0.01 m, steel (7800 kg/m^3, 2e11 Pa, 0.3), V0 = 1 m/s,\n"
            "K = 4/3 E* sqrt(R*), n = 3/2, grid 20000 points, alpha = 1/200.\n");
}

static int parse_number(const char *name, const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v)) {
        fprintf(stderr, "semi_analytic: --%s: not a number: '%s'\n", name, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int seed_check(const sa_options *opt)
{
    const double e = 0.999;
    sa_problem p = {.chi = sa_law_chi("lankarani_nikravesh", e), .n = 1.5, .K = 1.0,
                    .m_eff = 1.0, .v0 = 1.0};
    sa_options seed = *opt;
    seed.quadrature = SA_QUAD_SEED;
    sa_seed_times st;
    sa_result acc;
    char err[256];
    sa_options accurate = *opt;
    accurate.quadrature = SA_QUAD_ACCURATE;
    if (sa_seed_compression(&p, &seed, &st, err, sizeof err) != 0 ||
        sa_solve(&p, &accurate, &acc, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "semi_analytic: %s\n", err);
        return 1;
    }
    printf("Alaci et al. check: Lankarani-Nikravesh, e = %g (chi = %.9g), grid %d, alpha %g\n",
           e, p.chi, opt->grid > 0 ? opt->grid : 20000, opt->alpha > 0 ? opt->alpha : 1.0 / 200);
    printf("t_el = x_el/v0 int_0^1 dy/sqrt(1 - y^(5/2)) = %.9f x_el/v0 (the undamped compression time)\n",
           sa_elastic_time_factor(1.5));
    printf("%-58s %.7f (printed %s)\n", "t'_m/t_el    sine fit, eq. 19", st.t_sine / st.t_elastic,
           "1.041884");
    printf("%-58s %.7f (printed %s)\n", "t''_m/t_el   sine through (t'_m, x_m), eq. 20",
           st.t_sine_xm / st.t_elastic, "1.024045");
    printf("%-58s %.7f (printed %s)\n", "t'''_m/t_el  circle of eq. 21, solved exactly",
           st.t_circle / st.t_elastic, "0.999574");
    printf("%-58s %.7f\n", "(2 t_{n-1} - t_{n-2})/t_el  equal last two Euler steps",
           st.t_linear / st.t_elastic);
    printf("%-58s %.7f\n", "t_{n-1}/t_el  last Euler point", st.t_last / st.t_elastic);
    printf("%-58s %.7f\n", "t_m/t_el     second-order rule (converged)",
           acc.t_compression / acc.t_elastic);
    return 0;
}

int main(int argc, char **argv)
{
    enum { O_LAW = 1, O_E, O_CHI, O_V, O_R, O_RHO, O_Y, O_NU, O_K, O_N, O_GRID, O_ALPHA,
           O_SEEDQ, O_LOOP, O_CHECK, O_HELP };
    static const struct option opts[] = {
        {"law", required_argument, 0, O_LAW}, {"restitution", required_argument, 0, O_E},
        {"chi", required_argument, 0, O_CHI}, {"velocity", required_argument, 0, O_V},
        {"radius", required_argument, 0, O_R}, {"density", required_argument, 0, O_RHO},
        {"young", required_argument, 0, O_Y}, {"poisson", required_argument, 0, O_NU},
        {"stiffness", required_argument, 0, O_K}, {"exponent", required_argument, 0, O_N},
        {"grid", required_argument, 0, O_GRID}, {"alpha", required_argument, 0, O_ALPHA},
        {"seed-quadrature", no_argument, 0, O_SEEDQ}, {"loop", no_argument, 0, O_LOOP},
        {"seed-check", no_argument, 0, O_CHECK}, {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    const char *law = NULL;
    double e = NAN, chi = NAN, v0 = 1.0, radius = 0.01, density = 7800.0, young = 2e11,
           poisson = 0.3, stiffness = 0.0, exponent = 1.5, grid = 0.0, alpha = 0.0;
    int loop = 0, check = 0;
    sa_options opt = {0};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        double *target = NULL;
        const char *name = NULL;
        switch (c) {
        case O_LAW: law = optarg; continue;
        case O_E: target = &e; name = "restitution"; break;
        case O_CHI: target = &chi; name = "chi"; break;
        case O_V: target = &v0; name = "velocity"; break;
        case O_R: target = &radius; name = "radius"; break;
        case O_RHO: target = &density; name = "density"; break;
        case O_Y: target = &young; name = "young"; break;
        case O_NU: target = &poisson; name = "poisson"; break;
        case O_K: target = &stiffness; name = "stiffness"; break;
        case O_N: target = &exponent; name = "exponent"; break;
        case O_GRID: target = &grid; name = "grid"; break;
        case O_ALPHA: target = &alpha; name = "alpha"; break;
        case O_SEEDQ: opt.quadrature = SA_QUAD_SEED; continue;
        case O_LOOP: loop = 1; continue;
        case O_CHECK: check = 1; continue;
        case 'h': case O_HELP: usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (parse_number(name, optarg, target) != 0) return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "semi_analytic: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!(grid == 0.0 || (grid >= 3 && grid <= 1e8 && grid == floor(grid)))) {
        fprintf(stderr, "semi_analytic: --grid %g: give a whole number >= 3\n", grid);
        return 2;
    }
    opt.grid = (int)grid;
    opt.alpha = alpha;
    if (check) return seed_check(&opt);

    if (!law && isnan(chi)) {
        fprintf(stderr, "semi_analytic: give --law NAME --restitution E, or --chi CHI\n");
        usage(stderr);
        return 2;
    }
    if (law) {
        int known = 0;
        for (int k = 0; laws[k]; k++) known |= !strcmp(law, laws[k]);
        if (!known) {
            fprintf(stderr, "semi_analytic: --law %s: not a Hertzian damping law (see --help)\n", law);
            return 2;
        }
        if (!isnan(chi)) {
            fprintf(stderr, "semi_analytic: give --law or --chi, not both\n");
            return 2;
        }
        if (!(e > 0.0 && e <= 1.0)) {
            fprintf(stderr, "semi_analytic: --law %s needs --restitution in (0, 1]\n", law);
            return 2;
        }
        chi = sa_law_chi(law, e);
    }
    if (!(radius > 0.0 && density > 0.0 && young > 0.0 && poisson > -1.0 && poisson < 0.5 &&
          stiffness >= 0.0)) {
        fprintf(stderr, "semi_analytic: give positive radius, density, young, stiffness >= 0 "
                        "and poisson in (-1, 0.5)\n");
        return 2;
    }
    /* two identical spheres: R* = R/2, m* = m/2, 1/E* = 2 (1 - nu^2)/E */
    double r_eff = radius / 2.0;
    double m_eff = density * 4.0 / 3.0 * M_PI * radius * radius * radius / 2.0;
    double e_eff = young / (2.0 * (1.0 - poisson * poisson));
    double k = stiffness > 0.0 ? stiffness : 4.0 / 3.0 * e_eff * sqrt(r_eff);
    sa_problem p = {.chi = chi, .n = exponent, .K = k, .m_eff = m_eff, .v0 = v0};

    sa_result r;
    char err[256];
    size_t n_loop = loop ? sa_loop_size(&opt) : 0;
    sa_sample *samples = loop ? malloc(n_loop * sizeof *samples) : NULL;
    if (loop && !samples) {
        fprintf(stderr, "semi_analytic: out of memory\n");
        return 1;
    }
    if (sa_solve(&p, &opt, &r, samples, err, sizeof err) != 0) {
        fprintf(stderr, "semi_analytic: %s\n", err);
        free(samples);
        return 2;
    }
    const char *pre = loop ? "# " : "";
    if (law) printf("%slaw                %s (e = %.12g)\n", pre, law, e);
    printf("%schi                %.12g\n", pre, chi);
    printf("%sK, n, m*, v0       %.9g N/m^%g, %g, %.9g kg, %g m/s\n", pre, k, exponent, exponent,
           m_eff, v0);
    printf("%squadrature         %s, grid %d, alpha %g\n", pre,
           opt.quadrature == SA_QUAD_SEED ? "the paper's (Euler + circle)" : "second order",
           opt.grid > 0 ? opt.grid : 20000, opt.alpha > 0 ? opt.alpha : 1.0 / 200);
    printf("%srestitution_out    %.12f\n", pre, r.restitution);
    printf("%smax_overlap        %.12e m\n", pre, r.x_max);
    printf("%scompression_time   %.12e s\n", pre, r.t_compression);
    printf("%srestitution_time   %.12e s\n", pre, r.t_restitution);
    printf("%scontact_time       %.12e s\n", pre, r.t_contact);
    printf("%speak_force         %.12e N (overlap %.6e m, t %.6e s)\n", pre, r.peak_force,
           r.x_at_peak, r.t_at_peak);
    printf("%selastic reference  x_el %.12e m, t_el %.12e s (compression), 2 t_el %.12e s\n",
           pre, r.x_elastic, r.t_elastic, 2.0 * r.t_elastic);
    printf("%st_m / t_el         %.9f\n", pre, r.t_compression / r.t_elastic);
    if (loop) {
        printf("overlap,force\n");
        for (size_t i = 0; i < n_loop; i++) printf("%.17g,%.17g\n", samples[i].x, samples[i].f);
    }
    free(samples);
    return 0;
}
