/* test_audio.c - DecodeWav, AudioSpectrogram and Mfcc, alone and as the
 * front end of the speech_commands model:
 *  - DecodeWav against the int16 samples read straight from yes.wav, and on
 *    WAVs built here (extra chunks, padding, truncation, channel repeat),
 *    fed and as a Const; hostile and malformed files must fail with an error
 *    naming the node;
 *  - AudioSpectrogram and Mfcc on yes.wav against numbers from an
 *    independent numpy implementation of TensorFlow's algorithms
 *    (tests/reference/audio_features.py, which printed the tables below);
 *  - AudioSpectrogram on a tiny input against a naive DFT written here;
 *  - conv_actions_frozen.pb on yes.wav must answer "yes" (index 2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "test_files.h"
#include "test_util.h"

#define YES_WAV "speech_commands/yes.wav"

/* ---- running graphs with a string feed ---------------------------------- */

/* Loads g (and frees it), feeds the string scalar `wav` = bytes when bytes
 * is not NULL, and fetches n tensors into out. */
static tfpi_code run_graph(gb_graph *g, const uint8_t *bytes, size_t size, const char *const *fetches, int n,
                           tfpi_tensor **out, tfpi_status *status)
{
    tfpi_tensor *feed = bytes ? op_string_tensor(bytes, size) : NULL;
    const char *feed_name = "wav";
    tfpi_code code = op_run_graph(g, bytes ? 1 : 0, &feed_name, &feed, n, fetches, out, 0, status);
    tfpi_tensor_free(feed);
    gb_free(g);
    return code;
}

static gb_graph *wav_graph(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "wav", TFPI_STRING, NULL, 0);
    return g;
}

static void add_decode_wav(gb_graph *g, const char *input, int64_t samples, int64_t channels)
{
    Tfpi__NodeDef *n = gb_node(g, "DecodeWav", "decoded", input, NULL);
    gd_attr_set_int(n, "desired_samples", samples);
    gd_attr_set_int(n, "desired_channels", channels);
}

static void add_spectrogram(gb_graph *g, int64_t window, int64_t stride, int magnitude_squared)
{
    Tfpi__NodeDef *n = gb_node(g, "AudioSpectrogram", "spectrogram", "decoded", NULL);
    gd_attr_set_int(n, "window_size", window);
    gd_attr_set_int(n, "stride", stride);
    gd_attr_set_bool(n, "magnitude_squared", magnitude_squared);
}

/* Mfcc with the op's defaults except the coefficient count. */
static void add_mfcc(gb_graph *g, const char *name, const char *rate, int64_t coefficients)
{
    Tfpi__NodeDef *n = gb_node(g, "Mfcc", name, "spectrogram", rate, NULL);
    gd_attr_set_float(n, "upper_frequency_limit", 4000);
    gd_attr_set_float(n, "lower_frequency_limit", 20);
    gd_attr_set_int(n, "filterbank_channel_count", 40);
    gd_attr_set_int(n, "dct_coefficient_count", coefficients);
}

static void check_shape(const tfpi_tensor *t, int ndims, const int64_t *dims)
{
    CHECK_EQ_INT(tfpi_tensor_ndims(t), ndims);
    for (int i = 0; i < ndims && i < tfpi_tensor_ndims(t); i++)
        CHECK_EQ_INT(tfpi_tensor_dim(t, i), dims[i]);
}

/* ---- WAV files built by the tests ---------------------------------------- */

typedef struct wav_writer {
    uint8_t bytes[512];
    size_t size;
} wav_writer;

static void put_bytes(wav_writer *w, const void *p, size_t n)
{
    memcpy(w->bytes + w->size, p, n);
    w->size += n;
}

static void put_u16(wav_writer *w, unsigned v)
{
    const uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put_bytes(w, b, 2);
}

static void put_u32(wav_writer *w, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put_bytes(w, b, 4);
}

/* A chunk header: tag and body size. */
static void put_chunk(wav_writer *w, const char *tag, uint32_t size)
{
    put_bytes(w, tag, 4);
    put_u32(w, size);
}

static void put_riff(wav_writer *w)
{
    put_chunk(w, "RIFF", 0); /* the RIFF size is not checked */
    put_bytes(w, "WAVE", 4);
}

static void put_format(wav_writer *w, unsigned format, unsigned channels, uint32_t rate, unsigned bits)
{
    const unsigned block_align = channels * bits / 8;
    put_chunk(w, "fmt ", 16);
    put_u16(w, format);
    put_u16(w, channels);
    put_u32(w, rate);
    put_u32(w, rate * block_align);
    put_u16(w, block_align);
    put_u16(w, bits);
}

