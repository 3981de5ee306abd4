/* array_ops.c - graph plumbing and shape-only ops: Const, Placeholder,
 * PlaceholderWithDefault, Identity and friends, Reshape, Squeeze, ExpandDims,
 * Shape. Reshape-like outputs alias their input (no copy). The saver's
 * filename placeholder of a model loaded with its checkpoint holds the
 * checkpoint's prefix unless fed, as TensorFlow's loader feeds it (restore
 * functions then run: RestoreV2 filling a MutableHashTable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/model_info.h"
#include "graph/tensor_proto.h"
#include "kernel/array_kernel_util.h"
#include "model/checkpoint.h"

static void free_state(void *state) { free(state); }

static tfpi_code const_prepare(tp_op_ctx *ctx)
{
    const Tfpi__AttrValue *value = tp_attr(ctx->def, "value");
    if (!value || value->value_case != TFPI__ATTR_VALUE__VALUE_TENSOR)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "has no tensor 'value' attribute");
    tfpi_dtype dtype = tp_attr_type(ctx->def, "dtype", (tfpi_dtype)value->tensor->dtype);
    if (dtype != (tfpi_dtype)value->tensor->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute dtype = %s, but its value is a %s tensor",
                       tfpi_dtype_name(dtype), tfpi_dtype_name((tfpi_dtype)value->tensor->dtype));
    /* The shape and the memory budget are checked before anything is decoded. */
    int64_t dims[TFPI_MAX_DIMS];
    int ndims;
    tfpi_code code;
    if (tp_shape_from_proto(value->tensor->tensor_shape, dims, &ndims) &&
        (code = tp_set_output(ctx, 0, dtype, ndims, dims)) != TFPI_OK)
        return code;
    char what[300];
    snprintf(what, sizeof what, "node '%s' (Const)", ctx->def->name);
    return tp_tensor_from_proto(value->tensor, &ctx->outputs[0], &ctx->state, what, ctx->status);
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

/* True if the node is the saver's filename_tensor of a model with a checkpoint. */
static bool is_checkpoint_filename(const tp_op_ctx *ctx)
{
    const tp_model_info *info = ctx->graph ? ctx->graph->model : NULL;
    if (!info || !info->checkpoint || !info->filename_tensor[0])
        return false;
    size_t len = strcspn(info->filename_tensor, ":");
    return strlen(ctx->def->name) == len && strncmp(ctx->def->name, info->filename_tensor, len) == 0 &&
           (!info->filename_tensor[len] || strcmp(info->filename_tensor + len, ":0") == 0);
}

static tfpi_code placeholder_prepare(tp_op_ctx *ctx)
{
    if (!is_checkpoint_filename(ctx))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "placeholder must be fed (give it as an input)");
    const char *prefix = tp_checkpoint_prefix(ctx->graph->model->checkpoint);
    tfpi_bytes *value = ctx->state ? ctx->state : malloc(sizeof *value);
    if (!value)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    *value = (tfpi_bytes){strlen(prefix), (const uint8_t *)prefix};
    ctx->state = value;
    tp_tensor_set_shape(&ctx->outputs[0], TFPI_STRING, 0, NULL);
    ctx->outputs[0].data = value;
    return TFPI_OK;
}

static tfpi_code noop_prepare(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

/* Output 0 = input 0 (the planner aliases the bytes). */
static tfpi_code identity_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    return tp_set_output(ctx, 0, in->dtype, in->ndims, in->dims);
}

/* The default must fit the shape attribute (-1 dims match anything). */
static tfpi_code placeholder_with_default_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = identity_prepare(ctx);
    const Tfpi__AttrValue *shape = tp_attr(ctx->def, "shape");
    if (code != TFPI_OK || !shape || shape->value_case != TFPI__ATTR_VALUE__VALUE_SHAPE || shape->shape->unknown_rank)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    bool fits = (int)shape->shape->n_dim == in->ndims;
    for (int i = 0; fits && i < in->ndims; i++)
        fits = shape->shape->dim[i]->size == -1 || shape->shape->dim[i]->size == in->dims[i];
    char s[TFPI_MAX_DIMS * 22 + 3];
    return fits ? TFPI_OK
                : tp_fail(ctx, TFPI_INVALID_ARGUMENT, "the default value's shape %s does not fit attribute shape",
                          tp_shape_string(in, s, sizeof s));
}

/* Used for every aliasing op: the planner pointed output 0 at input 0. */
static tfpi_code alias_run(tp_op_ctx *ctx)
{
    if (ctx->outputs[0].data != ctx->inputs[0]->data)
        memcpy(ctx->outputs[0].data, ctx->inputs[0]->data, tp_byte_size(ctx->inputs[0]));
    return TFPI_OK;
}

