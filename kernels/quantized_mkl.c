/* quantized_mkl.c - the fused 8-bit ops that only TensorFlow's Intel MKL
 * builds run (QuantizedConv2DWithBiasAndRelu..., per-channel requantize;
 * ../shared/docs/quantized.md 3.14). Graphs with them come from Intel's
 * quantization tools, never from quantize_nodes; tfpi refuses them by name
 * with that explanation instead of "not compiled in". */
#include "kernel/kernel.h"

static tfpi_code mkl_prepare(tp_op_ctx *ctx)
{
    return tp_fail(ctx, TFPI_UNIMPLEMENTED,
                   "is an Intel MKL-only fused quantized op (a graph from Intel's quantization tools); tfpi "
                   "runs the quantize_nodes ops: re-export the model with transform_graph's quantize_nodes");
}

static tfpi_code mkl_run(tp_op_ctx *ctx) { return mkl_prepare(ctx); }

const tp_kernel tp_kernels_quantized_mkl[] = {
    TP_KERNEL("QuantizedConv2DAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBias", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DAndRelu", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasAndRelu", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasSumAndRelu", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasSumAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DWithBiasSignedSumAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedConv2DPerChannel", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMatMulWithBias", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMatMulWithBiasAndRelu", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMatMulWithBiasAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMatMulWithBiasAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedMatMulWithBiasAndDequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(1)),
    TP_KERNEL("QuantizedDepthwiseConv2D", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedDepthwiseConv2DWithBias", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedDepthwiseConv2DWithBiasAndRelu", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("QuantizedDepthwiseConv2DWithBiasAndReluAndRequantize", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("RequantizePerChannel", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(3)),
    TP_KERNEL("RequantizationRangePerChannel", mkl_prepare, mkl_run, NULL, TP_OUTPUTS(2)),
    TP_KERNELS_END,
};
