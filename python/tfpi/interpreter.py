"""tfpi.interpreter: a drop-in for tflite_runtime.interpreter (and
tf.lite.Interpreter) that runs .tflite files, and TensorFlow frozen graphs,
with tfpi. Scripts written for TensorFlow Lite run with only their import
line changed:

    from tflite_runtime.interpreter import Interpreter   # before
    from tfpi.interpreter import Interpreter             # after

Interpreter(model_path=..., model_content=..., experimental_delegates=None,
num_threads=None) has tflite's methods, keys and errors: get_input_details
and get_output_details (name, index, shape, shape_signature, dtype,
quantization, quantization_parameters, sparsity_parameters),
allocate_tensors, resize_tensor_input, set_tensor, invoke, get_tensor,
tensor, get_tensor_details, get_signature_list, get_signature_runner and
reset_all_variables. Tensor indices: the inputs first, then the outputs.

Where a frozen graph says less than a .tflite file: see _model_io (image
sizes of detection exports, eight-bit ranges, the order of detection
outputs). allocate_tensors() plans the model by running it once on zeros,
which gives the outputs' shapes as a .tflite file declares them (-1 in
shape_signature: sizes a frozen graph does not declare).
Delegates (Edge TPU, GPU...) are ignored with a warning: tfpi runs on the CPU.
"""
import enum
import threading
import warnings

import numpy as np

from . import _model_io
from ._arguments import c_string
from ._tensors import check_budget, check_shape
from .errors import INVALID_ARGUMENT, TfpiError, TfpiValueError
from .graph import Graph
from .session import Session

__all__ = ["Interpreter", "SignatureRunner", "Delegate", "load_delegate", "OpResolverType"]


class OpResolverType(enum.Enum):
    """Accepted for tflite compatibility; tfpi has one set of kernels."""
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


class Delegate:
    """What load_delegate returns: tfpi runs every model on the CPU, so a
    delegate is remembered by name and otherwise ignored."""

    def __init__(self, library, options=None):
        self.library = library
        self.options = dict(options or {})

    def __repr__(self):
        return "Delegate(%r)" % (self.library,)


def load_delegate(library, options=None):
    """tflite's load_delegate: returns a Delegate the Interpreter ignores
    (with a warning), so scripts that ask for an Edge TPU or GPU still run."""
    return Delegate(library, options)


def _details(tensor):
    scale, zero_point = tensor["quantization"]
    quantized = scale != 0.0
    scales, zero_points = tensor.get("scales"), tensor.get("zero_points")
    if scales is None:
        scales, zero_points = ([scale], [zero_point]) if quantized else ([], [])
    return {
        "name": tensor["name"],
        "index": tensor["index"],
        "shape": np.array(tensor["shape"], dtype=np.int32),
        "shape_signature": np.array(tensor["signature"], dtype=np.int32),
        "dtype": tensor["dtype"].type if tensor["dtype"] is not None else None,
        "quantization": (scale, zero_point),
        "quantization_parameters": {
            "scales": np.array(scales, dtype=np.float32),
            "zero_points": np.array(zero_points, dtype=np.int32),
            "quantized_dimension": tensor.get("quantized_dimension", 0),
        },
        "sparsity_parameters": {},
    }


def _check_num_threads(num_threads):
    if num_threads is None:
        return 0
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)):
        raise ValueError("type of num_threads should be int")
    if num_threads < -1:
        raise ValueError("num_threads should be >= -1 (-1 or 0: one thread per core)")
    return max(int(num_threads), 0)