static tfpi_code check_numerics_run(tp_op_ctx *ctx)
{
    alias_run(ctx);
    if (ctx->inputs[0]->dtype != TFPI_FLOAT)
        return TFPI_OK;
    const float *x = ctx->inputs[0]->data;
    for (int64_t i = 0, n = tp_num_elements(ctx->inputs[0]); i < n; i++) {
        if (x[i] - x[i] != 0.0f) { /* NaN or infinity */
            char message[200];
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s: tensor had %s values",
                           tp_attr_string(ctx->def, "message", message, sizeof message, "CheckNumerics"),
                           x[i] != x[i] ? "NaN" : "Inf");
        }
    }
    return TFPI_OK;
}

static tfpi_code reshape_prepare(tp_op_ctx *ctx)
{
    int64_t dims[TFPI_MAX_DIMS];
    int ndims;
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_reshape_dims(ctx, 1, dims, &ndims);
    if (code == TFPI_OK)
        code = tp_set_output(ctx, 0, ctx->inputs[0]->dtype, ndims, dims);
    return code;
}

static tfpi_code squeeze_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    int64_t axes[TFPI_MAX_DIMS], dims[TFPI_MAX_DIMS];
    int num_axes = tp_attr_int_list(ctx->def, "squeeze_dims", axes, TFPI_MAX_DIMS);
    if (num_axes < 0)
        num_axes = tp_attr_int_list(ctx->def, "axis", axes, TFPI_MAX_DIMS);
    if (num_axes > TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "too many squeeze_dims");
    bool drop[TFPI_MAX_DIMS] = {false};
    for (int i = 0; i < num_axes; i++) {
        int64_t a = axes[i] < 0 ? axes[i] + in->ndims : axes[i];
        if (a < 0 || a >= in->ndims || in->dims[a] != 1)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot squeeze dimension %lld of a rank-%d tensor",
                           (long long)axes[i], in->ndims);
        drop[a] = true;
    }
    int n = 0;
    for (int i = 0; i < in->ndims; i++)
        if (!(num_axes > 0 ? drop[i] : in->dims[i] == 1))
            dims[n++] = in->dims[i];
    return tp_set_output(ctx, 0, in->dtype, n, dims);
}

static tfpi_code expand_dims_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_expect_known(ctx, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    if (tp_num_elements(ctx->inputs[1]) != 1 || in->ndims >= TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dim must be one value and the rank below %d",
                       TFPI_MAX_DIMS);
    int64_t axis = tp_get_int(ctx->inputs[1], 0);
    if (axis < 0)
        axis += in->ndims + 1;
    if (axis < 0 || axis > in->ndims)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "dim %lld is out of range for rank %d",
                       (long long)tp_get_int(ctx->inputs[1], 0), in->ndims);
    int64_t dims[TFPI_MAX_DIMS];
    for (int i = 0, j = 0; i <= in->ndims; i++)
        dims[i] = i == axis ? 1 : in->dims[j++];
    return tp_set_output(ctx, 0, in->dtype, in->ndims + 1, dims);
}

/* Shape is known once the input's shape is: computed here, never run. */
static tfpi_code shape_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 1, 1);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    tfpi_dtype type = tp_attr_type(ctx->def, "out_type", TFPI_INT32);
    if (type != TFPI_INT32 && type != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "out_type must be int32 or int64");
    int64_t rank = in->ndims;
    tp_tensor_set_shape(&ctx->outputs[0], type, 1, &rank);
    void *data = calloc((size_t)rank + 1, tfpi_dtype_size(type));
    if (!data)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int i = 0; i < in->ndims; i++) {
        if (type == TFPI_INT32)
            ((int32_t *)data)[i] = (int32_t)in->dims[i];
        else
            ((int64_t *)data)[i] = in->dims[i];
    }
    ctx->state = data;
    ctx->outputs[0].data = data;
    return TFPI_OK;
}

const tp_kernel tp_kernels_array_ops[] = {
    TP_KERNEL("Const", const_prepare, nothing_to_run, free_state, 0),
    TP_KERNEL("Placeholder", placeholder_prepare, nothing_to_run, free_state, 0),
    TP_KERNEL("NoOp", noop_prepare, nothing_to_run, NULL, TP_OUTPUTS(0)),
    TP_KERNEL("PlaceholderWithDefault", placeholder_with_default_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("Identity", identity_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("StopGradient", identity_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("Snapshot", identity_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("CheckNumerics", identity_prepare, check_numerics_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("Reshape", reshape_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("Squeeze", squeeze_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("ExpandDims", expand_dims_prepare, alias_run, NULL, TP_ALIAS_INPUT0),
    TP_KERNEL("Shape", shape_prepare, nothing_to_run, free_state, 0),
    TP_KERNELS_END,
};
