/* test_text_ops.c - the string, sparse and counting ops of text exports
 * (string_ops.c, string_convert.c, string_split.c, sparse_ops.c,
 * segment_reduction.c, unique.c, bincount.c, cumsum.c, BroadcastArgs,
 * MutableHashTableV2 and LookupTableInsertV2) and FarmHash Fingerprint64,
 * through small graphs. Expected values come from
 * outside the code: TensorFlow's documentation examples (quoted with each
 * test), published Fingerprint64 values (BigQuery's and Redshift's
 * FARM_FINGERPRINT documentation, the go-farm port's test table, Guava),
 * and Python's own str.split / str.lower where TensorFlow follows them.
 * Edge cases (empty strings and inputs, Unicode, negative and out-of-range
 * ids, n-gram widths past the input) and hostile inputs (counts and sizes
 * past the memory budget) are checked for one error naming the node. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compute/fingerprint.h"
#include "op_test.h"

#define B(text) ((tfpi_bytes){sizeof(text) - 1, (const uint8_t *)(text)})

/* A string tensor of the given shape holding texts[0..] (NUL-terminated). */
static tfpi_tensor *strings(const int64_t *dims, int ndims, const char *const *texts)
{
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(TFPI_STRING, dims, ndims, &status);
    for (int64_t i = 0; t && i < tfpi_tensor_num_elements(t); i++)
        tfpi_tensor_set_string(t, (size_t)i, texts[i], strlen(texts[i]), &status);
    CHECK(t != NULL);
    return t;
}

/* Runs g with up to three feeds (a, b, c) under a memory budget (0: the
 * default) and returns the fetch, or NULL with status set. */
static tfpi_tensor *run_budget(const gb_graph *g, tfpi_tensor *a, tfpi_tensor *b, tfpi_tensor *c, const char *fetch,
                               int64_t max_memory, tfpi_status *status)
{
    const char *names[] = {"a", "b", "c"};
    tfpi_tensor *feeds[] = {a, b, c};
    int n = c ? 3 : b ? 2 : a ? 1 : 0;
    tfpi_graph *graph = gb_load(g, status);
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = max_memory};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, status) : NULL;
    tfpi_tensor *out = NULL;
    if (session && tfpi_session_run(session, names, feeds, n, &fetch, &out, 1, status) != TFPI_OK)
        out = NULL;
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    return out;
}

static tfpi_tensor *run(const gb_graph *g, tfpi_tensor *a, tfpi_tensor *b, tfpi_tensor *c, const char *fetch)
{
    tfpi_status status;
    tfpi_tensor *out = run_budget(g, a, b, c, fetch, 0, &status);
    CHECK_MSG(out != NULL, "run %s: %s", fetch, status.message);
    return out;
}

/* Expects fetching `node` to fail with a message naming it and holding fragment. */
static void expect_failure(const gb_graph *g, tfpi_tensor *a, tfpi_tensor *b, tfpi_tensor *c, const char *node,
                           const char *fragment, int64_t max_memory)
{
    tfpi_status status;
    char named[200];
    snprintf(named, sizeof named, "node '%s'", node);
    tfpi_tensor *out = run_budget(g, a, b, c, node, max_memory, &status);
    CHECK_MSG(!out, "%s: expected an error about '%s'", node, fragment);
    tfpi_tensor_free(out);
    CHECK_MSG(out || (strstr(status.message, named) && strstr(status.message, fragment)),
              "error \"%s\" should name %s and contain \"%s\"", status.message, named, fragment);
}

static void free_all(tfpi_tensor *a, tfpi_tensor *b, tfpi_tensor *c)
{
    tfpi_tensor_free(a);
    tfpi_tensor_free(b);
    tfpi_tensor_free(c);
}

/* ---- Fingerprint64, StringToHashBucketFast ---- */

static void test_fingerprint64(void)
{
    static const struct {
        const char *text;
        uint64_t fingerprint;
    } known[] = {
        /* go-farm's table of farmhashna::Hash64 (Fingerprint64): every length class */
        {"", 0x9ae16a3b2f90404fULL},
        {"a", 0xb3454265b6df75e3ULL},
        {"abcdefgh", 0xfee9d22990c82909ULL},
        {"0123456789=012345", 0x46a7416ed4861e3bULL},
        {"C is as portable as Stonehedge!!", 0xb944f8a16261e414ULL},
        {"Discard medicine more than two years old.", 0xe8f89ab6df9bdd25ULL},
        {"For every action there is an equal and opposite government program.", 0x55182f8859eca4ceULL},
        {"0123456789%0123456789\xc2\xa3", 0x4dbd128af51d77e8ULL}, /* with a UTF-8 pound sign */
        /* BigQuery's FARM_FINGERPRINT examples (signed int64) */
        {"1footrue", (uint64_t)-1541654101129638711LL},
        {"2applefalse", 2794438866806483259ULL},
        {"3true", (uint64_t)-4880158226897771312LL},
        /* Guava / BigQuery "alphabet", Redshift "Amazon Redshift" */
        {"alphabet", (uint64_t)-2427165924636348523LL},
        {"Amazon Redshift", 8085098817162212970ULL},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        CHECK_MSG(tp_fingerprint64((const uint8_t *)known[i].text, strlen(known[i].text)) == known[i].fingerprint,
                  "Fingerprint64(\"%s\")", known[i].text);
    /* a 445-byte string: the 64-byte loop, then the last 64 bytes */
    const char *lorem =
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore "
        "magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo "
        "consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla "
        "pariatur. Excepteur sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id "
        "est laborum.";
    CHECK(tp_fingerprint64((const uint8_t *)lorem, strlen(lorem)) == 0xc3f02c4ffd5d71e6ULL);
}

static void test_hash_bucket(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){3}, 1);
    gd_attr_set_int(gb_node(g, "StringToHashBucketFast", "h3", "a", NULL), "num_buckets", 3);
    gd_attr_set_int(gb_node(g, "StringToHashBucketFast", "big", "a", NULL), "num_buckets", INT64_MAX);
    gd_attr_set_int(gb_node(g, "StringToHashBucketFast", "zero", "a", NULL), "num_buckets", 0);
    /* tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) == [0, 2, 2] (TF's documentation) */
    tfpi_tensor *a = strings((int64_t[]){3}, 1, (const char *[]){"Hello", "TensorFlow", "2.x"});
    CHECK_TENSOR(run(g, a, NULL, NULL, "h3"), TFPI_INT64, 1, (int64_t[]){3}, (int64_t[]){0, 2, 2});
    tfpi_tensor *b = strings((int64_t[]){3}, 1, (const char *[]){"alphabet", "", "1footrue"});
    uint64_t m = INT64_MAX;
    CHECK_TENSOR(run(g, b, NULL, NULL, "big"), TFPI_INT64, 1, (int64_t[]){3},
                 (int64_t[]){(int64_t)((uint64_t)-2427165924636348523LL % m), (int64_t)(0x9ae16a3b2f90404fULL % m),
                             (int64_t)((uint64_t)-1541654101129638711LL % m)});
    expect_failure(g, a, NULL, NULL, "zero", "num_buckets is 0", 0);
    free_all(a, b, NULL);
    gb_free(g);
}

