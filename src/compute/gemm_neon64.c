/* gemm_neon64.c - the aarch64 GEMM micro-kernel: an 8 x 8 tile of C in 16
 * vector registers (v16-v31) over A and B packed for it. Four steps of k at
 * a time: eight vectors of A, each row's next four values (A packed in
 * "quads": for every 4 of k, 8 rows x 4 values), and eight of B (4 rows of
 * 8), then 64 multiply-adds by a lane of A (fmla v.4s, v.4s, v.s[lane]).
 * The accumulators and the operands of four steps fill all 32 registers:
 * no broadcast loads, no address arithmetic per row, nothing spilled. Where
 * the depth is a multiple of 4 (every layer of the usual nets but the
 * first) A is read in place through its row pointers, each row's next quad
 * one load, so nothing is packed; else A is packed in quads and the last
 * k % 4 steps one step at a time (8 values: two vectors).
 * The epilogue (add what C holds, then scale, bias and clamp, as x * scale +
 * bias like the reference) is applied to the registers before the rows are
 * stored, one operation over all 16 at a time. (Starting the sums at the
 * bias instead would save 16 additions a tile, but moves inception_v3_tiny's
 * softmax past test_big_models' bound.) A row of whole tiles (all the
 * panels of B a task has for one tile of A's rows) is one call of
 * tiles_8x8_rows: no call, saved registers or C between the tiles, which
 * took 3% of MobileNet v2 on the A72 (cycles.sh).
 *
 * The kernel is inline assembly so that its schedule is the one chosen:
 * all sixteen loads of the four steps first, as eight ldp (A and B in
 * turn, so the first multiply-adds find their operands ready), the pointer
 * and counter updates paired with them, then the 64 multiply-adds ordered
 * so that no accumulator is used twice within 16 of them. This is the
 * in-order Cortex-A53's schedule: an instruction there may not write its
 * result before an earlier multiply-add (10 cycles) writes its own, so a
 * load placed between multiply-adds stalls the pipe for ~5 cycles; grouping
 * four steps' loads costs that once per 64 multiply-adds (89 cycles in
 * llvm-mca's A53 model, 1.39 per multiply-add, where a 12 x 8 tile that
 * loads one step at a time takes 37 per 24, 1.54, and interleaved loads
 * 37-116). The out-of-order A72 and A76 run the same loop at their
 * multiply-add bound (64 and 32 cycles: 1 and 2 per cycle), so it is the
 * one kernel of every ARM core (tp_gemm_kernels_neon). */
#include "compute/gemm_kernel.h"

#if defined(__aarch64__)
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the assembly reads: the epilogue, each step skipped where it
 * changes nothing (no scale, which the GEMM may have multiplied into B;
 * no bias; no clamp), as a short product's tiles spend a large share of
 * their time there; and where A's rows are for the kernels that read them
 * in place. Offsets are checked below. */
typedef struct kernel_args {
    const float *scale, *bias; /* 0, 8; NULL: none */
    float min, max;            /* 16, 20 */
    uint32_t accumulate;       /* 24 */
    uint32_t finish;           /* 28 */
    uint32_t clamp;            /* 32: min or max is finite */
    uint32_t bias_clamp;       /* 36: the epilogue is a bias, then the clamp */
    const float *const *ptrs;  /* 40: taps x 8 row pointers */
    uint64_t taps;             /* 48 */
    uint64_t offset;           /* 56: bytes into each row */
    uint64_t quads;            /* 64: depth / 4 */
    uint64_t panel_stride;     /* 72: bytes from one panel of B to the next */
} kernel_args;
_Static_assert(offsetof(kernel_args, clamp) == 32 && offsetof(kernel_args, bias_clamp) == 36 &&
                   offsetof(kernel_args, ptrs) == 40 &&
                   offsetof(kernel_args, panel_stride) == 72,
               "the assembly's offsets");

#define STR(x) #x
/* Row r of the tile is in v(16 + 2r) (columns 0-3) and v(17 + 2r) (4-7):
 * row += B's row (blo, bhi) x lane `lane` of A's vector a. */
#define FMA2(lo, hi, blo, bhi, a, lane) \
    "fmla v" STR(lo) ".4s, v" STR(blo) ".4s, v" STR(a) ".s[" STR(lane) "]\n" \
    "fmla v" STR(hi) ".4s, v" STR(bhi) ".4s, v" STR(a) ".s[" STR(lane) "]\n"
