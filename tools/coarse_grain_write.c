/* The coarse-grained fields as HDF5 (layout in docs/coarse-graining.md) and, for a grid or
 * a profile, an XDMF 3 file beside it that ParaView opens (as io/output/snapshot_xdmf.c
 * writes the snapshots'): a grid as a 3DCoRectMesh, a profile as one polyline along its
 * axis through the middle of the cross-section. Each file is written under a temporary
 * name and renamed into place. */
#define _POSIX_C_SOURCE 200809L
#include "coarse_grain.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct out_field {
    const char *name, *unit, *meaning;
    int comps;
} out_field;

static const out_field FIELDS[] = {
    {"density", "kg/m^3", "sum m W: mass density", 1},
    {"volume_fraction", "", "sum V_p W: solid volume fraction (V_p the sphere's volume)", 1},
    {"velocity", "m/s", "momentum_density / density (NaN where the density is 0)", 3},
    {"momentum_density", "kg/(m^2 s)", "sum m v W", 3},
    {"kinetic_stress", "Pa", "sum m u' u' W, u' = u - the snapshot's field of u, u = v (a sheared cell: v less the "
                             "streaming profile at the particle); compression positive", 9},
    {"contact_stress", "Pa", "-sum_c f_c (x) l_c int_0^1 W ds: f_c the force on i, l_c the branch from i; "
                             "row = force, column = branch; compression positive", 9},
    {"stress", "Pa", "kinetic_stress + contact_stress; compression positive", 9},
    {"pressure", "Pa", "trace(stress) / 3", 1},
    {"fabric", "", "sum_p V_p sum_c n_c (x) n_c W over the contacts c of p (trace: volume fraction x coordination)",
     9},
    {"wall_force_density", "N/m^3", "sum over wall contacts of the wall's force on the particle, W at the contact "
                                    "point", 3},
};
#define N_OUT (int)(sizeof FIELDS / sizeof FIELDS[0])

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* Field f's values at point p, from the averaged sums. */
static void values(const double *acc, int f, double *v)
{
    double rho = acc[CG_DENSITY];
    switch (f) {
    case 0: v[0] = rho; break;
    case 1: v[0] = acc[CG_VOLUME_FRACTION]; break;
    case 2:
        for (int a = 0; a < 3; a++) v[a] = rho > 0 ? acc[CG_MOMENTUM + a] / rho : NAN;
        break;
    case 3: memcpy(v, acc + CG_MOMENTUM, 3 * sizeof *v); break;
    case 4: memcpy(v, acc + CG_KINETIC, 9 * sizeof *v); break;
    case 5: memcpy(v, acc + CG_CONTACT, 9 * sizeof *v); break;
    case 6:
        for (int q = 0; q < 9; q++) v[q] = acc[CG_KINETIC + q] + acc[CG_CONTACT + q];
        break;
    case 7:
        v[0] = (acc[CG_KINETIC] + acc[CG_CONTACT] + acc[CG_KINETIC + 4] + acc[CG_CONTACT + 4] + acc[CG_KINETIC + 8] +
                acc[CG_CONTACT + 8]) / 3.0;
        break;
    case 8: memcpy(v, acc + CG_FABRIC, 9 * sizeof *v); break;
    default: memcpy(v, acc + CG_WALL_FORCE, 3 * sizeof *v); break;
    }
}

static void str_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, &value);
    H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static void num_attr(hid_t obj, const char *name, hid_t type, const void *v)
{
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, v);
    H5Aclose(a);
    H5Sclose(sp);
}

