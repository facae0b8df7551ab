#include "particle_csv.h"
#include "engine/fail.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_encoding.h"

enum { COL_X, COL_Y, COL_Z, COL_RADIUS, COL_VX, COL_VY, COL_VZ, COL_WX, COL_WY, COL_WZ,
       N_COLUMNS };

static const char *const column_names[N_COLUMNS] = {"x",  "y",  "z",  "radius", "vx",
                                                    "vy", "vz", "wx", "wy",     "wz"};

#define COLUMN_LIST "x, y, z, radius and optionally vx, vy, vz and wx, wy, wz"

/* The parts of a line: fields separated by commas, each trimmed. */
typedef struct csv_fields {
    const char *start[N_COLUMNS];
    size_t len[N_COLUMNS];
    int n; /* fields found (may exceed N_COLUMNS: only the first N_COLUMNS are kept) */
} csv_fields;

typedef struct csv_reader {
    const char *path;
    char *text;
    size_t len, pos;
    int line; /* of the line last returned */
    int column_of_field[N_COLUMNS]; /* which quantity each field holds */
    int n_fields;
    bool has_velocity, has_spin;
    long n, cap;
    double *position, *radius, *velocity, *spin;
    const volatile sig_atomic_t *stop;
    char *err;
    size_t err_len;
} csv_reader;

