/* Small readers shared by `dempact info` (io/commands/cli_info.c), the restart (io/output/restart.c)
 * and the output check (io/output/snapshot_target.c). Each reads one value only after checking
 * that the object holds exactly one: a hostile file cannot make them write past it. */
#ifndef DEMPACT_H5_READ_H
#define DEMPACT_H5_READ_H

#include <hdf5.h>

/* Reads attribute `name` of object `obj` (relative to loc) as `type` into v. Returns 0,
 * or -1 if it is missing, unreadable or not a single value (without touching v). */
int h5_read_attr(hid_t loc, const char *obj, const char *name, hid_t type, void *v);
/* The same for an attribute of exactly n values. */
int h5_read_attr_n(hid_t loc, const char *obj, const char *name, hid_t type, size_t n, void *v);

/* The case file's text stored in the output file (a single string), malloc'd, or NULL.
 * A variable-length string (the older layout 2 wrote one) is read only when
 * allow_variable is set, and then in a child process: reading one goes through HDF5's
 * global heap, and HDF5 1.10 crashes or loops on a damaged one (NULL after 10 s).
 * *no_memory (if not NULL) is set when NULL means that memory ran out. */
char *h5_read_case_text(hid_t file, int allow_variable, int *no_memory);

#endif
