/* dempact collide: a collision of two identical spheres through the engine, head on or
 * oblique with friction, printing what it measures (see engine/collide/collision.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io/session/tuning_env.h"
#include "engine/collide/collision.h"
#include "engine/collide/collision_request.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact collide --law NAME --velocity V0|V1:V2:N [--restitution E]\n"
            "         [--radius R] [--density RHO] [--young Y] [--poisson NU]\n"
            "         [--param KEY=VALUE ...] [--cohesion-removal on|off] [--dt DT|auto]\n"
            "         [--calibrate] [--sweep E1:E2:N] [--format json|csv]\n"
            "         [--friction MU [--tangential-restitution ET] [--friction-model NAME]\n"
            "          [--friction-param KEY=VALUE ...]]\n"
            "         [--rolling-model NAME --rolling MU_R [--rolling-param KEY=VALUE ...]]\n"
            "         [--angle DEG | --tangential-velocity VT] [--spin1 WX,WY,WZ] [--spin2 WX,WY,WZ]\n"
            "         [--adhesion NAME --adhesion-param KEY=VALUE ...]\n\n"
            "Runs two identical spheres at relative normal speed V0 through the engine (same\n"
            "neighbour search, contact list, law code and integrator as `run`) and prints the\n"
            "measured restitution (normal separation speed / V0), contact duration, peak force\n"
            "and largest overlap, in SI units. --sweep repeats it for N restitution values\n"
            "evenly spaced from E1 to E2; --velocity V1:V2:N for N speeds from V1 to V2 in a\n"
            "geometric progression (V1 (V2/V1)^(k/(N-1)), the ends as given), one row each\n"
            "(not both sweeps at once). --calibrate solves the law's damping coefficient\n"
            "(chi, eta, xi or alpha) so that the collision restitutes exactly E, and prints it.\n\n"
            "Oblique impact with friction: --friction MU turns on Coulomb friction with the\n"
            "tangential law --friction-model NAME (default mindlin, the Mindlin no-slip spring\n"
            "whose dashpot ET sets, by default the law's restitution) and its keys, each\n"
            "--friction-param KEY=VALUE, as a case's friction.model and its keys (dempact laws\n"
            "--friction lists them). --rolling-model NAME --rolling MU_R adds a rolling law\n"
            "with its coefficient and keys, each --rolling-param KEY=VALUE, as a case's rolling\n"
            "mapping. A law named appears in the output (friction_model; rolling_model and\n"
            "rolling). --tangential-velocity VT gives the spheres a relative tangential speed\n"
            "VT at impact (x: line of centres at first touch, sphere 1 moves at +V0/2 along x\n"
            "and +VT/2 along y, sphere 2 the opposite); --angle DEG is the same with VT = V0\n"
            "tan(DEG), DEG measured from the line of centres. --spin1 and --spin2 set initial\n"
            "angular velocities [rad/s]. The output also holds both spheres' velocities and\n"
            "angular velocities after the rebound, the peak normal and tangential forces, and\n"
            "the fraction of the contact's steps at which it slid.\n\n"
            "Adhesion: --adhesion NAME adds an adhesion law (jkr, dmt, sjkr, sjkr2; dempact laws\n"
            "--adhesion) with its keys, each --adhesion-param KEY=VALUE, as a case's adhesion\n"
            "mapping (jkr needs a law whose elastic part is Hertz's). The contact then lasts\n"
            "from touching until the overlap falls to the law's reach (jkr: -3 a_c^2/R*; the\n"
            "others: touching), and the contact time runs to that break. Sticking: a contact\n"
            "that still holds when the run gives up (50 contact times or 2,000,000 steps,\n"
            "below) is stuck, reported with restitution_out 0 and \"stuck\": true (not a\n"
            "failure); the row names the adhesion law and its keys (adhesion, adhesion_params)\n"
            "and says stuck true or false. Without --adhesion none of this is in the row.\n\n"
            "defaults: R = 0.01 m, steel (7800 kg/m^3, 2e11 Pa, 0.3), V0 = 1 m/s, head on,\n"
            "no spin, frictionless, cohesion removal on, DT = 1/4000 of the law's contact-time\n"
            "estimate (--dt auto: the step `dempact run` would choose for these spheres,\n"
            "min(0.2 x Rayleigh time, contact time / 50)), format json.\n\n"
            "Limits (the same for dempact.collide() in Python, checked by the same code): every\n"
            "number finite; speeds (V0, VT, a surface's |w| R) at most 1e4 m/s; --restitution\n"
            "within the law's range and not with --param restitution= or --sweep; --angle or\n"
            "--tangential-velocity, not both; a tangential or rolling law known by name, each\n"
            "of its keys its own, in range and given once, every key it requires given\n"
            "(--friction-model linear: stiffness; viscous: damping), the tangential restitution\n"
            "once (ET or restitution=) and only for a law that has one; --friction-model and\n"
            "--friction-param only with MU > 0; --rolling in [0, 1], and --rolling,\n"
            "--rolling-model and --rolling-param only together; an adhesion law known by name\n"
            "with its keys so checked, --adhesion-param only with --adhesion; --velocity\n"
            "V1:V2:N with V1, V2 > 0 and 1 <= N <= 100000, every speed checked before the\n"
            "first run. The work is bounded: the spheres start at most 100,000 steps of\n"
            "approach apart (0.01 R, less for a slow impact or a small step; the impact is at\n"
            "V0 whatever the gap); a DT that would resolve the contact by more than 200,000\n"
            "steps is refused (give a larger --dt or --velocity), as is a V0 at which the\n"
            "spheres close by less than 1e-9 R over the contact; a contact that never\n"
            "separates gives up after 50 contact times or 2,000,000 steps (with --adhesion:\n"
            "stuck; without: a failure), a calibration after 1e8 integration steps. A run\n"
            "whose overlap passes half the radius, whose dashpot the step cannot integrate\n"
            "(c dt / m* > 1) or whose results are not finite fails with the reason. Exit\n"
            "status 2 for all of these.\n");
}

static const char *calibrated_name(const collision_spec *sp)
{
    return sp->calibrate ? sp->law->calibration->coefficient : "";
}

/* The tangential, rolling and adhesion laws a row names: only those given by name, so
 * that a row without them is what it is without these options; with adhesion, whether
 * the spheres stuck. */
