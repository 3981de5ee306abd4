/* pbtxt.h - the protobuf text format (.pbtxt) for any protobuf-c message,
 * driven by the generated descriptors: parse text into a message (the
 * library's model/pbtxt_parse.h), and print a message as text the way
 * TensorFlow writes GraphDefs (fields in number order, two-space
 * indentation, proto3 defaults left out). */
#ifndef TFPI_PBTXT_H
#define TFPI_PBTXT_H

#include <stdbool.h>
#include <stdio.h>

#include <protobuf-c/protobuf-c.h>

#include "model/pbtxt_parse.h"
#include "tfpi.h"

/* Writes msg as text; false if writing failed. */
bool pbtxt_print(FILE *out, const ProtobufCMessage *msg);

#endif
