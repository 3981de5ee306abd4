/* tflite_qgemm_neon.c - the NEON micro-kernels of the 8-bit GEMM
 * (tflite_qgemm.h), armv7 and aarch64, each a whole tile (the loop, the
 * epilogue, the stores) in inline assembly:
 *   pair  int8 weights in [-127, 127]: per 16 depth, smull + smlal2 sum two
 *         products per 16-bit lane (|x w| <= 128 x 127, two fit), sadalp
 *         adds the pairs into the 32-bit accumulators: 16 multiply-adds in 3
 *         instructions. aarch64: 4 x 4 tiles (16 accumulators, 4 vectors of
 *         A and 4 of B per 16 depth); armv7 (16 registers): 2 x 4.
 *   wide  any codes (uint8 models, int8 weights holding -128): one product
 *         per 16-bit lane, umull/smull then uadalp/sadalp; same tiles.
 *   dot   aarch64 with the dot product extension (compiled for armv8.2-a
 *         +dotprod, run only where HWCAP says so): sdot/udot by lane, 8 x 8
 *         tiles (16 accumulators, 8 rows of A of 16 depth, B 4 depth x 8
 *         columns at a time).
 * Each accumulator of pair and wide holds four partial sums of one output,
 * added pairwise at the end; dot's hold four outputs. Then the epilogue on
 * the registers: the zero-point and bias terms, the rescale (sqrdmulh is
 * gemmlowp's rounding doubling high multiply, ties toward +infinity; the
 * rounding shift subtracts 1 from negative values before a rounding right
 * shift, so ties go away from zero), the output zero point, the clamp, and
 * the narrowing to 8-bit codes. */
#include "compute/tflite_qgemm_kernel.h"

#include <stddef.h>

#if defined(__ARM_NEON)
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define TP_TFL_QGEMM_DOT 1
#endif

/* ---- pair and wide: mr x 4, four partial sums per accumulator ---- */

/* What the tiles' epilogue reads (offsets fixed in the assembly: pointers
 * of 8 bytes on aarch64, 4 on armv7). */
