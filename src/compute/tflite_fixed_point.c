/* tflite_fixed_point.c - the parts of TensorFlow Lite's integer
 * arithmetic that are not one-line inlines: a real factor split into a Q31
 * mantissa and a shift, the clamp of a fused activation, and gemmlowp's
 * fixed-point exp, 1 / (1 + x), logistic and tanh (see the header). */
#include "compute/tflite_fixed_point.h"

#include <math.h>

bool tp_tfl_quantize_multiplier(double m, tp_tfl_multiplier *out)
{
    *out = (tp_tfl_multiplier){0, 0};
    if (!(m >= 0.0) || !isfinite(m))
        return false;
    if (m == 0.0)
        return true;
    int shift;
    const double q = frexp(m, &shift); /* m = q * 2^shift, q in [0.5, 1) */
    int64_t fixed = (int64_t)round(q * (double)((int64_t)1 << 31));
    if (fixed == (int64_t)1 << 31) {
        fixed /= 2;
        shift++;
    }
    if (shift < -31)
        return true; /* flushed to zero, as TFLite does */
    if (shift > 30)
        return false;
    *out = (tp_tfl_multiplier){(int32_t)fixed, shift};
    return true;
}

/* zero_point + round(x / scale), rounded half away from zero, saturated to
 * the int32 range (a hostile scale must not make the conversion undefined). */
static int64_t quantize_bound(float x, float scale, int32_t zero_point)
{
    const float steps = roundf(x / scale);
    if (!(steps > -4e9f))
        return INT32_MIN;
    if (!(steps < 4e9f))
        return INT32_MAX;
    return (int64_t)zero_point + (int64_t)steps;
}

static int32_t clamp_code(int64_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : (int32_t)v; }

bool tp_tfl_activation_range(tp_tfl_activation act, float scale, int32_t zero_point, int32_t qmin, int32_t qmax,
                             int32_t *lo, int32_t *hi)
{
    float flo, fhi;
    if (!tp_tfl_activation_range_float(act, &flo, &fhi))
        return false;
    *lo = isinf(flo) ? qmin : clamp_code(quantize_bound(flo, scale, zero_point), qmin, qmax);
    *hi = isinf(fhi) ? qmax : clamp_code(quantize_bound(fhi, scale, zero_point), qmin, qmax);
    return true;
}

bool tp_tfl_activation_range_float(tp_tfl_activation act, float *lo, float *hi)
{
    switch (act) {
    case TP_TFL_ACT_NONE:
        *lo = -INFINITY, *hi = INFINITY;
        return true;
    case TP_TFL_ACT_RELU:
        *lo = 0.0f, *hi = INFINITY;
        return true;
    case TP_TFL_ACT_RELU_N1_TO_1:
        *lo = -1.0f, *hi = 1.0f;
        return true;
    case TP_TFL_ACT_RELU6:
        *lo = 0.0f, *hi = 6.0f;
        return true;
    default:
        return false;
    }
}

/* ---- gemmlowp's fixed-point functions ----
 * Written once for gemmlowp's two raw types: `bits` is 32 (int32 raws) or
 * 16 (int16 raws, held in int32_t). A Qk value of b bits has b - 1 - k
 * fractional bits; sums wrap to the type, products are the doubling high
 * multiply of the type, and the 32-bit constants gemmlowp writes are
 * rounded to 16 bits (RescaleConstantInitializer) for int16. */

/* The low `bits` bits as a signed value (C's wrap of int32 or int16). */
static int32_t wrap(int64_t v, int bits)
{
    return bits == 32 ? (int32_t)(uint32_t)(uint64_t)v : (int32_t)(int16_t)(uint16_t)(uint64_t)v;
}
static int32_t wrap_add(int32_t a, int32_t b, int bits) { return wrap((int64_t)a + b, bits); }
static int32_t wrap_sub(int32_t a, int32_t b, int bits) { return wrap((int64_t)a - b, bits); }
static int32_t raw_max(int bits) { return bits == 32 ? INT32_MAX : INT16_MAX; }
static int32_t raw_min(int bits) { return bits == 32 ? INT32_MIN : INT16_MIN; }