static int fail(csv_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(r->err, r->err_len, "%s:%d: ", r->path, r->line);
    if (k >= 0 && (size_t)k < r->err_len)
        vsnprintf(r->err + k, r->err_len - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static int read_whole_file(csv_reader *r)
{
    FILE *f = fopen(r->path, "rb");
    if (!f) {
        snprintf(r->err, r->err_len, "%s: cannot open: %s", r->path, strerror(errno));
        return PARTICLE_CSV_UNREADABLE;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - len, f);
        if (len < cap) break;
        char *bigger = realloc(text, cap *= 2);
        if (!bigger) free(text);
        text = bigger;
    }
    const char *problem = !text ? "out of memory" : ferror(f) ? strerror(errno) : NULL;
    fclose(f);
    if (problem) {
        snprintf(r->err, r->err_len, "%s: cannot read: %s", r->path, problem);
        int rc = !text ? FAIL_NO_MEMORY : PARTICLE_CSV_UNREADABLE;
        free(text);
        return rc;
    }
    r->text = text;
    r->len = len;
    const char *encoding = text_encoding_problem(text, len);
    if (encoding) {
        snprintf(r->err, r->err_len, "%s: %s", r->path, encoding);
        return -1;
    }
    r->pos = text_bom_length(text, len); /* a UTF-8 byte-order mark is skipped */
    return 0;
}

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next line that is neither blank nor a '#' comment, split into fields; false at
 * the end of the file. */
static bool next_line(csv_reader *r, csv_fields *out)
{
    while (r->pos < r->len) {
        const char *s = r->text + r->pos;
        const char *nl = memchr(s, '\n', r->len - r->pos);
        size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
        r->pos += n + (nl != NULL);
        r->line++;
        if (memchr(s, '\0', n)) {
            out->n = -1; /* read_header and read_row name it */
            return true;
        }
        size_t first = 0;
        while (first < n && is_blank(s[first])) first++;
        if (first == n || s[first] == '#') continue;
        out->n = 0;
        for (size_t a = 0; a <= n;) {
            size_t b = a;
            while (b < n && s[b] != ',') b++;
            size_t lo = a, hi = b;
            while (lo < hi && is_blank(s[lo])) lo++;
            while (hi > lo && is_blank(s[hi - 1])) hi--;
            if (out->n < N_COLUMNS) {
                out->start[out->n] = s + lo;
                out->len[out->n] = hi - lo;
            }
            out->n++;
            a = b + 1;
        }
        return true;
    }
    return false;
}

static int column_named(const char *s, size_t len)
{
    for (int c = 0; c < N_COLUMNS; c++)
        if (strlen(column_names[c]) == len && memcmp(column_names[c], s, len) == 0) return c;
    return -1;
}

static int read_header(csv_reader *r)
{
    csv_fields h;
    if (!next_line(r, &h)) {
        r->line = r->line ? r->line : 1;
        return fail(r, "no header line: expected column names such as 'x,y,z,radius'");
    }
    if (h.n < 0) return fail(r, "the line holds a NUL byte: the file is not text (or UTF-16: save "
                             "it as UTF-8)");
    int seen[N_COLUMNS] = {0};
    for (int k = 0; k < h.n; k++) {
        if (k >= N_COLUMNS)
            return fail(r, "too many columns (%d): the columns are " COLUMN_LIST, h.n);
        if (h.len[k] == 0)
            return fail(r, "empty column name in field %d of the header", k + 1);
        int c = column_named(h.start[k], h.len[k]);
        if (c < 0)
            return fail(r, "unknown column '%.*s': the columns are " COLUMN_LIST, (int)h.len[k],
                        h.start[k]);
        if (seen[c]++) return fail(r, "column '%s' appears twice", column_names[c]);
        r->column_of_field[k] = c;
    }
    for (int c = COL_X; c <= COL_RADIUS; c++)
        if (!seen[c]) return fail(r, "missing column '%s' in the header", column_names[c]);
    int n_velocity = seen[COL_VX] + seen[COL_VY] + seen[COL_VZ];
    if (n_velocity != 0 && n_velocity != 3)
        return fail(r, "velocity columns must be all of vx, vy, vz or none");
    int n_spin = seen[COL_WX] + seen[COL_WY] + seen[COL_WZ];
    if (n_spin != 0 && n_spin != 3)
        return fail(r, "angular velocity columns must be all of wx, wy, wz or none");
    r->n_fields = h.n;
    r->has_velocity = n_velocity == 3;
    r->has_spin = n_spin == 3;
    return 0;
}

static int grow(csv_reader *r)
{
    long cap = r->cap ? 2 * r->cap : 1024;
    double *p = realloc(r->position, 3 * (size_t)cap * sizeof *p);
    if (p) r->position = p;
    double *rad = p ? realloc(r->radius, (size_t)cap * sizeof *rad) : NULL;
    if (rad) r->radius = rad;
    double *v = NULL, *w = NULL;
    if (rad && r->has_velocity) {
        v = realloc(r->velocity, 3 * (size_t)cap * sizeof *v);
        if (v) r->velocity = v;
    }
    if (rad && (v || !r->has_velocity) && r->has_spin) {
        w = realloc(r->spin, 3 * (size_t)cap * sizeof *w);
        if (w) r->spin = w;
    }
    if (!p || !rad || (r->has_velocity && !v) || (r->has_spin && !w)) {
        fail(r, "out of memory");
        return FAIL_NO_MEMORY;
    }
    r->cap = cap;
    return 0;
}

static int parse_field(csv_reader *r, const char *s, size_t len, int column, double *out)
{
    char buf[64];
    const char *name = column_names[column];
    if (len == 0) return fail(r, "column '%s': missing value", name);
    if (len >= sizeof buf) return fail(r, "column '%s': '%.20s...' is not a number", name, s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (strlen(buf) != len) return fail(r, "column '%s': the value holds a NUL byte", name);
    if (end != buf + len)
        return fail(r, "column '%s': '%s' is not a number", name, buf);
    if (!isfinite(v) || errno == ERANGE)
        return fail(r, "column '%s': %s is not a finite number", name, buf);
    *out = v;
    return 0;
}

static int read_row(csv_reader *r, const csv_fields *f)
{
    if (f->n < 0) return fail(r, "the line holds a NUL byte: the file is not text");
    if ((r->n & 4095) == 0 && r->stop && *r->stop) return fail(r, "stopped by a signal");
    if (f->n != r->n_fields)
        return fail(r, "expected %d fields as in the header, found %d", r->n_fields, f->n);
    int rc = r->n == r->cap ? grow(r) : 0;
    if (rc != 0) return rc;
    double value[N_COLUMNS];
    for (int k = 0; k < f->n; k++)
        if (parse_field(r, f->start[k], f->len[k], r->column_of_field[k],
                        &value[r->column_of_field[k]]) != 0)
            return -1;
    if (value[COL_RADIUS] <= 0.0)
        return fail(r, "radius = %g must be > 0", value[COL_RADIUS]);
    long i = r->n++;
    for (int d = 0; d < 3; d++) {
        r->position[3 * i + d] = value[COL_X + d];
        if (r->has_velocity) r->velocity[3 * i + d] = value[COL_VX + d];
        if (r->has_spin) r->spin[3 * i + d] = value[COL_WX + d];
    }
    r->radius[i] = value[COL_RADIUS];
    return 0;
}

static int read_rows(csv_reader *r)
{
    int header_line = r->line, rc;
    csv_fields f;
    while (next_line(r, &f))
        if ((rc = read_row(r, &f)) != 0) return rc;
    if (r->n == 0) {
        r->line = header_line;
        return fail(r, "no particles after the header");
    }
    return 0;
}

int particle_csv_read(const char *path, particle_source *src, char *err, size_t err_len)
{
    return particle_csv_read_stoppable(path, src, NULL, err, err_len);
}

int particle_csv_read_stoppable(const char *path, particle_source *src,
                                const volatile sig_atomic_t *stop, char *err, size_t err_len)
{
    csv_reader r = {.path = path, .stop = stop, .err = err, .err_len = err_len};
    src->list_position = src->list_velocity = src->list_radius = NULL;
    src->list_angular_velocity = NULL;
    src->n_list = 0;
    int rc = read_whole_file(&r);
    if (rc == 0) rc = read_header(&r);
    if (rc == 0) rc = read_rows(&r);
    free(r.text);
    if (rc != 0) {
        free(r.position);
        free(r.radius);
        free(r.velocity);
        free(r.spin);
        return rc;
    }
    src->kind = SOURCE_LIST;
    src->n_list = r.n;
    src->list_position = r.position;
    src->list_radius = r.radius;
    src->list_velocity = r.velocity;
    src->list_angular_velocity = r.spin;
    return 0;
}
