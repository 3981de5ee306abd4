"""Loads libtfpi.so with ctypes and declares the C functions of tfpi.h.

Where the library comes from, first found: $TFPI_LIBRARY (a path), the
folder `make install` or the python3-tfpi package recorded in _installed.py
(relative to this package), then the dynamic loader's own search.
"""
import ctypes
import os

from .errors import TfpiError


class Status(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]

    def check(self, ok=True):
        """Raises TfpiError with tfpi's message unless the call succeeded."""
        if not ok or self.code != 0:
            raise TfpiError(self.code, self.message.decode("utf-8", "replace"))


class Bytes(ctypes.Structure):
    """tfpi_bytes: one element of a string tensor."""
    _fields_ = [("size", ctypes.c_size_t), ("data", ctypes.c_void_p)]


class Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                ("channels", ctypes.c_int), ("pixels", ctypes.c_void_p)]


class SessionOptions(ctypes.Structure):
    _fields_ = [("num_threads", ctypes.c_int), ("max_memory_bytes", ctypes.c_int64)]


class LoadOptions(ctypes.Structure):
    """tfpi_load_options: how a SavedModel or checkpoint is opened."""
    _fields_ = [("tags", ctypes.c_char_p), ("signature", ctypes.c_char_p), ("checkpoint", ctypes.c_char_p)]


DECRYPT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                              ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)


def _candidates():
    env = os.environ.get("TFPI_LIBRARY")
    if env:
        return [env]
    try:
        from . import _installed
    except ImportError:
        return ["libtfpi.so"]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, _installed.LIBDIR_FROM_PACKAGE, _installed.SONAME),
            _installed.SONAME]


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("tfpi: cannot load libtfpi.so (" + "; ".join(errors) +
                      "); set TFPI_LIBRARY to its path")


lib = _load()

_P = ctypes.c_void_p
_S = ctypes.POINTER(Status)
_PROTOTYPES = {
    "tfpi_version": (ctypes.c_char_p, []),
    "tfpi_tensor_new": (_P, [ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, _S]),
    "tfpi_tensor_set_string": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.c_char_p,
                                              ctypes.c_size_t, _S]),
    "tfpi_tensor_free": (None, [_P]),
    "tfpi_tensor_dtype": (ctypes.c_int, [_P]),
    "tfpi_tensor_ndims": (ctypes.c_int, [_P]),
    "tfpi_tensor_dim": (ctypes.c_int64, [_P, ctypes.c_int]),
    "tfpi_tensor_num_elements": (ctypes.c_int64, [_P]),
    "tfpi_tensor_byte_size": (ctypes.c_size_t, [_P]),
    "tfpi_tensor_data": (_P, [_P]),
    "tfpi_graph_load_file": (_P, [ctypes.c_char_p, _S]),
    "tfpi_graph_load": (_P, [ctypes.c_char_p, ctypes.POINTER(LoadOptions), _S]),
    "tfpi_graph_signature": (ctypes.c_char_p, [_P]),
    "tfpi_graph_signature_num_inputs": (ctypes.c_int, [_P]),
    "tfpi_graph_signature_num_outputs": (ctypes.c_int, [_P]),
    "tfpi_graph_signature_input": (ctypes.c_char_p, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]),
    "tfpi_graph_signature_output": (ctypes.c_char_p, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]),
    "tfpi_graph_load_buffer": (_P, [ctypes.c_char_p, ctypes.c_size_t, _S]),
    "tfpi_graph_load_buffer_decrypted": (_P, [ctypes.c_char_p, ctypes.c_size_t, DECRYPT_FN,
                                              _P, _S]),
    "tfpi_graph_free": (None, [_P]),
    "tfpi_graph_num_nodes": (ctypes.c_int, [_P]),
    "tfpi_graph_node_name": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "tfpi_graph_node_op": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "tfpi_graph_node_dtype": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "tfpi_graph_node_num_inputs": (ctypes.c_int, [_P, ctypes.c_int]),
    "tfpi_graph_node_input": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int,
                                             ctypes.POINTER(ctypes.c_int)]),
    "tfpi_graph_node_shape": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64),
                                             ctypes.c_int]),
    "tfpi_session_new": (_P, [_P, ctypes.POINTER(SessionOptions), _S]),
    "tfpi_session_free": (None, [_P]),
    "tfpi_session_run": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(_P),
                                        ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                        ctypes.POINTER(_P), ctypes.c_int, _S]),
    "tfpi_image_decode": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                         ctypes.POINTER(Image), _S]),
    "tfpi_image_load": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(Image), _S]),
    "tfpi_image_free": (None, [ctypes.POINTER(Image)]),
    "tfpi_image_to_input": (None, [ctypes.POINTER(Image), ctypes.c_int, ctypes.c_int,
                                   ctypes.c_float, ctypes.c_float, _P]),
}
for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes

MAX_DIMS = 8
