/* test_detection_ops.c - the ops of detection graphs: NonMaxSuppression
 * V1-V5, Where, CropAndResize and GatherNd, with control_flow.md's hand-computed
 * cases (8-18): the base set with overlapping pairs (IoU 0.818), the same
 * boxes with flipped corners, equal scores (lower index first), IoU exactly
 * at the threshold (kept: TF suppresses only when IoU > threshold),
 * score_threshold (strictly greater), V4 padding, V5 soft NMS
 * (0.8 * e^(-1/9) = 0.715871), zero-area boxes, Where's row-major
 * coordinates, CropAndResize's whole-image, bilinear, nearest, one-pixel
 * and extrapolated crops of a 3x3 image holding 0..8; and malformed inputs
 * as one-line errors. */
#include <string.h>

#include "check.h"
#include "op_test.h"

static const float base_boxes[6][4] = {{0, 0, 1, 1},  {0, 0.1f, 1, 1.1f},   {0, -0.1f, 1, 0.9f},
                                       {0, 10, 1, 11}, {0, 10.1f, 1, 11.1f}, {0, 100, 1, 101}};
static const float base_scores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

/* Builds boxes/scores Consts and an NMS node "out" of `op` with the given
 * scalar inputs (max, iou, score_threshold, sigma: as many as op takes). */
static gb_graph *nms_graph_padded(const char *op, const float *boxes, const float *scores, int n, int32_t max,
                                  const float *thresholds, int num_thresholds, bool pad)
{
    gb_graph *g = gb_new();
    gb_const(g, "boxes", TFPI_FLOAT, (int64_t[]){n, 4}, 2, boxes);
    gb_const(g, "scores", TFPI_FLOAT, (int64_t[]){n}, 1, scores);
    gb_const(g, "max", TFPI_INT32, NULL, 0, &max);
    const char *names[] = {"iou", "score_threshold", "sigma"};
    for (int i = 0; i < num_thresholds; i++)
        gb_const(g, names[i], TFPI_FLOAT, NULL, 0, &thresholds[i]);
    Tfpi__NodeDef *node = gb_node(g, op, "out", "boxes", "scores", "max", num_thresholds > 0 ? "iou" : NULL,
                                  num_thresholds > 1 ? "score_threshold" : NULL, num_thresholds > 2 ? "sigma" : NULL,
                                  NULL);
    if (num_thresholds == 0)
        gd_attr_set_float(node, "iou_threshold", 0.5f);
    if (pad)
        gd_attr_set_bool(node, "pad_to_max_output_size", true);
    return g;
}

static gb_graph *nms_graph(const char *op, const float *boxes, const float *scores, int n, int32_t max,
                           const float *thresholds, int num_thresholds)
{
    return nms_graph_padded(op, boxes, scores, n, max, thresholds, num_thresholds, false);
}

static void check_indices(gb_graph *g, const char *fetch, int count, const int32_t *want)
{
    CHECK_TENSOR(op_eval(g, NULL, fetch), TFPI_INT32, 1, (int64_t[]){count}, want);
    gb_free(g);
}

static void test_nms_base(void)
{
    const int32_t want[] = {3, 0, 5};
    check_indices(nms_graph("NonMaxSuppression", &base_boxes[0][0], base_scores, 6, 3, NULL, 0), "out", 3, want);
    check_indices(nms_graph("NonMaxSuppressionV2", &base_boxes[0][0], base_scores, 6, 3, (float[]){0.5f}, 1), "out",
                  3, want);
    check_indices(nms_graph("NonMaxSuppressionV3", &base_boxes[0][0], base_scores, 6, 3, (float[]){0.5f, 0}, 2),
                  "out", 3, want);
    /* flipped corners: odd rows [y2,x2,y1,x1], even rows with x1 and x2 swapped */
    float flipped[6][4];
    for (int i = 0; i < 6; i++) {
        const float *b = base_boxes[i];
        float odd[4] = {b[2], b[3], b[0], b[1]}, even[4] = {b[0], b[3], b[2], b[1]};
        memcpy(flipped[i], i % 2 ? odd : even, sizeof odd);
    }
    check_indices(nms_graph("NonMaxSuppressionV2", &flipped[0][0], base_scores, 6, 3, (float[]){0.5f}, 1), "out", 3,
                  want);
}

