/* tflite_fixed_point_neon.h - tp_tfl_multiply (tflite_fixed_point.h) by a
 * multiplier whose shift is a right shift (shift <= 0: every multiplier
 * below one) on four int32 lanes with NEON, giving the same integers:
 * sqrdmulh (gemmlowp's saturating rounding doubling high multiply), then
 * the rounding right shift, ties away from zero: negative
 * values less one (where the lane shifts right at all) before srshl's
 * ties-up rounding. sqrdmulh never gives INT32_MIN, so the one less does
 * not wrap. */
#ifndef TFPI_TFLITE_FIXED_POINT_NEON_H
#define TFPI_TFLITE_FIXED_POINT_NEON_H

#if defined(__ARM_NEON)
#include <arm_neon.h>

/* x times the lanes' multipliers whose shifts are right shifts (right =
 * shift <= 0, as a negative count). */
static inline int32x4_t tp_tfl_multiply_right_x4(int32x4_t x, int32x4_t mantissa, int32x4_t right)
{
    x = vqrdmulhq_s32(x, mantissa);
    x = vqaddq_s32(x, vshrq_n_s32(vandq_s32(x, right), 31));
    return vrshlq_s32(x, right);
}
#endif

#endif
