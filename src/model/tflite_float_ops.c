/* tflite_float_ops.c - float TFLite operators as the TensorFlow ops that
 * compute them the same way (and operators that only move elements, on
 * quantized tensors quantized alike: RESHAPE, SQUEEZE, TRANSPOSE...), so
 * .tflite models run on the kernels frozen graphs use: CONV_2D becomes Transpose(filter OHWI -> HWIO, folded while
 * planning) + Conv2D + BiasAdd + the fused activation, which the planner
 * fuses back into the convolution; FULLY_CONNECTED a Reshape to [-1, in] +
 * MatMul(transpose_b) + BiasAdd; DEPTHWISE_CONV_2D reshapes its filter
 * [1, H, W, C*M] to [H, W, C, M] (the same bytes); a quantized
 * SPACE_TO_BATCH_ND pads with the zero point's code first. The int8 weights of
 * hybrid models are dequantized first (folded once), and so is the int8
 * table of a hybrid EMBEDDING_LOOKUP (a GatherV2). An operator with a
 * quantized tensor, or options TensorFlow's op lacks, is left to its
 * builtin node (tflite_graph.c). */
#include <stdlib.h>
#include <string.h>

#include "graph/node_def.h"

#include "model/tflite_graph.h"
#include "model/tflite_options.h"

enum { ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6, ACT_TANH, ACT_SIGN_BIT };

/* A run of nodes whose last one takes the operator's name. */
typedef struct chain {
    tp_tfl_op *o;
    int remaining; /* nodes still to emit */
    const char *cur; /* the last node emitted */
} chain;

static const tp_tfl_tensor *tensor(const tp_tfl_op *o, int32_t t) { return &o->x->g->tensors[t]; }
static const tp_tfl_tensor *out_tensor(const tp_tfl_op *o, int j) { return tensor(o, o->op->outputs[j]); }
static bool has_input(const tp_tfl_op *o, int i) { return i < o->op->num_inputs && o->op->inputs[i] >= 0; }
/* Input i's tensor; one of no type where the operator has no input i
 * (fewer inputs, or an absent optional one). */
static const tp_tfl_tensor *in_tensor(const tp_tfl_op *o, int i)
{
    static const tp_tfl_tensor absent;
    return has_input(o, i) ? tensor(o, o->op->inputs[i]) : &absent;
}

/* Node `op` of the chain with inputs[0..n) and attribute T (0: none). */
static Tfpi__NodeDef *step(chain *c, const char *suffix, const char *op, const char *const *inputs, int n,
                           tfpi_dtype T)
{
    tp_tfl_translator *x = c->o->x;
    const char *name = --c->remaining == 0 ? c->o->name : tp_tfl_fresh_name(x, c->o->name, suffix);
    Tfpi__NodeDef *def = tp_tfl_emit(x, name, op, inputs, n);
    if (def && T && !tp_tfl_attr(x, def, "T", tp_attr_new_type(T)))
        return NULL;
    /* what benchmark_model's per-op stats call it (run/profile.c) */
    if (def && !tp_tfl_attr(x, def, "tflite_operator", tp_attr_new_string(tp_tfl_op_name(c->o))))
        return NULL;
    if (def)
        c->cur = def->name;
    return def;
}

static int64_t option(const tp_tfl_op *o, const char *name)
{
    int64_t v = 0;
    tp_tfl_option_int(&o->x->m->fb, o->op->options_type, &o->op->options, name, &v);
    return v;
}

static float option_float(const tp_tfl_op *o, const char *name)
{
    float v = 0;
    tp_tfl_option_float(&o->x->m->fb, o->op->options_type, &o->op->options, name, &v);
    return v;
}

/* The fused activation: how many nodes it adds (-1: none TensorFlow has). */
static int activation_nodes(const tp_tfl_op *o)
{
    int64_t act = option(o, "fused_activation_function");
    return act == ACT_NONE ? 0 : act == ACT_SIGN_BIT ? -1 : 1;
}

static bool activation(chain *c)
{
    tp_tfl_translator *x = c->o->x;
    int64_t act = option(c->o, "fused_activation_function");
    if (act == ACT_NONE)
        return true;
    if (act == ACT_RELU_N1_TO_1) {
        const char *lo = tp_tfl_const_f32(x, c->o->name, "min", -1.0f), *hi = tp_tfl_const_f32(x, c->o->name, "max", 1.0f);
        return lo && hi && step(c, "ClipByValue", "ClipByValue", (const char *[]){c->cur, lo, hi}, 3, TFPI_FLOAT);
    }
    const char *op = act == ACT_RELU ? "Relu" : act == ACT_RELU6 ? "Relu6" : "Tanh";
    return step(c, op, op, (const char *[]){c->cur}, 1, TFPI_FLOAT) != NULL;
}

/* Sets attribute key of def, taking value; without a def (the node could
 * not be made) the value is freed. */
static bool attr(tp_tfl_op *o, Tfpi__NodeDef *def, const char *key, Tfpi__AttrValue *value)
{
    if (!def) {
        if (value)
            tfpi__attr_value__free_unpacked(value, NULL);
        return false;
    }
    return tp_tfl_attr(o->x, def, key, value);
}

static bool window_attrs(tp_tfl_op *o, Tfpi__NodeDef *def, bool dilations)
{
    int64_t strides[4] = {1, option(o, "stride_h"), option(o, "stride_w"), 1};
    int64_t dil[4] = {1, option(o, "dilation_h_factor"), option(o, "dilation_w_factor"), 1};
    return attr(o, def, "strides", tp_attr_new_int_list(strides, 4)) &&
           attr(o, def, "padding", tp_attr_new_string(option(o, "padding") == 0 ? "SAME" : "VALID")) &&
           attr(o, def, "data_format", tp_attr_new_string("NHWC")) &&
           (!dilations || attr(o, def, "dilations", tp_attr_new_int_list(dil, 4)));
}