static void test_nms_ties_and_thresholds(void)
{
    const float two[2][4] = {{0, 0, 1, 1}, {0, 0.1f, 1, 1.1f}};
    check_indices(nms_graph("NonMaxSuppressionV2", &two[0][0], (float[]){0.8f, 0.8f}, 2, 5, (float[]){0.5f}, 1),
                  "out", 1, (int32_t[]){0});
    const float apart[3][4] = {{0, 0, 1, 1}, {0, 2, 1, 3}, {0, 4, 1, 5}};
    check_indices(nms_graph("NonMaxSuppressionV2", &apart[0][0], (float[]){0.7f, 0.7f, 0.7f}, 3, 5, (float[]){0.5f},
                            1),
                  "out", 3, (int32_t[]){0, 1, 2});
    const float half[2][4] = {{0, 0, 1, 1}, {0, 0, 1, 0.5f}}; /* IoU exactly 0.5: kept */
    check_indices(nms_graph("NonMaxSuppressionV2", &half[0][0], (float[]){0.9f, 0.8f}, 2, 5, (float[]){0.5f}, 1),
                  "out", 2, (int32_t[]){0, 1});
    check_indices(nms_graph("NonMaxSuppressionV3", &apart[0][0], (float[]){0.9f, 0.3f, 0.5f}, 3, 5,
                            (float[]){0.5f, 0.5f}, 2),
                  "out", 1, (int32_t[]){0});
    const float flat[2][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}}; /* zero area: IoU 0 */
    check_indices(nms_graph("NonMaxSuppressionV2", &flat[0][0], (float[]){0.9f, 0.8f}, 2, 5, (float[]){0.5f}, 1),
                  "out", 2, (int32_t[]){0, 1});
}

static void test_nms_v4_v5(void)
{
    gb_graph *g = nms_graph_padded("NonMaxSuppressionV4", &base_boxes[0][0], base_scores, 6, 5,
                                   (float[]){0.5f, 0}, 2, true);
    gb_node(g, "Identity", "valid", "out:1", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "valid"), TFPI_INT32, 0, NULL, (int32_t[]){3});
    check_indices(g, "out", 5, (int32_t[]){3, 0, 5, 0, 0});
    /* soft NMS: IoU 1/3, sigma 0.5: 0.8 * exp(-0.5 * (1/9) / 0.5) = 0.715871;
     * the newest TF ignores the IoU threshold in soft mode (1.0 and 0.3) */
    const float soft_boxes[2][4] = {{0, 0, 1, 1}, {0, 0.5f, 1, 1.5f}};
    for (int t = 0; t < 2; t++) {
        g = nms_graph("NonMaxSuppressionV5", &soft_boxes[0][0], (float[]){0.9f, 0.8f}, 2, 5,
                      (float[]){t ? 0.3f : 1.0f, 0, 0.5f}, 3);
        gb_node(g, "Identity", "scores_out", "out:1", NULL);
        gb_node(g, "Identity", "valid", "out:2", NULL);
        CHECK_TENSOR_NEAR(op_eval(g, NULL, "scores_out"), 1, (int64_t[]){2}, (float[]){0.9f, 0.715871f}, 1e-6);
        CHECK_TENSOR(op_eval(g, NULL, "valid"), TFPI_INT32, 0, NULL, (int32_t[]){2});
        check_indices(g, "out", 2, (int32_t[]){0, 1});
    }
}

static void test_where(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_BOOL, (int64_t[]){3, 2}, 2);
    gb_node(g, "Where", "out", "x", NULL);
    tfpi_tensor *x = op_tensor(TFPI_BOOL, (int64_t[]){3, 2}, 2, (uint8_t[]){1, 0, 0, 1, 1, 1});
    CHECK_TENSOR(op_eval(g, x, "out"), TFPI_INT64, 2, (int64_t[]){4, 2}, (int64_t[]){0, 0, 1, 1, 2, 0, 2, 1});
    tfpi_tensor_free(x);
    x = op_tensor(TFPI_BOOL, (int64_t[]){3, 2}, 2, NULL);
    CHECK_TENSOR(op_eval(g, x, "out"), TFPI_INT64, 2, (int64_t[]){0, 2}, NULL);
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_crop_and_resize(void)
{
    gb_graph *g = gb_new();
    float pixels[9];
    for (int i = 0; i < 9; i++)
        pixels[i] = (float)i;
    gb_const(g, "image", TFPI_FLOAT, (int64_t[]){1, 3, 3, 1}, 4, pixels);
    gb_const(g, "ind", TFPI_INT32, (int64_t[]){1}, 1, (int32_t[]){0});
    gb_const(g, "bad_ind", TFPI_INT32, (int64_t[]){1}, 1, (int32_t[]){1});
    gb_const(g, "size3", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){3, 3});
    gb_const(g, "size2", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){2, 2});
    gb_const(g, "size1", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){1, 1});
    gb_const(g, "whole", TFPI_FLOAT, (int64_t[]){1, 4}, 2, (float[]){0, 0, 1, 1});
    gb_const(g, "corner", TFPI_FLOAT, (int64_t[]){1, 4}, 2, (float[]){0, 0, 0.75f, 0.75f});
    gb_const(g, "centre", TFPI_FLOAT, (int64_t[]){1, 4}, 2, (float[]){0.25f, 0.25f, 0.75f, 0.75f});
    gb_const(g, "outside", TFPI_FLOAT, (int64_t[]){1, 4}, 2, (float[]){-1, -1, 0, 0});
    gb_node(g, "CropAndResize", "whole_crop", "image", "whole", "ind", "size3", NULL);
    gb_node(g, "CropAndResize", "bilinear", "image", "corner", "ind", "size2", NULL);
    Tfpi__NodeDef *n = gb_node(g, "CropAndResize", "nearest", "image", "corner", "ind", "size2", NULL);
    gd_attr_set_string(n, "method", "nearest");
    gb_node(g, "CropAndResize", "one", "image", "centre", "ind", "size1", NULL);
    n = gb_node(g, "CropAndResize", "extrapolated", "image", "outside", "ind", "size2", NULL);
    gd_attr_set_float(n, "extrapolation_value", -1);
    gb_node(g, "CropAndResize", "bad", "image", "whole", "bad_ind", "size2", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "whole_crop"), TFPI_FLOAT, 4, (int64_t[]){1, 3, 3, 1}, pixels);
    CHECK_TENSOR(op_eval(g, NULL, "bilinear"), TFPI_FLOAT, 4, (int64_t[]){1, 2, 2, 1}, (float[]){0, 1.5f, 4.5f, 6});
    CHECK_TENSOR(op_eval(g, NULL, "nearest"), TFPI_FLOAT, 4, (int64_t[]){1, 2, 2, 1}, (float[]){0, 2, 6, 8});
    CHECK_TENSOR(op_eval(g, NULL, "one"), TFPI_FLOAT, 4, (int64_t[]){1, 1, 1, 1}, (float[]){4});
    CHECK_TENSOR(op_eval(g, NULL, "extrapolated"), TFPI_FLOAT, 4, (int64_t[]){1, 2, 2, 1}, (float[]){-1, -1, -1, 0});
    CHECK_FAILS(g, NULL, "bad", "bad", "box_index has values outside [0, batch_size)");
    gb_free(g);
}