class Interpreter:
    """Interpreter(model_path=None, model_content=None, experimental_delegates=None,
    num_threads=None, ..., precision=None): a .tflite or a frozen graph
    (.pb, memmapped) from a file or bytes. num_threads None, 0 or -1: one thread per core.
    precision (tfpi's own) is Session's: "fp16" for half-precision
    arithmetic where the CPU has it (a Pi 5)."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=OpResolverType.AUTO, experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False, precision=None):
        if model_path is not None and model_content is not None:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        if model_path is None and model_content is None:
            raise ValueError("Must provide either model_path or model_content")
        threads = _check_num_threads(num_threads)
        for delegate in experimental_delegates or []:
            warnings.warn("tfpi runs models on the CPU: delegate %r ignored"
                          % getattr(delegate, "library", delegate), RuntimeWarning, stacklevel=2)
        c_string(model_path, "model_path")  # refused here by its own name, not as Graph's path
        self._graph = Graph(model_path) if model_content is None else Graph(data=model_content)
        self._model = (model_path, model_content, threads, precision)
        self._session = Session(self._graph, num_threads=threads, precision=precision)
        self._lock = threading.RLock()
        lite = self._graph.tflite_tensors()
        if lite is None:
            self._signatures = self._graph.signatures()
            self._tensors = self._describe(next(iter(self._signatures.values())))
        else:
            self._signatures = self._graph.tflite_signatures()
            self._tensors = _tflite_tensors(lite, *self._graph.tflite_io())
        self._lite = lite is not None
        self._num_inputs = sum(1 for t in self._tensors if t["input"])
        self._buffers = {}  # index -> the array an input is fed from, or an output's last value
        self._allocated = False

    # ---- what the model takes and gives ---------------------------------------------------
    def _describe(self, signature):
        nodes, readers = self._graph.nodes(), self._graph.readers()
        tensors = []
        for name in signature["inputs"].values():
            d = self._graph.tensor_details(name)
            tensors.append(dict(d, input=True, output=False, signature=list(d["shape"]) if d["shape"] is not None else [],
                                shape=_model_io.concrete_shape(self._graph, d, nodes, readers)))
        for name in _model_io.output_order(list(signature["outputs"].values())):
            d = self._graph.tensor_details(name)
            tensors.append(dict(d, input=False, output=True, signature=[], shape=[]))
        for index, t in enumerate(tensors):
            t["index"] = index
            quantized = t["code"] in (11, 12, 13, 15, 16)
            t["quantization"] = _model_io.quantization(self._graph, t["name"], nodes, readers) if quantized \
                else (0.0, 0)
        return tensors

    def _live(self):
        if self._session is None:
            raise ValueError("the Interpreter is closed")

    def _tensor(self, index, what="tensor"):
        self._live()
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or \
                not 0 <= index < len(self._tensors):
            raise ValueError("Invalid tensor index %r: the model has %d tensors (%s)"
                             % (index, len(self._tensors), what))
        return self._tensors[int(index)]

    def _input(self, index):
        inputs = [t["index"] for t in self._tensors if t["input"]]
        t = self._tensor(index, "inputs are %s" % inputs)
        if not t["input"]:
            raise ValueError("Tensor %d (%s) is %s, not an input: the inputs are %s"
                             % (index, t["name"], "an output" if t.get("output") else "an intermediate tensor", inputs))
        return t

    def get_input_details(self):
        self._live()
        return [_details(t) for t in self._tensors if t["input"]]

    def get_output_details(self):
        self._live()
        outputs = [t for t in self._tensors if t.get("output")]
        if self._lite:  # in the subgraph's order
            outputs.sort(key=lambda t: t["output_position"])
        return [_details(t) for t in outputs]

    def get_tensor_details(self):
        """The tensors the interpreter holds: a .tflite's every tensor; a
        frozen graph's inputs and outputs."""
        self._live()
        return [_details(t) for t in self._tensors]

    # ---- feeding ---------------------------------------------------------------------------
    def allocate_tensors(self):
        """Makes each input's buffer for its current shape (tensor() views
        it) and plans the model for those shapes: tfpi plans while it runs,
        so this runs the model once on zeros, which also gives the outputs'
        shapes (a planning run that fails is left to invoke() to report)."""
        with self._lock:
            self._live()
            for t in self._tensors:
                if t["input"]:
                    self._buffers[t["index"]] = self._new_buffer(t, t["shape"])
            self._allocated = True
            if all(t["dtype"] != object for t in self._tensors if t["input"]):
                try:
                    self._run(keep_values=False)
                except TfpiError:
                    pass

    def _new_buffer(self, t, shape):
        if t["dtype"] is None:
            raise ValueError("input %d (%s) has no known dtype" % (t["index"], t["name"]))
        check_budget(shape, t["dtype"].itemsize, self._session.max_memory, "input %d (%s)" % (t["index"], t["name"]))
        return np.zeros(shape, dtype=t["dtype"]) if t["dtype"] != object else np.full(shape, b"", dtype=object)

    def _ensure_allocated(self):
        if not self._allocated:
            self.allocate_tensors()

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """Gives input `input_index` a new shape (call allocate_tensors()
        after). Only the sizes the graph leaves unknown (-1 in
        shape_signature) can change, strict or not: a frozen graph's
        declared sizes are fixed (tflite reshapes a whole model instead)."""
        with self._lock:
            t = self._input(input_index)
            try:
                shape = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
            except (TypeError, ValueError) as e:
                raise ValueError("resize_tensor_input: tensor_size must be a list of ints: %s" % e) from None
            check_shape(shape, "resize_tensor_input(%d)" % input_index)
            signature = t["signature"]
            if signature and not _fits(signature, shape):
                raise ValueError("resize_tensor_input(%d, %s): input %s has shape %s; %s" % (
                    input_index, shape, t["name"], signature,
                    "strict=True only allows mutating unknown dimensions identified by -1" if strict else
                    "tfpi keeps the sizes the model declares, only those identified by -1 can change"))
            t["shape"] = shape
            self._allocated = False

    def set_tensor(self, tensor_index, value):
        """Copies value into an input: the dtype must be the input's, the
        shape its current one (sizes the model leaves unknown may differ);
        otherwise ValueError, as tflite."""
        with self._lock:
            t = self._input(tensor_index)
            self._ensure_allocated()
            array = value if isinstance(value, np.ndarray) else np.asarray(value)
            if t["dtype"] == object:
                ok = array.dtype.kind in "SUO"
            else:
                ok = array.dtype == t["dtype"]
            if not ok:
                raise TfpiValueError(INVALID_ARGUMENT, "Cannot set tensor: Got value of type %s but expected type "
                                     "%s for input %d, name: %s" % (array.dtype, t["dtype"], t["index"], t["name"]))
            shape = list(array.shape)
            if len(shape) != len(t["shape"]):
                raise TfpiValueError(INVALID_ARGUMENT, "Cannot set tensor: Dimension mismatch. Got %d but expected "
                                     "%d for input %d (%s)" % (len(shape), len(t["shape"]), t["index"], t["name"]))
            for dim, (got, want) in enumerate(zip(shape, t["shape"])):
                unknown = bool(t["signature"]) and t["signature"][dim] < 0
                if got != want and not unknown:
                    raise TfpiValueError(INVALID_ARGUMENT, "Cannot set tensor: Dimension mismatch. Got %d but "
                                         "expected %d for dimension %d of input %d (%s)"
                                         % (got, want, dim, t["index"], t["name"]))
            buffer = self._buffers[t["index"]]
            if list(buffer.shape) != shape:  # a size the model leaves open
                buffer = self._buffers[t["index"]] = self._new_buffer(t, shape)
            buffer[...] = array

    def tensor(self, tensor_index):
        """A function returning the tensor's current array: an input's
        buffer (write into it to set the input, as with tflite), an
        output's value from the last invoke(), or a constant's (a weight's)
        value, read-only (read from the model each time: it is not kept
        beside the packed weights the kernels run from)."""
        index = self._tensor(tensor_index)["index"]
        self._ensure_allocated()

        def current():
            with self._lock:
                self._live()
                t = self._tensors[index]
                if index not in self._buffers and t.get("constant") and t["feed"]:
                    value = self._graph.const_value(t["feed"].split(":")[0])
                    value.flags.writeable = False
                    return value
                if index not in self._buffers:
                    t = self._tensors[index]
                    raise ValueError("tensor %d (%s) has no value %s" % (index, t["name"], "yet: call invoke() first"
                                     if t["input"] or t.get("output") else
                                     "tfpi keeps: only the model's inputs and outputs are held"))
                return self._buffers[index]
        return current

    # ---- running ---------------------------------------------------------------------------
    def invoke(self):
        """Runs the model on the inputs' current values. A failed run raises
        a RuntimeError (a TfpiError with tfpi's message)."""
        with self._lock:
            self._live()
            self._ensure_allocated()
            self._run(keep_values=True)

    def _run(self, keep_values):
        feeds = {t.get("feed", t["name"]): self._buffers[t["index"]] for t in self._tensors if t["input"]}
        outputs = [t for t in self._tensors if t.get("output")]
        results = self._session.run(feeds, [t.get("feed", t["name"]) for t in outputs])
        for t, value in zip(outputs, results):
            if keep_values:
                self._buffers[t["index"]] = value
            t["shape"] = list(value.shape)
            if not t["signature"]:  # fixed if every input's shape is
                t["signature"] = list(value.shape) if self._inputs_fixed() else [-1] * value.ndim
            if t["dtype"] is None:
                t["dtype"] = value.dtype

    def _inputs_fixed(self):
        return all(t["signature"] and min(t["signature"]) >= 0 for t in self._tensors if t["input"])

    def get_tensor(self, tensor_index, subgraph_index=0):
        """A copy of the tensor's current value (outputs: after invoke())."""
        served = self._graph.tflite_subgraph() if self._lite else 0
        if subgraph_index != served:
            raise ValueError("subgraph_index %r: the interpreter holds subgraph %d" % (subgraph_index, served))
        return np.array(self.tensor(tensor_index)(), copy=True)

    def reset_all_variables(self):
        """Gives every variable and table its first value again: a
        SavedModel's variables their checkpoint's values (a stateful model,
        an RNN keeping its state in a variable, starts over). A frozen graph
        has none, and a .tflite's variable tensors start at zero on every
        invoke(): nothing changes."""
        with self._lock:
            self._live()
            self._session.reset_variables()

    # ---- signatures ------------------------------------------------------------------------
    def get_signature_list(self):
        """{key: {"inputs": [input keys], "outputs": [output keys]}}: every
        signature of a SavedModel's meta graph, or a .tflite's
        SignatureDefs; a frozen graph has "serving_default", keyed by tensor
        names."""
        self._live()
        return {key: {"inputs": list(s["inputs"]), "outputs": list(s["outputs"])}
                for key, s in self._signatures.items()}

    def get_signature_runner(self, signature_key=None):
        """A SignatureRunner: runner(**{input key: array}) -> {output key: array}."""
        self._live()
        if signature_key is None:
            if len(self._signatures) != 1:
                raise ValueError("SignatureDef signature_key is None and model has %d Signatures. None is only "
                                 "allowed when the model has 1 SignatureDef" % len(self._signatures))
            signature_key = next(iter(self._signatures))
        if signature_key not in self._signatures:
            raise ValueError("SignatureDef signature_key %r not found; the model has %s"
                             % (signature_key, sorted(self._signatures)))
        if self._lite:
            return TfliteSignatureRunner(self, signature_key)
        return SignatureRunner(self, signature_key)

    # ---- lifetime (tfpi's additions) -------------------------------------------------------
    def close(self):
        """Frees the model now (otherwise when the Interpreter is collected);
        any later call raises ValueError."""
        with self._lock:
            session, self._session = self._session, None
            self._buffers = {}
        if session is not None:
            session.close()
            self._graph.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _tflite_tensors(lite, inputs, outputs):
    """The Interpreter's tensors of a .tflite: every tensor of its subgraph,
    by the file's index, fed and fetched by its graph name."""
    tensors = []
    for t in lite:
        per_tensor = len(t["scales"]) == 1
        tensors.append({
            "name": t["name"], "feed": t["graph_name"], "index": t["index"], "dtype": t["dtype"],
            "input": t["index"] in inputs, "output": t["index"] in outputs,
            "output_position": outputs.index(t["index"]) if t["index"] in outputs else -1,
            "shape": [1 if d < 0 else d for d in t["shape"]], "signature": t["shape_signature"],
            "quantization": (t["scales"][0], t["zero_points"][0]) if per_tensor else (0.0, 0),
            "scales": t["scales"], "zero_points": t["zero_points"],
            "quantized_dimension": t["quantized_dimension"], "constant": t["constant"]})
    return tensors


