/* gemm_neon32.c - the armv7 NEON GEMM micro-kernel (TARGET=PI): a 6 x 8 tile
 * of C in 12 of the 16 q registers (q4-q15) over A packed as k rows of 6
 * values and B as k rows of 8. Each step of k is two loads (vld1 of three d
 * registers of A, four of B, both post-incremented) and 12 multiply-adds by
 * a lane of A (vmla.f32 q, q, d[lane]; armv7 has no fused form by lane): no
 * broadcast loads or address arithmetic per row, nothing spilled. The
 * epilogue (add what C holds, scale, bias, clamp) is applied to the
 * registers before each row is stored, one half of the columns at a time
 * (the four free registers hold one half's scale, bias, min and max).
 * Inline assembly keeps the schedule and the registers as chosen; the one
 * schedule serves every core a 32-bit Raspberry Pi OS runs on. */
#include "compute/gemm_kernel.h"

#if defined(__arm__) && defined(TP_GEMM_ARM_KERNELS)
#include <arm_neon.h>
#include <stdint.h>

/* What the assembly reads for the epilogue; scale and bias are never NULL. */
typedef struct kernel_epilogue {
    const float *scale, *bias; /* offset 0, 4 */
    float min, max;            /* 8, 12 */
    uint32_t accumulate;       /* 16 */
    uint32_t finish;           /* 20 */
} kernel_epilogue;

static const float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[8] = {0};

#define STR(x) #x
/* Row r of the tile is q(4 + 2r) (columns 0-3) and q(5 + 2r) (4-7). */
#define FMA_ROW(lo, hi, d, lane) \
    "vmla.f32 q" STR(lo) ", q2, d" STR(d) "[" STR(lane) "]\n" \
    "vmla.f32 q" STR(hi) ", q3, d" STR(d) "[" STR(lane) "]\n"
/* C row += what memory holds (r12 walks the rows). */
#define ADD_ROW(lo, hi) \
    "vld1.32 {d0-d3}, [r12], %[ldc]\n" \
    "vadd.f32 q" STR(lo) ", q" STR(lo) ", q0\n" "vadd.f32 q" STR(hi) ", q" STR(hi) ", q1\n"
/* x = clamp(x * scale + bias) for one register: scale q0, bias q1, min q2, max q3. */
#define EPILOGUE(x) \
    "vmul.f32 q" STR(x) ", q" STR(x) ", q0\n" "vadd.f32 q" STR(x) ", q" STR(x) ", q1\n" \
    "vmax.f32 q" STR(x) ", q" STR(x) ", q2\n" "vmin.f32 q" STR(x) ", q" STR(x) ", q3\n"
#define STORE_ROW(lo, hi) "vst1.32 {d" STR(lo) "-d" STR(hi) "}, [r12], %[ldc]\n"

/* The whole 6 x 8 tile at c (row stride ldc bytes). */
static void tile_6x8(const float *a, const float *b, uint32_t k, float *c, uint32_t ldc, const kernel_epilogue *e)
{
    __asm__ volatile(
        "vmov.i32 q4, #0\n" "vmov.i32 q5, #0\n" "vmov.i32 q6, #0\n" "vmov.i32 q7, #0\n"
        "vmov.i32 q8, #0\n" "vmov.i32 q9, #0\n" "vmov.i32 q10, #0\n" "vmov.i32 q11, #0\n"
        "vmov.i32 q12, #0\n" "vmov.i32 q13, #0\n" "vmov.i32 q14, #0\n" "vmov.i32 q15, #0\n"
        "cmp %[k], #0\n"
        "beq 2f\n"
        "1:\n"
        "vld1.32 {d0-d2}, [%[a]]!\n"
        "vld1.32 {d4-d7}, [%[b]]!\n"
        "subs %[k], %[k], #1\n"
        FMA_ROW(4, 5, 0, 0) FMA_ROW(6, 7, 0, 1) FMA_ROW(8, 9, 1, 0)
        FMA_ROW(10, 11, 1, 1) FMA_ROW(12, 13, 2, 0) FMA_ROW(14, 15, 2, 1)
        "bne 1b\n"
        "2:\n"
        "ldr r12, [%[e], #16]\n"
        "cmp r12, #0\n"
        "beq 3f\n"
        "mov r12, %[c]\n"
        ADD_ROW(4, 5) ADD_ROW(6, 7) ADD_ROW(8, 9) ADD_ROW(10, 11) ADD_ROW(12, 13) ADD_ROW(14, 15)
        "3:\n"
        "ldr r12, [%[e], #20]\n"
        "cmp r12, #0\n"
        "beq 4f\n"
        "add r12, %[e], #8\n"
        "vld1.32 {d4[], d5[]}, [r12]!\n"
        "vld1.32 {d6[], d7[]}, [r12]\n"
        "ldr r12, [%[e]]\n"
        "vld1.32 {d0-d1}, [r12]\n"
        "ldr r12, [%[e], #4]\n"
        "vld1.32 {d2-d3}, [r12]\n"
        EPILOGUE(4) EPILOGUE(6) EPILOGUE(8) EPILOGUE(10) EPILOGUE(12) EPILOGUE(14)
        "ldr r12, [%[e]]\n"
        "add r12, r12, #16\n"
        "vld1.32 {d0-d1}, [r12]\n"
        "ldr r12, [%[e], #4]\n"
        "add r12, r12, #16\n"
        "vld1.32 {d2-d3}, [r12]\n"
        EPILOGUE(5) EPILOGUE(7) EPILOGUE(9) EPILOGUE(11) EPILOGUE(13) EPILOGUE(15)
        "4:\n"
        "mov r12, %[c]\n"
        STORE_ROW(8, 11) STORE_ROW(12, 15) STORE_ROW(16, 19) STORE_ROW(20, 23) STORE_ROW(24, 27)
        STORE_ROW(28, 31)
        : [a] "+r"(a), [b] "+r"(b), [k] "+r"(k)
        : [c] "r"(c), [ldc] "r"(ldc), [e] "r"(e)
        : "r12", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12", "q13", "q14",
          "q15", "cc", "memory");
}

