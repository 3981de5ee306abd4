"""rnn_graphs.py - TF 1.x `dynamic_rnn` graphs written the way TensorFlow
writes them (docs: control_flow.md 4.2): the input unstacked into a
TensorArray, a while loop in frame `rnn/while/while_context` carrying time,
the output TensorArray's flow and the cell state, the cell's Consts tied
into the frame by `^rnn/while/Identity`, the outputs gathered and
transposed back. Cells: BasicLSTMCell (forget_bias 1) and GRUCell. With
each graph go random inputs of a few lengths and numpy's answers (the cell
equations below, computed independently of the graph).

    python3 tests/cli/rnn_graphs.py OUT_DIR

writes OUT_DIR/{lstm,gru}.pb, OUT_DIR/<cell>_T<n>.npy (input [1,T,4]) and
OUT_DIR/<cell>_T<n>.{outputs,state}.npy (numpy's rnn/transpose_1 and final
state)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, Shape, encode_graph  # noqa: E402

F, I32 = DType(1), DType(3)
INPUTS, UNITS = 4, 3
FRAME = "rnn/while/while_context"
W = "rnn/while/"


def const(name, value, dtype=F, control=None):
    array = np.asarray(value, np.float32 if dtype == F else np.int32)
    return Node(name, "Const", ["^" + control] if control else [], {"dtype": dtype, "value": array})


def enter(name, source, dtype, constant):
    return Node(name, "Enter", [source], {"T": dtype, "frame_name": FRAME, "is_constant": constant,
                                          "parallel_iterations": 32})


def op(name, kind, inputs, **attrs):
    return Node(name, kind, list(inputs), {"T": F, **attrs})


def lstm_cell(x, h, c, weights):
    """BasicLSTMCell: the body nodes and the names of (new c, new h)."""
    kernel, bias = weights
    p = W + "basic_lstm_cell/"
    nodes = [const(p + "Const", 1, I32, W + "Identity"), const(p + "Const_1", 1.0, F, W + "Identity"),
             Node(p + "concat", "ConcatV2", [x, h, p + "Const"], {"T": F, "N": 2, "Tidx": I32}),
             enter(p + "MatMul/Enter", "rnn/basic_lstm_cell/kernel", F, True),
             op(p + "MatMul", "MatMul", [p + "concat", p + "MatMul/Enter"], transpose_a=False, transpose_b=False),
             enter(p + "BiasAdd/Enter", "rnn/basic_lstm_cell/bias", F, True),
             op(p + "BiasAdd", "BiasAdd", [p + "MatMul", p + "BiasAdd/Enter"], data_format="NHWC"),
             Node(p + "split", "Split", [p + "Const", p + "BiasAdd"], {"T": F, "num_split": 4}),
             op(p + "Add", "Add", [p + "split:2", p + "Const_1"]),
             op(p + "Sigmoid", "Sigmoid", [p + "Add"]),
             op(p + "Mul", "Mul", [c, p + "Sigmoid"]),
             op(p + "Sigmoid_1", "Sigmoid", [p + "split"]),
             op(p + "Tanh", "Tanh", [p + "split:1"]),
             op(p + "Mul_1", "Mul", [p + "Sigmoid_1", p + "Tanh"]),
             op(p + "Add_1", "Add", [p + "Mul", p + "Mul_1"]),
             op(p + "Tanh_1", "Tanh", [p + "Add_1"]),
             op(p + "Sigmoid_2", "Sigmoid", [p + "split:3"]),
             op(p + "Mul_2", "Mul", [p + "Tanh_1", p + "Sigmoid_2"])]
    consts = [const("rnn/basic_lstm_cell/kernel", kernel), const("rnn/basic_lstm_cell/bias", bias)]
    return consts, nodes, p + "Add_1", p + "Mul_2"


def gru_cell(x, h, c, weights):
    """GRUCell (state h only: c is passed through unchanged)."""
    gate_kernel, gate_bias, candidate_kernel, candidate_bias = weights
    p = W + "gru_cell/"
    nodes = [const(p + "concat/axis", 1, I32, W + "Identity"), const(p + "one", 1.0, F, W + "Identity"),
             Node(p + "concat", "ConcatV2", [x, h, p + "concat/axis"], {"T": F, "N": 2, "Tidx": I32}),
             enter(p + "MatMul/Enter", "rnn/gru_cell/gates/kernel", F, True),
             op(p + "MatMul", "MatMul", [p + "concat", p + "MatMul/Enter"], transpose_a=False, transpose_b=False),
             enter(p + "BiasAdd/Enter", "rnn/gru_cell/gates/bias", F, True),
             op(p + "BiasAdd", "BiasAdd", [p + "MatMul", p + "BiasAdd/Enter"], data_format="NHWC"),
             op(p + "Sigmoid", "Sigmoid", [p + "BiasAdd"]),
             Node(p + "split", "Split", [p + "concat/axis", p + "Sigmoid"], {"T": F, "num_split": 2}),
             op(p + "mul", "Mul", [p + "split", h]),
             Node(p + "concat_1", "ConcatV2", [x, p + "mul", p + "concat/axis"], {"T": F, "N": 2, "Tidx": I32}),
             enter(p + "MatMul_1/Enter", "rnn/gru_cell/candidate/kernel", F, True),
             op(p + "MatMul_1", "MatMul", [p + "concat_1", p + "MatMul_1/Enter"], transpose_a=False,
                transpose_b=False),
             enter(p + "BiasAdd_1/Enter", "rnn/gru_cell/candidate/bias", F, True),
             op(p + "BiasAdd_1", "BiasAdd", [p + "MatMul_1", p + "BiasAdd_1/Enter"], data_format="NHWC"),
             op(p + "Tanh", "Tanh", [p + "BiasAdd_1"]),
             op(p + "mul_1", "Mul", [p + "split:1", h]),
             op(p + "sub", "Sub", [p + "one", p + "split:1"]),
             op(p + "mul_2", "Mul", [p + "sub", p + "Tanh"]),
             op(p + "add", "Add", [p + "mul_1", p + "mul_2"])]
    consts = [const("rnn/gru_cell/gates/kernel", gate_kernel), const("rnn/gru_cell/gates/bias", gate_bias),
              const("rnn/gru_cell/candidate/kernel", candidate_kernel),
              const("rnn/gru_cell/candidate/bias", candidate_bias)]
    return consts, nodes, c, p + "add"


def dynamic_rnn(cell, weights):
    ta = {"dtype": F, "dynamic_size": False, "clear_after_read": True, "identical_element_shapes": True}
    nodes = [Node("x", "Placeholder", [], {"dtype": F, "shape": Shape([1, -1, INPUTS])}),
             const("rnn/perm", [1, 0, 2], I32),
             Node("rnn/transpose", "Transpose", ["x", "rnn/perm"], {"T": F, "Tperm": I32}),
             Node("rnn/Shape", "Shape", ["rnn/transpose"], {"T": F, "out_type": I32}),
             const("rnn/begin", [0], I32), const("rnn/end", [1], I32), const("rnn/stride", [1], I32),
             Node("rnn/strided_slice", "StridedSlice", ["rnn/Shape", "rnn/begin", "rnn/end", "rnn/stride"],
                  {"T": I32, "Index": I32, "shrink_axis_mask": 1, "begin_mask": 0, "end_mask": 0,
                   "ellipsis_mask": 0, "new_axis_mask": 0}),
             Node("rnn/TensorArray", "TensorArrayV3", ["rnn/strided_slice"],
                  {**ta, "element_shape": Shape([1, UNITS]), "tensor_array_name": "rnn/dynamic_rnn/output_0"}),
             Node("rnn/TensorArray_1", "TensorArrayV3", ["rnn/strided_slice"],
                  {**ta, "element_shape": Shape([1, INPUTS]), "tensor_array_name": "rnn/dynamic_rnn/input_0"}),
             const("rnn/TensorArrayUnstack/range/start", 0, I32), const("rnn/TensorArrayUnstack/range/delta", 1, I32),
             Node("rnn/TensorArrayUnstack/range", "Range", ["rnn/TensorArrayUnstack/range/start", "rnn/strided_slice",
                                                            "rnn/TensorArrayUnstack/range/delta"], {"Tidx": I32}),
             Node("rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3", "TensorArrayScatterV3",
                  ["rnn/TensorArray_1", "rnn/TensorArrayUnstack/range", "rnn/transpose", "rnn/TensorArray_1:1"],
                  {"T": F}),
             const("rnn/time", 0, I32), const("rnn/zeros_c", np.zeros((1, UNITS))),
             const("rnn/zeros_h", np.zeros((1, UNITS)))]
    loop_vars = [("rnn/time", I32), ("rnn/TensorArray:1", F), ("rnn/zeros_c", F), ("rnn/zeros_h", F)]
    suffix = ["", "_1", "_2", "_3"]
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes.append(enter(W + "Enter" + s, source, dtype, False))
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes.append(Node(W + "Merge" + s, "Merge", [W + "Enter" + s, W + "NextIteration" + s], {"T": dtype, "N": 2}))
    nodes += [enter(W + "Less/Enter", "rnn/strided_slice", I32, True),
              Node(W + "Less", "Less", [W + "Merge", W + "Less/Enter"], {"T": I32}),
              Node(W + "LoopCond", "LoopCond", [W + "Less"], {})]
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes += [Node(W + "Switch" + s, "Switch", [W + "Merge" + s, W + "LoopCond"], {"T": dtype}),
                  Node(W + "Identity" + s, "Identity", [W + "Switch" + s + ":1"], {"T": dtype}),
                  Node(W + "Exit" + s, "Exit", [W + "Switch" + s], {"T": dtype})]
    nodes += [enter(W + "TensorArrayReadV3/Enter", "rnn/TensorArray_1", DType(20), True),
              enter(W + "TensorArrayReadV3/Enter_1",
                    "rnn/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3", F, True),
              Node(W + "TensorArrayReadV3", "TensorArrayReadV3", [W + "TensorArrayReadV3/Enter", W + "Identity",
                                                                  W + "TensorArrayReadV3/Enter_1"], {"dtype": F})]
    consts, body, new_c, new_h = cell(W + "TensorArrayReadV3", W + "Identity_3", W + "Identity_2", weights)
    nodes += consts + body
    write = W + "TensorArrayWrite/TensorArrayWriteV3"
    nodes += [enter(write + "/Enter", "rnn/TensorArray", DType(20), True),
              Node(write, "TensorArrayWriteV3", [write + "/Enter", W + "Identity", new_h, W + "Identity_1"],
                   {"T": F}),
              const(W + "add/y", 1, I32, W + "Identity"),
              Node(W + "add", "Add", [W + "Identity", W + "add/y"], {"T": I32})]
    for source, s, dtype in zip([W + "add", write, new_c, new_h], suffix, [I32, F, F, F]):
        nodes.append(Node(W + "NextIteration" + s, "NextIteration", [source], {"T": dtype}))
    stack = "rnn/TensorArrayStack/"
    nodes += [Node(stack + "TensorArraySizeV3", "TensorArraySizeV3", ["rnn/TensorArray", W + "Exit_1"], {}),
              const(stack + "range/start", 0, I32), const(stack + "range/delta", 1, I32),
              Node(stack + "range", "Range", [stack + "range/start", stack + "TensorArraySizeV3",
                                              stack + "range/delta"], {"Tidx": I32}),
              Node(stack + "TensorArrayGatherV3", "TensorArrayGatherV3", ["rnn/TensorArray", stack + "range",
                                                                          W + "Exit_1"],
                   {"dtype": F, "element_shape": Shape([1, UNITS])}),
              Node("rnn/transpose_1", "Transpose", [stack + "TensorArrayGatherV3", "rnn/perm"],
                   {"T": F, "Tperm": I32})]
    return nodes


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def lstm_reference(x, weights):
    kernel, bias = weights
    c, h, outputs = np.zeros((1, UNITS)), np.zeros((1, UNITS)), []
    for t in range(x.shape[1]):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ kernel + bias, 4, axis=1)
        c = c * sigmoid(f + 1.0) + sigmoid(i) * np.tanh(j)
        h = np.tanh(c) * sigmoid(o)
        outputs.append(h)
    return outputs, h


def gru_reference(x, weights):
    gate_kernel, gate_bias, candidate_kernel, candidate_bias = weights
    h, outputs = np.zeros((1, UNITS)), []
    for t in range(x.shape[1]):
        r, u = np.split(sigmoid(np.concatenate([x[:, t], h], 1) @ gate_kernel + gate_bias), 2, axis=1)
        candidate = np.tanh(np.concatenate([x[:, t], r * h], 1) @ candidate_kernel + candidate_bias)
        h = u * h + (1 - u) * candidate
        outputs.append(h)
    return outputs, h


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    k = INPUTS + UNITS
    lstm = [rng.uniform(-0.8, 0.8, (k, 4 * UNITS)).astype(np.float32), rng.uniform(-0.3, 0.3, 4 * UNITS).astype(np.float32)]
    gru = [rng.uniform(-0.8, 0.8, (k, 2 * UNITS)).astype(np.float32), rng.uniform(-0.3, 0.3, 2 * UNITS).astype(np.float32),
           rng.uniform(-0.8, 0.8, (k, UNITS)).astype(np.float32), rng.uniform(-0.3, 0.3, UNITS).astype(np.float32)]
    for name, cell, reference, weights in (("lstm", lstm_cell, lstm_reference, lstm),
                                           ("gru", gru_cell, gru_reference, gru)):
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(encode_graph(dynamic_rnn(cell, weights)))
        for steps in (1, 5, 12):
            x = rng.uniform(-2, 2, (1, steps, INPUTS)).astype(np.float32)
            outputs, state = reference(x.astype(np.float64), [w.astype(np.float64) for w in weights])
            stem = os.path.join(out, "%s_T%d" % (name, steps))
            np.save(stem + ".npy", x)
            np.save(stem + ".outputs.npy", np.stack(outputs, 1).astype(np.float32))
            np.save(stem + ".state.npy", state.astype(np.float32))


if __name__ == "__main__":
    main()
