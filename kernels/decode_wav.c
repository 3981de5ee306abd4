/* decode_wav.c - DecodeWav: the bytes of a 16-bit PCM WAV file (a string
 * scalar) to float samples [samples, channels] (int16 / 32768) and the
 * sample rate (int32 scalar), as TensorFlow's wav_io reads them.
 *
 * The RIFF chunks are walked with every length checked against the bytes
 * that remain, so a truncated or hostile file is an error naming the node:
 * chunks before "fmt " are skipped, the format must be PCM with 16 bits per
 * sample, and exactly one "data" chunk may appear among the chunks after it.
 * Fewer than 8 bytes after the last chunk are ignored.
 *
 * desired_samples / desired_channels of -1 keep the file's count; otherwise
 * missing samples are zeros, extra samples are dropped, missing channels
 * repeat the file's last channel and extra channels are dropped. With a -1
 * the output shape depends on the bytes, so the WAV must be known while
 * planning (tfpi plans string feeds with their contents). */
#include <stdio.h>
#include <string.h>

#include "kernel/kernel.h"

/* The largest output accepted, in samples (TF counts them in int32). */
#define MAX_OUTPUT_SAMPLES ((int64_t)INT32_MAX)

typedef struct wav_audio {
    uint16_t channels;
    uint32_t sample_rate;
    uint32_t frames;    /* samples per channel */
    const uint8_t *pcm; /* frames * channels little-endian int16 */
} wav_audio;

typedef struct wav_reader {
    const uint8_t *data;
    size_t size, offset;
} wav_reader;

static uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static int get_s16(const uint8_t *p)
{
    const int v = get_u16(p);
    return v >= 0x8000 ? v - 0x10000 : v;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A four-byte chunk tag for messages: 'fmt ' if printable, else hex. */
static const char *tag_text(const uint8_t *tag, char *buf, size_t size)
{
    bool printable = true;
    for (int i = 0; i < 4; i++)
        printable = printable && tag[i] >= 0x20 && tag[i] < 0x7f;
    if (printable)
        snprintf(buf, size, "'%c%c%c%c'", tag[0], tag[1], tag[2], tag[3]);
    else
        snprintf(buf, size, "0x%02x%02x%02x%02x", tag[0], tag[1], tag[2], tag[3]);
    return buf;
}

/* Takes the next n bytes, or fails naming what was being read. */
static tfpi_code take(tp_op_ctx *ctx, wav_reader *r, size_t n, const char *what, const uint8_t **out)
{
    if (r->size - r->offset < n)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "truncated WAV: the %s needs %zu bytes at offset %zu, but only %zu remain", what, n,
                       r->offset, r->size - r->offset);
    *out = r->data + r->offset;
    r->offset += n;
    return TFPI_OK;
}

static tfpi_code expect_tag(tp_op_ctx *ctx, wav_reader *r, const char *tag, const char *what)
{
    const uint8_t *p = NULL;
    tfpi_code code = take(ctx, r, 4, what, &p);
    if (code != TFPI_OK)
        return code;
    char found[16];
    if (memcmp(p, tag, 4) != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "not a WAV file: expected '%s' at offset %zu, found %s",
                       tag, r->offset - 4, tag_text(p, found, sizeof found));
    return TFPI_OK;
}

/* Skips up to n bytes; false if fewer than n remained. */
static bool skip(wav_reader *r, size_t n)
{
    const size_t left = r->size - r->offset;
    r->offset += n < left ? n : left;
    return n <= left;
}

/* Reads a chunk header: its tag and the size of its body. */
static tfpi_code read_chunk_header(tp_op_ctx *ctx, wav_reader *r, const uint8_t **tag, uint32_t *size)
{
    const uint8_t *header = NULL;
    tfpi_code code = take(ctx, r, 8, "chunk header", &header);
    if (code != TFPI_OK)
        return code;
    *tag = header;
    *size = get_u32(header + 4);
    return TFPI_OK;
}

/* Checks the "fmt " chunk body and fills channels and sample_rate. */
static tfpi_code read_format(tp_op_ctx *ctx, wav_reader *r, uint32_t size, wav_audio *audio)
{
    if (size != 16 && size != 18)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "bad WAV format chunk size %u (expected 16 or 18)", size);
    const uint8_t *f = NULL;
    tfpi_code code = take(ctx, r, size, "format chunk", &f);
    if (code != TFPI_OK)
        return code;
    const uint16_t format = get_u16(f), channels = get_u16(f + 2);
    const uint32_t sample_rate = get_u32(f + 4), bytes_per_second = get_u32(f + 8);
    const uint16_t block_align = get_u16(f + 12), bits = get_u16(f + 14);
    if (format != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV audio format is %u; only PCM (1) is supported",
                       format);
    if (channels < 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV header has %u channels; at least 1 is needed",
                       channels);
    if (bits != 16)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV has %u bits per sample; only 16 is supported", bits);
    if (block_align != 2u * channels)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "bad WAV header: %u bytes per frame for %u 16-bit channels (expected %u)", block_align,
                       channels, 2u * channels);
    if ((uint64_t)bytes_per_second != (uint64_t)block_align * sample_rate)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "bad WAV header: %u bytes per second, expected %llu (sample rate %u, %u bytes per "
                       "frame)",
                       bytes_per_second, (unsigned long long)block_align * sample_rate, sample_rate,
                       block_align);
    audio->channels = channels;
    audio->sample_rate = sample_rate;
    return TFPI_OK;
}

