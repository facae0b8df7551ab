/* The XDMF 3 files ParaView opens: three temporal collections of one uniform grid per
 * snapshot, each grid pointing into the snapshot's own file:
 *   NAME.xmf           "particles": a Polyvertex grid, position as geometry and every
 *                      per-particle dataset as point data (radius among them, so that a
 *                      Glyph scaled by it draws true spheres);
 *   NAME_contacts.xmf  "contacts": one two-node Polyline cell per touching pair between
 *                      its endpoints, the forces as cell data (no radius array: a Glyph
 *                      scaled by radius is not meant for it);
 *   NAME_walls.xmf     "walls": the walls' triangles, the wall index as cell data.
 * Why three files and not one with a spatial collection per time: ParaView 5.11's XDMF
 * 3 readers name a collection's blocks "particles", "particles[1]", "particles[2]", ...
 * after the time step, so Extract Block loses them past t = 0; a file of uniform grids
 * gives one plain unstructured grid. Why no empty grid: those readers die (SIGFPE) on
 * a grid of zero cells when the animation goes back to it, so a snapshot without
 * particles or contacts gets a stand-in of one point (one zero-length line) at the
 * domain's centre with every value 0, written inline. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void xml_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*s, out);
        }
    }
}

typedef struct xdmf_field {
    const char *name;
    const char *number_type;
    int precision;
    int vector;
} xdmf_field;

static const xdmf_field particle_fields[] = {
    {"id", "Int", 8, 0},
    {"type", "Int", 4, 0},
    {"radius", "Float", 8, 0},
    {"mass", "Float", 8, 0},
    {"velocity", "Float", 8, 1},
    {"angular_velocity", "Float", 8, 1},
    {"force", "Float", 8, 1},
    {"torque", "Float", 8, 1},
    {"n_contacts", "Int", 4, 0},
    {"kinetic_energy", "Float", 8, 0},
    {"rotational_energy", "Float", 8, 0},
};

static const xdmf_field contact_fields[] = {
    {"normal_force", "Float", 8, 0},
    {"overlap", "Float", 8, 0},
    {"wall", "UChar", 1, 0},
    {"normal", "Float", 8, 1},
    {"normal_force_vector", "Float", 8, 1},
    {"tangential_force", "Float", 8, 1},
};

static const xdmf_field wall_fields[] = {{"wall", "Int", 4, 0}};

#define N_FIELDS(a) (sizeof a / sizeof a[0])

/* Where a grid's data is: SNAPDIR/NNNNNN.h5:/PREFIX */
typedef struct source {
    const char *snapdir;
    int k;
} source;

