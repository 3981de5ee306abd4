"""hostile_tflite.py DIR - writes the hostile .tflite corpus into DIR and
its manifest (DIR/manifest.tsv: case name, then the regex its one error
line must match): truncated files, offsets and vtables outside the file or
at themselves, vector lengths that overflow, tensor, operator-code,
buffer and subgraph indices past their lists, shapes whose product
overflows, buffers shorter than their tensor, quantization vectors of the
wrong length, operator intermediates past the tensors, unknown types and
union tags, subgraphs that call themselves, and custom options whose
FlexBuffer lies. Each starts from a
small valid model (tflite_writer.py) and breaks one thing."""
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tflite_writer as tw  # noqa: E402

RELU, ADD, CUSTOM, WHILE = 19, 0, 32, 119


def base(extra=None):
    """x [1,4] -> RELU -> y [1,4]; `extra` may add to the model first."""
    m = tw.Model()
    x = m.tensor("x", [1, 4])
    y = m.tensor("y", [1, 4])
    m.inputs, m.outputs = [x], [y]
    if extra:
        extra(m)
    m.op(RELU, [x], [y])
    return m


def build(m):
    return tw.Builder().build(m.root(), raw=True)


def u32(data, at, value):
    data = bytearray(data)
    struct.pack_into("<I", data, at, value & 0xFFFFFFFF)
    return bytes(data)


