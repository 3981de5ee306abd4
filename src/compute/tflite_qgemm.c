/* tflite_qgemm.c - the 8-bit GEMM of tflite_qgemm.h: choosing a variant,
 * packing the weights into its panels, walking the tiles, and the plain C
 * variant (also what the SIMD ones are tested against, with the reference
 * convolution). */
#include "compute/tflite_qgemm_kernel.h"

#include <stdlib.h>
#include <string.h>

#include "compute/tflite_qconv.h"
#include "graph/derived.h"
#include "graph/graph.h"

/* ---- the plain C variant: 4 x 4 tiles, any codes ---- */

static int32_t code(bool is_int8, uint8_t byte) { return is_int8 ? (int8_t)byte : byte; }

static void panel_c(const tp_tfl_qpanel *p, bool is_int8)
{
    for (int64_t r0 = 0; r0 < p->rows; r0 += 4) {
        const int rows = p->rows - r0 < 4 ? (int)(p->rows - r0) : 4;
        uint32_t acc[4][4] = {{0}};
        const uint8_t *panel = p->panel;
        for (int64_t blk = 0; blk < p->blocks; blk++, panel += 64)
            for (int r = 0; r < rows; r++)
                for (int j = 0; j < 4; j++)
                    for (int k = 0; k < 16; k++)
                        acc[r][j] += (uint32_t)(code(is_int8, p->a[(r0 + r) * p->lda + 16 * blk + k]) *
                                                code(is_int8, panel[16 * j + k]));
        tp_tfl_qtile_finish(p, r0, rows, &acc[0][0]);
    }
}

static void panel_c_int8(const tp_tfl_qpanel *p) { panel_c(p, true); }
static void panel_c_uint8(const tp_tfl_qpanel *p) { panel_c(p, false); }
static bool always(void) { return true; }

static const tp_tfl_qgemm_kernel c_int8 = {"c int8", 4, 4, 16, true, false, panel_c_int8, always, false};
static const tp_tfl_qgemm_kernel c_uint8 = {"c uint8", 4, 4, 16, false, false, panel_c_uint8, always, false};

void tp_tfl_qtile_store(uint8_t *c, int64_t ldc, int rows, int cols, int size, const uint8_t *values, int stride)
{
    for (int r = 0; r < rows; r++)
        memcpy(c + r * ldc, values + r * stride, (size_t)(cols * size));
}

void tp_tfl_qtile_finish(const tp_tfl_qpanel *p, int64_t r0, int rows, const uint32_t *raw)
{
    int32_t sums[TP_TFL_QGEMM_MAX_MR][4];
    uint8_t codes[TP_TFL_QGEMM_MAX_MR][4];
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < 4; j++) {
            const uint32_t row_term = p->row_term ? (uint32_t)p->row_term[r0 + r] : 0u;
            sums[r][j] = (int32_t)(raw[4 * r + j] + (uint32_t)p->col_term[j] + row_term);
            const tp_tfl_multiplier m = {p->mantissa[j], p->left[j] + p->right[j]};
            codes[r][j] = p->sums ? 0 : (uint8_t)tp_tflite_requantize(sums[r][j], m, p->out_zero, p->lo, p->hi);
        }
    if (p->sums)
        tp_tfl_qtile_store(p->c + r0 * p->ldc, p->ldc, rows, p->cols, 4, (const uint8_t *)sums, 16);
    else
        tp_tfl_qtile_store(p->c + r0 * p->ldc, p->ldc, rows, p->cols, 1, &codes[0][0], 4);
}

/* ---- the variants ---- */

enum { MAX_KERNELS = 16 };

