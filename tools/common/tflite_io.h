/* tflite_io.h - feeding pictures to and reading scores from models whose
 * input or output is quantized, as TensorFlow Lite's label_image does: a
 * uint8 input takes the resized pixel values, an int8 input those values
 * minus 128 (each truncated toward zero, as TFLite's casts do), a float
 * input (value - mean) / std; quantized scores become floats through the
 * output tensor's scale and zero point (a .tflite's quantization). */
#ifndef TFPI_TFLITE_IO_H
#define TFPI_TFLITE_IO_H

#include <stdbool.h>

#include "tfpi.h"

/* Fills a [1,h,w,3] input (float, uint8 or int8) with the picture resized
 * (TF1's bilinear) to h x w. */
tfpi_code image_fill_input(tfpi_tensor *input, const tfpi_image *image, float mean, float std, tfpi_status *status);

/* The picture resized (TF1's bilinear) to [1,h,w,3] of dtype (TFPI_FLOAT,
 * TFPI_UINT8 or TFPI_INT8); NULL with status set otherwise. */
tfpi_tensor *image_input_tensor(const tfpi_image *image, int width, int height, float mean, float std,
                                tfpi_dtype dtype, tfpi_status *status);

/* Scores as floats: a float tensor as it is (a copy), a quantized one
 * (uint8, int8, int16) through the quantization of the .tflite tensor that
 * `output` names; NULL with status set when there is none. */
tfpi_tensor *scores_as_float(const tfpi_graph *graph, const char *output, const tfpi_tensor *scores,
                             tfpi_status *status);

/* The dtype of the feed `input` names (a .tflite tensor's, else the node's
 * dtype attribute); 0 if unknown. */
tfpi_dtype input_dtype(const tfpi_graph *graph, const char *input);

/* A .tflite input's height and width ([1,h,w,c], known sizes): true and
 * set; false otherwise. */
bool tflite_input_size(const tfpi_graph *graph, const char *input, int *width, int *height);

#endif
