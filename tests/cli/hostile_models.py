"""hostile_models.py - writes the hostile-model corpus: small GraphDefs
modelled on TensorFlow's security advisories (sizes that overflow, block
products that wrap to 0, out-of-range indices and axes, contradicting
attributes, malformed NodeDefs, deep nesting, huge allocations; function
libraries: hostile_functions.py) into a directory, with a manifest test_hostile_models.sh runs through run_graph.

    python3 tests/cli/hostile_models.py OUT_DIR

Manifest lines (tab-separated): case name, expectation, run_graph flags.
The expectation is `error:REGEX` (one error line matching it, non-zero
exit) or `output:REGEX` (TensorFlow accepts the graph; stdout must match).
Feeds are written as .npy files beside the models."""
import os
import struct
import sys

import numpy as np

from hostile_corpus import (FLOAT, INT32, INT64, STRING, B, Corpus, DType, Node, Raw, Shape, const, encode_node, f32,
                            graphdef, i32, i64, node, one_op, ph, raw_tensor)
from hostile_functions import function_cases
from hostile_newer import memory_safety_cases, rejection_cases, scale_cases
from hostile_third import third_round_cases

BIG = 1 << 31
HUGE = 1 << 62
TOO_LARGE = "(too large|overflow|exceeds|memory budget)"


