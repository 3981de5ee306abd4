/* benchmark_record.h - TensorFlow's benchmark record (what its TestReporter
 * writes for benchmark_model --benchmark_name=NAME --output_prefix=PREFIX):
 * a file PREFIX + NAME ('/' in NAME written as "__") holding a serialized
 * BenchmarkEntries message (tensorflow/core/util/test_log.proto) with one
 * BenchmarkEntry: name = 1, iters = 2, cpu_time = 3, wall_time = 4 (seconds
 * per iteration), throughput = 5. */
#ifndef TFPI_BENCHMARK_RECORD_H
#define TFPI_BENCHMARK_RECORD_H

#include <stdint.h>

#include "tfpi.h"

typedef struct benchmark_entry {
    const char *name;
    int64_t iters;
    double cpu_time, wall_time, throughput; /* per iteration; -1: not measured */
} benchmark_entry;

/* Writes the record; an existing file is an error, as in TensorFlow. */
tfpi_code benchmark_record_write(const char *prefix, const benchmark_entry *entry, tfpi_status *status);

#endif