/* The graph tensors of the operator's inputs (absent ones NULL). */
static bool inputs_of(tp_tfl_op *o, const char **in, int max)
{
    for (int i = 0; i < o->op->num_inputs && i < max; i++)
        if (o->op->inputs[i] >= 0 && !(in[i] = tp_tfl_input(o->x, o->op->inputs[i])))
            return false;
    return true;
}

/* Weights input i as float: the input itself, or the int8 weights of a
 * hybrid ("dynamic range") model through a DEQUANTIZE node (per tensor or
 * per channel), which the plan folds once. TFLite's hybrid kernels also
 * quantize the float input on each run; tfpi computes in float, so its
 * outputs differ by that rounding. NULL if the weights are neither. */
static const char *float_weights(tp_tfl_op *o, int i, const char *name)
{
    const tp_tfl_tensor *t = in_tensor(o, i);
    if (t->dtype == TFPI_FLOAT || !name)
        return name;
    if (t->dtype != TFPI_INT8 || t->quant.count == 0)
        return NULL;
    const char *node = tp_tfl_fresh_name(o->x, o->name, "weights_dequantized");
    Tfpi__NodeDef *def = node ? tp_tfl_emit(o->x, node, "DEQUANTIZE", &name, 1) : NULL;
    bool ok = attr(o, def, "T", tp_attr_new_type(TFPI_FLOAT)) && attr(o, def, "builtin_code", tp_attr_new_int(6)) &&
              tp_tfl_quant_attrs(o->x, def, "in", 0, &t->quant);
    return ok ? def->name : NULL;
}

/* A float input with float weights, or int8 ones (a hybrid model). */
static bool float_or_hybrid(const tp_tfl_op *o)
{
    const tfpi_dtype w = in_tensor(o, 1)->dtype;
    return in_tensor(o, 0)->dtype == TFPI_FLOAT && (w == TFPI_FLOAT || (w == TFPI_INT8 && in_tensor(o, 1)->quant.count));
}

static const char *transposed(tp_tfl_op *o, const char *filter, const int32_t perm[4])
{
    if (!filter)
        return NULL;
    const char *p = tp_tfl_const_i32(o->x, o->name, "filter_perm", perm, 4, false);
    const char *name = p ? tp_tfl_fresh_name(o->x, o->name, "filter_transposed") : NULL;
    Tfpi__NodeDef *def = name ? tp_tfl_emit(o->x, name, "Transpose", (const char *[]){filter, p}, 2) : NULL;
    if (!def || !attr(o, def, "T", tp_attr_new_type(TFPI_FLOAT)) || !attr(o, def, "Tperm", tp_attr_new_type(TFPI_INT32)))
        return NULL;
    return def->name;
}

/* BiasAdd when the operator has a bias (input `i`), then the activation. */
static bool bias_and_activation(chain *c, const char *bias)
{
    if (bias) {
        Tfpi__NodeDef *def = step(c, "BiasAdd", "BiasAdd", (const char *[]){c->cur, bias}, 2, TFPI_FLOAT);
        if (!attr(c->o, def, "data_format", tp_attr_new_string("NHWC")))
            return false;
    }
    return activation(c);
}

