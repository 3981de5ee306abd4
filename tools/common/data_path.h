/* data_path.h - where the examples find their default model, labels and
 * image, first found: downloads/<file> in the build tree (what
 * download_dependencies.sh fetched), the file's own name in the current
 * folder, the same beside the program (the README's deploy recipe copies
 * them there), then <dir of the program>/../share/tfpi/<file>, where `make
 * install` and the tfpi-tools package put them. */
#ifndef TFPI_DATA_PATH_H
#define TFPI_DATA_PATH_H

#include <stddef.h>

/* Writes the path of the default data file `name` (e.g.
 * "models/mobilenet_v1_0.25_224/labels.txt") to buf and returns buf, or
 * returns NULL if none of the places has it. */
const char *data_path(const char *name, char *buf, size_t size);

/* "frozen_graph.pb is neither in the current folder nor beside label_image
 * (nor in downloads/ or share/tfpi)": why data_path found nothing, for
 * error messages. */
const char *data_path_missing(const char *name, char *buf, size_t size);

#endif
