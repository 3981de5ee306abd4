/* camera - labels what a camera sees, live. Each frame (always the newest
 * one) is classified with a frozen graph; the top 5 and the frame rate go
 * to stderr, and the top label, when confident, goes to stdout: once when
 * it appears, again only after --repeat_after seconds, one flushed line per
 * announcement, so it can be spoken as things change:
 *
 *   camera | while read -r l; do flite -t "$l"; done     (or: camera --speak)
 *
 * Frames come from libcamera (the Pi camera stack), V4L2 (USB webcams) or
 * image files / PPM frames on stdin (--source). SIGINT and SIGTERM stop it
 * cleanly. The descendant of TensorFlow's pi_examples/camera. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "announce.h"
#include "capture.h"
#include "flags.h"
#include "graph_inputs.h"
#include "graphdef_io.h"
#include "labels.h"
#include "tflite_io.h"
#include "limit_flags.h"
#include "model_flags.h"
#include "object_detector.h"
#include "speaker.h"
#include "tfpi.h"
#include "top_k.h"

enum { TOP_K = 5 };

typedef struct options {
    classifier_model model;
    const char *source, *device, *frames_from, *speak_cmd;
    int video_width, video_height, frames, num_threads;
    limit_flags limits;
    float print_threshold, repeat_after;
    bool speak, detect;
} options;

/* Everything a run holds; released by close_run. */
typedef struct run {
    label_list labels;
    bool packed_labels; /* labels are the .tflite's own (no --labels given) */
    tfpi_graph *graph;
    tfpi_session *session;
    tfpi_tensor *input;
    capture *camera;
    speaker *speaker; /* NULL without --speak */
    tfpi_image frame;
} run;

static volatile sig_atomic_t stop_requested;

static void request_stop(int signal_number)
{
    (void)signal_number;
    stop_requested = 1;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static bool in_range(int value, int low, int high)
{
    return value >= low && value <= high;
}

/* Checks the flags together and settles the source; false after printing
 * the error. */
static bool check_options(options *o, capture_source *source)
{
    const char *problem = NULL;
    if (!capture_source_parse(o->source, source)) {
        fprintf(stderr, "error: invalid value '%s' for flag --source (auto, libcamera, v4l2 or files)\n",
                o->source);
        return false;
    }
    if (!in_range(o->model.input_width, 1, 16384) || !in_range(o->model.input_height, 1, 16384))
        problem = "--input_width and --input_height must be between 1 and 16384";
    else if (!in_range(o->video_width, 1, 16384) || !in_range(o->video_height, 1, 16384))
        problem = "--video_width and --video_height must be between 1 and 16384";
    else if (o->model.input_std == 0.0f)
        problem = "--input_std must not be 0";
    else if (!(o->print_threshold >= 0.0f && o->print_threshold <= 100.0f))
        problem = "--print_threshold must be a percentage (50) or a fraction (0.5)";
    else if (!(o->repeat_after >= 0.0f))
        problem = "--repeat_after must be 0 or more seconds";
    else if (o->num_threads < -1 || o->num_threads > MAX_THREADS)
        problem = "--num_threads must be -1 or 0 (one thread per core) or 1 to 1024";
    else if (!limit_flags_valid(&o->limits))
        return false; /* reported */
    else if (o->frames < 0)
        problem = "--frames must be 0 (until stopped) or more";
    else if (o->speak_cmd && !*o->speak_cmd)
        problem = "--speak_cmd must not be empty";
    else if (o->frames_from && o->device)
        problem = "--frames_from (files) and --device (V4L2) pick different sources: give one";
    else if (o->frames_from && *source != CAPTURE_AUTO && *source != CAPTURE_FILES)
        problem = "--frames_from needs --source=files";
    else if (o->device && *source != CAPTURE_AUTO && *source != CAPTURE_V4L2)
        problem = "--device needs --source=v4l2";
    if (problem) {
        fprintf(stderr, "error: %s\n", problem);
        return false;
    }
    if (*source == CAPTURE_AUTO && o->frames_from)
        *source = CAPTURE_FILES;
    else if (*source == CAPTURE_AUTO && o->device)
        *source = CAPTURE_V4L2;
    if (o->print_threshold > 1.0f)
        o->print_threshold /= 100.0f;
    o->speak = o->speak || o->speak_cmd;
    return true;
}

/* Installs the stop handlers and blocks them, so the threads started while
 * opening (threadpool, camera, stdin reader) inherit a mask that sends every
 * stop to the main thread, whose waits it then interrupts. */
static void catch_stop_signals(sigset_t *stop_signals)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = request_stop; /* no SA_RESTART: waits return early */
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout ends the run instead */
    sigemptyset(stop_signals);
    sigaddset(stop_signals, SIGINT);
    sigaddset(stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, stop_signals, NULL);
}

