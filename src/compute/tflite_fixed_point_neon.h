/* tflite_fixed_point_neon.h - tp_tfl_multiply (tflite_fixed_point.h) by a
 * multiplier whose shift is a right shift of at least 1 (every multiplier
 * below 1/2) on four int32 lanes with NEON, giving the same integers:
 * sqrdmulh (gemmlowp's saturating rounding doubling high multiply, ties
 * toward +infinity), then the rounding right shift, ties away from zero:
 * negative values less one (ssra of the sign) before srshl's ties-up
 * rounding. sqrdmulh never gives INT32_MIN, so the one less does not wrap;
 * -1 still rounds to 0 under a right shift of at least 1. */
#ifndef TFPI_TFLITE_FIXED_POINT_NEON_H
#define TFPI_TFLITE_FIXED_POINT_NEON_H

#if defined(__ARM_NEON)
#include <arm_neon.h>

/* x times the lanes' multipliers (right: their shifts, each <= -1). */
static inline __attribute__((always_inline)) int32x4_t tp_tfl_multiply_right_x4(int32x4_t x, int32x4_t mantissa,
                                                                                int32x4_t right)
{
    x = vqrdmulhq_s32(x, mantissa);
    return vrshlq_s32(vsraq_n_s32(x, x, 31), right);
}
#endif

#endif
