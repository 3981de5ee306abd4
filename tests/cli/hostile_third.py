"""hostile_third.py - hostile cases of the third round (issue 27): the
undefined behaviour, the quadratic paths and the wrong acceptances it
found in graphs. Each case has one thing wrong, or is the worst case of a
path that must stay fast; the expected answer is TensorFlow's own
(rejection or output)."""
import numpy as np

from hostile_corpus import BOOL, FLOAT, INT32, INT64, STRING, B, Node as GraphNode, Shape, const, f32, i32, i64, node, raw_tensor
from graphdef import DType
from hostile_functions import Arg, Func, Function, Node, with_library
from hostile_newer import counted_loop


def empty_frame_name_loop():
    """A counted loop of 3 whose frame is called "": valid in TensorFlow; its
    NUL check passed NULL to memchr (UBSan)."""
    nodes = counted_loop("loop", 3, lambda i: ([node("loop/body", "Identity", [i], T=INT32)], "loop/body"))
    for n in nodes:
        if n.op == "Enter":
            n.attrs["frame_name"] = ""
    return nodes + [node("y", "Identity", ["loop/exit"], T=INT32)]


def soft_nms(boxes, scores, sigma):
    return [const("b", boxes), const("s", scores), const("m", i32(len(scores))), const("i", f32(0.5)),
            const("t", f32(0)), const("g", f32(sigma)),
            node("y", "NonMaxSuppressionV5", ["b", "s", "m", "i", "t", "g"], T=FLOAT)]


def scale_cases(c):
    """The worst cases of paths that were quadratic, each well inside the
    suite's per-case time limit."""
    rng = np.random.default_rng(27)
    n = 20000  # 60,000 is the benchmark (README); 20,000 keeps the ARM suites under qemu well inside the limit
    scores = rng.uniform(0, 1, n).astype(np.float32)
    # Soft NMS over boxes that all lie on one spot (each selection decays every other box),
    # and over boxes jittered around it (every pair overlaps by a different IoU).
    same = np.tile(np.float32([0.1, 0.1, 0.9, 0.9]), (n, 1))
    c.output("soft_nms_20000_one_spot", soft_nms(same, scores, 0.5), r"y: int32 \[[0-9]+\] ")
    jitter = same + rng.uniform(-0.05, 0.05, (n, 4)).astype(np.float32)
    c.output("soft_nms_20000_overlapping", soft_nms(jitter, scores, 0.5), r"y: int32 \[[0-9]+\] ")
    # A 2^29-element bool Fill folded while planning (one memcpy per element took 9-26 s for 2^30;
    # 2^29 keeps the case inside a 32-bit address space and the corpus budget).
    c.output("fill_bool_2p29", [const("d", i32([1 << 29])), const("v", np.bool_(True)),
                                node("f", "Fill", ["d", "v"], T=BOOL), const("axis", i32([0])),
                                node("y", "All", ["f", "axis"], keep_dims=False, Tidx=INT32)], r"y: bool \[\] 1$")


def exact_loop(n):
    """A loop whose body runs exactly n times: y = n."""
    return counted_loop("loop", n, lambda i: ([node("loop/body", "Identity", [i], T=INT32)], "loop/body")) + [
        node("y", "Identity", ["loop/exit"], T=INT32)]


def functional_while(n):
    """A TF2 While over (counter, limit, i) as tf.while_loop writes it: the
    cond and body are functions with their own Consts and Identities, and
    the limit is passed through unchanged. y = i after n iterations."""
    def i32_const(name, v):
        return Node(name, "Const", [], {"dtype": INT32, "value": np.array(v, np.int32)})
    args = [Arg("c", INT32), Arg("m", INT32), Arg("i", INT32)]
    cond = Function("cond", args, [Arg("go", BOOL)], [
        i32_const("n", n), Node("l1", "Less", ["c", "m"], {"T": INT32}),
        Node("l2", "Less", ["i", "n:output:0"], {"T": INT32}), Node("a", "LogicalAnd", ["l1:z:0", "l2:z:0"]),
        Node("id", "Identity", ["a:z:0"], {"T": BOOL})], {"go": "id:output:0"})
    body = Function("body", args, [Arg("c2", INT32), Arg("m2", INT32), Arg("j", INT32)], [
        i32_const("one", 1), Node("ca", "AddV2", ["c", "one:output:0"], {"T": INT32}),
        Node("ja", "AddV2", ["i", "one:output:0"], {"T": INT32}), Node("ic", "Identity", ["ca:z:0"], {"T": INT32}),
        Node("im", "Identity", ["m"], {"T": INT32}), Node("ij", "Identity", ["ja:z:0"], {"T": INT32})],
        {"c2": "ic:output:0", "m2": "im:output:0", "j": "ij:output:0"})
    nodes = [i32_const("c0", 0), i32_const("m0", n + 5), i32_const("i0", 0),
             Node("w", "While", ["c0", "m0", "i0"], {"T": [INT32] * 3, "cond": Func("cond"), "body": Func("body")}),
             Node("y", "Identity", ["w:2"], {"T": INT32})]
    return with_library(nodes, [cond, body])


