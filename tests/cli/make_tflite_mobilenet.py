"""make_tflite_mobilenet.py FROZEN.pb OUT.tflite - the float .tflite a
TFLite converter makes of a TF-slim MobileNet v1 frozen graph (the ones
../shared/tools/make_models.py writes): each convolution's FusedBatchNorm
folded into its weights and a bias (w x gamma / sqrt(var + eps), beta -
mean x gamma / sqrt(var + eps)), Relu6 as the fused activation, filters in
TFLite's layouts (CONV_2D [out, h, w, in], DEPTHWISE_CONV_2D [1, h, w,
in x multiplier]), then AVERAGE_POOL_2D, the logits CONV_2D with its bias,
RESHAPEs and SOFTMAX. Written with tflite_writer.py; the frozen graph is
read with make_models.py's decoder (TFPI_TOOLS, default ../shared/tools)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.environ.get("TFPI_TOOLS", os.path.join(os.path.dirname(__file__), "../../../shared/tools")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models  # noqa: E402
import tflite_writer as tw  # noqa: E402

CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, RESHAPE, SOFTMAX = 3, 4, 1, 22, 25
CONV_OPTIONS, DEPTHWISE_OPTIONS, POOL_OPTIONS, SOFTMAX_OPTIONS, RESHAPE_OPTIONS = 1, 2, 5, 9, 17
RELU6 = 3


def convert(frozen, out):
    nodes = make_models.decode_graph(open(frozen, "rb").read())["nodes"]
    by_name = {n.name: n for n in nodes}
    consumers = {}
    for n in nodes:
        for i in n.inputs:
            consumers.setdefault(i.split(":")[0], []).append(n)

    def const(name):
        n = by_name[name.split(":")[0]]
        while n.op == "Identity":
            n = by_name[n.inputs[0].split(":")[0]]
        return n.attrs["value"][1].array

    m = tw.Model()
    tensor_of = {}
    shapes = {}
    for n in nodes:
        attrs = n.attrs
        if n.op == "Placeholder":
            shape = attrs["shape"][1]
            tensor_of[n.name] = m.tensor(n.name, shape)
            shapes[n.name] = shape
            m.inputs.append(tensor_of[n.name])
        elif n.op in ("Conv2D", "DepthwiseConv2dNative"):
            w = const(n.inputs[1]).astype(np.float64)
            x = n.inputs[0]
            nxt = consumers[n.name][0]
            bias = np.zeros(w.shape[3] * (w.shape[2] if n.op != "Conv2D" else 1))
            last, act = n, 0
            if nxt.op == "FusedBatchNorm":
                gamma, beta, mean, var = (const(i).astype(np.float64) for i in nxt.inputs[1:5])
                k = gamma / np.sqrt(var + nxt.attrs["epsilon"][1])
                w = w * k.reshape((1, 1, 1, -1) if n.op == "Conv2D" else (1, 1, w.shape[2], w.shape[3]))
                bias = beta - mean * k
                last = nxt
            elif nxt.op == "BiasAdd":
                bias = const(nxt.inputs[1]).astype(np.float64)
                last = nxt
            after = consumers.get(last.name, [])
            if len(after) == 1 and after[0].op == "Relu6":
                last, act = after[0], RELU6
            strides = attrs["strides"][1]["i"]
            padding = 0 if attrs["padding"][1] == b"SAME" else 1
            in_shape = shapes[x]
            if n.op == "Conv2D":
                filt = np.transpose(w, (3, 0, 1, 2)).astype(np.float32)
                out_c = w.shape[3]
            else:
                filt = w.reshape(1, w.shape[0], w.shape[1], -1).astype(np.float32)
                out_c = filt.shape[3]
            oh = -(-in_shape[1] // strides[1]) if padding == 0 else (in_shape[1] - w.shape[0]) // strides[1] + 1
            ow = -(-in_shape[2] // strides[2]) if padding == 0 else (in_shape[2] - w.shape[1]) // strides[2] + 1
            shape = [in_shape[0], oh, ow, out_c]
            wt = m.const(n.name + "/weights", filt)
            bt = m.const(n.name + "/bias", bias.astype(np.float32))
            y = m.tensor(last.name, shape)
            if n.op == "Conv2D":
                m.op(CONV_2D, [tensor_of[x], wt, bt], [y], CONV_OPTIONS,
                     {0: ("b", padding), 1: ("i", strides[2]), 2: ("i", strides[1]), 3: ("b", act)})
            else:
                m.op(DEPTHWISE_CONV_2D, [tensor_of[x], wt, bt], [y], DEPTHWISE_OPTIONS,
                     {0: ("b", padding), 1: ("i", strides[2]), 2: ("i", strides[1]), 3: ("i", w.shape[3]),
                      4: ("b", act)})
            tensor_of[last.name], shapes[last.name] = y, shape
        elif n.op == "AvgPool":
            k, s = attrs["ksize"][1]["i"], attrs["strides"][1]["i"]
            in_shape = shapes[n.inputs[0]]
            shape = [in_shape[0], (in_shape[1] - k[1]) // s[1] + 1, (in_shape[2] - k[2]) // s[2] + 1, in_shape[3]]
            y = m.tensor(n.name, shape)
            m.op(AVERAGE_POOL_2D, [tensor_of[n.inputs[0]]], [y], POOL_OPTIONS,
                 {0: ("b", 1), 1: ("i", s[2]), 2: ("i", s[1]), 3: ("i", k[2]), 4: ("i", k[1])})
            tensor_of[n.name], shapes[n.name] = y, shape
        elif n.op in ("Squeeze", "Reshape"):
            in_shape = shapes[n.inputs[0]]
            if n.op == "Squeeze":
                shape = [d for i, d in enumerate(in_shape) if i not in attrs["squeeze_dims"][1]["i"]]
            else:
                shape = [int(d) for d in const(n.inputs[1])]
                if -1 in shape:
                    shape[shape.index(-1)] = int(np.prod(in_shape) // -np.prod(shape))
            st = m.const(n.name + "/shape", np.array(shape, np.int32))
            y = m.tensor(n.name, shape)
            m.op(RESHAPE, [tensor_of[n.inputs[0]], st], [y], RESHAPE_OPTIONS, {0: tw.ints(shape)})
            tensor_of[n.name], shapes[n.name] = y, shape
        elif n.op == "Identity" and n.inputs[0] in tensor_of:  # dropout at inference
            tensor_of[n.name], shapes[n.name] = tensor_of[n.inputs[0]], shapes[n.inputs[0]]
        elif n.op == "Softmax":
            shape = shapes[n.inputs[0]]
            y = m.tensor(n.name, shape)
            m.op(SOFTMAX, [tensor_of[n.inputs[0]]], [y], SOFTMAX_OPTIONS, {0: ("f", 1.0)})
            tensor_of[n.name], shapes[n.name] = y, shape
    m.outputs.append(tensor_of[nodes[-1].name])
    m.write(out)


if __name__ == "__main__":
    convert(sys.argv[1], sys.argv[2])
