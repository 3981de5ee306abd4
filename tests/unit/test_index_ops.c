/* test_index_ops.c - GatherV2, Gather, OneHot, TopKV2, SpaceToBatchND,
 * BatchToSpaceND, ResizeBilinear, ResizeNearestNeighbor, RandomUniform and
 * IdentityN through small graphs. Expected values come from numpy:
 * np.take, a one-hot built with np.where/np.moveaxis, a stable argsort of
 * -x for TopKV2 (ties by lower index), SpaceToBatchND/BatchToSpaceND as
 * TF documents them (np.pad, reshape, transpose, reshape, crop), and TF's
 * resize coordinate formulas (legacy, align_corners, half_pixel_centers)
 * evaluated in float64; large TopKV2 rows are checked against a naive
 * repeated-maximum selection on 1 and 3 threads. RandomUniform is checked
 * for range, mean, reproducibility and fresh draws per run. */
#include <stdbool.h>
#include <string.h>

#include "op_test.h"
#include "check.h"

static void scalar_i32(gb_graph *g, const char *name, int32_t v)
{
    gb_const(g, name, TFPI_INT32, NULL, 0, &v);
}

/* ---- GatherV2, Gather ------------------------------------------------------ */

static void test_gather(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){3, 4}, 2);
    gb_const(g, "rows", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){2, 0});
    int64_t grid[4] = {3, 0, 1, 1};
    gb_const(g, "grid", TFPI_INT64, (int64_t[]){2, 2}, 2, grid);
    scalar_i32(g, "zero", 0);
    scalar_i32(g, "one", 1);
    scalar_i32(g, "minus_one", -1);
    scalar_i32(g, "five", 5);
    gb_node(g, "GatherV2", "take_rows", "x", "rows", "zero", NULL);
    gb_node(g, "GatherV2", "take_cols", "x", "grid", "one", NULL);
    gb_node(g, "GatherV2", "take_cols_neg", "x", "grid", "minus_one", NULL);
    gb_node(g, "Gather", "legacy", "x", "one", NULL);
    gb_node(g, "GatherV2", "out_of_range", "x", "five", "zero", NULL);
    gb_node(g, "GatherV2", "bad_axis", "x", "rows", "five", NULL);
    float v[12];
    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){3, 4}, 2, v);
    /* np.take(p, [2, 0], 0), np.take(p, [[3, 0], [1, 1]], 1), np.take(p, 1, 0);
     * p = arange(12).reshape(3, 4) */
    CHECK_TENSOR(op_eval(g, x, "take_rows"), TFPI_FLOAT, 2, (int64_t[]){2, 4},
                 (float[]){8, 9, 10, 11, 0, 1, 2, 3});
    const float cols[12] = {3, 0, 1, 1, 7, 4, 5, 5, 11, 8, 9, 9};
    CHECK_TENSOR(op_eval(g, x, "take_cols"), TFPI_FLOAT, 3, (int64_t[]){3, 2, 2}, cols);
    CHECK_TENSOR(op_eval(g, x, "take_cols_neg"), TFPI_FLOAT, 3, (int64_t[]){3, 2, 2}, cols);
    CHECK_TENSOR(op_eval(g, x, "legacy"), TFPI_FLOAT, 1, (int64_t[]){4}, (float[]){4, 5, 6, 7});
    CHECK_FAILS(g, x, "out_of_range", "out_of_range", "indices[0] = 5 is not in [0, 3)");
    CHECK_FAILS(g, x, "bad_axis", "bad_axis", "axis 5 is out of range");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- OneHot ---------------------------------------------------------------- */

static Tfpi__NodeDef *add_one_hot(gb_graph *g, const char *name, const char *indices, int axis)
{
    Tfpi__NodeDef *n = gb_node(g, "OneHot", name, indices, "depth", "on", "off", NULL);
    gd_attr_set_int(n, "axis", axis);
    return n;
}