/* Loads rows of C (x13 walks them) into v0-v7, four rows at a time. */
#define LOAD_ROW(r0, r1) "ldp q" STR(r0) ", q" STR(r1) ", [x13]\n" "add x13, x13, %[ldc]\n"
#define ADD(acc, x) "fadd v" STR(acc) ".4s, v" STR(acc) ".4s, v" STR(x) ".4s\n"
#define LOAD_4_ROWS LOAD_ROW(0, 1) LOAD_ROW(2, 3) LOAD_ROW(4, 5) LOAD_ROW(6, 7)
/* One operation over every accumulator, the two column halves from their
 * own operand register: each accumulator's next step is 16 instructions on,
 * past the in-order A53's latencies. */
#define ALL_ACC(op, lo, hi) \
    op(16, lo) op(17, hi) op(18, lo) op(19, hi) op(20, lo) op(21, hi) op(22, lo) op(23, hi) \
    op(24, lo) op(25, hi) op(26, lo) op(27, hi) op(28, lo) op(29, hi) op(30, lo) op(31, hi)
#define MUL(acc, x) "fmul v" STR(acc) ".4s, v" STR(acc) ".4s, v" STR(x) ".4s\n"
#define MAX(acc, x) "fmax v" STR(acc) ".4s, v" STR(acc) ".4s, v" STR(x) ".4s\n"
#define MIN(acc, x) "fmin v" STR(acc) ".4s, v" STR(acc) ".4s, v" STR(x) ".4s\n"
#define STORE_ROW(lo, hi) "stp q" STR(lo) ", q" STR(hi) ", [x13]\n" "add x13, x13, %[ldc]\n"
#define ALL_ROWS(M) M(16, 17) M(18, 19) M(20, 21) M(22, 23) M(24, 25) M(26, 27) M(28, 29) M(30, 31)

/* The accumulators to zero. */
#define ZERO_ACCUMULATORS \
        "movi v16.4s, #0\n" "movi v17.4s, #0\n" "movi v18.4s, #0\n" "movi v19.4s, #0\n" \
        "movi v20.4s, #0\n" "movi v21.4s, #0\n" "movi v22.4s, #0\n" "movi v23.4s, #0\n" \
        "movi v24.4s, #0\n" "movi v25.4s, #0\n" "movi v26.4s, #0\n" "movi v27.4s, #0\n" \
        "movi v28.4s, #0\n" "movi v29.4s, #0\n" "movi v30.4s, #0\n" "movi v31.4s, #0\n"
/* Four steps of k: A's quads in v0-v7, B's rows in v8-v15. */
#define FOUR_STEPS \
        FMA2(16, 17, 8, 9, 0, 0) FMA2(18, 19, 8, 9, 1, 0) FMA2(20, 21, 8, 9, 2, 0) FMA2(22, 23, 8, 9, 3, 0) \
        FMA2(24, 25, 8, 9, 4, 0) FMA2(26, 27, 8, 9, 5, 0) FMA2(28, 29, 8, 9, 6, 0) FMA2(30, 31, 8, 9, 7, 0) \
        FMA2(16, 17, 10, 11, 0, 1) FMA2(18, 19, 10, 11, 1, 1) FMA2(20, 21, 10, 11, 2, 1) FMA2(22, 23, 10, 11, 3, 1) \
        FMA2(24, 25, 10, 11, 4, 1) FMA2(26, 27, 10, 11, 5, 1) FMA2(28, 29, 10, 11, 6, 1) FMA2(30, 31, 10, 11, 7, 1) \
        FMA2(16, 17, 12, 13, 0, 2) FMA2(18, 19, 12, 13, 1, 2) FMA2(20, 21, 12, 13, 2, 2) FMA2(22, 23, 12, 13, 3, 2) \
        FMA2(24, 25, 12, 13, 4, 2) FMA2(26, 27, 12, 13, 5, 2) FMA2(28, 29, 12, 13, 6, 2) FMA2(30, 31, 12, 13, 7, 2) \
        FMA2(16, 17, 14, 15, 0, 3) FMA2(18, 19, 14, 15, 1, 3) FMA2(20, 21, 14, 15, 2, 3) FMA2(22, 23, 14, 15, 3, 3) \
        FMA2(24, 25, 14, 15, 4, 3) FMA2(26, 27, 14, 15, 5, 3) FMA2(28, 29, 14, 15, 6, 3) FMA2(30, 31, 14, 15, 7, 3)
/* A row of the tile (accumulators lo, hi): + bias (v2, v3), max (v4), min (v5). */
#define BIAS_ROW(lo, hi) ADD(lo, 2) ADD(hi, 3)
#define MAX_ROW(lo, hi) MAX(lo, 4) MAX(hi, 4)
#define MIN_ROW(lo, hi) MIN(lo, 5) MIN(hi, 5)
/* The bias and the clamp row by row, each step a row behind the one
 * before, then the row stored, so that the stores start early (an
 * out-of-order core overlaps them with the arithmetic) and each result is
 * used 6 or more instructions after it is made (the in-order A53's
 * latencies). */
