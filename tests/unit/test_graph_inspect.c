/* test_graph_inspect.c - the C API's questions about a loaded graph that
 * bindings build their input and output lists from: control inputs (a node
 * read only through "^name" is not an output), each output's element type
 * before anything runs, and a Const's value; on small graphs written here
 * and on the real Object Detection API export. */
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "tfpi.h"

static void test_output_dtypes(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){1, 4}, 2);
    gb_node(g, "Less", "less", "x", "x", NULL);
    gd_attr_set_type(gb_node(g, "Cast", "cast", "x", NULL), "DstT", TFPI_INT32);
    gb_node(g, "Shape", "shape", "x", NULL); /* out_type left out: int32 */
    gd_attr_set_type(gb_node(g, "ArgMax", "argmax", "x", "axis", NULL), "output_type", TFPI_INT32);
    gb_const(g, "axis", TFPI_INT32, NULL, 0, (int32_t[]){1});
    gd_attr_set_type(gb_node(g, "Relu", "relu", "x", NULL), "T", TFPI_FLOAT);
    gd_attr_set_type(gb_node(g, "TopKV2", "top", "x", "k", NULL), "T", TFPI_FLOAT);
    gb_const(g, "k", TFPI_INT32, NULL, 0, (int32_t[]){2});
    gd_attr_set_type(gb_node(g, "QuantizeV2", "q", "x", "k", "k", NULL), "T", TFPI_QUINT8);
    gb_node(g, "NoAttrs", "mystery", "x", NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    CHECK_MSG(graph, "%s", status.message);
    if (graph) {
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "x"), TFPI_FLOAT);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "less"), TFPI_BOOL);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "cast"), TFPI_INT32);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "shape:0"), TFPI_INT32);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "argmax"), TFPI_INT32);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "relu"), TFPI_FLOAT);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "top:0"), TFPI_FLOAT);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "top:1"), TFPI_INT32);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "q:0"), TFPI_QUINT8);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "q:2"), TFPI_FLOAT);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "mystery"), 0);
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "no_such_node"), 0);
    }
    tfpi_graph_free(graph);
    gb_free(g);
}

static int node_index(const tfpi_graph *graph, const char *name)
{
    for (int i = 0; i < tfpi_graph_num_nodes(graph); i++)
        if (!strcmp(tfpi_graph_node_name(graph, i), name))
            return i;
    return -1;
}

static void test_control_inputs_and_values(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    gb_const(g, "c", TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){7, -1, 300});
    gb_node(g, "NoOp", "first", NULL);
    gb_node(g, "NoOp", "second", NULL);
    gb_node(g, "Identity", "y", "x", "^first", "^second", NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    CHECK_MSG(graph, "%s", status.message);
    if (graph) {
        int y = node_index(graph, "y");
        CHECK_EQ_INT(tfpi_graph_node_num_inputs(graph, y), 1);
        CHECK_EQ_INT(tfpi_graph_node_num_control_inputs(graph, y), 2);
        CHECK_EQ_INT(tfpi_graph_node_control_input(graph, y, 0), node_index(graph, "first"));
        CHECK_EQ_INT(tfpi_graph_node_control_input(graph, y, 1), node_index(graph, "second"));
        CHECK_EQ_INT(tfpi_graph_node_control_input(graph, y, 2), -1);
        CHECK_EQ_INT(tfpi_graph_node_control_input(graph, -1, 0), -1);
        CHECK_EQ_INT(tfpi_graph_node_num_control_inputs(graph, 99), 0);

        tfpi_tensor *c = tfpi_graph_const_value(graph, "c", &status);
        CHECK_MSG(c, "%s", status.message);
        if (c) {
            const int32_t *v = tfpi_tensor_const_data(c);
            CHECK(tfpi_tensor_dtype(c) == TFPI_INT32 && tfpi_tensor_num_elements(c) == 3);
            CHECK(v[0] == 7 && v[1] == -1 && v[2] == 300);
            tfpi_tensor_free(c);
        }
        CHECK(!tfpi_graph_const_value(graph, "x", &status));
        CHECK_MSG(strstr(status.message, "'x' is not a Const node"), "%s", status.message);
        CHECK(!tfpi_graph_const_value(graph, "absent", &status));
    }
    tfpi_graph_free(graph);
    gb_free(g);
}

/* The SSD export: its four outputs are float; its Asserts and the switch_t /
 * switch_f nodes of its conds are read through control inputs; the size its
 * preprocessor resizes images to is a Const. */
static void test_detection_export(void)
{
    tfpi_status status;
    tfpi_graph *graph = tfpi_graph_load_file(testdata_path("detection/ssd_aiy/frozen_inference_graph.pb"), &status);
    CHECK_MSG(graph, "%s", status.message);
    if (!graph)
        return;
    const char *outputs[] = {"detection_boxes", "detection_scores", "detection_classes", "num_detections"};
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(tfpi_graph_output_dtype(graph, outputs[i]), TFPI_FLOAT);
    CHECK_EQ_INT(tfpi_graph_output_dtype(graph, "image_tensor"), TFPI_UINT8);
    int controlled = 0, n = tfpi_graph_num_nodes(graph);
    int assert_node = node_index(graph, "MultipleGridAnchorGenerator/assert_equal/Assert/Assert");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < tfpi_graph_node_num_control_inputs(graph, i); k++)
            controlled += tfpi_graph_node_control_input(graph, i, k) == assert_node;
    CHECK(assert_node >= 0 && controlled >= 1);
    tfpi_tensor *size = tfpi_graph_const_value(graph, "Preprocessor/map/while/ResizeImage/stack", &status);
    CHECK_MSG(size, "%s", status.message);
    if (size) {
        const int32_t *v = tfpi_tensor_const_data(size);
        CHECK(tfpi_tensor_num_elements(size) == 2 && v[0] == 256 && v[1] == 256);
        tfpi_tensor_free(size);
    }
    tfpi_graph_free(graph);
}

int main(void)
{
    RUN(test_output_dtypes);
    RUN(test_control_inputs_and_values);
    RUN(test_detection_export);
    return check_summary();
}
