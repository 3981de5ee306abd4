/* proc_memory.c - reads a field of /proc/self/status. */
#include "proc_memory.h"

#include <stdio.h>
#include <string.h>

long long proc_status_value(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long value = -1;
    size_t len = strlen(field);
    while (value < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, field, len) == 0 && line[len] == ':' && sscanf(line + len + 1, "%lld", &value) != 1)
            value = -1;
    fclose(f);
    return value;
}

long long proc_status_bytes(const char *field)
{
    long long kb = proc_status_value(field);
    return kb < 0 ? -1 : kb * 1024;
}
