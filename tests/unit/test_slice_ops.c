/* test_slice_ops.c - Slice, StridedSlice, Transpose, Tile, Pad, PadV2 and
 * MirrorPad through small graphs, on fed inputs (kernels run at run time)
 * and constants (folded while planning). StridedSlice cases are numpy
 * indexing expressions on x = np.arange(24).reshape(2, 3, 4): each row
 * gives the expression, the begin/end/strides and masks TF's Python
 * front end makes of it, and numpy's result for it. Transpose, Tile and
 * Pad expectations come from np.transpose, np.tile and np.pad (modes
 * constant, reflect, symmetric); big transposes are checked against a
 * naive index formula with 1 and 3 threads. Errors must name the node. */
#include <string.h>

#include "check.h"
#include "op_test.h"

static const int64_t shape_2x3x4[3] = {2, 3, 4};

static void const_i32(gb_graph *g, const char *name, int ndims, const int64_t *dims, const int32_t *v)
{
    gb_const(g, name, TFPI_INT32, dims, ndims, v);
}

/* x = arange(24).reshape(2, 3, 4) as int32, fed as "x". */
static tfpi_tensor *x_2x3x4(void)
{
    int32_t v[24];
    for (int i = 0; i < 24; i++)
        v[i] = i;
    return op_tensor(TFPI_INT32, shape_2x3x4, 3, v);
}

/* The same values as a Const called "xc". */
static void add_const_x(gb_graph *g)
{
    int32_t v[24];
    for (int i = 0; i < 24; i++)
        v[i] = i;
    const_i32(g, "xc", 3, shape_2x3x4, v);
}

/* ---- StridedSlice --------------------------------------------------------- */

/* The spec (n entries of begin, end, strides and the five masks) and
 * numpy's result (rank, dims, values). */
typedef struct slice_case {
    const char *numpy;
    int n;
    int32_t begin[4], end[4], strides[4];
    int begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
    int ndims;
    int64_t dims[5];
    int32_t values[24];
} slice_case;

