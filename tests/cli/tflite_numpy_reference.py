"""tflite_numpy_reference.py - a whole .tflite model run by numpy alone, from
TensorFlow Lite's rules: the independent end-to-end reference for tfpi's
outputs on real models. Each operator is computed from numpy's own previous
outputs; nothing comes from tfpi. The FlatBuffer is read by tflite_file.py's
small reader; the integer rules are tflite_int_rules.py (QuantizeMultiplier,
MultiplyByQuantizedMultiplier, ...) and the per-operator rules of
tflite_ops_reference.py, all written from tflite-micro's reference kernels.

Covers the first subgraph and the operators of the public models checked
so far (README "Coming from TensorFlow Lite"):
- uint8 / int8 (per-tensor or per-channel filters): QUANTIZE, DEQUANTIZE,
  CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED (int32 accumulators, the
  multipliers of TFLite's Prepare: a uint8 conv's and every FC's from the
  float32 product of the input and filter scales, an int8 conv's per channel
  in double), ADD, SUB, MUL, MEAN, SOFTMAX, LOGISTIC, TANH, RELU6,
  HARD_SWISH, AVERAGE_POOL_2D, MAX_POOL_2D, CONCATENATION, RESIZE_BILINEAR,
  RESIZE_NEAREST_NEIGHBOR, PAD, ARG_MAX and the data movers below;
  UNIDIRECTIONAL_SEQUENCE_LSTM in the 8x8_16 rule (tflite_lstm8.py's
  reference, fed the operator's tensors and intermediates);
- float32 (float64 arithmetic) and float16 weights through DEQUANTIZE: the
  same plus SQUARE, SHAPE, PACK, STRIDED_SLICE, SPACE_TO_BATCH_ND,
  BATCH_TO_SPACE_ND, RESHAPE, SPLIT, TRANSPOSE, UNIDIRECTIONAL_SEQUENCE_LSTM
  (float weights, no layer norm; peepholes, CIFG, projection, clips),
  LOG, RFFT2D (numpy's FFT) and COMPLEX_ABS (complex64 tensors are
  not compared with --every_op: the operators reading them are),
  REDUCE_MAX, GREATER, LESS, CAST, DIV, SQRT, FLOOR_DIV (float or integer),
  TOPK_V2 (ties by the lower index), SCATTER_ND, NON_MAX_SUPPRESSION_V4
  (hard NMS, as TFLite's reference NonMaxSuppression with sigma 0);
- data movers in any dtype (integer codes as they are): GATHER, UNPACK,
  GATHER_ND, PADV2;
- hybrid operators (float input, int8 weights): by default the float math
  of the dequantized weights (what tfpi computes); with --hybrid=tflite
  TFLite's hybrid kernels' rule (each batch's input quantized to int8:
  asymmetrically for per-channel CONV_2D / DEPTHWISE_CONV_2D as
  EvalHybridPerChannel does, symmetrically for a per-tensor CONV_2D as
  EvalHybrid does, by the asymmetric_quantize_inputs option for
  FULLY_CONNECTED).
Any other operator stops the run with a line naming it.

    python3 tests/cli/tflite_numpy_reference.py MODEL OUT_DIR [--hybrid=tflite] [--output=NAME... | --every_op] INPUT.npy...

writes OUT_DIR/want_<k>.npy (output k, or the k-th tensor named by --output,
or with --every_op the k-th operator output in the model's order; in its
model dtype, float ones in float64) and OUT_DIR/args:
the run_graph flags feeding the same inputs and fetching each output into
OUT_DIR/got_<k>.npy."""
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_int_rules as R  # noqa: E402
import tflite_lstm8  # noqa: E402
import tflite_ops_reference as O  # noqa: E402
from tflite_file import Table  # noqa: E402

F32 = np.float32
DTYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 6: np.bool_, 7: np.int16,
          8: np.complex64, 9: np.int8}
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6"}
NAMES = {0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
         6: "DEQUANTIZE", 9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D", 18: "MUL", 21: "RELU6",
         22: "RESHAPE", 23: "RESIZE_BILINEAR", 25: "SOFTMAX", 28: "TANH", 34: "PAD", 36: "GATHER",
         37: "BATCH_TO_SPACE_ND", 38: "SPACE_TO_BATCH_ND", 39: "TRANSPOSE", 40: "MEAN", 41: "SUB", 42: "DIV",
         44: "UNIDIRECTIONAL_SEQUENCE_LSTM", 45: "STRIDED_SLICE", 48: "TOPK_V2", 49: "SPLIT", 53: "CAST",
         56: "ARG_MAX", 58: "LESS", 60: "PADV2", 61: "GREATER", 73: "LOG", 75: "SQRT", 77: "SHAPE",
         82: "REDUCE_MAX", 83: "PACK", 88: "UNPACK", 90: "FLOOR_DIV", 92: "SQUARE", 97: "RESIZE_NEAREST_NEIGHBOR",
         107: "GATHER_ND", 114: "QUANTIZE", 117: "HARD_SWISH", 120: "NON_MAX_SUPPRESSION_V4", 122: "SCATTER_ND",
         131: "RFFT2D", 135: "COMPLEX_ABS"}


