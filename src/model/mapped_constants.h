/* mapped_constants.h - a binary GraphDef's 8-bit constants read in place
 * from the model file's mapping instead of from a private copy, and
 * dropping the pages of constants a kernel no longer reads.
 *
 * While a mapped file is parsed, tp_mapped_constants_note finds where each
 * large 8-bit Const's tensor_content lies in the file; once the graph is
 * built, tp_mapped_constants_adopt points those tensors at the file, frees
 * the parser's copies and makes the graph keep the mapping (it unmaps it
 * when freed). Such bytes, and the weights of .tflite and memmapped models
 * mapped from a file, are clean pages of a private read-only mapping: once
 * a kernel has packed them, tp_graph_drop_constant_pages gives them back to
 * the kernel, and anything that reads them later (another session's plan,
 * summarize_graph, get_tensor) reads them from the file again. The file
 * must not change while the graph lives (as for every mapped model). */
#ifndef TFPI_MAPPED_CONSTANTS_H
#define TFPI_MAPPED_CONSTANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/graph_memmapped.h"

/* Where noted constants lie in the file (filled while parsing). */
typedef struct tp_mapped_note {
    const Tfpi__NodeDef *def;
    const Tfpi__TensorProto *tensor;
    const uint8_t *copy;    /* the parser's copy of the bytes */
    const uint8_t *in_file; /* the same bytes in the mapping */
} tp_mapped_note;

typedef struct tp_mapped_notes {
    tp_mapped_note *items;
    size_t n, cap;
} tp_mapped_notes;

/* Notes def (unpacked from wire[0..size) of the mapping) if it is a Const
 * whose value is an 8-bit tensor_content of a page or more; false only if
 * out of memory. */
bool tp_mapped_constants_note(tp_mapped_notes *notes, const Tfpi__NodeDef *def, const uint8_t *wire, size_t size);

/* Points every noted tensor still held by g's nodes at the file and frees
 * its copy; if there was one, g keeps the mapping (bytes->release is then
 * NULL). Frees the notes. */
void tp_mapped_constants_adopt(tfpi_graph *g, tp_mapped_notes *notes, tp_model_bytes *bytes);

#endif