/* ---- StringSplit, StringSplitV2 ---- */

static void split_graph(gb_graph *g, const char *op, const char *name, const char *sep, int64_t maxsplit,
                        bool skip_empty)
{
    char sep_name[64], values[64];
    snprintf(sep_name, sizeof sep_name, "%s_sep", name);
    gb_const_string(g, sep_name, sep, strlen(sep));
    Tfpi__NodeDef *n = gb_node(g, op, name, "a", sep_name, NULL);
    if (strcmp(op, "StringSplitV2") == 0)
        gd_attr_set_int(n, "maxsplit", maxsplit);
    else
        gd_attr_set_bool(n, "skip_empty", skip_empty);
    snprintf(values, sizeof values, "%s_values", name);
    char in1[80], in2[80];
    snprintf(in1, sizeof in1, "%s:1", name);
    snprintf(in2, sizeof in2, "%s:2", name);
    gd_attr_set_type(gb_node(g, "Identity", values, in1, NULL), "T", TFPI_STRING);
    snprintf(values, sizeof values, "%s_shape", name);
    gd_attr_set_type(gb_node(g, "Identity", values, in2, NULL), "T", TFPI_INT64);
}

static void test_string_split(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){-1}, 1);
    split_graph(g, "StringSplit", "space", " ", 0, true);
    split_graph(g, "StringSplit", "any", ",;", 0, true);
    split_graph(g, "StringSplit", "keep", ",", 0, false);
    split_graph(g, "StringSplit", "bytes", "", 0, true);
    /* tf.string_split(["hello world", "a b c"]): indices [0,0;0,1;1,0;1,1;1,2], values
     * [hello, world, a, b, c], shape [2, 3] (TF's documentation) */
    tfpi_tensor *a = strings((int64_t[]){2}, 1, (const char *[]){"hello world", "a b c"});
    CHECK_TENSOR(run(g, a, NULL, NULL, "space"), TFPI_INT64, 2, (int64_t[]){5, 2},
                 (int64_t[]){0, 0, 0, 1, 1, 0, 1, 1, 1, 2});
    CHECK_TENSOR(run(g, a, NULL, NULL, "space_values"), TFPI_STRING, 1, (int64_t[]){5},
                 (tfpi_bytes[]){B("hello"), B("world"), B("a"), B("b"), B("c")});
    CHECK_TENSOR(run(g, a, NULL, NULL, "space_shape"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){2, 3});
    /* each delimiter byte splits; empty tokens skipped, or kept with skip_empty=false */
    tfpi_tensor *b = strings((int64_t[]){3}, 1, (const char *[]){"a,b;;c", "", ",x,"});
    CHECK_TENSOR(run(g, b, NULL, NULL, "any_values"), TFPI_STRING, 1, (int64_t[]){4},
                 (tfpi_bytes[]){B("a"), B("b"), B("c"), B("x")});
    CHECK_TENSOR(run(g, b, NULL, NULL, "any_shape"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){3, 3});
    CHECK_TENSOR(run(g, b, NULL, NULL, "keep_values"), TFPI_STRING, 1, (int64_t[]){6},
                 (tfpi_bytes[]){B("a"), B("b;;c"), B(""), B(""), B("x"), B("")});
    /* an empty delimiter splits into bytes: UTF-8 e-acute is two tokens */
    tfpi_tensor *c = strings((int64_t[]){1}, 1, (const char *[]){"h\xc3\xa9"});
    CHECK_TENSOR(run(g, c, NULL, NULL, "bytes_values"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("h"), B("\xc3"), B("\xa9")});
    /* no strings at all */
    tfpi_tensor *empty = strings((int64_t[]){0}, 1, NULL);
    CHECK_TENSOR(run(g, empty, NULL, NULL, "space_shape"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 0});
    free_all(a, b, c);
    tfpi_tensor_free(empty);
    gb_free(g);
}

static void test_string_split_v2(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){-1}, 1);
    split_graph(g, "StringSplitV2", "sep", "<>", -1, true);
    split_graph(g, "StringSplitV2", "comma", ",", -1, true);
    split_graph(g, "StringSplitV2", "white", "", -1, true);
    split_graph(g, "StringSplitV2", "once", " ", 1, true);
    split_graph(g, "StringSplitV2", "white_once", "", 1, true);
    /* Python: '1<>2<>3'.split('<>') == ['1', '2', '3'], ''.split('<>') == [''] */
    tfpi_tensor *a = strings((int64_t[]){2}, 1, (const char *[]){"1<>2<>3", ""});
    CHECK_TENSOR(run(g, a, NULL, NULL, "sep_values"), TFPI_STRING, 1, (int64_t[]){4},
                 (tfpi_bytes[]){B("1"), B("2"), B("3"), B("")});
    CHECK_TENSOR(run(g, a, NULL, NULL, "sep"), TFPI_INT64, 2, (int64_t[]){4, 2}, (int64_t[]){0, 0, 0, 1, 0, 2, 1, 0});
    /* '1,,2'.split(',') == ['1', '', '2'] */
    tfpi_tensor *b = strings((int64_t[]){1}, 1, (const char *[]){"1,,2"});
    CHECK_TENSOR(run(g, b, NULL, NULL, "comma_values"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("1"), B(""), B("2")});
    /* '  a \t b\n'.split() == ['a', 'b'], '   '.split() == [], ''.split() == [] */
    tfpi_tensor *c = strings((int64_t[]){3}, 1, (const char *[]){"  a \t b\n", "   ", ""});
    CHECK_TENSOR(run(g, c, NULL, NULL, "white_values"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("a"), B("b")});
    CHECK_TENSOR(run(g, c, NULL, NULL, "white_shape"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){3, 2});
    /* '1 2 3'.split(' ', 1) == ['1', '2 3'], ' a  b c'.split(None, 1) == ['a', 'b c'] */
    tfpi_tensor *d = strings((int64_t[]){1}, 1, (const char *[]){"1 2 3"});
    CHECK_TENSOR(run(g, d, NULL, NULL, "once_values"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("1"), B("2 3")});
    tfpi_tensor *e = strings((int64_t[]){1}, 1, (const char *[]){" a  b c"});
    CHECK_TENSOR(run(g, e, NULL, NULL, "white_once_values"), TFPI_STRING, 1, (int64_t[]){2},
                 (tfpi_bytes[]){B("a"), B("b c")});
    free_all(a, b, c);
    free_all(d, e, NULL);
    gb_free(g);
}

