/* Sums of doubles that do not depend on the order of the terms: each term is added
 * exactly, as an integer multiple of 2^-EXACT_SUM_LOW, into a fixed-point number of
 * EXACT_SUM_LIMBS signed 32-bit digits (held in int64_t, so that 2^31 terms add
 * before a digit could overflow), and the total is rounded to a double once, from a
 * normalised form that is unique for each value. Any order of the same terms, split
 * into any number of partial sums merged with exact_sum_merge, gives the same bits.
 * Used with sim_config.reproducible wherever a total's terms come in an order that
 * depends on how the particles are numbered or split over ranks: the walls' loads (they
 * feed back into the motion), the energy books and the observables; the ranks of a
 * split run add their partial sums digit by digit (sim_reduce_exact).
 * Every finite double is within range; a NaN or infinite term makes the total NaN. */
#ifndef DEMPACT_EXACT_SUM_H
#define DEMPACT_EXACT_SUM_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A double is m 2^q with m an integer below 2^53 and q >= -1074: the lowest digit is
 * worth 2^-1152 (36 digits below 1), and 34 digits above 1 hold sums past DBL_MAX. */
#define EXACT_SUM_LOW 1152
#define EXACT_SUM_LIMBS 70

typedef struct exact_sum {
    int64_t digit[EXACT_SUM_LIMBS];
    int bad; /* a NaN or infinite term was added */
} exact_sum;

static inline void exact_sum_clear(exact_sum *s) { memset(s, 0, sizeof *s); }

static inline void exact_sum_add(exact_sum *s, double x)
{
    /* x from its bits: |x| = m 2^(e - 1075), m the 53-bit significand with its leading
     * one (none below the normal range, where e counts as 1) */
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff);
    uint64_t mag = bits & 0xfffffffffffffULL;
    if (e == 0x7ff) { /* infinite or not a number */
        s->bad = 1;
        return;
    }
    if (e == 0) {
        if (mag == 0) return; /* +-0 */
        e = 1;
    } else {
        mag |= 1ULL << 52;
    }
    int bit = e - 1075 + EXACT_SUM_LOW; /* x = +-mag 2^(bit - LOW), bit >= 77 */
    int limb = bit / 32, shift = bit % 32;
    /* mag << shift spans at most 85 bits: three digits */
    uint64_t lo = (mag << shift) & 0xffffffffu;
    uint64_t mid = (shift ? mag >> (32 - shift) : mag >> 32) & 0xffffffffu;
    uint64_t hi = shift ? mag >> (64 - shift) : 0;
    int64_t sign = (bits >> 63) ? -1 : 1;
    s->digit[limb] += sign * (int64_t)lo;
    s->digit[limb + 1] += sign * (int64_t)mid;
    if (limb + 2 < EXACT_SUM_LIMBS) s->digit[limb + 2] += sign * (int64_t)hi;
}

/* Adds b into a (exact: the digits add as integers). */
static inline void exact_sum_merge(exact_sum *a, const exact_sum *b)
{
    for (int k = 0; k < EXACT_SUM_LIMBS; k++) a->digit[k] += b->digit[k];
    a->bad |= b->bad;
}

/* The total, rounded to a double. Normalises the digits first (each in [0, 2^32), the
 * top one signed): one form per value, so the same total gives the same bits. */
static inline void exact_sum_normalise(exact_sum *s)
{
    for (int k = 0; k + 1 < EXACT_SUM_LIMBS; k++) {
        int64_t carry = s->digit[k] >> 32; /* floor division by 2^32 (GCC: arithmetic shift) */
        s->digit[k] -= carry * ((int64_t)1 << 32);
        s->digit[k + 1] += carry;
    }
}

static inline double exact_sum_value(exact_sum *s)
{
    if (s->bad) return NAN;
    exact_sum_normalise(s);
    /* a negative total has digits 2^32 - 1 up to a top one of -1: its magnitude's
     * digits are read instead, so that no partial sum overflows */
    double sign = 1.0;
    if (s->digit[EXACT_SUM_LIMBS - 1] < 0) {
        for (int k = 0; k < EXACT_SUM_LIMBS; k++) s->digit[k] = -s->digit[k];
        exact_sum_normalise(s);
        sign = -1.0;
    }
    double v = 0.0;
    for (int k = EXACT_SUM_LIMBS - 1; k >= 0; k--)
        v += ldexp((double)s->digit[k], 32 * k - EXACT_SUM_LOW);
    return sign * v;
}

/* A running sum, plain (the terms added in their order) or exact (an exact_sum: the
 * same bits in any order), chosen when it is opened. */
typedef struct tally {
    int exact;
    double plain;
    exact_sum sum;
} tally;

static inline void tally_open(tally *t, int exact)
{
    t->exact = exact;
    t->plain = 0.0;
    if (exact) exact_sum_clear(&t->sum);
}

static inline void tally_add(tally *t, double x)
{
    if (t->exact) exact_sum_add(&t->sum, x);
    else t->plain += x;
}

static inline double tally_total(tally *t) { return t->exact ? exact_sum_value(&t->sum) : t->plain; }

/* An exact tally's terms from every rank of a split run (sim_reduce_exact; a plain one
 * stays this rank's). */
#define sim_reduce_tally(s, t)                                          \
    do {                                                                \
        if ((t)->exact) sim_reduce_exact((s), &(t)->sum, 1);            \
    } while (0)

#endif
