/* tflite_strings.h - a .tflite file's constant STRING tensors as Const
 * nodes (tflite_strings.c). */
#ifndef TFPI_TFLITE_STRINGS_H
#define TFPI_TFLITE_STRINGS_H

#include "model/tflite_graph.h"

/* Const node `name` holding constant string tensor t, its buffer checked;
 * NULL with the status set (a bad buffer, or memory running out). */
Tfpi__NodeDef *tp_tfl_string_const(tp_tfl_translator *x, int32_t t, const char *name);

#endif
