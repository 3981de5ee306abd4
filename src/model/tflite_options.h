/* tflite_options.h - TFLite's BuiltinOperator names and BuiltinOptions
 * tables as data: the schema name of each builtin code, and for each
 * options table its fields (name, kind, default) in field order. The same
 * description checks an operator's options table at load and turns it into
 * attributes named as the schema's fields (the convention of
 * compute/tflite_node.h). */
#ifndef TFPI_TFLITE_OPTIONS_H
#define TFPI_TFLITE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.pb-c.h"
#include "model/flatbuffer.h"

/* The last BuiltinOptions union type the reader knows. */
#define TP_TFL_MAX_OPTIONS 126

/* The schema's name of builtin code `code` ("CONV_2D"), or NULL if the
 * reader does not know it. */
const char *tp_tfl_builtin_name(int32_t code);

/* The schema's name equal to name[0..len) (from the table: a C string
 * that lives as long as the program), or NULL if no builtin has it. */
const char *tp_tfl_builtin_named(const char *name, size_t len);

/* The schema's name of options table `type` ("Conv2DOptions"), or NULL. */
const char *tp_tfl_options_name(int type);

/* Checks every field of an options table of union type `type`. */
tfpi_code tp_tfl_options_check(tp_fb *fb, int type, const tp_fb_table *options);

/* Adds one attribute per field of the options table (defaults for absent
 * fields) to def; false if memory runs out. */
bool tp_tfl_options_to_attrs(const tp_fb *fb, int type, const tp_fb_table *options, Tfpi__NodeDef *def);

/* Reads integer field `name` of an options table (absent: its default);
 * false if the table has no such integer field. Booleans and enums read
 * as their numbers. */
bool tp_tfl_option_int(const tp_fb *fb, int type, const tp_fb_table *options, const char *name, int64_t *out);
/* The same for a float field. */
bool tp_tfl_option_float(const tp_fb *fb, int type, const tp_fb_table *options, const char *name, float *out);

#endif
