/* See h5_read.h. */
#define _POSIX_C_SOURCE 200809L
#include "h5_read.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int h5_read_attr(hid_t loc, const char *obj, const char *name, hid_t type, void *v)
{
    if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0) return -1;
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = H5Aread(a, type, v) < 0 ? -1 : 0;
    H5Aclose(a);
    return rc;
}

char *h5_read_case_text(hid_t file)
{
    if (H5Lexists(file, "case_text", H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(file, "case_text", H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char *v = NULL, *copy = NULL;
    if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
        copy = strdup(v);
        H5free_memory(v);
    }
    H5Tclose(t);
    H5Dclose(d);
    return copy;
}

void io_sync_parent(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return;
    int dfd = open(dirname(copy), O_RDONLY);
    free(copy);
    if (dfd < 0) return;
    fsync(dfd);
    close(dfd);
}
