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
    if (!strcmp(op, "RestoreV2")) {
        const Tfpi__AttrValue *t = tp_attr(def, "dtypes");
        return t && t->value_case == TFPI__ATTR_VALUE__VALUE_LIST ? (int)t->list->n_type : 0;
    }
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

/* Ops whose T is a list of types, one per input (IdentityN, Assert's data). */
static bool takes_type_list(const char *op)
{
    return !strcmp(op, "IdentityN") || !strcmp(op, "Assert") || !strcmp(op, "Print");
}

static tfpi_code check_attr_kinds(tp_op_ctx *ctx)
{
    for (size_t k = 0; k < sizeof attr_kinds / sizeof attr_kinds[0]; k++) {
        const Tfpi__AttrValue *a = tp_attr(ctx->def, attr_kinds[k].name);
        if (a && a->value_case != attr_kinds[k].kind && !(a->value_case == TFPI__ATTR_VALUE__VALUE_LIST &&
                                                           attr_kinds[k].kind == TFPI__ATTR_VALUE__VALUE_TYPE &&
                                                           takes_type_list(ctx->def->op)))
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

/* Inputs a type attribute gives, for the ops where T does not simply type
 * input 0 (-1 as last: through the last input; -2: all but the last). */
#define LAST (-1)
#define BUT_LAST (-2)
static const struct {
    const char *op, *attr;
    int first, last;
} typed_inputs[] = {
    {"Split", "T", 1, 1}, {"Fill", "T", 1, 1}, {"Concat", "T", 1, LAST}, {"QuantizedConcat", "T", 1, 1},
    {"Select", "T", 1, 2}, {"SelectV2", "T", 1, 2}, {"Conv2DBackpropInput", "T", 1, 2},
    {"OneHot", "T", 2, 3}, {"ConcatV2", "T", 0, BUT_LAST}, {"Pack", "T", 0, LAST}, {"AddN", "T", 0, LAST},
    {"SparseToDense", "T", 2, 3}, {"SparseToDense", "Tindices", 0, 1},
    {"NonMaxSuppressionV2", "T", 0, 1}, {"NonMaxSuppressionV2", "T_threshold", 3, 3},
    {"NonMaxSuppressionV3", "T", 0, 1}, {"NonMaxSuppressionV3", "T_threshold", 3, 4},
    {"NonMaxSuppressionV4", "T", 0, 1}, {"NonMaxSuppressionV4", "T_threshold", 3, 4},
    {"NonMaxSuppressionV5", "T", 0, 1}, {"NonMaxSuppressionV5", "T", 3, 5},
    {"TensorArrayWriteV3", "T", 2, 2}, {"TensorArrayScatterV3", "T", 2, 2}, {"TensorArraySplitV3", "T", 1, 1},
    {"ScatterNd", "T", 1, 1}, {"ScatterNd", "Tindices", 0, 0},
    {"QuantizeV2", "T", 1, 0}, /* T is the output's type */
    {"Bincount", "T", 2, 2}, {"Substr", "T", 1, 2}, {"SparseFillEmptyRows", "T", 1, 1},
    {"SparseFillEmptyRows", "T", 3, 3}, {"BroadcastArgs", "T", 0, 1}, {"StringNGrams", "Tsplits", 1, 1},
    {"SparseSegmentSum", "Tidx", 1, 1}, {"SparseSegmentSum", "Tsegmentids", 2, 2},
    {"SparseSegmentMean", "Tidx", 1, 1}, {"SparseSegmentMean", "Tsegmentids", 2, 2},
    {"SparseSegmentSqrtN", "Tidx", 1, 1}, {"SparseSegmentSqrtN", "Tsegmentids", 2, 2},
    {"LookupTableFindV2", "Tin", 1, 1}, {"LookupTableFindV2", "Tout", 2, 2},
    {"LookupTableImportV2", "Tin", 1, 1}, {"LookupTableImportV2", "Tout", 2, 2},
    {"LookupTableInsertV2", "Tin", 1, 1}, {"LookupTableInsertV2", "Tout", 2, 2},
};

/* Each input in [first, last] must have the type attribute `name` says. */
static tfpi_code check_type_attr(tp_op_ctx *ctx, const char *name, int first, int last)
{
    const Tfpi__AttrValue *a = tp_attr(ctx->def, name);
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_TYPE)
        return TFPI_OK;
    last = last == LAST ? ctx->num_inputs - 1 : last == BUT_LAST ? ctx->num_inputs - 2 : last;
    for (int i = first; i <= last && i < ctx->num_inputs; i++)
        if ((tfpi_dtype)a->type != ctx->inputs[i]->dtype)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute %s = %s, but input %d is %s", name,
                           tfpi_dtype_name((tfpi_dtype)a->type), i, tfpi_dtype_name(ctx->inputs[i]->dtype));
    return TFPI_OK;
}

/* IdentityN's T lists its inputs' types: the node keeping a function call's
 * name is one, typed as the function declares its outputs, so a body that
 * returns another type is refused here, as TensorFlow's _Retval does. */
static tfpi_code check_type_list(tp_op_ctx *ctx)
{
    const Tfpi__AttrValue *a = tp_attr(ctx->def, "T");
    if (!a || a->value_case != TFPI__ATTR_VALUE__VALUE_LIST)
        return TFPI_OK;
    if (a->list->n_type != (size_t)ctx->num_inputs)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute T lists %zu types for %d inputs", a->list->n_type,
                       ctx->num_inputs);
    for (int i = 0; i < ctx->num_inputs; i++)
        if ((tfpi_dtype)a->list->type[i] != ctx->inputs[i]->dtype)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "attribute T says input %d is %s, but it is %s", i,
                           tfpi_dtype_name((tfpi_dtype)a->list->type[i]), tfpi_dtype_name(ctx->inputs[i]->dtype));
    return TFPI_OK;
}

static tfpi_code check_typed_inputs(tp_op_ctx *ctx, const tp_kernel *kernel)
{
    if (!strcmp(ctx->def->op, "IdentityN"))
        return check_type_list(ctx);
    if (kernel->flags & TP_TFLITE_OP)
        return TFPI_OK;
    bool listed = false;
    tfpi_code code = TFPI_OK;
    for (size_t k = 0; k < sizeof typed_inputs / sizeof typed_inputs[0] && code == TFPI_OK; k++)
        if (!strcmp(ctx->def->op, typed_inputs[k].op)) {
            listed = listed || !strcmp(typed_inputs[k].attr, "T");
            code = check_type_attr(ctx, typed_inputs[k].attr, typed_inputs[k].first, typed_inputs[k].last);
        }
    if (code == TFPI_OK && !listed)
        code = check_type_attr(ctx, "T", 0, 0);
    return code;
}

tfpi_code tp_check_node_signature(tp_op_ctx *ctx, const tp_kernel *kernel)
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
    if ((code = check_typed_inputs(ctx, kernel)) != TFPI_OK)
        return code;
    if (!strcmp(ctx->def->op, "PlaceholderWithDefault") && (code = check_type_attr(ctx, "dtype", 0, 0)) != TFPI_OK)
        return code;
    return check_type_attr(ctx, "SrcT", 0, 0);
}

tfpi_code tp_kernel_prepare(const tp_kernel *kernel, tp_op_ctx *ctx)
{
    tfpi_code code = tp_check_node_signature(ctx, kernel);
    return code == TFPI_OK ? kernel->prepare(ctx) : code;
}
