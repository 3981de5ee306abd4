"""rnn_graphs.py - TF 1.x `dynamic_rnn` graphs written the way TensorFlow
writes them (docs: control_flow.md 4.2): the input unstacked into a
TensorArray, a while loop in frame `rnn/while/while_context` carrying time,
the output TensorArray's flow and the cell state, the cell's Consts tied
into the frame by `^rnn/while/Identity`, the outputs gathered and
transposed back. Cells: BasicLSTMCell (forget_bias 1) and GRUCell; and a
CTC OCR head (bidirectional LSTM, CTCGreedyDecoder, SparseToDense). With
each graph go random inputs of a few lengths and numpy's answers (the cell
equations and greedy decoding below, computed independently of the graph).

    python3 tests/cli/rnn_graphs.py OUT_DIR

writes OUT_DIR/{lstm,gru,ctc}.pb, OUT_DIR/<graph>_T<n>.npy (input [1,T,4]),
OUT_DIR/<cell>_T<n>.{outputs,state}.npy (numpy's rnn/transpose_1 and final
state) and OUT_DIR/ctc_T<n>.{labels,log_probability}.npy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, Shape, encode_graph  # noqa: E402

F, I32 = DType(1), DType(3)
INPUTS, UNITS, CLASSES = 4, 3, 5
PLACEHOLDER = Node("x", "Placeholder", [], {"dtype": F, "shape": Shape([1, -1, INPUTS])})


def const(name, value, dtype=F, control=None):
    array = np.asarray(value, np.float32 if dtype == F else np.int32)
    return Node(name, "Const", ["^" + control] if control else [], {"dtype": dtype, "value": array})


def enter(name, source, dtype, constant):
    """An Enter into the loop of the scope its name starts with (`<scope>while/`)."""
    frame = name[:name.index("while/") + len("while/")] + "while_context"
    return Node(name, "Enter", [source], {"T": dtype, "frame_name": frame, "is_constant": constant,
                                          "parallel_iterations": 32})


def op(name, kind, inputs, **attrs):
    return Node(name, kind, list(inputs), {"T": F, **attrs})


def concat_dense(p, suffix, inputs, axis, kernel, bias):
    """ConcatV2(inputs) @ kernel + bias, the kernel and bias entered into the
    loop: nodes <p>concat<suffix>, MatMul<suffix>, BiasAdd<suffix>."""
    concat, matmul, bias_add = p + "concat" + suffix, p + "MatMul" + suffix, p + "BiasAdd" + suffix
    return [Node(concat, "ConcatV2", inputs + [axis], {"T": F, "N": len(inputs), "Tidx": I32}),
            enter(matmul + "/Enter", kernel, F, True),
            op(matmul, "MatMul", [concat, matmul + "/Enter"], transpose_a=False, transpose_b=False),
            enter(bias_add + "/Enter", bias, F, True),
            op(bias_add, "BiasAdd", [matmul, bias_add + "/Enter"], data_format="NHWC")]


def lstm_cell(scope, x, h, c, weights):
    """BasicLSTMCell: its Consts, the body nodes and the names of (new c, new h)."""
    kernel, bias = weights
    W = scope + "while/"
    p = W + "basic_lstm_cell/"
    nodes = [const(p + "Const", 1, I32, W + "Identity"), const(p + "Const_1", 1.0, F, W + "Identity")]
    nodes += concat_dense(p, "", [x, h], p + "Const", scope + "basic_lstm_cell/kernel", scope + "basic_lstm_cell/bias")
    nodes += [Node(p + "split", "Split", [p + "Const", p + "BiasAdd"], {"T": F, "num_split": 4}),
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
    consts = [const(scope + "basic_lstm_cell/kernel", kernel), const(scope + "basic_lstm_cell/bias", bias)]
    return consts, nodes, p + "Add_1", p + "Mul_2"


def gru_cell(scope, x, h, c, weights):
    """GRUCell (state h only: c is passed through unchanged)."""
    gate_kernel, gate_bias, candidate_kernel, candidate_bias = weights
    W = scope + "while/"
    p = W + "gru_cell/"
    axis = p + "concat/axis"
    nodes = [const(axis, 1, I32, W + "Identity"), const(p + "one", 1.0, F, W + "Identity")]
    nodes += concat_dense(p, "", [x, h], axis, scope + "gru_cell/gates/kernel", scope + "gru_cell/gates/bias")
    nodes += [op(p + "Sigmoid", "Sigmoid", [p + "BiasAdd"]),
              Node(p + "split", "Split", [axis, p + "Sigmoid"], {"T": F, "num_split": 2}),
              op(p + "mul", "Mul", [p + "split", h])]
    nodes += concat_dense(p, "_1", [x, p + "mul"], axis, scope + "gru_cell/candidate/kernel",
                          scope + "gru_cell/candidate/bias")
    nodes += [op(p + "Tanh", "Tanh", [p + "BiasAdd_1"]),
              op(p + "mul_1", "Mul", [p + "split:1", h]),
              op(p + "sub", "Sub", [p + "one", p + "split:1"]),
              op(p + "mul_2", "Mul", [p + "sub", p + "Tanh"]),
              op(p + "add", "Add", [p + "mul_1", p + "mul_2"])]
    consts = [const(scope + "gru_cell/gates/kernel", gate_kernel), const(scope + "gru_cell/gates/bias", gate_bias),
              const(scope + "gru_cell/candidate/kernel", candidate_kernel),
              const(scope + "gru_cell/candidate/bias", candidate_bias)]
    return consts, nodes, c, p + "add"


def dynamic_rnn(cell, weights, x, scope="rnn/"):
    """tf.nn.dynamic_rnn(cell, x) in variable scope `scope`: its nodes; the
    outputs are `<scope>transpose_1`, the final state `<scope>while/Exit_3`."""
    def r(name):
        return scope + name
    w, stack = r("while/"), r("TensorArrayStack/")
    ta = {"dtype": F, "dynamic_size": False, "clear_after_read": True, "identical_element_shapes": True}
    nodes = [const(r("perm"), [1, 0, 2], I32),
             Node(r("transpose"), "Transpose", [x, r("perm")], {"T": F, "Tperm": I32}),
             Node(r("Shape"), "Shape", [r("transpose")], {"T": F, "out_type": I32}),
             const(r("begin"), [0], I32), const(r("end"), [1], I32), const(r("stride"), [1], I32),
             Node(r("strided_slice"), "StridedSlice", [r("Shape"), r("begin"), r("end"), r("stride")],
                  {"T": I32, "Index": I32, "shrink_axis_mask": 1, "begin_mask": 0, "end_mask": 0,
                   "ellipsis_mask": 0, "new_axis_mask": 0}),
             Node(r("TensorArray"), "TensorArrayV3", [r("strided_slice")],
                  {**ta, "element_shape": Shape([1, UNITS]), "tensor_array_name": r("dynamic_rnn/output_0")}),
             Node(r("TensorArray_1"), "TensorArrayV3", [r("strided_slice")],
                  {**ta, "element_shape": Shape([1, INPUTS]), "tensor_array_name": r("dynamic_rnn/input_0")}),
             const(r("TensorArrayUnstack/range/start"), 0, I32), const(r("TensorArrayUnstack/range/delta"), 1, I32),
             Node(r("TensorArrayUnstack/range"), "Range", [r("TensorArrayUnstack/range/start"), r("strided_slice"),
                                                           r("TensorArrayUnstack/range/delta")], {"Tidx": I32}),
             Node(r("TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"), "TensorArrayScatterV3",
                  [r("TensorArray_1"), r("TensorArrayUnstack/range"), r("transpose"), r("TensorArray_1:1")],
                  {"T": F}),
             const(r("time"), 0, I32), const(r("zeros_c"), np.zeros((1, UNITS))),
             const(r("zeros_h"), np.zeros((1, UNITS)))]
    loop_vars = [(r("time"), I32), (r("TensorArray:1"), F), (r("zeros_c"), F), (r("zeros_h"), F)]
    suffix = ["", "_1", "_2", "_3"]
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes.append(enter(w + "Enter" + s, source, dtype, False))
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes.append(Node(w + "Merge" + s, "Merge", [w + "Enter" + s, w + "NextIteration" + s], {"T": dtype, "N": 2}))
    nodes += [enter(w + "Less/Enter", r("strided_slice"), I32, True),
              Node(w + "Less", "Less", [w + "Merge", w + "Less/Enter"], {"T": I32}),
              Node(w + "LoopCond", "LoopCond", [w + "Less"], {})]
    for (source, dtype), s in zip(loop_vars, suffix):
        nodes += [Node(w + "Switch" + s, "Switch", [w + "Merge" + s, w + "LoopCond"], {"T": dtype}),
                  Node(w + "Identity" + s, "Identity", [w + "Switch" + s + ":1"], {"T": dtype}),
                  Node(w + "Exit" + s, "Exit", [w + "Switch" + s], {"T": dtype})]
    read = w + "TensorArrayReadV3"
    nodes += [enter(read + "/Enter", r("TensorArray_1"), DType(20), True),
              enter(read + "/Enter_1", r("TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"), F, True),
              Node(read, "TensorArrayReadV3", [read + "/Enter", w + "Identity", read + "/Enter_1"], {"dtype": F})]
    consts, body, new_c, new_h = cell(scope, read, w + "Identity_3", w + "Identity_2", weights)
    nodes += consts + body
    write = w + "TensorArrayWrite/TensorArrayWriteV3"
    nodes += [enter(write + "/Enter", r("TensorArray"), DType(20), True),
              Node(write, "TensorArrayWriteV3", [write + "/Enter", w + "Identity", new_h, w + "Identity_1"],
                   {"T": F}),
              const(w + "add/y", 1, I32, w + "Identity"),
              Node(w + "add", "Add", [w + "Identity", w + "add/y"], {"T": I32})]
    for source, s, dtype in zip([w + "add", write, new_c, new_h], suffix, [I32, F, F, F]):
        nodes.append(Node(w + "NextIteration" + s, "NextIteration", [source], {"T": dtype}))
    nodes += [Node(stack + "TensorArraySizeV3", "TensorArraySizeV3", [r("TensorArray"), w + "Exit_1"], {}),
              const(stack + "range/start", 0, I32), const(stack + "range/delta", 1, I32),
              Node(stack + "range", "Range", [stack + "range/start", stack + "TensorArraySizeV3",
                                              stack + "range/delta"], {"Tidx": I32}),
              Node(stack + "TensorArrayGatherV3", "TensorArrayGatherV3",
                   [r("TensorArray"), stack + "range", w + "Exit_1"], {"dtype": F, "element_shape": Shape([1, UNITS])}),
              Node(r("transpose_1"), "Transpose", [stack + "TensorArrayGatherV3", r("perm")], {"T": F, "Tperm": I32})]
    return nodes


def ctc_ocr(forward, backward, dense):
    """A CTC OCR head: a bidirectional LSTM (the backward pass through
    ReverseSequence), a dense layer to CLASSES logits per step, time-major,
    CTCGreedyDecoder (merge_repeated) and SparseToDense of the labels (-1
    pads); fetch `labels` and `decoder:3` (the log probability)."""
    bi = "bidirectional_rnn/"
    i64 = DType(9)
    nodes = [PLACEHOLDER, Node("shape", "Shape", ["x"], {"T": F, "out_type": I32}),
             const("one", [1], I32), const("two", [2], I32), const("step", [1], I32),
             Node("seq_len", "StridedSlice", ["shape", "one", "two", "step"],
                  {"T": I32, "Index": I32, "shrink_axis_mask": 0, "begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0,
                   "new_axis_mask": 0}),
             Node(bi + "bw/ReverseSequence", "ReverseSequence", ["x", "seq_len"],
                  {"T": F, "Tlen": I32, "seq_dim": 1, "batch_dim": 0})]
    nodes += dynamic_rnn(lstm_cell, forward, "x", bi + "fw/fw/")
    nodes += dynamic_rnn(lstm_cell, backward, bi + "bw/ReverseSequence", bi + "bw/bw/")
    nodes += [Node("ReverseSequence_1", "ReverseSequence", [bi + "bw/bw/transpose_1", "seq_len"],
                   {"T": F, "Tlen": I32, "seq_dim": 1, "batch_dim": 0}),
              const("concat/axis", 2, I32),
              Node("concat", "ConcatV2", [bi + "fw/fw/transpose_1", "ReverseSequence_1", "concat/axis"],
                   {"T": F, "N": 2, "Tidx": I32}),
              const("flat/shape", [-1, 2 * UNITS], I32),
              Node("flat", "Reshape", ["concat", "flat/shape"], {"T": F, "Tshape": I32}),
              const("dense/kernel", dense[0]), const("dense/bias", dense[1]),
              op("dense/MatMul", "MatMul", ["flat", "dense/kernel"], transpose_a=False, transpose_b=False),
              op("dense/BiasAdd", "BiasAdd", ["dense/MatMul", "dense/bias"], data_format="NHWC"),
              const("time_major/shape", [-1, 1, CLASSES], I32),
              Node("time_major", "Reshape", ["dense/BiasAdd", "time_major/shape"], {"T": F, "Tshape": I32}),
              Node("decoder", "CTCGreedyDecoder", ["time_major", "seq_len"], {"merge_repeated": True}),
              Node("pad", "Const", [], {"dtype": i64, "value": np.array(-1, np.int64)}),
              Node("labels", "SparseToDense", ["decoder", "decoder:2", "decoder:1", "pad"],
                   {"T": i64, "Tindices": i64, "validate_indices": True})]
    return nodes


def ctc_reference(x, forward, backward, dense):
    """(labels [1, L] with -1 pads, log probability [1, 1]) of ctc_ocr."""
    outputs = np.concatenate([np.stack(lstm_reference(x, forward)[0], 1),
                              np.stack(lstm_reference(x[:, ::-1], backward)[0], 1)[:, ::-1]], 2)
    logits = outputs[0] @ dense[0] + dense[1]
    best = logits.argmax(1)
    labels, previous = [], -1
    for k in best:
        if k != CLASSES - 1 and k != previous:
            labels.append(k)
        previous = k
    return np.array([labels], np.int64).reshape(1, len(labels)), np.array([[-logits.max(1).sum()]], np.float32)


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
    def uniform(bound, shape):
        return rng.uniform(-bound, bound, shape).astype(np.float32)
    lstm = [uniform(0.8, (k, 4 * UNITS)), uniform(0.3, 4 * UNITS)]
    gru = [uniform(0.8, (k, 2 * UNITS)), uniform(0.3, 2 * UNITS), uniform(0.8, (k, UNITS)), uniform(0.3, UNITS)]
    for name, cell, reference, weights in (("lstm", lstm_cell, lstm_reference, lstm),
                                           ("gru", gru_cell, gru_reference, gru)):
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(encode_graph([PLACEHOLDER] + dynamic_rnn(cell, weights, "x")))
        for steps in (1, 5, 12):
            x = rng.uniform(-2, 2, (1, steps, INPUTS)).astype(np.float32)
            outputs, state = reference(x.astype(np.float64), [w.astype(np.float64) for w in weights])
            stem = os.path.join(out, "%s_T%d" % (name, steps))
            np.save(stem + ".npy", x)
            np.save(stem + ".outputs.npy", np.stack(outputs, 1).astype(np.float32))
            np.save(stem + ".state.npy", state.astype(np.float32))
    weights = [rng.uniform(-0.8, 0.8, shape).astype(np.float32) for shape in
               ((k, 4 * UNITS), (4 * UNITS,), (k, 4 * UNITS), (4 * UNITS,), (2 * UNITS, CLASSES), (CLASSES,))]
    weights[4] *= 4  # logits far apart: labels change from step to step
    forward, backward, dense = weights[0:2], weights[2:4], weights[4:6]
    with open(os.path.join(out, "ctc.pb"), "wb") as f:
        f.write(encode_graph(ctc_ocr(forward, backward, dense)))
    for steps in (1, 6, 16):
        x = rng.uniform(-2, 2, (1, steps, INPUTS)).astype(np.float32)
        labels, log_probability = ctc_reference(x.astype(np.float64), *[[w.astype(np.float64) for w in pair]
                                                                        for pair in (forward, backward, dense)])
        stem = os.path.join(out, "ctc_T%d" % steps)
        np.save(stem + ".npy", x)
        np.save(stem + ".labels.npy", labels)
        np.save(stem + ".log_probability.npy", log_probability)


if __name__ == "__main__":
    main()
