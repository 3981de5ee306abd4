"""Loads libtfpi.so with ctypes and declares the C functions of tfpi.h.

Where the library comes from, first found: $TFPI_LIBRARY (a path); the
folder `make install`, the python3-tfpi package or `make wheel` recorded in
_installed.py (relative to this package; a wheel carries the library inside
the package); in a build tree (python/tfpi run with PYTHONPATH=python), the libraries under
gen/*/lib that this Python can load (gen/linux first); then the dynamic
loader's own search.
"""
import ctypes
import glob
import os
import sys

from .errors import error_for

HERE = os.path.dirname(os.path.abspath(__file__))
# What libtfpi.so needs on a Debian or Raspberry Pi OS system.
RUNTIME_PACKAGES = "libprotobuf-c1 libjpeg62-turbo libpng16-16 libminizip1 zlib1g"


class Status(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * 512)]

    def check(self, ok=True, running=False):
        """Raises a TfpiError with tfpi's message unless the call succeeded:
        a ValueError, or a RuntimeError for the errors of a run."""
        if not ok or self.code != 0:
            raise error_for(self.code, self.message.decode("utf-8", "replace"), running)


class Bytes(ctypes.Structure):
    """tfpi_bytes: one element of a string tensor."""
    _fields_ = [("size", ctypes.c_size_t), ("data", ctypes.c_void_p)]


class Image(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int),
                ("channels", ctypes.c_int), ("pixels", ctypes.c_void_p)]


class SessionOptions(ctypes.Structure):
    _fields_ = [("num_threads", ctypes.c_int), ("max_memory_bytes", ctypes.c_int64), ("cpu", ctypes.c_char_p),
                ("precision", ctypes.c_char_p)]


class LoadOptions(ctypes.Structure):
    """tfpi_load_options: how a SavedModel or checkpoint is opened."""
    _fields_ = [("tags", ctypes.c_char_p), ("signature", ctypes.c_char_p), ("checkpoint", ctypes.c_char_p)]


class TfliteTensor(ctypes.Structure):
    """tfpi_tflite_tensor: a .tflite tensor as the file describes it."""
    _fields_ = [("name", ctypes.c_char_p), ("graph_name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("type_name", ctypes.c_char_p), ("ndims", ctypes.c_int), ("dims", ctypes.c_int64 * 8),
                ("dims_signature", ctypes.c_int64 * 8), ("num_scales", ctypes.c_int),
                ("scales", ctypes.POINTER(ctypes.c_float)), ("zero_points", ctypes.POINTER(ctypes.c_int64)),
                ("quantized_dimension", ctypes.c_int), ("is_constant", ctypes.c_int), ("is_variable", ctypes.c_int)]


DECRYPT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                              ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)


def _build_tree_libraries():
    """gen/<target>/lib/libtfpi.so of the build tree this package sits in
    (python/tfpi), gen/linux first; sanitizer and fuzzing builds need their
    runtime preloaded and are left to $TFPI_LIBRARY."""
    def target(path):  # .../gen/<target>/lib/libtfpi.so
        return path.split(os.sep)[-3]

    found = glob.glob(os.path.join(HERE, "..", "..", "gen", "*", "lib", "libtfpi.so"))
    return sorted((p for p in found if not target(p).endswith(("-sanitize", "-fuzz"))),
                  key=lambda p: (target(p) != "linux", p))


def _candidates():
    env = os.environ.get("TFPI_LIBRARY")
    if env:
        return [env]
    try:
        from . import _installed
        return [os.path.join(HERE, _installed.LIBDIR_FROM_PACKAGE, _installed.SONAME), _installed.SONAME]
    except ImportError:
        return _build_tree_libraries() + ["libtfpi.so"]


def _arm_float_abi(path):
    """"hard" or "soft": the float calling convention of a 32-bit ARM ELF file
    (EF_ARM_ABI_FLOAT_HARD/SOFT in its e_flags); None for anything else."""
    try:
        with open(path, "rb") as f:
            head = f.read(40)
    except OSError:
        return None
    if len(head) < 40 or head[:6] != b"\x7fELF\x01\x01" or int.from_bytes(head[18:20], "little") != 40:
        return None
    flags = int.from_bytes(head[36:40], "little")
    return "hard" if flags & 0x400 else "soft" if flags & 0x200 else None


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            # The dynamic loader says "No such file" for a library of the other
            # ARM float ABI: a Debian armel (TARGET=ARMV6) build under Raspberry
            # Pi OS's hard-float Python, whose pip accepts the armv6l wheel.
            abi, python_abi = _arm_float_abi(path), _arm_float_abi(os.path.realpath(sys.executable))
            if abi and python_abi and abi != python_abi:
                raise ImportError("tfpi: %s is built for the %s-float ARM ABI (Debian %s) and this Python for %s-float "
                                  "(%s): they cannot be loaded together; use a build for this system's ABI (on "
                                  "Raspberry Pi OS on a Pi Zero/1: the static ARMV6 programs)"
                                  % (path, abi, "armel" if abi == "soft" else "armhf", python_abi,
                                     "armel" if python_abi == "soft" else "armhf, as Raspberry Pi OS")) from e
            errors.append(str(e))
    raise ImportError("tfpi: cannot load libtfpi.so (" + "; ".join(errors) +
                      "); set TFPI_LIBRARY to its path, or install what it needs: sudo apt install " +
                      RUNTIME_PACKAGES)


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
    "tfpi_graph_num_signatures": (ctypes.c_int, [_P]),
    "tfpi_graph_signature_key": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "tfpi_graph_signature_count": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int]),
    "tfpi_graph_signature_entry": (ctypes.c_char_p, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                     ctypes.POINTER(ctypes.c_char_p)]),
    "tfpi_graph_signature_target": (ctypes.c_char_p, [_P, ctypes.c_int]),
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
    "tfpi_graph_node_num_control_inputs": (ctypes.c_int, [_P, ctypes.c_int]),
    "tfpi_graph_node_control_input": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int]),
    "tfpi_graph_output_dtype": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "tfpi_graph_const_value": (_P, [_P, ctypes.c_char_p, _S]),
    "tfpi_tflite_num_tensors": (ctypes.c_int, [_P]),
    "tfpi_tflite_get_tensor": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(TfliteTensor), _S]),
    "tfpi_tflite_num_inputs": (ctypes.c_int, [_P]),
    "tfpi_tflite_input": (ctypes.c_int, [_P, ctypes.c_int]),
    "tfpi_tflite_num_outputs": (ctypes.c_int, [_P]),
    "tfpi_tflite_output": (ctypes.c_int, [_P, ctypes.c_int]),
    "tfpi_tflite_subgraph": (ctypes.c_int, [_P]),
    "tfpi_tflite_num_signatures": (ctypes.c_int, [_P]),
    "tfpi_tflite_signature_key": (ctypes.c_char_p, [_P, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    "tfpi_tflite_signature_num_entries": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int]),
    "tfpi_tflite_signature_entry": (ctypes.c_char_p, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                                      ctypes.POINTER(ctypes.c_int)]),
    "tfpi_default_max_memory": (ctypes.c_int64, []),
    "tfpi_session_new": (_P, [_P, ctypes.POINTER(SessionOptions), _S]),
    "tfpi_session_free": (None, [_P]),
    "tfpi_session_precision": (ctypes.c_char_p, [_P]),
    "tfpi_session_reset_variables": (None, [_P]),
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
