"""hostile_third.py - hostile cases of the third round (issue 27): the
undefined behaviour, the quadratic paths and the wrong acceptances it
found in graphs. Each case has one thing wrong, or is the worst case of a
path that must stay fast; the expected answer is TensorFlow's own
(rejection or output)."""
from hostile_corpus import INT32, node
from hostile_newer import counted_loop


def empty_frame_name_loop():
    """A counted loop of 3 whose frame is called "": valid in TensorFlow; its
    NUL check passed NULL to memchr (UBSan)."""
    nodes = counted_loop("loop", 3, lambda i: ([node("loop/body", "Identity", [i], T=INT32)], "loop/body"))
    for n in nodes:
        if n.op == "Enter":
            n.attrs["frame_name"] = ""
    return nodes + [node("y", "Identity", ["loop/exit"], T=INT32)]


def third_round_cases(c):
    c.output("frame_name_empty", empty_frame_name_loop(), r"y: int32 \[\] 3$")
