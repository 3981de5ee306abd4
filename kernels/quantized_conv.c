/* quantized_conv.c - QuantizedConv2D and QuantizedMatMul: quint8 inputs
 * and weights, each with its float range, to qint32 sums of
 * (input - input zero) * (weight - weight zero), where a zero is the code
 * TF's FloatToQuantizedUnclamped gives 0.0 (../shared/docs/quantized.md
 * 3.1, 3.2), and the range of the product. Both run the 8-bit GEMM of
 * src/compute/tflite_qgemm.h (the TFLite kernels' one, its int32 sums
 * mode) with the weights packed once per graph while planning; a
 * convolution copies each output pixel's taps into a row (1x1
 * convolutions with a depth a multiple of 16 read the input in place)
 * (padding taps hold the input zero, which contributes nothing). An input
 * whose zero lies outside 0..255 cannot pad that way and takes the direct
 * loop, as TF's reference path does. TF's patch origin is kept: for VALID
 * padding with large strides it is one pixel off float Conv2D's. Both take
 * over the Requantize, QuantizedBiasAdd, QuantizedRelu(6) and Dequantize
 * nodes after them (compute/qepilogue.h): the product's int32 rows then go
 * through those nodes' steps chunk by chunk, while in cache. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/tflite_qgemm.h"
#include "compute/qepilogue.h"
#include "compute/window_geometry.h"

/* What both ops' states start with (see release_product). */
typedef struct qproduct {
    const tp_tfl_qgemm_kernel *kernel; /* for the session's CPU */
    const void *weights;               /* packed while planning when known (the graph's), or NULL */
    void *owned;                       /* packed here when no graph keeps them */
    tp_qepilogue epilogue;             /* the nodes taken over */
} qproduct;

typedef struct qconv_state {
    qproduct product;
    tp_window_params params;
    int64_t k; /* taps * input channels */
} qconv_state;

static void release_product(void *state)
{
    qproduct *p = state;
    if (p) {
        free(p->owned);
        tp_qepilogue_free(&p->epilogue);
    }
    free(state);
}

static tfpi_code absorb_into_product(tp_op_ctx *ctx, tp_op_ctx *next)
{
    qproduct *p = ctx->state;
    return tp_qepilogue_absorb(&p->epilogue, ctx, next);
}

/* Writes the product's range and starts the chain taken over. */
static tfpi_code begin_product(tp_op_ctx *ctx, float a_min, float a_max, float b_min, float b_max)
{
    float min, max;
    tp_q_range_for_multiplication(a_min, a_max, b_min, b_max, tp_qtype_of(TFPI_QINT32), &min, &max);
    tp_q_write_range(ctx, 1, min, max);
    return tp_qepilogue_begin(&((qproduct *)ctx->state)->epilogue);
}

/* TF's patch origin (QuantizedConv2D, TF 1.13-1.15): C division, so it can
 * be negative. */
static int64_t patch_origin(bool same, int64_t out, int64_t stride, int64_t window, int64_t in)
{
    return ((out - 1) * stride + window - in + (same ? 0 : 1)) / 2;
}

/* The product's GEMM variant, for the session's CPU (quint8 codes). */
static void choose_kernel(tp_op_ctx *ctx, qproduct *p)
{
    p->kernel = tp_tfl_qgemm_kernel_for(tp_threadpool_cpu(ctx->pool), false, false);
}

/* The weights (column j's code d at w + j * col_stride + d * depth_stride)
 * packed for the product's variant: with a graph (planning known weights)
 * once per graph, else into *owned for the caller to free. NULL if out of
 * memory. */
static const void *pack_weights(tp_op_ctx *ctx, const qproduct *p, const tfpi_graph *graph, const uint8_t *w,
                                int64_t depth, int64_t n, int64_t col_stride, int64_t depth_stride, void **owned)
{
    return tp_tfl_qgemm_pack_for_graph(p->kernel, graph, ctx->def, w, depth, n, col_stride, depth_stride, owned);
}