const tp_tfl_qgemm_kernel *const *tp_tfl_qgemm_kernels(int *count)
{
    static const tp_tfl_qgemm_kernel *all[MAX_KERNELS];
    int n = 0;
    for (int i = 0; tp_tfl_qgemm_neon_kernels[i] && n < MAX_KERNELS - 2; i++)
        all[n++] = tp_tfl_qgemm_neon_kernels[i];
    for (int i = 0; tp_tfl_qgemm_x86_kernels[i] && n < MAX_KERNELS - 2; i++)
        all[n++] = tp_tfl_qgemm_x86_kernels[i];
    all[n++] = &c_int8;
    all[n++] = &c_uint8;
    *count = n;
    return all;
}

const char *tp_tfl_qgemm_kernel_name(const tp_tfl_qgemm_kernel *k) { return k->name; }

bool tp_tfl_qgemm_kernel_fits(const tp_tfl_qgemm_kernel *k, bool is_int8, bool weights_hold_min)
{
    return k->is_int8 == is_int8 && !(k->weights_in_127 && weights_hold_min) && k->available();
}

/* The first fitting variant of the list for this family (dot products
 * only for a named family: "generic" is the portable set). */
const tp_tfl_qgemm_kernel *tp_tfl_qgemm_kernel_for(tp_cpu cpu, bool is_int8, bool weights_hold_min)
{
    int count;
    const tp_tfl_qgemm_kernel *const *all = tp_tfl_qgemm_kernels(&count);
    for (int i = 0; i < count; i++) {
        const tp_tfl_qgemm_kernel *k = all[i];
        if (tp_tfl_qgemm_kernel_fits(k, is_int8, weights_hold_min) &&
            (!k->extension || cpu.core != TP_CPU_GENERIC))
            return k;
    }
    return is_int8 ? &c_int8 : &c_uint8;
}

/* ---- packing ---- */

static int64_t panel_bytes(const tp_tfl_qgemm_kernel *k, int64_t depth)
{
    return tp_tfl_qgemm_row_bytes(depth) * k->nr;
}

static int64_t panels_bytes(const tp_tfl_qgemm_kernel *k, int64_t depth, int64_t n)
{
    return (n + k->nr - 1) / k->nr * panel_bytes(k, depth);
}

int64_t tp_tfl_qgemm_packed_bytes(const tp_tfl_qgemm_kernel *k, int64_t depth, int64_t n)
{
    return panels_bytes(k, depth, n) + 4 * n;
}

void tp_tfl_qgemm_pack(const tp_tfl_qgemm_kernel *k, const void *b, int64_t depth, int64_t n, int64_t col_stride,
                       int64_t depth_stride, void *dst)
{
    const uint8_t *w = b;
    uint8_t *panels = dst;
    const int64_t g = k->group;
    memset(panels, 0, (size_t)panels_bytes(k, depth, n));
    int32_t *sums = (int32_t *)(panels + panels_bytes(k, depth, n));
    for (int64_t j = 0; j < n; j++) {
        uint32_t sum = 0;
        uint8_t *panel = panels + j / k->nr * panel_bytes(k, depth);
        const int64_t col = j % k->nr;
        for (int64_t d = 0; d < depth; d++) {
            const uint8_t v = w[j * col_stride + d * depth_stride];
            sum += (uint32_t)code(k->is_int8, v);
            panel[d / 16 * 16 * k->nr + ((d % 16) / g * k->nr + col) * g + d % g] = v;
        }
        memcpy(&sums[j], &sum, 4);
    }
}

typedef struct pack_arg {
    const tp_tfl_qgemm_kernel *kernel;
    const void *b;
    int64_t depth, n, col_stride, depth_stride;
} pack_arg;

static bool pack(void *arg, void *buffer)
{
    const pack_arg *p = arg;
    tp_tfl_qgemm_pack(p->kernel, p->b, p->depth, p->n, p->col_stride, p->depth_stride, buffer);
    return true;
}