/* ---- StringNGrams ---- */

static Tfpi__NodeDef *ngrams_node(gb_graph *g, const char *name, const int64_t *widths, int n, const char *sep,
                                  const char *left, const char *right, int64_t pad, bool preserve)
{
    Tfpi__NodeDef *node = gb_node(g, "StringNGrams", name, "a", "b", NULL);
    gd_attr_set_ints(node, "ngram_widths", widths, (size_t)n);
    gd_attr_set_string(node, "separator", sep);
    gd_attr_set_string(node, "left_pad", left);
    gd_attr_set_string(node, "right_pad", right);
    gd_attr_set_int(node, "pad_width", pad);
    gd_attr_set_bool(node, "preserve_short_sequences", preserve);
    gd_attr_set_type(node, "Tsplits", TFPI_INT64);
    char splits[64], in[80];
    snprintf(splits, sizeof splits, "%s_splits", name);
    snprintf(in, sizeof in, "%s:1", name);
    gd_attr_set_type(gb_node(g, "Identity", splits, in, NULL), "T", TFPI_INT64);
    return node;
}

static void test_string_ngrams(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_INT64, (int64_t[]){-1}, 1);
    ngrams_node(g, "bigrams", (int64_t[]){2}, 1, " ", "", "", 0, false);
    ngrams_node(g, "padded", (int64_t[]){2}, 1, " ", "LP", "RP", -1, false);
    ngrams_node(g, "uni_bi", (int64_t[]){1, 2}, 2, " ", "", "", 0, false);
    ngrams_node(g, "short", (int64_t[]){3}, 1, "|", "", "", 0, true);
    ngrams_node(g, "too_wide", (int64_t[]){5}, 1, " ", "", "", 0, false);
    ngrams_node(g, "zero_width", (int64_t[]){0}, 1, " ", "", "", 0, false);
    ngrams_node(g, "huge", (int64_t[]){1 << 20}, 1, " ", "P", "P", -1, false);
    /* tf.strings.ngrams(["A", "B", "C", "D"], 2) == ["A B", "B C", "C D"] (TF's documentation) */
    tfpi_tensor *a = strings((int64_t[]){4}, 1, (const char *[]){"A", "B", "C", "D"});
    tfpi_tensor *b = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){0, 4});
    CHECK_TENSOR(run(g, a, b, NULL, "bigrams"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("A B"), B("B C"), B("C D")});
    /* pad_values=("LP", "RP"), padding_width = width - 1: ["LP A", "A B", "B C", "C D", "D RP"] */
    CHECK_TENSOR(run(g, a, b, NULL, "padded"), TFPI_STRING, 1, (int64_t[]){5},
                 (tfpi_bytes[]){B("LP A"), B("A B"), B("B C"), B("C D"), B("D RP")});
    /* widths (1, 2): the unigrams, then the bigrams */
    CHECK_TENSOR(run(g, a, b, NULL, "uni_bi"), TFPI_STRING, 1, (int64_t[]){7},
                 (tfpi_bytes[]){B("A"), B("B"), B("C"), B("D"), B("A B"), B("B C"), B("C D")});
    /* TF's ngrams test: [[aa, bb, cc, dd], [ee, ff]], width 3, "|", preserve_short_sequences:
     * [[aa|bb|cc, bb|cc|dd], [ee|ff]]; and an empty row gives nothing */
    tfpi_tensor *c = strings((int64_t[]){6}, 1, (const char *[]){"aa", "bb", "cc", "dd", "ee", "ff"});
    tfpi_tensor *d = op_tensor(TFPI_INT64, (int64_t[]){4}, 1, (int64_t[]){0, 4, 6, 6});
    CHECK_TENSOR(run(g, c, d, NULL, "short"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("aa|bb|cc"), B("bb|cc|dd"), B("ee|ff")});
    CHECK_TENSOR(run(g, c, d, NULL, "short_splits"), TFPI_INT64, 1, (int64_t[]){4}, (int64_t[]){0, 2, 3, 3});
    /* a width past the row's length: no n-grams */
    CHECK_TENSOR(run(g, a, b, NULL, "too_wide_splits"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){0, 0});
    expect_failure(g, a, b, NULL, "zero_width", "ngram_widths must contain positive values", 0);
    /* splits that do not describe the data */
    tfpi_tensor *bad = op_tensor(TFPI_INT64, (int64_t[]){3}, 1, (int64_t[]){0, 5, 4});
    expect_failure(g, a, bad, NULL, "bigrams", "Invalid split value 5", 0);
    tfpi_tensor *short_splits = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){0, 3});
    expect_failure(g, a, short_splits, NULL, "bigrams", "Last split value must be data size", 0);
    /* hostile: a million-wide padded n-gram of four tokens is 2^20 n-grams of 2^20 parts */
    expect_failure(g, a, b, NULL, "huge", "over the memory budget", 1 << 24);
    free_all(a, b, c);
    free_all(d, bad, short_splits);
    gb_free(g);
}

/* ---- StringJoin, StringLower, Substr ---- */

