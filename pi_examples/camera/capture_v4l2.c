/* capture_v4l2.c - frames from a V4L2 device (USB webcams, the legacy Pi
 * camera driver): picks RGB24, BGR24, YUYV, UYVY or MJPEG, streams through
 * mmap buffers and, when asked for a frame, dequeues everything the driver
 * has finished and keeps only the newest, so labelling never falls behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "capture.h"
#include "pixel_formats.h"
#include "tfpi.h"

enum { V4L2_BUFFER_COUNT = 4 };

/* The formats read, best first. */
static const struct {
    uint32_t fourcc;
    pixel_format format;
} supported_formats[] = {
    {V4L2_PIX_FMT_RGB24, PIXEL_RGB24}, {V4L2_PIX_FMT_BGR24, PIXEL_BGR24},
    {V4L2_PIX_FMT_YUYV, PIXEL_YUYV},   {V4L2_PIX_FMT_UYVY, PIXEL_UYVY},
    {V4L2_PIX_FMT_MJPEG, PIXEL_MJPEG}, {V4L2_PIX_FMT_JPEG, PIXEL_MJPEG},
};
enum { NUM_SUPPORTED = sizeof supported_formats / sizeof supported_formats[0] };

typedef struct mapped_buffer {
    void *start;
    size_t length;
} mapped_buffer;

typedef struct v4l2_capture {
    capture base;
    const char *device;
    int fd;
    camera_buffer frame_layout; /* format, size and stride of every frame */
    mapped_buffer buffers[V4L2_BUFFER_COUNT];
    unsigned num_buffers;
    bool streaming;
    int bad_frames_in_a_row;
    const volatile sig_atomic_t *stop;
} v4l2_capture;

static int xioctl(int fd, unsigned long request, void *arg)
{
    int rc;
    do
        rc = ioctl(fd, request, arg);
    while (rc < 0 && errno == EINTR);
    return rc;
}

/* The status for a failed open or ioctl, with the common causes spelled out. */
static void ioctl_error(const v4l2_capture *v, const char *what, tfpi_status *status)
{
    if (errno == EBUSY)
        tfpi_status_set(status, TFPI_IO_ERROR,
                 "%s: busy: another program is using the camera (see `fuser %s`)", v->device,
                 v->device);
    else if (errno == ENODEV)
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: the camera was disconnected", v->device);
    else if (errno == ENOSPC)
        tfpi_status_set(status, TFPI_IO_ERROR,
                 "%s: not enough USB bandwidth: try a smaller --video_width/--video_height "
                 "or another USB port", v->device);
    else
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: %s failed: %s", v->device, what, strerror(errno));
}

static bool open_device(v4l2_capture *v, tfpi_status *status)
{
    v->fd = open(v->device, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (v->fd >= 0)
        return true;
    if (errno == ENOENT || errno == ENXIO)
        tfpi_status_set(status, TFPI_NOT_FOUND,
                 "%s: no such device (no camera connected? `ls /dev/video*` lists them)",
                 v->device);
    else if (errno == EACCES)
        tfpi_status_set(status, TFPI_IO_ERROR,
                 "%s: permission denied (add yourself to the 'video' group)", v->device);
    else
        ioctl_error(v, "open", status);
    return false;
}

static bool check_capabilities(v4l2_capture *v, tfpi_status *status)
{
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    if (xioctl(v->fd, VIDIOC_QUERYCAP, &cap) != 0) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: not a V4L2 video device (%s)", v->device,
                 strerror(errno));
        return false;
    }
    uint32_t caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "%s: '%.32s' (%.16s) is not a streaming video capture device", v->device,
                 (const char *)cap.card, (const char *)cap.driver);
        return false;
    }
    return true;
}

/* Appends a fourcc as four characters ("YUYV") to a list. */
static void append_fourcc(char *list, size_t size, uint32_t fourcc)
{
    size_t n = strlen(list);
    snprintf(list + n, size - n, "%s%c%c%c%c", n ? ", " : "", (char)(fourcc & 0xff),
             (char)(fourcc >> 8 & 0xff), (char)(fourcc >> 16 & 0xff), (char)(fourcc >> 24 & 0xff));
}