static bool conv_2d(tp_tfl_op *o)
{
    const char *in[3] = {0};
    if (!inputs_of(o, in, 3))
        return false;
    const char *filter = transposed(o, float_weights(o, 1, in[1]), (const int32_t[]){1, 2, 3, 0});
    chain c = {o, 1 + (in[2] != NULL) + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = filter ? step(&c, "Conv2D", "Conv2D", (const char *[]){in[0], filter}, 2, TFPI_FLOAT) : NULL;
    return window_attrs(o, def, true) && bias_and_activation(&c, in[2]);
}

static bool depthwise_conv_2d(tp_tfl_op *o)
{
    const char *in[3] = {0};
    const tp_tfl_tensor *input = in_tensor(o, 0), *filter = in_tensor(o, 1);
    int64_t channels = input->ndims == 4 ? input->dims[3] : -1;
    if (filter->ndims != 4 || channels <= 0 || filter->dims[3] % channels || !inputs_of(o, in, 3))
        return false;
    int32_t hwcm[4] = {(int32_t)filter->dims[1], (int32_t)filter->dims[2], (int32_t)channels,
                       (int32_t)(filter->dims[3] / channels)};
    const char *weights = float_weights(o, 1, in[1]);
    const char *shape = weights ? tp_tfl_const_i32(o->x, o->name, "filter_shape", hwcm, 4, false) : NULL;
    const char *name = shape ? tp_tfl_fresh_name(o->x, o->name, "filter_hwcm") : NULL;
    Tfpi__NodeDef *reshape = name ? tp_tfl_emit(o->x, name, "Reshape", (const char *[]){weights, shape}, 2) : NULL;
    if (!attr(o, reshape, "T", tp_attr_new_type(TFPI_FLOAT)) || !attr(o, reshape, "Tshape", tp_attr_new_type(TFPI_INT32)))
        return false;
    chain c = {o, 1 + (in[2] != NULL) + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = step(&c, "DepthwiseConv2dNative", "DepthwiseConv2dNative",
                              (const char *[]){in[0], reshape->name}, 2, TFPI_FLOAT);
    return window_attrs(o, def, true) && bias_and_activation(&c, in[2]);
}

static bool fully_connected(tp_tfl_op *o)
{
    const char *in[3] = {0};
    const tp_tfl_tensor *input = in_tensor(o, 0), *weights = in_tensor(o, 1), *out = out_tensor(o, 0);
    if (weights->ndims != 2 || !inputs_of(o, in, 3))
        return false;
    bool flat = input->ndims == 2 && input->dims[1] == weights->dims[1];
    bool keep = out->ndims != 2;
    const char *x = in[0];
    if (!flat) {
        const char *shape = tp_tfl_const_i32(o->x, o->name, "flat_shape", (const int32_t[]){-1, (int32_t)weights->dims[1]},
                                             2, false);
        const char *name = shape ? tp_tfl_fresh_name(o->x, o->name, "flatten") : NULL;
        Tfpi__NodeDef *def = name ? tp_tfl_emit(o->x, name, "Reshape", (const char *[]){x, shape}, 2) : NULL;
        if (!attr(o, def, "T", tp_attr_new_type(TFPI_FLOAT)) || !attr(o, def, "Tshape", tp_attr_new_type(TFPI_INT32)))
            return false;
        x = def->name;
    }
    const char *w = float_weights(o, 1, in[1]);
    chain c = {o, 1 + (in[2] != NULL) + activation_nodes(o) + keep, NULL};
    Tfpi__NodeDef *def = w ? step(&c, "MatMul", "MatMul", (const char *[]){x, w}, 2, TFPI_FLOAT) : NULL;
    if (!attr(o, def, "transpose_a", tp_attr_new_bool(false)) || !attr(o, def, "transpose_b", tp_attr_new_bool(true)) ||
        !bias_and_activation(&c, in[2]))
        return false;
    if (!keep)
        return true;
    int32_t dims[TFPI_MAX_DIMS];
    for (int i = 0; i < out->ndims; i++)
        dims[i] = i == 0 ? -1 : (int32_t)out->dims[i];
    const char *shape = tp_tfl_const_i32(o->x, o->name, "out_shape", dims, out->ndims, false);
    def = shape ? step(&c, "Reshape", "Reshape", (const char *[]){c.cur, shape}, 2, TFPI_FLOAT) : NULL;
    return attr(o, def, "Tshape", tp_attr_new_type(TFPI_INT32));
}

static bool transpose_conv(tp_tfl_op *o)
{
    const char *in[4] = {0};
    if (!inputs_of(o, in, 4))
        return false;
    const char *filter = transposed(o, in[1], (const int32_t[]){1, 2, 0, 3});
    chain c = {o, 1 + (in[3] != NULL) + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = filter ? step(&c, "Conv2DBackpropInput", "Conv2DBackpropInput",
                                       (const char *[]){in[0], filter, in[2]}, 3, TFPI_FLOAT)
                                : NULL;
    return window_attrs(o, def, false) && bias_and_activation(&c, in[3]);
}

static bool pool(tp_tfl_op *o, const char *op)
{
    const char *in[1] = {0};
    if (!inputs_of(o, in, 1))
        return false;
    chain c = {o, 1 + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = step(&c, op, op, in, 1, TFPI_FLOAT);
    int64_t ksize[4] = {1, option(o, "filter_height"), option(o, "filter_width"), 1};
    return window_attrs(o, def, false) && attr(o, def, "ksize", tp_attr_new_int_list(ksize, 4)) && activation(&c);
}

static bool softmax(tp_tfl_op *o)
{
    const char *in[1] = {0};
    float beta = option_float(o, "beta");
    if (!inputs_of(o, in, 1))
        return false;
    chain c = {o, 1 + (beta != 1.0f), in[0]};
    if (beta != 1.0f) {
        const char *b = tp_tfl_const_f32(o->x, o->name, "beta", beta);
        if (!b || !step(&c, "scaled", "Mul", (const char *[]){in[0], b}, 2, TFPI_FLOAT))
            return false;
    }
    return step(&c, "Softmax", "Softmax", (const char *[]){c.cur}, 1, TFPI_FLOAT) != NULL;
}

static bool concatenation(tp_tfl_op *o)
{
    int n = o->op->num_inputs;
    const char *in[65] = {0};
    if (n < 1 || n > 64 || !inputs_of(o, in, n))
        return false;
    int32_t axis = (int32_t)option(o, "axis");
    if (!(in[n] = tp_tfl_const_i32(o->x, o->name, "axis", &axis, 1, true)))
        return false;
    chain c = {o, 1 + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = step(&c, "ConcatV2", "ConcatV2", in, n + 1, in_tensor(o, 0)->dtype);
    return attr(o, def, "N", tp_attr_new_int(n)) && attr(o, def, "Tidx", tp_attr_new_type(TFPI_INT32)) &&
           activation(&c);
}

static bool reshape(tp_tfl_op *o)
{
    const char *in[2] = {0};
    if (!inputs_of(o, in, 2))
        return false;
    const char *shape = in[1];
    if (!shape) { /* the shape from the options (older files) or the output tensor */
        const tp_tfl_tensor *out = out_tensor(o, 0);
        int32_t dims[TFPI_MAX_DIMS];
        for (int i = 0; i < out->ndims; i++)
            dims[i] = (int32_t)out->dims[i];
        if (!(shape = tp_tfl_const_i32(o->x, o->name, "shape", dims, out->ndims, false)))
            return false;
    }
    if (has_input(o, 1) && in_tensor(o, 1)->dtype != TFPI_INT32)
        return false;
    chain c = {o, 1, NULL};
    Tfpi__NodeDef *def = step(&c, "Reshape", "Reshape", (const char *[]){in[0], shape}, 2, in_tensor(o, 0)->dtype);
    return attr(o, def, "Tshape", tp_attr_new_type(TFPI_INT32));
}

/* An op whose inputs and outputs are the TFLite operator's, with T from
 * input `typed` and the integer-type attribute `index_attr` from input 1. */
static Tfpi__NodeDef *same_inputs(tp_tfl_op *o, const char *op, int typed, const char *index_attr)
{
    const char *in[8] = {0};
    int n = o->op->num_inputs;
    if (n > 8 || !inputs_of(o, in, n))
        return NULL;
    for (int i = 0; i < n; i++)
        if (!in[i])
            return NULL;
    chain c = {o, 1 + activation_nodes(o), NULL};
    Tfpi__NodeDef *def = step(&c, op, op, in, n, typed >= 0 && typed < n ? in_tensor(o, typed)->dtype : 0);
    if (def && index_attr && !attr(o, def, index_attr, tp_attr_new_type(n > 1 ? in_tensor(o, 1)->dtype : TFPI_INT32)))
        return NULL;
    return def && activation(&c) ? def : NULL;
}

static bool reduction(tp_tfl_op *o, const char *op)
{
    Tfpi__NodeDef *def = same_inputs(o, op, 0, "Tidx");
    return attr(o, def, "keep_dims", tp_attr_new_bool(option(o, "keep_dims") != 0));
}

static bool strided_slice(tp_tfl_op *o)
{
    static const char *const masks[] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                        "shrink_axis_mask"};
    if (option(o, "offset"))
        return false;
    Tfpi__NodeDef *def = same_inputs(o, "StridedSlice", 0, "Index");
    for (int i = 0; def && i < 5; i++)
        if (!attr(o, def, masks[i], tp_attr_new_int(option(o, masks[i]))))
            return false;
    return def != NULL;
}

static bool gather(tp_tfl_op *o)
{
    const char *in[3] = {0};
    int32_t axis = (int32_t)option(o, "axis");
    if (o->op->num_inputs != 2 || !inputs_of(o, in, 2) || !(in[2] = tp_tfl_const_i32(o->x, o->name, "axis", &axis, 1, true)))
        return false;
    chain c = {o, 1, NULL};
    Tfpi__NodeDef *def = step(&c, "GatherV2", "GatherV2", in, 3, 0);
    return attr(o, def, "Tparams", tp_attr_new_type(in_tensor(o, 0)->dtype)) &&
           attr(o, def, "Tindices", tp_attr_new_type(in_tensor(o, 1)->dtype)) &&
           attr(o, def, "Taxis", tp_attr_new_type(TFPI_INT32)) &&
           attr(o, def, "batch_dims", tp_attr_new_int(option(o, "batch_dims")));
}

/* EMBEDDING_LOOKUP (ids [n] int32, table [rows, ...]): the rows at ids,
 * as GatherV2 on axis 0. TFLite's hybrid form (an int8 table, a float
 * output) multiplies each code by its scale (one, or one per row) and
 * ignores the zero point: a DEQUANTIZE of the table with zero points 0,
 * folded once, then the gather. */
static bool hybrid_weights(const tp_tfl_op *o);

static bool embedding_lookup(tp_tfl_op *o)
{
    const tp_tfl_tensor *ids = in_tensor(o, 0), *table = in_tensor(o, 1);
    if (o->op->num_inputs != 2 || ids->ndims != 1 || ids->dtype != TFPI_INT32 || table->ndims < 2) {
        tp_tfl_op_fail(o, TFPI_INVALID_ARGUMENT, "takes ids of rank 1 (int32) and a table of rank >= 2, not %s of "
                       "rank %d and a table of rank %d", tfpi_dtype_name(ids->dtype), ids->ndims, table->ndims);
        return false;
    }
    const char *in[3] = {0};
    int32_t axis = 0;
    if (!inputs_of(o, in, 2))
        return false;
    const char *values = in[1];
    if (table->dtype != out_tensor(o, 0)->dtype) {
        if (!hybrid_weights(o)) {
            tp_tfl_op_fail(o, TFPI_UNIMPLEMENTED, "its table is %s and its output %s (TFLite takes one type, or an "
                           "int8 table and a float output)", tfpi_dtype_name(table->dtype),
                           tfpi_dtype_name(out_tensor(o, 0)->dtype));
            return false;
        }
        int64_t zero = 0;
        int64_t *zero_points = table->quant.count > 1 ? calloc((size_t)table->quant.count, sizeof *zero_points) : &zero;
        tp_tfl_quant_params symmetric = table->quant;
        symmetric.zero_point = zero_points;
        const char *node = zero_points ? tp_tfl_fresh_name(o->x, o->name, "table_dequantized") : NULL;
        Tfpi__NodeDef *def = node ? tp_tfl_emit(o->x, node, "DEQUANTIZE", &values, 1) : NULL;
        bool ok = attr(o, def, "T", tp_attr_new_type(TFPI_FLOAT)) && attr(o, def, "builtin_code", tp_attr_new_int(6)) &&
                  tp_tfl_quant_attrs(o->x, def, "in", 0, &symmetric);
        if (zero_points != &zero)
            free(zero_points);
        if (!ok)
            return false;
        values = def->name;
    }
    in[0] = values;
    in[1] = tp_tfl_input(o->x, o->op->inputs[0]);
    if (!(in[2] = tp_tfl_const_i32(o->x, o->name, "axis", &axis, 1, true)))
        return false;
    chain c = {o, 1, NULL};
    Tfpi__NodeDef *def = step(&c, "GatherV2", "GatherV2", in, 3, 0);
    return attr(o, def, "Tparams", tp_attr_new_type(out_tensor(o, 0)->dtype)) &&
           attr(o, def, "Tindices", tp_attr_new_type(TFPI_INT32)) && attr(o, def, "Taxis", tp_attr_new_type(TFPI_INT32)) &&
           attr(o, def, "batch_dims", tp_attr_new_int(0));
}

static bool pack(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "Pack", 0, NULL);
    return attr(o, def, "N", tp_attr_new_int(o->op->num_inputs)) && attr(o, def, "axis", tp_attr_new_int(option(o, "axis")));
}

static bool unpack(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "Unpack", 0, NULL);
    return attr(o, def, "num", tp_attr_new_int(o->op->num_outputs)) &&
           attr(o, def, "axis", tp_attr_new_int(option(o, "axis")));
}

static bool split(tp_tfl_op *o, bool v)
{
    Tfpi__NodeDef *def = same_inputs(o, v ? "SplitV" : "Split", v ? 0 : 1, v ? "Tlen" : NULL);
    return attr(o, def, "num_split", tp_attr_new_int(o->op->num_outputs));
}

static bool resize(tp_tfl_op *o, const char *op)
{
    Tfpi__NodeDef *def = same_inputs(o, op, 0, NULL);
    return attr(o, def, "align_corners", tp_attr_new_bool(option(o, "align_corners") != 0)) &&
           attr(o, def, "half_pixel_centers", tp_attr_new_bool(option(o, "half_pixel_centers") != 0));
}

static bool cast(tp_tfl_op *o, const char *op)
{
    Tfpi__NodeDef *def = same_inputs(o, op, -1, NULL);
    return attr(o, def, "SrcT", tp_attr_new_type(in_tensor(o, 0)->dtype)) &&
           attr(o, def, "DstT", tp_attr_new_type(out_tensor(o, 0)->dtype)) &&
           attr(o, def, "Truncate", tp_attr_new_bool(false));
}

static bool typed_output(tp_tfl_op *o, const char *op, const char *index_attr, const char *out_attr)
{
    Tfpi__NodeDef *def = same_inputs(o, op, 0, index_attr);
    return attr(o, def, out_attr, tp_attr_new_type(out_tensor(o, 0)->dtype));
}

static bool space_depth(tp_tfl_op *o, const char *op)
{
    Tfpi__NodeDef *def = same_inputs(o, op, 0, NULL);
    return attr(o, def, "block_size", tp_attr_new_int(option(o, "block_size"))) &&
           attr(o, def, "data_format", tp_attr_new_string("NHWC"));
}

static bool lrn(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "LRN", 0, NULL);
    return attr(o, def, "depth_radius", tp_attr_new_int(option(o, "radius"))) &&
           attr(o, def, "bias", tp_attr_new_float(option_float(o, "bias"))) &&
           attr(o, def, "alpha", tp_attr_new_float(option_float(o, "alpha"))) &&
           attr(o, def, "beta", tp_attr_new_float(option_float(o, "beta")));
}

static bool batch_matmul(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "BatchMatMulV2", 0, NULL);
    return attr(o, def, "adj_x", tp_attr_new_bool(option(o, "adj_x") != 0)) &&
           attr(o, def, "adj_y", tp_attr_new_bool(option(o, "adj_y") != 0));
}

