/* capture_stdin.c - the files source without --frames_from: binary PPM
 * frames back to back on stdin. From a regular file (`< frames.ppm`) every
 * frame is labelled in order, like a recording. From a pipe a reader thread
 * keeps consuming the stream and only the newest complete frame is handed
 * out, so a live producer (ffmpeg, a camera tool) never waits for the model
 * and stale frames are dropped. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "pixel_formats.h"
#include "ppm.h"
#include "tfpi.h"

/* Reads PPM frames from a file descriptor, waiting in short slices so that
 * a stop request (flag or a readable wake_fd) ends a wait promptly. */
typedef struct frame_reader {
    int fd;
    int wake_fd;                       /* readable = stop; -1 if unused */
    const volatile sig_atomic_t *stop; /* NULL if unused */
    uint8_t lookahead[PPM_MAX_HEADER];
    size_t used; /* bytes waiting in lookahead */
    long frames; /* frames read so far */
} frame_reader;

typedef struct stdin_capture {
    capture base;
    frame_reader reader;
    const volatile sig_atomic_t *stop;
    /* Pipe mode only: the reader thread and the newest frame it read. */
    bool threaded;
    pthread_t thread;
    int wake_pipe[2];
    pthread_mutex_t lock;
    pthread_cond_t changed;
    tfpi_image newest;
    bool has_newest;
    capture_result reader_end; /* CAPTURE_FRAME while the thread runs */
    tfpi_status reader_status;
} stdin_capture;

static capture_result wait_readable(frame_reader *r, tfpi_status *status)
{
    for (;;) {
        if (r->stop && *r->stop)
            return CAPTURE_STOPPED;
        struct pollfd fds[2] = {{.fd = r->fd, .events = POLLIN}, {.fd = r->wake_fd, .events = POLLIN}};
        int n = poll(fds, r->wake_fd >= 0 ? 2 : 1, CAPTURE_WAIT_SLICE_MS);
        if (n < 0 && errno != EINTR) {
            tfpi_status_set(status, TFPI_IO_ERROR, "stdin: cannot wait for frames: %s", strerror(errno));
            return CAPTURE_ERROR;
        }
        if (n > 0 && r->wake_fd >= 0 && fds[1].revents)
            return CAPTURE_STOPPED;
        if (n > 0 && fds[0].revents)
            return CAPTURE_FRAME;
    }
}

/* Reads up to `size` bytes; *got = 0 at the end of the stream. */
static capture_result read_some(frame_reader *r, uint8_t *into, size_t size, size_t *got,
                                tfpi_status *status)
{
    for (;;) {
        capture_result waited = wait_readable(r, status);
        if (waited != CAPTURE_FRAME)
            return waited;
        ssize_t n = read(r->fd, into, size);
        if (n >= 0) {
            *got = (size_t)n;
            return CAPTURE_FRAME;
        }
        if (errno != EINTR && errno != EAGAIN) {
            tfpi_status_set(status, TFPI_IO_ERROR, "stdin: read failed: %s", strerror(errno));
            return CAPTURE_ERROR;
        }
    }
}

static capture_result truncated(const frame_reader *r, tfpi_status *status)
{
    tfpi_status_set(status, TFPI_IO_ERROR, "stdin: frame %ld is truncated (the stream ended inside it)",
             r->frames + 1);
    return CAPTURE_ERROR;
}

/* Reads the header into the lookahead buffer. */
static capture_result read_header(frame_reader *r, ppm_header *header, tfpi_status *status)
{
    char name[48];
    snprintf(name, sizeof name, "stdin frame %ld", r->frames + 1);
    for (;;) {
        switch (ppm_parse_header(r->lookahead, r->used, name, header, status)) {
        case PPM_HEADER_OK:
            return CAPTURE_FRAME;
        case PPM_HEADER_INVALID:
            return CAPTURE_ERROR;
        case PPM_HEADER_INCOMPLETE:
            break;
        }
        size_t got = 0;
        capture_result read_result = read_some(r, r->lookahead + r->used,
                                               sizeof r->lookahead - r->used, &got, status);
        if (read_result != CAPTURE_FRAME)
            return read_result;
        if (got == 0 && r->used > 0)
            return truncated(r, status);
        if (got == 0 && r->frames == 0) {
            tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                     "stdin: no frames (expected binary PPM (P6) frames, or give --frames_from)");
            return CAPTURE_ERROR;
        }
        if (got == 0)
            return CAPTURE_END;
        r->used += got;
    }
}

/* Reads the next whole frame into *frame. */
static capture_result read_frame(frame_reader *r, tfpi_image *frame, tfpi_status *status)
{
    ppm_header header;
    capture_result result = read_header(r, &header, status);
    if (result != CAPTURE_FRAME)
        return result;
    if (rgb_image_reserve(frame, header.width, header.height, "stdin", status) != TFPI_OK)
        return CAPTURE_ERROR;
    size_t pixel_bytes = (size_t)header.width * (size_t)header.height * 3;
    size_t buffered = r->used - header.header_size;
    size_t from_lookahead = buffered < pixel_bytes ? buffered : pixel_bytes;
    memcpy(frame->pixels, r->lookahead + header.header_size, from_lookahead);
    size_t consumed = header.header_size + from_lookahead;
    memmove(r->lookahead, r->lookahead + consumed, r->used - consumed);
    r->used -= consumed;
    for (size_t have = from_lookahead; have < pixel_bytes;) {
        size_t got = 0;
        result = read_some(r, frame->pixels + have, pixel_bytes - have, &got, status);
        if (result != CAPTURE_FRAME)
            return result;
        if (got == 0)
            return truncated(r, status);
        have += got;
    }
    r->frames++;
    return CAPTURE_FRAME;
}

