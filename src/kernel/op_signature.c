/* op_signature.c - what TensorFlow's op registry checks before a kernel
 * sees a node: how many outputs the op has (so no reader can name output 4
 * of a Const), attribute kinds (a list for strides, a type for T...), the
 * counts N against the inputs, the type attributes against the input
 * types, and no data inputs into a Const. Kernels then check the values. */
#include <string.h>

#include "kernel/kernel.h"

/* The number of outputs TensorFlow gives the node: from an attribute for
 * the ops whose count varies, else what the kernel declares (one unless
 * TP_OUTPUTS says otherwise; kernel may be NULL). */
int tp_op_output_count(const Tfpi__NodeDef *def, const tp_kernel *kernel)
{
    const char *op = def->op;
    if (!strcmp(op, "Split") || !strcmp(op, "SplitV"))
        return (int)tp_attr_int(def, "num_split", 1);
    if (!strcmp(op, "Unpack"))
        return (int)tp_attr_int(def, "num", 1);
    if (!strcmp(op, "IdentityN")) {
        const Tfpi__AttrValue *t = tp_attr(def, "T");
        if (t && t->value_case == TFPI__ATTR_VALUE__VALUE_LIST)
            return (int)t->list->n_type;
        int data_inputs = 0; /* no T: one output per data input */
        while ((size_t)data_inputs < def->n_input && def->input[data_inputs][0] != '^')
            data_inputs++;
        return data_inputs;
    }
    const unsigned declared = kernel ? kernel->flags >> 8 : 0;
    return declared ? (int)declared - 1 : 1;
}

/* The kind each well-known attribute must have wherever it appears. */
static const struct {
    const char *name;
    Tfpi__AttrValue__ValueCase kind;
} attr_kinds[] = {
    {"T", TFPI__ATTR_VALUE__VALUE_TYPE}, {"dtype", TFPI__ATTR_VALUE__VALUE_TYPE},
    {"SrcT", TFPI__ATTR_VALUE__VALUE_TYPE}, {"DstT", TFPI__ATTR_VALUE__VALUE_TYPE},
    {"Tidx", TFPI__ATTR_VALUE__VALUE_TYPE}, {"Tshape", TFPI__ATTR_VALUE__VALUE_TYPE},
    {"Tpaddings", TFPI__ATTR_VALUE__VALUE_TYPE}, {"Tindices", TFPI__ATTR_VALUE__VALUE_TYPE},
    {"Tparams", TFPI__ATTR_VALUE__VALUE_TYPE}, {"out_type", TFPI__ATTR_VALUE__VALUE_TYPE},
    {"strides", TFPI__ATTR_VALUE__VALUE_LIST}, {"ksize", TFPI__ATTR_VALUE__VALUE_LIST},
    {"dilations", TFPI__ATTR_VALUE__VALUE_LIST}, {"explicit_paddings", TFPI__ATTR_VALUE__VALUE_LIST},
    {"squeeze_dims", TFPI__ATTR_VALUE__VALUE_LIST}, {"padding", TFPI__ATTR_VALUE__VALUE_S},
    {"data_format", TFPI__ATTR_VALUE__VALUE_S}, {"N", TFPI__ATTR_VALUE__VALUE_I},
    {"num_split", TFPI__ATTR_VALUE__VALUE_I}, {"num", TFPI__ATTR_VALUE__VALUE_I},
    {"block_size", TFPI__ATTR_VALUE__VALUE_I}, {"value", TFPI__ATTR_VALUE__VALUE_TENSOR},
};

static const char *kind_name(Tfpi__AttrValue__ValueCase kind)
{
    switch (kind) {
    case TFPI__ATTR_VALUE__VALUE_LIST: return "a list";
    case TFPI__ATTR_VALUE__VALUE_S: return "a string";
    case TFPI__ATTR_VALUE__VALUE_I: return "an int";
    case TFPI__ATTR_VALUE__VALUE_F: return "a float";
    case TFPI__ATTR_VALUE__VALUE_B: return "a bool";
    case TFPI__ATTR_VALUE__VALUE_TYPE: return "a type";
    case TFPI__ATTR_VALUE__VALUE_SHAPE: return "a shape";
    case TFPI__ATTR_VALUE__VALUE_TENSOR: return "a tensor";
    default: return "another kind";
    }
}

