/* fft.h - a radix-2 complex FFT in double precision for power-of-two
 * lengths, used by the AudioSpectrogram kernel. A plan holds the twiddle
 * factors and bit-reversal table; transforming never allocates and only
 * reads the plan, so one plan may serve several threads. */
#ifndef TFPI_FFT_H
#define TFPI_FFT_H

#include <stdint.h>

typedef struct tp_fft tp_fft;

/* A plan for length n, a power of two >= 2; NULL if n is not one or memory
 * runs out. */
tp_fft *tp_fft_new(int64_t n);
void tp_fft_free(tp_fft *fft);

/* In place over re[0..n) and im[0..n):
 *   X[k] = sum_j x[j] * exp(-2 pi i j k / n). */
void tp_fft_forward(const tp_fft *fft, double *re, double *im);

/* The smallest power of two >= n (n >= 1 and at most 2^62). */
int64_t tp_next_power_of_two(int64_t n);

#endif
