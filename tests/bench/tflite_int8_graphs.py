"""tflite_int8_graphs.py - int8 MobileNet v1 and v2 1.0 224 as the graphs
the .tflite reader makes of TF2-converter models (src/compute/tflite_node.h:
CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED nodes on int8 tensors with
per-channel filter scales and int32 biases), with random weights: the
layers and multiply-adds of the real models, to time tfpi's int8 kernels
against its fp32 ones (tests/bench/arm_bench.py, armcost's cycles.sh). The
residual ADDs, the mean and the softmax are left out (other kernels: the
real .tflite models measure them), so the figures are the convolutions'.

    tflite_int8_graphs.py OUT_DIR   -> OUT_DIR/mobilenet_v{1,2}_1.0_224.int8.pb
Input "input" int8 [1,224,224,3]; output "logits" int8 [1,1001]."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "diff"))
import graphdef as gd  # noqa: E402

INT8, INT32 = gd.DType(6), gd.DType(3)


class Builder:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.shapes = {}
        self.scale = 0.02  # the current activation's scale

    def quant(self, attrs, role, i, scales, zeros, dim=0):
        attrs["q_%s%d_scale" % (role, i)] = [float(s) for s in scales]
        attrs["q_%s%d_zero_point" % (role, i)] = [int(z) for z in zeros]
        attrs["q_%s%d_dim" % (role, i)] = dim

    def const(self, name, array):
        self.nodes.append(gd.Node(name, "Const", [], {"dtype": gd.DType(gd.dtype_number(array.dtype)),
                                                       "value": array}))

    def conv(self, name, x, op, filter_shape, out_c, stride, act="RELU6", dim=0):
        w = self.rng.integers(-127, 128, size=filter_shape, dtype=np.int8)
        self.const(name + "/weights", w)
        w_scales = self.rng.uniform(0.002, 0.02, size=out_c).astype(np.float32)
        bias = self.rng.integers(-2000, 2000, size=out_c, dtype=np.int32)
        self.const(name + "/bias", bias)
        in_scale, in_zero = self.scale, -128 if act != "NONE" else 0
        self.scale = 0.03
        attrs = {"T": INT8, "padding": "SAME", "stride_h": stride, "stride_w": stride,
                 "dilation_h_factor": 1, "dilation_w_factor": 1, "fused_activation_function": act}
        if op == "DEPTHWISE_CONV_2D":
            attrs["depth_multiplier"] = 1
        self.quant(attrs, "in", 0, [in_scale], [in_zero])
        self.quant(attrs, "in", 1, w_scales, [0] * out_c, dim)
        self.quant(attrs, "in", 2, w_scales * np.float32(in_scale), [0] * out_c)
        self.quant(attrs, "out", 0, [self.scale], [-128 if act != "NONE" else 0])
        self.nodes.append(gd.Node(name, op, [x, name + "/weights", name + "/bias"], attrs))
        n, h, w_, c = self.shapes[x]
        self.shapes[name] = [n, (h + stride - 1) // stride, (w_ + stride - 1) // stride, out_c]
        return name

    def pointwise(self, name, x, out_c, act="RELU6"):
        return self.conv(name, x, "CONV_2D", (out_c, 1, 1, self.shapes[x][3]), out_c, 1, act)

    def depthwise(self, name, x, stride):
        c = self.shapes[x][3]
        return self.conv(name, x, "DEPTHWISE_CONV_2D", (1, 3, 3, c), c, stride, dim=3)

    def input(self):
        self.nodes.append(gd.Node("input", "Placeholder", [], {"dtype": INT8, "shape": gd.Shape([1, 224, 224, 3])}))
        self.shapes["input"] = [1, 224, 224, 3]
        return "input"

    def logits(self, x, classes=1001):
        """The classifier on the last layer's first pixel (a stand-in for the mean)."""
        c = self.shapes[x][3]
        w = self.rng.integers(-127, 128, size=(classes, c), dtype=np.int8)
        self.const("logits/weights", w)
        self.const("logits/bias", self.rng.integers(-2000, 2000, size=classes, dtype=np.int32))
        self.nodes.append(gd.Node("pool", "StridedSlice", [x, "pool/begin", "pool/end", "pool/strides"],
                                  {"T": INT8, "Index": INT32, "shrink_axis_mask": 6}))
        for name, v in (("begin", [0, 0, 0, 0]), ("end", [1, 1, 1, c]), ("strides", [1, 1, 1, 1])):
            self.const("pool/" + name, np.array(v, dtype=np.int32))
        attrs = {"T": INT8, "fused_activation_function": "NONE", "keep_num_dims": False,
                 "weights_format": "DEFAULT"}
        self.quant(attrs, "in", 0, [self.scale], [-128])
        self.quant(attrs, "in", 1, [0.01], [0])
        self.quant(attrs, "in", 2, [np.float32(0.01) * np.float32(self.scale)], [0])
        self.quant(attrs, "out", 0, [0.1], [0])
        self.nodes.append(gd.Node("logits", "FULLY_CONNECTED", ["pool", "logits/weights", "logits/bias"], attrs))


def mobilenet_v1():
    b = Builder(1)
    x = b.conv("conv0", b.input(), "CONV_2D", (32, 3, 3, 3), 32, 2)
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
              (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]
    for i, (d, stride) in enumerate(blocks, start=1):
        x = b.depthwise("dw%d" % i, x, stride)
        x = b.pointwise("pw%d" % i, x, d)
    b.logits(x)
    return b.nodes


def mobilenet_v2():
    b = Builder(2)
    x = b.conv("conv0", b.input(), "CONV_2D", (32, 3, 3, 3), 32, 2)
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    block = 0
    for t, c, n, s in settings:
        for r in range(n):
            y = x
            if t != 1:
                y = b.pointwise("b%d/expand" % block, y, b.shapes[y][3] * t)
            y = b.depthwise("b%d/depthwise" % block, y, s if r == 0 else 1)
            x = b.pointwise("b%d/project" % block, y, c, act="NONE")
            block += 1
    x = b.pointwise("conv1", x, 1280)
    b.logits(x)
    return b.nodes


def main_to(out):
    os.makedirs(out, exist_ok=True)
    for name, make in (("mobilenet_v1_1.0_224", mobilenet_v1), ("mobilenet_v2_1.0_224", mobilenet_v2)):
        with open(os.path.join(out, name + ".int8.pb"), "wb") as f:
            f.write(gd.encode_graph(make()))


if __name__ == "__main__":
    main_to(sys.argv[1])
