/* test_tensor_array.c - the TensorArray V3 family through graphs of the
 * shape tf.map_fn and dynamic_rnn emit (control_flow.md test 6): Scatter
 * with range(n), a loop that Reads each element, doubles it and Writes it
 * (the flow as a loop variable), then Size, Range and Gather; with a batch
 * of three rows, an empty batch, and on 1 and 3 threads. Also Split/Concat,
 * and TF's errors: a second read of a cleared slot, a write past a fixed
 * size (and the same write growing a dynamic array), a read of an unwritten
 * slot (zeros when the element shape is known, an error otherwise), a
 * scatter naming an index twice. Values
 * worked out by hand; the map case also matched TensorFlow.js. The TF2
 * TensorList ops get control_flow.md's test 7 (Reserve, SetItem, Stack,
 * GetItem of an uninitialised slot, Length, ElementShape, SetItem out of
 * range) and FromTensor/PushBack round trips. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "loop_builder.h"
#include "op_test.h"

static Tfpi__NodeDef *tensor_array(gb_graph *g, const char *name, const char *size, const int64_t *elem,
                                   int elem_ndims, bool dynamic)
{
    Tfpi__NodeDef *n = gb_node(g, "TensorArrayV3", name, size, NULL);
    gd_attr_set_type(n, "dtype", TFPI_FLOAT);
    gd_attr_set_shape(n, "element_shape", elem, elem_ndims);
    gd_attr_set_bool(n, "dynamic_size", dynamic);
    gd_attr_set_bool(n, "clear_after_read", true);
    return n;
}

/* y = map_fn(lambda row: row * 2, x) for x [n,2] fed as "x", n fed as "n". */
static gb_graph *map_graph(void)
{
    gb_graph *g = gb_new();
    const char *frame = "map/while/while_context";
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){-1, 2}, 2);
    gb_placeholder(g, "n", TFPI_INT32, NULL, 0);
    lb_const_i32(g, "zero", 0, NULL);
    lb_const_i32(g, "one", 1, NULL);
    tensor_array(g, "map/TensorArray", "n", (int64_t[]){2}, 1, false);
    tensor_array(g, "map/TensorArray_1", "n", (int64_t[]){2}, 1, false);
    gb_node(g, "Range", "map/range", "zero", "n", "one", NULL);
    gb_node(g, "TensorArrayScatterV3", "map/scatter", "map/TensorArray", "map/range", "x", "map/TensorArray:1",
            NULL);
    lb_loop_var(g, "map/while", frame, 0, "zero");
    lb_loop_var(g, "map/while", frame, 1, "map/TensorArray_1:1");
    lb_enter(g, "map/while/Less/Enter", "n", frame, true);
    lb_enter(g, "map/while/read/Enter", "map/TensorArray", frame, true);
    lb_enter(g, "map/while/read/Enter_1", "map/scatter", frame, true);
    lb_enter(g, "map/while/write/Enter", "map/TensorArray_1", frame, true);
    gb_node(g, "Less", "map/while/Less", "map/while/Merge_0", "map/while/Less/Enter", NULL);
    gb_node(g, "LoopCond", "map/while/LoopCond", "map/while/Less", NULL);
    gb_node(g, "TensorArrayReadV3", "map/while/read", "map/while/read/Enter", "map/while/Identity_0",
            "map/while/read/Enter_1", NULL);
    lb_const_f32(g, "map/while/two", 2, "^map/while/Identity_0");
    gb_node(g, "Mul", "map/while/mul", "map/while/read", "map/while/two", NULL);
    gb_node(g, "TensorArrayWriteV3", "map/while/write", "map/while/write/Enter", "map/while/Identity_0",
            "map/while/mul", "map/while/Identity_1", NULL);
    lb_const_i32(g, "map/while/one", 1, "^map/while/Identity_0");
    gb_node(g, "Add", "map/while/add", "map/while/Identity_0", "map/while/one", NULL);
    lb_next(g, "map/while", 0, "map/while/add");
    lb_next(g, "map/while", 1, "map/while/write");
    gb_node(g, "TensorArraySizeV3", "map/size", "map/TensorArray_1", "map/while/Exit_1", NULL);
    gb_node(g, "Range", "map/range_1", "zero", "map/size", "one", NULL);
    Tfpi__NodeDef *gather = gb_node(g, "TensorArrayGatherV3", "y", "map/TensorArray_1", "map/range_1",
                                    "map/while/Exit_1", NULL);
    gd_attr_set_type(gather, "dtype", TFPI_FLOAT);
    gd_attr_set_shape(gather, "element_shape", (int64_t[]){2}, 1);
    return g;
}

