/* tflite_options.c - the BuiltinOperator names and the BuiltinOptions
 * tables of TFLite's schema.fbs, as data (tflite_options.h). Field order
 * is the schema's declaration order: field n is vtable slot n. */
#include "model/tflite_options.h"

#include <stdlib.h>
#include <string.h>

#include "graph/node_build.h"

static const char *const builtin_names[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
    "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
    "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
    "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
    "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN",
    "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT",
    "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT",
    "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL",
    "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
    "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
    "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
    "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D",
    "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE",
    "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
};

const char *tp_tfl_builtin_name(int32_t code)
{
    return code >= 0 && code < (int32_t)(sizeof builtin_names / sizeof builtin_names[0]) ? builtin_names[code]
                                                                                         : NULL;
}

const char *tp_tfl_builtin_named(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof builtin_names / sizeof builtin_names[0]; i++)
        if (strlen(builtin_names[i]) == len && memcmp(builtin_names[i], name, len) == 0)
            return builtin_names[i];
    return NULL;
}

/* How a field is stored and becomes an attribute. */
typedef enum field_kind {
    K_INT,      /* int32 -> int */
    K_UINT,     /* uint32 -> int */
    K_LONG,     /* int64 -> int */
    K_FLOAT,    /* float32 -> float */
    K_BOOL,     /* bool -> bool */
    K_ENUM,     /* byte enum -> string, its schema name */
    K_INTS,     /* [int] -> list of int */
    K_FLOATS,   /* [float] -> list of float */
    K_STRING,   /* string -> string */
} field_kind;