static void test_one_hot(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, (int64_t[]){3}, 1);
    scalar_i32(g, "depth", 3);
    float on = 5, off = 0.5f;
    gb_const(g, "on", TFPI_FLOAT, NULL, 0, &on);
    gb_const(g, "off", TFPI_FLOAT, NULL, 0, &off);
    add_one_hot(g, "last", "x", -1);
    add_one_hot(g, "first", "x", 0);
    add_one_hot(g, "bad_axis", "x", 2);
    int64_t grid[4] = {1, 0, 3, 2};
    gb_const(g, "grid", TFPI_INT64, (int64_t[]){2, 2}, 2, grid);
    add_one_hot(g, "middle", "grid", 1);
    tfpi_tensor *x = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){0, 2, -1});
    /* np.where(idx[..., None] == arange(depth), on, off), depth axis moved with np.moveaxis */
    CHECK_TENSOR(op_eval(g, x, "last"), TFPI_FLOAT, 2, (int64_t[]){3, 3},
                 (float[]){5, 0.5f, 0.5f, 0.5f, 0.5f, 5, 0.5f, 0.5f, 0.5f});
    CHECK_TENSOR(op_eval(g, x, "first"), TFPI_FLOAT, 2, (int64_t[]){3, 3},
                 (float[]){5, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 5, 0.5f});
    CHECK_TENSOR(op_eval(g, NULL, "middle"), TFPI_FLOAT, 3, (int64_t[]){2, 3, 2},
                 (float[]){0.5f, 5, 5, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 5});
    CHECK_FAILS(g, x, "bad_axis", "bad_axis", "axis 2 is outside [-1, 1]");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- TopKV2 ---------------------------------------------------------------- */

static void test_top_k_ties(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2, 6}, 2);
    scalar_i32(g, "three", 3);
    scalar_i32(g, "four", 4);
    scalar_i32(g, "seven", 7);
    gb_node(g, "TopKV2", "top3", "x", "three", NULL);
    gb_node(g, "TopKV2", "top4", "x", "four", NULL);
    gb_node(g, "TopKV2", "too_many", "x", "seven", NULL);
    gb_const(g, "ints", TFPI_INT32, (int64_t[]){5}, 1, (int32_t[]){-7, 9, -7, 9, 0});
    gb_node(g, "TopKV2", "int_top", "ints", "four", NULL);
    /* ties: the threes, the fours, and -0 == +0 */
    const float v[12] = {1, 3, 3, 2, 3, 0, 0, -0.0f, 4, -2, 4, 1};
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2, 6}, 2, v);
    tfpi_tensor *out[2] = {NULL, NULL};
    const char *feed = "x", *fetches[2] = {"top4", "top4:1"};
    tfpi_status status;
    CHECK_MSG(op_run_graph(g, 1, &feed, &x, 2, fetches, out, 1, &status) == TFPI_OK, "%s", status.message);
    /* i = np.argsort(-x, 1, kind='stable')[:, :4]; np.take_along_axis(x, i, 1) */
    CHECK_TENSOR(out[0], TFPI_FLOAT, 2, (int64_t[]){2, 4}, (float[]){3, 3, 3, 2, 4, 4, 1, 0});
    CHECK_TENSOR(out[1], TFPI_INT32, 2, (int64_t[]){2, 4}, (int32_t[]){1, 2, 4, 3, 2, 4, 5, 0});
    CHECK_TENSOR(op_eval(g, x, "top3"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){3, 3, 3, 4, 4, 1});
    CHECK_TENSOR(op_eval(g, NULL, "int_top:1"), TFPI_INT32, 1, (int64_t[]){4}, (int32_t[]){1, 3, 4, 0});
    CHECK_FAILS(g, x, "too_many", "too_many", "k = 7 must be in [0, 6]");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* Rows of 500 values from a small set (many ties), k = 37, against picking
 * the largest unpicked value (lowest index first) k times. */
