/* test_control_flow.c - TF1 control flow on the dynamic executor, with the
 * hand-written graphs of control_flow.md's test plan: a counting loop
 * (including zero-trip and negative bounds), nested loops whose inner
 * counter restarts every outer iteration, a data-dependent trip count and
 * an endless loop stopped by tfpi_session_set_max_loop_iterations, tf.cond on a
 * PlaceholderWithDefault (default and fed, value_index, a dead fetch), a
 * loop inside an untaken branch, and the graphs that must be refused (a
 * cycle that is not a loop, a node reading two frames, Assert). Expected
 * values are worked out by hand from TF's semantics; the counting loop and
 * the cond were also run through TensorFlow.js (control_flow.md §5). Every
 * graph runs on 1 and 3 threads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "loop_builder.h"
#include "op_test.h"

static int32_t scalar_i32(tfpi_tensor *t)
{
    int32_t v = t && tfpi_tensor_num_elements(t) == 1 ? *(const int32_t *)tfpi_tensor_const_data(t) : -999;
    tfpi_tensor_free(t);
    return v;
}

/* i, s = 0, 0; while i < n: s += i; i += 1 (control_flow.md test 1),
 * under `scope`, from the tensors `zero` and `n`. */
static void add_counting_loop(gb_graph *g, const char *scope, const char *zero, const char *n)
{
    char frame[160];
    snprintf(frame, sizeof frame, "%s/while_context", scope);
    lb_loop_var(g, scope, frame, 0, zero);
    lb_loop_var(g, scope, frame, 1, zero);
    lb_enter(g, lb_name(scope, "Less/Enter"), n, frame, true);
    gb_node(g, "Less", lb_name(scope, "Less"), lb_name(scope, "Merge_0"), lb_name(scope, "Less/Enter"), NULL);
    gb_node(g, "LoopCond", lb_name(scope, "LoopCond"), lb_name(scope, "Less"), NULL);
    char control[200];
    snprintf(control, sizeof control, "^%s/Identity_0", scope);
    lb_const_i32(g, lb_name(scope, "one"), 1, control);
    gb_node(g, "Add", lb_name(scope, "add"), lb_name(scope, "Identity_0"), lb_name(scope, "one"), NULL);
    gb_node(g, "Add", lb_name(scope, "add_1"), lb_name(scope, "Identity_1"), lb_name(scope, "Identity_0"), NULL);
    lb_next(g, scope, 0, lb_name(scope, "add"));
    lb_next(g, scope, 1, lb_name(scope, "add_1"));
}

static gb_graph *counting_loop(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "n", TFPI_INT32, NULL, 0);
    lb_const_i32(g, "zero", 0, NULL);
    add_counting_loop(g, "while", "zero", "n");
    return g;
}

static void test_counting_loop(void)
{
    gb_graph *g = counting_loop();
    const int32_t n[] = {5, 1, 0, -3}, want_i[] = {5, 1, 0, 0}, want_s[] = {10, 0, 0, 0};
    const char *feed = "n", *fetches[] = {"while/Exit_0", "while/Exit_1"};
    for (int threads = 1; threads <= 3; threads += 2) {
        for (int c = 0; c < 4; c++) {
            tfpi_tensor *x = op_tensor(TFPI_INT32, NULL, 0, &n[c]), *out[2] = {0};
            tfpi_status status;
            CHECK_MSG(op_run_graph(g, 1, &feed, &x, 2, fetches, out, threads, &status) == TFPI_OK, "n=%d: %s", n[c],
                      status.message);
            CHECK_EQ_INT(scalar_i32(out[0]), want_i[c]);
            CHECK_EQ_INT(scalar_i32(out[1]), want_s[c]);
            tfpi_tensor_free(x);
        }
    }
    gb_free(g);
}

