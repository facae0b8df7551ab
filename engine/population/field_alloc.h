/* Storage for the per-particle and per-pair arrays (one array per field).
 *
 * An array's first bytes sit at the same offset within a 4 KiB page whenever it comes
 * from mmap, as every large malloc block does. A loop that reads entry i of a dozen such
 * arrays (x, y, z, vx, ... or a pair's force and spring components) then maps all of
 * them to the same L1 cache set, which holds 8 to 12 lines: the lines evict one another
 * although the cache is nearly empty. That made the 10M-sphere bench (every array
 * mapped) and the 200k bench with every array forced into mmap 15% slower. Here each
 * large array gets its own mapping and starts at its own line within the page, so the
 * fields of one particle fall into different sets; it grows with mremap (no copy, and
 * never the old and the new array at once), and its pages go back to the system when
 * it is freed (a malloc heap keeps freed blocks: about 60 bytes per particle more).
 *
 * field_realloc(NULL, n) allocates, field_realloc(a, n) resizes keeping the first
 * min(old, n) bytes, field_free releases; never mix them with malloc/realloc/free. */
#ifndef DEMPACT_FIELD_ALLOC_H
#define DEMPACT_FIELD_ALLOC_H

#include <stddef.h>

/* Returns the new array, or NULL (the old one is then untouched). */
void *field_realloc(void *old, size_t bytes);
void field_free(void *array);

#endif