#define BIAS_CLAMP_STORE \
        BIAS_ROW(16, 17) \
        BIAS_ROW(18, 19) MAX_ROW(16, 17) \
        BIAS_ROW(20, 21) MAX_ROW(18, 19) MIN_ROW(16, 17) \
        BIAS_ROW(22, 23) MAX_ROW(20, 21) MIN_ROW(18, 19) STORE_ROW(16, 17) \
        BIAS_ROW(24, 25) MAX_ROW(22, 23) MIN_ROW(20, 21) STORE_ROW(18, 19) \
        BIAS_ROW(26, 27) MAX_ROW(24, 25) MIN_ROW(22, 23) STORE_ROW(20, 21) \
        BIAS_ROW(28, 29) MAX_ROW(26, 27) MIN_ROW(24, 25) STORE_ROW(22, 23) \
        BIAS_ROW(30, 31) MAX_ROW(28, 29) MIN_ROW(26, 27) STORE_ROW(24, 25) \
        MAX_ROW(30, 31) MIN_ROW(28, 29) STORE_ROW(26, 27) \
        MIN_ROW(30, 31) STORE_ROW(28, 29) \
        STORE_ROW(30, 31)
/* From label 3: add C if accumulating, the epilogue if finishing (scale
 * from register SC, bias from BI), store. The usual case (a bias and a
 * clamp, nothing else) is one straight block with its stores, without the
 * tests between the steps: in llvm-mca 75 cycles a tile on the A53 instead
 * of 88; the A72 stays at 68-70 (each 128-bit operation and store takes a
 * cycle of its 3-wide dispatch there). */
#define EPILOGUE_AND_STORE(SC, BI) \
        "3:\n" \
        "ldr w9, [%[e], #36]\n" \
        "cbz w9, 9f\n" \
        "ldp q2, q3, [" BI "]\n" \
        "add x9, %[e], #16\n" \
        "ld1r {v4.4s}, [x9], #4\n" \
        "ld1r {v5.4s}, [x9]\n" \
        "mov x13, %[c]\n" \
        BIAS_CLAMP_STORE \
        "b 12f\n" \
        "9:\n" \
        "ldr w9, [%[e], #24]\n" \
        "cbz w9, 4f\n" \
        "mov x13, %[c]\n" \
        LOAD_4_ROWS \
        ADD(16, 0) ADD(17, 1) ADD(18, 2) ADD(19, 3) ADD(20, 4) ADD(21, 5) ADD(22, 6) ADD(23, 7) \
        LOAD_4_ROWS \
        ADD(24, 0) ADD(25, 1) ADD(26, 2) ADD(27, 3) ADD(28, 4) ADD(29, 5) ADD(30, 6) ADD(31, 7) \
        "4:\n" \
        "ldr w9, [%[e], #28]\n" \
        "cbz w9, 6f\n" \
        "cbz " SC ", 7f\n" \
        "ldp q0, q1, [" SC "]\n" \
        ALL_ACC(MUL, 0, 1) \
        "7:\n" \
        "cbz " BI ", 8f\n" \
        "ldp q2, q3, [" BI "]\n" \
        ALL_ACC(ADD, 2, 3) \
        "8:\n" \
        "ldr w9, [%[e], #32]\n" \
        "cbz w9, 6f\n" \
        "add x9, %[e], #16\n" \
        "ld1r {v4.4s}, [x9], #4\n" \
        "ld1r {v5.4s}, [x9]\n" \
        ALL_ACC(MAX, 4, 4) ALL_ACC(MIN, 5, 5) \
        "6:\n" \
        "mov x13, %[c]\n" \
        ALL_ROWS(STORE_ROW) \
        "12:\n"

/* The whole 8 x 8 tile at c (row stride ldc bytes) from k steps of packed
 * A and B. */