static void test_join_lower(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_placeholder(g, "c", TFPI_STRING, NULL, 0);
    Tfpi__NodeDef *join = gb_node(g, "StringJoin", "join", "a", "b", NULL);
    gd_attr_set_string(join, "separator", " ");
    gd_attr_set_int(join, "N", 2);
    Tfpi__NodeDef *prefix = gb_node(g, "StringJoin", "prefix", "c", "a", NULL);
    gd_attr_set_string(prefix, "separator", "-");
    gd_attr_set_int(prefix, "N", 2);
    gb_node(g, "StringLower", "ascii", "a", NULL);
    gd_attr_set_string(gb_node(g, "StringLower", "utf8", "a", NULL), "encoding", "utf-8");
    gd_attr_set_string(gb_node(g, "StringLower", "latin1", "a", NULL), "encoding", "latin-1");
    /* tf.strings.join([["abc", "123"], ["def", "456"]], separator=" ") == ["abc def", "123 456"] */
    tfpi_tensor *a = strings((int64_t[]){2}, 1, (const char *[]){"abc", "123"});
    tfpi_tensor *b = strings((int64_t[]){2}, 1, (const char *[]){"def", "456"});
    tfpi_tensor *c = strings(NULL, 0, (const char *[]){"x"});
    CHECK_TENSOR(run(g, a, b, c, "join"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("abc def"), B("123 456")});
    CHECK_TENSOR(run(g, a, b, c, "prefix"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("x-abc"), B("x-123")});
    tfpi_tensor *three = strings((int64_t[]){3}, 1, (const char *[]){"a", "b", "c"});
    expect_failure(g, a, three, c, "join", "Input shapes do not match", 0);
    /* tf.strings.lower("CamelCase string and ALL CAPS") == "camelcase string and all caps"; ASCII
     * only without an encoding; with utf-8 as Python's str.lower: 'ÀÉÎ ΟΔΟΣ İ Σ'.lower() ==
     * 'àéî οδος i̇ σ' (a final sigma at a word's end, a lone capital sigma stays sigma) */
    tfpi_tensor *text = strings((int64_t[]){3}, 1, (const char *[]){
        "CamelCase string and ALL CAPS", "\xc3\x80\xc3\x89\xc3\x8e \xce\x9f\xce\x94\xce\x9f\xce\xa3 \xc4\xb0 \xce\xa3",
        "bad\xff byte"});
    CHECK_TENSOR(run(g, text, b, c, "ascii"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("camelcase string and all caps"),
                                B("\xc3\x80\xc3\x89\xc3\x8e \xce\x9f\xce\x94\xce\x9f\xce\xa3 \xc4\xb0 \xce\xa3"),
                                B("bad\xff byte")});
    CHECK_TENSOR(run(g, text, b, c, "utf8"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("camelcase string and all caps"),
                                B("\xc3\xa0\xc3\xa9\xc3\xae \xce\xbf\xce\xb4\xce\xbf\xcf\x82 i\xcc\x87 \xcf\x83"),
                                B("bad\xef\xbf\xbd byte")});
    expect_failure(g, text, b, c, "latin1", "encoding 'latin-1' is not supported", 0);
    free_all(a, b, c);
    free_all(three, text, NULL);
    gb_free(g);
}

static void test_substr(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, NULL, -1);
    gb_placeholder(g, "b", TFPI_INT32, NULL, -1);
    gb_placeholder(g, "c", TFPI_INT32, NULL, -1);
    gb_node(g, "Substr", "bytes", "a", "b", "c", NULL);
    gd_attr_set_string(gb_node(g, "Substr", "chars", "a", "b", "c", NULL), "unit", "UTF8_CHAR");
    /* tf.strings.substr([b'Hello', b'World'], 1, 3) == [b'ell', b'orl'] (TF's documentation) */
    tfpi_tensor *a = strings((int64_t[]){2}, 1, (const char *[]){"Hello", "World"});
    int32_t one = 1, three = 3;
    tfpi_tensor *pos = op_tensor(TFPI_INT32, NULL, 0, &one), *len = op_tensor(TFPI_INT32, NULL, 0, &three);
    CHECK_TENSOR(run(g, a, pos, len, "bytes"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("ell"), B("orl")});
    /* the documentation's 3x3 example, element-wise and with pos/len broadcast along rows */
    const char *words[] = {"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
                           "eighteen"};
    tfpi_tensor *w = strings((int64_t[]){3, 3}, 2, words);
    tfpi_tensor *p = op_tensor(TFPI_INT32, (int64_t[]){3, 3}, 2, (int32_t[]){1, 2, 3, 1, 2, 3, 1, 2, 3});
    tfpi_tensor *l = op_tensor(TFPI_INT32, (int64_t[]){3, 3}, 2, (int32_t[]){2, 3, 4, 4, 3, 2, 5, 5, 5});
    CHECK_TENSOR(run(g, w, p, l, "bytes"), TFPI_STRING, 2, (int64_t[]){3, 3},
                 (tfpi_bytes[]){B("en"), B("eve"), B("lve"), B("hirt"), B("urt"), B("te"), B("ixtee"), B("vente"),
                                B("hteen")});
    tfpi_tensor *p3 = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){1, 2, 3});
    tfpi_tensor *l3 = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){2, 3, 4});
    CHECK_TENSOR(run(g, w, p3, l3, "bytes"), TFPI_STRING, 2, (int64_t[]){3, 3},
                 (tfpi_bytes[]){B("en"), B("eve"), B("lve"), B("hi"), B("urt"), B("teen"), B("ix"), B("ven"),
                                B("htee")});
    /* negative pos counts from the end; a length past the end stops there; pos == length gives "" */
    int32_t minus_two = -2, five = 5, hundred = 100;
    tfpi_tensor *neg = op_tensor(TFPI_INT32, NULL, 0, &minus_two), *at5 = op_tensor(TFPI_INT32, NULL, 0, &five);
    tfpi_tensor *far = op_tensor(TFPI_INT32, NULL, 0, &hundred);
    CHECK_TENSOR(run(g, a, neg, far, "bytes"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("lo"), B("ld")});
    CHECK_TENSOR(run(g, a, at5, len, "bytes"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B(""), B("")});
    /* UTF8_CHAR counts characters: "Hello 世界"[6:8] in characters is "世界" */
    tfpi_tensor *u = strings(NULL, 0, (const char *[]){"Hello \xe4\xb8\x96\xe7\x95\x8c"});
    int32_t six = 6, two = 2;
    tfpi_tensor *p6 = op_tensor(TFPI_INT32, NULL, 0, &six), *l2 = op_tensor(TFPI_INT32, NULL, 0, &two);
    CHECK_TENSOR(run(g, u, p6, l2, "chars"), TFPI_STRING, 0, NULL, (tfpi_bytes[]){B("\xe4\xb8\x96\xe7\x95\x8c")});
    CHECK_TENSOR(run(g, u, neg, far, "chars"), TFPI_STRING, 0, NULL, (tfpi_bytes[]){B("\xe4\xb8\x96\xe7\x95\x8c")});
    /* pos past the end, or before the start */
    expect_failure(g, a, p6, len, "bytes", "pos 6 out of range for string at index 0", 0);
    int32_t minus_nine = -9;
    tfpi_tensor *before = op_tensor(TFPI_INT32, NULL, 0, &minus_nine);
    expect_failure(g, u, before, len, "chars", "pos -9 out of range", 0);
    expect_failure(g, a, p3, l, "bytes", "pos and len should have the same shape", 0);
    free_all(a, pos, len);
    free_all(w, p, l);
    free_all(p3, l3, neg);
    free_all(at5, far, u);
    free_all(p6, l2, before);
    gb_free(g);
}

/* ---- StringToNumber, AsString ---- */

