/* tflite_io.c - pictures into and scores out of quantized models
 * (tflite_io.h). */
#include "tflite_io.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

tfpi_code image_fill_input(tfpi_tensor *input, const tfpi_image *image, float mean, float std, tfpi_status *status)
{
    tfpi_dtype dtype = tfpi_tensor_dtype(input);
    if (tfpi_tensor_ndims(input) != 4 || tfpi_tensor_dim(input, 0) != 1 || tfpi_tensor_dim(input, 3) != 3)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "a picture feeds a [1,h,w,3] input");
    int height = (int)tfpi_tensor_dim(input, 1), width = (int)tfpi_tensor_dim(input, 2);
    if (dtype == TFPI_FLOAT) {
        tfpi_image_to_input(image, width, height, mean, std, tfpi_tensor_data(input));
        return TFPI_OK;
    }
    if (dtype != TFPI_UINT8 && dtype != TFPI_INT8)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "the input is %s; a picture feeds float, uint8 or int8",
                               tfpi_dtype_name(dtype));
    size_t n = (size_t)width * (size_t)height * 3;
    float *values = malloc(n * sizeof *values);
    if (!values)
        return tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "out of memory for a %dx%d picture", width, height);
    tfpi_image_to_input(image, width, height, 0.0f, 1.0f, values); /* the resized pixel values */
    uint8_t *u = tfpi_tensor_data(input);
    int8_t *s = tfpi_tensor_data(input);
    for (size_t i = 0; i < n; i++)
        if (dtype == TFPI_UINT8)
            u[i] = (uint8_t)values[i];
        else
            s[i] = (int8_t)(values[i] - 128.0f);
    free(values);
    return TFPI_OK;
}

tfpi_tensor *image_input_tensor(const tfpi_image *image, int width, int height, float mean, float std,
                                tfpi_dtype dtype, tfpi_status *status)
{
    int64_t dims[4] = {1, height, width, 3};
    tfpi_tensor *t = tfpi_tensor_new(dtype, dims, 4, status);
    if (t && image_fill_input(t, image, mean, std, status) != TFPI_OK) {
        tfpi_tensor_free(t);
        return NULL;
    }
    return t;
}

tfpi_tensor *scores_as_float(const tfpi_graph *graph, const char *output, const tfpi_tensor *scores,
                             tfpi_status *status)
{
    tfpi_dtype dtype = tfpi_tensor_dtype(scores);
    int ndims = tfpi_tensor_ndims(scores);
    int64_t dims[TFPI_MAX_DIMS];
    for (int d = 0; d < ndims; d++)
        dims[d] = tfpi_tensor_dim(scores, d);
    tfpi_tflite_tensor info;
    int index = tfpi_tflite_find_tensor(graph, output);
    bool quantized = dtype != TFPI_FLOAT && index >= 0 && tfpi_tflite_get_tensor(graph, index, &info, NULL) == TFPI_OK &&
                     info.num_scales == 1;
    if (dtype != TFPI_FLOAT && dtype != TFPI_UINT8 && dtype != TFPI_INT8 && dtype != TFPI_INT16) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "output '%s' is %s, not scores", output, tfpi_dtype_name(dtype));
        return NULL;
    }
    if (dtype != TFPI_FLOAT && !quantized) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "output '%s' is %s without one scale and zero point", output,
                        tfpi_dtype_name(dtype));
        return NULL;
    }
    tfpi_tensor *out = tfpi_tensor_new(TFPI_FLOAT, dims, ndims, status);
    if (!out)
        return NULL;
    float *f = tfpi_tensor_data(out);
    int64_t n = tfpi_tensor_num_elements(scores);
    const void *data = tfpi_tensor_const_data(scores);
    for (int64_t i = 0; i < n; i++) {
        double q = dtype == TFPI_FLOAT ? ((const float *)data)[i]
                   : dtype == TFPI_UINT8 ? ((const uint8_t *)data)[i]
                   : dtype == TFPI_INT8  ? ((const int8_t *)data)[i]
                                         : ((const int16_t *)data)[i];
        f[i] = dtype == TFPI_FLOAT ? (float)q : (float)(info.scales[0] * (q - (double)info.zero_points[0]));
    }
    return out;
}

tfpi_dtype input_dtype(const tfpi_graph *graph, const char *input)
{
    tfpi_tflite_tensor t;
    int index = tfpi_tflite_find_tensor(graph, input);
    if (index >= 0 && tfpi_tflite_get_tensor(graph, index, &t, NULL) == TFPI_OK)
        return t.dtype;
    return tfpi_graph_node_dtype(graph, input);
}

bool tflite_input_size(const tfpi_graph *graph, const char *input, int *width, int *height)
{
    tfpi_tflite_tensor t;
    int index = tfpi_tflite_find_tensor(graph, input);
    if (index < 0 || tfpi_tflite_get_tensor(graph, index, &t, NULL) != TFPI_OK || t.ndims != 4 || t.dims[1] <= 0 ||
        t.dims[2] <= 0 || t.dims[1] > 16384 || t.dims[2] > 16384)
        return false;
    *height = (int)t.dims[1];
    *width = (int)t.dims[2];
    return true;
}