def size_cases(c):
    """Shapes whose element count or byte size overflows or is absurd."""
    # empty tensors with huge other dims are no work (fuzz_graphdef: DepthToSpace of [1,1,1,0] with block
    # 2^31 walked 2^62 empty pixels; pools, depthwise, batch norm, Pad, CropAndResize and SpaceToBatchND alike)
    empty = Node("x", "Const", [], {"dtype": FLOAT, "value": raw_tensor(1, [1, 1 << 30, 1 << 30, 0], content=b"")})
    huge_empty = r"y: float \[1,1073741824,1073741824,0\]$"
    c.output("depth_to_space_empty_block_2p31", [const("x", np.zeros((1, 1, 1, 0), np.float32)),
                                                  node("y", "DepthToSpace", ["x"], T=FLOAT, block_size=1 << 31)],
             r"y: float \[1,2147483648,2147483648,0\]$")
    c.output("max_pool_empty_2p30", [empty, node("y", "MaxPool", ["x"], T=FLOAT, ksize=[1, 1, 1, 1],
                                                  strides=[1, 1, 1, 1], padding="SAME")], huge_empty)
    c.output("depthwise_empty_2p30", [empty, Node("f", "Const", [], {"dtype": FLOAT, "value": raw_tensor(1, [1, 1, 0, 1],
                                                                                                     content=b"")}),
                                      node("y", "DepthwiseConv2dNative", ["x", "f"], T=FLOAT, strides=[1, 1, 1, 1],
                                           padding="SAME")], huge_empty)
    c.output("pad_empty_2p30", [empty, const("p", i32([[0, 0]] * 4)), node("y", "Pad", ["x", "p"], T=FLOAT)],
             huge_empty)
    # fuzz_graphdef: Max over an empty axis wrote its first pass into a 1-byte scratch buffer
    c.output("max_over_empty_axis", [const("x", np.zeros((61, 3, 29, 0), np.int64)), const("a", i64([1, 3, 0])),
                                     node("y", "Max", ["x", "a"], T=INT64, Tidx=INT64)],
             r"y: int64 \[29\] -9223372036854775808 -9223372036854775808 ")
    c.output("mean_over_empty_axis_2p20", [Node("x", "Const", [], {"dtype": FLOAT, "value": raw_tensor(
        1, [1 << 20, 1 << 20, 0], content=b"")}), const("a", i32([0, 2])),
        node("y", "Mean", ["x", "a"], T=FLOAT, Tidx=INT32)], r"y: float \[1048576\] -?nan -?nan ")
    c.output("crop_and_resize_empty_depth", [const("x", np.zeros((1, 1, 1, 0), np.float32)),
                                             const("b", f32([[0, 0, 1, 1]])), const("i", i32([0])),
                                             const("s", i32([2**31 - 1, 2**31 - 1])),
                                             node("y", "CropAndResize", ["x", "b", "i", "s"], T=FLOAT)],
             r"y: float \[1,2147483647,2147483647,0\]$")
    c.error("fill_2p31_squared", one_op("Fill", [i64([BIG, BIG]), f32(1)]), "node 'y'.*" + TOO_LARGE)
    c.error("fill_2p62x4", one_op("Fill", [i64([HUGE, 4]), f32(1)]), "node 'y'.*" + TOO_LARGE)
    c.error("fill_int64_max", one_op("Fill", [i64([2**63 - 1]), f32(1)]), "node 'y'.*" + TOO_LARGE)
    c.error("fill_8_dims_of_2p8", one_op("Fill", [i64([256] * 8), f32(1)]), "node 'y'.*" + TOO_LARGE)
    c.error("fill_negative", one_op("Fill", [i32([2, -3]), f32(1)]), "node 'y'.*negative")
    c.output("fill_zero_and_huge", one_op("Fill", [i64([0, HUGE, HUGE]), f32(1)]),
             r"y: float \[0,4611686018427387904,4611686018427387904\]$")
    c.error("fill_4gb", one_op("Fill", [i32([1 << 15, 1 << 15]), f32(1)]), "node 'y'.*" + TOO_LARGE)
    c.error("fill_rank_9", one_op("Fill", [i32([1] * 9), f32(1)]), "node 'y'")
    c.error("fill_value_not_scalar", one_op("Fill", [i32([2]), f32([1, 2])]), "node 'y'.*scalar")
    c.error("fill_dims_matrix", one_op("Fill", [i32([[2]]), f32(1)]), "node 'y'.*vector")
    for i, dims in enumerate([[BIG, BIG], [HUGE, 8], [1 << 20, 1 << 20, 1 << 20]]):
        c.error(f"random_uniform_{i}", one_op("RandomUniform", [i64(dims)], dtype=FLOAT, T=INT64),
                "node 'y'.*" + TOO_LARGE)
    c.error("random_uniform_negative", one_op("RandomUniform", [i32([-1])], dtype=FLOAT, T=INT32), "node 'y'")
    c.error("zeros_like_huge", one_op("Fill", [i64([BIG, BIG]), f32(0)]) + [node("z", "ZerosLike", ["y"])],
            "node 'y'.*" + TOO_LARGE, fetch="z")
    for i, shape in enumerate([[BIG, BIG], [HUGE, 2], [-2, 3], [-1, -1], [HUGE, -1]]):
        c.error(f"reshape_{i}", one_op("Reshape", [f32([1, 2, 3, 4, 5, 6]), i64(shape)]), "node 'y'")
    c.error("reshape_float_shape", one_op("Reshape", [f32([1, 2]), f32([2.6e29])]), "node 'y'.*int32 or int64")
    c.error("reshape_zero_infer", one_op("Reshape", [f32([1, 2]), i32([0, -1])]), "node 'y'")
    c.error("reshape_count_mismatch", one_op("Reshape", [f32([1, 2, 3]), i32([2, 2])]), "node 'y'")
    c.error("reshape_empty_infer", one_op("Reshape", [np.zeros((0, 3), np.float32), i32([0, -1, 3])]),
            "node 'y'.*-1")
    for i, pads in enumerate([[[HUGE, HUGE]], [[BIG, BIG]], [[-5, 0]], [[2**63 - 1, 1]], [[1, 2**63 - 1]]]):
        c.error(f"pad_{i}", one_op("Pad", [f32([1, 2]), i64(pads)]), "node 'y'")
    c.error("pad_wrong_rows", one_op("Pad", [f32([1, 2]), i32([[1, 1], [1, 1]])]), "node 'y'")
    c.error("padv2_huge", one_op("PadV2", [f32([[1]]), i64([[HUGE, 0], [HUGE, 0]]), f32(0)]), "node 'y'")
    c.error("mirror_pad_too_wide", one_op("MirrorPad", [f32([1, 2]), i32([[5, 5]])], mode="REFLECT"), "node 'y'")
    c.error("mirror_pad_huge", one_op("MirrorPad", [f32([1, 2]), i64([[HUGE, 0]])], mode="SYMMETRIC"), "node 'y'")
    for i, mult in enumerate([[HUGE], [BIG], [-1], [2**63 - 1]]):
        c.error(f"tile_{i}", one_op("Tile", [f32([1, 2, 3]), i64(mult)]), "node 'y'")
    c.error("tile_2d_wrap", one_op("Tile", [f32([[1, 2]]), i64([BIG, BIG])]), "node 'y'")
    c.error("tile_wrong_length", one_op("Tile", [f32([1, 2]), i32([2, 2])]), "node 'y'")
    for i, shape in enumerate([[BIG, BIG], [HUGE, 3], [-3], [2**63 - 1]]):
        c.error(f"broadcast_to_{i}", one_op("BroadcastTo", [f32([1]), i64(shape)]), "node 'y'")
    c.error("broadcast_to_incompatible", one_op("BroadcastTo", [f32([1, 2, 3]), i32([2])]), "node 'y'")
    for i, (start, limit, delta) in enumerate([(0, 2**62, 1), (-2**63, 2**63 - 1, 1), (0, 10, 0),
                                               (10, 0, 1), (2**63 - 1, -2**63, -1)]):
        c.error(f"range_int64_{i}", one_op("Range", [i64(start), i64(limit), i64(delta)]), "node 'y'")
    c.error("range_float_inf", one_op("Range", [f32(0), f32(np.inf), f32(1)]), "node 'y'")
    c.error("range_float_nan", one_op("Range", [f32(0), f32(np.nan), f32(1)]), "node 'y'")
    c.error("range_int32_wrap", one_op("Range", [i32(-2**31), i32(2**31 - 1), i32(1)]), "node 'y'.*" + TOO_LARGE)
    c.output("range_int64_wide_steps", one_op("Range", [i64(-2**63 + 1), i64(2**63 - 1), i64(2**62)]),
             r"y: int64 \[4\] -9223372036854775807 -4611686018427387903 1 4611686018427387905$")
    c.output("range_ok", one_op("Range", [i32(3), i32(12), i32(4)]), r"y: int32 \[3\] 3 7 11")
    x = f32([1, 2, 3])
    for i, (begin, end) in enumerate([([0], [HUGE]), ([-HUGE], [HUGE]), ([2**63 - 1], [-2**63])]):
        c.output(f"strided_slice_clamped_{i}", one_op("StridedSlice", [x, i64(begin), i64(end), i64([1])], Index=INT64),
                 r"y: float \[" + ("3\\] 1 2 3" if i < 2 else "0\\]"))
    c.output("strided_slice_step_huge", one_op("StridedSlice", [x, i64([0]), i64([BIG]), i64([BIG])], Index=INT64),
             r"y: float \[1\] 1")
    c.output("strided_slice_step_min", one_op("StridedSlice", [x, i64([2**63 - 1]), i64([-2**63]), i64([-2**63])],
                                              Index=INT64), r"y: float \[1\] 3")
    c.error("strided_slice_step_zero", one_op("StridedSlice", [x, i64([0]), i64([3]), i64([0])], Index=INT64),
            "node 'y'.*stride")
    c.error("strided_slice_ellipsis_twice",
            one_op("StridedSlice", [f32([1, 2]), i32([0, 0]), i32([1, 1]), i32([1, 1])], ellipsis_mask=3),
            "node 'y'")
    c.error("strided_slice_shrink_out_of_range",
            one_op("StridedSlice", [f32([1, 2]), i32([5]), i32([6]), i32([1])], shrink_axis_mask=1), "node 'y'")
    c.error("slice_huge", one_op("Slice", [f32([1, 2, 3]), i64([1]), i64([HUGE])]), "node 'y'")
    c.error("slice_begin_past", one_op("Slice", [f32([1, 2, 3]), i64([2**63 - 1]), i64([1])]), "node 'y'")
    c.error("slice_negative_size", one_op("Slice", [f32([1, 2, 3]), i32([1]), i32([-2])]), "node 'y'")
    c.error("one_hot_depth_huge", one_op("OneHot", [i32([1, 2]), i32(2**31 - 1), f32(1), f32(0)]),
            "node 'y'.*" + TOO_LARGE)
    c.error("one_hot_depth_negative", one_op("OneHot", [i32([1]), i32(-1), f32(1), f32(0)]), "node 'y'")
    c.error("expand_dims_axis", one_op("ExpandDims", [f32([1]), i32(5)]), "node 'y'")
    c.error("concat_huge", [const("a", f32(1))] + one_op("Fill", [i64([1 << 40]), f32(0)])[:2]
            + [node("f", "Fill", ["a0", "a1"]), node("f2", "Fill", ["a0", "a1"]),
               node("y", "ConcatV2", ["f", "f2", "ax"], N=2)] + [const("ax", i32(0))], "node 'f'.*" + TOO_LARGE)
    c.error("top_k_too_many", one_op("TopKV2", [f32([1, 2, 3]), i32(4)]), "node 'y'")
    c.error("top_k_negative", one_op("TopKV2", [f32([1, 2, 3]), i32(-1)]), "node 'y'")
    c.error("resize_huge", one_op("ResizeBilinear", [np.zeros((1, 2, 2, 1), np.float32), i32([1 << 30, 1 << 30])]),
            "node 'y'.*" + TOO_LARGE)
    c.error("resize_zero", one_op("ResizeBilinear", [np.zeros((1, 2, 2, 1), np.float32), i32([0, 4])]), "node 'y'")
    c.error("resize_negative", one_op("ResizeNearestNeighbor", [np.zeros((1, 2, 2, 1), np.float32), i32([-4, 4])]),
            "node 'y'")
    c.error("string_const_4gb", [Node("y", "Const", [], {"dtype": STRING, "value": raw_tensor(
        7, [1 << 30], string_vals=[b"abcd"])})], "node 'y'.*" + TOO_LARGE)
    c.error("float_const_repeated_huge", [Node("y", "Const", [], {"dtype": FLOAT, "value": raw_tensor(
        1, [1 << 31, 1 << 31], int_vals=None, content=None)})], "node 'y'")
    c.error("const_content_short", [Node("y", "Const", [], {"dtype": FLOAT, "value": raw_tensor(
        1, [4], content=b"\0" * 12)})], "node 'y'")
    c.error("const_dtype_bogus", [Node("y", "Const", [], {"dtype": DType(100), "value": raw_tensor(
        100, [1], content=b"\0")})], "node 'y'")
    c.error("const_negative_dim", [Node("y", "Const", [], {"dtype": FLOAT, "value": raw_tensor(
        1, [2**64 - 5], content=b"")})], "node 'y'")


