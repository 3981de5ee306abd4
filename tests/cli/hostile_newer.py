"""hostile_newer.py - hostile cases aimed at the code added after the first
round (hostile_models.py): the control-flow executor, TensorArrays and
TensorLists, NMS, CTC, the 8-bit ops, strings, images and audio. Each case
has one thing wrong, as TensorFlow's op definitions would have it; the
expected answer is TensorFlow's own rejection (or its output where it
accepts the graph), named by node and attribute or input."""
import numpy as np

from hostile_corpus import (BOOL, FLOAT, INT32, INT64, STRING, Node, Shape, const, f32, i32, i64, node, one_op, ph,
                            raw_tensor)

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