def example(features):
    """A serialized tf.Example: {key: list of floats}."""
    def entry(key, values):
        floats = B(1, b"".join(np.float32(v).tobytes() for v in values))  # FloatList { value (packed) }
        return B(1, B(1, key.encode()) + B(2, B(2, floats)))  # map entry { key, Feature { float_list } }
    return B(1, b"".join(entry(k, v) for k, v in features.items()))  # Example { features }


def parse_example(examples, defaults, **attrs):
    """ParseExample of one dense float feature "a" of shape [1]."""
    attrs = {"Nsparse": 0, "Ndense": 1, "sparse_types": [], "Tdense": [FLOAT], "dense_shapes": [Shape([1])],
             **attrs}
    return [GraphNode("s", "Const", [], {"dtype": STRING, "value": raw_tensor(7, [len(examples)],
                                                                              string_vals=examples)}),
            GraphNode("names", "Const", [], {"dtype": STRING, "value": raw_tensor(7, [0])}),
            GraphNode("k", "Const", [], {"dtype": STRING, "value": raw_tensor(7, [], string_vals=[b"a"])}),
            const("d", f32(defaults)), node("y", "ParseExample", ["s", "names", "k", "d"], **attrs)]


def parse_example_cases(c):
    """ParseExample's dense_defaults fill a missing feature; its counts must agree."""
    examples = [example({"a": [1.5]}), example({"b": [2.0]})]
    c.output("parse_example_default", parse_example(examples, [7.5]), r"y: float \[2,1\] 1.5 7.5$")
    c.error("parse_example_missing_required", parse_example(examples, []),
            "node 'y' \\(ParseExample\\): .*feature 'a'")
    c.error("parse_example_ndense_mismatch", parse_example(examples, [7.5], Ndense=2),
            "node 'y' \\(ParseExample\\): attribute Ndense = 2, but Tdense has 1 types")
    c.error("parse_example_shapes_mismatch", parse_example(examples, [7.5], dense_shapes=[Shape([1]), Shape([2])]),
            "node 'y' \\(ParseExample\\): dense_shapes has 2 shapes, but Tdense has 1 types")


def lookup(keys, values, queries, default):
    """A hash table filled by its initializer, then looked up: y = table[queries] or default."""
    return [node("table", "HashTableV2", key_dtype=INT64, value_dtype=FLOAT, shared_name="t", container="",
                 use_node_name_sharing=False),
            const("k", np.asarray(keys, np.int64)), const("v", f32(values)),
            node("init", "InitializeTableV2", ["table", "k", "v"], Tkey=INT64, Tval=FLOAT),
            const("q", np.asarray(queries, np.int64)), const("d", f32(default)),
            node("y", "LookupTableFindV2", ["table", "q", "d"], Tin=INT64, Tout=FLOAT)]


def table_cases(c):
    """A missing key gives the default; a key given twice must have one value (TensorFlow's HashTable)."""
    c.output("table_missing_key_default", lookup([1, 2, 3], [10, 20, 30], [2, 5, 1], -1), r"y: float \[3\] 20 -1 10$")
    c.output("table_key_twice_same_value", lookup([1, 1, 2], [10, 10, 20], [1, 2], -1), r"y: float \[2\] 10 20$")
    c.error("table_key_twice", lookup([1, 2, 1], [10, 20, 11], [1], -1),
            "table 't' is given two different values for key 1")


