/* dempact collide: a collision of two identical spheres through the engine, head on or
 * oblique with friction, printing what it measures (see engine/collision.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tuning_env.h"
#include "engine/collision.h"
#include "engine/friction.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact collide --law NAME --velocity V0 [--restitution E]\n"
            "         [--radius R] [--density RHO] [--young Y] [--poisson NU]\n"
            "         [--param KEY=VALUE ...] [--cohesion-removal on|off] [--dt DT|auto]\n"
            "         [--calibrate] [--sweep E1:E2:N] [--format json|csv]\n"
            "         [--friction MU [--tangential-restitution ET]]\n"
            "         [--angle DEG | --tangential-velocity VT] [--spin1 WX,WY,WZ] [--spin2 WX,WY,WZ]\n\n"
            "Runs two identical spheres at relative normal speed V0 through the engine (same\n"
            "neighbour search, contact list, law code and integrator as `run`) and prints the\n"
            "measured restitution (normal separation speed / V0), contact duration, peak force\n"
            "and largest overlap, in SI units. --sweep repeats it for N restitution values\n"
            "evenly spaced from E1 to E2. --calibrate solves the law's damping coefficient\n"
            "(chi, eta, xi or alpha) so that the collision restitutes exactly E, and prints it.\n\n"
            "Oblique impact with friction: --friction MU turns on Coulomb friction with the\n"
            "Mindlin tangential spring (models/tangential_spring.c), its dashpot set by ET\n"
            "(default: the law's restitution). --tangential-velocity VT gives the spheres a relative\n"
            "tangential speed VT at impact (x: line of centres at first touch, sphere 1 moves\n"
            "at +V0/2 along x and +VT/2 along y, sphere 2 the opposite); --angle DEG is the\n"
            "same with VT = V0 tan(DEG), DEG measured from the line of centres. --spin1 and\n"
            "--spin2 set initial angular velocities [rad/s]. The output also holds both\n"
            "spheres' velocities and angular velocities after the rebound, the peak normal\n"
            "and tangential forces, and the fraction of the contact's steps at which it slid.\n\n"
            "defaults: R = 0.01 m, steel (7800 kg/m^3, 2e11 Pa, 0.3), V0 = 1 m/s, head on,\n"
            "no spin, frictionless, cohesion removal on, DT = 1/4000 of the law's contact-time\n"
            "estimate (--dt auto: the step `dempact run` would choose for these spheres,\n"
            "min(0.2 x Rayleigh time, contact time / 50)), format json.\n");
}

static const char *calibrated_name(const collision_spec *sp)
{
    return sp->calibrate ? sp->law->calibration->coefficient : "";
}

static void print_row(FILE *out, int csv, const collision_spec *sp, double e_in,
                      const collision_result *r, int first, int last, int many)
{
    if (csv) {
        if (first)
            fprintf(out, "law,velocity,restitution_in,restitution_out,contact_time,peak_force,"
                         "max_overlap,dt,steps,calibrated_coefficient,calibrated_value,"
                         "tangential_velocity,friction,peak_normal_force,peak_tangential_force,"
                         "sliding_fraction,vx1,vy1,vz1,vx2,vy2,vz2,wx1,wy1,wz1,wx2,wy2,wz2\n");
        fprintf(out, "%s,%.17g,%.12g,%.17g,%.17g,%.17g,%.17g,%.17g,%ld,%s,%.17g,%.17g,%.17g,"
                     "%.17g,%.17g,%.17g",
                sp->law->name, sp->velocity, e_in, r->restitution_out, r->contact_time,
                r->peak_force, r->max_overlap, r->dt, r->steps, calibrated_name(sp),
                r->calibrated_value, sp->tangential_velocity, sp->friction.mu,
                r->peak_normal_force, r->peak_tangential_force, r->sliding_fraction);
        for (int i = 0; i < 2; i++)
            for (int a = 0; a < 3; a++) fprintf(out, ",%.17g", r->velocity_out[i][a]);
        for (int i = 0; i < 2; i++)
            for (int a = 0; a < 3; a++) fprintf(out, ",%.17g", r->spin_out[i][a]);
        fprintf(out, "\n");
        return;
    }
    if (first && many) fprintf(out, "[\n");
    char e_text[32];
    if (isnan(e_in)) snprintf(e_text, sizeof e_text, "null");
    else snprintf(e_text, sizeof e_text, "%.12g", e_in);
    fprintf(out,
            "%s{\"law\": \"%s\", \"velocity\": %.17g, \"restitution_in\": %s, "
            "\"restitution_out\": %.17g, \"contact_time\": %.17g, \"peak_force\": %.17g, "
            "\"max_overlap\": %.17g, \"dt\": %.17g, \"steps\": %ld",
            many ? "  " : "", sp->law->name, sp->velocity, e_text, r->restitution_out,
            r->contact_time, r->peak_force, r->max_overlap, r->dt, r->steps);
    if (sp->calibrate)
        fprintf(out, ", \"calibrated\": {\"%s\": %.17g}", calibrated_name(sp),
                r->calibrated_value);
    fprintf(out,
            ", \"tangential_velocity\": %.17g, \"impact_angle_deg\": %.17g, \"friction\": %.17g, "
            "\"peak_normal_force\": %.17g, \"peak_tangential_force\": %.17g, "
            "\"sliding_fraction\": %.17g",
            sp->tangential_velocity, atan2(sp->tangential_velocity, sp->velocity) * 180.0 / M_PI,
            sp->friction.mu, r->peak_normal_force, r->peak_tangential_force, r->sliding_fraction);
    const char *names[2] = {"velocity_out", "spin_out"};
    for (int q = 0; q < 2; q++) {
        const double(*v)[3] = q == 0 ? r->velocity_out : r->spin_out;
        fprintf(out, ", \"%s\": [[%.17g, %.17g, %.17g], [%.17g, %.17g, %.17g]]", names[q],
                v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2]);
    }
    fprintf(out, "}%s\n", many && !last ? "," : "");
    if (last && many) fprintf(out, "]\n");
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "dempact collide: %s: '%s'\n", what, value);
    return EXIT_BAD_INPUT;
}

/* "WX,WY,WZ": three finite numbers. */
static int parse_vector(const char *text, double out[3])
{
    char buf[256];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int a = 0; a < 3; a++) {
        if (!tok || cli_parse_double(tok, &out[a]) || !isfinite(out[a])) return -1;
        tok = strtok_r(NULL, ",", &save);
    }
    return tok ? -1 : 0;
}

