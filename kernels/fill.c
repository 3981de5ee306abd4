/* fill.c - tensors made from a value rather than read from an input: Fill
 * (dims and a scalar value), Range (start, limit, delta; int32, int64,
 * float, double), ZerosLike and OnesLike (the input's shape and type).
 * Range's length depends on its inputs' values, so they must be known while
 * planning (the runtime then computes it once). */
#include <math.h>
#include <string.h>

#include "core/wrapping_int.h"
#include "kernel/array_kernel_util.h"

/* Writes n copies of the element at `value` (size bytes) to dst: one
 * element, then the filled part copied onto the rest, doubling (a 2^30
 * bool Fill is 30 memcpy calls, not 2^30). */
static void repeat_element(char *dst, const void *value, size_t size, int64_t n)
{
    if (n <= 0)
        return;
    memcpy(dst, value, size);
    const size_t total = (size_t)n * size;
    for (size_t done = size; done < total; done *= 2)
        memcpy(dst + done, dst, done < total - done ? done : total - done);
}

static tfpi_code fill_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    int64_t dims[TFPI_MAX_DIMS];
    int ndims = 0;
    if (code == TFPI_OK)
        code = tp_read_index_values(ctx, 0, "dims", dims, TFPI_MAX_DIMS, &ndims);
    if (code != TFPI_OK)
        return code;
    if (ctx->inputs[0]->ndims != 1 || tp_num_elements(ctx->inputs[1]) != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dims must be a vector and value a scalar");
    for (int d = 0; d < ndims; d++)
        if (dims[d] < 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dims[%d] = %lld is negative", d, (long long)dims[d]);
    return tp_set_output(ctx, 0, ctx->inputs[1]->dtype, ndims, dims);
}

static tfpi_code fill_run(tp_op_ctx *ctx)
{
    tfpi_tensor *out = &ctx->outputs[0];
    repeat_element(out->data, ctx->inputs[1]->data, tfpi_dtype_size(out->dtype), tp_num_elements(out));
    return TFPI_OK;
}

/* ---- Range ---------------------------------------------------------------- */

/* start, limit and delta as float (float inputs), double or int64. */
typedef struct range_args {
    double start, limit, delta;
    int64_t istart, ilimit, idelta;
} range_args;

static bool is_integer(tfpi_dtype t) { return t == TFPI_INT32 || t == TFPI_INT64; }

/* Reads the arguments and computes the length as TF does, in the input
 * type: integers (|limit - start| + |delta| - 1) / |delta|, floating point
 * ceil(|(limit - start) / delta|). */
static tfpi_code range_length(tp_op_ctx *ctx, range_args *a, int64_t *length)
{
    tfpi_dtype type = ctx->inputs[0]->dtype;
    if (is_integer(type)) {
        a->istart = tp_get_int(ctx->inputs[0], 0);
        a->ilimit = tp_get_int(ctx->inputs[1], 0);
        a->idelta = tp_get_int(ctx->inputs[2], 0);
        a->start = (double)a->istart;
        a->limit = (double)a->ilimit;
        a->delta = (double)a->idelta;
    } else if (type == TFPI_FLOAT) {
        a->start = ((const float *)ctx->inputs[0]->data)[0];
        a->limit = ((const float *)ctx->inputs[1]->data)[0];
        a->delta = ((const float *)ctx->inputs[2]->data)[0];
    } else {
        a->start = ((const double *)ctx->inputs[0]->data)[0];
        a->limit = ((const double *)ctx->inputs[1]->data)[0];
        a->delta = ((const double *)ctx->inputs[2]->data)[0];
    }
    if (a->delta == 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "delta must not be 0");
    if ((a->delta > 0 && a->start > a->limit) || (a->delta < 0 && a->start < a->limit))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "start %g cannot reach limit %g by steps of %g",
                       a->start, a->limit, a->delta);
    double steps;
    if (is_integer(type)) {
        /* unsigned, so that no difference of int64 values overflows */
        bool up = a->idelta > 0;
        uint64_t span = up ? (uint64_t)a->ilimit - (uint64_t)a->istart
                           : (uint64_t)a->istart - (uint64_t)a->ilimit;
        uint64_t step = up ? (uint64_t)a->idelta : 0 - (uint64_t)a->idelta;
        steps = (double)(span / step + (span % step != 0));
    } else if (type == TFPI_FLOAT)
        steps = ceilf(fabsf(((float)a->limit - (float)a->start) / (float)a->delta));
    else
        steps = ceil(fabs((a->limit - a->start) / a->delta));
    if (!(steps <= (double)(INT64_C(1) << 40)))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the range has too many (%g) elements", steps);
    *length = (int64_t)steps;
    return TFPI_OK;
}

