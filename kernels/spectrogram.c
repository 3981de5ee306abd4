/* spectrogram.c - AudioSpectrogram: audio [samples, channels] float to
 * [channels, frames, fft_length / 2 + 1], as TensorFlow's spectrogram.cc:
 * frame f covers samples [f * stride, f * stride + window_size), is
 * multiplied by a periodic Hann window 0.5 - 0.5 cos(2 pi i / window_size)
 * and zero-padded to fft_length, the next power of two >= window_size; the
 * output is |FFT|^2 computed in double and stored as float, or its square
 * root (taken in float) when magnitude_squared is false.
 * frames = 1 + (samples - window_size) / stride, or 0 for short audio. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/fft.h"
#include "kernel/kernel.h"

/* Longest window accepted (TF holds it in an int32). */
#define MAX_WINDOW_SIZE ((int64_t)1 << 24)

typedef struct spectrogram_state {
    tp_fft *fft;
    int64_t window_size, stride, fft_length;
    bool magnitude_squared;
    double *window;  /* [window_size] */
    double *re, *im; /* [fft_length] work buffers */
} spectrogram_state;

static void spectrogram_release(void *state)
{
    spectrogram_state *s = state;
    if (!s)
        return;
    tp_fft_free(s->fft);
    free(s->window);
    free(s->re);
    free(s->im);
    free(s);
}

static tfpi_code spectrogram_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_FLOAT);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0];
    char shape[96];
    if (in->ndims != 2)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must be 2-D [samples, channels], got shape %s",
                       tp_shape_string(in, shape, sizeof shape));
    const int64_t window_size = tp_attr_int(ctx->def, "window_size", 0), stride = tp_attr_int(ctx->def, "stride", 0);
    if (window_size < 2 || window_size > MAX_WINDOW_SIZE)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "window_size must be in 2..%lld, got %lld",
                       (long long)MAX_WINDOW_SIZE, (long long)window_size);
    if (stride < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "stride must be > 0, got %lld", (long long)stride);

    spectrogram_state *s = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    ctx->state = s;
    s->window_size = window_size;
    s->stride = stride;
    s->fft_length = tp_next_power_of_two(window_size);
    s->magnitude_squared = tp_attr_bool(ctx->def, "magnitude_squared", false);
    s->fft = tp_fft_new(s->fft_length);
    s->window = malloc((size_t)window_size * sizeof *s->window);
    s->re = malloc((size_t)s->fft_length * sizeof *s->re);
    s->im = malloc((size_t)s->fft_length * sizeof *s->im);
    if (!s->fft || !s->window || !s->re || !s->im)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for a %lld-point FFT",
                       (long long)s->fft_length);
    const double pi = acos(-1.0);
    for (int64_t i = 0; i < window_size; i++)
        s->window[i] = 0.5 - 0.5 * cos(2.0 * pi * (double)i / (double)window_size);

    const int64_t samples = in->dims[0];
    const int64_t frames = samples < window_size ? 0 : 1 + (samples - window_size) / stride;
    const int64_t dims[3] = {in->dims[1], frames, s->fft_length / 2 + 1};
    return tp_set_output(ctx, 0, TFPI_FLOAT, 3, dims);
}

/* One frame of one channel: `samples` points at its first sample, and
 * consecutive samples are `step` floats apart. */
static void transform_frame(spectrogram_state *s, const float *samples, int64_t step, float *out)
{
    for (int64_t i = 0; i < s->window_size; i++)
        s->re[i] = (double)samples[i * step] * s->window[i];
    memset(s->re + s->window_size, 0, (size_t)(s->fft_length - s->window_size) * sizeof *s->re);
    memset(s->im, 0, (size_t)s->fft_length * sizeof *s->im);
    tp_fft_forward(s->fft, s->re, s->im);
    for (int64_t k = 0; k <= s->fft_length / 2; k++) {
        const float power = (float)(s->re[k] * s->re[k] + s->im[k] * s->im[k]);
        out[k] = s->magnitude_squared ? power : sqrtf(power);
    }
}

static tfpi_code spectrogram_run(tp_op_ctx *ctx)
{
    spectrogram_state *s = ctx->state;
    const tfpi_tensor *in = ctx->inputs[0];
    const float *audio = in->data;
    float *out = ctx->outputs[0].data;
    const int64_t channels = ctx->outputs[0].dims[0], frames = ctx->outputs[0].dims[1];
    const int64_t bins = ctx->outputs[0].dims[2];
    for (int64_t c = 0; c < channels; c++)
        for (int64_t f = 0; f < frames; f++)
            transform_frame(s, audio + f * s->stride * channels + c, channels, out + (c * frames + f) * bins);
    return TFPI_OK;
}

const tp_kernel tp_kernels_spectrogram[] = {
    TP_KERNEL("AudioSpectrogram", spectrogram_prepare, spectrogram_run, spectrogram_release, 0),
    TP_KERNELS_END,
};
