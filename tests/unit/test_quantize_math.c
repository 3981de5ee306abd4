/* test_quantize_math.c - the quantization arithmetic of
 * src/compute/quantize_math.c against the hand-checkable vectors of
 * ../shared/docs/quantized.md section 6.1 (worked out from TF's formulas;
 * floats compared exactly where the document prints them exactly), and
 * TF's quirks: zero does not round-trip, unclamped codes outside 0..255,
 * and ranges that make every conversion degenerate (empty, NaN, infinite)
 * give defined results. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "compute/quantize_math.h"

static const tp_qtype *u8(void) { return tp_qtype_of(TFPI_QUINT8); }
static const tp_qtype *i32(void) { return tp_qtype_of(TFPI_QINT32); }

static void test_float_to_quantized(void)
{
    const double x[] = {-1, -0.5, 0, 0.25, 0.5, 1, 1.5};
    const int64_t unclamped[] = {0, 64, 128, 160, 192, 256, 319};
    for (int i = 0; i < 7; i++) {
        CHECK_EQ_INT(tp_q_f2qu(x[i], -1, 1, u8()), unclamped[i]);
        CHECK_EQ_INT(tp_q_f2q(x[i], -1, 1, u8()), unclamped[i] > 255 ? 255 : unclamped[i]);
    }
    CHECK_EQ_INT(tp_q_f2q(0, 0, 6, u8()), 0);
    CHECK_EQ_INT(tp_q_f2q(6, 0, 6, u8()), 255);
    CHECK_EQ_INT(tp_q_f2qu(0, -0.19095920f, 0.16672829f, u8()), 136);
    CHECK_EQ_INT(tp_q_f2qu(0, 0.5f, 1, u8()), -255); /* zero outside the range */
    CHECK_EQ_INT(tp_q_f2q(0, 2, 2, u8()), 0);         /* empty range: the lowest code */
}

static void test_quantized_to_float(void)
{
    const int64_t q[] = {0, 1, 127, 128, 255};
    const double want[] = {-0.9960784912109375, -0.988235354423523, -5.98e-08, 0.007843077182769775,
                           1.0039215087890625};
    for (int i = 0; i < 5; i++)
        CHECK_NEAR(tp_q_q2f(q[i], -1, 1, u8()), want[i], 1e-9);
    CHECK((float)tp_q_q2f(0, -1, 1, u8()) == (float)-0.9960784912109375);
    CHECK_NEAR(tp_q_q2f(0, -1, 1, i32()), 2.3283064e-10, 1e-16);
    CHECK(tp_q_q2f(INT32_MAX, -1, 1, i32()) == 1.0f);
    CHECK(tp_q_q2f(7, 3, 3, u8()) == 3.0f);
}

static void test_dequantize_eigen(void)
{
    const int64_t q[] = {0, 1, 127, 128, 255};
    const float want[] = {-0.99607849f, -0.98823535f, 0.0f, 0.0078431368f, 1.0039215f};
    tp_q_dequantizer dq = tp_q_dequantizer_make(-1, 1, u8());
    for (int i = 0; i < 5; i++)
        CHECK_NEAR(tp_q_dequantize_e(&dq, q[i]), want[i], 2e-8);
    CHECK(tp_q_dequantize_e(&dq, 127) == 0.0f); /* unfused: exactly zero */
}

static void test_quantize_eigen(void)
{
    const float x[] = {-1, -0.5f, 0, 0.25f, 0.5f, 1, 1.2f};
    const int64_t want[] = {0, 64, 128, 160, 192, 255, 255};
    tp_q_quantizer qz = tp_q_quantizer_make(-1, 1, u8());
    for (int i = 0; i < 7; i++)
        CHECK_EQ_INT(tp_q_quantize_e(&qz, x[i]), want[i]);
    tp_q_quantizer qi = tp_q_quantizer_make(-1, 1, tp_qtype_of(TFPI_QINT8));
    const int64_t want_signed[] = {-128, -64, 0, 32, 64, 127, 127};
    for (int i = 0; i < 7; i++)
        CHECK_EQ_INT(tp_q_quantize_e(&qi, x[i]), want_signed[i]);
    CHECK_EQ_INT(tp_q_quantize_e(&qz, NAN), 0);
    CHECK_EQ_INT(tp_q_quantize_e(&qz, INFINITY), 255);
}

