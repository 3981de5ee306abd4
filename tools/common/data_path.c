/* data_path.c - finds the examples' default data files in the build tree,
 * the current folder, beside the program or where it is installed (see
 * data_path.h). */
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

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Writes the candidate `which` (0..3) for name to buf; false if there is no
 * such candidate (no program directory) or it does not fit. */
static int candidate(int which, const char *name, char *buf, size_t size)
{
    char dir[PATH_MAX];
    int n;
    switch (which) {
    case 0: n = snprintf(buf, size, "downloads/%s", name); break;
    case 1: n = snprintf(buf, size, "%s", base_name(name)); break;
    case 2: n = program_dir(dir, sizeof dir) ? snprintf(buf, size, "%s/%s", dir, base_name(name)) : -1; break;
    default: n = program_dir(dir, sizeof dir) ? snprintf(buf, size, "%s/../share/tfpi/%s", dir, name) : -1; break;
    }
    return n > 0 && (size_t)n < size;
}

const char *data_path(const char *name, char *buf, size_t size)
{
    for (int which = 0; which < 4; which++)
        if (candidate(which, name, buf, size) && access(buf, R_OK) == 0)
            return buf;
    return NULL;
}

const char *data_path_missing(const char *name, char *buf, size_t size)
{
    char dir[PATH_MAX];
    const char *program = program_dir(dir, sizeof dir) ? dir : "the program";
    snprintf(buf, size, "%s is neither in the current folder nor beside the program in %s (nor in downloads/ or "
             "share/tfpi)", base_name(name), program);
    return buf;
}
