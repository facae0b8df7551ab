/* HDF5 helpers of the snapshot writer: each returns 0 (or an id), or -1 with sh5_error
 * set, and closes what it opened. */
#define _POSIX_C_SOURCE 200809L

#include "snapshot_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char sh5_error[512];

/* The processes writing the file being written together (NULL: this one alone). */
static const snapshot_share *shared;

void sh5_share(const snapshot_share *share) { shared = share; }

/* A shared write goes on only where every process's last step went well, so that none
 * waits in a collective call another has given up before (ok: this process's). */
static int sh5_agreed(int ok)
{
    if (!shared) return ok;
    int every = shared->all_ok(ok, shared->ctx);
    if (ok && !every) snprintf(sh5_error, sizeof sh5_error, "another rank could not write its part");
    return every;
}

void h5_quiet_begin(h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void h5_quiet_end(const h5_quiet *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

/* The innermost description, or the system error one of them reports: HDF5's POSIX
 * driver says "..., errno = 28, error message = 'No space left on device', ...". */
static herr_t error_walk(unsigned n, const H5E_error2_t *e, void *data)
{
    int *found_system = data;
    if (!e || !e->desc || !e->desc[0] || *found_system) return 0;
    const char *msg = strstr(e->desc, "error message = '");
    if (msg) {
        msg += strlen("error message = '");
        const char *end = strchr(msg, '\'');
        int len = end ? (int)(end - msg) : (int)strlen(msg);
        snprintf(sh5_error, sizeof sh5_error, "%.*s", len, msg);
        *found_system = 1;
    } else if (n == 0) {
        snprintf(sh5_error, sizeof sh5_error, "%s", e->desc);
    }
    return 0;
}

void sh5_capture_error(void)
{
    int found_system = 0;
    snprintf(sh5_error, sizeof sh5_error, "HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, error_walk, &found_system);
}

#define TRY_H5(call)                                                                       \
    do {                                                                                    \
        if ((call) < 0) {                                                                   \
            sh5_capture_error();                                                            \
            goto done;                                                                      \
        }                                                                                   \
    } while (0)

int sh5_close(herr_t (*close_fn)(hid_t), hid_t id)
{
    if (id < 0) return 0;
    if (close_fn(id) < 0) {
        sh5_capture_error();
        return -1;
    }
    return 0;
}

hid_t sh5_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) {
        sh5_capture_error();
        return -1;
    }
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        sh5_capture_error();
        H5Tclose(t);
        return -1;
    }
    return t;
}

int sh5_attr(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, hsize_t n,
             const void *value)
{
    hid_t s = -1, a = -1;
    int rc = -1;
    TRY_H5(s = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL));
    TRY_H5(a = H5Acreate2(loc, name, file_type, s, H5P_DEFAULT, H5P_DEFAULT));
    TRY_H5(H5Awrite(a, mem_type, value));
    rc = 0;
done:
    if (sh5_close(H5Aclose, a) < 0) rc = -1;
    if (s >= 0) H5Sclose(s);
    return rc;
}

int sh5_string_attr(hid_t loc, const char *name, const char *value)
{
    const char *v = value ? value : "";
    hid_t t = sh5_string_type();
    if (t < 0) return -1;
    int rc = sh5_attr(loc, name, t, t, 0, &v);
    H5Tclose(t);
    return rc;
}

/* A contiguous dataset of that shape. Object times are not recorded: the same run gives
 * the same bytes. */