static void kernel_6x8(const tp_gemm_tile *t)
{
    const uint32_t k = (uint32_t)(t->taps * t->depth);
    if (t->rows == 6 && t->cols == 8) {
        const kernel_epilogue e = {t->scale ? t->scale : ones, t->bias ? t->bias : zeros, t->min, t->max,
                                   t->accumulate, t->finish};
        tile_6x8(t->a_packed, t->b, k, t->c, sizeof(float) * (uint32_t)t->ldc, &e);
        return;
    }
    /* cut by the edge of C: the raw sums into a full tile, then what is inside */
    float tile[6 * 8];
    const kernel_epilogue raw = {ones, zeros, 0.0f, 0.0f, 0, 0};
    tile_6x8(t->a_packed, t->b, k, tile, sizeof(float) * 8, &raw);
    tp_gemm_store_tile(t, tile);
}

/* A's layout for tile_6x8: k = tap * depth + d over the block, each step's
 * 6 values in turn (row r at lane r), transposed from the rows 4 of depth at
 * a time. */
static void pack_steps(const float *const *ptrs, int taps, int64_t d0, int64_t depth, float *restrict dst)
{
    for (int t = 0; t < taps; t++, ptrs += 6) {
        int64_t d = 0;
        for (; d + 4 <= depth; d += 4, dst += 24) {
            /* rows 0-3: a 4 x 4 transpose */
            const float32x4x2_t lo = vtrnq_f32(vld1q_f32(ptrs[0] + d0 + d), vld1q_f32(ptrs[1] + d0 + d));
            const float32x4x2_t hi = vtrnq_f32(vld1q_f32(ptrs[2] + d0 + d), vld1q_f32(ptrs[3] + d0 + d));
            vst1q_f32(dst, vcombine_f32(vget_low_f32(lo.val[0]), vget_low_f32(hi.val[0])));
            vst1q_f32(dst + 6, vcombine_f32(vget_low_f32(lo.val[1]), vget_low_f32(hi.val[1])));
            vst1q_f32(dst + 12, vcombine_f32(vget_high_f32(lo.val[0]), vget_high_f32(hi.val[0])));
            vst1q_f32(dst + 18, vcombine_f32(vget_high_f32(lo.val[1]), vget_high_f32(hi.val[1])));
            /* rows 4-5: interleaved */
            const float32x4x2_t z = vzipq_f32(vld1q_f32(ptrs[4] + d0 + d), vld1q_f32(ptrs[5] + d0 + d));
            vst1_f32(dst + 4, vget_low_f32(z.val[0]));
            vst1_f32(dst + 10, vget_high_f32(z.val[0]));
            vst1_f32(dst + 16, vget_low_f32(z.val[1]));
            vst1_f32(dst + 22, vget_high_f32(z.val[1]));
        }
        for (; d < depth; d++, dst += 6)
            for (int r = 0; r < 6; r++)
                dst[r] = ptrs[r][d0 + d];
    }
}

const tp_gemm_kernels tp_gemm_kernels_neon = {"neon", kernel_6x8, pack_steps, TP_GEMM_NR};
#endif
