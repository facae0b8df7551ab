/* dempact run: reads a case, checks everything, then steps and writes snapshots. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "cli.h"
#include "ranks.h"
#include "case.h"
#include "case_errors.h"
#include "engine/sim.h"
#include "engine/timestep.h"
#include "engine/watchdog.h"
#include "restart.h"
#include "run_driver.h"
#include "output_schedule.h"
#include "snapshot.h"
#ifdef DEMPACT_MPI
#include "split_run.h"
#endif

static void usage(FILE *out)
{
    fprintf(out,
            "usage: dempact run CASE.yaml [--output DIR] [--threads N] [--end-time T]\n"
            "                   [--restart FILE.h5 [--from-step N]] [--overwrite] [--quiet]\n\n"
            "Runs the case and writes DIR/NAME.h5 (open it with h5py: snapshots, contact\n"
            "network, time series; each snapshot is its own file in DIR/NAME.d/) and\n"
            "DIR/NAME.xmf, NAME_contacts.xmf and NAME_walls.xmf (open them in ParaView), NAME\n"
            "being the case's name. Progress (step, simulated time, particle-steps per\n"
            "second, time left) goes to stderr.\n\n"
            "--end-time T replaces the case's time.end (s).\n"
            "--restart FILE.h5 continues from the last snapshot of FILE.h5 (--from-step N: from\n"
            "the snapshot at step N), bit-identically to a run that never stopped. The case must\n"
            "be the one FILE.h5 was written with; only name, time.end, time.output_interval\n"
            "and time.timeseries_interval may differ. If DIR/NAME.h5 is FILE.h5 the run goes\n"
            "on in that output (snapshots after the restart point are dropped); otherwise\n"
            "DIR/NAME.h5 starts with FILE.h5's snapshots up to the restart point (hard links\n"
            "or copies of their files).\n\n"
            "An existing DIR/NAME.h5 is replaced only if it is a dempact output of the same\n"
            "case (the keys a restart may change aside) or with --overwrite; nothing in DIR\n"
            "is touched before the case, the restart file and DIR are checked.\n"
            "The output is crash-safe: killed at any moment, it keeps every complete\n"
            "snapshot, and every file opens as it is (no repair step).\n"
            "SIGINT (Ctrl-C) and SIGTERM write a last snapshot and stop (exit 130 and 143).\n"
            "Under `mpirun -np N` it runs on N ranks (each with --threads N threads), summing\n"
            "by id (parallel.reproducible), and writes the files one process would.\n\n"
            "defaults: DIR = output, N = all cores (OMP_NUM_THREADS if set).\n"
            "exit status: 0 done, 1 failed while running (e.g. disk full), 2 bad case file,\n"
            "options, restart file or output folder (nothing written), 3 out of memory,\n"
            "4 stopped by the watchdog (a last snapshot is written), 128 + signal number\n"
            "after SIGINT or SIGTERM (a last snapshot is written).\n");
}

/* SIGINT and SIGTERM only set this flag; the step loop checks it after each step, writes
 * a last snapshot and stops. A second signal kills the process (SA_RESETHAND): the file
 * stays valid anyway. */
