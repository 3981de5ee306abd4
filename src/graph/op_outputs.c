/* op_outputs.c - the output arguments of the ops with more than one, as
 * TensorFlow registers them, for function bodies that name an output by
 * argument ("bn:batch_mean:0", "TopKV2:indices:0") in a graph that carries
 * no op list (a SavedModel carries one: stripped_op_list). Every other op
 * has a single output argument, so "node:anything:i" is its output i.
 * "name*attr" holds as many tensors as the int attribute attr, or as the
 * length of the list attribute attr. */
#include <string.h>

#include "graph/function_library.h"

static const char *const quantized_conv = "output,min_output,max_output";
static const char *const quantized_matmul = "out,min_out,max_out";

static const struct {
    const char *op, *outputs;
} table[] = {
    {"BroadcastGradientArgs", "r0,r1"},
    {"CTCGreedyDecoder", "decoded_indices,decoded_values,decoded_shape,log_probability"},
    {"DecodeWav", "audio,sample_rate"},
    {"FusedBatchNorm", "y,batch_mean,batch_variance,reserve_space_1,reserve_space_2"},
    {"FusedBatchNormV2", "y,batch_mean,batch_variance,reserve_space_1,reserve_space_2"},
    {"FusedBatchNormV3", "y,batch_mean,batch_variance,reserve_space_1,reserve_space_2,reserve_space_3"},
    {"ListDiff", "out,idx"},
    {"LookupTableExportV2", "keys,values"},
    {"MaxPoolWithArgmax", "output,argmax"},
    {"Merge", "output,value_index"},
    {"NonMaxSuppressionV4", "selected_indices,valid_outputs"},
    {"NonMaxSuppressionV5", "selected_indices,selected_scores,valid_outputs"},
    {"ParseExample", "sparse_indices*Nsparse,sparse_values*sparse_types,sparse_shapes*Nsparse,dense_values*Tdense"},
    {"ParseExampleV2", "sparse_indices*num_sparse,sparse_values*sparse_types,sparse_shapes*num_sparse,"
                       "dense_values*Tdense,ragged_values*ragged_value_types,ragged_row_splits*ragged_split_types"},
    {"ParseSingleExample", "sparse_indices*num_sparse,sparse_values*sparse_types,sparse_shapes*num_sparse,"
                           "dense_values*Tdense"},
    {"QuantizeDownAndShrinkRange", "output,output_min,output_max"},
    {"QuantizeV2", "output,output_min,output_max"},
    {"QuantizedAdd", "z,min_z,max_z"},
    {"QuantizedAvgPool", "output,min_output,max_output"},
    {"QuantizedBatchNormWithGlobalNormalization", "result,result_min,result_max"},
    {"QuantizedBiasAdd", "output,min_out,max_out"},
    {"QuantizedConcat", "output,output_min,output_max"},
    {"QuantizedInstanceNorm", "y,y_min,y_max"},
    {"QuantizedMaxPool", "output,min_output,max_output"},
    {"QuantizedMul", "z,min_z,max_z"},
    {"QuantizedRelu", "activations,min_activations,max_activations"},
    {"QuantizedRelu6", "activations,min_activations,max_activations"},
    {"QuantizedReluX", "activations,min_activations,max_activations"},
    {"QuantizedReshape", "output,output_min,output_max"},
    {"QuantizedResizeBilinear", "resized_images,out_min,out_max"},
    {"RefMerge", "output,value_index"},
    {"RefSwitch", "output_false,output_true"},
    {"RequantizationRange", "output_min,output_max"},
    {"RequantizationRangePerChannel", "output_min,output_max"},
    {"Requantize", "output,output_min,output_max"},
    {"RequantizePerChannel", "output,output_min,output_max"},
    {"SparseFillEmptyRows", "output_indices,output_values,empty_row_indicator,reverse_index_map"},
    {"SparseReshape", "output_indices,output_shape"},
    {"StringNGrams", "ngrams,ngrams_splits"},
    {"StringSplit", "indices,values,shape"},
    {"StringSplitV2", "indices,values,shape"},
    {"Switch", "output_false,output_true"},
    {"TensorArrayConcatV3", "value,lengths"},
    {"TensorArrayV3", "handle,flow"},
    {"TopK", "values,indices"},
    {"TopKV2", "values,indices"},
    {"Unique", "y,idx"},
    {"UniqueV2", "y,idx"},
};

const char *tp_builtin_output_args(const char *op)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].op, op) == 0)
            return table[i].outputs;
    if (strncmp(op, "QuantizedConv2D", 15) == 0 || strncmp(op, "QuantizedDepthwiseConv2D", 24) == 0)
        return quantized_conv;
    if (strncmp(op, "QuantizedMatMul", 15) == 0)
        return strstr(op, "Dequantize") ? NULL : quantized_matmul;
    return NULL;
}
