"""tflite_lstm8.py - fully integer UNIDIRECTIONAL_SEQUENCE_LSTM .tflite files
(as TFLite's converter writes them: int8 input, output and weights, int32
biases, int16 cell state, peephole and layer-norm weights, int8 output
state, variable state tensors, five intermediates) written with
tflite_writer.py, and the outputs TFLite's integer "8x8_16" kernel gives,
worked out in numpy from its rules (lstm.cc PopulateQuantizedLstmParams8x8_16
and PopulatePrecomputedZPTimesWeightsWithBias, lstm_eval.cc
EvalInteger8x8_16, portable_tensor_utils.cc, gemmlowp's fixedpoint.h on
int16), not from tfpi's C code.

    python3 tests/cli/tflite_lstm8.py OUT_DIR

writes OUT_DIR/<case>.tflite, <case>.x.npy (the input) and
<case>.want.npy (the output), and prints the case names."""
import os
import sys

import numpy as np

import tflite_int_rules as R
import tflite_writer as W
from tflite_ops_reference import inv_sqrt

F32 = np.float32
I16_MIN, I16_MAX = -(1 << 15), (1 << 15) - 1

# ---- gemmlowp's FixedPoint<int16_t, k> (raw r stands for r / 2^(15 - k)) ------------------


def wrap16(x):
    return ((R.a64(x) + (1 << 15)) & 0xFFFF) - (1 << 15)


def srdhm16(a, b):
    """The int16 SaturatingRoundingDoublingHighMul: a * b / 2^15, nudged,
    truncated; MIN * MIN saturates."""
    a, b = R.a64(a), R.a64(b)
    ab = a * b
    out = wrap16(R.trunc_div(ab + np.where(ab >= 0, 1 << 14, 1 - (1 << 14)), 1 << 15))
    return np.where((a == I16_MIN) & (b == I16_MIN), I16_MAX, out)


def pot16(x, exponent):
    """SaturatingRoundingMultiplyByPOT on int16: saturating left shift, or
    the rounding right shift."""
    x = R.a64(x)
    if exponent <= 0:
        return R.rdbp(x, -exponent)
    threshold = (1 << (15 - exponent)) - 1
    return np.where(x > threshold, I16_MAX, np.where(x < -threshold, I16_MIN, wrap16(x << exponent)))


def const16(raw32):
    """RescaleConstantInitializer: a 32-bit constant rounded to 16 bits."""
    return int(R.rdbp(raw32, 16))


def exp_quarter16(a):
    c = const16(1895147668)
    x = wrap16(a + (1 << 12))
    x2 = srdhm16(x, x)
    x3 = srdhm16(x2, x)
    x4 = srdhm16(x2, x2)
    inner = wrap16(srdhm16(wrap16(pot16(x4, -2) + x3), const16(715827883)) + x2)
    return np.clip(c + srdhm16(c, wrap16(x + pot16(inner, -1))), I16_MIN, I16_MAX)  # AddSaturatingIf16Bit


def exp_neg16(a, k):
    a = R.a64(a)
    frac = 15 - k
    quarter = 1 << (frac - 2)
    amq = wrap16((a & (quarter - 1)) - quarter)
    result = exp_quarter16(pot16(amq, k))
    remainder = wrap16(amq - a)
    for e, m in zip(range(-2, 5), (1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242)):
        if k > e:
            result = np.where(remainder & (1 << (frac + e)), srdhm16(result, const16(m)), result)
    if k > 5:
        result = np.where(a < const16(-(1 << (36 - k))), 0, result)
    return np.where(a == 0, I16_MAX, result)


def newton16(a):
    half = R.trunc_div(R.a64(a) + I16_MAX + np.where(R.a64(a) + I16_MAX >= 0, 1, -1), 2)
    x = wrap16(const16(1515870810) + srdhm16(half, const16(-1010580540)))
    for _ in range(3):
        x = wrap16(x + pot16(srdhm16(x, wrap16((1 << 13) - srdhm16(half, x))), 2))
    return x


def logistic16(a, k):
    a = R.a64(a)
    magnitude = np.where(a > 0, a, wrap16(-a))
    positive = pot16(newton16(exp_neg16(wrap16(-magnitude), k)), 1)
    return np.where(a == 0, 1 << 14, np.where(a > 0, positive, wrap16(I16_MAX - positive)))


