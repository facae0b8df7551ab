/* dempact bench: times the engine on a settled bed of spheres (engine/population/bed.h), built or
 * read from a LAMMPS data file (io/readers/lammps_data.h), and can write the bed for LAMMPS and
 * LIGGGHTS to run the same thing (tools/bench_compare.py). */
#include <getopt.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io/ranks/ranks.h"
#include "io/session/tuning_env.h"
#include "cli_bench_adhesion.h"
#include "cli_bench_data.h"
#include "cli_bench_passes.h"
#include "io/readers/lammps_data.h"
#include "engine/population/bed.h"
#include "engine/sim.h"
#include "engine/checks/watchdog.h"
#include "models/calibrate.h"

/* Defaults: glass beads of 2 mm, as in cases/pour.yaml. */
#define D_PARTICLES 100000
#define D_STEPS 1000
#define D_LAW "hertz_tti"
#define D_RESTITUTION 0.5
#define D_RADIUS 0.001
#define D_DENSITY 2500.0
#define D_YOUNG 1e7
#define D_POISSON 0.25
#define D_GRAVITY 9.81
#define D_SEED 1
#define D_RAYLEIGH_FRACTION 0.2

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact bench [--particles N | --load FILE] [--steps S] [--threads T]\n"
            "         [--friction MU] [--rolling MU_R] [--format text|json] [--law NAME] [--restitution E]\n"
            "         [--param KEY=VALUE ...] [--cohesion-removal on|off] [--reproducible on|off]\n"
            "         [--passes auto|fused|generic] [--young Y] [--poisson NU] [--density RHO] [--radius R] [--dt DT] [--skin S]\n"
            "         [--gravity G] [--depth D] [--seed SEED] [--write-data FILE [--overwrite]]\n"
            "         [--adhesion MODEL [--adhesion-param KEY=VALUE ...]] [--quiet]\n\n"
            "Times S steps of a settled bed of spheres in a box with a floor (z = zlo) and\n"
            "periodic x and y sides, and prints the number of spheres, contacts per sphere\n"
            "(particle-particle contacts count for both spheres, floor contacts once),\n"
            "particle_steps_per_second, seconds per step, threads and peak resident memory\n"
            "per particle (of the whole process), and the neighbour list's particle pairs per\n"
            "sphere at the end, touching or not (listed_pairs_per_particle: the pair loop's\n"
            "candidates).\n"
            "It also prints the share of a step spent in each pass, in seconds per step and\n"
            "percent of seconds_per_step (json: \"passes\", each with seconds_per_step and\n"
            "percent, and percent_total): neighbours (the rebuild check, the rebuilds with\n"
            "their sort along the curve, the periodic ghosts' update; on ranks the halo\n"
            "exchange), pairs (the pair loop over particle and wall pairs: geometry, forces,\n"
            "springs), integration (the half-kick and drift, the pairs' stored forces summed\n"
            "onto the particles with the velocity correction), books (the rest of the step:\n"
            "walls' loads, force sums' start). They add up to about 100%% (what is left is the\n"
            "bench's loop); on ranks each pass is the ranks' mean.\n\n"
            "--particles N builds a bed of N spheres of radius R: one tile of %d to %d\n"
            "spheres, settled through the engine under gravity with the bench's own law and\n"
            "material, copied side by side (engine/population/bed.h; N must be a whole number of tiles:\n"
            "other counts are refused with the nearest that are); D is its depth in diameters.\n"
            "The same N, SEED and settings give the same bed, on any number of threads.\n"
            "--load FILE reads a LAMMPS data file instead (atom_style sphere: ID TYPE DIAMETER\n"
            "DENSITY X Y Z, one density; it gives the sizes, so no --radius or --density), its\n"
            "box giving the floor (zlo) and the periodic sides. --write-data FILE writes the bed\n"
            "(with its velocities) in that format before the timing, for LAMMPS and LIGGGHTS;\n"
            "--steps 0 stops there. An existing FILE is refused (exit 2, before the bed is\n"
            "built) unless --overwrite; FILE appears whole or not at all (written beside\n"
            "it, then moved into place). The law's parameters: --restitution E for laws\n"
            "that have one, --param KEY=VALUE for any (see dempact laws). --reproducible on\n"
            "times the run with the case setting parallel.reproducible (sums in an order\n"
            "set by ids). --passes fused times the force loop's fused passes wherever it has\n"
            "one, generic its generic passes only, auto (the default) each where it is the\n"
            "faster (the same results; docs/performance.md). --rolling MU_R adds the\n"
            "constant rolling torque (dempact laws) of coefficient MU_R to the friction.\n"
            "--adhesion MODEL (jkr, dmt, sjkr, sjkr2, capillary: dempact laws --adhesion) puts\n"
            "that adhesion law, its keys each an --adhesion-param KEY=VALUE, on the sphere and\n"
            "floor contacts of the timed steps; the bed settles without it (the same N gives\n"
            "the same bed), and the settings name it (json: settings.adhesion, null without).\n"
            "Under mpirun -np N (an MPI build) the bed is split over the N ranks by Zoltan\n"
            "(RCB), always summing by id, and the results add what a rank sends per step\n"
            "and per neighbour rebuild.\n\n"
            "defaults: N = %d, S = %d, T = all cores (OMP_NUM_THREADS if set), MU = 0,\n"
            "format text, law %s with restitution %g and cohesion removal on, Y = %g Pa,\n"
            "NU = %g, RHO = %g kg/m^3, R = %g m, DT = %g x the Rayleigh time of the smallest\n"
            "sphere, S = 0.1 x the largest diameter, G = %g m/s^2, D = 16, SEED = %d.\n"
            "The settings used are printed with the results.\n",
            BED_TILE_MIN, BED_TILE_MAX, D_PARTICLES, D_STEPS, D_LAW, D_RESTITUTION, D_YOUNG, D_POISSON,
            D_DENSITY, D_RADIUS, D_RAYLEIGH_FRACTION, D_GRAVITY, D_SEED);
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "dempact bench: %s: '%s'\n", what, value);
    return EXIT_BAD_INPUT;
}

