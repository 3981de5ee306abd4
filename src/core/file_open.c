/* file_open.c - opening named files for reading without blocking on
 * FIFOs or devices, regular files only. */
#include "core/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

tp_open_result tp_open_regular(const char *path, int *fd, struct stat *st)
{
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return TP_OPEN_FAILED;
    tp_open_result result = TP_OPEN_OK;
    if (fstat(*fd, st) != 0)
        result = TP_OPEN_FAILED;
    else if (!S_ISREG(st->st_mode))
        result = TP_OPEN_NOT_REGULAR;
    else {
        const int flags = fcntl(*fd, F_GETFL);
        if (flags < 0 || fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
            result = TP_OPEN_FAILED;
    }
    if (result != TP_OPEN_OK) {
        const int saved = errno;
        close(*fd);
        *fd = -1;
        errno = saved;
    }
    return result;
}

FILE *tp_fopen_regular(const char *path, tp_open_result *result)
{
    int fd;
    struct stat st;
    *result = tp_open_regular(path, &fd, &st);
    if (*result != TP_OPEN_OK)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        const int saved = errno;
        close(fd);
        errno = saved;
        *result = TP_OPEN_FAILED;
    }
    return f;
}

size_t tp_read_head(const char *path, void *buf, size_t size)
{
    tp_open_result opened;
    FILE *f = tp_fopen_regular(path, &opened);
    if (!f)
        return 0;
    const size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

const char *tp_open_error(tp_open_result result)
{
    return result == TP_OPEN_NOT_REGULAR ? "not a regular file" : strerror(errno);
}
