"""Image helpers: the decode and resize label_image uses, as numpy arrays.
decode_image/load_image give uint8 RGB (height, width, 3) arrays (JPEG with
TensorFlow's decode_jpeg settings, or PNG); image_to_input resizes one with
TF1's legacy bilinear sampling and normalises it to float32."""
import ctypes

import numpy as np

from ._library import Image, Status, lib


def _to_array(image):
    try:
        shape = (image.height, image.width, image.channels)
        out = np.empty(shape, dtype=np.uint8)
        ctypes.memmove(out.ctypes.data, image.pixels, out.nbytes)
        return out
    finally:
        lib.tfpi_image_free(ctypes.byref(image))


def decode_image(data, name="image"):
    """Decodes JPEG or PNG bytes; `name` appears in error messages."""
    data = bytes(data)
    image, status = Image(), Status()
    rc = lib.tfpi_image_decode(data, len(data), name.encode(), ctypes.byref(image),
                               ctypes.byref(status))
    status.check(rc == 0)
    return _to_array(image)


def load_image(path):
    """Reads and decodes a JPEG or PNG file."""
    image, status = Image(), Status()
    rc = lib.tfpi_image_load(str(path).encode(), ctypes.byref(image), ctypes.byref(status))
    status.check(rc == 0)
    return _to_array(image)


def image_to_input(image, width, height, mean=127.5, std=127.5):
    """(height, width, channels) float32 of (pixel - mean) / std after a TF1
    bilinear resize of a uint8 (h, w, c) image."""
    pixels = np.ascontiguousarray(image, dtype=np.uint8)
    if pixels.ndim != 3 or min(pixels.shape) < 1:
        raise ValueError("image_to_input: expected a (height, width, channels) array, got shape %s"
                         % (pixels.shape,))
    if width < 1 or height < 1 or std == 0:
        raise ValueError("image_to_input: width and height must be positive and std non-zero")
    source = Image(pixels.shape[1], pixels.shape[0], pixels.shape[2], pixels.ctypes.data)
    out = np.empty((height, width, pixels.shape[2]), dtype=np.float32)
    lib.tfpi_image_to_input(ctypes.byref(source), width, height, mean, std, out.ctypes.data)
    return out