static void test_to_number(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_node(g, "StringToNumber", "float", "a", NULL);
    gd_attr_set_type(gb_node(g, "StringToNumber", "int32", "a", NULL), "out_type", TFPI_INT32);
    gd_attr_set_type(gb_node(g, "StringToNumber", "int64", "a", NULL), "out_type", TFPI_INT64);
    gd_attr_set_type(gb_node(g, "StringToNumber", "double", "a", NULL), "out_type", TFPI_DOUBLE);
    /* tf.strings.to_number(["1.55", "-3.5", "1e3"]) == [1.55, -3.5, 1000.] */
    tfpi_tensor *a = strings((int64_t[]){5}, 1, (const char *[]){"1.55", "-3.5", "1e3", " 7 ", "0x10"});
    CHECK_TENSOR(run(g, a, NULL, NULL, "float"), TFPI_FLOAT, 1, (int64_t[]){5},
                 (float[]){1.55f, -3.5f, 1000.0f, 7.0f, 16.0f});
    CHECK_TENSOR(run(g, a, NULL, NULL, "double"), TFPI_DOUBLE, 1, (int64_t[]){5},
                 (double[]){1.55, -3.5, 1000.0, 7.0, 16.0});
    tfpi_tensor *i = strings((int64_t[]){3}, 1, (const char *[]){"3", " -2147483648", "+42"});
    CHECK_TENSOR(run(g, i, NULL, NULL, "int32"), TFPI_INT32, 1, (int64_t[]){3}, (int32_t[]){3, INT32_MIN, 42});
    tfpi_tensor *big = strings((int64_t[]){1}, 1, (const char *[]){"9223372036854775807"});
    CHECK_TENSOR(run(g, big, NULL, NULL, "int64"), TFPI_INT64, 1, (int64_t[]){1}, (int64_t[]){INT64_MAX});
    expect_failure(g, big, NULL, NULL, "int32", "could not correctly convert string 0: '9223372036854775807'", 0);
    tfpi_tensor *bad = strings((int64_t[]){2}, 1, (const char *[]){"12", "abc"});
    expect_failure(g, bad, NULL, NULL, "float", "could not correctly convert string 1: 'abc'", 0);
    tfpi_tensor *frac = strings((int64_t[]){1}, 1, (const char *[]){"1.5"});
    expect_failure(g, frac, NULL, NULL, "int32", "could not correctly convert string 0", 0);
    tfpi_tensor *empty = strings((int64_t[]){1}, 1, (const char *[]){""});
    expect_failure(g, empty, NULL, NULL, "float", "could not correctly convert", 0);
    free_all(a, i, big);
    free_all(bad, frac, empty);
    gb_free(g);
}

static void test_as_string(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_INT32, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_FLOAT, (int64_t[]){-1}, 1);
    gb_placeholder(g, "c", TFPI_BOOL, (int64_t[]){-1}, 1);
    gb_node(g, "AsString", "ints", "a", NULL);
    Tfpi__NodeDef *padded = gb_node(g, "AsString", "padded", "a", NULL);
    gd_attr_set_int(padded, "width", 5);
    gd_attr_set_string(padded, "fill", "0");
    gd_attr_set_int(gb_node(g, "AsString", "precise", "b", NULL), "precision", 3);
    gb_node(g, "AsString", "reals", "b", NULL);
    gd_attr_set_bool(gb_node(g, "AsString", "scientific", "b", NULL), "scientific", true);
    gd_attr_set_bool(gb_node(g, "AsString", "shortest", "b", NULL), "shortest", true);
    gb_node(g, "AsString", "bools", "c", NULL);
    gd_attr_set_int(gb_node(g, "AsString", "int_precision", "a", NULL), "precision", 2);
    gd_attr_set_string(gb_node(g, "AsString", "bad_fill", "a", NULL), "fill", "xy");
    /* tf.strings.as_string([3, 2]) == ["3", "2"]; printf's "%05d" of 42 is "00042" */
    tfpi_tensor *a = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){3, 2, -42});
    tfpi_tensor *b = op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){3.1415926f, 1234.5f});
    tfpi_tensor *c = op_tensor(TFPI_BOOL, (int64_t[]){2}, 1, (uint8_t[]){1, 0});
    CHECK_TENSOR(run(g, a, b, c, "ints"), TFPI_STRING, 1, (int64_t[]){3}, (tfpi_bytes[]){B("3"), B("2"), B("-42")});
    CHECK_TENSOR(run(g, a, b, c, "padded"), TFPI_STRING, 1, (int64_t[]){3},
                 (tfpi_bytes[]){B("00003"), B("00002"), B("-0042")});
    /* tf.strings.as_string(3.1415926, precision=3) == "3.142"; "%f", "%e", "%g" of the float values */
    CHECK_TENSOR(run(g, a, b, c, "precise"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("3.142"), B("1234.500")});
    CHECK_TENSOR(run(g, a, b, c, "reals"), TFPI_STRING, 1, (int64_t[]){2},
                 (tfpi_bytes[]){B("3.141593"), B("1234.500000")});
    CHECK_TENSOR(run(g, a, b, c, "scientific"), TFPI_STRING, 1, (int64_t[]){2},
                 (tfpi_bytes[]){B("3.141593e+00"), B("1.234500e+03")});
    CHECK_TENSOR(run(g, a, b, c, "shortest"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("3.14159"), B("1234.5")});
    CHECK_TENSOR(run(g, a, b, c, "bools"), TFPI_STRING, 1, (int64_t[]){2}, (tfpi_bytes[]){B("true"), B("false")});
    expect_failure(g, a, b, c, "int_precision", "precision, scientific and shortest are for reals", 0);
    expect_failure(g, a, b, c, "bad_fill", "fill must be empty or one of the printf flags", 0);
    free_all(a, b, c);
    gb_free(g);
}

/* ---- SparseReshape, SparseFillEmptyRows ---- */

static void test_sparse_reshape(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_INT64, (int64_t[]){-1, -1}, 2);
    gb_placeholder(g, "b", TFPI_INT64, (int64_t[]){-1}, 1);
    gb_placeholder(g, "c", TFPI_INT64, (int64_t[]){-1}, 1);
    gb_node(g, "SparseReshape", "reshape", "a", "b", "c", NULL);
    gd_attr_set_type(gb_node(g, "Identity", "shape", "reshape:1", NULL), "T", TFPI_INT64);
    /* tf.sparse.reshape's documented example: shape [2, 3, 6] to [9, -1] gives shape [9, 4],
     * indices [[0,0,0],[0,0,1],[0,1,0],[1,0,0],[1,2,3]] -> [[0,0],[0,1],[1,2],[4,2],[8,1]] */
    tfpi_tensor *a = op_tensor(TFPI_INT64, (int64_t[]){5, 3}, 2,
                               (int64_t[]){0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3});
    tfpi_tensor *b = op_tensor(TFPI_INT64, (int64_t[]){3}, 1, (int64_t[]){2, 3, 6});
    tfpi_tensor *c = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){9, -1});
    CHECK_TENSOR(run(g, a, b, c, "reshape"), TFPI_INT64, 2, (int64_t[]){5, 2},
                 (int64_t[]){0, 0, 0, 1, 1, 2, 4, 2, 8, 1});
    CHECK_TENSOR(run(g, a, b, c, "shape"), TFPI_INT64, 1, (int64_t[]){2}, (int64_t[]){9, 4});
    tfpi_tensor *odd = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){5, -1});
    expect_failure(g, a, b, odd, "reshape", "requires a multiple of 5", 0);
    tfpi_tensor *two = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){-1, -1});
    expect_failure(g, a, b, two, "reshape", "only one size may be -1", 0);
    tfpi_tensor *outside = op_tensor(TFPI_INT64, (int64_t[]){1, 3}, 2, (int64_t[]){0, 3, 0});
    expect_failure(g, outside, b, c, "reshape", "indices[0, 1] = 3 is out of range [0, 3)", 0);
    free_all(a, b, c);
    free_all(odd, two, outside);
    gb_free(g);
}

