/* tfpi.h - the public C API of tfpi: load a TensorFlow model (frozen
 * graph, SavedModel, checkpoint, .tflite),
 * run it with named feeds and fetches, read the results; plus the image
 * helpers the examples use (JPEG/PNG decode, TF1 bilinear resize).
 *
 * Every function that can fail takes a tfpi_status and returns either a
 * pointer (NULL on failure) or a tfpi_code (TFPI_OK = 0 on success). The
 * library never exits or aborts: the status carries a one-line message. */
#ifndef TFPI_H
#define TFPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tfpi_code {
    TFPI_OK = 0,
    TFPI_INVALID_ARGUMENT = 1, /* bad model, bad feed, bad flag */
    TFPI_NOT_FOUND = 2,        /* missing file, node or tensor */
    TFPI_UNIMPLEMENTED = 3,    /* op or type not compiled in / not supported */
    TFPI_IO_ERROR = 4,         /* read or decode failure */
    TFPI_OUT_OF_MEMORY = 5,
    TFPI_INTERNAL = 6
} tfpi_code;

typedef struct tfpi_status {
    tfpi_code code;
    char message[512];
} tfpi_status;

/* Element types, numbered as TensorFlow's DataType enum. */
typedef enum tfpi_dtype {
    TFPI_FLOAT = 1,
    TFPI_DOUBLE = 2,
    TFPI_INT32 = 3,
    TFPI_UINT8 = 4,
    TFPI_INT16 = 5,
    TFPI_INT8 = 6,
    TFPI_STRING = 7,
    TFPI_COMPLEX64 = 8, /* pairs of floats, real then imaginary (RFFT's output) */
    TFPI_INT64 = 9,
    TFPI_BOOL = 10,
    TFPI_QINT8 = 11,
    TFPI_QUINT8 = 12,
    TFPI_QINT32 = 13,
    TFPI_QINT16 = 15,
    TFPI_QUINT16 = 16,
    TFPI_UINT16 = 17,
    TFPI_HALF = 19,
    TFPI_RESOURCE = 20, /* a TensorArray handle (graphs with loops) */
    TFPI_VARIANT = 21   /* a TensorList value (TF2 loops) */
} tfpi_dtype;

#define TFPI_MAX_DIMS 8

/* One element of a TFPI_STRING tensor: arbitrary bytes. */
typedef struct tfpi_bytes {
    size_t size;
    const uint8_t *data;
} tfpi_bytes;

typedef struct tfpi_tensor tfpi_tensor;
typedef struct tfpi_graph tfpi_graph;
typedef struct tfpi_session tfpi_session;

/* The library's version, "MAJOR.MINOR.PATCH" (the soname carries MAJOR). */
const char *tfpi_version(void);

/* ---- status ------------------------------------------------------------ */
void tfpi_status_clear(tfpi_status *status);
/* Sets status (which may be NULL) to code and a printf-style one-line
 * message, and returns code: `return tfpi_status_set(status, ...)`. Programs
 * built on tfpi report their own errors with it the library's way. */