int cli_collide(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    enum { O_LAW = 1, O_E, O_V, O_R, O_RHO, O_Y, O_NU, O_PARAM, O_COH, O_DT, O_FORMAT, O_SWEEP,
           O_CAL, O_MU, O_ET, O_ANGLE, O_VT, O_SPIN1, O_SPIN2 };
    static const struct option opts[] = {
        {"law", required_argument, 0, O_LAW}, {"restitution", required_argument, 0, O_E},
        {"velocity", required_argument, 0, O_V}, {"radius", required_argument, 0, O_R},
        {"density", required_argument, 0, O_RHO}, {"young", required_argument, 0, O_Y},
        {"poisson", required_argument, 0, O_NU}, {"param", required_argument, 0, O_PARAM},
        {"cohesion-removal", required_argument, 0, O_COH}, {"dt", required_argument, 0, O_DT},
        {"format", required_argument, 0, O_FORMAT}, {"sweep", required_argument, 0, O_SWEEP},
        {"calibrate", no_argument, 0, O_CAL}, {"friction", required_argument, 0, O_MU},
        {"tangential-restitution", required_argument, 0, O_ET},
        {"angle", required_argument, 0, O_ANGLE},
        {"tangential-velocity", required_argument, 0, O_VT},
        {"spin1", required_argument, 0, O_SPIN1}, {"spin2", required_argument, 0, O_SPIN2},
        {0, 0, 0, 0}};
    const char *law_name = NULL, *format = "json", *sweep = NULL;
    const char *params[LAW_MAX_PARAMS * 2];
    int n_params = 0, cohesion = 1, calibrate = 0;
    double e = NAN, v = 1.0, radius = 0.01, rho = 7800, young = 2e11, nu = 0.3, dt = 0;
    double mu = 0.0, e_t = NAN, angle = NAN, vt = NAN, spin[2][3] = {{0, 0, 0}, {0, 0, 0}};
    const char *mu_text = NULL, *et_text = NULL, *angle_text = NULL, *vt_text = NULL;
    int c;
    optind = 1;
    opterr = 0;
    int li = 0;
    while ((c = getopt_long(argc, argv, "", opts, &li)) != -1) {
        double *target = NULL;
        switch (c) {
        case O_LAW: law_name = optarg; continue;
        case O_E: target = &e; break;
        case O_V: target = &v; break;
        case O_R: target = &radius; break;
        case O_RHO: target = &rho; break;
        case O_Y: target = &young; break;
        case O_NU: target = &nu; break;
        case O_DT:
            if (!strcmp(optarg, "auto")) { dt = -1.0; continue; }
            target = &dt;
            break;
        case O_PARAM:
            if (n_params == LAW_MAX_PARAMS * 2) return bad("too many --param", optarg);
            params[n_params++] = optarg;
            continue;
        case O_COH:
            if (cli_parse_switch(optarg, &cohesion)) return bad("--cohesion-removal takes on or off", optarg);
            continue;
        case O_FORMAT: format = optarg; continue;
        case O_SWEEP: sweep = optarg; continue;
        case O_CAL: calibrate = 1; continue;
        case O_MU: mu_text = optarg; target = &mu; break;
        case O_ET: et_text = optarg; target = &e_t; break;
        case O_ANGLE: angle_text = optarg; target = &angle; break;
        case O_VT: vt_text = optarg; target = &vt; break;
        case O_SPIN1:
        case O_SPIN2:
            if (parse_vector(optarg, spin[c == O_SPIN2]))
                return bad(c == O_SPIN1 ? "--spin1 takes three numbers WX,WY,WZ [rad/s]"
                                        : "--spin2 takes three numbers WX,WY,WZ [rad/s]", optarg);
            continue;
        default:
            fprintf(stderr, "dempact collide: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
        if (cli_parse_double(optarg, target)) {
            char what[64];
            snprintf(what, sizeof what, "--%s: not a number", opts[li].name);
            return bad(what, optarg);
        }
    }
    if (optind < argc) return bad("unexpected argument", argv[optind]);
    if (!law_name) { fprintf(stderr, "dempact collide: --law is required (see dempact laws)\n"); return EXIT_BAD_INPUT; }
    const dem_law *law = law_find(law_name);
    if (!law) return bad("unknown law (see dempact laws)", law_name);
    if (strcmp(format, "json") && strcmp(format, "csv")) return bad("--format takes json or csv", format);
    if (!(v > 0) || !(radius > 0) || !(rho > 0) || !(young > 0) || !(nu > -1 && nu < 0.5) ||
        (dt < 0 && dt != -1.0)) {
        fprintf(stderr, "dempact collide: need velocity, radius, density, young > 0, poisson in (-1, 0.5), dt >= 0 or auto\n");
        return EXIT_BAD_INPUT;
    }

    if (mu_text && !(mu >= 0 && isfinite(mu)))
        return bad("--friction takes a Coulomb coefficient >= 0", mu_text);
    if (et_text && !(e_t > 0 && e_t <= 1))
        return bad("--tangential-restitution takes a restitution in (0, 1]", et_text);
    if (et_text && !(mu > 0))
        return bad("--tangential-restitution needs --friction MU > 0", et_text);
    if (angle_text && vt_text) {
        fprintf(stderr, "dempact collide: give --angle or --tangential-velocity, not both\n");
        return EXIT_BAD_INPUT;
    }
    if (angle_text && !(angle >= 0 && angle < 90))
        return bad("--angle takes degrees from the line of centres in [0, 90)", angle_text);
    if (vt_text && !isfinite(vt))
        return bad("--tangential-velocity takes a finite speed [m/s]", vt_text);

    collision_spec sp;
    collision_defaults(&sp, law);
    tuning_from_env(&sp.tuning);
    sp.tangential_velocity = angle_text ? v * tan(angle * M_PI / 180.0) : vt_text ? vt : 0.0;
    memcpy(sp.spin, spin, sizeof sp.spin);
    sp.friction.mu = mu;
    if (et_text) friction_set_tangential_param(&sp.friction, "restitution", e_t);
    sp.velocity = v; sp.radius = radius; sp.density = rho; sp.young = young; sp.poisson = nu;
    sp.dt = dt; sp.cohesion_removal = cohesion; sp.calibrate = calibrate;
    if (calibrate && !law->calibration) {
        fprintf(stderr, "dempact collide: law %s has no damping coefficient to calibrate\n",
                law->name);
        return EXIT_BAD_INPUT;
    }
    for (int k = 0; k < n_params; k++) {
        char err[256];
        if (law_param_set(law, sp.params, params[k], err, sizeof err) < 0) {
            fprintf(stderr, "dempact collide: %s\n", err);
            return EXIT_BAD_INPUT;
        }
    }

    int e_index = law_param_index(law, "restitution");
    double e_from = e, e_to = e;
    long n_runs = 1;
    if (sweep) {
        if (sscanf(sweep, "%lf:%lf:%ld", &e_from, &e_to, &n_runs) != 3 || n_runs < 1 ||
            !(e_from > 0 && e_from <= 1) || !(e_to > 0 && e_to <= 1))
            return bad("--sweep takes E1:E2:N with 0 < E <= 1 and N >= 1", sweep);
    }
    if ((sweep || !isnan(e)) && e_index < 0) {
        fprintf(stderr, "dempact collide: law %s has no restitution parameter; set its own "
                        "parameters with --param (see dempact laws %s)\n", law->name, law->name);
        return EXIT_BAD_INPUT;
    }
    if (!isnan(e) && !(e > 0 && e <= 1)) {
        fprintf(stderr, "dempact collide: --restitution %g must be in (0, 1]\n", e);
        return EXIT_BAD_INPUT;
    }
    int csv = !strcmp(format, "csv");
    for (long k = 0; k < n_runs; k++) {
        double e_in = n_runs > 1 ? e_from + (e_to - e_from) * k / (n_runs - 1) : e_from;
        if (e_index >= 0) {
            if (!isnan(e_in)) sp.params[e_index] = e_in;
            e_in = sp.params[e_index] > 0 ? sp.params[e_index] : NAN; /* 0: unused target */
        }
        collision_result r;
        char err[512];
        if (collision_run(&sp, &r, err, sizeof err) != 0) {
            fprintf(stderr, "dempact collide: %s\n", err);
            return EXIT_BAD_INPUT;
        }
        print_row(stdout, csv, &sp, e_in, &r, k == 0, k == n_runs - 1, sweep != NULL);
    }
    return 0;
}
