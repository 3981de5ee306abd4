/* resource_variable.c - TF2's resource variables, held by the session
 * (src/kernel/resource_store.h): VarHandleOp names one (container, shared_name;
 * an empty shared_name means the node's name) and gives its handle;
 * ReadVariableOp, ResourceGather, VariableShape and VarIsInitializedOp read
 * it; AssignVariableOp, AssignAddVariableOp and AssignSubVariableOp write
 * it. While no node of a plan writes a variable, reads give the stored
 * bytes themselves and fold like constants (conv weights are packed once);
 * a plan that writes runs on the dynamic executor and every read is a copy
 * taken when it runs, so a later assignment in the same run is seen by the
 * reads after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/model_info.h"
#include "kernel/array_kernel_util.h"
#include "kernel/resource_store.h"
#include "model/variable_binding.h"

/* A variable of a model loaded with its checkpoint (a SavedModel: the key
 * comes from its restore function) starts with the checkpoint's value. */
static tfpi_code restore(tp_op_ctx *ctx, tp_resource_var *v)
{
    tp_model_info *info = ctx->graph ? ctx->graph->model : NULL;
    tp_variable *bound = tp_model_info_find_variable(info, ctx->def->name);
    if (!bound || !info->checkpoint || !tp_checkpoint_find(info->checkpoint, bound->key))
        return TFPI_OK; /* assigned by the graph, or read before it is: an error then */
    tfpi_tensor value;
    int64_t max_bytes = ctx->max_bytes > INT64_MAX ? INT64_MAX : (int64_t)ctx->max_bytes;
    tfpi_code code = tp_graph_variable_value(ctx->graph, ctx->def, max_bytes, &value, ctx->status);
    if (code == TFPI_OK && value.dtype != v->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "checkpoint key '%s' is %s, the variable %s", bound->key,
                       tfpi_dtype_name(value.dtype), tfpi_dtype_name(v->dtype));
    if (code == TFPI_OK)
        code = tp_resource_var_bind(ctx->variables, v, &value, ctx->status);
    if (code != TFPI_OK && strncmp(ctx->status->message, "node '", 6) != 0) {
        char detail[sizeof ctx->status->message];
        memcpy(detail, ctx->status->message, sizeof detail);
        return tp_fail(ctx, code, "%s", detail);
    }
    return code;
}

static tfpi_code var_handle_prepare(tp_op_ctx *ctx)
{
    tfpi_dtype dtype = tp_attr_type(ctx->def, "dtype", 0);
    if (!dtype || !tfpi_dtype_size(dtype) || dtype == TFPI_RESOURCE || dtype == TFPI_VARIANT)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute dtype must be a type tfpi can hold");
    tp_resource_var *v = tp_resource_handle_output(ctx, TP_RESOURCE_VARIABLE, dtype);
    if (!v)
        return ctx->status->code;
    return v->value.dtype ? TFPI_OK : restore(ctx, v);
}

static tfpi_code nothing_to_run(tp_op_ctx *ctx)
{
    (void)ctx;
    return TFPI_OK;
}

/* The variable behind input 0, known (assigned) unless `unassigned_ok`;
 * with inputs >= 0 (prepare), the node must have that many inputs. */
static tfpi_code get_variable(tp_op_ctx *ctx, int inputs, bool unassigned_ok, tp_resource_var **out)
{
    if (inputs >= 0 && tp_expect_inputs(ctx, inputs, inputs) != TFPI_OK)
        return ctx->status->code;
    const tfpi_tensor *h = ctx->inputs[0];
    char name[300];
    if (h->dtype != TFPI_RESOURCE || h->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 must be a resource handle, not a %s of rank %d",
                       tfpi_dtype_name(h->dtype), h->ndims);
    if (!h->data)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "the variable handle is not known while planning");
    tp_resource_var *v = tp_resource_store_get(ctx->variables, *(const intptr_t *)h->data);
    if (!v || v->kind != TP_RESOURCE_VARIABLE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input 0 is not a variable handle");
    const tp_model_info *model = ctx->graph ? ctx->graph->model : NULL;
    if (!unassigned_ok && !v->value.dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "variable '%s' read before it was restored or assigned%s%s%s",
                       tp_resource_var_name(v, name, sizeof name), model && !model->checkpoint ? "; " : "",
                       model && !model->checkpoint ? model->source : "",
                       model && !model->checkpoint ? " has no checkpoint (no variables/)" : "");
    tfpi_dtype want = tp_attr_type(ctx->def, "dtype", v->dtype);
    if (want != v->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "variable '%s' is %s, the node reads %s",
                       tp_resource_var_name(v, name, sizeof name), tfpi_dtype_name(v->dtype), tfpi_dtype_name(want));
    *out = v;
    return TFPI_OK;
}