static void test_top_k_large(void)
{
    enum { ROWS = 9, N = 500, K = 37 };
    static float v[ROWS * N], want_values[ROWS * K];
    static int32_t want_indices[ROWS * K];
    uint32_t seed = 2024;
    for (int i = 0; i < ROWS * N; i++) {
        seed = seed * 1664525u + 1013904223u;
        v[i] = (float)((seed >> 16) % 41) - 20.0f;
    }
    for (int r = 0; r < ROWS; r++) {
        bool taken[N] = {false};
        for (int j = 0; j < K; j++) {
            int best = -1;
            for (int i = 0; i < N; i++)
                if (!taken[i] && (best < 0 || v[r * N + i] > v[r * N + best]))
                    best = i;
            taken[best] = true;
            want_values[r * K + j] = v[r * N + best];
            want_indices[r * K + j] = best;
        }
    }
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){ROWS, N}, 2);
    scalar_i32(g, "k", K);
    gb_node(g, "TopKV2", "top", "x", "k", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){ROWS, N}, 2, v);
    for (int threads = 1; threads <= 3; threads += 2) {
        tfpi_tensor *out[2] = {NULL, NULL};
        const char *feed = "x", *fetches[2] = {"top", "top:1"};
        tfpi_status status;
        tfpi_code code = op_run_graph(g, 1, &feed, &x, 2, fetches, out, threads, &status);
        CHECK_MSG(code == TFPI_OK, "%s", status.message);
        CHECK_TENSOR(out[0], TFPI_FLOAT, 2, (int64_t[]){ROWS, K}, want_values);
        CHECK_TENSOR(out[1], TFPI_INT32, 2, (int64_t[]){ROWS, K}, want_indices);
    }
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- SpaceToBatchND, BatchToSpaceND ----------------------------------------- */

static void add_block_op(gb_graph *g, const char *op, const char *name, const char *input, int m,
                         const int32_t *block, const int32_t *edges)
{
    char block_name[64], edges_name[64];
    snprintf(block_name, sizeof block_name, "%s_block", name);
    snprintf(edges_name, sizeof edges_name, "%s_edges", name);
    gb_const(g, block_name, TFPI_INT32, (int64_t[]){m}, 1, block);
    gb_const(g, edges_name, TFPI_INT32, (int64_t[]){m, 2}, 2, edges);
    gb_node(g, op, name, input, block_name, edges_name, NULL);
}

