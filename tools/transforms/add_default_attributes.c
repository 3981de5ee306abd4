/* add_default_attributes.c - writes out the attributes a node leaves at
 * their default, for the ops of inference graphs (the defaults are those of
 * TensorFlow's op definitions), so that readers that do not know the
 * defaults see them. An attribute a node has is never changed. */
#include <string.h>

#include "graphdef_edit.h"
#include "transforms.h"

typedef enum { KIND_STRING, KIND_INT, KIND_FLOAT, KIND_BOOL, KIND_TYPE, KIND_ONES4, KIND_EMPTY_LIST } default_kind;

typedef struct attr_default {
    const char *op; /* a prefix ending in '*' matches every op it starts */
    const char *attr;
    default_kind kind;
    const char *text; /* KIND_STRING */
    double number;    /* the other kinds */
} attr_default;

static const attr_default defaults[] = {
    {"Conv2D", "data_format", KIND_STRING, "NHWC", 0},
    {"Conv2D", "dilations", KIND_ONES4, NULL, 0},
    {"Conv2D", "use_cudnn_on_gpu", KIND_BOOL, NULL, 1},
    {"DepthwiseConv2dNative", "data_format", KIND_STRING, "NHWC", 0},
    {"DepthwiseConv2dNative", "dilations", KIND_ONES4, NULL, 0},
    {"Conv2DBackpropInput", "data_format", KIND_STRING, "NHWC", 0},
    {"Conv2DBackpropInput", "dilations", KIND_ONES4, NULL, 0},
    {"MaxPool", "data_format", KIND_STRING, "NHWC", 0},
    {"AvgPool", "data_format", KIND_STRING, "NHWC", 0},
    {"BiasAdd", "data_format", KIND_STRING, "NHWC", 0},
    {"FusedBatchNorm*", "epsilon", KIND_FLOAT, NULL, 0.0001},
    {"FusedBatchNorm*", "data_format", KIND_STRING, "NHWC", 0},
    {"FusedBatchNorm*", "is_training", KIND_BOOL, NULL, 1},
    {"MatMul", "transpose_a", KIND_BOOL, NULL, 0},
    {"MatMul", "transpose_b", KIND_BOOL, NULL, 0},
    {"BatchMatMul*", "adj_x", KIND_BOOL, NULL, 0},
    {"BatchMatMul*", "adj_y", KIND_BOOL, NULL, 0},
    {"Squeeze", "squeeze_dims", KIND_EMPTY_LIST, NULL, 0},
    {"Mean", "keep_dims", KIND_BOOL, NULL, 0},
    {"Sum", "keep_dims", KIND_BOOL, NULL, 0},
    {"Max", "keep_dims", KIND_BOOL, NULL, 0},
    {"Min", "keep_dims", KIND_BOOL, NULL, 0},
    {"Prod", "keep_dims", KIND_BOOL, NULL, 0},
    {"Reshape", "Tshape", KIND_TYPE, NULL, TFPI_INT32},
    {"Pad", "Tpaddings", KIND_TYPE, NULL, TFPI_INT32},
    {"MirrorPad", "Tpaddings", KIND_TYPE, NULL, TFPI_INT32},
    {"ConcatV2", "Tidx", KIND_TYPE, NULL, TFPI_INT32},
    {"Transpose", "Tperm", KIND_TYPE, NULL, TFPI_INT32},
    {"Shape", "out_type", KIND_TYPE, NULL, TFPI_INT32},
    {"ArgMax", "output_type", KIND_TYPE, NULL, TFPI_INT64},
    {"ArgMin", "output_type", KIND_TYPE, NULL, TFPI_INT64},
    {"ResizeBilinear", "align_corners", KIND_BOOL, NULL, 0},
    {"ResizeBilinear", "half_pixel_centers", KIND_BOOL, NULL, 0},
    {"ResizeNearestNeighbor", "align_corners", KIND_BOOL, NULL, 0},
    {"ResizeNearestNeighbor", "half_pixel_centers", KIND_BOOL, NULL, 0},
    {"Cast", "Truncate", KIND_BOOL, NULL, 0},
    {"StridedSlice", "begin_mask", KIND_INT, NULL, 0},
    {"StridedSlice", "end_mask", KIND_INT, NULL, 0},
    {"StridedSlice", "ellipsis_mask", KIND_INT, NULL, 0},
    {"StridedSlice", "new_axis_mask", KIND_INT, NULL, 0},
    {"StridedSlice", "shrink_axis_mask", KIND_INT, NULL, 0},
    {"LRN", "depth_radius", KIND_INT, NULL, 5},
    {"LRN", "bias", KIND_FLOAT, NULL, 1},
    {"LRN", "alpha", KIND_FLOAT, NULL, 1},
    {"LRN", "beta", KIND_FLOAT, NULL, 0.5},
    {"DecodeJpeg", "channels", KIND_INT, NULL, 0},
    {"DecodeJpeg", "ratio", KIND_INT, NULL, 1},
    {"DecodeJpeg", "fancy_upscaling", KIND_BOOL, NULL, 1},
    {"DecodeJpeg", "try_recover_truncated", KIND_BOOL, NULL, 0},
    {"DecodeJpeg", "acceptable_fraction", KIND_FLOAT, NULL, 1},
    {"DecodeJpeg", "dct_method", KIND_STRING, "", 0},
    {"Dequantize", "mode", KIND_STRING, "MIN_COMBINED", 0},
    {"CheckNumerics", "message", KIND_STRING, "", 0},
};

static bool op_matches(const char *pattern, const char *op)
{
    size_t n = strlen(pattern);
    return pattern[n - 1] == '*' ? strncmp(pattern, op, n - 1) == 0 : strcmp(pattern, op) == 0;
}

static void add_default(Tfpi__NodeDef *node, const attr_default *d)
{
    static const int64_t ones[4] = {1, 1, 1, 1};
    switch (d->kind) {
    case KIND_STRING: gd_attr_set_string(node, d->attr, d->text); break;
    case KIND_INT: gd_attr_set_int(node, d->attr, (int64_t)d->number); break;
    case KIND_FLOAT: gd_attr_set_float(node, d->attr, (float)d->number); break;
    case KIND_BOOL: gd_attr_set_bool(node, d->attr, d->number != 0); break;
    case KIND_TYPE: gd_attr_set_type(node, d->attr, (int)d->number); break;
    case KIND_ONES4: gd_attr_set_ints(node, d->attr, ones, 4); break;
    case KIND_EMPTY_LIST: gd_attr_set_ints(node, d->attr, NULL, 0); break;
    }
}

tfpi_code transform_add_default_attributes(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    (void)ctx;
    for (size_t i = 0; i < graph->n_node; i++)
        for (size_t d = 0; d < sizeof defaults / sizeof defaults[0]; d++)
            if (op_matches(defaults[d].op, graph->node[i]->op) && !tp_attr(graph->node[i], defaults[d].attr))
                add_default(graph->node[i], &defaults[d]);
    return TFPI_OK;
}
