/* test_sequence_ops.c - CTCGreedyDecoder, SparseToDense, ClipByValue and
 * ReverseSequence with control_flow.md's hand-computed cases: the greedy decode of a
 * 4-step sequence with and without merged repeats, plus an empty second
 * sequence (log probabilities, sparse indices, dense shape); SparseToDense
 * in order, out of order (an error unless validate_indices is off) and out
 * of bounds; ClipByValue with scalar and elementwise bounds; ReverseSequence
 * along either dimension and a length past the end. */
#include <stdio.h>

#include "check.h"
#include "op_test.h"

/* T=4, batch 2, 3 classes (blank 2): sequence 0 takes classes 0 0 2 0 with
 * logit 1 each step; sequence 1 has length 0. */
static gb_graph *ctc_graph(bool merge)
{
    float logits[4][2][3] = {{{0}}};
    const int argmax[4] = {0, 0, 2, 0};
    for (int t = 0; t < 4; t++) {
        logits[t][0][argmax[t]] = 1;
        logits[t][1][1] = 5;
    }
    gb_graph *g = gb_new();
    gb_const(g, "logits", TFPI_FLOAT, (int64_t[]){4, 2, 3}, 3, logits);
    gb_const(g, "len", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){4, 0});
    gb_const(g, "too_long", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){5, 0});
    Tfpi__NodeDef *n = gb_node(g, "CTCGreedyDecoder", "ctc", "logits", "len", NULL);
    gd_attr_set_bool(n, "merge_repeated", merge);
    gb_node(g, "CTCGreedyDecoder", "bad", "logits", "too_long", NULL);
    for (int o = 0; o < 4; o++) {
        char name[8], input[8];
        snprintf(name, sizeof name, "out%d", o);
        snprintf(input, sizeof input, "ctc:%d", o);
        gb_node(g, "Identity", name, input, NULL);
    }
    return g;
}

static void test_ctc_greedy(void)
{
    gb_graph *g = ctc_graph(true);
    CHECK_TENSOR(op_eval(g, NULL, "out0"), TFPI_INT64, 2, (int64_t[]){2, 2}, (int64_t[]){0, 0, 0, 1});
    CHECK_TENSOR(op_eval(g, NULL, "out1"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 0});
    CHECK_TENSOR(op_eval(g, NULL, "out2"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){2, 2});
    CHECK_TENSOR(op_eval(g, NULL, "out3"), TFPI_FLOAT, 2, (int64_t[]){2, 1}, (float[]){-4, 0});
    CHECK_FAILS(g, NULL, "bad", "bad", "sequence_length(0) = 5 is not in [0, max_time 4]");
    gb_free(g);
    g = ctc_graph(false);
    CHECK_TENSOR(op_eval(g, NULL, "out1"), TFPI_INT64, 1, (int64_t[]){3}, (int64_t[]){0, 0, 0});
    CHECK_TENSOR(op_eval(g, NULL, "out2"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    gb_free(g);
}

static void test_sparse_to_dense(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "in_order", TFPI_INT32, (int64_t[]){2, 2}, 2, (int32_t[]){0, 1, 2, 0});
    gb_const(g, "swapped", TFPI_INT32, (int64_t[]){2, 2}, 2, (int32_t[]){2, 0, 0, 1});
    gb_const(g, "outside", TFPI_INT32, (int64_t[]){2, 2}, 2, (int32_t[]){0, 1, 3, 0});
    gb_const(g, "shape", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){3, 2});
    gb_const(g, "values", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){5, 6});
    gb_const(g, "zero", TFPI_FLOAT, NULL, 0, (float[]){0});
    gb_node(g, "SparseToDense", "dense", "in_order", "shape", "values", "zero", NULL);
    gb_node(g, "SparseToDense", "out_of_order", "swapped", "shape", "values", "zero", NULL);
    Tfpi__NodeDef *n = gb_node(g, "SparseToDense", "unvalidated", "swapped", "shape", "values", "zero", NULL);
    gd_attr_set_bool(n, "validate_indices", false);
    gb_node(g, "SparseToDense", "out_of_bounds", "outside", "shape", "values", "zero", NULL);
    const int64_t d32[] = {3, 2};
    CHECK_TENSOR(op_eval(g, NULL, "dense"), TFPI_FLOAT, 2, d32, (float[]){0, 5, 0, 0, 6, 0});
    CHECK_TENSOR(op_eval(g, NULL, "unvalidated"), TFPI_FLOAT, 2, d32, (float[]){0, 6, 0, 0, 5, 0});
    CHECK_FAILS(g, NULL, "out_of_order", "out_of_order", "indices[1] is out of order");
    CHECK_FAILS(g, NULL, "out_of_bounds", "out_of_bounds", "indices[1] is out of bounds");
    gb_free(g);
}

