/* test_tflite_fixed_point.c - TensorFlow Lite's integer arithmetic
 * (src/compute/tflite_fixed_point.h) against values worked out from its
 * definitions with exact rational arithmetic (Python's fractions, not this
 * code): mantissas and shifts of real factors, the doubling high multiply's
 * ties (toward +infinity), the rounding shift's ties (away from zero),
 * negative values, large and flushed shifts, the 32-bit wrap of TFLite's
 * left shift, and the clamps of fused activations; and gemmlowp's
 * fixed-point exp, 1 / (1 + x), logistic and tanh against values from the
 * numpy re-implementation in tests/cli/tflite_int_rules.py (written from
 * gemmlowp's definitions; TFLite's log of x >= 1 against
 * tflite_quantized_ops.py's; the test_tflite_ops CLI test compares the ops
 * built on them over whole input ranges), plus their accuracy against libm
 * over a sweep of inputs. */
#include <math.h>

#include "check.h"
#include "compute/tflite_fixed_point.h"

static tp_tfl_multiplier multiplier(double m)
{
    tp_tfl_multiplier out;
    CHECK(tp_tfl_quantize_multiplier(m, &out));
    return out;
}

static void test_quantize_multiplier(void)
{
    static const struct {
        double m;
        int32_t mantissa;
        int shift;
    } cases[] = {
        {0.5, 1073741824, 0},           {1.0, 1073741824, 1},      {0.75, 1610612736, 0},
        {1.0 - 0x1p-40, 1073741824, 1}, /* the mantissa rounds up to 2^31 */
        {0x1p-40, 0, 0},                /* shift below -31: flushed to zero */
        {0x1p-32, 1073741824, -31},     {0.3, 1288490189, -1},     {1.7e-5, 1196268651, -15},
        {123.456, 2071247978, 7},       {0.0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_tfl_multiplier got = multiplier(cases[i].m);
        CHECK_MSG(got.mantissa == cases[i].mantissa && got.shift == cases[i].shift,
                  "%.17g: mantissa %d shift %d, want %d %d", cases[i].m, got.mantissa, got.shift,
                  cases[i].mantissa, cases[i].shift);
    }
    tp_tfl_multiplier bad;
    CHECK(!tp_tfl_quantize_multiplier(-0.5, &bad));
    CHECK(!tp_tfl_quantize_multiplier(NAN, &bad));
    CHECK(!tp_tfl_quantize_multiplier(INFINITY, &bad));
    CHECK(!tp_tfl_quantize_multiplier(0x1p40, &bad));
    CHECK(bad.mantissa == 0 && bad.shift == 0);
}

static void test_multiply(void)
{
    static const struct {
        int32_t x;
        double m;
        int32_t want;
    } cases[] = {
        {100, 0.5, 50},    {101, 0.5, 51},         {-101, 0.5, -50}, /* high multiply: -50.5 -> -50 */
        {-100, 0.5, -50},  {-1, 0.5, 0},           {7, 0.75, 5},      {-7, 0.75, -5},
        {6, 0.25, 2},      {-6, 0.25, -2},          /* rounding shift: -1.5 -> -2 */
        {-2, 0.25, -1},                             /* -0.5 -> -1 */
        {INT32_MAX, 0.3, 644245094},                {INT32_MIN, 0.3, -644245095},
        {12345, 1.7e-5, 0}, {-12345, 1.7e-5, 0},    {1000, 123.456, 123456},
        {-1000, 123.456, -123456},
        {1 << 25, 123.456, 0},                      /* 2^25 << 7 wraps to 0, as in TFLite */
        {3, 0x1p-32, 0},   {INT32_MAX, 0x1p-32, 1}, {INT32_MIN, 1.0 - 0x1p-40, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t got = tp_tfl_multiply(cases[i].x, multiplier(cases[i].m));
        CHECK_MSG(got == cases[i].want, "%d * %.17g = %d, want %d", cases[i].x, cases[i].m, got, cases[i].want);
    }
    CHECK_EQ_INT(tp_tfl_rounding_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);
    CHECK_EQ_INT(tp_tfl_rounding_divide_by_pot(INT32_MIN, 31), -1);
    CHECK_EQ_INT(tp_tfl_rounding_divide_by_pot(-(1 << 30), 31), -1); /* -0.5 away from zero */
    CHECK_EQ_INT(tp_tfl_rounding_divide_by_pot((1 << 30) - 1, 31), 0);
}

static void test_activation_range(void)
{
    int32_t lo, hi;
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_RELU6, 0.1f, -128, -128, 127, &lo, &hi));
    CHECK(lo == -128 && hi == -68);
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_RELU6, 4.0f, 3, 0, 255, &lo, &hi));
    CHECK(lo == 3 && hi == 5); /* 6 / 4 = 1.5 -> 2 */
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_RELU_N1_TO_1, 2.0f, 10, 0, 255, &lo, &hi));
    CHECK(lo == 9 && hi == 11); /* -0.5 -> -1, 0.5 -> 1 */
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_RELU, 0.5f, 200, 0, 255, &lo, &hi));
    CHECK(lo == 200 && hi == 255);
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_NONE, 0.5f, 200, -128, 127, &lo, &hi));
    CHECK(lo == -128 && hi == 127);
    CHECK(tp_tfl_activation_range(TP_TFL_ACT_RELU6, 1e-30f, 0, 0, 255, &lo, &hi)); /* 6/1e-30 saturates */
    CHECK(lo == 0 && hi == 255);
    CHECK(!tp_tfl_activation_range(TP_TFL_ACT_TANH, 0.5f, 0, 0, 255, &lo, &hi));
    float flo, fhi;
    CHECK(tp_tfl_activation_range_float(TP_TFL_ACT_RELU6, &flo, &fhi) && flo == 0.0f && fhi == 6.0f);
    CHECK(tp_tfl_activation_range_float(TP_TFL_ACT_NONE, &flo, &fhi) && isinf(flo) && isinf(fhi));
}

