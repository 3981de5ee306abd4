/* output_type.c - tfpi_graph_output_dtype: the element type of a node's
 * output as TensorFlow's op definitions give it from the node's attributes,
 * before anything runs (what bindings list as an output's dtype). Ops whose
 * outputs have fixed types are listed; the others follow their type
 * attribute (out_type, Toutput, DstT, T, dtype, in that order; IdentityN's
 * list T, a TF2 call's kept name); failing those, a SavedModel signature
 * naming the tensor gives its dtype. */
#include <string.h>

#include "graph/graph.h"
#include "graph/model_info.h"
#include "graph/node_def.h"
#include "tfpi.h"

typedef struct fixed_output {
    const char *op;
    int output; /* -1: every output */
    tfpi_dtype dtype;
} fixed_output;

static const fixed_output fixed_outputs[] = {
    {"Equal", -1, TFPI_BOOL}, {"NotEqual", -1, TFPI_BOOL}, {"Less", -1, TFPI_BOOL},
    {"LessEqual", -1, TFPI_BOOL}, {"Greater", -1, TFPI_BOOL}, {"GreaterEqual", -1, TFPI_BOOL},
    {"LogicalAnd", -1, TFPI_BOOL}, {"LogicalOr", -1, TFPI_BOOL}, {"LogicalNot", -1, TFPI_BOOL},
    {"IsNan", -1, TFPI_BOOL}, {"IsInf", -1, TFPI_BOOL}, {"IsFinite", -1, TFPI_BOOL},
    {"All", -1, TFPI_BOOL}, {"Any", -1, TFPI_BOOL}, {"InTopK", -1, TFPI_BOOL}, {"InTopKV2", -1, TFPI_BOOL},
    {"LoopCond", -1, TFPI_BOOL},
    {"Rank", -1, TFPI_INT32}, {"Where", -1, TFPI_INT64},
    {"NonMaxSuppression", -1, TFPI_INT32}, {"NonMaxSuppressionV2", -1, TFPI_INT32},
    {"NonMaxSuppressionV3", -1, TFPI_INT32}, {"NonMaxSuppressionV4", -1, TFPI_INT32},
    {"NonMaxSuppressionV5", 0, TFPI_INT32}, {"NonMaxSuppressionV5", 2, TFPI_INT32},
    {"TopKV2", 1, TFPI_INT32}, {"TopK", 1, TFPI_INT32},
    {"DecodeJpeg", -1, TFPI_UINT8}, {"DecodeWav", 0, TFPI_FLOAT}, {"DecodeWav", 1, TFPI_INT32},
    {"AudioSpectrogram", -1, TFPI_FLOAT}, {"Mfcc", -1, TFPI_FLOAT},
    {"RequantizationRange", -1, TFPI_FLOAT}, {"TensorArraySizeV3", -1, TFPI_INT32},
    {"TensorArrayV3", 0, TFPI_RESOURCE}, {"TensorArrayV3", 1, TFPI_FLOAT}, {"TensorArrayWriteV3", -1, TFPI_FLOAT},
    {"TensorArrayScatterV3", -1, TFPI_FLOAT}, {"TensorArraySplitV3", -1, TFPI_FLOAT},
    {"TensorArrayConcatV3", 1, TFPI_INT64}, {"IsVariableInitialized", -1, TFPI_BOOL},
    {"StringToHashBucketFast", -1, TFPI_INT64}, {"StringJoin", -1, TFPI_STRING}, {"StringLower", -1, TFPI_STRING},
    {"Substr", -1, TFPI_STRING}, {"AsString", -1, TFPI_STRING}, {"StringSplit", 0, TFPI_INT64},
    {"StringSplit", 1, TFPI_STRING}, {"StringSplit", 2, TFPI_INT64}, {"StringSplitV2", 0, TFPI_INT64},
    {"StringSplitV2", 1, TFPI_STRING}, {"StringSplitV2", 2, TFPI_INT64}, {"StringNGrams", 0, TFPI_STRING},
    {"SparseReshape", -1, TFPI_INT64}, {"SparseFillEmptyRows", 0, TFPI_INT64},
    {"SparseFillEmptyRows", 2, TFPI_BOOL}, {"SparseFillEmptyRows", 3, TFPI_INT64},
};