def block_cases(c):
    """Block sizes and block products (BatchToSpaceND, SpaceToBatchND,
    DepthToSpace, SpaceToDepth) that are zero, negative or wrap to zero."""
    x = np.zeros((4, 2, 2, 1), np.float32)
    for i, block in enumerate([[BIG, BIG], [1 << 32, 1 << 32], [0, 2], [-2, -2], [HUGE, 4], [2**63 - 1, 2]]):
        c.error(f"batch_to_space_{i}", one_op("BatchToSpaceND", [x, i64(block), i64([[0, 0], [0, 0]])]), "node 'y'")
        c.error(f"space_to_batch_{i}", one_op("SpaceToBatchND", [x, i64(block), i64([[0, 0], [0, 0]])]), "node 'y'")
    c.error("batch_to_space_crops_huge", one_op("BatchToSpaceND", [x, i64([2, 2]), i64([[HUGE, HUGE], [0, 0]])]),
            "node 'y'")
    c.error("batch_to_space_crops_negative", one_op("BatchToSpaceND", [x, i64([2, 2]), i64([[-1, 0], [0, 0]])]),
            "node 'y'")
    c.error("space_to_batch_pad_huge", one_op("SpaceToBatchND", [x, i64([2, 2]), i64([[HUGE, HUGE], [0, 0]])]),
            "node 'y'")
    c.error("space_to_batch_block_rank", one_op("SpaceToBatchND", [x, i64([2, 2, 2, 2]),
                                                                   i64([[0, 0]] * 4)]), "node 'y'")
    c.output("batch_to_space_ok", one_op("BatchToSpaceND", [f32([[[[1]]], [[[2]]], [[[3]]], [[[4]]]]), i32([2, 2]),
                                                            i32([[0, 0], [0, 0]])]), r"y: float \[1,2,2,1\] 1 2 3 4")
    for i, bs in enumerate([0, 1, -2, 1 << 32, BIG, HUGE]):
        c.error(f"depth_to_space_{i}", one_op("DepthToSpace", [np.zeros((1, 1, 1, 4), np.float32)], block_size=bs),
                "node 'y'")
        c.error(f"space_to_depth_{i}", one_op("SpaceToDepth", [np.zeros((1, 2, 2, 1), np.float32)], block_size=bs),
                "node 'y'")


