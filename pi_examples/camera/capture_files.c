/* capture_files.c - the files source with --frames_from: replays the images
 * of a directory (*.jpg, *.jpeg, *.png, *.ppm sorted by name) or every file
 * a glob matches, in order, then ends. JPEG and PNG go through the library's decoder, PPM
 * (P6) through ppm.c. A file that cannot be read or decoded is an error. */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "capture.h"
#include "file_util.h"
#include "pixel_formats.h"
#include "ppm.h"
#include "tfpi.h"

typedef struct files_capture {
    capture base;
    glob_t paths;
    bool images_only; /* a directory: skip files that are not images */
    size_t next;
    const volatile sig_atomic_t *stop;
} files_capture;

static bool has_image_extension(const char *path)
{
    static const char *const extensions[] = {".jpg", ".jpeg", ".png", ".ppm"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof extensions / sizeof extensions[0]; i++)
        if (!strcasecmp(dot, extensions[i]))
            return true;
    return false;
}

/* GLOB_MARK ends directory names with '/': those are never frames. */
static bool is_frame_path(const files_capture *files, const char *path)
{
    size_t n = strlen(path);
    return n > 0 && path[n - 1] != '/' && (!files->images_only || has_image_extension(path));
}

/* Index of the first frame path at or after `from`; gl_pathc if none. */
static size_t next_frame_index(const files_capture *files, size_t from)
{
    while (from < files->paths.gl_pathc && !is_frame_path(files, files->paths.gl_pathv[from]))
        from++;
    return from;
}

static tfpi_code decode_frame_file(const char *path, tfpi_image *frame, tfpi_status *status)
{
    size_t size = 0;
    uint8_t *data = read_file(path, &size, status);
    if (!data)
        return status->code;
    tfpi_code code = ppm_has_magic(data, size) ? ppm_decode(data, size, path, frame, status)
                                               : encoded_image_to_rgb(data, size, path, frame, status);
    free(data);
    return code;
}

static capture_result files_next(capture *self, tfpi_image *frame, tfpi_status *status)
{
    files_capture *files = (files_capture *)self;
    if (*files->stop)
        return CAPTURE_STOPPED;
    files->next = next_frame_index(files, files->next);
    if (files->next == files->paths.gl_pathc)
        return CAPTURE_END;
    const char *path = files->paths.gl_pathv[files->next++];
    return decode_frame_file(path, frame, status) == TFPI_OK ? CAPTURE_FRAME : CAPTURE_ERROR;
}

static void files_close(capture *self)
{
    files_capture *files = (files_capture *)self;
    globfree(&files->paths);
    free(files);
}

/* DIR + "/" + "*" with glob's special characters in DIR escaped; malloc'd. */
static char *directory_pattern(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *pattern = malloc(2 * n + 3), *out = pattern;
    if (!pattern)
        return NULL;
    for (const char *in = dir; in < dir + n; in++) {
        if (strchr("*?[]\\", *in))
            *out++ = '\\';
        *out++ = *in;
    }
    strcpy(out, "/*");
    return pattern;
}

capture *capture_open_files(const capture_options *options, tfpi_status *status)
{
    const char *from = options->frames_from;
    struct stat info;
    bool is_dir = stat(from, &info) == 0 && S_ISDIR(info.st_mode);
    char *pattern = is_dir ? directory_pattern(from) : strdup(from);
    files_capture *files = calloc(1, sizeof *files);
    if (!pattern || !files) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "--frames_from=%s: out of memory", from);
        free(pattern);
        free(files);
        return NULL;
    }
    int rc = glob(pattern, GLOB_MARK, NULL, &files->paths);
    free(pattern);
    files->images_only = is_dir;
    if (rc != 0 || next_frame_index(files, 0) == files->paths.gl_pathc) {
        tfpi_status_set(status, rc == GLOB_NOSPACE ? TFPI_OUT_OF_MEMORY : TFPI_NOT_FOUND,
                 "--frames_from=%s: no frames found (%s)", from,
                 is_dir ? "the directory holds no .jpg, .jpeg, .png or .ppm files"
                        : "no such directory, and no file matches");
        if (rc == 0)
            globfree(&files->paths);
        free(files);
        return NULL;
    }
    files->base = (capture){files_next, files_close};
    files->stop = options->stop;
    return &files->base;
}