static void test_space_to_batch(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){1, 2, 3, 2}, 4);
    add_block_op(g, "SpaceToBatchND", "padded", "x", 2, (int32_t[]){2, 2}, (int32_t[]){1, 1, 0, 1});
    add_block_op(g, "BatchToSpaceND", "back", "padded", 2, (int32_t[]){2, 2}, (int32_t[]){1, 1, 0, 1});
    add_block_op(g, "SpaceToBatchND", "uneven", "x", 2, (int32_t[]){2, 2}, (int32_t[]){0, 0, 0, 0});
    float square[16], v[12];
    for (int i = 0; i < 16; i++)
        square[i] = (float)i;
    for (int i = 0; i < 12; i++)
        v[i] = (float)i;
    gb_const(g, "square", TFPI_FLOAT, (int64_t[]){1, 4, 4, 1}, 4, square);
    add_block_op(g, "SpaceToBatchND", "blocks", "square", 2, (int32_t[]){2, 2}, (int32_t[]){0, 0, 0, 0});
    int32_t seq[30];
    for (int i = 0; i < 30; i++)
        seq[i] = i;
    gb_const(g, "seq", TFPI_INT32, (int64_t[]){2, 5, 3}, 3, seq);
    add_block_op(g, "SpaceToBatchND", "one_dim", "seq", 1, (int32_t[]){2}, (int32_t[]){1, 0});
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){1, 2, 3, 2}, 4, v);
    /* s2b(arange(16).reshape(1, 4, 4, 1), [2, 2], no padding): TF's documented example */
    CHECK_TENSOR(op_eval(g, NULL, "blocks"), TFPI_FLOAT, 4, (int64_t[]){4, 2, 2, 1},
                 (float[]){0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15});
    /* s2b(arange(12).reshape(1, 2, 3, 2), [2, 2], [[1, 1], [0, 1]]) */
    CHECK_TENSOR(op_eval(g, x, "padded"), TFPI_FLOAT, 4, (int64_t[]){4, 2, 2, 2},
                 (float[]){0, 0, 0, 0, 6, 7, 10, 11, 0, 0, 0, 0, 8, 9, 0, 0,
                           0, 1, 4, 5, 0, 0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0});
    CHECK_TENSOR(op_eval(g, x, "back"), TFPI_FLOAT, 4, (int64_t[]){1, 2, 3, 2}, v);
    /* s2b(arange(30).reshape(2, 5, 3), [2], [[1, 0]]) */
    CHECK_TENSOR(op_eval(g, NULL, "one_dim"), TFPI_INT32, 3, (int64_t[]){4, 3, 3},
                 (int32_t[]){0, 0, 0, 3, 4, 5, 9, 10, 11, 0, 0, 0, 18, 19, 20, 24, 25, 26,
                             0, 1, 2, 6, 7, 8, 12, 13, 14, 15, 16, 17, 21, 22, 23, 27, 28, 29});
    CHECK_FAILS(g, x, "uneven", "uneven", "not a multiple of block_shape[1]");
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_batch_to_space_crops(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){4, 2, 3, 1}, 4);
    add_block_op(g, "BatchToSpaceND", "cropped", "x", 2, (int32_t[]){2, 2}, (int32_t[]){0, 1, 1, 0});
    add_block_op(g, "BatchToSpaceND", "bad_batch", "x", 2, (int32_t[]){3, 1}, (int32_t[]){0, 0, 0, 0});
    add_block_op(g, "BatchToSpaceND", "bad_crop", "x", 2, (int32_t[]){2, 2}, (int32_t[]){3, 2, 0, 0});
    float v[24];
    for (int i = 0; i < 24; i++)
        v[i] = (float)i;
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){4, 2, 3, 1}, 4, v);
    /* b2s(arange(24).reshape(4, 2, 3, 1), [2, 2], [[0, 1], [1, 0]]) */
    CHECK_TENSOR(op_eval(g, x, "cropped"), TFPI_FLOAT, 4, (int64_t[]){1, 3, 5, 1},
                 (float[]){6, 1, 7, 2, 8, 18, 13, 19, 14, 20, 9, 4, 10, 5, 11});
    CHECK_FAILS(g, x, "bad_batch", "bad_batch", "batch 4 is not a multiple of the block size 3");
    CHECK_FAILS(g, x, "bad_crop", "bad_crop", "crops of spatial dim 1 exceed");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- ResizeBilinear, ResizeNearestNeighbor ----------------------------------- */

/* image[0][y][x][c], 3 x 4 x 2, holds ((y*8 + x*2 + c) * 37 % 17) / 4. */
static const float resize_input[24] = {0,    0.75f, 1.5f, 2.25f, 3,    3.75f, 0.25f, 1,
                                       1.75f, 2.5f, 3.25f, 4,    0.5f, 1.25f, 2,     2.75f,
                                       3.5f, 0,     0.75f, 1.5f, 2.25f, 3,   3.75f, 0.25f};

typedef struct resize_case {
    const char *op;
    bool align_corners, half_pixel_centers;
    int32_t out_h, out_w;
    float want[30];
} resize_case;

/* TF's formulas in float64 (see the file comment): source = dst * in/out
 * (legacy), dst * (in-1)/(out-1) (align_corners) or (dst + 0.5) * in/out -
 * 0.5 (half_pixel_centers); nearest takes floor, roundf, or floor of
 * (dst + 0.5) * in/out. */
