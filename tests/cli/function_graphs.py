"""function_graphs.py - TF2-style graphs with a function library, written
the way TensorFlow 2 writes them (docs: savedmodel.md sections 4-6): calls
through StatefulPartitionedCall / PartitionedCall and by op name, nested
calls, polymorphic functions bound by the call's attrs, list arguments,
functional While (a counting loop; a Keras-style loop over TensorLists with
captured weights), If on predicates of every kind, Case with indices in
and out of range, loops inside untaken branches, branches inside loops,
loops inside loops, resource variables a serving function updates from
run to run; and ListDiff, which TF1-era exports carry. With each graph go
its feeds and numpy's answers,
computed here from the same inputs independently of the graph.

    python3 tests/cli/function_graphs.py OUT_DIR

writes OUT_DIR/*.pb, the .npy feeds and references, and OUT_DIR/manifest.tsv:
one line per run, tab-separated: case name, run_graph flags (space-free,
tab-separated), then `want=FILE:got=FILE` pairs comparing each output."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import Arg, DType, Func, Function, Node, Placeholder, Shape, TypedArray, encode_graph  # noqa: E402

F, I32, STR, BOOL, VARIANT = DType(1), DType(3), DType(7), DType(10), DType(21)


def const(name, value, dtype=F, inputs=None):
    array = np.asarray(value, {F: np.float32, I32: np.int32, BOOL: np.bool_}[dtype])
    return Node(name, "Const", inputs or [], {"dtype": dtype, "value": array})


def placeholder(name, dtype, shape):
    return Node(name, "Placeholder", [], {"dtype": dtype, "shape": Shape(shape)})


def binary(name, op, a, b, t=F):
    return Node(name, op, [a, b], {"T": t})


def call(name, fn, inputs, tin, tout, op="StatefulPartitionedCall", attrs=None):
    return Node(name, op, inputs, {"f": Func(fn, attrs or {}), "Tin": list(tin), "Tout": list(tout)})


# ---- the library ------------------------------------------------------------

# f(x, y) = (x + y, (x + y) * x)
F_SUM_PROD = Function("sum_prod", [Arg("x", F), Arg("y", F)], [Arg("sum", F), Arg("prod", F)],
                      [binary("add", "AddV2", "x", "y"), binary("mul", "Mul", "add:z:0", "x")],
                      {"sum": "add:z:0", "prod": "mul:z:0"})

# g(x) = 2 * (f(x, x).sum + f(f(x, x).prod, x).prod): a PartitionedCall, a
# direct call by op name, and a Const in the body.
F_NESTED = Function("nested", [Arg("x", F)], [Arg("out", F)],
                    [call("c1", "sum_prod", ["x", "x"], [F, F], [F, F], op="PartitionedCall"),
                     Node("c2", "sum_prod", ["c1:output:1", "x"]),
                     binary("r", "AddV2", "c1:output:0", "c2:prod:0"),
                     const("two", 2.0),
                     binary("m", "Mul", "r:z:0", "two:output:0")],
                    {"out": "m:z:0"})

# square(x: T) -> x * x, T bound by the call.
F_SQUARE = Function("square", [Arg("x", type_attr="T")], [Arg("y", type_attr="T")],
                    [Node("m", "Mul", ["x", "x"], {"T": Placeholder("T")})], {"y": "m:z:0"}, attr_defs={"T": None})

# total(xs: N floats) -> AddN(xs); halves(x) -> the two halves of x (Split).
F_TOTAL = Function("total", [Arg("xs", F, number_attr="N")], [Arg("s", F)],
                   [Node("s", "AddN", ["xs"], {"T": F, "N": Placeholder("N")})], {"s": "s:sum:0"},
                   attr_defs={"N": None})
F_HALVES = Function("halves", [Arg("x", F)], [Arg("a", F), Arg("b", F)],
                    [const("dim", 0, I32), Node("split", "Split", ["dim:output:0", "x"], {"T": F, "num_split": 2})],
                    {"a": "split:output:0", "b": "split:output:1"})


def counting_loop(prefix):
    """cond(i, s, n): i < n; body: (i + 1, s + i, n)."""
    cond = Function(prefix + "_cond", [Arg("i", I32), Arg("s", I32), Arg("n", I32)], [Arg("go", BOOL)],
                    [binary("less", "Less", "i", "n", I32)], {"go": "less:z:0"})
    body = Function(prefix + "_body", [Arg("i", I32), Arg("s", I32), Arg("n", I32)],
                    [Arg("i_next", I32), Arg("s_next", I32), Arg("n_out", I32)],
                    [const("one", 1, I32), binary("i1", "AddV2", "i", "one:output:0", I32),
                     binary("s1", "AddV2", "s", "i", I32)],
                    {"i_next": "i1:z:0", "s_next": "s1:z:0", "n_out": "n"})
    return cond, body


SUM_COND, SUM_BODY = counting_loop("sum")


def while_node(name, inputs, types, cond, body, **extra):
    return Node(name, "While", inputs, {"T": list(types), "cond": Func(cond), "body": Func(body),
                                         "parallel_iterations": 10, "_lower_using_switch_merge": True, **extra})


# sum_to(n) = 0 + 1 + ... + (n - 1), by a While inside a function.
F_SUM_TO = Function("sum_to", [Arg("n", I32)], [Arg("s", I32)],
                    [const("zero", 0, I32),
                     while_node("loop", ["zero:output:0", "zero:output:0", "n"], [I32, I32, I32], "sum_cond",
                                "sum_body")],
                    {"s": "loop:output:1"})

# times_100(n) = 100 * n
F_TIMES_100 = Function("times_100", [Arg("n", I32)], [Arg("s", I32)],
                       [const("k", 100, I32), binary("m", "Mul", "n", "k:output:0", I32)], {"s": "m:z:0"})

# Keras-style loop: (i, out_list, t, in_list, w): out[i] = in[i] @ w.
MAP_COND = Function("map_cond", [Arg("i", I32), Arg("out", VARIANT), Arg("t", I32), Arg("in", VARIANT),
                                 Arg("w", F)], [Arg("go", BOOL)],
                    [binary("less", "Less", "i", "t", I32), Node("id", "Identity", ["less:z:0"], {"T": BOOL})],
                    {"go": "id:output:0"})
MAP_BODY = Function("map_body", [Arg("i", I32), Arg("out", VARIANT), Arg("t", I32), Arg("in", VARIANT),
                                 Arg("w", F)],
                    [Arg("i_next", I32), Arg("out_next", VARIANT), Arg("t_out", I32), Arg("in_out", VARIANT),
                     Arg("w_out", F)],
                    [const("shape", [2], I32),
                     Node("item", "TensorListGetItem", ["in", "i", "shape:output:0"], {"element_dtype": F}),
                     const("axis", 0, I32),
                     Node("row", "ExpandDims", ["item:item:0", "axis:output:0"], {"T": F, "Tdim": I32}),
                     Node("mm", "MatMul", ["row:output:0", "w"], {"T": F}),
                     Node("vec", "Squeeze", ["mm:product:0"], {"T": F, "squeeze_dims": [0]}),
                     Node("set", "TensorListSetItem", ["out", "i", "vec:output:0"], {"element_dtype": F}),
                     const("one", 1, I32), binary("i1", "AddV2", "i", "one:output:0", I32),
                     Node("NoOp", "NoOp", ["^set"]),
                     Node("Identity", "Identity", ["i1:z:0", "^NoOp"], {"T": I32})],
                    {"i_next": "Identity:output:0", "out_next": "set:output_handle:0", "t_out": "t", "in_out": "in",
                     "w_out": "w"}, control_ret={"set": "set"})


def branch(name, op, k, dtype=F):
    """x -> op(x, k), k a Const in the body."""
    return Function(name, [Arg("x", dtype)], [Arg("y", dtype)],
                    [const("k", k, dtype), binary("r", op, "x", "k:output:0", dtype)], {"y": "r:z:0"})


DOUBLE, PLUS_10 = branch("double", "Mul", 2.0), branch("plus_10", "AddV2", 10.0)
PLUS_1, TIMES_3, MINUS_5 = branch("plus_1", "AddV2", 1.0), branch("times_3", "Mul", 3.0), branch("minus_5", "Sub", 5.0)
NEGATE = Function("negate", [Arg("x", I32)], [Arg("y", I32)], [Node("n", "Neg", ["x"], {"T": I32})], {"y": "n:y:0"})
KEEP = Function("keep", [Arg("x", I32)], [Arg("y", I32)], [], {"y": "x"})

# (i, s, n): s += i if i is even else -i, the sign chosen by an If.
ALT_COND = Function("alt_cond", [Arg("i", I32), Arg("s", I32), Arg("n", I32)], [Arg("go", BOOL)],
                    [binary("less", "Less", "i", "n", I32)], {"go": "less:z:0"})
ALT_BODY = Function("alt_body", [Arg("i", I32), Arg("s", I32), Arg("n", I32)],
                    [Arg("i_next", I32), Arg("s_next", I32), Arg("n_out", I32)],
                    [const("two", 2, I32), binary("mod", "FloorMod", "i", "two:output:0", I32),
                     const("zero", 0, I32), binary("even", "Equal", "mod:z:0", "zero:output:0", I32),
                     Node("sign", "If", ["even:z:0", "i"], {"Tcond": BOOL, "Tin": [I32], "Tout": [I32],
                                                             "then_branch": Func("keep"),
                                                             "else_branch": Func("negate")}),
                     binary("s1", "AddV2", "s", "sign:output:0", I32),
                     const("one", 1, I32), binary("i1", "AddV2", "i", "one:output:0", I32)],
                    {"i_next": "i1:z:0", "s_next": "s1:z:0", "n_out": "n"})

# (j, c, m): c += sum_to(j): a loop inside a loop.
OUTER_COND = Function("outer_cond", [Arg("j", I32), Arg("c", I32), Arg("m", I32)], [Arg("go", BOOL)],
                      [binary("less", "Less", "j", "m", I32)], {"go": "less:z:0"})
OUTER_BODY = Function("outer_body", [Arg("j", I32), Arg("c", I32), Arg("m", I32)],
                      [Arg("j_next", I32), Arg("c_next", I32), Arg("m_out", I32)],
                      [call("inner", "sum_to", ["j"], [I32], [I32]),
                       binary("c1", "AddV2", "c", "inner:output:0", I32),
                       const("one", 1, I32), binary("j1", "AddV2", "j", "one:output:0", I32)],
                      {"j_next": "j1:z:0", "c_next": "c1:z:0", "m_out": "m"})

# Variables: init(state, count) zeroes both; step(x, state, count) sets
# state = state / 2 + x, count += 1 and returns both as read after.
RES = DType(20)
INIT_FN = Function("init_vars", [Arg("state", RES), Arg("count", RES)], [],
                   [const("z", [0.0, 0.0, 0.0]), Node("a1", "AssignVariableOp", ["state", "z:output:0"], {"dtype": F}),
                    const("c0", 0, I32), Node("a2", "AssignVariableOp", ["count", "c0:output:0"], {"dtype": I32})],
                   {}, control_ret={"a1": "a1", "a2": "a2"})
NOOP_FN = Function("no_init", [Arg("state", RES), Arg("count", RES)], [], [], {})
STEP_FN = Function("step", [Arg("x", F), Arg("state", RES), Arg("count", RES)], [Arg("out", F), Arg("n", I32)],
                   [Node("r", "ReadVariableOp", ["state"], {"dtype": F}), const("half", 0.5),
                    binary("m", "Mul", "r:value:0", "half:output:0"), binary("s", "AddV2", "m:z:0", "x"),
                    Node("w", "AssignVariableOp", ["state", "s:z:0"], {"dtype": F}), const("one", 1, I32),
                    Node("t", "AssignAddVariableOp", ["count", "one:output:0"], {"dtype": I32}),
                    Node("out", "ReadVariableOp", ["state", "^w"], {"dtype": F}),
                    Node("c", "ReadVariableOp", ["count", "^t"], {"dtype": I32})],
                   {"out": "out:value:0", "n": "c:value:0"}, control_ret={"w": "w", "t": "t"})

LIBRARY = [INIT_FN, NOOP_FN, STEP_FN, F_SUM_PROD, F_NESTED, F_SQUARE, F_TOTAL, F_HALVES, SUM_COND, SUM_BODY, F_SUM_TO, F_TIMES_100, MAP_COND,
           MAP_BODY, DOUBLE, PLUS_10, PLUS_1, TIMES_3, MINUS_5, NEGATE, KEEP, ALT_COND, ALT_BODY, OUTER_COND,
           OUTER_BODY]


# ---- the graphs ---------------------------------------------------------------

def calls_graph():
    """call = sum_prod(x, y); out = call:1 - call:0; nested(x); square of a
    float and of an int; total(x, y, x); halves(x)."""
    return [placeholder("x", F, [4]), placeholder("y", F, [4]), placeholder("k", I32, [3]),
            call("call", "sum_prod", ["x", "y"], [F, F], [F, F]),
            binary("out", "Sub", "call:1", "call", F),
            call("nest", "nested", ["x"], [F], [F]),
            call("sq_f", "square", ["x"], [F], [F], attrs={"T": F}),
            call("sq_i", "square", ["k"], [I32], [I32], op="PartitionedCall", attrs={"T": I32}),
            call("tot", "total", ["x", "y", "x"], [F, F, F], [F], attrs={"N": 3}),
            call("halves", "halves", ["x"], [F], [F, F]),
            Node("after", "Identity", ["y", "^call"], {"T": F})]


def loops_graph():
    """The counting loop on a fed n; the Keras-style map over x's rows."""
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    elem = const("elem_shape", [2], I32)
    return [placeholder("n", I32, []), const("zero", 0, I32),
            while_node("loop", ["zero", "zero", "n"], [I32, I32, I32], "sum_cond", "sum_body"),
            placeholder("x", F, [-1, 2]), elem, const("w", w),
            Node("shape", "Shape", ["x"], {"T": F, "out_type": I32}),
            const("b", [0], I32), const("e", [1], I32), const("s", [1], I32),
            Node("t", "StridedSlice", ["shape", "b", "e", "s"], {"T": I32, "Index": I32, "shrink_axis_mask": 1}),
            Node("in_list", "TensorListFromTensor", ["x", "elem_shape"], {"element_dtype": F, "shape_type": I32}),
            Node("out_list", "TensorListReserve", ["elem_shape", "t"], {"element_dtype": F, "shape_type": I32}),
            while_node("map", ["zero", "out_list", "t", "in_list", "w"], [I32, VARIANT, I32, VARIANT, F],
                       "map_cond", "map_body", parallel_iterations=32),
            Node("stacked", "TensorListStack", ["map:1", "elem_shape"], {"element_dtype": F, "num_elements": -1}),
            while_node("alt", ["zero", "zero", "n"], [I32, I32, I32], "alt_cond", "alt_body"),
            while_node("outer", ["zero", "zero", "n"], [I32, I32, I32], "outer_cond", "outer_body")], w


