/* dempact run: reads a case, checks everything, then steps and writes snapshots. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "cli.h"
#include "io/ranks/ranks.h"
#include "io/session/session.h"

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
        if (b->mixed)
            fprintf(stderr, "  (mixed from contacts[%d] and contacts[%d]: the case has no entry "
                            "for the pair)\n", b->mixed_from[0], b->mixed_from[1]);
    }
}

/* What the run starts from: the case's size and step, the restart point, the
 * calibrations and restitutions, inexact output grids, the split over the ranks. */
static void print_start(const session *ss, const char *restart_path, int n_ranks)
{
    const sim_config *cfg = &ss->cfg;
    const sim *s = &ss->s;
    const restart_point *rp = &ss->rp;
    fprintf(stderr, "%s: %zu particles, %d walls, dt = %.4g s (stable limit %.4g s), %lld steps, "
                    "%d threads%s\n", cfg->name, sim_particles_everywhere(s), cfg->n_walls, s->dt, s->dt_limit,
            (long long)ss->total_steps, omp_get_max_threads(), n_ranks > 1 ? " per rank" : "");
    if (restart_path) {
        fprintf(stderr, "restarting from snapshot %d of %d in %s: step %lld, t = %.6g s\n", rp->index,
                rp->count, restart_path, (long long)rp->step, rp->time);
        if (rp->case_dt != rp->dt)
            fprintf(stderr, "note: the file's timestep %.17g s is kept (the case now gives %.17g s)\n",
                    rp->dt, rp->case_dt);
    }
    print_calibrations(s);
    if (!restart_path) cli_print_restitutions(stderr, cfg, s);
    if (output_grid_inexact(&ss->snapshots) || output_grid_inexact(&ss->samples))
        fprintf(stderr, "dempact run: note: the %s interval is not a whole number of steps (dt = "
                        "%.17g s): each %s goes to the step nearest its time (at most dt/2 off)\n",
                output_grid_inexact(&ss->snapshots) ? "output" : "time-series", s->dt,
                output_grid_inexact(&ss->snapshots) ? "snapshot" : "sample");
    if (n_ranks > 1) {
        fprintf(stderr, "dempact run: on %d ranks, each particle's contact forces summed in the "
                        "order of the partners' ids (parallel.reproducible: on), so the run "
                        "ends as it would on one; split:\n", n_ranks);
        ranks_print_split(stderr);
    }
}

/* The session closed (its output too: a close that fails fails the run) and the split
 * freed: the exit status. */
static int finish(session *ss, int status)
{
    if (snapshot_close(ss->out) != 0 && status == 0) status = EXIT_RUN_FAILED;
    ss->out = NULL;
    session_close(ss);
    ranks_session_end();
    return status;
}

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

/* What the command line asks for. */
typedef struct run_options {
    const char *case_path, *out_dir, *restart_path;
    int threads, quiet, overwrite;
    double end_time;   /* 0: the case's */
    int64_t from_step; /* -1: the last snapshot */
} run_options;