static bool cumsum(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "Cumsum", 0, "Tidx");
    return attr(o, def, "exclusive", tp_attr_new_bool(option(o, "exclusive") != 0)) &&
           attr(o, def, "reverse", tp_attr_new_bool(option(o, "reverse") != 0));
}

/* ONE_HOT (indices, depth, on_value, off_value): T from on_value. */
static bool one_hot(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "OneHot", 2, NULL);
    return attr(o, def, "TI", tp_attr_new_type(in_tensor(o, 0)->dtype)) &&
           attr(o, def, "axis", tp_attr_new_int(option(o, "axis")));
}

static bool reverse_sequence(tp_tfl_op *o)
{
    Tfpi__NodeDef *def = same_inputs(o, "ReverseSequence", 0, "Tlen");
    return attr(o, def, "seq_dim", tp_attr_new_int(option(o, "seq_dim"))) &&
           attr(o, def, "batch_dim", tp_attr_new_int(option(o, "batch_dim")));
}

/* RELU_0_TO_1: the input clipped to [0, 1]. */
static bool relu_0_to_1(tp_tfl_op *o)
{
    const char *in[1] = {0};
    const char *lo = inputs_of(o, in, 1) ? tp_tfl_const_f32(o->x, o->name, "min", 0.0f) : NULL;
    const char *hi = lo ? tp_tfl_const_f32(o->x, o->name, "max", 1.0f) : NULL;
    chain c = {o, 1, NULL};
    return hi && step(&c, "ClipByValue", "ClipByValue", (const char *[]){in[0], lo, hi}, 3, TFPI_FLOAT);
}