class Tensor:
    """A tensor's name, shape, dtype and quantization (scales, zero points, dimension)."""

    def __init__(self, table):
        self.name = table.bytes(3).decode()
        self.shape = table.vector(0, "i")
        self.dtype = DTYPES[table.scalar(1, "b")]
        q = table.table(4)
        self.scales = q.vector(2, "f") if q else []
        self.zero_points = q.vector(3, "q") if q else []
        self.dim = q.scalar(6, "i") if q else 0

    @property
    def quantized(self):
        return bool(self.scales) and self.dtype in (np.uint8, np.int8, np.int16)

    @property
    def q(self):
        return float(F32(self.scales[0])), int(self.zero_points[0])


class Model:
    def __init__(self, path):
        buf = open(path, "rb").read()
        if buf[4:8] != b"TFL3":
            raise ValueError("%s: not a TFLite model" % path)
        model = Table(buf, struct.unpack_from("<I", buf, 0)[0])
        self.codes = [(max(c.scalar(0, "b"), c.scalar(3, "i")), c.bytes(1).decode()) for c in model.tables(1)]
        graph = model.tables(2)[0]
        self.tensors = [Tensor(t) for t in graph.tables(0)]
        self.inputs, self.outputs = graph.vector(1, "i"), graph.vector(2, "i")
        self.operators = graph.tables(3)
        buffers = model.tables(4)
        self.constants = {}
        for i, t in enumerate(graph.tables(0)):
            b = buffers[t.scalar(2, "I")]
            data, offset = b.bytes(0), b.scalar(1, "Q")
            if not data and offset > 1:
                data = buf[offset:offset + b.scalar(2, "Q")]
            if data:
                tensor = self.tensors[i]
                self.constants[i] = np.frombuffer(data, tensor.dtype).reshape(tensor.shape)


def option(op, field, fmt, default=0):
    o = op.table(4)
    return o.scalar(field, fmt, default) if o else default


def clamp_float(y, act):
    lo, hi = {"NONE": (None, None), "RELU": (0, None), "RELU_N1_TO_1": (-1, 1), "RELU6": (0, 6)}[act]
    return np.clip(y, lo, hi) if lo is not None or hi is not None else y


def dequantized(values, tensor):
    """Float values of an int8 weight tensor (per channel along its dimension)."""
    scales = np.asarray(tensor.scales, np.float64)
    zps = np.asarray(tensor.zero_points, np.float64)
    shape = [1] * values.ndim
    if scales.size > 1:
        shape[tensor.dim] = scales.size
    return (values.astype(np.float64) - zps.reshape(shape)) * scales.reshape(shape)


# ---- convolutions ----------------------------------------------------------

def same_padding(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return out, total // 2, total - total // 2


def windows(x, kh, kw, stride, dilation, same):
    """x [N,H,W,C] (already offset by the zero point) to the taps [N,OH,OW,KH*KW,C]."""
    n, h, w, c = x.shape
    if same:
        oh, top, bottom = same_padding(h, kh, stride[0], dilation[0])
        ow, left, right = same_padding(w, kw, stride[1], dilation[1])
        x = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)))
    else:
        oh = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
        ow = (w - (kw - 1) * dilation[1] - 1) // stride[1] + 1
    taps = [x[:, i * dilation[0]: i * dilation[0] + (oh - 1) * stride[0] + 1: stride[0],
              j * dilation[1]: j * dilation[1] + (ow - 1) * stride[1] + 1: stride[1], :]
            for i in range(kh) for j in range(kw)]
    return np.stack(taps, axis=3)


def conv_sums(builtin, op, x, w):
    """The sums over each output's taps (float64: exact for integer operands)."""
    same = option(op, 0, "b") == 0
    stride = (option(op, 2, "i"), option(op, 1, "i"))
    if builtin == 3:
        dilation = (option(op, 5, "i", 1), option(op, 4, "i", 1))
        t = windows(x, w.shape[1], w.shape[2], stride, dilation, same)
        return t.reshape(t.shape[:3] + (-1,)) @ w.reshape(w.shape[0], -1).T
    dilation = (option(op, 6, "i", 1), option(op, 5, "i", 1))
    multiplier = max(option(op, 3, "i", 1), 1)
    t = windows(x, w.shape[1], w.shape[2], stride, dilation, same)
    if multiplier > 1:
        t = np.repeat(t, multiplier, axis=-1)
    return np.einsum("nhwkc,kc->nhwc", t, w.reshape(-1, w.shape[3]))