/* "KEY=VALUE" into the law's parameter array. */
static int set_param(const dem_law *law, double *params, const char *text)
{
    char err[256];
    if (law_param_set(law, params, text, err, sizeof err) >= 0) return 0;
    fprintf(stderr, "dempact bench: %s\n", err);
    return -1;
}

static double rayleigh_time(double radius, const material *m)
{
    double shear = m->young / (2.0 * (1.0 + m->poisson));
    return M_PI * radius * sqrt(m->density / shear) / (0.1631 * m->poisson + 0.8766);
}

/* A loaded file the engine can start from: no atoms overlapping by more than the
 * watchdog's default allows, a solid fraction <= 1 (lammps_data_check_packing), and no
 * atom moving more than half its radius per step (*dt: --dt, or 0 for the default the
 * bench takes from the smallest atom, which it is set to here). Prints the problem. */
static int loaded_bed_is_sane(const lammps_data *d, const char *path, const material *m,
                              double *dt)
{
    char err[1024];
    if (lammps_data_check_packing(d, WATCHDOG_DEFAULT_OVERLAP, NULL, path, err, sizeof err) != 0) {
        fprintf(stderr, "dempact bench: %s\n", err);
        return -1;
    }
    double r_min = HUGE_VAL;
    for (size_t i = 0; i < d->n; i++) r_min = fmin(r_min, 0.5 * d->diameter[i]);
    material mat = *m;
    mat.density = d->density[0];
    if (*dt == 0) *dt = D_RAYLEIGH_FRACTION * rayleigh_time(r_min, &mat);
    for (size_t i = 0; i < d->n; i++) {
        const double *v = d->v + 3 * i;
        double speed = hypot(hypot(v[0], v[1]), v[2]), r = 0.5 * d->diameter[i];
        if (!(speed * *dt > WATCHDOG_STEP_FRACTION * r)) continue;
        fprintf(stderr, "dempact bench: %s: atom %lld moves at %.4g m/s, %.4g m per step (dt = "
                        "%.4g s), more than %g of its radius %g m: the step cannot integrate it\n",
                path, (long long)d->id[i], speed, speed * *dt, *dt, WATCHDOG_STEP_FRACTION, r);
        return -1;
    }
    return 0;
}

/* touching particle pairs and wall pairs; `listed`: the particle pairs of the neighbour
 * list, touching or not (the pair loop's candidates) */
typedef struct contact_count { size_t pairs, walls, listed; } contact_count;

