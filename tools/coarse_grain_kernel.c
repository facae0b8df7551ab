/* The coarse-graining kernels, at a point and integrated along a segment, in closed form
 * (no quadrature), so that the contact stress's divergence is the contact forces' density
 * to rounding: the momentum balance holds exactly for any width.
 *
 * Gaussian of standard deviation w, cut off at c = 3w and renormalised:
 *   3D  W(r) = n3 exp(-r^2 / 2w^2),  1/n3 = (2 pi w^2)^(3/2) [erf(3/sqrt2) - sqrt(2/pi) 3 e^(-9/2)]
 *   1D  W(z) = n1 exp(-z^2 / 2w^2),  1/n1 = sqrt(2 pi) w erf(3/sqrt2)
 * Lucy (Lucy 1977), radius c = 3w (its standard deviation along an axis is 0.31 c = 0.93 w):
 *   3D  W(r) = 105/(16 pi c^3) (1 - 6u^2 + 8u^3 - 3u^4),  u = r/c < 1
 *   1D  W(z) = 5/(4c) (the same polynomial of |z|/c)
 * Along a segment x0 + s l (s in [0, 1]), r^2 = p^2 + t^2 with t = |l| (s - s0) the
 * distance along the line from the foot of the perpendicular and p the distance to the
 * line: the part of the segment inside the cutoff ball is an interval of t, over which
 * the Gaussian integrates to erf and Lucy's polynomial to powers of t, sqrt and asinh. */
#include "coarse_grain.h"

#include <math.h>

static const double SQRT2 = 1.41421356237309504880;
static const double PI = 3.14159265358979323846;

void cg_kernel_init(cg_kernel *k, cg_kind kind, double w)
{
    k->kind = kind;
    k->w = w;
    k->c = 3.0 * w;
    if (kind == CG_GAUSS) {
        double a = k->c / (SQRT2 * w);
        double i3 = pow(2.0 * PI * w * w, 1.5) * (erf(a) - sqrt(2.0 / PI) * (k->c / w) * exp(-a * a));
        k->n3 = 1.0 / i3;
        k->n1 = 1.0 / (sqrt(2.0 * PI) * w * erf(a));
    } else {
        k->n3 = 105.0 / (16.0 * PI * k->c * k->c * k->c);
        k->n1 = 5.0 / (4.0 * k->c);
    }
}

static double lucy_poly(double u) /* u in [0, 1] */
{
    double u2 = u * u;
    return 1.0 - 6.0 * u2 + 8.0 * u2 * u - 3.0 * u2 * u2;
}

double cg_w3(const cg_kernel *k, const double d[3])
{
    double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if (r2 >= k->c * k->c) return 0.0;
    if (k->kind == CG_GAUSS) return k->n3 * exp(-r2 / (2.0 * k->w * k->w));
    return k->n3 * lucy_poly(sqrt(r2) / k->c);
}

double cg_w1(const cg_kernel *k, double z)
{
    double a = fabs(z);
    if (a >= k->c) return 0.0;
    if (k->kind == CG_GAUSS) return k->n1 * exp(-z * z / (2.0 * k->w * k->w));
    return k->n1 * lucy_poly(a / k->c);
}

/* The 1D kernel's integral from -infinity to z. */
static double cdf1(const cg_kernel *k, double z)
{
    if (z <= -k->c) return 0.0;
    if (z >= k->c) return 1.0;
    if (k->kind == CG_GAUSS) {
        double s = k->w * SQRT2;
        return 0.5 + 0.5 * erf(z / s) / erf(k->c / s);
    }
    double u = fabs(z) / k->c, u2 = u * u;
    double g = 1.25 * (u - 2.0 * u2 * u + 2.0 * u2 * u2 - 0.6 * u2 * u2 * u); /* int_0^u, 0.5 at 1 */
    return z < 0 ? 0.5 - g : 0.5 + g;
}

double cg_line1(const cg_kernel *k, double z, double lz)
{
    /* int_0^1 W(z - s lz) ds = (F(z) - F(z - lz)) / lz */
    if (fabs(lz) < 1e-9 * k->c) return cg_w1(k, z - 0.5 * lz);
    return (cdf1(k, z) - cdf1(k, z - lz)) / lz;
}

/* Lucy's polynomial times n3 integrated over t in the line at distance p: antiderivative. */
static double lucy_line(const cg_kernel *k, double p, double t)
{
    double c = k->c, p2 = p * p, t2 = t * t;
    double r = sqrt(p2 + t2);
    double i0 = t;
    double i2 = p2 * t + t2 * t / 3.0;
    double i4 = p2 * p2 * t + 2.0 / 3.0 * p2 * t2 * t + t2 * t2 * t / 5.0;
    double i3 = t / 8.0 * (2.0 * t2 + 5.0 * p2) * r + (p > 0.0 ? 3.0 / 8.0 * p2 * p2 * asinh(t / p) : 0.0);
    return k->n3 * (i0 - 6.0 * i2 / (c * c) + 8.0 * i3 / (c * c * c) - 3.0 * i4 / (c * c * c * c));
}

double cg_line3(const cg_kernel *k, const double d[3], const double l[3])
{
    double ll = l[0] * l[0] + l[1] * l[1] + l[2] * l[2];
    double L = sqrt(ll);
    if (L < 1e-9 * k->c) {
        double mid[3] = {d[0] - 0.5 * l[0], d[1] - 0.5 * l[1], d[2] - 0.5 * l[2]};
        return cg_w3(k, mid);
    }
    double dl = d[0] * l[0] + d[1] * l[1] + d[2] * l[2];
    double s0 = dl / ll;
    double p2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] - dl * s0;
    if (p2 < 0.0) p2 = 0.0;
    double c2 = k->c * k->c;
    if (p2 >= c2) return 0.0;
    double half = sqrt(c2 - p2); /* the chord's half length */
    double ta = fmax(-s0 * L, -half), tb = fmin((1.0 - s0) * L, half);
    if (tb <= ta) return 0.0;
    if (k->kind == CG_GAUSS) {
        double s = SQRT2 * k->w;
        return k->n3 * exp(-p2 / (2.0 * k->w * k->w)) * (sqrt(PI) / 2.0) * s * (erf(tb / s) - erf(ta / s)) / L;
    }
    double p = sqrt(p2);
    return (lucy_line(k, p, tb) - lucy_line(k, p, ta)) / L;
}
