/* test_flow_regions.c - the ordinary nodes of a control-flow graph run as
 * static plans (regions) while the dynamic executor runs the control flow:
 * a convolution with bias and Relu after a while loop gets an arena and
 * fused epilogues (the profile lists the planned steps), is re-planned when
 * its input's shape changes (the arena grows with it) and gives the
 * hand-computed values every time; a region whose Reshape needs a loop's
 * value runs node by node; after a tf.cond's Merge the
 * nodes are planned, inside a branch they stay dynamic (an untaken branch's
 * node is dead, and the error names the Switch), and after a Merge whose
 * liveness is not proven (nested conds) too; and the executor's values
 * count against the session's memory budget (a loop doubling a tensor
 * fails with the node, shape and bytes; so does a TensorArray too large
 * for it). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "loop_builder.h"
#include "op_test.h"

/* A while loop under "while/" whose variable 0 counts i = 0, 1, ... while
 * i < n (the placeholder "n") and whose variable 1 starts from `init`; the
 * caller adds the body of variable 1 and lb_next(g, "while", 1, ...). */
static void add_loop(gb_graph *g, const char *init)
{
    const char *frame = "while/while_context";
    gb_placeholder(g, "n", TFPI_INT32, NULL, 0);
    lb_const_i32(g, "zero", 0, NULL);
    lb_loop_var(g, "while", frame, 0, "zero");
    lb_loop_var(g, "while", frame, 1, init);
    lb_enter(g, "while/Less/Enter", "n", frame, true);
    gb_node(g, "Less", "while/Less", "while/Merge_0", "while/Less/Enter", NULL);
    gb_node(g, "LoopCond", "while/LoopCond", "while/Less", NULL);
    lb_const_i32(g, "while/one", 1, "^while/Identity_0");
    gb_node(g, "Add", "while/add", "while/Identity_0", "while/one", NULL);
    lb_next(g, "while", 0, "while/add");
}

/* A session with the default options on g, loaded into *graph. */
static tfpi_session *new_session(const gb_graph *g, tfpi_graph **graph, tfpi_status *status)
{
    *graph = gb_load(g, status);
    tfpi_session *session = *graph ? tfpi_session_new(*graph, NULL, status) : NULL;
    CHECK_MSG(session, "setup: %s", status->message); /* a test whose setup fails fails */
    return session;
}

/* out = Relu(Conv2D(x * float(s), [[2]]) + -5), s = 0 + 1 + ... + (n-1). */
static gb_graph *loop_then_conv(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){1, -1, -1, 1}, 4);
    add_loop(g, "zero"); /* s = 0 + 1 + ... + (n - 1) */
    gb_node(g, "Add", "while/add_1", "while/Identity_1", "while/Identity_0", NULL);
    lb_next(g, "while", 1, "while/add_1");
    Tfpi__NodeDef *cast = gb_node(g, "Cast", "s", "while/Exit_1", NULL);
    gd_attr_set_type(cast, "SrcT", TFPI_INT32);
    gd_attr_set_type(cast, "DstT", TFPI_FLOAT);
    gb_node(g, "Mul", "scaled", "x", "s", NULL);
    gb_const(g, "w", TFPI_FLOAT, (int64_t[]){1, 1, 1, 1}, 4, (float[]){2});
    Tfpi__NodeDef *conv = gb_node(g, "Conv2D", "conv", "scaled", "w", NULL);
    gd_attr_set_ints(conv, "strides", (int64_t[]){1, 1, 1, 1}, 4);
    gd_attr_set_string(conv, "padding", "VALID");
    gb_const(g, "b", TFPI_FLOAT, (int64_t[]){1}, 1, (float[]){-5});
    gb_node(g, "BiasAdd", "bias", "conv", "b", NULL);
    gb_node(g, "Relu", "out", "bias", NULL);
    return g;
}

