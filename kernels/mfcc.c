/* mfcc.c - Mfcc: spectrogram [channels, frames, bins] (squared magnitudes)
 * and sample_rate (int32 scalar) to [channels, frames, dct_coefficient_count]
 * mel-frequency cepstral coefficients, computed in double as TensorFlow's
 * mfcc.cc, mfcc_mel_filterbank.cc and mfcc_dct.cc do:
 *
 * 1. Mel filterbank (mel(f) = 1127 ln(1 + f / 700)): filterbank_channel_count
 *    + 1 centres spaced evenly in mel from lower_frequency_limit, at
 *    mel_low + spacing * (i + 1), spacing = (mel_high - mel_low) / (count + 1).
 *    Bin i has frequency i * sample_rate / 2 / (bins - 1); bins from
 *    (int)(1.5 + lower / hz_per_bin) to (int)(upper / hz_per_bin) take part.
 *    Each maps to the last channel whose centre lies below its mel value
 *    (-1 if none) and gives that channel weight * sqrt(power) and the next
 *    one (1 - weight) * sqrt(power), where weight falls linearly from 1 at
 *    the channel's centre to 0 at the next centre (the first partial band
 *    measures from mel_low).
 * 2. ln(max(value, 1e-12)) per channel.
 * 3. DCT-II: c_k = sqrt(2 / N) sum_j x_j cos(pi k (j + 0.5) / N), N = count.
 *
 * The filterbank depends on the sample rate, an input usually computed at
 * run time (DecodeWav), so it is rebuilt whenever the rate changes. Unlike
 * TensorFlow, which outputs zeros when upper_frequency_limit is above the
 * Nyquist frequency, this is an error. */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel.h"

#define FILTERBANK_FLOOR 1e-12

typedef struct mfcc_state {
    int64_t bins;         /* spectrogram bins per frame */
    int64_t channels;     /* filterbank_channel_count */
    int64_t coefficients; /* dct_coefficient_count */
    double lower_limit, upper_limit;
    int32_t sample_rate; /* the filterbank's rate; 0 = not built */
    int64_t first_bin, last_bin;
    int64_t *band_of_bin;  /* [bins]: channel on the falling side, -1 = first rising side only */
    double *weight_of_bin; /* [bins] */
    double *cosines;       /* [coefficients][channels], scaled by sqrt(2 / channels) */
    double *mel;           /* [channels] work buffer */
} mfcc_state;

static void mfcc_release(void *state)
{
    mfcc_state *s = state;
    if (!s)
        return;
    free(s->band_of_bin);
    free(s->weight_of_bin);
    free(s->cosines);
    free(s->mel);
    free(s);
}

static double freq_to_mel(double freq)
{
    return 1127.0 * log1p(freq / 700.0);
}

/* The mel centre of channel c in [0, channels]; the last one only bounds
 * the last channel's band. */
static double centre(double mel_low, double spacing, int64_t c)
{
    return mel_low + spacing * (double)(c + 1);
}

/* Builds the filterbank for sample_rate (TF's MfccMelFilterbank::Initialize). */
static tfpi_code build_filterbank(tp_op_ctx *ctx, mfcc_state *s, int32_t sample_rate)
{
    if (sample_rate <= 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sample_rate must be positive, got %d", sample_rate);
    const double hz_per_bin = 0.5 * sample_rate / (double)(s->bins - 1);
    if (s->upper_limit / hz_per_bin >= (double)s->bins) /* (int) of it would be past the last bin */
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "upper_frequency_limit %g Hz is above the highest spectrogram frequency %g Hz "
                       "(sample rate %d)",
                       s->upper_limit, 0.5 * sample_rate, sample_rate);
    /* Both below bins now (lower < upper), so the conversions are safe. */
    const int64_t first = (int64_t)(1.5 + s->lower_limit / hz_per_bin);
    const int64_t last = (int64_t)(s->upper_limit / hz_per_bin);
    const double mel_low = freq_to_mel(s->lower_limit);
    const double spacing = (freq_to_mel(s->upper_limit) - mel_low) / (double)(s->channels + 1);
    int64_t channel = 0;
    for (int64_t i = 0; i < s->bins; i++) {
        const double mel = freq_to_mel((double)i * hz_per_bin);
        s->band_of_bin[i] = -2;
        s->weight_of_bin[i] = 0.0;
        if (i < first || i > last)
            continue;
        while (channel < s->channels && centre(mel_low, spacing, channel) < mel)
            channel++;
        const int64_t band = channel - 1;
        s->band_of_bin[i] = band;
        const double right = centre(mel_low, spacing, band + 1);
        const double left = band >= 0 ? centre(mel_low, spacing, band) : mel_low;
        s->weight_of_bin[i] = (right - mel) / (right - left);
    }
    s->first_bin = first;
    s->last_bin = last;
    s->sample_rate = sample_rate;
    return TFPI_OK;
}

static void build_dct(mfcc_state *s)
{
    const double norm = sqrt(2.0 / (double)s->channels);
    const double arg = acos(-1.0) / (double)s->channels;
    for (int64_t k = 0; k < s->coefficients; k++)
        for (int64_t j = 0; j < s->channels; j++)
            s->cosines[k * s->channels + j] = norm * cos((double)k * arg * ((double)j + 0.5));
}