/* The model's input for a picture: [1,h,w,3], float or (a quantized
 * .tflite's) uint8 or int8; NULL after an error line. */
static tfpi_tensor *input_for(const options *o, const run *r)
{
    tfpi_status status = {0};
    int64_t dims[4] = {1, o->model.input_height, o->model.input_width, 3};
    tfpi_dtype dtype = input_dtype(r->graph, o->model.input_layer);
    if (!o->detect && graph_inputs_check(r->graph, o->model.input_layer, dims, 4, "--input_layer",
                                         "--input_width/--input_height"))
        return NULL; /* reported */
    tfpi_tensor *input =
        tfpi_tensor_new(dtype == TFPI_UINT8 || dtype == TFPI_INT8 ? dtype : TFPI_FLOAT, dims, 4, &status);
    if (!input)
        fprintf(stderr, "error: input tensor: %s\n", status.message);
    return input;
}

static bool open_run(options *o, capture_source source, run *r)
{
    tfpi_status status = {0};
    tfpi_session_options session_options = limit_flags_apply(&o->limits, o->num_threads);
    capture_options capture_options = {
        .device = o->device ? o->device : "/dev/video0",
        .frames_from = o->frames_from,
        .width = o->video_width,
        .height = o->video_height,
        .stop = &stop_requested,
    };
    if (o->model.labels && labels_load(o->model.labels, &r->labels, &status) != TFPI_OK)
        fprintf(stderr, "error: --labels: %s\n", status.message);
    else if (o->speak && !(r->speaker = speaker_new(o->speak_cmd ? o->speak_cmd : "flite -t", &status)))
        fprintf(stderr, "error: %s\n", status.message);
    else if (!(r->graph = classifier_model_load(&o->model, o->model.graph, &status)) ||
             !(r->session = tfpi_session_new(r->graph, &session_options, &status)))
        fprintf(stderr, "error: --graph: %s\n", status.message);
    else if ((r->packed_labels = classifier_model_packed_labels(&o->model, r->graph, &r->labels)),
             !(r->input = input_for(o, r)))
        ; /* reported */
    else if (!(r->camera = capture_open(source, &capture_options, &status)))
        fprintf(stderr, "error: %s%s\n", status.message,
                status.code == TFPI_NOT_FOUND ? "; to label pictures instead: --source=files --frames_from=DIR" : "");
    else {
        limit_flags_check_session(&o->limits, r->session);
        return true;
    }
    return false;
}

static void close_run(run *r, bool finish_speaking)
{
    if (r->camera)
        r->camera->close(r->camera);
    speaker_free(r->speaker, finish_speaking && !stop_requested);
    tfpi_image_free(&r->frame);
    tfpi_tensor_free(r->input);
    tfpi_session_free(r->session);
    tfpi_graph_free(r->graph);
    labels_free(&r->labels);
}

/* Classifies r->frame; *scores is a new float tensor, or NULL after an error. */
static bool classify(const options *o, run *r, tfpi_tensor **scores)
{
    tfpi_status status = {0};
    const classifier_model *m = &o->model;
    *scores = NULL;
    if (image_fill_input(r->input, &r->frame, m->input_mean, m->input_std, &status) != TFPI_OK ||
        tfpi_session_run(r->session, &m->input_layer, &r->input, 1, &m->output_layer, scores, 1, &status) !=
            TFPI_OK) {
        fprintf(stderr, "error: --graph: %s\n", status.message);
        return false;
    }
    if (tfpi_tensor_dtype(*scores) != TFPI_FLOAT) { /* a quantized model's scores */
        tfpi_tensor *dequantized = scores_as_float(r->graph, m->output_layer, *scores, &status);
        tfpi_tensor_free(*scores);
        *scores = dequantized;
        if (!dequantized) {
            fprintf(stderr, "error: --output_layer=%s: %s\n", m->output_layer, status.message);
            return false;
        }
    }
    if (tfpi_tensor_dtype(*scores) != TFPI_FLOAT || tfpi_tensor_num_elements(*scores) < 1) {
        fprintf(stderr, "error: --output_layer=%s is not a float score vector\n", m->output_layer);
        return false;
    }
    return true;
}

