/* gemm_fp16.c - the aarch64 half-precision GEMM micro-kernel (gemm_fp16.h):
 * an 8 x 16 tile of C in 16 vector registers of eight binary16 values
 * (v16-v31: row r in v(16 + 2r), columns 0-7, and v(17 + 2r), 8-15), the
 * same shape of loop as the fp32 kernel of gemm_neon64.c with twice the
 * lanes. Four steps of k at a time: A packed in "quads" (for every 4 of k,
 * each of the 8 rows' 4 values: two rows per vector, v0-v3, 64 bytes) and B's
 * 4 rows of 16 (v8-v15), then 64 multiply-adds by a lane of A (fmla v.8h,
 * v.8h, v.h[lane]; lane-indexed binary16 operands must be in v0-v15). The
 * last k % 4 steps go one at a time (A: 8 rows in one vector, lane r).
 * Cortex-A76 runs the loop at its bound, two 8-lane multiply-adds per cycle
 * (32 cycles per 64 in llvm-mca's Neoverse N1 model).
 *
 * The epilogue runs in fp32: each row's accumulators widened to four fp32
 * vectors (fcvtl), what C holds added (a block of k after the first), then
 * x * scale + bias and the clamp, as the fp32 kernels do; one of four
 * unrolled variants (with or without C added, with or without the rest) so
 * that no row branches.
 *
 * A is converted from fp32 as it is packed (pack_quads_fp16), once per row
 * tile and block of k, and used by every column panel of the task.
 *
 * This file is built with -march=armv8.2-a+fp16 (Makefile): nothing in it
 * may run unless the session found the CPU has fp16 arithmetic. */
#include "compute/gemm_fp16.h"

#if defined(TP_GEMM_FP16_KERNELS)
#if !defined(__ARM_FEATURE_FP16_VECTOR_ARITHMETIC)
#error "gemm_fp16.c must be built with -march=armv8.2-a+fp16 (the Makefile's rule for *_fp16.c does)"
#endif
#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

_Static_assert(TP_GEMM_MR == 8, "the fp16 kernel's tile has 8 rows, as the row pointers the GEMM gives");

/* What the assembly reads for the epilogue; scale and bias are never NULL. */
typedef struct kernel_epilogue {
    const float *scale, *bias; /* offset 0, 8 */
    float min, max;            /* 16, 20 */
    uint32_t accumulate;       /* 24 */
    uint32_t finish;           /* 28 */
} kernel_epilogue;

static const float ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, zeros[16] = {0};

#define STR(x) #x
/* row += B's row (blo, bhi) x lane `lane` of A's vector a. */
#define FMA2(lo, hi, blo, bhi, a, lane) \
    "fmla v" STR(lo) ".8h, v" STR(blo) ".8h, v" STR(a) ".h[" STR(lane) "]\n" \
    "fmla v" STR(hi) ".8h, v" STR(bhi) ".8h, v" STR(a) ".h[" STR(lane) "]\n"
/* One step s of four: B's row in (blo, bhi); row r's value is lane
 * (r % 2) * 4 + s of A's vector r / 2. */
#define STEP(blo, bhi, s0, s1) \
    FMA2(16, 17, blo, bhi, 0, s0) FMA2(18, 19, blo, bhi, 0, s1) FMA2(20, 21, blo, bhi, 1, s0) \
    FMA2(22, 23, blo, bhi, 1, s1) FMA2(24, 25, blo, bhi, 2, s0) FMA2(26, 27, blo, bhi, 2, s1) \
    FMA2(28, 29, blo, bhi, 3, s0) FMA2(30, 31, blo, bhi, 3, s1)
#define FOUR_STEPS STEP(8, 9, 0, 4) STEP(10, 11, 1, 5) STEP(12, 13, 2, 6) STEP(14, 15, 3, 7)
/* One step, A's 8 rows in v0 (row r in lane r). */
#define ONE_STEP \
    FMA2(16, 17, 8, 9, 0, 0) FMA2(18, 19, 8, 9, 0, 1) FMA2(20, 21, 8, 9, 0, 2) FMA2(22, 23, 8, 9, 0, 3) \
    FMA2(24, 25, 8, 9, 0, 4) FMA2(26, 27, 8, 9, 0, 5) FMA2(28, 29, 8, 9, 0, 6) FMA2(30, 31, 8, 9, 0, 7)
#define ZERO_ACCUMULATORS \
        "movi v16.8h, #0\n" "movi v17.8h, #0\n" "movi v18.8h, #0\n" "movi v19.8h, #0\n" \
        "movi v20.8h, #0\n" "movi v21.8h, #0\n" "movi v22.8h, #0\n" "movi v23.8h, #0\n" \
        "movi v24.8h, #0\n" "movi v25.8h, #0\n" "movi v26.8h, #0\n" "movi v27.8h, #0\n" \
        "movi v28.8h, #0\n" "movi v29.8h, #0\n" "movi v30.8h, #0\n" "movi v31.8h, #0\n"