static tfpi_code qconv_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_q_expect_two_quint8(ctx, "out_type");
    if (code != TFPI_OK)
        return code;
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
    choose_kernel(ctx, &s->product);
    const uint8_t *filter = ctx->inputs[1]->data; /* [k][out_c] */
    if (filter && !(s->product.weights = pack_weights(ctx, &s->product, ctx->graph, filter, s->k, p->out_c, 1,
                                                      p->out_c, &s->product.owned)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory packing the weights");
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

enum { ROWS_PER_CHUNK = 48 };

/* One GEMM whose A rows are made by `gather` (row index -> row_bytes codes,
 * zero-padded past k), split over the pool in chunks of rows; or, when
 * `direct` is set, read in place at direct + row * k. With an epilogue,
 * each chunk's int32 rows go through it instead of into c. */
typedef struct qgemm_job {
    const tp_tfl_qgemm_kernel *kernel;
    const void *weights; /* packed */
    int64_t k, n;
    tp_tfl_qgemm_out out; /* the sums mode, with the zero points' column terms */
    const tp_qepilogue *epilogue; /* NULL: none */
    int64_t rows;
    void (*gather)(const struct qgemm_job *job, int64_t row, uint8_t *dst);
    const tp_window_params *conv;
    const uint8_t *source, *direct;
    int64_t source_cols; /* matmul: columns of the stored A */
    bool transposed;
    int32_t a_zero;
    int32_t *c;
    int failed;
} qgemm_job;

static void qgemm_chunks(void *arg, int64_t begin, int64_t end)
{
    qgemm_job *job = arg;
    const tp_qepilogue *e = job->epilogue;
    const int64_t row_bytes = tp_tfl_qgemm_row_bytes(job->k);
    uint8_t *rows = job->direct ? NULL : calloc((size_t)(ROWS_PER_CHUNK * row_bytes + 1), 1);
    int32_t *sums = e ? malloc(sizeof(int32_t) * (size_t)(ROWS_PER_CHUNK * job->n)) : NULL;
    int32_t *row_terms = malloc(sizeof(int32_t) * ROWS_PER_CHUNK);
    void *scratch = e ? malloc((size_t)tp_qepilogue_scratch_bytes(e)) : NULL;
    if ((!job->direct && !rows) || !row_terms || (e && (!sums || !scratch))) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        end = begin;
    }
    for (int64_t chunk = begin; chunk < end; chunk++) {
        int64_t first = chunk * ROWS_PER_CHUNK;
        int64_t count = job->rows - first < ROWS_PER_CHUNK ? job->rows - first : ROWS_PER_CHUNK;
        const uint8_t *a = job->direct ? job->direct + first * job->k : rows;
        for (int64_t r = 0; !job->direct && r < count; r++)
            job->gather(job, first + r, rows + r * row_bytes);
        tp_tfl_qgemm_run(job->kernel, job->weights, job->k, a, job->direct ? job->k : row_bytes, count, &job->out,
                         e ? sums : job->c + first * job->n, job->n, 0, job->n, row_terms);
        if (e)
            tp_qepilogue_rows(e, sums, first, count, scratch);
    }
    free(rows);
    free(sums);
    free(row_terms);
    free(scratch);
}

/* Runs the job with weights packed for job->kernel: the column terms of its
 * zero points, then the chunks over the pool. */
static tfpi_code run_qgemm(tp_op_ctx *ctx, qgemm_job *job, int32_t b_zero)
{
    const int64_t padded = (job->n + 15) / 16 * 16;
    int32_t *col_term = calloc((size_t)padded, sizeof(int32_t)), *zeros = calloc((size_t)padded, sizeof(int32_t));
    if (!col_term || !zeros) {
        free(col_term);
        free(zeros);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    const uint32_t za = (uint32_t)job->a_zero, both = (uint32_t)job->k * za * (uint32_t)b_zero;
    for (int64_t j = 0; j < job->n; j++)
        col_term[j] = (int32_t)(both - za * (uint32_t)tp_tfl_qgemm_col_sum(job->kernel, job->weights, job->k, job->n, j));
    job->out = (tp_tfl_qgemm_out){.col_term = col_term, .mantissa = zeros, .left = zeros, .right = zeros,
                                  .row_zero = b_zero, .sums = true};
    tp_parallel_for(ctx->pool, (job->rows + ROWS_PER_CHUNK - 1) / ROWS_PER_CHUNK, 1, qgemm_chunks, job);
    free(col_term);
    free(zeros);
    return job->failed ? tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the product's rows") : TFPI_OK;
}

/* Copies the taps of output pixel `row` into dst (padding taps: the input zero). */
static void gather_taps(const qgemm_job *job, int64_t row, uint8_t *dst)
{
    const tp_window_params *p = job->conv;
    int64_t ox = row % p->out_w, oy = row / p->out_w % p->out_h, b = row / (p->out_w * p->out_h);
    const int64_t x0 = ox * p->stride_w - p->pad_left;
    for (int64_t fy = 0; fy < p->window_h; fy++) {
        int64_t y = oy * p->stride_h - p->pad_top + fy;
        if (y >= 0 && y < p->in_h && x0 >= 0 && x0 + p->window_w <= p->in_w) { /* the row's taps are contiguous */
            memcpy(dst, job->source + ((b * p->in_h + y) * p->in_w + x0) * p->in_c, (size_t)(p->window_w * p->in_c));
            dst += p->window_w * p->in_c;
            continue;
        }
        for (int64_t fx = 0; fx < p->window_w; fx++, dst += p->in_c) {
            int64_t x = x0 + fx;
            if (y < 0 || y >= p->in_h || x < 0 || x >= p->in_w)
                memset(dst, (uint8_t)job->a_zero, (size_t)p->in_c);
            else
                memcpy(dst, job->source + ((b * p->in_h + y) * p->in_w + x) * p->in_c, (size_t)p->in_c);
        }
    }
}

/* The direct loop, its int32 sums then through the epilogue if any. */
static tfpi_code direct_with_epilogue(tp_op_ctx *ctx, const tp_qepilogue *e, const uint8_t *in, const uint8_t *filter,
                                      int32_t zi, int32_t zf)
{
    const qconv_state *s = ctx->state;
    const int64_t rows = s->params.batch * s->params.out_h * s->params.out_w;
    int32_t *sums = e ? malloc(sizeof(int32_t) * (size_t)(rows * s->params.out_c + 1)) : ctx->outputs[0].data;
    void *scratch = e ? malloc((size_t)tp_qepilogue_scratch_bytes(e)) : NULL;
    tfpi_code code = TFPI_OK;
    if (!sums || (e && !scratch)) {
        code = tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for the product");
    } else {
        qconv_direct(&s->params, in, filter, zi, zf, sums);
        if (e)
            tp_qepilogue_rows(e, sums, 0, rows, scratch);
    }
    if (e)
        free(sums);
    free(scratch);
    return code;
}

static tfpi_code qconv_run(tp_op_ctx *ctx)
{
    const qconv_state *s = ctx->state;
    const tp_window_params *p = &s->params;
    float in_min, in_max, f_min, f_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "the input", &in_min, &in_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "the filter", &f_min, &f_max)) != TFPI_OK ||
        (code = begin_product(ctx, in_min, in_max, f_min, f_max)) != TFPI_OK)
        return code;
    const tp_qepilogue *e = s->product.epilogue.num_steps ? &s->product.epilogue : NULL;
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    int32_t zi = (int32_t)(uint32_t)tp_q_f2qu(0.0, in_min, in_max, u8);
    int32_t zf = (int32_t)(uint32_t)tp_q_f2qu(0.0, f_min, f_max, u8);
    const uint8_t *in = ctx->inputs[0]->data, *filter = ctx->inputs[1]->data;
    if (zi < 0 || zi > 255)
        return direct_with_epilogue(ctx, e, in, filter, zi, zf);
    void *scratch = NULL;
    const void *w = s->product.weights;
    if (!w && !(w = pack_weights(ctx, &s->product, NULL, filter, s->k, p->out_c, 1, p->out_c, &scratch)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory packing the filter");
    bool in_place = p->window_h == 1 && p->window_w == 1 && p->stride_h == 1 && p->pad_top == 0 &&
                    p->pad_left == 0 && s->k % TP_TFL_QGEMM_DEPTH_STEP == 0;
    qgemm_job job = {.kernel = s->product.kernel, .weights = w, .k = s->k, .n = p->out_c, .epilogue = e,
                     .rows = p->batch * p->out_h * p->out_w, .gather = gather_taps, .conv = p, .source = in,
                     .direct = in_place ? in : NULL, .a_zero = zi, .c = ctx->outputs[0].data};
    code = run_qgemm(ctx, &job, zf);
    free(scratch);
    return code;
}

/* ---- QuantizedMatMul ---- */

typedef struct qmatmul_state {
    qproduct product; /* b packed while planning if known */
    int64_t m, n, k;
    bool transpose_a, transpose_b;
} qmatmul_state;

/* b ([k][n], or [n][k] transposed) packed for the product (pack_weights). */
static const void *pack_b(tp_op_ctx *ctx, const qmatmul_state *s, const tfpi_graph *graph, const uint8_t *b,
                          void **owned)
{
    return pack_weights(ctx, &s->product, graph, b, s->k, s->n, s->transpose_b ? s->k : 1, s->transpose_b ? 1 : s->n,
                        owned);
}

static tfpi_code qmatmul_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_q_expect_two_quint8(ctx, "Toutput");
    if (code != TFPI_OK)
        return code;
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
    choose_kernel(ctx, &s->product);
    if (b->dims[s->transpose_b ? 1 : 0] != s->k)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "matrix size-incompatible: %s and %s (transpose_a %d, transpose_b %d)",
                       tp_shape_string(a, a_shape, sizeof a_shape), tp_shape_string(b, b_shape, sizeof b_shape),
                       s->transpose_a, s->transpose_b);
    if (b->data && !(s->product.weights = pack_b(ctx, s, ctx->graph, b->data, &s->product.owned)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory packing b");
    int64_t dims[2] = {s->m, s->n};
    return tp_q_prepare_outputs(ctx, TFPI_QINT32, 2, dims);
}

/* Row `row` of A (zero-padded past k). */
static void gather_a_row(const qgemm_job *job, int64_t row, uint8_t *dst)
{
    const int64_t k = job->k;
    if (job->transposed) /* stored [k][m] */
        for (int64_t i = 0; i < k; i++)
            dst[i] = job->source[i * job->source_cols + row];
    else
        memcpy(dst, job->source + row * k, (size_t)k);
}

static tfpi_code qmatmul_run(tp_op_ctx *ctx)
{
    qmatmul_state *s = ctx->state;
    float a_min, a_max, b_min, b_max;
    tfpi_code code;
    if ((code = tp_q_read_range(ctx, 2, 3, "a", &a_min, &a_max)) != TFPI_OK ||
        (code = tp_q_read_range(ctx, 4, 5, "b", &b_min, &b_max)) != TFPI_OK)
        return code;
    if (!(a_max > a_min) || !(b_max > b_min))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "ranges must not be empty: a [%g, %g], b [%g, %g]",
                       (double)a_min, (double)a_max, (double)b_min, (double)b_max);
    if ((code = begin_product(ctx, a_min, a_max, b_min, b_max)) != TFPI_OK)
        return code;
    void *scratch = NULL;
    const void *w = s->product.weights;
    if (!w && !(w = pack_b(ctx, s, NULL, ctx->inputs[1]->data, &scratch)))
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory packing b");
    const tp_qtype *u8 = tp_qtype_of(TFPI_QUINT8);
    const uint8_t *a = ctx->inputs[0]->data;
    qgemm_job job = {.kernel = s->product.kernel, .weights = w, .k = s->k, .n = s->n,
                     .epilogue = s->product.epilogue.num_steps ? &s->product.epilogue : NULL, .rows = s->m,
                     .gather = gather_a_row, .source = a,
                     .direct = !s->transpose_a && s->k % TP_TFL_QGEMM_DEPTH_STEP == 0 ? a : NULL,
                     .source_cols = s->m, .transposed = s->transpose_a,
                     .a_zero = (int32_t)(uint32_t)tp_q_f2qu(0.0, a_min, a_max, u8), .c = ctx->outputs[0].data};
    code = run_qgemm(ctx, &job, (int32_t)(uint32_t)tp_q_f2qu(0.0, b_min, b_max, u8));
    free(scratch);
    return code;
}

const tp_kernel tp_kernels_quantized_conv[] = {
    TP_KERNEL_ABSORBING("QuantizedConv2D", qconv_prepare, qconv_run, release_product, TP_OUTPUTS(3),
                        absorb_into_product),
    TP_KERNEL_ABSORBING("QuantizedMatMul", qmatmul_prepare, qmatmul_run, release_product, TP_OUTPUTS(3),
                        absorb_into_product),
    TP_KERNELS_END,
};
