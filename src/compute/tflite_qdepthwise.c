/* tflite_qdepthwise.c - TFLite's quantized DEPTHWISE_CONV_2D with depth
 * multiplier 1 and known weights on NEON, 16 channels at a time (the
 * reference, tflite_qconv_ref.c, does the rest: other multipliers,
 * unknown weights, builds without NEON, channels past the last 16).
 * Taps outside the image read a row of input zero points, so every pixel
 * sums all its taps:
 *   int8  sum(x w) - zi sum(w) + bias: the last two terms per channel,
 *         made while planning; two products per 16-bit lane (smull, smlal:
 *         |x w| <= 128 x 127 twice fits) when no weight is -128, then added
 *         into 32 bits (saddw), else one product per lane;
 *   uint8 sum((x - zi)(w - zf)) + bias: x - zi widened to 16 bits, the
 *         weights stored as w - zf in 16 bits, smlal into 32.
 * Then TFLite's rescale, output zero point and clamp per channel, as in
 * the GEMM's epilogue (tflite_qgemm_neon.c). Work is split by output row. */
#include "compute/tflite_qconv.h"

#include <stdlib.h>
#include <string.h>

#if defined(__ARM_NEON)
#include <arm_neon.h>
#endif

/* Fixed loops unrolled, so that vectors stay in registers. */
#define UNROLL _Pragma("GCC unroll 16")

/* n rounded up to 16 (at least 16: what the kernels read past n). */
static int64_t round16(int64_t n) { return n > 0 ? (n + 15) / 16 * 16 : 16; }

/* The packed blocks of the 3 x 3 assembly path: per 16 channels, what its
 * loop reads in order (see dw3x3_blocks). */
enum { BLOCK_BYTES = 9 * 16 + 3 * 64 + 16 + 32 };

/* The dot product path's blocks (aarch64 with sdot, see dot_pixels): per
 * 16 channels, the weights of window column kx = 0, 1, 2 as four vectors
 * each, channel c's four bytes its taps of rows 0, 1, 2 and a zero; then
 * the column terms, mantissas and right shifts as int32, the output zero
 * point x 8 in int16, the clamp's low and high codes x 16. */
enum { DOT_BLOCK_BYTES = 3 * 64 + 3 * 64 + 16 + 32 };

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define DW_DOT 1
#endif

#if defined(__ARM_NEON)
/* The epilogue's part of a packed block at e: column terms, mantissas,
 * right shifts, output zero point, clamp. */
static void pack_epilogue(uint8_t *e, const tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, int64_t c0)
{
    memcpy(e, d->col_term + c0, 64);
    memcpy(e + 64, d->mantissa + c0, 64);
    memcpy(e + 128, d->right + c0, 64);
    const int16_t zero = (int16_t)q->output_zero;
    for (int i = 0; i < 8; i++)
        memcpy(e + 192 + 2 * i, &zero, 2);
    memset(e + 208, (uint8_t)q->act_min, 16);
    memset(e + 224, (uint8_t)q->act_max, 16);
}
#endif

#if defined(DW_DOT)
static bool pack_dot_blocks(tp_tflite_qdepthwise *d, const tp_tflite_qconv *q)
{
    const int64_t channels = q->geo.out_c, blocks = channels / 16;
    if (!(d->blocks = calloc((size_t)blocks, DOT_BLOCK_BYTES)))
        return false;
    const int8_t *w = d->weights;
    for (int64_t k = 0; k < blocks; k++) {
        int8_t *b = (int8_t *)d->blocks + k * DOT_BLOCK_BYTES;
        for (int kx = 0; kx < 3; kx++)
            for (int i = 0; i < 16; i++)
                for (int ky = 0; ky < 3; ky++)
                    b[64 * kx + 4 * i + ky] = w[(ky * 3 + kx) * channels + 16 * k + i];
        pack_epilogue((uint8_t *)b + 192, d, q, 16 * k);
    }
    d->dot = true;
    return true;
}
#endif

static bool pack_blocks(tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, tp_cpu cpu)
{
#if defined(__ARM_NEON)
    const tp_window_params *p = &q->geo;
    bool all_right = true;
    for (int64_t c = 0; c < p->out_c; c++)
        all_right = all_right && d->right[c] < 0;
    /* fewer than 16 channels: no block to pack (and no zero-byte allocation) */
    if (!(p->window_h == 3 && p->window_w == 3 && q->is_int8 && d->bias_known && !d->shift_left && all_right &&
          p->out_c >= 16))
        return true;
#if defined(DW_DOT)
    /* the A53 and A72 families keep theirs (and their tests); sqrdmlah is
     * armv8.1's, in every core with sdot */
    if (cpu.dotprod && cpu.core == TP_CPU_A76 && (getauxval(AT_HWCAP) & HWCAP_ASIMDRDM))
        return pack_dot_blocks(d, q);
#endif
    if (!d->pairs)
        return true;
    const int64_t blocks = p->out_c / 16;
    if (!(d->blocks = malloc((size_t)(blocks * BLOCK_BYTES))))
        return false;
    for (int64_t k = 0; k < blocks; k++) {
        uint8_t *b = d->blocks + k * BLOCK_BYTES;
        for (int t = 0; t < 9; t++)
            memcpy(b + 16 * t, (const int8_t *)d->weights + t * p->out_c + 16 * k, 16);
        pack_epilogue(b + 144, d, q, 16 * k);
    }
#else
    (void)d, (void)q;
#endif
    (void)cpu;
    return true;
}