/* The epilogue of one row, from its accumulators (lo, hi) into v0-v3 (fp32
 * columns 0-3 ... 12-15), then stored at x13, which moves on a row. C's
 * values are read through v4, v5; scale is in v8-v11, bias in v12-v15,
 * min in v6, max in v7. */
#define WIDEN(lo, hi) \
    "fcvtl v0.4s, v" STR(lo) ".4h\n" "fcvtl2 v1.4s, v" STR(lo) ".8h\n" \
    "fcvtl v2.4s, v" STR(hi) ".4h\n" "fcvtl2 v3.4s, v" STR(hi) ".8h\n"
#define ADD_C \
    "ldp q4, q5, [x13]\n" "fadd v0.4s, v0.4s, v4.4s\n" "fadd v1.4s, v1.4s, v5.4s\n" \
    "ldp q4, q5, [x13, #32]\n" "fadd v2.4s, v2.4s, v4.4s\n" "fadd v3.4s, v3.4s, v5.4s\n"
#define SCALE_BIAS_CLAMP \
    "fmul v0.4s, v0.4s, v8.4s\n" "fmul v1.4s, v1.4s, v9.4s\n" \
    "fmul v2.4s, v2.4s, v10.4s\n" "fmul v3.4s, v3.4s, v11.4s\n" \
    "fadd v0.4s, v0.4s, v12.4s\n" "fadd v1.4s, v1.4s, v13.4s\n" \
    "fadd v2.4s, v2.4s, v14.4s\n" "fadd v3.4s, v3.4s, v15.4s\n" \
    "fmax v0.4s, v0.4s, v6.4s\n" "fmax v1.4s, v1.4s, v6.4s\n" \
    "fmax v2.4s, v2.4s, v6.4s\n" "fmax v3.4s, v3.4s, v6.4s\n" \
    "fmin v0.4s, v0.4s, v7.4s\n" "fmin v1.4s, v1.4s, v7.4s\n" \
    "fmin v2.4s, v2.4s, v7.4s\n" "fmin v3.4s, v3.4s, v7.4s\n"
#define STORE "stp q0, q1, [x13]\n" "stp q2, q3, [x13, #32]\n" "add x13, x13, %[ldc]\n"
#define ROW_RAW(lo, hi) WIDEN(lo, hi) STORE
#define ROW_ADD(lo, hi) WIDEN(lo, hi) ADD_C STORE
#define ROW_FINISH(lo, hi) WIDEN(lo, hi) SCALE_BIAS_CLAMP STORE
#define ROW_ADD_FINISH(lo, hi) WIDEN(lo, hi) ADD_C SCALE_BIAS_CLAMP STORE
#define ALL_ROWS(M) M(16, 17) M(18, 19) M(20, 21) M(22, 23) M(24, 25) M(26, 27) M(28, 29) M(30, 31)

/* The whole 8 x 16 tile at c (row stride ldc bytes) from k steps of packed
 * A and B. */
static void tile_8x16(const uint16_t *a, const uint16_t *b, uint64_t k, float *c, uint64_t ldc,
                      const kernel_epilogue *e)
{
    uint64_t quads = k / 4, rest = k % 4;
    __asm__ volatile(
        ZERO_ACCUMULATORS
        "cbz %[quads], 2f\n"
        "1:\n"
        "ldp q0, q1, [%[a]]\n"
        "ldp q8, q9, [%[b]]\n"
        "ldp q2, q3, [%[a], #32]\n"
        "ldp q10, q11, [%[b], #32]\n"
        "ldp q12, q13, [%[b], #64]\n"
        "ldp q14, q15, [%[b], #96]\n"
        "add %[a], %[a], #64\n"
        "add %[b], %[b], #128\n"
        "subs %[quads], %[quads], #1\n"
        FOUR_STEPS
        "b.ne 1b\n"
        "2:\n"
        "cbz %[rest], 3f\n"
        "5:\n"
        "ldr q0, [%[a]], #16\n"
        "ldp q8, q9, [%[b]], #32\n"
        "subs %[rest], %[rest], #1\n"
        ONE_STEP
        "b.ne 5b\n"
        "3:\n"
        "mov x13, %[c]\n"
        "ldr w9, [%[e], #28]\n"
        "cbnz w9, 20f\n"
        "ldr w9, [%[e], #24]\n"
        "cbnz w9, 11f\n"
        ALL_ROWS(ROW_RAW)
        "b 30f\n"
        "11:\n"
        ALL_ROWS(ROW_ADD)
        "b 30f\n"
        "20:\n"
        "ldp x9, x10, [%[e]]\n"
        "ldp q8, q9, [x9]\n"
        "ldp q10, q11, [x9, #32]\n"
        "ldp q12, q13, [x10]\n"
        "ldp q14, q15, [x10, #32]\n"
        "add x9, %[e], #16\n"
        "ld1r {v6.4s}, [x9], #4\n"
        "ld1r {v7.4s}, [x9]\n"
        "ldr w9, [%[e], #24]\n"
        "cbnz w9, 21f\n"
        ALL_ROWS(ROW_FINISH)
        "b 30f\n"
        "21:\n"
        ALL_ROWS(ROW_ADD_FINISH)
        "30:\n"
        : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [rest] "+r"(rest)
        : [c] "r"(c), [ldc] "r"(ldc), [e] "r"(e)
        : "x9", "x10", "x13", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12",
          "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
          "v27", "v28", "v29", "v30", "v31", "cc", "memory");
}