static void test_sparse_fill_empty_rows(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_INT64, (int64_t[]){-1, 2}, 2);
    gb_placeholder(g, "b", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_placeholder(g, "c", TFPI_INT64, (int64_t[]){2}, 1);
    gb_const_string(g, "x", "x", 1);
    gb_node(g, "SparseFillEmptyRows", "fill", "a", "b", "c", "x", NULL);
    const char *outs[][2] = {{"values", "fill:1"}, {"empty", "fill:2"}, {"reverse", "fill:3"}};
    tfpi_dtype types[] = {TFPI_STRING, TFPI_BOOL, TFPI_INT64};
    for (int i = 0; i < 3; i++)
        gd_attr_set_type(gb_node(g, "Identity", outs[i][0], outs[i][1], NULL), "T", types[i]);
    /* tf.sparse.fill_empty_rows' documented example: indices [0,1],[0,3],[2,0],[3,1], values a b c d,
     * shape [5, 6], default x: indices [0,1],[0,3],[1,0],[2,0],[3,1],[4,0], values a b x c d x,
     * empty rows [F, T, F, F, T], reverse index map [0, 1, 3, 4] */
    tfpi_tensor *a = op_tensor(TFPI_INT64, (int64_t[]){4, 2}, 2, (int64_t[]){0, 1, 0, 3, 2, 0, 3, 1});
    tfpi_tensor *b = strings((int64_t[]){4}, 1, (const char *[]){"a", "b", "c", "d"});
    tfpi_tensor *c = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){5, 6});
    CHECK_TENSOR(run(g, a, b, c, "fill"), TFPI_INT64, 2, (int64_t[]){6, 2},
                 (int64_t[]){0, 1, 0, 3, 1, 0, 2, 0, 3, 1, 4, 0});
    CHECK_TENSOR(run(g, a, b, c, "values"), TFPI_STRING, 1, (int64_t[]){6},
                 (tfpi_bytes[]){B("a"), B("b"), B("x"), B("c"), B("d"), B("x")});
    CHECK_TENSOR(run(g, a, b, c, "empty"), TFPI_BOOL, 1, (int64_t[]){5}, (uint8_t[]){0, 1, 0, 0, 1});
    CHECK_TENSOR(run(g, a, b, c, "reverse"), TFPI_INT64, 1, (int64_t[]){4}, (int64_t[]){0, 1, 3, 4});
    /* no entries at all: every row gets the default */
    tfpi_tensor *none = op_tensor(TFPI_INT64, (int64_t[]){0, 2}, 2, NULL);
    tfpi_tensor *no_values = strings((int64_t[]){0}, 1, NULL);
    tfpi_tensor *shape2 = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){2, 3});
    CHECK_TENSOR(run(g, none, no_values, shape2, "fill"), TFPI_INT64, 2, (int64_t[]){2, 2}, (int64_t[]){0, 0, 1, 0});
    /* a negative row, a row past the dense shape, and a dense shape past the budget */
    tfpi_tensor *negative = op_tensor(TFPI_INT64, (int64_t[]){1, 2}, 2, (int64_t[]){-1, 0});
    tfpi_tensor *one = strings((int64_t[]){1}, 1, (const char *[]){"a"});
    expect_failure(g, negative, one, c, "fill", "indices(0, 0) is invalid: -1 is not in [0, 5)", 0);
    tfpi_tensor *past = op_tensor(TFPI_INT64, (int64_t[]){1, 2}, 2, (int64_t[]){5, 0});
    expect_failure(g, past, one, c, "fill", "indices(0, 0) is invalid: 5 is not in [0, 5)", 0);
    tfpi_tensor *huge = op_tensor(TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){(int64_t)1 << 40, 6});
    expect_failure(g, none, no_values, huge, "fill", "over the memory budget", 1 << 24);
    free_all(a, b, c);
    free_all(none, no_values, shape2);
    free_all(negative, one, past);
    tfpi_tensor_free(huge);
    gb_free(g);
}

/* ---- SparseSegmentSum / Mean / SqrtN, Unique ---- */