bool tp_tflite_qdepthwise_plan(tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, const void *filter, bool bias_known,
                               tp_cpu cpu)
{
    const tp_window_params *p = &q->geo;
    const int64_t channels = p->out_c, taps = p->window_h * p->window_w, padded = round16(channels);
    *d = (tp_tflite_qdepthwise){0};
#if defined(__ARM_NEON)
    d->fast = filter && p->in_c == p->out_c && channels >= 16;
#endif
    if (!d->fast)
        return true;
    const uint8_t *w = filter;
    d->pairs = q->is_int8;
    for (int64_t i = 0; d->pairs && i < taps * channels; i++)
        d->pairs = w[i] != 0x80;
    d->weights = malloc(q->is_int8 ? (size_t)(taps * channels) : sizeof(int16_t) * (size_t)(taps * channels));
    d->col_term = calloc((size_t)padded, sizeof(int32_t));
    d->mantissa = calloc((size_t)padded, sizeof(int32_t));
    d->left = calloc((size_t)padded, sizeof(int32_t));
    d->right = calloc((size_t)padded, sizeof(int32_t));
    d->pad_row = malloc((size_t)padded);
    if (!d->weights || !d->col_term || !d->mantissa || !d->left || !d->right || !d->pad_row)
        return false;
    memset(d->pad_row, (uint8_t)q->input_zero, (size_t)padded);
    for (int64_t i = 0; i < taps * channels; i++) {
        if (q->is_int8)
            ((int8_t *)d->weights)[i] = (int8_t)w[i];
        else
            ((int16_t *)d->weights)[i] = (int16_t)(w[i] - q->filter_zero);
    }
    for (int64_t c = 0; c < channels; c++) {
        d->mantissa[c] = q->rescale[c].mantissa;
        d->left[c] = q->rescale[c].shift > 0 ? q->rescale[c].shift : 0;
        d->right[c] = q->rescale[c].shift > 0 ? 0 : q->rescale[c].shift;
        d->shift_left = d->shift_left || d->left[c] > 0;
    }
    d->bias_known = bias_known;
    if (bias_known)
        tp_tflite_qdepthwise_col_terms(d, q, filter, d->col_term);
    return pack_blocks(d, q, cpu);
}

void tp_tflite_qdepthwise_col_terms(const tp_tflite_qdepthwise *d, const tp_tflite_qconv *q, const void *filter,
                                    int32_t *col_term)
{
    const int64_t channels = q->geo.out_c, taps = q->geo.window_h * q->geo.window_w;
    (void)d;
    memset(col_term, 0, sizeof(int32_t) * (size_t)round16(channels));
    for (int64_t c = 0; c < channels; c++) {
        uint32_t sum = 0;
        for (int64_t t = 0; q->is_int8 && t < taps; t++)
            sum += (uint32_t)((const int8_t *)filter)[t * channels + c];
        col_term[c] = (int32_t)((q->bias ? (uint32_t)q->bias[c] : 0u) - (uint32_t)q->input_zero * sum);
    }
}

void tp_tflite_qdepthwise_free(tp_tflite_qdepthwise *d)
{
    free(d->weights);
    free(d->col_term);
    free(d->mantissa);
    free(d->left);
    free(d->right);
    free(d->pad_row);
    free(d->blocks);
    *d = (tp_tflite_qdepthwise){0};
}

#if defined(__ARM_NEON)
typedef struct dw_job {
    const tp_tflite_qconv *q;
    const tp_tflite_qdepthwise *d;
    const int32_t *col_term;
    const uint8_t *input, *filter;
    uint8_t *output;
    int failed;
} dw_job;

/* acc += taps t, t + 1 of 16 int8 channels: two products per 16-bit lane. */
static inline void pair16(int32x4_t *acc, const uint8_t *x0, const uint8_t *x1, const int8_t *w0, const int8_t *w1)
{
    const int8x16_t a = vld1q_s8((const int8_t *)x0), b = vld1q_s8((const int8_t *)x1);
    const int8x16_t u = vld1q_s8(w0), v = vld1q_s8(w1);
    int16x8_t lo = vmull_s8(vget_low_s8(a), vget_low_s8(u)), hi = vmull_s8(vget_high_s8(a), vget_high_s8(u));
    lo = vmlal_s8(lo, vget_low_s8(b), vget_low_s8(v));
    hi = vmlal_s8(hi, vget_high_s8(b), vget_high_s8(v));
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
    acc[1] = vaddw_s16(acc[1], vget_high_s16(lo));
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
    acc[3] = vaddw_s16(acc[3], vget_high_s16(hi));
}

/* acc += one tap of 16 int8 channels. */
static inline void single16(int32x4_t *acc, const uint8_t *x0, const int8_t *w0)
{
    const int8x16_t a = vld1q_s8((const int8_t *)x0), u = vld1q_s8(w0);
    const int16x8_t lo = vmull_s8(vget_low_s8(a), vget_low_s8(u)), hi = vmull_s8(vget_high_s8(a), vget_high_s8(u));
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
    acc[1] = vaddw_s16(acc[1], vget_high_s16(lo));
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
    acc[3] = vaddw_s16(acc[3], vget_high_s16(hi));
}

