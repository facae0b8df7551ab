#include "lammps_data.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "overlap_check.h"
#include "text_encoding.h"

#define MAX_TOKENS 16

int lammps_data_alloc(lammps_data *d, size_t n)
{
    memset(d, 0, sizeof *d);
    size_t m = n > 0 ? n : 1;
    d->id = calloc(m, sizeof *d->id);
    d->type = calloc(m, sizeof *d->type);
    d->diameter = calloc(m, sizeof *d->diameter);
    d->density = calloc(m, sizeof *d->density);
    d->x = calloc(3 * m, sizeof *d->x);
    d->v = calloc(3 * m, sizeof *d->v);
    d->omega = calloc(3 * m, sizeof *d->omega);
    if (!d->id || !d->type || !d->diameter || !d->density || !d->x || !d->v || !d->omega) {
        lammps_data_free(d);
        return -1;
    }
    d->n = n;
    return 0;
}

void lammps_data_free(lammps_data *d)
{
    free(d->id); free(d->type); free(d->diameter); free(d->density);
    free(d->x); free(d->v); free(d->omega);
    memset(d, 0, sizeof *d);
}

/* ---- reading ---------------------------------------------------------------------- */

typedef struct reader {
    FILE *f;
    const char *path;
    char *line;
    size_t cap;
    long lineno;
    char *tok[MAX_TOKENS];
    int ntok;
    char hint[64];   /* the comment after a section name: "sphere" in "Atoms # sphere" */
    char *err;
    size_t err_len;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->lineno > 0) snprintf(r->err, r->err_len, "%s:%ld: %s", r->path, r->lineno, msg);
    else snprintf(r->err, r->err_len, "%s: %s", r->path, msg);
    return -1;
}

/* Reads the next line and splits it into tokens (comment removed, its first word kept in
 * hint). Returns 1 with a line (possibly with no tokens), 0 at the end of the file, -1 on
 * a read error. */
