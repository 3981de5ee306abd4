"""tflite_control_flow.py DIR - writes .tflite models whose subgraphs run
through WHILE and IF (tflite_writer.py), with what they must compute
(numpy), for test_tflite.sh:

while.tflite: (i, x) -> WHILE(i < 5: i + 1, x * 2) -> x x 32, i = 5;
              the loop's cond and body are subgraphs 1 and 2.
if.tflite:    (p, x) -> IF(p: x + 1 else x * 3), subgraphs 1 and 2.
nested.tflite: a WHILE whose body runs an IF (on i < 2) each iteration.
Writes DIR/x.npy, DIR/true.npy, DIR/false.npy and the expected outputs
DIR/<model>_*.npy."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer as tw  # noqa: E402

ADD, MUL, LESS, WHILE, IF = 0, 18, 58, 119, 118
WHILE_OPTIONS, IF_OPTIONS = 93, 92
BOOL = 6


def cond_subgraph(m, limit):
    """(i, x) -> i < limit."""
    g = m.new_subgraph()
    i, x = m.tensor("i", [], tw.INT32), m.tensor("x", [2])
    c = m.const("limit", np.array(limit, np.int32))
    out = m.tensor("less", [], BOOL)
    m.inputs, m.outputs = [i, x], [out]
    m.op(LESS, [i, c], [out])
    return g


def scale_subgraph(m, factor, name, extra=None):
    """(i, x) -> (i + 1, x * factor), or with `extra` a callback making x's new value."""
    g = m.new_subgraph()
    i, x = m.tensor("i", [], tw.INT32), m.tensor("x", [2])
    one = m.const("one", np.array(1, np.int32))
    i2, x2 = m.tensor("i_next", [], tw.INT32), m.tensor(name, [2])
    m.inputs, m.outputs = [i, x], [i2, x2]
    m.op(ADD, [i, one], [i2], 11, {})
    if extra:
        extra(m, i, x, x2)
    else:
        f = m.const("factor", np.full(2, factor, np.float32))
        m.op(MUL, [x, f], [x2], 21, {})
    return g


def branch(m, op, value, name):
    """(x) -> x op value."""
    g = m.new_subgraph()
    x = m.tensor("x", [2])
    v = m.const("v", np.full(2, value, np.float32))
    y = m.tensor(name, [2])
    m.inputs, m.outputs = [x], [y]
    m.op(op, [x, v], [y], 11 if op == ADD else 21, {})
    return g


def write_while(path):
    m = tw.Model()
    i, x = m.tensor("i", [], tw.INT32), m.tensor("x", [2])
    i_out, x_out = m.tensor("i_out", [], tw.INT32), m.tensor("x_out", [2])
    m.inputs, m.outputs = [i, x], [i_out, x_out]
    cond = cond_subgraph(m, 5)
    body = scale_subgraph(m, 2.0, "x_next")
    m.use_subgraph(0)
    m.op(WHILE, [i, x], [i_out, x_out], WHILE_OPTIONS, {0: ("i", cond), 1: ("i", body)})
    m.write(path)


def write_if(path):
    m = tw.Model()
    p, x = m.tensor("p", [], BOOL), m.tensor("x", [2])
    y = m.tensor("y", [2])
    m.inputs, m.outputs = [p, x], [y]
    then, otherwise = branch(m, ADD, 1.0, "plus_one"), branch(m, MUL, 3.0, "times_three")
    m.use_subgraph(0)
    m.op(IF, [p, x], [y], IF_OPTIONS, {0: ("i", then), 1: ("i", otherwise)})
    m.write(path)


def write_nested(path):
    """WHILE i < 4: x = IF(i < 2, x + 1, x * 3); i + 1."""
    m = tw.Model()
    i, x = m.tensor("i", [], tw.INT32), m.tensor("x", [2])
    i_out, x_out = m.tensor("i_out", [], tw.INT32), m.tensor("x_out", [2])
    m.inputs, m.outputs = [i, x], [i_out, x_out]
    cond = cond_subgraph(m, 4)
    then, otherwise = branch(m, ADD, 1.0, "plus_one"), branch(m, MUL, 3.0, "times_three")

    def if_step(m, i, x, x2):
        two = m.const("two", np.array(2, np.int32))
        p = m.tensor("early", [], BOOL)
        m.op(LESS, [i, two], [p])
        m.op(IF, [p, x], [x2], IF_OPTIONS, {0: ("i", then), 1: ("i", otherwise)})
    body = scale_subgraph(m, None, "x_next", if_step)
    m.use_subgraph(0)
    m.op(WHILE, [i, x], [i_out, x_out], WHILE_OPTIONS, {0: ("i", cond), 1: ("i", body)})
    m.write(path)


def main(out):
    os.makedirs(out, exist_ok=True)
    write_while(os.path.join(out, "while.tflite"))
    write_if(os.path.join(out, "if.tflite"))
    write_nested(os.path.join(out, "nested.tflite"))
    x = np.array([1.5, -2.0], np.float32)
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "zero.npy"), np.array(0, np.int32))
    np.save(os.path.join(out, "true.npy"), np.array(True))
    np.save(os.path.join(out, "false.npy"), np.array(False))
    np.save(os.path.join(out, "while_x.npy"), x * 32)
    np.save(os.path.join(out, "while_i.npy"), np.array(5, np.int32))
    np.save(os.path.join(out, "if_true.npy"), x + 1)
    np.save(os.path.join(out, "if_false.npy"), x * 3)
    np.save(os.path.join(out, "nested_x.npy"), (x + 2) * 9)


if __name__ == "__main__":
    main(sys.argv[1])
