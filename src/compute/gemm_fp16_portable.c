/* gemm_fp16_portable.c - the half-precision GEMM in portable C
 * (gemm_fp16.h): the same arithmetic as the aarch64 kernel of gemm_fp16.c,
 * value for value, on binary16.h's emulation. A is rounded to binary16
 * (to nearest) as each row tile is packed, B is in the same binary16 panels,
 * each of the tile's values is summed over the block of k by one rounded
 * multiply-add per step, in k's order, from zero; then, in fp32, what C
 * holds is added (a block after the first) and the epilogue applied as
 * x * scale, + bias, clamp, each rounded. A session computes on it where
 * precision fp16 is emulated (tp_cpu_emulate_fp16: the tests, on CPUs
 * without fp16 arithmetic); it is many times slower than the fp32 kernels. */
#include "compute/binary16.h"
#include "compute/gemm_fp16.h"

enum { MR = TP_GEMM_MR, NR = TP_GEMM_FP16_NR };

/* A's block rounded to binary16 (the values, held in floats), step by
 * step: for each k (tap-major over the block), the tile's MR rows. */
static void pack_steps(const float *const *ptrs, int taps, int64_t d0, int64_t depth, float *dst)
{
    for (int t = 0; t < taps; t++)
        for (int64_t d = d0; d < d0 + depth; d++, dst += MR)
            for (int r = 0; r < MR; r++)
                dst[r] = tp_half_to_float(tp_half_from_float(ptrs[t * MR + r][d]));
}

static void tile(const tp_gemm_tile *t)
{
    const float *a = t->a_packed;
    const uint16_t *b = (const uint16_t *)(const void *)t->b;
    const int64_t k = t->taps * t->depth;
    float acc[MR][NR] = {{0}};
    for (int64_t i = 0; i < k; i++, a += MR, b += NR) {
        float b_row[NR];
        for (int c = 0; c < t->cols; c++)
            b_row[c] = tp_half_to_float(b[c]);
        for (int r = 0; r < t->rows; r++)
            for (int c = 0; c < t->cols; c++)
                acc[r][c] = tp_half_fma(acc[r][c], a[r], b_row[c]);
    }
    for (int r = 0; r < t->rows; r++) {
        float *out = t->c + r * t->ldc;
        for (int c = 0; c < t->cols; c++) {
            float x = acc[r][c];
            if (t->accumulate)
                x += out[c];
            if (t->finish) {
                x *= t->scale ? t->scale[c] : 1.0f;
                x += t->bias ? t->bias[c] : 0.0f;
                x = x < t->min ? t->min : x > t->max ? t->max : x;
            }
            out[c] = x;
        }
    }
}

const tp_gemm_kernels tp_gemm_kernels_fp16_portable = {"fp16 portable", tile, pack_steps, NR, NULL};

void tp_gemm_fp16_pack_panels_portable(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels)
{
    for (int64_t col0 = 0; col0 < n; col0 += NR) {
        const int64_t cols = n - col0 < NR ? n - col0 : NR;
        for (int64_t row = 0; row < k; row++, panels += NR)
            for (int64_t c = 0; c < NR; c++)
                panels[c] = c < cols ? tp_half_from_float(b[row * ldb + col0 + c]) : 0;
    }
}
