/* quantized_conv.c - QuantizedConv2D and QuantizedMatMul: quint8 inputs
 * and weights, each with its float range, to qint32 sums of
 * (input - input zero) * (weight - weight zero), where a zero is the code
 * TF's FloatToQuantizedUnclamped gives 0.0 (../shared/docs/quantized.md
 * 3.1, 3.2), and the range of the product. Both run the 8-bit GEMM of
 * src/compute/qgemm.c with the weights' column sums computed while
 * planning; a convolution copies each output pixel's taps into a row
 * (padding taps hold the input zero, which contributes nothing). An input
 * whose zero lies outside 0..255 cannot pad that way and takes the direct
 * loop, as TF's reference path does. TF's patch origin is kept: for VALID
 * padding with large strides it is one pixel off float Conv2D's. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/qgemm.h"
#include "compute/quantized_args.h"
#include "compute/window_geometry.h"

typedef struct qconv_state {
    tp_window_params params;
    int64_t k;             /* taps * input channels */
    uint32_t *col_sums;    /* of the filter, when it is known while planning */
} qconv_state;

static void qconv_release(void *state)
{
    qconv_state *s = state;
    if (s)
        free(s->col_sums);
    free(s);
}

/* TF's patch origin (QuantizedConv2D, TF 1.13-1.15): C division, so it can
 * be negative. */
static int64_t patch_origin(bool same, int64_t out, int64_t stride, int64_t window, int64_t in)
{
    return ((out - 1) * stride + window - in + (same ? 0 : 1)) / 2;
}

/* Column sums of a known [k][n] weight matrix into *sums (NULL if unknown). */
static tfpi_code known_col_sums(tp_op_ctx *ctx, const tfpi_tensor *w, int64_t k, int64_t n, uint32_t **sums)
{
    *sums = NULL;
    if (!w->data)
        return TFPI_OK;
    *sums = malloc(sizeof **sums * (size_t)(n ? n : 1));
    if (!*sums)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the weights' sums");
    tp_qgemm_col_sums(w->data, k, n, *sums);
    return TFPI_OK;
}

static tfpi_code qconv_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 6, 6)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_QUINT8)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 1, TFPI_QUINT8)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 4)) != TFPI_OK)
        return code;
    if (tp_attr_type(ctx->def, "out_type", TFPI_QINT32) != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type must be qint32");
    qconv_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    tp_window_params *p = &s->params;
    if ((code = tp_conv_window_geometry(ctx, false, p)) != TFPI_OK)
        return code;
    if (p->dilation_h != 1 || p->dilation_w != 1)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "dilations other than 1 are not supported (as in TensorFlow)");
    if (p->stride_h != p->stride_w)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "strides must be equal in height and width (as in TensorFlow)");
    char buf[16];
    bool same = strcmp(tp_attr_string(ctx->def, "padding", buf, sizeof buf, ""), "SAME") == 0;
    p->pad_top = patch_origin(same, p->out_h, p->stride_h, p->window_h, p->in_h);
    p->pad_left = patch_origin(same, p->out_w, p->stride_w, p->window_w, p->in_w);
    s->k = p->window_h * p->window_w * p->in_c;
    if ((code = known_col_sums(ctx, ctx->inputs[1], s->k, p->out_c, &s->col_sums)) != TFPI_OK)
        return code;
    int64_t dims[4] = {p->batch, p->out_h, p->out_w, p->out_c};
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, 4, dims);
}

/* The direct loop, for any input zero: out-of-image taps contribute 0. */
static void qconv_direct(const tp_window_params *p, const uint8_t *in, const uint8_t *filter, int32_t zi,
                         int32_t zf, int32_t *out)
{
    for (int64_t b = 0; b < p->batch; b++)
        for (int64_t oy = 0; oy < p->out_h; oy++)
            for (int64_t ox = 0; ox < p->out_w; ox++)
                for (int64_t oc = 0; oc < p->out_c; oc++) {
                    uint32_t acc = 0;
                    for (int64_t fy = 0; fy < p->window_h; fy++) {
                        int64_t y = oy * p->stride_h - p->pad_top + fy;
                        for (int64_t fx = 0; y >= 0 && y < p->in_h && fx < p->window_w; fx++) {
                            int64_t x = ox * p->stride_w - p->pad_left + fx;
                            if (x < 0 || x >= p->in_w)
                                continue;
                            const uint8_t *pixel = in + ((b * p->in_h + y) * p->in_w + x) * p->in_c;
                            const uint8_t *w = filter + ((fy * p->window_w + fx) * p->in_c) * p->out_c + oc;
                            for (int64_t c = 0; c < p->in_c; c++)
                                acc += (uint32_t)(((int64_t)pixel[c] - zi) * ((int64_t)w[c * p->out_c] - zf));
                        }
                    }
                    out[((b * p->out_h + oy) * p->out_w + ox) * p->out_c + oc] = (int32_t)acc;
                }
}

enum { ROWS_PER_CHUNK = 16 };