static int dataset(hid_t loc, const char *name, int rank, const hsize_t *dims, hid_t type, const void *data,
                   const char *unit, const char *meaning)
{
    hid_t sp = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t d = H5Dcreate2(loc, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d >= 0 && H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0 ? 0 : -1;
    if (d >= 0) {
        str_attr(d, "unit", unit);
        str_attr(d, "meaning", meaning);
        H5Dclose(d);
    }
    H5Sclose(sp);
    return rc;
}

static const char *AXES[3] = {"x", "y", "z"};

/* The shape of a field of `comps` components: its rank, dims in C order (x fastest). */
static int shape(const cg_grid *g, int comps, hsize_t dims[4])
{
    int r = 0;
    if (g->mode == CG_GRID) {
        dims[r++] = (hsize_t)g->n[2];
        dims[r++] = (hsize_t)g->n[1];
        dims[r++] = (hsize_t)g->n[0];
    } else if (g->mode == CG_PROFILE) {
        dims[r++] = (hsize_t)g->n[g->axis];
    }
    if (comps > 1) dims[r++] = (hsize_t)comps;
    return r;
}

static int write_h5(const char *tmp, const cg_grid *g, const cg_meta *meta, const double *acc)
{
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = 0;
    static const char *MODES[3] = {"grid", "profile", "box"};
    str_attr(f, "source", meta->source);
    str_attr(f, "kernel", meta->kernel);
    str_attr(f, "mode", MODES[g->mode]);
    if (g->mode == CG_PROFILE) str_attr(f, "axis", AXES[g->axis]);
    num_attr(f, "width", H5T_NATIVE_DOUBLE, &meta->width);
    num_attr(f, "cutoff", H5T_NATIVE_DOUBLE, &meta->cutoff);
    num_attr(f, "time_from", H5T_NATIVE_DOUBLE, &meta->t_from);
    num_attr(f, "time_to", H5T_NATIVE_DOUBLE, &meta->t_to);
    num_attr(f, "n_snapshots", H5T_NATIVE_INT, &meta->n_snapshots);
    num_attr(f, "measure", H5T_NATIVE_DOUBLE, &g->measure);
    hsize_t ns = (hsize_t)meta->n_snapshots;
    rc |= dataset(f, "steps", 1, &ns, H5T_NATIVE_INT64, meta->steps, "", "the step of each snapshot averaged");
    rc |= dataset(f, "times", 1, &ns, H5T_NATIVE_DOUBLE, meta->times, "s", "the time of each snapshot averaged");
    if (meta->heights)
        rc |= dataset(f, "box_heights", 1, &ns, H5T_NATIVE_DOUBLE, meta->heights, "m",
                      "the Lees-Edwards box height H of each snapshot averaged (the points along z: the same "
                      "fractions of each; the coordinates: of their mean)");
    hid_t cg = H5Gcreate2(f, "coordinates", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (int a = 0; a < 3 && rc == 0; a++) {
        if (g->mode == CG_BOX || (g->mode == CG_PROFILE && a != g->axis)) continue;
        double *x = malloc((size_t)g->n[a] * sizeof *x);
        if (!x) {
            rc = -1;
            break;
        }
        for (int64_t k = 0; k < g->n[a]; k++) x[k] = g->lo[a] + ((double)k + 0.5) * g->h[a];
        hsize_t n = (hsize_t)g->n[a];
        rc |= dataset(cg, AXES[a], 1, &n, H5T_NATIVE_DOUBLE, x, "m", "the points' coordinate along this axis");
        free(x);
    }
    H5Gclose(cg);
    hid_t fg = H5Gcreate2(f, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    double *buf = malloc((size_t)g->points * 9 * sizeof *buf);
    if (!buf) rc = -1;
    for (int q = 0; q < N_OUT && rc == 0; q++) {
        for (int64_t p = 0; p < g->points; p++) values(acc + p * CG_FIELDS, q, buf + p * FIELDS[q].comps);
        hsize_t dims[4];
        int r = shape(g, FIELDS[q].comps, dims);
        rc |= dataset(fg, FIELDS[q].name, r, dims, H5T_NATIVE_DOUBLE, buf, FIELDS[q].unit, FIELDS[q].meaning);
    }
    free(buf);
    H5Gclose(fg);
    if (H5Fclose(f) < 0) rc = -1;
    return rc;
}

static void xdmf_dims(FILE *out, const cg_grid *g, int comps)
{
    hsize_t dims[4];
    int r = shape(g, comps, dims);
    for (int q = 0; q < r; q++) fprintf(out, q ? " %llu" : "%llu", (unsigned long long)dims[q]);
}

static int write_xmf(const char *tmp, const char *h5_name, const cg_grid *g)
{
    FILE *out = fopen(tmp, "w");
    if (!out) return -1;
    fputs("<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"3.0\">\n  <Domain>\n"
          "    <Grid Name=\"coarse_grain\" GridType=\"Uniform\">\n", out);
    if (g->mode == CG_GRID) {
        fprintf(out, "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%lld %lld %lld\"/>\n",
                (long long)g->n[2], (long long)g->n[1], (long long)g->n[0]);
        fputs("      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n", out);
        fprintf(out, "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
                     "%.17g %.17g %.17g</DataItem>\n", g->lo[2] + 0.5 * g->h[2], g->lo[1] + 0.5 * g->h[1],
                g->lo[0] + 0.5 * g->h[0]);
        fprintf(out, "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">"
                     "%.17g %.17g %.17g</DataItem>\n", g->h[2], g->h[1], g->h[0]);
        fputs("      </Geometry>\n", out);
    } else { /* one polyline along the axis through the middle of the cross-section */
        int64_t n = g->n[g->axis];
        fprintf(out, "      <Topology TopologyType=\"Polyline\" NumberOfElements=\"1\" NodesPerElement=\"%lld\">\n"
                     "        <DataItem Dimensions=\"%lld\" NumberType=\"Int\" Format=\"XML\">", (long long)n,
                (long long)n);
        for (int64_t k = 0; k < n; k++) fprintf(out, k ? " %lld" : "%lld", (long long)k);
        fputs("</DataItem>\n      </Topology>\n      <Geometry GeometryType=\"XYZ\">\n", out);
        fprintf(out, "        <DataItem Dimensions=\"%lld 3\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">",
                (long long)n);
        for (int64_t k = 0; k < n; k++)
            for (int a = 0; a < 3; a++) {
                double x = a == g->axis ? g->lo[a] + ((double)k + 0.5) * g->h[a] : g->origin[a] + 0.5 * g->length[a];
                fprintf(out, (k || a) ? " %.17g" : "%.17g", x);
            }
        fputs("</DataItem>\n      </Geometry>\n", out);
    }
    for (int q = 0; q < N_OUT; q++) {
        int c = FIELDS[q].comps;
        fprintf(out, "      <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n"
                     "        <DataItem Dimensions=\"", FIELDS[q].name,
                c == 1 ? "Scalar" : c == 3 ? "Vector" : "Tensor");
        xdmf_dims(out, g, c);
        fprintf(out, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">%s:/fields/%s</DataItem>\n"
                     "      </Attribute>\n", h5_name, FIELDS[q].name);
    }
    fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", out);
    int failed = ferror(out) != 0;
    if (fclose(out) != 0) failed = 1;
    return failed ? -1 : 0;
}

int cg_write(const char *out, const cg_grid *g, const cg_meta *meta, const double *fields, char *err, size_t len)
{
    size_t n = strlen(out);
    char *tmp = malloc(n + 16), *xmf = malloc(n + 16), *xtmp = malloc(n + 32);
    if (!tmp || !xmf || !xtmp) {
        free(tmp);
        free(xmf);
        free(xtmp);
        return fail(err, len, "out of memory");
    }
    snprintf(tmp, n + 16, "%s.tmp", out);
    size_t stem = n > 3 && strcmp(out + n - 3, ".h5") == 0 ? n - 3 : n;
    snprintf(xmf, n + 16, "%.*s.xmf", (int)stem, out);
    snprintf(xtmp, n + 32, "%s.tmp", xmf);
    const char *slash = strrchr(out, '/');
    const char *h5_name = slash ? slash + 1 : out;
    int rc = 0;
    if (write_h5(tmp, g, meta, fields) < 0) {
        rc = fail(err, len, "cannot write '%s'", tmp);
        unlink(tmp);
    } else if (g->mode != CG_BOX && write_xmf(xtmp, h5_name, g) < 0) {
        rc = fail(err, len, "cannot write '%s': %s", xtmp, strerror(errno));
        unlink(tmp);
        unlink(xtmp);
    } else if (rename(tmp, out) != 0 || (g->mode != CG_BOX && rename(xtmp, xmf) != 0)) {
        rc = fail(err, len, "cannot rename into '%s': %s", out, strerror(errno));
        unlink(tmp);
        unlink(xtmp);
    }
    free(tmp);
    free(xmf);
    free(xtmp);
    return rc;
}
