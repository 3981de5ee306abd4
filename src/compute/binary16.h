/* binary16.h - IEEE 754 binary16 ("half precision") in portable C: the
 * conversions from and to fp32 and the fused multiply-add, each value bit
 * for bit what armv8.2-a's FP16 instructions give under Linux's default
 * FPCR (round to nearest, ties to even, on every conversion and every
 * multiply-add; subnormals kept, not flushed; overflow to infinity). NaNs
 * stay NaNs but their payloads are not reproduced.
 *
 * The fp16 path's portable kernels (gemm_fp16_portable.c) compute on it, so
 * a session of precision fp16 gives the same numbers on any CPU, slowly:
 * the tests check the fp16 arithmetic on x86 that way and compare the
 * hardware kernels with it under qemu.
 *
 * Every binary16 value, and every product of two, is exact in a double; a
 * product plus a binary16 value may not be, so the sum is taken as a
 * double and its rounding error (TwoSum, exact): the error matters only
 * where the double falls exactly halfway between two binary16 values, and
 * there its sign says which way the exact sum lies. All inline: the
 * portable kernels run one multiply-add per step of k. */
#ifndef TFPI_BINARY16_H
#define TFPI_BINARY16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

enum { TP_HALF_INFINITY = 0x7c00, TP_HALF_QUIET_NAN = 0x7e00 };

/* The exact value x + below rounded to binary16 (its pattern), where below
 * is the part of it the double x could not hold (|below| at most half of
 * x's last place; 0 where x is exact). */
static inline uint16_t tp_half_rounded(double x, double below)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint16_t sign = (uint16_t)(bits >> 48 & 0x8000);
    if (isnan(x))
        return sign | TP_HALF_QUIET_NAN;
    if (sign)
        below = -below; /* from here on the magnitude is rounded */
    bits &= ~(1ull << 63);
    const int exponent = (int)(bits >> 52) - 1023;
    if (exponent >= 16) /* 2^16 and more (infinity too): past 65504 + half its last place */
        return sign | TP_HALF_INFINITY;
    if (x == 0 || exponent < -26) /* below a quarter of the smallest subnormal, 2^-24 */
        return sign;
    /* The significand with its leading one (53 bits, value m *
     * 2^(exponent - 52)), less the bits below binary16's last place:
     * 2^(exponent - 10) for normal numbers, 2^-24 for subnormal ones. */
    const uint64_t m = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    const int drop = 42 + (exponent < -14 ? -14 - exponent : 0);
    uint64_t q = m >> drop;
    const uint64_t rest = m & ((1ull << drop) - 1), halfway = 1ull << (drop - 1);
    /* (without branches: which way a value rounds is as good as random) */
    q += (uint64_t)((rest > halfway) | ((rest == halfway) & ((below > 0) | ((below == 0) & (int)(q & 1)))));
    /* Normal: q in [1024, 2048], the exponent's field above the 10 bits of
     * fraction (q = 2048 carries into it); subnormal: q is the fraction, and
     * q = 1024 is the smallest normal number's pattern. */
    const uint32_t half = exponent < -14 ? (uint32_t)q : (uint32_t)(exponent + 15 - 1) * 1024u + (uint32_t)q;
    return sign | (uint16_t)(half >= TP_HALF_INFINITY ? TP_HALF_INFINITY : half);
}

/* x rounded to the nearest binary16 (ties to even). */
static inline uint16_t tp_half_from_float(float x) { return tp_half_rounded((double)x, 0.0); }

/* The binary16 value h as an fp32 (exact). */
static inline float tp_half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = h >> 10 & 0x1f, fraction = h & 0x3ff;
    uint32_t bits;
    if (exponent == 0) {
        const float value = (float)fraction * 0x1p-24f; /* zero or subnormal: exact */
        return sign ? -value : value;
    }
    if (exponent == 31)
        bits = sign | 0x7f800000u | fraction << 13;
    else
        bits = sign | (exponent + 112) << 23 | fraction << 13;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* acc + a * b rounded once to binary16, as `fmla` of half-precision vectors
 * computes it; acc, a and b are binary16 values held in floats, and so is
 * the result. */
static inline float tp_half_fma(float acc, float a, float b)
{
    const double c = acc, p = (double)a * b; /* exact */
    const double s = c + p, p_part = s - c, below = (c - (s - p_part)) + (p - p_part);
    return tp_half_to_float(tp_half_rounded(s, isfinite(s) ? below : 0.0));
}

#endif
