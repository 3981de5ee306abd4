"""Interpreter: the shape of tflite_runtime.interpreter.Interpreter over a
tfpi Graph and Session, for code written against it: get_input_details,
get_output_details, set_tensor, invoke, get_tensor by index."""
from .graph import Graph
from .session import Session


class Interpreter:
    """Interpreter(model_path=..., num_threads=0) or model_content=bytes.
    Inputs are the graph's Placeholders, outputs the nodes nothing reads
    (or the names given as output_names=[...])."""

    def __init__(self, model_path=None, model_content=None, num_threads=0, output_names=None):
        self._graph = Graph(model_path) if model_content is None else Graph(data=model_content)
        self._session = Session(self._graph, num_threads=num_threads)
        self._inputs = self._graph.inputs()
        names = output_names if output_names is not None else self._graph.outputs()
        self._outputs = [self._graph.tensor_details(n) for n in names]
        self._feeds, self._results = {}, {}

    def allocate_tensors(self):
        """Nothing to do: tfpi plans memory on the first run of each shape."""

    def _details(self, details, first_index):
        return [dict(d, index=first_index + i) for i, d in enumerate(details)]

    def get_input_details(self):
        return self._details(self._inputs, 0)

    def get_output_details(self):
        return self._details(self._outputs, len(self._inputs))

    def set_tensor(self, index, value):
        if not 0 <= index < len(self._inputs):
            raise IndexError("set_tensor: no input with index %d" % index)
        self._feeds[self._inputs[index]["name"]] = value

    def invoke(self):
        names = [d["name"] for d in self._outputs]
        self._results = dict(zip(names, self._session.run(self._feeds, names)))

    def get_tensor(self, index):
        i = index - len(self._inputs)
        if 0 <= i < len(self._outputs) and self._outputs[i]["name"] in self._results:
            return self._results[self._outputs[i]["name"]]
        if 0 <= index < len(self._inputs) and self._inputs[index]["name"] in self._feeds:
            return self._feeds[self._inputs[index]["name"]]
        raise IndexError("get_tensor: no value for index %d (invoke first)" % index)