static tfpi_code range_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 3, 3);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype type = ctx->inputs[0]->dtype;
    if (!is_integer(type) && type != TFPI_FLOAT && type != TFPI_DOUBLE)
        code = tp_fail(ctx, TFPI_UNIMPLEMENTED, "handles int32, int64, float and double, not %s",
                       tfpi_dtype_name(type));
    for (int i = 0; i < 3 && code == TFPI_OK; i++) {
        if (ctx->inputs[i]->dtype != type || tp_num_elements(ctx->inputs[i]) != 1)
            code = tp_fail(ctx, TFPI_INVALID_ARGUMENT, "start, limit and delta must be %s scalars",
                           tfpi_dtype_name(type));
        else
            code = tp_expect_known(ctx, i);
    }
    range_args args;
    int64_t length = 0;
    if (code == TFPI_OK)
        code = range_length(ctx, &args, &length);
    return code == TFPI_OK ? tp_set_output(ctx, 0, type, 1, &length) : code;
}

/* The values accumulate (value += delta), as in TF's kernel. */
static tfpi_code range_run(tp_op_ctx *ctx)
{
    tfpi_tensor *out = &ctx->outputs[0];
    int64_t n;
    range_args a;
    tfpi_code code = range_length(ctx, &a, &n);
    if (code != TFPI_OK)
        return code;
    switch (out->dtype) {
    case TFPI_FLOAT: {
        float *o = out->data, v = (float)a.start;
        for (int64_t i = 0; i < n; i++, v += (float)a.delta)
            o[i] = v;
        break;
    }
    case TFPI_DOUBLE: {
        double *o = out->data, v = a.start;
        for (int64_t i = 0; i < n; i++, v += a.delta)
            o[i] = v;
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++) {
            /* exact: every value lies between start and limit; only i * delta may pass int64 */
            int64_t v = tp_wrap_add(a.istart, tp_wrap_mul(i, a.idelta));
            if (out->dtype == TFPI_INT32)
                ((int32_t *)out->data)[i] = (int32_t)v;
            else
                ((int64_t *)out->data)[i] = v;
        }
        break;
    }
    return TFPI_OK;
}

/* ---- ZerosLike, OnesLike ------------------------------------------------------ */

static tfpi_code like_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (strcmp(ctx->def->op, "OnesLike") == 0 && in->dtype == TFPI_STRING)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "has no 1 of type %s", tfpi_dtype_name(in->dtype));
    return tp_set_output(ctx, 0, in->dtype, in->ndims, in->dims);
}

static tfpi_code zeros_like_run(tp_op_ctx *ctx)
{
    memset(ctx->outputs[0].data, 0, tp_byte_size(&ctx->outputs[0]));
    return TFPI_OK;
}

static tfpi_code ones_like_run(tp_op_ctx *ctx)
{
    tfpi_tensor *out = &ctx->outputs[0];
    union {
        float f;
        double d;
        int32_t i32;
        int64_t i64;
        uint8_t u8;
        uint16_t u16;
    } one;
    switch (out->dtype) {
    case TFPI_FLOAT: one.f = 1; break;
    case TFPI_DOUBLE: one.d = 1; break;
    case TFPI_INT32: case TFPI_QINT32: one.i32 = 1; break;
    case TFPI_INT64: one.i64 = 1; break;
    case TFPI_INT16: case TFPI_UINT16: one.u16 = 1; break;
    case TFPI_HALF: one.u16 = 0x3c00; break; /* 1.0 in IEEE half precision */
    default: one.u8 = 1; break; /* the one-byte types */
    }
    repeat_element(out->data, &one, tfpi_dtype_size(out->dtype), tp_num_elements(out));
    return TFPI_OK;
}

const tp_kernel tp_kernels_fill[] = {
    TP_KERNEL("Fill", fill_prepare, fill_run, NULL, 0),
    TP_KERNEL("Range", range_prepare, range_run, NULL, 0),
    TP_KERNEL("ZerosLike", like_prepare, zeros_like_run, NULL, 0),
    TP_KERNEL("OnesLike", like_prepare, ones_like_run, NULL, 0),
    TP_KERNELS_END,
};
