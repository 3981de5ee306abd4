/* capture.c - chooses the frame source: --source=libcamera, v4l2, files, or
 * auto (libcamera when it finds a camera, V4L2 otherwise). */
#include "capture.h"

#include <stdio.h>
#include <string.h>

#include "tfpi.h"

bool capture_source_parse(const char *name, capture_source *out)
{
    static const char *const names[] = {
        [CAPTURE_AUTO] = "auto",
        [CAPTURE_LIBCAMERA] = "libcamera",
        [CAPTURE_V4L2] = "v4l2",
        [CAPTURE_FILES] = "files",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(name, names[i])) {
            *out = (capture_source)i;
            return true;
        }
    }
    return false;
}

/* TFPI_NOT_FOUND when there is no camera for libcamera (or no libcamera). */
static capture *open_libcamera(const capture_options *options, tfpi_status *status)
{
#ifdef TFPI_HAVE_LIBCAMERA
    return capture_open_libcamera(options, status);
#else
    (void)options;
    tfpi_status_set(status, TFPI_NOT_FOUND,
             "libcamera: not in this build (install libcamera-dev and rebuild)");
    return NULL;
#endif
}

/* libcamera first; V4L2 only if libcamera found no camera. If neither has
 * one, the message tells what each said. */
static capture *open_auto(const capture_options *options, tfpi_status *status)
{
    capture *c = open_libcamera(options, status);
    if (c || status->code != TFPI_NOT_FOUND)
        return c;
    char libcamera_said[sizeof status->message];
    snprintf(libcamera_said, sizeof libcamera_said, "%s", status->message);
    c = capture_open_v4l2(options, status);
    if (!c && status->code == TFPI_NOT_FOUND) {
        char v4l2_said[sizeof status->message];
        snprintf(v4l2_said, sizeof v4l2_said, "%s", status->message);
        tfpi_status_set(status, TFPI_NOT_FOUND, "no camera found: %s; %s", libcamera_said, v4l2_said);
    }
    return c;
}

capture *capture_open(capture_source source, const capture_options *options, tfpi_status *status)
{
    switch (source) {
    case CAPTURE_LIBCAMERA:
        return open_libcamera(options, status);
    case CAPTURE_V4L2:
        return capture_open_v4l2(options, status);
    case CAPTURE_FILES:
        return options->frames_from ? capture_open_files(options, status)
                                    : capture_open_stdin(options, status);
    case CAPTURE_AUTO:
        break;
    }
    return open_auto(options, status);
}
