/* string_split.c - TensorFlow's tokenizing ops, as text classifiers use
 * them (tf.string_split, tf.strings.split, tf.strings.ngrams):
 *   StringSplit(input [N], delimiter): split at every byte that is one of
 *     delimiter's bytes (empty delimiter: into single bytes), empty tokens
 *     skipped unless skip_empty is false;
 *   StringSplitV2(input [N], sep; maxsplit): Python's str.split: at each
 *     occurrence of sep (empty tokens kept, "" gives [""]), or, with an
 *     empty sep, at runs of ASCII whitespace (none at either end, "" gives
 *     []); at most maxsplit splits, the rest the last token;
 *   both give a SparseTensor: indices int64 [M,2] (row, position), values
 *     string [M], dense_shape int64 [2] = [N, longest row];
 *   StringNGrams(data [M], data_splits [N+1]; separator, ngram_widths,
 *     left_pad, right_pad, pad_width, preserve_short_sequences): the
 *     n-grams of each row of a ragged tensor, for every width in turn, rows
 *     padded with pad_width (at most width - 1; -1: width - 1) pads at each
 *     side; a row too short for any n-gram gives one of the whole padded
 *     row when preserve_short_sequences. Gives the n-grams and their row
 *     splits.
 * Output sizes come from the values (the ops run on the dynamic executor);
 * every count and byte is checked against the memory budget first. Tokens
 * point into the input strings; n-grams are made in the kernel's state. */
#include <stdlib.h>
#include <string.h>

#include "core/checked_math.h"
#include "kernel/kernel.h"
#include "kernel/string_output.h"

static const tfpi_bytes *string_at(const tfpi_tensor *t, int64_t i) { return &((const tfpi_bytes *)t->data)[i]; }

/* ---- StringSplit, StringSplitV2 ---- */

typedef struct split_state {
    tfpi_bytes *tokens;
    int64_t *rows; /* row of each token */
    int64_t count, cap, rows_n, longest;
} split_state;

static void free_split(void *state)
{
    split_state *s = state;
    if (s) {
        free(s->tokens);
        free(s->rows);
    }
    free(s);
}

static tfpi_code add_token(tp_op_ctx *ctx, split_state *s, int64_t row, const uint8_t *data, size_t size)
{
    if (s->count == s->cap) {
        /* what each token costs in the outputs: two indices and a string */
        const int64_t per_token = 2 * (int64_t)sizeof(int64_t) + (int64_t)sizeof(tfpi_bytes);
        int64_t limit = ctx->max_bytes && ctx->max_bytes < INT64_MAX ? (int64_t)ctx->max_bytes / per_token : INT64_MAX / 64;
        if (s->count >= limit)
            return tp_expect_within_budget(ctx, tp_sat_add(s->count, 1), (size_t)per_token, "tokens");
        int64_t cap = s->cap ? (s->cap < limit / 2 ? 2 * s->cap : limit) : (limit < 64 ? limit : 64);
        tfpi_bytes *tokens = realloc(s->tokens, (size_t)cap * sizeof *tokens);
        if (tokens)
            s->tokens = tokens;
        int64_t *rows = tokens ? realloc(s->rows, (size_t)cap * sizeof *rows) : NULL;
        if (!rows)
            return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory for %lld tokens", (long long)cap);
        s->rows = rows;
        s->cap = cap;
    }
    s->tokens[s->count] = (tfpi_bytes){size, size ? data : (const uint8_t *)""};
    s->rows[s->count++] = row;
    return TFPI_OK;
}

/* StringSplit's tokens of one string. */
static tfpi_code split_any_byte(tp_op_ctx *ctx, split_state *s, int64_t row, const tfpi_bytes *in,
                                const tfpi_bytes *delimiter, bool skip_empty)
{
    tfpi_code code = TFPI_OK;
    if (delimiter->size == 0) {
        for (size_t i = 0; i < in->size && code == TFPI_OK; i++)
            code = add_token(ctx, s, row, in->data + i, 1);
        return code;
    }
    size_t start = 0;
    for (size_t i = 0; i <= in->size && code == TFPI_OK; i++) {
        if (i < in->size && !memchr(delimiter->data, in->data[i], delimiter->size))
            continue;
        if (i > start || !skip_empty)
            code = add_token(ctx, s, row, in->data + start, i - start);
        start = i + 1;
    }
    return code;
}