static void print_models(FILE *out, int csv, const collision_request *rq,
                         const collision_spec *sp, const collision_result *r)
{
    if (rq->friction_model)
        fprintf(out, csv ? ",%s" : ", \"friction_model\": \"%s\"", rq->friction_model);
    if (rq->rolling_model)
        fprintf(out, csv ? ",%s,%.17g" : ", \"rolling_model\": \"%s\", \"rolling\": %.17g",
                rq->rolling_model, sp->friction.mu_rolling);
    const adhesion_law *adh = sp->adhesion.law;
    if (!adh) return;
    if (csv) {
        fprintf(out, ",%s,", adh->name);
        for (int k = 0; k < adh->n_params; k++)
            fprintf(out, "%s%s=%.17g", k ? ";" : "", adh->params[k].name, sp->adhesion.params[k]);
        fprintf(out, ",%s", r->stuck ? "true" : "false");
        return;
    }
    fprintf(out, ", \"adhesion\": \"%s\", \"adhesion_params\": {", adh->name);
    for (int k = 0; k < adh->n_params; k++)
        fprintf(out, "%s\"%s\": %.17g", k ? ", " : "", adh->params[k].name,
                sp->adhesion.params[k]);
    fprintf(out, "}, \"stuck\": %s", r->stuck ? "true" : "false");
}

static void print_row(FILE *out, int csv, const collision_request *rq, const collision_spec *sp,
                      double e_in, const collision_result *r, int first, int last, int many)
{
    if (csv) {
        if (first)
            fprintf(out, "law,velocity,restitution_in,restitution_out,contact_time,peak_force,"
                         "max_overlap,dt,steps,calibrated_coefficient,calibrated_value,"
                         "tangential_velocity,friction,peak_normal_force,peak_tangential_force,"
                         "sliding_fraction,vx1,vy1,vz1,vx2,vy2,vz2,wx1,wy1,wz1,wx2,wy2,wz2%s%s%s\n",
                    rq->friction_model ? ",friction_model" : "",
                    rq->rolling_model ? ",rolling_model,rolling" : "",
                    sp->adhesion.law ? ",adhesion,adhesion_params,stuck" : "");
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
        print_models(out, csv, rq, sp, r);
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
    print_models(out, csv, rq, sp, r);
    fprintf(out, "}%s\n", many && !last ? "," : "");
    if (last && many) fprintf(out, "]\n");
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "dempact collide: %s: '%s'\n", what, value);
    return EXIT_BAD_INPUT;
}

