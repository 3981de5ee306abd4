/* conv_gemm.c - the row lookup that lets the GEMM read a convolution's
 * input in place: output pixel m and filter tap (ky, kx) read input pixel
 * (oy * stride_h - pad_top + ky * dilation_h, ox * stride_w - pad_left +
 * kx * dilation_w), or zeros outside the input. */
#include "compute/conv_gemm.h"

typedef struct conv_rows {
    const tp_window_params *p;
    const float *input, *zeros;
} conv_rows;

static void find_conv_rows(const void *arg, int64_t row, int rows, int64_t tap, int taps, const float **ptrs)
{
    const conv_rows *c = arg;
    const tp_window_params *p = c->p;
    const int64_t image_pixels = p->out_h * p->out_w;
    /* Divide once, then step through the pixels of the tile. */
    int64_t batch = row / image_pixels, oy = row % image_pixels / p->out_w, ox = row % p->out_w;
    const int64_t tap_x = p->dilation_w * p->in_c, tap_y = p->dilation_h * p->in_w * p->in_c; /* floats */
    for (int r = 0; r < rows; r++) {
        const int64_t iy0 = oy * p->stride_h - p->pad_top, ix0 = ox * p->stride_w - p->pad_left;
        const float *image = c->input + batch * p->in_h * p->in_w * p->in_c;
        int64_t ky = tap / p->window_w, kx = tap % p->window_w;
        const bool window_inside = iy0 >= 0 && iy0 + (p->window_h - 1) * p->dilation_h < p->in_h && ix0 >= 0 &&
                                   ix0 + (p->window_w - 1) * p->dilation_w < p->in_w;
        if (window_inside) { /* most pixels: each tap a step from the last */
            const float *tap_row = image + (iy0 * p->in_w + ix0) * p->in_c + ky * tap_y;
            for (int t = 0; t < taps; t++) {
                ptrs[t * TP_GEMM_MR + r] = tap_row + kx * tap_x;
                if (++kx == p->window_w) {
                    kx = 0;
                    tap_row += tap_y;
                }
            }
        } else
            for (int t = 0; t < taps; t++) {
                const int64_t iy = iy0 + ky * p->dilation_h, ix = ix0 + kx * p->dilation_w;
                const bool inside = iy >= 0 && iy < p->in_h && ix >= 0 && ix < p->in_w;
                ptrs[t * TP_GEMM_MR + r] = inside ? image + (iy * p->in_w + ix) * p->in_c : c->zeros;
                if (++kx == p->window_w) {
                    kx = 0;
                    ky++;
                }
            }
        if (++ox == p->out_w) {
            ox = 0;
            if (++oy == p->out_h) {
                oy = 0;
                batch++;
            }
        }
    }
}

bool tp_conv2d_gemm_wants_panels(const tp_window_params *p) { return p->batch * p->out_h * p->out_w > 1; }

bool tp_conv2d_gemm(const tp_window_params *p, const float *input, const float *filter, const uint16_t *filter_fp16, const float *zeros, float *output,
                    const tp_gemm_epilogue *epilogue, tp_threadpool *pool)
{
    const bool pointwise = p->window_h == 1 && p->window_w == 1 && p->stride_h == 1 && p->stride_w == 1 &&
                           p->pad_top == 0 && p->pad_left == 0 && p->out_h == p->in_h && p->out_w == p->in_w;
    const tp_gemm_matrix matrix = {input, p->in_c};
    const conv_rows rows = {p, input, zeros};
    const tp_gemm g = {
        .m = p->batch * p->out_h * p->out_w,
        .n = p->out_c,
        .taps = p->window_h * p->window_w,
        .depth = p->in_c,
        .rows = pointwise ? tp_gemm_matrix_rows : find_conv_rows,
        .rows_arg = pointwise ? (const void *)&matrix : (const void *)&rows,
        .b = filter,
        .ldb = p->out_c,
        .c = output,
        .ldc = p->out_c,
        .epilogue = *epilogue,
        .b_fp16 = filter_fp16,
    };
    return tp_gemm_run(&g, pool);
}
