/* See h5_read.h. */
#define _POSIX_C_SOURCE 200809L
#include "h5_read.h"

#include <stdlib.h>
#include <string.h>

static int single(hid_t space)
{
    int one = space >= 0 && H5Sget_simple_extent_npoints(space) == 1;
    if (space >= 0) H5Sclose(space);
    return one;
}

int h5_read_attr(hid_t loc, const char *obj, const char *name, hid_t type, void *v)
{
    if (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT) <= 0) return -1;
    hid_t a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0) return -1;
    int rc = single(H5Aget_space(a)) && H5Aread(a, type, v) >= 0 ? 0 : -1;
    H5Aclose(a);
    return rc;
}

char *h5_read_case_text(hid_t file, int allow_variable)
{
    if (H5Lexists(file, "case_text", H5P_DEFAULT) <= 0) return NULL;
    hid_t d = H5Dopen2(file, "case_text", H5P_DEFAULT);
    if (d < 0) return NULL;
    hid_t ft = H5Dget_type(d);
    int is_string = ft >= 0 && H5Tget_class(ft) == H5T_STRING;
    int variable = is_string && H5Tis_variable_str(ft) > 0;
    size_t size = is_string && !variable ? H5Tget_size(ft) : 0;
    char *copy = NULL;
    if (is_string && single(H5Dget_space(d)) && (variable ? allow_variable : size > 0 && size < (1u << 24))) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_cset(t, H5T_CSET_UTF8);
        if (variable) {
            char *v = NULL;
            H5Tset_size(t, H5T_VARIABLE);
            if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
                copy = strdup(v);
                H5free_memory(v);
            }
        } else if ((copy = calloc(size + 1, 1))) {
            H5Tset_size(t, size);
            H5Tset_strpad(t, H5T_STR_NULLPAD);
            if (H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, copy) < 0) {
                free(copy);
                copy = NULL;
            }
        }
        H5Tclose(t);
    }
    if (ft >= 0) H5Tclose(ft);
    H5Dclose(d);
    return copy;
}
