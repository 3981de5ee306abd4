/* data_path.c - finds the examples' default data files in the build tree or
 * beside the installed program (see data_path.h). */
#include "data_path.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The directory of the running program, without a trailing slash; false if
 * /proc/self/exe cannot be read. */
static int program_dir(char *dir, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return 0;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return 1;
}

const char *data_path(const char *name, char *buf, size_t size)
{
    char dir[PATH_MAX];
    int n = snprintf(buf, size, "downloads/%s", name);
    if (n < 0 || (size_t)n >= size || access(buf, R_OK) == 0 || !program_dir(dir, sizeof dir))
        return buf;
    char installed[PATH_MAX + 64];
    n = snprintf(installed, sizeof installed, "%s/../share/tfpi/%s", dir, name);
    if (n > 0 && (size_t)n < sizeof installed && (size_t)n < size && access(installed, R_OK) == 0)
        memcpy(buf, installed, (size_t)n + 1);
    return buf;
}