static void test_map(void)
{
    gb_graph *g = map_graph();
    const char *feeds[] = {"x", "n"}, *fetch = "y";
    for (int threads = 1; threads <= 3; threads += 2) {
        for (int32_t n = 3; n >= 0; n -= 3) {
            tfpi_tensor *in[2] = {op_tensor(TFPI_FLOAT, (int64_t[]){n, 2}, 2, (float[]){1, 2, 3, 4, 5, 6}),
                                  op_tensor(TFPI_INT32, NULL, 0, &n)};
            tfpi_tensor *out = NULL;
            tfpi_status status;
            CHECK_MSG(op_run_graph(g, 2, feeds, in, 1, &fetch, &out, threads, &status) == TFPI_OK, "%s",
                      status.message);
            CHECK_TENSOR(out, TFPI_FLOAT, 2, (int64_t[]){n, 2}, (float[]){2, 4, 6, 8, 10, 12});
            tfpi_tensor_free(in[0]);
            tfpi_tensor_free(in[1]);
        }
    }
    gb_free(g);
}

/* A size-3 array with [1,2] written at index 0, then `tail` built on it. */
static gb_graph *written_array(bool dynamic, const int64_t *elem, int elem_ndims)
{
    gb_graph *g = gb_new();
    lb_const_i32(g, "three", 3, NULL);
    lb_const_i32(g, "zero", 0, NULL);
    gb_const(g, "row", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){1, 2});
    tensor_array(g, "ta", "three", elem, elem_ndims, dynamic);
    gb_node(g, "TensorArrayWriteV3", "w0", "ta", "zero", "row", "ta:1", NULL);
    return g;
}

static void test_read_twice(void)
{
    gb_graph *g = written_array(false, (int64_t[]){2}, 1);
    gb_node(g, "TensorArrayReadV3", "r1", "ta", "zero", "w0", NULL);
    gb_node(g, "TensorArrayReadV3", "r2", "ta", "zero", "w0", "^r1", NULL);
    gb_node(g, "AddN", "out", "r1", "r2", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "r1"), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){1, 2});
    CHECK_FAILS(g, NULL, "out", "r2", "Could not read index 0 twice because it was cleared after a previous read");
    gb_free(g);
}

static void test_write_past_size(void)
{
    for (int dynamic = 0; dynamic < 2; dynamic++) {
        gb_graph *g = written_array(dynamic, (int64_t[]){2}, 1);
        lb_const_i32(g, "idx", 3, NULL);
        gb_node(g, "TensorArrayWriteV3", "w3", "ta", "idx", "row", "w0", NULL);
        gb_node(g, "TensorArraySizeV3", "out", "ta", "w3", NULL);
        if (dynamic)
            CHECK_TENSOR(op_eval(g, NULL, "out"), TFPI_INT32, 0, NULL, (int32_t[]){4});
        else
            CHECK_FAILS(g, NULL, "out", "w3", "Tried to write to index 3 but array is not resizeable and size is: 3");
        gb_free(g);
    }
    gb_graph *g = written_array(false, (int64_t[]){2}, 1);
    gb_node(g, "TensorArrayWriteV3", "out", "ta", "zero", "row", "w0", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "because it has already been written to");
    gb_free(g);
}

/* Scatter into a fresh size-3 array: indices [2, 0, 1] fill it, [2, 0, 2]
 * name index 2 twice (the check sorts the indices: a million of them stay
 * fast, see the hostile corpus). */
static void test_scatter_indices(void)
{
    for (int twice = 0; twice < 2; twice++) {
        gb_graph *g = gb_new();
        lb_const_i32(g, "three", 3, NULL);
        gb_const(g, "idx", TFPI_INT32, (int64_t[]){3}, 1, twice ? (int32_t[]){2, 0, 2} : (int32_t[]){2, 0, 1});
        gb_const(g, "rows", TFPI_FLOAT, (int64_t[]){3, 1}, 2, (float[]){7, 8, 9});
        tensor_array(g, "ta", "three", (int64_t[]){1}, 1, false);
        gb_node(g, "TensorArrayScatterV3", "s", "ta", "idx", "rows", "ta:1", NULL);
        gb_node(g, "Range", "order", "zero", "three", "one", NULL);
        lb_const_i32(g, "zero", 0, NULL);
        lb_const_i32(g, "one", 1, NULL);
        Tfpi__NodeDef *gather = gb_node(g, "TensorArrayGatherV3", "out", "ta", "order", "s", NULL);
        gd_attr_set_type(gather, "dtype", TFPI_FLOAT);
        if (twice)
            CHECK_FAILS(g, NULL, "out", "s", "index 2 is scattered twice");
        else
            CHECK_TENSOR(op_eval(g, NULL, "out"), TFPI_FLOAT, 2, (int64_t[]){3, 1}, (float[]){8, 9, 7});
        gb_free(g);
    }
}