/* gemmlowp's logistic and tanh on int16 (TFLite's integer LSTM gates):
 * values from tests/cli/tflite_lstm8.py (which the C matches on all 65536
 * inputs for 0..6 integer bits), and within 4e-4 of the real functions. */
static void test_fixed_point_16(void)
{
    static const int16_t a[9] = {-32768, -20000, -4096, -1, 1, 2048, 4095, 12000, 32767};
    static const int16_t logistic3[9] = {11, 243, 8815, 16383, 16384, 20400, 23950, 31104, 32756};
    static const int16_t tanh3[9] = {-32767, -32767, -24964, -8, 8, 15136, 24960, 32584, 32767};
    static const int16_t tanh0[9] = {-24964, -17844, -4076, 8, -8, 2048, 4076, 11492, 24964}; /* tanh(tiny) < 0 */
    static const int16_t tanh6[9] = {-32767, -32767, -32767, -64, 64, 32744, 32767, 32767, 32767};
    for (int i = 0; i < 9; i++) {
        CHECK_EQ_INT(tp_tfl_logistic16(a[i], 3), logistic3[i]);
        CHECK_EQ_INT(tp_tfl_tanh16(a[i], 3), tanh3[i]);
        CHECK_EQ_INT(tp_tfl_tanh16(a[i], 0), tanh0[i]);
        CHECK_EQ_INT(tp_tfl_tanh16(a[i], 6), tanh6[i]);
    }
    double worst_logistic = 0, worst_tanh = 0;
    for (int32_t v = INT16_MIN; v <= INT16_MAX; v++) {
        const double real = v / 4096.0; /* Q3.12 */
        worst_logistic = fmax(worst_logistic, fabs(tp_tfl_logistic16((int16_t)v, 3) / 32768.0 - 1 / (1 + exp(-real))));
        worst_tanh = fmax(worst_tanh, fabs(tp_tfl_tanh16((int16_t)v, 3) / 32768.0 - tanh(real)));
    }
    CHECK_MSG(worst_logistic < 4e-4 && worst_tanh < 4e-4, "logistic %g tanh %g", worst_logistic, worst_tanh);
}