static void tile_8x8(const float *a, const float *b, uint64_t k, float *c, uint64_t ldc, const kernel_args *e)
{
    uint64_t quads = k / 4, rest = k % 4;
    __asm__ volatile(
        "ldp x10, x11, [%[e]]\n"
        ZERO_ACCUMULATORS
        "cbz %[quads], 2f\n"
        "1:\n"
        "ldp q0, q1, [%[a]]\n"
        "ldp q8, q9, [%[b]]\n"
        "ldp q2, q3, [%[a], #32]\n"
        "ldp q10, q11, [%[b], #32]\n"
        "ldp q4, q5, [%[a], #64]\n"
        "ldp q12, q13, [%[b], #64]\n"
        "ldp q6, q7, [%[a], #96]\n"
        "ldp q14, q15, [%[b], #96]\n"
        "add %[a], %[a], #128\n"
        "add %[b], %[b], #128\n"
        "subs %[quads], %[quads], #1\n"
        FOUR_STEPS
        "b.ne 1b\n"
        "2:\n"
        "cbz %[rest], 3f\n"
        "5:\n"
        "ldp q0, q1, [%[a]], #32\n"
        "ldp q8, q9, [%[b]], #32\n"
        "subs %[rest], %[rest], #1\n"
        FMA2(16, 17, 8, 9, 0, 0) FMA2(18, 19, 8, 9, 0, 1) FMA2(20, 21, 8, 9, 0, 2) FMA2(22, 23, 8, 9, 0, 3)
        FMA2(24, 25, 8, 9, 1, 0) FMA2(26, 27, 8, 9, 1, 1) FMA2(28, 29, 8, 9, 1, 2) FMA2(30, 31, 8, 9, 1, 3)
        "b.ne 5b\n"
        EPILOGUE_AND_STORE("x10", "x11")
        : [a] "+r"(a), [b] "+r"(b), [quads] "+r"(quads), [rest] "+r"(rest)
        : [c] "r"(c), [ldc] "r"(ldc), [e] "r"(e)
        : "x9", "x10", "x11", "x13", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",
          "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
          "v27", "v28", "v29", "v30", "v31", "cc", "memory");
}

/* `panels` whole 8 x 8 tiles side by side from A read in place (depth a
 * multiple of 4: nothing to pack): for each of e's taps, its 8 row pointers
 * (e->ptrs, then + 8 ...), from byte e->offset on, e->quads x 4 values
 * each. Tile p's B is at b + p * e->panel_stride bytes, its C, scale and
 * bias 8 columns on from the previous one's; one call for a row of tiles,
 * so that a tile costs no call, no saved registers and no C around it. */
