/* test_array_ops.c - joining, cutting and making tensors: ConcatV2, Concat
 * (legacy, axis first), Pack, Split, SplitV, Unpack (multi-output nodes
 * with several consumers), Fill, Range, ZerosLike, OnesLike, Size, Rank,
 * IdentityN; run through small graphs, both on fed inputs (kernels run at
 * run time) and on constants (folded while planning). Expected values come
 * from numpy (np.concatenate / np.stack / np.split / np.arange on the same
 * inputs), as noted at each case; errors must name the node. */
#include <string.h>

#include "check.h"
#include "op_test.h"

static const int64_t shape_2x3[2] = {2, 3};

static void const_i32(gb_graph *g, const char *name, int ndims, const int64_t *dims, const int32_t *v)
{
    gb_const(g, name, TFPI_INT32, dims, ndims, v);
}

static void scalar_i32(gb_graph *g, const char *name, int32_t v)
{
    gb_const(g, name, TFPI_INT32, NULL, 0, &v);
}

/* x = [[0,1,2],[3,4,5]] as float, fed as "x". */
static tfpi_tensor *x_2x3(void)
{
    const float v[6] = {0, 1, 2, 3, 4, 5};
    return op_tensor(TFPI_FLOAT, shape_2x3, 2, v);
}

static void test_concat_v2(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_const(g, "c", TFPI_FLOAT, (int64_t[]){2, 2}, 2, (float[]){10, 11, 12, 13});
    scalar_i32(g, "one", 1);
    int64_t minus_one = -1;
    gb_const(g, "minus_one", TFPI_INT64, NULL, 0, &minus_one);
    gb_node(g, "ConcatV2", "cat", "x", "c", "one", NULL);
    gb_node(g, "ConcatV2", "cat_neg", "x", "c", "minus_one", NULL);
    tfpi_tensor *x = x_2x3();
    /* np.concatenate([x, c], 1) */
    const float want[10] = {0, 1, 2, 10, 11, 3, 4, 5, 12, 13};
    CHECK_TENSOR(op_eval(g, x, "cat"), TFPI_FLOAT, 2, (int64_t[]){2, 5}, want);
    CHECK_TENSOR(op_eval(g, x, "cat_neg"), TFPI_FLOAT, 2, (int64_t[]){2, 5}, want);
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_concat_three_inputs_one_empty(void)
{
    gb_graph *g = gb_new();
    int32_t x[24], y[6];
    for (int i = 0; i < 24; i++)
        x[i] = i;
    for (int i = 0; i < 6; i++)
        y[i] = 40 * i; /* x[:, :, :1] * 10 */
    const_i32(g, "x", 3, (int64_t[]){2, 3, 4}, x);
    const_i32(g, "y", 3, (int64_t[]){2, 3, 1}, y);
    const_i32(g, "empty", 3, (int64_t[]){2, 3, 0}, y); /* no elements: y is not read */
    scalar_i32(g, "axis", 2);
    gb_node(g, "ConcatV2", "cat", "x", "y", "empty", "axis", NULL);
    /* np.concatenate([x, x[:,:,:1]*10, x[:,:,:0]], 2) with x = arange(24).reshape(2,3,4) */
    const int32_t want[30] = {0,  1,  2,  3,  0,   4,  5,  6,  7,  40,  8,  9,  10, 11, 80,
                              12, 13, 14, 15, 120, 16, 17, 18, 19, 160, 20, 21, 22, 23, 200};
    CHECK_TENSOR(op_eval(g, NULL, "cat"), TFPI_INT32, 3, (int64_t[]){2, 3, 5}, want);
    gb_free(g);
}

static void test_concat_legacy_axis_first(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_const(g, "row", TFPI_FLOAT, (int64_t[]){1, 3}, 2, (float[]){20, 21, 22});
    scalar_i32(g, "zero", 0);
    gb_node(g, "Concat", "cat", "zero", "x", "row", NULL);
    tfpi_tensor *x = x_2x3();
    /* np.concatenate([x, row], 0) */
    CHECK_TENSOR(op_eval(g, x, "cat"), TFPI_FLOAT, 2, (int64_t[]){3, 3},
                 (float[]){0, 1, 2, 3, 4, 5, 20, 21, 22});
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_pack(void)
{
    gb_graph *g = gb_new();
    const int64_t two = 2;
    const_i32(g, "a", 1, &two, (int32_t[]){1, 2});
    const_i32(g, "b", 1, &two, (int32_t[]){3, 4});
    const_i32(g, "c", 1, &two, (int32_t[]){5, 6});
    gd_attr_set_int(gb_node(g, "Pack", "axis0", "a", "b", "c", NULL), "axis", 0);
    gd_attr_set_int(gb_node(g, "Pack", "axis1", "a", "b", "c", NULL), "axis", 1);
    gd_attr_set_int(gb_node(g, "Pack", "axis_neg", "a", "b", "c", NULL), "axis", -1);
    scalar_i32(g, "s7", 7);
    scalar_i32(g, "s8", 8);
    gb_node(g, "Pack", "scalars", "s7", "s8", NULL);
    /* np.stack([a, b, c], 0) and np.stack([a, b, c], 1) */
    CHECK_TENSOR(op_eval(g, NULL, "axis0"), TFPI_INT32, 2, (int64_t[]){3, 2}, (int32_t[]){1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(op_eval(g, NULL, "axis1"), TFPI_INT32, 2, (int64_t[]){2, 3}, (int32_t[]){1, 3, 5, 2, 4, 6});
    CHECK_TENSOR(op_eval(g, NULL, "axis_neg"), TFPI_INT32, 2, (int64_t[]){2, 3},
                 (int32_t[]){1, 3, 5, 2, 4, 6});
    CHECK_TENSOR(op_eval(g, NULL, "scalars"), TFPI_INT32, 1, &two, (int32_t[]){7, 8});
    gb_free(g);
}

/* x = arange(12).reshape(2, 6), fed as int32 "x", cut into 3 along dim 1. */
static gb_graph *split_graph(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, (int64_t[]){2, 6}, 2);
    scalar_i32(g, "one", 1);
    gd_attr_set_int(gb_node(g, "Split", "split", "one", "x", NULL), "num_split", 3);
    return g;
}

static tfpi_tensor *x_2x6(void)
{
    int32_t v[12];
    for (int i = 0; i < 12; i++)
        v[i] = i;
    return op_tensor(TFPI_INT32, (int64_t[]){2, 6}, 2, v);
}

static void test_split_with_consumers(void)
{
    gb_graph *g = split_graph();
    scalar_i32(g, "axis", 1);
    gb_node(g, "ConcatV2", "swapped", "split:2", "split:0", "axis", NULL);
    tfpi_tensor *x = x_2x6(), *out[2] = {NULL, NULL};
    const char *feed = "x", *fetches[2] = {"swapped", "split:1"};
    tfpi_status status;
    CHECK_MSG(op_run_graph(g, 1, &feed, &x, 2, fetches, out, 1, &status) == TFPI_OK, "%s", status.message);
    /* np.split(x, 3, 1) = [[0,1],[6,7]], [[2,3],[8,9]], [[4,5],[10,11]] */
    CHECK_TENSOR(out[0], TFPI_INT32, 2, (int64_t[]){2, 4}, (int32_t[]){4, 5, 0, 1, 10, 11, 6, 7});
    CHECK_TENSOR(out[1], TFPI_INT32, 2, (int64_t[]){2, 2}, (int32_t[]){2, 3, 8, 9});
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_split_first_output_only(void)
{
    gb_graph *g = split_graph();
    tfpi_tensor *x = x_2x6();
    CHECK_TENSOR(op_eval(g, x, "split"), TFPI_INT32, 2, (int64_t[]){2, 2}, (int32_t[]){0, 1, 6, 7});
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_split_v_infers_minus_one(void)
{
    gb_graph *g = gb_new();
    int32_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = i;
    const_i32(g, "x", 2, (int64_t[]){4, 2}, x);
    const_i32(g, "sizes", 1, (int64_t[]){3}, (int32_t[]){1, -1, 2});
    scalar_i32(g, "zero", 0);
    gd_attr_set_int(gb_node(g, "SplitV", "split", "x", "sizes", "zero", NULL), "num_split", 3);
    gb_node(g, "Identity", "middle", "split:1", NULL);
    /* np.split(arange(8).reshape(4, 2), [1, 2], 0) */
    CHECK_TENSOR(op_eval(g, NULL, "split"), TFPI_INT32, 2, (int64_t[]){1, 2}, (int32_t[]){0, 1});
    CHECK_TENSOR(op_eval(g, NULL, "middle"), TFPI_INT32, 2, (int64_t[]){1, 2}, (int32_t[]){2, 3});
    CHECK_TENSOR(op_eval(g, NULL, "split:2"), TFPI_INT32, 2, (int64_t[]){2, 2}, (int32_t[]){4, 5, 6, 7});
    gb_free(g);
}

static void test_unpack(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){3, 2}, 2);
    Tfpi__NodeDef *n = gb_node(g, "Unpack", "columns", "x", NULL);
    gd_attr_set_int(n, "num", 2);
    gd_attr_set_int(n, "axis", -1);
    gd_attr_set_int(gb_node(g, "Unpack", "rows", "x", NULL), "num", 3);
    gb_node(g, "Identity", "last_row", "rows:2", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){3, 2}, 2, (float[]){0, 1, 2, 3, 4, 5});
    /* x[:, 0], x[:, 1] and x[2] of x = arange(6).reshape(3, 2) */
    CHECK_TENSOR(op_eval(g, x, "columns"), TFPI_FLOAT, 1, (int64_t[]){3}, (float[]){0, 2, 4});
    CHECK_TENSOR(op_eval(g, x, "columns:1"), TFPI_FLOAT, 1, (int64_t[]){3}, (float[]){1, 3, 5});
    CHECK_TENSOR(op_eval(g, x, "last_row"), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){4, 5});
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_join_and_split_errors(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_const(g, "c", TFPI_FLOAT, (int64_t[]){3, 2}, 2, (float[]){0, 0, 0, 0, 0, 0});
    scalar_i32(g, "one", 1);
    scalar_i32(g, "two", 2);
    gb_node(g, "ConcatV2", "bad_shapes", "x", "c", "one", NULL);
    gb_node(g, "ConcatV2", "bad_axis", "x", "x", "two", NULL);
    gb_node(g, "Pack", "bad_pack", "x", "c", NULL);
    gd_attr_set_int(gb_node(g, "Split", "split4", "one", "x", NULL), "num_split", 4);
    gd_attr_set_int(gb_node(g, "Split", "split3", "one", "x", NULL), "num_split", 3);
    gb_node(g, "Identity", "beyond", "split3:3", NULL);
    const_i32(g, "two_unknown", 1, (int64_t[]){2}, (int32_t[]){-1, -1});
    gd_attr_set_int(gb_node(g, "SplitV", "split_v", "x", "two_unknown", "one", NULL), "num_split", 2);
    gd_attr_set_int(gb_node(g, "Unpack", "unpack", "x", NULL), "num", 3);
    tfpi_tensor *x = x_2x3();
    CHECK_FAILS(g, x, "bad_shapes", "bad_shapes", "does not match input 0");
    CHECK_FAILS(g, x, "bad_axis", "bad_axis", "axis 2 is out of range");
    CHECK_FAILS(g, x, "bad_pack", "bad_pack", "does not match");
    CHECK_FAILS(g, x, "split4", "split4", "does not split into 4 pieces");
    CHECK_FAILS(g, x, "beyond", "split3", "reads output 3 of node 'split3' (Split), which has 3");
    CHECK_FAILS(g, x, "split_v", "split_v", "size_splits[1] = -1");
    CHECK_FAILS(g, x, "unpack", "unpack", "num is 3");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- made from values ----------------------------------------------------- */

static void test_fill(void)
{
    gb_graph *g = gb_new();
    const_i32(g, "dims", 1, (int64_t[]){2}, (int32_t[]){2, 3});
    float value = 1.5f;
    gb_const(g, "value", TFPI_FLOAT, NULL, 0, &value);
    gb_node(g, "Fill", "fill", "dims", "value", NULL);
    /* dims from the shape of a fed tensor: folded while planning */
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_node(g, "Shape", "shape", "x", NULL);
    scalar_i32(g, "seven", 7);
    gb_node(g, "Fill", "sevens", "shape", "seven", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "fill"), TFPI_FLOAT, 2, shape_2x3, (float[]){1.5, 1.5, 1.5, 1.5, 1.5, 1.5});
    tfpi_tensor *x = x_2x3();
    CHECK_TENSOR(op_eval(g, x, "sevens"), TFPI_INT32, 2, shape_2x3, (int32_t[]){7, 7, 7, 7, 7, 7});
    tfpi_tensor_free(x);
    gb_free(g);
}

static void add_range(gb_graph *g, const char *name, tfpi_dtype dtype, const void *start, const void *limit,
                      const void *delta)
{
    char s[64], l[64], d[64];
    snprintf(s, sizeof s, "%s_start", name);
    snprintf(l, sizeof l, "%s_limit", name);
    snprintf(d, sizeof d, "%s_delta", name);
    gb_const(g, s, dtype, NULL, 0, start);
    gb_const(g, l, dtype, NULL, 0, limit);
    gb_const(g, d, dtype, NULL, 0, delta);
    gb_node(g, "Range", name, s, l, d, NULL);
}

static void test_range(void)
{
    gb_graph *g = gb_new();
    add_range(g, "up", TFPI_INT32, (int32_t[]){3}, (int32_t[]){18}, (int32_t[]){4});
    add_range(g, "down", TFPI_INT64, (int64_t[]){10}, (int64_t[]){1}, (int64_t[]){-3});
    add_range(g, "empty", TFPI_INT32, (int32_t[]){5}, (int32_t[]){5}, (int32_t[]){1});
    add_range(g, "floats", TFPI_FLOAT, (float[]){0.5f}, (float[]){2.0f}, (float[]){0.25f});
    add_range(g, "doubles", TFPI_DOUBLE, (double[]){1}, (double[]){0}, (double[]){-0.5});
    add_range(g, "zero_delta", TFPI_INT32, (int32_t[]){0}, (int32_t[]){5}, (int32_t[]){0});
    add_range(g, "wrong_way", TFPI_INT32, (int32_t[]){5}, (int32_t[]){0}, (int32_t[]){1});
    /* np.arange(3, 18, 4), np.arange(10, 1, -3), np.arange(0.5, 2.0, 0.25), np.arange(1, 0, -0.5) */
    CHECK_TENSOR(op_eval(g, NULL, "up"), TFPI_INT32, 1, (int64_t[]){4}, (int32_t[]){3, 7, 11, 15});
    CHECK_TENSOR(op_eval(g, NULL, "down"), TFPI_INT64, 1, (int64_t[]){3}, (int64_t[]){10, 7, 4});
    CHECK_TENSOR(op_eval(g, NULL, "empty"), TFPI_INT32, 1, (int64_t[]){0}, NULL);
    CHECK_TENSOR(op_eval(g, NULL, "floats"), TFPI_FLOAT, 1, (int64_t[]){6},
                 (float[]){0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f});
    CHECK_TENSOR(op_eval(g, NULL, "doubles"), TFPI_DOUBLE, 1, (int64_t[]){2}, (double[]){1, 0.5});
    CHECK_FAILS(g, NULL, "zero_delta", "zero_delta", "delta must not be 0");
    CHECK_FAILS(g, NULL, "wrong_way", "wrong_way", "cannot reach limit");
    gb_free(g);
}

static void test_zeros_and_ones_like(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_node(g, "ZerosLike", "zeros", "x", NULL);
    gb_node(g, "OnesLike", "ones", "x", NULL);
    const_i32(g, "ints", 1, (int64_t[]){2}, (int32_t[]){5, 6});
    gb_node(g, "OnesLike", "int_ones", "ints", NULL);
    int64_t longs[2] = {5, 6};
    gb_const(g, "longs", TFPI_INT64, (int64_t[]){2}, 1, longs);
    gb_node(g, "OnesLike", "long_ones", "longs", NULL);
    gb_node(g, "ZerosLike", "long_zeros", "longs", NULL);
    tfpi_tensor *x = x_2x3();
    CHECK_TENSOR(op_eval(g, x, "zeros"), TFPI_FLOAT, 2, shape_2x3, (float[]){0, 0, 0, 0, 0, 0});
    CHECK_TENSOR(op_eval(g, x, "ones"), TFPI_FLOAT, 2, shape_2x3, (float[]){1, 1, 1, 1, 1, 1});
    CHECK_TENSOR(op_eval(g, NULL, "int_ones"), TFPI_INT32, 1, (int64_t[]){2}, (int32_t[]){1, 1});
    CHECK_TENSOR(op_eval(g, NULL, "long_ones"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){1, 1});
    CHECK_TENSOR(op_eval(g, NULL, "long_zeros"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 0});
    tfpi_tensor_free(x);
    gb_free(g);
}

/* Size and Rank are known while planning (Pack reads them then, and folds)
 * and are right when fetched themselves. */
static void test_size_and_rank(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, shape_2x3, 2);
    gb_node(g, "Size", "size", "x", NULL);
    gd_attr_set_type(gb_node(g, "Size", "size64", "x", NULL), "out_type", TFPI_INT64);
    gb_node(g, "Rank", "rank", "x", NULL);
    gb_node(g, "Pack", "size_rank", "size", "rank", NULL);
    gb_node(g, "Pack", "size64_vector", "size64", NULL);
    tfpi_tensor *x = x_2x3();
    CHECK_TENSOR(op_eval(g, x, "size_rank"), TFPI_INT32, 1, (int64_t[]){2}, (int32_t[]){6, 2});
    CHECK_TENSOR(op_eval(g, x, "size64_vector"), TFPI_INT64, 1, (int64_t[]){1}, (int64_t[]){6});
    CHECK_TENSOR(op_eval(g, x, "size"), TFPI_INT32, 0, NULL, (int32_t[]){6});
    CHECK_TENSOR(op_eval(g, x, "size64"), TFPI_INT64, 0, NULL, (int64_t[]){6});
    CHECK_TENSOR(op_eval(g, x, "rank"), TFPI_INT32, 0, NULL, (int32_t[]){2});
    tfpi_tensor_free(x);
    gb_free(g);
}

int main(void)
{
    RUN(test_concat_v2);
    RUN(test_concat_three_inputs_one_empty);
    RUN(test_concat_legacy_axis_first);
    RUN(test_pack);
    RUN(test_split_with_consumers);
    RUN(test_split_first_output_only);
    RUN(test_split_v_infers_minus_one);
    RUN(test_unpack);
    RUN(test_join_and_split_errors);
    RUN(test_fill);
    RUN(test_range);
    RUN(test_zeros_and_ones_like);
    RUN(test_size_and_rank);
    return check_summary();
}
