/* test_untrusted_session.c - the session-level defences against hostile
 * models that the command-line corpus (tests/cli/test_hostile_models.sh)
 * cannot reach: the memory budget through the C API, and a session run
 * twice with a feed the fetches do not need (found by fuzz_graphdef), and
 * what fuzz_feeds found on the feed path. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "graph_builder.h"
#include "op_test.h"
#include "tfpi.h"

/* x -> Fill(dims, 2.5) of [rows, 256] floats, fetched as "f". */
static gb_graph *fill_graph(int32_t rows)
{
    gb_graph *g = gb_new();
    gb_const(g, "dims", TFPI_INT32, (int64_t[]){2}, 1, (int32_t[]){rows, 256});
    gb_const(g, "value", TFPI_FLOAT, NULL, 0, (float[]){2.5f});
    gb_node(g, "Fill", "f", "dims", "value", NULL);
    return g;
}

static tfpi_tensor *run_fill(int32_t rows, int64_t budget, tfpi_status *status)
{
    gb_graph *g = fill_graph(rows);
    tfpi_graph *graph = gb_load(g, status);
    tfpi_session_options options = {.num_threads = 1, .max_memory_bytes = budget};
    tfpi_session *session = graph ? tfpi_session_new(graph, &options, status) : NULL;
    const char *fetch = "f";
    tfpi_tensor *out = NULL;
    if (session && tfpi_session_run(session, NULL, NULL, 0, &fetch, &out, 1, status) != TFPI_OK)
        out = NULL;
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
    return out;
}

static void test_memory_budget(void)
{
    tfpi_status status;
    /* 1024 x 256 floats: 1 MiB, over a budget of 1,000,000 bytes. */
    tfpi_tensor *out = run_fill(1024, 1000000, &status);
    CHECK(!out);
    CHECK_MSG(strstr(status.message, "node 'f' (Fill)") && strstr(status.message, "[1024,256]") &&
                  strstr(status.message, "1048576 bytes") && strstr(status.message, "budget of 1000000 bytes"),
              "%s", status.message);
    CHECK_EQ_INT(status.code, TFPI_OUT_OF_MEMORY);
    /* Within the budget (and with none at all) the same graph runs. */
    int64_t budgets[2] = {2000000, -1};
    for (int i = 0; i < 2; i++) {
        out = run_fill(1024, budgets[i], &status);
        CHECK_MSG(out, "%s", status.message);
        if (!out)
            continue;
        CHECK_EQ_INT(tfpi_tensor_num_elements(out), 1024 * 256);
        CHECK(((const float *)tfpi_tensor_const_data(out))[1024 * 256 - 1] == 2.5f);
        tfpi_tensor_free(out);
    }
    CHECK(tfpi_default_max_memory() >= (int64_t)1 << 20);
}

/* fuzz_graphdef: a feed whose node the fetch does not need has no output
 * slots; the second run (plan reuse) must not look at them. */
static void test_unneeded_feed_run_twice(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_FLOAT, (int64_t[]){2}, 1);
    gb_const(g, "c", TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){3, 4});
    gb_node(g, "Neg", "y", "c", NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK_MSG(session, "%s", status.message);
    tfpi_tensor *x = op_tensor(TFPI_FLOAT, (int64_t[]){2}, 1, (float[]){1, 2});
    const char *feed = "x", *fetch = "y";
    for (int run = 0; session && run < 2; run++) {
        tfpi_tensor *out = NULL;
        CHECK_MSG(tfpi_session_run(session, &feed, &x, 1, &fetch, &out, 1, &status) == TFPI_OK, "%s",
                  status.message);
        if (out)
            CHECK_TENSOR(out, TFPI_FLOAT, 1, (int64_t[]){2}, (float[]){-3, -4});
    }
    tfpi_tensor_free(x);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

/* The C API's string setter takes a size_t index: (size_t)-1 read and
 * freed element -1 when it was compared as a signed number. */
static void test_set_string_index_range(void)
{
    tfpi_status status;
    tfpi_tensor *t = tfpi_tensor_new(TFPI_STRING, (int64_t[]){2}, 1, &status);
    CHECK_MSG(t, "%s", status.message);
    if (!t)
        return;
    size_t bad[] = {2, (size_t)-1, SIZE_MAX / 2 + 1}; /* the last: negative as a signed size_t */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ_INT(tfpi_tensor_set_string(t, bad[i], "ab", 2, &status), TFPI_INVALID_ARGUMENT);
        CHECK_MSG(strstr(status.message, "out of range"), "%s", status.message);
    }
    CHECK_EQ_INT(tfpi_tensor_set_string(t, 1, "ab", 2, &status), TFPI_OK);
    const tfpi_bytes *s = tfpi_tensor_const_data(t);
    CHECK(s[1].size == 2 && memcmp(s[1].data, "ab", 2) == 0 && s[0].size == 0);
    tfpi_tensor_free(t);
}

/* fuzz_feeds: "x" and "x:0" fed in one run (a string, then bytes) leaked
 * the first copy; TensorFlow refuses a tensor fed more than once. An empty
 * feed (no data pointer) is copied without touching its data. */
static void test_feed_twice_and_empty_feed(void)
{
    gb_graph *g = gb_new();
    gb_placeholder(g, "x", TFPI_STRING, NULL, -1);
    gb_node(g, "Identity", "y", "x", NULL);
    tfpi_status status;
    tfpi_graph *graph = gb_load(g, &status);
    tfpi_session *session = graph ? tfpi_session_new(graph, NULL, &status) : NULL;
    CHECK_MSG(session, "%s", status.message);
    tfpi_tensor *s = tfpi_tensor_new(TFPI_STRING, (int64_t[]){1}, 1, &status);
    tfpi_tensor *empty = tfpi_tensor_new(TFPI_STRING, (int64_t[]){0}, 1, &status);
    CHECK(s && empty && tfpi_tensor_set_string(s, 0, "abc", 3, &status) == TFPI_OK);
    const char *feeds[2] = {"x", "x:0"}, *fetch = "y";
    tfpi_tensor *values[2] = {s, s}, *out = NULL;
    CHECK_EQ_INT(session ? (int)tfpi_session_run(session, feeds, values, 2, &fetch, &out, 1, &status) : -1,
                 TFPI_INVALID_ARGUMENT);
    CHECK_MSG(strcmp(status.message, "feed 'x:0': tensor x:0 is fed more than once") == 0, "%s", status.message);
    CHECK(!out);
    CHECK_MSG(session && tfpi_session_run(session, feeds, &empty, 1, &fetch, &out, 1, &status) == TFPI_OK, "%s",
              status.message);
    CHECK(out && tfpi_tensor_num_elements(out) == 0);
    tfpi_tensor_free(out);
    tfpi_tensor_free(s);
    tfpi_tensor_free(empty);
    tfpi_session_free(session);
    tfpi_graph_free(graph);
    gb_free(g);
}

int main(void)
{
    RUN(test_memory_budget);
    RUN(test_unneeded_feed_run_twice);
    RUN(test_set_string_index_range);
    RUN(test_feed_twice_and_empty_feed);
    return check_summary();
}