static tfpi_code check_inputs(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 0, TFPI_FLOAT);
    if (code == TFPI_OK)
        code = tp_expect_dtype(ctx, 1, TFPI_INT32);
    if (code != TFPI_OK)
        return code;
    char shape[96];
    if (ctx->inputs[0]->ndims != 3)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "spectrogram must be 3-D [channels, frames, bins], got shape %s",
                       tp_shape_string(ctx->inputs[0], shape, sizeof shape));
    if (ctx->inputs[0]->dims[2] < 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "spectrogram needs at least 2 bins per frame, got %lld",
                       (long long)ctx->inputs[0]->dims[2]);
    if (ctx->inputs[1]->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "sample_rate must be a scalar, got shape %s",
                       tp_shape_string(ctx->inputs[1], shape, sizeof shape));
    return TFPI_OK;
}

static tfpi_code read_attrs(tp_op_ctx *ctx, mfcc_state *s)
{
    s->upper_limit = tp_attr_float(ctx->def, "upper_frequency_limit", 4000.0f);
    s->lower_limit = tp_attr_float(ctx->def, "lower_frequency_limit", 20.0f);
    s->channels = tp_attr_int(ctx->def, "filterbank_channel_count", 40);
    s->coefficients = tp_attr_int(ctx->def, "dct_coefficient_count", 13);
    if (s->channels < 1 || s->channels > (1 << 16))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "filterbank_channel_count must be in 1..65536, got %lld",
                       (long long)s->channels);
    if (s->coefficients < 1 || s->coefficients > s->channels)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "dct_coefficient_count must be in 1..filterbank_channel_count (%lld), got %lld",
                       (long long)s->channels, (long long)s->coefficients);
    if (!(s->lower_limit >= 0.0))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "lower_frequency_limit must be >= 0, got %g",
                       s->lower_limit);
    if (!(s->upper_limit > s->lower_limit))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "upper_frequency_limit (%g) must be above lower_frequency_limit (%g)", s->upper_limit,
                       s->lower_limit);
    return TFPI_OK;
}

static tfpi_code mfcc_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = check_inputs(ctx);
    if (code != TFPI_OK)
        return code;
    mfcc_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    if ((code = read_attrs(ctx, s)) != TFPI_OK)
        return code;
    const tfpi_tensor *spectrogram = ctx->inputs[0];
    s->bins = spectrogram->dims[2];
    s->band_of_bin = malloc((size_t)s->bins * sizeof *s->band_of_bin);
    s->weight_of_bin = malloc((size_t)s->bins * sizeof *s->weight_of_bin);
    s->cosines = malloc((size_t)(s->coefficients * s->channels) * sizeof *s->cosines);
    s->mel = malloc((size_t)s->channels * sizeof *s->mel);
    if (!s->band_of_bin || !s->weight_of_bin || !s->cosines || !s->mel)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    build_dct(s);
    if (ctx->inputs[1]->data &&
        (code = build_filterbank(ctx, s, *(const int32_t *)ctx->inputs[1]->data)) != TFPI_OK)
        return code;
    const int64_t dims[3] = {spectrogram->dims[0], spectrogram->dims[1], s->coefficients};
    return tp_set_output(ctx, 0, TFPI_FLOAT, 3, dims);
}

/* One frame: bins power values to coefficients values. */
static void mfcc_frame(mfcc_state *s, const float *power, float *out)
{
    for (int64_t c = 0; c < s->channels; c++)
        s->mel[c] = 0.0;
    for (int64_t i = s->first_bin; i <= s->last_bin; i++) {
        const double magnitude = sqrt((double)power[i]);
        const double weighted = magnitude * s->weight_of_bin[i];
        const int64_t band = s->band_of_bin[i];
        if (band >= 0)
            s->mel[band] += weighted; /* falling side of band's triangle */
        if (band + 1 < s->channels)
            s->mel[band + 1] += magnitude - weighted; /* rising side of the next */
    }
    for (int64_t c = 0; c < s->channels; c++)
        s->mel[c] = log(s->mel[c] < FILTERBANK_FLOOR ? FILTERBANK_FLOOR : s->mel[c]);
    for (int64_t k = 0; k < s->coefficients; k++) {
        const double *cosines = s->cosines + k * s->channels;
        double sum = 0.0;
        for (int64_t j = 0; j < s->channels; j++)
            sum += cosines[j] * s->mel[j];
        out[k] = (float)sum;
    }
}

static tfpi_code mfcc_run(tp_op_ctx *ctx)
{
    mfcc_state *s = ctx->state;
    const int32_t sample_rate = *(const int32_t *)ctx->inputs[1]->data;
    tfpi_code code;
    if (sample_rate != s->sample_rate && (code = build_filterbank(ctx, s, sample_rate)) != TFPI_OK)
        return code;
    const tfpi_tensor *spectrogram = ctx->inputs[0];
    const int64_t frames = spectrogram->dims[0] * spectrogram->dims[1];
    const float *power = spectrogram->data;
    float *out = ctx->outputs[0].data;
    for (int64_t f = 0; f < frames; f++)
        mfcc_frame(s, power + f * s->bins, out + f * s->coefficients);
    return TFPI_OK;
}

const tp_kernel tp_kernels_mfcc[] = {
    TP_KERNEL("Mfcc", mfcc_prepare, mfcc_run, mfcc_release, 0),
    TP_KERNELS_END,
};
