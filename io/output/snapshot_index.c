/* NAME.h5, the output's entry point: what the run is (root attributes, /case_text), the
 * time series, and /snapshots/NNNNNN as external links to the snapshot files. It is
 * small and rewritten whole (to a temporary file, then renamed) after snapshots. HDF5
 * resolves a relative external link from the folder of the file holding it (then from
 * the current folder), so readers find NAME.d/ beside NAME.h5 from any folder. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const snapshot_ts_column snapshot_ts_columns[] = {
    {"time", offsetof(sim_observables, time), 0, "s", "simulated time", 0},
    {"step", offsetof(sim_observables, step), 1, "", "step number", 0},
    {"kinetic_energy", offsetof(sim_observables, kinetic_energy), 0, "J",
     "translational kinetic energy, sum of 1/2 m v^2", 0},
    {"rotational_energy", offsetof(sim_observables, rotational_energy), 0, "J",
     "rotational kinetic energy, sum of 1/2 I w^2", 0},
    {"gravitational_energy", offsetof(sim_observables, gravitational_energy), 0, "J",
     "potential energy in gravity, sum of -m g.x", 0},
    {"elastic_energy", offsetof(sim_observables, elastic_energy), 0, "J",
     "elastic energy stored in the contacts", 0},
    {"dissipated_damping", offsetof(sim_observables, dissipated_damping), 0, "J",
     "energy dissipated by the normal dashpots since t = 0", 0},
    {"dissipated_friction", offsetof(sim_observables, dissipated_friction), 0, "J",
     "energy dissipated by tangential friction since t = 0", 0},
    {"dissipated_rolling", offsetof(sim_observables, dissipated_rolling), 0, "J",
     "energy dissipated by rolling resistance since t = 0", 0},
    {"dissipated_plasticity", offsetof(sim_observables, dissipated_plasticity), 0, "J",
     "energy dissipated by plastic deformation since t = 0", 0},
    {"energy_residual", offsetof(sim_observables, energy_residual), 0, "J",
     "energy balance residual (time integration): kinetic + gravitational + elastic + "
     "dissipated - the same at t = 0 - work of moving walls, of external loads and of the "
     "Lees-Edwards box (shear_work); NaN with inlets or outlets", 1},
    {"n_contacts", offsetof(sim_observables, n_contacts), 1, "", "touching particle-particle pairs", 0},
    {"n_wall_contacts", offsetof(sim_observables, n_wall_contacts), 1, "", "touching particle-wall pairs", 0},
    {"max_overlap", offsetof(sim_observables, max_overlap), 0, "m", "largest overlap of any contact", 0},
    {"inserted_mass", offsetof(sim_observables, inserted_mass), 0, "kg",
     "mass the inlets put in since t = 0", 0},
    {"discharged_mass", offsetof(sim_observables, discharged_mass), 0, "kg",
     "mass the outlets took out since t = 0", 0},
    {"shear_work", offsetof(sim_observables, shear_work), 0, "J",
     "work of the Lees-Edwards box on the particles since t = 0: the images' slip, the "
     "crossings of the z faces and the barostat (0 without)", 1},
    {"lees_edwards_offset", offsetof(sim_observables, lees_edwards_offset), 0, "m",
     "x shift of the Lees-Edwards images above the top z face (0 without)", 1},
    {"box_height", offsetof(sim_observables, box_height), 0, "m",
     "the Lees-Edwards box's height along z, which a barostat changes (0 without)", 1},
    {"shear_stress", offsetof(sim_observables, shear_stress), 0, "Pa",
     "Lees-Edwards box: -sigma_xz, contacts' virial plus momentum flux about the imposed "
     "flow, over the volume (0 without)", 1},
    {"normal_stress", offsetof(sim_observables, normal_stress), 0, "Pa",
     "Lees-Edwards box: sigma_zz, compression positive (0 without)", 1},
    {"mean_stress", offsetof(sim_observables, mean_stress), 0, "Pa",
     "Lees-Edwards box: (sigma_xx + sigma_yy + sigma_zz) / 3, compression positive (0 "
     "without)", 1},
};
const size_t snapshot_n_ts_columns = sizeof snapshot_ts_columns / sizeof snapshot_ts_columns[0];

const snapshot_ts_column snapshot_wall_series[SNAPSHOT_WALL_SERIES] = {
    {"wall_force", 0, 0, "N", "force the particles exert on each wall", 0},
    {"wall_torque", 0, 0, "N m", "torque the particles exert on each wall about its reference point", 0},
    {"wall_displacement", 0, 0, "m", "translation of each wall from where the case places it", 1},
};

int snapshot_series_add(snapshot_series *s, const sim_observables *o)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        sim_observables *r = realloc(s->rows, cap * sizeof *r);
        if (r) s->rows = r;
        int ok = r != NULL;
        for (int k = 0; k < SNAPSHOT_WALL_SERIES && s->n_walls; k++) {
            double *w = realloc(s->wall[k], 3 * s->n_walls * cap * sizeof *w);
            if (w) s->wall[k] = w;
            else ok = 0;
        }
        if (!ok) return -1;
        s->cap = cap;
    }
    sim_observables *row = &s->rows[s->n];
    *row = *o;
    row->wall_force = row->wall_torque = row->wall_displacement = NULL;
    row->n_walls = s->n_walls;
    const double *load[SNAPSHOT_WALL_SERIES] = {o->wall_force, o->wall_torque, o->wall_displacement};
    for (int k = 0; k < SNAPSHOT_WALL_SERIES && s->n_walls; k++) {
        double *dst = s->wall[k] + 3 * s->n_walls * s->n;
        if (load[k] && o->n_walls == s->n_walls) memcpy(dst, load[k], 3 * s->n_walls * sizeof *dst);
        else for (size_t i = 0; i < 3 * s->n_walls; i++) dst[i] = NAN;
    }
    s->n++;
    return 0;
}

void snapshot_series_free(snapshot_series *s)
{
    free(s->rows);
    free(s->wall[0]);
    free(s->wall[1]);
    free(s->wall[2]);
    size_t walls = s->n_walls;
    memset(s, 0, sizeof *s);
    s->n_walls = walls;
}

static int write_series(hid_t file, const snapshot_series *ts)
{
    hid_t g = sh5_group(file, "timeseries");
    if (g < 0) return -1;
    int rc = -1;
    size_t n = ts->n;
    void *col = malloc((n ? n : 1) * 8);
    if (!col) {
        snprintf(sh5_error, sizeof sh5_error, "out of memory");
        snapshot_no_memory = 1;
        goto done;
    }
    for (size_t c = 0; c < snapshot_n_ts_columns; c++) {
        const snapshot_ts_column *tc = &snapshot_ts_columns[c];
        for (size_t r = 0; r < n; r++) memcpy((char *)col + 8 * r, (const char *)&ts->rows[r] + tc->offset, 8);
        hsize_t dims[1] = {n};
        if (sh5_dataset(g, tc->name, tc->is_int ? H5T_STD_I64LE : H5T_IEEE_F64LE,
                        tc->is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, 1, dims, col, tc->unit,
                        tc->meaning) < 0)
            goto done;
    }
    for (int k = 0; k < SNAPSHOT_WALL_SERIES && ts->n_walls > 0; k++) {
        hsize_t dims[3] = {n, ts->n_walls, 3};
        if (sh5_dataset(g, snapshot_wall_series[k].name, SH5_F64, 3, dims, ts->wall[k],
                        snapshot_wall_series[k].unit, snapshot_wall_series[k].meaning) < 0)
            goto done;
    }
    rc = 0;
done:
    free(col);
    if (sh5_close(H5Gclose, g) < 0) rc = -1;
    return rc;
}

static int write_header(hid_t file, const snapshot_run_info *info)
{
    double dt = info->dt;
    int32_t format = SNAPSHOT_FORMAT;
    uint8_t by_id = (uint8_t)(info->sums_by_id != 0);
    double initial_energy = info->initial_energy;
    if (sh5_string_attr(file, "dempact_version", info->version) < 0 ||
        sh5_string_attr(file, "build", info->build) < 0 ||
        sh5_string_attr(file, "case_name", info->case_name) < 0 ||
        sh5_attr(file, "dt", SH5_F64, 0, &dt) < 0 ||
        sh5_attr(file, "format", SH5_I32, 0, &format) < 0 ||
        sh5_attr(file, "sums_by_id", SH5_U8, 0, &by_id) < 0 ||
        sh5_attr(file, "initial_energy", SH5_F64, 0, &initial_energy) < 0)
        return -1;
    uint8_t driven = 1; /* only on a driven run's output: others stay as they were */
    if (info->driven && sh5_attr(file, "driven", SH5_U8, 0, &driven) < 0) return -1;
    size_t n_walls = info->walls ? info->walls->n : 0;
    if (n_walls > 0) {
        const char **names = malloc(n_walls * sizeof *names);
        if (!names) {
            snprintf(sh5_error, sizeof sh5_error, "out of memory");
            snapshot_no_memory = 1;
            return -1;
        }
        for (size_t w = 0; w < n_walls; w++) names[w] = info->walls->walls[w].name;
        hid_t t = sh5_string_type();
        int rc = t < 0 ? -1 : sh5_attr(file, "wall_names", t, t, n_walls, names);
        if (t >= 0) H5Tclose(t);
        free(names);
        if (rc < 0) return -1;
    }
    if (info->case_text) {
        /* a fixed-length string: reading it back (a restart, a run over this output)
         * never goes through HDF5's global heap, whose damage HDF5 does not survive */
        hid_t t = H5Tcopy(H5T_C_S1);
        size_t len = strlen(info->case_text) + 1;
        int rc = t < 0 || H5Tset_size(t, len) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                         H5Tset_cset(t, H5T_CSET_UTF8) < 0
                     ? -1
                     : sh5_dataset(file, "case_text", t, t, 0, NULL, info->case_text, "",
                                   "the case file's full text");
        if (rc < 0) sh5_capture_error();
        if (t >= 0) H5Tclose(t);
        if (rc < 0) return -1;
    }
    return 0;
}

