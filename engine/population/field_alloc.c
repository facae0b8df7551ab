#define _GNU_SOURCE /* mremap */
#include "field_alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u
#define LINE 64u
/* Arrays at least this large get their own mapping (below it, malloc's heap: aliasing
 * among small arrays costs nothing that matters). Sanitizer builds take every array from
 * malloc, where AddressSanitizer and LeakSanitizer see overflows and leaks. */
#ifdef DEMPACT_FIELDS_FROM_MALLOC
#define FIELD_MAP_MIN SIZE_MAX
#else
#define FIELD_MAP_MIN (256u * 1024u)
#endif

/* What sits just before each array; 32 bytes, so that an array in a malloc block
 * keeps malloc's 16-byte alignment. */
typedef struct field_header {
    void *block;    /* the mapping, or the block malloc returned */
    size_t bytes;   /* the array's size */
    size_t mapped;  /* the mapping's length, 0 for a malloc block */
    size_t unused;
} field_header;
_Static_assert(sizeof(field_header) == 32, "arrays after a header stay 16-byte aligned");

/* A mapped array starts `lead` bytes into its first page: past a line for the header,
 * then successive arrays 5 lines apart (5 is odd, so 63 arrays in a row get 63
 * different lines); which array gets which line does not matter. */
static atomic_uint next_slot;

static size_t next_lead(void)
{
    unsigned slot = atomic_fetch_add_explicit(&next_slot, 1u, memory_order_relaxed);
    return (size_t)(1u + slot * 5u % (PAGE / LINE - 1u)) * LINE;
}

static size_t mapping_length(size_t lead, size_t bytes)
{
    return (lead + bytes + PAGE - 1) / PAGE * PAGE;
}

static void *place(void *block, size_t lead, size_t bytes, size_t mapped)
{
    char *array = (char *)block + lead;
    field_header *h = (field_header *)array - 1;
    h->block = block;
    h->bytes = bytes;
    h->mapped = mapped;
    return array;
}

void *field_realloc(void *old, size_t bytes)
{
    if (bytes > SIZE_MAX / 2) return NULL;
    const field_header *o = old ? (const field_header *)old - 1 : NULL;
    if (bytes >= FIELD_MAP_MIN) {
        if (o && o->mapped) { /* grow or shrink the mapping in place, or move its pages */
            size_t lead = (size_t)((char *)old - (char *)o->block);
            size_t length = mapping_length(lead, bytes);
            void *block = mremap(o->block, o->mapped, length, MREMAP_MAYMOVE);
            return block == MAP_FAILED ? NULL : place(block, lead, bytes, length);
        }
        size_t lead = next_lead(), length = mapping_length(lead, bytes);
        void *block = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (block == MAP_FAILED) return NULL;
        void *array = place(block, lead, bytes, length);
        if (o) {
            memcpy(array, old, o->bytes < bytes ? o->bytes : bytes);
            field_free(old);
        }
        return array;
    }
    void *block = malloc(sizeof(field_header) + bytes);
    if (!block) return NULL;
    void *array = place(block, sizeof(field_header), bytes, 0);
    if (o) {
        memcpy(array, old, o->bytes < bytes ? o->bytes : bytes);
        field_free(old);
    }
    return array;
}

void field_free(void *array)
{
    if (!array) return;
    const field_header *h = (const field_header *)array - 1;
    if (h->mapped) munmap(h->block, h->mapped);
    else free(h->block);
}