/* params = arange(12).reshape(3, 4): indices [[2,1],[0,3]] -> [9, 3];
 * [[1],[0]] -> rows 1 and 0 (np.take and fancy indexing agree). */
static void test_gather_nd(void)
{
    gb_graph *g = gb_new();
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    gb_const(g, "params", TFPI_FLOAT, (int64_t[]){3, 4}, 2, v);
    gb_const(g, "points", TFPI_INT32, (int64_t[]){2, 2}, 2, (int32_t[]){2, 1, 0, 3});
    gb_const(g, "rows", TFPI_INT64, (int64_t[]){2, 1}, 2, (int64_t[]){1, 0});
    gb_const(g, "outside", TFPI_INT32, (int64_t[]){1, 2}, 2, (int32_t[]){3, 0});
    gb_node(g, "GatherNd", "pick", "params", "points", NULL);
    gb_node(g, "GatherNd", "take_rows", "params", "rows", NULL);
    gb_node(g, "GatherNd", "bad", "params", "outside", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "pick"), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){9, 3});
    CHECK_TENSOR(op_eval(g, NULL, "take_rows"), TFPI_FLOAT, 2, (int64_t[]){2, 4}, (float[]){4, 5, 6, 7, 0, 1, 2, 3});
    CHECK_FAILS(g, NULL, "bad", "bad", "indices[0] = 3 does not index into dimension 0 of size 3");
    gb_free(g);
}

static void test_malformed(void)
{
    const float three_cols[2][3] = {{0, 0, 1}, {0, 1, 1}};
    gb_graph *g = gb_new();
    gb_const(g, "boxes", TFPI_FLOAT, (int64_t[]){2, 3}, 2, three_cols);
    gb_const(g, "scores", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){0.5f, 0.4f});
    gb_const(g, "max", TFPI_INT32, NULL, 0, (int32_t[]){2});
    gb_const(g, "iou", TFPI_FLOAT, NULL, 0, (float[]){0.5f});
    gb_const(g, "bad_iou", TFPI_FLOAT, NULL, 0, (float[]){1.5f});
    gb_const(g, "scores3", TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){1, 2, 3});
    gb_const(g, "boxes_ok", TFPI_FLOAT, (int64_t[]){2, 4}, 2, &base_boxes[0][0]);
    gb_node(g, "NonMaxSuppressionV2", "out", "boxes", "scores", "max", "iou", NULL);
    gb_node(g, "NonMaxSuppressionV2", "short", "boxes_ok", "scores3", "max", "iou", NULL);
    gb_node(g, "NonMaxSuppressionV2", "iou_range", "boxes_ok", "scores", "max", "bad_iou", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "boxes must be a [n,4] matrix");
    CHECK_FAILS(g, NULL, "short", "short", "scores must be a vector of 2 values");
    CHECK_FAILS(g, NULL, "iou_range", "iou_range", "iou_threshold must be in [0, 1]");
    gb_free(g);
}

int main(void)
{
    RUN(test_nms_base);
    RUN(test_nms_ties_and_thresholds);
    RUN(test_nms_v4_v5);
    RUN(test_where);
    RUN(test_crop_and_resize);
    RUN(test_gather_nd);
    RUN(test_malformed);
    return check_summary();
}
