/* tap_source.h - GEMM rows made of taps for the GEMM tests: row (i, tap t)
 * reads row (3 * i + t) mod TAP_SOURCE_ROWS of a source matrix, as a
 * convolution reads shifted input pixels; the same rows written out as a
 * plain matrix for the reference product. */
#ifndef TFPI_TAP_SOURCE_H
#define TFPI_TAP_SOURCE_H

#include <stdint.h>

#define TAP_SOURCE_ROWS 11

typedef struct tap_source {
    const float *data; /* TAP_SOURCE_ROWS x depth */
    int64_t depth;
} tap_source;

/* The tp_gemm row callback (arg: a tap_source). */
void tap_source_rows(const void *arg, int64_t row, int rows, int64_t tap, int taps, const float **ptrs);

/* The m x (taps * depth) matrix those rows make (malloc'd, free it). */
float *tap_source_matrix(const tap_source *s, int64_t m, int64_t taps);

#endif
