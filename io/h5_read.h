/* Small readers shared by `dempact info` (io/cli_info.c) and the restart (io/restart.c),
 * and the folder sync shared by the snapshot writer and its journal. */
#ifndef DEMPACT_H5_READ_H
#define DEMPACT_H5_READ_H

#include <hdf5.h>

/* Reads attribute `name` of object `obj` (relative to loc) as `type` into v. Returns 0,
 * or -1 if it is missing or unreadable (without touching v). */
int h5_read_attr(hid_t loc, const char *obj, const char *name, hid_t type, void *v);

/* The case file's text stored in the output file, malloc'd, or NULL. */
char *h5_read_case_text(hid_t file);

/* fsync of the folder holding path, so that a new or renamed entry survives a power
 * cut. Folders that cannot be synced (some file systems) are not an error. */
void io_sync_parent(const char *path);

#endif