/* The ops whose T is a list of types (TensorFlow's list(type) attribute). */
static bool t_is_a_type_list(const char *op)
{
    return !strcmp(op, "IdentityN") || !strcmp(op, "Assert");
}

static tfpi_code check_attr_kinds(tp_op_ctx *ctx)
{
    for (size_t k = 0; k < sizeof attr_kinds / sizeof attr_kinds[0]; k++) {
        const Tfpi__AttrValue *a = tp_attr(ctx->def, attr_kinds[k].name);
        if (a && a->value_case != attr_kinds[k].kind && !(a->value_case == TFPI__ATTR_VALUE__VALUE_LIST &&
                                                           attr_kinds[k].kind == TFPI__ATTR_VALUE__VALUE_TYPE &&
                                                           t_is_a_type_list(ctx->def->op)))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute '%s' is %s, expected %s", attr_kinds[k].name,
                           kind_name(a->value_case), kind_name(attr_kinds[k].kind));
    }
    return TFPI_OK;
}

/* How many inputs the count attribute N describes, or -1 if the op has none. */
static int inputs_counted_by_n(const tp_op_ctx *ctx)
{
    const char *op = ctx->def->op;
    if (!strcmp(op, "ConcatV2") || !strcmp(op, "Concat"))
        return ctx->num_inputs - 1;
    if (!strcmp(op, "Pack") || !strcmp(op, "AddN"))
        return ctx->num_inputs;
    return -1;
}

/* The input whose type attribute T gives (the value input; 0 for most ops;
 * -1 when T is the output's type, as for QuantizeV2). */
static int input_typed_by_t(const char *op)
{
    static const char *const second[] = {"Split", "Select", "SelectV2", "Fill", "Concat", "Conv2DBackpropInput",
                                         "QuantizedConcat"};
    if (!strcmp(op, "QuantizeV2"))
        return -1;
    for (size_t i = 0; i < sizeof second / sizeof second[0]; i++)
        if (!strcmp(op, second[i]))
            return 1;
    if (!strcmp(op, "OneHot"))
        return 2;
    return 0;
}

static tfpi_code check_type_attr(tp_op_ctx *ctx, const char *name, int input)
{
    const Tfpi__AttrValue *a = tp_attr(ctx->def, name);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_TYPE || input < 0 || input >= ctx->num_inputs)
        return TFPI_OK;
    if ((tfpi_dtype)a->type != ctx->inputs[input]->dtype)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute %s = %s, but input %d is %s", name,
                       tfpi_dtype_name((tfpi_dtype)a->type), input, tfpi_dtype_name(ctx->inputs[input]->dtype));
    return TFPI_OK;
}

tfpi_code tp_check_node_signature(tp_op_ctx *ctx)
{
    tfpi_code code = check_attr_kinds(ctx);
    if (code != TFPI_OK)
        return code;
    int counted = inputs_counted_by_n(ctx);
    const Tfpi__AttrValue *n = tp_attr(ctx->def, "N");
    if (counted >= 0 && n && n->i != counted)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute N = %lld, but the node has %d such inputs",
                       (long long)n->i, counted);
    if (!strcmp(ctx->def->op, "Const") && ctx->num_inputs > 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "a Const takes no data input, has %d", ctx->num_inputs);
    if ((code = check_type_attr(ctx, "T", input_typed_by_t(ctx->def->op))) != TFPI_OK)
        return code;
    if (!strcmp(ctx->def->op, "PlaceholderWithDefault") && (code = check_type_attr(ctx, "dtype", 0)) != TFPI_OK)
        return code;
    return check_type_attr(ctx, "SrcT", 0);
}
