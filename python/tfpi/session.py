"""Session: runs a Graph with named feeds and fetches, numpy in and out.

A session may be shared between Python threads: runs take turns (a lock),
and the GIL is released while tfpi computes, so other Python threads and
other sessions keep going."""
import ctypes
import threading

from ._library import SessionOptions, Status, lib
from ._tensors import from_tensor, to_tensor


class Session:
    """Session(graph, num_threads=0, max_memory=0, cpu=None): num_threads <= 0
    uses one thread per core, 1 creates none; max_memory is the memory budget
    in bytes (0: half the RAM, -1: none); cpu forces the ARM kernels of a core
    family ("a53", "a72", "a76", "generic"; None: TFPI_CPU or detected). The session keeps the C graph alive until it is
    closed, even if the Graph is closed first."""

    def __init__(self, graph, num_threads=0, max_memory=0, cpu=None):
        status = Status()
        options = SessionOptions(int(num_threads), int(max_memory), cpu.encode() if cpu else None)
        self.graph = graph
        self._lock = threading.Lock()
        graph._live()
        self._graph_owner = graph._owner
        self._ptr = lib.tfpi_session_new(self._graph_owner.acquire(), ctypes.byref(options),
                                         ctypes.byref(status))
        if self._ptr is None:
            self._graph_owner.release()
        status.check(self._ptr is not None)

    def close(self):
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

    def run(self, feeds, fetches):
        """feeds: {"name" or "name:k": array-like}; fetches: a name (returns
        one array) or a list of names (returns a list). Raises TfpiError
        with tfpi's message on failure."""
        single = isinstance(fetches, str)
        fetch_list = [fetches] if single else list(fetches)
        names = list(feeds)
        tensors = []
        try:
            for name in names:
                tensors.append(to_tensor(feeds[name], name))
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
            status.check()
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