/* acc += one tap of 16 uint8 channels: (x - zi) (w - zf) in 16 x 16 bits. */
static inline void wide16(int32x4_t *acc, const uint8_t *x0, const int16_t *w0, uint8x8_t zero)
{
    const uint8x16_t a = vld1q_u8(x0);
    const int16x8_t lo = vreinterpretq_s16_u16(vsubl_u8(vget_low_u8(a), zero));
    const int16x8_t hi = vreinterpretq_s16_u16(vsubl_u8(vget_high_u8(a), zero));
    const int16x8_t wl = vld1q_s16(w0), wh = vld1q_s16(w0 + 8);
    acc[0] = vmlal_s16(acc[0], vget_low_s16(lo), vget_low_s16(wl));
    acc[1] = vmlal_s16(acc[1], vget_high_s16(lo), vget_high_s16(wl));
    acc[2] = vmlal_s16(acc[2], vget_low_s16(hi), vget_low_s16(wh));
    acc[3] = vmlal_s16(acc[3], vget_high_s16(hi), vget_high_s16(wh));
}

/* What the epilogue of every block of 16 channels shares. */
typedef struct dw_epilogue {
    int32x4_t zero, lo, hi;
} dw_epilogue;

/* 16 sums (channels c0...) to 16 codes: TFLite's rescale, the output zero
 * point, the clamp (in 32 bits, so the narrowing after it needs no
 * saturation: two unzips keep the low bytes). Each step runs over the four
 * vectors before the next, so an in-order core overlaps their latencies. */
static inline __attribute__((always_inline)) uint8x16_t codes16(int32x4_t *x, const tp_tflite_qdepthwise *d, int64_t c0, const dw_epilogue *e)
{
    if (d->shift_left)
        UNROLL for (int i = 0; i < 4; i++)
            x[i] = vshlq_s32(x[i], vld1q_s32(d->left + c0 + 4 * i));
    int32x4_t right[4];
    UNROLL for (int i = 0; i < 4; i++) {
        x[i] = vqrdmulhq_s32(x[i], vld1q_s32(d->mantissa + c0 + 4 * i));
        right[i] = vld1q_s32(d->right + c0 + 4 * i);
    }
    int32x4_t fix[4];
    UNROLL for (int i = 0; i < 4; i++)
        fix[i] = vshrq_n_s32(vandq_s32(x[i], right[i]), 31);
    UNROLL for (int i = 0; i < 4; i++)
        x[i] = vqaddq_s32(x[i], fix[i]);
    UNROLL for (int i = 0; i < 4; i++)
        x[i] = vrshlq_s32(x[i], right[i]);
    UNROLL for (int i = 0; i < 4; i++)
        x[i] = vminq_s32(vmaxq_s32(vaddq_s32(x[i], e->zero), e->lo), e->hi);
#if defined(__aarch64__)
    const int16x8_t h0 = vuzp1q_s16(vreinterpretq_s16_s32(x[0]), vreinterpretq_s16_s32(x[1]));
    const int16x8_t h1 = vuzp1q_s16(vreinterpretq_s16_s32(x[2]), vreinterpretq_s16_s32(x[3]));
    return vuzp1q_u8(vreinterpretq_u8_s16(h0), vreinterpretq_u8_s16(h1));
#else
    const int16x8_t h0 = vcombine_s16(vmovn_s32(x[0]), vmovn_s32(x[1]));
    const int16x8_t h1 = vcombine_s16(vmovn_s32(x[2]), vmovn_s32(x[3]));
    return vreinterpretq_u8_s8(vcombine_s8(vmovn_s16(h0), vmovn_s16(h1)));
#endif
}

/* One output pixel's channels [0, whole) in blocks of 16; tap t reads at
 * taps[t] + c (an input pixel or the row of zero points). */
static inline __attribute__((always_inline)) void pixel16(const dw_job *job, const uint8_t *const *taps,
                                                          int64_t ntaps, int64_t whole, uint8_t *out)
{
    const tp_tflite_qdepthwise *d = job->d;
    const int64_t channels = job->q->geo.out_c;
    const uint8x8_t zero = vdup_n_u8((uint8_t)job->q->input_zero);
    const dw_epilogue e = {vdupq_n_s32(job->q->output_zero), vdupq_n_s32(job->q->act_min),
                           vdupq_n_s32(job->q->act_max)};
    for (int64_t c0 = 0; c0 < whole; c0 += 16) {
        int32x4_t acc[4];
        UNROLL for (int i = 0; i < 4; i++)
            acc[i] = vld1q_s32(job->col_term + c0 + 4 * i);
        if (!job->q->is_int8) {
            UNROLL for (int64_t t = 0; t < ntaps; t++)
                wide16(acc, taps[t] + c0, (const int16_t *)d->weights + t * channels + c0, zero);
        } else if (d->pairs) {
            int64_t t = 0;
            UNROLL for (; t + 1 < ntaps; t += 2)
                pair16(acc, taps[t] + c0, taps[t + 1] + c0, (const int8_t *)d->weights + t * channels + c0,
                       (const int8_t *)d->weights + (t + 1) * channels + c0);
            if (t < ntaps)
                single16(acc, taps[t] + c0, (const int8_t *)d->weights + t * channels + c0);
        } else {
            UNROLL for (int64_t t = 0; t < ntaps; t++)
                single16(acc, taps[t] + c0, (const int8_t *)d->weights + t * channels + c0);
        }
        vst1q_u8(out + c0, codes16(acc, d, c0, &e));
    }
}

/* The same for 3 x 3 windows, the tap loops unrolled. */
static void pixel16_3x3(const dw_job *job, const uint8_t *const *taps, int64_t whole, uint8_t *out)
{
    pixel16(job, taps, 9, whole, out);
}

static void pixel16_any(const dw_job *job, const uint8_t *const *taps, int64_t ntaps, int64_t whole, uint8_t *out)
{
    pixel16(job, taps, ntaps, whole, out);
}