typedef struct tile_epilogue {
    const int32_t *col_term, *mantissa, *left, *right;
    int32_t zero, lo, hi, shift_left;
    int32_t all_right; /* every column shifts right */
    int32_t sums;      /* store int32 sums, not codes */
} tile_epilogue;
#define TILE_EPILOGUE_AT(FIELD, A64, A32) \
    _Static_assert(offsetof(tile_epilogue, FIELD) == (sizeof(void *) == 8 ? A64 : A32), "the assembly reads " #FIELD);
TILE_EPILOGUE_AT(mantissa, 8, 4)
TILE_EPILOGUE_AT(left, 16, 8)
TILE_EPILOGUE_AT(right, 24, 12)
TILE_EPILOGUE_AT(zero, 32, 16)
TILE_EPILOGUE_AT(shift_left, 44, 28)
TILE_EPILOGUE_AT(all_right, 48, 32)
TILE_EPILOGUE_AT(sums, 52, 36)

/* `tiles` whole tiles down a panel from the rows at a (stride lda) into
 * the outputs at c (stride ldc bytes), each over `blocks` blocks of 16
 * depth of the panel; row_term: the tiles' row terms, or NULL. */
typedef void (*tiles_fn)(const uint8_t *a, ptrdiff_t lda, const uint8_t *panel, ptrdiff_t blocks,
                         const int32_t *row_term, const tile_epilogue *e, uint8_t *c, ptrdiff_t ldc, ptrdiff_t tiles);

/* The loops are inline assembly: compiled from intrinsics, the sixteen
 * accumulators spilled to the stack and the high halves were moved out one
 * by one. The schedule is the in-order A53's (all loads first, then groups
 * of eight independent products, their second products, their pairwise
 * adds: no instruction waits for one just before it); llvm-mca prices a
 * block of 16 depth of the 4 x 4 pair loop at 60 cycles on the A53 and 32
 * on the A72 (its one 8-bit multiply pipe busy every cycle). */
#if defined(__aarch64__)
enum { MR = 4 };
/* aarch64, 4 x 4, the whole tile in assembly: the loop, the row sums and
 * the epilogue (whose four rows interleave, so the in-order A53 does not
 * wait on each step's latency), then the stores. Registers: rows of A in
 * v0-v3, the four columns in v4-v7, products in v8-v15, the accumulator
 * of row r, column c in v(16 + 4r + c). */

/* OP into v8-v15: rows R0 and R1 times the four columns, halves H */
#define MUL8(OP, R0, R1, H) \
    OP " v8.8h, v" #R0 H ", v4" H "\n" OP " v9.8h, v" #R0 H ", v5" H "\n" \
    OP " v10.8h, v" #R0 H ", v6" H "\n" OP " v11.8h, v" #R0 H ", v7" H "\n" \
    OP " v12.8h, v" #R1 H ", v4" H "\n" OP " v13.8h, v" #R1 H ", v5" H "\n" \
    OP " v14.8h, v" #R1 H ", v6" H "\n" OP " v15.8h, v" #R1 H ", v7" H "\n"
/* the accumulators of two rows OP= the pairwise sums of v8-v15 (OP "sadalp"
 * adds, "saddlp" starts them) */
#define ADALP8(OP, A0, A1, A2, A3, A4, A5, A6, A7) \
    OP " v" #A0 ".4s, v8.8h\n" OP " v" #A1 ".4s, v9.8h\n" OP " v" #A2 ".4s, v10.8h\n" OP " v" #A3 ".4s, v11.8h\n" \
    OP " v" #A4 ".4s, v12.8h\n" OP " v" #A5 ".4s, v13.8h\n" OP " v" #A6 ".4s, v14.8h\n" OP " v" #A7 ".4s, v15.8h\n"
#define ROWS01 16, 17, 18, 19, 20, 21, 22, 23
#define ROWS23 24, 25, 26, 27, 28, 29, 30, 31
#define ADALP8_(OP, ...) ADALP8(OP, __VA_ARGS__)
/* One block of 16 depth; FIRST ("saddlp"/"uaddlp") starts the
 * accumulators, ADD ("sadalp"/"uadalp") adds to them. */
#define PAIR_ROWS(FIRST, ADD, R0, R1, ACCS) \
    MUL8("smull", R0, R1, ".8b") MUL8("smlal2", R0, R1, ".16b") ADALP8_(FIRST, ACCS)
#define WIDE_ROWS(S, FIRST, ADD, R0, R1, ACCS) \
    MUL8(S "mull", R0, R1, ".8b") ADALP8_(FIRST, ACCS) MUL8(S "mull2", R0, R1, ".16b") ADALP8_(ADD, ACCS)
#define PAIR_BLOCK(FIRST, ADD) PAIR_ROWS(FIRST, ADD, 0, 1, ROWS01) PAIR_ROWS(FIRST, ADD, 2, 3, ROWS23)
#define WIDE_S8_BLOCK(FIRST, ADD) WIDE_ROWS("s", FIRST, ADD, 0, 1, ROWS01) WIDE_ROWS("s", FIRST, ADD, 2, 3, ROWS23)
#define WIDE_U8_BLOCK(FIRST, ADD) WIDE_ROWS("u", FIRST, ADD, 0, 1, ROWS01) WIDE_ROWS("u", FIRST, ADD, 2, 3, ROWS23)
/* OP on the four rows v0-v3, with operand X */
#define ROWS4(OP, X) \
    OP " v0.4s, v0.4s, " X "\n" OP " v1.4s, v1.4s, " X "\n" OP " v2.4s, v2.4s, " X "\n" OP " v3.4s, v3.4s, " X "\n"
#define ROWS4_SSRA \
    "ssra v0.4s, v0.4s, #31\n" "ssra v1.4s, v1.4s, #31\n" "ssra v2.4s, v2.4s, #31\n" "ssra v3.4s, v3.4s, #31\n"
/* Loads one block's four rows of A (x9-x12 plus the offset) and columns,
 * and steps on. */
#define LOAD_BLOCK \
    "ldr q0, [x9, x15]\n" "ldr q1, [x10, x15]\n" "ldr q2, [x11, x15]\n" "ldr q3, [x12, x15]\n" \
    "ldp q4, q5, [x13]\n" "ldp q6, q7, [x13, #32]\n" \
    "add x15, x15, #16\n" "add x13, x13, #64\n" "subs x14, x14, #1\n"

/* The tile's loop: row pointers, the first block (starting the
 * accumulators), the rest. */
#define TILE_LOOP(BLOCK, FIRST, ADD) \
    "0:\n" \
    "mov x9, %[a]\n" "add x10, x9, %[lda]\n" "add x11, x10, %[lda]\n" \
    "add x12, x11, %[lda]\n" "mov x13, %[panel]\n" "mov x14, %[blocks]\n" \
    "mov x15, #0\n" \
    LOAD_BLOCK \
    BLOCK(FIRST, ADD) \
    "b.eq 2f\n" \
    "1:\n" \
    LOAD_BLOCK \
    BLOCK(ADD, ADD) \
    "b.ne 1b\n" \
    "2:\n"
/* row sums: each accumulator's four lanes, pairwise twice, into v0-v3,
 * plus the column terms; the mantissas in v5, the right shifts in v6 */
#define TILE_SUMS \
    "addp v4.4s, v16.4s, v17.4s\n" "addp v5.4s, v18.4s, v19.4s\n" \
    "addp v6.4s, v20.4s, v21.4s\n" "addp v7.4s, v22.4s, v23.4s\n" \
    "addp v8.4s, v24.4s, v25.4s\n" "addp v9.4s, v26.4s, v27.4s\n" \
    "addp v10.4s, v28.4s, v29.4s\n" "addp v11.4s, v30.4s, v31.4s\n" \
    "ldp x9, x10, [%[e]]\n" \
    "addp v0.4s, v4.4s, v5.4s\n" "addp v1.4s, v6.4s, v7.4s\n" \
    "ldp x11, x12, [%[e], #16]\n" \
    "addp v2.4s, v8.4s, v9.4s\n" "addp v3.4s, v10.4s, v11.4s\n" \
    "ldr q4, [x9]\n" \
    "ldr q5, [x10]\n" \
    "ldr q6, [x12]\n" \
    ROWS4("add", "v4.4s")
/* the rounding shift's fixup where some column does not shift right */
#define ROWS4_FIXUP \
    "and v8.16b, v0.16b, v6.16b\n" "and v9.16b, v1.16b, v6.16b\n" \
    "and v10.16b, v2.16b, v6.16b\n" "and v11.16b, v3.16b, v6.16b\n" \
    "sshr v8.4s, v8.4s, #31\n" "sshr v9.4s, v9.4s, #31\n" \
    "sshr v10.4s, v10.4s, #31\n" "sshr v11.4s, v11.4s, #31\n" \
    "sqadd v0.4s, v0.4s, v8.4s\n" "sqadd v1.4s, v1.4s, v9.4s\n" \
    "sqadd v2.4s, v2.4s, v10.4s\n" "sqadd v3.4s, v3.4s, v11.4s\n"
/* after the fixup: the rounding shift, the zero point, the clamp in 32
 * bits, two unzips keeping the codes' low bytes, the stores, the next rows */
#define TILE_CODES \
    "add x9, %[e], #32\n" \
    "ld1r {v7.4s}, [x9], #4\n" \
    "ld1r {v4.4s}, [x9], #4\n" \
    ROWS4("srshl", "v6.4s") \
    "ld1r {v5.4s}, [x9]\n" \
    ROWS4("add", "v7.4s") \
    ROWS4("smax", "v4.4s") \
    ROWS4("smin", "v5.4s") \
    "uzp1 v0.8h, v0.8h, v1.8h\n" "uzp1 v2.8h, v2.8h, v3.8h\n" \
    "add x9, %[c], %[ldc]\n" \
    "uzp1 v0.16b, v0.16b, v2.16b\n" \
    "add x10, x9, %[ldc]\n" \
    "st1 {v0.s}[0], [%[c]]\n" \
    "add x11, x10, %[ldc]\n" \
    "st1 {v0.s}[1], [x9]\n" \
    "add %[c], x11, %[ldc]\n" \
    "st1 {v0.s}[2], [x10]\n" \
    "add %[a], %[a], %[lda], lsl #2\n" \
    "st1 {v0.s}[3], [x11]\n"
#define TILE_NEXT \
    "subs %[tiles], %[tiles], #1\n" \
    "b.ne 0b\n"
#define TILE_OPERANDS \
    : [a] "+r"(a), [c] "+r"(c), [tiles] "+r"(tiles), [row_term] "+r"(row_term) \
    : [lda] "r"(lda), [panel] "r"(panel), [blocks] "r"(blocks), [e] "r"(e), [ldc] "r"(ldc) \
    : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", \
      "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "x9", \
      "x10", "x11", "x12", "x13", "x14", "x15", "cc", "memory"
#define TILE_SIGNATURE(NAME) \
    static void NAME(const uint8_t *a, ptrdiff_t lda, const uint8_t *panel, ptrdiff_t blocks, const int32_t *row_term, \
                     const tile_epilogue *e, uint8_t *c, ptrdiff_t ldc, ptrdiff_t tiles)

/* `tiles` tiles of 4 x 4 down a panel, from the rows at a and the outputs at
 * c: per tile the loop over the blocks (the first starts the accumulators),
 * the row sums, the epilogue (four rows interleaved, so the in-order A53
 * overlaps their latencies; the clamp in 32 bits, after which two unzips
 * keep the codes' low bytes), the stores. Registers: rows x9-x12, panel
 * x13, blocks x14, offset x15; A in v0-v3, B in v4-v7, products v8-v15,
 * the accumulator of row r, column c in v(16 + 4r + c). Every epilogue:
 * row terms, left shifts, int32 sums, each where asked. */
#define DEFINE_TILES(NAME, BLOCK, FIRST, ADD) \
    TILE_SIGNATURE(NAME) \
    { \
        __asm__ volatile(TILE_LOOP(BLOCK, FIRST, ADD) \
                         TILE_SUMS \
                         "cbz %[row_term], 3f\n" \
                         "ld1r {v8.4s}, [%[row_term]], #4\n" "ld1r {v9.4s}, [%[row_term]], #4\n" \
                         "ld1r {v10.4s}, [%[row_term]], #4\n" "ld1r {v11.4s}, [%[row_term]], #4\n" \
                         "add v0.4s, v0.4s, v8.4s\n" "add v1.4s, v1.4s, v9.4s\n" \
                         "add v2.4s, v2.4s, v10.4s\n" "add v3.4s, v3.4s, v11.4s\n" \
                         "3:\n" \
                         "ldr w14, [%[e], #52]\n" \
                         "cbnz w14, 7f\n" \
                         "ldr w14, [%[e], #44]\n" \
                         "cbz w14, 4f\n" \
                         "ldr q7, [x11]\n" \
                         ROWS4("sshl", "v7.4s") \
                         "4:\n" \
                         ROWS4("sqrdmulh", "v5.4s") \
                         /* rounding shift right, ties away from zero: negatives less one */ \
                         /* first (one ssra where every column shifts right) */ \
                         "ldr w14, [%[e], #48]\n" \
                         "cbz w14, 5f\n" \
                         ROWS4_SSRA \
                         "b 6f\n" \
                         "5:\n" \
                         ROWS4_FIXUP \
                         "6:\n" \
                         TILE_CODES \
                         "b 8f\n" \
                         /* the int32 sums, for TensorFlow's 8-bit ops */ \
                         "7:\n" \
                         "str q0, [%[c]]\n" "add %[c], %[c], %[ldc]\n" "str q1, [%[c]]\n" "add %[c], %[c], %[ldc]\n" \
                         "str q2, [%[c]]\n" "add %[c], %[c], %[ldc]\n" "str q3, [%[c]]\n" "add %[c], %[c], %[ldc]\n" \
                         "add %[a], %[a], %[lda], lsl #2\n" \
                         "8:\n" \
                         TILE_NEXT \
                         TILE_OPERANDS); \
    }
/* Codes without row terms or left shifts (int8 models' per-channel
 * weights), the epilogue one straight run with no branch, FIXUP being
 * ROWS4_SSRA where every column shifts right, else ROWS4_FIXUP. */
#define DEFINE_TILE_CODES(NAME, BLOCK, FIRST, ADD, FIXUP) \
    TILE_SIGNATURE(NAME) \
    { \
        __asm__ volatile(TILE_LOOP(BLOCK, FIRST, ADD) \
                         TILE_SUMS \
                         ROWS4("sqrdmulh", "v5.4s") \
                         FIXUP \
                         TILE_CODES \
                         TILE_NEXT \
                         TILE_OPERANDS); \
    }

DEFINE_TILES(pair_tiles, PAIR_BLOCK, "saddlp", "sadalp")
DEFINE_TILES(wide_s8_tiles, WIDE_S8_BLOCK, "saddlp", "sadalp")
DEFINE_TILES(wide_u8_tiles, WIDE_U8_BLOCK, "uaddlp", "uadalp")
DEFINE_TILE_CODES(pair_codes_right, PAIR_BLOCK, "saddlp", "sadalp", ROWS4_SSRA)
DEFINE_TILE_CODES(pair_codes, PAIR_BLOCK, "saddlp", "sadalp", ROWS4_FIXUP)

#else
enum { MR = 2 };
/* armv7, 2 x 4 (16 registers), the whole tile in assembly like aarch64's:
 * the loop, the row sums, the epilogue on both rows, the stores.
 * Registers: the two rows of A in q0 and q1 (which end as the rows' sums),
 * the four columns in d4-d11, products in q6 and q7, the accumulator of
 * row r, column c in q(8 + 4r + c); the epilogue's values in q2-q7. */
/* Row R (d RL, RH) times columns (BL, BH) and (BL2, BH2) into the
 * accumulators C and C2 (OP "vpaddl" starts them, "vpadal" adds; S the
 * pairwise add's type) */
#define PAIR2(OP, S, RL, RH, BL, BH, C, BL2, BH2, C2) \
    "vmull.s8 q6, d" #RL ", d" #BL "\n" "vmull.s8 q7, d" #RL ", d" #BL2 "\n" \
    "vmlal.s8 q6, d" #RH ", d" #BH "\n" "vmlal.s8 q7, d" #RH ", d" #BH2 "\n" \
    OP "." S "16 q" #C ", q6\n" OP "." S "16 q" #C2 ", q7\n"
#define WIDE1(FIRST, S, RL, RH, BL, BH, C) \
    "vmull." S "8 q6, d" #RL ", d" #BL "\n" "vmull." S "8 q7, d" #RH ", d" #BH "\n" \
    FIRST "." S "16 q" #C ", q6\n" "vpadal." S "16 q" #C ", q7\n"
#define PAIR_BLOCK(FIRST, S) \
    PAIR2(FIRST, S, 0, 1, 4, 5, 8, 6, 7, 9) PAIR2(FIRST, S, 0, 1, 8, 9, 10, 10, 11, 11) \
    PAIR2(FIRST, S, 2, 3, 4, 5, 12, 6, 7, 13) PAIR2(FIRST, S, 2, 3, 8, 9, 14, 10, 11, 15)
#define WIDE_BLOCK(FIRST, S) \
    WIDE1(FIRST, S, 0, 1, 4, 5, 8) WIDE1(FIRST, S, 0, 1, 6, 7, 9) WIDE1(FIRST, S, 0, 1, 8, 9, 10) \
    WIDE1(FIRST, S, 0, 1, 10, 11, 11) WIDE1(FIRST, S, 2, 3, 4, 5, 12) WIDE1(FIRST, S, 2, 3, 6, 7, 13) \
    WIDE1(FIRST, S, 2, 3, 8, 9, 14) WIDE1(FIRST, S, 2, 3, 10, 11, 15)
/* a row's sums into d LO, d HI: each of its accumulators' four lanes to one */
#define ROW_SUMS(LO, HI, D0, D1, D2, D3, D4, D5, D6, D7) \
    "vpadd.i32 d12, d" #D0 ", d" #D1 "\n" "vpadd.i32 d13, d" #D2 ", d" #D3 "\n" \
    "vpadd.i32 d14, d" #D4 ", d" #D5 "\n" "vpadd.i32 d15, d" #D6 ", d" #D7 "\n" \
    "vpadd.i32 d" #LO ", d12, d13\n" "vpadd.i32 d" #HI ", d14, d15\n"
#define LOAD_BLOCK \
    "vld1.8 {d0-d1}, [%[a0]]!\n" "vld1.8 {d2-d3}, [%[a1]]!\n" "vld1.8 {d4-d7}, [%[b]]!\n" \
    "vld1.8 {d8-d11}, [%[b]]!\n" "subs %[n], %[n], #1\n"

/* What the armv7 tiles read, in one place (offsets fixed in the
 * assembly): the epilogue's vectors follow each other, so one pointer
 * steps through them. */
typedef struct tile_walk {
    int32_t lda, ldc;
    const uint8_t *panel;
    int32_t blocks;
    int32_t mode; /* the rare steps: 1 some column shifts left, 2 int32 sums, 4 row terms */
    int32_t unused[3];
    int32_t col_term[4], mantissa[4], right[4], left[4];
    int16_t zero;
    int8_t lo, hi; /* codes of the output's type */
} tile_walk;
_Static_assert(offsetof(tile_walk, mode) == 16 &&
                   offsetof(tile_walk, col_term) == 32 && offsetof(tile_walk, mantissa) == 48 &&
                   offsetof(tile_walk, right) == 64 && offsetof(tile_walk, left) == 80 &&
                   offsetof(tile_walk, zero) == 96 && offsetof(tile_walk, lo) == 98 && offsetof(tile_walk, hi) == 99,
               "the assembly reads these offsets");

/* `tiles` tiles of 2 x 4: per tile the loop over the blocks (the first
 * starts the accumulators), the row sums, then the epilogue in one straight
 * run (the rare row terms, left shift and int32 sums are jumped to), so
 * that the out-of-order A72 overlaps it with the next
 * tile's loop: the zero-point and bias terms, vqrdmulh, negatives less one
 * where the column shifts right (vsra of the sign of vqrdmulh's input,
 * masked by the shift's: its output has that sign or is 0, and 0 less one
 * rounds back to 0; it is never INT32_MIN, so it cannot wrap), the rounding
 * right shift, narrowing with saturation to 16 bits, the output zero point
 * added with saturation (a sum past 16 bits lies past the clamp either
 * way), narrowing with saturation to the type (NARROW, vqmovn.s16 or
 * vqmovun.s16) and the clamp there (T: s8 or u8); the stores. */
#define DEFINE_TILES(NAME, BLOCK, S, NARROW, T) \
    static void NAME(const uint8_t *a, ptrdiff_t lda, const uint8_t *panel, ptrdiff_t blocks, const int32_t *row_term, \
                     const tile_epilogue *e, uint8_t *c, ptrdiff_t ldc, ptrdiff_t tiles) \
    { \
        tile_walk w = {(int32_t)lda, (int32_t)ldc, panel, (int32_t)blocks, \
                       (row_term ? 4 : 0) | (e->sums ? 2 : e->shift_left ? 1 : 0), {0}, {0}, {0}, {0}, {0}, \
                       (int16_t)e->zero, (int8_t)e->lo, (int8_t)e->hi}; \
        memcpy(w.col_term, e->col_term, sizeof w.col_term); \
        if (!e->sums) { \
            memcpy(w.mantissa, e->mantissa, sizeof w.mantissa); \
            memcpy(w.right, e->right, sizeof w.right); \
            memcpy(w.left, e->left, sizeof w.left); \
        } \
        const uint8_t *a0, *a1, *b; \
        int32_t n, t; \
        __asm__ volatile("0:\n" \
                         "ldr %[t], [%[w]]\n" "mov %[a0], %[a]\n" "add %[a1], %[a], %[t]\n" \
                         "add %[a], %[a1], %[t]\n" "ldr %[b], [%[w], #8]\n" "ldr %[n], [%[w], #12]\n" \
                         LOAD_BLOCK \
                         BLOCK("vpaddl", S) \
                         "beq 2f\n" \
                         "1:\n" \
                         LOAD_BLOCK \
                         BLOCK("vpadal", S) \
                         "bne 1b\n" \
                         "2:\n" \
                         "add %[n], %[w], #32\n" \
                         "vld1.32 {d4-d5}, [%[n]]!\n" \
                         "vld1.32 {d10-d11}, [%[n]]!\n" \
                         ROW_SUMS(0, 1, 16, 17, 18, 19, 20, 21, 22, 23) \
                         ROW_SUMS(2, 3, 24, 25, 26, 27, 28, 29, 30, 31) \
                         "vadd.i32 q0, q0, q2\n" "vadd.i32 q1, q1, q2\n" \
                         "vld1.32 {d12-d13}, [%[n]]!\n" \
                         "ldr %[t], [%[w], #16]\n" "cmp %[t], #0\n" "bne 5f\n" \
                         "6:\n" \
                         "vand q3, q0, q6\n" "vand q4, q1, q6\n" \
                         "vqrdmulh.s32 q0, q0, q5\n" "vqrdmulh.s32 q1, q1, q5\n" \
                         "add %[n], %[w], #96\n" \
                         "vld1.16 {d4[], d5[]}, [%[n]]!\n" "vld1.8 {d10[]}, [%[n]]!\n" "vld1.8 {d11[]}, [%[n]]\n" \
                         "vsra.s32 q0, q3, #31\n" "vsra.s32 q1, q4, #31\n" \
                         "ldr %[n], [%[w], #4]\n" \
                         "vrshl.s32 q0, q0, q6\n" "vrshl.s32 q1, q1, q6\n" \
                         "vqmovn.s32 d0, q0\n" "vqmovn.s32 d1, q1\n" \
                         "vqadd.s16 q0, q0, q2\n" \
                         NARROW " d0, q0\n" \
                         "vmax." T " d0, d0, d10\n" "vmin." T " d0, d0, d11\n" \
                         "vst1.32 {d0[0]}, [%[c]], %[n]\n" "vst1.32 {d0[1]}, [%[c]], %[n]\n" \
                         "8:\n" \
                         "subs %[tiles], %[tiles], #1\n" \
                         "bne 0b\n" \
                         "b 9f\n" \
                         /* the row terms, then the int32 sums or the left shift (vshl by 0 in columns without) */ \
                         "5:\n" \
                         "tst %[t], #4\n" "beq 4f\n" \
                         "vld1.32 {d6[], d7[]}, [%[row_term]]!\n" "vld1.32 {d8[], d9[]}, [%[row_term]]!\n" \
                         "vadd.i32 q0, q0, q3\n" "vadd.i32 q1, q1, q4\n" \
                         "4:\n" \
                         "tst %[t], #2\n" "bne 7f\n" \
                         "tst %[t], #1\n" "beq 6b\n" \
                         "vld1.32 {d14-d15}, [%[n]]\n" \
                         "vshl.s32 q0, q0, q7\n" "vshl.s32 q1, q1, q7\n" \
                         "b 6b\n" \
                         /* the int32 sums, for TensorFlow's 8-bit ops */ \
                         "7:\n" \
                         "ldr %[n], [%[w], #4]\n" \
                         "vst1.32 {d0-d1}, [%[c]], %[n]\n" "vst1.32 {d2-d3}, [%[c]], %[n]\n" \
                         "b 8b\n" \
                         "9:\n" \
                         : [a] "+r"(a), [c] "+r"(c), [tiles] "+r"(tiles), [row_term] "+r"(row_term), \
                           [a0] "=&r"(a0), [a1] "=&r"(a1), [b] "=&r"(b), [n] "=&r"(n), [t] "=&r"(t) \
                         : [w] "r"(&w) \
                         : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", \
                           "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", \
                           "d27", "d28", "d29", "d30", "d31", "cc", "memory"); \
    }

DEFINE_TILES(pair_tiles, PAIR_BLOCK, "s", "vqmovn.s16", "s8")
DEFINE_TILES(wide_s8_tiles, WIDE_BLOCK, "s", "vqmovn.s16", "s8")
DEFINE_TILES(wide_u8_tiles, WIDE_BLOCK, "u", "vqmovun.s16", "u8")
#endif

/* ---- the tiles of every variant ---- */

/* A panel: its whole mr x nr tiles in one call; a tile cut by the end of C
 * computes into a buffer and copies what C holds: with mr rows or more it
 * is moved up to end at the last row (recomputing rows before it), a single
 * row is read mr times, and fewer rows than mr are copied apart first. */
static inline __attribute__((always_inline)) void panel_tiles(const tp_tfl_qpanel *p, tiles_fn tiles, int mr, int nr)
{
    const tile_epilogue e = {p->col_term, p->mantissa, p->left, p->right, p->out_zero, p->lo, p->hi, p->shift_left,
                             p->all_right, p->sums};
    const int size = p->sums ? 4 : 1; /* bytes of an output */
    const int64_t whole = p->cols == nr ? p->rows / mr : 0;
    if (whole > 0)
        tiles(p->a, p->lda, p->panel, p->blocks, p->row_term, &e, p->c, p->ldc, whole);
    for (int64_t r0 = mr * whole; r0 < p->rows; r0 += mr) {
        const int rows = p->rows - r0 < mr ? (int)(p->rows - r0) : mr;
        const int64_t first = p->rows >= mr ? r0 + rows - mr : 0; /* the tile's first row */
        uint8_t values[TP_TFL_QGEMM_MAX_MR * 8 * 4], *copy = NULL;
        const uint8_t *a = p->a + first * p->lda;
        int64_t lda = p->rows == 1 ? 0 : p->lda;
        int32_t row_term[TP_TFL_QGEMM_MAX_MR] = {0};
        if (p->rows > 1 && p->rows < mr) {
            const int64_t bytes = 16 * p->blocks;
            if (!(copy = calloc((size_t)mr, (size_t)bytes)))
                abort(); /* a few KB; nothing sensible remains */
            for (int r = 0; r < p->rows; r++)
                memcpy(copy + r * bytes, p->a + r * p->lda, (size_t)bytes);
            a = copy, lda = bytes;
        }
        for (int r = 0; p->row_term && r < mr; r++)
            row_term[r] = p->row_term[first + (first + r < p->rows ? r : 0)];
        tiles(a, lda, p->panel, p->blocks, p->row_term ? row_term : NULL, &e, values, nr * size, 1);
        const int skip = (int)(r0 - first);
        tp_tfl_qtile_store(p->c + r0 * p->ldc, p->ldc, rows, p->cols, size, values + nr * size * skip, nr * size);
        free(copy);
    }
}

#if defined(__aarch64__)
/* The straight epilogue where the panel needs no more, else the general one. */
static tiles_fn codes_tiles(const tp_tfl_qpanel *p, tiles_fn general, tiles_fn codes_right, tiles_fn codes)
{
    if (p->row_term || p->sums || p->shift_left)
        return general;
    return p->all_right ? codes_right : codes;
}

static void panel_pair(const tp_tfl_qpanel *p)
{
    panel_tiles(p, codes_tiles(p, pair_tiles, pair_codes_right, pair_codes), MR, 4);
}
#else
static void panel_pair(const tp_tfl_qpanel *p) { panel_tiles(p, pair_tiles, MR, 4); }
#endif
static void panel_wide_s8(const tp_tfl_qpanel *p) { panel_tiles(p, wide_s8_tiles, MR, 4); }
static void panel_wide_u8(const tp_tfl_qpanel *p) { panel_tiles(p, wide_u8_tiles, MR, 4); }

static bool always(void) { return true; }

static const tp_tfl_qgemm_kernel pair = {"neon pair int8", MR, 4, 16, true, true, panel_pair, always, false};
static const tp_tfl_qgemm_kernel wide_s8 = {"neon wide int8", MR, 4, 16, true, false, panel_wide_s8, always,
                                            false};
static const tp_tfl_qgemm_kernel wide_u8 = {"neon wide uint8", MR, 4, 16, false, false, panel_wide_u8, always,
                                            false};

#if defined(TP_TFL_QGEMM_DOT)
/* ---- dot: 8 x 8, sdot/udot by lane, in assembly like the 4 x 4 tiles ----
 * Registers: rows of A x9-x16 (offset x17), panel x0, blocks x1; A in v0-v7,
 * B v8-v11, the accumulator of row r in v(16 + 2r) (columns 0-3) and
 * v(17 + 2r) (4-7), started at the column terms. The epilogue's steps run
 * over all sixteen accumulators (the out-of-order A76 has them all in
 * flight); where every column shifts right, the rounding shift's fixup is
 * one instruction (ssra: x + (x >> 31); sqrdmulh never gives INT32_MIN,
 * so it cannot wrap). */
#define ACC16(OP, X0, X1) \
    OP " v16.4s, v16.4s, " X0 "\n" OP " v17.4s, v17.4s, " X1 "\n" OP " v18.4s, v18.4s, " X0 "\n" \
    OP " v19.4s, v19.4s, " X1 "\n" OP " v20.4s, v20.4s, " X0 "\n" OP " v21.4s, v21.4s, " X1 "\n" \
    OP " v22.4s, v22.4s, " X0 "\n" OP " v23.4s, v23.4s, " X1 "\n" OP " v24.4s, v24.4s, " X0 "\n" \
    OP " v25.4s, v25.4s, " X1 "\n" OP " v26.4s, v26.4s, " X0 "\n" OP " v27.4s, v27.4s, " X1 "\n" \
    OP " v28.4s, v28.4s, " X0 "\n" OP " v29.4s, v29.4s, " X1 "\n" OP " v30.4s, v30.4s, " X0 "\n" \
    OP " v31.4s, v31.4s, " X1 "\n"
/* row r's two accumulators OP= X(r) */
#define ROW_ADD(R, A0, A1) "add v" #A0 ".4s, v" #A0 ".4s, v" #R ".4s\n" "add v" #A1 ".4s, v" #A1 ".4s, v" #R ".4s\n"
/* group G of 4 depth: the 8 rows' lane G with the columns in B0 and B1 */
#define DOT8(OP, G, B0, B1) \
    OP " v16.4s, v" #B0 ".16b, v0.4b[" #G "]\n" OP " v17.4s, v" #B1 ".16b, v0.4b[" #G "]\n" \
    OP " v18.4s, v" #B0 ".16b, v1.4b[" #G "]\n" OP " v19.4s, v" #B1 ".16b, v1.4b[" #G "]\n" \
    OP " v20.4s, v" #B0 ".16b, v2.4b[" #G "]\n" OP " v21.4s, v" #B1 ".16b, v2.4b[" #G "]\n" \
    OP " v22.4s, v" #B0 ".16b, v3.4b[" #G "]\n" OP " v23.4s, v" #B1 ".16b, v3.4b[" #G "]\n" \
    OP " v24.4s, v" #B0 ".16b, v4.4b[" #G "]\n" OP " v25.4s, v" #B1 ".16b, v4.4b[" #G "]\n" \
    OP " v26.4s, v" #B0 ".16b, v5.4b[" #G "]\n" OP " v27.4s, v" #B1 ".16b, v5.4b[" #G "]\n" \
    OP " v28.4s, v" #B0 ".16b, v6.4b[" #G "]\n" OP " v29.4s, v" #B1 ".16b, v6.4b[" #G "]\n" \
    OP " v30.4s, v" #B0 ".16b, v7.4b[" #G "]\n" OP " v31.4s, v" #B1 ".16b, v7.4b[" #G "]\n"
/* rounding shift's fixup, general form, for rows R0..R0+3 (accumulators from A):
 * -1 where the value is negative and its column shifts right (cmlt runs
 * on either of the A76's pipes, sshr #31 on one) */
#define FIXUP8(A0, A1, A2, A3, A4, A5, A6, A7) \
    "and v0.16b, v" #A0 ".16b, v10.16b\n" "and v1.16b, v" #A1 ".16b, v11.16b\n" \
    "and v2.16b, v" #A2 ".16b, v10.16b\n" "and v3.16b, v" #A3 ".16b, v11.16b\n" \
    "and v4.16b, v" #A4 ".16b, v10.16b\n" "and v5.16b, v" #A5 ".16b, v11.16b\n" \
    "and v6.16b, v" #A6 ".16b, v10.16b\n" "and v7.16b, v" #A7 ".16b, v11.16b\n" \
    "cmlt v0.4s, v0.4s, #0\n" "cmlt v1.4s, v1.4s, #0\n" "cmlt v2.4s, v2.4s, #0\n" "cmlt v3.4s, v3.4s, #0\n" \
    "cmlt v4.4s, v4.4s, #0\n" "cmlt v5.4s, v5.4s, #0\n" "cmlt v6.4s, v6.4s, #0\n" "cmlt v7.4s, v7.4s, #0\n" \
    "sqadd v" #A0 ".4s, v" #A0 ".4s, v0.4s\n" "sqadd v" #A1 ".4s, v" #A1 ".4s, v1.4s\n" \
    "sqadd v" #A2 ".4s, v" #A2 ".4s, v2.4s\n" "sqadd v" #A3 ".4s, v" #A3 ".4s, v3.4s\n" \
    "sqadd v" #A4 ".4s, v" #A4 ".4s, v4.4s\n" "sqadd v" #A5 ".4s, v" #A5 ".4s, v5.4s\n" \
    "sqadd v" #A6 ".4s, v" #A6 ".4s, v6.4s\n" "sqadd v" #A7 ".4s, v" #A7 ".4s, v7.4s\n"
#define FIXUP16 FIXUP8(16, 17, 18, 19, 20, 21, 22, 23) FIXUP8(24, 25, 26, 27, 28, 29, 30, 31)
#define SSRA16 \
    "ssra v16.4s, v16.4s, #31\n" "ssra v17.4s, v17.4s, #31\n" "ssra v18.4s, v18.4s, #31\n" \
    "ssra v19.4s, v19.4s, #31\n" "ssra v20.4s, v20.4s, #31\n" "ssra v21.4s, v21.4s, #31\n" \
    "ssra v22.4s, v22.4s, #31\n" "ssra v23.4s, v23.4s, #31\n" "ssra v24.4s, v24.4s, #31\n" \
    "ssra v25.4s, v25.4s, #31\n" "ssra v26.4s, v26.4s, #31\n" "ssra v27.4s, v27.4s, #31\n" \
    "ssra v28.4s, v28.4s, #31\n" "ssra v29.4s, v29.4s, #31\n" "ssra v30.4s, v30.4s, #31\n" \
    "ssra v31.4s, v31.4s, #31\n"
/* int32 -> int16 with saturation, row r into v(r) */
#define NARROW16 \
    "sqxtn v0.4h, v16.4s\n" "sqxtn v1.4h, v18.4s\n" "sqxtn v2.4h, v20.4s\n" "sqxtn v3.4h, v22.4s\n" \
    "sqxtn v4.4h, v24.4s\n" "sqxtn v5.4h, v26.4s\n" "sqxtn v6.4h, v28.4s\n" "sqxtn v7.4h, v30.4s\n" \
    "sqxtn2 v0.8h, v17.4s\n" "sqxtn2 v1.8h, v19.4s\n" "sqxtn2 v2.8h, v21.4s\n" "sqxtn2 v3.8h, v23.4s\n" \
    "sqxtn2 v4.8h, v25.4s\n" "sqxtn2 v5.8h, v27.4s\n" "sqxtn2 v6.8h, v29.4s\n" "sqxtn2 v7.8h, v31.4s\n"
/* two rows of int16 to 16 codes in v(R0) (NARROW: sqxtn or sqxtun), clamped */
#define NARROW8(NARROW, MAX, MIN, R0, R1) \
    NARROW " v" #R0 ".8b, v" #R0 ".8h\n" NARROW "2 v" #R0 ".16b, v" #R1 ".8h\n" \
    MAX " v" #R0 ".16b, v" #R0 ".16b, v13.16b\n" MIN " v" #R0 ".16b, v" #R0 ".16b, v14.16b\n"
#define STORE_SUMS(V0, V1) "stp q" #V0 ", q" #V1 ", [%[c]]\n" "add %[c], %[c], %[ldc]\n"
#define STORE_ROWS(V) \
    "st1 {v" #V ".d}[0], [x6]\n" "add x6, x6, %[ldc]\n" "st1 {v" #V ".d}[1], [x6]\n" "add x6, x6, %[ldc]\n"

/* The tile's start and its loop: row pointers, the accumulators started
 * at the column terms (x2 -> col_term, x3 -> mantissa after it; loaded
 * into each, as loads leave the A76's NEON pipes free), the blocks of 16
 * depth. */
#define DOT_LOOP(OP) \
    "0:\n" \
    "mov x9, %[a]\n" "add x10, x9, %[lda]\n" "add x11, x10, %[lda]\n" \
    "add x12, x11, %[lda]\n" "add x13, x12, %[lda]\n" "add x14, x13, %[lda]\n" \
    "add x15, x14, %[lda]\n" "add x16, x15, %[lda]\n" \
    "mov x0, %[panel]\n" "mov x1, %[blocks]\n" "mov x17, #0\n" \
    "ldp x2, x3, [%[e]]\n" \
    "ldp q16, q17, [x2]\n" "ldp q18, q19, [x2]\n" "ldp q20, q21, [x2]\n" "ldp q22, q23, [x2]\n" \
    "ldp q24, q25, [x2]\n" "ldp q26, q27, [x2]\n" "ldp q28, q29, [x2]\n" "ldp q30, q31, [x2]\n" \
    "1:\n" \
    "ldr q0, [x9, x17]\n" "ldr q1, [x10, x17]\n" "ldr q2, [x11, x17]\n" \
    "ldr q3, [x12, x17]\n" "ldr q4, [x13, x17]\n" "ldr q5, [x14, x17]\n" \
    "ldr q6, [x15, x17]\n" "ldr q7, [x16, x17]\n" \
    "ldp q8, q9, [x0]\n" "ldp q10, q11, [x0, #32]\n" \
    DOT8(OP, 0, 8, 9) \
    "ldp q8, q9, [x0, #64]\n" \
    DOT8(OP, 1, 10, 11) \
    "ldp q10, q11, [x0, #96]\n" \
    DOT8(OP, 2, 8, 9) \
    "add x17, x17, #16\n" "add x0, x0, #128\n" "subs x1, x1, #1\n" \
    DOT8(OP, 3, 10, 11) \
    "b.ne 1b\n"
/* the next tile, down 8 rows */
#define DOT_NEXT \
    "add %[a], %[a], %[lda], lsl #3\n" \
    "subs %[tiles], %[tiles], #1\n" \
    "b.ne 0b\n"
#define DOT_OPERANDS \
    : [a] "+r"(a), [c] "+r"(c), [tiles] "+r"(tiles), [row_term] "+r"(row_term) \
    : [lda] "r"(lda), [panel] "r"(panel), [blocks] "r"(blocks), [e] "r"(e), [ldc] "r"(ldc) \
    : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", \
      "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "x0", \
      "x1", "x2", "x3", "x4", "x5", "x6", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "cc", \
      "memory"
#define DOT_SIGNATURE(NAME) \
    __attribute__((target("arch=armv8.2-a+dotprod"))) static void NAME( \
        const uint8_t *a, ptrdiff_t lda, const uint8_t *panel, ptrdiff_t blocks, const int32_t *row_term, \
        const tile_epilogue *e, uint8_t *c, ptrdiff_t ldc, ptrdiff_t tiles)

/* Every epilogue: row terms, left shifts, int32 sums, each where asked. */
#define DEFINE_DOT_TILES(NAME, OP, NARROW, MAX, MIN) \
    DOT_SIGNATURE(NAME) \
    { \
        __asm__ volatile(DOT_LOOP(OP) \
                         "cbz %[row_term], 2f\n" \
                         "ld1r {v0.4s}, [%[row_term]], #4\n" "ld1r {v1.4s}, [%[row_term]], #4\n" \
                         "ld1r {v2.4s}, [%[row_term]], #4\n" "ld1r {v3.4s}, [%[row_term]], #4\n" \
                         "ld1r {v4.4s}, [%[row_term]], #4\n" "ld1r {v5.4s}, [%[row_term]], #4\n" \
                         "ld1r {v6.4s}, [%[row_term]], #4\n" "ld1r {v7.4s}, [%[row_term]], #4\n" \
                         ROW_ADD(0, 16, 17) ROW_ADD(1, 18, 19) ROW_ADD(2, 20, 21) ROW_ADD(3, 22, 23) \
                         ROW_ADD(4, 24, 25) ROW_ADD(5, 26, 27) ROW_ADD(6, 28, 29) ROW_ADD(7, 30, 31) \
                         "2:\n" \
                         "ldr w4, [%[e], #52]\n" \
                         "cbnz w4, 7f\n" \
                         "ldr w4, [%[e], #44]\n" \
                         "cbz w4, 3f\n" \
                         "ldr x5, [%[e], #16]\n" "ldp q8, q9, [x5]\n" \
                         ACC16("sshl", "v8.4s", "v9.4s") \
                         "3:\n" \
                         "ldp q8, q9, [x3]\n" \
                         "ldr x5, [%[e], #24]\n" "ldp q10, q11, [x5]\n" \
                         ACC16("sqrdmulh", "v8.4s", "v9.4s") \
                         "ldr w4, [%[e], #48]\n" \
                         "cbz w4, 4f\n" \
                         SSRA16 \
                         "b 5f\n" \
                         "4:\n" \
                         FIXUP16 \
                         "5:\n" \
                         ACC16("srshl", "v10.4s", "v11.4s") \
                         "add x5, %[e], #32\n" \
                         "ld1r {v12.4s}, [x5], #4\n" "ld1r {v13.16b}, [x5]\n" "add x5, x5, #4\n" "ld1r {v14.16b}, [x5]\n" \
                         ACC16("add", "v12.4s", "v12.4s") \
                         NARROW16 \
                         NARROW8(NARROW, MAX, MIN, 0, 1) NARROW8(NARROW, MAX, MIN, 2, 3) \
                         NARROW8(NARROW, MAX, MIN, 4, 5) NARROW8(NARROW, MAX, MIN, 6, 7) \
                         "mov x6, %[c]\n" \
                         STORE_ROWS(0) STORE_ROWS(2) STORE_ROWS(4) STORE_ROWS(6) \
                         "mov %[c], x6\n" \
                         "b 8f\n" \
                         /* the int32 sums, for TensorFlow's 8-bit ops */ \
                         "7:\n" \
                         STORE_SUMS(16, 17) STORE_SUMS(18, 19) STORE_SUMS(20, 21) STORE_SUMS(22, 23) \
                         STORE_SUMS(24, 25) STORE_SUMS(26, 27) STORE_SUMS(28, 29) STORE_SUMS(30, 31) \
                         "8:\n" \
                         DOT_NEXT \
                         DOT_OPERANDS); \
    }

/* rows r and r + 1 (int16, v R0 and v R1) plus the zero point, clamped,
 * into 16 codes in v R0 (their low bytes: the clamp keeps them in range) */
#define CODES16(R0, R1) \
    "sqadd v" #R0 ".8h, v" #R0 ".8h, v12.8h\n" "sqadd v" #R1 ".8h, v" #R1 ".8h, v12.8h\n" \
    "smax v" #R0 ".8h, v" #R0 ".8h, v13.8h\n" "smax v" #R1 ".8h, v" #R1 ".8h, v13.8h\n" \
    "smin v" #R0 ".8h, v" #R0 ".8h, v14.8h\n" "smin v" #R1 ".8h, v" #R1 ".8h, v14.8h\n" \
    "uzp1 v" #R0 ".16b, v" #R0 ".16b, v" #R1 ".16b\n"
/* Codes without row terms or left shifts (MobileNets' layers), the whole
 * epilogue one straight run, so the A76's two pipes share it. The
 * rounding shift's fixup comes before the multiply: -1 where the sum is
 * negative (cmlt, on either pipe; FIX_MASKED: and where its column shifts
 * right, the sign of the and), added by sqrdmlah to the doubling high
 * product. The same as adding x >> 31 after it: the product has the sum's
 * sign (mantissas are positive) or is 0, and then -1 still rounds to 0
 * under a right shift of at least 1; no saturation (|product| < 2^31 - 1).
 * After the narrowing to int16 (saturating) the zero point is a
 * saturating 16-bit add and the clamp 16-bit: the clamp's range lies
 * inside int16's, so any sum past int16 still clamps to the same code.
 * Rows 0-3 land in v0-v7, rows 4-7 in v16-v23 (each half's fixups start
 * in free registers), their int16 rows in v24-v31. */
#define FIX_RIGHT(F, A, SHIFT) "cmlt v" #F ".4s, v" #A ".4s, #0\n"
#define FIX_MASKED(F, A, SHIFT) "and v" #F ".16b, v" #A ".16b, " SHIFT "\n" "cmlt v" #F ".4s, v" #F ".4s, #0\n"
/* columns 0-3 and 4-7 of a row (accumulators A0, A1) rescaled into F0, F1 */
#define RESCALE2(FIX, F0, F1, A0, A1) \
    FIX(F0, A0, "v10.16b") "sqrdmlah v" #F0 ".4s, v" #A0 ".4s, v8.4s\n" \
    FIX(F1, A1, "v11.16b") "sqrdmlah v" #F1 ".4s, v" #A1 ".4s, v9.4s\n"
#define SHIFT2(F0, F1) "srshl v" #F0 ".4s, v" #F0 ".4s, v10.4s\n" "srshl v" #F1 ".4s, v" #F1 ".4s, v11.4s\n"
#define NARROW_ROW(R, LO, HI) "sqxtn v" #R ".4h, v" #LO ".4s\n" "sqxtn2 v" #R ".8h, v" #HI ".4s\n"
#define DEFINE_DOT_CODES(NAME, OP, FIX) \
    DOT_SIGNATURE(NAME) \
    { \
        __asm__ volatile(DOT_LOOP(OP) \
                         "ldp q8, q9, [x3]\n" \
                         "ldr x5, [%[e], #24]\n" "ldp q10, q11, [x5]\n" \
                         "add x5, %[e], #32\n" "mov x4, #4\n" \
                         "ld1r {v12.8h}, [x5], x4\n" "ld1r {v13.8h}, [x5], x4\n" "ld1r {v14.8h}, [x5]\n" \
                         RESCALE2(FIX, 0, 1, 16, 17) RESCALE2(FIX, 2, 3, 18, 19) \
                         RESCALE2(FIX, 4, 5, 20, 21) RESCALE2(FIX, 6, 7, 22, 23) \
                         RESCALE2(FIX, 16, 17, 24, 25) RESCALE2(FIX, 18, 19, 26, 27) \
                         RESCALE2(FIX, 20, 21, 28, 29) RESCALE2(FIX, 22, 23, 30, 31) \
                         SHIFT2(0, 1) SHIFT2(2, 3) SHIFT2(4, 5) SHIFT2(6, 7) \
                         SHIFT2(16, 17) SHIFT2(18, 19) SHIFT2(20, 21) SHIFT2(22, 23) \
                         NARROW_ROW(24, 0, 1) NARROW_ROW(25, 2, 3) NARROW_ROW(26, 4, 5) NARROW_ROW(27, 6, 7) \
                         NARROW_ROW(28, 16, 17) NARROW_ROW(29, 18, 19) NARROW_ROW(30, 20, 21) \
                         NARROW_ROW(31, 22, 23) \
                         CODES16(24, 25) CODES16(26, 27) CODES16(28, 29) CODES16(30, 31) \
                         "mov x6, %[c]\n" \
                         STORE_ROWS(24) STORE_ROWS(26) STORE_ROWS(28) STORE_ROWS(30) \
                         "mov %[c], x6\n" \
                         DOT_NEXT \
                         DOT_OPERANDS); \
    }

DEFINE_DOT_TILES(dot_s8_tiles, "sdot", "sqxtn", "smax", "smin")
DEFINE_DOT_TILES(dot_u8_tiles, "udot", "sqxtun", "umax", "umin")
DEFINE_DOT_CODES(dot_s8_codes_right, "sdot", FIX_RIGHT)
DEFINE_DOT_CODES(dot_s8_codes, "sdot", FIX_MASKED)
DEFINE_DOT_CODES(dot_u8_codes_right, "udot", FIX_RIGHT)
DEFINE_DOT_CODES(dot_u8_codes, "udot", FIX_MASKED)

static void panel_dot_s8(const tp_tfl_qpanel *p)
{
    panel_tiles(p, codes_tiles(p, dot_s8_tiles, dot_s8_codes_right, dot_s8_codes), 8, 8);
}
static void panel_dot_u8(const tp_tfl_qpanel *p)
{
    panel_tiles(p, codes_tiles(p, dot_u8_tiles, dot_u8_codes_right, dot_u8_codes), 8, 8);
}

/* sdot/udot, and sqrdmlah (armv8.1's, part of every core with them) */
static bool has_dot(void)
{
    const unsigned long hwcap = getauxval(AT_HWCAP);
    return (hwcap & HWCAP_ASIMDDP) && (hwcap & HWCAP_ASIMDRDM);
}

static const tp_tfl_qgemm_kernel dot_s8 = {"dot int8", 8, 8, 4, true, false, panel_dot_s8, has_dot, true};
static const tp_tfl_qgemm_kernel dot_u8 = {"dot uint8", 8, 8, 4, false, false, panel_dot_u8, has_dot, true};
#endif

const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_neon_kernels[] = {
#if defined(TP_TFL_QGEMM_DOT)
    &dot_s8, &dot_u8,
#endif
    &pair, &wide_s8, &wide_u8, NULL,
};

#else
const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_neon_kernels[] = {NULL};
#endif