def window_cases(c):
    """Convolution and pooling geometry: zero, negative and huge ksize,
    strides, dilations; explicit paddings of the wrong length."""
    x = np.zeros((1, 4, 4, 1), np.float32)
    w = np.zeros((2, 2, 1, 1), np.float32)
    bad = [("zero", [1, 0, 0, 1]), ("negative", [1, -1, -1, 1]), ("huge", [1, HUGE, HUGE, 1]),
           ("int_max", [1, 2**63 - 1, 1, 1]), ("short", [1, 1])]
    # TensorFlow reads strides, dilations and ksize as int32 lists
    int32 = {"huge": "has value 4611686018427387904 out of range for an int32",
             "int_max": "has value 9223372036854775807 out of range for an int32"}
    for what, v in bad:
        c.error(f"conv_strides_{what}", one_op("Conv2D", [x, w], strides=v, padding="SAME"),
                "node 'y'" + (".*'strides' " + int32[what] if what in int32 else ""))
        c.error(f"conv_dilations_{what}", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], dilations=v,
                                                 padding="VALID"), "node 'y'")
        c.error(f"depthwise_strides_{what}", one_op("DepthwiseConv2dNative", [x, w], strides=v, padding="SAME"),
                "node 'y'" + (".*'strides' " + int32[what] if what in int32 else ""))
        for pool in ("MaxPool", "AvgPool"):
            c.error(f"{pool.lower()}_ksize_{what}", one_op(pool, [x], ksize=v, strides=[1, 1, 1, 1],
                                                           padding="VALID"), "node 'y'")
            c.error(f"{pool.lower()}_strides_{what}", one_op(pool, [x], ksize=[1, 2, 2, 1], strides=v,
                                                             padding="SAME"),
                    "node 'y'" + (".*'strides' " + int32[what] if what in int32 else ""))
    # SAME with a stride past the input: one output along that dim
    c.output("conv_strides_int32_max", one_op("Conv2D", [x, w], strides=[1, 2**31 - 1, 1, 1], padding="SAME"),
             r"y: float \[1,1,4,1\] 0 0 0 0$")
    c.output("maxpool_strides_int32_max", one_op("MaxPool", [x], ksize=[1, 2, 2, 1], strides=[1, 2**31 - 1, 2**31 - 1, 1],
                                                 padding="SAME"), r"y: float \[1,1,1,1\] 0$")
    c.error("conv_explicit_paddings_short", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], padding="EXPLICIT",
                                                  explicit_paddings=[1, 1]), "node 'y'")
    c.error("conv_explicit_paddings_huge", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], padding="EXPLICIT",
                                                 explicit_paddings=[0, 0, HUGE, HUGE, HUGE, HUGE, 0, 0]), "node 'y'")
    # fuzz_graphdef: paddings that fit one by one, but the output's dims multiply past int64 (signed overflow
    # choosing the GEMM's filter layout); with no output channels too, where the output is empty
    huge_pads = [0, 0, 1 << 48, 1 << 48, HUGE, 0, 0, 0]
    for what, filt in (("", w), ("_empty", np.zeros((2, 2, 1, 0), np.float32))):
        c.error(f"conv_explicit_paddings_output{what}_past_int64",
                one_op("Conv2D", [x, filt], strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=huge_pads),
                "node 'y'.*dims multiply past int64")
    c.error("conv_explicit_paddings_negative", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], padding="EXPLICIT",
                                                     explicit_paddings=[0, 0, -1, -1, 0, 0, 0, 0]), "node 'y'")
    c.error("conv_bad_padding", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], padding="BOGUS"), "node 'y'")
    c.error("conv_channels_mismatch", one_op("Conv2D", [x, np.zeros((2, 2, 3, 1), np.float32)],
                                            strides=[1, 1, 1, 1], padding="SAME"), "node 'y'")
    c.error("conv_filter_bigger_valid", one_op("Conv2D", [x, np.zeros((9, 9, 1, 1), np.float32)],
                                              strides=[1, 1, 1, 1], padding="VALID"), "node 'y'")
    c.error("conv_dilations_past_int32", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1], dilations=[1, BIG, BIG, 1],
                                                padding="SAME"), "node 'y'.*'dilations' has value 2147483648 out of range")
    c.output("conv_dilated_filter_huge", one_op("Conv2D", [x, w], strides=[1, 1, 1, 1],
                                               dilations=[1, BIG - 1, BIG - 1, 1], padding="SAME"),
             r"y: float \[1,4,4,1\] 0 0")
    c.error("conv_filter_rank", one_op("Conv2D", [x, np.zeros((2, 2, 1), np.float32)], strides=[1, 1, 1, 1],
                                      padding="SAME"), "node 'y'")
    c.error("avgpool_window_bigger_valid", one_op("AvgPool", [x], ksize=[1, 9, 9, 1], strides=[1, 1, 1, 1],
                                                 padding="VALID"), "node 'y'")
    c.error("conv_backprop_sizes_huge", one_op("Conv2DBackpropInput", [i64([1, HUGE, HUGE, 1]), w, x],
                                              strides=[1, 1, 1, 1], padding="SAME"), "node 'y'")
    c.error("conv_backprop_sizes_negative", one_op("Conv2DBackpropInput", [i32([1, -4, 4, 1]), w, x],
                                                  strides=[1, 1, 1, 1], padding="SAME"), "node 'y'")
    c.error("lrn_radius_huge", one_op("LRN", [x], depth_radius=BIG), "node 'y'")
    c.error("lrn_radius_negative", one_op("LRN", [x], depth_radius=-1), "node 'y'")


def nested_func_attr(depth, through_list=False):
    """An AttrValue whose func (or list.func) attrs nest `depth` levels deep."""
    value = graphdef._attr_value(1)
    for _ in range(depth):
        name_attr = B(1, b"f") + B(2, B(1, b"k") + B(2, value))  # NameAttrList{name, attr{k: value}}
        value = B(1, B(9, name_attr)) if through_list else B(10, name_attr)  # AttrValue.list.func / .func
    return Raw(value)