static void put_samples(wav_writer *w, const int16_t *samples, uint32_t count)
{
    put_chunk(w, "data", count * 2);
    for (uint32_t i = 0; i < count; i++)
        put_u16(w, (uint16_t)samples[i]);
}

/* Stereo, 3 frames, with a JUNK chunk before "fmt ", a LIST chunk after the
 * data and 3 stray bytes at the end. */
static const int16_t stereo_samples[6] = {1000, -32768, -2000, 5, 32767, 0};

static wav_writer stereo_wav(void)
{
    wav_writer w = {.size = 0};
    put_riff(&w);
    put_chunk(&w, "JUNK", 4);
    put_u32(&w, 0);
    put_format(&w, 1, 2, 8000, 16);
    put_samples(&w, stereo_samples, 6);
    put_chunk(&w, "LIST", 6);
    put_bytes(&w, "abcdef", 6);
    put_bytes(&w, "xyz", 3);
    return w;
}

/* ---- DecodeWav ------------------------------------------------------------ */

static void test_decode_wav_yes(void)
{
    size_t size;
    uint8_t *bytes = read_test_file(testdata_path(YES_WAV), &size);
    if (!bytes)
        return;
    /* yes.wav: 44-byte header, then "data" with 16000 mono int16 samples. */
    CHECK(size == 44 + 32000 && memcmp(bytes + 36, "data", 4) == 0);
    gb_graph *g = wav_graph();
    add_decode_wav(g, "wav", -1, -1);
    const char *fetches[2] = {"decoded", "decoded:1"};
    tfpi_tensor *out[2] = {NULL, NULL};
    tfpi_status status;
    tfpi_code code = run_graph(g, bytes, size, fetches, 2, out, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    if (code == TFPI_OK) {
        check_shape(out[0], 2, (const int64_t[]){16000, 1});
        CHECK_EQ_INT(tfpi_tensor_dtype(out[1]), TFPI_INT32);
        CHECK_EQ_INT(tfpi_tensor_ndims(out[1]), 0);
        CHECK_EQ_INT(*(int32_t *)tfpi_tensor_data(out[1]), 16000);
        const float *audio = tfpi_tensor_data(out[0]);
        int mismatches = 0;
        for (int i = 0; i < 16000 && tfpi_tensor_num_elements(out[0]) == 16000; i++) {
            const int16_t sample = (int16_t)(bytes[44 + 2 * i] | bytes[45 + 2 * i] << 8);
            mismatches += audio[i] != sample / 32768.0f;
        }
        CHECK_EQ_INT(mismatches, 0);
    }
    tfpi_tensor_free(out[0]);
    tfpi_tensor_free(out[1]);
    free(bytes);
}

/* Decodes the stereo WAV with the given desired sizes, fed or as a Const. */
static tfpi_tensor *decode_stereo(int64_t samples, int64_t channels, int as_const)
{
    wav_writer w = stereo_wav();
    gb_graph *g = as_const ? gb_new() : wav_graph();
    if (as_const)
        gb_const_string(g, "wav", w.bytes, w.size);
    add_decode_wav(g, "wav", samples, channels);
    const char *fetch = "decoded";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    tfpi_code code = run_graph(g, as_const ? NULL : w.bytes, w.size, &fetch, 1, &out, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    return out;
}

static void test_decode_wav_sizes(void)
{
    const float scale = 1.0f / 32768;
    for (int as_const = 0; as_const <= 1; as_const++) {
        tfpi_tensor *all = decode_stereo(-1, -1, as_const);
        if (all) {
            check_shape(all, 2, (const int64_t[]){3, 2});
            const float *x = tfpi_tensor_data(all);
            for (int i = 0; i < 6 && tfpi_tensor_num_elements(all) == 6; i++)
                CHECK_MSG(x[i] == stereo_samples[i] * scale, "sample %d: %g", i, x[i]);
        }
        tfpi_tensor_free(all);
    }
    /* 5 samples x 3 channels: zeros after frame 3, channel 2 repeats channel 1. */
    tfpi_tensor *padded = decode_stereo(5, 3, 0);
    if (padded) {
        check_shape(padded, 2, (const int64_t[]){5, 3});
        const float want[15] = {1000 * scale,
                                -32768 * scale,
                                -32768 * scale,
                                -2000 * scale,
                                5 * scale,
                                5 * scale,
                                32767 * scale,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0};
        const float *x = tfpi_tensor_data(padded);
        for (int i = 0; i < 15 && tfpi_tensor_num_elements(padded) == 15; i++)
            CHECK_MSG(x[i] == want[i], "element %d: %g, want %g", i, x[i], want[i]);
    }
    tfpi_tensor_free(padded);
    /* 2 samples of the first channel only. */
    tfpi_tensor *cut = decode_stereo(2, 1, 1);
    if (cut) {
        check_shape(cut, 2, (const int64_t[]){2, 1});
        const float *x = tfpi_tensor_data(cut);
        CHECK(tfpi_tensor_num_elements(cut) == 2 && x[0] == 1000 * scale && x[1] == -2000 * scale);
    }
    tfpi_tensor_free(cut);
}

/* Decoding `bytes` must fail with a message naming the node and holding `phrase`. */
static void expect_wav_error(const uint8_t *bytes, size_t size, int64_t samples, const char *phrase)
{
    gb_graph *g = wav_graph();
    add_decode_wav(g, "wav", samples, 1);
    const char *fetch = "decoded";
    tfpi_tensor *out = NULL;
    tfpi_status status;
    tfpi_code code = run_graph(g, bytes, size, &fetch, 1, &out, &status);
    CHECK_MSG(code != TFPI_OK, "expected an error containing '%s'", phrase);
    if (code != TFPI_OK)
        CHECK_MSG(strstr(status.message, "node 'decoded' (DecodeWav)") && strstr(status.message, phrase),
                  "message '%s' should name the node and say '%s'", status.message, phrase);
    tfpi_tensor_free(out);
}

static void test_decode_wav_errors(void)
{
    size_t size;
    uint8_t *yes = read_test_file(testdata_path(YES_WAV), &size);
    if (!yes)
        return;
    expect_wav_error(yes, 30, 16000, "truncated WAV");
    expect_wav_error(yes, 1000, 16000, "truncated WAV: the data chunk needs 32000 bytes");
    expect_wav_error(yes, 0, 16000, "truncated WAV");
    expect_wav_error(yes, size, -2, "must be >= -1");
    free(yes);
    const char *text = "this is not a WAV file at all";
    expect_wav_error((const uint8_t *)text, strlen(text), -1, "not a WAV file: expected 'RIFF'");

    const int16_t one[1] = {7};
    wav_writer w = {.size = 0};
    put_riff(&w);
    put_format(&w, 1, 0, 16000, 16);
    put_samples(&w, one, 1);
    expect_wav_error(w.bytes, w.size, -1, "0 channels");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 1, 1, 16000, 8);
    put_samples(&w, one, 1);
    expect_wav_error(w.bytes, w.size, -1, "only 16 is supported");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 3, 1, 16000, 16);
    put_samples(&w, one, 1);
    expect_wav_error(w.bytes, w.size, -1, "only PCM");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 1, 1, 16000, 16);
    w.bytes[32] = 4; /* block align 4 for one 16-bit channel */
    put_samples(&w, one, 1);
    expect_wav_error(w.bytes, w.size, -1, "bytes per frame");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 1, 1, 16000, 16);
    put_samples(&w, one, 1);
    put_samples(&w, one, 1);
    expect_wav_error(w.bytes, w.size, -1, "more than one data chunk");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 1, 1, 16000, 16);
    put_chunk(&w, "LIST", 2);
    put_u16(&w, 0);
    expect_wav_error(w.bytes, w.size, -1, "no data chunk");

    w.size = 0;
    put_riff(&w);
    put_format(&w, 1, 1, 16000, 16);
    put_chunk(&w, "data", 0xfffffff0u);
    expect_wav_error(w.bytes, w.size, -1, "too large");

    w.size = 0;
    put_riff(&w);
    put_chunk(&w, "JUNK", 1000);
    put_format(&w, 1, 1, 16000, 16);
    expect_wav_error(w.bytes, w.size, -1, "runs past the end");
}