def if_graph(pred_dtype, pred_shape):
    """out = pred ? x * 2 : x + 10; after = Identity(x, ^if)."""
    return [placeholder("p", pred_dtype, pred_shape), placeholder("x", F, [3]),
            Node("if", "If", ["p", "x"], {"Tcond": pred_dtype, "Tin": [F], "Tout": [F],
                                          "then_branch": Func("double"), "else_branch": Func("plus_10")}),
            Node("after", "Identity", ["x", "^if"], {"T": F})]


def if_string_graph(text):
    """As if_graph with a string Const predicate."""
    p = Node("p", "Const", [], {"dtype": STR, "value": TypedArray(np.array(text.encode(), dtype=object), STR)})
    return [p] + if_graph(STR, [])[1:]


def case_graph():
    """b -> [x + 1, x * 3, x - 5][b], the last branch out of range."""
    return [placeholder("b", I32, []), placeholder("x", F, [3]),
            Node("case", "Case", ["b", "x"], {"Tin": [F], "Tout": [F], "output_shapes": [],
                                              "branches": [Func("plus_1"), Func("times_3"), Func("minus_5")]})]


def loop_in_branch_graph():
    """p ? sum_to(n) : 100 * n, the loop inside a branch."""
    return [placeholder("p", BOOL, []), placeholder("n", I32, []),
            Node("if", "StatelessIf", ["p", "n"], {"Tcond": BOOL, "Tin": [I32], "Tout": [I32],
                                                  "then_branch": Func("sum_to"), "else_branch": Func("times_100")})]