static hid_t new_dataset(hid_t loc, const char *name, hid_t file_type, int rank, const hsize_t *dims)
{
    hid_t s = -1, dcpl = -1, d = -1;
    TRY_H5(s = rank > 0 ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR));
    TRY_H5(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    TRY_H5(H5Pset_obj_track_times(dcpl, 0));
    TRY_H5(d = H5Dcreate2(loc, name, file_type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
done:
    if (dcpl >= 0) H5Pclose(dcpl);
    if (s >= 0) H5Sclose(s);
    return d;
}

/* Its attributes unit and meaning, and closed; then (written together) agreed. ok: so
 * far. Returns 0 or -1. */
static int finish_dataset(hid_t d, int ok, const char *unit, const char *meaning)
{
    /* attributes are written by every process alike: all or none */
    ok = sh5_agreed(ok);
    if (ok && (sh5_string_attr(d, "unit", unit) < 0 || sh5_string_attr(d, "meaning", meaning) < 0)) ok = 0;
    if (sh5_close(H5Dclose, d) < 0) ok = 0;
    return sh5_agreed(ok) ? 0 : -1;
}

int sh5_dataset(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, int rank,
                const hsize_t *dims, const void *buf, const char *unit, const char *meaning)
{
    hsize_t count = 1;
    for (int k = 0; k < rank; k++) count *= dims[k];
    hid_t d = new_dataset(loc, name, file_type, rank, dims);
    int ok = d >= 0;
    /* written together: the root writes it all (independent transfer) */
    if (ok && count > 0 && (!shared || shared->root) && H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        sh5_capture_error();
        ok = 0;
    }
    return finish_dataset(d, ok, unit, meaning);
}

/* This process's runs of rows of dataset d (name): the file's selection (*fs) and its buffer's
 * (*mem), which holds them one after the other, as HDF5 walks a selection in the file's
 * order. Returns 0, or -1 with sh5_error. */
static int select_part(hid_t d, const char *name, int rank, hsize_t cols, const sh5_part *part, hid_t *fs,
                       hid_t *mem)
{
    hsize_t mine = part->count[0] + part->count[1];
    hsize_t mdims[2] = {mine ? mine : 1, cols};
    TRY_H5(*mem = H5Screate_simple(rank, mdims, NULL));
    if (!mine) TRY_H5(H5Sselect_none(*mem));
    TRY_H5(*fs = H5Dget_space(d));
    TRY_H5(H5Sselect_none(*fs));
    int runs = 0;
    for (int k = 0; k < 2; k++) {
        if (part->count[k] == 0) continue;
        hsize_t start[2] = {part->first[k], 0}, count[2] = {part->count[k], cols};
        TRY_H5(H5Sselect_hyperslab(*fs, runs++ ? H5S_SELECT_OR : H5S_SELECT_SET, start, NULL, count, NULL));
    }
    if (H5Sget_select_npoints(*fs) == H5Sget_select_npoints(*mem)) return 0;
    snprintf(sh5_error, sizeof sh5_error, "rows of '%s' overlap another rank's", name);
done:
    return -1;
}

int sh5_rows(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, hsize_t cols,
             const sh5_part *part, const void *buf, const char *unit, const char *meaning)
{
    int rank = cols ? 2 : 1;
    hsize_t dims[2] = {part->total, cols};
    if (!shared) return sh5_dataset(loc, name, file_type, mem_type, rank, dims, buf, unit, meaning);
    hid_t fs = -1, mem = -1, d = new_dataset(loc, name, file_type, rank, dims);
    int ok = d >= 0 && (part->total == 0 || select_part(d, name, rank, cols, part, &fs, &mem) == 0);
    /* every process into the collective write, or none: HDF5 checks a selection before
     * it waits for the others, and one that failed there would leave them waiting */
    ok = sh5_agreed(ok);
    if (ok && part->total > 0 && H5Dwrite(d, mem_type, mem, fs, shared->dxpl, buf) < 0) {
        sh5_capture_error();
        ok = 0;
    }
    if (mem >= 0) H5Sclose(mem);
    if (fs >= 0) H5Sclose(fs);
    return finish_dataset(d, ok, unit, meaning);
}

hid_t sh5_group(hid_t loc, const char *name)
{
    hid_t gcpl = -1, g = -1;
    TRY_H5(gcpl = H5Pcreate(H5P_GROUP_CREATE));
    TRY_H5(H5Pset_obj_track_times(gcpl, 0));
    TRY_H5(g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT));
done:
    if (gcpl >= 0) H5Pclose(gcpl);
    return g;
}

hid_t sh5_create_file(const char *path)
{
    hid_t fapl = -1, f = -1;
    /* written together: through the MPI-IO driver the caller chose */
    TRY_H5(fapl = shared ? H5Pcopy(shared->fapl) : H5Pcreate(H5P_FILE_ACCESS));
    /* H5F_CLOSE_STRONG: closing the file closes whatever a failed write left open */
    TRY_H5(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18));
    TRY_H5(H5Pset_file_locking(fapl, 0, 1));
    TRY_H5(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG));
    TRY_H5(f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
done:
    if (fapl >= 0) H5Pclose(fapl);
    if (!sh5_agreed(f >= 0) && f >= 0) {
        H5Fclose(f);
        f = -1;
    }
    return f;
}

hid_t sh5_open_read(const char *path)
{
    hid_t fapl = -1, f = -1;
    TRY_H5(fapl = H5Pcreate(H5P_FILE_ACCESS));
    TRY_H5(H5Pset_file_locking(fapl, 0, 1));
    TRY_H5(f = H5Fopen(path, H5F_ACC_RDONLY, fapl));
done:
    if (fapl >= 0) H5Pclose(fapl);
    return f;
}