static int next_line(reader *r)
{
    errno = 0;
    ssize_t len = getline(&r->line, &r->cap, r->f);
    if (len < 0) {
        if (ferror(r->f)) return fail(r, "read error: %s", strerror(errno));
        return 0;
    }
    r->lineno++;
    if (strlen(r->line) != (size_t)len)
        return fail(r, "the line holds a NUL byte: the file is not text (or UTF-16: save it as "
                       "UTF-8)");
    r->hint[0] = '\0';
    char *hash = strchr(r->line, '#');
    if (hash) {
        *hash = '\0';
        if (sscanf(hash + 1, "%63s", r->hint) != 1) r->hint[0] = '\0';
    }
    r->ntok = 0;
    for (char *p = r->line; *p;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (r->ntok == MAX_TOKENS) return fail(r, "too many fields on one line");
        r->tok[r->ntok++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = '\0';
    }
    return 1;
}

/* Next line with tokens; 0 at the end of the file. */
static int next_content(reader *r)
{
    int rc;
    while ((rc = next_line(r)) == 1)
        if (r->ntok > 0) return 1;
    return rc;
}

static int parse_real(reader *r, int k, const char *what, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(r->tok[k], &end);
    /* ERANGE on underflow still gives the right (denormal) double; on overflow, HUGE_VAL */
    if (*end != '\0' || end == r->tok[k] || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return fail(r, "%s: '%s' is not a finite number", what, r->tok[k]);
    *out = v;
    return 0;
}

static int parse_int(reader *r, int k, const char *what, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(r->tok[k], &end, 10);
    if (*end != '\0' || end == r->tok[k] || errno == ERANGE)
        return fail(r, "%s: '%s' is not a whole number", what, r->tok[k]);
    *out = v;
    return 0;
}

static int words_are(const reader *r, int from, const char *a, const char *b)
{
    if (b) return r->ntok == from + 2 && !strcmp(r->tok[from], a) && !strcmp(r->tok[from + 1], b);
    return r->ntok == from + 1 && !strcmp(r->tok[from], a);
}

/* Things LAMMPS counts in the header that a file of spheres has none of. */
static const char *const item_counts[] = {"bonds", "angles", "dihedrals", "impropers",
                                          "ellipsoids", "lines", "triangles", "bodies",
                                          "crossterms", NULL};
static const char *const type_counts[] = {"bond", "angle", "dihedral", "improper", NULL};

static int is_section_start(const reader *r)
{
    return isalpha((unsigned char)r->tok[0][0]);
}

typedef struct header {
    long long n_atoms;
    int n_types;
    int have_box[3];
} header;

static int read_header_line(reader *r, header *h, lammps_data *d)
{
    static const char *const axis_lo[3] = {"xlo", "ylo", "zlo"};
    static const char *const axis_hi[3] = {"xhi", "yhi", "zhi"};
    for (int a = 0; a < 3; a++)
        if (words_are(r, 2, axis_lo[a], axis_hi[a])) {
            if (parse_real(r, 0, axis_lo[a], &d->lo[a]) || parse_real(r, 1, axis_hi[a], &d->hi[a]))
                return -1;
            if (!(d->lo[a] < d->hi[a]))
                return fail(r, "%s %s: %g %g is not a box side (need %s < %s)", axis_lo[a],
                            axis_hi[a], d->lo[a], d->hi[a], axis_lo[a], axis_hi[a]);
            if (!(fabs(d->lo[a]) <= LAMMPS_MAX_COORDINATE && fabs(d->hi[a]) <= LAMMPS_MAX_COORDINATE))
                return fail(r, "%s %s: %g %g reaches beyond +-%g m", axis_lo[a], axis_hi[a],
                            d->lo[a], d->hi[a], LAMMPS_MAX_COORDINATE);
            h->have_box[a] = 1;
            return 0;
        }
    if (r->ntok == 6 && !strcmp(r->tok[3], "xy"))
        return fail(r, "a tilted (triclinic) box is not supported: dempact's box is orthogonal");
    long long count = 0;
    if (parse_int(r, 0, "header count", &count)) return -1;
    if (count < 0) return fail(r, "negative count %lld", count);
    if (words_are(r, 1, "atoms", NULL)) { h->n_atoms = count; return 0; }
    if (words_are(r, 1, "atom", "types")) {
        if (count < 1 || count > 1000000) return fail(r, "atom types: %lld is not in 1..1000000", count);
        h->n_types = (int)count;
        return 0;
    }
    for (int k = 0; item_counts[k]; k++)
        if (words_are(r, 1, item_counts[k], NULL)) {
            if (count != 0)
                return fail(r, "%lld %s: dempact reads spheres only (atom_style sphere)", count,
                            item_counts[k]);
            return 0;
        }
    for (int k = 0; type_counts[k]; k++)
        if (words_are(r, 1, type_counts[k], "types")) return 0;
    return fail(r, "unknown header line (expected 'N atoms', 'N atom types' or 'LO HI xlo xhi')");
}

/* Skips `count` content lines (a section dempact does not need). */
static int skip_section(reader *r, long long count, const char *name)
{
    for (long long k = 0; k < count; k++) {
        int rc = next_content(r);
        if (rc < 0) return -1;
        if (rc == 0) return fail(r, "the file ends inside the %s section (%lld of %lld lines)", name, k, count);
    }
    return 0;
}

static int read_atoms(reader *r, lammps_data *d, int n_types, long *lines)
{
    if (r->hint[0] && strcmp(r->hint, "sphere") && strcmp(r->hint, "granular"))
        return fail(r, "Atoms section of atom style '%s': dempact reads atom_style sphere "
                       "(ID TYPE DIAMETER DENSITY X Y Z)", r->hint);
    for (size_t i = 0; i < d->n; i++) {
        int rc = next_content(r);
        if (rc < 0) return -1;
        if (rc == 0)
            return fail(r, "the file ends inside the Atoms section (%zu of %zu atoms)", i, d->n);
        if (r->ntok != 7 && r->ntok != 10)
            return fail(r, "an atom line has %d fields; atom_style sphere has 7 (ID TYPE DIAMETER "
                           "DENSITY X Y Z) or 10 (with image flags)", r->ntok);
        long long id = 0, type = 0;
        double diameter = 0, density = 0;
        if (parse_int(r, 0, "atom ID", &id) || parse_int(r, 1, "atom type", &type) ||
            parse_real(r, 2, "diameter", &diameter) || parse_real(r, 3, "density", &density))
            return -1;
        if (id < 1) return fail(r, "atom ID %lld: IDs start at 1", id);
        if (type < 1 || type > n_types)
            return fail(r, "atom type %lld is not in 1..%d (the header's atom types)", type, n_types);
        if (!(diameter > 0)) return fail(r, "diameter %g: must be > 0", diameter);
        double widest = fmax(d->hi[0] - d->lo[0], fmax(d->hi[1] - d->lo[1], d->hi[2] - d->lo[2]));
        if (diameter > widest)
            return fail(r, "atom %lld: diameter %g is larger than the box's widest side %g", id,
                        diameter, widest);
        if (!(density > 0)) return fail(r, "density %g: must be > 0", density);
        for (int a = 0; a < 3; a++) {
            static const char *const names[3] = {"x", "y", "z"};
            double v = 0;
            if (parse_real(r, 4 + a, names[a], &v)) return -1;
            double slack = 1e-9 * (d->hi[a] - d->lo[a]);
            if (v < d->lo[a] - slack || v > d->hi[a] + slack)
                return fail(r, "atom %lld: %s = %.17g is outside the box [%.17g, %.17g]", id,
                            names[a], v, d->lo[a], d->hi[a]);
            d->x[3 * i + a] = v;
        }
        for (int a = 7; a < r->ntok; a++) {
            long long image = 0;
            if (parse_int(r, a, "image flag", &image)) return -1;
        }
        lines[i] = r->lineno;
        d->id[i] = id;
        d->type[i] = (int32_t)type;
        d->diameter[i] = diameter;
        d->density[i] = density;
    }
    return 0;
}

typedef struct id_slot {
    int64_t id;
    size_t index;
} id_slot;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const id_slot *)a)->id, y = ((const id_slot *)b)->id;
    return (x > y) - (x < y);
}