/* SPACE_TO_BATCH_ND: TF's op; on quantized codes TFLite pads with the
 * zero point's code, not code 0: a PadV2 with that code first (its
 * paddings the operator's [M, 2] padded to [rank, 2] with zero rows for
 * the batch and the trailing dimensions; a Cast of an int32 constant makes
 * the code; all folded while planning), then the op with zero paddings
 * (ZerosLike of the operator's). */
static bool space_to_batch(tp_tfl_op *o)
{
    const tp_tfl_tensor *x = in_tensor(o, 0), *block = in_tensor(o, 1);
    if (!x->quant.count)
        return same_inputs(o, "SpaceToBatchND", 0, "Tblock_shape") != NULL;
    const char *in[3] = {0};
    if (o->op->num_inputs != 3 || in_tensor(o, 2)->dtype != TFPI_INT32 || block->ndims != 1 || block->dims[0] < 1 ||
        block->dims[0] > x->ndims - 1 || !inputs_of(o, in, 3) || !in[1] || !in[2])
        return false;
    const int32_t zero = (int32_t)x->quant.zero_point[0], rows[4] = {1, x->ndims - 1 - (int32_t)block->dims[0], 0, 0};
    const int32_t square[2] = {2, 2};
    const char *code = tp_tfl_const_i32(o->x, o->name, "pad_code_int32", &zero, 1, true);
    const char *extra = code ? tp_tfl_const_i32(o->x, o->name, "extra_rows", rows, 4, false) : NULL;
    const char *shape = extra ? tp_tfl_const_i32(o->x, o->name, "extra_rows_shape", square, 2, false) : NULL;
    if (!shape)
        return false;
    chain c = {o, 6, NULL};
    Tfpi__NodeDef *cast = step(&c, "pad_code", "Cast", &code, 1, 0);
    if (!attr(o, cast, "SrcT", tp_attr_new_type(TFPI_INT32)) || !attr(o, cast, "DstT", tp_attr_new_type(x->dtype)) ||
        !attr(o, cast, "Truncate", tp_attr_new_bool(false)))
        return false;
    Tfpi__NodeDef *spec = step(&c, "extra_rows_2x2", "Reshape", (const char *[]){extra, shape}, 2, TFPI_INT32);
    if (!attr(o, spec, "Tshape", tp_attr_new_type(TFPI_INT32)))
        return false;
    Tfpi__NodeDef *all = step(&c, "all_paddings", "Pad", (const char *[]){in[2], spec->name}, 2, TFPI_INT32);
    if (!attr(o, all, "Tpaddings", tp_attr_new_type(TFPI_INT32)))
        return false;
    Tfpi__NodeDef *pad = step(&c, "padded", "PadV2", (const char *[]){in[0], all->name, cast->name}, 3, x->dtype);
    if (!attr(o, pad, "Tpaddings", tp_attr_new_type(TFPI_INT32)))
        return false;
    Tfpi__NodeDef *zeros = step(&c, "no_paddings", "ZerosLike", &in[2], 1, TFPI_INT32);
    Tfpi__NodeDef *def = zeros ? step(&c, "SpaceToBatchND", "SpaceToBatchND",
                                      (const char *[]){pad->name, in[1], zeros->name}, 3, x->dtype)
                               : NULL;
    return attr(o, def, "Tblock_shape", tp_attr_new_type(block->dtype)) &&
           attr(o, def, "Tpaddings", tp_attr_new_type(TFPI_INT32));
}