static void test_unwritten_read(void)
{
    gb_graph *g = written_array(false, (int64_t[]){2}, 1);
    lb_const_i32(g, "two", 2, NULL);
    gb_node(g, "TensorArrayReadV3", "out", "ta", "two", "w0", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "out"), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){0, 0});
    gb_free(g);
    g = written_array(false, NULL, -1);
    lb_const_i32(g, "two", 2, NULL);
    gb_node(g, "TensorArrayReadV3", "out", "ta", "two", "w0", NULL);
    CHECK_FAILS(g, NULL, "out", "out", "has not yet been written to, and the element shape is not fully defined");
    gb_free(g);
}

/* Split [[1],[2],[3],[4],[5]] by lengths [2,3], Concat back with lengths. */
static void test_split_concat(void)
{
    gb_graph *g = gb_new();
    lb_const_i32(g, "two", 2, NULL);
    gb_const(g, "v", TFPI_FLOAT, (int64_t[]){5, 1}, 2, (float[]){1, 2, 3, 4, 5});
    gb_const(g, "lengths", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){2, 3});
    tensor_array(g, "ta", "two", NULL, -1, false);
    gb_node(g, "TensorArraySplitV3", "split", "ta", "v", "lengths", "ta:1", NULL);
    gb_node(g, "TensorArrayConcatV3", "out", "ta", "split", NULL);
    gb_node(g, "Identity", "lens", "out:1", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "out"), TFPI_FLOAT, 2, (int64_t[]){5, 1}, (float[]){1, 2, 3, 4, 5});
    CHECK_TENSOR(op_eval(g, NULL, "lens"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    gb_free(g);
}

/* An RNN cell h' = tanh([x_t, h] W + b) over T = 5 steps (batch 2, 3 inputs,
 * 4 units) as dynamic_rnn builds it (TensorArrays, a while loop, the state
 * as a loop variable) and unrolled into a straight-line graph (Unpack,
 * the same ops per step, Pack): the loop on the dynamic executor must give
 * what the static plan gives. */
enum { STEPS = 5, BATCH = 2, INPUTS = 3, UNITS = 4 };

static float rnn_w[(INPUTS + UNITS) * UNITS], rnn_b[UNITS];

static void rnn_weights(gb_graph *g)
{
    const float *w = rnn_w, *b = rnn_b;
    gb_const(g, "W", TFPI_FLOAT, (int64_t[]){INPUTS + UNITS, UNITS}, 2, w);
    gb_const(g, "b", TFPI_FLOAT, (int64_t[]){UNITS}, 1, b);
    const float h0[BATCH * UNITS] = {0};
    gb_const(g, "h0", TFPI_FLOAT, (int64_t[]){BATCH, UNITS}, 2, h0);
    gb_const(g, "axis1", TFPI_INT32, NULL, 0, (int32_t[]){1});
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){STEPS, BATCH, INPUTS}, 3);
}

/* cell(x_t, h) under prefix; W, b and axis given as tensors of its frame */
static void rnn_cell(gb_graph *g, const char *prefix, const char *x, const char *h, const char *w, const char *b,
                     const char *axis)
{
    gb_node(g, "ConcatV2", lb_name(prefix, "concat"), x, h, axis, NULL);
    gb_node(g, "MatMul", lb_name(prefix, "matmul"), lb_name(prefix, "concat"), w, NULL);
    gb_node(g, "BiasAdd", lb_name(prefix, "bias"), lb_name(prefix, "matmul"), b, NULL);
    gb_node(g, "Tanh", lb_name(prefix, "h"), lb_name(prefix, "bias"), NULL);
}