static bool is_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* StringSplitV2's tokens of one string. */
static tfpi_code split_python(tp_op_ctx *ctx, split_state *s, int64_t row, const tfpi_bytes *in,
                              const tfpi_bytes *sep, int64_t maxsplit)
{
    if (maxsplit == 0)
        return add_token(ctx, s, row, in->data, in->size);
    tfpi_code code = TFPI_OK;
    size_t at = 0;
    int64_t splits = 0;
    if (sep->size == 0) {
        while (at < in->size && is_space(in->data[at]))
            at++;
        while (at < in->size && code == TFPI_OK) {
            size_t end = at;
            while (end < in->size && !is_space(in->data[end]))
                end++;
            code = add_token(ctx, s, row, in->data + at, end - at);
            for (at = end; at < in->size && is_space(in->data[at]);)
                at++;
            if (code == TFPI_OK && maxsplit > 0 && ++splits == maxsplit)
                return at < in->size ? add_token(ctx, s, row, in->data + at, in->size - at) : code;
        }
        return code;
    }
    for (size_t i = 0; i + sep->size <= in->size && code == TFPI_OK;) {
        if (memcmp(in->data + i, sep->data, sep->size) != 0) {
            i++;
            continue;
        }
        code = add_token(ctx, s, row, in->data + at, i - at);
        at = i += sep->size;
        if (maxsplit > 0 && ++splits == maxsplit)
            break;
    }
    return code == TFPI_OK ? add_token(ctx, s, row, in->data + at, in->size - at) : code;
}

static tfpi_code split_prepare(tp_op_ctx *ctx)
{
    bool v2 = strcmp(ctx->def->op, "StringSplitV2") == 0;
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *in = ctx->inputs[0], *delimiter = ctx->inputs[1];
    if (in->dtype != TFPI_STRING || delimiter->dtype != TFPI_STRING)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "takes strings");
    if (in->ndims != 1)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "input must be a vector, has rank %d", in->ndims);
    if (delimiter->ndims != 0)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "%s must be a scalar, has rank %d", v2 ? "sep" : "delimiter",
                       delimiter->ndims);
    if (!in->data || !delimiter->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    free_split(ctx->state);
    split_state *s = ctx->state = calloc(1, sizeof *s);
    if (!s)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    int64_t maxsplit = tp_attr_int(ctx->def, "maxsplit", -1);
    bool skip_empty = tp_attr_bool(ctx->def, "skip_empty", true);
    for (int64_t r = 0; r < in->dims[0] && code == TFPI_OK; r++) {
        int64_t before = s->count;
        code = v2 ? split_python(ctx, s, r, string_at(in, r), string_at(delimiter, 0), maxsplit)
                  : split_any_byte(ctx, s, r, string_at(in, r), string_at(delimiter, 0), skip_empty);
        if (s->count - before > s->longest)
            s->longest = s->count - before;
    }
    int64_t index_dims[2] = {s->count, 2}, two = 2;
    if (code == TFPI_OK)
        code = tp_set_output(ctx, 0, TFPI_INT64, 2, index_dims);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, TFPI_STRING, 1, &s->count);
    if (code == TFPI_OK && ctx->num_outputs > 2)
        code = tp_set_output(ctx, 2, TFPI_INT64, 1, &two);
    return code;
}

static tfpi_code split_run(tp_op_ctx *ctx)
{
    const split_state *s = ctx->state;
    int64_t *indices = ctx->outputs[0].data;
    for (int64_t i = 0, position = 0; i < s->count; i++) {
        position = i > 0 && s->rows[i] == s->rows[i - 1] ? position + 1 : 0;
        indices[2 * i] = s->rows[i];
        indices[2 * i + 1] = position;
    }
    if (ctx->num_outputs > 1 && s->count)
        memcpy(ctx->outputs[1].data, s->tokens, (size_t)s->count * sizeof *s->tokens);
    if (ctx->num_outputs > 2) {
        int64_t *shape = ctx->outputs[2].data;
        shape[0] = ctx->inputs[0]->dims[0];
        shape[1] = s->longest;
    }
    return TFPI_OK;
}

/* ---- StringNGrams ---- */

