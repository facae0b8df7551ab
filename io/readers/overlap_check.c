#include "overlap_check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A cell's coordinates, clamped so that any finite position has one. */
static int64_t cell_of(double x, double origin, double size)
{
    double c = floor((x - origin) / size);
    if (!(c > -4e18)) return (int64_t)-4e18;
    if (!(c < 4e18)) return (int64_t)4e18;
    return (int64_t)c;
}

static uint64_t hash3(int64_t a, int64_t b, int64_t c)
{
    uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)b * 0xc2b2ae3d27d4eb4full + (h << 6) + (h >> 2);
    h ^= (uint64_t)c * 0x165667b19e3779f9ull + (h << 6) + (h >> 2);
    return h ^ (h >> 29);
}

int overlap_check(const double *x, const double *r, size_t n, double fraction,
                  const volatile sig_atomic_t *stop, overlap_found *out)
{
    if (n < 2) return 0;
    double r_max = 0.0, origin[3] = {x[0], x[1], x[2]};
    for (size_t i = 0; i < n; i++) r_max = fmax(r_max, r[i]);
    double size = 2.0 * r_max;
    if (!(size > 0.0) || !isfinite(size)) return 0;
    size_t buckets = 1;
    while (buckets < 2 * n) buckets <<= 1;
    size_t *head = malloc(buckets * sizeof *head), *next = malloc(n * sizeof *next);
    int64_t (*cell)[3] = malloc(n * sizeof *cell);
    int rc = -1;
    if (!head || !next || !cell) goto done;
    for (size_t b = 0; b < buckets; b++) head[b] = SIZE_MAX;
    rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if ((i & 4095) == 0 && stop && *stop) { rc = -2; break; }
        for (int a = 0; a < 3; a++) cell[i][a] = cell_of(x[3 * i + a], origin[a], size);
        for (int dz = -1; dz <= 1 && rc == 0; dz++)
            for (int dy = -1; dy <= 1 && rc == 0; dy++)
                for (int dx = -1; dx <= 1 && rc == 0; dx++) {
                    int64_t c[3] = {cell[i][0] + dx, cell[i][1] + dy, cell[i][2] + dz};
                    size_t b = hash3(c[0], c[1], c[2]) & (buckets - 1);
                    for (size_t j = head[b]; j != SIZE_MAX; j = next[j]) {
                        if (cell[j][0] != c[0] || cell[j][1] != c[1] || cell[j][2] != c[2])
                            continue;
                        double ex = x[3 * j] - x[3 * i], ey = x[3 * j + 1] - x[3 * i + 1],
                               ez = x[3 * j + 2] - x[3 * i + 2];
                        double d = r[i] + r[j] - sqrt(ex * ex + ey * ey + ez * ez);
                        double smaller = fmin(r[i], r[j]);
                        if (!(d > fraction * smaller)) continue;
                        *out = (overlap_found){.first = j, .second = i, .overlap = d,
                                               .fraction = d / smaller};
                        rc = 1;
                        break;
                    }
                }
        size_t b = hash3(cell[i][0], cell[i][1], cell[i][2]) & (buckets - 1);
        next[i] = head[b];
        head[b] = i;
    }
done:
    free(head);
    free(next);
    free(cell);
    return rc;
}