typedef struct qconv_job {
    const tp_window_params *p;
    const uint8_t *in;
    tp_qgemm gemm; /* a, m are set per chunk */
    bool direct_rows; /* 1x1, stride 1, no padding: the input is A */
    bool failed;
} qconv_job;

/* Copies the taps of output pixel `row` into dst (k codes). */
static void gather_taps(const tp_window_params *p, const uint8_t *in, int64_t row, uint8_t zero, uint8_t *dst)
{
    int64_t ox = row % p->out_w, oy = row / p->out_w % p->out_h, b = row / (p->out_w * p->out_h);
    for (int64_t fy = 0; fy < p->window_h; fy++) {
        int64_t y = oy * p->stride_h - p->pad_top + fy;
        for (int64_t fx = 0; fx < p->window_w; fx++, dst += p->in_c) {
            int64_t x = ox * p->stride_w - p->pad_left + fx;
            if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w)
                memset(dst, zero, (size_t)p->in_c);
            else
                memcpy(dst, in + ((b * p->in_h + y) * p->in_w + x) * p->in_c, (size_t)p->in_c);
        }
    }
}

static void qconv_chunks(void *arg, int64_t begin, int64_t end)
{
    qconv_job *job = arg;
    tp_qgemm g = job->gemm;
    if (job->direct_rows) {
        g.a = job->in;
        tp_qgemm_rows(&g, begin * ROWS_PER_CHUNK, end * ROWS_PER_CHUNK < g.m ? end * ROWS_PER_CHUNK : g.m);
        return;
    }
    uint8_t *rows = malloc((size_t)(ROWS_PER_CHUNK * g.k));
    if (!rows) {
        job->failed = true;
        return;
    }
    for (int64_t chunk = begin; chunk < end; chunk++) {
        int64_t first = chunk * ROWS_PER_CHUNK, count = g.m - first < ROWS_PER_CHUNK ? g.m - first : ROWS_PER_CHUNK;
        for (int64_t r = 0; r < count; r++)
            gather_taps(job->p, job->in, first + r, (uint8_t)g.a_zero, rows + r * g.k);
        tp_qgemm part = g;
        part.a = rows;
        part.c = g.c + first * g.ldc;
        tp_qgemm_rows(&part, 0, count);
    }
    free(rows);
}

/* The sums of the weights: planned, or computed now into *owned. */
static const uint32_t *weight_sums(const uint32_t *planned, const uint8_t *w, int64_t k, int64_t n,
                                   uint32_t **owned)
{
    *owned = NULL;
    if (planned)
        return planned;
    *owned = malloc(sizeof **owned * (size_t)(n ? n : 1));
    if (*owned)
        tp_qgemm_col_sums(w, k, n, *owned);
    return *owned;
}

static tfpi_code qconv_run(tp_op_ctx *ctx)
{
    const qconv_state *s = ctx->state;
    const tp_window_params *p = &s->params;
    float in_min, in_max, f_min, f_max, out_min, out_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "the input", &in_min, &in_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "the filter", &f_min, &f_max)) != TFPI_OK)
        return code;
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    int32_t zi = (int32_t)(uint32_t)tp_q_f2qu(0.0, in_min, in_max, u8);
    int32_t zf = (int32_t)(uint32_t)tp_q_f2qu(0.0, f_min, f_max, u8);
    const uint8_t *in = ctx->inputs[0]->data, *filter = ctx->inputs[1]->data;
    int32_t *out = ctx->outputs[0].data;
    if (zi < 0 || zi > 255) {
        qconv_direct(p, in, filter, zi, zf, out);
    } else {
        uint32_t *owned;
        const uint32_t *sums = weight_sums(s->col_sums, filter, s->k, p->out_c, &owned);
        if (!sums)
            return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the filter's sums");
        qconv_job job = {
            .p = p, .in = in,
            .gemm = {.m = p->batch * p->out_h * p->out_w, .n = p->out_c, .k = s->k, .lda = s->k, .b = filter,
                     .b_col_sums = sums, .a_zero = zi, .b_zero = zf, .c = out, .ldc = p->out_c},
            .direct_rows = p->window_h == 1 && p->window_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                           p->pad_top == 0 && p->pad_left == 0,
        };
        int64_t chunks = (job.gemm.m + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK;
        tp_parallel_for(ctx->pool, chunks, 1, qconv_chunks, &job);
        free(owned);
        if (job.failed)
            return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the convolution's rows");
    }
    tp_q_range_for_multiplication(in_min, in_max, f_min, f_max, tp_qtype_of(TFPI_QINT32), &out_min, &out_max);
    tp_q_write_range(ctx, 1, out_min, out_max);
    return TFPI_OK;
}

/* ---- QuantizedMatMul ---- */

typedef struct qmatmul_state {
    int64_t m, n, k;
    bool transpose_a, transpose_b;
    uint8_t *a_packed; /* transpose_a: A as [m][k] */
    uint8_t *b_packed; /* transpose_b: B as [k][n], filled while planning if known */
    uint32_t *col_sums;
} qmatmul_state;

static void qmatmul_release(void *state)
{
    qmatmul_state *s = state;
    if (s) {
        free(s->a_packed);
        free(s->b_packed);
        free(s->col_sums);
    }
    free(s);
}