/* The command line into *o: 0, or the exit status of a bad one (said on stderr). */
static int parse_options(int argc, char **argv, run_options *o)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"threads", required_argument, 0, 't'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"end-time", required_argument, 0, 'e'},
                                         {"restart", required_argument, 0, 'r'},
                                         {"from-step", required_argument, 0, 'f'},
                                         {"overwrite", no_argument, 0, 'w'},
                                         {0, 0, 0, 0}};
    *o = (run_options){.out_dir = "output", .from_step = -1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        double v;
        switch (c) {
        case 'o': o->out_dir = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'w': o->overwrite = 1; break;
        case 'r': o->restart_path = optarg; break;
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
            o->from_step = (int64_t)v;
            break;
        case 'e':
            if (cli_parse_double(optarg, &o->end_time) || !(o->end_time > 0.0) || !isfinite(o->end_time)) {
                fprintf(stderr, "dempact run: --end-time takes a time > 0 in s, not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 't':
            if (cli_parse_double(optarg, &v) || v < 1 || v != floor(v) || v > 1024) {
                fprintf(stderr, "dempact run: --threads takes a whole number >= 1, not '%s'\n", optarg);
                return EXIT_BAD_INPUT;
            }
            o->threads = (int)v;
            break;
        default:
            fprintf(stderr, "dempact run: unknown or incomplete option '%s'\n\n", argv[optind - 1]);
            usage(stderr);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1) { usage(stderr); return EXIT_BAD_INPUT; }
    if (o->from_step >= 0 && !o->restart_path) {
        fprintf(stderr, "dempact run: --from-step needs --restart FILE.h5\n");
        return EXIT_BAD_INPUT;
    }
    o->case_path = argv[optind];
    return 0;
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
    run_options o;
    int bad = parse_options(argc, argv, &o);
    if (bad) return bad;
    if (o.threads > 0) omp_set_num_threads(o.threads);
    const char *case_path = o.case_path, *out_dir = o.out_dir, *restart_path = o.restart_path;
    const int quiet = o.quiet;
    const double end_time = o.end_time;
    catch_stop_signals(); /* the reader and the fills poll the flag too */
    /* everything is checked before anything in the output folder is touched: the case,
     * the restart file, the length of the run (session_open), the folder */
    session ss;
    dem_error e;
    const session_request rq = {.case_path = case_path, .stop = &stop_signal, .restart = restart_path,
                                .from_step = o.from_step, .end_time = end_time,
                                .ranks = ranks_session(case_path, quiet ? NULL : stderr),
                                .log = stderr, /* drops are announced even when quiet */
                                .who = "dempact run"};
    int status = session_open(&ss, &rq, &e);
    if (status == 0 && !quiet) print_start(&ss, restart_path, n_ranks);
    if (status == 0) status = session_output(&ss, out_dir, o.overwrite, &e);
    if (status != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return finish(&ss, status);
    }
    progress pr = {.started = wall_seconds(), .first_step = ss.s.step, .total_steps = ss.total_steps,
                   .on_terminal = isatty(STDERR_FILENO)};
    const run_driver how = {.stop = &stop_signal, .log = stderr, .who = "dempact run",
                            .progress = quiet ? NULL : report_progress, .progress_ctx = &pr,
                            .written = restart_path ? 1 : 0};
    const sim *s = &ss.s;
    const char *h5 = snapshot_h5_path(ss.out);
    switch (session_run(&ss, &how, &e)) {
    case RUN_FINISHED:
        if (!quiet)
            fprintf(stderr, "wrote %d snapshots to %s and %s\n", snapshot_count(ss.out), h5,
                    snapshot_xmf_path(ss.out));
        break;
    case RUN_STOPPED:
        if (!quiet && pr.on_terminal) fputc('\n', stderr);
        fprintf(stderr, "dempact run: stopped by %s at step %lld (t = %.6g s); the last snapshot is "
                        "in %s; ", e.status == STATUS_SIGNAL + SIGINT ? "SIGINT" : "SIGTERM",
                (long long)s->step, s->time, h5);
        print_continue(case_path, out_dir, h5, end_time);
        break;
    case RUN_NO_MEMORY:
        cli_no_memory(s);
        print_kept(ss.out, s->step, case_path, out_dir, end_time);
        break;
    case RUN_WATCHDOG:
        fprintf(stderr, "dempact run: stopped; the last snapshot (step %lld) is in %s\n",
                (long long)s->step, h5);
        break;
    case RUN_WRITE_FAILED:
        if (!quiet && isatty(STDERR_FILENO)) fputc('\n', stderr);
        fprintf(stderr, "dempact run: %s\n", e.msg);
        print_kept(ss.out, s->step, case_path, out_dir, end_time);
        break;
    }
    return finish(&ss, e.status);
}
