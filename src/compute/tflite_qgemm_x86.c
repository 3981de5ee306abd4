/* tflite_qgemm_x86.c - the x86 micro-kernel of the 8-bit GEMM
 * (tflite_qgemm.h): AVX2, compiled for it whatever the build's flags and
 * run only where the CPU reports it (__builtin_cpu_supports). Tiles of 2
 * rows x 4 columns: per 16 depth, each row and column widened to 16 bits
 * (sign- or zero-extended by the type), vpmaddwd adds product pairs into
 * 32 bits exactly (vpmaddubsw would saturate), eight accumulators of eight
 * partial sums; then the sums and the scalar epilogue every plain tile
 * shares (tp_tfl_qtile_finish). */
#include "compute/tflite_qgemm_kernel.h"

#include <stddef.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i widen(const uint8_t *p, bool is_int8)
{
    const __m128i v = _mm_loadu_si128((const __m128i *)p);
    return is_int8 ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
}

/* The eight lanes of x added. */
AVX2 static inline int32_t sum8(__m256i x)
{
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
    return _mm_cvtsi128_si32(s);
}

AVX2 static inline void panel_avx2(const tp_tfl_qpanel *p, bool is_int8)
{
    for (int64_t r0 = 0; r0 < p->rows; r0 += 2) {
        const int rows = p->rows - r0 < 2 ? (int)(p->rows - r0) : 2;
        const uint8_t *a0 = p->a + r0 * p->lda, *a1 = p->a + (r0 + rows - 1) * p->lda;
        __m256i acc[2][4];
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < 4; j++)
                acc[r][j] = _mm256_setzero_si256();
        const uint8_t *panel = p->panel;
        for (int64_t blk = 0; blk < p->blocks; blk++, panel += 64) {
            const __m256i x0 = widen(a0 + 16 * blk, is_int8), x1 = widen(a1 + 16 * blk, is_int8);
            for (int j = 0; j < 4; j++) {
                const __m256i w = widen(panel + 16 * j, is_int8);
                acc[0][j] = _mm256_add_epi32(acc[0][j], _mm256_madd_epi16(x0, w));
                acc[1][j] = _mm256_add_epi32(acc[1][j], _mm256_madd_epi16(x1, w));
            }
        }
        uint32_t raw[2][4];
        for (int r = 0; r < 2; r++)
            for (int j = 0; j < 4; j++)
                raw[r][j] = (uint32_t)sum8(acc[r][j]);
        tp_tfl_qtile_finish(p, r0, rows, &raw[0][0]);
    }
}

AVX2 static void panel_avx2_int8(const tp_tfl_qpanel *p) { panel_avx2(p, true); }
AVX2 static void panel_avx2_uint8(const tp_tfl_qpanel *p) { panel_avx2(p, false); }

static bool has_avx2(void) { return __builtin_cpu_supports("avx2"); }

static const tp_tfl_qgemm_kernel avx2_int8 = {"avx2 int8", 2, 4, 16, true, false, panel_avx2_int8, has_avx2, false};
static const tp_tfl_qgemm_kernel avx2_uint8 = {"avx2 uint8", 2, 4, 16, false, false, panel_avx2_uint8, has_avx2,
                                               false};

const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_x86_kernels[] = {&avx2_int8, &avx2_uint8, NULL};
#else
const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_x86_kernels[] = {NULL};
#endif
