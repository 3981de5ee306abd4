/* checked_math.h - overflow-checked size arithmetic: the one place where
 * element counts, byte sizes, products of dims and blocks, and window and
 * padding geometry are computed from values a model supplies. Checked
 * helpers return false on overflow (or a negative dim); saturating ones
 * clamp to INT64_MAX / INT64_MIN, which no shape accepts, so a size that
 * overflowed is rejected by tp_shape_fits instead of wrapping. */
#ifndef TFPI_CHECKED_MATH_H
#define TFPI_CHECKED_MATH_H

#include <stdbool.h>
#include <stdint.h>

static inline bool tp_checked_mul(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool tp_checked_add(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool tp_checked_sub(int64_t a, int64_t b, int64_t *out) { return !__builtin_sub_overflow(a, b, out); }

static inline int64_t tp_saturate(bool ok, int64_t value, bool negative)
{
    return ok ? value : negative ? INT64_MIN : INT64_MAX;
}

/* a * b, a + b, a - b, clamped to the int64 range. */
static inline int64_t tp_sat_mul(int64_t a, int64_t b)
{
    int64_t r = 0;
    bool ok = tp_checked_mul(a, b, &r);
    return tp_saturate(ok, r, (a < 0) != (b < 0));
}
static inline int64_t tp_sat_add(int64_t a, int64_t b)
{
    int64_t r = 0;
    bool ok = tp_checked_add(a, b, &r);
    return tp_saturate(ok, r, a < 0);
}
static inline int64_t tp_sat_sub(int64_t a, int64_t b)
{
    int64_t r = 0;
    bool ok = tp_checked_sub(a, b, &r);
    return tp_saturate(ok, r, a < 0);
}

/* The product of n non-negative values into *out; false if one is negative
 * or the product overflows int64. The running product is checked, not each
 * value on its own. */
static inline bool tp_checked_product(const int64_t *values, int n, int64_t *out)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        if (values[i] < 0 || !tp_checked_mul(p, values[i], &p))
            return false;
    *out = p;
    return true;
}

#endif
