/* pbtxt_parse.h - the protobuf text format (.pbtxt) read into any protobuf-c
 * message, driven by the generated descriptors: the library reads text
 * SavedModels with it, the model tools text GraphDefs (tools/common/pbtxt.h
 * adds the printer). */
#ifndef TFPI_PBTXT_PARSE_H
#define TFPI_PBTXT_PARSE_H

#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

#include "tfpi.h"

/* Parses text[0..size) as a `desc` message that
 * protobuf_c_message_free_unpacked frees. Errors read
 * "SOURCE:LINE:COLUMN: problem". Fields named in `ignored` (a NULL-ended
 * list, may be NULL) are skipped wherever they appear, whatever their value. */
ProtobufCMessage *pbtxt_parse(const ProtobufCMessageDescriptor *desc, const char *text, size_t size,
                              const char *source, const char *const *ignored, tfpi_status *status);

/* Bytes one value of a field of this type takes in a message struct (and
 * per element in a repeated field's array). */
size_t pbtxt_value_size(ProtobufCType type);

#endif
