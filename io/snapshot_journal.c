/* The journaled HDF5 file driver: see snapshot_journal.h for the design. */
#define _GNU_SOURCE /* F_OFD_SETLK */

#include "snapshot_journal.h"
#include "h5_read.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define PAGE 4096u
#define MAXADDR (((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1)
#define HEADER_MAGIC "DMPJRNL1"
#define TRAILER_MAGIC "DMPJEND1"
#define HEADER_SIZE (8 + 4 * 8) /* magic, dev, ino, page size, page count */
#define RECORD_SIZE (8 + PAGE)  /* page number, page */
#define TRAILER_SIZE (8 + 8)    /* checksum, magic */

typedef struct shadow_page {
    uint64_t page;
    unsigned char *data;
} shadow_page;

typedef struct jfile {
    H5FD_t pub; /* must come first: the library fills it in */
    int fd;
    char *path, *jpath;
    dev_t dev;
    ino_t ino;
    haddr_t eoa;
    uint64_t phys_eof; /* the file's size on disk */
    uint64_t eof;      /* what HDF5 is told: phys_eof or the end of the highest write */
    uint64_t protect;  /* a multiple of PAGE: [0, protect) is written only by commits */
    shadow_page *pages; /* sorted by page */
    size_t n_pages, cap_pages;
    int last_errno;
    int broken; /* a commit failed half way: refuse further commits */
    int abandoned; /* journal_abandon: every write stays in memory */
} jfile;

static hid_t driver_id = -1;

/* ------------------------------------------------------------------ small helpers */

static void set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

static uint64_t round_up(uint64_t x) { return (x + PAGE - 1) / PAGE * PAGE; }

