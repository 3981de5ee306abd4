/* tflite_node.c - reading a TensorFlow Lite operator's node: the
 * quantization attributes of its tensors, absent optional inputs, its
 * fused activation (the convention is in tflite_node.h). */
#include "compute/tflite_node.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/node_def.h"

static const Tfpi__AttrValue__ListValue *list_attr(const Tfpi__NodeDef *def, const char *name)
{
    const Tfpi__AttrValue *a = tp_attr(def, name);
    return a && a->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? a->list : NULL;
}

bool tp_tfl_quant_of(const Tfpi__NodeDef *def, const char *role, int i, tp_tfl_quant *q)
{
    *q = (tp_tfl_quant){0};
    char name[48];
    snprintf(name, sizeof name, "q_%s%d_scale", role, i);
    const Tfpi__AttrValue__ListValue *scale = list_attr(def, name);
    snprintf(name, sizeof name, "q_%s%d_zero_point", role, i);
    const Tfpi__AttrValue__ListValue *zero = list_attr(def, name);
    if (!scale || !zero || scale->n_f == 0 || scale->n_f != zero->n_i)
        return false;
    snprintf(name, sizeof name, "q_%s%d_dim", role, i);
    const int64_t dim = tp_attr_int(def, name, 0);
    if (dim < 0 || dim >= TFPI_MAX_DIMS)
        return false;
    *q = (tp_tfl_quant){(int64_t)scale->n_f, scale->f, zero->i, (int)dim};
    return true;
}

bool tp_tfl_code_range(tfpi_dtype dtype, int32_t *qmin, int32_t *qmax)
{
    switch (dtype) {
    case TFPI_UINT8:
        *qmin = 0, *qmax = 255;
        return true;
    case TFPI_INT8:
        *qmin = -128, *qmax = 127;
        return true;
    case TFPI_INT16:
        *qmin = INT16_MIN, *qmax = INT16_MAX;
        return true;
    case TFPI_INT32:
        *qmin = INT32_MIN, *qmax = INT32_MAX;
        return true;
    default:
        return false;
    }
}

tfpi_code tp_tfl_expect_per_tensor(tp_op_ctx *ctx, const char *role, int i, tp_tfl_quant *q)
{
    const bool input = strcmp(role, "in") == 0;
    const char *what = input ? "input" : "output";
    if (!tp_tfl_quant_of(ctx->def, role, i, q))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %d has no quantization", what, i);
    if (q->count != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %d must be quantized per tensor (it has %lld scales)", what,
                       i, (long long)q->count);
    const tfpi_dtype dtype = input ? ctx->inputs[i]->dtype : ctx->outputs[i].dtype;
    int32_t qmin, qmax;
    if (!(q->scale[0] > 0.0f) || !isfinite(q->scale[0]))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %d has scale %g: it must be positive and finite", what, i,
                       (double)q->scale[0]);
    if (tp_tfl_code_range(dtype, &qmin, &qmax) && (q->zero_point[0] < qmin || q->zero_point[0] > qmax))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %d has zero point %lld, outside its type's %d..%d", what,
                       i, (long long)q->zero_point[0], qmin, qmax);
    return TFPI_OK;
}

bool tp_tfl_input_absent(const tp_op_ctx *ctx, int i)
{
    if (i >= ctx->num_inputs || (size_t)i >= ctx->def->n_input)
        return true;
    /* TFLiteNoValue, or "<call>/TFLiteNoValue:0" inside an inlined subgraph */
    const char *input = ctx->def->input[i];
    size_t len = strcspn(input, ":"), n = strlen(TP_TFL_NO_VALUE);
    return len >= n && strncmp(input + len - n, TP_TFL_NO_VALUE, n) == 0 && (len == n || input[len - n - 1] == '/');
}

tfpi_code tp_tfl_activation_of(tp_op_ctx *ctx, tp_tfl_activation *act)
{
    static const char *const names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};
    char buf[16];
    const char *name = tp_attr_string(ctx->def, "fused_activation_function", buf, sizeof buf, "NONE");
    for (int a = 0; a < (int)(sizeof names / sizeof names[0]); a++)
        if (strcmp(name, names[a]) == 0) {
            *act = (tp_tfl_activation)a;
            return TFPI_OK;
        }
    return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "unknown fused_activation_function '%s'", name);
}

tfpi_code tp_tfl_qparams_of(tp_op_ctx *ctx, const char *role, int i, tp_tfl_qparams *q)
{
    const bool input = strcmp(role, "in") == 0;
    const tfpi_dtype dtype = input ? ctx->inputs[i]->dtype : ctx->outputs[i].dtype;
    if (dtype != TFPI_UINT8 && dtype != TFPI_INT8 && dtype != TFPI_INT16)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "%s %d is %s; quantized tensors are uint8, int8 or int16",
                       input ? "input" : "output", i, tfpi_dtype_name(dtype));
    tp_tfl_quant quant;
    tfpi_code code = tp_tfl_expect_per_tensor(ctx, role, i, &quant);
    if (code != TFPI_OK)
        return code;
    *q = (tp_tfl_qparams){quant.scale[0], (int32_t)quant.zero_point[0], 0, 0};
    tp_tfl_code_range(dtype, &q->qmin, &q->qmax);
    if (dtype == TFPI_INT16 && q->zero_point != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s %d is int16 with zero point %d; int16 tensors have 0",
                       input ? "input" : "output", i, (int)q->zero_point);
    return TFPI_OK;
}

tfpi_dtype tp_tfl_output_dtype(const tp_op_ctx *ctx)
{
    const tfpi_dtype fallback = ctx->num_inputs > 0 ? ctx->inputs[0]->dtype : TFPI_FLOAT;
    return tp_attr_type(ctx->def, "T", fallback);
}

tfpi_code tp_tfl_expect_8bit(tp_op_ctx *ctx, int i, bool float_too)
{
    const tfpi_dtype dtype = ctx->inputs[i]->dtype;
    if (dtype == TFPI_UINT8 || dtype == TFPI_INT8 || (float_too && dtype == TFPI_FLOAT))
        return TFPI_OK;
    return tp_fail(ctx, TFPI_UNIMPLEMENTED, "input %d is %s; this kernel handles uint8, int8%s", i,
                   tfpi_dtype_name(dtype), float_too ? " and float" : "");
}

tfpi_code tp_tfl_expect_rows(tp_op_ctx *ctx, int64_t *depth, int64_t *rows)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 1, 1)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, true)) != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    if (x->ndims < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must have at least one dimension");
    *depth = x->dims[x->ndims - 1];
    *rows = *depth ? tp_num_elements(x) / *depth : 0;
    return TFPI_OK;
}

tfpi_code tp_tfl_prepare_elementwise(tp_op_ctx *ctx, bool float_too)
{
    tfpi_code code;
    if ((code = tp_expect_inputs(ctx, 1, 1)) != TFPI_OK || (code = tp_tfl_expect_8bit(ctx, 0, float_too)) != TFPI_OK)
        return code;
    const tfpi_tensor *x = ctx->inputs[0];
    if (tp_tfl_output_dtype(ctx) != x->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output type %s differs from the input's %s",
                       tfpi_dtype_name(tp_tfl_output_dtype(ctx)), tfpi_dtype_name(x->dtype));
    return tp_set_output(ctx, 0, x->dtype, x->ndims, x->dims);
}