static void test_segments(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "data", TFPI_FLOAT, (int64_t[]){3, 4}, 2, (float[]){1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8});
    gb_placeholder(g, "a", TFPI_INT32, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_INT32, (int64_t[]){-1}, 1);
    gb_node(g, "SparseSegmentSum", "sum", "data", "a", "b", NULL);
    gb_node(g, "SparseSegmentMean", "mean", "data", "a", "b", NULL);
    gb_node(g, "SparseSegmentSqrtN", "sqrtn", "data", "a", "b", NULL);
    /* tf.sparse.segment_sum(c, [0, 1], [0, 0]) == [[0, 0, 0, 0]];
     * segment_sum(c, [0, 2], [0, 1]) == [[1, 2, 3, 4], [5, 6, 7, 8]] (TF's documentation) */
    tfpi_tensor *i01 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 1});
    tfpi_tensor *s00 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 0});
    CHECK_TENSOR(run(g, i01, s00, NULL, "sum"), TFPI_FLOAT, 2, (int64_t[]){1, 4}, (float[]){0, 0, 0, 0});
    tfpi_tensor *i02 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 2});
    tfpi_tensor *s01 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 1});
    CHECK_TENSOR(run(g, i02, s01, NULL, "sum"), TFPI_FLOAT, 2, (int64_t[]){2, 4}, (float[]){1, 2, 3, 4, 5, 6, 7, 8});
    /* tf.sparse.segment_mean(c, [0, 1, 2], [0, 1, 1]) == [[1, 2, 3, 4], [2, 2, 2, 2]]; segment 1
     * of ids [0, 2] is empty: zeros; sqrt_n of segment {0, 2}: (1+5, ...) / sqrt(2) */
    tfpi_tensor *i012 = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){0, 1, 2});
    tfpi_tensor *s011 = op_tensor(TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){0, 1, 1});
    CHECK_TENSOR(run(g, i012, s011, NULL, "mean"), TFPI_FLOAT, 2, (int64_t[]){2, 4}, (float[]){1, 2, 3, 4, 2, 2, 2, 2});
    tfpi_tensor *s02 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 2});
    CHECK_TENSOR(run(g, i01, s02, NULL, "mean"), TFPI_FLOAT, 2, (int64_t[]){3, 4},
                 (float[]){1, 2, 3, 4, 0, 0, 0, 0, -1, -2, -3, -4});
    CHECK_TENSOR_NEAR(run(g, i02, s00, NULL, "sqrtn"), 2, (int64_t[]){1, 4},
                      (float[]){6 / 1.41421356f, 8 / 1.41421356f, 10 / 1.41421356f, 12 / 1.41421356f}, 1e-6);
    /* no ids at all: no segments */
    tfpi_tensor *none = op_tensor(TFPI_INT32, (int64_t[]){0}, 1, NULL);
    CHECK_TENSOR(run(g, none, none, NULL, "sum"), TFPI_FLOAT, 2, (int64_t[]){0, 4}, NULL);
    /* an index outside data, a negative index, ids not sorted, an id past the budget */
    tfpi_tensor *i3 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, 3});
    expect_failure(g, i3, s01, NULL, "sum", "indices[1] == 3 out of range [0, 3)", 0);
    tfpi_tensor *im = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){-1, 0});
    expect_failure(g, im, s01, NULL, "mean", "indices[0] == -1 out of range", 0);
    tfpi_tensor *s10 = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){1, 0});
    expect_failure(g, i01, s10, NULL, "sum", "segment ids are not increasing", 0);
    tfpi_tensor *far = op_tensor(TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){0, INT32_MAX});
    expect_failure(g, i01, far, NULL, "sum", "over the memory budget", 1 << 24);
    free_all(i01, s00, i02);
    free_all(s01, i012, s011);
    free_all(s02, none, i3);
    free_all(im, s10, far);
    gb_free(g);
}

static void test_unique(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_INT32, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_STRING, (int64_t[]){-1}, 1);
    gb_placeholder(g, "c", TFPI_FLOAT, (int64_t[]){-1}, 1);
    const char *names[] = {"u_int", "u_str", "u_float"}, *inputs[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        gb_node(g, "Unique", names[i], inputs[i], NULL);
        char idx[32], in[40];
        snprintf(idx, sizeof idx, "%s_idx", names[i]);
        snprintf(in, sizeof in, "%s:1", names[i]);
        gd_attr_set_type(gb_node(g, "Identity", idx, in, NULL), "T", TFPI_INT32);
    }
    /* tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8]): y = [1, 2, 4, 7, 8], idx = [0, 0, 1, 2, 2, 2, 3, 4, 4] */
    tfpi_tensor *a = op_tensor(TFPI_INT32, (int64_t[]){9}, 1, (int32_t[]){1, 1, 2, 4, 4, 4, 7, 8, 8});
    tfpi_tensor *b = strings((int64_t[]){5}, 1, (const char *[]){"the", "", "cat", "the", ""});
    float nan = __builtin_nanf("");
    tfpi_tensor *c = op_tensor(TFPI_FLOAT, (int64_t[]){5}, 1, (float[]){-0.0f, nan, 0.0f, nan, 2});
    CHECK_TENSOR(run(g, a, b, c, "u_int"), TFPI_INT32, 1, (int64_t[]){5}, (int32_t[]){1, 2, 4, 7, 8});
    CHECK_TENSOR(run(g, a, b, c, "u_int_idx"), TFPI_INT32, 1, (int64_t[]){9}, (int32_t[]){0, 0, 1, 2, 2, 2, 3, 4, 4});
    CHECK_TENSOR(run(g, a, b, c, "u_str"), TFPI_STRING, 1, (int64_t[]){3}, (tfpi_bytes[]){B("the"), B(""), B("cat")});
    CHECK_TENSOR(run(g, a, b, c, "u_str_idx"), TFPI_INT32, 1, (int64_t[]){5}, (int32_t[]){0, 1, 2, 0, 1});
    /* -0 equals 0; each NaN is a value of its own */
    CHECK_TENSOR(run(g, a, b, c, "u_float_idx"), TFPI_INT32, 1, (int64_t[]){5}, (int32_t[]){0, 1, 0, 2, 3});
    tfpi_tensor *empty = op_tensor(TFPI_INT32, (int64_t[]){0}, 1, NULL);
    CHECK_TENSOR(run(g, empty, b, c, "u_int"), TFPI_INT32, 1, (int64_t[]){0}, NULL);
    free_all(a, b, c);
    tfpi_tensor_free(empty);
    gb_free(g);
}

/* ---- Bincount, Cumsum, BroadcastArgs ---- */