def activation_of(builtin, op):
    return ACTIVATIONS[option(op, {3: 3, 4: 4, 9: 0}[builtin], "b")]


def quantized_conv(model, builtin, op, ins, out, values):
    """CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED on codes: int32 sums of
    (x - zx)(w - zw) plus bias, each channel's multiplier, the output zero
    point, the activation's clamp."""
    xt, wt, ot = model.tensors[ins[0]], model.tensors[ins[1]], model.tensors[out]
    x = values[ins[0]].astype(np.float64) - xt.q[1]
    w = values[ins[1]].astype(np.float64)
    zw = np.asarray(wt.zero_points, np.float64)
    channel_axis = 0 if builtin in (3, 9) else 3
    shape = [1] * w.ndim
    shape[channel_axis] = -1
    w = w - zw.reshape(shape)
    if builtin == 9:
        acc = x.reshape(-1, w.shape[1]) @ w.T
    else:
        acc = conv_sums(builtin, op, x, w)
    acc = R.a64(acc)
    if len(ins) > 2 and ins[2] >= 0:
        acc = acc + R.a64(values[ins[2]])
    si, so = float(F32(xt.scales[0])), float(F32(ot.scales[0]))
    out_codes = np.empty_like(acc)
    for ch in range(acc.shape[-1]):
        sw = wt.scales[ch] if len(wt.scales) > 1 else wt.scales[0]
        if builtin == 9 or xt.dtype == np.uint8:
            product = float(F32(si) * F32(sw))  # GetQuantizedConvolutionMultipler: the float32 product
        else:
            product = si * float(F32(sw))
        out_codes[..., ch] = R.mbqm(acc[..., ch], *R.quantize_multiplier(product / so))
    lo, hi = R.activation_range(activation_of(builtin, op), ot.scales[0], ot.q[1], *O.CODES[ot.dtype])
    y = np.clip(out_codes + ot.q[1], lo, hi)
    if builtin == 9:
        y = y.reshape(ot.shape) if option(op, 2, "b") else y
    return O.to_dtype(y, ot.dtype)


def asymmetric_int8(v):
    """AsymmetricQuantizeFloats: codes, scale and zero point of one batch."""
    rmin, rmax = min(0.0, float(v.min())), max(0.0, float(v.max()))
    if rmin == rmax:
        return np.zeros(v.shape), 1.0, 0
    scale = (rmax - rmin) / 255.0
    zmin, zmax = -128 - rmin / scale, 127 - rmax / scale
    z = zmin if 128 + abs(rmin / scale) < 127 + abs(rmax / scale) else zmax
    zp = int(np.clip(O.round_away(z), -128, 127))
    q = O.round_away(zp + v.astype(F32) * F32(1.0 / scale))
    return np.clip(q, -128, 127), scale, zp


def symmetric_int8(v):
    """SymmetricQuantizeFloats: codes and scale of one batch."""
    m = float(np.abs(v).max())
    if m == 0:
        return np.zeros(v.shape), 1.0
    return np.clip(O.round_away(v.astype(F32) * F32(127.0 / m)), -127, 127), float(F32(m / 127.0))


def float_conv(model, builtin, op, ins, out, values, hybrid):
    """Float CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED; int8 weights
    dequantized, or (hybrid == "tflite") TFLite's hybrid rule."""
    wt = model.tensors[ins[1]]
    x = values[ins[0]].astype(np.float64)
    w = values[ins[1]]
    int_weights = wt.quantized
    w = dequantized(w, wt) if int_weights else w.astype(np.float64)
    if int_weights and hybrid == "tflite":
        scales = np.asarray(wt.scales, np.float64)
        wq = values[ins[1]].astype(np.float64)
        batches = x.reshape(-1, w.shape[1]) if builtin == 9 else x
        sums = []
        for b in batches:
            if (builtin == 9 and not option(op, 3, "b")) or (builtin == 3 and len(wt.scales) == 1):
                q, s = symmetric_int8(b)
                zp = 0
            else:
                q, s, zp = asymmetric_int8(b)
            q = q - zp
            sums.append((q @ wq.T if builtin == 9 else conv_sums(builtin, op, q[None], wq)[0]) * s)
        y = np.stack(sums) * scales
    elif builtin == 9:
        y = x.reshape(-1, w.shape[1]) @ w.T
    else:
        y = conv_sums(builtin, op, x, w)
    if len(ins) > 2 and ins[2] >= 0:
        y = y + values[ins[2]]
    y = clamp_float(y, activation_of(builtin, op))
    if builtin == 9 and option(op, 2, "b"):
        y = y.reshape(model.tensors[out].shape)
    return y