static void kernel_8x16(const tp_gemm_tile *t)
{
    const uint16_t *a = (const uint16_t *)(const void *)t->a_packed, *b = (const uint16_t *)(const void *)t->b;
    const uint64_t k = (uint64_t)(t->taps * t->depth);
    if (t->rows == 8 && t->cols == 16) {
        const kernel_epilogue e = {t->scale ? t->scale : ones, t->bias ? t->bias : zeros, t->min, t->max,
                                   t->accumulate, t->finish};
        tile_8x16(a, b, k, t->c, sizeof(float) * (uint64_t)t->ldc, &e);
        return;
    }
    /* cut by the edge of C: the raw sums into a full tile, then what is
     * inside, as two tiles of the fp32 kernels' width */
    float tile[8 * 16], half[8 * TP_GEMM_NR];
    const kernel_epilogue raw = {ones, zeros, 0.0f, 0.0f, 0, 0};
    tile_8x16(a, b, k, tile, sizeof(float) * 16, &raw);
    for (int h = 0; h < 16 / TP_GEMM_NR && h * TP_GEMM_NR < t->cols; h++) {
        tp_gemm_tile part = *t;
        part.c += h * TP_GEMM_NR;
        part.cols = t->cols - h * TP_GEMM_NR < TP_GEMM_NR ? t->cols - h * TP_GEMM_NR : TP_GEMM_NR;
        part.scale = t->scale ? t->scale + h * TP_GEMM_NR : NULL;
        part.bias = t->bias ? t->bias + h * TP_GEMM_NR : NULL;
        for (int r = 0; r < 8; r++)
            memcpy(half + r * TP_GEMM_NR, tile + r * 16 + h * TP_GEMM_NR, sizeof(float) * TP_GEMM_NR);
        tp_gemm_store_tile(&part, half);
    }
}

/* Four values of a row converted to binary16. */
static inline float16x4_t four(const float *row) { return vcvt_f16_f32(vld1q_f32(row)); }

/* A's layout for tile_8x16, converted to binary16: k = tap * depth + d
 * over the block; for each 4 of k, the 8 rows' 4 values (quads), then the
 * last k % 4 steps' 8 values. */
static void pack_quads_fp16(const float *const *ptrs, int taps, int64_t d0, int64_t depth, float *dst_floats)
{
    __fp16 *dst = (__fp16 *)(void *)dst_floats;
    if (depth % 4 == 0) { /* every quad inside one tap: whole vectors */
        for (int t = 0; t < taps; t++, ptrs += 8)
            for (int64_t d = d0; d < d0 + depth; d += 4, dst += 32)
                for (int r = 0; r < 8; r += 2)
                    vst1q_f16(dst + 4 * r, vcombine_f16(four(ptrs[r] + d), four(ptrs[r + 1] + d)));
        return;
    }
    const int64_t k = taps * depth, whole = k / 4 * 4;
    for (int64_t i = 0; i < k; i++) {
        const float *const *row = ptrs + i / depth * 8;
        const int64_t d = d0 + i % depth;
        __fp16 *out = i < whole ? dst + i / 4 * 32 + i % 4 : dst + whole * 8 + (i - whole) * 8;
        const int step = i < whole ? 4 : 1; /* between rows */
        for (int r = 0; r < 8; r++)
            out[r * step] = (__fp16)row[r][d];
    }
}

void tp_gemm_fp16_pack_panels_aarch64(const float *b, int64_t k, int64_t n, int64_t ldb, uint16_t *panels)
{
    __fp16 *out = (__fp16 *)(void *)panels;
    for (int64_t col0 = 0; col0 < n; col0 += TP_GEMM_FP16_NR) {
        const int64_t cols = n - col0 < TP_GEMM_FP16_NR ? n - col0 : TP_GEMM_FP16_NR;
        for (int64_t row = 0; row < k; row++, out += TP_GEMM_FP16_NR) {
            const float *src = b + row * ldb + col0;
            for (int64_t c = 0; c < TP_GEMM_FP16_NR; c++)
                out[c] = c < cols ? (__fp16)src[c] : (__fp16)0.0f;
        }
    }
}

const tp_gemm_kernels tp_gemm_kernels_fp16 = {"fp16", kernel_8x16, pack_quads_fp16, TP_GEMM_FP16_NR, NULL};
#endif
