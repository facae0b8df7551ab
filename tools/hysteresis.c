/* hysteresis: drives any registered law along a prescribed overlap path and prints the
 * force it returns, as CSV, so that loading, unloading and reloading loops can be drawn
 * (tools/plot_hysteresis.py) and compared with a paper's figures.
 *
 * The path is 0 -> D1 -> D2 -> ..., each leg a straight line in time at the overlap rate
 * |V|; the first rate is the impact velocity v0 stored at first touch. The law's force
 * function is called once per step with the history the previous step left, as the
 * engine does; an overlap of 0 ends the contact (force 0, history cleared), and F < 0 is
 * clamped to 0 unless --cohesion-removal off. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/law.h"

#define EXIT_BAD_INPUT 2
#define MAX_PATH 1024

static void usage(FILE *out)
{
    fprintf(out,
            "usage: hysteresis --law NAME [--param KEY=VALUE ...] --path D1,D2,... --rate V\n"
            "         [--steps N] [--radius R] [--density RHO] [--young E] [--poisson NU]\n"
            "         [--cohesion-removal on|off]\n\n"
            "Drives the law along the overlap path 0 -> D1 -> D2 -> ... [m], each leg\n"
            "linear in time at the overlap rate |V| [m/s] (the impact velocity v0 = |V|) in\n"
            "N steps (default 1000), and prints CSV on stdout:\n"
            "  time,overlap,overlap_rate,force[,one column per history slot of the law]\n"
            "The pair is two identical spheres: E* = E / (2 (1 - nu^2)), R* = R / 2,\n"
            "m* = m / 2; defaults steel, R = 0.01 m, 7800 kg/m^3, 2e11 Pa, 0.3.\n"
            "Exit status 2 for an unknown law or a bad parameter.\n\n"
            "example: hysteresis --law kostek --path 9.56e-6,3.9e-6,1.2e-5 --rate 0.01\n");
}

static int bad(const char *fmt, const char *what)
{
    fprintf(stderr, "hysteresis: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    return EXIT_BAD_INPUT;
}

static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* "D1,D2,..." into path[]; returns the count, or -1. */
static int parse_path(const char *text, double *path)
{
    int n = 0;
    char buf[16384];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == MAX_PATH || parse_double(tok, &path[n]) || path[n] < 0.0) return -1;
        n++;
    }
    return n;
}

/* KEY=VALUE into the law's parameter vector, checked as the case reader does. */
static int set_param(const dem_law *law, double *params, const char *arg)
{
    char err[256];
    if (law_param_set(law, params, arg, err, sizeof err) >= 0) return 0;
    fprintf(stderr, "hysteresis: %s\n", err);
    return EXIT_BAD_INPUT;
}