/* SqueezeOptions.squeeze_dims as a list attribute. */
static Tfpi__AttrValue *squeeze_dims(const tp_tfl_op *o)
{
    Tfpi__NodeDef *scratch = tp_node_new("squeeze", "Squeeze");
    if (!scratch || !tp_tfl_options_to_attrs(&o->x->m->fb, o->op->options_type, &o->op->options, scratch)) {
        if (scratch)
            tfpi__node_def__free_unpacked(scratch, NULL);
        return NULL;
    }
    const Tfpi__AttrValue *dims = tp_attr(scratch, "squeeze_dims");
    Tfpi__AttrValue *copy = dims ? tp_attr_value_copy(dims) : tp_attr_new_int_list(NULL, 0);
    tfpi__node_def__free_unpacked(scratch, NULL);
    return copy;
}

/* Operators that are one TensorFlow op with the same inputs and T. */
static const struct {
    int32_t builtin;
    const char *op;
    const char *index_attr; /* the type attribute of input 1, if any */
} same_ops[] = {
    {0, "AddV2", NULL}, {41, "Sub", NULL}, {18, "Mul", NULL}, {42, "RealDiv", NULL}, {55, "Maximum", NULL},
    {57, "Minimum", NULL}, {78, "Pow", NULL}, {99, "SquaredDifference", NULL}, {90, "FloorDiv", NULL},
    {95, "FloorMod", NULL}, {58, "Less", NULL}, {61, "Greater", NULL}, {71, "Equal", NULL}, {72, "NotEqual", NULL},
    {63, "LessEqual", NULL}, {62, "GreaterEqual", NULL}, {86, "LogicalAnd", NULL}, {84, "LogicalOr", NULL},
    {87, "LogicalNot", NULL}, {14, "Sigmoid", NULL}, {28, "Tanh", NULL}, {19, "Relu", NULL}, {21, "Relu6", NULL},
    {47, "Exp", NULL}, {73, "Log", NULL}, {75, "Sqrt", NULL}, {76, "Rsqrt", NULL}, {92, "Square", NULL},
    {59, "Neg", NULL}, {101, "Abs", NULL}, {66, "Sin", NULL}, {108, "Cos", NULL}, {8, "Floor", NULL},
    {104, "Ceil", NULL}, {116, "Round", NULL}, {111, "Elu", NULL}, {158, "Sign", NULL}, {50, "LogSoftmax", NULL},
    {93, "ZerosLike", NULL}, {39, "Transpose", "Tperm"}, {69, "Tile", "Tmultiples"}, {70, "ExpandDims", "Tdim"},
    {34, "Pad", "Tpaddings"}, {60, "PadV2", "Tpaddings"}, {65, "Slice", "Index"}, {107, "GatherNd", NULL},
    {37, "BatchToSpaceND", "Tblock_shape"}, {105, "ReverseV2", "Tidx"},
    {130, "BroadcastTo", "Tidx"}, {109, "Where", NULL}, {48, "TopKV2", NULL}, {106, "AddN", NULL},
    {110, "Rank", NULL},
};