static const resize_case resize_cases[] = {
    {"ResizeBilinear", false, false, 5, 3,
     {0, 0.75f, 2, 2.75f, 1.166667f, 1.916667f, 1.05f, 1.8f, 2.2f, 2.95f, 1.366667f, 2.116667f, 2.1f, 2,
      2.116667f, 2.866667f, 1.85f, 2.033333f, 3.15f, 0.5f, 1.466667f, 2.216667f, 2.9f, 1.383333f, 3.5f, 0,
      1.25f, 2, 3.25f, 1.166667f}},
    {"ResizeBilinear", false, false, 2, 7,
     {0, 0.75f, 0.8571429f, 1.607143f, 1.714286f, 2.464286f, 2.571429f, 3.321429f, 2.214286f, 2.964286f,
      0.6428571f, 1.392857f, 0.25f, 1, 2.625f, 1.25f, 2.267857f, 2.107143f, 1.910714f, 2.660714f, 1.553571f,
      2.303571f, 1.803571f, 1.946429f, 2.660714f, 1.589286f, 2.875f, 1.5f}},
    {"ResizeBilinear", true, false, 5, 3,
     {0, 0.75f, 2.25f, 3, 0.25f, 1, 0.875f, 1.625f, 2.0625f, 2.8125f, 1.125f, 1.875f, 1.75f, 2.5f, 1.875f,
      2.625f, 2, 2.75f, 2.625f, 1.25f, 1.6875f, 2.4375f, 2.875f, 1.5f, 3.5f, 0, 1.5f, 2.25f, 3.75f, 0.25f}},
    {"ResizeBilinear", true, false, 2, 7,
     {0, 0.75f, 0.75f, 1.5f, 1.5f, 2.25f, 2.25f, 3, 3, 3.75f, 1.625f, 2.375f, 0.25f, 1, 3.5f, 0, 2.125f,
      0.75f, 0.75f, 1.5f, 1.5f, 2.25f, 2.25f, 3, 3, 1.625f, 3.75f, 0.25f}},
    {"ResizeBilinear", false, true, 5, 3,
     {0.25f, 1, 2.25f, 3, 0.7083333f, 1.458333f, 0.95f, 1.7f, 2.1f, 2.85f, 1.125f, 1.875f, 2, 2.75f,
      1.875f, 2.625f, 1.75f, 2.5f, 2.625f, 1.25f, 1.65f, 2.4f, 2.8f, 1.425f, 3.041667f, 0.25f, 1.5f, 2.25f,
      3.5f, 0.7083333f}},
    {"ResizeBilinear", false, true, 2, 7,
     {0.4375f, 1.1875f, 0.9732143f, 1.723214f, 1.830357f, 2.580357f, 2.15625f, 2.90625f, 2.254464f, 3.004464f,
      1.290179f, 2.040179f, 0.6875f, 1.4375f, 3.0625f, 0.625f, 2.459821f, 1.160714f, 1.495536f, 2.017857f,
      1.59375f, 2.34375f, 1.919643f, 2.441964f, 2.776786f, 1.477679f, 3.3125f, 0.875f}},
    {"ResizeNearestNeighbor", false, false, 5, 3,
     {0, 0.75f, 1.5f, 2.25f, 3, 3.75f, 0, 0.75f, 1.5f, 2.25f, 3, 3.75f, 1.75f, 2.5f, 3.25f, 4, 0.5f, 1.25f,
      1.75f, 2.5f, 3.25f, 4, 0.5f, 1.25f, 3.5f, 0, 0.75f, 1.5f, 2.25f, 3}},
    {"ResizeNearestNeighbor", true, false, 5, 3,
     {0, 0.75f, 3, 3.75f, 0.25f, 1, 1.75f, 2.5f, 0.5f, 1.25f, 2, 2.75f, 1.75f, 2.5f, 0.5f, 1.25f, 2, 2.75f,
      3.5f, 0, 2.25f, 3, 3.75f, 0.25f, 3.5f, 0, 2.25f, 3, 3.75f, 0.25f}},
    {"ResizeNearestNeighbor", false, true, 5, 3,
     {0, 0.75f, 3, 3.75f, 0.25f, 1, 0, 0.75f, 3, 3.75f, 0.25f, 1, 1.75f, 2.5f, 0.5f, 1.25f, 2, 2.75f, 3.5f, 0,
      2.25f, 3, 3.75f, 0.25f, 3.5f, 0, 2.25f, 3, 3.75f, 0.25f}},
};