def _fits(signature, shape):
    return len(signature) == len(shape) and all(s < 0 or s == d for s, d in zip(signature, shape))


class SignatureRunner:
    """tflite's SignatureRunner: call it with one keyword array per input
    key; it returns {output key: array} ({} for a signature with no
    outputs, which runs for what it does). get_input_details() and
    get_output_details() give {key: details}. Every signature runs in the
    Interpreter's session: variables one signature changes, the others see."""

    def __init__(self, interpreter, signature_key):
        self._interpreter = interpreter
        self._key = signature_key
        self._signature = interpreter._signatures[signature_key]

    def _named_details(self, names):
        interpreter = self._interpreter
        interpreter._live()
        by_name = {t["name"]: t for t in interpreter._tensors}
        out = {}
        for key, name in names.items():
            t = by_name.get(name)
            if t is None:
                d = interpreter._graph.tensor_details(name)
                t = dict(d, index=-1, signature=list(d["shape"] or []), shape=list(d["shape"] or []),
                         quantization=(0.0, 0))
            out[key] = _details(t)
        return out

    def get_input_details(self):
        return self._named_details(self._signature["inputs"])

    def get_output_details(self):
        return self._named_details(self._signature["outputs"])

    def allocate_tensors(self):
        self._interpreter.allocate_tensors()

    def __call__(self, **inputs):
        self._interpreter._live()
        for key in inputs:
            if key not in self._signature["inputs"]:
                raise ValueError("Invalid Input name (%s) for SignatureDef %s: its inputs are %s"
                                 % (key, self._key, list(self._signature["inputs"])))
        if len(inputs) != len(self._signature["inputs"]):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, expected %d vs "
                             "provided %d (%s)" % (len(self._signature["inputs"]), len(inputs),
                                                   ", ".join(self._signature["inputs"])))
        feeds = {self._signature["inputs"][key]: value for key, value in inputs.items()}
        keys = list(self._signature["outputs"])
        if not keys:  # run for what it does; it returns nothing
            if self._signature["target"]:
                self._interpreter._session.run(feeds, ["^" + self._signature["target"]])
            return {}
        results = self._interpreter._session.run(feeds, [self._signature["outputs"][k] for k in keys])
        return dict(zip(keys, results))


