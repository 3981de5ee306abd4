/* wrapping_int.h - integer arithmetic that wraps around on overflow, as
 * TensorFlow's int32/int64 kernels do, without C's undefined behaviour:
 * the arithmetic is done in uint64 and narrowed back. int32 callers narrow
 * the int64 result on store, which keeps the low 32 bits. */
#ifndef TFPI_WRAPPING_INT_H
#define TFPI_WRAPPING_INT_H

#include <stdint.h>

static inline int64_t tp_wrap_add(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static inline int64_t tp_wrap_sub(int64_t x, int64_t y) { return (int64_t)((uint64_t)x - (uint64_t)y); }
static inline int64_t tp_wrap_mul(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

#endif
