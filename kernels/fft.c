/* fft.c - the real-input Fourier transforms audio models take spectra with
 * (YAMNet: RFFT, then ComplexAbs for magnitudes; TensorFlow Lite's RFFT2D
 * and COMPLEX_ABS translate to these):
 *   RFFT    input [..., n] float, fft_length [1]: [..., L/2 + 1] complex64,
 *           the input cropped or zero-padded to L;
 *   RFFT2D  input [..., h, w], fft_length [2] = (H, W): [..., H, W/2 + 1],
 *           the two inner dimensions cropped or zero-padded to H x W;
 *   ComplexAbs  complex64 -> float, |z| = hypot(re, im).
 * X[k1, k2] = sum x[a, b] exp(-2 pi i (k1 a / H + k2 b / W)), computed in
 * double: compute/fft.c's radix-2 FFT where a length is a power of two, the
 * direct sum otherwise (up to 4096). fft_length must be known while
 * planning. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/fft.h"
#include "core/checked_math.h"
#include "kernel/array_kernel_util.h"

/* Powers of two up to 2^20; other lengths (a direct sum, n^2) up to 4096. */
enum { MAX_FFT_LENGTH = 1 << 20, MAX_DIRECT_LENGTH = 4096 };

static tfpi_code rfft_prepare(tp_op_ctx *ctx)
{
    const int rank = strcmp(ctx->def->op, "RFFT2D") == 0 ? 2 : 1;
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t len[2];
    int n = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 1, "fft_length", len, 2, &n);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->dtype != TFPI_FLOAT)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; this kernel transforms float32", tfpi_dtype_name(in->dtype));
    if (n != rank || in->ndims < rank)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "fft_length must hold %d lengths and the input have rank >= %d",
                       rank, rank);
    for (int i = 0; i < rank; i++) {
        if (len[i] < 1 || len[i] > MAX_FFT_LENGTH)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "fft_length[%d] = %lld is not in [1, %d]", i,
                           (long long)len[i], MAX_FFT_LENGTH);
        if ((len[i] & (len[i] - 1)) && len[i] > MAX_DIRECT_LENGTH)
            return tp_fail(ctx, TFPI_UNIMPLEMENTED, "fft_length[%d] = %lld: a length that is not a power of two "
                           "must be at most %d", i, (long long)len[i], MAX_DIRECT_LENGTH);
    }
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, in->dims, sizeof(int64_t) * (size_t)in->ndims);
    if (rank == 2)
        dims[in->ndims - 2] = len[0];
    dims[in->ndims - 1] = len[rank - 1] / 2 + 1;
    return tp_set_output(ctx, 0, TFPI_COMPLEX64, in->ndims, dims);
}

/* The first `keep` bins of the n-point DFT of (re, im), in place: through
 * plan (compute/fft.c's radix-2 FFT) where n is a power of two, else the
 * direct sum, with scratch holding 4n doubles (its table of
 * exp(-2 pi i j / n), then its results). */
static void dft(const tp_fft *plan, double *re, double *im, int64_t n, int64_t keep, double *scratch)
{
    if (plan || n == 1) { /* a power of two: compute/fft.c; length 1: itself */
        if (plan)
            tp_fft_forward(plan, re, im);
        return;
    }
    double *table = scratch, *sums = scratch + 2 * n;
    for (int64_t j = 0; j < n; j++) {
        table[2 * j] = cos(-2 * M_PI * (double)j / (double)n);
        table[2 * j + 1] = sin(-2 * M_PI * (double)j / (double)n);
    }
    for (int64_t k = 0; k < keep; k++) {
        double sr = 0, si = 0;
        for (int64_t t = 0, j = 0; t < n; t++, j = j + k < n ? j + k : j + k - n) { /* j = k t mod n */
            sr += re[t] * table[2 * j] - im[t] * table[2 * j + 1];
            si += re[t] * table[2 * j + 1] + im[t] * table[2 * j];
        }
        sums[2 * k] = sr;
        sums[2 * k + 1] = si;
    }
    for (int64_t k = 0; k < keep; k++) {
        re[k] = sums[2 * k];
        im[k] = sums[2 * k + 1];
    }
}