/* Walks the chunks after "fmt " and points audio at the one data chunk. */
static tfpi_code find_data(tp_op_ctx *ctx, wav_reader *r, wav_audio *audio)
{
    bool found = false;
    while (r->size - r->offset >= 8) {
        const uint8_t *tag = NULL;
        uint32_t size = 0;
        tfpi_code code = read_chunk_header(ctx, r, &tag, &size);
        if (code != TFPI_OK)
            return code;
        char tag_buf[16];
        if (size > INT32_MAX)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV chunk %s is too large: %u bytes",
                           tag_text(tag, tag_buf, sizeof tag_buf), size);
        if (memcmp(tag, "data", 4) == 0) {
            if (found)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV has more than one data chunk");
            found = true;
            const size_t frame_bytes = 2u * audio->channels;
            audio->frames = size / (uint32_t)frame_bytes;
            const size_t pcm_bytes = audio->frames * frame_bytes;
            if ((code = take(ctx, r, pcm_bytes, "data chunk", &audio->pcm)) != TFPI_OK)
                return code;
            skip(r, size - pcm_bytes); /* a partial last frame */
        } else {
            skip(r, size); /* chunks may run past the end: TF ignores them too */
        }
    }
    if (!found)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "WAV has no data chunk");
    return TFPI_OK;
}

/* Parses the WAV in input 0 (known) without converting the samples. */
static tfpi_code parse_wav(tp_op_ctx *ctx, wav_audio *audio)
{
    const tfpi_bytes *contents = ctx->inputs[0]->data;
    wav_reader r = {.data = contents->data, .size = contents->size};
    *audio = (wav_audio){0};
    tfpi_code code;
    if ((code = expect_tag(ctx, &r, "RIFF", "RIFF header")) != TFPI_OK)
        return code;
    const uint8_t *riff_size = NULL; /* not checked, as in TF */
    if ((code = take(ctx, &r, 4, "RIFF size", &riff_size)) != TFPI_OK ||
        (code = expect_tag(ctx, &r, "WAVE", "RIFF type")) != TFPI_OK)
        return code;
    for (;;) {
        const uint8_t *tag = NULL;
        uint32_t size = 0;
        if ((code = read_chunk_header(ctx, &r, &tag, &size)) != TFPI_OK)
            return code;
        if (memcmp(tag, "fmt ", 4) == 0) {
            code = read_format(ctx, &r, size, audio);
            break;
        }
        char tag_buf[16];
        if (!skip(&r, size))
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                           "truncated WAV: chunk %s runs past the end before any 'fmt ' chunk",
                           tag_text(tag, tag_buf, sizeof tag_buf));
    }
    return code == TFPI_OK ? find_data(ctx, &r, audio) : code;
}

/* The output size for an attr value: the file's count for -1. */
static int64_t output_count(int64_t desired, int64_t in_file)
{
    return desired == -1 ? in_file : desired;
}

static tfpi_code decode_wav_prepare(tp_op_ctx *ctx)
{
    tfpi_code code = tp_expect_one_input(ctx, TFPI_STRING);
    if (code != TFPI_OK)
        return code;
    char shape[96];
    if (ctx->inputs[0]->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "contents must be a scalar string, got shape %s",
                       tp_shape_string(ctx->inputs[0], shape, sizeof shape));
    const int64_t desired_samples = tp_attr_int(ctx->def, "desired_samples", -1);
    const int64_t desired_channels = tp_attr_int(ctx->def, "desired_channels", -1);
    if (desired_samples < -1 || desired_channels < -1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                       "desired_samples (%lld) and desired_channels (%lld) must be >= -1",
                       (long long)desired_samples, (long long)desired_channels);
    wav_audio audio = {0};
    if (desired_samples == -1 || desired_channels == -1) {
        if (!ctx->inputs[0]->data)
            return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                           "desired_samples or desired_channels is -1, so the output shape depends on the "
                           "WAV data, which is not known while planning");
        if ((code = parse_wav(ctx, &audio)) != TFPI_OK)
            return code;
    }
    const int64_t dims[2] = {output_count(desired_samples, audio.frames),
                             output_count(desired_channels, audio.channels)};
    if (dims[1] != 0 && dims[0] > MAX_OUTPUT_SAMPLES / dims[1])
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "output of %lld samples x %lld channels is too large",
                       (long long)dims[0], (long long)dims[1]);
    if ((code = tp_set_output(ctx, 0, TFPI_FLOAT, 2, dims)) != TFPI_OK || ctx->num_outputs < 2)
        return code;
    return tp_set_output(ctx, 1, TFPI_INT32, 0, NULL);
}

static tfpi_code decode_wav_run(tp_op_ctx *ctx)
{
    wav_audio audio;
    tfpi_code code = parse_wav(ctx, &audio);
    if (code != TFPI_OK)
        return code;
    const int64_t samples = ctx->outputs[0].dims[0], channels = ctx->outputs[0].dims[1];
    float *out = ctx->outputs[0].data;
    const int64_t decoded = samples < audio.frames ? samples : audio.frames;
    for (int64_t s = 0; s < decoded; s++) {
        const uint8_t *frame = audio.pcm + 2 * s * audio.channels;
        for (int64_t c = 0; c < channels; c++) {
            const int64_t source_channel = c < audio.channels ? c : audio.channels - 1;
            out[s * channels + c] = (float)get_s16(frame + 2 * source_channel) * (1.0f / 32768.0f);
        }
    }
    memset(out + decoded * channels, 0, (size_t)((samples - decoded) * channels) * sizeof *out);
    if (ctx->num_outputs > 1)
        *(int32_t *)ctx->outputs[1].data = (int32_t)audio.sample_rate;
    return TFPI_OK;
}

const tp_kernel tp_kernels_decode_wav[] = {
    TP_KERNEL("DecodeWav", decode_wav_prepare, decode_wav_run, NULL, TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