static void test_region_after_loop(void)
{
    gb_graph *g = loop_then_conv();
    tfpi_status status;
    tfpi_graph *graph;
    tfpi_session *session = new_session(g, &graph, &status);
    if (session)
        tfpi_session_set_profiling(session, 1);
    const char *names[] = {"n", "x"}, *fetch = "out";
    /* n, and the side of x = 0, 1, 2, ...: out = relu(2 * s * x - 5) */
    const struct { int32_t n; int64_t side; } runs[] = {
        {3, 2}, /* s = 3 */
        {3, 8}, /* a larger x: re-planned */
        {2, 2}, /* s = 1, the first shape again */
    };
    size_t arena[3] = {0};
    for (int i = 0; session && i < 3; i++) {
        float x[64], want[64];
        int32_t s = runs[i].n * (runs[i].n - 1) / 2;
        for (int k = 0; k < 64; k++) {
            x[k] = (float)k;
            want[k] = 2.0f * (float)s * x[k] - 5 > 0 ? 2.0f * (float)s * x[k] - 5 : 0;
        }
        int64_t dims[4] = {1, runs[i].side, runs[i].side, 1};
        tfpi_tensor *feeds[] = {op_tensor(TFPI_INT32, NULL, 0, &runs[i].n), op_tensor(TFPI_FLOAT, dims, 4, x)};
        tfpi_tensor *out = NULL;
        CHECK_MSG(tfpi_session_run(session, names, feeds, 2, &fetch, &out, 1, &status) == TFPI_OK, "run %d: %s", i,
                  status.message);
        CHECK_TENSOR(out, TFPI_FLOAT, 4, dims, want);
        arena[i] = tfpi_session_arena_bytes(session);
        /* the planned steps are profiled: Cast, Mul and the Conv2D that
         * absorbed BiasAdd and Relu */
        const tfpi_node_profile *steps;
        int count = tfpi_session_profile(session, &steps);
        CHECK_MSG(count == 3 && !strcmp(steps[0].name, "s") && !strcmp(steps[1].name, "scaled") &&
                      !strcmp(steps[2].name, "conv") && !strcmp(steps[2].op, "Conv2D") && steps[2].duration_us >= 0,
                  "run %d: %d steps profiled", i, count);
        tfpi_tensor_free(feeds[0]);
        tfpi_tensor_free(feeds[1]);
    }
    /* the convolution's region runs on a static plan with an arena, laid
     * out again for each new input shape */
    CHECK_MSG(arena[0] > 0 && arena[1] > arena[0] && arena[2] == arena[0], "arenas %zu %zu %zu", arena[0], arena[1],
              arena[2]);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* out = Reshape(x, [s]) squared, with s from the counting loop: Reshape's
 * prepare needs the shape's value, which the region's plan does not have,
 * so the region runs node by node (no arena) and still gives the values. */
static void test_region_node_by_node(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){6}, 1);
    add_loop(g, "zero");
    gb_node(g, "Add", "while/add_1", "while/Identity_1", "while/Identity_0", NULL);
    lb_next(g, "while", 1, "while/add_1");
    gb_const(g, "one_dim", TFPI_INT32, (int64_t[]){1}, 1, (int32_t[]){1});
    gb_node(g, "Reshape", "shape", "while/Exit_1", "one_dim", NULL);
    gb_node(g, "Reshape", "flat", "x", "shape", NULL);
    gb_node(g, "Mul", "out", "flat", "flat", NULL);
    tfpi_status status;
    tfpi_graph *graph;
    tfpi_session *session = new_session(g, &graph, &status);
    const char *names[] = {"n", "x"}, *fetch = "out";
    int32_t n = 4; /* s = 0 + 1 + 2 + 3 = 6 */
    tfpi_tensor *feeds[] = {op_tensor(TFPI_INT32, NULL, 0, &n),
                            op_tensor(TFPI_FLOAT, (int64_t[]){6}, 1, (float[]){0, 1, 2, 3, 4, 5})};
    for (int run = 0; session && run < 2; run++) {
        tfpi_tensor *out = NULL;
        CHECK_MSG(tfpi_session_run(session, names, feeds, 2, &fetch, &out, 1, &status) == TFPI_OK, "%s",
                  status.message);
        CHECK_TENSOR(out, TFPI_FLOAT, 1, (int64_t[]){6}, (float[]){0, 1, 4, 9, 16, 25});
        CHECK_MSG(tfpi_session_arena_bytes(session) == 0, "arena %zu", tfpi_session_arena_bytes(session));
    }
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* tf.cond(phase, x * 2, x + 10) with phase fed; "tail" = cond/mul - 1
 * reads the true branch only; "after" = Merge * 3 reads both. */
