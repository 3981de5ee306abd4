/* test_resource_variables.c - TF2 resource variables held by the session:
 * a read before any assignment fails naming the variable; an assignment in
 * one run is what the next run reads (through a plan that folds the read
 * like a constant, then after the value changes); AssignAddVariableOp /
 * AssignSubVariableOp accumulate from run to run (a counter), reads after
 * a write in the same run see it; ResourceGather,
 * VariableShape and VarIsInitializedOp; dtype and shape mismatches and
 * values over the memory budget fail with the variable's name; two
 * sessions on one graph keep separate variables; reset_variables forgets
 * them. Values worked out by hand. */
#include <string.h>

#include "check.h"
#include "op_test.h"

static Tfpi__NodeDef *handle(gb_graph *g, const char *name, tfpi_dtype dtype, const char *shared)
{
    Tfpi__NodeDef *n = gb_node(g, "VarHandleOp", name, NULL);
    gd_attr_set_type(n, "dtype", dtype);
    gd_attr_set_shape(n, "shape", NULL, -1);
    if (shared)
        gd_attr_set_string(n, "shared_name", shared);
    return n;
}

static void typed(Tfpi__NodeDef *n, const char *key, tfpi_dtype dtype) { gd_attr_set_type(n, key, dtype); }

/* v: float [3] = init; "assign" (via "assigned") sets it, "bump" adds delta,
 * "y" = x * v, "after_bump" reads v after bump; counter: int32 scalar. */
static gb_graph *variable_graph(void)
{
    gb_graph *g = gb_new();
    handle(g, "v", TFPI_FLOAT, "v");
    gb_const(g, "init", TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){1, 2, 3});
    gb_const(g, "delta", TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){0.5f, -1, 4});
    typed(gb_node(g, "AssignVariableOp", "assign", "v", "init", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "Identity", "assigned", "init", "^assign", NULL), "T", TFPI_FLOAT);
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){3}, 1);
    typed(gb_node(g, "ReadVariableOp", "read", "v", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "Mul", "y", "x", "read", NULL), "T", TFPI_FLOAT);
    typed(gb_node(g, "AssignAddVariableOp", "bump", "v", "delta", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "ReadVariableOp", "after_bump", "v", "^bump", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "AssignSubVariableOp", "unbump", "v", "delta", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "ReadVariableOp", "after_unbump", "v", "^unbump", NULL), "dtype", TFPI_FLOAT);
    gb_const(g, "rows", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){2, 0});
    typed(gb_node(g, "ResourceGather", "gathered", "v", "rows", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "VariableShape", "shape", "v", NULL), "out_type", TFPI_INT32);
    gb_node(g, "VarIsInitializedOp", "is_set", "v", NULL);
    handle(g, "counter", TFPI_INT32, NULL);
    gb_const(g, "zero", TFPI_INT32, NULL, 0, (int32_t[]){0});
    gb_const(g, "one", TFPI_INT32, NULL, 0, (int32_t[]){1});
    typed(gb_node(g, "AssignVariableOp", "reset", "counter", "zero", NULL), "dtype", TFPI_INT32);
    typed(gb_node(g, "Identity", "was_reset", "zero", "^reset", NULL), "T", TFPI_INT32);
    typed(gb_node(g, "AssignAddVariableOp", "tick", "counter", "one", NULL), "dtype", TFPI_INT32);
    typed(gb_node(g, "ReadVariableOp", "count", "counter", "^tick", NULL), "dtype", TFPI_INT32);
    gb_const(g, "wrong", TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){1, 2, 3});
    typed(gb_node(g, "AssignVariableOp", "assign_int", "v", "wrong", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "Identity", "assigned_int", "wrong", "^assign_int", NULL), "T", TFPI_INT32);
    gb_const(g, "short", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){1, 2});
    typed(gb_node(g, "AssignAddVariableOp", "bump_short", "v", "short", NULL), "dtype", TFPI_FLOAT);
    typed(gb_node(g, "Identity", "bumped_short", "short", "^bump_short", NULL), "T", TFPI_FLOAT);
    return g;
}

/* Runs fetch (with x fed if given) on the session; the output or NULL. */
static tfpi_tensor *run(tfpi_session *s, const char *fetch, tfpi_tensor *x, tfpi_status *status)
{
    tfpi_tensor *out = NULL;
    const char *feed_names[] = {"x"};
    tfpi_tensor *feeds[] = {x};
    tfpi_session_run(s, feed_names, feeds, x ? 1 : 0, &fetch, &out, 1, status);
    return out;
}

static void check_floats(tfpi_tensor *t, const float *want, int n)
{
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(tfpi_tensor_num_elements(t), n);
    for (int i = 0; i < n && i < tfpi_tensor_num_elements(t); i++)
        CHECK_NEAR(((const float *)tfpi_tensor_const_data(t))[i], want[i], 1e-6);
    tfpi_tensor_free(t);
}

static void check_int(tfpi_tensor *t, int32_t want)
{
    CHECK(t != NULL);
    if (t)
        CHECK_EQ_INT(*(const int32_t *)tfpi_tensor_const_data(t), want);
    tfpi_tensor_free(t);
}