static int write_links(hid_t file, const char *snapdir, int count)
{
    hid_t g = sh5_group(file, "snapshots");
    if (g < 0) return -1;
    int rc = 0;
    for (int k = 0; k < count && rc == 0; k++) {
        char name[16], target[4096];
        snprintf(name, sizeof name, "%06d", k);
        snprintf(target, sizeof target, "%s/%06d.h5", snapdir, k);
        if (H5Lcreate_external(target, "/", g, name, H5P_DEFAULT, H5P_DEFAULT) < 0) {
            sh5_capture_error();
            rc = -1;
        }
    }
    if (sh5_close(H5Gclose, g) < 0) rc = -1;
    return rc;
}

int snapshot_index_write(const char *path, const snapshot_run_info *info, const char *snapdir,
                         int count, const snapshot_series *series, char *err, size_t err_len)
{
    h5_quiet q;
    h5_quiet_begin(&q);
    hid_t f = sh5_create_file(path);
    int ok = f >= 0 && write_header(f, info) == 0 && write_series(f, series) == 0 &&
             write_links(f, snapdir, count) == 0;
    if (sh5_close(H5Fclose, f) < 0) ok = 0;
    h5_quiet_end(&q);
    if (!ok) {
        snapshot_set_err(err, err_len, "cannot write '%s': %s", path, sh5_error);
        unlink(path);
        return -1;
    }
    return 0;
}
