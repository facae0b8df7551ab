/* The XDMF 3 sidecar: a temporal collection with, at each snapshot, a spatial
 * collection of two grids that point into the HDF5 file: "particles" (a Polyvertex
 * grid: position as geometry, every per-particle dataset as point data, radius among
 * them so that a Glyph scaled by it draws true spheres) and "contacts" (one two-node
 * Polyline cell per touching pair between the endpoints, the forces as cell data). */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

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

static void data_item(FILE *out, const char *h5_name, int k, const char *field,
                      long long rows, int vector, const char *number_type, int precision)
{
    fputs("            <DataItem Dimensions=\"", out);
    if (vector) fprintf(out, "%lld 3", rows);
    else fprintf(out, "%lld", rows);
    fprintf(out, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", number_type, precision);
    xml_escaped(out, h5_name);
    fprintf(out, ":/snapshots/%06d/%s</DataItem>\n", k, field);
}

/* n cells of `nodes` nodes each, numbered 0, 1, 2, ... (a prefix of /vertex_index). */
static void topology(FILE *out, const char *h5_name, const char *type, long long cells,
                     int nodes, int64_t vertex_len)
{
    long long values = cells * nodes;
    fprintf(out, "          <Topology TopologyType=\"%s\" NumberOfElements=\"%lld\" "
                 "NodesPerElement=\"%d\">\n", type, cells, nodes);
    fprintf(out, "            <DataItem ItemType=\"HyperSlab\" Type=\"HyperSlab\" "
                 "Dimensions=\"%lld\">\n", values);
    fprintf(out, "              <DataItem Dimensions=\"3 1\" NumberType=\"Int\" "
                 "Format=\"XML\">0 1 %lld</DataItem>\n", values);
    fprintf(out, "              <DataItem Dimensions=\"%lld\" NumberType=\"Int\" Precision=\"8\" "
                 "Format=\"HDF\">", (long long)vertex_len);
    xml_escaped(out, h5_name);
    fputs(":/vertex_index</DataItem>\n"
          "            </DataItem>\n"
          "          </Topology>\n", out);
}

static void particles_grid(FILE *out, const char *h5_name, const snapshot_meta *m, int k,
                           int64_t vertex_len)
{
    long long n = (long long)m->n_particles;
    fputs("        <Grid Name=\"particles\" GridType=\"Uniform\">\n", out);
    topology(out, h5_name, "Polyvertex", n, 1, vertex_len);
    fputs("          <Geometry GeometryType=\"XYZ\">\n", out);
    data_item(out, h5_name, k, "position", n, 1, "Float", 8);
    fputs("          </Geometry>\n", out);
    for (size_t a = 0; a < sizeof particle_fields / sizeof particle_fields[0]; a++) {
        const xdmf_field *x = &particle_fields[a];
        fprintf(out, "          <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n",
                x->name, x->vector ? "Vector" : "Scalar");
        data_item(out, h5_name, k, x->name, n, x->vector, x->number_type, x->precision);
        fputs("          </Attribute>\n", out);
    }
    fputs("        </Grid>\n", out);
}

static void contacts_grid(FILE *out, const char *h5_name, const snapshot_meta *m, int k,
                          int64_t vertex_len)
{
    long long n = (long long)m->n_contacts;
    fputs("        <Grid Name=\"contacts\" GridType=\"Uniform\">\n", out);
    topology(out, h5_name, "Polyline", n, 2, vertex_len);
    fputs("          <Geometry GeometryType=\"XYZ\">\n", out);
    data_item(out, h5_name, k, "contacts/endpoints", 2 * n, 1, "Float", 8);
    fputs("          </Geometry>\n", out);
    /* radius 0 at the segments' ends, so that a Glyph over both blocks draws nothing
     * there: the first 2n values of /zeros (a DataItem shorter than its dataset reads
     * the dataset's beginning) */
    fprintf(out, "          <Attribute Name=\"radius\" AttributeType=\"Scalar\" Center=\"Node\">\n"
                 "            <DataItem Dimensions=\"%lld\" NumberType=\"Float\" Precision=\"8\" "
                 "Format=\"HDF\">", 2 * n);
    xml_escaped(out, h5_name);
    fputs(":/zeros</DataItem>\n"
          "          </Attribute>\n", out);
    for (size_t a = 0; a < sizeof contact_fields / sizeof contact_fields[0]; a++) {
        const xdmf_field *x = &contact_fields[a];
        char path[64];
        snprintf(path, sizeof path, "contacts/%s", x->name);
        fprintf(out, "          <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Cell\">\n",
                x->name, x->vector ? "Vector" : "Scalar");
        data_item(out, h5_name, k, path, n, x->vector, x->number_type, x->precision);
        fputs("          </Attribute>\n", out);
    }
    fputs("        </Grid>\n", out);
}

int snapshot_xdmf_write(const char *xmf_path, const char *tmp_path, const char *h5_name,
                        const snapshot_meta *m, int count, int64_t vertex_len, char *err,
                        size_t err_len)
{
    FILE *out = fopen(tmp_path, "w");
    if (!out) {
        set_err(err, err_len, "cannot write '%s': %s", tmp_path, strerror(errno));
        return -1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20); /* the file grows by ~6 kB per snapshot */
    fputs("<?xml version=\"1.0\" ?>\n"
          "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
          "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n"
          "  <Domain>\n"
          "    <Grid Name=\"dempact\" GridType=\"Collection\" CollectionType=\"Temporal\">\n",
          out);
    for (int k = 0; k < count; k++) {
        fprintf(out, "      <Grid Name=\"snapshot_%06d\" GridType=\"Collection\" "
                     "CollectionType=\"Spatial\">\n", k);
        fprintf(out, "        <Time Value=\"%.17g\" />\n", m[k].time);
        particles_grid(out, h5_name, &m[k], k, vertex_len);
        if (m[k].has_contacts) /* even empty: the same two blocks at every time */
            contacts_grid(out, h5_name, &m[k], k, vertex_len);
        fputs("      </Grid>\n", out);
    }
    fputs("    </Grid>\n"
          "  </Domain>\n"
          "</Xdmf>\n",
          out);
    int failed = ferror(out) || fflush(out) != 0 || fsync(fileno(out)) != 0;
    int e = errno;
    if (fclose(out) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (failed) {
        set_err(err, err_len, "cannot write '%s': %s", tmp_path, strerror(e));
        remove(tmp_path);
        return -1;
    }
    if (rename(tmp_path, xmf_path) != 0) {
        set_err(err, err_len, "cannot rename '%s' to '%s': %s", tmp_path, xmf_path, strerror(errno));
        remove(tmp_path);
        return -1;
    }
    return 0;
}