static long find_id(const id_slot *ids, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && ids[lo].id == id ? (long)ids[lo].index : -1;
}

static int read_velocities(reader *r, lammps_data *d, const id_slot *ids)
{
    for (size_t k = 0; k < d->n; k++) {
        int rc = next_content(r);
        if (rc < 0) return -1;
        if (rc == 0)
            return fail(r, "the file ends inside the Velocities section (%zu of %zu atoms)", k, d->n);
        if (r->ntok != 7)
            return fail(r, "a velocity line has %d fields; atom_style sphere has 7 (ID VX VY VZ "
                           "WX WY WZ)", r->ntok);
        long long id = 0;
        if (parse_int(r, 0, "atom ID", &id)) return -1;
        long i = find_id(ids, d->n, id);
        if (i < 0) return fail(r, "velocity of atom %lld, which the Atoms section does not have", id);
        double v[6] = {0};
        for (int a = 0; a < 6; a++) {
            static const char *const names[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};
            if (parse_real(r, 1 + a, names[a], &v[a])) return -1;
        }
        for (int a = 0; a < 3; a++) {
            d->v[3 * i + a] = v[a];
            d->omega[3 * i + a] = v[3 + a];
        }
    }
    d->has_velocities = 1;
    return 0;
}

int lammps_data_read(const char *path, lammps_data *d, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    reader r = {.path = path, .err = err, .err_len = err_len};
    r.f = fopen(path, "r");
    if (!r.f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    header h = {.n_atoms = -1, .n_types = 0};
    id_slot *ids = NULL;
    long *lines = NULL;
    int rc = -1, have_atoms = 0, have_velocities = 0, more;
    lammps_data out;
    memset(&out, 0, sizeof out);

    /* the title line, whatever it holds, unless it says the file is not UTF-8 */
    char start[4] = {0};
    size_t got = fread(start, 1, sizeof start, r.f);
    const char *encoding = text_encoding_problem(start, got);
    if (encoding) {
        fail(&r, "%s", encoding);
        goto done;
    }
    rewind(r.f);
    errno = 0;
    if (getline(&r.line, &r.cap, r.f) < 0) {
        if (ferror(r.f)) fail(&r, "read error: %s", strerror(errno));
        else fail(&r, "empty file (a data file starts with a title line)");
        goto done;
    }
    r.lineno = 1;
    /* header: until the first section name */
    while ((more = next_content(&r)) == 1 && !is_section_start(&r))
        if (read_header_line(&r, &h, &out) != 0) goto done;
    if (more < 0) goto done;
    if (h.n_atoms < 0) { fail(&r, "the header has no 'N atoms' line"); goto done; }
    if (h.n_atoms == 0) { fail(&r, "0 atoms: nothing to simulate"); goto done; }
    if (h.n_types == 0) { fail(&r, "the header has no 'N atom types' line"); goto done; }
    {
        /* an atom line is at least "1 1 1 1 0 0 0\n": a count the file cannot hold is
         * refused before anything is allocated for it */
        struct stat st;
        if (fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode) &&
            h.n_atoms > (long long)(st.st_size / 14)) {
            fail(&r, "the header says %lld atoms, but a file of %lld bytes holds at most %lld atom "
                     "lines (a wrong count, or a truncated file)", h.n_atoms,
                 (long long)st.st_size, (long long)(st.st_size / 14));
            goto done;
        }
    }
    for (int a = 0; a < 3; a++)
        if (!h.have_box[a]) { fail(&r, "the header has no '%s' line", a == 0 ? "xlo xhi" : a == 1 ? "ylo yhi" : "zlo zhi"); goto done; }
    {
        double lo[3], hi[3];
        memcpy(lo, out.lo, sizeof lo);
        memcpy(hi, out.hi, sizeof hi);
        if (lammps_data_alloc(&out, (size_t)h.n_atoms) != 0) {
            fail(&r, "out of memory for %lld atoms", h.n_atoms);
            goto done;
        }
        memcpy(out.lo, lo, sizeof lo);
        memcpy(out.hi, hi, sizeof hi);
        out.n_types = h.n_types;
    }
    /* sections */
    while (more == 1) {
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", r.tok[0], r.ntok > 1 ? " " : "", r.ntok > 1 ? r.tok[1] : "");
        if (r.ntok > 2) { fail(&r, "'%s ...' is not a section name", name); goto done; }
        if (!strcmp(name, "Atoms")) {
            if (have_atoms) { fail(&r, "a second Atoms section"); goto done; }
            lines = malloc(out.n * sizeof *lines);
            ids = malloc(out.n * sizeof *ids);
            if (!ids || !lines) { fail(&r, "out of memory"); goto done; }
            if (read_atoms(&r, &out, h.n_types, lines) != 0) goto done;
            have_atoms = 1;
            for (size_t i = 0; i < out.n; i++) { ids[i].id = out.id[i]; ids[i].index = i; }
            qsort(ids, out.n, sizeof *ids, by_id);
            for (size_t i = 1; i < out.n; i++)
                if (ids[i].id == ids[i - 1].id) {
                    size_t a = ids[i - 1].index, b = ids[i].index;
                    r.lineno = lines[a > b ? a : b];
                    fail(&r, "atom ID %lld appears twice in the Atoms section (first on line %ld)",
                         (long long)ids[i].id, lines[a < b ? a : b]);
                    goto done;
                }
            free(lines);
            lines = NULL;
        } else if (!strcmp(name, "Velocities")) {
            if (!have_atoms) { fail(&r, "Velocities before Atoms: dempact needs the Atoms section first"); goto done; }
            if (have_velocities) { fail(&r, "a second Velocities section"); goto done; }
            if (read_velocities(&r, &out, ids) != 0) goto done;
            have_velocities = 1;
        } else if (!strcmp(name, "Masses") || !strcmp(name, "Pair Coeffs")) {
            if (skip_section(&r, h.n_types, name) != 0) goto done;
        } else {
            fail(&r, "section '%s' is not supported: dempact reads Atoms (atom_style sphere) and "
                     "Velocities, and skips Masses and Pair Coeffs", name);
            goto done;
        }
        more = next_content(&r);
        if (more == 1 && !is_section_start(&r)) {
            fail(&r, "more lines than the header's count in the section before (expected a "
                     "section name)");
            goto done;
        }
    }
    if (more < 0) goto done;
    if (!have_atoms) { fail(&r, "the file has no Atoms section"); goto done; }
    rc = 0;
done:
    free(ids);
    free(lines);
    free(r.line);
    fclose(r.f);
    if (rc == 0) *d = out;
    else lammps_data_free(&out);
    return rc;
}