static gb_graph *resize_graph(const char *op, tfpi_dtype dtype, int32_t out_h, int32_t out_w,
                              bool align_corners, bool half_pixel_centers)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", dtype, (int64_t[]){1, 3, 4, 2}, 4);
    gb_const(g, "size", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){out_h, out_w});
    Tfpi__NodeDef *n = gb_node(g, op, "resized", "x", "size", NULL);
    gd_attr_set_bool(n, "align_corners", align_corners);
    gd_attr_set_bool(n, "half_pixel_centers", half_pixel_centers);
    return g;
}

static void test_resize_modes(void)
{
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){1, 3, 4, 2}, 4, resize_input);
    for (size_t i = 0; i < sizeof resize_cases / sizeof resize_cases[0]; i++) {
        const resize_case *c = &resize_cases[i];
        gb_graph *g =
            resize_graph(c->op, TFPI_FLOAT, c->out_h, c->out_w, c->align_corners, c->half_pixel_centers);
        int before = check_failures_in_test;
        CHECK_TENSOR_NEAR(op_eval(g, x, "resized"), 4, (int64_t[]){1, c->out_h, c->out_w, 2}, c->want, 2e-6);
        if (check_failures_in_test != before)
            fprintf(stderr, "    in %s %dx%d align_corners=%d half_pixel_centers=%d\n", c->op, c->out_h,
                    c->out_w, c->align_corners, c->half_pixel_centers);
        gb_free(g);
    }
    tfpi_tensor_free(x);
}

static void test_resize_uint8_and_errors(void)
{
    uint8_t pixels[24];
    for (int i = 0; i < 24; i++)
        pixels[i] = (uint8_t)(10 * i);
    tfpi_tensor *x = op_tensor(TFPI_UINT8, (int64_t[]){1, 3, 4, 2}, 4, pixels);
    gb_graph *g = resize_graph("ResizeBilinear", TFPI_UINT8, 5, 3, false, true);
    /* the half-pixel formula on arange(24).reshape(1, 3, 4, 2) * 10 */
    CHECK_TENSOR_NEAR(op_eval(g, x, "resized"), 4, (int64_t[]){1, 5, 3, 2},
                      (float[]){3.333333f, 13.33333f, 30,  40,  56.66667f, 66.66667f,
                                35.33333f, 45.33333f, 62,  72,  88.66667f, 98.66667f,
                                83.33333f, 93.33333f, 110, 120, 136.6667f, 146.6667f,
                                131.3333f, 141.3333f, 158, 168, 184.6667f, 194.6667f,
                                163.3333f, 173.3333f, 190, 200, 216.6667f, 226.6667f},
                      2e-4);
    gb_free(g);
    g = resize_graph("ResizeNearestNeighbor", TFPI_UINT8, 5, 3, false, false);
    CHECK_FAILS(g, x, "resized", "resized", "handles float images, not uint8");
    gb_free(g);
    tfpi_tensor_free(x);
    x = op_tensor(TFPI_FLOAT, (int64_t[]){1, 3, 4, 2}, 4, resize_input);
    g = resize_graph("ResizeBilinear", TFPI_FLOAT, 5, 3, true, true);
    CHECK_FAILS(g, x, "resized", "resized", "cannot both be true");
    gb_free(g);
    g = resize_graph("ResizeBilinear", TFPI_FLOAT, 0, 3, false, false);
    CHECK_FAILS(g, x, "resized", "resized", "size must be two positive values");
    gb_free(g);
    tfpi_tensor_free(x);
}

/* ---- RandomUniform ----------------------------------------------------------- */

static gb_graph *random_graph(int64_t seed, int64_t seed2)
{
    gb_graph *g = gb_new();
    gb_const(g, "shape", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){40, 50});
    Tfpi__NodeDef *n = gb_node(g, "RandomUniform", "random", "shape", NULL);
    gd_attr_set_type(n, "dtype", TFPI_FLOAT);
    gd_attr_set_int(n, "seed", seed);
    gd_attr_set_int(n, "seed2", seed2);
    n = gb_node(g, "RandomUniform", "unseeded", "shape", NULL);
    gd_attr_set_type(n, "dtype", TFPI_DOUBLE);
    gb_node(g, "RandomUniform", "unseeded_too", "shape", NULL);
    return g;
}

