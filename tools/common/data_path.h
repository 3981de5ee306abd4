/* data_path.h - where the examples find their default model, labels and
 * image: downloads/<file> in the build tree (what download_dependencies.sh
 * fetched), else <dir of the program>/../share/tfpi/<file>, where
 * `make install` and the tfpi-tools package put them. */
#ifndef TFPI_DATA_PATH_H
#define TFPI_DATA_PATH_H

#include <stddef.h>

/* Writes the path of the default data file `name` (e.g.
 * "models/mobilenet_v1_0.25_224/labels.txt") to buf and returns buf: the
 * first of the two places that has it, or the build-tree path if neither
 * does (so a missing file is reported under the name the README gives). */
const char *data_path(const char *name, char *buf, size_t size);

#endif