/* One session, many runs: values and buffers are reused, results stay. */
static void test_loop_reruns(void)
{
    gb_graph *g = counting_loop();
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK(session != NULL);
    const char *feed = "n", *fetch = "while/Exit_1";
    for (int32_t n = 0; session && n < 40; n++) {
        tfpi_tensor *x = op_tensor(TFPI_INT32, NULL, 0, &n), *out = NULL;
        CHECK(tfpi_session_run(session, &feed, &x, 1, &fetch, &out, 1, &status) == TFPI_OK);
        CHECK_EQ_INT(scalar_i32(out), n * (n - 1) / 2);
        tfpi_tensor_free(x);
    }
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* for i in 0..2: for j in 0..i-1: c += 1; also sums the inner j at exit
 * (control_flow.md test 2): c = 3 and the sum of inner j = 0+1+2 = 3. */
static void test_nested_loops(void)
{
    gb_graph *g = gb_new();
    const char *outer = "outer", *inner = "outer/inner";
    lb_const_i32(g, "zero", 0, NULL);
    lb_const_i32(g, "three", 3, NULL);
    for (int k = 0; k < 3; k++)
        lb_loop_var(g, outer, "outer_frame", k, "zero");
    lb_enter(g, "outer/Less/Enter", "three", "outer_frame", true);
    gb_node(g, "Less", "outer/Less", "outer/Merge_0", "outer/Less/Enter", NULL);
    gb_node(g, "LoopCond", "outer/LoopCond", "outer/Less", NULL);
    /* the inner loop, in the outer body */
    lb_const_i32(g, "outer/j0", 0, "^outer/Identity_0");
    lb_loop_var(g, inner, "inner_frame", 0, "outer/j0");
    lb_loop_var(g, inner, "inner_frame", 1, "outer/Identity_1");
    lb_enter(g, "outer/inner/Less/Enter", "outer/Identity_0", "inner_frame", true);
    gb_node(g, "Less", "outer/inner/Less", "outer/inner/Merge_0", "outer/inner/Less/Enter", NULL);
    gb_node(g, "LoopCond", "outer/inner/LoopCond", "outer/inner/Less", NULL);
    lb_const_i32(g, "outer/inner/one", 1, "^outer/inner/Identity_0");
    gb_node(g, "Add", "outer/inner/add", "outer/inner/Identity_0", "outer/inner/one", NULL);
    gb_node(g, "Add", "outer/inner/add_1", "outer/inner/Identity_1", "outer/inner/one", NULL);
    lb_next(g, inner, 0, "outer/inner/add");
    lb_next(g, inner, 1, "outer/inner/add_1");
    /* the outer body: i + 1, c from the inner loop, sum of the inner j */
    lb_const_i32(g, "outer/one", 1, "^outer/Identity_0");
    gb_node(g, "Add", "outer/add", "outer/Identity_0", "outer/one", NULL);
    gb_node(g, "Add", "outer/add_2", "outer/Identity_2", "outer/inner/Exit_0", NULL);
    lb_next(g, outer, 0, "outer/add");
    lb_next(g, outer, 1, "outer/inner/Exit_1");
    lb_next(g, outer, 2, "outer/add_2");
    const char *fetches[] = {"outer/Exit_0", "outer/Exit_1", "outer/Exit_2"};
    for (int threads = 1; threads <= 3; threads += 2) {
        tfpi_tensor *out[3] = {0};
        tfpi_status status;
        CHECK_MSG(op_run_graph(g, 0, NULL, NULL, 3, fetches, out, threads, &status) == TFPI_OK, "%s", status.message);
        CHECK_EQ_INT(scalar_i32(out[0]), 3);
        CHECK_EQ_INT(scalar_i32(out[1]), 3);
        CHECK_EQ_INT(scalar_i32(out[2]), 3);
    }
    gb_free(g);
}

/* while x < 100: x *= 2; count += 1 (control_flow.md test 3). */
static gb_graph *doubling_loop(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, NULL, 0);
    lb_const_i32(g, "zero", 0, NULL);
    lb_const_f32(g, "hundred", 100, NULL);
    lb_const_f32(g, "two", 2, NULL);
    lb_loop_var(g, "grow", "grow/while_context", 0, "x");
    lb_loop_var(g, "grow", "grow/while_context", 1, "zero");
    lb_enter(g, "grow/Less/Enter", "hundred", "grow/while_context", true);
    lb_enter(g, "grow/mul/Enter", "two", "grow/while_context", true);
    gb_node(g, "Less", "grow/Less", "grow/Merge_0", "grow/Less/Enter", NULL);
    gb_node(g, "LoopCond", "grow/LoopCond", "grow/Less", NULL);
    gb_node(g, "Mul", "grow/mul", "grow/Identity_0", "grow/mul/Enter", NULL);
    lb_const_i32(g, "grow/one", 1, "^grow/Identity_1");
    gb_node(g, "Add", "grow/add", "grow/Identity_1", "grow/one", NULL);
    lb_next(g, "grow", 0, "grow/mul");
    lb_next(g, "grow", 1, "grow/add");
    return g;
}

