/* tflite_matrix_diag.c - TensorFlow Lite's MATRIX_DIAG and MATRIX_SET_DIAG
 * (TensorFlow's MatrixDiag / MatrixSetDiag, main diagonal only), on the
 * element types TFLite's kernels take: float32, int64, int32, int16, int8
 * and uint8 (codes copied as they are; MATRIX_DIAG's other elements are 0,
 * the code 0 on quantized tensors, as TFLite writes them).
 *  - MATRIX_DIAG: input [..., N] -> [..., N, N], input row k on the
 *    diagonal of matrix k, zeros elsewhere.
 *  - MATRIX_SET_DIAG: input [..., M, N] and diagonal [..., min(M, N)] ->
 *    the input with its matrices' diagonals replaced. TFLite does not check
 *    the diagonal's shape (it reads past a short one); tfpi requires the
 *    input's batch dimensions and min(M, N). */
#include <string.h>

#include "compute/tflite_node.h"

static tfpi_code expect_type(tp_op_ctx *ctx, tfpi_dtype t)
{
    if (t == TFPI_FLOAT || t == TFPI_INT64 || t == TFPI_INT32 || t == TFPI_INT16 || t == TFPI_INT8 || t == TFPI_UINT8)
        return TFPI_OK;
    return tp_fail(ctx, TFPI_UNIMPLEMENTED, "%s elements (TFLite's takes float32, int64, int32, int16, int8, uint8)",
                   tfpi_dtype_name(t));
}

static tfpi_code diag_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    const tfpi_tensor *in = ctx->inputs[0];
    if (code != TFPI_OK || (code = expect_type(ctx, in->dtype)) != TFPI_OK)
        return code;
    if (in->ndims < 1 || in->ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the input has rank %d; it takes rank 1 to %d", in->ndims,
                       TFPI_MAX_DIMS - 1);
    int64_t dims[TFPI_MAX_DIMS];
    memcpy(dims, in->dims, sizeof(int64_t) * (size_t)in->ndims);
    dims[in->ndims] = in->dims[in->ndims - 1];
    return tp_set_output(ctx, 0, in->dtype, in->ndims + 1, dims);
}

/* Copies matrices' diagonals: element k of `diagonal` (rows x cols matrices,
 * count of them, min(rows, cols) values each) onto out. */
static void put_diagonals(char *out, const char *diagonal, int64_t count, int64_t rows, int64_t cols, size_t size)
{
    int64_t n = rows < cols ? rows : cols;
    for (int64_t m = 0; m < count; m++)
        for (int64_t i = 0; i < n; i++)
            memcpy(out + (size_t)((m * rows + i) * cols + i) * size, diagonal + (size_t)(m * n + i) * size, size);
}

static tfpi_code diag_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    size_t size = tfpi_dtype_size(in->dtype);
    int64_t n = in->dims[in->ndims - 1];
    memset(out->data, 0, (size_t)tp_num_elements(out) * size);
    if (n > 0)
        put_diagonals(out->data, in->data, tp_num_elements(in) / n, n, n, size);
    return TFPI_OK;
}

static tfpi_code set_diag_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *diagonal = ctx->inputs[1];
    if ((code = expect_type(ctx, in->dtype)) != TFPI_OK)
        return code;
    if (in->ndims < 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the input has rank %d; it takes matrices (rank 2 or more)",
                       in->ndims);
    if (diagonal->dtype != in->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the diagonal is %s, the input %s", tfpi_dtype_name(diagonal->dtype),
                       tfpi_dtype_name(in->dtype));
    int64_t rows = in->dims[in->ndims - 2], cols = in->dims[in->ndims - 1];
    bool fits = diagonal->ndims == in->ndims - 1 && diagonal->dims[in->ndims - 2] == (rows < cols ? rows : cols);
    for (int i = 0; fits && i < in->ndims - 2; i++)
        fits = diagonal->dims[i] == in->dims[i];
    if (!fits)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the diagonal has rank %d and %lld values a matrix; the input's %d "
                       "batch dimensions and min(%lld, %lld) are needed", diagonal->ndims,
                       (long long)(diagonal->ndims ? diagonal->dims[diagonal->ndims - 1] : 1), in->ndims - 2,
                       (long long)rows, (long long)cols);
    return tp_set_output(ctx, 0, in->dtype, in->ndims, in->dims);
}

static tfpi_code set_diag_run(tp_op_ctx *ctx)
{
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_tensor *out = &ctx->outputs[0];
    size_t size = tfpi_dtype_size(in->dtype);
    int64_t rows = in->dims[in->ndims - 2], cols = in->dims[in->ndims - 1];
    if (out->data != in->data)
        memcpy(out->data, in->data, (size_t)tp_num_elements(in) * size);
    if (rows > 0 && cols > 0)
        put_diagonals(out->data, ctx->inputs[1]->data, tp_num_elements(in) / (rows * cols), rows, cols, size);
    return TFPI_OK;
}

const tp_kernel tp_kernels_tflite_matrix_diag[] = {
    TP_KERNEL("MATRIX_DIAG", diag_prepare, diag_run, NULL, TP_TFLITE_OP),
    TP_KERNEL("MATRIX_SET_DIAG", set_diag_prepare, set_diag_run, NULL, TP_TFLITE_OP),
    TP_KERNELS_END,
};