static gb_graph *cond_graph(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "phase", TFPI_BOOL, NULL, 0);
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    lb_cond_mul_add(g, "phase", "x");
    lb_const_f32(g, "one", 1, NULL);
    gb_node(g, "Sub", "tail", "cond/mul", "one", NULL);
    lb_const_f32(g, "three", 3, NULL);
    gb_node(g, "Mul", "after", "cond/Merge", "three", NULL);
    return g;
}

/* Runs cond_graph with phase fed, fetching `fetch`; the session's arena
 * bytes go to *arena. */
static tfpi_tensor *run_cond(bool phase, const char *fetch, size_t *arena, tfpi_status *status)
{
    gb_graph *g = cond_graph();
    tfpi_graph *graph;
    tfpi_session *session = new_session(g, &graph, status);
    const char *names[] = {"phase", "x"};
    tfpi_tensor *feeds[] = {op_tensor(TFPI_BOOL, NULL, 0, &phase), op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1,
                                                                               (float[]){3, -1})};
    tfpi_tensor *out = NULL;
    if (session)
        tfpi_session_run(session, names, feeds, 2, &fetch, &out, 1, status);
    *arena = session ? tfpi_session_arena_bytes(session) : 0;
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
    return out;
}

static void test_region_after_cond(void)
{
    tfpi_status status;
    size_t arena = 0;
    /* after the Merge: certainly live, planned */
    CHECK_TENSOR(run_cond(false, "after", &arena, &status), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){39, 27});
    CHECK_MSG(arena > 0, "arena %zu", arena);
    CHECK_TENSOR(run_cond(true, "after", &arena, &status), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){18, -6});
    /* inside a branch: dynamic (no arena), dead when the branch is not taken */
    CHECK_TENSOR(run_cond(true, "tail", &arena, &status), TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){5, -3});
    CHECK_MSG(arena == 0, "arena %zu", arena);
    CHECK(run_cond(false, "tail", &arena, &status) == NULL);
    CHECK_MSG(strstr(status.message, "fetch 'tail:0' is dead: it lies in the branch of Switch 'cond/mul/Switch'"),
              "%s", status.message);
}

/* cond(p, cond(q, dead, x * 2), x + 10) * 3 written flat: the inner
 * Switch on q sits in p's true branch, so the Merge of its false output
 * with p's false branch is dead when p and q are both true: the Mul after
 * it cannot be planned. */
static void test_nested_cond_stays_dynamic(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "p", TFPI_BOOL, NULL, 0);
    gb_placeholder(g, "q", TFPI_BOOL, NULL, 0);
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    gb_node(g, "Switch", "outer", "x", "p", NULL);
    gb_node(g, "Switch", "inner", "outer:1", "q", NULL);
    lb_const_f32(g, "two", 2, NULL);
    gb_node(g, "Mul", "a", "inner:0", "two", NULL);
    lb_const_f32(g, "ten", 10, NULL);
    gb_node(g, "Add", "b", "outer:0", "ten", NULL);
    gb_node(g, "Merge", "m", "b", "a", NULL);
    lb_const_f32(g, "three", 3, NULL);
    gb_node(g, "Mul", "after", "m", "three", NULL);
    tfpi_status status;
    tfpi_graph *graph;
    tfpi_session *session = new_session(g, &graph, &status);
    const char *names[] = {"p", "q", "x"}, *fetch = "after";
    const bool flags[3][2] = {{false, false}, {true, false}, {true, true}};
    const float want[2][2] = {{39, 27}, {18, -6}};
    for (int i = 0; session && i < 3; i++) {
        tfpi_tensor *feeds[] = {op_tensor(TFPI_BOOL, NULL, 0, &flags[i][0]), op_tensor(TFPI_BOOL, NULL, 0, &flags[i][1]),
                                op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){3, -1})};
        tfpi_tensor *out = NULL;
        tfpi_code code = tfpi_session_run(session, names, feeds, 3, &fetch, &out, 1, &status);
        if (i < 2)
            CHECK_TENSOR(out, TFPI_FLOAT, 1, (int64_t[]){2}, want[i]);
        else
            CHECK_MSG(code != TFPI_OK && strstr(status.message, "fetch 'after:0' is dead: it lies in the branch of Switch '"),
                      "%s", status.message);
        CHECK_MSG(tfpi_session_arena_bytes(session) == 0, "run %d: arena %zu", i, tfpi_session_arena_bytes(session));
        for (int k = 0; k < 3; k++)
            tfpi_tensor_free(feeds[k]);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* x = [1]; while i < n: x = concat(x, x): 2^n floats. */