static void test_clip_by_value(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){3}, 1);
    gb_const(g, "lo", TFPI_FLOAT, NULL, 0, (float[]){0});
    gb_const(g, "hi", TFPI_FLOAT, NULL, 0, (float[]){1});
    gb_const(g, "his", TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){1, 0.25f, 5});
    gb_const(g, "ints", TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){-7, 3, 12});
    gb_const(g, "ilo", TFPI_INT32, NULL, 0, (int32_t[]){0});
    gb_const(g, "ihi", TFPI_INT32, NULL, 0, (int32_t[]){10});
    gb_node(g, "ClipByValue", "scalar", "x", "lo", "hi", NULL);
    gb_node(g, "ClipByValue", "each", "x", "lo", "his", NULL);
    gb_node(g, "ClipByValue", "int", "ints", "ilo", "ihi", NULL);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){3}, 1, (float[]){-2, 0.5f, 3});
    CHECK_TENSOR(op_eval(g, x, "scalar"), TFPI_FLOAT, 1, (int64_t[]){3}, (float[]){0, 0.5f, 1});
    CHECK_TENSOR(op_eval(g, x, "each"), TFPI_FLOAT, 1, (int64_t[]){3}, (float[]){0, 0.25f, 3});
    CHECK_TENSOR(op_eval(g, x, "int"), TFPI_INT32, 1, (int64_t[]){3}, (int32_t[]){0, 3, 10});
    tfpi_tensor_free(x);
    gb_free(g);
}

/* [[1,2,3,4],[5,6,7,8]] with lengths [3,1] along dim 1: [[3,2,1,4],[5,6,7,8]];
 * the same transposed (seq_dim 0, batch_dim 1). */
static void test_reverse_sequence(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, (int64_t[]){2, 4}, 2, (float[]){1, 2, 3, 4, 5, 6, 7, 8});
    gb_const(g, "xt", TFPI_FLOAT, (int64_t[]){4, 2}, 2, (float[]){1, 5, 2, 6, 3, 7, 4, 8});
    gb_const(g, "len", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){3, 1});
    gb_const(g, "too_long", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){5, 1});
    Tfpi__NodeDef *n = gb_node(g, "ReverseSequence", "rows", "x", "len", NULL);
    gd_attr_set_int(n, "seq_dim", 1);
    n = gb_node(g, "ReverseSequence", "cols", "xt", "len", NULL);
    gd_attr_set_int(n, "batch_dim", 1);
    n = gb_node(g, "ReverseSequence", "bad", "x", "too_long", NULL);
    gd_attr_set_int(n, "seq_dim", 1);
    CHECK_TENSOR(op_eval(g, NULL, "rows"), TFPI_FLOAT, 2, (int64_t[]){2, 4}, (float[]){3, 2, 1, 4, 5, 6, 7, 8});
    CHECK_TENSOR(op_eval(g, NULL, "cols"), TFPI_FLOAT, 2, (int64_t[]){4, 2}, (float[]){3, 5, 2, 6, 1, 7, 4, 8});
    CHECK_FAILS(g, NULL, "bad", "bad", "seq_lengths[0] = 5 is not in [0, 4]");
    gb_free(g);
}

int main(void)
{
    RUN(test_ctc_greedy);
    RUN(test_sparse_to_dense);
    RUN(test_clip_by_value);
    RUN(test_reverse_sequence);
    return check_summary();
}
