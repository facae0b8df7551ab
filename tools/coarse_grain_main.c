/* coarse_grain: the command line. Reads a run, checks every argument against it, sums
 * each snapshot of the time window and writes the average (docs/coarse-graining.md). */
#define _POSIX_C_SOURCE 200809L
#include "coarse_grain.h"

#include <errno.h>
#include <getopt.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The most points a grid may have: two arrays of CG_FIELDS doubles each, 2.6 GB. */
#define CG_MAX_POINTS (1LL << 22)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: coarse_grain RUN.h5 --out OUT.h5 --width W [--kernel gauss|lucy]\n"
            "         (--grid NX,NY,NZ | --profile x|y|z --bins N | --box)\n"
            "         [--region X0,Y0,Z0,X1,Y1,Z1] [--from T0] [--to T1]\n\n"
            "Continuum fields from a dempact run's snapshots (Goldhirsch 2010; Weinhart et al.\n"
            "2012): density, volume fraction, velocity, kinetic, contact and total stress\n"
            "(compression positive), pressure, fabric and the walls' force density, written to\n"
            "OUT.h5 and, for a grid or a profile, OUT.xmf for ParaView.\n\n"
            "  --width W     the kernel's width [m]: the Gaussian's standard deviation, cut off at\n"
            "                3W; Lucy's kernel has radius 3W\n"
            "  --kernel K    gauss (default) or lucy\n"
            "  --grid NX,NY,NZ   points at the centres of NX x NY x NZ cells of the region\n"
            "  --profile A --bins N  a profile along axis A at the centres of N bins of the\n"
            "                region, averaged over the domain's cross-section (the 1D kernel)\n"
            "  --box         one value: the average over the whole domain (kernel 1/V)\n"
            "  --region ...  the grid's or profile's extent [m] (default: the domain), inside it\n"
            "  --from, --to  the time window [s]: every snapshot with T0 <= t <= T1 is\n"
            "                averaged (default: the last snapshot alone)\n\n"
            "Along periodic axes the kernel wraps: twice its cutoff (6W) plus the largest\n"
            "diameter must be shorter than the period (a profile: along its axis only).\n"
            "A Lees-Edwards run (domain.lees_edwards): every mode; the kernel wraps through\n"
            "the sliding z faces onto the images shifted by the snapshot's offset along x and\n"
            "by U = shear_rate x H in v_x; velocity is the lab-frame field (v_x ~ shear_rate\n"
            "(z - z_centre)), the kinetic stress is about the streaming profile; points along\n"
            "z sit at fixed fractions of each snapshot's height H (a barostat moves it) and\n"
            "are written at the window's mean height.\n"
            "Stresses are positive in compression. Exit status: 0 written, 2 bad input\n"
            "(nothing written), 3 out of memory, 1 the output could not be written.\n"
            "docs/coarse-graining.md says what each field is.\n\n"
            "example: coarse_grain output/pour.h5 --out pour_cg.h5 --width 0.002 --profile z --bins 200\n");
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "coarse_grain: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return CG_EXIT_BAD_INPUT;
}

static int number(const char *text, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    return end != text && *end == '\0' && errno != ERANGE && isfinite(*v) ? 0 : -1;
}

static int numbers(const char *text, double *v, int count)
{
    char buf[512];
    if (strlen(text) >= sizeof buf) return -1;
    strcpy(buf, text);
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == count || number(tok, &v[n])) return -1;
        n++;
    }
    return n == count ? 0 : -1;
}

typedef struct args {
    const char *run, *out, *kernel, *profile;
    double width, region[6], t_from, t_to;
    int has_region, has_from, has_to, box, has_width;
    double grid[3], bins;
    int has_grid, has_bins;
} args;