def structure_cases(c):
    """NodeDefs TensorFlow's loader and op registry reject."""
    a = const("a", f32([1, 2]))
    c.error("output_index_past_const", [a, node("y", "Transpose", ["a:4", "p"]), const("p", i32([0]))],
            "node 'y'.*output 4.*'a'")
    c.error("output_index_99999", [a, node("y", "Identity", ["a:99999"])], "output 99999")
    c.error("output_index_huge", [a, node("y", "Identity", ["a:99999999999"])], "node 'y'.*malformed input")
    c.error("fetch_output_past", [a, node("y", "Identity", ["a"])], "fetch 0 reads output 3 of node 'y'", fetch="y:3")
    c.error("split_output_past_num", one_op("Split", [i32(0), f32([1, 2])], num_split=2) +
            [node("z", "Identity", ["y:5"])], "node 'z'.*output 5.*'y'", fetch="z")
    c.error("concat_n_mismatch", [a, const("ax", i32(0)), node("y", "ConcatV2", ["a", "a", "ax"], N=3)],
            "node 'y'.*N")
    c.error("concat_n_zero", [a, const("ax", i32(0)), node("y", "ConcatV2", ["ax"], N=0)], "node 'y'")
    c.error("pack_n_mismatch", [a, node("y", "Pack", ["a", "a"], N=5)], "node 'y'.*N")
    c.error("pack_shapes_differ", [a, const("b", f32([1])), node("y", "Pack", ["a", "b"], N=2)], "node 'y'")
    c.error("addn_n_mismatch", [a, node("y", "AddN", ["a", "a"], N=1)], "node 'y'.*N")
    c.error("addn_types_differ", [a, const("b", i32([1, 2])), node("y", "AddN", ["a", "b"], N=2)], "node 'y'")
    c.error("splitv_sizes_vs_num_split", one_op("SplitV", [f32([1, 2, 3]), i32([1, 2]), i32(0)], num_split=3),
            "node 'y'")
    c.error("splitv_sizes_sum", one_op("SplitV", [f32([1, 2, 3]), i32([1, 1]), i32(0)], num_split=2), "node 'y'")
    c.error("splitv_two_inferred", one_op("SplitV", [f32([1, 2, 3]), i32([-1, -1]), i32(0)], num_split=2),
            "node 'y'")
    c.error("splitv_size_negative", one_op("SplitV", [f32([1, 2, 3]), i32([-2, 5]), i32(0)], num_split=2),
            "node 'y'")
    c.error("split_num_zero", one_op("Split", [i32(0), f32([1, 2])], num_split=0), "node 'y'")
    c.error("split_num_negative", one_op("Split", [i32(0), f32([1, 2])], num_split=-3), "node 'y'")
    c.error("split_not_divisible", one_op("Split", [i32(0), f32([1, 2, 3])], num_split=2), "node 'y'")
    c.error("split_num_huge", one_op("Split", [i32(0), f32([1, 2])], num_split=BIG), "node 'y'")
    c.error("unpack_num_mismatch", one_op("Unpack", [f32([[1, 2]])], num=5), "node 'y'")
    c.error("unpack_axis", one_op("Unpack", [f32([[1, 2]])], num=1, axis=7), "node 'y'")
    c.error("const_t_mismatch", [a, node("y", "Identity", ["a"], T=INT32)], "node 'y'.*T")
    c.error("cast_srct_mismatch", [a, node("y", "Cast", ["a"], SrcT=INT32, DstT=FLOAT)], "node 'y'.*SrcT")
    c.error("add_t_mismatch", [a, node("y", "Add", ["a", "a"], T=INT64)], "node 'y'.*T")
    c.error("const_dtype_vs_value", [Node("y", "Const", [], {"dtype": INT32, "value": graphdef.TypedArray(
        f32([1, 2]), 1)})], "node 'y'.*dtype")
    c.error("const_no_value", [node("y", "Const", dtype=FLOAT)], "node 'y'.*value")
    c.error("const_value_not_tensor", [node("y", "Const", dtype=FLOAT, value=3)], "node 'y'.*value")
    c.error("const_with_input", [a, node("y", "Const", ["a"], dtype=FLOAT, value=f32([1]))], "node 'y'.*input")
    c.error("placeholder_negative_dims", [ph("y", [1, -5])], "node 'y'.*-5", feeds=[("y", np.zeros((1, 2), np.float32))])
    c.error("placeholder_dims_huge", [ph("x", [HUGE, HUGE]), node("y", "Identity", ["x"])], "'x'",
            feeds=[("x", np.zeros((1, 2), np.float32))])
    c.error("placeholder_with_default_contradicts", [a, node("y", "PlaceholderWithDefault", ["a"], dtype=FLOAT,
                                                              shape=Shape([5]))], "node 'y'.*shape")
    c.error("placeholder_with_default_type", [a, node("y", "PlaceholderWithDefault", ["a"], dtype=INT32,
                                                       shape=Shape([2]))], "node 'y'")
    chain = [ph("x", [2])] + [node(f"n{i}", "Neg", [f"n{i - 1}" if i else "x"]) for i in range(20000)]
    c.output("chain_20000_nodes", chain + [node("y", "Identity", ["n19999"])], r"y: float \[2\] 1 2$",
             feeds=[("x", f32([1, 2]))])
    # 20000 loop frames nested in each other (Enter after Enter, then the Exits): frames were found by
    # scanning all of them, 2e8 steps
    depth = 20000
    nested = [const("c", f32(1))]
    nested += [node(f"enter{i}", "Enter", [f"enter{i - 1}" if i else "c"], T=FLOAT, frame_name=f"f{i}",
                    is_constant=False) for i in range(depth)]
    nested += [node(f"exit{i}", "Exit", [f"exit{i + 1}" if i < depth - 1 else f"enter{depth - 1}"], T=FLOAT)
               for i in reversed(range(depth))]
    c.output("nested_frames_20000", nested + [node("y", "Identity", ["exit0"], T=FLOAT)], r"y: float \[\] 1$")
    # 10000 regions of ordinary nodes between data-dependent ones: only the
    # largest get static plans (each plan is indexed by the whole graph)
    chain = [ph("x", [1]), node("w0", "Where", ["x"], T=FLOAT)]
    for i in range(1, 10001):
        chain += [node(f"c{i}", "Cast", [f"w{i - 1}"], SrcT=INT64, DstT=FLOAT),
                  node(f"w{i}", "Where", [f"c{i}"], T=FLOAT)]
    c.output("regions_10000", chain + [node("y", "Cast", ["w10000"], SrcT=INT64, DstT=FLOAT)],
             r"y: float \[0,2\]", feeds=[("x", f32([1]))])
    c.error("self_loop", [node("y", "Identity", ["y"])], "cycle")
    c.error("two_node_cycle", [node("x", "Identity", ["y"]), node("y", "Identity", ["x"])], "cycle")
    c.error("control_cycle", [a, node("x", "Identity", ["a", "^y"]), node("y", "Identity", ["x"])], "cycle")
    c.error("duplicate_node_names", [a, const("a", f32([3])), node("y", "Identity", ["a"])], "two nodes.*'a'")
    c.error("missing_input", [node("y", "Identity", ["nosuch"])], "node 'y'.*nosuch")
    c.error("empty_input", [node("y", "Identity", [""])], "node 'y'")
    c.error("colon_no_index", [a, node("y", "Identity", ["a:"])], "node 'y'")
    c.error("negative_index", [a, node("y", "Identity", ["a:-1"])], "node 'y'")
    c.error("identity_no_input", [node("y", "Identity")], "node 'y'")
    c.error("where_no_input", [node("w", "Where"), node("y", "Identity", ["w"])], "node 'w' \\(Where\\).*inputs")
    # a million-index TensorArray scatter naming index 0 twice: found fast (no pairwise check)
    million = i32(1000000)
    c.error("tensor_array_scatter_million", [
        const("n", million), const("zero", i32(0)), const("one", i32(1)), const("axis", i32(0)),
        const("again", i32([0])), const("rows", i32([1000001])), const("fill", f32(0)),
        node("ta", "TensorArrayV3", ["n"], dtype=FLOAT, element_shape=Shape([]), dynamic_size=False),
        node("range", "Range", ["zero", "n", "one"], Tidx=INT32),
        node("idx", "ConcatV2", ["range", "again", "axis"], N=2, T=INT32),
        node("value", "Fill", ["rows", "fill"], T=FLOAT),
        node("y", "TensorArrayScatterV3", ["ta", "idx", "value", "ta:1"], T=FLOAT)],
        "node 'y'.*index 0 is scattered twice")
    # a NextIteration with no loop around it would cycle the root frame to the iteration limit (fuzz_graphdef)
    c.error("next_iteration_outside_loop", [a, node("y", "NextIteration", ["a"])],
            "node 'y' \\(NextIteration\\) is not inside a while loop")
    c.error("op_with_nul", [a, encode_node(Node("y", "Identity\0Evil", ["a"]))], "node 1 .*op holds a NUL")
    c.error("name_with_nul", [a, encode_node(Node("y\0z", "Identity", ["a"]))], "node 1 .*name holds a NUL")
    c.error("duplicate_attr_key", [a, encode_node(node("y", "Identity", ["a"]),
                                                   B(5, B(1, b"T") + B(2, graphdef._attr_value(FLOAT))) * 2)],
            "node 'y'.*attribute 'T'")
    c.error("attr_key_without_value", [a, encode_node(node("y", "Identity", ["a"]), B(5, B(1, b"T")))],
            "node 'y'.*attribute 'T'")
    c.error("placeholder_dtype_without_value", [encode_node(node("y", "Placeholder"), B(5, B(1, b"dtype")))],
            "node 'y'.*attribute 'dtype'", feeds=[("y", np.zeros(2, np.float32))])
    c.error("nested_func_200", [a, node("y", "Identity", ["a"], T=nested_func_attr(200))], "nest")
    c.error("nested_func_5000", [a, node("y", "Identity", ["a"], T=nested_func_attr(5000))], "nest")
    c.error("nested_list_func_3000", [a, node("y", "Identity", ["a"], T=nested_func_attr(3000, True))], "nest")
    c.output("nested_func_30", [a, node("y", "Identity", ["a"], T=FLOAT, f=nested_func_attr(30))],
             r"y: float \[2\] 1 2")
    c.error("attr_kind_wrong", one_op("Conv2D", [np.zeros((1, 4, 4, 1), np.float32), np.zeros((2, 2, 1, 1),
                                                                                             np.float32)],
                                      strides=5, padding="SAME"), "node 'y'.*strides")
    c.error("padding_attr_int", one_op("MaxPool", [np.zeros((1, 4, 4, 1), np.float32)], ksize=[1, 2, 2, 1],
                                       strides=[1, 1, 1, 1], padding=3), "node 'y'.*padding")