#if defined(__aarch64__)
/* The 3 x 3 int8 path of aarch64 (armv7's below; weights in [-127, 127], every rescale a
 * right shift, the bias known): one output pixel's blocks of 16 channels
 * in assembly, each block's weights and epilogue values read from its
 * packed block (BLOCK_BYTES: 9 taps x 16 weights, then 16 column terms,
 * mantissas and right shifts as int32, the output zero point x 8 in int16, the
 * clamp's low and high codes x 16). The four pairs of taps sum two
 * products per 16-bit lane (smull, smlal), the ninth one, then all are
 * added into the column terms (saddw); the rescale's rounding shift
 * subtracts one from negative values (all shifts are right shifts here:
 * one ssra, x + (x >> 31), which cannot wrap as sqrdmulh never gives
 * INT32_MIN), the sums narrowed to 16 bits with saturation, the output
 * zero point added with saturation (the same codes as adding it in 32
 * bits: a sum past the 16-bit range is past the clamp either way), then
 * narrowed to 8 bits and clamped. Registers: inputs v0-v8, weights v16-v24, sums v25-v28,
 * products v9-v15, v29-v31. */
#define WIDEN4(LO, HI) \
    "saddw v25.4s, v25.4s, v" #LO ".4h\n" "saddw2 v26.4s, v26.4s, v" #LO ".8h\n" \
    "saddw v27.4s, v27.4s, v" #HI ".4h\n" "saddw2 v28.4s, v28.4s, v" #HI ".8h\n"

static void dw3x3_blocks(const uint8_t *const *taps, int64_t shift, const uint8_t *blocks, int64_t count,
                         uint8_t *out)
{
    int64_t offset = shift;
    __asm__ volatile("1:\n"
                     "ldp q16, q17, [%[b]]\n"
                     "ldr q0, [%[t0], %[offset]]\n"
                     "ldr q1, [%[t1], %[offset]]\n"
                     "ldp q18, q19, [%[b], #32]\n"
                     "ldr q2, [%[t2], %[offset]]\n"
                     "ldr q3, [%[t3], %[offset]]\n"
                     "ldp q20, q21, [%[b], #64]\n"
                     "ldr q4, [%[t4], %[offset]]\n"
                     "ldr q5, [%[t5], %[offset]]\n"
                     "ldp q22, q23, [%[b], #96]\n"
                     "ldr q6, [%[t6], %[offset]]\n"
                     "ldr q7, [%[t7], %[offset]]\n"
                     "ldr q24, [%[b], #128]\n"
                     "ldr q8, [%[t8], %[offset]]\n"
                     "ldp q25, q26, [%[b], #144]\n"
                     "ldp q27, q28, [%[b], #176]\n"
                     "smull v9.8h, v0.8b, v16.8b\n" "smull2 v10.8h, v0.16b, v16.16b\n"
                     "smull v11.8h, v2.8b, v18.8b\n" "smull2 v12.8h, v2.16b, v18.16b\n"
                     "smull v13.8h, v4.8b, v20.8b\n" "smull2 v14.8h, v4.16b, v20.16b\n"
                     "smull v15.8h, v6.8b, v22.8b\n" "smull2 v29.8h, v6.16b, v22.16b\n"
                     "smlal v9.8h, v1.8b, v17.8b\n" "smlal2 v10.8h, v1.16b, v17.16b\n"
                     "smlal v11.8h, v3.8b, v19.8b\n" "smlal2 v12.8h, v3.16b, v19.16b\n"
                     "smlal v13.8h, v5.8b, v21.8b\n" "smlal2 v14.8h, v5.16b, v21.16b\n"
                     "smlal v15.8h, v7.8b, v23.8b\n" "smlal2 v29.8h, v7.16b, v23.16b\n"
                     "smull v30.8h, v8.8b, v24.8b\n" "smull2 v31.8h, v8.16b, v24.16b\n"
                     WIDEN4(9, 10) WIDEN4(11, 12) WIDEN4(13, 14) WIDEN4(15, 29) WIDEN4(30, 31)
                     "ldp q16, q17, [%[b], #208]\n"
                     "ldp q18, q19, [%[b], #240]\n"
                     "ldp q20, q21, [%[b], #272]\n"
                     "ldp q22, q23, [%[b], #304]\n"
                     "sqrdmulh v25.4s, v25.4s, v16.4s\n" "sqrdmulh v26.4s, v26.4s, v17.4s\n"
                     "sqrdmulh v27.4s, v27.4s, v18.4s\n" "sqrdmulh v28.4s, v28.4s, v19.4s\n"
                     "ldr q24, [%[b], #336]\n"
                     "ssra v25.4s, v25.4s, #31\n" "ssra v26.4s, v26.4s, #31\n"
                     "ldp q0, q1, [%[b], #352]\n"
                     "ssra v27.4s, v27.4s, #31\n" "ssra v28.4s, v28.4s, #31\n"
                     "srshl v25.4s, v25.4s, v20.4s\n" "srshl v26.4s, v26.4s, v21.4s\n"
                     "srshl v27.4s, v27.4s, v22.4s\n" "srshl v28.4s, v28.4s, v23.4s\n"
                     "sqxtn v25.4h, v25.4s\n" "sqxtn v27.4h, v27.4s\n"
                     "sqxtn2 v25.8h, v26.4s\n" "sqxtn2 v27.8h, v28.4s\n"
                     "sqadd v25.8h, v25.8h, v24.8h\n" "sqadd v27.8h, v27.8h, v24.8h\n"
                     "add %[offset], %[offset], #16\n"
                     "sqxtn v25.8b, v25.8h\n"
                     "add %[b], %[b], #384\n"
                     "sqxtn2 v25.16b, v27.8h\n"
                     "subs %[count], %[count], #1\n"
                     "smax v25.16b, v25.16b, v0.16b\n"
                     "smin v25.16b, v25.16b, v1.16b\n"
                     "str q25, [%[out]], #16\n"
                     "b.ne 1b\n"
                     : [b] "+r"(blocks), [count] "+r"(count), [offset] "+r"(offset), [out] "+r"(out)
                     : [t0] "r"(taps[0]), [t1] "r"(taps[1]), [t2] "r"(taps[2]), [t3] "r"(taps[3]),
                       [t4] "r"(taps[4]), [t5] "r"(taps[5]), [t6] "r"(taps[6]), [t7] "r"(taps[7]),
                       [t8] "r"(taps[8])
                     : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
                       "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
                       "v27", "v28", "v29", "v30", "v31", "cc", "memory");
}
#else
/* The same on armv7 (16 registers): the pairs of taps two at a time
 * (inputs q0, q1 and q4, q5, weights q2, q3 and q6, q7, pair sums q12-q15),
 * the first pair widened into the sums (vmovl), the column terms added
 * after the taps (the block's order), then the rescale, the narrowing, the
 * output zero point and the clamp as on aarch64. Sums q8-q11; the tap
 * pointers step on by 16 channels a block. */