static void test_data_dependent_trips(void)
{
    gb_graph *g = doubling_loop();
    const char *feed = "x", *fetches[] = {"grow/Exit_0", "grow/Exit_1"};
    const float start[] = {3, 100}, want_x[] = {192, 100};
    const int32_t want_count[] = {6, 0};
    for (int c = 0; c < 2; c++) {
        tfpi_tensor *x = op_tensor(TFPI_FLOAT, NULL, 0, &start[c]), *out[2] = {0};
        tfpi_status status;
        CHECK_MSG(op_run_graph(g, 1, &feed, &x, 2, fetches, out, 3, &status) == TFPI_OK, "%s", status.message);
        CHECK_TENSOR(out[0], TFPI_FLOAT, 0, NULL, &want_x[c]);
        CHECK_EQ_INT(scalar_i32(out[1]), want_count[c]);
        tfpi_tensor_free(x);
    }
    gb_free(g);
}

/* x = 0 never reaches 100: the iteration limit stops it, naming the frame. */
static void test_endless_loop_limit(void)
{
    gb_graph *g = doubling_loop();
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session_options options = {.num_threads = 1};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    CHECK_MSG(session, "setup: %s", status.message);
    if (session)
        tfpi_session_set_max_loop_iterations(session, 500);
    const char *feed = "x", *fetch = "grow/Exit_1";
    const float zero = 0;
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, NULL, 0, &zero), *out = NULL;
    CHECK(session && tfpi_session_run(session, &feed, &x, 1, &fetch, &out, 1, &status) != TFPI_OK);
    CHECK(out == NULL);
    CHECK_MSG(strstr(status.message, "while loop frame 'grow/while_context' did not finish after 500 iterations"),
              "%s", status.message);
    tfpi_tensor_free(x);
    tfpi_session_free(session);
    /* With no limit set, the documented default stops it: 1,000,000 (a few
     * seconds natively; left to the host and sanitizer runs under qemu). */
    const char *qemu = getenv("QEMU");
    session = graph && !(qemu && *qemu) ? tfpi_session_new(graph, &options, &status) : NULL;
    x = op_tensor(TFPI_FLOAT, NULL, 0, &zero);
    if (session) {
        CHECK(tfpi_session_run(session, &feed, &x, 1, &fetch, &out, 1, &status) != TFPI_OK);
        CHECK_MSG(strstr(status.message,
                         "while loop frame 'grow/while_context' did not finish after 1000000 iterations"),
                  "%s", status.message);
    }
    tfpi_tensor_free(x);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* tf.cond(phase, lambda: x * 2, lambda: x + 10) with x = 3 and
 * phase = PlaceholderWithDefault(False) (control_flow.md test 4). */
static gb_graph *cond_graph_on(bool x_fed)
{
    gb_graph *g = gb_new();
    bool no = false;
    gb_const(g, "phase/default", TFPI_BOOL, NULL, 0, &no);
    gb_node(g, "PlaceholderWithDefault", "phase", "phase/default", NULL);
    if (x_fed)
        gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    else
        lb_const_f32(g, "x", 3, NULL);
    lb_cond_mul_add(g, "phase", "x");
    return g;
}

static gb_graph *cond_graph(void)
{
    return cond_graph_on(false);
}

