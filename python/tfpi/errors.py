"""TfpiError: what every failing tfpi call raises, with tfpi's own message."""


class TfpiError(Exception):
    """A tfpi call failed. `code` is tfpi.h's tfpi_code, `message` the
    one-line message naming the file, node or tensor."""

    CODES = {1: "INVALID_ARGUMENT", 2: "NOT_FOUND", 3: "UNIMPLEMENTED", 4: "IO_ERROR",
             5: "OUT_OF_MEMORY", 6: "INTERNAL"}

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def code_name(self):
        return self.CODES.get(self.code, str(self.code))