static int parse(int argc, char **argv, args *a)
{
    enum { O_OUT = 1, O_WIDTH, O_KERNEL, O_GRID, O_PROFILE, O_BINS, O_BOX, O_REGION, O_FROM, O_TO };
    static const struct option opts[] = {{"out", required_argument, 0, O_OUT},     {"width", required_argument, 0, O_WIDTH},
                                         {"kernel", required_argument, 0, O_KERNEL}, {"grid", required_argument, 0, O_GRID},
                                         {"profile", required_argument, 0, O_PROFILE}, {"bins", required_argument, 0, O_BINS},
                                         {"box", no_argument, 0, O_BOX},             {"region", required_argument, 0, O_REGION},
                                         {"from", required_argument, 0, O_FROM},     {"to", required_argument, 0, O_TO},
                                         {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    memset(a, 0, sizeof *a);
    a->kernel = "gauss";
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        const char *v = optarg;
        switch (c) {
        case 'h': usage(stdout); return -1;
        case O_OUT: a->out = v; break;
        case O_WIDTH:
            if (number(v, &a->width) || !(a->width > 0))
                return bad("--width %s: must be a number > 0 (the kernel's width in m)%s", v, "");
            a->has_width = 1;
            break;
        case O_KERNEL:
            if (strcmp(v, "gauss") && strcmp(v, "lucy")) return bad("--kernel %s: must be gauss or lucy%s", v, "");
            a->kernel = v;
            break;
        case O_GRID:
            if (numbers(v, a->grid, 3)) return bad("--grid %s: must be NX,NY,NZ, three whole numbers >= 1%s", v, "");
            for (int q = 0; q < 3; q++)
                if (!(a->grid[q] >= 1) || a->grid[q] != floor(a->grid[q]) || a->grid[q] > (double)CG_MAX_POINTS)
                    return bad("--grid %s: each count must be a whole number in 1 .. 4194304%s", v, "");
            a->has_grid = 1;
            break;
        case O_PROFILE:
            if (strcmp(v, "x") && strcmp(v, "y") && strcmp(v, "z")) return bad("--profile %s: must be x, y or z%s", v, "");
            a->profile = v;
            break;
        case O_BINS:
            if (number(v, &a->bins) || !(a->bins >= 1) || a->bins != floor(a->bins) || a->bins > (double)CG_MAX_POINTS)
                return bad("--bins %s: must be a whole number in 1 .. 4194304%s", v, "");
            a->has_bins = 1;
            break;
        case O_BOX: a->box = 1; break;
        case O_REGION:
            if (numbers(v, a->region, 6)) return bad("--region %s: must be X0,Y0,Z0,X1,Y1,Z1 (six numbers, m)%s", v, "");
            a->has_region = 1;
            break;
        case O_FROM:
            if (number(v, &a->t_from)) return bad("--from %s: must be a time in s%s", v, "");
            a->has_from = 1;
            break;
        case O_TO:
            if (number(v, &a->t_to)) return bad("--to %s: must be a time in s%s", v, "");
            a->has_to = 1;
            break;
        default:
            return bad("unknown or incomplete option %s%s (see --help)", argv[optind - 1], "");
        }
    }
    if (optind != argc - 1) return bad("give one run file (DIR/NAME.h5)%s%s; see --help", "", "");
    a->run = argv[optind];
    if (!a->out) return bad("--out OUT.h5 is required%s%s", "", "");
    if (!a->has_width) return bad("--width W is required (the kernel's width in m)%s%s", "", "");
    int modes = a->has_grid + (a->profile != NULL) + a->box;
    if (modes != 1) return bad("give exactly one of --grid, --profile and --box%s%s", "", "");
    if (a->profile && !a->has_bins) return bad("--profile %s needs --bins N%s", a->profile, "");
    if (a->has_bins && !a->profile) return bad("--bins needs --profile%s%s", "", "");
    if (a->box && a->has_region) return bad("--box averages over the whole domain: no --region%s%s", "", "");
    if (a->has_from && a->has_to && a->t_from > a->t_to) return bad("--from is after --to%s%s", "", "");
    struct stat st;
    char *dir = strdup(a->out);
    if (!dir) return CG_EXIT_NO_MEMORY;
    char *slash = strrchr(dir, '/');
    const char *folder = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
    int ok = stat(folder, &st) == 0 && S_ISDIR(st.st_mode);
    if (!ok) {
        int rc = bad("--out %s: the folder %s does not exist", a->out, folder);
        free(dir);
        return rc;
    }
    free(dir);
    if (stat(a->out, &st) == 0 && S_ISDIR(st.st_mode)) return bad("--out %s is a folder%s", a->out, "");
    return 0;
}

/* The grid the arguments ask for in the run's domain, checked. */
static int make_grid(const args *a, const cg_domain *d, cg_grid *g)
{
    memset(g, 0, sizeof *g);
    for (int q = 0; q < 3; q++) {
        g->lo[q] = a->has_region ? a->region[q] : d->lo[q];
        g->hi[q] = a->has_region ? a->region[3 + q] : d->hi[q];
        g->periodic[q] = d->periodic[q];
        g->length[q] = d->hi[q] - d->lo[q];
        g->origin[q] = d->lo[q];
        g->n[q] = 1;
        if (!(g->hi[q] > g->lo[q]))
            return bad("--region: its max along %s is not above its min%s", (const char *[]){"x", "y", "z"}[q], "");
        double tol = 1e-12 * g->length[q];
        if (g->lo[q] < d->lo[q] - tol || g->hi[q] > d->hi[q] + tol) {
            char msg[160];
            snprintf(msg, sizeof msg, "[%g, %g] along %s, outside the run's domain [%g, %g]", g->lo[q], g->hi[q],
                     (const char *[]){"x", "y", "z"}[q], d->lo[q], d->hi[q]);
            return bad("--region: %s%s", msg, "");
        }
    }
    if (a->has_grid) {
        g->mode = CG_GRID;
        double total = a->grid[0] * a->grid[1] * a->grid[2];
        if (total > (double)CG_MAX_POINTS) {
            fprintf(stderr, "coarse_grain: --grid: %.0f points, more than the %lld a grid may have\n", total,
                    (long long)CG_MAX_POINTS);
            return CG_EXIT_BAD_INPUT;
        }
        for (int q = 0; q < 3; q++) g->n[q] = (int64_t)a->grid[q];
    } else if (a->profile) {
        g->mode = CG_PROFILE;
        g->axis = a->profile[0] - 'x';
        g->n[g->axis] = (int64_t)a->bins;
        g->measure = 1.0;
        for (int q = 0; q < 3; q++)
            if (q != g->axis) g->measure *= g->length[q];
    } else {
        g->mode = CG_BOX;
        g->measure = g->length[0] * g->length[1] * g->length[2];
    }
    g->lees_edwards = d->lees_edwards;
    g->images_z = d->lees_edwards && (g->mode == CG_GRID || (g->mode == CG_PROFILE && g->axis == 2));
    for (int q = 0; q < 3; q++) g->h[q] = (g->hi[q] - g->lo[q]) / (double)g->n[q];
    g->points = g->n[0] * g->n[1] * g->n[2];
    return 0;
}

/* Along each periodic axis the kernel sees a particle or a branch through at most one
 * image: its reach (cutoff plus the largest diameter) on both sides fits in the period. */
static int check_period(const cg_grid *g, const cg_kernel *k, const cg_snapshot *s, const char *run)
{
    if (g->mode == CG_BOX) return 0;
    double dmax = 0;
    for (int64_t i = 0; i < s->n; i++) dmax = fmax(dmax, 2.0 * s->radius[i]);
    for (int q = 0; q < 3; q++) {
        int periodic = g->periodic[q] || (q == 2 && g->images_z); /* a sheared cell's z: its images */
        if (!periodic || (g->mode == CG_PROFILE && q != g->axis)) continue;
        if (2.0 * k->c + dmax >= g->length[q]) {
            fprintf(stderr, "coarse_grain: --width %g: the cutoff 3W = %g m and the largest diameter %g m of %s, "
                            "snapshot %s, do not fit in the period %g m along %s: W must be below %g m\n",
                    k->w, k->c, dmax, run, s->name, g->length[q], (const char *[]){"x", "y", "z"}[q],
                    (g->length[q] - dmax) / 6.0);
            return CG_EXIT_BAD_INPUT;
        }
    }
    return 0;
}

/* The grid of one snapshot. A sheared cell's height H is the snapshot's (a barostat moves
 * it, and the particles' z with it, affinely about the bottom face): the points along z
 * sit at the same fractions of H in every snapshot (the region's z bounds, given in the
 * case's box, scale with it), and the volume or cross-section is the snapshot's. Along
 * z the images across the sliding faces are the sums' own (images_z), not the plain
 * periodic ones. */
static cg_grid snapshot_grid(const cg_grid *g, double height)
{
    cg_grid gs = *g;
    if (!g->lees_edwards || !(height > 0)) return gs;
    double scale = height / g->length[2];
    gs.length[2] = height;
    if (scale != 1.0) {
        gs.lo[2] = g->origin[2] + (g->lo[2] - g->origin[2]) * scale;
        gs.hi[2] = g->origin[2] + (g->hi[2] - g->origin[2]) * scale;
        gs.h[2] = (gs.hi[2] - gs.lo[2]) / (double)g->n[2];
    }
    if (g->mode == CG_BOX) {
        gs.measure = gs.length[0] * gs.length[1] * gs.length[2];
    } else if (g->mode == CG_PROFILE) {
        gs.measure = 1.0;
        for (int q = 0; q < 3; q++)
            if (q != g->axis) gs.measure *= gs.length[q];
    }
    if (g->images_z) gs.periodic[2] = 0;
    return gs;
}

int main(int argc, char **argv)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    args a;
    int rc = parse(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    char err[1024];
    cg_run run;
    if ((rc = cg_run_open(&run, a.run, err, sizeof err))) {
        fprintf(stderr, "coarse_grain: %s\n", err);
        return rc;
    }
    cg_grid g;
    if ((rc = make_grid(&a, &run.domain, &g))) {
        cg_run_close(&run);
        return rc;
    }
    cg_kernel k;
    cg_kernel_init(&k, strcmp(a.kernel, "lucy") ? CG_GAUSS : CG_LUCY, a.width);
    /* the window: [from, to], or the last snapshot */
    int first = run.count, last = -1;
    for (int s = 0; s < run.count; s++) {
        int in = (a.has_from || a.has_to) ? (!a.has_from || run.times[s] >= a.t_from) && (!a.has_to || run.times[s] <= a.t_to)
                                          : s == run.count - 1;
        if (in) {
            if (s < first) first = s;
            last = s;
        }
    }
    if (last < 0) {
        if (run.count == 0) fprintf(stderr, "coarse_grain: %s holds no snapshot\n", a.run);
        else
            fprintf(stderr, "coarse_grain: no snapshot of %s in the window [%g, %g] s: its %d snapshots are at %g .. %g s\n",
                    a.run, a.has_from ? a.t_from : -INFINITY, a.has_to ? a.t_to : INFINITY, run.count, run.times[0],
                    run.times[run.count - 1]);
        cg_run_close(&run);
        return CG_EXIT_BAD_INPUT;
    }
    int count = last - first + 1;
    double *total = calloc((size_t)g.points * CG_FIELDS, sizeof *total);
    double *acc = malloc((size_t)g.points * CG_FIELDS * sizeof *acc);
    int64_t *steps = malloc((size_t)count * sizeof *steps);
    double *heights = malloc((size_t)count * sizeof *heights);
    if (!total || !acc || !steps || !heights) {
        fprintf(stderr, "coarse_grain: out of memory for %lld points\n", (long long)g.points);
        rc = CG_EXIT_NO_MEMORY;
    }
    for (int s = first; s <= last && !rc; s++) {
        cg_snapshot snap;
        if ((rc = cg_snapshot_read(&run, s, &snap, err, sizeof err))) {
            fprintf(stderr, "coarse_grain: %s\n", err);
            break;
        }
        steps[s - first] = snap.step;
        heights[s - first] = snap.box_height > 0 ? snap.box_height : g.length[2];
        if (g.lees_edwards && g.mode != CG_BOX && !(snap.box_height > 0)) {
            fprintf(stderr, "coarse_grain: %s: snapshot %s has no engine@lees_edwards (the images' offset and the box "
                            "height), which a grid or a profile of a Lees-Edwards run needs; --box does not\n",
                    a.run, snap.name);
            rc = CG_EXIT_BAD_INPUT;
        }
        cg_grid gs = snapshot_grid(&g, snap.box_height);
        if (!rc && !(rc = check_period(&gs, &k, &snap, a.run))) {
            memset(acc, 0, (size_t)g.points * CG_FIELDS * sizeof *acc);
            if (cg_sum_snapshot(&gs, &k, &snap, acc) < 0) {
                fprintf(stderr, "coarse_grain: out of memory for snapshot %s\n", snap.name);
                rc = CG_EXIT_NO_MEMORY;
            }
            for (int64_t p = 0; p < g.points && !rc; p++) {
                double *x = acc + p * CG_FIELDS;
                /* sum m u' u' W = sum m u u W - q q / rho, u' about this snapshot's field of u
                 * (u = v, or v less the streaming profile: CG_DRIFT) */
                if (x[CG_DENSITY] > 0)
                    for (int i = 0; i < 3; i++)
                        for (int j = 0; j < 3; j++)
                            x[CG_KINETIC + 3 * i + j] -= x[CG_DRIFT + i] * x[CG_DRIFT + j] / x[CG_DENSITY];
                double *t = total + p * CG_FIELDS;
                for (int q = 0; q < CG_FIELDS; q++) t[q] += x[q];
            }
        }
        cg_snapshot_free(&snap);
    }
    if (!rc) {
        for (int64_t q = 0; q < g.points * CG_FIELDS; q++) total[q] /= count;
        cg_meta meta = {a.run, a.kernel, k.w, k.c, count, run.times[first], run.times[last], steps, run.times + first,
                        g.lees_edwards ? heights : NULL};
        /* a sheared cell: the points where they stand at the window's mean height */
        double mean = 0;
        int same = 1;
        for (int q = 0; q < count; q++) {
            mean += heights[q] / count;
            same &= heights[q] == heights[0];
        }
        cg_grid go = snapshot_grid(&g, same ? heights[0] : mean);
        if (cg_write(a.out, &go, &meta, total, err, sizeof err)) {
            fprintf(stderr, "coarse_grain: %s\n", err);
            rc = 1;
        } else {
            printf("%s: %d snapshot%s (t = %g .. %g s), %lld point%s, %s kernel, width %g m\n", a.out, count,
                   count == 1 ? "" : "s", run.times[first], run.times[last], (long long)g.points,
                   g.points == 1 ? "" : "s", a.kernel, k.w);
        }
    }
    free(total);
    free(acc);
    free(steps);
    free(heights);
    cg_run_close(&run);
    return rc;
}