static gb_graph *rnn_loop(void)
{
    gb_graph *g = gb_new();
    const char *frame = "rnn/while/while_context";
    rnn_weights(g);
    lb_const_i32(g, "steps", STEPS, NULL);
    lb_const_i32(g, "zero", 0, NULL);
    lb_const_i32(g, "one", 1, NULL);
    tensor_array(g, "rnn/TensorArray", "steps", (int64_t[]){BATCH, INPUTS}, 2, false);
    tensor_array(g, "rnn/TensorArray_1", "steps", (int64_t[]){BATCH, UNITS}, 2, false);
    gb_node(g, "Range", "rnn/range", "zero", "steps", "one", NULL);
    gb_node(g, "TensorArrayScatterV3", "rnn/scatter", "rnn/TensorArray", "rnn/range", "x", "rnn/TensorArray:1", NULL);
    lb_loop_var(g, "rnn/while", frame, 0, "zero");
    lb_loop_var(g, "rnn/while", frame, 1, "rnn/TensorArray_1:1");
    lb_loop_var(g, "rnn/while", frame, 2, "h0");
    const char *enters[][2] = {{"steps", "rnn/while/Less/Enter"}, {"rnn/TensorArray", "rnn/while/read/Enter"},
                               {"rnn/scatter", "rnn/while/read/Enter_1"}, {"rnn/TensorArray_1", "rnn/while/write/Enter"},
                               {"W", "rnn/while/W"}, {"b", "rnn/while/b"}, {"axis1", "rnn/while/axis"}};
    for (int i = 0; i < 7; i++)
        lb_enter(g, enters[i][1], enters[i][0], frame, true);
    gb_node(g, "Less", "rnn/while/Less", "rnn/while/Merge_0", "rnn/while/Less/Enter", NULL);
    gb_node(g, "LoopCond", "rnn/while/LoopCond", "rnn/while/Less", NULL);
    gb_node(g, "TensorArrayReadV3", "rnn/while/read", "rnn/while/read/Enter", "rnn/while/Identity_0",
            "rnn/while/read/Enter_1", NULL);
    rnn_cell(g, "rnn/while/cell", "rnn/while/read", "rnn/while/Identity_2", "rnn/while/W", "rnn/while/b",
             "rnn/while/axis");
    gb_node(g, "TensorArrayWriteV3", "rnn/while/write", "rnn/while/write/Enter", "rnn/while/Identity_0",
            "rnn/while/cell/h", "rnn/while/Identity_1", NULL);
    lb_const_i32(g, "rnn/while/one", 1, "^rnn/while/Identity_0");
    gb_node(g, "Add", "rnn/while/add", "rnn/while/Identity_0", "rnn/while/one", NULL);
    lb_next(g, "rnn/while", 0, "rnn/while/add");
    lb_next(g, "rnn/while", 1, "rnn/while/write");
    lb_next(g, "rnn/while", 2, "rnn/while/cell/h");
    gb_node(g, "TensorArraySizeV3", "rnn/size", "rnn/TensorArray_1", "rnn/while/Exit_1", NULL);
    gb_node(g, "Range", "rnn/range_1", "zero", "rnn/size", "one", NULL);
    Tfpi__NodeDef *n = gb_node(g, "TensorArrayGatherV3", "outputs", "rnn/TensorArray_1", "rnn/range_1",
                               "rnn/while/Exit_1", NULL);
    gd_attr_set_type(n, "dtype", TFPI_FLOAT);
    return g;
}

static gb_graph *rnn_unrolled(void)
{
    gb_graph *g = gb_new();
    rnn_weights(g);
    Tfpi__NodeDef *n = gb_node(g, "Unpack", "steps", "x", NULL);
    gd_attr_set_int(n, "num", STEPS);
    char x[32], prefix[32];
    static char hs[STEPS][32];
    const char *h = "h0";
    for (int t = 0; t < STEPS; t++) {
        snprintf(x, sizeof x, "steps:%d", t);
        snprintf(prefix, sizeof prefix, "step%d", t);
        rnn_cell(g, prefix, x, h, "W", "b", "axis1");
        snprintf(hs[t], sizeof hs[t], "step%d/h", t);
        h = hs[t];
    }
    gb_node(g, "Pack", "outputs", hs[0], hs[1], hs[2], hs[3], hs[4], NULL);
    return g;
}

