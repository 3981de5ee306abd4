/* conv2d_transpose.c - Conv2DBackpropInput, the transposed convolution of
 * "deconvolution" layers: the gradient of Conv2D(input, filter) with respect
 * to an input of shape input_sizes, given the gradient out_backprop of the
 * convolution's output. Forward output pixel (oy, ox) read input row
 * oy * stride_h - pad_top + ky * dilation_h (and likewise for columns), so
 * each result pixel gathers what it was read by:
 *   out[n, iy, ix, ic] = sum over (ky, kx, oc) and the (oy, ox) that read it
 *                        of out_backprop[n, oy, ox, oc] * filter[ky, kx, ic, oc].
 * The forward geometry (SAME, VALID or EXPLICIT padding, strides, dilations)
 * comes from window_geometry.c applied to an input of shape input_sizes
 * ([N, H, W, C], or [H, W] with N and C from the other inputs). NHWC only,
 * like TensorFlow's CPU kernel. Result rows are split over the pool. */
#include <stdlib.h>
#include <string.h>

#include "kernel/kernel.h"
#include "compute/window_geometry.h"
#include "core/checked_math.h"

/* Reads input_sizes into NHWC dims of the forward convolution's input. */
static tfpi_code forward_input_dims(tp_op_ctx *ctx, int64_t *dims)
{
    const tfpi_tensor *sizes = ctx->inputs[0], *filter = ctx->inputs[1], *grad = ctx->inputs[2];
    const int64_t count = tp_num_elements(sizes);
    if (sizes->ndims != 1 || (count != 4 && count != 2))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "input_sizes must be a vector of 4 (or 2) values, has %lld", (long long)count);
    if (grad->ndims != 4 || filter->ndims != 4) {
        char grad_shape[96], filter_shape[96];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "filter %s and out_backprop %s must be 4-D",
                       tp_shape_string(filter, filter_shape, sizeof filter_shape),
                       tp_shape_string(grad, grad_shape, sizeof grad_shape));
    }
    for (int i = 0; i < 4; i++) {
        dims[i] = count == 4 ? tp_get_int(sizes, i)
                  : i == 0   ? grad->dims[0]
                  : i == 3   ? filter->dims[2]
                             : tp_get_int(sizes, i - 1);
        if (dims[i] < 0 || dims[i] > INT32_MAX)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input_sizes value %lld is out of range",
                           (long long)dims[i]);
    }
    return TFPI_OK;
}

static tfpi_code conv2d_transpose_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code == TFPI_OK)
        code = tp_expect_known(ctx, 0);
    if (code == TFPI_OK && ctx->inputs[0]->dtype != TFPI_INT32 && ctx->inputs[0]->dtype != TFPI_INT64)
        code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input_sizes must be int32 or int64, got %s",
                       tfpi_dtype_name(ctx->inputs[0]->dtype));
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 2, TFPI_FLOAT);
    int64_t dims[4];
    if (code == TFPI_OK)
        code = forward_input_dims(ctx, dims);
    if (code != TFPI_OK)
        return code;
    /* The forward Conv2D's geometry: this node's attrs, inputs (input, filter). */
    tfpi_tensor forward_input = {.dtype = TFPI_FLOAT, .ndims = 4};
    memcpy(forward_input.dims, dims, sizeof dims);
    tfpi_tensor *forward_inputs[2] = {&forward_input, ctx->inputs[1]};
    tp_op_ctx forward = *ctx;
    forward.num_inputs = 2;
    forward.inputs = forward_inputs;
    tp_window_params p;
    if ((code = tp_conv_window_params(&forward, false, &p)) != TFPI_OK)
        return code;
    const tfpi_tensor *grad = ctx->inputs[2];
    if (grad->dims[0] != p.batch || grad->dims[1] != p.out_h || grad->dims[2] != p.out_w ||
        grad->dims[3] != p.out_c) {
        char shape[96];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "out_backprop has shape %s, but Conv2D of input_sizes [%lld,%lld,%lld,%lld] with this "
                       "filter gives [%lld,%lld,%lld,%lld]",
                       tp_shape_string(grad, shape, sizeof shape), (long long)dims[0], (long long)dims[1],
                       (long long)dims[2], (long long)dims[3], (long long)p.batch, (long long)p.out_h,
                       (long long)p.out_w, (long long)p.out_c);
    }
    tp_window_params *state = malloc(sizeof *state);
    if (!state)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    *state = p;
    ctx->state = state;
    return tp_set_output(ctx, 0, TFPI_FLOAT, 4, dims);
}

typedef struct transpose_job {
    const tp_window_params *p;
    const float *grad, *filter;
    float *out;
} transpose_job;

/* The forward output index that read `in` through tap k, or -1 if none. */
static int64_t reader_of(int64_t in, int64_t pad_before, int64_t k, int64_t dilation, int64_t stride,
                         int64_t out_size)
{
    const int64_t scaled = in + pad_before - k * dilation; /* = out * stride */
    if (scaled < 0 || scaled % stride != 0 || scaled / stride >= out_size)
        return -1;
    return scaled / stride;
}

/* Result rows (n, iy) in [begin, end). */
static void transpose_rows(void *arg, int64_t begin, int64_t end)
{
    const transpose_job *job = arg;
    const tp_window_params *p = job->p;
    const int64_t row_length = p->in_w * p->in_c;
    for (int64_t row = begin; row < end; row++) {
        const int64_t n = row / p->in_h, iy = row % p->in_h;
        float *out_row = job->out + row * row_length;
        memset(out_row, 0, (size_t)row_length * sizeof *out_row);
        for (int64_t ky = 0; ky < p->window_h; ky++) {
            const int64_t oy = reader_of(iy, p->pad_top, ky, p->dilation_h, p->stride_h, p->out_h);
            if (oy < 0)
                continue;
            const float *grad_row = job->grad + (n * p->out_h + oy) * p->out_w * p->out_c;
            for (int64_t ix = 0; ix < p->in_w; ix++) {
                float *out = out_row + ix * p->in_c;
                for (int64_t kx = 0; kx < p->window_w; kx++) {
                    const int64_t ox = reader_of(ix, p->pad_left, kx, p->dilation_w, p->stride_w, p->out_w);
                    if (ox < 0)
                        continue;
                    const float *grad = grad_row + ox * p->out_c;
                    const float *taps = job->filter + (ky * p->window_w + kx) * p->in_c * p->out_c;
                    for (int64_t ic = 0; ic < p->in_c; ic++) {
                        const float *w = taps + ic * p->out_c;
                        float sum = 0.0f;
                        for (int64_t oc = 0; oc < p->out_c; oc++)
                            sum += grad[oc] * w[oc];
                        out[ic] += sum;
                    }
                }
            }
        }
    }
}

static tfpi_code conv2d_transpose_run(tp_op_ctx *ctx)
{
    const tp_window_params *p = ctx->state;
    transpose_job job = {p, ctx->inputs[2]->data, ctx->inputs[1]->data, ctx->outputs[0].data};
    const int64_t taps = tp_sat_mul(tp_sat_mul(p->in_c, p->out_c), tp_sat_mul(p->window_h, p->window_w));
    const int64_t work_per_row = tp_sat_add(tp_sat_mul(p->in_w, taps), 1);
    tp_parallel_for(ctx->pool, p->batch * p->in_h, 65536 / work_per_row + 1, transpose_rows, &job);
    return TFPI_OK;
}

const tp_kernel tp_kernels_conv2d_transpose[] = {
    TP_KERNEL("Conv2DBackpropInput", conv2d_transpose_prepare, conv2d_transpose_run, free, 0),
    TP_KERNELS_END,
};