/* SaturatingRoundingDoublingHighMul of the type: a * b / 2^(bits - 1),
 * ties toward +infinity, MIN * MIN saturated. */
static int32_t mul(int32_t a, int32_t b, int bits)
{
    if (bits == 32)
        return tp_tfl_rounding_doubling_high_mul(a, b);
    if (a == INT16_MIN && b == INT16_MIN)
        return INT16_MAX;
    const int32_t ab = a * b;
    return wrap((ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15), 16);
}

/* SaturatingRoundingMultiplyByPOT of the type. */
static int32_t mul_by_pot(int32_t x, int exponent, int bits)
{
    if (exponent <= 0)
        return tp_tfl_rounding_divide_by_pot(x, -exponent);
    const int64_t shifted = (int64_t)x * ((int64_t)1 << exponent);
    return shifted > raw_max(bits) ? raw_max(bits) : shifted < raw_min(bits) ? raw_min(bits) : (int32_t)shifted;
}

/* One of gemmlowp's 32-bit constants in the type. */
static int32_t constant(int32_t value32, int bits) { return tp_tfl_rounding_divide_by_pot(value32, 32 - bits); }

/* exp(a) for a in [-1/4, 0), a and the result Q0: exp(-1/8) times the
 * Taylor polynomial of exp around -1/8 to the fourth power (the last sum
 * saturates for int16, wraps for int32). */
static int32_t exp_on_quarter_interval(int32_t a, int bits)
{
    const int32_t exp_minus_one_eighth = constant(1895147668, bits), one_third = constant(715827883, bits);
    const int32_t x = wrap_add(a, 1 << (bits - 4), bits); /* a + 1/8 */
    const int32_t x2 = mul(x, x, bits), x3 = mul(x2, x, bits), x4 = mul(x2, x2, bits);
    const int32_t x4_over_4 = mul_by_pot(x4, -2, bits);
    const int32_t terms =
        mul_by_pot(wrap_add(mul(wrap_add(x4_over_4, x3, bits), one_third, bits), x2, bits), -1, bits);
    const int32_t product = mul(exp_minus_one_eighth, wrap_add(x, terms, bits), bits);
    if (bits == 32)
        return wrap_add(exp_minus_one_eighth, product, bits);
    const int32_t sum = exp_minus_one_eighth + product; /* gemmlowp's AddSaturatingIf16Bit */
    return sum > INT16_MAX ? INT16_MAX : sum < INT16_MIN ? INT16_MIN : sum;
}

static int32_t exp_on_negative(int32_t a, int integer_bits, int bits)
{
    const int fractional_bits = bits - 1 - integer_bits;
    const int32_t one_quarter = (int32_t)1 << (fractional_bits - 2);
    const int32_t mod_quarter_minus_quarter = wrap_sub(a & (one_quarter - 1), one_quarter, bits);
    int32_t result = exp_on_quarter_interval(mul_by_pot(mod_quarter_minus_quarter, integer_bits, bits), bits);
    const int32_t remainder = wrap_sub(mod_quarter_minus_quarter, a, bits);
    /* exp(-2^k) for k = -2 .. 4, applied for each bit of the remainder */
    static const int32_t factors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    for (int k = -2; k <= 4; k++)
        if (integer_bits > k && (remainder & ((int32_t)1 << (fractional_bits + k))))
            result = mul(result, constant(factors[k + 2], bits), bits);
    if (integer_bits > 5 && a < constant(-((int32_t)1 << (36 - integer_bits)), bits))
        result = 0; /* below -32 */
    return a == 0 ? raw_max(bits) : result;
}

int32_t tp_tfl_exp_on_negative_values(int32_t a, int integer_bits) { return exp_on_negative(a, integer_bits, 32); }

/* Three Newton-Raphson steps for 1 / d where d = (1 + x) / 2 is in
 * [1/2, 1): returns the estimate of 1 / d in Q2. */
static int32_t reciprocal_of_half_denominator(int32_t half_denominator, int bits)
{
    const int32_t c48_17 = constant(1515870810, bits), c_neg32_17 = constant(-1010580540, bits);
    const int32_t one_q2 = 1 << (bits - 3);
    int32_t x = wrap_add(c48_17, mul(half_denominator, c_neg32_17, bits), bits);
    for (int i = 0; i < 3; i++) {
        const int32_t one_minus_dx = wrap_sub(one_q2, mul(half_denominator, x, bits), bits);
        x = wrap_add(x, mul_by_pot(mul(x, one_minus_dx, bits), 2, bits), bits);
    }
    return x;
}