/* The output is the stored value's bytes, from prepare on: a frozen plan
 * folds it like a constant; the dynamic executor copies it when the read
 * runs (what an output holds outside the node's inputs is copied), so
 * there is nothing left to run. */
static tfpi_code read_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, 1, false, &v);
    if (code != TFPI_OK)
        return code;
    tp_tensor_set_shape(&ctx->outputs[0], v->value.dtype, v->value.ndims, v->value.dims);
    ctx->outputs[0].data = v->value.data;
    return TFPI_OK;
}

static tfpi_code assign_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    char name[300];
    tfpi_code code = get_variable(ctx, 2, strcmp(ctx->def->op, "AssignVariableOp") == 0, &v);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *value = ctx->inputs[1];
    if (value->dtype != v->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "assigns a %s value to %s variable '%s'",
                       tfpi_dtype_name(value->dtype), tfpi_dtype_name(v->dtype), tp_resource_var_name(v, name, sizeof name));
    bool same_shape_needed = strcmp(ctx->def->op, "AssignVariableOp") != 0 || tp_attr_bool(ctx->def, "validate_shape", false);
    if (same_shape_needed && v->value.dtype && !tp_same_shape(value, &v->value)) {
        char have[160], got[160];
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "variable '%s' has shape %s, the value %s",
                       tp_resource_var_name(v, name, sizeof name), tp_shape_string(&v->value, have, sizeof have),
                       tp_shape_string(value, got, sizeof got));
    }
    if (strcmp(ctx->def->op, "AssignVariableOp") != 0 && v->dtype != TFPI_FLOAT && v->dtype != TFPI_DOUBLE &&
        v->dtype != TFPI_INT32 && v->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "%s of a %s variable is not supported", ctx->def->op,
                       tfpi_dtype_name(v->dtype));
    return TFPI_OK;
}

/* value += sign * delta, elementwise. */
#define ACCUMULATE(type)                                                                                           \
    do {                                                                                                           \
        type *to = v->value.data;                                                                                  \
        const type *by = delta->data;                                                                              \
        for (int64_t i = 0; i < n; i++)                                                                            \
            to[i] = sign > 0 ? to[i] + by[i] : to[i] - by[i];                                                      \
    } while (0)

static tfpi_code assign_run(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, -1, true, &v);
    if (code != TFPI_OK)
        return code;
    if (strcmp(ctx->def->op, "AssignVariableOp") == 0)
        return tp_resource_var_assign(ctx->variables, v, ctx->inputs[1], ctx->status);
    if ((code = tp_resource_var_own(ctx->variables, v, ctx->status)) != TFPI_OK)
        return code;
    const tfpi_tensor *delta = ctx->inputs[1];
    int sign = strcmp(ctx->def->op, "AssignAddVariableOp") == 0 ? 1 : -1;
    int64_t n = tp_num_elements(delta);
    switch (v->dtype) {
    case TFPI_FLOAT: ACCUMULATE(float); break;
    case TFPI_DOUBLE: ACCUMULATE(double); break;
    case TFPI_INT32: { /* wraps as TF's does, without undefined overflow */
        uint32_t *to = v->value.data;
        const uint32_t *by = delta->data;
        for (int64_t i = 0; i < n; i++)
            to[i] = sign > 0 ? to[i] + by[i] : to[i] - by[i];
        break;
    }
    default: {
        uint64_t *to = v->value.data;
        const uint64_t *by = delta->data;
        for (int64_t i = 0; i < n; i++)
            to[i] = sign > 0 ? to[i] + by[i] : to[i] - by[i];
        break;
    }
    }
    return TFPI_OK;
}