static bool same_data(const tfpi_tensor *a, const tfpi_tensor *b)
{
    return a && b && tfpi_tensor_byte_size(a) == tfpi_tensor_byte_size(b) &&
           memcmp(tfpi_tensor_const_data(a), tfpi_tensor_const_data(b), tfpi_tensor_byte_size(a)) == 0;
}

static void test_random_uniform(void)
{
    gb_graph *g = random_graph(7, 3);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *first = tfpi_session_new(graph, NULL, &status);
    tfpi_session *second = tfpi_session_new(graph, NULL, &status);
    const char *fetches[3] = {"random", "unseeded", "unseeded_too"};
    tfpi_tensor *a[3] = {NULL}, *b[3] = {NULL}, *again[3] = {NULL};
    CHECK(tfpi_session_run(first, NULL, NULL, 0, fetches, a, 3, &status) == TFPI_OK);
    CHECK(tfpi_session_run(second, NULL, NULL, 0, fetches, b, 3, &status) == TFPI_OK);
    CHECK(tfpi_session_run(first, NULL, NULL, 0, fetches, again, 3, &status) == TFPI_OK);
    CHECK(a[0] && tfpi_tensor_dtype(a[0]) == TFPI_FLOAT && tfpi_tensor_num_elements(a[0]) == 2000);
    CHECK(a[1] && tfpi_tensor_dtype(a[1]) == TFPI_DOUBLE);
    CHECK(same_data(a[0], b[0]) && same_data(a[1], b[1])); /* fresh sessions repeat */
    CHECK(!same_data(a[0], again[0]));                     /* later runs draw anew */
    double sum = 0, lowest = 1, highest = 0;
    for (int i = 0; a[0] && i < 2000; i++) {
        double v = ((const float *)tfpi_tensor_const_data(a[0]))[i];
        sum += v;
        lowest = v < lowest ? v : lowest;
        highest = v > highest ? v : highest;
    }
    CHECK(lowest >= 0 && lowest < 0.01 && highest < 1 && highest > 0.99);
    CHECK_NEAR(sum / 2000, 0.5, 0.03);
    CHECK(a[2] && b[2] && !same_data(a[0], a[2])); /* unseeded ops differ from each other */
    for (int i = 0; i < 3; i++) {
        tfpi_tensor_free(a[i]);
        tfpi_tensor_free(b[i]);
        tfpi_tensor_free(again[i]);
    }
    tfpi_session_free(first);
    tfpi_session_free(second);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* ---- IdentityN --------------------------------------------------------------- */

static void test_identity_n(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    scalar_i32(g, "seven", 7);
    gb_const(g, "pair", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){3, 4});
    gb_node(g, "IdentityN", "ids", "x", "seven", "pair", NULL);
    gb_node(g, "Identity", "third", "ids:2", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){1.5f, -2});
    tfpi_tensor *out[2] = {NULL, NULL};
    const char *feed = "x", *fetches[2] = {"ids", "ids:1"};
    tfpi_status status;
    CHECK_MSG(op_run_graph(g, 1, &feed, &x, 2, fetches, out, 1, &status) == TFPI_OK, "%s", status.message);
    CHECK_TENSOR(out[0], TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){1.5f, -2});
    CHECK_TENSOR(out[1], TFPI_INT32, 0, NULL, (int32_t[]){7});
    CHECK_TENSOR(op_eval(g, x, "third"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){3, 4});
    gb_node(g, "Identity", "beyond", "ids:3", NULL); /* a graph reading an output ids lacks */
    CHECK_FAILS(g, x, "beyond", "ids", "reads output 3 of node 'ids' (IdentityN), which has 3");
    tfpi_tensor_free(x);
    gb_free(g);
}

int main(void)
{
    RUN(test_gather);
    RUN(test_one_hot);
    RUN(test_top_k_ties);
    RUN(test_top_k_large);
    RUN(test_space_to_batch);
    RUN(test_batch_to_space_crops);
    RUN(test_resize_modes);
    RUN(test_resize_uint8_and_errors);
    RUN(test_random_uniform);
    RUN(test_identity_n);
    return check_summary();
}