# ---- the other operators -----------------------------------------------------

def strided_slice(op, x, begin, end, strides):
    if option(op, 2, "i") or option(op, 3, "i"):
        raise ValueError("STRIDED_SLICE with ellipsis or new-axis masks is not evaluated here")
    begin_mask, end_mask, shrink = option(op, 0, "i"), option(op, 1, "i"), option(op, 4, "i")
    index = []
    for d in range(len(begin)):
        if shrink >> d & 1:
            index.append(int(begin[d]) % x.shape[d])
            continue
        b = None if begin_mask >> d & 1 else int(begin[d])
        e = None if end_mask >> d & 1 else int(end[d])
        index.append(slice(b, e, int(strides[d])))
    return x[tuple(index)]


def space_to_batch(x, block, pads):
    n, h, w, c = x.shape
    x = np.pad(x, ((0, 0), tuple(pads[0]), tuple(pads[1]), (0, 0)))
    bh, bw = block
    h, w = x.shape[1] // bh, x.shape[2] // bw
    x = x.reshape(n, h, bh, w, bw, c).transpose(2, 4, 0, 1, 3, 5)
    return x.reshape(bh * bw * n, h, w, c)


def batch_to_space(x, block, crops):
    bh, bw = block
    nb, h, w, c = x.shape
    n = nb // (bh * bw)
    x = x.reshape(bh, bw, n, h, w, c).transpose(2, 3, 0, 4, 1, 5).reshape(n, h * bh, w * bw, c)
    return x[:, crops[0][0]:h * bh - crops[0][1], crops[1][0]:w * bw - crops[1][1], :]


def float_resize_bilinear(x, oh, ow, align, half):
    """TFLite's float ResizeBilinear: source coordinates in float32, floor and ceil neighbours."""
    _, h, w, _ = x.shape

    def coords(n_out, n_in):
        scale = F32(n_in - 1) / F32(n_out - 1) if align and n_out > 1 else F32(n_in) / F32(n_out)
        i = np.arange(n_out).astype(F32)
        pos = ((i + F32(0.5)) * scale - F32(0.5)).astype(F32) if half else (i * scale).astype(F32)
        lo = np.maximum(np.floor(pos), 0).astype(np.int64)
        hi = np.minimum(np.ceil(pos).astype(np.int64), n_in - 1)
        return pos.astype(np.float64), lo, hi

    py, y0, y1 = coords(oh, h)
    px, x0, x1 = coords(ow, w)
    dy = (py - y0)[None, :, None, None]
    dx = (px - x0)[None, None, :, None]
    g = lambda ys, xs: x[:, ys][:, :, xs]  # noqa: E731
    return (g(y0, x0) * (1 - dy) * (1 - dx) + g(y1, x0) * dy * (1 - dx) +
            g(y0, x1) * (1 - dy) * dx + g(y1, x1) * dy * dx)


# ---- UNIDIRECTIONAL_SEQUENCE_LSTM (inputs as in TFLite's lstm_shared.h) -----------------------