def tensor_list_cases(c):
    """TensorListFromTensor's input is typed element_dtype, as TensorFlow's op says."""
    def from_tensor(element_dtype):
        return [const("t", f32(np.ones((2, 3)))), const("shape", i32([3])),
                node("l", "TensorListFromTensor", ["t", "shape"], element_dtype=element_dtype, shape_type=INT32),
                const("i", i32(1)), node("y", "TensorListGetItem", ["l", "i", "shape"], element_dtype=element_dtype)]
    c.output("tensor_list_from_tensor", from_tensor(FLOAT), r"y: float \[3\] 1 1 1$")
    c.error("tensor_list_from_tensor_wrong_dtype", from_tensor(INT32),
            "node 'l' \\(TensorListFromTensor\\): element_dtype is int32, but the tensor is float")
    # fuzz_graphdef's find (2026-11-29): with no inputs, the element_dtype check read input 0 (UBSan)
    c.error("tensor_list_from_tensor_no_inputs", [node("y", "TensorListFromTensor", [], element_dtype=FLOAT)],
            "node 'y' \\(TensorListFromTensor\\): expects 2 inputs, has 0")


def scatter_nd_cases(c):
    """ScatterNd (TFLite's SCATTER_ND): a repeated index sums; an index outside
    its dimension or updates of another shape are refused."""
    def scatter(indices, updates, shape, values=f32, dtype=FLOAT):
        return [const("i", i32(indices)), const("u", values(updates)), const("s", i32(shape)),
                node("y", "ScatterNd", ["i", "u", "s"], T=dtype, Tindices=INT32)]
    c.output("scatter_nd_repeated_index", scatter([[1], [1]], [2, 3], [3]), r"y: float \[3\] 0 5 0$")
    # integers wrap as TensorFlow's do; a slice of two elements per index
    c.output("scatter_nd_int32_wraps", scatter([[1], [1]], [2147483647, 1], [3], i32, INT32),
             r"y: int32 \[3\] 0 -2147483648 0$")
    c.output("scatter_nd_int64_rows", scatter([[2], [0], [2]], [[1, 2], [3, 4], [5, 6]], [3, 2], i64, INT64),
             r"y: int64 \[3,2\] 3 4 0 0 6 8$")
    c.error("scatter_nd_index_past_the_shape", scatter([[3]], [1], [3]),
            "node 'y' \\(ScatterNd\\): indices\\[0\\] = 3 does not index into dimension 0 of size 3")
    c.error("scatter_nd_negative_index", scatter([[-1]], [1], [3]), "indices\\[0\\] = -1 does not index")
    c.error("scatter_nd_updates_misshaped", scatter([[0]], [1, 2], [3]),
            "updates must be shaped indices.shape\\[:-1\\] \\+ shape\\[1:\\]")
    c.error("scatter_nd_index_too_deep", scatter([[0, 0]], [1], [3]), "an index depth of at most 1")


def fft_cases(c):
    """RFFT and ComplexAbs (YAMNet): |rfft([0, 1, 2, 3])| = [6, 2 sqrt 2, 2]; a length that is not
    a power of two past the direct sum's limit, or none, is refused before any work."""
    def rfft(x, lengths, op="RFFT"):
        return [const("x", f32(x)), const("n", i32(lengths)), node("z", op, ["x", "n"]),
                node("y", "ComplexAbs", ["z"], T=DType(8))]  # complex64
    c.output("rfft_magnitudes", rfft([0, 1, 2, 3], [4]), r"y: float \[3\] 6 2.82843 2$")
    c.error("rfft_length_prime_past_the_limit", rfft([1, 2], [1000003]),
            "node 'z' \\(RFFT\\): fft_length\\[0\\] = 1000003: a length that is not a power of two must be at "
            "most 4096")
    c.error("rfft_length_zero", rfft([1, 2], [0]), "fft_length\\[0\\] = 0 is not in \\[1, 1048576\\]")
    c.error("rfft2d_one_length", rfft([[1, 2]], [2], "RFFT2D"), "fft_length must hold 2 lengths")


def third_round_cases(c):
    c.output("frame_name_empty", empty_frame_name_loop(), r"y: int32 \[\] 3$")
    # --max_loop_iterations=N: a loop of exactly N iterations runs; at N - 1 it is stopped.
    c.output("loop_of_the_limit", exact_loop(1000), r"y: int32 \[\] 1000$", extra=["--max_loop_iterations=1000"])
    c.error("loop_one_past_the_limit", exact_loop(1000),
            "while loop frame 'loop' did not finish after 999 iterations", extra=["--max_loop_iterations=999"])
    # A loop variable passed on unchanged made a chain of values one per iteration, freed by a
    # recursion as deep: about 130,000 iterations overflowed an 8 MB stack.
    c.output("while_passthrough_150000", functional_while(150000), r"y: int32 \[\] 150000$")
    scale_cases(c)
    parse_example_cases(c)
    table_cases(c)
    tensor_list_cases(c)
    scatter_nd_cases(c)
    fft_cases(c)