static const char *const activations[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT", NULL};
static const char *const paddings[] = {"SAME", "VALID", NULL};
static const char *const tensor_types[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL",
                                           "INT16", "COMPLEX64", "INT8", "FLOAT64", "COMPLEX128", "UINT64",
                                           "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4", "BFLOAT16", NULL};
static const char *const weights_formats[] = {"DEFAULT", "SHUFFLED4x16INT8", NULL};
static const char *const lstm_kernels[] = {"FULL", "BASIC", NULL};
static const char *const combiners[] = {"SUM", "MEAN", "SQRTN", NULL};
static const char *const lsh_types[] = {"UNKNOWN", "SPARSE", "DENSE", NULL};
static const char *const mirror_modes[] = {"REFLECT", "SYMMETRIC", NULL};

typedef struct field {
    const char *name;
    field_kind kind;
    int64_t fallback;           /* the schema's default for absent scalars */
    const char *const *names;   /* K_ENUM: the value names, NULL-ended */
} field;

#define MAX_FIELDS 8
typedef struct options_table {
    const char *name;
    field fields[MAX_FIELDS];
} options_table;

#define ACT {"fused_activation_function", K_ENUM, 0, activations}
#define PAD {"padding", K_ENUM, 0, paddings}
#define TYPE(n, d) {n, K_ENUM, d, tensor_types}
#define INT(n) {n, K_INT, 0, NULL}
#define INT_D(n, d) {n, K_INT, d, NULL}
#define BOOL(n) {n, K_BOOL, 0, NULL}
#define BOOL_D(n, d) {n, K_BOOL, d, NULL}
#define FLOAT(n) {n, K_FLOAT, 0, NULL}

/* BuiltinOptions union types 1..TP_TFL_MAX_OPTIONS, in order. */
static const options_table tables[TP_TFL_MAX_OPTIONS] = {
    {"Conv2DOptions", {PAD, INT("stride_w"), INT("stride_h"), ACT, INT_D("dilation_w_factor", 1),
                       INT_D("dilation_h_factor", 1), TYPE("quantized_bias_type", 0)}},
    {"DepthwiseConv2DOptions", {PAD, INT("stride_w"), INT("stride_h"), INT("depth_multiplier"), ACT,
                                INT_D("dilation_w_factor", 1), INT_D("dilation_h_factor", 1)}},
    {"ConcatEmbeddingsOptions", {INT("num_channels"), {"num_columns_per_channel", K_INTS, 0, NULL},
                                 {"embedding_dim_per_channel", K_INTS, 0, NULL}}},
    {"LSHProjectionOptions", {{"type", K_ENUM, 0, lsh_types}}},
    {"Pool2DOptions", {PAD, INT("stride_w"), INT("stride_h"), INT("filter_width"), INT("filter_height"), ACT}},
    {"SVDFOptions", {INT("rank"), ACT, BOOL("asymmetric_quantize_inputs")}},
    {"RNNOptions", {ACT, BOOL("asymmetric_quantize_inputs")}},
    {"FullyConnectedOptions", {ACT, {"weights_format", K_ENUM, 0, weights_formats}, BOOL("keep_num_dims"),
                               BOOL("asymmetric_quantize_inputs"), TYPE("quantized_bias_type", 0)}},
    {"SoftmaxOptions", {FLOAT("beta")}},
    {"ConcatenationOptions", {INT("axis"), ACT}},
    {"AddOptions", {ACT, BOOL_D("pot_scale_int16", 1)}},
    {"L2NormOptions", {ACT}},
    {"LocalResponseNormalizationOptions", {INT("radius"), FLOAT("bias"), FLOAT("alpha"), FLOAT("beta")}},
    {"LSTMOptions", {ACT, FLOAT("cell_clip"), FLOAT("proj_clip"), {"kernel_type", K_ENUM, 0, lstm_kernels},
                     BOOL("asymmetric_quantize_inputs")}},
    {"ResizeBilinearOptions", {INT("new_height"), INT("new_width"), BOOL("align_corners"),
                               BOOL("half_pixel_centers")}},
    {"CallOptions", {{"subgraph", K_UINT, 0, NULL}}},
    {"ReshapeOptions", {{"new_shape", K_INTS, 0, NULL}}},
    {"SkipGramOptions", {INT("ngram_size"), INT("max_skip_size"), BOOL("include_all_ngrams")}},
    {"SpaceToDepthOptions", {INT("block_size")}},
    {"EmbeddingLookupSparseOptions", {{"combiner", K_ENUM, 0, combiners}}},
    {"MulOptions", {ACT}},
    {"PadOptions", {{0}}},
    {"GatherOptions", {INT("axis"), INT("batch_dims")}},
    {"BatchToSpaceNDOptions", {{0}}},
    {"SpaceToBatchNDOptions", {{0}}},
    {"TransposeOptions", {{0}}},
    {"ReducerOptions", {BOOL("keep_dims")}},
    {"SubOptions", {ACT, BOOL_D("pot_scale_int16", 1)}},
    {"DivOptions", {ACT}},
    {"SqueezeOptions", {{"squeeze_dims", K_INTS, 0, NULL}}},
    {"SequenceRNNOptions", {BOOL("time_major"), ACT, BOOL("asymmetric_quantize_inputs")}},
    {"StridedSliceOptions", {INT("begin_mask"), INT("end_mask"), INT("ellipsis_mask"), INT("new_axis_mask"),
                             INT("shrink_axis_mask"), BOOL("offset")}},
    {"ExpOptions", {{0}}},
    {"TopKV2Options", {{0}}},
    {"SplitOptions", {INT("num_splits")}},
    {"LogSoftmaxOptions", {{0}}},
    {"CastOptions", {TYPE("in_data_type", 0), TYPE("out_data_type", 0)}},
    {"DequantizeOptions", {{0}}},
    {"MaximumMinimumOptions", {{0}}},
    {"ArgMaxOptions", {TYPE("output_type", 0)}},
    {"LessOptions", {{0}}},
    {"NegOptions", {{0}}},
    {"PadV2Options", {{0}}},
    {"GreaterOptions", {{0}}},
    {"GreaterEqualOptions", {{0}}},
    {"LessEqualOptions", {{0}}},
    {"SelectOptions", {{0}}},
    {"SliceOptions", {{0}}},
    {"TransposeConvOptions", {PAD, INT("stride_w"), INT("stride_h"), ACT, TYPE("quantized_bias_type", 0)}},
    {"SparseToDenseOptions", {BOOL("validate_indices")}},
    {"TileOptions", {{0}}},
    {"ExpandDimsOptions", {{0}}},
    {"EqualOptions", {{0}}},
    {"NotEqualOptions", {{0}}},
    {"ShapeOptions", {TYPE("out_type", 0)}},
    {"PowOptions", {{0}}},
    {"ArgMinOptions", {TYPE("output_type", 0)}},
    {"FakeQuantOptions", {FLOAT("min"), FLOAT("max"), INT("num_bits"), BOOL("narrow_range")}},
    {"PackOptions", {INT("values_count"), INT("axis")}},
    {"LogicalOrOptions", {{0}}},
    {"OneHotOptions", {INT("axis")}},
    {"LogicalAndOptions", {{0}}},
    {"LogicalNotOptions", {{0}}},
    {"UnpackOptions", {INT("num"), INT("axis")}},
    {"FloorDivOptions", {{0}}},
    {"SquareOptions", {{0}}},
    {"ZerosLikeOptions", {{0}}},
    {"FillOptions", {{0}}},
    {"BidirectionalSequenceLSTMOptions", {ACT, FLOAT("cell_clip"), FLOAT("proj_clip"), BOOL("merge_outputs"),
                                          BOOL_D("time_major", 1), BOOL("asymmetric_quantize_inputs")}},
    {"BidirectionalSequenceRNNOptions", {BOOL("time_major"), ACT, BOOL("merge_outputs"),
                                         BOOL("asymmetric_quantize_inputs")}},
    {"UnidirectionalSequenceLSTMOptions", {ACT, FLOAT("cell_clip"), FLOAT("proj_clip"), BOOL("time_major"),
                                           BOOL("asymmetric_quantize_inputs"),
                                           BOOL("diagonal_recurrent_tensors")}},
    {"FloorModOptions", {{0}}},
    {"RangeOptions", {{0}}},
    {"ResizeNearestNeighborOptions", {BOOL("align_corners"), BOOL("half_pixel_centers")}},
    {"LeakyReluOptions", {FLOAT("alpha")}},
    {"SquaredDifferenceOptions", {{0}}},
    {"MirrorPadOptions", {{"mode", K_ENUM, 0, mirror_modes}}},
    {"AbsOptions", {{0}}},
    {"SplitVOptions", {INT("num_splits")}},
    {"UniqueOptions", {TYPE("idx_out_type", 2)}},
    {"ReverseV2Options", {{0}}},
    {"AddNOptions", {{0}}},
    {"GatherNdOptions", {{0}}},
    {"CosOptions", {{0}}},
    {"WhereOptions", {{0}}},
    {"RankOptions", {{0}}},
    {"ReverseSequenceOptions", {INT("seq_dim"), INT("batch_dim")}},
    {"MatrixDiagOptions", {{0}}},
    {"QuantizeOptions", {{0}}},
    {"MatrixSetDiagOptions", {{0}}},
    {"HardSwishOptions", {{0}}},
    {"IfOptions", {INT("then_subgraph_index"), INT("else_subgraph_index")}},
    {"WhileOptions", {INT("cond_subgraph_index"), INT("body_subgraph_index")}},
    {"DepthToSpaceOptions", {INT("block_size")}},
    {"NonMaxSuppressionV4Options", {{0}}},
    {"NonMaxSuppressionV5Options", {{0}}},
    {"ScatterNdOptions", {{0}}},
    {"SelectV2Options", {{0}}},
    {"DensifyOptions", {{0}}},
    {"SegmentSumOptions", {{0}}},
    {"BatchMatMulOptions", {BOOL("adj_x"), BOOL("adj_y"), BOOL("asymmetric_quantize_inputs")}},
    {"CumsumOptions", {BOOL("exclusive"), BOOL("reverse")}},
    {"CallOnceOptions", {INT("init_subgraph_index")}},
    {"BroadcastToOptions", {{0}}},
    {"Rfft2dOptions", {{0}}},
    {"Conv3DOptions", {PAD, INT("stride_d"), INT("stride_w"), INT("stride_h"), ACT, INT_D("dilation_d_factor", 1),
                       INT_D("dilation_w_factor", 1), INT_D("dilation_h_factor", 1)}},
    {"HashtableOptions", {INT("table_id"), TYPE("key_dtype", 0), TYPE("value_dtype", 0)}},
    {"HashtableFindOptions", {{0}}},
    {"HashtableImportOptions", {{0}}},
    {"HashtableSizeOptions", {{0}}},
    {"VarHandleOptions", {{"container", K_STRING, 0, NULL}, {"shared_name", K_STRING, 0, NULL}}},
    {"ReadVariableOptions", {{0}}},
    {"AssignVariableOptions", {{0}}},
    {"RandomOptions", {{"seed", K_LONG, 0, NULL}, {"seed2", K_LONG, 0, NULL}}},
    {"BucketizeOptions", {{"boundaries", K_FLOATS, 0, NULL}}},
    {"GeluOptions", {BOOL("approximate")}},
    {"DynamicUpdateSliceOptions", {{0}}},
    {"UnsortedSegmentProdOptions", {{0}}},
    {"UnsortedSegmentMaxOptions", {{0}}},
    {"UnsortedSegmentMinOptions", {{0}}},
    {"UnsortedSegmentSumOptions", {{0}}},
    {"ATan2Options", {{0}}},
    {"SignOptions", {{0}}},
    {"BitcastOptions", {{0}}},
    {"BitwiseXorOptions", {{0}}},
    {"RightShiftOptions", {{0}}},
};

const char *tp_tfl_options_name(int type)
{
    return type >= 1 && type <= TP_TFL_MAX_OPTIONS ? tables[type - 1].name : NULL;
}

static int enum_count(const char *const *names)
{
    int n = 0;
    while (names[n])
        n++;
    return n;
}

/* One scalar field's value as a number (absent: the default). */
static tfpi_code read_number(tp_fb *fb, const tp_fb_table *t, int i, const field *f, int64_t *out, float *fout)
{
    tfpi_code code = TFPI_OK;
    *fout = 0;
    switch (f->kind) {
    case K_INT: {
        int32_t v;
        code = tp_fb_i32(fb, t, i, f->name, (int32_t)f->fallback, &v);
        *out = v;
        break;
    }
    case K_UINT: {
        uint32_t v;
        code = tp_fb_u32(fb, t, i, f->name, (uint32_t)f->fallback, &v);
        *out = v;
        break;
    }
    case K_LONG:
        code = tp_fb_i64(fb, t, i, f->name, f->fallback, out);
        break;
    case K_FLOAT:
        code = tp_fb_f32(fb, t, i, f->name, (float)f->fallback, fout);
        *out = 0;
        break;
    case K_BOOL:
    case K_ENUM: {
        int8_t v;
        code = tp_fb_i8(fb, t, i, f->name, (int8_t)f->fallback, &v);
        *out = v;
        break;
    }
    default:
        *out = 0;
    }
    return code;
}

tfpi_code tp_tfl_options_check(tp_fb *fb, int type, const tp_fb_table *options)
{
    if (type < 1 || type > TP_TFL_MAX_OPTIONS)
        return TFPI_OK;
    const options_table *table = &tables[type - 1];
    for (int i = 0; i < MAX_FIELDS && table->fields[i].name; i++) {
        const field *f = &table->fields[i];
        tfpi_code code = TFPI_OK;
        tp_fb_vector v;
        const char *s;
        int64_t n;
        float x;
        if (f->kind == K_INTS || f->kind == K_FLOATS)
            code = tp_fb_vector_field(fb, options, i, f->name, 4, &v);
        else if (f->kind == K_STRING)
            code = tp_fb_string(fb, options, i, f->name, &s, NULL);
        else
            code = read_number(fb, options, i, f, &n, &x);
        if (code == TFPI_OK && f->kind == K_ENUM && (n < 0 || n >= enum_count(f->names)))
            code = tp_fb_fail(fb, options, f->name, TFPI_INVALID_ARGUMENT, "value %lld is not one of the schema's",
                              (long long)n);
        if (code != TFPI_OK)
            return code;
    }
    return TFPI_OK;
}

static Tfpi__AttrValue *vector_value(const tp_fb *fb, const tp_fb_vector *v, bool floats)
{
    size_t n = v->count;
    void *values = malloc((n + 1) * (floats ? sizeof(float) : sizeof(int64_t)));
    if (!values)
        return NULL;
    for (size_t k = 0; k < n; k++)
        if (floats)
            ((float *)values)[k] = tp_fb_vector_f32(fb, v, (uint32_t)k);
        else
            ((int64_t *)values)[k] = tp_fb_vector_i32(fb, v, (uint32_t)k);
    Tfpi__AttrValue *a = floats ? tp_attr_new_float_list(values, n) : tp_attr_new_int_list(values, n);
    free(values);
    return a;
}

/* The attribute of field i (which tp_tfl_options_check accepted). */
static Tfpi__AttrValue *field_value(tp_fb *fb, const tp_fb_table *t, int i, const field *f)
{
    tp_fb_vector v;
    const char *s;
    int64_t n;
    float x;
    switch (f->kind) {
    case K_INTS:
    case K_FLOATS:
        return tp_fb_vector_field(fb, t, i, f->name, 4, &v) == TFPI_OK ? vector_value(fb, &v, f->kind == K_FLOATS)
                                                                        : NULL;
    case K_STRING:
        return tp_fb_string(fb, t, i, f->name, &s, NULL) == TFPI_OK ? tp_attr_new_string(s) : NULL;
    default:
        if (read_number(fb, t, i, f, &n, &x) != TFPI_OK)
            return NULL;
        if (f->kind == K_FLOAT)
            return tp_attr_new_float(x);
        if (f->kind == K_BOOL)
            return tp_attr_new_bool(n != 0);
        if (f->kind == K_ENUM)
            return n >= 0 && n < enum_count(f->names) ? tp_attr_new_string(f->names[n]) : NULL;
        return tp_attr_new_int(n);
    }
}

bool tp_tfl_options_to_attrs(const tp_fb *fb, int type, const tp_fb_table *options, Tfpi__NodeDef *def)
{
    if (type < 1 || type > TP_TFL_MAX_OPTIONS)
        return true;
    tp_fb quiet = *fb;
    quiet.status = NULL;
    const options_table *table = &tables[type - 1];
    for (int i = 0; i < MAX_FIELDS && table->fields[i].name; i++) {
        Tfpi__AttrValue *value = field_value(&quiet, options, i, &table->fields[i]);
        if (!value || !tp_node_set_attr(def, table->fields[i].name, value))
            return false;
    }
    return true;
}

/* Field `name` of table `type`: its index, or -1. */
static int find_field(int type, const char *name)
{
    if (type < 1 || type > TP_TFL_MAX_OPTIONS)
        return -1;
    for (int i = 0; i < MAX_FIELDS && tables[type - 1].fields[i].name; i++)
        if (strcmp(tables[type - 1].fields[i].name, name) == 0)
            return i;
    return -1;
}

bool tp_tfl_option_int(const tp_fb *fb, int type, const tp_fb_table *options, const char *name, int64_t *out)
{
    int i = find_field(type, name);
    const field *f = i >= 0 ? &tables[type - 1].fields[i] : NULL;
    if (!f || f->kind == K_FLOAT || f->kind == K_INTS || f->kind == K_FLOATS || f->kind == K_STRING)
        return false;
    tp_fb quiet = *fb;
    quiet.status = NULL;
    float x;
    return read_number(&quiet, options, i, f, out, &x) == TFPI_OK;
}

bool tp_tfl_option_float(const tp_fb *fb, int type, const tp_fb_table *options, const char *name, float *out)
{
    int i = find_field(type, name);
    const field *f = i >= 0 ? &tables[type - 1].fields[i] : NULL;
    if (!f || f->kind != K_FLOAT)
        return false;
    tp_fb quiet = *fb;
    quiet.status = NULL;
    int64_t n;
    return read_number(&quiet, options, i, f, &n, out) == TFPI_OK;
}
