"""Graph: a loaded TensorFlow 1.x frozen graph (binary or memmapped .pb,
from a file, from bytes, or decrypted by a callback), with its inputs and
likely outputs."""
import ctypes
import threading

from ._library import DECRYPT_FN, MAX_DIMS, Status, lib
from ._tensors import from_tensor, numpy_dtype

# Nodes nothing reads that are still not outputs (as summarize_graph says),
# and ops that have no outputs at all.
_NOT_OUTPUTS = {"Const", "Assign", "NoOp", "Placeholder", "Assert", "SaveV2", "Save", "SaveSlices",
                "MergeV2Checkpoints"}
# Ops whose `shape` attribute is the shape of what they output.
_DECLARE_SHAPE = {"Placeholder", "PlaceholderWithDefault"}


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
        'code' (tfpi's dtype number, 0 if unknown), 'op' (None for a name
        the graph lacks), 'shape' (tuple, -1 for unknown sizes; None if
        unknown: only Placeholders declare one)}. The dtype is what the
        node's op and attributes say it outputs."""
        ptr = self._live()
        index = self._index().get(name.rsplit(":", 1)[0] if ":" in name else name)
        op = lib.tfpi_graph_node_op(ptr, index).decode() if index is not None else None
        dims = (ctypes.c_int64 * MAX_DIMS)()
        rank = lib.tfpi_graph_node_shape(ptr, name.encode(), dims, MAX_DIMS) if op in _DECLARE_SHAPE else -1
        code = lib.tfpi_graph_output_dtype(ptr, name.encode())
        return {"name": name, "dtype": numpy_dtype(code), "code": code, "op": op,
                "shape": tuple(dims[:rank]) if rank >= 0 else None}

    def _index(self):
        if getattr(self, "_names", None) is None:
            self._names = {name: i for i, (name, _) in enumerate(self.nodes())}
        return self._names

    def const_value(self, name):
        """The value of the Const node `name` as a numpy array."""
        status = Status()
        t = lib.tfpi_graph_const_value(self._live(), name.encode(), ctypes.byref(status))
        status.check(t is not None)
        return from_tensor(t)

    def readers(self):
        """{node index: [indices of the nodes reading one of its outputs]}."""
        ptr = self._live()
        readers = {}
        for i in range(lib.tfpi_graph_num_nodes(ptr)):
            for k in range(lib.tfpi_graph_node_num_inputs(ptr, i)):
                readers.setdefault(lib.tfpi_graph_node_input(ptr, i, k, None), []).append(i)
        return readers

    def node_inputs(self, index):
        """Indices of the nodes feeding node `index`'s data inputs, in order."""
        ptr = self._live()
        return [lib.tfpi_graph_node_input(ptr, index, k, None)
                for k in range(lib.tfpi_graph_node_num_inputs(ptr, index))]

    def inputs(self):
        """Details of every Placeholder, in file order (as tensor_details)."""
        return [self.tensor_details(name) for name, op in self.nodes() if op == "Placeholder"]

    def outputs(self):
        """Names of the nodes nothing reads, through data or control inputs
        (but constants and the like): summarize_graph's possible outputs."""
        nodes = self.nodes()
        ptr = self._live()
        read = set()
        for i in range(len(nodes)):
            for k in range(lib.tfpi_graph_node_num_inputs(ptr, i)):
                read.add(lib.tfpi_graph_node_input(ptr, i, k, None))
            for k in range(lib.tfpi_graph_node_num_control_inputs(ptr, i)):
                read.add(lib.tfpi_graph_node_control_input(ptr, i, k))
        return [name for i, (name, op) in enumerate(nodes)
                if i not in read and op not in _NOT_OUTPUTS]

    def signatures(self):
        """{key: {"inputs": {input key: tensor name}, "outputs": {output key:
        tensor name}}}. A frozen graph has one, "serving_default": its
        Placeholders and its outputs, each keyed by its own name."""
        return {"serving_default": {"inputs": {d["name"]: d["name"] for d in self.inputs()},
                                    "outputs": {name: name for name in self.outputs()}}}


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