static void test_rnn_loop_matches_unrolled(void)
{
    float x[STEPS * BATCH * INPUTS];
    for (int i = 0; i < STEPS * BATCH * INPUTS; i++)
        x[i] = op_random(-1, 1);
    for (int i = 0; i < (INPUTS + UNITS) * UNITS; i++)
        rnn_w[i] = op_random(-0.5f, 0.5f);
    for (int i = 0; i < UNITS; i++)
        rnn_b[i] = op_random(-0.1f, 0.1f);
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, (int64_t[]){STEPS, BATCH, INPUTS}, 3, x);
    gb_graph *graphs[2];
    tfpi_tensor *out[2] = {0};
    for (int k = 0; k < 2; k++) {
        graphs[k] = k ? rnn_unrolled() : rnn_loop();
        out[k] = op_eval(graphs[k], in, "outputs");
    }
    if (out[0] && out[1]) {
        const float *want = tfpi_tensor_const_data(out[1]);
        CHECK_TENSOR_NEAR(out[0], 3, (int64_t[]){STEPS, BATCH, UNITS}, want, 1e-6);
        out[0] = NULL;
    }
    for (int k = 0; k < 2; k++) {
        tfpi_tensor_free(out[k]);
        gb_free(graphs[k]);
    }
    tfpi_tensor_free(in);
}

static void test_tensor_list(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "shape", TFPI_INT32, (int64_t[]){1}, 1, (int32_t[]){2});
    gb_const(g, "three", TFPI_INT32, NULL, 0, (int32_t[]){3});
    gb_const(g, "one", TFPI_INT32, NULL, 0, (int32_t[]){1});
    gb_const(g, "zero", TFPI_INT32, NULL, 0, (int32_t[]){0});
    gb_const(g, "item", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){7, 8});
    gb_const(g, "rows", TFPI_FLOAT, (int64_t[]){2, 2}, 2, (float[]){1, 2, 3, 4});
    Tfpi__NodeDef *n = gb_node(g, "TensorListReserve", "list", "shape", "three", NULL);
    gd_attr_set_type(n, "element_dtype", TFPI_FLOAT);
    gb_node(g, "TensorListSetItem", "set", "list", "one", "item", NULL);
    n = gb_node(g, "TensorListStack", "stack", "set", "shape", NULL);
    gd_attr_set_type(n, "element_dtype", TFPI_FLOAT);
    n = gb_node(g, "TensorListGetItem", "get0", "set", "zero", "shape", NULL);
    gd_attr_set_type(n, "element_dtype", TFPI_FLOAT);
    gb_node(g, "TensorListLength", "length", "set", NULL);
    gb_node(g, "TensorListElementShape", "elem_shape", "set", NULL);
    gb_node(g, "TensorListSetItem", "set3", "list", "three", "item", NULL);
    gb_node(g, "TensorListFromTensor", "from", "rows", "shape", NULL);
    gb_node(g, "TensorListPushBack", "pushed", "from", "item", NULL);
    n = gb_node(g, "TensorListStack", "stack_pushed", "pushed", "shape", NULL);
    gd_attr_set_type(n, "element_dtype", TFPI_FLOAT);
    n = gb_node(g, "EmptyTensorList", "empty", "shape", "one", NULL);
    gd_attr_set_type(n, "element_dtype", TFPI_FLOAT);
    gb_node(g, "TensorListPushBack", "push1", "empty", "item", NULL);
    gb_node(g, "TensorListPushBack", "push2", "push1", "item", NULL);
    gb_node(g, "TensorListLength", "full", "push2", NULL);
    CHECK_TENSOR(op_eval(g, NULL, "stack"), TFPI_FLOAT, 2, (int64_t[]){3, 2}, (float[]){0, 0, 7, 8, 0, 0});
    CHECK_TENSOR(op_eval(g, NULL, "get0"), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){0, 0});
    CHECK_TENSOR(op_eval(g, NULL, "length"), TFPI_INT32, 0, NULL, (int32_t[]){3});
    CHECK_TENSOR(op_eval(g, NULL, "elem_shape"), TFPI_INT32, 1, (int64_t[]){1}, (int32_t[]){2});
    CHECK_TENSOR(op_eval(g, NULL, "stack_pushed"), TFPI_FLOAT, 2, (int64_t[]){3, 2}, (float[]){1, 2, 3, 4, 7, 8});
    CHECK_FAILS(g, NULL, "set3", "set3", "Trying to modify element 3 in a list with 3 elements.");
    CHECK_FAILS(g, NULL, "full", "push2", "Tried to push item into a full list");
    gb_free(g);
}

int main(void)
{
    RUN(test_map);
    RUN(test_read_twice);
    RUN(test_write_past_size);
    RUN(test_scatter_indices);
    RUN(test_unwritten_read);
    RUN(test_split_concat);
    RUN(test_tensor_list);
    RUN(test_rnn_loop_matches_unrolled);
    return check_summary();
}