/* Operators that only move elements (none computes with a value), or
 * compare them: on quantized tensors that all share one scale and zero
 * point, the TF op on the codes gives what TFLite gives (TFLite's
 * comparisons rescale both sides alike, exactly: 128 x (code + offset));
 * and CAST, which converts the codes themselves in TFLite too (its
 * quantization ignored). */
static bool codes_suffice(int32_t builtin)
{
    static const int32_t moving[] = {22 /* RESHAPE */, 43 /* SQUEEZE */, 70 /* EXPAND_DIMS */, 39 /* TRANSPOSE */,
                                     36 /* GATHER */, 107 /* GATHER_ND */, 45 /* STRIDED_SLICE */, 65 /* SLICE */,
                                     83 /* PACK */, 88 /* UNPACK */, 49 /* SPLIT */, 102 /* SPLIT_V */,
                                     26 /* SPACE_TO_DEPTH */, 5 /* DEPTH_TO_SPACE */, 69 /* TILE */,
                                     105 /* REVERSE_V2 */, 7 /* EMBEDDING_LOOKUP */, 130 /* BROADCAST_TO */,
                                     100 /* MIRROR_PAD */, 37 /* BATCH_TO_SPACE_ND */, 38 /* SPACE_TO_BATCH_ND */,
                                     64 /* SELECT */, 123 /* SELECT_V2 */, 71 /* EQUAL */, 72 /* NOT_EQUAL */, 58 /* LESS */,
                                     63 /* LESS_EQUAL */, 61 /* GREATER */, 62 /* GREATER_EQUAL */, 53 /* CAST */};
    for (size_t i = 0; i < sizeof moving / sizeof moving[0]; i++)
        if (moving[i] == builtin)
            return true;
    return false;
}

/* Operators that read only their input's shape (SHAPE, RANK). */
static bool reads_no_values(int32_t builtin) { return builtin == 77 || builtin == 110; }

static bool same_quant(const tp_tfl_quant_params *a, const tp_tfl_quant_params *b)
{
    return a->count == 1 && b->count == 1 && a->scale[0] == b->scale[0] && a->zero_point[0] == b->zero_point[0];
}

/* Whether a TF op can compute o: no tensor quantized, or (an op that moves
 * codes) every quantized tensor quantized alike; every type one tfpi holds. */
/* A convolution, fully connected layer or embedding lookup of a hybrid
 * model: float, but for its int8 weights (float_weights and
 * embedding_lookup dequantize them). */
static bool hybrid_weights(const tp_tfl_op *o)
{
    if (o->builtin == 7) /* EMBEDDING_LOOKUP: an int8 table, a float output */
        return in_tensor(o, 1)->dtype == TFPI_INT8 && in_tensor(o, 1)->quant.count > 0 && o->op->num_outputs == 1 &&
               out_tensor(o, 0)->dtype == TFPI_FLOAT;
    return (o->builtin == 3 || o->builtin == 4 || o->builtin == 9) && float_or_hybrid(o) &&
           in_tensor(o, 1)->dtype == TFPI_INT8;
}

static bool tf_op_computes(const tp_tfl_op *o)
{
    const tp_tfl_operator *op = o->op;
    const tp_tfl_quant_params *first = NULL;
    bool ok = true;
    for (int k = 0; ok && k < op->num_inputs + op->num_outputs; k++) {
        bool input = k < op->num_inputs;
        int32_t t = input ? op->inputs[k] : op->outputs[k - op->num_inputs];
        if (t < 0)
            continue;
        const tp_tfl_tensor *tensor = input ? in_tensor(o, k) : out_tensor(o, k - op->num_inputs);
        if (!tensor->dtype)
            return false;
        if (!tensor->quant.count || (k == 1 && hybrid_weights(o)) || reads_no_values(o->builtin))
            continue;
        ok = codes_suffice(o->builtin) && (!first || same_quant(first, &tensor->quant)) && tensor->quant.count == 1;
        first = first ? first : &tensor->quant;
    }
    return ok;
}

