/* The restart snapshot's arrays (restart_internal.h): each per-row dataset as a column
 * of snap_arrays, its shape checked, read a chunk of rows at a time. */
#define _POSIX_C_SOURCE 200809L

#include "restart_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads dataset `name` of g, which must be (rows) or (rows, cols) and store that many
 * values, into a new buffer of elem bytes per value. */
void *restart_read_array(const restart_file *f, int k, hid_t g, const char *name, hid_t mem_type,
                        size_t elem, size_t rows, size_t cols, char *err, size_t err_len)
{
    char why[256];
    hsize_t rest = cols;
    int64_t got = snapshot_dataset_rows(g, name, cols ? 2 : 1, &rest, why, sizeof why);
    if (got < 0) {
        restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        return NULL;
    }
    if ((size_t)got != rows) {
        restart_refuse(f, err, err_len, "snapshot %d: dataset %s has %lld rows, its count says %zu", k, name,
                       (long long)got, rows);
        return NULL;
    }
    void *buf = malloc((rows ? rows : 1) * (cols ? cols : 1) * elem);
    hid_t d = buf ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
    int ok = d >= 0 && (rows == 0 || H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (d >= 0) H5Dclose(d);
    if (!ok) {
        if (buf) restart_refuse(f, err, err_len, "snapshot %d: cannot read dataset %s", k, name);
        else restart_fail_memory(f, err, err_len, "snapshot %d: out of memory reading %s", k, name);
        free(buf);
        return NULL;
    }
    return buf;
}


void restart_arrays_free(snap_arrays *a)
{
    free(a->id); free(a->contact_id); free(a->contact_slot); free(a->type); free(a->contact_wall);
    free(a->contact_ended);
    free(a->radius); free(a->mass); free(a->position); free(a->position_at_rebuild); free(a->velocity);
    free(a->angular_velocity); free(a->force); free(a->torque);
    free(a->work); free(a->wall_work); free(a->wall_work_sum); free(a->wall_servo); free(a->inlets); free(a->outlets);
    for (int h = 0; h < SIM_MAX_HISTORY_FIELDS; h++) free(a->history[h]);
}



static size_t kind_size(int kind) { return kind == COL_I64 || kind == COL_F64 ? 8 : kind == COL_I32 ? 4 : 1; }

static hid_t kind_type(int kind)
{
    return kind == COL_I64 ? H5T_NATIVE_INT64 : kind == COL_I32 ? H5T_NATIVE_INT32
         : kind == COL_U8 ? H5T_NATIVE_UINT8 : H5T_NATIVE_DOUBLE;
}

static size_t row_bytes(const column *c) { return c->cols * kind_size(c->kind); }

static void **column_array(snap_arrays *a, const column *c) { return (void **)(void *)((char *)a + c->offset); }

const column restart_particle_columns[PARTICLE_COLUMNS] = {
    {"id", offsetof(snap_arrays, id), COL_I64, 1, 0},
    {"type", offsetof(snap_arrays, type), COL_I32, 1, 0},
    {"radius", offsetof(snap_arrays, radius), COL_F64, 1, 0},
    {"mass", offsetof(snap_arrays, mass), COL_F64, 1, 0},
    {"position", offsetof(snap_arrays, position), COL_F64, 3, 0},
    {"position_at_rebuild", offsetof(snap_arrays, position_at_rebuild), COL_F64, 3, 0},
    {"velocity", offsetof(snap_arrays, velocity), COL_F64, 3, 0},
    {"angular_velocity", offsetof(snap_arrays, angular_velocity), COL_F64, 3, 0},
    {"force", offsetof(snap_arrays, force), COL_F64, 3, 0},
    {"torque", offsetof(snap_arrays, torque), COL_F64, 3, 0},
};

/* The contacts' datasets, those older files lack marked absent. Returns how many. */
int restart_contact_columns(hid_t g, column *c)
{
    int n = 0;
    c[n++] = (column){"contacts/id", offsetof(snap_arrays, contact_id), COL_I64, 2, 0};
    c[n++] = (column){"contacts/wall", offsetof(snap_arrays, contact_wall), COL_U8, 1, 0};
    c[n++] = (column){"contacts/slot", offsetof(snap_arrays, contact_slot), COL_I64, 1, 0};
    /* contacts/ended: absent in older files, where every pair is in contact (0) */
    c[n++] = (column){"contacts/ended", offsetof(snap_arrays, contact_ended), COL_U8, 1,
                      H5Lexists(g, "contacts/ended", H5P_DEFAULT) <= 0};
    for (int h = 0; h < sim_n_pair_history; h++) {
        const pair_history_field *hf = &sim_pair_history[h];
        column *q = &c[n++];
        *q = (column){.offset = offsetof(snap_arrays, history) + (size_t)h * sizeof(double *),
                      .kind = COL_F64, .cols = (size_t)hf->count};
        snprintf(q->name, sizeof q->name, "contacts/%s", hf->name);
        /* written before this state existed: no contact had any */
        q->absent = hf->zero_if_absent && H5Lexists(g, q->name, H5P_DEFAULT) <= 0;
    }
    return n;
}

/* Checks that each dataset is (rows) or (rows, cols) and stores that many values. */
int restart_check_shapes(const restart_file *f, int k, hid_t g, const column *c, int n, size_t rows,
                        char *err, size_t err_len)
{
    for (int q = 0; q < n; q++) {
        if (c[q].absent) continue;
        char why[256];
        hsize_t rest = c[q].cols;
        int64_t got = snapshot_dataset_rows(g, c[q].name, c[q].cols > 1 ? 2 : 1, &rest, why, sizeof why);
        if (got < 0) return restart_refuse(f, err, err_len, "snapshot %d: %s", k, why);
        if ((size_t)got != rows)
            return restart_refuse(f, err, err_len, "snapshot %d: dataset %s has %lld rows, its count says %zu", k,
                                  c[q].name, (long long)got, rows);
    }
    return 0;
}

/* Room for `rows` rows of each column in a (whose arrays are NULL or hold fewer). */
int restart_reserve_columns(snap_arrays *a, const column *c, int n, size_t rows)
{
    for (int q = 0; q < n; q++) {
        void **arr = column_array(a, &c[q]);
        void *more = realloc(*arr, (rows ? rows : 1) * row_bytes(&c[q]));
        if (!more) return -1;
        *arr = more;
    }
    return 0;
}

/* Rows first .. first + count - 1 of each column into a's rows 0 .. count - 1. */
int restart_read_chunk(const restart_file *f, int k, hid_t g, const column *c, int n, snap_arrays *a,
                      size_t first, size_t count, char *err, size_t err_len)
{
    for (int q = 0; q < n && count > 0; q++) {
        void *buf = *column_array(a, &c[q]);
        if (c[q].absent) {
            memset(buf, 0, count * row_bytes(&c[q]));
            continue;
        }
        int rank = c[q].cols > 1 ? 2 : 1;
        hsize_t start[2] = {first, 0}, size[2] = {count, c[q].cols};
        hid_t d = H5Dopen2(g, c[q].name, H5P_DEFAULT), fs = d >= 0 ? H5Dget_space(d) : -1;
        hid_t ms = H5Screate_simple(rank, size, NULL);
        int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, size, NULL) >= 0 &&
                 H5Dread(d, kind_type(c[q].kind), ms, fs, H5P_DEFAULT, buf) >= 0;
        if (ms >= 0) H5Sclose(ms);
        if (fs >= 0) H5Sclose(fs);
        if (d >= 0) H5Dclose(d);
        if (!ok) return restart_refuse(f, err, err_len, "snapshot %d: cannot read dataset %s", k, c[q].name);
    }
    return 0;
}

/* Row r of `from` to row q of `to`, in every column. */
void restart_copy_row(snap_arrays *to, size_t q, snap_arrays *from, size_t r, const column *c, int n)
{
    for (int k = 0; k < n; k++) {
        size_t b = row_bytes(&c[k]);
        memcpy((char *)*column_array(to, &c[k]) + q * b, (char *)*column_array(from, &c[k]) + r * b, b);
    }
}

/* The arrays restart_shifted to start at row `first` (to read a chunk into its place). */
snap_arrays restart_shifted(snap_arrays *a, const column *c, int n, size_t first)
{
    snap_arrays v = *a;
    for (int k = 0; k < n; k++) {
        void **arr = column_array(&v, &c[k]);
        *arr = (char *)*arr + first * row_bytes(&c[k]);
    }
    return v;
}