/* gemmlowp's RoundingHalfSum: (a + b) / 2 rounded half away from zero. */
static int32_t rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

static int32_t one_over_one_plus(int32_t x, int bits)
{
    /* 1 / (1 + x) = (1 / d) / 2: the Q2 estimate read as Q1, then to Q0 */
    return mul_by_pot(reciprocal_of_half_denominator(rounding_half_sum(x, raw_max(bits)), bits), 1, bits);
}

int32_t tp_tfl_one_over_one_plus_x(int32_t x) { return one_over_one_plus(x, 32); }

/* (1 - x) / (1 + x) for x in [0, 1), as Q0. */
static int32_t one_minus_x_over_one_plus_x(int32_t x, int bits)
{
    const int32_t estimate = reciprocal_of_half_denominator(rounding_half_sum(x, raw_max(bits)), bits);
    return mul_by_pot(wrap_sub(estimate, 1 << (bits - 3), bits), 2, bits);
}

static int32_t logistic(int32_t a, int integer_bits, int bits)
{
    if (a == 0)
        return 1 << (bits - 2);
    const int32_t magnitude = a > 0 ? a : wrap_sub(0, a, bits);
    const int32_t of_positive =
        one_over_one_plus(exp_on_negative(wrap_sub(0, magnitude, bits), integer_bits, bits), bits);
    return a > 0 ? of_positive : wrap_sub(raw_max(bits), of_positive, bits);
}

static int32_t tanh_of(int32_t a, int integer_bits, int bits)
{
    if (a == 0)
        return 0;
    const int32_t non_positive = a < 0 ? a : wrap_sub(0, a, bits);
    /* tanh(|a|) = (1 - exp(-2|a|)) / (1 + exp(-2|a|)); the raw value of
     * -|a| read with one more integer bit is -2|a| */
    const int32_t t = one_minus_x_over_one_plus_x(exp_on_negative(non_positive, integer_bits + 1, bits), bits);
    return a < 0 ? wrap_sub(0, t, bits) : t;
}

int32_t tp_tfl_logistic(int32_t a, int integer_bits) { return logistic(a, integer_bits, 32); }
int32_t tp_tfl_tanh(int32_t a, int integer_bits) { return tanh_of(a, integer_bits, 32); }
int16_t tp_tfl_logistic16(int16_t a, int integer_bits) { return (int16_t)logistic(a, integer_bits, 16); }
int16_t tp_tfl_tanh16(int16_t a, int integer_bits) { return (int16_t)tanh_of(a, integer_bits, 16); }

int32_t tp_tfl_reciprocal(int32_t x, int integer_digits, int *bits_over_unit)
{
    const int headroom_plus_one = tp_tfl_leading_zeros((uint32_t)x);
    *bits_over_unit = integer_digits - headroom_plus_one;
    const uint32_t shifted = (uint32_t)((uint64_t)(uint32_t)x << headroom_plus_one);
    return tp_tfl_one_over_one_plus_x((int32_t)(shifted - (UINT32_C(1) << 31)));
}

int32_t tp_tfl_input_radius(int integer_bits, int left_shift, int total_bits)
{
    const double max_rescaled = ldexp((double)((1 << integer_bits) - 1), total_bits - integer_bits - left_shift);
    return max_rescaled >= (double)INT32_MAX ? INT32_MAX : (int32_t)floor(max_rescaled);
}