/* "WX,WY,WZ": three numbers (collision_request_build checks they are finite). */
static int parse_vector(const char *text, double out[3])
{
    char buf[256];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    for (int a = 0; a < 3; a++) {
        if (!tok || cli_parse_double(tok, &out[a])) return -1;
        tok = strtok_r(NULL, ",", &save);
    }
    return tok ? -1 : 0;
}

/* The options' names in messages, by collision_input (engine/collide/collision.h). */
static const char *const option_names[COLLISION_N_INPUTS] = {
    [COLLISION_LAW] = "--law", [COLLISION_RESTITUTION] = "--restitution",
    [COLLISION_VELOCITY] = "--velocity", [COLLISION_RADIUS] = "--radius",
    [COLLISION_DENSITY] = "--density", [COLLISION_YOUNG] = "--young",
    [COLLISION_POISSON] = "--poisson", [COLLISION_PARAMS] = "--param",
    [COLLISION_COHESION_REMOVAL] = "--cohesion-removal", [COLLISION_DT] = "--dt",
    [COLLISION_CALIBRATE] = "--calibrate", [COLLISION_FRICTION] = "--friction",
    [COLLISION_TANGENTIAL_RESTITUTION] = "--tangential-restitution",
    [COLLISION_ANGLE] = "--angle", [COLLISION_TANGENTIAL_VELOCITY] = "--tangential-velocity",
    [COLLISION_SPIN1] = "--spin1", [COLLISION_SPIN2] = "--spin2",
    [COLLISION_FRICTION_MODEL] = "--friction-model",
    [COLLISION_FRICTION_PARAMS] = "--friction-param", [COLLISION_ROLLING] = "--rolling",
    [COLLISION_ROLLING_MODEL] = "--rolling-model",
    [COLLISION_ROLLING_PARAMS] = "--rolling-param", [COLLISION_ADHESION] = "--adhesion",
    [COLLISION_ADHESION_PARAMS] = "--adhesion-param"};

/* Parses the options into rq (text to numbers only: every rule on the values is
 * collision_request_build's, shared with dempact.collide()). Returns 0 or an exit status. */
