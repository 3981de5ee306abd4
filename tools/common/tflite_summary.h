/* tflite_summary.h - summarize_graph's account of a .tflite file: the
 * schema version and description, each subgraph's inputs and outputs, the
 * signatures (keys, tensors), the operators by count, every tensor of the
 * subgraph served (name, type, shape, shape signature, quantization,
 * constant bytes) and the metadata entries. */
#ifndef TFPI_TFLITE_SUMMARY_H
#define TFPI_TFLITE_SUMMARY_H

#include "tfpi.h"

/* Prints the summary of the .tflite that graph was loaded from (path names
 * it); returns 0, or 1 if graph is not a .tflite model. */
int tflite_summary_print(const tfpi_graph *graph, const char *path);

#endif
