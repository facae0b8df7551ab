#include "stl.h"
#include "engine/fail.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_encoding.h"

#define MAX_STL_BYTES ((size_t)2 << 30) /* 2 GiB: some 43 million binary triangles */

static int read_all(const char *path, unsigned char **data, size_t *len, char *err,
                    size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || cap >= MAX_STL_BYTES) break;
        unsigned char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) free(buf);
        buf = bigger;
        cap *= 2;
    }
    const char *problem = !buf                 ? "out of memory"
                          : ferror(f)          ? strerror(errno)
                          : n >= MAX_STL_BYTES ? "larger than 2 GiB"
                                               : NULL;
    fclose(f);
    if (problem) {
        int rc = !buf ? FAIL_NO_MEMORY : FAIL_REFUSED;
        free(buf);
        snprintf(err, err_len, "%s: cannot read: %s", path, problem);
        return rc;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float le_float(const unsigned char *b)
{
    uint32_t u = le32(b);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#define STOP_EVERY 4096 /* triangles between looks at the stop flag */

static int read_binary(const char *path, const unsigned char *d, size_t len, double **tri,
                       long *n, const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    if (len < 84) {
        snprintf(err, err_len, "%s: not an STL file: %zu bytes is too short for a binary STL "
                               "(84 bytes at least) and it is not ASCII (it does not start "
                               "with 'solid')", path, len);
        return -1;
    }
    uint32_t count = le32(d + 80);
    uint64_t expected = 84 + 50 * (uint64_t)count;
    if (expected != len) {
        snprintf(err, err_len, "%s: binary STL: its header says %lu triangles, which take "
                               "%llu bytes, but the file has %zu bytes (truncated or not an "
                               "STL file)", path, (unsigned long)count,
                 (unsigned long long)expected, len);
        return -1;
    }
    if (count == 0) {
        snprintf(err, err_len, "%s: binary STL: the file holds no triangles", path);
        return -1;
    }
    double *t = malloc(9 * (size_t)count * sizeof *t);
    if (!t) {
        snprintf(err, err_len, "%s: out of memory for %lu triangles", path, (unsigned long)count);
        return FAIL_NO_MEMORY;
    }
    for (uint32_t k = 0; k < count; k++) {
        if (k % STOP_EVERY == 0 && stop && *stop) {
            snprintf(err, err_len, "%s: stopped by a signal", path);
            free(t);
            return -1;
        }
        const unsigned char *rec = d + 84 + 50 * (size_t)k + 12; /* skip the normal */
        for (int q = 0; q < 9; q++) {
            double x = le_float(rec + 4 * q);
            if (!isfinite(x)) {
                snprintf(err, err_len, "%s: binary STL: triangle %lu has a coordinate that is "
                                       "not a finite number", path, (unsigned long)k + 1);
                free(t);
                return -1;
            }
            t[9 * (size_t)k + q] = x;
        }
    }
    *tri = t;
    *n = (long)count;
    return 0;
}

/* ---- ASCII --------------------------------------------------------------------------- */

typedef struct lexer {
    const char *path;
    const char *p;
    int line;
    char word[64]; /* the last token (cut at 63 characters) */
    int word_line;
    char *err;
    size_t err_len;
} lexer;

/* The next whitespace-separated token into lx->word; 0 at the end of the file. */
static int next(lexer *lx)
{
    for (;;) {
        while (*lx->p == ' ' || *lx->p == '\t' || *lx->p == '\r' || *lx->p == '\n') {
            if (*lx->p == '\n') lx->line++;
            lx->p++;
        }
        if (*lx->p == '\0') return 0;
        const char *start = lx->p;
        while (*lx->p && *lx->p != ' ' && *lx->p != '\t' && *lx->p != '\r' && *lx->p != '\n')
            lx->p++;
        size_t n = (size_t)(lx->p - start);
        if (n >= sizeof lx->word) n = sizeof lx->word - 1;
        memcpy(lx->word, start, n);
        lx->word[n] = '\0';
        lx->word_line = lx->line;
        return 1;
    }
}

/* Skips the rest of the current line (a solid's name). */
static void skip_line(lexer *lx)
{
    while (*lx->p && *lx->p != '\n') lx->p++;
}

static int is_word(const lexer *lx, const char *keyword)
{
    const char *a = lx->word;
    for (; *a && *keyword; a++, keyword++) {
        char c = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (c != *keyword) return 0;
    }
    return *a == *keyword;
}

static int fail(lexer *lx, int line, const char *fmt, ...)
{
    int k = snprintf(lx->err, lx->err_len, "%s:%d: ", lx->path, line);
    if (k >= 0 && (size_t)k < lx->err_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(lx->err + k, lx->err_len - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int expect(lexer *lx, const char *keyword, const char *where)
{
    if (!next(lx)) return fail(lx, lx->line, "the file ends where '%s' should come (%s)", keyword, where);
    if (!is_word(lx, keyword)) return fail(lx, lx->word_line, "expected '%s', got '%s'", keyword, lx->word);
    return 0;
}

static int number(lexer *lx, double *out, const char *what)
{
    if (!next(lx)) return fail(lx, lx->line, "the file ends where a number should come (%s)", what);
    char *end;
    errno = 0;
    double x = strtod(lx->word, &end);
    if (end == lx->word || *end != '\0')
        return fail(lx, lx->word_line, "expected a number (%s), got '%s'", what, lx->word);
    if (!isfinite(x) || errno == ERANGE)
        return fail(lx, lx->word_line, "the number '%s' (%s) is not finite", lx->word, what);
    *out = x;
    return 0;
}

static int read_ascii(const char *path, const char *text, double **tri, long *n,
                      const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    lexer lx = {.path = path, .p = text, .line = 1, .err = err, .err_len = err_len};
    size_t cap = 1024, count = 0;
    double *t = malloc(9 * cap * sizeof *t);
    if (!t) goto oom;
    int solids = 0;
    while (next(&lx)) {
        if (!is_word(&lx, "solid")) {
            fail(&lx, lx.word_line, "expected 'solid'%s, got '%s'",
                 solids ? " or the end of the file" : " (an ASCII STL starts with it)", lx.word);
            goto out;
        }
        solids++;
        skip_line(&lx);
        for (;;) {
            if (!next(&lx)) {
                fail(&lx, lx.line, "the file ends inside a solid: 'endsolid' is missing (truncated?)");
                goto out;
            }
            if (is_word(&lx, "endsolid")) {
                skip_line(&lx);
                break;
            }
            if (!is_word(&lx, "facet")) {
                fail(&lx, lx.word_line, "expected 'facet' or 'endsolid', got '%s'", lx.word);
                goto out;
            }
            int facet_line = lx.word_line;
            if (count % STOP_EVERY == 0 && stop && *stop) {
                fail(&lx, facet_line, "stopped by a signal");
                goto out;
            }
            double ignored;
            if (expect(&lx, "normal", "facet normal nx ny nz") != 0 ||
                number(&lx, &ignored, "normal x") != 0 || number(&lx, &ignored, "normal y") != 0 ||
                number(&lx, &ignored, "normal z") != 0 ||
                expect(&lx, "outer", "outer loop") != 0 || expect(&lx, "loop", "outer loop") != 0)
                goto out;
            if (count == cap) {
                double *bigger = realloc(t, 2 * 9 * cap * sizeof *t);
                if (!bigger) goto oom;
                t = bigger;
                cap *= 2;
            }
            int vertices = 0;
            for (;;) {
                if (!next(&lx)) {
                    fail(&lx, lx.line, "the file ends inside the facet of line %d (truncated?)",
                         facet_line);
                    goto out;
                }
                if (is_word(&lx, "endloop")) break;
                if (!is_word(&lx, "vertex")) {
                    fail(&lx, lx.word_line, "expected 'vertex' or 'endloop', got '%s'", lx.word);
                    goto out;
                }
                if (vertices == 3) {
                    fail(&lx, lx.word_line, "a facet has three vertices; this is a fourth (facet of line %d)",
                         facet_line);
                    goto out;
                }
                static const char *const what[3] = {"vertex x", "vertex y", "vertex z"};
                for (int a = 0; a < 3; a++)
                    if (number(&lx, &t[9 * count + 3 * vertices + a], what[a]) != 0) goto out;
                vertices++;
            }
            if (vertices != 3) {
                fail(&lx, lx.word_line, "the facet of line %d has %d vert%s; a facet needs three",
                     facet_line, vertices, vertices == 1 ? "ex" : "ices");
                goto out;
            }
            if (expect(&lx, "endfacet", "after endloop") != 0) goto out;
            count++;
        }
    }
    if (count == 0) {
        snprintf(err, err_len, "%s: ASCII STL: the file holds no triangles", path);
        goto out;
    }
    *tri = t;
    *n = (long)count;
    return 0;
oom:
    snprintf(err, err_len, "%s: out of memory", path);
    free(t);
    return FAIL_NO_MEMORY;
out:
    free(t);
    return -1;
}

int stl_read(const char *path, double **tri, long *n, char *err, size_t err_len)
{
    return stl_read_stoppable(path, tri, n, NULL, err, err_len);
}

int stl_read_stoppable(const char *path, double **tri, long *n, const volatile sig_atomic_t *stop,
                       char *err, size_t err_len)
{
    unsigned char *d;
    size_t len;
    *tri = NULL;
    *n = 0;
    int rc = read_all(path, &d, &len, err, err_len);
    if (rc != 0) return rc;
    int sized = len >= 84 && 84 + 50 * (uint64_t)le32(d + 80) == len; /* binary, whatever it holds */
    /* a byte-order mark of UTF-16 or UTF-32 is named; other bytes (a truncated binary
     * file's zero header) go to the binary reader, which says what does not match */
    int marked = len >= 2 && (d[0] == 0xff || d[0] == 0xfe || (len >= 4 && !d[0] && !d[1] &&
                                                               d[2] == 0xfe && d[3] == 0xff));
    const char *encoding = sized || !marked ? NULL : text_encoding_problem((const char *)d, len);
    if (encoding) {
        snprintf(err, err_len, "%s: %s (an ASCII STL) or write a binary STL", path, encoding);
        free(d);
        return -1;
    }
    const char *s = (const char *)d + (sized ? 0 : text_bom_length((const char *)d, len));
    const char *text = s;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    int ascii = !sized && strncmp(s, "solid", 5) == 0 && memchr(d, '\0', len) == NULL;
    rc = ascii ? read_ascii(path, text, tri, n, stop, err, err_len)
                   : read_binary(path, d, len, tri, n, stop, err, err_len);
    free(d);
    return rc;
}