/* Outputs typed by an attribute that graphs may leave out (its default). */
static const struct {
    const char *op;
    int output; /* -1: every output */
    const char *attr;
    tfpi_dtype fallback;
} defaulted[] = {
    {"Shape", -1, "out_type", TFPI_INT32}, {"ShapeN", -1, "out_type", TFPI_INT32},
    {"Size", -1, "out_type", TFPI_INT32}, {"ArgMax", -1, "output_type", TFPI_INT64},
    {"ArgMin", -1, "output_type", TFPI_INT64}, {"Dequantize", 0, "dtype", TFPI_FLOAT},
    {"DecodePng", -1, "dtype", TFPI_UINT8}, {"Unique", 1, "out_idx", TFPI_INT32},
    {"StringNGrams", 1, "Tsplits", TFPI_INT64}, {"StringToNumber", -1, "out_type", TFPI_FLOAT},
};

/* The quantized ops' outputs 1 and 2 are their float min and max. */
static bool is_quantized_range_output(const char *op, int output)
{
    return output > 0 && (!strncmp(op, "Quantize", 8) || !strcmp(op, "Requantize"));
}

static tfpi_dtype attr_type(const Tfpi__NodeDef *def, int output)
{
    for (size_t i = 0; i < sizeof defaulted / sizeof defaulted[0]; i++)
        if (!strcmp(def->op, defaulted[i].op) && (defaulted[i].output < 0 || defaulted[i].output == output))
            return tp_attr_type(def, defaulted[i].attr, defaulted[i].fallback);
    static const char *const attrs[] = {"out_type", "Toutput", "DstT", "T", "dtype"};
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        tfpi_dtype t = tp_attr_type(def, attrs[i], 0);
        if (t)
            return t;
    }
    return 0;
}

/* The dtype a signature of the model declares for tensor e, or 0. */
static tfpi_dtype signature_dtype(const tfpi_graph *graph, tp_edge e)
{
    const tp_model_info *info = graph->model;
    for (int s = 0; info && s < info->num_signatures; s++) {
        const tp_signature *sig = &info->signatures[s];
        for (int i = 0; i < sig->num_inputs + sig->num_outputs; i++) {
            const tp_signature_tensor *t = i < sig->num_inputs ? &sig->inputs[i] : &sig->outputs[i - sig->num_inputs];
            tp_edge named;
            if (t->dtype && tp_graph_resolve(graph, t->name, "tensor", &named, NULL) == TFPI_OK &&
                named.node == e.node && named.index == e.index)
                return (tfpi_dtype)t->dtype;
        }
    }
    return 0;
}

tfpi_dtype tfpi_graph_output_dtype(const tfpi_graph *graph, const char *tensor_name)
{
    tp_edge e;
    if (tp_graph_resolve(graph, tensor_name, "tensor", &e, NULL) != TFPI_OK)
        return 0;
    const Tfpi__NodeDef *def = graph->nodes[e.node].def;
    for (size_t i = 0; i < sizeof fixed_outputs / sizeof fixed_outputs[0]; i++)
        if (!strcmp(def->op, fixed_outputs[i].op) &&
            (fixed_outputs[i].output < 0 || fixed_outputs[i].output == e.index))
            return fixed_outputs[i].dtype;
    if (is_quantized_range_output(def->op, e.index))
        return TFPI_FLOAT;
    const Tfpi__AttrValue *list = strcmp(def->op, "IdentityN") == 0 ? tp_attr(def, "T") : NULL;
    if (list && list->value_case == TFPI__ATTR_VALUE__VALUE_LIST)
        return e.index < (int)list->list->n_type ? (tfpi_dtype)list->list->type[e.index] : 0;
    tfpi_dtype t = attr_type(def, e.index);
    return t ? t : signature_dtype(graph, e);
}