static void test_fixed_point_functions(void)
{
    /* tflite_int_rules.py: exp_on_negative_values(a, 5), logistic(a, 4),
     * tanh(a, 4), then logistic and tanh of -a */
    static const struct {
        int32_t a, exp5, logistic4, tanh4, logistic_neg, tanh_neg;
    } cases[] = {
        {-1, 2147483124, 1073741699, -260, 1073741948, 260},
        {-12345, 2147088157, 1073692321, -197756, 1073791326, 197756},
        {-67108864, 790015308, 810762557, -992388804, 1336721090, 992388804}, /* -1 in Q5, -1/2 in Q4 */
        {-268435463, 39332522, 255986261, -2070233492, 1891497386, 2070233492},
        {-2000000000, 0, 723, -2147483647, 2147482924, 2147483647}, /* exp below -32 is 0 */
        {0, INT32_MAX, 1 << 30, 0, 1 << 30, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int32_t a = cases[i].a;
        CHECK_EQ_INT(tp_tfl_exp_on_negative_values(a, 5), cases[i].exp5);
        CHECK_EQ_INT(tp_tfl_logistic(a, 4), cases[i].logistic4);
        CHECK_EQ_INT(tp_tfl_tanh(a, 4), cases[i].tanh4);
        CHECK_EQ_INT(tp_tfl_logistic(-a, 4), cases[i].logistic_neg);
        CHECK_EQ_INT(tp_tfl_tanh(-a, 4), cases[i].tanh_neg);
    }
    static const int32_t x[][2] = {{0, INT32_MAX}, {1, INT32_MAX}, {1 << 30, 1431655762},
                                   {2000000000, 1111923858}, {123456789, 2030738432}};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        CHECK_EQ_INT(tp_tfl_one_over_one_plus_x(x[i][0]), x[i][1]);
    int bits;
    CHECK_EQ_INT(tp_tfl_reciprocal(1 << 19, 12, &bits), INT32_MAX);
    CHECK_EQ_INT(bits, 0);
    CHECK_EQ_INT(tp_tfl_reciprocal(123456789, 12, &bits), 1167333038);
    CHECK_EQ_INT(bits, 7);
    /* accuracy over sweeps (the bounds hold with a margin of 2-10x) */
    double worst_exp = 0, worst_logistic = 0, worst_tanh = 0;
    for (int64_t a = -(INT64_C(1) << 31) + 1; a < (INT64_C(1) << 31); a += 99999989) {
        const double real = (double)a / (1 << 27);
        if (a <= 0)
            worst_exp = fmax(worst_exp, fabs(tp_tfl_exp_on_negative_values((int32_t)a, 4) / 0x1p31 - exp(real)));
        worst_logistic = fmax(worst_logistic, fabs(tp_tfl_logistic((int32_t)a, 4) / 0x1p31 - 1 / (1 + exp(-real))));
        worst_tanh = fmax(worst_tanh, fabs(tp_tfl_tanh((int32_t)a, 4) / 0x1p31 - tanh(real)));
    }
    CHECK_MSG(worst_exp < 1e-6 && worst_logistic < 1e-8 && worst_tanh < 1e-7, "exp %g logistic %g tanh %g",
              worst_exp, worst_logistic, worst_tanh);
    CHECK_EQ_INT(tp_tfl_input_radius(5, 26, 31), 31);  /* softmax: 31 * 2^26 / 2^26 */
    CHECK_EQ_INT(tp_tfl_input_radius(4, 20, 31), 1920); /* 15 * 2^27 / 2^20 */
    CHECK_EQ_INT(tp_tfl_input_radius(4, -8, 31), INT32_MAX);
    CHECK_EQ_INT(tp_tfl_mul_by_pot(1 << 29, 2), INT32_MAX);
    CHECK_EQ_INT(tp_tfl_mul_by_pot(-(1 << 29), 2), INT32_MIN);
    CHECK_EQ_INT(tp_tfl_mul_by_pot(-5, -1), -3);
    /* inverse square roots (tflite_ops_reference.py's inv_sqrt): 1/sqrt(2),
     * 1/10, 1/255 = 0.12549 / 2^5, ... */
    static const struct {
        int32_t x, mantissa;
        int shift;
    } roots[] = {{2, 1518498372, 0},       {3, 1239850284, 0},          {100, 214748363, 0},
                 {65025, 269488147, -5},   {1 << 29, 379624593, -12},   {2000000000, 196686610, -12},
                 {12345678, 312926508, -9}, {1, INT32_MAX, 0},           {-7, INT32_MAX, 0}};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        int32_t m;
        int sh;
        tp_tfl_inv_sqrt(roots[i].x, &m, &sh);
        CHECK_MSG(m == roots[i].mantissa && sh == roots[i].shift, "inv_sqrt(%d) = %d, %d", roots[i].x, m, sh);
    }
}

/* log(x) for x >= 1, Q12 in, Q5 out: the raw values of the numpy rule
 * (tests/cli/tflite_quantized_ops.py's log_x_ge_1, written from TFLite's
 * common.h), and within 2^-20 of libm's log over a sweep. */
static void test_log_x_ge_1(void)
{
    static const struct {
        int32_t x, log;
    } cases[] = {{1 << 19, 0},           {3 << 18, 27210304},   {1 << 20, 46516320},
                 {5242880, 154523870},   {52428800, 309047740}, {INT32_MAX, 558195838}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int32_t got = tp_tfl_log_x_ge_1(cases[i].x, 12, 5);
        CHECK_MSG(got == cases[i].log, "log_x_ge_1(%d) = %d, want %d", cases[i].x, got, cases[i].log);
    }
    for (int32_t x = 1 << 19; x < INT32_MAX - 7777777; x += 7777777) {
        const double got = tp_tfl_log_x_ge_1(x, 12, 5) / 0x1p26, want = log(x / 0x1p19);
        CHECK_MSG(fabs(got - want) < 0x1p-20, "log_x_ge_1(%d) = %.9f, log %.9f", x, got, want);
    }
}

int main(void)
{
    RUN(test_quantize_multiplier);
    RUN(test_multiply);
    RUN(test_activation_range);
    RUN(test_fixed_point_functions);
    RUN(test_fixed_point_16);
    RUN(test_log_x_ge_1);
    return check_summary();
}
