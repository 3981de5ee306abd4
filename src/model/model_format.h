/* model_format.h - names the model formats tfpi does not run (Keras HDF5 and .keras, ONNX, a checkpoint's own files, a SavedModel's
 * inner saved_model.pb), for the one-line error a user gets instead of a
 * protobuf parse error, with what to do instead. */
#ifndef TFPI_MODEL_FORMAT_H
#define TFPI_MODEL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* "PATH: a Keras HDF5 model (.h5): ..." into buf when data (the
 * file at path) is a format tfpi recognises but does not load as a graph;
 * NULL otherwise. */
const char *tp_model_format_hint(const uint8_t *data, size_t size, const char *path, char *buf, size_t bufsize);

/* For a path that does not exist: "PATH is a checkpoint prefix ..." when
 * PATH.index does; NULL otherwise. */
const char *tp_model_missing_hint(const char *path, char *buf, size_t bufsize);

#endif