static void swap_images(tfpi_image *a, tfpi_image *b)
{
    tfpi_image t = *a;
    *a = *b;
    *b = t;
}

static void *reader_thread(void *arg)
{
    stdin_capture *s = arg;
    tfpi_image scratch = {0};
    tfpi_status status = {0};
    capture_result result;
    while ((result = read_frame(&s->reader, &scratch, &status)) == CAPTURE_FRAME) {
        pthread_mutex_lock(&s->lock);
        swap_images(&scratch, &s->newest);
        s->has_newest = true;
        pthread_cond_signal(&s->changed);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
    s->reader_end = result;
    s->reader_status = status;
    pthread_cond_signal(&s->changed);
    pthread_mutex_unlock(&s->lock);
    tfpi_image_free(&scratch);
    return NULL;
}

static struct timespec deadline_after_ms(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += ms % 1000 * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

/* Pipe mode: takes the newest frame the reader thread has finished. */
static capture_result take_newest(stdin_capture *s, tfpi_image *frame, tfpi_status *status)
{
    capture_result result;
    pthread_mutex_lock(&s->lock);
    while (!s->has_newest && s->reader_end == CAPTURE_FRAME && !*s->stop) {
        struct timespec deadline = deadline_after_ms(CAPTURE_WAIT_SLICE_MS);
        pthread_cond_timedwait(&s->changed, &s->lock, &deadline);
    }
    if (s->has_newest) {
        swap_images(frame, &s->newest);
        s->has_newest = false;
        result = CAPTURE_FRAME;
    } else if (*s->stop) {
        result = CAPTURE_STOPPED;
    } else {
        result = s->reader_end;
        *status = s->reader_status;
    }
    pthread_mutex_unlock(&s->lock);
    return result;
}

static capture_result stdin_next(capture *self, tfpi_image *frame, tfpi_status *status)
{
    stdin_capture *s = (stdin_capture *)self;
    if (*s->stop)
        return CAPTURE_STOPPED;
    return s->threaded ? take_newest(s, frame, status) : read_frame(&s->reader, frame, status);
}

static void stdin_close(capture *self)
{
    stdin_capture *s = (stdin_capture *)self;
    if (s->threaded) {
        ssize_t ignored = write(s->wake_pipe[1], "x", 1);
        (void)ignored; /* the pipe is empty, so this cannot fail or block */
        pthread_join(s->thread, NULL);
        close(s->wake_pipe[0]);
        close(s->wake_pipe[1]);
        pthread_cond_destroy(&s->changed);
        pthread_mutex_destroy(&s->lock);
        tfpi_image_free(&s->newest);
    }
    free(s);
}

/* Starts the reader thread; false with status set if it cannot. */
static bool start_reader_thread(stdin_capture *s, tfpi_status *status)
{
    pthread_condattr_t attr;
    bool ok = pipe2(s->wake_pipe, O_CLOEXEC) == 0;
    if (ok) {
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&s->changed, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&s->lock, NULL);
        s->reader.wake_fd = s->wake_pipe[0];
        s->reader_end = CAPTURE_FRAME;
        ok = pthread_create(&s->thread, NULL, reader_thread, s) == 0;
        if (!ok) {
            close(s->wake_pipe[0]);
            close(s->wake_pipe[1]);
            pthread_cond_destroy(&s->changed);
            pthread_mutex_destroy(&s->lock);
        }
    }
    if (!ok)
        tfpi_status_set(status, TFPI_INTERNAL, "stdin: cannot start the frame reader: %s",
                 strerror(errno));
    return ok;
}

capture *capture_open_stdin(const capture_options *options, tfpi_status *status)
{
    struct stat info;
    if (isatty(STDIN_FILENO)) {
        tfpi_status_set(status, TFPI_INVALID_ARGUMENT,
                 "--source=files: stdin is a terminal: give --frames_from=DIR|GLOB or pipe "
                 "binary PPM frames in");
        return NULL;
    }
    if (fstat(STDIN_FILENO, &info) != 0) {
        tfpi_status_set(status, TFPI_IO_ERROR, "stdin: %s", strerror(errno));
        return NULL;
    }
    stdin_capture *s = calloc(1, sizeof *s);
    if (!s) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "stdin: out of memory");
        return NULL;
    }
    s->base = (capture){stdin_next, stdin_close};
    s->stop = options->stop;
    s->reader = (frame_reader){.fd = STDIN_FILENO, .wake_fd = -1};
    s->threaded = !S_ISREG(info.st_mode);
    if (!s->threaded) {
        s->reader.stop = options->stop;
    } else if (!start_reader_thread(s, status)) {
        free(s);
        return NULL;
    }
    return &s->base;
}
