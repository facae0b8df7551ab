#include "population_h5.h"

#include <stdio.h>
#include <string.h>

#include "snapshot_internal.h"

/* The compound types of an inlet's state: in memory (the engine's struct) and in the
 * file (packed, little-endian, members in this order). */
static hid_t inlet_type(int in_file)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, in_file ? 7 * 8 : sizeof(inlet_state));
    if (t < 0) return -1;
    size_t at[7] = {0, 8, 16, 24, 32, 40, 48};
    if (!in_file) {
        at[0] = offsetof(inlet_state, random.state);
        at[1] = offsetof(inlet_state, rate);
        at[2] = offsetof(inlet_state, due);
        at[3] = offsetof(inlet_state, next_time);
        at[4] = offsetof(inlet_state, inserted);
        at[5] = offsetof(inlet_state, failed);
        at[6] = offsetof(inlet_state, mass_inserted);
    }
    hid_t u64 = in_file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    hid_t f64 = in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    hid_t i64 = in_file ? H5T_STD_I64LE : H5T_NATIVE_LONG;
    if (H5Tinsert(t, "generator_state", at[0], u64) < 0 || H5Tinsert(t, "rate", at[1], f64) < 0 ||
        H5Tinsert(t, "owed", at[2], f64) < 0 || H5Tinsert(t, "next_time", at[3], f64) < 0 ||
        H5Tinsert(t, "inserted", at[4], i64) < 0 || H5Tinsert(t, "failed", at[5], i64) < 0 ||
        H5Tinsert(t, "mass_inserted", at[6], f64) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t outlet_type(int in_file)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, in_file ? 2 * 8 : sizeof(outlet_state));
    if (t < 0) return -1;
    if (H5Tinsert(t, "removed", in_file ? 0 : offsetof(outlet_state, removed),
                  in_file ? H5T_STD_I64LE : H5T_NATIVE_LONG) < 0 ||
        H5Tinsert(t, "mass_removed", in_file ? 8 : offsetof(outlet_state, mass_removed),
                  in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static int write_states(hid_t loc, const char *name, hid_t (*type)(int), const void *states,
                        size_t n, const char *meaning)
{
    hid_t file_type = type(1), mem_type = type(0);
    hsize_t dims[1] = {(hsize_t)n};
    int rc = file_type >= 0 && mem_type >= 0
                 ? sh5_dataset(loc, name, file_type, mem_type, 1, dims, states, "", meaning)
                 : -1;
    if (file_type >= 0) H5Tclose(file_type);
    if (mem_type >= 0) H5Tclose(mem_type);
    return rc;
}

int population_h5_write_inlets(hid_t loc, const char *name, const inlet_state *in, size_t n,
                               const char *meaning)
{
    return write_states(loc, name, inlet_type, in, n, meaning);
}

int population_h5_write_outlets(hid_t loc, const char *name, const outlet_state *out, size_t n,
                                const char *meaning)
{
    return write_states(loc, name, outlet_type, out, n, meaning);
}

/* A compound dataset of n states, or (files before the compound layout) n states' worth
 * of the engine's raw bytes, which were x86-64 GCC's layout of the same structs. */
static int read_states(hid_t loc, const char *name, hid_t (*type)(int), void *out, size_t n,
                       size_t size, char *err, size_t err_len)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        snprintf(err, err_len, "dataset %s is missing", name);
        return -1;
    }
    hid_t s = H5Dget_space(d), t = H5Dget_type(d), mem = -1;
    int rc = -1;
    hssize_t rows = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 ? H5Sget_simple_extent_npoints(s)
                                                                  : -1;
    H5T_class_t kind = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (kind == H5T_COMPOUND) {
        if (rows != (hssize_t)n) {
            snprintf(err, err_len, "dataset %s has %lld states, the case %zu", name,
                     (long long)rows, n);
        } else if ((mem = type(0)) < 0 ||
                   (n > 0 && H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)) {
            snprintf(err, err_len, "dataset %s: its members are not the states' (%s)", name,
                     type == inlet_type ? "generator_state, rate, owed, next_time, inserted, "
                                          "failed, mass_inserted" : "removed, mass_removed");
        } else {
            rc = 0;
        }
    } else if (kind == H5T_INTEGER && H5Tget_size(t) == 1) {
        if (rows != (hssize_t)(n * size))
            snprintf(err, err_len, "dataset %s has %lld bytes, %zu states take %zu", name,
                     (long long)rows, n, n * size);
        else if (n > 0 && H5Dread(d, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
            snprintf(err, err_len, "cannot read dataset %s", name);
        else
            rc = 0;
    } else {
        snprintf(err, err_len, "dataset %s is neither a table of states nor their bytes", name);
    }
    if (mem >= 0) H5Tclose(mem);
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return rc;
}

int population_h5_read_inlets(hid_t loc, const char *name, inlet_state *out, size_t n,
                              char *err, size_t err_len)
{
    return read_states(loc, name, inlet_type, out, n, sizeof *out, err, err_len);
}

int population_h5_read_outlets(hid_t loc, const char *name, outlet_state *out, size_t n,
                               char *err, size_t err_len)
{
    return read_states(loc, name, outlet_type, out, n, sizeof *out, err, err_len);
}