static void hdf_item(FILE *out, const source *src, const char *path, long long rows, int cols,
                     const char *number_type, int precision)
{
    fputs("          <DataItem Dimensions=\"", out);
    if (cols) fprintf(out, "%lld %d", rows, cols);
    else fprintf(out, "%lld", rows);
    fprintf(out, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", number_type, precision);
    xml_escaped(out, src->snapdir);
    fprintf(out, "/%06d.h5:/%s</DataItem>\n", src->k, path);
}

/* n values of 0 (cols per row), inline. */
static void zero_item(FILE *out, long long rows, int cols, const char *number_type, int precision)
{
    fputs("          <DataItem Dimensions=\"", out);
    if (cols) fprintf(out, "%lld %d", rows, cols);
    else fprintf(out, "%lld", rows);
    fprintf(out, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"XML\">", number_type, precision);
    for (long long i = 0; i < rows * (cols ? cols : 1); i++) fputs(i ? " 0" : "0", out);
    fputs("</DataItem>\n", out);
}

/* cells of `nodes` nodes numbered 0, 1, 2, ...: the first values of vertex_index. */
static void topology(FILE *out, const source *src, const char *type, long long cells, int nodes,
                     int64_t vertex_len)
{
    long long values = cells * nodes;
    fprintf(out, "        <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" "
                 "NodesPerElement=\"%d\">\n", type, cells, nodes);
    if (!src) { /* a stand-in: its own connectivity */
        fprintf(out, "          <DataItem Dimensions=\"%lld\" NumberType=\"Int\" Format=\"XML\">", values);
        for (long long i = 0; i < values; i++) fprintf(out, i ? " %lld" : "%lld", i);
        fputs("</DataItem>\n        </Topology>\n", out);
        return;
    }
    fprintf(out, "          <DataItem ItemType=\"HyperSlab\" Type=\"HyperSlab\" Dimensions=\"%lld\">\n"
                 "            <DataItem Dimensions=\"3 1\" NumberType=\"Int\" Format=\"XML\">0 1 %lld"
                 "</DataItem>\n  ", values, values);
    hdf_item(out, src, "vertex_index", vertex_len, 0, "Int", 8);
    fputs("          </DataItem>\n        </Topology>\n", out);
}

static void stand_in_geometry(FILE *out, int points, const double centre[3])
{
    fprintf(out, "        <Geometry GeometryType=\"XYZ\">\n"
                 "          <DataItem Dimensions=\"%d 3\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"XML\">", points);
    for (int p = 0; p < points; p++)
        fprintf(out, "%s%.17g %.17g %.17g", p ? " " : "", centre[0], centre[1], centre[2]);
    fputs("</DataItem>\n        </Geometry>\n", out);
}

static void attributes(FILE *out, const source *src, const char *group, const xdmf_field *fields,
                       size_t n_fields, const char *center, long long rows)
{
    for (size_t a = 0; a < n_fields; a++) {
        const xdmf_field *x = &fields[a];
        fprintf(out, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"%s\">\n", x->name,
                x->vector ? "Vector" : "Scalar", center);
        if (src) {
            char path[128];
            snprintf(path, sizeof path, "%s%s", group, x->name);
            hdf_item(out, src, path, rows, x->vector ? 3 : 0, x->number_type, x->precision);
        } else {
            zero_item(out, rows, x->vector ? 3 : 0, x->number_type, x->precision);
        }
        fputs("        </Attribute>\n", out);
    }
}

static void particles_grid(FILE *out, const char *snapdir, const snapshot_meta *m, int k,
                           const double centre[3])
{
    long long n = (long long)m->n_particles;
    source s = {snapdir, k}, *src = n > 0 ? &s : NULL;
    if (!src) n = 1;
    fputs("      <Grid Name=\"particles\" GridType=\"Uniform\">\n", out);
    fprintf(out, "        <Time Value=\"%.17g\" />\n", m->time);
    topology(out, src, "Polyvertex", n, 1, m->vertex_len);
    if (src) {
        fputs("        <Geometry GeometryType=\"XYZ\">\n  ", out);
        hdf_item(out, src, "position", n, 3, "Float", 8);
        fputs("        </Geometry>\n", out);
    } else {
        stand_in_geometry(out, 1, centre);
    }
    attributes(out, src, "", particle_fields, N_FIELDS(particle_fields), "Node", n);
    fputs("      </Grid>\n", out);
}

static void contacts_grid(FILE *out, const char *snapdir, const snapshot_meta *m, int k,
                          const double centre[3])
{
    long long n = (long long)m->n_contacts;
    source s = {snapdir, k}, *src = n > 0 ? &s : NULL;
    if (!src) n = 1;
    fputs("      <Grid Name=\"contacts\" GridType=\"Uniform\">\n", out);
    fprintf(out, "        <Time Value=\"%.17g\" />\n", m->time);
    topology(out, src, "Polyline", n, 2, m->vertex_len);
    if (src) {
        fputs("        <Geometry GeometryType=\"XYZ\">\n  ", out);
        hdf_item(out, src, "contacts/endpoints", 2 * n, 3, "Float", 8);
        fputs("        </Geometry>\n", out);
    } else {
        stand_in_geometry(out, 2, centre);
    }
    attributes(out, src, "contacts/", contact_fields, N_FIELDS(contact_fields), "Cell", n);
    fputs("      </Grid>\n", out);
}

static void walls_grid(FILE *out, const char *snapdir, const snapshot_meta *m, int k,
                       const double centre[3])
{
    long long n = (long long)m->n_wall_triangles;
    source s = {snapdir, k}, *src = n > 0 ? &s : NULL;
    fputs("      <Grid Name=\"walls\" GridType=\"Uniform\">\n", out);
    fprintf(out, "        <Time Value=\"%.17g\" />\n", m->time);
    if (src) {
        fprintf(out, "        <Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">\n  ", n);
        hdf_item(out, src, "walls/triangles", n, 3, "Int", 8);
        fputs("        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n  ", out);
        hdf_item(out, src, "walls/vertices", (long long)m->n_wall_vertices, 3, "Float", 8);
        fputs("        </Geometry>\n", out);
    } else {
        n = 1;
        fputs("        <Topology TopologyType=\"Triangle\" NumberOfElements=\"1\">\n"
              "          <DataItem Dimensions=\"1 3\" NumberType=\"Int\" Format=\"XML\">0 1 2</DataItem>\n"
              "        </Topology>\n", out);
        stand_in_geometry(out, 3, centre);
    }
    attributes(out, src, "walls/", wall_fields, N_FIELDS(wall_fields), "Cell", n);
    fputs("      </Grid>\n", out);
}

typedef void (*grid_writer)(FILE *, const char *, const snapshot_meta *, int, const double[3]);

static int write_one(const char *tmp, grid_writer grid, const char *snapdir,
                     const snapshot_meta *m, int count, const double centre[3], char *err,
                     size_t err_len)
{
    FILE *out = fopen(tmp, "w");
    if (!out) {
        snapshot_set_err(err, err_len, "cannot write '%s': %s", tmp, strerror(errno));
        return -1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    fputs("<?xml version=\"1.0\" ?>\n"
          "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
          "  <Domain>\n"
          "    <Grid Name=\"dempact\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          out);
    for (int k = 0; k < count; k++) grid(out, snapdir, &m[k], k, centre);
    fputs("    </Grid>\n"
          "  </Domain>\n"
          "</Xdmf>\n",
          out);
    int failed = ferror(out) || fflush(out) != 0;
    int e = errno;
    if (fclose(out) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        snapshot_set_err(err, err_len, "cannot write '%s': %s", tmp, strerror(e));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int snapshot_xdmf_write(const char *const tmp[3], const char *snapdir, const snapshot_meta *m, int count,
                        int has_walls, const double centre[3], char *err, size_t err_len)
{
    static const grid_writer grids[3] = {particles_grid, contacts_grid, walls_grid};
    for (int k = 0; k < (has_walls ? 3 : 2); k++)
        if (write_one(tmp[k], grids[k], snapdir, m, count, centre, err, err_len) < 0) {
            for (int q = 0; q < k; q++) unlink(tmp[q]);
            return -1;
        }
    return 0;
}

uint64_t snapshot_xdmf_size(int count, int has_walls)
{
    /* about 3.1 kB (particles), 2.1 kB (contacts) and 0.7 kB (walls) per snapshot */
    return (uint64_t)count * (5200u + (has_walls ? 700u : 0u)) + 1000u;
}