const void *tp_tfl_qgemm_pack_for_graph(const tp_tfl_qgemm_kernel *k, const tfpi_graph *graph, const void *owner,
                                        const void *b, int64_t depth, int64_t n, int64_t col_stride,
                                        int64_t depth_stride, void **owned)
{
    pack_arg arg = {k, b, depth, n, col_stride, depth_stride};
    const int64_t bytes = tp_tfl_qgemm_packed_bytes(k, depth, n);
    *owned = NULL;
    const void *packed = tp_graph_derived(graph, owner, k->name, depth * 2 + (col_stride == 1), (size_t)bytes, pack, &arg);
    if (packed) {
        /* The GEMM reads only the panels: weights read from the model
         * file in place need not stay resident beside them. */
        tp_graph_drop_constant_pages(graph, b, (size_t)(depth * n));
        return packed;
    }
    if ((*owned = aligned_alloc(64, (size_t)(bytes + 63) / 64 * 64)))
        pack(&arg, *owned);
    return *owned;
}

int32_t tp_tfl_qgemm_col_sum(const tp_tfl_qgemm_kernel *k, const void *packed, int64_t depth, int64_t n, int64_t j)
{
    int32_t sum;
    memcpy(&sum, (const uint8_t *)packed + panels_bytes(k, depth, n) + 4 * j, 4);
    return sum;
}

/* ---- the tiles ---- */

/* The sum of a row's depth codes, in lanes over fixed blocks so that -O2
 * vectorizes it (a scalar loop costs as much as a narrow product). */
static int32_t row_sum(const uint8_t *row, int64_t depth, bool is_int8)
{
    enum { LANES = 32 };
    uint32_t lanes[LANES] = {0}, sum = 0;
    int64_t d = 0;
    if (is_int8)
        for (; d + LANES <= depth; d += LANES)
            for (int j = 0; j < LANES; j++)
                lanes[j] += (uint32_t)(int8_t)row[d + j];
    else
        for (; d + LANES <= depth; d += LANES)
            for (int j = 0; j < LANES; j++)
                lanes[j] += row[d + j];
    for (; d < depth; d++)
        sum += is_int8 ? (uint32_t)(int8_t)row[d] : row[d];
    for (int j = 0; j < LANES; j++)
        sum += lanes[j];
    return (int32_t)sum;
}

void tp_tfl_qgemm_run(const tp_tfl_qgemm_kernel *k, const void *packed, int64_t depth, const uint8_t *a, int64_t lda,
                      int64_t m, const tp_tfl_qgemm_out *out, void *c, int64_t ldc, int64_t col_begin,
                      int64_t col_end, int32_t *scratch)
{
    const bool row_terms = out->row_zero != 0;
    for (int64_t r = 0; row_terms && r < m; r++)
        scratch[r] = (int32_t)(0u - (uint32_t)out->row_zero * (uint32_t)row_sum(a + r * lda, depth, k->is_int8));
    bool shift_left = false, all_right = true;
    for (int64_t j = col_begin; j < col_end; j++) {
        shift_left = shift_left || out->left[j] > 0;
        all_right = all_right && out->right[j] < 0;
    }
    tp_tfl_qpanel p = {.a = a, .lda = lda, .rows = m, .blocks = tp_tfl_qgemm_row_bytes(depth) / 16,
                       .row_term = row_terms ? scratch : NULL, .shift_left = shift_left, .all_right = all_right, .out_zero = out->out_zero,
                       .lo = out->lo, .hi = out->hi, .sums = out->sums, .ldc = ldc * (out->sums ? 4 : 1)};
    for (int64_t j0 = col_begin; j0 < col_end; j0 += k->nr) {
        p.panel = (const uint8_t *)packed + j0 / k->nr * panel_bytes(k, depth);
        p.col_term = out->col_term + j0, p.mantissa = out->mantissa + j0;
        p.left = out->left + j0, p.right = out->right + j0;
        p.cols = (int)(col_end - j0 < k->nr ? col_end - j0 : k->nr);
        p.c = (uint8_t *)c + j0 * (out->sums ? 4 : 1);
        k->panel(&p);
    }
}