/* Reads n bytes at off, zero-filling past the end of the file. */
static int pread_full(int fd, void *buf, size_t n, uint64_t off)
{
    unsigned char *b = buf;
    while (n > 0) {
        ssize_t r = pread(fd, b, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) {
            memset(b, 0, n);
            return 0;
        }
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

static int pwrite_full(int fd, const void *buf, size_t n, uint64_t off)
{
    const unsigned char *b = buf;
    while (n > 0) {
        ssize_t r = pwrite(fd, b, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const unsigned char *b = buf;
    while (n > 0) {
        ssize_t r = write(fd, b, n);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += r;
        n -= (size_t)r;
    }
    return 0;
}


static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define FNV_SEED 0xcbf29ce484222325ULL

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

char *journal_path_for(const char *h5_path)
{
    size_t n = strlen(h5_path);
    char *j = malloc(n + sizeof ".journal");
    if (j) {
        memcpy(j, h5_path, n);
        memcpy(j + n, ".journal", sizeof ".journal");
    }
    return j;
}

/* Pushes an HDF5 error naming the file and errno, and remembers errno. */
#define PUSH_ERR(f, what)                                                                 \
    do {                                                                                  \
        int e_ = errno;                                                                   \
        if (f) (f)->last_errno = e_;                                                      \
        H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL,          \
                 H5E_WRITEERROR, "%s '%s': %s", what, (f) ? (f)->path : "?", strerror(e_)); \
    } while (0)

/* ------------------------------------------------------------------ shadow pages */

/* Index of the first shadow page >= page. */
static size_t lower_bound(const jfile *f, uint64_t page)
{
    size_t lo = 0, hi = f->n_pages;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (f->pages[mid].page < page) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static unsigned char *shadow_get(jfile *f, uint64_t page, int create)
{
    size_t k = lower_bound(f, page);
    if (k < f->n_pages && f->pages[k].page == page) return f->pages[k].data;
    if (!create) return NULL;
    if (f->n_pages == f->cap_pages) {
        size_t cap = f->cap_pages ? 2 * f->cap_pages : 64;
        shadow_page *p = realloc(f->pages, cap * sizeof *p);
        if (!p) return NULL;
        f->pages = p;
        f->cap_pages = cap;
    }
    unsigned char *data = malloc(PAGE);
    if (!data) return NULL;
    if (pread_full(f->fd, data, PAGE, page * PAGE) < 0) {
        free(data);
        return NULL;
    }
    memmove(f->pages + k + 1, f->pages + k, (f->n_pages - k) * sizeof *f->pages);
    f->pages[k].page = page;
    f->pages[k].data = data;
    f->n_pages++;
    return data;
}

static void shadow_clear(jfile *f)
{
    for (size_t k = 0; k < f->n_pages; k++) free(f->pages[k].data);
    f->n_pages = 0;
}

/* A lock on the whole file that only dempact's writer and recovery take (an open file
 * description lock: not released when this process closes another descriptor of the
 * file, and independent of the flock() that HDF5 readers take). Returns 0, or -1 if
 * another process holds a conflicting one. */
static int lock_file(int fd, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0) return 0;
    return errno == EAGAIN || errno == EACCES ? -1 : 0; /* no lock support: go on */
}

/* ------------------------------------------------------------------ the driver */

static H5FD_t *j_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    (void)fapl;
    if (!name || !*name || maxaddr == 0 || maxaddr == HADDR_UNDEF) {
        H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL,
                 H5E_CANTOPENFILE, "invalid file name or address space");
        return NULL;
    }
    int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) o |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) o |= O_CREAT;
    if (flags & H5F_ACC_EXCL) o |= O_EXCL;
    jfile *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->path = strdup(name);
    f->jpath = journal_path_for(name);
    f->fd = -1;
    if (!f->path || !f->jpath) goto fail;
    /* truncated only once this process holds the file: another dempact run writing it
     * must not lose it */
    f->fd = open(name, o & ~O_TRUNC, 0666);
    struct stat st;
    if (f->fd < 0) {
        PUSH_ERR(f, "cannot open");
        goto fail;
    }
    if ((flags & H5F_ACC_RDWR) && lock_file(f->fd, F_WRLCK) != 0) {
        H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL,
                 H5E_CANTOPENFILE, "'%s' is being written by another process (a dempact run "
                 "still going on?)", name);
        f->last_errno = EWOULDBLOCK;
        goto fail;
    }
    if (((o & O_TRUNC) && ftruncate(f->fd, 0) != 0) || fstat(f->fd, &st) != 0) {
        PUSH_ERR(f, "cannot open");
        goto fail;
    }
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->phys_eof = f->eof = (uint64_t)st.st_size;
    f->protect = round_up(f->phys_eof); /* what is there may be committed */
    return &f->pub;
fail:
    if (f->fd >= 0) close(f->fd);
    free(f->path);
    free(f->jpath);
    free(f);
    return NULL;
}

static herr_t j_close(H5FD_t *file)
{
    jfile *f = (jfile *)file;
    /* Whatever was not committed is dropped: the file stays at its last commit. */
    shadow_clear(f);
    free(f->pages);
    int rc = close(f->fd);
    free(f->path);
    free(f->jpath);
    free(f);
    return rc == 0 ? 0 : -1;
}

static int j_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const jfile *f = (const jfile *)a, *g = (const jfile *)b;
    if (f->dev != g->dev) return f->dev < g->dev ? -1 : 1;
    if (f->ino != g->ino) return f->ino < g->ino ? -1 : 1;
    return 0;
}

static herr_t j_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA |
             H5FD_FEAT_DATA_SIEVE | H5FD_FEAT_AGGREGATE_SMALLDATA |
             H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

static haddr_t j_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const jfile *)file)->eoa;
}

static herr_t j_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((jfile *)file)->eoa = addr;
    return 0;
}

static haddr_t j_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const jfile *)file)->eof;
}

static herr_t j_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = file;
    return 0;
}

