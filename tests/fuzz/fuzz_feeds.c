/* fuzz_feeds.c - libFuzzer target for the feed and fetch path the Python
 * module drives through the C API (python/tfpi/_tensors.py, session.py):
 * tensors of any dtype number, rank and size made with tfpi_tensor_new,
 * string elements holding any bytes (NULs included) set with
 * tfpi_tensor_set_string at any index, feed and fetch names of any bytes
 * ("x:7", "^x", "", a signature-less key), fed to one session of a fixed
 * graph (float, int32 and string Placeholders into Identity, Neg, Cast and
 * DecodeWav) and run twice. Every failure must be a status, never a crash,
 * leak or sanitizer report.
 * Build and run with `make fuzz FUZZ_SECONDS=N` (tests/fuzz/run_fuzzers.sh). */
#include <stdlib.h>
#include <string.h>

#include "graph.pb-c.h"
#include "pbtxt.h"
#include "tfpi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char GRAPH[] =
    "node { name: 'x_f' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }\n"
    "node { name: 'x_i' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } }\n"
    "       attr { key: 'shape' value { shape { dim { size: -1 } } } } }\n"
    "node { name: 'x_s' op: 'Placeholder' attr { key: 'dtype' value { type: DT_STRING } } }\n"
    "node { name: 'y_f' op: 'Identity' input: 'x_f' attr { key: 'T' value { type: DT_FLOAT } } }\n"
    "node { name: 'y_i' op: 'Neg' input: 'x_i' attr { key: 'T' value { type: DT_INT32 } } }\n"
    "node { name: 'c_i' op: 'Cast' input: 'x_i' attr { key: 'SrcT' value { type: DT_INT32 } }\n"
    "       attr { key: 'DstT' value { type: DT_FLOAT } } }\n"
    "node { name: 'y_s' op: 'Identity' input: 'x_s' attr { key: 'T' value { type: DT_STRING } } }\n"
    "node { name: 'wav' op: 'DecodeWav' input: 'x_s' }\n";

static const char *const NAMES[] = {"x_f", "x_i", "x_s", "y_f", "y_i", "c_i", "y_s", "wav", "wav:1", "wav:2",
                                    "x_f:0", "x_f:1", "y_f:-1", "^y_f", "", ":", "nosuch", "x_f:99999999999"};

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static unsigned take(reader *r, unsigned bound)
{
    return r->p < r->end ? *r->p++ % bound : 0;
}

/* A name from the list, or up to 15 bytes of the input (NUL-terminated). */
static const char *take_name(reader *r, char *buf)
{
    unsigned k = take(r, sizeof NAMES / sizeof NAMES[0] + 1);
    if (k < sizeof NAMES / sizeof NAMES[0])
        return NAMES[k];
    size_t n = take(r, 16);
    n = n < (size_t)(r->end - r->p) ? n : (size_t)(r->end - r->p);
    memcpy(buf, r->p, n);
    buf[n] = '\0';
    r->p += n;
    return buf;
}

/* A tensor of a dtype number, rank and dims from the input (a few edge
 * values), filled from it; NULL when the API refuses the description. A
 * size that overflows goes to the API, which must refuse it; one that fits
 * but is over 256K elements (string tensors: 64K, as every string a run
 * copies is an allocation, about 1 us each under ASan) is skipped, as the
 * Python module checks a feed against the memory budget before it asks for
 * the tensor. The session's budget is 1 MB, so feeds and results still
 * cross it; with 4M elements and 16 MB, zeroing and unmapping big tensors
 * took most of the time. */
static tfpi_tensor *take_tensor(reader *r)
{
    static const int64_t edge[] = {0, 1, 2, 3, 7, -1, (int64_t)1 << 40, INT64_MAX};
    tfpi_dtype dtype = (tfpi_dtype)take(r, 24);
    int ndims = (int)take(r, TFPI_MAX_DIMS + 2) - 1;
    int64_t dims[TFPI_MAX_DIMS + 1];
    for (int i = 0; i < ndims; i++)
        dims[i] = edge[take(r, 8)];
    int64_t count = 1;
    bool overflows = false;
    for (int i = 0; i < ndims; i++)
        overflows = overflows || (dims[i] >= 0 && __builtin_mul_overflow(count, dims[i], &count));
    if (!overflows && count > ((int64_t)1 << (dtype == TFPI_STRING ? 16 : 18)))
        return NULL;
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(dtype, dims, ndims, &status);
    if (!t)
        return NULL;
    int64_t n = tfpi_tensor_num_elements(t);
    if (dtype == TFPI_STRING) {
        for (unsigned k = take(r, 4); k > 0; k--) { /* any index, any bytes */
            size_t index = take(r, 2) ? (size_t)take(r, 8) : (size_t)-1 - take(r, 2), len = take(r, 64);
            len = len < (size_t)(r->end - r->p) ? len : (size_t)(r->end - r->p);
            tfpi_tensor_set_string(t, index, r->p, len, &status);
            r->p += len;
        }
    } else if (n > 0) {
        size_t bytes = tfpi_tensor_byte_size(t), have = (size_t)(r->end - r->p);
        memcpy(tfpi_tensor_data(t), r->p, bytes < have ? bytes : have);
        r->p += bytes < have ? bytes : have;
    }
    return t;
}

static tfpi_graph *the_graph(void)
{
    static tfpi_graph *graph;
    if (!graph) {
        tfpi_status status;
        ProtobufCMessage *def =
            pbtxt_parse(&tfpi__graph_def__descriptor, GRAPH, sizeof GRAPH - 1, "fuzz_feeds", NULL, &status);
        size_t packed_size = def ? protobuf_c_message_get_packed_size(def) : 0;
        uint8_t *packed = def ? malloc(packed_size + 1) : NULL;
        if (!packed)
            abort();
        protobuf_c_message_pack(def, packed);
        graph = tfpi_graph_load_buffer(packed, packed_size, &status);
        free(packed);
        protobuf_c_message_free_unpacked(def, NULL);
        if (!graph)
            abort();
    }
    return graph;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, data + size};
    char name_buf[8][16];
    const char *feed_names[4], *fetch_names[4];
    tfpi_tensor *feeds[4] = {0};
    int num_feeds = (int)take(&r, 5), num_fetches = (int)take(&r, 5);
    for (int i = 0; i < num_feeds; i++) {
        feed_names[i] = take_name(&r, name_buf[i]);
        feeds[i] = take_tensor(&r);
    }
    for (int i = 0; i < num_fetches; i++)
        fetch_names[i] = take_name(&r, name_buf[4 + i]);
    tfpi_session_options options = {.num_threads = 1 + (int)take(&r, 2), .max_memory_bytes = 1 << 20};
    tfpi_status status;
    tfpi_session *session = tfpi_session_new(the_graph(), &options, &status);
    for (int run = 0; session && run < 2; run++) {
        tfpi_tensor *out[4] = {0};
        bool all_made = true;
        for (int i = 0; i < num_feeds; i++)
            all_made = all_made && feeds[i];
        if (all_made && tfpi_session_run(session, feed_names, feeds, num_feeds, fetch_names, out, num_fetches,
                                         &status) == TFPI_OK)
            for (int i = 0; i < num_fetches; i++)
                tfpi_tensor_free(out[i]);
    }
    tfpi_session_free(session);
    for (int i = 0; i < num_feeds; i++)
        tfpi_tensor_free(feeds[i]);
    return 0;
}
