/* fail_alloc: an LD_PRELOAD library that makes one of dempact's own allocations fail, for
 * tests/mpi/alloc_failure.py.
 *
 * In the process whose OMPI_COMM_WORLD_RANK is DEMPACT_FAIL_RANK (every process when that
 * is unset) it counts the calls of malloc, calloc and realloc made from the main program
 * (dempact's own code: the libraries it loads, MPI, HDF5, Zoltan, libcyaml, are not
 * counted, and keep working; nor is HDF5 where the program links it from its archive: the
 * functions of the program's symbol table named H5... or HD..., HDF5's names), and the
 * DEMPACT_FAIL_AT-th returns NULL (0 or unset: none
 * does; DEMPACT_FAIL_TRACE=FILE: its call stack written there). DEMPACT_FAIL_LOG=FILE: at exit, writes one line per call site of the main
 * program, in the order first reached: the index of its first call and the site's
 * address in the program (for addr2line). */
#define _GNU_SOURCE
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

#define MAX_SITES 4096

static uintptr_t text_lo, text_hi; /* the main program's executable segments */
static uintptr_t base;            /* where the main program is loaded */
static int active;                /* this process counts */
static unsigned long fail_at;
static unsigned long calls;
static const char *log_path;
static uintptr_t site[MAX_SITES];
static unsigned long site_first[MAX_SITES];
static int n_sites;

static int find_main(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (info->dlpi_name && info->dlpi_name[0]) return 0; /* the main program has no name */
    base = info->dlpi_addr;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (!text_lo || lo < text_lo) text_lo = lo;
        if (hi > text_hi) text_hi = hi;
    }
    return 1;
}

/* HDF5's functions inside the main program (linked from HDF5's archive), sorted */
#define MAX_LIB_FUNCS 65536
static struct range { uintptr_t lo, hi; } lib[MAX_LIB_FUNCS];
static int n_lib;

static int by_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The program's functions named as HDF5's (H5..., HD...), from its symbol table. */
static void find_hdf5(void)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) != 0) { close(fd); return; }
    const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return;
    const ElfW(Ehdr) *eh = (const void *)m;
    const ElfW(Shdr) *sh = (const void *)(m + eh->e_shoff);
    for (int k = 0; k < eh->e_shnum; k++) {
        if (sh[k].sh_type != SHT_SYMTAB) continue;
        const ElfW(Sym) *sym = (const void *)(m + sh[k].sh_offset);
        const char *names = (const char *)(m + sh[sh[k].sh_link].sh_offset);
        for (size_t j = 0; j < sh[k].sh_size / sizeof *sym && n_lib < MAX_LIB_FUNCS; j++) {
            const char *name = names + sym[j].st_name;
            if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC || !sym[j].st_value ||
                (strncmp(name, "H5", 2) && strncmp(name, "HD", 2)))
                continue;
            lib[n_lib].lo = base + sym[j].st_value;
            lib[n_lib].hi = lib[n_lib].lo + (sym[j].st_size ? sym[j].st_size : 1);
            n_lib++;
        }
    }
    munmap((void *)m, (size_t)st.st_size);
    qsort(lib, (size_t)n_lib, sizeof lib[0], by_start);
}

static int in_hdf5(uintptr_t a)
{
    int lo = 0, hi = n_lib; /* the last range starting at or before a */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (lib[mid].lo <= a) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && a < lib[lo - 1].hi;
}

__attribute__((constructor)) static void start(void)
{
    const char *rank = getenv("DEMPACT_FAIL_RANK"), *mine = getenv("OMPI_COMM_WORLD_RANK");
    active = !rank || (mine && strcmp(rank, mine) == 0);
    const char *at = getenv("DEMPACT_FAIL_AT");
    fail_at = at ? strtoul(at, NULL, 10) : 0;
    log_path = getenv("DEMPACT_FAIL_LOG");
    dl_iterate_phdr(find_main, NULL);
    if (active) find_hdf5();
}

__attribute__((destructor)) static void end(void)
{
    if (!active || !log_path) return;
    FILE *f = fopen(log_path, "w");
    if (!f) return;
    for (int k = 0; k < n_sites; k++)
        fprintf(f, "%lu 0x%lx\n", site_first[k], (unsigned long)(site[k] - base));
    fclose(f);
}

/* Whether this call (from `caller`) is the one that fails. */
static int fails(void *caller)
{
    uintptr_t a = (uintptr_t)caller;
    if (!active || a < text_lo || a >= text_hi || in_hdf5(a)) return 0;
    unsigned long n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    if (log_path) {
        int k = 0;
        while (k < n_sites && site[k] != a) k++;
        if (k == n_sites && n_sites < MAX_SITES) {
            site[n_sites] = a;
            site_first[n_sites++] = n;
        }
    }
    if (!fail_at || n != fail_at) return 0;
    const char *trace = getenv("DEMPACT_FAIL_TRACE");
    FILE *f = trace ? fopen(trace, "w") : NULL;
    if (f) { /* where it failed: the program's return addresses, for addr2line */
        void *frames[16];
        int depth = backtrace(frames, 16);
        for (int k = 0; k < depth; k++) fprintf(f, "0x%lx\n", (unsigned long)((uintptr_t)frames[k] - base));
        fclose(f);
    }
    return 1;
}

void *malloc(size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, size);
}
