"""tfpi: run TensorFlow 1.x frozen graphs from Python on a Raspberry Pi or
any Linux, over libtfpi.so with ctypes and numpy (no compiler needed).

    import tfpi
    graph = tfpi.Graph("frozen_graph.pb")
    session = tfpi.Session(graph, num_threads=2)
    x = tfpi.image_to_input(tfpi.load_image("grace_hopper.jpg"), 224, 224)
    scores = session.run({"input": x[None]}, "MobilenetV1/Predictions/Reshape_1")

tfpi.Interpreter (also tfpi.interpreter.Interpreter) is a drop-in for
tflite_runtime.interpreter.Interpreter: scripts written for TensorFlow Lite
run with only their import line changed.
"""
from ._library import lib as _lib
from .data import data_file
from .errors import TfpiError, TfpiRuntimeError, TfpiValueError
from .graph import Graph
from .image import decode_image, image_to_input, load_image
from .interpreter import Interpreter
from .session import Session

__all__ = ["Graph", "Session", "Interpreter", "TfpiError", "TfpiValueError", "TfpiRuntimeError",
           "decode_image", "load_image", "image_to_input", "data_file", "version"]


def version():
    """libtfpi's version string."""
    return _lib.tfpi_version().decode()


__version__ = version()