#define PAIRS2(T0, T1, T2, T3) \
    "vld1.8 {d0-d1}, [%[t" #T0 "]]!\n" "vld1.8 {d2-d3}, [%[t" #T1 "]]!\n" "vld1.8 {d4-d7}, [%[b]]!\n" \
    "vld1.8 {d8-d9}, [%[t" #T2 "]]!\n" "vld1.8 {d10-d11}, [%[t" #T3 "]]!\n" "vld1.8 {d12-d15}, [%[b]]!\n" \
    "vmull.s8 q12, d0, d4\n" "vmull.s8 q13, d1, d5\n" "vmull.s8 q14, d8, d12\n" "vmull.s8 q15, d9, d13\n" \
    "vmlal.s8 q12, d2, d6\n" "vmlal.s8 q13, d3, d7\n" "vmlal.s8 q14, d10, d14\n" "vmlal.s8 q15, d11, d15\n"

static void dw3x3_blocks(const uint8_t *const *taps, int64_t shift, const uint8_t *blocks, int64_t count64,
                         uint8_t *out)
{
    const uint8_t *t0 = taps[0] + shift, *t1 = taps[1] + shift, *t2 = taps[2] + shift, *t3 = taps[3] + shift;
    const uint8_t *t4 = taps[4] + shift, *t5 = taps[5] + shift, *t6 = taps[6] + shift, *t7 = taps[7] + shift;
    const uint8_t *t8 = taps[8] + shift;
    int32_t count = (int32_t)count64;
    __asm__ volatile("1:\n"
                     PAIRS2(0, 1, 2, 3)
                     "vmovl.s16 q8, d24\n" "vmovl.s16 q9, d25\n" "vmovl.s16 q10, d26\n" "vmovl.s16 q11, d27\n"
                     "vaddw.s16 q8, q8, d28\n" "vaddw.s16 q9, q9, d29\n"
                     "vaddw.s16 q10, q10, d30\n" "vaddw.s16 q11, q11, d31\n"
                     PAIRS2(4, 5, 6, 7)
                     "vaddw.s16 q8, q8, d24\n" "vaddw.s16 q9, q9, d25\n"
                     "vaddw.s16 q10, q10, d26\n" "vaddw.s16 q11, q11, d27\n"
                     "vaddw.s16 q8, q8, d28\n" "vaddw.s16 q9, q9, d29\n"
                     "vaddw.s16 q10, q10, d30\n" "vaddw.s16 q11, q11, d31\n"
                     "vld1.8 {d0-d1}, [%[t8]]!\n" "vld1.8 {d4-d5}, [%[b]]!\n"
                     "vmull.s8 q12, d0, d4\n" "vmull.s8 q13, d1, d5\n"
                     "vld1.32 {d0-d3}, [%[b]]!\n" "vld1.32 {d4-d7}, [%[b]]!\n"
                     "vaddw.s16 q8, q8, d24\n" "vaddw.s16 q9, q9, d25\n"
                     "vaddw.s16 q10, q10, d26\n" "vaddw.s16 q11, q11, d27\n"
                     "vadd.i32 q8, q8, q0\n" "vadd.i32 q9, q9, q1\n" "vadd.i32 q10, q10, q2\n" "vadd.i32 q11, q11, q3\n"
                     "vld1.32 {d0-d3}, [%[b]]!\n" "vld1.32 {d4-d7}, [%[b]]!\n"
                     "vld1.32 {d8-d11}, [%[b]]!\n" "vld1.32 {d12-d15}, [%[b]]!\n"
                     "vqrdmulh.s32 q8, q8, q0\n" "vqrdmulh.s32 q9, q9, q1\n"
                     "vqrdmulh.s32 q10, q10, q2\n" "vqrdmulh.s32 q11, q11, q3\n"
                     "vld1.16 {d0-d1}, [%[b]]!\n" "vld1.8 {d2-d3}, [%[b]]!\n" "vld1.8 {d4-d5}, [%[b]]!\n"
                     "vsra.s32 q8, q8, #31\n" "vsra.s32 q9, q9, #31\n"
                     "vsra.s32 q10, q10, #31\n" "vsra.s32 q11, q11, #31\n"
                     "vrshl.s32 q8, q8, q4\n" "vrshl.s32 q9, q9, q5\n"
                     "vrshl.s32 q10, q10, q6\n" "vrshl.s32 q11, q11, q7\n"
                     "vqmovn.s32 d16, q8\n" "vqmovn.s32 d17, q9\n" "vqmovn.s32 d18, q10\n" "vqmovn.s32 d19, q11\n"
                     "vqadd.s16 q8, q8, q0\n" "vqadd.s16 q9, q9, q0\n"
                     "vqmovn.s16 d16, q8\n" "vqmovn.s16 d17, q9\n"
                     "vmax.s8 q8, q8, q1\n" "vmin.s8 q8, q8, q2\n"
                     "vst1.8 {d16-d17}, [%[out]]!\n"
                     "subs %[count], %[count], #1\n"
                     "bne 1b\n"
                     : [b] "+r"(blocks), [count] "+r"(count), [out] "+r"(out), [t0] "+r"(t0), [t1] "+r"(t1),
                       [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [t5] "+r"(t5), [t6] "+r"(t6), [t7] "+r"(t7),
                       [t8] "+r"(t8)
                     :
                     : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14",
                       "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28",
                       "d29", "d30", "d31", "cc", "memory");
}
#endif
_Static_assert(BLOCK_BYTES == 384, "the assembly steps by 384");

#if defined(DW_DOT)
/* The dot product path (aarch64 with sdot): for one output row and 16
 * channels, the window's three input rows are first laid out as columns
 * (dot_columns: per input column x, 64 bytes, channel c's four bytes its
 * rows 0, 1, 2 and row 2 again, which meets a zero weight), so that one
 * sdot adds a window column's three taps of four channels, and each input
 * column is laid out once for all the output pixels that read it. Then
 * dot_pixels runs along the row with the block's twelve weight vectors and
 * its epilogue values in registers: per pixel, the column terms, twelve
 * sdot, and the epilogue of dw3x3_blocks, but with the rounding shift's
 * fixup before the multiply, as the GEMM's dot tiles do it (cmlt, then
 * sqrdmlah adds the product to it: see tflite_qgemm_neon.c). Registers:
 * weights v0-v11, mantissas v12-v15, right shifts v16-v19, zero point
 * v20, clamp v21-v22, sums v23-v26, columns and the rescaled sums v27-v30. */
static void dot_columns(const uint8_t *const *rows, const int64_t *steps, int64_t count, uint8_t *dst)
{
    const uint8_t *r0 = rows[0], *r1 = rows[1], *r2 = rows[2];
    for (int64_t i = 0; i < count; i++, dst += 64) {
        const int8x16_t a = vld1q_s8((const int8_t *)r0), b = vld1q_s8((const int8_t *)r1);
        const int8x16_t c = vld1q_s8((const int8_t *)r2);
        const int16x8_t ab_lo = vreinterpretq_s16_s8(vzip1q_s8(a, b)), ab_hi = vreinterpretq_s16_s8(vzip2q_s8(a, b));
        const int16x8_t cc_lo = vreinterpretq_s16_s8(vzip1q_s8(c, c)), cc_hi = vreinterpretq_s16_s8(vzip2q_s8(c, c));
        vst1q_s16((int16_t *)dst, vzip1q_s16(ab_lo, cc_lo));
        vst1q_s16((int16_t *)(dst + 16), vzip2q_s16(ab_lo, cc_lo));
        vst1q_s16((int16_t *)(dst + 32), vzip1q_s16(ab_hi, cc_hi));
        vst1q_s16((int16_t *)(dst + 48), vzip2q_s16(ab_hi, cc_hi));
        r0 += steps[0], r1 += steps[1], r2 += steps[2];
    }
}

/* count output pixels of one block of 16 channels: pixel i's window
 * columns kx = 0, 1, 2 at col0, col1, col2 + i x step, its codes at
 * out + i x out_step. */
__attribute__((target("arch=armv8.2-a+dotprod"))) static void dot_pixels(const uint8_t *block, const uint8_t *col0,
                                                                        const uint8_t *col1, const uint8_t *col2,
                                                                        int64_t step, int64_t count, uint8_t *out,
                                                                        int64_t out_step)
{
#define DOT_COLUMN(P, W0, W1, W2, W3) \
    "ldp q27, q28, [%[" #P "]]\n" "ldp q29, q30, [%[" #P "], #32]\n" "add %[" #P "], %[" #P "], %[step]\n" \
    "sdot v23.4s, v27.16b, v" #W0 ".16b\n" "sdot v24.4s, v28.16b, v" #W1 ".16b\n" \
    "sdot v25.4s, v29.16b, v" #W2 ".16b\n" "sdot v26.4s, v30.16b, v" #W3 ".16b\n"
    __asm__ volatile("ldp q0, q1, [%[b]]\n" "ldp q2, q3, [%[b], #32]\n" "ldp q4, q5, [%[b], #64]\n"
                     "ldp q6, q7, [%[b], #96]\n" "ldp q8, q9, [%[b], #128]\n" "ldp q10, q11, [%[b], #160]\n"
                     "ldp q12, q13, [%[b], #256]\n" "ldp q14, q15, [%[b], #288]\n"
                     "ldp q16, q17, [%[b], #320]\n" "ldp q18, q19, [%[b], #352]\n"
                     "ldr q20, [%[b], #384]\n" "ldp q21, q22, [%[b], #400]\n"
                     "1:\n"
                     "ldp q23, q24, [%[b], #192]\n" "ldp q25, q26, [%[b], #224]\n"
                     DOT_COLUMN(c0, 0, 1, 2, 3) DOT_COLUMN(c1, 4, 5, 6, 7) DOT_COLUMN(c2, 8, 9, 10, 11)
                     "cmlt v27.4s, v23.4s, #0\n" "cmlt v28.4s, v24.4s, #0\n"
                     "cmlt v29.4s, v25.4s, #0\n" "cmlt v30.4s, v26.4s, #0\n"
                     "sqrdmlah v27.4s, v23.4s, v12.4s\n" "sqrdmlah v28.4s, v24.4s, v13.4s\n"
                     "sqrdmlah v29.4s, v25.4s, v14.4s\n" "sqrdmlah v30.4s, v26.4s, v15.4s\n"
                     "srshl v27.4s, v27.4s, v16.4s\n" "srshl v28.4s, v28.4s, v17.4s\n"
                     "srshl v29.4s, v29.4s, v18.4s\n" "srshl v30.4s, v30.4s, v19.4s\n"
                     "sqxtn v23.4h, v27.4s\n" "sqxtn v25.4h, v29.4s\n"
                     "sqxtn2 v23.8h, v28.4s\n" "sqxtn2 v25.8h, v30.4s\n"
                     "sqadd v23.8h, v23.8h, v20.8h\n" "sqadd v25.8h, v25.8h, v20.8h\n"
                     "sqxtn v23.8b, v23.8h\n" "sqxtn2 v23.16b, v25.8h\n"
                     "smax v23.16b, v23.16b, v21.16b\n" "smin v23.16b, v23.16b, v22.16b\n"
                     "str q23, [%[out]]\n" "add %[out], %[out], %[out_step]\n"
                     "subs %[count], %[count], #1\n"
                     "b.ne 1b\n"
                     : [c0] "+r"(col0), [c1] "+r"(col1), [c2] "+r"(col2), [count] "+r"(count), [out] "+r"(out)
                     : [b] "r"(block), [step] "r"(step), [out_step] "r"(out_step)
                     : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
                       "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
                       "v27", "v28", "v29", "v30", "cc", "memory");
#undef DOT_COLUMN
}
_Static_assert(DOT_BLOCK_BYTES == 432, "dot_pixels reads 432 bytes a block");

/* One output row (rows: the window's input rows, NULL outside the image)
 * of the dot path, channels [0, whole); columns: scratch of 64 bytes per
 * input column the row reads. */
static void dot_row(const dw_job *job, const uint8_t *const *rows, int64_t whole, uint8_t *columns, uint8_t *out)
{
    const tp_window_params *p = &job->q->geo;
    const int64_t first = -p->pad_left, count = (p->out_w - 1) * p->stride_w + 2 * p->dilation_w + 1;
    const int64_t begin = first < 0 ? (-first < count ? -first : count) : 0; /* left of the image */
    int64_t end = p->in_w - first < count ? p->in_w - first : count;         /* right of it from here */
    if (end < begin)
        end = begin;
    const uint8_t zero = (uint8_t)job->q->input_zero;
    for (int64_t c0 = 0; c0 < whole; c0 += 16) {
        const uint8_t *from[3];
        int64_t steps[3];
        for (int ky = 0; ky < 3; ky++) {
            from[ky] = rows[ky] ? rows[ky] + (first + begin) * p->in_c + c0 : job->d->pad_row + c0;
            steps[ky] = rows[ky] ? p->in_c : 0;
        }
        memset(columns, zero, (size_t)(64 * begin));
        dot_columns(from, steps, end - begin, columns + 64 * begin);
        memset(columns + 64 * end, zero, (size_t)(64 * (count - end)));
        const int64_t dil = 64 * p->dilation_w;
        dot_pixels(job->d->blocks + c0 / 16 * DOT_BLOCK_BYTES, columns, columns + dil, columns + 2 * dil,
                   64 * p->stride_w, p->out_w, out + c0, p->out_c);
    }
}
#endif


/* Channels [whole, channels) of one output pixel, one at a time. */
static void pixel_tail(const dw_job *job, const uint8_t *const *taps, int64_t ntaps, int64_t whole, uint8_t *out)
{
    const tp_tflite_qconv *q = job->q;
    const int64_t channels = q->geo.out_c;
    for (int64_t c = whole; c < channels; c++) {
        uint32_t acc = (uint32_t)job->col_term[c];
        for (int64_t t = 0; t < ntaps; t++) {
            const uint8_t x = taps[t][c];
            if (q->is_int8)
                acc += (uint32_t)((int8_t)x * ((const int8_t *)job->d->weights)[t * channels + c]);
            else
                acc += (uint32_t)((x - q->input_zero) * ((const int16_t *)job->d->weights)[t * channels + c]);
        }
        out[c] = (uint8_t)tp_tflite_requantize((int32_t)acc, q->rescale[c], q->output_zero, q->act_min, q->act_max);
    }
}

/* One output pixel's tap pointers: its input pixels, or the row of zero
 * points where a tap falls outside the image (rows: the window's input
 * rows, NULL outside). */
static void pixel_taps(const tp_window_params *p, const uint8_t *const *rows, int64_t ox, const uint8_t *pad,
                       const uint8_t **taps)
{
    for (int64_t kx = 0; kx < p->window_w; kx++) {
        const int64_t x = ox * p->stride_w - p->pad_left + kx * p->dilation_w;
        const bool inside = x >= 0 && x < p->in_w;
        for (int64_t ky = 0; ky < p->window_h; ky++)
            taps[ky * p->window_w + kx] = inside && rows[ky] ? rows[ky] + x * p->in_c : pad;
    }
}

/* The window's input rows of output row `row` (batch x out_h), NULL
 * outside the image; true if all lie inside. */
static inline bool window_rows(const dw_job *job, int64_t row, const uint8_t **rows)
{
    const tp_window_params *p = &job->q->geo;
    const int64_t b = row / p->out_h, oy = row % p->out_h;
    bool inside = true;
    for (int64_t ky = 0; ky < p->window_h; ky++) {
        const int64_t y = oy * p->stride_h - p->pad_top + ky * p->dilation_h;
        rows[ky] = y < 0 || y >= p->in_h ? NULL : job->input + (b * p->in_h + y) * p->in_w * p->in_c;
        inside = inside && rows[ky];
    }
    return inside;
}

static void dw_rows(void *arg, int64_t begin, int64_t end)
{
    dw_job *job = arg;
    const tp_window_params *p = &job->q->geo;
    const int64_t ntaps = p->window_h * p->window_w, whole = p->out_c / 16 * 16;
    const bool blocks = job->d->blocks && whole > 0;
    const uint8_t **taps = malloc(sizeof *taps * (size_t)(ntaps + p->window_h));
    if (!taps) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    const uint8_t **rows = taps + ntaps;
    /* output columns whose window lies inside the image's width */
    const int64_t span = (p->window_w - 1) * p->dilation_w;
    int64_t first = (p->pad_left + p->stride_w - 1) / p->stride_w, last = p->out_w;
    if (p->in_w - 1 - span + p->pad_left < 0)
        last = first;
    else if ((p->in_w - 1 - span + p->pad_left) / p->stride_w + 1 < last)
        last = (p->in_w - 1 - span + p->pad_left) / p->stride_w + 1;
    for (int64_t row = begin; row < end; row++) {
        const bool rows_inside = window_rows(job, row, rows);
        int64_t shift = 0; /* tap t of this pixel: taps[t] + shift */
        for (int64_t ox = 0; ox < p->out_w; ox++) {
            /* recomputed at the borders, stepped along inside the image
             * (by the assembly's offset, else by moving the pointers) */
            if (!rows_inside || ox <= first || ox >= last) {
                pixel_taps(p, rows, ox, job->d->pad_row, taps);
                shift = 0;
            } else
                shift += p->stride_w * p->in_c;
            if (!blocks || whole < p->out_c) {
                for (int64_t t = 0; shift && t < ntaps; t++)
                    taps[t] += shift;
                shift = 0;
            }
            uint8_t *out = job->output + (row * p->out_w + ox) * p->out_c;
            if (blocks)
                dw3x3_blocks(taps, shift, job->d->blocks, whole / 16, out);
            else if (ntaps == 9)
                pixel16_3x3(job, taps, whole, out);
            else
                pixel16_any(job, taps, ntaps, whole, out);
            pixel_tail(job, taps, ntaps, whole, out);
        }
    }
    free(taps);
}

#if defined(DW_DOT)
/* dw_rows on the dot product path (3 x 3 windows): dot_row for the blocks
 * of 16 channels, then the tail's channels pixel by pixel. */
static void dot_rows(void *arg, int64_t begin, int64_t end)
{
    dw_job *job = arg;
    const tp_window_params *p = &job->q->geo;
    const int64_t whole = p->out_c / 16 * 16;
    const uint8_t *taps[9 + 3], **rows = taps + 9;
    uint8_t *columns = malloc((size_t)(64 * ((p->out_w - 1) * p->stride_w + 2 * p->dilation_w + 1)));
    if (!columns) {
        __atomic_store_n(&job->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (int64_t row = begin; row < end; row++) {
        window_rows(job, row, rows);
        uint8_t *out = job->output + row * p->out_w * p->out_c;
        dot_row(job, rows, whole, columns, out);
        for (int64_t ox = 0; whole < p->out_c && ox < p->out_w; ox++) {
            pixel_taps(p, rows, ox, job->d->pad_row, taps);
            pixel_tail(job, taps, 9, whole, out + ox * p->out_c);
        }
    }
    free(columns);
}
#endif

bool tp_tflite_qdepthwise_run(const tp_tflite_qconv *q, const tp_tflite_qdepthwise *d, const void *input,
                              const void *filter, void *output, tp_threadpool *pool)
{
    int32_t *col_term = NULL;
    if (!d->bias_known) {
        if (!(col_term = malloc(sizeof(int32_t) * (size_t)round16(q->geo.out_c))))
            return false;
        tp_tflite_qdepthwise_col_terms(d, q, filter, col_term);
    }
    dw_job job = {q, d, d->bias_known ? d->col_term : col_term, input, filter, output, 0};
#if defined(DW_DOT)
    tp_parallel_for(pool, q->geo.batch * q->geo.out_h, 1, d->dot ? dot_rows : dw_rows, &job);
#else
    tp_parallel_for(pool, q->geo.batch * q->geo.out_h, 1, dw_rows, &job);
#endif
    free(col_term);
    return !job.failed;
}
#else
bool tp_tflite_qdepthwise_run(const tp_tflite_qconv *q, const tp_tflite_qdepthwise *d, const void *input,
                              const void *filter, void *output, tp_threadpool *pool)
{
    (void)q, (void)d, (void)input, (void)filter, (void)output, (void)pool;
    return false;
}
#endif
