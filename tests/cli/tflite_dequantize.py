"""tflite_dequantize.py QUANTIZED.tflite OUT.tflite - the float model a
fully quantized (uint8 or int8) TensorFlow Lite image classifier was made
from, as far as the file tells: every quantized constant dequantized
((q - zero_point) x scale, per channel along quantized_dimension; int32
biases q x scale), every other tensor float32 without quantization, QUANTIZE
and DEQUANTIZE operators dropped (their output is their input), the other
operators and their options copied as they are. The trained weights of
public width-1.0 MobileNets are published as quantized .tflite files small
enough to keep (the float ones are 14-17 MB): this gives float models with
those weights, for measuring fp16 against fp32 (tests/cli/test_fp16_real_models.sh).

Schema facts used (field index: meaning): Tensor 0 shape, 1 type (0
float32, 2 int32, 3 uint8, 9 int8), 2 buffer, 3 name, 4 quantization;
QuantizationParameters 2 scale, 3 zero_point, 6 quantized_dimension;
Operator 0 opcode_index, 1 inputs, 2 outputs, 3 builtin_options_type, 4
builtin_options; the options tables of the operators below (OPTIONS)."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_file as tf  # noqa: E402
import tflite_writer as tw  # noqa: E402

QUANTIZE, DEQUANTIZE = 114, 6
# Field formats of each operator's options (by builtin code), in field order.
OPTIONS = {
    0: "bb",         # ADD: fused_activation_function, pot_scale_int16
    1: "biiiib",     # AVERAGE_POOL_2D: padding, stride w/h, filter w/h, fused activation
    3: "biibii",     # CONV_2D: padding, stride w/h, fused activation, dilation w/h
    4: "biiibii",    # DEPTHWISE_CONV_2D: padding, stride w/h, depth_multiplier, fused activation, dilation w/h
    9: "bbbb",       # FULLY_CONNECTED: fused activation, weights_format, keep_num_dims, asymmetric inputs
    22: "v",         # RESHAPE: new_shape
    25: "f",         # SOFTMAX: beta
    34: "",          # PAD
    40: "b",         # MEAN: keep_dims
}
OPTIONS[17] = OPTIONS[1]  # MAX_POOL_2D
NP_OF = {2: "<i4", 3: "u1", 9: "i1"}


def dequantized(tensor, data):
    kind = tensor.scalar(1, "b")
    q = np.frombuffer(data, NP_OF[kind]).astype(np.float64).reshape(tensor.vector(0, "i"))
    params = tensor.table(4)
    scale = params.vector(2, "f") if params else []
    if not scale:
        return None if kind == 2 else q.astype(np.float32)  # int32 shapes and axes stay int32
    zero = params.vector(3, "q") or [0] * len(scale)
    if len(scale) > 1:
        view = [1] * q.ndim
        view[params.scalar(6, "i")] = len(scale)
        scale, zero = np.reshape(scale, view), np.reshape(zero, view)
    else:
        scale, zero = scale[0], zero[0]
    return ((q - zero) * scale).astype(np.float32)


def copy_options(code, op):
    table = op.table(4)
    if table is None or code not in OPTIONS:
        if table is not None:
            raise ValueError("operator %d: options not known here" % code)
        return 0, None
    fields = {}
    for i, fmt in enumerate(OPTIONS[code]):
        if table._at(i) is None:
            continue
        fields[i] = tw.ints(table.vector(i, "i")) if fmt == "v" else (fmt, table.scalar(i, fmt))
    return op.scalar(3, "B"), fields


def convert(source, out):
    buf = open(source, "rb").read()
    if buf[4:8] != b"TFL3":
        raise ValueError("%s: not a TFLite model" % source)
    model = tf.Table(buf, struct.unpack_from("<I", buf, 0)[0])
    codes = [max(c.scalar(0, "b"), c.scalar(3, "i")) for c in model.tables(1)]
    buffers = [b.bytes(0) for b in model.tables(4)]
    graph = model.tables(2)[0]
    tensors = graph.tables(0)
    m = tw.Model()
    alias = {}
    for op in graph.tables(3):
        if codes[op.scalar(0, "I")] in (QUANTIZE, DEQUANTIZE):
            alias[op.vector(2, "i")[0]] = op.vector(1, "i")[0]

    def source_of(t):
        while t in alias:
            t = alias[t]
        return t

    made = {}

    def tensor(t):
        t = source_of(t)
        if t < 0:
            return t
        if t not in made:
            tensor_t = tensors[t]
            name = tensor_t.bytes(3).decode(errors="replace")
            data = buffers[tensor_t.scalar(2, "I")]
            if data:
                value = dequantized(tensor_t, data) if tensor_t.scalar(1, "b") else np.frombuffer(data, "<f4")
                if value is None:
                    value = np.frombuffer(data, "<i4").reshape(tensor_t.vector(0, "i"))
                made[t] = m.const(name, value.reshape(tensor_t.vector(0, "i")))
            else:
                made[t] = m.tensor(name, tensor_t.vector(0, "i"))
        return made[t]

    m.inputs = [tensor(t) for t in graph.vector(1, "i")]
    for op in graph.tables(3):
        code = codes[op.scalar(0, "I")]
        if code in (QUANTIZE, DEQUANTIZE):
            continue
        options_type, options = copy_options(code, op)
        m.op(code, [tensor(t) for t in op.vector(1, "i")], [tensor(t) for t in op.vector(2, "i")],
             options_type, options)
    m.outputs = [tensor(t) for t in graph.vector(2, "i")]
    m.write(out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[0])
    convert(sys.argv[1], sys.argv[2])