static void test_decode_wav_needs_scalar(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "wavs", TFPI_STRING, (const int64_t[]){2}, 1);
    add_decode_wav(g, "wavs", 10, 1);
    tfpi_status status;
    tfpi_tensor *feed = op_tensor(TFPI_STRING, (const int64_t[]){2}, 1, NULL), *out = NULL;
    const char *feed_name = "wavs", *fetch = "decoded";
    tfpi_code code = op_run_graph(g, 1, &feed_name, &feed, 1, &fetch, &out, 0, &status);
    gb_free(g);
    CHECK(code != TFPI_OK && strstr(status.message, "node 'decoded'") && strstr(status.message, "scalar string"));
    tfpi_tensor_free(out);
    tfpi_tensor_free(feed);
}

/* ---- AudioSpectrogram and Mfcc on yes.wav --------------------------------- */

/* From tests/reference/audio_features.py: the spectrogram (window 320,
 * stride 160, squared) of yes.wav at FRAMES x BINS, and Mfcc with 40
 * filterbank channels, 20..4000 Hz, for 13 coefficients and the last 8 of
 * 40 (the speech_commands configuration). */
static const int FRAMES[4] = {0, 1, 40, 98};
static const int BINS[6] = {0, 1, 7, 64, 200, 256};
static const float expected_power[][6] = {
    {0.000196907466, 0.00116770482, 0.203759968, 9.67258984e-07, 3.80861748e-05, 1.92903187e-08},
    {0.000613208977, 0.000938603072, 0.11503657, 4.74010477e-07, 1.79439376e-05, 2.03058015e-10},
    {0.00154288393, 0.00196733302, 4.67662358e-05, 0.000147712271, 0.000173087799, 1.21750124e-10},
    {0.000122229205, 1.63461045e-05, 0.000107967862, 1.25076485e-06, 2.41926472e-07, 1.9321908e-10},
};
static const float expected_mfcc40_tail[][8] = {
    {-0.0395147093, 0.208484247, -0.0784361362, -0.13602303, 0.134386674, -0.0444297679, 0.126354769,
     -0.289745897},
    {0.158849597, 0.0336233042, 0.0699910074, -0.392769039, -0.0613264516, -0.032179419, 0.107944585,
     -0.387491077},
    {-0.0373885557, -0.122765496, -0.0427511521, 0.206146896, 0.0009902108, -0.0340871029, -0.195524916,
     0.306024253},
    {-0.205823228, 0.480364531, 0.155312568, -0.361223012, -0.243958294, -0.118077263, -0.0771090537,
     -0.395215034},
};
static const float expected_mfcc13[][13] = {
    {-34.4418831, 5.30891228, 5.66626978, 0.779467881, -1.19782221, -0.419513285, -1.94505155, -0.085293591,
     -1.67005002, -0.818916559, 0.155882269, -1.62200332, -0.475989312},
    {-33.646965, 5.30142879, 5.36079025, 0.561717629, -1.42062879, -1.24128747, -1.93590534, 0.480080664,
     -0.556752801, -0.713193178, -0.409685701, -1.28176367, 0.680083811},
    {-31.8988285, -2.0142374, 2.62303829, 1.1736263, 1.37060368, 2.23404956, 1.67255604, 1.20160747,
     -0.499814987, -0.894460261, -1.04039335, 0.225141883, -0.388048232},
    {-44.5251846, 1.87589395, 3.14462304, 1.58747661, 0.314555526, 0.386862159, 0.863357008, 0.706720948,
     -0.256566226, -0.502113461, 0.0166741516, -0.324304551, -0.340459436},
};