typedef struct ngrams_node {
    tfpi_bytes separator, left_pad, right_pad;
    int64_t widths[64];
    int num_widths;
    int64_t pad_width;
    bool preserve_short;
} ngrams_node;

typedef struct ngrams_state {
    tp_string_out strings;
    int64_t *splits; /* n-gram row splits */
} ngrams_state;

static void free_ngrams(void *state)
{
    ngrams_state *s = state;
    if (s) {
        tp_string_out_free(&s->strings);
        free(s->splits);
    }
    free(s);
}

static int64_t pad_of(const ngrams_node *n, int64_t width)
{
    int64_t pad = n->pad_width < 0 ? width - 1 : n->pad_width;
    return pad < width - 1 ? pad : width - 1;
}

/* How many n-grams of `width` a row of `length` tokens gives (saturating). */
static int64_t count_of(const ngrams_node *n, int64_t length, int64_t width)
{
    int64_t c = tp_sat_add(tp_sat_sub(tp_sat_add(length, tp_sat_mul(2, pad_of(n, width))), width), 1);
    return c > 0 ? c : 0;
}

/* Appends `times` copies of the pad, each after a separator unless it
 * starts the n-gram (*first); nothing to loop over when both are empty. */
static tfpi_code append_pads(tp_op_ctx *ctx, const ngrams_node *n, tp_string_out *out, const tfpi_bytes *pad,
                             int64_t times, bool *first)
{
    tfpi_code code = TFPI_OK;
    for (int64_t k = 0; k < times && code == TFPI_OK && (pad->size || n->separator.size || *first); k++) {
        if (!*first)
            code = tp_string_out_append(ctx, out, n->separator.data, n->separator.size);
        if (code == TFPI_OK)
            code = tp_string_out_append(ctx, out, pad->data, pad->size);
        *first = false;
    }
    return code;
}

/* Appends the `count` n-grams of `width` of the row data[0..length). */
static tfpi_code make_ngrams(tp_op_ctx *ctx, const ngrams_node *n, tp_string_out *out, const tfpi_bytes *data,
                             int64_t count, int64_t width)
{
    tfpi_code code = TFPI_OK;
    int64_t pad = pad_of(n, width);
    for (int64_t g = 0; g < count && code == TFPI_OK; g++) {
        int64_t left = pad - g > 0 ? pad - g : 0, right = pad - (count - g - 1) > 0 ? pad - (count - g - 1) : 0;
        int64_t tokens = width - left - right, first_token = left > 0 ? 0 : g - pad;
        bool first = true;
        code = append_pads(ctx, n, out, &n->left_pad, left, &first);
        for (int64_t k = 0; k < tokens && code == TFPI_OK; k++) {
            if (!first)
                code = tp_string_out_append(ctx, out, n->separator.data, n->separator.size);
            if (code == TFPI_OK)
                code = tp_string_out_append(ctx, out, data[first_token + k].data, data[first_token + k].size);
            first = false;
        }
        if (code == TFPI_OK)
            code = append_pads(ctx, n, out, &n->right_pad, right, &first);
        tp_string_out_end_element(out);
    }
    return code;
}

static tfpi_code read_ngrams_node(tp_op_ctx *ctx, ngrams_node *n)
{
    n->separator = tp_attr_bytes(ctx->def, "separator", " ");
    n->left_pad = tp_attr_bytes(ctx->def, "left_pad", "");
    n->right_pad = tp_attr_bytes(ctx->def, "right_pad", "");
    n->pad_width = tp_attr_int(ctx->def, "pad_width", -1);
    n->preserve_short = tp_attr_bool(ctx->def, "preserve_short_sequences", false);
    n->num_widths = tp_attr_int_list(ctx->def, "ngram_widths", n->widths, 64);
    if (n->num_widths < 0 || n->num_widths > 64)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "ngram_widths must be a list of at most 64 widths");
    for (int i = 0; i < n->num_widths; i++)
        if (n->widths[i] <= 0)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "ngram_widths must contain positive values, has %lld",
                           (long long)n->widths[i]);
    return TFPI_OK;
}