/* The vectorizable many-value forms equal the scalar ones, ties and NaN included. */
static void test_many_forms_match(void)
{
    enum { N = 4099 };
    static float x[N];
    static int32_t v[N];
    static uint8_t got[N];
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i - N / 2) / 1024.0f;
        v[i] = (int32_t)((uint32_t)i * 2654435761u) >> (i % 32); /* every magnitude, both signs */
    }
    x[7] = NAN;
    x[8] = INFINITY;
    x[9] = -INFINITY;
    x[10] = 3e38f;
    x[11] = -3e38f;
    /* [-1, 1]: x * 127.5, many exact halves; a range far from 0 (offset
     * beyond 2^20, the scalar path) and one that holds 0 off-centre */
    const float ranges[][2] = {{-1, 1}, {-0.3f, 0.9f}, {1e6f, 1e6f + 1}, {0.25f, 1.5f}};
    int bad = 0;
    for (int k = 0; k < 4; k++) {
        tp_q_quantizer qz = tp_q_quantizer_make(ranges[k][0], ranges[k][1], u8());
        tp_q_quantize_many_u8(&qz, x, got, N);
        for (int i = 0; i < N; i++)
            bad += got[i] != tp_q_quantize_e(&qz, x[i]);
    }
    CHECK_EQ_INT(bad, 0);
    /* requantizers of every size: the scale below and above 2^31 and 2^32,
     * offsets near and far, sums that wrap 64 bits */
    for (int k = 0; k < 400; k++) {
        const float in_max = ldexpf(1.0f + (float)(k % 7) / 7, k % 40 - 8), in_min = k % 3 ? -in_max : in_max / 8;
        const float out_max = ldexpf(1.0f + (float)(k % 5) / 5, -(k % 23) + 4), out_min = k % 4 ? -out_max / 3 : 0;
        tp_q_requantizer r = tp_q_requantizer_make(in_min, in_max, out_min, out_max);
        tp_q_requantize_many(&r, v, got, N);
        bad = 0;
        for (int i = 0; i < N; i++)
            bad += got[i] != tp_q_requantize(&r, v[i]);
        CHECK_MSG(bad == 0, "requantizer %d (scale %lld, offset %lld): %d codes differ", k, (long long)r.scale_fp,
                  (long long)r.offset_fp, bad);
    }
}

static void test_requantize(void)
{
    float min, max;
    tp_q_range_for_multiplication(0, 1, -1, 1, i32(), &min, &max);
    CHECK(max == 66051.0234375f && min == -max);
    const int32_t v[] = {-65025, -1000, 0, 1000, 32512, 65025};
    /* the range RequantizationRange finds for these codes */
    float used_min = fminf(0, tp_q_q2f(-65025, min, max, i32())), used_max = tp_q_q2f(65025, min, max, i32());
    CHECK_NEAR(used_min, -1.9999849, 1e-6);
    CHECK_NEAR(used_max, 2.0000155, 1e-6);
    const uint8_t to_used[] = {0, 126, 127, 129, 191, 255}, to_unit[] = {0, 124, 128, 131, 255, 255};
    tp_q_requantizer r = tp_q_requantizer_make(min, max, used_min, used_max);
    tp_q_requantizer unit = tp_q_requantizer_make(min, max, -1, 1);
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(tp_q_requantize(&r, v[i]), to_used[i]);
        CHECK_EQ_INT(tp_q_requantize(&unit, v[i]), to_unit[i]);
    }
    /* extreme codes and a tiny target range: the 64-bit product wraps as TF's, no UB */
    tp_q_requantizer tiny = tp_q_requantizer_make(-1e6f, 1e6f, -1e-6f, 1e-6f);
    CHECK(tp_q_requantize(&tiny, INT32_MIN) <= 255);
    tp_q_requantizer empty = tp_q_requantizer_make(min, max, 0, 0);
    CHECK_EQ_INT(tp_q_requantize(&empty, 5), 0); /* every term is 0, the rounding half is shifted out */
}

/* Each requantized code is within one of F2Q(Q2F(v)), over a sweep. */
static void test_requantize_matches_float_path(void)
{
    const float in_min = -66051.0234375f, in_max = 66051.0234375f, out_min = -3.5f, out_max = 5.25f;
    tp_q_requantizer r = tp_q_requantizer_make(in_min, in_max, out_min, out_max);
    int worst = 0;
    for (int64_t v = -200000; v <= 200000; v += 37) {
        int64_t want = tp_q_f2q(tp_q_q2f(v, in_min, in_max, i32()), out_min, out_max, u8());
        int d = abs((int)(tp_q_requantize(&r, (int32_t)v) - want));
        worst = d > worst ? d : worst;
    }
    CHECK_EQ_INT(worst <= 1, 1);
}

static void test_widen(void)
{
    /* QuantizedAdd's mapping: code 0 and code 1 of [-1,1] into +-16384 qint32 */
    tp_q_widener w = tp_q_widener_make(-1, 1, -16384, 16384);
    CHECK_EQ_INT(tp_q_widen(&w, 0), tp_q_f2qu(tp_q_q2f(0, -1, 1, u8()), -16384, 16384, i32()));
    CHECK_EQ_INT(tp_q_widen(&w, 255) - tp_q_widen(&w, 254), w.step);
    CHECK_NEAR(tp_q_q2f(tp_q_widen(&w, 255), -16384, 16384, i32()), 1.0039215, 255 * 0.5 * 32768 / 4294967296.0); /* the step is rounded */
}

static void test_range_problems(void)
{
    CHECK(tp_q_range_problem(-1, 1) == NULL);
    CHECK(tp_q_range_problem(2, 2) == NULL);
    CHECK(tp_q_range_problem(1, -1) != NULL);
    CHECK(tp_q_range_problem(NAN, 1) != NULL);
    CHECK(tp_q_range_problem(0, INFINITY) != NULL);
}

int main(void)
{
    RUN(test_float_to_quantized);
    RUN(test_quantized_to_float);
    RUN(test_dequantize_eigen);
    RUN(test_quantize_eigen);
    RUN(test_many_forms_match);
    RUN(test_requantize);
    RUN(test_requantize_matches_float_path);
    RUN(test_widen);
    RUN(test_range_problems);
    return check_summary();
}