class TfliteSignatureRunner:
    """A .tflite SignatureDef's runner: runner(**{input key: array}) ->
    {output key: array}, on the signature's own subgraph (the
    interpreter's, or one loaded for it)."""

    def __init__(self, interpreter, signature_key):
        self._key = signature_key
        signature = interpreter._signatures[signature_key]
        if signature["subgraph"] == interpreter._graph.tflite_subgraph():
            self._interpreter = interpreter
        else:
            path, content, threads, precision = interpreter._model
            graph = Graph(path, signature=signature_key) if content is None else None
            if graph is None:
                raise ValueError("signature %r runs subgraph %d: give the model as model_path to run it"
                                 % (signature_key, signature["subgraph"]))
            self._interpreter = Interpreter.__new__(Interpreter)
            self._interpreter.__dict__.update(_graph=graph, _model=interpreter._model, _lite=True,
                                              _session=Session(graph, num_threads=threads, precision=precision),
                                              _lock=threading.RLock(), _signatures=interpreter._signatures,
                                              _buffers={}, _allocated=False)
            self._interpreter._tensors = _tflite_tensors(graph.tflite_tensors(), *graph.tflite_io())
        self._signature = signature

    def _named(self, side):
        tensors = self._interpreter._tensors
        return {key: _details(tensors[index]) for key, index in self._signature[side].items()}

    def get_input_details(self):
        self._interpreter._live()
        return self._named("inputs")

    def get_output_details(self):
        self._interpreter._live()
        return self._named("outputs")

    def allocate_tensors(self):
        self._interpreter._live()

    def __call__(self, **inputs):
        interpreter = self._interpreter
        interpreter._live()
        wanted = self._signature["inputs"]
        for key in inputs:
            if key not in wanted:
                raise ValueError("Invalid Input name (%s) for SignatureDef %s: its inputs are %s"
                                 % (key, self._key, list(wanted)))
        if len(inputs) != len(wanted):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, expected %d vs "
                             "provided %d (%s)" % (len(wanted), len(inputs), ", ".join(wanted)))
        tensors = interpreter._tensors
        feeds = {tensors[wanted[key]]["feed"]: np.asarray(value) for key, value in inputs.items()}
        keys = list(self._signature["outputs"])
        results = interpreter._session.run(feeds, [tensors[self._signature["outputs"][k]]["feed"] for k in keys])
        return dict(zip(keys, results))