static void transpose_u8(const uint8_t *src, int64_t rows, int64_t cols, uint8_t *dst)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            dst[c * rows + r] = src[r * cols + c];
}

static tfpi_code qmatmul_prepare(tp_op_ctx *ctx)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 6, 6)) != TFPI_OK || (code = tp_expect_dtype(ctx, 0, TFPI_QUINT8)) != TFPI_OK ||
        (code = tp_expect_dtype(ctx, 1, TFPI_QUINT8)) != TFPI_OK || (code = tp_q_expect_scalars(ctx, 2, 4)) != TFPI_OK)
        return code;
    if (tp_attr_type(ctx->def, "Toutput", TFPI_QINT32) != TFPI_QINT32)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "Toutput must be qint32");
    const tfpi_tensor *a = ctx->inputs[0], *b = ctx->inputs[1];
    char a_shape[96], b_shape[96];
    if (a->ndims != 2 || b->ndims != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "inputs must be 2-D matrices, got %s and %s",
                       tp_shape_string(a, a_shape, sizeof a_shape), tp_shape_string(b, b_shape, sizeof b_shape));
    qmatmul_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->transpose_a = tp_attr_bool(ctx->def, "transpose_a", false);
    s->transpose_b = tp_attr_bool(ctx->def, "transpose_b", false);
    s->m = a->dims[s->transpose_a ? 1 : 0];
    s->k = a->dims[s->transpose_a ? 0 : 1];
    s->n = b->dims[s->transpose_b ? 0 : 1];
    if (b->dims[s->transpose_b ? 1 : 0] != s->k)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "matrix size-incompatible: %s and %s (transpose_a %d, transpose_b %d)",
                       tp_shape_string(a, a_shape, sizeof a_shape), tp_shape_string(b, b_shape, sizeof b_shape),
                       s->transpose_a, s->transpose_b);
    size_t a_bytes = (size_t)(s->m * s->k), b_bytes = (size_t)(s->k * s->n);
    if ((s->transpose_a && !(s->a_packed = malloc(a_bytes ? a_bytes : 1))) ||
        (s->transpose_b && !(s->b_packed = malloc(b_bytes ? b_bytes : 1))))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the transposed operands");
    if (s->transpose_b && b->data)
        transpose_u8(b->data, s->n, s->k, s->b_packed);
    tfpi_tensor packed_b = *b;
    if (s->transpose_b)
        packed_b.data = b->data ? s->b_packed : NULL;
    if ((code = known_col_sums(ctx, &packed_b, s->k, s->n, &s->col_sums)) != TFPI_OK)
        return code;
    int64_t dims[2] = {s->m, s->n};
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, 2, dims);
}

static void qmatmul_rows(void *arg, int64_t begin, int64_t end) { tp_qgemm_rows(arg, begin, end); }

static tfpi_code qmatmul_run(tp_op_ctx *ctx)
{
    qmatmul_state *s = ctx->state;
    float a_min, a_max, b_min, b_max, out_min, out_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "a", &a_min, &a_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "b", &b_min, &b_max)) != TFPI_OK)
        return code;
    if (!(a_max > a_min) || !(b_max > b_min))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "ranges must not be empty: a [%g, %g], b [%g, %g]",
                       (double)a_min, (double)a_max, (double)b_min, (double)b_max);
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    const uint8_t *a = ctx->inputs[0]->data, *b = ctx->inputs[1]->data;
    if (s->transpose_a) {
        transpose_u8(a, s->k, s->m, s->a_packed);
        a = s->a_packed;
    }
    if (s->transpose_b) {
        if (!s->col_sums) /* not packed while planning */
            transpose_u8(b, s->n, s->k, s->b_packed);
        b = s->b_packed;
    }
    uint32_t *owned;
    const uint32_t *sums = weight_sums(s->col_sums, b, s->k, s->n, &owned);
    if (!sums)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the sums of b");
    tp_qgemm g = {.m = s->m, .n = s->n, .k = s->k, .a = a, .lda = s->k, .b = b, .b_col_sums = sums,
                  .a_zero = (int32_t)(uint32_t)tp_q_f2qu(0.0, a_min, a_max, u8),
                  .b_zero = (int32_t)(uint32_t)tp_q_f2qu(0.0, b_min, b_max, u8),
                  .c = ctx->outputs[0].data, .ldc = s->n};
    tp_parallel_for(ctx->pool, s->m, 4, qmatmul_rows, &g);
    free(owned);
    tp_q_range_for_multiplication(a_min, a_max, b_min, b_max, tp_qtype_of(TFPI_QINT32), &out_min, &out_max);
    tp_q_write_range(ctx, 1, out_min, out_max);
    return TFPI_OK;
}

const tp_kernel tp_kernels_quantized_conv[] = {
    TP_KERNEL("QuantizedConv2D", qconv_prepare, qconv_run, qconv_release, 0),
    TP_KERNEL("QuantizedMatMul", qmatmul_prepare, qmatmul_run, qmatmul_release, 0),
    TP_KERNELS_END,
};