def lstm_integer(model, op, values):
    """The fully integer (8x8_16) LSTM: the case tflite_lstm8.reference
    evaluates, read from the operator's tensors and intermediates."""
    ins, inter = op.vector(1, "i"), op.vector(8, "i")
    present = lambda k: len(ins) > k and ins[k] >= 0  # noqa: E731
    t = lambda k: model.tensors[ins[k]]  # noqa: E731
    one_scale = lambda k: t(k).scales[0] if present(k) else 1.0  # noqa: E731
    for k in range(1, 24):
        if present(k) and len(t(k).scales) > 1:
            raise ValueError("UNIDIRECTIONAL_SEQUENCE_LSTM with per-channel weights is not evaluated here")
    c = {"cifg": not present(1), "peephole": present(10), "projection": present(16), "layer_norm": present(21),
         "time_major": bool(option(op, 3, "b")), "x": values[ins[0]],
         "n_cell": t(2).shape[0], "n_out": t(18).shape[-1],
         "in_q": t(0).q, "out_q": t(18).q, "cell_scale": t(19).scales[0],
         "cell_clip": option(op, 1, "f", 0.0), "proj_clip": option(op, 2, "f", 0.0),
         "wx_s": [one_scale(1 + g) for g in range(4)], "wh_s": [one_scale(5 + g) for g in range(4)],
         "wx": [values.get(ins[1 + g]) for g in range(4)], "wh": [values.get(ins[5 + g]) for g in range(4)],
         "b": [values.get(ins[12 + g]) if present(12 + g) else np.zeros(t(2).shape[0], np.int32) for g in range(4)],
         "p_s": [one_scale(9 + (2 if g == 3 else g)) if g != 2 else 1.0 for g in range(4)],
         "p": [values.get(ins[9 + (2 if g == 3 else g)]) if g != 2 else None for g in range(4)],
         "ln_s": [one_scale(20 + g) for g in range(4)], "ln": [values.get(ins[20 + g]) for g in range(4)],
         "pw_s": one_scale(16), "pw": values.get(ins[16]) if present(16) else None,
         "pb": values.get(ins[17]) if present(17) else None}
    quant = [model.tensors[i] if i >= 0 else None for i in inter]
    if len(quant) != 5 or quant[4] is None or not quant[4].scales:
        raise ValueError("an integer UNIDIRECTIONAL_SEQUENCE_LSTM without its five intermediates")
    c["im_scale"] = [q.scales[0] if q is not None and q.scales else 2.0**-12 for q in quant]
    c["im_zp"] = [int(q.zero_points[0]) if q is not None and q.zero_points else 0 for q in quant]
    return tflite_lstm8.reference(c)


def lstm_float(model, op, values):
    """The float LSTM (float64 here): gates from the input and the previous
    output (plus peepholes), the cell kept by the forget gate, the output
    gate times the activation of the cell, then the optional projection;
    the states start at zero."""
    ins = op.vector(1, "i")
    present = lambda k: len(ins) > k and ins[k] >= 0  # noqa: E731
    weight = lambda k: values[ins[k]].astype(np.float64) if present(k) else None  # noqa: E731
    if any(model.tensors[ins[k]].quantized for k in range(1, 17) if present(k)) or present(20) or present(21):
        raise ValueError("a hybrid or layer-normalised float UNIDIRECTIONAL_SEQUENCE_LSTM is not evaluated here")
    act = {0: lambda v: v, 1: lambda v: np.maximum(v, 0), 3: lambda v: np.clip(v, 0, 6),
           4: np.tanh}.get(option(op, 0, "b"))
    if act is None:
        raise ValueError("UNIDIRECTIONAL_SEQUENCE_LSTM activation %d is not evaluated here" % option(op, 0, "b"))
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    cell_clip, proj_clip = option(op, 1, "f", 0.0), option(op, 2, "f", 0.0)
    time_major = bool(option(op, 3, "b"))
    xs = values[ins[0]].astype(np.float64)
    xs = xs if time_major else xs.transpose(1, 0, 2)
    wx, wh, b = [weight(1 + g) for g in range(4)], [weight(5 + g) for g in range(4)], [weight(12 + g) for g in range(4)]
    peep = {0: weight(9), 1: weight(10), 3: weight(11)}
    proj_w, proj_b = weight(16), weight(17)
    h = np.zeros((xs.shape[1], model.tensors[ins[18]].shape[-1]))
    cell = np.zeros((xs.shape[1], wx[1].shape[0]))

    def gate(g, x, c):
        y = x @ wx[g].T + h @ wh[g].T + (b[g] if b[g] is not None else 0)
        return y + peep[g] * c if g in peep and peep[g] is not None else y
    out = []
    for x in xs:
        f = sigmoid(gate(1, x, cell))
        i = 1 - f if wx[0] is None else sigmoid(gate(0, x, cell))
        cell = f * cell + i * act(gate(2, x, cell))
        if cell_clip > 0:
            cell = np.clip(cell, -cell_clip, cell_clip)
        h = sigmoid(gate(3, x, cell)) * act(cell)
        if proj_w is not None:
            h = h @ proj_w.T + (proj_b if proj_b is not None else 0)
            if proj_clip > 0:
                h = np.clip(h, -proj_clip, proj_clip)
        out.append(h)
    out = np.stack(out)
    return out if time_major else out.transpose(1, 0, 2)


