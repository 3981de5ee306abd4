"""Session: runs a Graph with named feeds and fetches, numpy in and out.

Feeds are cast to the dtype the graph expects, as TensorFlow's session.run
does (a Python list, a float64 array for a float32 placeholder...), and
checked against a Placeholder's declared shape and the memory budget before
anything is copied. A session may be shared between Python threads: runs
take turns (a lock), and the GIL is released while tfpi computes, so other
Python threads and other sessions keep going."""
import ctypes
import threading
import warnings

from ._arguments import c_string, int_in_range
from ._library import SessionOptions, Status, lib
from ._tensors import from_tensor, to_tensor
from .errors import INVALID_ARGUMENT, TfpiValueError


def _shape_fits(declared, shape):
    return len(declared) == len(shape) and all(d < 0 or d == s for d, s in zip(declared, shape))


class Session:
    """Session(graph, num_threads=0, max_memory=0, cpu=None, precision=None):
    num_threads 0 or -1 uses one thread per core, 1 creates none; max_memory
    is the memory budget in bytes (0: the default budget, -1: none); cpu forces the
    ARM kernels of a core family ("a53", "a72", "a76", "generic"; None:
    TFPI_CPU or detected); precision "fp16" runs convolutions and matrix
    products in half precision where the CPU has it (a Pi 5; elsewhere fp32,
    with a RuntimeWarning), None or "fp32" in fp32. The precision attribute
    says which one the session got. The session keeps the C graph alive until
    it is closed, even if the Graph is closed first."""

    def __init__(self, graph, num_threads=0, max_memory=0, cpu=None, precision=None):
        num_threads = int_in_range(num_threads, "num_threads", -1, 1024,
                                   "give -1 or 0 (one thread per core) or 1 to 1024")
        max_memory = int_in_range(max_memory, "max_memory", -1, 2**63 - 1,
                                  "give bytes, 0 for the default budget or -1 for none")
        status = Status()
        options = SessionOptions(num_threads, max_memory, c_string(cpu, "cpu") or None,
                                 c_string(precision, "precision") or None)
        self.graph = graph
        self.max_memory = lib.tfpi_default_max_memory() if max_memory == 0 else max_memory
        self._lock = threading.Lock()
        self._feed_details = {}
        graph._live()
        self._graph_owner = graph._owner
        self._ptr = lib.tfpi_session_new(self._graph_owner.acquire(), ctypes.byref(options),
                                         ctypes.byref(status))
        if self._ptr is None:
            self._graph_owner.release()
        status.check(self._ptr is not None)
        self.precision = lib.tfpi_session_precision(self._ptr).decode()
        if precision == "fp16" and self.precision != "fp16":
            warnings.warn("precision='fp16': this CPU has no fp16 arithmetic (it needs the aarch64 build on an "
                          "armv8.2-a core with FP16, such as a Pi 5's); running in fp32", RuntimeWarning,
                          stacklevel=2)

    def close(self):
        if not hasattr(self, "_lock"):  # __init__ refused its arguments: nothing was made
            return
        with self._lock:
            ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.tfpi_session_free(ptr)
            self._graph_owner.release()

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _details(self, name):
        """What the graph says about a feed (cached): its dtype code and the
        shape a Placeholder declares; None for a name the graph lacks."""
        if name not in self._feed_details:
            try:
                details = self.graph.tensor_details(name)
            except ValueError:  # a closed Graph: the C graph lives on, unasked
                details = None
            self._feed_details[name] = details
        return self._feed_details[name]

    def _feed_tensor(self, name, value):
        details = self._details(name)
        code = details["code"] if details and details["code"] else None
        tensor = to_tensor(value, name, code, self.max_memory)
        declared = details["shape"] if details else None
        if declared is not None:
            shape = tuple(lib.tfpi_tensor_dim(tensor, i) for i in range(lib.tfpi_tensor_ndims(tensor)))
            if not _shape_fits(declared, shape):
                lib.tfpi_tensor_free(tensor)
                raise TfpiValueError(INVALID_ARGUMENT, "Cannot feed value of shape %s for Tensor '%s', which "
                                     "has shape %s" % (shape, name, tuple(None if d < 0 else d for d in declared)))
        return tensor

    def run(self, feeds, fetches):
        """feeds: {"name" or "name:k": array-like}; fetches: a name (returns
        one array) or a list of names (returns a list). Raises a TfpiError
        with tfpi's message on failure: a ValueError for a bad feed or name,
        a RuntimeError for a failed run."""
        single = isinstance(fetches, (str, bytes)) or not hasattr(fetches, "__iter__")
        fetch_list = [fetches] if single else list(fetches)
        names = list(feeds)
        for kind, values in (("Fetch", fetch_list), ("Feed", names)):
            for value in values:
                if not isinstance(value, str):  # TensorFlow's words
                    raise TypeError("%s argument %r has invalid type %s, must be a string (a tensor name)"
                                    % (kind, value, type(value)))
        tensors = []
        try:
            for name in names:
                tensors.append(self._feed_tensor(name, feeds[name]))
            feed_names = (ctypes.c_char_p * max(1, len(names)))(*[n.encode() for n in names])
            feed_ptrs = (ctypes.c_void_p * max(1, len(names)))(*tensors)
            fetch_names = (ctypes.c_char_p * max(1, len(fetch_list)))(
                *[f.encode() for f in fetch_list])
            outputs = (ctypes.c_void_p * max(1, len(fetch_list)))()
            status = Status()
            with self._lock:
                if not self._ptr:
                    raise ValueError("Session.run on a closed session")
                lib.tfpi_session_run(self._ptr, feed_names, feed_ptrs, len(names), fetch_names,
                                     outputs, len(fetch_list), ctypes.byref(status))
            status.check(running=True)
        finally:
            for t in tensors:
                lib.tfpi_tensor_free(t)
        results = []
        try:
            for i in range(len(fetch_list)):
                tensor, outputs[i] = outputs[i], None
                results.append(from_tensor(tensor))  # frees tensor
        finally:
            for tensor in outputs:
                if tensor:
                    lib.tfpi_tensor_free(tensor)
        return results[0] if single else results
