"""hostile_newer.py - hostile cases aimed at the code added after the first
round (hostile_models.py): the control-flow executor, TensorArrays and
TensorLists, NMS, CTC, the 8-bit ops, strings, images and audio. Each case
has one thing wrong, as TensorFlow's op definitions would have it; the
expected answer is TensorFlow's own rejection (or its output where it
accepts the graph), named by node and attribute or input."""
import numpy as np

from hostile_corpus import (FLOAT, INT32, INT64, STRING, B, DType, Node, Shape, const, encode_node, f32, graphdef, i32,
                            i64, node, one_op, raw_tensor)

DOUBLE = DType(2)

BUDGET = "over the memory budget of 1073741824 bytes \\(max_memory\\)"


def string_const(name, data, dims=()):
    return Node(name, "Const", [], {"dtype": STRING, "value": raw_tensor(7, list(dims), string_vals=[data])})


def counted_loop(frame, n, body):
    """tf.while_loop over i in [0, n) in frame `frame`: body(i) gives the
    body's nodes and the one the next i waits for (so it runs every
    iteration). `<frame>/exit` is i after the loop."""
    f = frame + "/"

    def enter(name, source, constant):
        return node(f + name, "Enter", [source], T=INT32, frame_name=frame, is_constant=constant)
    nodes = [const(f + "zero", i32(0)), const(f + "n", i32(n)), const(f + "one", i32(1)),
             enter("enter", f + "zero", False), enter("n_in", f + "n", True), enter("one_in", f + "one", True),
             node(f + "merge", "Merge", [f + "enter", f + "next"], T=INT32, N=2),
             node(f + "less", "Less", [f + "merge", f + "n_in"], T=INT32),
             node(f + "cond", "LoopCond", [f + "less"]),
             node(f + "switch", "Switch", [f + "merge", f + "cond"], T=INT32),
             node(f + "i", "Identity", [f + "switch:1"], T=INT32),
             node(f + "exit", "Exit", [f + "switch"], T=INT32)]
    body_nodes, last = body(f + "i")
    return nodes + body_nodes + [node(f + "add", "Add", [f + "i", f + "one_in", "^" + last], T=INT32),
                                 node(f + "next", "NextIteration", [f + "add"], T=INT32)]