static void test_cond(void)
{
    gb_graph *g = cond_graph();
    const char *fetches[] = {"cond/Merge", "cond/Merge:1"}, *feed = "phase";
    bool yes = true;
    for (int threads = 1; threads <= 3; threads += 2) {
        tfpi_tensor *out[2] = {0}, *phase = op_tensor(TFPI_BOOL, NULL, 0, &yes);
        tfpi_status status;
        CHECK_MSG(op_run_graph(g, 0, NULL, NULL, 2, fetches, out, threads, &status) == TFPI_OK, "%s", status.message);
        CHECK_TENSOR(out[0], TFPI_FLOAT, 0, NULL, (float[]){13});
        CHECK_EQ_INT(scalar_i32(out[1]), 0);
        CHECK_MSG(op_run_graph(g, 1, &feed, &phase, 2, fetches, out, threads, &status) == TFPI_OK, "%s", status.message);
        CHECK_TENSOR(out[0], TFPI_FLOAT, 0, NULL, (float[]){6});
        CHECK_EQ_INT(scalar_i32(out[1]), 1);
        tfpi_tensor_free(phase);
    }
    const char *dead = "cond/mul";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    CHECK(op_run_graph(g, 0, NULL, NULL, 1, &dead, &out, 1, &status) != TFPI_OK && out == NULL);
    CHECK_MSG(strstr(status.message, "fetch 'cond/mul:0' is dead: it lies in the branch of Switch 'cond/mul/Switch'"),
              "%s", status.message);
    gb_free(g);
}

/* With phase not fed, the Switches are resolved while planning and the
 * graph runs on the static plan (it has an arena); fed, it runs on the
 * dynamic executor (no arena). Same results either way. */
static void test_cond_resolved_while_planning(void)
{
    gb_graph *g = cond_graph_on(true);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK_MSG(session, "setup: %s", status.message);
    const char *names[] = {"x", "phase"}, *fetch = "cond/Merge";
    bool yes = true;
    tfpi_tensor *feeds[] = {op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){3, -1}),
                            op_tensor(TFPI_BOOL, NULL, 0, &yes)};
    for (int fed = 1; session && fed <= 2; fed++) {
        tfpi_tensor *out = NULL;
        CHECK_MSG(tfpi_session_run(session, names, feeds, fed, &fetch, &out, 1, &status) == TFPI_OK, "%s",
                  status.message);
        CHECK_TENSOR(out, TFPI_FLOAT, 1, (int64_t[]){2}, fed == 1 ? (float[]){13, 9} : (float[]){6, -2});
        CHECK_MSG((tfpi_session_arena_bytes(session) > 0) == (fed == 1), "fed %d: arena %zu", fed,
                  tfpi_session_arena_bytes(session));
    }
    tfpi_tensor_free(feeds[0]);
    tfpi_tensor_free(feeds[1]);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* The counting loop (n = 5) inside the true branch of a cond on phase; the
 * false branch gives 3 + 10. By default the loop runs zero iterations and
 * its Exit is dead (control_flow.md test 5); fed true it gives 10. */
static void test_loop_in_untaken_branch(void)
{
    gb_graph *g = gb_new();
    bool no = false, yes = true;
    gb_const(g, "phase/default", TFPI_BOOL, NULL, 0, &no);
    gb_node(g, "PlaceholderWithDefault", "phase", "phase/default", NULL);
    gb_node(g, "Switch", "cond/Switch", "phase", "phase", NULL);
    gb_node(g, "Identity", "cond/switch_t", "cond/Switch:1", NULL);
    gb_node(g, "Identity", "cond/switch_f", "cond/Switch:0", NULL);
    lb_const_i32(g, "cond/zero", 0, "^cond/switch_t");
    lb_const_i32(g, "cond/n", 5, "^cond/switch_t");
    add_counting_loop(g, "cond/while", "cond/zero", "cond/n");
    lb_const_i32(g, "cond/thirteen", 13, "^cond/switch_f");
    gb_node(g, "Merge", "cond/Merge", "cond/thirteen", "cond/while/Exit_1", NULL);
    const char *fetch = "cond/Merge", *feed = "phase";
    tfpi_tensor *out = NULL, *phase = op_tensor(TFPI_BOOL, NULL, 0, &yes);
    tfpi_status status;
    CHECK_MSG(op_run_graph(g, 0, NULL, NULL, 1, &fetch, &out, 1, &status) == TFPI_OK, "%s", status.message);
    CHECK_EQ_INT(scalar_i32(out), 13);
    CHECK_MSG(op_run_graph(g, 1, &feed, &phase, 1, &fetch, &out, 3, &status) == TFPI_OK, "%s", status.message);
    CHECK_EQ_INT(scalar_i32(out), 10);
    tfpi_tensor_free(phase);
    gb_free(g);
}

