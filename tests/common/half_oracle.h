/* half_oracle.h - binary16 rounding computed from its definition, for the
 * fp16 tests: written independently of src/compute/binary16.h (the
 * library's emulation, on which its portable fp16 kernels compute), so that
 * a fault there or in a hardware kernel (truncating instead of rounding,
 * ties the wrong way, a sum rounded twice) shows as a difference. */
#ifndef TFPI_HALF_ORACLE_H
#define TFPI_HALF_ORACLE_H

#include <stdint.h>

/* The binary16 value nearest x (of two equally near, the one whose last
 * fraction bit is 0), as a double; +-infinity from 65520 on. */
double half_round(double x);

/* half_round(acc + a * b) for a sum a double holds exactly (the caller
 * keeps its operands in such a range). */
double half_fma(double acc, double a, double b);

/* The value of the binary16 pattern h, decoded field by field. */
double half_value(uint16_t h);

#endif
