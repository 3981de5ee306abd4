/* wire.h - the protobuf wire format at its lowest level: walking the fields
 * of a serialized message without knowing its type. */
#ifndef TFPI_WIRE_H
#define TFPI_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TP_WIRE_VARINT = 0, TP_WIRE_FIXED64 = 1, TP_WIRE_LEN = 2, TP_WIRE_FIXED32 = 5 };

typedef struct tp_wire_reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
} tp_wire_reader;

typedef struct tp_wire_field {
    uint32_t number;
    int wire_type;
    uint64_t value;       /* varint and fixed fields */
    const uint8_t *bytes; /* length-delimited fields */
    size_t length;
} tp_wire_field;

bool tp_wire_varint(tp_wire_reader *r, uint64_t *out);
/* Reads the next field; false if it is malformed or runs past the end. */
bool tp_wire_next(tp_wire_reader *r, tp_wire_field *f);

/* True if a string at a path of field numbers (path[0] in this message,
 * path[1] in that field's message, ...; depth numbers) holds a NUL byte:
 * protobuf-c's unpacked strings would end there. Malformed parts are left
 * to the unpacker. */
bool tp_wire_nul_at(const uint8_t *data, size_t size, const uint32_t *path, int depth);

/* How deep attribute values may nest (protobuf's own default limit). */
#define TP_WIRE_MAX_DEPTH 100

/* Checks a serialized NodeDef before it is unpacked (wire_nodedef.c): no
 * NUL byte in its name or op, attribute values nested at most
 * TP_WIRE_MAX_DEPTH deep. Returns the problem, or NULL. */
const char *tp_wire_check_node_def(const uint8_t *data, size_t size);
/* The same for every NodeDef of a serialized GraphDef (the model tools
 * unpack whole GraphDefs). */
const char *tp_wire_check_graph_def(const uint8_t *data, size_t size);
/* The same for an OpDef (its name, argument and attribute names, and the
 * attribute defaults), and for every FunctionDef of a serialized
 * FunctionDefLibrary (signature, body nodes, attributes, ret maps);
 * *function tells which function holds the problem. */
const char *tp_wire_check_op_def(const uint8_t *data, size_t size);
const char *tp_wire_check_function_library(const uint8_t *data, size_t size, size_t *function);

#endif
