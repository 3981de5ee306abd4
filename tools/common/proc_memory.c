/* proc_memory.c - reads a memory field of /proc/self/status. */
#include "proc_memory.h"

#include <stdio.h>
#include <string.h>

long long proc_status_bytes(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    size_t len = strlen(field);
    while (kb < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':' && sscanf(line + len + 1, "%lld", &kb) != 1)
            kb = -1;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}