def non_max_suppression(boxes, scores, max_out, iou_threshold, score_threshold):
    """NON_MAX_SUPPRESSION_V4 (hard): the boxes scoring above the threshold,
    best first, each kept unless its IoU with a kept one reaches the
    threshold; the kept indices padded with zeros, and their count."""
    lo, hi = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    area = np.prod(hi - lo, axis=1)

    def iou(i, j):
        if area[i] <= 0 or area[j] <= 0:
            return 0.0
        inter = np.prod(np.maximum(np.minimum(hi[i], hi[j]) - np.maximum(lo[i], lo[j]), 0))
        union = area[i] + area[j] - inter
        return inter / union if union else 0.0
    kept = []
    for i in sorted(np.flatnonzero(scores > score_threshold), key=lambda i: -scores[i]):
        if len(kept) == max_out:
            break
        if all(iou(i, j) < iou_threshold for j in kept):
            kept.append(i)
    return [np.asarray(kept + [0] * (max_out - len(kept)), np.int32), np.asarray(len(kept), np.int32)]


def evaluate_op(model, op, values, hybrid):
    builtin, custom = model.codes[op.scalar(0, "I")]
    ins, outs = op.vector(1, "i"), op.vector(2, "i")
    name = NAMES.get(builtin)
    if name is None:
        what = "custom operator %s" % custom if custom else "builtin operator %d" % builtin
        raise ValueError("%s is not evaluated here" % what)
    x = values.get(ins[0]) if ins and ins[0] >= 0 else None
    it, ot = model.tensors[ins[0]] if ins else None, model.tensors[outs[0]]
    quantized = ot.quantized and it is not None and it.quantized
    const = lambda k: values[ins[k]]  # noqa: E731
    if builtin in (3, 4, 9):
        if quantized:
            return [quantized_conv(model, builtin, op, ins, outs[0], values)]
        return [float_conv(model, builtin, op, ins, outs[0], values, hybrid)]
    if builtin == 44:
        return [lstm_integer(model, op, values) if quantized else lstm_float(model, op, values)]
    if builtin == 114:  # QUANTIZE
        if it.quantized:
            return [O.ref_requantize(x, it.q, ot.q, ot.dtype)]
        return [O.ref_quantize_float(x, ot.q[0], ot.q[1], ot.dtype)]
    if builtin == 6:  # DEQUANTIZE
        return [dequantized(x, it) if it.quantized else x.astype(np.float64)]
    if builtin in (0, 18, 41):  # ADD, MUL, SUB
        act = ACTIVATIONS[option(op, 0, "b")]
        if quantized:
            return [O.ref_arith(name, x, const(1), it.q, model.tensors[ins[1]].q, ot.q, act, ot.dtype)]
        y = {0: np.add, 18: np.multiply, 41: np.subtract}[builtin](x, const(1))
        return [clamp_float(y, act)]
    if builtin == 92:  # SQUARE
        return [x * x]
    if builtin in (1, 17):  # AVERAGE_POOL_2D, MAX_POOL_2D
        args = (option(op, 4, "i"), option(op, 3, "i"), option(op, 2, "i"), option(op, 1, "i"),
                "SAME" if option(op, 0, "b") == 0 else "VALID", ACTIVATIONS[option(op, 5, "b")])
        if quantized:
            return [O.ref_pool(name, x, *args, ot.q, ot.dtype)]
        fh, fw, sh, sw, padding, act = args
        wins = windows(x, fh, fw, (sh, sw), (1, 1), padding == "SAME")
        inside = windows(np.ones(x.shape[:3] + (1,)), fh, fw, (sh, sw), (1, 1), padding == "SAME")
        if builtin == 17:
            y = np.where(inside > 0, wins, -np.inf).max(axis=3)
        else:
            y = wins.sum(axis=3) / inside.sum(axis=3)
        return [clamp_float(y, act)]
    if builtin == 40:  # MEAN
        axes, keep = [int(a) for a in np.ravel(const(1))], bool(option(op, 0, "b"))
        if quantized:
            return [O.ref_reduce("MEAN", x, axes, keep, it.q, ot.q, ot.dtype)]
        return [x.mean(axis=tuple(axes), keepdims=keep)]
    if builtin == 25:  # SOFTMAX
        beta = option(op, 0, "f", 1.0)
        if quantized:
            return [O.ref_softmax(x, it.q[0], beta, ot.dtype)]
        e = np.exp(beta * (x - x.max(axis=-1, keepdims=True)))
        return [e / e.sum(axis=-1, keepdims=True)]
    if builtin in (14, 28):  # LOGISTIC, TANH
        if quantized:
            return [O.ref_logistic_tanh(name, x, it.q[0], it.q[1], ot.dtype)]
        return [1 / (1 + np.exp(-x)) if builtin == 14 else np.tanh(x)]
    if builtin in (21, 117):  # RELU6, HARD_SWISH
        if quantized:
            return [O.ref_activation(name, x, it.q, ot.q, None, ot.dtype)]
        return [np.clip(x, 0, 6) if builtin == 21 else x * np.clip(x + 3, 0, 6) / 6]
    if builtin == 2:  # CONCATENATION
        axis = option(op, 0, "i") % x.ndim
        xs = [values[i] for i in ins]
        if quantized:
            return [O.ref_concat(xs, [model.tensors[i].q for i in ins], ot.q, axis, ot.dtype)]
        return [clamp_float(np.concatenate(xs, axis=axis), ACTIVATIONS[option(op, 1, "b")])]
    if builtin in (23, 97):  # RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
        oh, ow = [int(v) for v in const(1)]
        align, half = (option(op, 2, "b"), option(op, 3, "b")) if builtin == 23 else (option(op, 0, "b"), option(op, 1, "b"))
        if builtin == 97:
            return [O.ref_nearest(x, oh, ow, align, half)]
        return [O.ref_bilinear(x, oh, ow, align, half) if quantized else float_resize_bilinear(x, oh, ow, align, half)]
    if builtin == 34:  # PAD
        fill = ot.q[1] if quantized else 0
        return [np.pad(x, [tuple(int(v) for v in p) for p in const(1)], constant_values=fill)]
    if builtin == 56:  # ARG_MAX
        return [np.argmax(x, axis=int(np.ravel(const(1))[0])).astype(ot.dtype)]
    if builtin == 22:  # RESHAPE
        shape = [int(v) for v in np.ravel(const(1))] if len(ins) > 1 and ins[1] >= 0 else ot.shape
        return [x.reshape(shape)]
    if builtin == 39:  # TRANSPOSE
        return [np.transpose(x, [int(v) for v in np.ravel(const(1))])]
    if builtin == 36:  # GATHER: the rows of x along axis that the indices name (batch_dims 0)
        if option(op, 1, "i"):
            raise ValueError("GATHER with batch_dims is not evaluated here")
        return [np.take(x, R.a64(const(1)), axis=option(op, 0, "i") % x.ndim)]
    if builtin == 131:  # RFFT2D: the last two axes cropped or zero-padded to fft_length
        return [np.fft.rfft2(x.astype(np.float64), s=[int(v) for v in const(1)])]
    if builtin == 135:  # COMPLEX_ABS
        return [np.abs(x)]
    if builtin == 82:  # REDUCE_MAX
        axes = tuple(int(a) % x.ndim for a in np.ravel(const(1)))
        return [x.max(axis=axes, keepdims=bool(option(op, 0, "b")))]
    if builtin == 61:  # GREATER
        return [x > const(1)]
    if builtin == 53:  # CAST
        return [x.astype(np.float64 if ot.dtype == np.float32 else ot.dtype)]
    if builtin in (42, 75, 90) and quantized:
        raise ValueError("a quantized %s is not evaluated here" % name)
    if builtin == 42:  # DIV
        return [clamp_float(x / const(1), ACTIVATIONS[option(op, 0, "b")])]
    if builtin == 75:  # SQRT
        return [np.sqrt(x)]
    if builtin == 90:  # FLOOR_DIV: the quotient rounded down
        return [np.floor_divide(x, const(1)) if ot.dtype != np.float32 else np.floor(x / const(1))]
    if builtin == 88:  # UNPACK: the slices along axis
        axis = option(op, 1, "i") % x.ndim
        return [np.take(x, k, axis=axis) for k in range(x.shape[axis])]
    if builtin == 107:  # GATHER_ND: the last index axis addresses the leading axes of x
        index = R.a64(const(1))
        return [x[tuple(np.moveaxis(index, -1, 0))]]
    if builtin == 48:  # TOPK_V2: the k largest along the last axis, ties by the lower index
        order = np.argsort(-x, axis=-1, kind="stable")[..., :int(const(1))]
        return [np.take_along_axis(x, order, axis=-1), order.astype(np.int32)]
    if builtin == 58:  # LESS
        return [x < const(1)]
    if builtin == 60:  # PADV2: padded with the given value
        return [np.pad(x, [tuple(int(v) for v in p) for p in const(1)], constant_values=np.ravel(const(2))[0])]
    if builtin == 122:  # SCATTER_ND (indices, updates, shape): updates summed into zeros
        index, updates = R.a64(x), const(1)
        y = np.zeros([int(v) for v in const(2)], updates.dtype)
        np.add.at(y, tuple(np.moveaxis(index, -1, 0)), updates)
        return [y]
    if builtin == 120:
        return non_max_suppression(x, const(1), int(const(2)), float(const(3)), float(const(4)))
    if builtin == 73:  # LOG
        return [np.log(x)]
    if builtin == 77:  # SHAPE
        return [np.asarray(x.shape, ot.dtype)]
    if builtin == 83:  # PACK
        return [np.stack([values[i] for i in ins], axis=option(op, 1, "i"))]
    if builtin == 45:  # STRIDED_SLICE
        return [strided_slice(op, x, const(1), const(2), const(3))]
    if builtin == 49:  # SPLIT: axis, then the input
        return np.split(const(1), len(outs), axis=int(np.ravel(x)[0]))
    if builtin == 38:
        return [space_to_batch(x, [int(v) for v in const(1)], [[int(v) for v in p] for p in const(2)])]
    if builtin == 37:
        return [batch_to_space(x, [int(v) for v in const(1)], [[int(v) for v in p] for p in const(2)])]
    raise AssertionError(name)