tfpi_code tfpi_status_set(tfpi_status *status, tfpi_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
const char *tfpi_dtype_name(tfpi_dtype dtype);
size_t tfpi_dtype_size(tfpi_dtype dtype); /* 0 for types tfpi cannot hold */

/* ---- tensors ----------------------------------------------------------- */
/* A new zero-filled tensor that owns its data. For TFPI_STRING the data is
 * an array of tfpi_bytes; use tfpi_tensor_set_string to fill it. */
tfpi_tensor *tfpi_tensor_new(tfpi_dtype dtype, const int64_t *dims, int ndims,
                             tfpi_status *status);
/* Copies `size` bytes into element `index` of a string tensor. */
tfpi_code tfpi_tensor_set_string(tfpi_tensor *t, size_t index, const void *data,
                                 size_t size, tfpi_status *status);
void tfpi_tensor_free(tfpi_tensor *t);
tfpi_dtype tfpi_tensor_dtype(const tfpi_tensor *t);
int tfpi_tensor_ndims(const tfpi_tensor *t);
int64_t tfpi_tensor_dim(const tfpi_tensor *t, int i);
int64_t tfpi_tensor_num_elements(const tfpi_tensor *t);
size_t tfpi_tensor_byte_size(const tfpi_tensor *t);
void *tfpi_tensor_data(tfpi_tensor *t);
const void *tfpi_tensor_const_data(const tfpi_tensor *t);

/* ---- graphs ------------------------------------------------------------ */
/* Decrypts `size` bytes of `data` in place; returns 0 on success. */
typedef int (*tfpi_decrypt_fn)(void *user, uint8_t *data, size_t size);

/* Loads a model from a path, as tfpi_graph_load does with no options. */
tfpi_graph *tfpi_graph_load_file(const char *path, tfpi_status *status);
/* The buffer is copied as needed; the caller may free it afterwards. */
tfpi_graph *tfpi_graph_load_buffer(const void *data, size_t size,
                                   tfpi_status *status);
void tfpi_graph_free(tfpi_graph *graph);
int tfpi_graph_num_nodes(const tfpi_graph *graph);
const char *tfpi_graph_node_name(const tfpi_graph *graph, int index);
const char *tfpi_graph_node_op(const tfpi_graph *graph, int index);
/* The `dtype` attribute of the node a tensor name ("node" or "node:k")
 * refers to, which is what a Placeholder expects; 0 if there is none. */
tfpi_dtype tfpi_graph_node_dtype(const tfpi_graph *graph, const char *tensor_name);
/* Data inputs of node `index`: how many, and the index of the node feeding
 * input k (-1 if there is no such input) with that node's output index in
 * *output_index (may be NULL). */
int tfpi_graph_node_num_inputs(const tfpi_graph *graph, int index);
int tfpi_graph_node_input(const tfpi_graph *graph, int index, int k, int *output_index);
/* The `shape` attribute of the node a tensor name refers to (a Placeholder's):
 * returns its rank and writes up to max_dims sizes to dims (-1 for a size
 * that is not known); -1 if the node has no shape of known rank. */
int tfpi_graph_node_shape(const tfpi_graph *graph, const char *tensor_name, int64_t *dims,
                          int max_dims);
/* Control inputs ("^name") of node `index`: how many, and the index of the
 * k-th node it waits for (-1 if there is no such input). A node read only
 * through control inputs (an Assert, a cond's switch_t) is not an output. */
int tfpi_graph_node_num_control_inputs(const tfpi_graph *graph, int index);
int tfpi_graph_node_control_input(const tfpi_graph *graph, int index, int k);
/* The element type of a tensor ("node" or "node:k") as the node's op and
 * attributes tell it before anything runs (T, dtype, DstT, out_type...,
 * or the op's fixed type: bool for Less, int32 for NonMaxSuppression...);
 * 0 when they do not tell. */
tfpi_dtype tfpi_graph_output_dtype(const tfpi_graph *graph, const char *tensor_name);
/* A new tensor holding a copy of the value of the Const (or ImmutableConst:
 * a memmapped model's or a .tflite's weights) node `name` (the caller frees
 * it), or NULL with status set if there is no such node. */
tfpi_tensor *tfpi_graph_const_value(const tfpi_graph *graph, const char *name, tfpi_status *status);

/* ---- SavedModels and checkpoints --------------------------------------- */
typedef struct tfpi_load_options {
    const char *tags;       /* SavedModel tag set, comma-separated; NULL or "" = "serve" */
    const char *signature;  /* SavedModel signature key; NULL or "" = "serving_default" (or the
                               only signature there is) */
    const char *checkpoint; /* where a .meta's or a GraphDef's variables are: a checkpoint prefix
                               (model.ckpt), one of its files, or a directory with a `checkpoint`
                               file; NULL = the checkpoint beside a .meta */
} tfpi_load_options;

/* Loads a model, whatever form it comes in (options may be NULL):
 *   - a SavedModel directory (saved_model.pb + variables/): the meta graph
 *     with the tag set options->tags, served through options->signature,
 *     whose keys then name inputs and outputs like tensor names do;
 *   - a .meta file (a MetaGraphDef from tf.train.Saver) with its
 *     checkpoint, or a training directory whose `checkpoint` file names one
 *     beside its .meta;
 *   - a binary or memmapped GraphDef (.pb); with options->checkpoint its
 *     variables take their values from the checkpoint (the key of each is
 *     the node's name, or what the graph's own restore ops give).
 * Variables are read from the checkpoint's data files when a session first
 * needs them (mapped, not copied, where the layout allows), each checked
 * against its checksum, type and shape;
 *   - a TensorFlow Lite model (.tflite), checked whole, its weights used in
 *     place from the mapped file (see "TensorFlow Lite models" below).
 * A file of another kind (Keras .h5, ONNX, a checkpoint's own files) is
 * named in the error. */
tfpi_graph *tfpi_graph_load(const char *path, const tfpi_load_options *options, tfpi_status *status);

/* The signature the graph is served through (a SavedModel's), or NULL. */
const char *tfpi_graph_signature(const tfpi_graph *graph);
/* Its inputs and outputs, sorted by key: the count, and the key of entry i
 * (NULL if out of range) with the tensor it names in *tensor_name (may be
 * NULL). */
int tfpi_graph_signature_num_inputs(const tfpi_graph *graph);
int tfpi_graph_signature_num_outputs(const tfpi_graph *graph);
const char *tfpi_graph_signature_input(const tfpi_graph *graph, int i, const char **tensor_name);
const char *tfpi_graph_signature_output(const tfpi_graph *graph, int i, const char **tensor_name);
/* Every signature of the model's meta graph, the one above included
 * (internal "__..." keys and those with sparse inputs left out), sorted by
 * key: any of them runs on the graph, in one session, feeding and fetching
 * its tensors. How many; signature s's key (NULL if out of range); the
 * count of its inputs (outputs when `outputs` is non-zero) and entry i of
 * them, as above. */
int tfpi_graph_num_signatures(const tfpi_graph *graph);
const char *tfpi_graph_signature_key(const tfpi_graph *graph, int s);
int tfpi_graph_signature_count(const tfpi_graph *graph, int s, int outputs);
const char *tfpi_graph_signature_entry(const tfpi_graph *graph, int s, int outputs, int i,
                                       const char **tensor_name);
/* A signature with no outputs runs for what it does: the node a run must
 * reach, the call of its function that reads its first input (fetch it as
 * "^node"); NULL for a signature with outputs or without inputs. */
const char *tfpi_graph_signature_target(const tfpi_graph *graph, int s);

/* ---- TensorFlow Lite models --------------------------------------------
 * A .tflite file (or bytes) loads like any model: tfpi_graph_load serves
 * the subgraph of its signature (options->signature; by default
 * serving_default, the only signature, or else subgraph 0), whose keys then
 * name inputs and outputs. Each tensor of that subgraph has a graph name
 * feeds and fetches use; these calls describe the tensors as the file does
 * (tflite_runtime's tensor details). On a graph that is not a .tflite they
 * return -1, NULL or TFPI_INVALID_ARGUMENT. */
typedef struct tfpi_tflite_tensor {
    const char *name;        /* the file's tensor name */
    const char *graph_name;  /* the feed/fetch name ("node" or "node:k"); NULL if no node computes it */
    tfpi_dtype dtype;        /* 0: a type tfpi does not hold */
    const char *type_name;   /* TFLite's: "FLOAT32", "UINT8", "INT8", ... */
    int ndims;
    int64_t dims[TFPI_MAX_DIMS];           /* shape */
    int64_t dims_signature[TFPI_MAX_DIMS]; /* shape_signature: -1 where the size is dynamic */
    int num_scales;            /* 0: not quantized; 1: per tensor; more: one per slice along quantized_dimension */
    const float *scales;       /* real = scale x (q - zero_point) */
    const int64_t *zero_points;
    int quantized_dimension;
    int is_constant, is_variable;
} tfpi_tflite_tensor;

/* Tensors of the served subgraph; -1 if the graph is not a .tflite. */
int tfpi_tflite_num_tensors(const tfpi_graph *graph);
tfpi_code tfpi_tflite_get_tensor(const tfpi_graph *graph, int index, tfpi_tflite_tensor *out, tfpi_status *status);
/* The index of the tensor a name (the file's name, or a graph name
 * "node"/"node:k", or a signature key) refers to; -1 if none. */
int tfpi_tflite_find_tensor(const tfpi_graph *graph, const char *name);
/* The served subgraph's inputs and outputs, as tensor indices (-1 when i is
 * out of range), and the subgraph's index in the file. */
int tfpi_tflite_num_inputs(const tfpi_graph *graph);
int tfpi_tflite_input(const tfpi_graph *graph, int i);
int tfpi_tflite_num_outputs(const tfpi_graph *graph);
int tfpi_tflite_output(const tfpi_graph *graph, int i);
int tfpi_tflite_subgraph(const tfpi_graph *graph);
/* The file's SignatureDefs: how many, the key of signature s (NULL when
 * out of range) with the subgraph it runs in *subgraph (may be NULL), and
 * its inputs or outputs (`outputs` non-zero): their count, and the key of
 * entry i with the tensor index it names (in that subgraph). */
int tfpi_tflite_num_signatures(const tfpi_graph *graph);
const char *tfpi_tflite_signature_key(const tfpi_graph *graph, int s, int *subgraph);
int tfpi_tflite_signature_num_entries(const tfpi_graph *graph, int s, int outputs);
const char *tfpi_tflite_signature_entry(const tfpi_graph *graph, int s, int outputs, int i, int *tensor);

/* A file packed with a .tflite in the zip archive Model Maker and the TFLite
 * Metadata writer append to it: `name`, or with name NULL its labels
 * (labels.txt, else the first .txt), as a uint8 tensor of its bytes (the
 * caller frees it); NULL with status set, TFPI_NOT_FOUND when the model has
 * no such file. Read with minizip; at most 16 MB. */
tfpi_tensor *tfpi_tflite_associated_file(const tfpi_graph *graph, const char *name, tfpi_status *status);

/* ---- model tools: protected models, op catalogue ------------------------
 * Loading also accepts TensorFlow's memory-mapped layout (what
 * convert_graphdef_memmapped_format writes), from a file or a buffer: a
 * mapped file's weights are used in place, never copied. */

/* Loads an encrypted model: copies data, calls decrypt(user, copy, size)
 * on the copy (in place; non-zero return = failure), and loads the result
 * (binary or memmapped GraphDef). The caller may free data afterwards. */
tfpi_graph *tfpi_graph_load_buffer_decrypted(const void *data, size_t size,
                                             tfpi_decrypt_fn decrypt, void *user,
                                             tfpi_status *status);

/* The kernels/ source file implementing op (the line tf_op_files.txt needs
 * for it), whether or not this build compiled it in; NULL if tfpi has no
 * kernel for op. */
const char *tfpi_kernel_file_for_op(const char *op);

/* ---- sessions ---------------------------------------------------------- */
typedef struct tfpi_session_options {
    int num_threads; /* <= 0: one per core; 1: no threads are created */
    /* The memory budget of a plan: the arena, folded constants, string
     * tensors and decoded images together (with control flow, also the
     * tensors the dynamic executor holds). 0: half of the machine's
     * physical RAM (tfpi_default_max_memory); < 0: no budget. Anything
     * beyond it fails first, with the node, shape and bytes. */
    int64_t max_memory_bytes;
    /* The ARM core family whose kernels to run: "a53" (Pi 3), "a72" (Pi 4),
     * "a76" (Pi 5) or "generic" (the portable SIMD kernels). NULL or "":
     * the TFPI_CPU environment variable if set, else the core detected.
     * Instruction-set extensions (fp16, dot product) are always those the
     * machine has. No effect elsewhere than on ARM. */
    const char *cpu;
    /* The arithmetic of convolutions and matrix products whose weights are
     * constants: "fp32" (NULL or "": the default) or "fp16", binary16
     * weights and multiply-adds (armv8.2-a FP16: a Pi 5), about twice as
     * fast, within the error the README gives; every other op stays fp32.
     * On a CPU without fp16 arithmetic, or a build for another target than
     * aarch64, an fp16 session runs in fp32: tfpi_session_precision says
     * which one it got. */
    const char *precision;
} tfpi_session_options;

/* Half of the physical RAM: the budget when max_memory_bytes is 0. */
int64_t tfpi_default_max_memory(void);

/* options may be NULL for the defaults. The graph must outlive the session. */
tfpi_session *tfpi_session_new(const tfpi_graph *graph,
                               const tfpi_session_options *options,
                               tfpi_status *status);
void tfpi_session_free(tfpi_session *session);

/* "fp32" or "fp16": the precision the session computes in (an fp16 session
 * on a CPU without fp16 arithmetic runs in fp32). */
const char *tfpi_session_precision(const tfpi_session *session);

/* Graphs with while loops: a loop that runs more than `limit` iterations
 * fails the run with an error naming its frame, and so do loops whose
 * iterations in one run (after each loop's first) add up past `limit`
 * (nested loops). limit <= 0 restores the default,
 * TFPI_DEFAULT_MAX_LOOP_ITERATIONS. */
#define TFPI_DEFAULT_MAX_LOOP_ITERATIONS 1000000
void tfpi_session_set_max_loop_iterations(tfpi_session *session, int64_t limit);

/* Runs the graph. Names are "node" or "node:k"; a fetch "^node" runs the
 * node without fetching a value (outputs[i] is NULL), as TensorFlow's
 * targets. Feeds are borrowed for the
 * call; on success outputs[i] receives a new tensor the caller frees with
 * tfpi_tensor_free. The first run with a set of feed shapes plans memory;
 * later runs with the same shapes reuse the plan. */
tfpi_code tfpi_session_run(tfpi_session *session, const char *const *feed_names,
                           tfpi_tensor *const *feeds, int num_feeds,
                           const char *const *fetch_names, tfpi_tensor **outputs,
                           int num_fetches, tfpi_status *status);

/* ---- profiling (benchmark_model) -------------------------------------- */
typedef struct tfpi_node_profile {
    const char *name, *op;
    double start_us;    /* from the start of the run */
    double duration_us;
    size_t output_bytes; /* bytes of the node's outputs */
    int64_t flops;       /* estimate for Conv2D, DepthwiseConv2dNative, MatMul...; else 0 */
    int integer;         /* flops counts 8-bit multiply-adds (x 2): TensorFlow's Quantized* ops,
                            TensorFlow Lite's int8/uint8 convolutions */
} tfpi_node_profile;

/* With profiling on, each run records the time of every node it runs. */
void tfpi_session_set_profiling(tfpi_session *session, int enabled);
/* The nodes the last run executed, in order; valid until the next run. For
 * a graph with control flow: the nodes its static plans (regions) ran; the
 * ones the dynamic executor runs one at a time are not timed. */
int tfpi_session_profile(const tfpi_session *session, const tfpi_node_profile **nodes);
/* The outputs of record `node` of the last run's profile: how many, and
 * output k's dtype and shape (its rank is returned, at most max_dims sizes
 * written; -1 if there is no such output). benchmark_model --show_sizes. */
int tfpi_session_profile_num_outputs(const tfpi_session *session, int node);
int tfpi_session_profile_output(const tfpi_session *session, int node, int k, tfpi_dtype *dtype,
                                int64_t *dims, int max_dims);
/* Drops the session's plan: the next run plans again, as a run with other
 * feed shapes or other string feeds does (a string feed is planned with:
 * what depends only on it is computed while planning). benchmark_model
 * times a string-fed graph this way, as a run on a new input costs. */
void tfpi_session_reset(tfpi_session *session);
/* Gives the session's resource variables and tables their first state, as
 * a new session has it: a variable of a model loaded with its checkpoint
 * takes the checkpoint's value again (one without has no value until the
 * graph assigns it), tables are filled again by their initializers. A
 * stateful model (an RNN keeping its state in a variable) starts over. */
void tfpi_session_reset_variables(tfpi_session *session);
/* What each thread of the session did since this was first called or last
 * called with reset (benchmark_model's per-thread report): out[0] is the
 * thread that runs the session, then its workers; returns the number of
 * threads (at most max written; out may be NULL), 0 if out of memory. A
 * session starts counting at the first call (which gives zeros), so one
 * nobody asks spends nothing on it: call it once before the runs to
 * measure. tasks: the pieces of work
 * it took; multiply_adds: theirs, as the layers define them (Conv2D,
 * depthwise, MatMul and their TFLite float twins: output elements x filter
 * taps, as benchmark_model's FLOPs / 2; a Winograd convolution counts its
 * transformed products; other ops count none); idle: summed over the
 * parallel steps, the multiply-adds the step's busiest thread did beyond
 * this one's (a step run by one thread alone counts whole for the others),
 * so idle / (multiply_adds + idle) is the share of the time it waited.
 * As run: which thread really took which task (where the machine has fewer
 * free cores than threads, the scheduler's doing); on equal cores: the same
 * tasks, in the order they were taken, each to the core free first, every
 * multiply-add taking the same time (what the split gives a board whose
 * cores are all free). */
typedef struct tfpi_thread_work {
    long long tasks, multiply_adds, idle;                   /* as run */
    long long equal_tasks, equal_multiply_adds, equal_idle; /* on equal cores */
} tfpi_thread_work;
int tfpi_session_thread_work(tfpi_session *session, tfpi_thread_work *out, int max, int reset);
/* Bytes of the current plan's activation arena (0 before the first run);
 * for a graph with control flow, the sum of its regions' arenas. */
size_t tfpi_session_arena_bytes(const tfpi_session *session);

/* ---- images ------------------------------------------------------------ */
/* An 8-bit interleaved image, rows top to bottom, channels RGB (3). */
typedef struct tfpi_image {
    int width, height, channels;
    uint8_t *pixels;
} tfpi_image;

/* The most pixels (width x height) any image decoder in the process may
 * produce: tfpi_image_decode/load and the DecodeJpeg/DecodePng ops. <= 0
 * restores the default, TFPI_DEFAULT_MAX_IMAGE_PIXELS (8192 x 4096). */
#define TFPI_DEFAULT_MAX_IMAGE_PIXELS ((int64_t)1 << 25)
void tfpi_image_set_max_pixels(int64_t max_pixels);

/* Decodes a JPEG (libjpeg-turbo, fast integer IDCT as TensorFlow's
 * decode_jpeg), PNG or BMP (uncompressed 8/24/32-bit, as TensorFlow Lite's
 * label_image reads) file to RGB. `name` is used in error messages. */
tfpi_code tfpi_image_decode(const void *data, size_t size, const char *name,
                            tfpi_image *out, tfpi_status *status);
tfpi_code tfpi_image_load(const char *path, tfpi_image *out, tfpi_status *status);
void tfpi_image_free(tfpi_image *image);

/* Resizes with TF1's legacy bilinear sampling (align_corners=false,
 * half_pixel_centers=false) to out_w x out_h and writes (x - mean) * (1 / std)
 * as float32 NHWC [out_h][out_w][channels]. */
void tfpi_image_to_input(const tfpi_image *image, int out_w, int out_h,
                         float mean, float std, float *out);

#ifdef __cplusplus
}
#endif
#endif /* TFPI_H */