static const slice_case slice_cases[] = {
    {"x[0:2, 1:3, ::2]", 3, {0, 1, 0}, {2, 3, 0}, {1, 1, 2}, 4, 4, 0, 0, 0,
     3, {2, 2, 2}, {4, 6, 8, 10, 16, 18, 20, 22}},
    {"x[-1:, -3:-1, 1:-1]", 3, {-1, -3, 1}, {0, -1, -1}, {1, 1, 1}, 0, 1, 0, 0, 0,
     3, {1, 2, 2}, {13, 14, 17, 18}},
    {"x[::-1, 2:0:-1, ::-2]", 3, {0, 2, 0}, {0, 0, 0}, {-1, -1, -2}, 5, 5, 0, 0, 0,
     3, {2, 2, 2}, {23, 21, 19, 17, 11, 9, 7, 5}},
    {"x[:, -1:-100:-1, 3:-100:-2]", 3, {0, -1, 3}, {0, -100, -100}, {1, -1, -2}, 1, 1, 0, 0, 0,
     3, {2, 3, 2}, {11, 9, 7, 5, 3, 1, 23, 21, 19, 17, 15, 13}},
    {"x[-100:100, -100:2, 5:10]", 3, {-100, -100, 5}, {100, 2, 10}, {1, 1, 1}, 0, 0, 0, 0, 0,
     3, {2, 2, 0}, {0}},
    {"x[1, :, 2]", 3, {1, 0, 2}, {2, 0, 3}, {1, 1, 1}, 2, 2, 0, 0, 5,
     1, {3}, {14, 18, 22}},
    {"x[-1, -1]", 2, {-1, -1}, {0, 0}, {1, 1}, 0, 0, 0, 0, 3,
     1, {4}, {20, 21, 22, 23}},
    {"x[1:2]", 1, {1}, {2}, {1}, 0, 0, 0, 0, 0,
     3, {1, 3, 4}, {12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
    {"x[..., 1]", 2, {0, 1}, {0, 2}, {1, 1}, 0, 0, 1, 0, 2,
     2, {2, 3}, {1, 5, 9, 13, 17, 21}},
    {"x[None, 0:1, ..., None]", 4, {0, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}, 0, 0, 4, 9, 0,
     5, {1, 1, 3, 4, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
    {"x[0, ..., None, 1:3]", 4, {0, 0, 0, 1}, {1, 0, 0, 3}, {1, 1, 1, 1}, 0, 0, 2, 4, 1,
     3, {3, 1, 2}, {1, 2, 5, 6, 9, 10}},
    {"x[None, ..., ::-1, 1]", 4, {0, 0, 0, 1}, {0, 0, 0, 2}, {1, 1, -1, 1}, 4, 4, 2, 1, 8,
     3, {1, 2, 3}, {9, 5, 1, 21, 17, 13}},
    {"x[:, ::5]", 2, {0, 0}, {0, 0}, {1, 5}, 3, 3, 0, 0, 0,
     3, {2, 1, 4}, {0, 1, 2, 3, 12, 13, 14, 15}},
    {"x[1, 2, 3]", 3, {1, 2, 3}, {2, 3, 4}, {1, 1, 1}, 0, 0, 0, 0, 7,
     0, {0}, {23}},
    {"x[2:0]", 1, {2}, {0}, {1}, 0, 0, 0, 0, 0,
     3, {0, 3, 4}, {0}},
    {"x[..., None]", 2, {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2, 0,
     4, {2, 3, 4, 1}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
    {"x[:, None, -1, ::-3]", 4, {0, 0, -1, 0}, {0, 0, 0, 0}, {1, 1, 1, -3}, 9, 9, 0, 2, 4,
     3, {2, 1, 2}, {11, 8, 23, 20}},
};

static Tfpi__NodeDef *add_strided_slice(gb_graph *g, const char *name, const char *input, const char *spec)
{
    char begin[64], end[64], strides[64];
    snprintf(begin, sizeof begin, "%s_begin", spec);
    snprintf(end, sizeof end, "%s_end", spec);
    snprintf(strides, sizeof strides, "%s_strides", spec);
    return gb_node(g, "StridedSlice", name, input, begin, end, strides, NULL);
}

static void set_masks(Tfpi__NodeDef *n, const slice_case *c)
{
    gd_attr_set_int(n, "begin_mask", c->begin_mask);
    gd_attr_set_int(n, "end_mask", c->end_mask);
    gd_attr_set_int(n, "ellipsis_mask", c->ellipsis_mask);
    gd_attr_set_int(n, "new_axis_mask", c->new_axis_mask);
    gd_attr_set_int(n, "shrink_axis_mask", c->shrink_axis_mask);
}

static void test_strided_slice_cases(void)
{
    tfpi_tensor *x = x_2x3x4();
    for (size_t i = 0; i < sizeof slice_cases / sizeof slice_cases[0]; i++) {
        const slice_case *c = &slice_cases[i];
        gb_graph *g = gb_new();
        gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
        add_const_x(g);
        const int64_t n = c->n;
        const_i32(g, "s_begin", 1, &n, c->begin);
        const_i32(g, "s_end", 1, &n, c->end);
        const_i32(g, "s_strides", 1, &n, c->strides);
        set_masks(add_strided_slice(g, "slice", "x", "s"), c);
        set_masks(add_strided_slice(g, "slice_folded", "xc", "s"), c);
        for (int folded = 0; folded < 2; folded++) {
            tfpi_tensor *out = op_eval(g, x, folded ? "slice_folded" : "slice");
            int before = check_failures_in_test;
            CHECK_TENSOR(out, TFPI_INT32, c->ndims, c->dims, c->values);
            if (check_failures_in_test != before)
                fprintf(stderr, "    in case %s%s\n", c->numpy, folded ? " (folded)" : "");
        }
        gb_free(g);
    }
    tfpi_tensor_free(x);
}

/* Index inputs may be int64. */
static void test_strided_slice_int64_spec(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
    const int64_t three = 3, begin[3] = {0, 2, 0}, end[3] = {0, 0, 0}, strides[3] = {-1, -1, -2};
    gb_const(g, "s_begin", TFPI_INT64, &three, 1, begin);
    gb_const(g, "s_end", TFPI_INT64, &three, 1, end);
    gb_const(g, "s_strides", TFPI_INT64, &three, 1, strides);
    Tfpi__NodeDef *n = add_strided_slice(g, "slice", "x", "s");
    gd_attr_set_int(n, "begin_mask", 5);
    gd_attr_set_int(n, "end_mask", 5);
    tfpi_tensor *x = x_2x3x4();
    /* x[::-1, 2:0:-1, ::-2] */
    CHECK_TENSOR(op_eval(g, x, "slice"), TFPI_INT32, 3, (int64_t[]){2, 2, 2},
                 (int32_t[]){23, 21, 19, 17, 11, 9, 7, 5});
    tfpi_tensor_free(x);
    gb_free(g);
}

/* The shape math of a typical graph: batch = tf.shape(x)[0] (int32 and
 * int64), then Reshape(x, [batch, -1]); all of it folds while planning. */
static void test_shape_math_folds(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
    gb_node(g, "Shape", "shape", "x", NULL);
    gd_attr_set_type(gb_node(g, "Shape", "shape64", "x", NULL), "out_type", TFPI_INT64);
    const int64_t one = 1;
    const_i32(g, "first_begin", 1, &one, (int32_t[]){0});
    const_i32(g, "first_end", 1, &one, (int32_t[]){1});
    const_i32(g, "first_strides", 1, &one, (int32_t[]){1});
    gd_attr_set_int(add_strided_slice(g, "batch", "shape", "first"), "shrink_axis_mask", 1);
    gd_attr_set_int(add_strided_slice(g, "tail64", "shape64", "first"), "end_mask", 1); /* shape64[0:] */
    int32_t minus_one = -1;
    gb_const(g, "minus_one", TFPI_INT32, NULL, 0, &minus_one);
    gb_node(g, "Pack", "new_shape", "batch", "minus_one", NULL);
    gb_node(g, "Reshape", "flat", "x", "new_shape", NULL);
    gb_node(g, "Shape", "flat_shape", "flat", NULL);
    tfpi_tensor *x = x_2x3x4();
    CHECK_TENSOR(op_eval(g, x, "tail64"), TFPI_INT64, 1, (int64_t[]){3}, (int64_t[]){2, 3, 4});
    CHECK_TENSOR(op_eval(g, x, "new_shape"), TFPI_INT32, 1, (int64_t[]){2}, (int32_t[]){2, -1});
    int32_t flat[24];
    for (int i = 0; i < 24; i++)
        flat[i] = i;
    CHECK_TENSOR(op_eval(g, x, "flat"), TFPI_INT32, 2, (int64_t[]){2, 12}, flat);
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_strided_slice_errors(void)
{
    static const struct {
        const char *what;
        int n;
        int32_t begin[5], end[5], strides[5];
        int ellipsis_mask, shrink_axis_mask;
        const char *message;
    } cases[] = {
        {"x[::0]", 1, {0}, {2}, {0}, 0, 0, "strides[0] must be non-zero"},
        {"x[5]", 1, {5}, {6}, {1}, 0, 1, "slice index 5 of dimension 0 is out of bounds"},
        {"x[..., ...]", 2, {0, 0}, {0, 0}, {1, 1}, 3, 0, "multiple ellipses"},
        {"x[0, 0, 0, 0]", 4, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, 0, 15, "more dimensions"},
        {"x[1:2:-1] shrunk", 1, {1}, {2}, {-1}, 0, 1, "needs a positive stride"},
    };
    tfpi_tensor *x = x_2x3x4();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_graph *g = gb_new();
        gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
        const int64_t n = cases[i].n;
        const_i32(g, "s_begin", 1, &n, cases[i].begin);
        const_i32(g, "s_end", 1, &n, cases[i].end);
        const_i32(g, "s_strides", 1, &n, cases[i].strides);
        Tfpi__NodeDef *node = add_strided_slice(g, "bad_slice", "x", "s");
        gd_attr_set_int(node, "ellipsis_mask", cases[i].ellipsis_mask);
        gd_attr_set_int(node, "shrink_axis_mask", cases[i].shrink_axis_mask);
        CHECK_FAILS(g, x, "bad_slice", "bad_slice", cases[i].message);
        gb_free(g);
    }
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
    const int64_t two = 2;
    const_i32(g, "s_begin", 1, &two, (int32_t[]){0, 0});
    const_i32(g, "s_end", 1, &(int64_t){1}, (int32_t[]){1});
    const_i32(g, "s_strides", 1, &two, (int32_t[]){1, 1});
    add_strided_slice(g, "mismatched", "x", "s");
    CHECK_FAILS(g, x, "mismatched", "mismatched", "the same length");
    gb_free(g);
    tfpi_tensor_free(x);
}

/* ---- Slice ---------------------------------------------------------------- */

static void test_slice(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
    add_const_x(g);
    const int64_t three = 3;
    const_i32(g, "begin", 1, &three, (int32_t[]){1, 0, 1});
    const_i32(g, "size", 1, &three, (int32_t[]){1, -1, 2});
    const_i32(g, "too_big", 1, &three, (int32_t[]){1, 4, 1});
    const_i32(g, "past_end", 1, &three, (int32_t[]){3, 0, 0});
    gb_node(g, "Slice", "slice", "x", "begin", "size", NULL);
    gb_node(g, "Slice", "slice_folded", "xc", "begin", "size", NULL);
    gb_node(g, "Slice", "bad_size", "x", "begin", "too_big", NULL);
    gb_node(g, "Slice", "bad_begin", "x", "past_end", "size", NULL);
    tfpi_tensor *x = x_2x3x4();
    /* x[1:2, 0:, 1:3] */
    const int32_t want[6] = {13, 14, 17, 18, 21, 22};
    CHECK_TENSOR(op_eval(g, x, "slice"), TFPI_INT32, 3, (int64_t[]){1, 3, 2}, want);
    CHECK_TENSOR(op_eval(g, x, "slice_folded"), TFPI_INT32, 3, (int64_t[]){1, 3, 2}, want);
    CHECK_FAILS(g, x, "bad_size", "bad_size", "size[1] = 4 is outside [0, 3]");
    CHECK_FAILS(g, x, "bad_begin", "bad_begin", "begin[0] = 3 is outside [0, 2]");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- Transpose ------------------------------------------------------------ */

static void test_transpose_small(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_INT32, shape_2x3x4, 3);
    const int64_t three = 3;
    const_i32(g, "perm", 1, &three, (int32_t[]){2, 0, 1});
    const_i32(g, "not_perm", 1, &three, (int32_t[]){0, 0, 1});
    gb_node(g, "Transpose", "t", "x", "perm", NULL);
    gb_node(g, "Transpose", "bad", "x", "not_perm", NULL);
    tfpi_tensor *x = x_2x3x4();
    /* np.transpose(x, (2, 0, 1)) */
    CHECK_TENSOR(op_eval(g, x, "t"), TFPI_INT32, 3, (int64_t[]){4, 2, 3},
                 (int32_t[]){0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21,
                             2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
    CHECK_FAILS(g, x, "bad", "bad", "not a permutation");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* Large 4-D transposes against out[i] = in[sum idx[perm[d]] * stride],
 * written out naively, on 1 and 3 threads. */
static void test_transpose_large(void)
{
    static const int32_t perms[4][4] = {{0, 3, 1, 2}, {0, 2, 3, 1}, {3, 2, 1, 0}, {1, 0, 2, 3}};
    const int64_t dims[4] = {2, 17, 33, 5}, count = 2 * 17 * 33 * 5;
    static int32_t in[2 * 17 * 33 * 5];
    for (int64_t i = 0; i < count; i++)
        in[i] = (int32_t)(i * 7 + 3);
    tfpi_tensor *x = op_tensor(TFPI_INT32, dims, 4, in);
    for (int p = 0; p < 4; p++) {
        gb_graph *g = gb_new();
        gb_placeholder(g, "x", TFPI_INT32, dims, 4);
        const_i32(g, "perm", 1, &(int64_t){4}, perms[p]);
        gb_node(g, "Transpose", "t", "x", "perm", NULL);
        int64_t out_dims[4], idx[4];
        for (int d = 0; d < 4; d++)
            out_dims[d] = dims[perms[p][d]];
        static int32_t want[2 * 17 * 33 * 5];
        int64_t i = 0;
        for (idx[0] = 0; idx[0] < out_dims[0]; idx[0]++)
            for (idx[1] = 0; idx[1] < out_dims[1]; idx[1]++)
                for (idx[2] = 0; idx[2] < out_dims[2]; idx[2]++)
                    for (idx[3] = 0; idx[3] < out_dims[3]; idx[3]++) {
                        int64_t src[4];
                        for (int d = 0; d < 4; d++)
                            src[perms[p][d]] = idx[d];
                        want[i++] = in[((src[0] * dims[1] + src[1]) * dims[2] + src[2]) * dims[3] + src[3]];
                    }
        for (int threads = 1; threads <= 3; threads += 2) {
            const char *feed = "x", *fetch = "t";
            tfpi_tensor *out = NULL;
            tfpi_status status;
            CHECK_MSG(op_run_graph(g, 1, &feed, &x, 1, &fetch, &out, threads, &status) == TFPI_OK, "%s",
                      status.message);
            CHECK_TENSOR(out, TFPI_INT32, 4, out_dims, want);
        }
        gb_free(g);
    }
    tfpi_tensor_free(x);
}

/* ---- Tile ----------------------------------------------------------------- */

static void test_tile(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2, 3}, 2);
    const int64_t two = 2, one = 1;
    const_i32(g, "m21", 1, &two, (int32_t[]){2, 1});
    const_i32(g, "m12", 1, &two, (int32_t[]){1, 2});
    const_i32(g, "m22", 1, &two, (int32_t[]){2, 2});
    const_i32(g, "m01", 1, &two, (int32_t[]){0, 1});
    const_i32(g, "m3", 1, &one, (int32_t[]){3});
    const_i32(g, "v", 1, &two, (int32_t[]){1, 2});
    gb_node(g, "Tile", "t21", "x", "m21", NULL);
    gb_node(g, "Tile", "t12", "x", "m12", NULL);
    gb_node(g, "Tile", "t22", "x", "m22", NULL);
    gb_node(g, "Tile", "t01", "x", "m01", NULL);
    gb_node(g, "Tile", "vector", "v", "m3", NULL);
    gb_node(g, "Tile", "bad", "x", "m3", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2, 3}, 2, (float[]){0, 1, 2, 3, 4, 5});
    /* np.tile(arange(6).reshape(2, 3), reps) */
    CHECK_TENSOR(op_eval(g, x, "t21"), TFPI_FLOAT, 2, (int64_t[]){4, 3},
                 (float[]){0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
    CHECK_TENSOR(op_eval(g, x, "t12"), TFPI_FLOAT, 2, (int64_t[]){2, 6},
                 (float[]){0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
    CHECK_TENSOR(op_eval(g, x, "t22"), TFPI_FLOAT, 2, (int64_t[]){4, 6},
                 (float[]){0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
    CHECK_TENSOR(op_eval(g, x, "t01"), TFPI_FLOAT, 2, (int64_t[]){0, 3}, NULL);
    CHECK_TENSOR(op_eval(g, NULL, "vector"), TFPI_INT32, 1, (int64_t[]){6}, (int32_t[]){1, 2, 1, 2, 1, 2});
    CHECK_FAILS(g, x, "bad", "bad", "multiples must be a vector of 2 values");
    tfpi_tensor_free(x);
    gb_free(g);
}

/* ---- Pad, PadV2, MirrorPad ------------------------------------------------- */

static void add_paddings(gb_graph *g, const char *name, const int32_t *values)
{
    const_i32(g, name, 2, (int64_t[]){2, 2}, values);
}

static void test_pad_constant(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2, 3}, 2);
    add_paddings(g, "p1021", (int32_t[]){1, 0, 2, 1});
    int64_t p0111[4] = {0, 1, 1, 1};
    gb_const(g, "p0111", TFPI_INT64, (int64_t[]){2, 2}, 2, p0111);
    float nine = 9;
    gb_const(g, "nine", TFPI_FLOAT, NULL, 0, &nine);
    add_paddings(g, "negative", (int32_t[]){0, 0, -1, 0});
    gb_node(g, "Pad", "pad", "x", "p1021", NULL);
    gb_node(g, "PadV2", "pad9", "x", "p0111", "nine", NULL);
    gb_node(g, "Pad", "bad", "x", "negative", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2, 3}, 2, (float[]){0, 1, 2, 3, 4, 5});
    /* np.pad(x, ((1, 0), (2, 1))) and np.pad(x, ((0, 1), (1, 1)), constant_values=9) */
    CHECK_TENSOR(op_eval(g, x, "pad"), TFPI_FLOAT, 2, (int64_t[]){3, 6},
                 (float[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 3, 4, 5, 0});
    CHECK_TENSOR(op_eval(g, x, "pad9"), TFPI_FLOAT, 2, (int64_t[]){3, 5},
                 (float[]){9, 0, 1, 2, 9, 9, 3, 4, 5, 9, 9, 9, 9, 9, 9});
    CHECK_FAILS(g, x, "bad", "bad", "paddings[1][0] = -1");
    tfpi_tensor_free(x);
    gb_free(g);
}

static void test_mirror_pad(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2, 3}, 2);
    add_paddings(g, "p1122", (int32_t[]){1, 1, 2, 2});
    add_paddings(g, "p1123", (int32_t[]){1, 1, 2, 3});
    gd_attr_set_string(gb_node(g, "MirrorPad", "reflect", "x", "p1122", NULL), "mode", "REFLECT");
    gd_attr_set_string(gb_node(g, "MirrorPad", "symmetric", "x", "p1123", NULL), "mode", "SYMMETRIC");
    gd_attr_set_string(gb_node(g, "MirrorPad", "too_far", "x", "p1123", NULL), "mode", "REFLECT");
    gd_attr_set_string(gb_node(g, "MirrorPad", "bad_mode", "x", "p1122", NULL), "mode", "WRAP");
    int32_t z[24];
    for (int i = 0; i < 24; i++)
        z[i] = i;
    const_i32(g, "z", 3, shape_2x3x4, z);
    const_i32(g, "p3", 2, (int64_t[]){3, 2}, (int32_t[]){1, 0, 0, 2, 1, 1});
    gd_attr_set_string(gb_node(g, "MirrorPad", "reflect3d", "z", "p3", NULL), "mode", "REFLECT");
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2, 3}, 2, (float[]){0, 1, 2, 3, 4, 5});
    /* np.pad(x, ((1, 1), (2, 2)), mode='reflect'), np.pad(x, ((1, 1), (2, 3)), mode='symmetric') */
    CHECK_TENSOR(op_eval(g, x, "reflect"), TFPI_FLOAT, 2, (int64_t[]){4, 7},
                 (float[]){5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0,
                           5, 4, 3, 4, 5, 4, 3, 2, 1, 0, 1, 2, 1, 0});
    CHECK_TENSOR(op_eval(g, x, "symmetric"), TFPI_FLOAT, 2, (int64_t[]){4, 8},
                 (float[]){1, 0, 0, 1, 2, 2, 1, 0, 1, 0, 0, 1, 2, 2, 1, 0,
                           4, 3, 3, 4, 5, 5, 4, 3, 4, 3, 3, 4, 5, 5, 4, 3});
    /* np.pad(arange(24).reshape(2, 3, 4), ((1, 0), (0, 2), (1, 1)), mode='reflect') */
    CHECK_TENSOR(op_eval(g, NULL, "reflect3d"), TFPI_INT32, 3, (int64_t[]){3, 5, 6},
                 (int32_t[]){13, 12, 13, 14, 15, 14, 17, 16, 17, 18, 19, 18, 21, 20, 21, 22, 23, 22,
                             17, 16, 17, 18, 19, 18, 13, 12, 13, 14, 15, 14, 1,  0,  1,  2,  3,  2,
                             5,  4,  5,  6,  7,  6,  9,  8,  9,  10, 11, 10, 5,  4,  5,  6,  7,  6,
                             1,  0,  1,  2,  3,  2,  13, 12, 13, 14, 15, 14, 17, 16, 17, 18, 19, 18,
                             21, 20, 21, 22, 23, 22, 17, 16, 17, 18, 19, 18, 13, 12, 13, 14, 15, 14});
    CHECK_FAILS(g, x, "too_far", "too_far", "paddings[1][1] = 3 is outside [0, 2]");
    CHECK_FAILS(g, x, "bad_mode", "bad_mode", "mode must be REFLECT or SYMMETRIC");
    tfpi_tensor_free(x);
    gb_free(g);
}

int main(void)
{
    RUN(test_strided_slice_cases);
    RUN(test_strided_slice_int64_spec);
    RUN(test_shape_math_folds);
    RUN(test_strided_slice_errors);
    RUN(test_slice);
    RUN(test_transpose_small);
    RUN(test_transpose_large);
    RUN(test_tile);
    RUN(test_pad_constant);
    RUN(test_mirror_pad);
    return check_summary();
}