/* The index in supported_formats of the best format the device offers. */
static bool choose_format(v4l2_capture *v, int *best, tfpi_status *status)
{
    char offered[256] = "";
    *best = NUM_SUPPORTED;
    struct v4l2_fmtdesc desc;
    memset(&desc, 0, sizeof desc);
    desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    for (; xioctl(v->fd, VIDIOC_ENUM_FMT, &desc) == 0; desc.index++) {
        append_fourcc(offered, sizeof offered, desc.pixelformat);
        for (int i = 0; i < *best; i++)
            if (supported_formats[i].fourcc == desc.pixelformat)
                *best = i;
    }
    if (*best < NUM_SUPPORTED)
        return true;
    tfpi_status_set(status, TFPI_UNIMPLEMENTED,
             "%s: offers none of RGB3, BGR3, YUYV, UYVY, MJPG, JPEG (it has: %s); a Raspberry "
             "Pi camera module needs --source=libcamera", v->device,
             *offered ? offered : "no formats");
    return false;
}

static bool set_format(v4l2_capture *v, const capture_options *o, tfpi_status *status)
{
    int best;
    if (!choose_format(v, &best, status))
        return false;
    struct v4l2_format fmt;
    memset(&fmt, 0, sizeof fmt);
    fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    fmt.fmt.pix.width = (uint32_t)o->width;
    fmt.fmt.pix.height = (uint32_t)o->height;
    fmt.fmt.pix.pixelformat = supported_formats[best].fourcc;
    fmt.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(v->fd, VIDIOC_S_FMT, &fmt) != 0) {
        ioctl_error(v, "VIDIOC_S_FMT", status);
        return false;
    }
    if (fmt.fmt.pix.pixelformat != supported_formats[best].fourcc) {
        tfpi_status_set(status, TFPI_UNIMPLEMENTED, "%s: the driver would not deliver %s frames",
                 v->device, pixel_format_name(supported_formats[best].format));
        return false;
    }
    v->frame_layout = (camera_buffer){
        .format = supported_formats[best].format,
        .width = (int)fmt.fmt.pix.width,
        .height = (int)fmt.fmt.pix.height,
        .stride = fmt.fmt.pix.bytesperline,
    };
    return true;
}

static bool map_buffers(v4l2_capture *v, tfpi_status *status)
{
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = V4L2_BUFFER_COUNT;
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    if (xioctl(v->fd, VIDIOC_REQBUFS, &request) != 0) {
        ioctl_error(v, "VIDIOC_REQBUFS", status);
        return false;
    }
    for (unsigned i = 0; i < request.count && i < V4L2_BUFFER_COUNT; i++) {
        struct v4l2_buffer buf;
        memset(&buf, 0, sizeof buf);
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buf.memory = V4L2_MEMORY_MMAP;
        buf.index = i;
        if (xioctl(v->fd, VIDIOC_QUERYBUF, &buf) != 0) {
            ioctl_error(v, "VIDIOC_QUERYBUF", status);
            return false;
        }
        void *start = mmap(NULL, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, buf.m.offset);
        if (start == MAP_FAILED) {
            tfpi_status_set(status, TFPI_IO_ERROR, "%s: cannot map frame buffer %u: %s", v->device, i,
                     strerror(errno));
            return false;
        }
        v->buffers[v->num_buffers++] = (mapped_buffer){start, buf.length};
    }
    if (v->num_buffers < 2) {
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: the driver gave %u frame buffers, 2 are needed",
                 v->device, v->num_buffers);
        return false;
    }
    return true;
}

static bool queue_buffer(v4l2_capture *v, unsigned index, tfpi_status *status)
{
    struct v4l2_buffer buf;
    memset(&buf, 0, sizeof buf);
    buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buf.memory = V4L2_MEMORY_MMAP;
    buf.index = index;
    if (xioctl(v->fd, VIDIOC_QBUF, &buf) == 0)
        return true;
    ioctl_error(v, "VIDIOC_QBUF", status);
    return false;
}

static bool start_streaming(v4l2_capture *v, tfpi_status *status)
{
    for (unsigned i = 0; i < v->num_buffers; i++)
        if (!queue_buffer(v, i, status))
            return false;
    int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(v->fd, VIDIOC_STREAMON, &type) != 0) {
        ioctl_error(v, "VIDIOC_STREAMON", status);
        return false;
    }
    v->streaming = true;
    return true;
}

/* Dequeues the finished buffers (at most one round of them) and requeues
 * all but the newest. newest->index is -1 if the driver had none ready. */
static bool dequeue_newest(v4l2_capture *v, struct v4l2_buffer *newest, tfpi_status *status)
{
    newest->index = (uint32_t)-1;
    for (unsigned round = 0; round < v->num_buffers; round++) {
        struct v4l2_buffer buf;
        memset(&buf, 0, sizeof buf);
        buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buf.memory = V4L2_MEMORY_MMAP;
        if (xioctl(v->fd, VIDIOC_DQBUF, &buf) != 0) {
            if (errno == EAGAIN)
                break;
            ioctl_error(v, "VIDIOC_DQBUF", status);
            return false;
        }
        if (buf.index >= v->num_buffers) {
            tfpi_status_set(status, TFPI_INTERNAL, "%s: the driver returned unknown buffer %u",
                     v->device, buf.index);
            return false;
        }
        if (newest->index != (uint32_t)-1 && !queue_buffer(v, newest->index, status))
            return false;
        *newest = buf;
    }
    return true;
}

