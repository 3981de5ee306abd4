/* gemm_neon32.c - the armv7 NEON GEMM micro-kernel (TARGET=PI): a 6 x 8 tile
 * of C in 12 of the 16 q registers (q4-q15) over A packed as k rows of 6
 * values and B as k rows of 8. Each step of k is two loads (vld1 of three d
 * registers of A, four of B, both post-incremented) and 12 multiply-adds by
 * a lane of A (vmla.f32 q, q, d[lane]; armv7 has no fused form by lane): no
 * broadcast loads or address arithmetic per row, nothing spilled. The
 * epilogue (add what C holds, scale, bias, clamp) is applied to the
 * registers before the rows are stored, a step over all twelve at a time,
 * each step skipped where it changes nothing. A row of tiles runs without a call between
 * them (row_6x8).
 * Inline assembly keeps the schedule and the registers as chosen; the one
 * schedule serves every core a 32-bit Raspberry Pi OS runs on. */
#include "compute/gemm_kernel.h"

#if defined(__arm__) && defined(TP_GEMM_ARM_KERNELS)
#include <arm_neon.h>
#include <math.h>
#include <stdint.h>

/* What the assembly reads for the epilogue, each step skipped where it
 * changes nothing (no scale, which the GEMM may have multiplied into B; no
 * bias; no clamp). */
typedef struct kernel_epilogue {
    const float *scale, *bias; /* offset 0, 4; NULL: none */
    float min, max;            /* 8, 12 */
    uint32_t accumulate;       /* 16 */
    uint32_t finish;           /* 20 */
    uint32_t clamp;            /* 24: min or max is finite */
} kernel_epilogue;

#define STR(x) #x
/* Row r of the tile is q(4 + 2r) (columns 0-3) and q(5 + 2r) (4-7). */
#define FMA_ROW(lo, hi, d, lane) \
    "vmla.f32 q" STR(lo) ", q2, d" STR(d) "[" STR(lane) "]\n" \
    "vmla.f32 q" STR(hi) ", q3, d" STR(d) "[" STR(lane) "]\n"
/* C row += what memory holds (r12 walks the rows). */
#define ADD_ROW(lo, hi) \
    "vld1.32 {d0-d3}, [r12], %[ldc]\n" \
    "vadd.f32 q" STR(lo) ", q" STR(lo) ", q0\n" "vadd.f32 q" STR(hi) ", q" STR(hi) ", q1\n"
/* One operation over every accumulator, the two column halves from q0 and
 * q1 (OP2) or all from one register (OP1). */
#define OP2(op) \
    op(4, 0) op(5, 1) op(6, 0) op(7, 1) op(8, 0) op(9, 1) op(10, 0) op(11, 1) op(12, 0) op(13, 1) op(14, 0) op(15, 1)
#define OP1(op, x) \
    op(4, x) op(5, x) op(6, x) op(7, x) op(8, x) op(9, x) op(10, x) op(11, x) op(12, x) op(13, x) op(14, x) op(15, x)
#define MUL(acc, x) "vmul.f32 q" STR(acc) ", q" STR(acc) ", q" STR(x) "\n"
#define ADD(acc, x) "vadd.f32 q" STR(acc) ", q" STR(acc) ", q" STR(x) "\n"
#define MAX(acc, x) "vmax.f32 q" STR(acc) ", q" STR(acc) ", q" STR(x) "\n"
#define MIN(acc, x) "vmin.f32 q" STR(acc) ", q" STR(acc) ", q" STR(x) "\n"
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
        "ldr r12, [%[e]]\n"
        "cmp r12, #0\n"
        "beq 7f\n"
        "vld1.32 {d0-d3}, [r12]\n"
        OP2(MUL)
        "7:\n"
        "ldr r12, [%[e], #4]\n"
        "cmp r12, #0\n"
        "beq 8f\n"
        "vld1.32 {d0-d3}, [r12]\n"
        OP2(ADD)
        "8:\n"
        "ldr r12, [%[e], #24]\n"
        "cmp r12, #0\n"
        "beq 4f\n"
        "add r12, %[e], #8\n"
        "vld1.32 {d4[], d5[]}, [r12]!\n"
        "vld1.32 {d6[], d7[]}, [r12]\n"
        OP1(MAX, 2) OP1(MIN, 3)
        "4:\n"
        "mov r12, %[c]\n"
        STORE_ROW(8, 11) STORE_ROW(12, 15) STORE_ROW(16, 19) STORE_ROW(20, 23) STORE_ROW(24, 27)
        STORE_ROW(28, 31)
        : [a] "+r"(a), [b] "+r"(b), [k] "+r"(k)
        : [c] "r"(c), [ldc] "r"(ldc), [e] "r"(e)
        : "r12", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12", "q13", "q14",
          "q15", "cc", "memory");
}

/* The epilogue of tile t as the assembly reads it. */
static kernel_epilogue epilogue_of(const tp_gemm_tile *t)
{
    return (kernel_epilogue){t->scale,
                             t->bias,
                             t->min,
                             t->max,
                             t->accumulate,
                             t->finish,
                             !(isinf(t->min) && t->min < 0 && isinf(t->max) && t->max > 0)};
}

static void kernel_6x8(const tp_gemm_tile *t)
{
    const uint32_t k = (uint32_t)(t->taps * t->depth);
    if (t->rows == 6 && t->cols == 8) {
        const kernel_epilogue e = epilogue_of(t);
        tile_6x8(t->a_packed, t->b, k, t->c, sizeof(float) * (uint32_t)t->ldc, &e);
        return;
    }
    /* cut by the edge of C: the raw sums into a full tile, then what is inside */
    float tile[6 * 8];
    const kernel_epilogue raw = {NULL, NULL, 0.0f, 0.0f, 0, 0, 0};
    tile_6x8(t->a_packed, t->b, k, tile, sizeof(float) * 8, &raw);
    tp_gemm_store_tile(t, tile);
}

/* A row of whole tiles: the epilogue worked out once, no call between. */
static void row_6x8(const tp_gemm_tile *t, int64_t panels, int64_t panel_stride)
{
    const uint32_t k = (uint32_t)(t->taps * t->depth), ldc = sizeof(float) * (uint32_t)t->ldc;
    kernel_epilogue e = epilogue_of(t);
    const float *b = t->b;
    float *c = t->c;
    for (int64_t p = 0; p < panels; p++, b += panel_stride, c += 8) {
        tile_6x8(t->a_packed, b, k, c, ldc, &e);
        e.scale = e.scale ? e.scale + 8 : NULL;
        e.bias = e.bias ? e.bias + 8 : NULL;
    }
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

const tp_gemm_kernels tp_gemm_kernels_neon = {"neon", kernel_6x8, pack_steps, TP_GEMM_NR, row_6x8};
#endif