def run(path, inputs, hybrid="float", wanted=None):
    """The model's outputs (or the tensors named in wanted, or every operator's
    outputs when wanted is "every op", complex ones left to the operators
    that read them) for inputs
    (arrays in its input order): codes in the tensors' integer dtypes, float
    values as float64. With wanted, evaluation stops once they are known
    (e.g. before a detector's post-processing)."""
    model = Model(path)
    by_name = {t.name: i for i, t in enumerate(model.tensors)}
    if wanted == "every op":
        targets = [t for op in model.operators for t in op.vector(2, "i") if model.tensors[t].dtype != np.complex64]
    else:
        targets = [by_name[n] for n in wanted] if wanted else model.outputs
    values = dict(model.constants)
    for i, x in zip(model.inputs, inputs):
        values[i] = np.asarray(x)
    for k, op in enumerate(model.operators):
        if all(t in values for t in targets):
            break
        try:
            results = evaluate_op(model, op, values, hybrid)
        except ValueError as e:
            raise ValueError("%s: operator %d: %s" % (path, k, e)) from None
        for t, y in zip(op.vector(2, "i"), results):
            values[t] = y
    return model, targets, [values[t] for t in targets]


def node_names(model):
    """The names run_graph knows the tensors by (the .tflite reader's rule):
    a tensor's name up to the first ';', without a ":k" suffix, every
    character TensorFlow does not allow made '_'; a taken name gets _2, _3...
    in the reader's order (the inputs, the outputs, then each operator's
    outputs and constants)."""
    taken, names = set(), {}

    def name(t):
        if t in names or t < 0:
            return
        base = model.tensors[t].name.split(";")[0]
        if re.fullmatch(r".*:[0-9]+", base):
            base = base[:base.rindex(":")]
        base = re.sub(r"[^A-Za-z0-9./_-]", "_", base[:200])
        if not base or not re.match(r"[A-Za-z0-9._]", base):
            base = "tensor_%d%s" % (t, "_" + base if base else "")
        base = base.rstrip("/") or "tensor"
        candidate, k = base, 1
        while candidate in taken:
            k += 1
            candidate = "%s_%d" % (base, k)
        taken.add(candidate)
        names[t] = candidate

    for t in model.inputs + model.outputs:
        name(t)
    for op in model.operators:
        for t in op.vector(2, "i"):
            name(t)
        for t in op.vector(1, "i"):
            if t in model.constants:
                name(t)
    return names


