"""Python arguments checked before they reach C, each refused with tfpi's
own TfpiValueError naming the argument: strings (no bytes, no NUL byte,
which would end a C string early and silently change what is asked) and
64-bit integers (ctypes would wrap 2**70 silently)."""
import os

from .errors import INVALID_ARGUMENT, TfpiValueError


def c_string(value, argument):
    """value (a str, or None) as the bytes of a C string."""
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise TfpiValueError(INVALID_ARGUMENT, "%s=%r: give a str" % (argument, value))
    if "\0" in value:
        raise TfpiValueError(INVALID_ARGUMENT, "%s=%r holds a NUL character" % (argument, value))
    return value.encode()


def int_in_range(value, argument, lo, hi, what):
    """value as an int within [lo, hi]; `what` says what the range means."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TfpiValueError(INVALID_ARGUMENT, "%s=%r: give an integer (%s)" % (argument, value, what))
    value = value.__index__()
    if not lo <= value <= hi:
        raise TfpiValueError(INVALID_ARGUMENT, "%s=%d is out of range: %s" % (argument, value, what))
    return value
