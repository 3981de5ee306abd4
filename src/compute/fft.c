/* fft.c - iterative radix-2 decimation-in-time FFT: inputs are permuted
 * into bit-reversed order, then log2(n) passes of butterflies combine
 * transforms of length 2, 4, ... n. Twiddles are computed once per plan
 * directly with cos/sin (no recurrence), so errors stay near 1 ulp. */
#include "compute/fft.h"

#include <math.h>
#include <stdlib.h>

struct tp_fft {
    int64_t n;
    int64_t *bit_reversed; /* bit_reversed[i]: index i with its log2(n) bits reversed */
    double *cos_table;     /* cos(2 pi k / n), k < n / 2 */
    double *sin_table;     /* sin(2 pi k / n), k < n / 2 */
};

int64_t tp_next_power_of_two(int64_t n)
{
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

tp_fft *tp_fft_new(int64_t n)
{
    if (n < 2 || (n & (n - 1)) != 0)
        return NULL;
    tp_fft *fft = calloc(1, sizeof *fft);
    if (!fft)
        return NULL;
    fft->n = n;
    fft->bit_reversed = malloc((size_t)n * sizeof *fft->bit_reversed);
    fft->cos_table = malloc((size_t)(n / 2) * sizeof *fft->cos_table);
    fft->sin_table = malloc((size_t)(n / 2) * sizeof *fft->sin_table);
    if (!fft->bit_reversed || !fft->cos_table || !fft->sin_table) {
        tp_fft_free(fft);
        return NULL;
    }
    int bits = 0;
    while (((int64_t)1 << bits) < n)
        bits++;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = 0;
        for (int b = 0; b < bits; b++)
            r |= ((i >> b) & 1) << (bits - 1 - b);
        fft->bit_reversed[i] = r;
    }
    const double pi = acos(-1.0);
    for (int64_t k = 0; k < n / 2; k++) {
        fft->cos_table[k] = cos(2.0 * pi * (double)k / (double)n);
        fft->sin_table[k] = sin(2.0 * pi * (double)k / (double)n);
    }
    return fft;
}

void tp_fft_free(tp_fft *fft)
{
    if (!fft)
        return;
    free(fft->bit_reversed);
    free(fft->cos_table);
    free(fft->sin_table);
    free(fft);
}

void tp_fft_forward(const tp_fft *fft, double *re, double *im)
{
    const int64_t n = fft->n;
    for (int64_t i = 0; i < n; i++) {
        int64_t j = fft->bit_reversed[i];
        if (j > i) {
            double t = re[i];
            re[i] = re[j];
            re[j] = t;
            t = im[i];
            im[i] = im[j];
            im[j] = t;
        }
    }
    for (int64_t half = 1; half < n; half *= 2) {
        const int64_t twiddle_step = n / (2 * half);
        for (int64_t start = 0; start < n; start += 2 * half) {
            for (int64_t k = 0; k < half; k++) {
                /* w = exp(-2 pi i k / (2 half)) */
                const double w_re = fft->cos_table[k * twiddle_step];
                const double w_im = -fft->sin_table[k * twiddle_step];
                const int64_t a = start + k, b = a + half;
                const double t_re = re[b] * w_re - im[b] * w_im;
                const double t_im = re[b] * w_im + im[b] * w_re;
                re[b] = re[a] - t_re;
                im[b] = im[a] - t_im;
                re[a] += t_re;
                im[a] += t_im;
            }
        }
    }
}