/* `over_ranks`: summed over the ranks of a split run, where a pair listed under another
 * rank's particle is that rank's to count. */
static contact_count count_contacts(const sim *s, int over_ranks)
{
    contact_count c = {0, 0, 0};
    for (size_t k = 0; k < s->pairs.n; k++) {
        if (s->pairs.i[k] >= s->p.n_local) continue;
        c.listed++;
        c.pairs += contact_overlap(&s->pairs, &s->p, k) > 0.0;
    }
    for (size_t k = 0; k < s->wall_pairs.n; k++) c.walls += s->wall_pairs.overlap[k] > 0.0;
    if (over_ranks) { /* (counts: exact as doubles) */
        double n[3] = {(double)c.pairs, (double)c.walls, (double)c.listed};
        ranks_sum(n, 3);
        c.pairs = (size_t)n[0];
        c.walls = (size_t)n[1];
        c.listed = (size_t)n[2];
    }
    return c;
}

/* The largest value over the ranks (this rank's in one process). */
static double largest(double x) { return ranks_largest(x); }

static double fastest(const sim *s)
{
    double worst = 0.0;
    for (size_t i = 0; i < s->p.n_local; i++)
        worst = fmax(worst, s->p.vx[i] * s->p.vx[i] + s->p.vy[i] * s->p.vy[i] +
                                s->p.vz[i] * s->p.vz[i]);
    return sqrt(largest(worst));
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
        else fputc(*s, out);
    }
    fputc('"', out);
}