static void test_bincount(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "a", TFPI_INT32, (int64_t[]){-1}, 1);
    gb_placeholder(g, "b", TFPI_INT32, NULL, 0);
    gb_placeholder(g, "c", TFPI_FLOAT, (int64_t[]){-1}, 1);
    gb_node(g, "Bincount", "bins", "a", "b", "c", NULL);
    /* tf.math.bincount([1, 1, 2, 3, 2, 4, 4, 5]) == [0, 2, 2, 1, 2, 1] (TF's documentation);
     * -1 and 9 are outside [0, 6) and ignored */
    tfpi_tensor *a = op_tensor(TFPI_INT32, (int64_t[]){10}, 1, (int32_t[]){1, 1, 2, 3, 2, 4, 4, 5, -1, 9});
    int32_t six = 6, minus = -1, huge = INT32_MAX;
    tfpi_tensor *b = op_tensor(TFPI_INT32, NULL, 0, &six);
    tfpi_tensor *unweighted = op_tensor(TFPI_FLOAT, (int64_t[]){0}, 1, NULL);
    CHECK_TENSOR(run(g, a, b, unweighted, "bins"), TFPI_FLOAT, 1, (int64_t[]){6}, (float[]){0, 2, 2, 1, 2, 1});
    tfpi_tensor *w = op_tensor(TFPI_FLOAT, (int64_t[]){10}, 1, (float[]){0.5f, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    CHECK_TENSOR(run(g, a, b, w, "bins"), TFPI_FLOAT, 1, (int64_t[]){6}, (float[]){0, 1.5f, 6, 3, 11, 7});
    tfpi_tensor *neg = op_tensor(TFPI_INT32, NULL, 0, &minus), *big = op_tensor(TFPI_INT32, NULL, 0, &huge);
    expect_failure(g, a, neg, w, "bins", "size (-1) must be non-negative", 0);
    expect_failure(g, a, big, w, "bins", "over the memory budget", 1 << 24);
    free_all(a, b, unweighted);
    free_all(w, neg, big);
    gb_free(g);
}

static void test_cumsum_broadcast_args(void)
{
    gb_graph *g = gb_new();
    gb_const(g, "x", TFPI_FLOAT, (int64_t[]){2, 3}, 2, (float[]){1, 2, 3, 4, 5, 6});
    int32_t zero = 0, last = -1, two = 2;
    gb_const(g, "axis0", TFPI_INT32, NULL, 0, &zero);
    gb_const(g, "axis_last", TFPI_INT32, NULL, 0, &last);
    gb_const(g, "axis2", TFPI_INT32, NULL, 0, &two);
    gb_node(g, "Cumsum", "rows", "x", "axis_last", NULL);
    gb_node(g, "Cumsum", "cols", "x", "axis0", NULL);
    gd_attr_set_bool(gb_node(g, "Cumsum", "exclusive", "x", "axis_last", NULL), "exclusive", true);
    gd_attr_set_bool(gb_node(g, "Cumsum", "reverse", "x", "axis_last", NULL), "reverse", true);
    Tfpi__NodeDef *both = gb_node(g, "Cumsum", "both", "x", "axis_last", NULL);
    gd_attr_set_bool(both, "exclusive", true);
    gd_attr_set_bool(both, "reverse", true);
    gb_node(g, "Cumsum", "bad_axis", "x", "axis2", NULL);
    /* tf.cumsum([a, b, c]) == [a, a + b, a + b + c]; exclusive: [0, a, a + b]; reverse:
     * [a + b + c, b + c, c]; both: [b + c, c, 0] (TF's documentation) */
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "rows"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){1, 3, 6, 4, 9, 15});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "cols"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){1, 2, 3, 5, 7, 9});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "exclusive"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){0, 1, 3, 0, 4, 9});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "reverse"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){6, 5, 3, 15, 11, 6});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "both"), TFPI_FLOAT, 2, (int64_t[]){2, 3}, (float[]){5, 3, 0, 11, 6, 0});
    expect_failure(g, NULL, NULL, NULL, "bad_axis", "axis 2 is out of range for rank 2", 0);
    /* tf.raw_ops.BroadcastArgs(s0=[2, 1, 3], s1=[4, 3]) == [2, 4, 3]; [2, 3] and [4] do not broadcast */
    gb_const(g, "s0", TFPI_INT32, (int64_t[]){3}, 1, (int32_t[]){2, 1, 3});
    gb_const(g, "s1", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){4, 3});
    gb_const(g, "s2", TFPI_INT32, (int64_t[]){1}, 1, (int32_t[]){4});
    gb_const(g, "empty", TFPI_INT32, (int64_t[]){0}, 1, NULL);
    gb_node(g, "BroadcastArgs", "args", "s0", "s1", NULL);
    gb_node(g, "BroadcastArgs", "scalar", "s0", "empty", NULL);
    gb_node(g, "BroadcastArgs", "clash", "s0", "s2", NULL);
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "args"), TFPI_INT32, 1, (int64_t[]){3}, (int32_t[]){2, 4, 3});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "scalar"), TFPI_INT32, 1, (int64_t[]){3}, (int32_t[]){2, 1, 3});
    expect_failure(g, NULL, NULL, NULL, "clash", "Incompatible shapes", 0);
    gb_free(g);
}

/* ---- MutableHashTableV2 ---- */

static void string_const(gb_graph *g, const char *name, int64_t n, const char *const *texts)
{
    Tfpi__NodeDef *c = gb_node(g, "Const", name, NULL);
    gd_attr_set_type(c, "dtype", TFPI_STRING);
    Tfpi__TensorProto *t = gd_tensor_new(TFPI_STRING, &n, 1, NULL, 0);
    t->n_string_val = (size_t)n;
    t->string_val = calloc((size_t)n, sizeof *t->string_val);
    for (int64_t i = 0; i < n; i++) {
        t->string_val[i].len = strlen(texts[i]);
        t->string_val[i].data = (uint8_t *)strdup(texts[i]);
    }
    gd_attr_set_tensor(c, "value", t);
}

static void test_mutable_table(void)
{
    gb_graph *g = gb_new();
    Tfpi__NodeDef *table = gb_node(g, "MutableHashTableV2", "table", NULL);
    gd_attr_set_type(table, "key_dtype", TFPI_STRING);
    gd_attr_set_type(table, "value_dtype", TFPI_INT64);
    string_const(g, "k1", 2, (const char *[]){"a", "b"});
    gb_const(g, "v1", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){1, 2});
    string_const(g, "k2", 2, (const char *[]){"b", "c"});
    gb_const(g, "v2", TFPI_INT64, (int64_t[]){2}, 1, (int64_t[]){20, 30});
    string_const(g, "query", 4, (const char *[]){"a", "b", "c", "d"});
    int64_t none = -1;
    gb_const(g, "default", TFPI_INT64, NULL, 0, &none);
    gb_node(g, "LookupTableInsertV2", "insert1", "table", "k1", "v1", NULL);
    gb_node(g, "LookupTableInsertV2", "insert2", "table", "k2", "v2", "^insert1", NULL);
    gb_node(g, "LookupTableFindV2", "empty", "table", "query", "default", NULL);
    gb_node(g, "LookupTableFindV2", "found", "table", "query", "default", "^insert2", NULL);
    gb_node(g, "LookupTableSizeV2", "size", "table", "^insert2", NULL);
    /* tf.lookup.experimental.MutableHashTable: empty until inserted (the default for every key);
     * insert(["a", "b"], [1, 2]) then insert(["b", "c"], [20, 30]): a 1, b 20, c 30, d the default */
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "empty"), TFPI_INT64, 1, (int64_t[]){4}, (int64_t[]){-1, -1, -1, -1});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "found"), TFPI_INT64, 1, (int64_t[]){4}, (int64_t[]){1, 20, 30, -1});
    CHECK_TENSOR(run(g, NULL, NULL, NULL, "size"), TFPI_INT64, 0, NULL, (int64_t[]){3});
    gb_free(g);
}

int main(void)
{
    RUN(test_fingerprint64);
    RUN(test_hash_bucket);
    RUN(test_string_split);
    RUN(test_string_split_v2);
    RUN(test_string_ngrams);
    RUN(test_join_lower);
    RUN(test_substr);
    RUN(test_to_number);
    RUN(test_as_string);
    RUN(test_sparse_reshape);
    RUN(test_sparse_fill_empty_rows);
    RUN(test_segments);
    RUN(test_unique);
    RUN(test_bincount);
    RUN(test_cumsum_broadcast_args);
    RUN(test_mutable_table);
    return check_summary();
}
