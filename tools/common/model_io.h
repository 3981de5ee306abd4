/* model_io.h - the inputs and outputs a model file declares, spelled as
 * benchmark_model's flags, for a model run without them: a .tflite's
 * inputs and outputs (its tensors' shapes and types), or the keys of the
 * signature a SavedModel is served through. */
#ifndef TFPI_MODEL_IO_H
#define TFPI_MODEL_IO_H

#include <stdbool.h>

#include "tfpi.h"

typedef struct model_io {
    char *inputs;  /* "a,b" */
    char *shapes;  /* "1,224,224,3:1,10" (a size the model leaves open: 1) */
    char *types;   /* "uint8,float" */
    char *outputs; /* "x,y" */
} model_io;

/* true with io filled if the model declares its inputs and outputs (io
 * then needs model_io_free); false, io empty, if it declares none. */
bool model_io_read(const tfpi_graph *graph, model_io *io);
void model_io_free(model_io *io);

#endif
