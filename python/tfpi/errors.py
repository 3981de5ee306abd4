"""TfpiError: what every failing tfpi call raises, with tfpi's own message.

Each error is also the built-in exception a Python (and tflite_runtime)
user expects, so `except ValueError` and `except RuntimeError` keep working:
a bad model, argument, name, dtype or shape raises TfpiValueError (a
TfpiError and a ValueError); a run that fails raises TfpiRuntimeError (a
TfpiError and a RuntimeError)."""

INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED, IO_ERROR, OUT_OF_MEMORY, INTERNAL = 1, 2, 3, 4, 5, 6


class TfpiError(Exception):
    """A tfpi call failed. `code` is tfpi.h's tfpi_code, `message` the
    one-line message naming the file, node or tensor."""

    CODES = {INVALID_ARGUMENT: "INVALID_ARGUMENT", NOT_FOUND: "NOT_FOUND", UNIMPLEMENTED: "UNIMPLEMENTED",
             IO_ERROR: "IO_ERROR", OUT_OF_MEMORY: "OUT_OF_MEMORY", INTERNAL: "INTERNAL"}

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def code_name(self):
        return self.CODES.get(self.code, str(self.code))


class TfpiValueError(TfpiError, ValueError):
    """A bad model, argument, tensor name, dtype or shape."""


class TfpiRuntimeError(TfpiError, RuntimeError):
    """A run that failed (an op's error, the memory budget, an Assert...)."""


def error_for(code, message, running=False):
    """The exception for a failed C call: loading and argument errors are
    ValueErrors; errors of a run are RuntimeErrors, except a feed or fetch
    name the graph lacks, which is a bad argument."""
    if running and code != NOT_FOUND:
        return TfpiRuntimeError(code, message)
    return TfpiValueError(code, message)