static int parse_options(int argc, char **argv, collision_request *rq, const char **params,
                         const char **friction_params, const char **rolling_params,
                         const char **adhesion_params, const char **format, const char **sweep,
                         const char **speeds)
{
    enum { O_FORMAT = COLLISION_N_INPUTS + 1, O_SWEEP };
    static const struct option opts[] = {
        {"law", required_argument, 0, COLLISION_LAW},
        {"restitution", required_argument, 0, COLLISION_RESTITUTION},
        {"velocity", required_argument, 0, COLLISION_VELOCITY},
        {"radius", required_argument, 0, COLLISION_RADIUS},
        {"density", required_argument, 0, COLLISION_DENSITY},
        {"young", required_argument, 0, COLLISION_YOUNG},
        {"poisson", required_argument, 0, COLLISION_POISSON},
        {"param", required_argument, 0, COLLISION_PARAMS},
        {"cohesion-removal", required_argument, 0, COLLISION_COHESION_REMOVAL},
        {"dt", required_argument, 0, COLLISION_DT},
        {"format", required_argument, 0, O_FORMAT}, {"sweep", required_argument, 0, O_SWEEP},
        {"calibrate", no_argument, 0, COLLISION_CALIBRATE},
        {"friction", required_argument, 0, COLLISION_FRICTION},
        {"tangential-restitution", required_argument, 0, COLLISION_TANGENTIAL_RESTITUTION},
        {"angle", required_argument, 0, COLLISION_ANGLE},
        {"tangential-velocity", required_argument, 0, COLLISION_TANGENTIAL_VELOCITY},
        {"spin1", required_argument, 0, COLLISION_SPIN1},
        {"spin2", required_argument, 0, COLLISION_SPIN2},
        {"friction-model", required_argument, 0, COLLISION_FRICTION_MODEL},
        {"friction-param", required_argument, 0, COLLISION_FRICTION_PARAMS},
        {"rolling", required_argument, 0, COLLISION_ROLLING},
        {"rolling-model", required_argument, 0, COLLISION_ROLLING_MODEL},
        {"rolling-param", required_argument, 0, COLLISION_ROLLING_PARAMS},
        {"adhesion", required_argument, 0, COLLISION_ADHESION},
        {"adhesion-param", required_argument, 0, COLLISION_ADHESION_PARAMS},
        {0, 0, 0, 0}};
    int c, li = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, &li)) != -1) {
        double *target = NULL;
        switch (c) {
        case COLLISION_LAW: rq->law = optarg; continue;
        case COLLISION_RESTITUTION: target = &rq->restitution; break;
        case COLLISION_VELOCITY:
            if (strchr(optarg, ':')) { *speeds = optarg; rq->given[c] = true; continue; }
            *speeds = NULL;
            target = &rq->velocity;
            break;
        case COLLISION_RADIUS: target = &rq->radius; break;
        case COLLISION_DENSITY: target = &rq->density; break;
        case COLLISION_YOUNG: target = &rq->young; break;
        case COLLISION_POISSON: target = &rq->poisson; break;
        case COLLISION_DT:
            if (!strcmp(optarg, "auto")) { rq->dt_auto = true; rq->given[c] = true; continue; }
            rq->dt_auto = false;
            target = &rq->dt;
            break;
        case COLLISION_PARAMS:
            if (rq->n_params == LAW_MAX_PARAMS * 2) return bad("too many --param", optarg);
            params[rq->n_params++] = optarg;
            continue;
        case COLLISION_FRICTION_MODEL: rq->friction_model = optarg; continue;
        case COLLISION_ROLLING_MODEL: rq->rolling_model = optarg; continue;
        case COLLISION_FRICTION_PARAMS:
            if (rq->n_friction_params == FRICTION_MAX_PARAMS * 2)
                return bad("too many --friction-param", optarg);
            friction_params[rq->n_friction_params++] = optarg;
            continue;
        case COLLISION_ROLLING_PARAMS:
            if (rq->n_rolling_params == FRICTION_MAX_PARAMS * 2)
                return bad("too many --rolling-param", optarg);
            rolling_params[rq->n_rolling_params++] = optarg;
            continue;
        case COLLISION_ROLLING: target = &rq->rolling; break;
        case COLLISION_ADHESION: rq->adhesion = optarg; continue;
        case COLLISION_ADHESION_PARAMS:
            if (rq->n_adhesion_params == ADHESION_MAX_PARAMS * 2)
                return bad("too many --adhesion-param", optarg);
            adhesion_params[rq->n_adhesion_params++] = optarg;
            continue;
        case COLLISION_COHESION_REMOVAL: {
            int on;
            if (cli_parse_switch(optarg, &on))
                return bad("--cohesion-removal takes on or off", optarg);
            rq->cohesion_removal = on;
            continue;
        }
        case O_FORMAT: *format = optarg; continue;
        case O_SWEEP: *sweep = optarg; continue;
        case COLLISION_CALIBRATE: rq->calibrate = true; continue;
        case COLLISION_FRICTION: target = &rq->friction; break;
        case COLLISION_TANGENTIAL_RESTITUTION: target = &rq->tangential_restitution; break;
        case COLLISION_ANGLE: target = &rq->angle; break;
        case COLLISION_TANGENTIAL_VELOCITY: target = &rq->tangential_velocity; break;
        case COLLISION_SPIN1:
        case COLLISION_SPIN2:
            if (parse_vector(optarg, rq->spin[c == COLLISION_SPIN2]))
                return bad(c == COLLISION_SPIN1 ? "--spin1 takes three numbers WX,WY,WZ [rad/s]"
                                                : "--spin2 takes three numbers WX,WY,WZ [rad/s]",
                           optarg);
            continue;
        default:
            fprintf(stderr, "dempact collide: unknown or incomplete option '%s'\n\n",
                    argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
        rq->given[c] = true;
        if (cli_parse_double(optarg, target)) {
            char what[64];
            snprintf(what, sizeof what, "--%s: not a number", opts[li].name);
            return bad(what, optarg);
        }
    }
    if (optind < argc) return bad("unexpected argument", argv[optind]);
    if (!rq->law) {
        fprintf(stderr, "dempact collide: --law is required (see dempact laws)\n");
        return EXIT_BAD_INPUT;
    }
    if (strcmp(*format, "json") && strcmp(*format, "csv"))
        return bad("--format takes json or csv", *format);
    return 0;
}

/* A collision's refusal (rc a failure value): exit 2, or 3 when it ran out of memory. */
static int refused(int rc, const char *err)
{
    fprintf(stderr, "dempact collide: %s\n", err);
    return status_of_fail(rc, EXIT_BAD_INPUT);
}

/* The k-th of n runs of a sweep into rq: --sweep's restitution, evenly spaced from
 * e_from to e_to (e_from NAN: no --sweep), or --velocity's speed, in a geometric
 * progression from v_from to v_to with the ends exactly as given (v_from NAN: one
 * speed). */
static void sweep_point(collision_request *rq, double e_from, double e_to, double v_from,
                        double v_to, long k, long n)
{
    if (!isnan(e_from)) {
        rq->restitution = n > 1 ? e_from + (e_to - e_from) * k / (n - 1) : e_from;
        rq->given[COLLISION_RESTITUTION] = true;
    }
    if (!isnan(v_from))
        rq->velocity = k == 0 ? v_from : k == n - 1 ? v_to
                     : v_from * pow(v_to / v_from, (double)k / (double)(n - 1));
}

int cli_collide(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    const char *params[LAW_MAX_PARAMS * 2];
    const char *friction_params[FRICTION_MAX_PARAMS * 2], *rolling_params[FRICTION_MAX_PARAMS * 2];
    const char *adhesion_params[ADHESION_MAX_PARAMS * 2];
    const char *format = "json", *sweep = NULL, *speeds = NULL;
    collision_request rq;
    collision_request_defaults(&rq);
    rq.names = option_names;
    rq.params = params;
    rq.friction_params = friction_params;
    rq.rolling_params = rolling_params;
    rq.adhesion_params = adhesion_params;
    int status = parse_options(argc, argv, &rq, params, friction_params, rolling_params,
                               adhesion_params, &format, &sweep, &speeds);
    if (status) return status;

    /* --sweep E1:E2:N gives the restitution N times: with --restitution or a --param
     * restitution= it would say it twice */
    double e_from = NAN, e_to = NAN;
    long n_runs = 1;
    if (sweep) {
        if (sscanf(sweep, "%lf:%lf:%ld", &e_from, &e_to, &n_runs) != 3 || n_runs < 1 ||
            n_runs > 100000 || !(e_from > 0 && e_from <= 1) || !(e_to > 0 && e_to <= 1))
            return bad("--sweep takes E1:E2:N with 0 < E <= 1 and 1 <= N <= 100000", sweep);
        if (rq.given[COLLISION_RESTITUTION]) {
            fprintf(stderr, "dempact collide: give --restitution or --sweep, not both\n");
            return EXIT_BAD_INPUT;
        }
        for (int k = 0; k < rq.n_params; k++)
            if (!strncmp(params[k], "restitution=", 12)) {
                fprintf(stderr, "dempact collide: give --param %s or --sweep, not both\n",
                        params[k]);
                return EXIT_BAD_INPUT;
            }
    }
    /* --velocity V1:V2:N: N speeds from V1 to V2 in a geometric progression (each speed
     * collision_request_build's to check, as a single --velocity) */
    double v_from = NAN, v_to = NAN;
    if (speeds) {
        char tail;
        if (sscanf(speeds, "%lf:%lf:%ld%c", &v_from, &v_to, &n_runs, &tail) != 3 ||
            n_runs < 1 || n_runs > 100000 || !(v_from > 0 && isfinite(v_from)) ||
            !(v_to > 0 && isfinite(v_to)))
            return bad("--velocity takes V0 or V1:V2:N with V1, V2 > 0 [m/s] and "
                       "1 <= N <= 100000", speeds);
        if (sweep) {
            fprintf(stderr, "dempact collide: give --sweep or --velocity V1:V2:N, not both\n");
            return EXIT_BAD_INPUT;
        }
    }
    int csv = !strcmp(format, "csv");
    /* every run's inputs checked before the first runs: a refusal writes nothing */
    for (long k = 0; k < n_runs; k++) {
        collision_spec sp;
        double e_in;
        char err[512];
        sweep_point(&rq, sweep ? e_from : NAN, e_to, speeds ? v_from : NAN, v_to, k, n_runs);
        int rc = collision_request_build(&rq, &sp, &e_in, err, sizeof err);
        if (rc != 0) return refused(rc, err);
    }
    for (long k = 0; k < n_runs; k++) {
        sweep_point(&rq, sweep ? e_from : NAN, e_to, speeds ? v_from : NAN, v_to, k, n_runs);
        collision_spec sp;
        double e_in;
        char err[512];
        int rc = collision_request_build(&rq, &sp, &e_in, err, sizeof err);
        if (rc != 0) return refused(rc, err);
        tuning_from_env(&sp.tuning);
        collision_result r;
        if ((rc = collision_run(&sp, &r, err, sizeof err)) != 0) return refused(rc, err);
        print_row(stdout, csv, &rq, &sp, e_in, &r, k == 0, k == n_runs - 1,
                  sweep != NULL || speeds != NULL);
    }
    return 0;
}