/* "frame N (F fps): label (index): score, ..." on stderr. */
static void report_frame(const run *r, long frame, double fps, const float *scores,
                         const int *best, int count)
{
    fprintf(stderr, "frame %ld", frame);
    if (fps > 0)
        fprintf(stderr, " (%.1f fps)", fps);
    for (int i = 0; i < count; i++) {
        char name[32];
        fprintf(stderr, "%s %s (%d): %.3f", i ? "," : ":", labels_name(&r->labels, best[i], name, sizeof name),
                best[i], (double)scores[best[i]]);
    }
    fputc('\n', stderr);
}

typedef enum step_result { STEP_DONE, STEP_STDOUT_CLOSED, STEP_FAILED } step_result;

/* One flushed line on stdout. A reader that went away (`| head -n 1`) ends
 * the run quietly; any other write error is an error. */
static step_result print_line(const char *line)
{
    if (printf("%s\n", line) >= 0 && fflush(stdout) == 0)
        return STEP_DONE;
    if (errno == EPIPE)
        return STEP_STDOUT_CLOSED;
    fprintf(stderr, "error: stdout: %s\n", strerror(errno));
    return STEP_FAILED;
}

/* Says `label` (stdout, and the speaker) if the announcer finds it due:
 * the first name of a synonym list ("bow tie", not "bow tie, bow-tie,
 * bowtie"). */
static step_result announce(run *r, announcer *announcer, const char *full_label, long *announced)
{
    char label[128];
    labels_first_name(full_label, label, sizeof label);
    if (!announcer_should_announce(announcer, label, seconds_now()))
        return STEP_DONE;
    ++*announced;
    step_result result = print_line(label);
    if (r->speaker)
        speaker_say(r->speaker, label);
    return result;
}

/* Classifies r->frame, reports its top 5 and announces the top label if it
 * is confident and due. */
static step_result label_frame(const options *o, run *r, announcer *announcer, long frame,
                               double fps, long *announced)
{
    tfpi_tensor *scores;
    if (!classify(o, r, &scores)) {
        tfpi_tensor_free(scores);
        return STEP_FAILED;
    }
    const float *s = tfpi_tensor_const_data(scores);
    int best[TOP_K];
    int count = top_k(s, (int)tfpi_tensor_num_elements(scores), TOP_K, best);
    if (frame == 1)
        labels_check_count(&r->labels, r->packed_labels ? NULL : o->model.labels, tfpi_tensor_num_elements(scores));
    report_frame(r, frame, fps, s, best, count);
    step_result result = STEP_DONE;
    char name[32];
    if (s[best[0]] > o->print_threshold)
        result = announce(r, announcer, labels_name(&r->labels, best[0], name, sizeof name), announced);
    tfpi_tensor_free(scores);
    return result;
}

/* --detect: finds objects in r->frame (an Object Detection API graph),
 * reports the best 5 above the threshold and announces the best one if due. */
static step_result detect_frame(const options *o, run *r, announcer *announcer, long frame, double fps,
                                long *announced)
{
    tfpi_status status = {0};
    detection found[TOP_K];
    int count = detect_objects(r->graph, r->session, &r->frame, &r->labels, o->print_threshold, found, TOP_K, &status);
    if (count < 0) {
        fprintf(stderr, "error: --graph: %s\n", status.message);
        return STEP_FAILED;
    }
    fprintf(stderr, "frame %ld", frame);
    if (fps > 0)
        fprintf(stderr, " (%.1f fps)", fps);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "%s %s %.3f at %.0f,%.0f-%.0f,%.0f", i ? "," : ":", found[i].label,
                (double)found[i].score, (double)found[i].xmin, (double)found[i].ymin, (double)found[i].xmax,
                (double)found[i].ymax);
    fputc('\n', stderr);
    return count > 0 ? announce(r, announcer, found[0].label, announced) : STEP_DONE;
}