/* ---- the packing ------------------------------------------------------------------ */

int lammps_data_check_packing(const lammps_data *d, double fraction,
                              const volatile sig_atomic_t *stop, const char *path, char *err,
                              size_t err_len)
{
    double *radius = malloc((d->n ? d->n : 1) * sizeof *radius);
    if (!radius) { snprintf(err, err_len, "%s: out of memory", path); return -1; }
    double volume = 0.0;
    for (size_t i = 0; i < d->n; i++) {
        radius[i] = 0.5 * d->diameter[i];
        volume += M_PI / 6.0 * d->diameter[i] * d->diameter[i] * d->diameter[i];
    }
    overlap_found o;
    int rc = overlap_check(d->x, radius, d->n, fraction, stop, &o);
    free(radius);
    if (rc == -1) { snprintf(err, err_len, "%s: out of memory", path); return -1; }
    if (rc == -2) { snprintf(err, err_len, "%s: stopped by a signal", path); return -1; }
    if (rc == 1) {
        const double *a = d->x + 3 * o.first, *b = d->x + 3 * o.second;
        snprintf(err, err_len, "%s: atom %lld at (%.9g, %.9g, %.9g) overlaps atom %lld at (%.9g, "
                 "%.9g, %.9g) by %.4g m = %.3g of the smaller radius (at most %g allowed)", path,
                 (long long)d->id[o.second], b[0], b[1], b[2], (long long)d->id[o.first], a[0],
                 a[1], a[2], o.overlap, o.fraction, fraction);
        return -1;
    }
    double box = (d->hi[0] - d->lo[0]) * (d->hi[1] - d->lo[1]) * (d->hi[2] - d->lo[2]);
    if (volume > box) {
        snprintf(err, err_len, "%s: the atoms' volume %.4g m^3 exceeds the box's %.4g m^3 (solid "
                 "fraction %.3g > 1): not a packing of spheres", path, volume, box, volume / box);
        return -1;
    }
    return 0;
}