void tp_tfl_inv_sqrt(int32_t x, int32_t *mantissa, int *shift)
{
    if (x <= 1) {
        *mantissa = INT32_MAX, *shift = 0;
        return;
    }
    int s = 11;
    while (x >= (1 << 29)) {
        x /= 4;
        s++;
    }
    /* x to [2^27, 2^29) by pairs of bits */
    const int pairs = (tp_tfl_leading_zeros((uint32_t)x) - 1) / 2 - 1;
    s -= pairs;
    x <<= 2 * pairs;
    const int32_t half_x = tp_tfl_rounding_divide_by_pot(x >> 1, 1), three_halves = (1 << 28) + (1 << 27);
    int32_t y = 1 << 28; /* one in Q3 */
    for (int i = 0; i < 5; i++) {
        const int32_t y3 = tp_tfl_mul_by_pot(mul(mul(y, y, 32), y, 32), 6);
        y = tp_tfl_mul_by_pot(wrap_sub(mul(three_halves, y, 32), mul(half_x, y3, 32), 32), 3);
    }
    y = mul(y, 1518500250, 32); /* x sqrt(1/2) */
    if (s < 0) {
        y = (int32_t)((uint32_t)y << -s);
        s = 0;
    }
    *mantissa = y, *shift = -s;
}

static int32_t saturating_add(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + b;
    return sum > INT32_MAX ? INT32_MAX : sum < INT32_MIN ? INT32_MIN : (int32_t)sum;
}

int32_t tp_tfl_log_x_ge_1(int32_t x, int input_integer_bits, int output_integer_bits)
{
    /* Q0 constants: log 2, 2^-1/4, 2^-1/2, 1/4 and the rational fit's
     * coefficients (11/240, 1/20, 2 - 2^(1/2), 1/4, each times 2^(1/4)) */
    const int32_t log_2 = 1488522236, sqrt_sqrt_half = 1805811301, sqrt_half = 1518500250, quarter = 536870912;
    const int32_t alpha_n = 117049297, alpha_d = 127690142, alpha_i = 1057819769, alpha_f = 638450708;
    const int accum_bits = output_integer_bits + 1; /* a bit of headroom for the sum */
    const int32_t shifted_quarter = tp_tfl_mul_by_pot(quarter, -accum_bits);
    /* x = z 2^e with z read as Q0 twice: normalized (r_a, exponent e_a - 1/4 after x sqrt(1/2))
     * and normalized after x sqrt(1/2) (r_b, e_b + 1/4); the smaller r keeps r in [2^-1/2, 1) */
    const int a_lead = tp_tfl_leading_zeros((uint32_t)x);
    const int32_t r_a = tp_tfl_mul_by_pot(mul(tp_tfl_mul_by_pot(x, a_lead - 1), sqrt_half, 32), 1);
    const int32_t e_a = saturating_add(tp_tfl_mul_by_pot(input_integer_bits - a_lead, 31 - accum_bits), shifted_quarter);
    const int b_lead = tp_tfl_leading_zeros((uint32_t)mul(x, sqrt_half, 32)) - 1;
    const int32_t r_b = tp_tfl_mul_by_pot(x, b_lead);
    const int64_t e_b64 = (int64_t)tp_tfl_mul_by_pot(input_integer_bits - b_lead, 31 - accum_bits) - shifted_quarter;
    const int32_t e_b = e_b64 > INT32_MAX ? INT32_MAX : e_b64 < INT32_MIN ? INT32_MIN : (int32_t)e_b64;
    const int32_t r = r_a < r_b ? r_a : r_b, e = e_a > e_b ? e_a : e_b;
    /* log(r) by a rational function of q = 2 (r - 2^-1/4) */
    const int32_t p = rounding_half_sum(r, sqrt_sqrt_half);
    int32_t q = wrap_sub(r, sqrt_sqrt_half, 32);
    q = wrap_add(q, q, 32);
    const int32_t q_sq = mul(q, q, 32);
    const int32_t num = wrap_add(mul(q, r, 32), mul(mul(q, q_sq, 32), alpha_n, 32), 32);
    const int32_t denom_minus_one =
        wrap_add(mul(p, wrap_add(wrap_add(alpha_i, q, 32), mul(alpha_d, q_sq, 32), 32), 32), mul(alpha_f, q, 32), 32);
    const int32_t recip = tp_tfl_one_over_one_plus_x(denom_minus_one);
    const int32_t num_scaled = tp_tfl_mul_by_pot(num, -accum_bits);
    const int32_t sum = wrap_add(mul(e, log_2, 32), mul(num_scaled, recip, 32), 32);
    return tp_tfl_mul_by_pot(sum, accum_bits - output_integer_bits);
}