tfpi_code tp_tfl_float_op(tp_tfl_op *o, bool *handled)
{
    *handled = false;
    const tp_tfl_operator *op = o->op;
    if (!tf_op_computes(o))
        return TFPI_OK;
    if (op->num_inputs == 0 || activation_nodes(o) < 0)
        return TFPI_OK;
    for (int i = 0; i < op->num_inputs; i++) /* before `mark`: a fallback keeps them */
        if (op->inputs[i] >= 0 && !tp_tfl_input(o->x, op->inputs[i]))
            return o->x->status->code;
    size_t mark = o->x->nodes.n;
    tfpi_dtype in0 = in_tensor(o, 0)->dtype;
    bool ok = true, tried = true;
    switch (o->builtin) {
    case 3: tried = float_or_hybrid(o) && (ok = conv_2d(o)); break;
    case 4: tried = float_or_hybrid(o) && (ok = depthwise_conv_2d(o)); break;
    case 9:
        tried = float_or_hybrid(o) && option(o, "weights_format") == 0 && op->num_outputs == 1 &&
                (ok = fully_connected(o));
        break;
    case 67: tried = op->num_inputs >= 3 && in_tensor(o, 2)->dtype == TFPI_FLOAT && (ok = transpose_conv(o)); break;
    case 1: tried = in0 == TFPI_FLOAT && (ok = pool(o, "AvgPool")); break;
    case 17: tried = in0 == TFPI_FLOAT && (ok = pool(o, "MaxPool")); break;
    case 25: tried = in0 == TFPI_FLOAT && (ok = softmax(o)); break;
    case 2: ok = concatenation(o); break;
    case 22: ok = reshape(o); break;
    case 40: ok = reduction(o, "Mean"); break;
    case 74: ok = reduction(o, "Sum"); break;
    case 82: ok = reduction(o, "Max"); break;
    case 89: ok = reduction(o, "Min"); break;
    case 81: ok = reduction(o, "Prod"); break;
    case 91: ok = reduction(o, "Any"); break;
    case 45: tried = option(o, "offset") == 0 && (ok = strided_slice(o)); break;
    case 36: ok = gather(o); break;
    case 83: ok = pack(o); break;
    case 88: ok = unpack(o); break;
    case 49: ok = split(o, false); break;
    case 102: ok = split(o, true); break;
    case 23: ok = resize(o, "ResizeBilinear"); break;
    case 97: ok = resize(o, "ResizeNearestNeighbor"); break;
    case 53: ok = cast(o, "Cast"); break;
    case 6: tried = in0 == TFPI_HALF && (ok = cast(o, "Cast")); break; /* DEQUANTIZE of float16 weights */
    case 56: ok = typed_output(o, "ArgMax", "Tidx", "output_type"); break;
    case 79: ok = typed_output(o, "ArgMin", "Tidx", "output_type"); break;
    case 77: ok = typed_output(o, "Shape", NULL, "out_type"); break;
    case 26: ok = space_depth(o, "SpaceToDepth"); break;
    case 5: ok = space_depth(o, "DepthToSpace"); break;
    case 13: ok = lrn(o); break;
    case 98: ok = attr(o, same_inputs(o, "LeakyRelu", 0, NULL), "alpha", tp_attr_new_float(option_float(o, "alpha"))); break;
    case 64: ok = same_inputs(o, "Select", 1, NULL) != NULL; break;
    case 123: ok = same_inputs(o, "SelectV2", 1, NULL) != NULL; break;
    case 94: ok = attr(o, same_inputs(o, "Fill", 1, NULL), "index_type", tp_attr_new_type(in0)); break;
    case 120: case 121: /* NON_MAX_SUPPRESSION_V4 / V5: TF's, padded to max_output_size as TFLite's are */
        tried = in0 == TFPI_FLOAT && in_tensor(o, 1)->dtype == TFPI_FLOAT &&
                (ok = attr(o, same_inputs(o, o->builtin == 120 ? "NonMaxSuppressionV4" : "NonMaxSuppressionV5", 0, NULL),
                           "pad_to_max_output_size", tp_attr_new_bool(true)));
        break;
    case 131: tried = in0 == TFPI_FLOAT && (ok = same_inputs(o, "RFFT2D", -1, NULL) != NULL); break;
    case 135: tried = in0 == TFPI_COMPLEX64 && (ok = same_inputs(o, "ComplexAbs", 0, NULL) != NULL); break;
    case 122: /* SCATTER_ND (indices, updates, shape): TF's ScatterNd, which also sums repeated indices */
        tried = in_tensor(o, 1)->dtype == TFPI_FLOAT && (ok = attr(o, same_inputs(o, "ScatterNd", 1, NULL), "Tindices",
                                                                  tp_attr_new_type(in0)));
        break;
    case 96: ok = attr(o, same_inputs(o, "Range", -1, NULL), "Tidx", tp_attr_new_type(in0)); break;
    case 126: ok = batch_matmul(o); break;
    case 43: ok = attr(o, same_inputs(o, "Squeeze", 0, NULL), "squeeze_dims", squeeze_dims(o)); break;
    case 7: ok = embedding_lookup(o); break;
    case 38: ok = space_to_batch(o); break;
    case 128: ok = cumsum(o); break;
    case 140: ok = reduction(o, "All"); break;
    case 85: ok = one_hot(o); break;
    case 112: ok = reverse_sequence(o); break;
    case 145: ok = same_inputs(o, "BroadcastArgs", 0, NULL) != NULL; break;
    case 152: tried = in0 == TFPI_FLOAT && (ok = relu_0_to_1(o)); break;
    case 100:
        ok = attr(o, same_inputs(o, "MirrorPad", 0, "Tpaddings"), "mode",
                  tp_attr_new_string(option(o, "mode") ? "SYMMETRIC" : "REFLECT"));
        break;
    default:
        tried = false;
        for (size_t k = 0; k < sizeof same_ops / sizeof same_ops[0]; k++)
            if (same_ops[k].builtin == o->builtin) {
                tried = true;
                ok = same_inputs(o, same_ops[k].op, 0, same_ops[k].index_attr) != NULL;
            }
    }
    if (!tried)
        return TFPI_OK;
    if (!ok) {
        if (o->x->status && o->x->status->code != TFPI_OK)
            return o->x->status->code;
        /* Not expressible after all: drop what was emitted, use the builtin node. */
        while (o->x->nodes.n > mark)
            tfpi__node_def__free_unpacked(o->x->nodes.defs[--o->x->nodes.n], NULL);
        return TFPI_OK;
    }
    tfpi_code code = TFPI_OK;
    for (int j = 0; j < op->num_outputs && code == TFPI_OK; j++)
        code = tp_tfl_set_output(o->x, op->outputs[j], o->name, j);
    *handled = code == TFPI_OK;
    return code;
}
