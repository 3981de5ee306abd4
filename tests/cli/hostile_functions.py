"""hostile_functions.py - the function-library part of the hostile-model
corpus (hostile_models.py calls function_cases): graphs whose functions
call themselves, nest too deep, multiply into millions of nodes, loop
forever, or are missing, mistyped or malformed. Each must give one error
line naming the node or function, never a crash or a hang."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
import graphdef  # noqa: E402
from graphdef import Arg, DType, Func, Function, Node, Placeholder  # noqa: E402

F, I32, BOOL = DType(1), DType(3), DType(10)
B = graphdef._bytes_field


def with_library(nodes, library):
    """A GraphDef's bytes: the nodes and a library (Function objects or raw bytes)."""
    lib = library if isinstance(library, bytes) else graphdef.encode_library(library)
    return graphdef.encode_graph(nodes) + B(2, lib)


def calling(fn, op="StatefulPartitionedCall", tin=(F,), tout=(F,), inputs=("a",), attrs=None):
    """Const a (float [2]) and y = a call of fn."""
    a = Node("a", "Const", [], {"dtype": F, "value": np.ones(2, np.float32)})
    return [a, Node("y", op, list(inputs), {"f": Func(fn, attrs or {}), "Tin": list(tin), "Tout": list(tout)})]


def calls(name, callee, op="PartitionedCall"):
    """name(x) = callee(x)."""
    return Function(name, [Arg("x", F)], [Arg("y", F)],
                    [Node("c", op, ["x"], {"f": Func(callee), "Tin": [F], "Tout": [F]})], {"y": "c:output:0"})


def identity_fn(name="ident", body_input="x", ret="id:output:0", **extra):
    return Function(name, [Arg("x", F)], [Arg("y", F)], [Node("id", "Identity", [body_input], {"T": F})],
                    {"y": ret}, **extra)


def fan_out(levels):
    """f_k(x) = f_{k-1}(x) + f_{k-1}(x), f_0 = Identity: 2^levels nodes once inlined."""
    fns = [identity_fn("f_0")]
    for k in range(1, levels + 1):
        fns.append(Function(f"f_{k}", [Arg("x", F)], [Arg("y", F)],
                            [Node("a", f"f_{k - 1}", ["x"]), Node("b", f"f_{k - 1}", ["x"]),
                             Node("s", "AddV2", ["a:y:0", "b:y:0"], {"T": F})], {"y": "s:z:0"}))
    return fns


def while_graph(cond, body, library):
    i = Node("i", "Const", [], {"dtype": I32, "value": np.array(0, np.int32)})
    loop = Node("y", "While", ["i"], {"T": [I32], "cond": Func(cond), "body": Func(body)})
    return with_library([i, loop], library)


