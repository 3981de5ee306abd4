"""What the Interpreter says about a graph's inputs and outputs where a
frozen TensorFlow graph says less than a .tflite file does:

- the size of an image input whose height and width are unknown (an Object
  Detection API export's image_tensor [?,?,?,3]): the size the graph itself
  resizes its images to, as the model's TFLite conversion fixes it, else
  300x300 for a uint8 image (the detection models' usual size);
- the quantization of an eight-bit tensor: the float range its readers take
  it with (Consts), as a scale and zero point;
- the order of a detection export's outputs: boxes, classes, scores, count,
  the order of TFLite's detection post-processing, which detection scripts
  index by position.
"""
import collections
import math

import numpy as np

_RESIZE_OPS = {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"}
DETECTION_OUTPUTS = ["detection_boxes", "detection_classes", "detection_scores", "num_detections"]
DEFAULT_DETECTION_SIZE = 300


def _const(graph, index, nodes):
    if index is None or index < 0 or nodes[index][1] != "Const":
        return None
    return graph.const_value(nodes[index][0])


def resize_target(graph, input_name, nodes=None, readers=None):
    """(height, width) the graph resizes what flows from input_name to, or
    None: the first Resize* op downstream whose size is a Const."""
    nodes = nodes or graph.nodes()
    readers = readers if readers is not None else graph.readers()
    start = next((i for i, (name, _) in enumerate(nodes) if name == input_name), None)
    queue, seen = collections.deque([start]), {start}
    while queue:
        node = queue.popleft()
        if nodes[node][1] in _RESIZE_OPS:
            inputs = graph.node_inputs(node)
            size = _const(graph, inputs[1] if len(inputs) > 1 else None, nodes)
            if size is not None and size.size == 2 and size.min() > 0:
                return int(size[0]), int(size[1])
        for reader in readers.get(node, []):
            if reader not in seen:
                seen.add(reader)
                queue.append(reader)
    return None


def concrete_shape(graph, details, nodes=None, readers=None):
    """The input's shape with its unknown sizes filled: 1, except the
    height and width of an NHWC image (rank 4, 1 or 3 channels)."""
    signature = details["shape"]
    if signature is None:
        return []
    shape = [1 if d < 0 else d for d in signature]
    if len(signature) == 4 and signature[3] in (1, 3) and (signature[1] < 0 or signature[2] < 0):
        size = resize_target(graph, details["name"], nodes, readers)
        if size is None and details["dtype"] == np.uint8:
            size = (DEFAULT_DETECTION_SIZE, DEFAULT_DETECTION_SIZE)
        if size is not None:
            shape[1] = size[0] if signature[1] < 0 else signature[1]
            shape[2] = size[1] if signature[2] < 0 else signature[2]
    return shape


# For a quantized op reading a tensor as input k: where its min and max are.
def _range_inputs(op, k, count):
    if op == "Dequantize" and k == 0:
        return 1, 2
    if op in ("QuantizedRelu", "QuantizedRelu6", "QuantizedReluX", "QuantizedMaxPool", "QuantizedAvgPool",
              "Requantize", "RequantizationRange", "QuantizeDownAndShrinkRange") and k == 0:
        return 1, 2
    if op.startswith("Quantized") and k in (0, 1) and count >= 6:
        return 2 + 2 * k, 3 + 2 * k  # (a, b, min_a, max_a, min_b, max_b)
    return None


def _round_half_away(x):
    """x rounded to the nearest integer, halves away from zero (TensorFlow's
    rounding; Python's round() takes halves to even)."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def quantization(graph, name, nodes=None, readers=None):
    """(scale, zero_point) of an eight-bit tensor from the Const range its
    first reader takes it with (TensorFlow's MIN_FIRST mapping: value =
    min + code * (max - min) / 255), or (0.0, 0) when there is none."""
    nodes = nodes or graph.nodes()
    readers = readers if readers is not None else graph.readers()
    source = next((i for i, (n, _) in enumerate(nodes) if n == name), None)
    for reader in readers.get(source, []):
        inputs = graph.node_inputs(reader)
        for k, feeding in enumerate(inputs):
            where = _range_inputs(nodes[reader][1], k, len(inputs)) if feeding == source else None
            if where is None or where[1] >= len(inputs):
                continue
            low, high = _const(graph, inputs[where[0]], nodes), _const(graph, inputs[where[1]], nodes)
            if low is not None and high is not None and low.size == 1 and high.size == 1 and high > low:
                scale = (float(high) - float(low)) / 255.0
                return scale, _round_half_away(-float(low) / scale)
    return 0.0, 0


def output_order(names):
    """names, with a detection export's four outputs in TFLite's order."""
    if set(DETECTION_OUTPUTS) <= set(names):
        return DETECTION_OUTPUTS + [n for n in names if n not in DETECTION_OUTPUTS]
    return list(names)