/* ---- writing ---------------------------------------------------------------------- */

int lammps_data_write(const char *path, const lammps_data *d, const char *title, char *err,
                      size_t err_len)
{
    size_t plen = strlen(path) + 16;
    char *tmp = malloc(plen);
    if (!tmp) { snprintf(err, err_len, "%s: out of memory", path); return -1; }
    snprintf(tmp, plen, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, err_len, "%s: cannot write: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    /* the title is one line */
    for (const char *c = title ? title : "dempact"; *c; c++) fputc(*c == '\n' ? ' ' : *c, f);
    fprintf(f, "\n\n%zu atoms\n%d atom types\n\n", d->n, d->n_types > 0 ? d->n_types : 1);
    static const char *const axes[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
    for (int a = 0; a < 3; a++) fprintf(f, "%.17g %.17g %s\n", d->lo[a], d->hi[a], axes[a]);
    fprintf(f, "\nAtoms # sphere\n\n");
    for (size_t i = 0; i < d->n; i++)
        fprintf(f, "%lld %d %.17g %.17g %.17g %.17g %.17g\n", (long long)d->id[i], (int)d->type[i],
                d->diameter[i], d->density[i], d->x[3 * i], d->x[3 * i + 1], d->x[3 * i + 2]);
    if (d->has_velocities) {
        fprintf(f, "\nVelocities\n\n");
        for (size_t i = 0; i < d->n; i++)
            fprintf(f, "%lld %.17g %.17g %.17g %.17g %.17g %.17g\n", (long long)d->id[i],
                    d->v[3 * i], d->v[3 * i + 1], d->v[3 * i + 2], d->omega[3 * i],
                    d->omega[3 * i + 1], d->omega[3 * i + 2]);
    }
    int bad = ferror(f);
    if (fclose(f) != 0) bad = 1;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