static herr_t j_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                     void *buffer)
{
    (void)type;
    (void)dxpl;
    jfile *f = (jfile *)file;
    unsigned char *buf = buffer;
    if (addr == HADDR_UNDEF || addr + size > f->eoa || addr + size < addr) {
        H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL,
                 H5E_READERROR, "read beyond the end of allocation of '%s'", f->path);
        return -1;
    }
    uint64_t pos = addr, end = addr + size;
    while (pos < end) {
        uint64_t page = pos / PAGE, stop;
        const unsigned char *s = f->n_pages ? shadow_get(f, page, 0) : NULL;
        if (s) {
            stop = (page + 1) * PAGE < end ? (page + 1) * PAGE : end;
            memcpy(buf, s + (pos - page * PAGE), stop - pos);
        } else {
            /* up to the next shadow page (or the end) in one read */
            stop = end;
            size_t k = lower_bound(f, page);
            if (k < f->n_pages && f->pages[k].page * PAGE < stop) stop = f->pages[k].page * PAGE;
            if (pread_full(f->fd, buf, stop - pos, pos) < 0) {
                PUSH_ERR(f, "cannot read");
                return -1;
            }
        }
        buf += stop - pos;
        pos = stop;
    }
    return 0;
}

static herr_t j_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                      const void *buffer)
{
    (void)type;
    (void)dxpl;
    jfile *f = (jfile *)file;
    const unsigned char *buf = buffer;
    if (addr == HADDR_UNDEF || addr + size > f->eoa || addr + size < addr) {
        H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_VFL,
                 H5E_WRITEERROR, "write beyond the end of allocation of '%s'", f->path);
        return -1;
    }
    uint64_t pos = addr, end = addr + size;
    while (pos < end) {
        uint64_t stop;
        if (pos < f->protect || f->abandoned) { /* committed territory: into the shadow page */
            uint64_t page = pos / PAGE;
            stop = (page + 1) * PAGE < end ? (page + 1) * PAGE : end;
            errno = 0;
            unsigned char *s = shadow_get(f, page, 1);
            if (!s) {
                if (errno == 0) errno = ENOMEM;
                PUSH_ERR(f, "cannot keep a page of");
                return -1;
            }
            memcpy(s + (pos - page * PAGE), buf, stop - pos);
        } else { /* fresh space: nothing committed points here */
            stop = end;
            if (pwrite_full(f->fd, buf, stop - pos, pos) < 0) {
                PUSH_ERR(f, "cannot write");
                return -1;
            }
            if (stop > f->phys_eof) f->phys_eof = stop;
        }
        buf += stop - pos;
        pos = stop;
    }
    if (end > f->eof) f->eof = end;
    return 0;
}

static herr_t j_flush(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)file;
    (void)dxpl;
    (void)closing;
    return 0; /* commits are explicit: journal_commit */
}

static herr_t j_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)dxpl;
    (void)closing;
    /* Never shrinks (the last commit's end of allocation may lie beyond HDF5's current
     * one); the file is extended to the end of allocation by the next commit. */
    jfile *f = (jfile *)file;
    if (f->eoa > f->eof) f->eof = f->eoa;
    return 0;
}

static herr_t j_lock(H5FD_t *file, hbool_t rw)
{
    (void)file;
    (void)rw;
    return 0;
}

static herr_t j_unlock(H5FD_t *file)
{
    (void)file;
    return 0;
}

static const H5FD_class_t journal_class = {
    "dempact_journal", MAXADDR, H5F_CLOSE_WEAK,
    NULL, NULL, NULL, NULL,   /* terminate, superblock driver info: none (plain file) */
    0, NULL, NULL, NULL,      /* no fapl info */
    0, NULL, NULL,            /* no dxpl info */
    j_open, j_close, j_cmp, j_query,
    NULL, NULL, NULL,         /* type map, alloc, free: the library's */
    j_get_eoa, j_set_eoa, j_get_eof, j_get_handle,
    j_read, j_write, j_flush, j_truncate, j_lock, j_unlock,
    H5FD_FLMAP_DICHOTOMY};