def tanh16(a, k):
    a = R.a64(a)
    n = np.where(a < 0, a, wrap16(-a))
    t = pot16(wrap16(newton16(exp_neg16(n, k + 1)) - (1 << 13)), 2)
    return np.where(a == 0, 0, np.where(a < 0, wrap16(-t), t))


# ---- the integer LSTM ----------------------------------------------------------------------


def qm(real):
    return R.quantize_multiplier(float(real))


def reference(c):
    """Every step of the case's LSTM on its input codes: the output codes."""
    lnorm, cifg, peep, proj = c["layer_norm"], c["cifg"], c["peephole"], c["projection"]
    gates = [g for g in range(4) if not (cifg and g == 0)]
    gate_scale = [F32(c["im_scale"][g]) if lnorm else F32(2.0**-12) for g in range(4)]
    hidden_scale, hidden_zp = F32(c["im_scale"][4]), c["im_zp"][4]
    in_s, in_zp = F32(c["in_q"][0]), c["in_q"][1]
    st_s, st_zp = F32(c["out_q"][0]), c["out_q"][1]
    cell_scale = int(round(np.log2(c["cell_scale"])))
    mx = {g: qm(F32(c["wx_s"][g]) * in_s / gate_scale[g]) for g in gates}
    mh = {g: qm(F32(c["wh_s"][g]) * st_s / gate_scale[g]) for g in gates}
    mp = {g: qm(F32(2.0**cell_scale * float(F32(c["p_s"][g])) / float(gate_scale[g]))) for g in gates if g != 2}
    mln = {g: qm(F32(c["ln_s"][g])) for g in gates}
    guard = {g: max(1, int(F32(10000) * F32(c["ln_s"][g]))) for g in gates}
    m_hidden = qm(F32(2.0**-15 / float(hidden_scale) * 2.0**-15))
    m_proj = qm(F32(c["pw_s"]) * hidden_scale / st_s) if proj else None
    cell_clip = int(np.clip(F32(c["cell_clip"]) / F32(c["cell_scale"]), -32768, 32767)) if c["cell_clip"] > 0 else 0
    proj_clip = int(np.clip(F32(c["proj_clip"]) / st_s, -128, 127)) if c["proj_clip"] > 0 else 0

    def rowsum(w):
        return R.a64(w).sum(axis=1)
    bx = {g: R.wrap32((0 if lnorm else R.a64(c["b"][g])) - in_zp * rowsum(c["wx"][g])) for g in gates}
    bh = {g: R.wrap32(-st_zp * rowsum(c["wh"][g])) for g in gates}
    bp = R.wrap32((R.a64(c["pb"]) if c["pb"] is not None else 0) + hidden_zp * rowsum(c["pw"])) if proj else None

    def product(w, v, bias, m, acc):
        return np.clip(R.mbqm(R.wrap32(R.a64(v) @ R.a64(w).T + bias), *m) + acc, I16_MIN, I16_MAX)

    def layer_norm(g, acc):
        n = acc.shape[1]
        mean = R.trunc_div(acc.sum(axis=1) * 1024, n)
        var = R.trunc_div((acc * acc).sum(axis=1) * ((1 << 20) // n) - mean * mean, 1 << 20)
        var = np.where(var < 1, guard[g], var)
        out = np.empty_like(acc)
        for b in range(acc.shape[0]):
            m, sh = inv_sqrt(int(var[b]))
            rescaled = R.mbqm(1024 * acc[b] - mean[b], m, sh)
            v3 = R.wrap32(rescaled * R.a64(c["ln"][g]) + R.a64(c["b"][g]))
            v4 = R.trunc_div(np.where(v3 > 0, v3 + 512, v3 - 512), 1024)
            out[b] = np.clip(R.mbqm(v4, mln[g][0], mln[g][1] + 12), I16_MIN, I16_MAX)
        return out

    def gate(g, x, h, cell):
        acc = product(c["wx"][g], x, bx[g], mx[g], np.zeros((x.shape[0], c["n_cell"]), np.int64))
        acc = product(c["wh"][g], h, bh[g], mh[g], acc)
        if peep and g != 2:
            acc = np.clip(R.mbqm(R.a64(c["p"][g]) * cell, *mp[g]) + acc, I16_MIN, I16_MAX)
        if lnorm:
            acc = layer_norm(g, acc)
        return tanh16(acc, 3) if g == 2 else logistic16(acc, 3)

    xs = R.a64(c["x"]) if c["time_major"] else R.a64(c["x"]).transpose(1, 0, 2)
    t_len, batch = xs.shape[:2]
    h = np.full((batch, c["n_out"]), st_zp, np.int64)  # variables start at the zero point (int8) or 0
    cell = np.zeros((batch, c["n_cell"]), np.int64)
    out = np.zeros((t_len, batch, c["n_out"]), np.int64)
    for t in range(t_len):
        x = xs[t]
        i = None if cifg else gate(0, x, h, cell)
        f = gate(1, x, h, cell)
        g = gate(2, x, h, cell)
        kept = wrap16(R.rdbp(f * cell, 15))
        added = wrap16(R.rdbp((I16_MAX - f if cifg else i) * g, 30 + cell_scale))
        cell = np.clip(kept + added, I16_MIN, I16_MAX)
        if cell_clip > 0:
            cell = np.clip(cell, -cell_clip, cell_clip)
        o = gate(3, x, h, cell)
        # CwiseMul adds -hidden_zp before a projection (whose bias adds
        # +hidden_zp x row sums), +hidden_zp when the codes are the output
        hidden = np.clip(R.mbqm(o * tanh16(cell, 15 + cell_scale), *m_hidden) + (-hidden_zp if proj else hidden_zp),
                         -128, 127)
        if proj:
            h = np.clip(R.mbqm(R.wrap32(hidden @ R.a64(c["pw"]).T + bp), *m_proj) + st_zp, -128, 127)
            if proj_clip > 0:
                h = np.clip(h, -proj_clip, proj_clip)
        else:
            h = hidden
        out[t] = h
    out = out if c["time_major"] else out.transpose(1, 0, 2)
    return out.astype(np.int8)


# ---- the cases -----------------------------------------------------------------------------


def make_case(rng, cifg=False, peephole=False, projection=False, layer_norm=False, time_major=False, batch=2,
              t_len=3, n_in=5, n_cell=8, n_out=None, proj_bias=True):
    n_out = n_out or (6 if projection else n_cell)
    c = {"cifg": cifg, "peephole": peephole, "projection": projection, "layer_norm": layer_norm,
         "time_major": time_major, "n_cell": n_cell, "n_out": n_out}
    c["in_q"] = (0.021, -7)
    c["out_q"] = (1 / 128, -5)
    c["cell_scale"] = 2.0**-11
    c["cell_clip"], c["proj_clip"] = (6.0, 0.7 if projection else 0.0)
    c["wx_s"] = [float(F32(rng.uniform(0.004, 0.012))) for _ in range(4)]
    c["wh_s"] = [float(F32(rng.uniform(0.004, 0.012))) for _ in range(4)]
    c["wx"] = [rng.integers(-127, 128, (n_cell, n_in)).astype(np.int8) for _ in range(4)]
    c["wh"] = [rng.integers(-127, 128, (n_cell, n_out)).astype(np.int8) for _ in range(4)]
    c["ln_s"] = [float(F32(1.5 / 32767)) for _ in range(4)] if layer_norm else [1.0] * 4
    c["ln"] = [rng.integers(10000, 32767, n_cell).astype(np.int16) for _ in range(4)]
    if layer_norm:  # the bias at the coefficients' scale / 2^10
        c["b"] = [rng.integers(-20000000, 20000000, n_cell).astype(np.int32) for _ in range(4)]
        c["im_scale"] = [float(F32(rng.uniform(0.0004, 0.001))) for _ in range(4)]
    else:  # at the input's scale times the weights'
        c["b"] = [rng.integers(-15000, 15000, n_cell).astype(np.int32) for _ in range(4)]
        c["im_scale"] = [2.0**-12] * 4
    c["p_s"] = [float(F32(0.5 / 32767))] * 4
    c["p"] = [rng.integers(-32767, 32768, n_cell).astype(np.int16) for _ in range(4)]
    # the hidden state: without projection it is the output, so it shares its quantization
    c["im_scale"].append(float(F32(0.006)) if projection else c["out_q"][0])
    c["im_zp"] = [0, 0, 0, 0, 3 if projection else c["out_q"][1]]
    c["pw_s"] = float(F32(0.011))
    c["pw"] = rng.integers(-127, 128, (n_out, n_cell)).astype(np.int8)
    c["pb"] = rng.integers(-3000, 3000, n_out).astype(np.int32) if proj_bias else None
    shape = (t_len, batch, n_in) if time_major else (batch, t_len, n_in)
    c["x"] = rng.integers(-128, 128, shape).astype(np.int8)
    return c


def write_model(c, path):
    m = W.Model()

    def q(scale, zp=0):
        return ([float(F32(scale))], [int(zp)], 0)
    x = m.tensor("x", c["x"].shape, W.INT8, quant=q(*c["in_q"]))
    inputs = [-1] * 24
    inputs[0] = x
    for g in range(4):
        if g == 0 and c["cifg"]:
            continue
        inputs[1 + g] = m.const(f"wx{g}", c["wx"][g], q(c["wx_s"][g]))
        inputs[5 + g] = m.const(f"wh{g}", c["wh"][g], q(c["wh_s"][g]))
        inputs[12 + g] = m.const(f"b{g}", c["b"][g])
        if c["peephole"] and g != 2:
            inputs[9 + (2 if g == 3 else g)] = m.const(f"p{g}", c["p"][g], q(c["p_s"][g]))
        if c["layer_norm"]:
            inputs[20 + g] = m.const(f"ln{g}", c["ln"][g], q(c["ln_s"][g]))
    if c["projection"]:
        inputs[16] = m.const("pw", c["pw"], q(c["pw_s"]))
        if c["pb"] is not None:
            inputs[17] = m.const("pb", c["pb"])
    batch = c["x"].shape[1 if c["time_major"] else 0]
    inputs[18] = m.tensor("h_state", [batch, c["n_out"]], W.INT8, quant=q(*c["out_q"]), variable=True)
    inputs[19] = m.tensor("c_state", [batch, c["n_cell"]], W.INT16, quant=q(c["cell_scale"]), variable=True)
    ims = [m.tensor(f"im{k}", [], W.INT16, quant=q(c["im_scale"][k], c["im_zp"][k])) for k in range(4)]
    ims.append(m.tensor("im4", [], W.INT8, quant=q(c["im_scale"][4], c["im_zp"][4])))
    out_shape = c["x"].shape[:2] + (c["n_out"],)
    out = m.tensor("out", out_shape, W.INT8, quant=q(*c["out_q"]))
    m.inputs, m.outputs = [x], [out]
    options = {0: ("b", 4), 1: ("f", c["cell_clip"]), 2: ("f", c["proj_clip"]), 3: ("bool", c["time_major"])}
    m.op(44, inputs, [out], options_type=71, options=options, intermediates=ims)  # UNIDIRECTIONAL_SEQUENCE_LSTM
    m.write(path)


CASES = [("plain", {}),
         ("plain_time_major", {"time_major": True, "batch": 3, "t_len": 4}),
         ("plain_long", {"t_len": 12, "batch": 1, "n_in": 9, "n_cell": 16}),
         ("cifg", {"cifg": True, "batch": 3}),
         ("cifg_time_major", {"cifg": True, "time_major": True}),
         ("projection", {"projection": True}),
         ("projection_no_bias_time_major", {"projection": True, "proj_bias": False, "time_major": True}),
         ("layer_norm", {"layer_norm": True}),
         ("layer_norm_cifg_projection", {"layer_norm": True, "cifg": True, "projection": True, "time_major": True,
                                         "n_cell": 10}),
         ("peephole", {"peephole": True}),
         ("peephole_cifg_layer_norm", {"peephole": True, "cifg": True, "layer_norm": True, "batch": 3}),
         ("everything", {"peephole": True, "layer_norm": True, "projection": True, "t_len": 5, "n_out": 8})]


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(8)
    for name, kwargs in CASES:
        c = make_case(rng, **kwargs)
        write_model(c, os.path.join(out_dir, name + ".tflite"))
        np.save(os.path.join(out_dir, name + ".x.npy"), c["x"])
        np.save(os.path.join(out_dir, name + ".want.npy"), reference(c))
        print(name)


if __name__ == "__main__":
    main()