static void test_features_yes(void)
{
    size_t size;
    uint8_t *bytes = read_test_file(testdata_path(YES_WAV), &size);
    if (!bytes)
        return;
    gb_graph *g = wav_graph();
    add_decode_wav(g, "wav", 16000, 1);
    add_spectrogram(g, 320, 160, 1);
    add_mfcc(g, "mfcc13", "decoded:1", 13);
    add_mfcc(g, "mfcc40", "decoded:1", 40);
    const char *fetches[3] = {"spectrogram", "mfcc13", "mfcc40"};
    tfpi_tensor *out[3] = {NULL, NULL, NULL};
    tfpi_status status;
    tfpi_code code = run_graph(g, bytes, size, fetches, 3, out, &status);
    CHECK_MSG(code == TFPI_OK, "%s", status.message);
    if (code == TFPI_OK) {
        check_shape(out[0], 3, (const int64_t[]){1, 99, 257});
        check_shape(out[1], 3, (const int64_t[]){1, 99, 13});
        check_shape(out[2], 3, (const int64_t[]){1, 99, 40});
    }
    if (code == TFPI_OK && tfpi_tensor_num_elements(out[0]) == 99 * 257 &&
        tfpi_tensor_num_elements(out[1]) == 99 * 13 && tfpi_tensor_num_elements(out[2]) == 99 * 40) {
        const float *power = tfpi_tensor_data(out[0]), *mfcc13 = tfpi_tensor_data(out[1]);
        const float *mfcc40 = tfpi_tensor_data(out[2]);
        for (int f = 0; f < 4; f++) {
            for (int b = 0; b < 6; b++)
                CHECK_NEAR(power[FRAMES[f] * 257 + BINS[b]], expected_power[f][b],
                           1e-6 * expected_power[f][b] + 1e-15);
            for (int k = 0; k < 13; k++)
                CHECK_NEAR(mfcc13[FRAMES[f] * 13 + k], expected_mfcc13[f][k], 2e-5);
            for (int k = 0; k < 8; k++)
                CHECK_NEAR(mfcc40[FRAMES[f] * 40 + 32 + k], expected_mfcc40_tail[f][k], 2e-5);
        }
    }
    for (int i = 0; i < 3; i++)
        tfpi_tensor_free(out[i]);
    free(bytes);
}