int main(int argc, char **argv)
{
    enum { O_LAW = 1, O_PARAM, O_PATH, O_RATE, O_STEPS, O_R, O_RHO, O_Y, O_NU, O_COH, O_HELP };
    static const struct option opts[] = {
        {"law", required_argument, 0, O_LAW}, {"param", required_argument, 0, O_PARAM},
        {"path", required_argument, 0, O_PATH}, {"rate", required_argument, 0, O_RATE},
        {"steps", required_argument, 0, O_STEPS}, {"radius", required_argument, 0, O_R},
        {"density", required_argument, 0, O_RHO}, {"young", required_argument, 0, O_Y},
        {"poisson", required_argument, 0, O_NU},
        {"cohesion-removal", required_argument, 0, O_COH}, {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0}};
    const char *law_name = NULL, *path_text = NULL, *param_args[LAW_MAX_PARAMS * 2];
    int n_param_args = 0, cohesion_removal = 1;
    double rate = NAN, steps = 1000, radius = 0.01, rho = 7800, young = 2e11, nu = 0.3;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        double *target = NULL;
        switch (c) {
        case O_HELP: case 'h': usage(stdout); return 0;
        case O_LAW: law_name = optarg; continue;
        case O_PATH: path_text = optarg; continue;
        case O_PARAM:
            if (n_param_args == LAW_MAX_PARAMS * 2) return bad("too many --param: '%s'", optarg);
            param_args[n_param_args++] = optarg;
            continue;
        case O_COH:
            if (!strcmp(optarg, "on")) cohesion_removal = 1;
            else if (!strcmp(optarg, "off")) cohesion_removal = 0;
            else return bad("--cohesion-removal takes on or off: '%s'", optarg);
            continue;
        case O_RATE: target = &rate; break;
        case O_STEPS: target = &steps; break;
        case O_R: target = &radius; break;
        case O_RHO: target = &rho; break;
        case O_Y: target = &young; break;
        case O_NU: target = &nu; break;
        default:
            fprintf(stderr, "hysteresis: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
        if (parse_double(optarg, target)) return bad("not a number: '%s'", optarg);
    }
    if (optind < argc) return bad("unexpected argument '%s'", argv[optind]);
    if (!law_name) return bad("%s", "--law is required (see dempact laws)");
    const dem_law *law = law_find(law_name);
    if (!law) return bad("unknown law '%s' (see dempact laws)", law_name);
    double path[MAX_PATH];
    int n_path = path_text ? parse_path(path_text, path) : -1;
    if (n_path < 1) return bad("%s", "--path takes overlaps D1,D2,... >= 0 [m]");
    if (!(fabs(rate) > 0.0)) return bad("%s", "--rate takes an overlap rate V != 0 [m/s]");
    if (!(steps >= 1 && steps <= 1e8 && steps == floor(steps)))
        return bad("%s", "--steps takes a whole number of steps per leg, 1 to 1e8");
    if (!(radius > 0) || !(rho > 0) || !(young > 0) || !(nu > -1 && nu < 0.5))
        return bad("%s", "need radius, density, young > 0 and poisson in (-1, 0.5)");

    double params[LAW_MAX_PARAMS];
    for (int k = 0; k < law->n_params; k++) params[k] = law->params[k].default_value;
    for (int k = 0; k < n_param_args; k++)
        if (set_param(law, params, param_args[k])) return EXIT_BAD_INPUT;
    for (int k = 0; k < law->n_params; k++)
        if (isnan(params[k])) {
            fprintf(stderr, "hysteresis: law %s needs --param %s=VALUE (%s)\n", law->name,
                    law->params[k].name, law->params[k].help);
            return EXIT_BAD_INPUT;
        }

    /* two identical spheres */
    double shear = young / (2.0 * (1.0 + nu));
    law_pair_props pair = {.young_eff = young / (2.0 * (1.0 - nu * nu)),
                           .shear_eff = shear / (2.0 * (2.0 - nu)),
                           .density_a = rho, .density_b = rho};
    law_coeffs coeffs;
    memset(&coeffs, 0, sizeof coeffs);
    coeffs.young_eff = pair.young_eff;
    coeffs.cohesion_removal = cohesion_removal;
    law_error err = {.param = -1};
    if (law->setup(params, &pair, &coeffs, &err) != 0) {
        fprintf(stderr, "hysteresis: law %s: %s\n", law->name, err.msg);
        return EXIT_BAD_INPUT;
    }
    double r_eff = radius / 2.0, m_eff = rho * 4.0 / 3.0 * M_PI * pow(radius, 3) / 2.0;
    double v0 = fabs(rate), h[LAW_MAX_HISTORY] = {0};

    printf("time,overlap,overlap_rate,force");
    for (int k = 0; k < law->n_state; k++) {
        if (law->state_names && law->state_names[k]) printf(",%s", law->state_names[k]);
        else printf(",history_%d", k);
    }
    printf("\n");
    double t = 0.0, d = 0.0, d_rate = v0, f = 0.0;
    for (int leg = -1; leg < n_path; leg++) {
        double from = d, to = leg < 0 ? 0.0 : path[leg];
        long n = leg < 0 ? 1 : (long)steps;
        if (leg >= 0 && to == from) continue;
        if (leg >= 0) d_rate = to > from ? v0 : -v0;
        for (long k = 1; k <= n; k++) {
            if (leg >= 0) {
                d = from + (to - from) * (double)k / (double)n;
                t += fabs(to - from) / v0 / (double)n;
            }
            if (d > 0.0) {
                law_batch b = {.n = 1, .overlap = &d, .overlap_rate = &d_rate,
                               .impact_velocity = &v0, .r_eff = &r_eff, .m_eff = &m_eff,
                               .force = &f};
                for (int q = 0; q < LAW_MAX_HISTORY; q++) b.history[q] = &h[q];
                law->force(&coeffs, &b);
                if (cohesion_removal && f < 0.0) f = 0.0;
            } else { /* apart: the next touch is a new contact */
                f = 0.0;
                for (int q = 0; q < LAW_MAX_HISTORY; q++) h[q] = 0.0;
            }
            printf("%.12g,%.12g,%.12g,%.12g", t, d, d_rate, f);
            for (int q = 0; q < law->n_state; q++) printf(",%.12g", h[q]);
            printf("\n");
        }
    }
    return ferror(stdout) ? 1 : 0;
}