/* Labels frames until they end, --frames are done or a stop; 0 or 1. */
static int label_frames(const options *o, run *r)
{
    announcer announcer;
    announcer_init(&announcer, o->repeat_after);
    tfpi_status status = {0};
    double start = seconds_now(), previous = start, mean_interval = 0;
    long labelled = 0, announced = 0;
    step_result step = STEP_DONE;
    while (step == STEP_DONE && !stop_requested && (o->frames == 0 || labelled < o->frames)) {
        capture_result got = r->camera->next(r->camera, &r->frame, &status);
        if (got == CAPTURE_ERROR) {
            fprintf(stderr, "error: %s\n", status.message);
            return 1;
        }
        if (got != CAPTURE_FRAME) /* the frames ended, or a stop */
            break;
        double now = seconds_now();
        if (labelled++ > 0) /* the frame rate, smoothed over about ten frames */
            mean_interval = mean_interval > 0 ? 0.9 * mean_interval + 0.1 * (now - previous)
                                              : now - previous;
        previous = now;
        double fps = mean_interval > 0 ? 1 / mean_interval : 0;
        step = o->detect ? detect_frame(o, r, &announcer, labelled, fps, &announced)
                         : label_frame(o, r, &announcer, labelled, fps, &announced);
        if (r->speaker)
            speaker_poll(r->speaker);
    }
    if (step == STEP_FAILED)
        return 1;
    double elapsed = seconds_now() - start;
    fprintf(stderr, "%ld frames labelled in %.1f s (%.1f fps), %ld announced%s\n", labelled,
            elapsed, elapsed > 0 ? (double)labelled / elapsed : 0.0, announced,
            step == STEP_STDOUT_CLOSED ? "; stdout was closed" : "");
    return 0;
}

int main(int argc, char **argv)
{
    options o = {
        .model = CLASSIFIER_MODEL_DEFAULTS,
        .source = "auto",
        .video_width = 640,
        .video_height = 480,
        .print_threshold = 30.0f,
        .repeat_after = 10.0f,
    };
    classifier_model_find_defaults(&o.model);
    const tool_flag flags[] = {
        CLASSIFIER_MODEL_FLAGS(o.model),
        {"source", FLAG_STRING, &o.source, "auto (libcamera, then V4L2), libcamera, v4l2 or files"},
        {"device", FLAG_STRING, &o.device, "V4L2 device (default /dev/video0)"},
        {"frames_from", FLAG_STRING, &o.frames_from,
         "files: a directory or glob of JPEG/PNG/PPM frames (default: PPM frames on stdin)"},
        {"video_width", FLAG_INT, &o.video_width, "frame width asked of the camera"},
        {"video_height", FLAG_INT, &o.video_height, "frame height asked of the camera"},
        {"print_threshold", FLAG_FLOAT, &o.print_threshold,
         "announce the top label above this score: percent (50) or fraction (0.5)"},
        {"repeat_after", FLAG_FLOAT, &o.repeat_after,
         "seconds before the same label is announced again (0 = every frame)"},
        {"frames", FLAG_INT, &o.frames, "frames to label (0 = until stopped or frames end)"},
        NUM_THREADS_FLAG(o.num_threads),
        LIMIT_FLAGS(o.limits),
        {"speak", FLAG_BOOL, &o.speak, "speak each announced label (runs --speak_cmd)"},
        {"detect", FLAG_BOOL, &o.detect,
         "--graph is an Object Detection API graph: announce the best object found (score above "
         "--print_threshold)"},
        {"speak_cmd", FLAG_STRING, &o.speak_cmd,
         "text-to-speech command, label appended (default 'flite -t'; implies --speak)"},
    };
    const int num_flags = sizeof flags / sizeof flags[0];
    capture_source source;
    int rc = flags_parse(argc, argv, flags, num_flags, "[--source=auto|libcamera|v4l2|files ...]");
    if (rc == 0 && (!check_options(&o, &source) || !classifier_model_check_defaults(&o.model, NULL, NULL)))
        rc = 1;
    if (rc == 0) {
        sigset_t stop_signals;
        catch_stop_signals(&stop_signals);
        run r = {0};
        rc = 1;
        if (open_run(&o, source, &r)) {
            pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL);
            rc = label_frames(&o, &r);
        }
        close_run(&r, rc == 0);
    }
    flags_free(flags, num_flags);
    return rc == 2 ? 0 : rc;
}