/* ---- AudioSpectrogram against a naive DFT ---------------------------------- */

/* |sum_j x[start + j] hann[j] exp(-2 pi i j k / n)|^2 for one channel of
 * interleaved audio, with the window zero-padded to n points. */
static double naive_power(const float *audio, int channels, int channel, int start, int window, int n, int k)
{
    const double pi = acos(-1.0);
    double re = 0, im = 0;
    for (int j = 0; j < window; j++) {
        const double hann = 0.5 - 0.5 * cos(2 * pi * j / window);
        const double x = audio[(start + j) * channels + channel] * hann;
        re += x * cos(2 * pi * j * k / n);
        im -= x * sin(2 * pi * j * k / n);
    }
    return re * re + im * im;
}

/* Feeds audio [samples, 2] into AudioSpectrogram and returns its output. */
static tfpi_tensor *spectrogram_of(const float *audio, int64_t samples, int64_t window, int64_t stride,
                                   int magnitude_squared)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "decoded", TFPI_FLOAT, (const int64_t[]){samples, 2}, 2);
    add_spectrogram(g, window, stride, magnitude_squared);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    gb_free(g);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK_MSG(session, "%s", status.message);
    tfpi_tensor *out =
        session ? run_float(session, "decoded", audio, (const int64_t[]){samples, 2}, 2, "spectrogram")
                : NULL;
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return out;
}

static void test_spectrogram_naive(void)
{
    float audio[11 * 2];
    for (int i = 0; i < 22; i++)
        audio[i] = (float)sin(0.7 * i) * (i % 2 ? 0.5f : 1.0f) + (float)(i % 5) * 0.1f;
    for (int squared = 0; squared <= 1; squared++) {
        /* window 5 -> 8-point FFT, 5 bins; frames 1 + (11 - 5) / 3 = 3 */
        tfpi_tensor *out = spectrogram_of(audio, 11, 5, 3, squared);
        if (!out)
            continue;
        check_shape(out, 3, (const int64_t[]){2, 3, 5});
        const float *y = tfpi_tensor_data(out);
        for (int c = 0; c < 2 && tfpi_tensor_num_elements(out) == 30; c++)
            for (int f = 0; f < 3; f++)
                for (int k = 0; k < 5; k++) {
                    const double power = naive_power(audio, 2, c, 3 * f, 5, 8, k);
                    const double want = squared ? power : sqrt(power);
                    CHECK_NEAR(y[(c * 3 + f) * 5 + k], want, 1e-6 * want + 1e-9);
                }
        tfpi_tensor_free(out);
    }
    /* A power-of-two window is its own FFT length; too little audio gives no frames. */
    tfpi_tensor *exact = spectrogram_of(audio, 11, 4, 4, 1);
    if (exact) {
        check_shape(exact, 3, (const int64_t[]){2, 2, 3});
        const float *y = tfpi_tensor_data(exact);
        if (tfpi_tensor_num_elements(exact) == 12)
            CHECK_NEAR(y[3 + 1], naive_power(audio, 2, 0, 4, 4, 4, 1), 1e-6);
    }
    tfpi_tensor_free(exact);
    tfpi_tensor *none = spectrogram_of(audio, 3, 4, 1, 1);
    if (none)
        check_shape(none, 3, (const int64_t[]){2, 0, 3});
    tfpi_tensor_free(none);
}

/* ---- errors of AudioSpectrogram and Mfcc ----------------------------------- */

