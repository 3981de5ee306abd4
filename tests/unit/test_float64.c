/* test_float64.c - float64 in the ops graphs use to build coordinate grids
 * (anchor generators, keypoint heads): Cast both ways, RealDiv, Mul, Add,
 * Sub, Maximum, Less, Tile, Transpose, Pack, ConcatV2, GatherV2, Range,
 * Exp, Sqrt, Floor, Neg, Sum and Max, on values worked out by hand (numpy
 * gives the same in float64). */
#include <math.h>

#include "check.h"
#include "op_test.h"

static gb_graph *grid_graph(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_DOUBLE, (int64_t[]){2, 3}, 2);
    gb_const(g, "two", TFPI_DOUBLE, NULL, 0, (double[]){2});
    gb_const(g, "row", TFPI_DOUBLE, (int64_t[]){3}, 1, (double[]){1, 0.5, 4});
    gb_const(g, "axis1", TFPI_INT32, NULL, 0, (int32_t[]){1});
    gb_const(g, "perm", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){1, 0});
    gb_const(g, "reps", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){1, 2});
    gb_const(g, "start", TFPI_DOUBLE, NULL, 0, (double[]){0.5});
    gb_const(g, "limit", TFPI_DOUBLE, NULL, 0, (double[]){2});
    gb_const(g, "delta", TFPI_DOUBLE, NULL, 0, (double[]){0.5});
    gb_node(g, "RealDiv", "div", "x", "two", NULL);
    gb_node(g, "Mul", "mul", "x", "row", NULL);
    gb_node(g, "Add", "add", "x", "row", NULL);
    gb_node(g, "Sub", "sub", "x", "row", NULL);
    gb_node(g, "Maximum", "max2", "x", "row", NULL);
    gb_node(g, "Less", "less", "x", "row", NULL);
    gb_node(g, "Tile", "tile", "x", "reps", NULL);
    gb_node(g, "Transpose", "transpose", "x", "perm", NULL);
    gb_node(g, "Pack", "pack", "row", "row", NULL);
    gb_node(g, "Range", "range", "start", "limit", "delta", NULL);
    gb_node(g, "Exp", "exp", "row", NULL);
    gb_node(g, "Sqrt", "sqrt", "row", NULL);
    gb_node(g, "Floor", "floor", "div", NULL);
    gb_node(g, "Neg", "neg", "row", NULL);
    gb_const(g, "zero_i", TFPI_INT32, NULL, 0, (int32_t[]){0});
    gb_const(g, "pick", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){2, 0});
    gb_node(g, "ConcatV2", "concat", "x", "x", "zero_i", NULL);
    gb_node(g, "GatherV2", "gather", "row", "pick", "zero_i", NULL);
    gb_node(g, "Sum", "sum", "x", "axis1", NULL);
    gb_node(g, "Max", "max", "x", "axis1", NULL);
    Tfpi__NodeDef *c = gb_node(g, "Cast", "to_float", "x", NULL);
    gd_attr_set_type(c, "DstT", TFPI_FLOAT);
    c = gb_node(g, "Cast", "back", "to_float", NULL);
    gd_attr_set_type(c, "DstT", TFPI_DOUBLE);
    return g;
}

static void test_grid_ops(void)
{
    gb_graph *g = grid_graph();
    /* x = [[1, 2, 3], [4, 5, 6]] (exact in float32 too, so Cast round-trips) */
    tfpi_tensor *x = op_tensor(TFPI_DOUBLE, (int64_t[]){2, 3}, 2, (double[]){1, 2, 3, 4, 5, 6});
    const int64_t d23[] = {2, 3};
    CHECK_TENSOR(op_eval(g, x, "div"), TFPI_DOUBLE, 2, d23, (double[]){0.5, 1, 1.5, 2, 2.5, 3});
    CHECK_TENSOR(op_eval(g, x, "mul"), TFPI_DOUBLE, 2, d23, (double[]){1, 1, 12, 4, 2.5, 24});
    CHECK_TENSOR(op_eval(g, x, "add"), TFPI_DOUBLE, 2, d23, (double[]){2, 2.5, 7, 5, 5.5, 10});
    CHECK_TENSOR(op_eval(g, x, "sub"), TFPI_DOUBLE, 2, d23, (double[]){0, 1.5, -1, 3, 4.5, 2});
    CHECK_TENSOR(op_eval(g, x, "max2"), TFPI_DOUBLE, 2, d23, (double[]){1, 2, 4, 4, 5, 6});
    CHECK_TENSOR(op_eval(g, x, "less"), TFPI_BOOL, 2, d23, (uint8_t[]){0, 0, 1, 0, 0, 0});
    CHECK_TENSOR(op_eval(g, x, "tile"), TFPI_DOUBLE, 2, (int64_t[]){2, 6},
                 (double[]){1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6});
    CHECK_TENSOR(op_eval(g, x, "transpose"), TFPI_DOUBLE, 2, (int64_t[]){3, 2}, (double[]){1, 4, 2, 5, 3, 6});
    CHECK_TENSOR(op_eval(g, x, "pack"), TFPI_DOUBLE, 2, d23, (double[]){1, 0.5, 4, 1, 0.5, 4});
    CHECK_TENSOR(op_eval(g, x, "range"), TFPI_DOUBLE, 1, (int64_t[]){3}, (double[]){0.5, 1, 1.5});
    CHECK_TENSOR(op_eval(g, x, "exp"), TFPI_DOUBLE, 1, (int64_t[]){3}, (double[]){exp(1), exp(0.5), exp(4)});
    CHECK_TENSOR(op_eval(g, x, "sqrt"), TFPI_DOUBLE, 1, (int64_t[]){3}, (double[]){1, sqrt(0.5), 2});
    CHECK_TENSOR(op_eval(g, x, "floor"), TFPI_DOUBLE, 2, d23, (double[]){0, 1, 1, 2, 2, 3});
    CHECK_TENSOR(op_eval(g, x, "neg"), TFPI_DOUBLE, 1, (int64_t[]){3}, (double[]){-1, -0.5, -4});
    CHECK_TENSOR(op_eval(g, x, "concat"), TFPI_DOUBLE, 2, (int64_t[]){4, 3},
                 (double[]){1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    CHECK_TENSOR(op_eval(g, x, "gather"), TFPI_DOUBLE, 1, (int64_t[]){2}, (double[]){4, 1});
    CHECK_TENSOR(op_eval(g, x, "sum"), TFPI_DOUBLE, 1, (int64_t[]){2}, (double[]){6, 15});
    CHECK_TENSOR(op_eval(g, x, "max"), TFPI_DOUBLE, 1, (int64_t[]){2}, (double[]){3, 6});
    CHECK_TENSOR(op_eval(g, x, "back"), TFPI_DOUBLE, 2, d23, (double[]){1, 2, 3, 4, 5, 6});
    tfpi_tensor_free(x);
    gb_free(g);
}

int main(void)
{
    RUN(test_grid_ops);
    return check_summary();
}