int cli_bench(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    /* on several ranks each builds the same bed; rank 0 speaks for all */
    if (ranks_silence_others() != 0) return EXIT_BAD_INPUT;
    enum { O_N = 1, O_LOAD, O_STEPS, O_THREADS, O_FRICTION, O_FORMAT, O_LAW, O_E, O_PARAM, O_COH,
           O_Y, O_NU, O_RHO, O_R, O_DT, O_SKIN, O_G, O_DEPTH, O_SEED, O_WRITE, O_QUIET, O_REPRO,
           O_OVERWRITE, O_PASSES, O_ROLLING, O_ADH, O_ADH_PARAM };
    static const struct option opts[] = {
        {"particles", required_argument, 0, O_N}, {"load", required_argument, 0, O_LOAD},
        {"steps", required_argument, 0, O_STEPS}, {"threads", required_argument, 0, O_THREADS},
        {"friction", required_argument, 0, O_FRICTION}, {"format", required_argument, 0, O_FORMAT},
        {"law", required_argument, 0, O_LAW}, {"restitution", required_argument, 0, O_E},
        {"param", required_argument, 0, O_PARAM}, {"cohesion-removal", required_argument, 0, O_COH},
        {"young", required_argument, 0, O_Y}, {"poisson", required_argument, 0, O_NU},
        {"density", required_argument, 0, O_RHO}, {"radius", required_argument, 0, O_R},
        {"dt", required_argument, 0, O_DT}, {"skin", required_argument, 0, O_SKIN},
        {"gravity", required_argument, 0, O_G}, {"depth", required_argument, 0, O_DEPTH},
        {"seed", required_argument, 0, O_SEED}, {"write-data", required_argument, 0, O_WRITE},
        {"quiet", no_argument, 0, O_QUIET}, {"reproducible", required_argument, 0, O_REPRO},
        {"overwrite", no_argument, 0, O_OVERWRITE}, {"passes", required_argument, 0, O_PASSES},
        {"rolling", required_argument, 0, O_ROLLING}, {"adhesion", required_argument, 0, O_ADH},
        {"adhesion-param", required_argument, 0, O_ADH_PARAM},
        {0, 0, 0, 0}};
    const char *load = NULL, *format = "text", *law_name = D_LAW, *write_path = NULL;
    const char *params[LAW_MAX_PARAMS * 2];
    int n_params = 0, cohesion = 1, reproducible = 0, quiet = 0, have_particles = 0, have_size = 0;
    int overwrite = 0;
    bench_adhesion_request adh_rq = {0};
    force_passes loop_passes = PASSES_AUTO;
    static const char *const pass_names[] = {"auto", "fused", "generic"};
    double n_particles = D_PARTICLES, steps = D_STEPS, threads = -1, mu = 0, mu_r = 0, e = NAN;
    double young = D_YOUNG, nu = D_POISSON, rho = D_DENSITY, radius = D_RADIUS, dt = 0, skin = 0;
    double gravity = D_GRAVITY, depth = 0, seed = D_SEED;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        double *target = NULL;
        switch (c) {
        case O_N: target = &n_particles; have_particles = 1; break;
        case O_LOAD: load = optarg; continue;
        case O_STEPS: target = &steps; break;
        case O_THREADS: target = &threads; break;
        case O_FRICTION: target = &mu; break;
        case O_ROLLING: target = &mu_r; break;
        case O_FORMAT: format = optarg; continue;
        case O_LAW: law_name = optarg; continue;
        case O_E: target = &e; break;
        case O_PARAM:
            if (n_params == LAW_MAX_PARAMS * 2) return bad("too many --param", optarg);
            params[n_params++] = optarg;
            continue;
        case O_COH:
            if (cli_parse_switch(optarg, &cohesion)) return bad("--cohesion-removal takes on or off", optarg);
            continue;
        case O_REPRO:
            if (cli_parse_switch(optarg, &reproducible)) return bad("--reproducible takes on or off", optarg);
            continue;
        case O_PASSES:
            for (loop_passes = PASSES_AUTO; loop_passes <= PASSES_GENERIC; loop_passes++)
                if (!strcmp(optarg, pass_names[loop_passes])) break;
            if (loop_passes > PASSES_GENERIC) return bad("--passes takes auto, fused or generic", optarg);
            continue;
        case O_Y: target = &young; break;
        case O_NU: target = &nu; break;
        case O_RHO: target = &rho; have_size = 1; break;
        case O_R: target = &radius; have_size = 1; break;
        case O_DT: target = &dt; break;
        case O_SKIN: target = &skin; break;
        case O_G: target = &gravity; break;
        case O_DEPTH: target = &depth; break;
        case O_SEED: target = &seed; break;
        case O_WRITE: write_path = optarg; continue;
        case O_ADH: adh_rq.model = optarg; continue;
        case O_ADH_PARAM:
            if (adh_rq.n_params == ADHESION_MAX_PARAMS * 2) return bad("too many --adhesion-param", optarg);
            adh_rq.params[adh_rq.n_params++] = optarg;
            continue;
        case O_QUIET: quiet = 1; continue;
        case O_OVERWRITE: overwrite = 1; continue;
        default:
            fprintf(stderr, "dempact bench: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
        if (cli_parse_double(optarg, target)) return bad("not a number", optarg);
    }
    if (optind < argc) return bad("unexpected argument", argv[optind]);
    if (load && have_particles) {
        fprintf(stderr, "dempact bench: give --particles N or --load FILE, not both\n");
        return EXIT_BAD_INPUT;
    }
    if (load && have_size) {
        fprintf(stderr, "dempact bench: with --load, the file gives the spheres' diameters and "
                        "density: drop --radius and --density\n");
        return EXIT_BAD_INPUT;
    }
    if (!(n_particles >= 1 && n_particles <= 2e9 && n_particles == floor(n_particles)))
    {
        fprintf(stderr, "dempact bench: --particles takes a whole number from 1 to 2e9, not %g\n", n_particles);
        return EXIT_BAD_INPUT;
    }
    if (!(steps >= 0 && steps <= 1e12 && steps == floor(steps))) {
        fprintf(stderr, "dempact bench: --steps takes a whole number >= 0, not %g\n", steps);
        return EXIT_BAD_INPUT;
    }
    if (threads != -1 && !(threads >= 1 && threads <= 1024 && threads == floor(threads))) {
        fprintf(stderr, "dempact bench: --threads takes a whole number from 1 to 1024, not %g\n", threads);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(format, "text") && strcmp(format, "json")) return bad("--format takes text or json", format);
    if (!(young > 0) || !(nu > -1 && nu < 0.5) || !(rho > 0) || !(radius > 0) || !(dt >= 0) ||
        !(skin >= 0) || !(gravity > 0) || !(depth >= 0) || !(mu >= 0) || !(mu_r >= 0) ||
        !(seed >= 0 && seed == floor(seed))) {
        fprintf(stderr, "dempact bench: need young, density, radius, gravity > 0, poisson in "
                        "(-1, 0.5), dt, skin, depth, rolling, friction >= 0 and a whole seed >= 0\n");
        return EXIT_BAD_INPUT;
    }
    const dem_law *law = law_find(law_name);
    if (!law) return bad("unknown law (see dempact laws)", law_name);
    if (overwrite && !write_path) {
        fprintf(stderr, "dempact bench: --overwrite goes with --write-data FILE\n");
        return EXIT_BAD_INPUT;
    }
    /* rank 0 writes the file, so rank 0's view of it decides for every rank */
    if (write_path) {
        int usable = ranks_worst(ranks_self() == 0 ? bench_data_path_usable(write_path, overwrite) : 0);
        if (usable != 0) return usable;
    }

    law_binding bind = {.law = law, .cohesion_removal = cohesion};
    for (int k = 0; k < law->n_params; k++) bind.params[k] = law->params[k].default_value;
    /* --restitution (default 0.5) sets the law's restitution, if it has one */
    int e_index = law_param_index(law, "restitution");
    if (e_index < 0 && !isnan(e)) {
        fprintf(stderr, "dempact bench: law %s has no restitution parameter (see dempact laws %s)\n",
                law->name, law->name);
        return EXIT_BAD_INPUT;
    }
    if (isnan(e)) e = D_RESTITUTION;
    if (e_index >= 0) {
        if (!(e > 0 && e <= 1)) {
            fprintf(stderr, "dempact bench: --restitution %g must be in (0, 1]\n", e);
            return EXIT_BAD_INPUT;
        }
        bind.params[e_index] = e;
    }
    for (int k = 0; k < n_params; k++)
        if (set_param(law, bind.params, params[k]) != 0) return EXIT_BAD_INPUT;
    for (int k = 0; k < law->n_params; k++)
        if (isnan(bind.params[k]) && law_param_required(law, k, false)) {
            fprintf(stderr, "dempact bench: law %s needs parameter '%s' (--param %s=VALUE)\n",
                    law->name, law->params[k].name, law->params[k].name);
            return EXIT_BAD_INPUT;
        }
    bind.friction.mu = mu; /* the Hertz-Mindlin workload: the default Mindlin model and damping */
    bind.friction.mu_rolling = mu_r; /* and the shipped cases' rolling resistance */
    if (mu_r > 0) bind.friction.rolling = rolling_law_find("constant");
    char err[2048];
    contact_adhesion adhesion; /* the timed steps' only: the bed settles without it */
    adh_rq.law = law->name;
    if (bench_adhesion_build(&adh_rq, &adhesion, err, sizeof err) != 0) {
        fprintf(stderr, "dempact bench: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    if (threads >= 1) omp_set_num_threads((int)threads);
    material mat = {.density = rho, .young = young, .poisson = nu};
    snprintf(mat.name, sizeof mat.name, "spheres");

    /* the bed */
    bed b;
    double r_min = radius, r_max = radius;
    if (load) {
        lammps_data d;
        if (lammps_data_read(load, &d, err, sizeof err) != 0) {
            fprintf(stderr, "dempact bench: %s\n", err);
            return EXIT_BAD_INPUT;
        }
        int rc = loaded_bed_is_sane(&d, load, &mat, &dt) != 0 ? -1 : bench_bed_from_data(&d, &b, load);
        lammps_data_free(&d);
        if (rc != 0) return EXIT_BAD_INPUT;
        mat.density = b.density;
        r_min = HUGE_VAL; r_max = 0;
        for (size_t i = 0; i < b.n; i++) { r_min = fmin(r_min, b.radius[i]); r_max = fmax(r_max, b.radius[i]); }
        bed_wrap(&b);
    }
    if (dt == 0) dt = D_RAYLEIGH_FRACTION * rayleigh_time(r_min, &mat);
    if (skin == 0) skin = 0.1 * 2.0 * r_max;
    /* a loaded bed in any order: sort it along the engine's curve (cells the cutoff wide,
     * engine/neighbours/reorder.h), as bed_build does, so no step pays for the sort */
    if (load && bed_sort(&b, 2.0 * r_max + skin) != 0) { fprintf(stderr, "dempact bench: out of memory\n"); bed_free(&b); return EXIT_RUN_FAILED; }
    if (!load) {
        bed_spec spec = {.n = (long)n_particles, .radius = radius, .mat = mat, .law = bind,
                         .gravity = gravity, .dt = dt, .skin = skin, .depth = depth,
                         .seed = (uint64_t)seed, .verbose = !quiet};
        if (bed_build(&spec, &b, err, sizeof err) != 0) {
            fprintf(stderr, "dempact bench: building the bed: %s\n", err);
            return EXIT_BAD_INPUT;
        }
        if (!quiet)
            fprintf(stderr, "bed: settled in %ld steps (%.1f s), fastest sphere %.3g m/s\n",
                    b.settle_steps, b.settle_seconds, b.settle_speed);
    }
    if (write_path) {
        char title[512];
        snprintf(title, sizeof title, "dempact bench bed: %zu spheres, density %.17g, box %.17g x %.17g, "
                 "floor at z = %.17g, x y periodic (law %s, young %.17g, poisson %.17g)",
                 b.n, b.density, b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.lo[2], law->name, young, nu);
        int rc = ranks_worst(ranks_self() == 0 ? bench_write_bed(write_path, &b, title, overwrite) : 0);
        if (rc != 0) { bed_free(&b); return rc; }
        if (!quiet) fprintf(stderr, "bed: wrote %s\n", write_path);
    }

    /* the simulation */
    bed_setup st;
    bind.adhesion = adhesion;
    bed_setup_fill(&st, &b, &mat, &bind, gravity, dt, skin);
    st.cfg.sources_copied = bed_release_particles; /* the simulation holds its own copy */
    st.cfg.sources_copied_ctx = &b;
    sim s;
    tuning_from_env(&st.cfg.tuning);
    const int n_ranks = ranks_count();
    if (n_ranks > 1) reproducible = 1; /* a split run sums by id (sim_split) */
    st.cfg.reproducible = reproducible;
    st.cfg.passes = loop_passes;
    /* nothing reads the pairs' forces: none recorded (sim_record_pair_forces) */
    if (sim_place(&s, &st.cfg, err, sizeof err) != 0 || sim_record_pair_forces(&s, 0) != 0 ||
        sim_start(&s, err, sizeof err) != 0) {
        fprintf(stderr, "dempact bench: %s\n", err);
        sim_free(&s);
        bed_free(&b);
        return EXIT_BAD_INPUT;
    }
    size_t n = b.n;
    double box_lo[3], box_hi[3];
    memcpy(box_lo, b.lo, sizeof box_lo);
    memcpy(box_hi, b.hi, sizeof box_hi);
    int tiles[2] = {b.tiles[0], b.tiles[1]};
    size_t tile_n = b.tile_particles;
    long settle_steps = b.settle_steps;
    double settle_seconds = b.settle_seconds;
    bed_free(&b);

    contact_count c0 = count_contacts(&s, 0); /* every rank holds them all */
    double v_start = fastest(&s), top = 0.0, volume = 0.0;
    for (size_t i = 0; i < n; i++) {
        top = fmax(top, s.p.z[i] + s.p.radius[i]);
        volume += 4.0 / 3.0 * M_PI * s.p.radius[i] * s.p.radius[i] * s.p.radius[i];
    }
    double solid_fraction = volume / ((box_hi[0] - box_lo[0]) * (box_hi[1] - box_lo[1]) * (top - box_lo[2]));
    int n_threads = omp_get_max_threads();
    long n_steps = (long)steps;
    /* on ranks every rank built the whole bed: each keeps its part */
    int split = ranks_split_whole(&s, quiet ? NULL : stderr, err, sizeof err);
    if (split != 0) {
        fprintf(stderr, "dempact bench: %s\n", err);
        sim_free(&s);
        ranks_session_end();
        return status_of_fail(split, EXIT_BAD_INPUT);
    }
    int64_t rebuilds0 = s.n_rebuilds;
    double passes0[SIM_PASSES];
    memcpy(passes0, s.pass_seconds, sizeof passes0);
    if (!quiet && n_steps > 0)
        fprintf(stderr, "bench: %zu spheres, %.3g contacts each, %ld steps on %d threads\n", n,
                (2.0 * c0.pairs + c0.walls) / n, n_steps, n_threads);
    ranks_barrier();
    double t0 = omp_get_wtime();
    for (long k = 0; k < n_steps && !s.fault; k++) sim_step(&s);
    double elapsed = largest(omp_get_wtime() - t0); /* the slowest rank's */
    double traffic_step[2], traffic_rebuild[2];
    ranks_split_traffic(traffic_step, traffic_rebuild);
    if (s.fault == SIM_FAULT_NO_MEMORY) {
        int status = cli_no_memory(&s);
        sim_free(&s);
        return status;
    }
    if (s.fault) { /* a particle ran away: the engine refused the step (engine/checks/runaway.h) */
        watchdog_report wr;
        watchdog_state ws = {.energy_budget = NAN};
        char msg[1024];
        watchdog_check(&s, &ws, false, &wr);
        watchdog_format(&wr, &s, msg, sizeof msg);
        fprintf(stderr, "dempact bench: %s\n", msg);
        sim_free(&s);
        return EXIT_WATCHDOG;
    }
    contact_count c1 = count_contacts(&s, 1);
    bench_passes passes = bench_passes_measure(&s, passes0, n_steps,
                                               n_steps > 0 ? elapsed / n_steps : NAN);
    double v_end = fastest(&s);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double peak_bytes = (double)ru.ru_maxrss * 1024.0;
    /* every rank's (each holds the whole bed while it is built) */
    ranks_sum(&peak_bytes, 1);
    ranks_session_end();

    double per_step = n_steps > 0 ? elapsed / n_steps : NAN;
    double rate = n_steps > 0 && elapsed > 0 ? (double)n * n_steps / elapsed : NAN;
    double z = (2.0 * c0.pairs + c0.walls) / n, z_pairs = 2.0 * c0.pairs / n;
    double z_end = (2.0 * c1.pairs + c1.walls) / n;
    FILE *out = stdout;
    if (!strcmp(format, "json")) {
        char rate_text[40], step_text[40];
        if (isnan(rate)) snprintf(rate_text, sizeof rate_text, "null");
        else snprintf(rate_text, sizeof rate_text, "%.6g", rate);
        if (isnan(per_step)) snprintf(step_text, sizeof step_text, "null");
        else snprintf(step_text, sizeof step_text, "%.6g", per_step);
        fprintf(out, "{\"particles\": %zu, \"contacts_per_particle\": %.6g, "
                     "\"particle_steps_per_second\": %s, \"seconds_per_step\": %s, \"threads\": %d, "
                     "\"peak_memory_bytes_per_particle\": %.6g,\n",
                n, z, rate_text, step_text, n_threads, peak_bytes / n);
        fprintf(out, " \"ranks\": %d, \"bytes_per_step_per_rank\": [%.6g, %.6g], "
                     "\"bytes_per_rebuild_per_rank\": [%.6g, %.6g],\n",
                n_ranks, traffic_step[0], traffic_step[1], traffic_rebuild[0], traffic_rebuild[1]);
        fprintf(out, " \"steps\": %ld, \"wall_seconds\": %.6g, \"neighbour_rebuilds\": %lld, "
                     "\"reorders\": %lld, "
                     "\"pair_contacts_per_particle\": %.6g, \"contacts_per_particle_end\": %.6g, "
                     "\"pair_contacts_per_particle_end\": %.6g, \"listed_pairs_per_particle\": %.6g, "
                     "\"fastest_sphere_start\": %.6g, \"fastest_sphere_end\": %.6g, "
                     "\"solid_fraction\": %.6g,\n",
                n_steps, elapsed, (long long)(s.n_rebuilds - rebuilds0), (long long)s.n_reorders,
                z_pairs, z_end,
                2.0 * c1.pairs / n, (double)c1.listed / n, v_start,
                v_end, solid_fraction);
        bench_passes_print(out, &passes, n_steps, 1);
        fprintf(out, " \"bed\": {\"source\": ");
        json_string(out, load ? load : "built");
        fprintf(out, ", \"tiles\": [%d, %d], \"tile_particles\": %zu, \"settle_steps\": %ld, "
                     "\"settle_seconds\": %.6g, \"box_min\": [%.17g, %.17g, %.17g], "
                     "\"box_max\": [%.17g, %.17g, %.17g], \"top\": %.17g},\n",
                tiles[0], tiles[1], tile_n, settle_steps, settle_seconds, box_lo[0], box_lo[1], box_lo[2],
                box_hi[0], box_hi[1], box_hi[2], top);
        fprintf(out, " \"settings\": {\"law\": ");
        json_string(out, law->name);
        fprintf(out, ", \"params\": {");
        for (int k = 0; k < law->n_params; k++) {
            fprintf(out, "%s", k ? ", " : "");
            json_string(out, law->params[k].name);
            if (isnan(bind.params[k])) fprintf(out, ": null");
            else fprintf(out, ": %.17g", bind.params[k]);
        }
        fprintf(out, "}, \"cohesion_removal\": %s, \"young\": %.17g, \"poisson\": %.17g, "
                     "\"density\": %.17g, \"radius_min\": %.17g, \"radius_max\": %.17g, "
                     "\"dt\": %.17g, \"skin\": %.17g, \"gravity\": %.17g, \"friction\": %.17g, "
                     "\"rolling\": %.17g, \"seed\": %.0f, \"depth\": %.17g, \"reproducible\": %s, \"passes\": \"%s\"",
                cohesion ? "true" : "false", young, nu, mat.density, r_min, r_max, s.dt, s.skin,
                gravity, mu, mu_r, seed, depth > 0 ? depth : 16.0,
                reproducible ? "true" : "false", pass_names[loop_passes]);
        bench_adhesion_print(out, &adhesion, 1);
        fprintf(out, "}}\n");
    } else {
        fprintf(out, "particles                       %zu\n", n);
        fprintf(out, "contacts_per_particle           %.4g  (at the end %.4g; pairs only %.4g; listed pairs %.4g per sphere, each once)\n",
                z, z_end, z_pairs, (double)c1.listed / n);
        if (n_steps > 0) {
            fprintf(out, "particle_steps_per_second       %.4g\n", rate);
            fprintf(out, "seconds_per_step                %.4g\n", per_step);
        }
        bench_passes_print(out, &passes, n_steps, 0);
        fprintf(out, "threads                         %d\n", n_threads);
        if (n_ranks > 1)
            fprintf(out, "ranks                           %d: a rank sends %.4g bytes per step (the "
                         "most %.4g), %.4g per rebuild (the most %.4g)\n", n_ranks,
                    traffic_step[0], traffic_step[1], traffic_rebuild[0], traffic_rebuild[1]);
        fprintf(out, "peak_memory_bytes_per_particle  %.0f\n", peak_bytes / n);
        fprintf(out, "steps                           %ld in %.3f s, %lld neighbour rebuilds, %lld sorts\n",
                n_steps, elapsed, (long long)(s.n_rebuilds - rebuilds0), (long long)s.n_reorders);
        fprintf(out, "fastest sphere                  %.3g m/s at the start, %.3g m/s at the end\n",
                v_start, v_end);
        if (load) fprintf(out, "bed                             %s\n", load);
        else
            fprintf(out, "bed                             built: %d x %d tiles of %zu spheres, settled in %ld steps (%.1f s)\n",
                    tiles[0], tiles[1], tile_n, settle_steps, settle_seconds);
        fprintf(out, "box                             [%.6g, %.6g] x [%.6g, %.6g], floor at z = %.6g, top of the bed %.6g; solid fraction %.3f\n",
                box_lo[0], box_hi[0], box_lo[1], box_hi[1], box_lo[2], top, solid_fraction);
        fprintf(out, "law                             %s (", law->name);
        for (int k = 0; k < law->n_params; k++)
            fprintf(out, "%s%s %.10g", k ? ", " : "", law->params[k].name, bind.params[k]);
        fprintf(out, "), cohesion removal %s, friction %g, rolling %g%s, %s passes\n",
                cohesion ? "on" : "off", mu, mu_r,
                reproducible ? ", sums by id (parallel.reproducible)" : "", pass_names[loop_passes]);
        fprintf(out, "material                        young %.10g Pa, poisson %.10g, density %.10g kg/m^3, radius %.10g",
                young, nu, mat.density, r_min);
        if (r_max != r_min) fprintf(out, " to %.10g", r_max);
        fprintf(out, " m\n");
        fprintf(out, "dt, skin, gravity               %.10g s, %.10g m, %.10g m/s^2\n", s.dt, s.skin, gravity);
        bench_adhesion_print(out, &adhesion, 0);
    }
    sim_free(&s);
    return 0;
}