typedef enum frame_outcome { FRAME_GOOD, FRAME_SKIPPED, FRAME_FAILED } frame_outcome;

/* Converts a dequeued buffer and gives it back to the driver; a damaged
 * frame is skipped unless CAPTURE_MAX_BAD_FRAMES come in a row. */
static frame_outcome convert_and_requeue(v4l2_capture *v, const struct v4l2_buffer *buf,
                                         tfpi_image *frame, tfpi_status *status)
{
    camera_buffer b = v->frame_layout;
    b.data = v->buffers[buf->index].start;
    b.size = buf->bytesused;
    bool flagged = buf->flags & V4L2_BUF_FLAG_ERROR;
    if (flagged)
        tfpi_status_set(status, TFPI_IO_ERROR, "%s: the driver flagged frames as corrupt", v->device);
    bool good = !flagged && camera_buffer_to_rgb(&b, v->device, frame, status) == TFPI_OK;
    if (!queue_buffer(v, buf->index, status))
        return FRAME_FAILED;
    v->bad_frames_in_a_row = good ? 0 : v->bad_frames_in_a_row + 1;
    return good ? FRAME_GOOD
                : v->bad_frames_in_a_row < CAPTURE_MAX_BAD_FRAMES ? FRAME_SKIPPED : FRAME_FAILED;
}

static capture_result v4l2_next(capture *self, tfpi_image *frame, tfpi_status *status)
{
    v4l2_capture *v = (v4l2_capture *)self;
    for (int waited_ms = 0; waited_ms < CAPTURE_FRAME_TIMEOUT_MS;) {
        if (*v->stop)
            return CAPTURE_STOPPED;
        struct v4l2_buffer newest;
        if (!dequeue_newest(v, &newest, status))
            return CAPTURE_ERROR;
        if (newest.index != (uint32_t)-1) {
            frame_outcome outcome = convert_and_requeue(v, &newest, frame, status);
            if (outcome == FRAME_SKIPPED)
                continue;
            return outcome == FRAME_GOOD ? CAPTURE_FRAME : CAPTURE_ERROR;
        }
        fd_set readable;
        FD_ZERO(&readable);
        FD_SET(v->fd, &readable);
        struct timeval slice = {0, CAPTURE_WAIT_SLICE_MS * 1000};
        int n = select(v->fd + 1, &readable, NULL, NULL, &slice);
        if (n < 0 && errno != EINTR) {
            tfpi_status_set(status, TFPI_IO_ERROR, "%s: select failed: %s", v->device, strerror(errno));
            return CAPTURE_ERROR;
        }
        if (n == 0)
            waited_ms += CAPTURE_WAIT_SLICE_MS;
    }
    tfpi_status_set(status, TFPI_IO_ERROR, "%s: no frame for %d s: the camera stopped delivering",
             v->device, CAPTURE_FRAME_TIMEOUT_MS / 1000);
    return CAPTURE_ERROR;
}

static void v4l2_close(capture *self)
{
    v4l2_capture *v = (v4l2_capture *)self;
    if (v->streaming) {
        int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(v->fd, VIDIOC_STREAMOFF, &type);
    }
    for (unsigned i = 0; i < v->num_buffers; i++)
        munmap(v->buffers[i].start, v->buffers[i].length);
    if (v->num_buffers > 0) {
        struct v4l2_requestbuffers release;
        memset(&release, 0, sizeof release);
        release.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        release.memory = V4L2_MEMORY_MMAP;
        xioctl(v->fd, VIDIOC_REQBUFS, &release);
    }
    if (v->fd >= 0)
        close(v->fd);
    free(v);
}

capture *capture_open_v4l2(const capture_options *options, tfpi_status *status)
{
    v4l2_capture *v = calloc(1, sizeof *v);
    if (!v) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "%s: out of memory", options->device);
        return NULL;
    }
    v->base = (capture){v4l2_next, v4l2_close};
    v->device = options->device;
    v->stop = options->stop;
    if (open_device(v, status) && check_capabilities(v, status) && set_format(v, options, status) &&
        map_buffers(v, status) && start_streaming(v, status))
        return &v->base;
    v4l2_close(&v->base);
    return NULL;
}