static volatile sig_atomic_t stop_signal = 0;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void format_duration(double seconds, char *out, size_t len)
{
    long s = (long)(seconds + 0.5);
    snprintf(out, len, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
}

typedef struct progress {
    double started, last_report;
    int64_t first_step, total_steps;
    int on_terminal;
} progress;

/* run_driver's progress callback (ctx: the progress) */
static void report_progress(void *ctx, const run_driver *d, int final)
{
    progress *pr = ctx;
    const sim *s = d->s;
    double now = wall_seconds();
    double interval = pr->on_terminal ? 0.5 : 5.0;
    if (!final && now - pr->last_report < interval) return;
    pr->last_report = now;
    double elapsed = now - pr->started;
    int64_t done = s->step - pr->first_step;
    double rate = elapsed > 0 ? done * (double)d->particles / elapsed : 0.0;
    double left = done > 0 ? elapsed * (pr->total_steps - s->step) / done : 0.0;
    char eta[32];
    format_duration(final ? elapsed : left, eta, sizeof eta);
    fprintf(stderr, "%sstep %lld/%lld  t = %.6g s  %zu contacts  %.3g particle-steps/s  %s %s%s",
            pr->on_terminal ? "\r" : "", (long long)s->step, (long long)pr->total_steps,
            s->time, d->contacts, rate, final ? "elapsed" : "left", eta,
            pr->on_terminal && !final ? "   " : "\n");
    fflush(stderr);
}

/* What calibrate: true solved, so that a run's log says which damping it used. */
static void print_calibrations(const sim *s)
{
    for (int k = 0; k < s->cfg.n_bindings; k++) {
        const law_binding *b = &s->cfg.bindings[k];
        if (!b->calibrate) continue;
        const law_instance *li = &s->laws[b->material_a * s->n_materials + b->material_b];
        fprintf(stderr, "contacts[%d] (%s, %s): %s calibrated to e = %g: %s = %.10g (reference "
                        "collision R* = %.4g m, m* = %.4g kg, v0 = %.4g m/s)\n",
                k, s->cfg.materials[b->material_a].name, s->cfg.materials[b->material_b].name,
                b->law->name, law_target_restitution(b->law, b->params),
                b->law->calibration->coefficient, li->coeffs.c[b->law->calibration->coeff],
                li->reference.r_eff, li->reference.m_eff, li->reference.v0);
    }
}

#ifdef DEMPACT_MPI
/* The split from the start (cli_check_case): split_run.h's two steps. */
static int begin_split(sim *s, void *ctx, char *err, size_t err_len)
{
    return split_run_begin(s, ctx, err, err_len);
}

static int weigh_split(sim *s, void *ctx, char *err, size_t err_len)
{
    return split_run_weigh(s, ctx, err, err_len);
}

/* A restart on ranks, each keeping its share of the snapshot (restart_share). */
typedef struct restart_ranks {
    split_run *split;
    const char *case_path;
} restart_ranks;

static int agree_restart(int failed, char *msg, size_t len, void *ctx)
{
    (void)ctx;
    return ranks_agree(failed != 0, msg, len);
}

static int split_restart(sim *s, const int64_t *id, const double *x, size_t n, void *ctx, char *err,
                         size_t err_len)
{
    const restart_ranks *r = ctx;
    char why[1024] = "";
    if (split_run_rows(s, r->split, id, x, n, why, sizeof why) == 0) return 0;
    snprintf(err, err_len, "%s: %s", r->case_path, why);
    return -1;
}

static int owns_restart(const double x[3], void *ctx)
{
    const halo *h = &((const restart_ranks *)ctx)->split->h;
    return halo_owner(h, x) == h->self;
}
#endif

/* The command that continues a stopped run in its own output, with the options that
 * chose the output and its end (the case's time.end otherwise): it runs as printed. */
static void print_continue(const char *case_path, const char *out_dir, const char *h5, double end_time)
{
    if (!h5) return; /* a rank that does not write the output (rank 0 speaks for all) */
    fputs("continue with: dempact run ", stderr);
    cli_print_shell_word(stderr, case_path);
    if (strcmp(out_dir, "output") != 0) {
        fputs(" --output ", stderr);
        cli_print_shell_word(stderr, out_dir);
    }
    if (end_time > 0.0) { /* the shortest form that reads back as the same number */
        char t[32];
        for (int digits = 6; digits <= 17; digits++) {
            snprintf(t, sizeof t, "%.*g", digits, end_time);
            if (strtod(t, NULL) == end_time) break;
        }
        fprintf(stderr, " --end-time %s", t);
    }
    fputs(" --restart ", stderr);
    cli_print_shell_word(stderr, h5);
    fputc('\n', stderr);
}

/* A run that could not go on: what its output keeps, and how to go on from there. */
static void print_kept(const snapshot_file *out, int64_t step, const char *case_path, const char *out_dir,
                       double end_time)
{
    if (snapshot_count(out) <= 0) return;
    fprintf(stderr, "dempact run: stopped at step %lld; %s keeps its %d complete snapshots, up to "
                    "step %lld, each readable as it is; ",
            (long long)step, snapshot_h5_path(out), snapshot_count(out), (long long)snapshot_last_step(out));
    print_continue(case_path, out_dir, snapshot_h5_path(out), end_time);
}

int cli_run(int argc, char **argv)
{
    if (cli_wants_help(argc, argv)) { usage(stdout); return 0; }
    /* on several ranks each reads and builds the same case; rank 0 speaks for all */
    const int n_ranks = ranks_count();
    if (ranks_silence_others() != 0) return EXIT_BAD_INPUT;
    /* HDF5 1.10 leaks internal objects when a write fails (a full disk), and its clean-up
     * at exit then loops or crashes. Every file is closed explicitly; skip that clean-up. */
    H5dont_atexit();
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"end-time", required_argument, 0, 'e'},
                                         {"restart", required_argument, 0, 'r'},
                                         {"from-step", required_argument, 0, 'f'},
                                         {"overwrite", no_argument, 0, 'w'},
                                         {0, 0, 0, 0}};
    const char *out_dir = "output", *restart_path = NULL;
    int threads = 0, quiet = 0, overwrite = 0, c;
    double end_time = 0.0;
    int64_t from_step = -1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'o': out_dir = optarg; break;
        case 'q': quiet = 1; break;
        case 'w': overwrite = 1; break;
        case 'r': restart_path = optarg; break;
        case 'f':
            if (cli_parse_double(optarg, &v) || v < 0 || v != floor(v) || v > 9e18) {
                fprintf(stderr, "dempact run: --from-step takes the step of one of the file's snapshots, a whole number from 0 to 9e18 (dempact info FILE lists them), not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            if (v > 0x1p53) { /* restart.c: no snapshot has a larger step */
                fprintf(stderr, "dempact run: --from-step %s is beyond the largest step a snapshot can "
                                "have (2^53 = 9007199254740992)\n", optarg);
                return EXIT_BAD_INPUT;
            }
            from_step = (int64_t)v;
            break;
        case 'e':
            if (cli_parse_double(optarg, &end_time) || !(end_time > 0.0) || !isfinite(end_time)) {
                fprintf(stderr, "dempact run: --end-time takes a time > 0 in s, not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 't':
            if (cli_parse_double(optarg, &v) || v < 1 || v != floor(v) || v > 1024) {
                fprintf(stderr, "dempact run: --threads takes a whole number >= 1, not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            threads = (int)v;
            break;
        default:
            fprintf(stderr, "dempact run: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1) { usage(stderr); return EXIT_BAD_INPUT; }
    if (from_step >= 0 && !restart_path) {
        fprintf(stderr, "dempact run: --from-step needs --restart FILE.h5\n");
        return EXIT_BAD_INPUT;
    }
    if (threads > 0) omp_set_num_threads(threads);

    const char *case_path = argv[optind];
    sim_config cfg = {0};
    char err[4096];
    sim s;
    catch_stop_signals(); /* the reader and the fills poll the flag too */
    /* a run split over ranks sums by id (sim_split), and so does the restart of a run
     * that summed so, to go on bit for bit */
    int file_by_id = restart_path ? restart_sums_by_id(restart_path) : 0;
    /* a restart from a file that holds the energy its run started with needs no start of
     * the case (its lists and forces): the case is placed, the snapshot replaces it */
    const int file_energy = restart_path && restart_has_initial_energy(restart_path) == 1;
    const cli_split placed_only = {0};
    const cli_split *from_start = file_energy ? &placed_only : NULL;
    const restart_share *share = NULL;
#ifdef DEMPACT_MPI
    split_run split;
    memset(&split, 0, sizeof split);
    run_ranks over_ranks;
    /* on ranks each rank places the whole case, then keeps its own particles before the
     * first neighbour list; a restart keeps its share of the snapshot (from an older
     * file: splits once the whole snapshot is restored) */
    const cli_split early = {.begin = begin_split, .weigh = weigh_split, .ctx = &split};
    restart_ranks shared_ctx = {.split = &split, .case_path = case_path};
    const restart_share shared = {.rank = ranks_self(), .ranks = n_ranks, .agree = agree_restart,
                                  .split = split_restart, .owns = owns_restart, .hooks = &split.hooks,
                                  .ctx = &shared_ctx};
    if (n_ranks > 1 && !restart_path) from_start = &early;
    if (n_ranks > 1 && file_energy && file_by_id == 1) share = &shared;
#endif
    /* as `dempact check`; on ranks, one that ran out of memory stops them all */
    char msg[4608] = "";
    int checked = cli_check_case(case_path, &cfg, &s, &stop_signal, n_ranks > 1 || file_by_id == 1,
                                 from_start, msg, sizeof msg);
    if ((checked = ranks_agree(checked, msg, sizeof msg)) != 0) {
        fprintf(stderr, "%s\n", msg);
#ifdef DEMPACT_MPI
        split_run_free(&split);
#endif
        sim_free(&s);
        sim_config_free(&cfg);
        return checked;
    }
    if (end_time > 0.0) cfg.end_time = s.cfg.end_time = end_time;
    restart_point rp = {0};
    int status = 0;
    snapshot_file *out = NULL;
    double *wall_load = NULL;
    /* everything is checked before anything in the output folder is touched: the case
     * (above), the restart file, the length of the run, the folder */
    if (restart_path && n_ranks > 1 && file_by_id == 0) {
        /* its pairs were listed by index: a list by id holds many of them the other way
         * round, their springs pointing the other way */
        fprintf(stderr, "dempact run: --restart %s: the run that wrote it did not sum by id, as a "
                        "run on several ranks does, and its contacts' history cannot be taken over; "
                        "continue it on one process (without mpirun), or run the case with "
                        "parallel: {reproducible: true}, whose output continues on any number of "
                        "ranks\n", restart_path);
        status = EXIT_BAD_INPUT;
        goto done;
    }
    if (restart_path &&
        restart_from_file_shared(restart_path, from_step, cfg.case_text, share, &s, &rp, err, sizeof err) != 0)
        status = cli_refusal_status(err);
#ifdef DEMPACT_MPI
    /* a share restored: the split by its contacts, as after a run's start */
    if (share && status == 0 && split_run_weigh(&s, &split, err, sizeof err) != 0) status = EXIT_NO_MEMORY;
#endif
    if ((status = ranks_agree(status, err, sizeof err)) != 0) {
        fprintf(stderr, "dempact run: %s\n", err);
        goto done;
    }
    /* steps, snapshots and time-series samples (by default ten per snapshot interval, a
     * hundred over the run when there are only the first and last snapshots), checked
     * again with --end-time and the restart's step */
    run_schedule plan;
    if (timestep_schedule(&s, &plan, err, sizeof err) != 0) {
        fprintf(stderr, "dempact run: %s%s\n", err, end_time > 0.0 ? " (with --end-time)" : "");
        status = EXIT_BAD_INPUT;
        goto done;
    }
    int64_t total_steps = plan.steps;
    output_grid snap_grid, sample_grid;
    output_grids(&cfg, s.dt, total_steps, &snap_grid, &sample_grid);
    if (!quiet)
        fprintf(stderr, "%s: %zu particles, %d walls, dt = %.4g s (stable limit %.4g s), %lld steps, "
                        "%d threads%s\n", cfg.name, sim_particles_everywhere(&s), cfg.n_walls, s.dt, s.dt_limit,
                (long long)total_steps, omp_get_max_threads(), n_ranks > 1 ? " per rank" : "");
    if (!quiet && restart_path) {
        fprintf(stderr, "restarting from snapshot %d of %d in %s: step %lld, t = %.6g s\n", rp.index,
                rp.count, restart_path, (long long)rp.step, rp.time);
        if (rp.case_dt != rp.dt)
            fprintf(stderr, "note: the file's timestep %.17g s is kept (the case now gives %.17g s)\n",
                    rp.dt, rp.case_dt);
    }
    if (!quiet) print_calibrations(&s);
    if (!quiet && !restart_path) cli_print_restitutions(stderr, &cfg, &s);
    if (!quiet && (output_grid_inexact(&snap_grid) || output_grid_inexact(&sample_grid)))
        fprintf(stderr, "dempact run: note: the %s interval is not a whole number of steps (dt = "
                        "%.17g s): each %s goes to the step nearest its time (at most dt/2 off)\n",
                output_grid_inexact(&snap_grid) ? "output" : "time-series", s.dt,
                output_grid_inexact(&snap_grid) ? "snapshot" : "sample");

    snapshot_run_info info = {.case_name = cfg.name, .case_text = cfg.case_text,
                              .version = DEMPACT_VERSION, .build = DEMPACT_BUILD_TYPE, .dt = s.dt,
                              .walls = &s.walls, .overwrite = overwrite,
                              .sums_by_id = cfg.reproducible, .initial_energy = s.initial_energy};
    memcpy(info.domain_min, cfg.domain_min, sizeof info.domain_min);
    memcpy(info.domain_max, cfg.domain_max, sizeof info.domain_max);
    wall_load = calloc(6 * (s.walls.n ? s.walls.n : 1), sizeof *wall_load);
    if (ranks_worst(!wall_load)) {
        fprintf(stderr, "dempact run: out of memory\n");
        status = EXIT_NO_MEMORY;
        goto done;
    }
#ifdef DEMPACT_MPI
    if (n_ranks > 1) {
        if (!quiet)
            fprintf(stderr, "dempact run: on %d ranks, each particle's contact forces summed in the "
                            "order of the partners' ids (parallel.reproducible: on), so the run "
                            "ends as it would on one; split:\n", n_ranks);
        if (from_start == &early || share) { /* split at the start already */
            split.log = quiet ? NULL : stderr;
            if (!quiet) split_run_print_start(&split, stderr);
        } else {
            int started = split_run_start(&s, &split, quiet ? NULL : stderr, err, sizeof err) == 0;
            if ((status = ranks_agree(started ? 0 : cli_refusal_status(err), err, sizeof err)) != 0) {
                fprintf(stderr, "dempact run: %s: %s\n", case_path, err);
                goto done;
            }
        }
        split_run_driver(&split, &over_ranks);
    }
#endif
    /* rank 0 writes the output (split_output.h) */
    if (ranks_self() == 0 &&
        (snapshot_check_output(out_dir, cfg.name, &info, restart_path, err, sizeof err) != 0 ||
         !(out = snapshot_create(out_dir, cfg.name, &info, restart_path ? &rp.carry : NULL, err, sizeof err)))) {
        fprintf(stderr, "dempact run: %s\n", err);
        status = cli_refusal_status(err);
    }
    if ((status = ranks_worst(status)) != 0) goto done;
    run_driver drive = {.s = &s, .out = out, .total_steps = total_steps, .snapshots = snap_grid,
                        .samples = sample_grid, .wall_load = wall_load,
                        .stop = &stop_signal, .log = stderr, .who = "dempact run",
                        .progress = quiet ? NULL : report_progress,
                        .written = restart_path ? 1 : 0};
#ifdef DEMPACT_MPI
    if (n_ranks > 1) drive.ranks = &over_ranks;
#endif
    if (!restart_path && run_driver_begin(&drive, err, sizeof err) != 0) goto write_failed;
    progress pr = {.started = wall_seconds(), .first_step = s.step, .total_steps = total_steps,
                   .on_terminal = isatty(STDERR_FILENO)};
    watchdog_state wd;
    watchdog_start(&wd, &s, stderr); /* drops are announced even when quiet */
    drive.wd = &wd;
    drive.progress_ctx = &pr;
    int stopped_by = 0; /* the signal that stopped the run (split: on any rank) */
    switch (run_driver_loop(&drive, err, sizeof err)) {
    case RUN_FINISHED:
        break;
    case RUN_STOPPED:
        stopped_by = drive.stopped_by;
        break;
    case RUN_NO_MEMORY:
        status = cli_no_memory(&s);
        print_kept(out, s.step, case_path, out_dir, end_time);
        goto done;
    case RUN_WATCHDOG:
        fprintf(stderr, "dempact run: stopped; the last snapshot (step %lld) is in %s\n",
                (long long)s.step, snapshot_h5_path(out));
        status = EXIT_WATCHDOG;
        goto done;
    case RUN_WRITE_FAILED:
        goto write_failed;
    }
    if (stopped_by) {
        if (!quiet && pr.on_terminal) fputc('\n', stderr);
        fprintf(stderr, "dempact run: stopped by %s at step %lld (t = %.6g s); the last snapshot is "
                        "in %s; ", stopped_by == SIGINT ? "SIGINT" : "SIGTERM", (long long)s.step,
                s.time, snapshot_h5_path(out));
        print_continue(case_path, out_dir, snapshot_h5_path(out), end_time);
        status = 128 + stopped_by;
        goto done;
    }
    if (!quiet)
        fprintf(stderr, "wrote %d snapshots to %s and %s\n", snapshot_count(out),
                snapshot_h5_path(out), snapshot_xmf_path(out));
    goto done;
write_failed:
    if (!quiet && isatty(STDERR_FILENO)) fputc('\n', stderr);
    fprintf(stderr, "dempact run: %s\n", err);
    print_kept(out, s.step, case_path, out_dir, end_time);
    /* (every rank comes here together; out of memory on any is what they all report) */
    status = ranks_worst(strstr(err, "out of memory") ? EXIT_NO_MEMORY : EXIT_RUN_FAILED);
done:
#ifdef DEMPACT_MPI
    split_run_free(&split); /* (nothing to free when it never started) */
#endif
    if (snapshot_close(out) != 0 && status == 0) status = EXIT_RUN_FAILED;
    restart_point_free(&rp);
    free(wall_load);
    sim_free(&s);
    sim_config_free(&cfg);
    return status;
}
