/* half_oracle.c - binary16 rounding from its definition (half_oracle.h):
 * the two binary16 neighbours of x in its binade, then the nearer. */
#include "half_oracle.h"

#include <math.h>

double half_round(double x)
{
    if (x == 0 || isnan(x) || isinf(x))
        return x;
    const double ax = fabs(x);
    if (ax >= 65520.0)
        return copysign(INFINITY, x);
    int e;
    frexp(ax, &e); /* ax = f * 2^e, f in [0.5, 1): the binade [2^(e-1), 2^e) */
    const double ulp = ldexp(1.0, (e - 1 < -14 ? -14 : e - 1) - 10);
    const double steps = floor(ax / ulp), lo = steps * ulp, hi = lo + ulp;
    const double below = ax - lo, above = hi - ax;
    const double nearest = below < above ? lo : above < below ? hi : fmod(steps, 2.0) == 0 ? lo : hi;
    return copysign(nearest, x);
}

double half_fma(double acc, double a, double b) { return half_round(acc + a * b); }

double half_value(uint16_t h)
{
    const int exponent = h >> 10 & 31, fraction = h & 1023;
    const double magnitude = exponent == 31 ? (fraction ? NAN : INFINITY)
                             : exponent == 0 ? ldexp(fraction, -24)
                                             : ldexp(1024 + fraction, exponent - 25);
    return h & 0x8000 ? -magnitude : magnitude;
}
