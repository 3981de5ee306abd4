"""test_saved_model_interpreter.py - tfpi.interpreter.Interpreter on
SavedModels, as tflite_runtime's Interpreter is used on multi-signature
models (tests/cli/export_models.py writes them, with numpy's answers):
every signature of the meta graph listed and runnable through its
SignatureRunner in the one session (a stateful GRU's state set by one
signature and read by another), a signature with no outputs running and
returning {}, a model with no serving_default, reset_all_variables()
giving a stateful model its checkpoint's state back, and output dtypes
known at construction. Prints "ok"/"FAIL" lines and "N passed, N failed"."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import TMP, check, expect_error, run_groups, summary  # noqa: E402

from tfpi.interpreter import Interpreter  # noqa: E402

MODELS = os.path.join(TMP, "export")
subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli",
                                             "export_models.py"), MODELS], check=True, stdout=subprocess.DEVNULL)


def load(model, name):
    return np.load(os.path.join(MODELS, "%s.%s.npy" % (model, name)), allow_pickle=True)


def near(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.abs(a.astype(np.float64) - b).max() < 1e-5


def test_stateful_gru():
    q = Interpreter(model_path=os.path.join(MODELS, "gru_stateful"))
    check("get_signature_list lists both signatures, set_state with no outputs",
          q.get_signature_list() == {"serving_default": {"inputs": ["x"], "outputs": ["output_0"]},
                                     "set_state": {"inputs": ["h"], "outputs": []}}, str(q.get_signature_list()))
    out = q.get_output_details()[0]
    check("the output's dtype is known at construction (before allocate_tensors)", out["dtype"] == np.float32,
          str(out))
    x, h1, h2 = load("gru_stateful", "x"), load("gru_stateful", "h1"), load("gru_stateful", "h2")
    q.allocate_tensors()  # plans by running once on zeros: the state moves; reset below starts over
    q.reset_all_variables()
    q.set_tensor(q.get_input_details()[0]["index"], x)
    q.invoke()
    first = q.get_tensor(out["index"])
    q.invoke()
    second = q.get_tensor(out["index"])
    check("a stateful GRU called twice: the first step from the checkpoint's state, the second from the first's "
          "(numpy)", near(first, h1) and near(second, h2), "%s %s" % (first, second))
    q.reset_all_variables()
    q.invoke()
    again = q.get_tensor(out["index"])
    check("reset_all_variables() gives the state its checkpoint value back: the first answer again",
          np.array_equal(again, first), "%s %s" % (again, first))
    expect_error("get_signature_runner() with two signatures needs a key", "None is only allowed when the model has 1",
                 q.get_signature_runner, ValueError)
    serve, set_state = q.get_signature_runner("serving_default"), q.get_signature_runner("set_state")
    got = set_state(h=load("gru_stateful", "zero"))
    check("a signature with no outputs runs and returns {}", got == {}, repr(got))
    step = serve(x=x)["output_0"]
    check("... and what it did is seen by the other signature (state set to zeros, then one step: numpy)",
          near(step, load("gru_stateful", "from_zero")), str(step))
    q.close()


def test_policy():
    q = Interpreter(model_path=os.path.join(MODELS, "policy"))
    signatures = q.get_signature_list()
    check("a policy without serving_default: its three signatures listed",
          sorted(signatures) == ["action", "get_initial_state", "get_train_step"] and
          signatures["get_initial_state"] == {"inputs": ["batch_size"], "outputs": []} and
          signatures["get_train_step"] == {"inputs": [], "outputs": ["int64"]}, str(signatures))
    check("the first signature's output dtype (int64 actions) is known at construction",
          q.get_output_details()[0]["dtype"] == np.int64, str(q.get_output_details()))
    feeds = {k: load("policy_action", k.replace("/", "_")) for k in ("0/step_type", "0/reward", "0/discount",
                                                                     "0/observation")}
    got = q.get_signature_runner("action")(**feeds)
    want = load("policy_action", "want_action")
    check("the action signature (ArgMax, BroadcastArgs, BroadcastTo) against numpy",
          list(got) == ["action"] and np.array_equal(got["action"], want), "%s %s" % (got, want))
    got = q.get_signature_runner("get_initial_state")(batch_size=np.array(3, np.int32))
    check("get_initial_state (no outputs) runs and returns {}", got == {}, repr(got))
    got = q.get_signature_runner("get_train_step")()
    check("get_train_step (no inputs) reads the train_step variable: 1234", got == {"int64": 1234}, repr(got))
    q.close()


def test_text_signatures():
    q = Interpreter(model_path=os.path.join(MODELS, "keras_text"))
    check("the Keras text model lists serving_default, describe and parse",
          sorted(q.get_signature_list()) == ["describe", "parse", "serving_default"], str(q.get_signature_list()))
    check("serving_default is the interpreter's own: string input, float32 output known at construction",
          q.get_input_details()[0]["dtype"] == np.object_ and q.get_output_details()[0]["dtype"] == np.float32,
          "%s %s" % (q.get_input_details(), q.get_output_details()))
    text = load("keras_text_describe", "text")
    got = q.get_signature_runner("describe")(text=text)["summary"]
    want = load("keras_text_describe", "want_summary")
    check("the describe signature's strings (AsString, Substr, StringJoin)",
          [bytes(s) for s in got] == [bytes(s) for s in want], "%s %s" % (got, want))
    got = q.get_signature_runner("serving_default")(text=text)["output_0"]
    check("serving_default through its runner against numpy", near(got, load("keras_text", "want_output_0")), str(got))
    q.close()


run_groups(test_stateful_gru, test_policy, test_text_signatures)
summary()