hid_t journal_fapl(void)
{
    if (driver_id < 0 || H5Iis_valid(driver_id) <= 0) {
        driver_id = H5FDregister(&journal_class);
        if (driver_id < 0) return -1;
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return -1;
    if (H5Pset_driver(fapl, driver_id, NULL) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

static jfile *journal_of(hid_t file)
{
    void *h = NULL;
    if (driver_id < 0 || H5Fget_vfd_handle(file, H5P_DEFAULT, &h) < 0 || !h) return NULL;
    jfile *f = h;
    if (f->pub.driver_id != driver_id) return NULL;
    return f;
}

void journal_abandon(hid_t file)
{
    jfile *f = journal_of(file);
    if (f) f->abandoned = 1;
}

int journal_last_errno(hid_t file)
{
    jfile *f = journal_of(file);
    return f ? f->last_errno : 0;
}

int journal_rename(hid_t file, const char *new_h5_path)
{
    jfile *f = journal_of(file);
    if (!f) return -1;
    char *p = strdup(new_h5_path), *j = journal_path_for(new_h5_path);
    if (!p || !j) {
        free(p);
        free(j);
        return -1;
    }
    free(f->path);
    free(f->jpath);
    f->path = p;
    f->jpath = j;
    return 0;
}

/* The N-th commit with shadow pages dies half way through step 3 (tests only). */
static void crash_test_hook(jfile *f, size_t applied)
{
    static long count = 0;
    if (applied != f->n_pages / 2) return;
    const char *t = getenv("DEMPACT_TEST_CRASH_COMMIT"); /* read each time: tests fork */
    if (!t || !*t) return;
    if (++count != atol(t)) return;
    if (f->n_pages == 1) /* tear the only page */
        pwrite_full(f->fd, f->pages[0].data, PAGE / 2, f->pages[0].page * PAGE);
    fprintf(stderr, "DEMPACT_TEST_CRASH_COMMIT: killed in the middle of commit %ld\n", count);
    kill(getpid(), SIGKILL);
}

#define IOV_RUN 64

/* Writes shadow pages [from, to) (consecutive pages) with one pwritev. */
static int pwrite_pages(const jfile *f, size_t from, size_t to)
{
    struct iovec iov[IOV_RUN];
    size_t n = to - from, done = 0, total = n * PAGE;
    for (size_t k = 0; k < n; k++) {
        iov[k].iov_base = f->pages[from + k].data;
        iov[k].iov_len = PAGE;
    }
    off_t off = (off_t)(f->pages[from].page * PAGE);
    while (done < total) {
        ssize_t r = pwritev(f->fd, iov, (int)n, off + (off_t)done);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        done += (size_t)r;
        /* a short write: drop what was written from the vector */
        size_t skip = (size_t)r;
        while (n > 0 && skip >= iov[0].iov_len) {
            skip -= iov[0].iov_len;
            memmove(iov, iov + 1, (n - 1) * sizeof *iov);
            n--;
        }
        if (n > 0) {
            iov[0].iov_base = (char *)iov[0].iov_base + skip;
            iov[0].iov_len -= skip;
        }
    }
    return 0;
}

static int write_journal(const jfile *f)
{
    int jfd = open(f->jpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (jfd < 0) return -1;
    unsigned char head[HEADER_SIZE], rec[8], trailer[TRAILER_SIZE];
    memcpy(head, HEADER_MAGIC, 8);
    put_u64(head + 8, (uint64_t)f->dev);
    put_u64(head + 16, (uint64_t)f->ino);
    put_u64(head + 24, PAGE);
    put_u64(head + 32, f->n_pages);
    uint64_t h = fnv1a(FNV_SEED, head, sizeof head);
    int rc = write_full(jfd, head, sizeof head);
    for (size_t k = 0; k < f->n_pages && rc == 0; k++) {
        put_u64(rec, f->pages[k].page);
        h = fnv1a(fnv1a(h, rec, 8), f->pages[k].data, PAGE);
        rc = write_full(jfd, rec, 8);
        if (rc == 0) rc = write_full(jfd, f->pages[k].data, PAGE);
    }
    put_u64(trailer, h);
    memcpy(trailer + 8, TRAILER_MAGIC, 8);
    if (rc == 0) rc = write_full(jfd, trailer, sizeof trailer);
    if (rc == 0) rc = fsync(jfd);
    int e = errno;
    if (close(jfd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    errno = e;
    if (rc != 0) return -1;
    io_sync_parent(f->jpath);
    return 0;
}

int journal_commit(hid_t file, char *err, size_t err_len)
{
    jfile *f = journal_of(file);
    if (!f) {
        set_err(err, err_len, "internal error: file not opened with the journaled driver");
        return -1;
    }
    if (f->broken || f->abandoned) {
        set_err(err, err_len, "cannot commit '%s': an earlier commit failed", f->path);
        return -1;
    }
    /* 1. the file covers the end of allocation (allocated now, so that a full disk
     *    shows here and not while pages are copied in step 3), and is durable */
    uint64_t need = round_up(f->eoa);
    if (f->n_pages > 0 && (f->pages[f->n_pages - 1].page + 1) * PAGE > need)
        need = (f->pages[f->n_pages - 1].page + 1) * PAGE;
    if (f->phys_eof < need) {
        int e = posix_fallocate(f->fd, (off_t)f->phys_eof, (off_t)(need - f->phys_eof));
        if (e == EINVAL || e == EOPNOTSUPP) e = ftruncate(f->fd, (off_t)need) == 0 ? 0 : errno;
        if (e != 0) {
            f->last_errno = e;
            set_err(err, err_len, "cannot extend '%s': %s", f->path, strerror(e));
            return -1;
        }
        f->phys_eof = need;
        if (need > f->eof) f->eof = need;
    }
    if (fsync(f->fd) != 0 && errno != EINVAL) {
        f->last_errno = errno;
        set_err(err, err_len, "cannot sync '%s': %s", f->path, strerror(errno));
        return -1;
    }
    if (f->n_pages > 0) {
        /* 2. the journal */
        if (write_journal(f) != 0) {
            f->last_errno = errno;
            set_err(err, err_len, "cannot write '%s': %s", f->jpath, strerror(errno));
            unlink(f->jpath);
            return -1;
        }
        /* 3. the pages, in place: one pwritev per run of consecutive pages (a run also
         *    ends at the middle page, where the test hook may strike) */
        for (size_t k = 0; k < f->n_pages;) {
            crash_test_hook(f, k);
            size_t end = k + 1;
            while (end < f->n_pages && end != f->n_pages / 2 && end - k < IOV_RUN &&
                   f->pages[end].page == f->pages[end - 1].page + 1)
                end++;
            if (pwrite_pages(f, k, end) != 0) {
                f->last_errno = errno;
                f->broken = 1;
                set_err(err, err_len, "cannot write '%s': %s (its journal '%s' completes it)",
                        f->path, strerror(errno), f->jpath);
                return -1;
            }
            k = end;
        }
        if (fsync(f->fd) != 0 && errno != EINVAL) {
            f->last_errno = errno;
            f->broken = 1;
            set_err(err, err_len, "cannot sync '%s': %s", f->path, strerror(errno));
            return -1;
        }
        /* 4. done */
        unlink(f->jpath);
        shadow_clear(f);
    }
    uint64_t p = round_up(f->eoa);
    if (p > f->protect) f->protect = p;
    return 0;
}

int journal_in_use(const char *h5_path)
{
    int fd = open(h5_path, O_RDONLY);
    if (fd < 0) return 0;
    int busy = lock_file(fd, F_RDLCK) != 0;
    close(fd);
    return busy;
}

int journal_recover(const char *h5_path, char *err, size_t err_len)
{
    char *jpath = journal_path_for(h5_path);
    if (!jpath) {
        set_err(err, err_len, "out of memory");
        return -1;
    }
    int rc = -1, jfd = open(jpath, O_RDONLY), fd = -1, hold = -1;
    unsigned char *buf = NULL;
    if (jfd < 0) {
        if (errno == ENOENT) rc = 0;
        else set_err(err, err_len, "cannot read '%s': %s", jpath, strerror(errno));
        goto done;
    }
    /* a run still writing the file owns its journal: leave both alone */
    hold = open(h5_path, O_RDONLY);
    if (hold >= 0 && lock_file(hold, F_RDLCK) != 0) {
        rc = 0;
        goto done;
    }
    struct stat js;
    if (fstat(jfd, &js) != 0) {
        set_err(err, err_len, "cannot read '%s': %s", jpath, strerror(errno));
        goto done;
    }
    size_t size = (size_t)js.st_size;
    buf = malloc(size ? size : 1);
    if (!buf) {
        set_err(err, err_len, "out of memory reading '%s'", jpath);
        goto done;
    }
    if (pread_full(jfd, buf, size, 0) != 0) {
        set_err(err, err_len, "cannot read '%s': %s", jpath, strerror(errno));
        goto done;
    }
    /* Complete? Anything else was cut short before step 3 began: the HDF5 file is at
     * the previous commit and the journal is just dropped. */
    int complete = size >= HEADER_SIZE + TRAILER_SIZE && !memcmp(buf, HEADER_MAGIC, 8) &&
                   get_u64(buf + 24) == PAGE &&
                   size == HEADER_SIZE + get_u64(buf + 32) * RECORD_SIZE + TRAILER_SIZE &&
                   !memcmp(buf + size - 8, TRAILER_MAGIC, 8) &&
                   fnv1a(FNV_SEED, buf, size - TRAILER_SIZE) == get_u64(buf + size - TRAILER_SIZE);
    if (!complete) {
        unlink(jpath); /* if the folder is read-only the journal stays, harmlessly */
        rc = 0;
        goto done;
    }
    struct stat st;
    if (stat(h5_path, &st) != 0) {
        set_err(err, err_len, "'%s' has a journal but cannot be opened: %s", h5_path, strerror(errno));
        goto done;
    }
    if ((uint64_t)st.st_dev != get_u64(buf + 8) || (uint64_t)st.st_ino != get_u64(buf + 16)) {
        set_err(err, err_len,
                "'%s' belongs to another file than '%s' (was the file copied or replaced after "
                "a crash?); the original file's folder can repair the original", jpath, h5_path);
        goto done;
    }
    fd = open(h5_path, O_WRONLY);
    if (fd < 0) {
        set_err(err, err_len, "'%s' was left in the middle of a commit by a crash and must be "
                              "completed from '%s', but cannot be written: %s",
                h5_path, jpath, strerror(errno));
        goto done;
    }
    uint64_t n = get_u64(buf + 32);
    for (uint64_t k = 0; k < n; k++) {
        const unsigned char *r = buf + HEADER_SIZE + k * RECORD_SIZE;
        if (pwrite_full(fd, r + 8, PAGE, get_u64(r) * PAGE) != 0) {
            set_err(err, err_len, "cannot complete '%s' from '%s': %s", h5_path, jpath,
                    strerror(errno));
            goto done;
        }
    }
    if (fsync(fd) != 0 && errno != EINVAL) {
        set_err(err, err_len, "cannot sync '%s': %s", h5_path, strerror(errno));
        goto done;
    }
    unlink(jpath);
    io_sync_parent(jpath);
    rc = 1;
done:
    if (fd >= 0) close(fd);
    if (jfd >= 0) close(jfd);
    if (hold >= 0) close(hold);
    free(buf);
    free(jpath);
    return rc;
}