static gb_graph *doubling_loop(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, (int64_t[]){1}, 1, (float[]){1});
    add_loop(g, "x");
    lb_const_i32(g, "while/axis", 0, "^while/Identity_0");
    Tfpi__NodeDef *concat = gb_node(g, "ConcatV2", "while/concat", "while/Identity_1", "while/Identity_1",
                                    "while/axis", NULL);
    gd_attr_set_int(concat, "N", 2);
    lb_next(g, "while", 1, "while/concat");
    return g;
}

static void test_loop_memory_budget(void)
{
    gb_graph *g = doubling_loop();
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    CHECK_MSG(graph, "setup: %s", status.message);
    const char *feed = "n", *fetch = "while/Exit_1";
    for (int big = 0; graph && big < 2; big++) {
        tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 64 * 1024};
        tfpi_session *session = tfpi_session_new(graph, &options, &status);
        int32_t n = big ? 20 : 10; /* 4 KB, or 4 MB past the 64 KB budget */
        tfpi_tensor *in = op_tensor(TFPI_INT32, NULL, 0, &n), *out = NULL;
        tfpi_code code = session ? tfpi_session_run(session, &feed, &in, 1, &fetch, &out, 1, &status) : TFPI_INTERNAL;
        if (big) {
            CHECK(code == TFPI_OUT_OF_MEMORY && out == NULL);
            CHECK_MSG(strstr(status.message, "node 'while/concat' (ConcatV2): output 0: float [") &&
                          strstr(status.message, "over the memory budget of 65536 bytes (max_memory)"),
                      "%s", status.message);
        } else {
            CHECK_MSG(code == TFPI_OK, "%s", status.message);
            const float *v = out ? tfpi_tensor_const_data(out) : NULL;
            CHECK(out && tfpi_tensor_num_elements(out) == 1024 && v[0] == 1 && v[1023] == 1);
        }
        tfpi_tensor_free(out);
        tfpi_tensor_free(in);
        tfpi_session_free(session);
    }
    tfpi_graph_free(graph);
    gb_free(g);
}

/* A TensorArray's slots are checked against the budget before they exist. */
static void test_tensor_array_budget(void)
{
    gb_graph *g = gb_new();
    lb_const_i32(g, "size", 100000, NULL);
    Tfpi__NodeDef *ta = gb_node(g, "TensorArrayV3", "ta", "size", NULL);
    gd_attr_set_type(ta, "dtype", TFPI_FLOAT);
    gb_node(g, "TensorArraySizeV3", "out", "ta", "ta:1", NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 64 * 1024};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    const char *fetch = "out";
    tfpi_tensor *out = NULL;
    CHECK(session && tfpi_session_run(session, NULL, NULL, 0, &fetch, &out, 1, &status) == TFPI_OUT_OF_MEMORY);
    CHECK_MSG(strstr(status.message, "node 'ta' (TensorArrayV3)") &&
                  strstr(status.message, "over the memory budget of 65536 bytes (max_memory)"),
              "%s", status.message);
    tfpi_tensor_free(out);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

int main(void)
{
    RUN(test_region_after_loop);
    RUN(test_region_node_by_node);
    RUN(test_region_after_cond);
    RUN(test_nested_cond_stays_dynamic);
    RUN(test_loop_memory_budget);
    RUN(test_tensor_array_budget);
    return check_summary();
}
