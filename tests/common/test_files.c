/* test_files.c - whole-file reads for tests (see test_files.h). */
#include "test_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

uint8_t *read_test_file(const char *path, size_t *size)
{
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (!file) {
        CHECK_MSG(0, "cannot open %s", path);
        return NULL;
    }
    long length = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    uint8_t *data = length > 0 && fseek(file, 0, SEEK_SET) == 0 ? malloc((size_t)length) : NULL;
    if (data && fread(data, 1, (size_t)length, file) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(file);
    CHECK_MSG(data != NULL, "cannot read %s", path);
    if (data)
        *size = (size_t)length;
    return data;
}

int reference_stems(const char *set_dir, char stems[][64], int max)
{
    DIR *dir = opendir(testdata_path(set_dir));
    int n = 0;
    CHECK_MSG(dir != NULL, "cannot list %s", testdata_path(set_dir));
    for (struct dirent *e; dir && (e = readdir(dir));) {
        const char *suffix = strstr(e->d_name, ".tf_logits.f32");
        if (suffix && n < max && suffix - e->d_name < 64) {
            memcpy(stems[n], e->d_name, (size_t)(suffix - e->d_name));
            stems[n++][suffix - e->d_name] = '\0';
        }
    }
    if (dir)
        closedir(dir);
    qsort(stems, (size_t)n, sizeof stems[0], (int (*)(const void *, const void *))strcmp);
    return n;
}