def index_cases(c):
    """Indices, axes and permutations out of range."""
    boxes = const("boxes", f32([[0, 0, 1, 1], [0, 0, 1, 1]]))
    scores = const("scores", f32([0.9, 0.8]))
    # max_output_size 2^31-1 on two boxes: two slots, not 2^31 (the selection arrays were sized by it)
    c.output("nms_huge_max_output_size", [boxes, scores, const("max", i32(2**31 - 1)), const("iou", f32(0.5)),
                                           node("y", "NonMaxSuppressionV2", ["boxes", "scores", "max", "iou"])],
             r"y: int32 \[1\] 0$")
    c.error("nms_padded_to_2e31", [boxes, scores, const("max", i32(2**31 - 1)), const("iou", f32(0.5)),
                                    const("st", f32(0)), node("y", "NonMaxSuppressionV4",
                                                                ["boxes", "scores", "max", "iou", "st"],
                                                                pad_to_max_output_size=True)],
            "node 'y'.*over the memory budget")
    # fuzz_graphdef: a TensorArray of 2^31-2 elements asked for 200 GB of slots
    c.error("tensor_array_2e31_slots", [const("n", i32(2**31 - 2)), node("y", "TensorArrayV3", ["n"], dtype=FLOAT)],
            "node 'y' \\(TensorArrayV3\\): 2147483646 TensorArray slots need .* over the memory budget")
    c.error("nms_max_output_size_past_int32",
            [boxes, scores, const("max", i64(2**40)), const("iou", f32(0.5)),
             node("y", "NonMaxSuppressionV2", ["boxes", "scores", "max", "iou"])], "node 'y'.*max_output_size")
    x = f32([[1, 2], [3, 4]])
    c.error("gather_index_past", one_op("GatherV2", [x, i32([5]), i32(0)]), "node 'y'.*5")
    # indices known only at run time (fed) are checked where they are read
    fed = [const("p", x), ph("i", [1], INT32), const("ax", i32(0))]
    c.error("gather_fed_index_past", fed + [node("y", "GatherV2", ["p", "i", "ax"])], r"node 'y'.*indices\[0\] = 5",
            feeds=[("i", i32([5]))])
    c.error("gather_fed_index_negative", fed + [node("y", "Gather", ["p", "i"])], r"node 'y'.*indices\[0\] = -9",
            feeds=[("i", i32([-9]))])
    c.output("one_hot_fed_out_of_range", [ph("i", [2], INT32), const("d", i32(3)), const("on", f32(1)),
                                          const("off", f32(0)), node("y", "OneHot", ["i", "d", "on", "off"])],
             r"y: float \[2,3\] 0 0 0 0 0 0$", feeds=[("i", i32([-7, 2**31 - 1]))])
    c.error("feed_shape_contradicts", fed + [node("y", "GatherV2", ["p", "i", "ax"])],
            r"--input: \[3\] does not fit input 'i', which the graph declares as int32 \[1\]",
            feeds=[("i", i32([0, 1, 0]))])
    c.error("gather_index_negative", one_op("GatherV2", [x, i32([-1]), i32(0)]), "node 'y'")
    c.error("gather_index_huge", one_op("GatherV2", [x, i64([HUGE]), i32(0)]), "node 'y'")
    c.error("gather_nd_index_past", one_op("GatherNd", [x, i32([[5, 0]])]), r"node 'y'.*indices\[0\] = 5")
    c.error("gather_nd_index_huge", one_op("GatherNd", [x, i64([[HUGE, 0]])]), "node 'y'.*4611686018427387904")
    c.error("gather_nd_depth_past_rank", one_op("GatherNd", [x, i32([[0, 0, 0]])]), "node 'y'.*index depth 3")
    c.output("gather_nd_depth_zero", one_op("GatherNd", [x, np.zeros((3, 0), np.int32)]),
             r"y: float \[3,2,2\] 1 2 3 4 1 2 3 4 1 2")
    c.error("gather_axis", one_op("GatherV2", [x, i32([0]), i32(9)]), "node 'y'")
    c.error("gather_batch_dims", one_op("GatherV2", [x, i32([0]), i32(0)], batch_dims=5), "node 'y'")
    c.error("gather_v1_past", one_op("Gather", [x, i32([2])]), "node 'y'")
    c.error("transpose_perm_dup", one_op("Transpose", [x, i32([0, 0])]), "node 'y'")
    c.error("transpose_perm_range", one_op("Transpose", [x, i32([0, 2])]), "node 'y'")
    c.error("transpose_perm_huge", one_op("Transpose", [x, i64([0, HUGE])]), "node 'y'")
    c.error("transpose_perm_short", one_op("Transpose", [x, i32([0])]), "node 'y'")
    c.error("transpose_perm_negative", one_op("Transpose", [x, i32([-1, 0])]), "node 'y'")
    for op in ("Sum", "Mean", "Max", "Min", "Prod"):
        c.error(f"{op.lower()}_axis", one_op(op, [x, i32([2])]), "node 'y'")
    c.error("mean_axis_huge", one_op("Mean", [x, i64([HUGE])]), "node 'y'")
    c.error("all_axis_dup_huge", one_op("All", [np.ones((2, 2), np.bool_), i64([-HUGE])]), "node 'y'")
    c.error("argmax_axis", one_op("ArgMax", [x, i32(2)]), "node 'y'")
    c.error("argmin_axis_negative", one_op("ArgMin", [x, i32(-3)]), "node 'y'")
    c.error("argmax_empty", one_op("ArgMax", [np.zeros((0,), np.float32), i32(0)]), "node 'y'")
    c.error("concat_axis", one_op("ConcatV2", [x, x, i32(5)], N=2), "node 'y'")
    c.error("concat_shapes", one_op("ConcatV2", [x, f32([1, 2]), i32(0)], N=2), "node 'y'")
    c.error("pack_axis", one_op("Pack", [x, x], N=2, axis=9), "node 'y'")
    c.error("squeeze_dim_not_one", one_op("Squeeze", [x], squeeze_dims=[0]), "node 'y'")
    c.error("squeeze_dim_range", one_op("Squeeze", [x], squeeze_dims=[HUGE]), "node 'y'")
    c.error("reverse_axis_range", one_op("ReverseV2", [x, i32([3])]), "node 'y'")
    c.error("reverse_axis_dup", one_op("ReverseV2", [x, i32([0, 0])]), "node 'y'")
    c.error("split_axis", one_op("Split", [i32(4), x], num_split=1), "node 'y'")
    c.error("softmax_scalar", one_op("Softmax", [f32(1)]), "node 'y'")
    c.error("matmul_mismatch", one_op("MatMul", [x, f32([[1, 2, 3]])]), "node 'y'")
    c.error("matmul_rank", one_op("MatMul", [f32([1, 2]), x]), "node 'y'")
    c.error("batch_matmul_batch", one_op("BatchMatMulV2", [np.zeros((2, 2, 2), np.float32),
                                                         np.zeros((3, 2, 2), np.float32)]), "node 'y'")
    c.error("select_shapes", one_op("Select", [np.ones(3, np.bool_), x, x]), "node 'y'")
    c.error("add_incompatible", one_op("Add", [x, f32([1, 2, 3])]), "node 'y'")
    c.error("bias_add_mismatch", one_op("BiasAdd", [x, f32([1, 2, 3])]), "node 'y'")
    c.error("batch_norm_mismatch", one_op("FusedBatchNorm", [np.zeros((1, 2, 2, 3), np.float32)] +
                                          [f32([1, 2])] * 4, is_training=False), "node 'y'")
    c.error("one_hot_axis", one_op("OneHot", [i32([1]), i32(3), f32(1), f32(0)], axis=5), "node 'y'")
    c.error("slice_rank_mismatch", one_op("Slice", [x, i32([0]), i32([1])]), "node 'y'")
    c.error("cast_string", one_op("Cast", [x], SrcT=FLOAT, DstT=STRING), "node 'y'")
    c.error("dequantize_mode", one_op("Dequantize", [np.zeros(2, np.uint8), f32(0), f32(1)], T=DType(12),
                                      mode="BOGUS"), "node 'y'")
    c.error("fake_quant_bits", one_op("FakeQuantWithMinMaxArgs", [x], num_bits=99), "node 'y'")
    c.error("fake_quant_min_max", one_op("FakeQuantWithMinMaxArgs", [x], min=5.0, max=-5.0), "node 'y'")
    c.error("spectrogram_stride_zero", one_op("AudioSpectrogram", [np.zeros((16, 1), np.float32)],
                                              window_size=4, stride=0), "node 'y'")
    c.error("spectrogram_window_huge", one_op("AudioSpectrogram", [np.zeros((16, 1), np.float32)],
                                              window_size=BIG, stride=1), "node 'y'")
    c.error("spectrogram_window_negative", one_op("AudioSpectrogram", [np.zeros((16, 1), np.float32)],
                                                  window_size=-4, stride=1), "node 'y'")
    c.error("mfcc_channels_huge", one_op("Mfcc", [np.zeros((1, 2, 3), np.float32), i32(16000)],
                                         dct_coefficient_count=BIG), "node 'y'")
    c.error("mfcc_rate_zero", one_op("Mfcc", [np.zeros((1, 2, 3), np.float32), i32(0)]), "node 'y'")
    c.error("immutable_const_no_region", [node("y", "ImmutableConst", dtype=FLOAT, shape=Shape([2]),
                                               memory_region_name="nosuch")], "node 'y'")
    c.error("immutable_const_huge", [node("y", "ImmutableConst", dtype=FLOAT, shape=Shape([BIG, BIG]),
                                          memory_region_name="nosuch")], "node 'y'")