def memory_safety_cases(c):
    """The six memory-safety bugs of the second round, one regression each."""
    # 1. a folded Fill or Tile of strings over the budget freed the Const's string once per element
    kb2 = b"x" * 2048
    c.error("fill_strings_over_budget", [string_const("s", kb2), const("d", i32([1 << 20])),
                                         node("y", "Fill", ["d", "s"], T=STRING)],
            "node 'y' \\(Fill\\).*" + BUDGET)
    c.error("tile_strings_over_budget", [string_const("s", kb2, [1]), const("m", i32([1 << 20])),
                                         node("y", "Tile", ["s", "m"], T=STRING)],
            "node 'y' \\(Tile\\).*" + BUDGET)
    # 2. TensorArrayGatherV3 read a cleared slot (clear_after_read) from NULL
    c.error("tensor_array_gather_twice", [
        const("n", i32(2)), const("idx", i32([0, 1])), const("v", f32([1, 2])), const("g", i32([1, 0, 1])),
        node("ta", "TensorArrayV3", ["n"], dtype=FLOAT, element_shape=Shape([])),
        node("sc", "TensorArrayScatterV3", ["ta", "idx", "v", "ta:1"], T=FLOAT),
        node("y", "TensorArrayGatherV3", ["ta", "g", "sc"], dtype=FLOAT, element_shape=Shape([]))],
        "node 'y' \\(TensorArrayGatherV3\\): Could not read index 1 twice because it was cleared")
    c.output("tensor_array_gather_twice_kept", [
        const("n", i32(2)), const("idx", i32([0, 1])), const("v", f32([1, 2])), const("g", i32([1, 0, 1])),
        node("ta", "TensorArrayV3", ["n"], dtype=FLOAT, element_shape=Shape([]), clear_after_read=False),
        node("sc", "TensorArrayScatterV3", ["ta", "idx", "v", "ta:1"], T=FLOAT),
        node("y", "TensorArrayGatherV3", ["ta", "g", "sc"], dtype=FLOAT, element_shape=Shape([]))],
        r"y: float \[3\] 2 1 2$")
    c.error("tensor_array_write_after_read", [
        const("n", i32(1)), const("zero", i32(0)), const("v", f32(1)),
        node("ta", "TensorArrayV3", ["n"], dtype=FLOAT, element_shape=Shape([])),
        node("w", "TensorArrayWriteV3", ["ta", "zero", "v", "ta:1"], T=FLOAT),
        node("r", "TensorArrayReadV3", ["ta", "zero", "w"], dtype=FLOAT),
        node("w2", "TensorArrayWriteV3", ["ta", "zero", "v", "w", "^r"], T=FLOAT),
        node("y", "TensorArrayReadV3", ["ta", "zero", "w2"], dtype=FLOAT)],
        "node 'w2' \\(TensorArrayWriteV3\\): Could not write to TensorArray index 0 because it has already been read")
    # 3. a ksize whose product wraps to -1 divided by zero sizing the threads' chunks
    x = np.zeros((1, 4, 4, 1), np.float32)
    for op in ("AvgPool", "MaxPool"):
        c.error(f"{op.lower()}_ksize_wraps", one_op(op, [x], ksize=[1, 3, 6148914691236517205, 1],
                                                     strides=[1, 1, 1, 1], padding="SAME", T=FLOAT),
                f"node 'y' \\({op}\\): attr 'ksize' has value 6148914691236517205 out of range for an int32")
    c.output("max_pool_ksize_int32_max", one_op("MaxPool", [np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)],
                                                ksize=[1, 2**31 - 1, 2**31 - 1, 1], strides=[1, 1, 1, 1],
                                                padding="SAME", T=FLOAT),
             r"y: float \[1,4,4,1\] 15 15 15 15 15 15 15 15 15 15 ")
    # 6. strings made inside a loop body are charged like every other value
    big = b"y" * 16384

    def fill_body(i):
        return [string_const("loop/s", big), const("loop/d", i32([100000])),
                node("loop/s_in", "Enter", ["loop/s"], T=STRING, frame_name="loop", is_constant=True),
                node("loop/d_in", "Enter", ["loop/d"], T=INT32, frame_name="loop", is_constant=True),
                node("loop/fill", "Fill", ["loop/d_in", "loop/s_in", "^" + i], T=STRING)], "loop/fill"
    c.error("loop_fill_strings_over_budget", counted_loop("loop", 3, fill_body) +
            [node("y", "Identity", ["loop/exit"], T=INT32)],
            "node 'loop/fill' \\(Fill\\): output 0: the elements of string \\[100000\\] hold 1638400000 bytes.*"
            + BUDGET)
    # a NaN box coordinate was cast to a pixel index (UB): it is outside the image, as an out-of-range one
    c.output("crop_and_resize_nan_box", [const("x", np.ones((1, 2, 2, 1), np.float32)),
                                         const("b", f32([[np.nan, 0, 1, 1], [0, 0, 1, 1]])), const("i", i32([0, 0])),
                                         const("s", i32([1, 1])),
                                         node("y", "CropAndResize", ["x", "b", "i", "s"], T=FLOAT,
                                              extrapolation_value=-7.0)],
             r"y: float \[2,1,1,1\] -7 1$")


def scale_cases(c):
    """Inputs that were quadratic: each now runs in near-linear time, well
    inside the suite's per-case time limit."""
    rng = np.random.default_rng(60000)
    corners = rng.uniform(0, 1, (60000, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + np.float32(0.004)], 1)
    scores = rng.uniform(0, 1, 60000).astype(np.float32)
    for mode, sigma in (("soft", 0.5), ("hard", 0.0)):
        c.output(f"nms_60000_{mode}", [const("b", boxes), const("s", scores), const("m", i32(60000)),
                                       const("i", f32(0.5)), const("t", f32(0)), const("g", f32(sigma)),
                                       node("y", "NonMaxSuppressionV5", ["b", "s", "m", "i", "t", "g"], T=FLOAT)],
                 r"y: int32 \[[0-9]{5}\] ")
    # 100,000 Enters of one frame: each Exit searched the frame's 100,000 Exits
    n = 100000
    chain = [const("c", f32(1))]
    for i in range(n):
        chain += [node(f"e{i}", "Enter", [f"x{i - 1}" if i else "c"], T=FLOAT, frame_name="f", is_constant=False),
                  node(f"x{i}", "Exit", [f"e{i}"], T=FLOAT)]
    c.output("enters_100000_one_frame", chain + [node("y", "Identity", [f"x{n - 1}"], T=FLOAT)], r"y: float \[\] 1$")


