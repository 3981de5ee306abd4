"""Graph: a loaded TensorFlow 1.x frozen graph (binary or memmapped .pb,
from a file, from bytes, or decrypted by a callback), with its inputs and
likely outputs."""
import ctypes
import threading

from ._library import DECRYPT_FN, MAX_DIMS, Status, lib
from ._tensors import numpy_dtype

# Nodes nothing reads that are still not outputs (as summarize_graph says).
_NOT_OUTPUTS = {"Const", "Assign", "NoOp", "Placeholder"}


class Graph:
    """Graph(path) loads a file; Graph(data=b"...") loads bytes (copied);
    Graph(data=..., decrypt=fn) calls fn(buffer) on a writable copy first:
    fn decrypts the memoryview in place, or returns the decrypted bytes (same
    length). A memmapped model (convert_graphdef_memmapped_format) loads
    either way; from a file its weights are used in place."""

    def __init__(self, path=None, *, data=None, decrypt=None):
        if (path is None) == (data is None):
            raise ValueError("Graph: give either a path or data=")
        if decrypt is not None and data is None:
            with open(path, "rb") as f:
                data, path = f.read(), None
        status = Status()
        if path is not None:
            self._ptr = lib.tfpi_graph_load_file(str(path).encode(), ctypes.byref(status))
        elif decrypt is None:
            data = bytes(data)
            self._ptr = lib.tfpi_graph_load_buffer(data, len(data), ctypes.byref(status))
        else:
            data = bytes(data)
            callback = _DecryptCallback(decrypt)
            self._ptr = lib.tfpi_graph_load_buffer_decrypted(
                data, len(data), callback.c_function, None, ctypes.byref(status))
            if callback.error is not None:
                raise callback.error
        status.check(self._ptr is not None)
        self._owner = GraphOwner(self._ptr)

    def close(self):
        """Lets go of the graph; it is freed once its sessions are closed too."""
        if getattr(self, "_owner", None):
            self._owner.release()
            self._owner = None
            self._ptr = None

    def _live(self):
        if not getattr(self, "_ptr", None):
            raise ValueError("the Graph is closed")
        return self._ptr

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def nodes(self):
        """[(name, op)] of every node, in file order."""
        ptr = self._live()
        n = lib.tfpi_graph_num_nodes(ptr)
        return [(lib.tfpi_graph_node_name(ptr, i).decode(),
                 lib.tfpi_graph_node_op(ptr, i).decode()) for i in range(n)]

    def tensor_details(self, name):
        """{'name', 'dtype' (numpy, object for strings, None if unknown),
        'shape' (tuple, -1 for unknown sizes; None if unknown rank)}."""
        ptr = self._live()
        dims = (ctypes.c_int64 * MAX_DIMS)()
        rank = lib.tfpi_graph_node_shape(ptr, name.encode(), dims, MAX_DIMS)
        return {"name": name,
                "dtype": numpy_dtype(lib.tfpi_graph_node_dtype(ptr, name.encode())),
                "shape": tuple(dims[:rank]) if rank >= 0 else None}

    def inputs(self):
        """Details of every Placeholder, in file order."""
        return [self.tensor_details(name) for name, op in self.nodes() if op == "Placeholder"]

    def outputs(self):
        """Names of the nodes nothing reads (but constants and the like)."""
        nodes = self.nodes()
        ptr = self._live()
        read = set()
        for i in range(len(nodes)):
            for k in range(lib.tfpi_graph_node_num_inputs(ptr, i)):
                read.add(lib.tfpi_graph_node_input(ptr, i, k, None))
        return [name for i, (name, op) in enumerate(nodes)
                if i not in read and op not in _NOT_OUTPUTS]


class GraphOwner:
    """Frees the C graph when the last of its users (the Graph and each
    Session on it) lets go, whatever order Python's garbage collector
    finalizes them in."""

    def __init__(self, ptr):
        self.ptr = ptr
        self._users = 1
        self._lock = threading.Lock()

    def acquire(self):
        with self._lock:
            self._users += 1
        return self.ptr

    def release(self):
        with self._lock:
            self._users -= 1
            last = self._users == 0
        if last:
            lib.tfpi_graph_free(self.ptr)


class _DecryptCallback:
    """The C callback around the user's decrypt function; an exception it
    raises fails the load and is raised again by Graph()."""

    def __init__(self, decrypt):
        self.decrypt = decrypt
        self.error = None
        self.c_function = DECRYPT_FN(self._call)

    def _call(self, _user, data, size):
        try:
            # The function sees a Python copy of the C buffer, never the
            # buffer itself: a view it keeps must not outlive the load.
            buffer = bytearray(ctypes.string_at(data, size))
            result = self.decrypt(memoryview(buffer))
            if result is not None:
                if len(result) != size:
                    raise ValueError("decrypt returned %d bytes for %d" % (len(result), size))
                buffer = bytes(result)
            ctypes.memmove(data, bytes(buffer), size)
            return 0
        except Exception as e:  # handed back to Graph(), which raises it
            self.error = e
            return 1