/* Runs spectrogram [1, 3, 257] (fed zeros) through Mfcc with the sample rate
 * `rate` and the given attributes; expects an error naming the node. */
static void expect_mfcc_error(int32_t rate, float upper, int64_t coefficients, const char *phrase)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "spectrogram", TFPI_FLOAT, (const int64_t[]){1, 3, 257}, 3);
    gb_const(g, "rate", TFPI_INT32, NULL, 0, &rate);
    Tfpi__NodeDef *n = gb_node(g, "Mfcc", "mfcc", "spectrogram", "rate", NULL);
    gd_attr_set_float(n, "upper_frequency_limit", upper);
    gd_attr_set_int(n, "dct_coefficient_count", coefficients);
    tfpi_status status;
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, (const int64_t[]){1, 3, 257}, 3, NULL), *out = NULL;
    const char *feed = "spectrogram", *fetch = "mfcc";
    tfpi_code code = op_run_graph(g, 1, &feed, &in, 1, &fetch, &out, 0, &status);
    CHECK_MSG(code != TFPI_OK && strstr(status.message, "node 'mfcc' (Mfcc)") && strstr(status.message, phrase),
              "expected an error naming the node and saying '%s', got '%s'", phrase,
              code == TFPI_OK ? "success" : status.message);
    tfpi_tensor_free(in);
    tfpi_tensor_free(out);
    gb_free(g);
}

static void test_feature_errors(void)
{
    expect_mfcc_error(16000, 4000, 41, "dct_coefficient_count");
    expect_mfcc_error(16000, 9000, 13, "above the highest spectrogram frequency");
    expect_mfcc_error(0, 4000, 13, "sample_rate must be positive");
    expect_mfcc_error(16000, 10, 13, "must be above lower_frequency_limit");

    float audio[20] = {0};
    gb_graph *g = gb_new();
    gb_placeholder(g, "decoded", TFPI_FLOAT, (const int64_t[]){10, 2}, 2);
    add_spectrogram(g, 1, 1, 1);
    tfpi_status status;
    tfpi_tensor *in = op_tensor(TFPI_FLOAT, (const int64_t[]){10, 2}, 2, audio), *out = NULL;
    const char *feed = "decoded", *fetch = "spectrogram";
    tfpi_code code = op_run_graph(g, 1, &feed, &in, 1, &fetch, &out, 0, &status);
    gb_free(g);
    CHECK(code != TFPI_OK && strstr(status.message, "node 'spectrogram' (AudioSpectrogram)") &&
          strstr(status.message, "window_size"));
    tfpi_tensor_free(in);
    tfpi_tensor_free(out);
}

/* ---- the speech_commands model ---------------------------------------------- */

static void test_speech_commands_yes(void)
{
    size_t size;
    uint8_t *bytes = read_test_file(testdata_path(YES_WAV), &size);
    tfpi_graph *graph = load_graph_or_fail(testdata_path("speech_commands/conv_actions_frozen.pb"));
    tfpi_status status;
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    tfpi_tensor *feed = bytes ? tfpi_tensor_new(TFPI_STRING, NULL, 0, &status) : NULL;
    bool ready = session && feed && tfpi_tensor_set_string(feed, 0, bytes, size, &status) == TFPI_OK;
    CHECK_MSG(ready, "setup (%s, session, feed): %s", YES_WAV, graph ? status.message : "no graph");
    if (ready) {
        const char *feed_name = "wav_data", *fetch = "labels_softmax";
        for (int run = 0; run < 2; run++) { /* the second run reuses the plan */
            tfpi_tensor *out = NULL;
            tfpi_code code = tfpi_session_run(session, &feed_name, &feed, 1, &fetch, &out, 1, &status);
            CHECK_MSG(code == TFPI_OK, "run %d: %s", run, status.message);
            if (code == TFPI_OK) {
                check_shape(out, 2, (const int64_t[]){1, 12});
                CHECK_EQ_INT(argmax_f32(tfpi_tensor_data(out), 12), 2); /* "yes" */
            }
            tfpi_tensor_free(out);
        }
    }
    tfpi_tensor_free(feed);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    free(bytes);
}

int main(void)
{
    RUN(test_decode_wav_yes);
    RUN(test_decode_wav_sizes);
    RUN(test_decode_wav_errors);
    RUN(test_decode_wav_needs_scalar);
    RUN(test_features_yes);
    RUN(test_spectrogram_naive);
    RUN(test_feature_errors);
    RUN(test_speech_commands_yes);
    return check_summary();
}