def rejection_cases(c):
    """Graphs TensorFlow refuses that tfpi ran: one thing wrong in each,
    refused with the node and the attribute or input named."""
    a, b = const("a", f32([1, 2])), const("b", i32([1, 2]))
    p = const("p", np.bool_(True))
    c.error("merge_n_mismatch", [a, const("a2", f32([3, 4])), node("y", "Merge", ["a", "a2"], T=FLOAT, N=3)],
            "node 'y' \\(Merge\\): attribute N = 3, but the node has 2 such inputs")
    c.error("merge_no_inputs", [node("m", "Merge", [], T=FLOAT, N=0), node("y", "Identity", ["m"], T=FLOAT)],
            "node 'm' \\(Merge\\) has no data input: TensorFlow's Merge takes N >= 1")
    c.error("merge_mixed_types", [a, b, node("y", "Merge", ["a", "b"], T=FLOAT, N=2)],
            "node 'y' \\(Merge\\): attribute T = float, but input 1 is int32")
    c.error("frame_name_with_nul", [a, node("e", "Enter", ["a"], T=FLOAT, frame_name="loop\0one"),
                                    node("y", "Exit", ["e"], T=FLOAT)],
            "node 'e' \\(Enter\\): frame_name holds a NUL byte")
    c.error("ref_switch_on_tensor", [a, p, node("y", "RefSwitch", ["a", "p"], T=FLOAT)],
            "node 'y' \\(RefSwitch\\): input 0 .*'a'.* is not a reference")
    c.error("ref_enter_on_tensor", [a, node("e", "RefEnter", ["a"], T=FLOAT, frame_name="f"),
                                    node("y", "Exit", ["e"], T=FLOAT)],
            "node 'e' \\(RefEnter\\): input 0 .*'a'.* is not a reference")
    c.error("tensor_array_size_float", [const("n", f32(2)), node("y", "TensorArrayV3", ["n"], dtype=FLOAT)],
            "node 'y' \\(TensorArrayV3\\): size \\(input 0\\) must be int32, is float")
    c.error("tensor_array_read_dtype", [
        const("n", i32(1)), const("zero", i32(0)), const("v", f32(1)),
        node("ta", "TensorArrayV3", ["n"], dtype=FLOAT, element_shape=Shape([])),
        node("w", "TensorArrayWriteV3", ["ta", "zero", "v", "ta:1"], T=FLOAT),
        node("y", "TensorArrayReadV3", ["ta", "zero", "w"], dtype=INT32)],
        "node 'y' \\(TensorArrayReadV3\\): TensorArray dtype is float but Op requested dtype int32")
    c.error("tensor_list_set_item_dtype", [
        const("shape", i32([2])), const("n", i32(2)), const("zero", i32(0)), const("item", i32([1, 2])),
        node("l", "TensorListReserve", ["shape", "n"], element_dtype=FLOAT, shape_type=INT32),
        node("y", "TensorListSetItem", ["l", "zero", "item"], element_dtype=INT32)],
        "node 'y' \\(TensorListSetItem\\): Invalid data types; op elements int32 but list elements float")
    c.error("tensor_list_set_item_shape", [
        const("shape", i32([2])), const("n", i32(2)), const("zero", i32(0)), const("item", f32([1, 2, 3])),
        node("l", "TensorListReserve", ["shape", "n"], element_dtype=FLOAT, shape_type=INT32),
        node("s", "TensorListSetItem", ["l", "zero", "item"], element_dtype=FLOAT),
        const("eshape", i32([3])),
        node("y", "TensorListStack", ["s", "eshape"], element_dtype=FLOAT)],
        "node 's' \\(TensorListSetItem\\): .*shape")
    c.error("where_t_disagrees", [a, node("y", "Where", ["a"], T=INT32)],
            "node 'y' \\(Where\\): attribute T = int32, but input 0 is float")
    boxes, scores = const("bx", np.zeros((2, 4), np.float32)), const("sc", f32([0.5, 0.6]))
    c.error("nms_t_disagrees", [boxes, scores, const("m", i32(2)), const("i", f32(0.5)),
                                node("y", "NonMaxSuppressionV2", ["bx", "sc", "m", "i"], T=DOUBLE)],
            "node 'y' \\(NonMaxSuppressionV2\\): attribute T = double, but input 0 is float")
    c.error("nms_t_threshold_disagrees", [boxes, scores, const("m", i32(2)), const("i", f32(0.5)),
                                          const("t", f32(0)),
                                          node("y", "NonMaxSuppressionV3", ["bx", "sc", "m", "i", "t"], T=FLOAT,
                                               T_threshold=DOUBLE)],
            "node 'y' \\(NonMaxSuppressionV3\\): attribute T_threshold = double, but input 3 is float")
    logits = const("x", np.zeros((2, 1, 3), np.float32))
    lengths = const("len", i32([2]))
    for blank in (3, -4):
        c.error(f"ctc_blank_index_{blank}", [logits, lengths, node("y", "CTCGreedyDecoder", ["x", "len"],
                                                                   blank_index=blank)],
                "node 'y' \\(CTCGreedyDecoder\\): blank_index")
    c.error("reverse_sequence_seq_dim_negative", [const("x", np.zeros((2, 3), np.float32)), const("l", i64([1, 2])),
                                                  node("y", "ReverseSequence", ["x", "l"], seq_dim=-1, batch_dim=0,
                                                       T=FLOAT, Tlen=INT64)],
            "node 'y' \\(ReverseSequence\\): .*seq_dim")
    c.error("sum_duplicate_axes", [const("x", np.ones((2, 3), np.float32)), const("ax", i32([0, 0])),
                                   node("y", "Sum", ["x", "ax"], T=FLOAT, Tidx=INT32)],
            "node 'y' \\(Sum\\): Invalid reduction arguments: Axes contains duplicate dimension: 0")
    c.error("sum_duplicate_axes_negative", [const("x", np.ones((2, 3), np.float32)), const("ax", i32([1, -1])),
                                            node("y", "Max", ["x", "ax"], T=FLOAT, Tidx=INT32)],
            "node 'y' \\(Max\\): Invalid reduction arguments: Axes contains duplicate dimension: 1")
    c.error("resize_size_int64", [const("x", np.zeros((1, 2, 2, 1), np.float32)), const("s", i64([4, 4])),
                                  node("y", "ResizeBilinear", ["x", "s"], T=FLOAT)],
            "node 'y' \\(ResizeBilinear\\): .*input 1 .*int32")
    c.error("attr_key_empty", [a, encode_node(node("y", "Identity", ["a"], T=FLOAT),
                                              B(5, B(1, b"") + B(2, graphdef._attr_value(FLOAT))))],
            "node 'y'.*empty attribute name")
    for i, name in enumerate(["%s%n", "a b", "-x", "x>", "x:y"]):
        c.error(f"node_name_invalid_{i}", [a, node(name, "Identity", ["a"], T=FLOAT),
                                           node("y", "Identity", [name.split(":")[0] if ":" not in name else "a"])],
                "node name .* contains invalid characters")
    c.output("node_name_scoped", [a, node("scope/x.1-2>inner_3", "Identity", ["a"], T=FLOAT),
                                  node("y", "Identity", ["scope/x.1-2>inner_3"], T=FLOAT)], r"y: float \[2\] 1 2$")
    sparse = [const("idx", i32([[0], [2]])), const("shape", i32([4])), const("vals", f32([5, 7])),
              const("dflt", f32(0))]
    c.output("sparse_to_dense_float_values_int32_indices",
             sparse + [node("y", "SparseToDense", ["idx", "shape", "vals", "dflt"], T=FLOAT, Tindices=INT32)],
             r"y: float \[4\] 5 0 7 0$")
