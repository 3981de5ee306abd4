/* test_files.h - reading whole test data files (WAV, JPEG, PNG) into memory
 * for tests that feed encoded bytes to a graph, and listing the reference
 * sets of ../shared/testdata. */
#ifndef TFPI_TEST_FILES_H
#define TFPI_TEST_FILES_H

#include <stddef.h>
#include <stdint.h>

/* The file's bytes (malloc'd, free them) and their count; NULL and a failed
 * CHECK naming the file if it cannot be read or is empty. */
uint8_t *read_test_file(const char *path, size_t *size);

/* The stems (file names before ".tf_logits.f32") of a tf_reference/ set
 * under ../shared/testdata, sorted; returns their count (at most max). */
int reference_stems(const char *set_dir, char stems[][64], int max);

#endif