def function_cases(c):
    """Adds the cases to corpus c (hostile_models.Corpus)."""
    c.error("function_calls_itself", with_library(calling("f"), [calls("f", "f")]),
            r"node 'y/c' \(PartitionedCall\): function recursion f -> f is not supported")
    c.error("functions_call_each_other", with_library(calling("f"), [calls("f", "g"), calls("g", "f")]),
            r"function recursion f -> g -> f is not supported")
    chain = [calls(f"d{k}", f"d{k + 1}") for k in range(70)] + [identity_fn("d70")]
    c.error("calls_nested_70_deep", with_library(calling("d0"), chain), "function calls nest more than 64 deep")
    c.error("calls_multiply_past_the_node_limit", with_library(calling("f_30", op="PartitionedCall"), fan_out(30)),
            "function calls makes more than 262144 nodes")
    # 2^16 calls whose output-control and name-keeping nodes take the graph past the limit: refused
    # before any node is copied (the estimate once left them out and copied 262,144 nodes first)
    c.error("calls_multiply_with_their_glue", with_library(calling("f_16", op="PartitionedCall"), fan_out(16)),
            "function calls makes more than 262144 nodes$")
    # a bad reference in the caller's body is found when the caller is entered, before the calls
    # in its body are expanded (with a wide call below, the bad reference was found after it)
    outer = Function("outer", [Arg("x", F)], [Arg("y", F)],
                     [Node("a", "f_12", ["x"]), Node("s", "AddV2", ["a:y:0", "a:y:1"], {"T": F})],
                     {"y": "s:z:0"})
    deep = fan_out(12)
    deep[5] = Function("f_5", [Arg("x", F)], [Arg("y", F)], [Node("id", "Identity", ["ghost"], {"T": F})],
                       {"y": "id:output:0"})
    c.error("body_checked_before_its_calls_expand", with_library(calling("outer"), deep + [outer]),
            r"node 'y/s' \(AddV2\): function 'outer': input 'a:y:1': no such element of the output argument")
    c.error("call_of_a_missing_function", with_library(calling("nope"), [identity_fn()]),
            r"node 'y' \(StatefulPartitionedCall\): function 'nope' is not in the graph's function library")
    c.error("call_tin_mismatch", with_library(calling("ident", tin=(I32,)), [identity_fn()]),
            r"node 'y' .*function 'ident': input 0 is int32 \(Tin\), but the function's is float")
    c.error("call_tout_count", with_library(calling("ident", tout=(F, F)), [identity_fn()]),
            r"function 'ident': Tout lists 2 types for its 1 outputs")
    c.error("call_arity", with_library(calling("ident", inputs=("a", "a"), tin=(F, F)), [identity_fn()]),
            r"function 'ident': it takes 1 inputs, the node gives 2")
    c.error("direct_call_arity", with_library([calling("ident")[0], Node("y", "ident", ["a", "a"])], [identity_fn()]),
            r"node 'y' \(ident\): function 'ident': it takes 1 inputs, the node gives 2")
    c.error("body_reads_a_missing_node", with_library(calling("ident"), [identity_fn(body_input="ghost:output:0")]),
            r"node 'y/id' \(Identity\): function 'ident': input 'ghost:output:0': the function has no such node")
    top = Function("top", [Arg("x", F)], [Arg("y", F)],
                   [Node("k", "Const", [], {"dtype": I32, "value": np.array(1, np.int32)}),
                    Node("t", "TopKV2", ["x", "k:output:0"], {"T": F}),
                    Node("id", "Identity", ["t:nosuch:0"], {"T": F})], {"y": "id:output:0"})
    c.error("body_reads_a_missing_output_argument", with_library(calling("top"), [top]),
            r"input 't:nosuch:0': op 'TopKV2' has no output argument 'nosuch'")
    c.error("ret_missing", with_library(calling("ident"), [Function("ident", [Arg("x", F)], [Arg("y", F)], [], {})]),
            r"function 'ident': it returns no value for its output 'y'")
    # the body returns a float where the signature declares int32: refused by the node keeping the
    # call's name (typed as declared), as TensorFlow's _Retval refuses it
    wrong = Function("wrong", [Arg("x", F)], [Arg("y", I32)], [Node("id", "Identity", ["x"], {"T": F})],
                     {"y": "id:output:0"})
    c.error("ret_type_differs", with_library(calling("wrong", tout=(I32,)), [wrong]),
            r"node 'y' \(IdentityN\): attribute T says input 0 is int32, but it is float")
    c.error("control_ret_missing_node", with_library(calling("ident"), [identity_fn(control_ret={"z": "ghost"})]),
            r"function 'ident': its control output 'ghost' is not a node of its body")
    poly = Function("poly", [Arg("x", type_attr="T")], [Arg("y", type_attr="T")],
                    [Node("id", "Identity", ["x"], {"T": Placeholder("U")})], {"y": "id:output:0"},
                    attr_defs={"T": None})
    c.error("placeholder_not_bound", with_library(calling("poly", attrs={"T": F}), [poly]),
            r"attribute 'T' is the placeholder 'U', which the call does not set")
    c.error("count_attr_missing", with_library(calling("total"), [Function(
        "total", [Arg("xs", F, number_attr="N")], [Arg("s", F)], [Node("s", "AddN", ["xs"], {"T": F})],
        {"s": "s:sum:0"})]), r"the call does not set the attributes that give its number of arguments")
    # functional control flow
    forever = Function("forever", [Arg("i", I32)], [Arg("go", BOOL)],
                       [Node("t", "Const", [], {"dtype": BOOL, "value": np.array(True)})], {"go": "t:output:0"})
    step = Function("step", [Arg("i", I32)], [Arg("j", I32)],
                    [Node("one", "Const", [], {"dtype": I32, "value": np.array(1, np.int32)}),
                     Node("j", "AddV2", ["i", "one:output:0"], {"T": I32})], {"j": "j:z:0"})
    c.add("while_never_ends", while_graph("forever", "step", [forever, step]),
          "error:while loop frame 'y' did not finish after 1000 iterations", extra=["--max_loop_iterations=1000"])
    # nested loops each under the limit multiplied past it (1000 per loop: 50 inner x endless outer)
    fifty = Function("below50", [Arg("i", I32)], [Arg("go", BOOL)],
                     [Node("n", "Const", [], {"dtype": I32, "value": np.array(50, np.int32)}),
                      Node("lt", "Less", ["i", "n:output:0"], {"T": I32})], {"go": "lt:z:0"})
    inner = Function("inner", [Arg("i", I32)], [Arg("j", I32)],
                     [Node("zero", "Const", [], {"dtype": I32, "value": np.array(0, np.int32)}),
                      Node("w", "While", ["zero:output:0"], {"T": [I32], "cond": Func("below50"),
                                                             "body": Func("step")})],
                     {"j": "w:output:0"})
    c.add("while_nested_multiplies", while_graph("forever", "inner", [forever, step, fifty, inner]),
          "error:the loops of this run took more than 1000 iterations together",
          extra=["--max_loop_iterations=1000"])
    c.error("while_missing_body", while_graph("forever", "nope", [forever, step]),
            r"node 'y' \(While\): its body 'nope' is not in the graph's function library")
    two = Function("two", [Arg("i", I32)], [Arg("a", I32), Arg("b", I32)], [], {"a": "i", "b": "i"})
    c.error("while_body_returns_two_for_one", while_graph("forever", "two", [forever, two]),
            r"function 'two': T lists 1 types for its 2 outputs")
    c.error("while_cond_returns_two", while_graph("two", "step", [two, step]),
            r"node 'y' \(While\): its cond 'two' returns 2 values, expected 1")
    c.error("while_calls_itself_through_its_body",
            while_graph("forever", "loop_body", [forever, Function(
                "loop_body", [Arg("i", I32)], [Arg("j", I32)],
                [Node("w", "While", ["i"], {"T": [I32], "cond": Func("forever"), "body": Func("loop_body")})],
                {"j": "w:output:0"})]), r"function recursion loop_body -> loop_body is not supported")
    b = Node("b", "Const", [], {"dtype": I32, "value": np.array([0, 1], np.int32)})
    x = Node("x", "Const", [], {"dtype": F, "value": np.ones(2, np.float32)})
    case = Node("y", "Case", ["b", "x"], {"Tin": [F], "Tout": [F], "branches": [Func("ident"), Func("ident")]})
    c.error("case_index_not_a_scalar", with_library([b, x, case], [identity_fn()]), r"node 'y/case/switch_pred'")
    c.error("case_without_branches", with_library([b, x, Node("y", "Case", ["b", "x"], {"Tin": [F], "Tout": [F]})],
                                                  [identity_fn()]),
            r"node 'y' \(Case\): attribute branches does not list functions")
    c.error("if_without_tin", with_library([b, x, Node("y", "If", ["b", "x"], {"then_branch": Func("ident")})],
                                           [identity_fn()]), r"node 'y' \(If\): attribute Tin is not a list of types")
    # malformed libraries
    fn = graphdef.encode_function(identity_fn())
    c.error("library_truncated", with_library(calling("ident"), B(1, fn)[:-3]),
            "the function library is not valid")
    c.error("library_functions_share_a_name", with_library(calling("ident"), B(1, fn) + B(1, fn)),
            "the function library is not valid: two functions are named ident")
    c.error("library_function_name_with_nul", with_library(calling("ident"), B(1, fn.replace(b"ident", b"id\0nt"))),
            "its name holds a NUL byte")
    c.error("library_body_node_without_op", with_library(calling("ident"), [Function(
        "ident", [Arg("x", F)], [Arg("y", F)], [Node("id", "", ["x"])], {"y": "id:output:0"})]),
            "function 'ident': body node 0 has no op")
    deep = Node("id", "Identity", ["x"], {"T": F, "f": _nested_func(150)})
    c.error("library_attr_nested_150", with_library(calling("ident"), [Function(
        "ident", [Arg("x", F)], [Arg("y", F)], [deep], {"y": "id:output:0"})]), "nest more than 100 levels")


def _nested_func(depth):
    v = Func("leaf")
    for _ in range(depth):
        v = Func("f", {"a": v})
    return v
