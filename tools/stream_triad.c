/* stream_triad: the memory bandwidth one core reaches, STREAM's triad a = b + s c
 * (McCalpin), for the roofline account in docs/performance.md ("Where the time goes").
 *
 * Usage: stream_triad [MIB ...]
 * For each total size of the three arrays (MiB; default 0.09 1 8 32 128 512 2048), runs
 * the triad until 0.3 s have passed and at least 5 times, and prints the best run's
 * bandwidth in GB/s (1e9 bytes), counting 24 bytes per element as STREAM does (read b
 * and c, write a; the write-allocate read of a is not counted, so the bus carries up
 * to 4/3 of this). One thread: the bench's single core. Sizes the caches hold show the
 * caches' bandwidth; the largest, the memory's. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* out of line, so that the compiler cannot drop or merge the repeated triads */
__attribute__((noinline)) static void triad(double *restrict a, const double *restrict b,
                                            const double *restrict c, double s, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

static int measure(double mib)
{
    size_t n = (size_t)(mib * 1048576.0 / 24.0);
    if (n < 64) n = 64;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "stream_triad: no memory for %g MiB\n", mib);
        return 1;
    }
    for (size_t i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; } /* pages touched */
    double best = 1e300, spent = 0.0, check = 0.0;
    for (int run = 0; run < 5 || spent < 0.3; run++) {
        double t0 = now();
        triad(a, b, c, 3.0, n);
        double t = now() - t0;
        spent += t;
        check += a[run % n];
        best = t < best ? t : best;
    }
    printf("%10.3f MiB  %8.2f GB/s%s\n", 24.0 * (double)n / 1048576.0, 24.0 * (double)n / best / 1e9,
           check == 0.0 ? " (?)" : "");
    free(a); free(b); free(c);
    return 0;
}

int main(int argc, char **argv)
{
    static const double sizes[] = {0.09, 1, 8, 32, 128, 512, 2048};
    int rc = 0;
    if (argc > 1) {
        for (int k = 1; k < argc; k++) {
            char *end;
            double mib = strtod(argv[k], &end);
            if (*end || !(mib > 0.0 && mib <= 65536.0)) {
                fprintf(stderr, "stream_triad: argument %d: '%s' is not a size in MiB from 0 to 65536\n", k, argv[k]);
                return 2;
            }
            rc |= measure(mib);
        }
        return rc;
    }
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) rc |= measure(sizes[k]);
    return rc;
}