static tfpi_code rfft_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    const bool two = strcmp(ctx->def->op, "RFFT2D") == 0;
    const int64_t in_w = in->dims[in->ndims - 1], in_h = two ? in->dims[in->ndims - 2] : 1;
    const int64_t bins = out->dims[out->ndims - 1], rows = two ? out->dims[out->ndims - 2] : 1;
    const int64_t w = two ? tp_get_int(ctx->inputs[1], 1) : tp_get_int(ctx->inputs[1], 0);
    const int64_t batches = tp_num_elements(out) / (rows * bins);
    const int64_t longest = w > rows ? w : rows;
    /* the spectrum of every row (rows x bins), then each column's transform */
    int64_t count;
    double *re = tp_checked_mul(2 * rows, bins, &count) && tp_checked_add(count, 6 * longest, &count) &&
                         (uint64_t)count <= SIZE_MAX / sizeof(double)
                     ? malloc(sizeof(double) * (size_t)count)
                     : NULL;
    tp_fft *row_plan = tp_fft_new(w), *column_plan = tp_fft_new(rows); /* NULL: not a power of two >= 2 */
    if (!re || ((w & (w - 1)) == 0 && w > 1 && !row_plan) || ((rows & (rows - 1)) == 0 && rows > 1 && !column_plan)) {
        free(re);
        tp_fft_free(row_plan);
        tp_fft_free(column_plan);
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    }
    double *im = re + rows * bins, *line_re = im + rows * bins, *line_im = line_re + longest;
    double *scratch = line_im + longest;
    float *dst = out->data;
    for (int64_t b = 0; b < batches; b++) {
        const float *src = (const float *)in->data + b * in_h * in_w;
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t t = 0; t < w; t++) {
                line_re[t] = r < in_h && t < in_w ? src[r * in_w + t] : 0;
                line_im[t] = 0;
            }
            dft(row_plan, line_re, line_im, w, bins, scratch);
            memcpy(re + r * bins, line_re, sizeof(double) * (size_t)bins);
            memcpy(im + r * bins, line_im, sizeof(double) * (size_t)bins);
        }
        for (int64_t k = 0; rows > 1 && k < bins; k++) {
            for (int64_t r = 0; r < rows; r++) {
                line_re[r] = re[r * bins + k];
                line_im[r] = im[r * bins + k];
            }
            dft(column_plan, line_re, line_im, rows, rows, scratch);
            for (int64_t r = 0; r < rows; r++) {
                re[r * bins + k] = line_re[r];
                im[r * bins + k] = line_im[r];
            }
        }
        for (int64_t i = 0; i < rows * bins; i++) {
            *dst++ = (float)re[i];
            *dst++ = (float)im[i];
        }
    }
    free(re);
    tp_fft_free(row_plan);
    tp_fft_free(column_plan);
    return TFPI_OK;
}

static tfpi_code complex_abs_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (in->dtype != TFPI_COMPLEX64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input is %s; this kernel takes complex64", tfpi_dtype_name(in->dtype));
    return tp_set_output(ctx, 0, TFPI_FLOAT, in->ndims, in->dims);
}

static tfpi_code complex_abs_run(tp_op_ctx *ctx)
{
    const float *z = ctx->inputs[0]->data;
    float *out = ctx->outputs[0].data;
    for (int64_t i = 0, n = tp_num_elements(&ctx->outputs[0]); i < n; i++)
        out[i] = hypotf(z[2 * i], z[2 * i + 1]);
    return TFPI_OK;
}

const tp_kernel tp_kernels_fft[] = {
    TP_KERNEL("RFFT", rfft_prepare, rfft_run, NULL, 0),
    TP_KERNEL("RFFT2D", rfft_prepare, rfft_run, NULL, 0),
    TP_KERNEL("ComplexAbs", complex_abs_prepare, complex_abs_run, NULL, 0),
    TP_KERNELS_END,
};
