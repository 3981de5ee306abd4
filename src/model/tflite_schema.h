/* tflite_schema.h - a TensorFlow Lite model file (a FlatBuffer, identifier
 * TFL3) read and checked once, completely: the tables of TFLite's
 * schema.fbs a runtime needs (Model, OperatorCode, SubGraph, Tensor,
 * QuantizationParameters, Operator, Buffer, SignatureDef, Metadata) as C
 * structs whose strings and buffer data point into the file's bytes.
 * Reading checks every offset, vtable, vector and string (flatbuffer.h),
 * every tensor, buffer, opcode and subgraph index, each shape's byte size
 * (overflow-checked), every constant tensor against its buffer's length,
 * the lengths of quantization vectors and each operator's options table;
 * whatever reads the structs afterwards may trust them. */
#ifndef TFPI_TFLITE_SCHEMA_H
#define TFPI_TFLITE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flatbuffer.h"
#include "tfpi.h"

/* The schema's TensorType values tfpi reads. */
enum {
    TP_TFL_FLOAT32 = 0,
    TP_TFL_FLOAT16 = 1,
    TP_TFL_INT32 = 2,
    TP_TFL_UINT8 = 3,
    TP_TFL_INT64 = 4,
    TP_TFL_STRING = 5,
    TP_TFL_BOOL = 6,
    TP_TFL_INT16 = 7,
    TP_TFL_COMPLEX64 = 8,
    TP_TFL_INT8 = 9,
    TP_TFL_FLOAT64 = 10,
};

/* A few BuiltinOperator codes the loader treats apart. */
enum {
    TP_TFL_OP_CALL = 31,
    TP_TFL_OP_CUSTOM = 32,
    TP_TFL_OP_PLACEHOLDER_FOR_GREATER = 127,
    TP_TFL_OP_IF = 118,
    TP_TFL_OP_WHILE = 119,
    TP_TFL_OP_CALL_ONCE = 129,
    TP_TFL_OP_HASHTABLE_IMPORT = 138,
};

typedef struct tp_tfl_quant_params {
    int count; /* scales and zero points: 0 = not quantized, 1 = per tensor, more = per slice */
    float *scale;
    int64_t *zero_point;
    int dim; /* quantized_dimension */
} tp_tfl_quant_params;

typedef struct tp_tfl_tensor {
    const char *name;
    int type;      /* TensorType */
    tfpi_dtype dtype; /* 0 if tfpi has no such type (COMPLEX64, ...) */
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];     /* shape (-1: unknown) */
    int64_t signature[TFPI_MAX_DIMS]; /* shape_signature, or shape when the file has none */
    uint32_t buffer;  /* index into the model's buffers; its data is the tensor's value if non-empty */
    tp_tfl_quant_params quant;
    bool is_variable, sparse;
} tp_tfl_tensor;

typedef struct tp_tfl_operator {
    uint32_t opcode; /* index into the model's codes */
    int num_inputs, num_outputs;
    int32_t *inputs;  /* tensor indices, -1 = an optional input left out */
    int32_t *outputs; /* tensor indices */
    int num_intermediates;
    int32_t *intermediates; /* tensor indices: the tensors whose quantization an integer LSTM's gates use */
    uint8_t options_type; /* BuiltinOptions union type, 0 = none */
    tp_fb_table options;  /* the options table, already checked field by field */
    const uint8_t *custom; /* custom_options bytes (FlexBuffer), or NULL */
    size_t custom_size;
} tp_tfl_operator;

typedef struct tp_tfl_subgraph {
    const char *name;
    int num_tensors, num_inputs, num_outputs, num_operators;
    tp_tfl_tensor *tensors;
    int32_t *inputs, *outputs;
    tp_tfl_operator *operators;
} tp_tfl_subgraph;

typedef struct tp_tfl_code {
    int32_t builtin;    /* the larger of builtin_code and deprecated_builtin_code */
    const char *custom; /* custom_code ("" if none) */
    int32_t version;
} tp_tfl_code;

typedef struct tp_tfl_buffer {
    const uint8_t *data; /* NULL when empty */
    size_t size;
} tp_tfl_buffer;

typedef struct tp_tfl_tensor_map {
    const char *name;
    uint32_t tensor;
} tp_tfl_tensor_map;

typedef struct tp_tfl_signature {
    const char *key;
    uint32_t subgraph;
    int num_inputs, num_outputs;
    tp_tfl_tensor_map *inputs, *outputs;
} tp_tfl_signature;

typedef struct tp_tfl_metadata {
    const char *name;
    uint32_t buffer;
} tp_tfl_metadata;

typedef struct tp_tfl_model {
    tp_fb fb; /* the file's bytes, for reading operator options */
    uint32_t version;
    const char *description;
    int num_codes, num_subgraphs, num_buffers, num_signatures, num_metadata;
    tp_tfl_code *codes;
    tp_tfl_subgraph *subgraphs;
    tp_tfl_buffer *buffers;
    tp_tfl_signature *signatures;
    tp_tfl_metadata *metadata;
} tp_tfl_model;

/* True if data starts like a .tflite (identifier TFL3 at bytes 4..8). */
bool tp_tfl_detect(const uint8_t *data, size_t size);
/* True if the file at path is a regular file that starts like a .tflite. */
bool tp_tfl_detect_file(const char *path);

/* Reads and checks the model in data[0..size) (which must outlive it).
 * `source` names it in errors. On failure *m is freed. */
tfpi_code tp_tfl_model_read(const uint8_t *data, size_t size, const char *source, tp_tfl_model *m,
                            tfpi_status *status);
void tp_tfl_model_free(tp_tfl_model *m);

/* The schema's name of a TensorType ("FLOAT32", "INT8", ...; "?" if unknown). */
const char *tp_tfl_type_name(int type);
/* Bytes of one element of a TensorType, 0 for STRING and unknown types. */
size_t tp_tfl_type_size(int type);

/* A tensor's buffer data, or NULL if it has none (an activation). */
const tp_tfl_buffer *tp_tfl_tensor_data(const tp_tfl_model *m, const tp_tfl_tensor *t);

#endif
