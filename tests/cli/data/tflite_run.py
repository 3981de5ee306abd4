"""tflite_run.py MODEL.tflite INPUT.npy - a tflite_runtime script as a user
writes it, with tfpi's Interpreter (tests/check_wheels.sh and
tests/check_packages.sh run it in Debian roots and compare with the host):
feeds INPUT to the first input, invokes, prints the first output's dtype and
shape, then its values one a line (floats with 9 significant digits)."""
import sys

import numpy as np
from tfpi.interpreter import Interpreter

interpreter = Interpreter(model_path=sys.argv[1])
interpreter.allocate_tensors()
interpreter.set_tensor(interpreter.get_input_details()[0]["index"], np.load(sys.argv[2]))
interpreter.invoke()
out = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
print(out.dtype, "x".join(str(d) for d in out.shape))
for value in out.ravel():
    print("%.9g" % value if out.dtype.kind == "f" else int(value))