def main(argv):
    hybrid, wanted, args = "float", [], []
    for a in argv[1:]:
        if a.startswith("--hybrid="):
            hybrid = a.split("=", 1)[1]
        elif a.startswith("--output="):
            wanted.append(a.split("=", 1)[1])
        elif a == "--every_op":
            wanted = "every op"
        else:
            args.append(a)
    path, out_dir, input_files = args[0], args[1], args[2:]
    inputs = [np.load(f) for f in input_files]
    model, targets, outputs = run(path, inputs, hybrid, wanted)
    names = node_names(model)
    flags = ["--input=%s=%s" % (names[t], os.path.abspath(f)) for t, f in zip(model.inputs, input_files)]
    for k, (t, y) in enumerate(zip(targets, outputs)):
        tensor = model.tensors[t]
        np.save(os.path.join(out_dir, "want_%d.npy" % k), y.astype(tensor.dtype) if tensor.dtype != np.float32 else y)
        flags.append("--output=%s=%s" % (names[t], os.path.join(os.path.abspath(out_dir), "got_%d.npy" % k)))
    with open(os.path.join(out_dir, "args"), "w") as f:
        f.write("\n".join(flags) + "\n")


if __name__ == "__main__":
    try:
        main(sys.argv)
    except ValueError as e:
        sys.exit("tflite_numpy_reference.py: %s" % e)
