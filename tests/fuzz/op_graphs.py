"""op_graphs.py - structure-aware inputs for fuzz_graphdef: for every op a
kernels/*.c file registers, small GraphDefs in which that op reads Const
inputs of random dtypes, ranks and edge values (0, -1, 2^31-1, NaN, ...) and
carries random values of the attributes its kernel file reads (edge values
again), so the fuzzer starts inside each kernel's prepare and run instead of
at the protobuf parser.

    python3 tests/fuzz/op_graphs.py OUT_DIR [GRAPHS_PER_OP] [SEED] [RUN_GRAPH]

With RUN_GRAPH (a run_graph binary) each op is first probed with one input
and its "expects N to M inputs" error gives the input counts to use; without
it they are random. `make fuzz` copies the graphs into fuzz_graphdef's
corpus; the harness run on the directory alone (`fuzz_graphdef OUT_DIR/*`)
executes each once."""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "diff"))
from graphdef import DType, Node, Shape, TypedArray, encode_graph  # noqa: E402

KERNELS = os.path.join(os.path.dirname(__file__), "..", "..", "kernels")
DTYPES = [1, 1, 1, 3, 3, 9, 10, 2, 4, 6, 12, 13]  # float most often, then int32
EDGE_INTS = [0, 1, -1, 2, 3, 4, -2, 7, 2**31 - 1, -2**31, 2**30, 1 << 16]
EDGE_FLOATS = [0.0, 1.0, -1.0, 0.5, 3.0, -6.0, 1e30, -1e30, float("nan"), float("inf"), -float("inf"), 1e-30]
STRINGS = ["SAME", "VALID", "NHWC", "NCHW", "EXPLICIT", "MIN_FIRST", "MIN_COMBINED", "SCALED", "", "x" * 9]


def registered_ops():
    """{op: attribute names its kernel file reads} for every kernels/*.c."""
    ops = {}
    for path in sorted(glob.glob(os.path.join(KERNELS, "*.c"))):
        text = open(path).read()
        attrs = sorted(set(re.findall(r'tp_attr\w*\([^,]*, *"(\w+)"', text)))
        for op in re.findall(r'TP_KERNEL\w*\("(\w+)"', text):
            ops[op] = attrs
    return ops


def edge_array(rng, dtype):
    rank = rng.choice([0, 1, 1, 1, 2, 3, 4])
    dims = [rng.choice([0, 1, 1, 2, 2, 3, 4]) for _ in range(rank)]
    count = int(np.prod(dims)) if dims else 1
    if dtype in (1, 2):
        values = [rng.choice(EDGE_FLOATS) if rng.random() < 0.3 else rng.uniform(-4, 4) for _ in range(count)]
    elif dtype == 10:
        values = [rng.random() < 0.5 for _ in range(count)]
    else:
        values = [rng.choice(EDGE_INTS) if rng.random() < 0.3 else rng.randint(-3, 5) for _ in range(count)]
    storage = {1: np.float32, 2: np.float64, 3: np.int32, 9: np.int64, 10: np.bool_, 4: np.uint8, 6: np.int8,
               12: np.uint8, 13: np.int32}[dtype]
    with np.errstate(all="ignore"):
        if storage in (np.uint8, np.int8):
            values = [int(v) & 0xFF for v in values]
            if storage == np.int8:
                values = [v - 256 if v > 127 else v for v in values]
        elif storage == np.int32:
            values = [max(-2**31, min(2**31 - 1, int(v))) for v in values]
        return np.array(values, dtype=storage).reshape(dims)


def edge_attr(rng, name, first_dtype):
    """A random value for attribute NAME: mostly plausible, sometimes hostile."""
    pick = rng.random()
    if name in ("T", "dtype", "out_type", "Tidx", "Tshape", "SrcT", "DstT", "Tindices", "element_dtype",
                "output_type", "Tinput", "Tfilter", "T1", "T2", "Toutput", "Tpaddings", "shape_type", "index_type"):
        return DType(first_dtype if pick < 0.7 else rng.choice(DTYPES + [0, 7, 99]))
    if name in ("strides", "ksize", "dilations"):
        return [rng.choice([1, 1, 2, 0, -1, 2**31 - 1]) for _ in range(rng.choice([4, 4, 2, 0, 5]))]
    if name == "perm":
        return [rng.randint(-1, 4) for _ in range(rng.randint(0, 4))]
    if name in ("padding", "data_format", "mode", "method", "round_mode", "message", "dct_method",
                "frame_name", "reduction_type"):
        return rng.choice(STRINGS)
    if name in ("shape", "element_shape"):
        return Shape([rng.choice([-1, 0, 1, 2, 3, 2**31 - 1]) for _ in range(rng.randint(0, 4))])
    if name in ("value",):
        return edge_array(rng, first_dtype)
    if name.startswith(("transpose", "keep_dims", "adj_", "align_corners", "half_pixel", "narrow_range",
                        "is_training", "validate", "merge_repeated", "fancy", "scale_after", "magnitude",
                        "output_range_given", "dynamic_size", "pad_to_max", "exclusive", "reverse")):
        return pick < 0.5
    if name in ("alpha", "epsilon", "variance_epsilon", "min", "max", "ratio", "bias", "beta", "extrapolation_value",
                "iou_threshold", "score_threshold", "upper_frequency_limit", "lower_frequency_limit",
                "given_y_min", "given_y_max", "exponential_avg_factor", "ensure_minimum_range", "max_features"):
        return rng.choice(EDGE_FLOATS)
    return rng.choice(EDGE_INTS)


def input_counts(run_graph, op):
    """The (min, max) input count OP's kernel reports for a one-input probe."""
    with tempfile.NamedTemporaryFile(suffix=".pb") as probe:
        probe.write(encode_graph([Node("in0", "Const", [], {"dtype": DType(1), "value": np.zeros(1, np.float32)}),
                                  Node("op", op, ["in0"], {})]))
        probe.flush()
        err = subprocess.run([run_graph, "--graph=" + probe.name, "--output=op"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True).stderr
    found = re.search(r"expects (\d+)(?: to (\d+))? inputs", err)
    if not found:
        return (1, 1)
    low = int(found.group(1))
    return (low, int(found.group(2) or low))


def op_graph(rng, op, attrs, counts):
    inputs = rng.randint(*counts) if counts else rng.choice([1, 2, 2, 3, 3, 4, 5])
    dtypes = [rng.choice(DTYPES) for _ in range(inputs)]
    if dtypes and rng.random() < 0.6:
        dtypes = [dtypes[0]] * inputs
    nodes = []
    for i, dtype in enumerate(dtypes):
        array = edge_array(rng, dtype)
        value = TypedArray(array, dtype) if dtype in (12, 13) else array
        nodes.append(Node("in%d" % i, "Const", [], {"dtype": DType(dtype), "value": value}))
    chosen = {name: edge_attr(rng, name, dtypes[0] if dtypes else 1) for name in attrs if rng.random() < 0.7}
    if "N" in chosen and rng.random() < 0.7:
        chosen["N"] = inputs
    nodes.append(Node("op", op, ["in%d" % i for i in range(inputs)], chosen))
    return nodes


def main():
    out = sys.argv[1]
    per_op = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    run_graph = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(out, exist_ok=True)
    for op, attrs in registered_ops().items():
        counts = input_counts(run_graph, op) if run_graph else None
        for i in range(per_op):
            with open(os.path.join(out, "%s_%d.pb" % (op, i)), "wb") as f:
                f.write(encode_graph(op_graph(rng, op, attrs, counts)))


if __name__ == "__main__":
    main()