/* data_splits: 0 first, non-decreasing, within the data, its size last. */
static tfpi_code check_splits(tp_op_ctx *ctx, const tfpi_tensor *splits, int64_t size)
{
    int64_t n = tp_num_elements(splits);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = tp_get_int(splits, i), prev = i ? tp_get_int(splits, i - 1) : 0;
        if ((i == 0 && v != 0) || v < prev || v > size)
            return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Invalid split value %lld at %lld, must be in [%lld, %lld]%s",
                           (long long)v, (long long)i, (long long)prev, (long long)size, i == 0 ? " (and 0 first)" : "");
    }
    if (n > 0 && tp_get_int(splits, n - 1) != size)
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "Last split value must be data size. Expected %lld, got %lld",
                       (long long)size, (long long)tp_get_int(splits, n - 1));
    return TFPI_OK;
}

/* The bytes of the `count` n-grams of `width` of a row whose token i has
 * bytes prefix[i + 1] - prefix[i] (saturating). */
static int64_t row_bytes(const ngrams_node *n, const int64_t *prefix, int64_t count, int64_t width)
{
    int64_t pad = pad_of(n, width), bytes = 0;
    int64_t fixed = tp_sat_mul(width - 1, (int64_t)n->separator.size);
    for (int64_t g = 0; g < count; g++) {
        int64_t left = pad - g > 0 ? pad - g : 0, right = pad - (count - g - 1) > 0 ? pad - (count - g - 1) : 0;
        int64_t tokens = width - left - right, first = left > 0 ? 0 : g - pad;
        bytes = tp_sat_add(bytes, tp_sat_add(fixed, prefix[first + tokens] - prefix[first]));
        bytes = tp_sat_add(bytes, tp_sat_add(tp_sat_mul(left, (int64_t)n->left_pad.size),
                                             tp_sat_mul(right, (int64_t)n->right_pad.size)));
    }
    return bytes;
}

/* The bytes all n-grams will take (saturating; -1 if the sums cannot be
 * held), worked out before any is made. The counts are within the budget. */
static int64_t ngram_bytes(tp_op_ctx *ctx, const ngrams_node *n, const tfpi_tensor *data, const tfpi_tensor *splits)
{
    int64_t m = data->dims[0], rows = splits->dims[0] > 0 ? splits->dims[0] - 1 : 0, total = 0;
    tfpi_status_clear(ctx->status);
    if (tp_expect_within_budget(ctx, m + 1, sizeof(int64_t), "token sizes") != TFPI_OK)
        return -1;
    int64_t *prefix = malloc(((size_t)m + 1) * sizeof *prefix);
    if (!prefix)
        return -1;
    prefix[0] = 0;
    for (int64_t i = 0; i < m; i++)
        prefix[i + 1] = tp_sat_add(prefix[i], (int64_t)string_at(data, i)->size);
    for (int64_t r = 0; r < rows; r++) {
        int64_t start = tp_get_int(splits, r), length = tp_get_int(splits, r + 1) - start, before = total;
        for (int w = 0; w < n->num_widths; w++)
            total = tp_sat_add(total, row_bytes(n, prefix + start, count_of(n, length, n->widths[w]), n->widths[w]));
        if (total == before && n->preserve_short && length > 0)
            total = tp_sat_add(total, row_bytes(n, prefix + start, 1, tp_sat_add(length, tp_sat_mul(2, n->pad_width))));
    }
    free(prefix);
    return total;
}

