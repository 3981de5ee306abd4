"""Graph: a loaded TensorFlow model (a binary or memmapped .pb from a file,
from bytes, or decrypted by a callback; a SavedModel directory; a .meta or
a GraphDef with its checkpoint), with its inputs and outputs."""
import ctypes
import threading

from ._arguments import c_string
from ._library import DECRYPT_FN, MAX_DIMS, LoadOptions, Status, lib
from ._tensors import from_tensor, numpy_dtype

# Nodes nothing reads that are still not outputs (as summarize_graph says),
# and ops that have no outputs at all.
_NOT_OUTPUTS = {"Const", "Assign", "NoOp", "Placeholder", "Assert", "SaveV2", "Save", "SaveSlices",
                "MergeV2Checkpoints"}
# Ops whose `shape` attribute is the shape of what they output.
_DECLARE_SHAPE = {"Placeholder", "PlaceholderWithDefault"}


class Graph:
    """Graph(path) loads a file or a directory; Graph(data=b"...") loads
    bytes (copied); Graph(data=..., decrypt=fn) calls fn(buffer) on a
    writable copy first: fn decrypts the memoryview in place, or returns the
    decrypted bytes (same length). A memmapped model
    (convert_graphdef_memmapped_format) loads either way; from a file its
    weights are used in place.

    A SavedModel directory loads the meta graph with tags= (default
    "serve") served through signature= (default "serving_default"), whose
    keys then name inputs and outputs; a .meta file loads with the checkpoint
    beside it; checkpoint= gives a .meta's or a .pb's checkpoint (a prefix
    or its directory)."""

    def __init__(self, path=None, *, data=None, decrypt=None, tags=None, signature=None, checkpoint=None):
        if (path is None) == (data is None):
            raise ValueError("Graph: give either a path or data=")
        if path is None and (tags, signature, checkpoint) != (None, None, None):
            raise ValueError("Graph: tags=, signature= and checkpoint= go with a path")
        if decrypt is not None and data is None:
            with open(path, "rb") as f:
                data, path = f.read(), None
        status = Status()
        if path is not None:
            options = LoadOptions(c_string(tags, "tags"), c_string(signature, "signature"),
                                  c_string(checkpoint, "checkpoint"))
            self._ptr = lib.tfpi_graph_load(c_string(path, "path"), ctypes.byref(options), ctypes.byref(status))
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

    def signature(self):
        """The signature the graph is served through (a SavedModel's), or None."""
        name = lib.tfpi_graph_signature(self._live())
        return None if name is None else name.decode()

    def _signature_tensors(self, count, entry):
        ptr = self._live()
        tensor = ctypes.c_char_p()
        out = {}
        for i in range(count(ptr)):
            key = entry(ptr, i, ctypes.byref(tensor))
            out[key.decode()] = tensor.value.decode()
        return out

    def signature_inputs(self):
        """{key: tensor name} of the signature's inputs ({} without one)."""
        return self._signature_tensors(lib.tfpi_graph_signature_num_inputs, lib.tfpi_graph_signature_input)

    def signature_outputs(self):
        """{key: tensor name} of the signature's outputs ({} without one)."""
        return self._signature_tensors(lib.tfpi_graph_signature_num_outputs, lib.tfpi_graph_signature_output)

    def inputs(self):
        """Details of the signature's inputs (by key, with 'tensor'), or of
        every Placeholder in file order (as tensor_details)."""
        if self.signature() is not None:
            return [dict(self.tensor_details(t), name=k, tensor=t) for k, t in self.signature_inputs().items()]
        return [self.tensor_details(name) for name, op in self.nodes() if op == "Placeholder"]

    def outputs(self):
        """The signature's output keys, or the names of the nodes nothing
        reads, through data or control inputs (but constants and the like):
        summarize_graph's possible outputs."""
        if self.signature() is not None:
            return list(self.signature_outputs())
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
        tensor name}}}. A SavedModel has the signature it was loaded with; a
        frozen graph has one, "serving_default": its Placeholders and its
        outputs, each keyed by its own name."""
        if self.signature() is not None:
            return {self.signature(): {"inputs": self.signature_inputs(), "outputs": self.signature_outputs()}}
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