static void test_values_persist_across_runs(void)
{
    gb_graph *g = variable_graph();
    tfpi_status status = {0};
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *s = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK(s != NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){10, 100, -1});
    CHECK(run(s, "y", x, &status) == NULL);
    CHECK_MSG(strstr(status.message, "node 'read' (ReadVariableOp): variable 'v' read before it was restored"),
              "%s", status.message);
    check_int(run(s, "is_set", NULL, &status), 0);
    check_floats(run(s, "assigned", NULL, &status), (float[]){1, 2, 3}, 3);
    check_int(run(s, "is_set", NULL, &status), 1);
    check_floats(run(s, "y", x, &status), (float[]){10, 200, -3}, 3);
    check_floats(run(s, "y", x, &status), (float[]){10, 200, -3}, 3); /* the plan kept */
    check_floats(run(s, "after_bump", NULL, &status), (float[]){1.5f, 1, 7}, 3);
    check_floats(run(s, "after_bump", NULL, &status), (float[]){2, 0, 11}, 3);
    check_floats(run(s, "y", x, &status), (float[]){20, 0, -11}, 3); /* the plan of other fetches replaced its plan */
    check_floats(run(s, "after_unbump", NULL, &status), (float[]){1.5f, 1, 7}, 3);
    check_floats(run(s, "gathered", NULL, &status), (float[]){7, 1.5f}, 2);
    tfpi_tensor *shape = run(s, "shape", NULL, &status);
    CHECK(shape && tfpi_tensor_num_elements(shape) == 1 && *(const int32_t *)tfpi_tensor_const_data(shape) == 3);
    tfpi_tensor_free(shape);
    check_int(run(s, "was_reset", NULL, &status), 0);
    for (int i = 1; i <= 3; i++)
        check_int(run(s, "count", NULL, &status), i);
    /* a second session has its own variables */
    tfpi_session *other = tfpi_session_new(graph, NULL, &status);
    CHECK(run(other, "count", NULL, &status) == NULL);
    CHECK_MSG(strstr(status.message, "variable 'counter' read before"), "%s", status.message);
    check_int(run(s, "count", NULL, &status), 4);
    /* reset_variables: back to unassigned, as a new session starts */
    tfpi_session_reset_variables(s);
    CHECK(run(s, "count", NULL, &status) == NULL);
    CHECK_MSG(strstr(status.message, "variable 'counter' read before"), "%s", status.message);
    check_int(run(s, "was_reset", NULL, &status), 0);
    check_int(run(s, "count", NULL, &status), 1);
    tfpi_session_free(other);
    tfpi_tensor_free(x);
    tfpi_session_free(s);
    tfpi_graph_free(graph);
    gb_free(g);
}

static void test_bad_assignments(void)
{
    gb_graph *g = variable_graph();
    tfpi_status status = {0};
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *s = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK(s != NULL);
    CHECK(run(s, "assigned_int", NULL, &status) == NULL);
    CHECK_MSG(strstr(status.message, "node 'assign_int' (AssignVariableOp): assigns a int32 value to float variable 'v'"),
              "%s", status.message);
    CHECK(run(s, "after_bump", NULL, &status) == NULL); /* adding to nothing */
    CHECK_MSG(strstr(status.message, "variable 'v' read before it was restored"), "%s", status.message);
    check_floats(run(s, "assigned", NULL, &status), (float[]){1, 2, 3}, 3);
    CHECK(run(s, "bumped_short", NULL, &status) == NULL);
    CHECK_MSG(strstr(status.message, "variable 'v' has shape [3], the value [2]"), "%s", status.message);
    tfpi_session_free(s);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* Three variables of 4000 bytes each in a budget of 10000: the third fails. */
static void test_variables_over_budget(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){1000}, 1);
    const char *names[] = {"a", "b", "c"}, *assigns[] = {"set_a", "set_b", "set_c"};
    for (int i = 0; i < 3; i++) {
        handle(g, names[i], TFPI_FLOAT, NULL);
        typed(gb_node(g, "AssignVariableOp", assigns[i], names[i], "x", NULL), "dtype", TFPI_FLOAT);
    }
    typed(gb_node(g, "Identity", "done", "x", "^set_a", "^set_b", "^set_c", NULL), "T", TFPI_FLOAT);
    tfpi_status status = {0};
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = 10000};
    tfpi_session *s = graph ? tfpi_session_new(graph, &options, &status) : NULL;
    float zeros[1000] = {0};
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){1000}, 1, zeros);
    CHECK(s && run(s, "done", x, &status) == NULL);
    CHECK_MSG(strstr(status.message, "needs 4000 bytes; with the 8000 bytes the session's other variables hold that is "
                                     "over the memory budget of 10000 bytes"),
              "%s", status.message);
    tfpi_tensor_free(x);
    tfpi_session_free(s);
    tfpi_graph_free(graph);
    gb_free(g);
}

int main(void)
{
    RUN(test_values_persist_across_runs);
    RUN(test_bad_assignments);
    RUN(test_variables_over_budget);
    return check_summary();
}
