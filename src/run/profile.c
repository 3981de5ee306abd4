/* profile.c - what benchmark_model reports per node: FLOP estimates from the
 * planned shapes (Conv2D = output elements x input depth x filter h x w x 2,
 * depthwise = output elements x filter h x w x 2, MatMul = k x outputs x 2;
 * the same for QuantizedConv2D and QuantizedMatMul and for TFLite's
 * CONV_2D [O,H,W,I], DEPTHWISE_CONV_2D [1,H,W,C] and FULLY_CONNECTED [O,I]
 * on int8/uint8, whose multiply-adds are on 8-bit codes and counted
 * apart), output sizes, and each step's outputs (dtypes and shapes, for
 * benchmark_model --show_sizes). */
#include "run/profile.h"

#include <stdlib.h>
#include <string.h>

#include "model/tflite_options.h"

static int64_t estimate_flops(const tp_op_ctx *ctx)
{
    const char *op = ctx->def->op;
    if (ctx->num_inputs < 2 || ctx->num_outputs < 1)
        return 0;
    const tfpi_tensor *in = ctx->inputs[0], *w = ctx->inputs[1];
    int64_t out = tp_num_elements(&ctx->outputs[0]);
    if ((!strcmp(op, "Conv2D") || !strcmp(op, "QuantizedConv2D") || !strcmp(op, "Conv2DBackpropInput")) &&
        w->ndims == 4)
        return out * w->dims[0] * w->dims[1] * w->dims[2] * 2;
    if (!strcmp(op, "DepthwiseConv2dNative") && w->ndims == 4)
        return out * w->dims[0] * w->dims[1] * 2;
    if (!strcmp(op, "CONV_2D") && w->ndims == 4)
        return out * w->dims[1] * w->dims[2] * w->dims[3] * 2;
    if (!strcmp(op, "DEPTHWISE_CONV_2D") && w->ndims == 4)
        return out * w->dims[1] * w->dims[2] * 2;
    if (!strcmp(op, "FULLY_CONNECTED") && w->ndims == 2)
        return out * w->dims[1] * 2;
    if ((!strcmp(op, "MatMul") || !strcmp(op, "QuantizedMatMul") || !strncmp(op, "BatchMatMul", 11)) &&
        in->ndims >= 2) {
        bool transposed = false;
        for (size_t i = 0; i < ctx->def->n_attr; i++)
            if ((!strcmp(ctx->def->attr[i]->key, "transpose_a") || !strcmp(ctx->def->attr[i]->key, "adj_x")) &&
                ctx->def->attr[i]->value->b)
                transposed = true;
        return out * in->dims[in->ndims - (transposed ? 2 : 1)] * 2;
    }
    return 0;
}

/* The op a user knows the node by: the TensorFlow Lite operator it was
 * translated from (attribute tflite_operator, model/tflite_float_ops.c),
 * else its own op. */
static const char *op_name(const Tfpi__NodeDef *def)
{
    const Tfpi__AttrValue *a = tp_attr(def, "tflite_operator");
    const char *name = a && a->value_case == TFPI__ATTR_VALUE__VALUE_S
                           ? tp_tfl_builtin_named((const char *)a->s.data, a->s.len)
                           : NULL;
    return name ? name : def->op;
}

/* Whether the node's multiply-adds are on 8-bit codes. */
static bool integer_op(const tp_op_ctx *ctx)
{
    const tfpi_dtype t = ctx->num_inputs ? ctx->inputs[0]->dtype : TFPI_FLOAT;
    return !strncmp(ctx->def->op, "Quantized", 9) || t == TFPI_INT8 || t == TFPI_UINT8;
}

tfpi_node_profile *tp_profile_new(const tp_plan *plan, int *count, const tp_op_ctx ***steps)
{
    tfpi_node_profile *records = calloc((size_t)plan->num_steps + 1, sizeof *records);
    *steps = calloc((size_t)plan->num_steps + 1, sizeof **steps);
    *count = 0;
    if (!records || !*steps) {
        free(records);
        free(*steps);
        *steps = NULL;
        return NULL;
    }
    for (int s = 0; s < plan->num_steps; s++) {
        if (plan->nodes[plan->steps[s]].fused)
            continue;
        const tp_op_ctx *ctx = &plan->nodes[plan->steps[s]].ctx;
        (*steps)[*count] = ctx;
        tfpi_node_profile *r = &records[(*count)++];
        r->name = ctx->def->name;
        r->op = op_name(ctx->def);
        r->flops = estimate_flops(ctx);
        r->integer = integer_op(ctx);
        for (int o = 0; o < ctx->num_outputs; o++)
            r->output_bytes += tp_byte_size(&ctx->outputs[o]);
    }
    return records;
}
