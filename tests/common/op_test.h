/* op_test.h - helpers for the kernel tests that run small graphs built with
 * graph_builder: tensors from literal values, one session run of a graph
 * (with any feeds and fetches, or the feeds "a", "b", "c" and the fetch
 * "out"), float comparisons, and checks of a result's dtype, shape and
 * values or of an error naming the failing node. The CHECK_* macros report
 * the caller's file and line. */
#ifndef TFPI_OP_TEST_H
#define TFPI_OP_TEST_H

#include <stdbool.h>

#include "graph_builder.h"
#include "tfpi.h"

/* A new tensor holding a copy of data (zeros if data is NULL). */
tfpi_tensor *op_tensor(tfpi_dtype dtype, const int64_t *dims, int ndims, const void *data);

/* A new scalar string tensor holding `size` bytes (a file fed to a decoder). */
tfpi_tensor *op_string_tensor(const void *bytes, size_t size);

/* Loads g and runs it once on `threads` threads, feeding feeds[i] as
 * feed_names[i]; outputs[i] receives fetch i. Returns the run's code (the
 * message is in *status); the graph stays the caller's. */
tfpi_code op_run_graph(const gb_graph *g, int num_feeds, const char *const *feed_names,
                       tfpi_tensor *const *feeds, int num_fetches, const char *const *fetch_names,
                       tfpi_tensor **outputs, int threads, tfpi_status *status);

/* Loads g (and frees it), feeds feeds[0..n-1] as "a", "b", "c" with a
 * session of `threads` threads and returns the fetched "out", or NULL with
 * status set. */
tfpi_tensor *op_run(gb_graph *g, int num_feeds, tfpi_tensor *const *feeds, int threads, tfpi_status *status);

/* One fetch, feeding x as "x" if x is not NULL; NULL after a failed CHECK
 * if the run fails. */
tfpi_tensor *op_eval(const gb_graph *g, tfpi_tensor *x, const char *fetch);

/* Deterministic pseudo-random float in [lo, hi). */
float op_random(float lo, float hi);

/* got within rel * max(1, |want|) of want; NaN matches NaN, inf only itself. */
bool op_near(double got, double want, double rel);

/* CHECKs that out is NULL (freeing it otherwise) and that the message names
 * node 'out' and contains every one of the n needles. */
void op_expect_error(tfpi_tensor *out, const tfpi_status *status, const char *const *needles, int n);

/* Expects t (freed here) to have this dtype, shape and exactly these
 * element values (strings compared by content). */
#define CHECK_TENSOR(...) op_check_tensor(__FILE__, __LINE__, __VA_ARGS__)
void op_check_tensor(const char *file, int line, tfpi_tensor *t, tfpi_dtype dtype, int ndims,
                     const int64_t *dims, const void *values);

/* The same for float tensors, each value within tol. */
#define CHECK_TENSOR_NEAR(...) op_check_near(__FILE__, __LINE__, __VA_ARGS__)
void op_check_near(const char *file, int line, tfpi_tensor *t, int ndims, const int64_t *dims,
                   const float *values, double tol);

/* Expects running g (x fed as "x" if given) for `fetch` to fail with a
 * message that names node `node` and contains `fragment`. */
#define CHECK_FAILS(...) op_check_fails(__FILE__, __LINE__, __VA_ARGS__)
void op_check_fails(const char *file, int line, const gb_graph *g, tfpi_tensor *x, const char *fetch,
                    const char *node, const char *fragment);

#endif
