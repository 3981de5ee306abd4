/* graphdef_io.h - whole GraphDef messages in and out of files for the graph
 * tools (summarize_graph, transform_graph, convert_graphdef_memmapped_format,
 * print_required_ops, graph_to_dot): binary .pb, text .pbtxt, and the
 * GraphDef inside a memmapped model; and models for the tools that run them,
 * text ones included. */
#ifndef TFPI_GRAPHDEF_IO_H
#define TFPI_GRAPHDEF_IO_H

#include <stdbool.h>

#include "graph.pb-c.h"
#include "tfpi.h"

typedef enum graph_format {
    GRAPH_FORMAT_BINARY,
    GRAPH_FORMAT_TEXT,
    GRAPH_FORMAT_MEMMAPPED
} graph_format;

/* Reads a GraphDef, telling the format by content (a name ending in .pbtxt
 * or .txt is always read as text). A SavedModel directory, a training
 * directory or a .meta file comes back frozen for its serving signature
 * (freeze.h). With inline_regions, the ImmutableConst
 * nodes of a memmapped model come back as Const nodes holding a copy of
 * their region; otherwise they stay. *format may be NULL. Free the result
 * with tfpi__graph_def__free_unpacked. */
Tfpi__GraphDef *graphdef_read(const char *path, bool inline_regions, graph_format *format,
                              tfpi_status *status);

/* A SavedModel directory, a training directory or a .meta file (what
 * model_source_is_model accepts): the graph of its signature, frozen; or,
 * not frozen, pruned to what every signature needs (the whole graph when
 * it has none; a TF2 graph flat, calls inlined and loops lowered). */
Tfpi__GraphDef *graphdef_read_model(const char *path, bool freeze, tfpi_status *status);

/* For a tool's main: the graph its required --in_graph flag names (NULL
 * when the flag was not given), read without inlining regions; NULL after
 * printing the error to stderr. */
Tfpi__GraphDef *graphdef_read_in_graph(const char *in_graph);

/* For the tools that run a model: a text GraphDef (a .pbtxt name, or a
 * file that is text) through the text parser, anything else through
 * tfpi_graph_load with options (binary and memmapped files, mapped in
 * place; SavedModel directories; .meta files with their checkpoint); a
 * text GraphDef's variables take their values from options->checkpoint as
 * a binary one's do. Errors name the file. */
tfpi_graph *graphdef_load_model(const char *path, const tfpi_load_options *options, tfpi_status *status);

/* Writes binary, or text when as_text. */
tfpi_code graphdef_write(const char *path, const Tfpi__GraphDef *graph, bool as_text,
                         tfpi_status *status);

#endif
