/* fuse_conv.c - folds the resizing and mirror padding in front of a
 * Conv2D into TensorFlow's fused ops (fewer passes over the image):
 *   fuse_pad_and_conv:        Conv2D(MirrorPad(x, p), w) -> FusedPadConv2D(x, p, w)
 *   fuse_resize_and_conv:     Conv2D(ResizeBilinear(x, size), w)
 *                             -> FusedResizeAndPadConv2D(x, size, zeros, w)
 *   fuse_resize_pad_and_conv: Conv2D(MirrorPad(ResizeBilinear(x, size), p), w)
 *                             -> FusedResizeAndPadConv2D(x, size, p, w)
 * The fused node keeps the Conv2D's name, strides and padding; only NHWC
 * convolutions without dilation whose inputs nothing else reads fuse. */
#include <stdlib.h>
#include <string.h>

#include "graphdef_edit.h"
#include "rewrite.h"
#include "transforms.h"
#include "xalloc.h"

typedef enum fusion { FUSE_PAD, FUSE_RESIZE, FUSE_RESIZE_PAD } fusion;

/* A Const of four [0, 0] rows: "no padding" for FusedResizeAndPadConv2D. */
static char *zero_paddings(rw_graph *g, const Tfpi__NodeDef *conv)
{
    static const int32_t zeros[8];
    static const int64_t dims[2] = {4, 2};
    char base[300];
    snprintf(base, sizeof base, "%s_dummy_paddings", conv->name);
    char *name = rw_unique_name(g, base);
    Tfpi__NodeDef *node = gd_node_new(name, "Const");
    rw_make_const(node, TFPI_INT32, dims, 2, zeros);
    gd_append_node(g->def, node);
    return name;
}

/* Rewrites one conv that matches; true if there was one. */
static bool fuse_one(rw_graph *g, fusion kind, const transform_ctx *ctx)
{
    for (size_t i = 0; i < g->def->n_node; i++) {
        Tfpi__NodeDef *conv = g->def->node[i], *pad = NULL, *resize = NULL;
        if (strcmp(conv->op, "Conv2D") != 0 || !rw_is_nhwc(conv) || !rw_unit_dilations(conv) ||
            rw_num_data_inputs(conv) != 2)
            continue;
        if (kind != FUSE_RESIZE && !(pad = rw_private_input(g, conv, 0, "MirrorPad", ctx)))
            continue;
        if (kind != FUSE_PAD && !(resize = rw_private_input(g, pad ? pad : conv, 0, "ResizeBilinear", ctx)))
            continue;
        if ((pad && rw_num_data_inputs(pad) != 2) || (resize && rw_num_data_inputs(resize) != 2))
            continue;
        char mode[32] = "REFLECT";
        if (pad)
            tp_attr_string(pad, "mode", mode, sizeof mode, "REFLECT");
        const Tfpi__AttrValue *align = resize ? tp_attr(resize, "align_corners") : NULL;
        bool align_corners = align && align->value_case == TFPI__ATTR_VALUE__VALUE_B && align->b;
        char *dummy = kind == FUSE_RESIZE ? zero_paddings(g, conv) : NULL;
        bool *candidates = xcalloc(g->def->n_node + 1, sizeof *candidates);
        candidates[rw_node_index(g, (pad ? pad : resize)->name)] = true;
        if (kind == FUSE_PAD) {
            const char *inputs[3] = {pad->input[0], pad->input[1], conv->input[1]};
            rw_set_data_inputs(conv, inputs, 3);
            gd_set_string(&conv->op, "FusedPadConv2D");
        } else {
            const char *inputs[4] = {resize->input[0], resize->input[1], pad ? pad->input[1] : dummy,
                                     conv->input[1]};
            rw_set_data_inputs(conv, inputs, 4);
            gd_set_string(&conv->op, "FusedResizeAndPadConv2D");
            gd_attr_set_bool(conv, "resize_align_corners", align_corners);
        }
        gd_attr_set_string(conv, "mode", mode);
        gd_attr_remove(conv, "data_format");
        gd_attr_remove(conv, "dilations");
        gd_attr_remove(conv, "use_cudnn_on_gpu");
        gd_attr_remove(conv, "explicit_paddings");
        free(dummy);
        rw_refresh(g);
        rw_delete_unused(g, candidates, ctx);
        free(candidates);
        return true;
    }
    return false;
}

static tfpi_code fuse_all(Tfpi__GraphDef *graph, fusion kind, const transform_ctx *ctx)
{
    rw_graph g;
    rw_open(&g, graph);
    while (fuse_one(&g, kind, ctx))
        ;
    rw_close(&g);
    return TFPI_OK;
}

tfpi_code transform_fuse_pad_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    return fuse_all(graph, FUSE_PAD, ctx);
}

tfpi_code transform_fuse_resize_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    return fuse_all(graph, FUSE_RESIZE, ctx);
}

tfpi_code transform_fuse_resize_pad_and_conv(Tfpi__GraphDef *graph, const transform_ctx *ctx)
{
    return fuse_all(graph, FUSE_RESIZE_PAD, ctx);
}