def arithmetic_cases(c):
    """Integer division by zero and by -1, empty tensors, zero-sized dims."""
    c.error("floordiv_by_zero", one_op("FloorDiv", [i32([1, 2]), i32([0, 1])]), "node 'y'.*division by zero")
    c.error("floormod_by_zero", one_op("FloorMod", [i32([5]), i32([0])]), "node 'y'.*division by zero")
    c.error("div_int_by_zero", one_op("Div", [i64([5]), i64([0])]), "node 'y'.*division by zero")
    c.output("truncatediv_int_min_by_minus_one", one_op("TruncateDiv", [i32([-2**31]), i32([-1])]),
             r"y: int32 \[1\] -2147483648$")
    c.output("floormod_int_min_by_minus_one", one_op("FloorMod", [i32([-2**31]), i32([-1])]), r"y: int32 \[1\] 0$")
    c.output("abs_int_min", one_op("Abs", [i32([-2**31])]), r"y: int32 \[1\] -2147483648$")
    c.output("neg_int64_min", one_op("Neg", [i64([-2**63])]), r"y: int64 \[1\] -9223372036854775808$")
    c.error("pow_int_negative_exponent", one_op("Pow", [i32([2]), i32([-1])]), "node 'y'.*negative")
    c.error("argmax_over_empty_axis", one_op("ArgMax", [np.zeros((3, 0), np.float32), i32(1)]), "node 'y'.*empty")
    c.error("gather_from_empty_params", one_op("GatherV2", [np.zeros((0, 2), np.float32), i32([0]), i32(0)]),
            r"node 'y'.*not in \[0, 0\)")
    c.error("range_float_tiny_delta", one_op("Range", [f32(0), f32(1), f32(1e-30)]), "node 'y'.*too many")
    c.error("expand_dims_int_min", one_op("ExpandDims", [f32([1]), i32(-2**31)]), "node 'y'.*out of range")
    c.error("split_huge_num_of_empty", one_op("Split", [i32(0), np.zeros((0,), np.float32)], num_split=2**31 - 1),
            "node 'y'")
    c.output("matmul_inner_dim_zero", one_op("MatMul", [np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32)]),
             r"y: float \[2,3\] 0 0 0 0 0 0$")
    c.output("depthwise_multiplier_zero", one_op("DepthwiseConv2dNative", [np.zeros((1, 4, 4, 1), np.float32),
                                                                          np.zeros((2, 2, 1, 0), np.float32)],
                                                 strides=[1, 1, 1, 1], padding="SAME"), r"y: float \[1,4,4,0\]$")
    c.output("maxpool_empty_batch", one_op("MaxPool", [np.zeros((0, 4, 4, 1), np.float32)], ksize=[1, 2, 2, 1],
                                           strides=[1, 1, 1, 1], padding="VALID"), r"y: float \[0,3,3,1\]$")
    c.output("tile_empty_by_huge", one_op("Tile", [np.zeros((0,), np.float32), i64([HUGE])]), r"y: float \[0\]$")
    c.output("one_hot_depth_zero", one_op("OneHot", [i32([1]), i32(0), f32(1), f32(0)]), r"y: float \[1,0\]$")
    c.output("concat_5000_inputs", [const("a", f32([1])), const("ax", i32(0)),
                                    node("y", "ConcatV2", ["a"] * 5000 + ["ax"], N=5000)], r"y: float \[5000\] 1 1")