/* ResourceGather: rows of the variable (axis 0) picked by indices. */
static tfpi_code gather_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, 2, false, &v);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *indices = ctx->inputs[1];
    if (tp_attr_int(ctx->def, "batch_dims", 0) != 0)
        return tp_fail(ctx, TFPI_UNIMPLEMENTED, "batch_dims other than 0 is not supported");
    if (indices->dtype != TFPI_INT32 && indices->dtype != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices must be int32 or int64, not %s",
                       tfpi_dtype_name(indices->dtype));
    if (v->value.ndims < 1 || indices->ndims + v->value.ndims - 1 > TFPI_MAX_DIMS)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "cannot gather rows of a rank %d variable by rank %d indices",
                       v->value.ndims, indices->ndims);
    int64_t dims[TFPI_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < indices->ndims; d++)
        dims[n++] = indices->dims[d];
    for (int d = 1; d < v->value.ndims; d++)
        dims[n++] = v->value.dims[d];
    return tp_set_output(ctx, 0, v->value.dtype, n, dims);
}

static tfpi_code gather_run(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, -1, false, &v);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *indices = ctx->inputs[1];
    int64_t rows = v->value.dims[0], count = tp_num_elements(indices);
    size_t row_bytes = rows ? tp_byte_size(&v->value) / (size_t)rows : 0;
    char *dst = ctx->outputs[0].data;
    for (int64_t i = 0; i < count; i++) {
        int64_t k = tp_get_int(indices, i);
        if (k < 0 || k >= rows)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "indices[%lld] = %lld is not in [0, %lld)", (long long)i,
                           (long long)k, (long long)rows);
        memcpy(dst + (size_t)i * row_bytes, (const char *)v->value.data + (size_t)k * row_bytes, row_bytes);
    }
    return TFPI_OK;
}

static tfpi_code shape_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, 1, false, &v);
    if (code != TFPI_OK)
        return code;
    tfpi_dtype type = tp_attr_type(ctx->def, "out_type", TFPI_INT32);
    if (type != TFPI_INT32 && type != TFPI_INT64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "out_type must be int32 or int64");
    int64_t rank = v->value.ndims;
    return tp_set_output(ctx, 0, type, 1, &rank);
}

static tfpi_code shape_run(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, -1, false, &v);
    for (int d = 0; code == TFPI_OK && d < v->value.ndims; d++) {
        if (ctx->outputs[0].dtype == TFPI_INT32)
            ((int32_t *)ctx->outputs[0].data)[d] = (int32_t)v->value.dims[d];
        else
            ((int64_t *)ctx->outputs[0].data)[d] = v->value.dims[d];
    }
    return code;
}

static tfpi_code initialized_prepare(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, 1, true, &v);
    if (code == TFPI_OK)
        tp_tensor_set_shape(&ctx->outputs[0], TFPI_BOOL, 0, NULL);
    return code;
}

static tfpi_code initialized_run(tp_op_ctx *ctx)
{
    tp_resource_var *v;
    tfpi_code code = get_variable(ctx, -1, true, &v);
    if (code == TFPI_OK)
        *(uint8_t *)ctx->outputs[0].data = v->value.dtype != 0;
    return code;
}

#define READS (TP_STATEFUL | TP_READS_VARIABLES)
#define WRITES (TP_STATEFUL | TP_WRITES_VARIABLES | TP_OUTPUTS(0))

const tp_kernel tp_kernels_resource_variable[] = {
    TP_KERNEL("VarHandleOp", var_handle_prepare, nothing_to_run, free, 0),
    TP_KERNEL("ReadVariableOp", read_prepare, nothing_to_run, NULL, READS),
    TP_KERNEL("ResourceGather", gather_prepare, gather_run, NULL, READS),
    TP_KERNEL("VariableShape", shape_prepare, shape_run, NULL, READS),
    TP_KERNEL("VarIsInitializedOp", initialized_prepare, initialized_run, NULL, READS),
    TP_KERNEL("AssignVariableOp", assign_prepare, assign_run, NULL, WRITES),
    TP_KERNEL("AssignAddVariableOp", assign_prepare, assign_run, NULL, WRITES),
    TP_KERNEL("AssignSubVariableOp", assign_prepare, assign_run, NULL, WRITES),
    TP_KERNELS_END,
};