static tfpi_code ngrams_prepare(tp_op_ctx *ctx)
{
    ngrams_node node;
    tfpi_code code = tp_expect_inputs(ctx, 2, 2);
    if (code == TFPI_OK)
        code = read_ngrams_node(ctx, &node);
    if (code != TFPI_OK)
        return code;
    const tfpi_tensor *data = ctx->inputs[0], *splits = ctx->inputs[1];
    if (data->dtype != TFPI_STRING || data->ndims != 1 || splits->ndims != 1 ||
        (splits->dtype != TFPI_INT32 && splits->dtype != TFPI_INT64))
        return tp_fail(ctx, TFPI_INVALID_ARGUMENT, "takes a string vector and an int32 or int64 vector of splits");
    if (!data->data || !splits->data)
        return tp_fail(ctx, TFPI_INTERNAL, "needs its inputs' values");
    if ((code = check_splits(ctx, splits, data->dims[0])) != TFPI_OK)
        return code;
    int64_t rows = splits->dims[0] > 0 ? splits->dims[0] - 1 : 0, total = 0, parts = 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t length = tp_get_int(splits, r + 1) - tp_get_int(splits, r), count = 0;
        for (int w = 0; w < node.num_widths; w++) {
            int64_t c = count_of(&node, length, node.widths[w]);
            count = tp_sat_add(count, c);
            /* the tokens the n-grams copy, the work whatever the bytes (tokens may be empty) */
            parts = tp_sat_add(parts, tp_sat_mul(c, length < node.widths[w] ? length : node.widths[w]));
        }
        if (count == 0 && node.preserve_short && length > 0) {
            if (node.pad_width < 0)
                return tp_fail(ctx, TFPI_INVALID_ARGUMENT,
                               "Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths are "
                               "not provided, got %lld", (long long)node.pad_width);
            count = 1;
        }
        total = tp_sat_add(total, count);
    }
    if ((code = tp_expect_within_budget(ctx, total, sizeof(tfpi_bytes), "n-grams")) != TFPI_OK ||
        (code = tp_expect_within_budget(ctx, parts, sizeof(tfpi_bytes), "tokens in n-grams")) != TFPI_OK)
        return code;
    int64_t bytes = ngram_bytes(ctx, &node, data, splits);
    if (bytes < 0)
        return ctx->status->code != TFPI_OK ? ctx->status->code : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    if (ctx->max_bytes && (uint64_t)bytes > ctx->max_bytes)
        return tp_fail(ctx, TFPI_OUT_OF_MEMORY, "the n-grams would take %lld bytes, over the memory budget of %llu "
                       "bytes (max_memory)", (long long)bytes, (unsigned long long)ctx->max_bytes);
    code = tp_set_output(ctx, 0, TFPI_STRING, 1, &total);
    if (code == TFPI_OK && ctx->num_outputs > 1)
        code = tp_set_output(ctx, 1, splits->dtype, 1, splits->dims);
    return code;
}

static tfpi_code ngrams_run(tp_op_ctx *ctx)
{
    ngrams_node node;
    read_ngrams_node(ctx, &node);
    free_ngrams(ctx->state);
    ngrams_state *s = ctx->state = calloc(1, sizeof *s);
    const tfpi_tensor *data = ctx->inputs[0], *splits = ctx->inputs[1];
    int64_t rows = splits->dims[0] > 0 ? splits->dims[0] - 1 : 0;
    tfpi_code code = s ? tp_string_out_begin(ctx, &s->strings, ctx->outputs[0].dims[0])
                       : tp_fail(ctx, TFPI_OUT_OF_MEMORY, "out of memory");
    for (int64_t r = 0; r < rows && code == TFPI_OK; r++) {
        int64_t start = tp_get_int(splits, r), length = tp_get_int(splits, r + 1) - start, made = s->strings.made;
        const tfpi_bytes *row = length ? string_at(data, start) : NULL;
        for (int w = 0; w < node.num_widths && code == TFPI_OK; w++)
            code = make_ngrams(ctx, &node, &s->strings, row, count_of(&node, length, node.widths[w]), node.widths[w]);
        if (code == TFPI_OK && node.preserve_short && length > 0 && s->strings.made == made)
            code = make_ngrams(ctx, &node, &s->strings, row, 1, tp_sat_add(length, tp_sat_mul(2, node.pad_width)));
        if (ctx->num_outputs > 1 && splits->dtype == TFPI_INT32)
            ((int32_t *)ctx->outputs[1].data)[r + 1] = (int32_t)s->strings.made;
        else if (ctx->num_outputs > 1)
            ((int64_t *)ctx->outputs[1].data)[r + 1] = s->strings.made;
    }
    if (code == TFPI_OK && ctx->num_outputs > 1 && splits->dims[0] > 0)
        memset(ctx->outputs[1].data, 0, tfpi_dtype_size(splits->dtype));
    if (code == TFPI_OK)
        tp_string_out_finish(&s->strings, &ctx->outputs[0]);
    return code;
}

const tp_kernel tp_kernels_string_split[] = {
    TP_KERNEL("StringSplit", split_prepare, split_run, free_split, TP_DYNAMIC | TP_OUTPUTS(3)),
    TP_KERNEL("StringSplitV2", split_prepare, split_run, free_split, TP_DYNAMIC | TP_OUTPUTS(3)),
    TP_KERNEL("StringNGrams", ngrams_prepare, ngrams_run, free_ngrams, TP_DYNAMIC | TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
