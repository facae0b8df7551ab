/* STL files (triangulated surfaces), ASCII or binary.
 *
 * A file is binary when its size is exactly 84 + 50 n bytes, n the triangle count in
 * bytes 80-83 (little-endian), or when it does not start with "solid" or holds a zero
 * byte; otherwise it is ASCII:
 *   solid NAME / facet normal nx ny nz / outer loop / vertex x y z (three) / endloop /
 *   endfacet / ... / endsolid NAME
 * (several solids may follow each other; keywords in any case). Facet normals are read
 * and ignored: the engine takes each triangle as it is. An ASCII file may start with a
 * UTF-8 byte-order mark and end its lines with CRLF; a UTF-16 or UTF-32 one is refused
 * by name. */
#ifndef DEMPACT_STL_H
#define DEMPACT_STL_H

#include <signal.h>
#include <stddef.h>

/* Reads the triangles of the file at path into *tri (9 doubles per triangle: three
 * vertices; free() it) and their count into *n. Returns 0, FAIL_NO_MEMORY
 * (engine/fail.h) when an allocation failed, or -1 with a message that
 * names the file (and, for ASCII, the line) in err: a file that cannot be read, a
 * binary file whose size does not match its triangle count, a syntax error, a number
 * that is not finite, a file without triangles. */
int stl_read(const char *path, double **tri, long *n, char *err, size_t err_len);

/* The same, giving up ("stopped by a signal") when *stop becomes non-zero (may be NULL). */
int stl_read_stoppable(const char *path, double **tri, long *n, const volatile sig_atomic_t *stop,
                       char *err, size_t err_len);

#endif