static void tiles_8x8_rows(const float *b, float *c, uint64_t ldc, uint64_t panels, const kernel_args *e)
{
    const float *scale = e->scale, *bias = e->bias, *b_walk;
    const float *const *ptrs;
    uint64_t taps, offset, quads;
    __asm__ volatile(
        "20:\n"
        "ldp %[ptrs], %[taps], [%[e], #40]\n"
        "mov %[b_walk], %[b]\n"
        ZERO_ACCUMULATORS
        "cbz %[taps], 3f\n"
        "10:\n"
        "ldp x3, x4, [%[ptrs]]\n"
        "ldp x5, x6, [%[ptrs], #16]\n"
        "ldp x7, x8, [%[ptrs], #32]\n"
        "ldp x11, x12, [%[ptrs], #48]\n"
        "add %[ptrs], %[ptrs], #64\n"
        "ldp %[offset], %[quads], [%[e], #56]\n"
        "cbz %[quads], 11f\n"
        "1:\n"
        "ldr q0, [x3, %[offset]]\n"
        "ldp q8, q9, [%[b_walk]]\n"
        "ldr q1, [x4, %[offset]]\n"
        "ldr q2, [x5, %[offset]]\n"
        "ldp q10, q11, [%[b_walk], #32]\n"
        "ldr q3, [x6, %[offset]]\n"
        "ldr q4, [x7, %[offset]]\n"
        "ldp q12, q13, [%[b_walk], #64]\n"
        "ldr q5, [x8, %[offset]]\n"
        "ldr q6, [x11, %[offset]]\n"
        "ldp q14, q15, [%[b_walk], #96]\n"
        "ldr q7, [x12, %[offset]]\n"
        "add %[b_walk], %[b_walk], #128\n"
        "add %[offset], %[offset], #16\n"
        "subs %[quads], %[quads], #1\n"
        FOUR_STEPS
        "b.ne 1b\n"
        "11:\n"
        "subs %[taps], %[taps], #1\n"
        "b.ne 10b\n"
        EPILOGUE_AND_STORE("%[scale]", "%[bias]")
        "ldr x9, [%[e], #72]\n"
        "add %[b], %[b], x9\n"
        "add %[c], %[c], #32\n"
        "cbz %[scale], 23f\n"
        "add %[scale], %[scale], #32\n"
        "23:\n"
        "cbz %[bias], 24f\n"
        "add %[bias], %[bias], #32\n"
        "24:\n"
        "subs %[panels], %[panels], #1\n"
        "b.ne 20b\n"
        : [b] "+r"(b), [c] "+r"(c), [panels] "+r"(panels), [scale] "+r"(scale), [bias] "+r"(bias),
          [b_walk] "=&r"(b_walk), [ptrs] "=&r"(ptrs), [taps] "=&r"(taps), [offset] "=&r"(offset),
          [quads] "=&r"(quads)
        : [ldc] "r"(ldc), [e] "r"(e)
        : "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x11", "x12", "x13", "v0", "v1", "v2", "v3", "v4", "v5", "v6",
          "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21",
          "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
}

/* A whose depth is a multiple of 4 is read in place (pack_quads left it). */
static bool reads_in_place(int64_t depth) { return depth % 4 == 0; }

/* What the assembly reads for tile t, whose B panels lie panel_stride
 * floats apart; with the epilogue unless `raw` (the plain sums). */
static kernel_args args_of(const tp_gemm_tile *t, int64_t panel_stride, bool raw)
{
    kernel_args e = {.ptrs = t->a,
                     .taps = (uint64_t)t->taps,
                     .offset = sizeof(float) * (uint64_t)t->a_offset,
                     .quads = (uint64_t)t->depth / 4,
                     .panel_stride = sizeof(float) * (uint64_t)panel_stride};
    if (raw)
        return e;
    e.scale = t->scale;
    e.bias = t->bias;
    e.min = t->min;
    e.max = t->max;
    e.accumulate = t->accumulate;
    e.finish = t->finish;
    e.clamp = !(isinf(t->min) && t->min < 0 && isinf(t->max) && t->max > 0);
    e.bias_clamp = !e.accumulate && e.finish && !e.scale && e.bias && e.clamp;
    return e;
}

/* The tile into c (row stride ldc floats) through e. */
static void run_tile(const tp_gemm_tile *t, float *c, int64_t ldc, const kernel_args *e)
{
    if (reads_in_place(t->depth))
        tiles_8x8_rows(t->b, c, sizeof(float) * (uint64_t)ldc, 1, e);
    else
        tile_8x8(t->a_packed, t->b, (uint64_t)(t->taps * t->depth), c, sizeof(float) * (uint64_t)ldc, e);
}

static void kernel_8x8(const tp_gemm_tile *t)
{
    if (t->rows == 8 && t->cols == 8) {
        const kernel_args e = args_of(t, 0, false);
        run_tile(t, t->c, t->ldc, &e);
        return;
    }
    /* cut by the edge of C: the raw sums into a full tile, then what is inside */
    float tile[8 * 8];
    const kernel_args raw = args_of(t, 0, true);
    run_tile(t, tile, 8, &raw);
    tp_gemm_store_tile(t, tile);
}

static void row_8x8(const tp_gemm_tile *t, int64_t panels, int64_t panel_stride)
{
    if (reads_in_place(t->depth)) {
        const kernel_args e = args_of(t, panel_stride, false);
        tiles_8x8_rows(t->b, t->c, sizeof(float) * (uint64_t)t->ldc, (uint64_t)panels, &e);
        return;
    }
    tp_gemm_tile tile = *t;
    for (int64_t p = 0; p < panels; p++, tile.b += panel_stride, tile.c += 8) {
        kernel_8x8(&tile);
        tile.scale = tile.scale ? tile.scale + 8 : NULL;
        tile.bias = tile.bias ? tile.bias + 8 : NULL;
    }
}

/* A's layout for tile_8x8: k = tap * depth + d over the block; for each 4
 * of k, the 8 rows' 4 values (quads), then the last k % 4 steps' 8 values.
 * Nothing where the depth is a multiple of 4: tile_8x8_rows reads each row's
 * quads where they are. */
static void pack_quads(const float *const *ptrs, int taps, int64_t d0, int64_t depth, float *restrict dst)
{
    const uint64_t whole = (uint64_t)(taps * depth) / 4 * 4;
    if (reads_in_place(depth))
        return;
    uint64_t i = 0; /* k: tap * depth + d, without a division per value */
    for (int t = 0; t < taps; t++, ptrs += 8)
        for (int64_t d = d0; d < d0 + depth; d++, i++) {
            float *out = i < whole ? dst + i / 4 * 32 + i % 4 : dst + whole * 8 + (i - whole) * 8;
            const int step = i < whole ? 4 : 1; /* between rows */
            for (int r = 0; r < 8; r++)
                out[r * step] = ptrs[r][d];
        }
}

const tp_gemm_kernels tp_gemm_kernels_neon = {"neon", kernel_8x8, pack_quads, TP_GEMM_NR, row_8x8};
#endif