def cases():
    good = base().write()
    yield "truncated_to_12_bytes", good[:12], r"the Model table at offset [0-9]+ lies outside the file [(]12 bytes[)]"
    yield "truncated_to_40_bytes", good[:40], r"outside the file|past the end"
    yield "truncated_to_half", good[:len(good) // 2], r"outside the file|past the end"
    yield "root_outside", u32(good, 0, 0x7FFFFFF0), r"the Model table at offset [0-9]+ lies outside the file"
    yield "root_in_header", u32(good, 0, 2), r"the root offset 2 points into the header"

    m = base()
    data, pos = build(m)
    root = struct.unpack_from("<I", data, 0)[0]
    yield "vtable_outside", u32(data, root, 0x80000000 - 1 + root if root else 0),\
        r"the vtable of the Model table .* lies outside the file"
    yield "vtable_at_itself", u32(data, root, 0), r"the vtable of the Model table at offset [0-9]+ has size 0"
    # the subgraphs field: its uoffset at the Model's field 2
    vt = root - struct.unpack_from("<i", data, root)[0]
    field = root + struct.unpack_from("<H", data, vt + 4 + 2 * 2)[0]
    yield "offset_at_itself", u32(data, field, 0), r"Model.subgraphs: the offset points at itself"
    yield "offset_outside", u32(data, field, 0x7FFFFFFF), r"Model.subgraphs: the offset .* points outside the file"

    m = base()
    tensors = tw.Vector(m.tensors, "ref")
    sub = tw.Table({0: tw.ref(tensors), 1: tw.ints(m.inputs), 2: tw.ints(m.outputs),
                    3: tw.ref(tw.Vector(m.operators, "ref"))}, "SubGraph")  # its tensors vector is patched
    root = m.root()
    root.fields[2] = tw.ref(tw.Vector([sub], "ref"))
    data, pos = tw.Builder().build(root, raw=True)
    yield "vector_length_overflows", u32(data, pos[id(tensors)], 0xFFFFFFFF),\
        r"SubGraph.tensors: a vector of 4294967295 elements of 4 bytes .* runs past the end"
    yield "vector_length_2p30", u32(data, pos[id(tensors)], 1 << 30), r"SubGraph.tensors: a vector of 1073741824"

    m = base()
    m.op(RELU, [99], [1])
    yield "input_tensor_past_list", m.write(), r"Operator.inputs: entry 0 is tensor 99; the subgraph has 2 tensors"
    m = base()
    m.op(RELU, [-2], [1])
    yield "input_tensor_minus_2", m.write(), r"Operator.inputs: entry 0 is tensor -2"
    m = base()
    m.op(RELU, [0], [2])
    yield "output_tensor_past_list", m.write(), r"Operator.outputs: entry 0 is tensor 2"
    m = base()
    m.op(RELU, [0], [1], intermediates=[0, 12])
    yield "intermediate_past_list", m.write(), r"Operator.intermediates: entry 1 is tensor 12; the subgraph has 2"
    m = base()
    m.op(RELU, [0], [1], intermediates=[-1])
    yield "intermediate_minus_1", m.write(), r"Operator.intermediates: entry 0 is tensor -1"
    m = base()
    m.inputs = [7]
    yield "subgraph_input_past_list", m.write(), r"SubGraph.inputs: entry 0 is tensor 7"

    m = base()
    m.operators[0].fields[0] = ("I", 5)
    yield "opcode_past_table", m.write(), r"Operator.opcode_index: operator code 5 is past the model's 1 operator codes"

    m = base(lambda m: m.tensor("big", [1 << 30, 1 << 30, 1 << 30]))
    yield "shape_product_overflows", m.write(), r"Tensor.shape: the product of its dimensions overflows"
    m = base(lambda m: m.tensor("big", [65536, 65536, 65536, 65536]))
    yield "shape_product_2p64", m.write(), r"Tensor.shape: the product of its dimensions overflows"
    m = base(lambda m: m.tensor("r9", [1] * 9))
    yield "rank_9", m.write(), r"Tensor.shape: rank 9; tfpi holds at most 8 dimensions"
    m = base(lambda m: m.tensor("neg", [1, -5]))
    yield "negative_dimension", m.write(), r"Tensor.shape: dimension 1 is -5"
    m = base(lambda m: m.tensor("w", [100], data=np.zeros(4, np.float32)))
    yield "buffer_shorter_than_tensor", m.write(), r"buffer 1 has 16 bytes, fewer than the 400 its FLOAT32 shape needs"
    m = base(lambda m: m.tensor("w", [4], data=np.zeros(4, np.float32)))
    m.tensors[-1].fields[2] = ("I", 9)
    yield "buffer_index_past_list", m.write(), r"Tensor.buffer: buffer 9 is past the model's 2 buffers"

    m = base(lambda m: m.tensor("q", [6, 3], type=tw.INT8, quant=([0.1, 0.2, 0.3], [0, 0, 0], 0)))
    yield "quant_scales_wrong_length", m.write(), \
        r"QuantizationParameters.scale: 3 scales along quantized_dimension 0, which the tensor's shape does not have"
    m = base(lambda m: m.tensor("q", [6], type=tw.INT8, quant=([0.1], [0, 0], 0)))
    yield "quant_zero_points_wrong_length", m.write(), r"QuantizationParameters.zero_point: 2 zero points for 1 scales"
    m = base(lambda m: m.tensor("q", [2, 3], type=tw.INT8, quant=([0.1, 0.2], [0, 0], 7)))
    yield "quant_dimension_past_rank", m.write(), r"2 scales along quantized_dimension 7"

    m = base()
    m.operators[0].fields[3] = ("B", 200)
    m.operators[0].fields[4] = tw.ref(tw.Table({}, "Options"))
    yield "options_type_past_schema", m.write(), r"Operator.builtin_options: union type 200 is past the schema's last"
    m = base()
    m.operators[0].fields[3] = ("B", 1)
    yield "options_type_without_table", m.write(), r"Operator.builtin_options: union type 1 without its table"
    m = base()
    m.op(3, [0, 0], [1], 1, {0: ("b", 7)})
    yield "options_enum_past_schema", m.write(), r"Conv2DOptions.padding: value 7 is not one of the schema's"

    m = base()
    m.tensors[0].fields[1] = ("b", 99)
    yield "input_type_unknown", m.write(), r"input tensor 0 \('x'\) is \?, which tfpi does not hold"
    m = base()
    m.op(RELU, [1], [1])
    yield "tensor_written_twice", m.write(), r"tensor 1 \('y'\) is written by two operators"
    # fuzz_tflite's finds (2026-11-29): a convolution with one input, or an absent (-1) filter, had the
    # float translation read a filter past the operator's inputs (ASan); they load, and running them
    # unfed stops at the input
    for name, inputs in (("conv_one_input_loads", [0]), ("conv_absent_filter_loads", [0, -1])):
        m = tw.Model()
        m.inputs, m.outputs = [m.tensor("x", [1, 2, 2, 1])], [m.tensor("y", [1, 2, 2, 1])]
        m.op(3, inputs, [1])
        yield name, m.write(), r"node 'x' \(Placeholder\): placeholder must be fed"
    # fuzz_tflite's find (2026-11-29): a LEAKY_RELU with an absent (-1) second input is left to its
    # builtin node, and the alpha attribute made for the TensorFlow op leaked (LeakSanitizer)
    m = tw.Model()
    m.inputs, m.outputs = [m.tensor("x", [1, 2, 2, 1])], [m.tensor("y", [1, 2, 2, 1])]
    m.op(98, [0, -1], [1])
    yield "leaky_relu_absent_input_loads", m.write(), r"node 'x' \(Placeholder\): placeholder must be fed"
    # fuzz_tflite's find (2026-11-29): a CONCATENATION with an absent (-1) input gave its float
    # translation a NULL input name (UBSan: strdup(NULL))
    m = tw.Model()
    m.inputs, m.outputs = [m.tensor("x", [1, 2])], [m.tensor("y", [1, 4])]
    m.op(2, [0, -1], [1])
    yield "concatenation_absent_input", m.write(), \
        r"node 'y' \(ConcatV2\): its input 1 is absent \(-1 or not given\), which it needs"
    m = tw.Model()
    x, h, y = m.tensor("x", [1]), m.tensor("h", [1]), m.tensor("y", [1])
    m.inputs, m.outputs = [x], [y]
    m.op(ADD, [x, h], [y])
    yield "read_before_written", m.write(), r"tensor 1 \('h'\) is read before any operator writes it"

    m = base()
    m.buffers.append(tw.Table({1: ("Q", 1 << 40), 2: ("Q", 16)}, "Buffer"))
    yield "buffer_offset_past_file", m.write(), r"Buffer.offset: 16 bytes at offset 1099511627776 lie past the end"
    m = base()
    m.signature("serving_default", [("in", 0)], [("out", 9)])
    yield "signature_tensor_past_list", m.write(), r"TensorMap.tensor_index: tensor 9; its subgraph has 2"
    m = base()
    m.signature("serving_default", [("in", 0)], [("out", 1)], subgraph=3)
    yield "signature_subgraph_past_list", m.write(), r"SignatureDef.subgraph_index: subgraph 3; the model has 1"

    m = base()
    m.op(WHILE, [0], [1], 93, {0: ("i", 0), 1: ("i", 0)})
    yield "subgraph_calls_itself", m.write(), r"subgraph 0 calls itself"
    m = base()
    m.op(WHILE, [0], [1], 93, {0: ("i", 5), 1: ("i", 12)})
    yield "while_cond_past_list", m.write(), r"operator 1: cond_subgraph_index 5 is past the model's 1 subgraphs"

    yield "version_2", version(2), r"Model.version: schema version 2 \(tfpi reads version 3\)"

    def custom(options):  # y = MyOp(a constant)
        m = tw.Model()
        c = m.const("c", np.zeros(4, np.float32))
        y = m.tensor("y", [4])
        m.outputs = [y]
        m.op(CUSTOM, [c], [y], custom="MyOp", custom_options=options)
        return m.write()
    yield "flex_too_short", custom(b"\x01\x01"), r"custom_options \(FlexBuffer\): 2 bytes, too short"
    yield "flex_root_width_3", custom(b"\x00\x00\x24\x03"), r"the root's width is 3 bytes"
    yield "flex_root_not_map", custom(b"\x05\x04\x01"), r"the root is of type 1, not a map"
    # a map of one int: keys vector [offset to "a"], then values with their types
    good_map = bytes([ord("a"), 0,  # key "a" at 0
                      1, 3,          # keys vector: count 1 at 2, element at 3 pointing back 3 -> 0
                      1, 1, 1,       # keys offset (back 1 -> 3), keys width 1, count 1
                      42, 0x04,      # value 42 at 7, its type (INT, width 1)
                      2, 0x24, 1])   # root: offset back 2 -> 7, type MAP width 1, root width 1
    yield "flex_map_ok_but_custom_op_missing", custom(good_map), r"custom operator MyOp, which tfpi does not implement"
    lying = bytearray(good_map)
    lying[6] = 200  # the map claims 200 values
    yield "flex_map_count_lies", custom(bytes(lying)), r"a vector of 200 elements .* runs past the end"
    lying = bytearray(good_map)
    lying[4] = 90  # the keys offset points before the buffer
    yield "flex_keys_before_buffer", custom(bytes(lying)), r"an offset of 90 at byte 4 points before the buffer"
    lying = bytearray(good_map)
    lying[1] = ord("b")  # no NUL anywhere: the key runs to the end
    yield "flex_key_without_nul", custom(bytes(lying)), r"a key at byte 0 has no NUL before the end"
    lying = bytearray(good_map)
    lying[8] = 0x2C  # the value claims to be a map (an offset type) pointing back 42
    yield "flex_value_offset_lies", custom(bytes(lying)), r"an offset of 42 at byte 7 points before the buffer"
    # An empty map as FlexBuffers writes it (TFLite Micro's signal operators): its values vector sits at
    # the root's offset itself (offset 0); and a key the translator uses for an attribute of its own ("T").
    empty_map = bytes([0, 0, 1, 0, 0, 0x24, 1])
    yield "flex_empty_map_custom_op_missing", custom(empty_map), r"custom operator MyOp, which tfpi does not implement"
    key_t = bytearray(good_map)
    key_t[0] = ord("T")
    yield "flex_key_T_custom_op_missing", custom(bytes(key_t)), r"custom operator MyOp, which tfpi does not implement"
    doubled = bytes([ord("a"), 0,      # key "a" at 0
                     2, 3, 4,          # keys vector: count 2 at 2, elements at 3 and 4, both back to 0
                     2, 1, 2,          # keys offset (back 2 -> 3), keys width 1, count 2
                     1, 2, 0x04, 0x04,  # values 1, 2 at 8, 9, their types
                     4, 0x24, 1])      # root: back 4 -> 8
    yield "flex_key_given_twice", custom(doubled), r"custom option 'a' is empty or given twice"

    yield from embedding_lookups()
    yield from hashtables()
    m = tw.Model()
    x, d, y = m.const("x", np.zeros((2, 3, 4), np.float32)), m.const("d", np.zeros((2, 4), np.float32)), m.tensor("y", [2, 3, 4])
    m.outputs = [y]
    m.op(115, [x, d], [y])
    yield "matrix_set_diag_diagonal_too_long_loads", m.write(), \
        r"node 'y' \(MATRIX_SET_DIAG\): the diagonal has rank 2 and 4 values a matrix; the input's 1 batch dimensions and min\(3, 4\)"
    m = tw.Model()
    x, y = m.const("x", np.zeros((3, 4), np.float32)), m.tensor("y", [3, 4])
    m.outputs = [y]
    m.op(115, [x], [y])
    yield "matrix_set_diag_one_input_loads", m.write(), r"node 'y' \(MATRIX_SET_DIAG\): expects 2 inputs, has 1"
    m = tw.Model()
    x, y = m.tensor("x", [3], 6, data=np.zeros(3, bool)), m.tensor("y", [3, 3], 6)
    m.outputs = [y]
    m.op(113, [x], [y])
    yield "matrix_diag_bool_loads", m.write(), r"node 'y' \(MATRIX_DIAG\): bool elements \(TFLite's takes float32"


def embedding_lookups():
    """EMBEDDING_LOOKUP (ids, table): an id past the table, ids of rank 2,
    a table of rank 1, a float table with an int8 output."""
    def lookup(ids, table, out_shape, out_type=tw.FLOAT32, quant=None):
        m = tw.Model()
        i, t = m.const("ids", np.array(ids, np.int32)), m.const("table", table)
        y = m.tensor("y", out_shape, out_type, quant=quant)
        m.outputs = [y]
        m.op(7, [i, t], [y])
        return m.write()
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    yield "embedding_id_past_table_loads", lookup([1, 4], table, [2, 2]), \
        r"node 'y' \(GatherV2\): indices\[1\] = 4 is not in \[0, 4\)"
    yield "embedding_negative_id_loads", lookup([-1], table, [1, 2]), \
        r"node 'y' \(GatherV2\): indices\[0\] = -1 is not in \[0, 4\)"
    yield "embedding_ids_rank_2", lookup([[1, 2]], table, [1, 2, 2]), \
        r"operator 0 \(EMBEDDING_LOOKUP\): takes ids of rank 1 \(int32\) and a table of rank >= 2, not int32 of rank 2"
    yield "embedding_table_rank_1", lookup([1], np.arange(4, dtype=np.float32), [1]), \
        r"EMBEDDING_LOOKUP\): takes ids of rank 1 .* a table of rank 1"
    yield "embedding_float_table_int8_output", lookup([1], table, [1, 2], tw.INT8, ([0.5], [0], 0)), \
        r"EMBEDDING_LOOKUP\): its table is float and its output int8"


def strings(items, count=None, offsets=None):
    """TFLite's string buffer, its count or offsets replaced when given."""
    data = [i.encode() for i in items]
    at, starts = 4 * (len(data) + 2), []
    for item in data:
        starts.append(at)
        at += len(item)
    starts.append(at)
    return np.array([len(data) if count is None else count] + (offsets or starts), "<i4").tobytes() + b"".join(data)


def hashtables():
    """HASHTABLE and friends: a string -> int64 table filled with keys and
    values of two lengths, a table of float keys, a lookup before any import,
    an absent table input, and constant strings whose buffer lies."""
    def model(keys=("a", "b"), key_shape=(2,), values=(1, 2), key_type=5, import_op=True, handle_input=None,
              key_data=None):
        m = tw.Model()
        h = m.tensor("handle", [1], 13)
        m.op(136, [], [h], 107, {0: ("i", 1), 1: ("b", key_type), 2: ("b", 4)})
        if import_op:
            k = m.tensor("keys", list(key_shape), 5, data=key_data if key_data is not None else strings(keys))
            v = m.const("values", np.array(values, np.int64))
            m.op(138, [h, k, v], [])
        q = m.tensor("query", [1], 5, data=strings(["a"]))
        d = m.const("default", np.array(-1, np.int64))
        y = m.tensor("y", [1], tw.INT64)
        m.outputs = [y]
        m.op(137, [h if handle_input is None else handle_input, q, d], [y])
        return m.write()
    yield "hashtable_keys_values_lengths_differ", model(values=(1, 2, 3)), \
        r"operator 1 \(HASHTABLE_IMPORT\): its keys \(rank 1, 2 first\) and values \(rank 1, 3 first\) differ in shape"
    yield "hashtable_float_keys", model(key_type=0, import_op=False), \
        r"operator 0 \(HASHTABLE\): a table of FLOAT32 keys and INT64 values"
    yield "hashtable_find_before_import_loads", model(import_op=False), r"table 'tflite_hashtable_1' is used before it was initialized"
    yield "hashtable_find_absent_table", model(import_op=False, handle_input=-1), \
        r"operator 1 \(HASHTABLE_FIND\): input 0 is absent"
    yield "hashtable_strings_count_lies", model(key_data=strings(["a", "b"], count=3)), \
        r"tensor 1 \('keys'\): its strings' buffer is shorter than its count and offsets"
    yield "hashtable_strings_count_not_shape", model(key_data=strings(["a", "b", "c"])), \
        r"tensor 1 \('keys'\): its strings' buffer holds a different number of strings than the shape's elements \(3, 2\)"
    yield "hashtable_strings_offset_past_end", model(key_data=strings(["a", "b"], offsets=[16, 17, 99])), \
        r"tensor 1 \('keys'\): its strings' buffer has an offset .* past its end \(offset, bytes\) \(99, 18\)"
    yield "hashtable_strings_offsets_backwards", model(key_data=strings(["a", "b"], offsets=[17, 16, 18])), \
        r"tensor 1 \('keys'\): its strings' buffer has an offset before the one ahead of it .* \(16, 18\)"
    yield "hashtable_strings_buffer_3_bytes", model(key_data=b"\x02\x00\x00"), \
        r"tensor 1 \('keys'\): its strings' buffer is shorter than its count and offsets \(bytes, strings\) \(3, 0\)"


def version(v):
    m = base()
    root = m.root(version=v)
    return tw.Builder().build(root)


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "manifest.tsv"), "w") as manifest:
        for name, data, pattern in cases():
            with open(os.path.join(out, name + ".tflite"), "wb") as f:
                f.write(data)
            manifest.write("%s\t%s\n" % (name, pattern))


if __name__ == "__main__":
    main(sys.argv[1])
