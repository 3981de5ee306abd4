/* tflite_qgemm_kernel.h - inside the 8-bit GEMM of tflite_qgemm.h: what a
 * variant is (its tile, its panels' layout, the codes it handles) and the
 * one tile a micro-kernel computes. tflite_qgemm.c drives the tiles and
 * holds the plain C variant; tflite_qgemm_neon.c and tflite_qgemm_x86.c
 * the SIMD ones. */
#ifndef TFPI_TFLITE_QGEMM_KERNEL_H
#define TFPI_TFLITE_QGEMM_KERNEL_H

#include "compute/tflite_qgemm.h"

enum { TP_TFL_QGEMM_MAX_MR = 8 };

/* One column panel of C: rows x cols outputs, cols <= the variant's nr,
 * the rows cut by the micro-kernel into tiles of mr. */
typedef struct tp_tfl_qpanel {
    const uint8_t *a; /* row r at a + r * lda */
    int64_t lda, rows;
    const uint8_t *panel; /* `blocks` blocks of 16 depth */
    int64_t blocks;
    const int32_t *row_term; /* rows values (-zb rowsum(a)), or NULL if zb is 0 */
    /* nr values each from the panel's first column (readable past n) */
    const int32_t *col_term, *mantissa, *left, *right;
    bool shift_left; /* some column has left > 0 */
    bool all_right;  /* every column has right < 0 */
    int32_t out_zero, lo, hi;
    bool sums; /* store int32 sums plus terms (tp_tfl_qgemm_out.sums) */
    uint8_t *c; /* the panel's first output */
    int64_t ldc; /* bytes */
    int cols;
} tp_tfl_qpanel;

typedef void (*tp_tfl_qpanel_fn)(const tp_tfl_qpanel *p);

struct tp_tfl_qgemm_kernel {
    const char *name;
    int mr, nr;
    /* Panel layout: in each block of 16 depth, groups of `group` depth
     * (16, or 4 for dot products), each group nr columns x group codes. */
    int group;
    bool is_int8;           /* the codes it multiplies: int8 or uint8 */
    bool weights_in_127;    /* needs int8 weights in [-127, 127] */
    tp_tfl_qpanel_fn panel;
    bool (*available)(void); /* the CPU has its instructions */
    bool extension;          /* an instruction-set extension's: not for the "generic" family */
};

/* The SIMD variants of this build (each file's table, NULL-ended). */
extern const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_neon_kernels[];
extern const tp_tfl_qgemm_kernel *const tp_tfl_qgemm_x86_kernels[];

/* Stores a tile's outputs of `size` bytes each (row r at values + r *
 * stride bytes) into rows x cols outputs at c (row stride ldc bytes). */
void tp_tfl_qtile_store(uint8_t *c, int64_t ldc, int rows, int cols, int size, const uint8_t *values, int stride);
/* The scalar epilogue of a tile at row r0 of the panel: its rows x 4 raw
 * sums (row r at raw + 4 r) plus the column and row terms, rescaled to
 * codes (or kept as int32 sums), stored into C. */
void tp_tfl_qtile_finish(const tp_tfl_qpanel *p, int64_t r0, int rows, const uint32_t *raw);

#endif