static void expect_refused(gb_graph *g, const char *fetch, const char *fragment)
{
    tfpi_tensor *out = NULL;
    tfpi_status status;
    CHECK(op_run_graph(g, 0, NULL, NULL, 1, &fetch, &out, 1, &status) != TFPI_OK && out == NULL);
    CHECK_MSG(strstr(status.message, fragment), "want '%s' in: %s", fragment, status.message);
    gb_free(g);
}

static void test_bad_graphs(void)
{
    /* a cycle of Identities beside a cond: not through NextIteration */
    gb_graph *g = cond_graph();
    gb_node(g, "Identity", "a", "b", NULL);
    gb_node(g, "Identity", "b", "a", NULL);
    gb_node(g, "Merge", "m", "a", "cond/Merge", NULL);
    expect_refused(g, "m", "the graph has a cycle through node");
    /* a loop body node that reads the outside without an Enter */
    g = counting_loop();
    gb_node(g, "Add", "while/stray", "while/Identity_0", "n", NULL);
    lb_next(g, "while", 2, "while/stray");
    gb_node(g, "Merge", "while/Merge_2", "while/Enter_0", "while/NextIteration_2", NULL);
    gb_node(g, "Identity", "out", "while/Merge_2", NULL);
    expect_refused(g, "out", "has inputs from different frames");
    /* Exit outside any loop */
    g = gb_new();
    lb_const_i32(g, "c", 1, NULL);
    gb_node(g, "Exit", "e", "c", NULL);
    expect_refused(g, "e", "node 'e' (Exit) is not inside a while loop");
    /* a fetch inside the loop */
    expect_refused(counting_loop(), "while/add", "fetch 'while/add' is inside while loop frame 'while/while_context'");
}

/* Assert(false, ["msg", [1,2,3,4]]) with summarize 3 (control_flow.md
 * test 20), as a control input of the fetch; Assert(true) passes. */
static void test_assert(void)
{
    for (int ok = 0; ok < 2; ok++) {
        gb_graph *g = gb_new();
        bool cond = ok;
        gb_placeholder(g, "x", TFPI_BOOL, NULL, 0);
        gb_const_string(g, "msg", "msg", 3);
        gb_const(g, "data", TFPI_INT32, (int64_t[]){4}, 1, (int32_t[]){1, 2, 3, 4});
        Tfpi__NodeDef *a = gb_node(g, "Assert", "check", "x", "msg", "data", NULL);
        gd_attr_set_int(a, "summarize", 3);
        lb_const_f32(g, "out", 7, "^check");
        tfpi_tensor *x = op_tensor(TFPI_BOOL, NULL, 0, &cond);
        if (ok) {
            CHECK_TENSOR(op_eval(g, x, "out"), TFPI_FLOAT, 0, NULL, (float[]){7});
        } else {
            CHECK_FAILS(g, x, "out", "check", "assertion failed: [msg] [1 2 3...]");
        }
        tfpi_tensor_free(x);
        gb_free(g);
    }
}

int main(void)
{
    RUN(test_counting_loop);
    RUN(test_loop_reruns);
    RUN(test_nested_loops);
    RUN(test_data_dependent_trips);
    RUN(test_endless_loop_limit);
    RUN(test_cond);
    RUN(test_cond_resolved_while_planning);
    RUN(test_loop_in_untaken_branch);
    RUN(test_bad_graphs);
    RUN(test_assert);
    return check_summary();
}
