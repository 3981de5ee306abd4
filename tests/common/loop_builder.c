/* loop_builder.c - TF1 while-loop and cond skeletons for tests (see
 * loop_builder.h). */
#include <stdio.h>

#include "loop_builder.h"

const char *lb_name(const char *scope, const char *suffix)
{
    static char names[8][200];
    static int next;
    char *name = names[next++ % 8];
    snprintf(name, sizeof names[0], "%s/%s", scope, suffix);
    return name;
}

void lb_enter(gb_graph *g, const char *name, const char *input, const char *frame, bool constant)
{
    Tfpi__NodeDef *n = gb_node(g, "Enter", name, input, NULL);
    gd_attr_set_string(n, "frame_name", frame);
    gd_attr_set_bool(n, "is_constant", constant);
    gd_attr_set_int(n, "parallel_iterations", 10);
}

void lb_loop_var(gb_graph *g, const char *scope, const char *frame, int k, const char *init)
{
    char enter[200], merge[200], next[200], sw[200], port[220];
    snprintf(enter, sizeof enter, "%s/Enter_%d", scope, k);
    snprintf(merge, sizeof merge, "%s/Merge_%d", scope, k);
    snprintf(next, sizeof next, "%s/NextIteration_%d", scope, k);
    snprintf(sw, sizeof sw, "%s/Switch_%d", scope, k);
    lb_enter(g, enter, init, frame, false);
    gb_node(g, "Merge", merge, enter, next, NULL);
    gb_node(g, "Switch", sw, merge, lb_name(scope, "LoopCond"), NULL);
    char name[200];
    snprintf(port, sizeof port, "%s:1", sw);
    snprintf(name, sizeof name, "%s/Identity_%d", scope, k);
    gb_node(g, "Identity", name, port, NULL);
    snprintf(port, sizeof port, "%s:0", sw);
    snprintf(name, sizeof name, "%s/Exit_%d", scope, k);
    gb_node(g, "Exit", name, port, NULL);
}

void lb_next(gb_graph *g, const char *scope, int k, const char *value)
{
    char name[200];
    snprintf(name, sizeof name, "%s/NextIteration_%d", scope, k);
    gb_node(g, "NextIteration", name, value, NULL);
}

static void scalar_const(gb_graph *g, const char *name, tfpi_dtype dtype, const void *value, const char *control)
{
    Tfpi__NodeDef *n = gb_node(g, "Const", name, control, NULL); /* control NULL: no inputs */
    gd_attr_set_type(n, "dtype", dtype);
    gb_attr_tensor(n, "value", dtype, NULL, 0, value);
}

void lb_const_i32(gb_graph *g, const char *name, int32_t value, const char *control)
{
    scalar_const(g, name, TFPI_INT32, &value, control);
}

void lb_const_f32(gb_graph *g, const char *name, float value, const char *control)
{
    scalar_const(g, name, TFPI_FLOAT, &value, control);
}

void lb_cond_mul_add(gb_graph *g, const char *pred, const char *x)
{
    gb_node(g, "Switch", "cond/Switch", pred, pred, NULL);
    gb_node(g, "Identity", "cond/switch_t", "cond/Switch:1", NULL);
    gb_node(g, "Identity", "cond/switch_f", "cond/Switch:0", NULL);
    gb_node(g, "Identity", "cond/pred_id", pred, NULL);
    gb_node(g, "Switch", "cond/mul/Switch", x, "cond/pred_id", NULL);
    lb_const_f32(g, "cond/mul/y", 2, "^cond/switch_t");
    gb_node(g, "Mul", "cond/mul", "cond/mul/Switch:1", "cond/mul/y", NULL);
    gb_node(g, "Switch", "cond/add/Switch", x, "cond/pred_id", NULL);
    lb_const_f32(g, "cond/add/y", 10, "^cond/switch_f");
    gb_node(g, "Add", "cond/add", "cond/add/Switch:0", "cond/add/y", NULL);
    gb_node(g, "Merge", "cond/Merge", "cond/add", "cond/mul", NULL);
}