def stateful_graph():
    """Variables initialised once (If on VarIsInitializedOp), then a step per run."""
    return [Node("state", "VarHandleOp", [], {"dtype": F, "shape": Shape([3]), "shared_name": "state"}),
            Node("count", "VarHandleOp", [], {"dtype": I32, "shape": Shape([]), "shared_name": "count"}),
            placeholder("x", F, [3]),
            Node("inited", "VarIsInitializedOp", ["count"]),
            Node("init", "If", ["inited", "state", "count"], {"Tcond": BOOL, "Tin": [RES, RES], "Tout": [],
                                                               "then_branch": Func("no_init"),
                                                               "else_branch": Func("init_vars")}),
            call("step", "step", ["x", "state", "count", "^init"], [F, RES, RES], [F, I32])]


# ---- numpy ------------------------------------------------------------------------

def sum_to(n):
    return sum(range(max(n, 0)))


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20)
    lines = []

    def save(name, array):
        path = os.path.join(out, name)
        np.save(path, array)
        return path

    def graph(name, nodes):
        path = os.path.join(out, name + ".pb")
        with open(path, "wb") as f:
            f.write(encode_graph(nodes, LIBRARY))
        return path

    def case(name, pb, feeds, wants):
        flags = ["--graph=" + pb]
        flags += ["--input=%s=%s" % (k, save("%s.%s.npy" % (name, k.replace(":", "_")), v)) for k, v in feeds.items()]
        pairs = []
        for k, v in wants.items():
            got = os.path.join(out, "%s.got_%s.npy" % (name, k.replace(":", "_").replace("/", "_")))
            flags.append("--output=%s=%s" % (k, got))
            pairs.append("want=%s:got=%s" % (save("%s.want_%s.npy" % (name, k.replace(":", "_").replace("/", "_")),
                                                   v), got))
        lines.append("\t".join([name, *flags, *pairs]))

    x = rng.standard_normal(4).astype(np.float32)
    y = rng.standard_normal(4).astype(np.float32)
    k = np.array([3, -4, 7], np.int32)
    s = x + y
    p = s * x
    s1, p1 = x + x, (x + x) * x
    nested = 2 * (s1 + (p1 + x) * p1)
    case("calls", graph("calls", calls_graph()), {"x": x, "y": y, "k": k},
         {"call:0": s, "call:1": p, "out": p - s, "nest": nested, "sq_f": x * x, "sq_i": k * k, "tot": x + y + x,
          "halves:0": x[:2], "halves:1": x[2:], "after": y})

    nodes, w = loops_graph()
    loops = graph("loops", nodes)
    for n in (5, 1, 0, -3):
        rows = rng.standard_normal((max(n, 0), 2)).astype(np.float32)
        alt = sum(i if i % 2 == 0 else -i for i in range(max(n, 0)))
        outer = sum(sum_to(j) for j in range(max(n, 0)))
        case("loops_n%d" % n, loops, {"n": np.array(n, np.int32), "x": rows},
             {"loop:0": np.array(max(n, 0), np.int32), "loop:1": np.array(sum_to(n), np.int32),
              "loop:2": np.array(n, np.int32), "stacked": rows @ w, "alt:1": np.array(alt, np.int32),
              "outer:1": np.array(outer, np.int32)})

    xs = rng.standard_normal(3).astype(np.float32)
    for tag, dtype, shape, value, truth in (("bool_true", BOOL, [], np.array(True), True),
                                            ("bool_false", BOOL, [], np.array(False), False),
                                            ("int_7", I32, [], np.array(7, np.int32), True),
                                            ("int_0", I32, [], np.array(0, np.int32), False),
                                            ("float_1_zero", F, [-1], np.zeros(1, np.float32), True),
                                            ("float_0", F, [-1], np.zeros(0, np.float32), False),
                                            ("float_3_zeros", F, [-1], np.zeros(3, np.float32), True)):
        pb = graph("if_" + tag, if_graph(dtype, shape))
        case("if_" + tag, pb, {"p": value, "x": xs}, {"if": xs * 2 if truth else xs + 10, "after": xs})
    for tag, text, truth in (("string_empty", "", False), ("string_a", "a", True)):
        case("if_" + tag, graph("if_" + tag, if_string_graph(text)), {"x": xs}, {"if": xs * 2 if truth else xs + 10})

    cases = graph("case", case_graph())
    for b in (-1, 0, 1, 2, 7):
        want = [xs + 1, xs * 3, xs - 5][b if 0 <= b < 3 else 2]
        case("case_b%d" % b, cases, {"b": np.array(b, np.int32), "x": xs}, {"case": want})

    nested_pb = graph("loop_in_branch", loop_in_branch_graph())
    for p_value in (False, True):
        case("loop_in_branch_%s" % str(p_value).lower(), nested_pb, {"p": np.array(p_value), "n": np.array(6, np.int32)},
             {"if": np.array(sum_to(6) if p_value else 600, np.int32)})

    stateful = graph("stateful", stateful_graph())
    for runs in (1, 3):
        case("stateful_%d_runs" % runs, stateful, {"x": xs}, {"step:0": xs * sum(0.5 ** i for i in range(runs)),
                                                               "step:1": np.array(runs, np.int32)})
        lines[-1] += "\t--runs=%d" % runs

    # ListDiff (tf.setdiff1d in TF1-era exports), outside any function
    diff = graph("list_diff", [placeholder("a", I32, [-1]), placeholder("b", I32, [-1]),
                               Node("d", "ListDiff", ["a", "b"], {"T": I32, "out_idx": I32}),
                               placeholder("fa", F, [-1]), placeholder("fb", F, [-1]),
                               Node("fd", "ListDiff", ["fa", "fb"], {"T": F, "out_idx": DType(9)})])
    a = np.array([5, 1, 9, 1, 7, -2, 9], np.int32)
    b = np.array([9, 3, -2], np.int32)
    fa = np.array([0.5, -0.0, 2.0, np.nan, 3.5], np.float32)
    fb = np.array([0.0, 3.5, 1.0], np.float32)
    keep = [i for i, v in enumerate(a) if v not in b]
    fkeep = [i for i, v in enumerate(fa) if not (v == fb).any()]
    case("list_diff", diff, {"a": a, "b": b, "fa": fa, "fb": fb},
         {"d:0": a[keep], "d:1": np.array(keep, np.int32), "fd:0": fa[fkeep], "fd:1": np.array(fkeep, np.int64)})
    case("list_diff_empty", diff, {"a": a, "b": a, "fa": fa[:0], "fb": fb},
         {"d:0": a[:0], "d:1": np.zeros(0, np.int32), "fd:0": fa[:0]})

    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(len(lines))


if __name__ == "__main__":
    main(sys.argv[1])