def decode_cases(c):
    """Encoded images and audio inside the graph: huge, truncated, garbage."""
    import zlib

    def png(width, height, idat=b""):
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")

    def string_const(data):
        return Node("s", "Const", [], {"dtype": STRING, "value": raw_tensor(7, [], string_vals=[data])})

    limit = "image of %dx%d pixels is over the limit of 33554432 pixels \\(max_image_pixels\\)"
    for w, h in [(13000, 13000), (65535, 65535), (8193, 4096)]:
        c.error(f"png_{w}x{h}", [string_const(png(w, h, zlib.compress(b"\0" * 64))),
                                  node("y", "DecodePng", ["s"], channels=3)], "node 'y'.*" + limit % (w, h))
    # libpng's own limit (1,000,000 rows or columns) refuses these before tfpi's pixel limit is reached
    for w, h in [(1 << 30, 1 << 30), (1, 1 << 28)]:
        c.error(f"png_{w}x{h}", [string_const(png(w, h, zlib.compress(b"\0" * 64))),
                                  node("y", "DecodePng", ["s"], channels=3)], "node 'y'.*bad PNG: Invalid IHDR data")
    # the default limit is 8192x4096 exactly: at it, the decoder goes on (and finds the data missing)
    c.error("png_8192x4096_at_the_limit", [string_const(png(8192, 4096, zlib.compress(b"\0" * 64))),
                                           node("y", "DecodePng", ["s"], channels=3)], "node 'y'.*bad PNG: Not enough image data")
    c.error("png_truncated", [string_const(png(4, 4)[:30]), node("y", "DecodePng", ["s"])], "node 'y'")
    c.error("png_garbage", [string_const(b"\x89PNG" + b"\xff" * 60), node("y", "DecodePng", ["s"])], "node 'y'")
    c.error("png_channels_bogus", [string_const(png(2, 2, zlib.compress(b"\0" * 6))),
                                   node("y", "DecodePng", ["s"], channels=7)], "node 'y'")

    def jpeg(width, height):
        """A JPEG header up to its scan: SOF0 of one component, then SOS."""
        sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
        return b"\xff\xd8" + sof + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\xff\xd9"
    for w, h in [(65000, 65000), (8193, 4096)]:
        c.error(f"jpeg_{w}x{h}", [string_const(jpeg(w, h)), node("y", "DecodeJpeg", ["s"])], "node 'y'.*" + limit % (w, h))
    c.error("jpeg_65535_square", [string_const(jpeg(65535, 65535)), node("y", "DecodeJpeg", ["s"])],
            "node 'y'.*bad JPEG: Maximum supported image dimension is 65500 pixels")  # libjpeg's own limit
    c.error("jpeg_8192x4096_at_the_limit", [string_const(jpeg(8192, 4096)), node("y", "DecodeJpeg", ["s"])],
            "node 'y'.*bad JPEG: Quantization table 0x00 was not defined")
    c.error("jpeg_garbage", [string_const(b"\xff\xd8" + b"\x00" * 40), node("y", "DecodeJpeg", ["s"])], "node 'y'")
    c.error("jpeg_ratio_bogus", [string_const(b"\xff\xd8\xff\xd9"), node("y", "DecodeJpeg", ["s"], ratio=3)],
            "node 'y'")

    def wav(channels, rate, bits, data):
        fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * channels * bits // 8 & 0xffffffff,
                          channels * bits // 8 & 0xffff, bits)
        body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
        return b"RIFF" + struct.pack("<I", len(body)) + body

    c.error("wav_zero_channels", [string_const(wav(0, 16000, 16, b"\0" * 8)), node("y", "DecodeWav", ["s"])],
            "node 'y'")
    lying = wav(1, 16000, 16, b"\0" * 8)
    lying = lying[:40] + struct.pack("<I", 0x7fffffff) + lying[44:]  # the data chunk's size
    c.error("wav_data_length_lies", [string_const(lying), node("y", "DecodeWav", ["s"])], "node 'y'")
    c.error("wav_bits_bogus", [string_const(wav(1, 16000, 12, b"\0" * 8)), node("y", "DecodeWav", ["s"])], "node 'y'")
    c.error("wav_channels_huge", [string_const(wav(65535, 16000, 16, b"\0" * 8)),
                                  node("y", "DecodeWav", ["s"], desired_channels=BIG)], "node 'y'")
    c.error("wav_samples_huge", [string_const(wav(1, 16000, 16, b"\0" * 8)),
                                 node("y", "DecodeWav", ["s"], desired_samples=BIG)], "node 'y'")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    c = Corpus(out)
    for cases in (size_cases, block_cases, window_cases, structure_cases, index_cases, arithmetic_cases,
                  decode_cases, memory_safety_cases, rejection_cases, scale_cases, function_cases,
                  third_round_cases):
        cases(c)
    c.write_manifest()
    print(len(c.lines))


if __name__ == "__main__":
    main()
