/* checkpoint_prefix.c - finds a checkpoint's prefix from what a user
 * passes: the prefix itself, one of its files (P.index, P.meta,
 * P.data-00000-of-00001), a SavedModel directory (its variables/variables),
 * or a training directory whose `checkpoint` file (a text CheckpointState)
 * names the latest checkpoint in model_checkpoint_path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file_open.h"
#include "model/checkpoint.h"

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode); /* the reader refuses what is not regular */
}

static bool has_index(const char *prefix)
{
    char path[4200];
    return snprintf(path, sizeof path, "%s.index", prefix) < (int)sizeof path && is_file(path);
}

/* The quoted value of `model_checkpoint_path: "..."` in a CheckpointState
 * text file (C escapes \\ \" \' \n \t and octal \ooo), into out. */
static bool parse_checkpoint_state(const char *text, char *out, size_t size)
{
    static const char field[] = "model_checkpoint_path";
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, field, sizeof field - 1) != 0)
            continue;
        p += sizeof field - 1;
        p += strspn(p, " \t");
        if (*p++ != ':')
            continue;
        p += strspn(p, " \t");
        if (*p != '"' && *p != '\'')
            return false;
        char quote = *p++;
        size_t n = 0;
        for (; *p && *p != quote && *p != '\n'; p++) {
            char c = *p;
            if (c == '\\') {
                c = *++p;
                if (c >= '0' && c <= '7') {
                    int v = 0;
                    for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
                        v = v * 8 + (*p++ - '0');
                    p--;
                    c = (char)v;
                } else if (c == 'n')
                    c = '\n';
                else if (c == 't')
                    c = '\t';
                else if (!c)
                    return false;
            }
            if (n + 1 >= size || c == '\0')
                return false;
            out[n++] = c;
        }
        out[n] = '\0';
        return *p == quote && n > 0;
    }
    return false;
}

/* The prefix a directory's `checkpoint` file names. */
static tfpi_code prefix_from_state(const char *dir, char *prefix, size_t size, tfpi_status *status)
{
    char path[4200], named[4096];
    snprintf(path, sizeof path, "%s/checkpoint", dir);
    tp_open_result opened;
    FILE *f = tp_fopen_regular(path, &opened);
    if (!f && opened == TP_OPEN_NOT_REGULAR)
        return tfpi_status_set(status, TFPI_IO_ERROR, "%s: not a regular file", path);
    if (!f)
        return tfpi_status_set(status, TFPI_NOT_FOUND,
                               "%s: a directory with no `checkpoint` file and no SavedModel variables (give the "
                               "checkpoint prefix, such as %s/model.ckpt)",
                               dir, dir);
    char text[65536];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (!parse_checkpoint_state(text, named, sizeof named))
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: no model_checkpoint_path in it", path);
    /* Relative paths are relative to the directory; an absolute one from the
     * machine that trained is tried, then its base name in the directory. */
    const char *base = strrchr(named, '/') ? strrchr(named, '/') + 1 : named;
    if (named[0] == '/' && has_index(named))
        snprintf(prefix, size, "%s", named);
    else if ((size_t)snprintf(prefix, size, "%s/%s", dir, named[0] == '/' ? base : named) >= size)
        return tfpi_status_set(status, TFPI_INVALID_ARGUMENT, "%s: the checkpoint path is too long", path);
    if (!has_index(prefix))
        return tfpi_status_set(status, TFPI_NOT_FOUND, "%s names checkpoint %s, but %s.index does not exist", path,
                               named, prefix);
    return TFPI_OK;
}

/* path with a known checkpoint file suffix taken off, if it has one. */
static bool strip_suffix(const char *path, char *out, size_t size)
{
    size_t n = strlen(path);
    const char *data = strstr(path, ".data-");
    size_t keep = n;
    if (n > 6 && strcmp(path + n - 6, ".index") == 0)
        keep = n - 6;
    else if (n > 5 && strcmp(path + n - 5, ".meta") == 0)
        keep = n - 5;
    else if (data && strstr(data, "-of-"))
        keep = (size_t)(data - path);
    if (keep == n || keep >= size)
        return false;
    memcpy(out, path, keep);
    out[keep] = '\0';
    return true;
}

tfpi_code tp_checkpoint_find_prefix(const char *path, char *prefix, size_t size, tfpi_status *status)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(prefix, size, "%s/variables/variables", path);
        if (has_index(prefix))
            return TFPI_OK;
        return prefix_from_state(path, prefix, size, status);
    }
    if (has_index(path) && (size_t)snprintf(prefix, size, "%s", path) < size)
        return TFPI_OK;
    if (strip_suffix(path, prefix, size) && has_index(prefix))
        return TFPI_OK;
    return tfpi_status_set(status, TFPI_NOT_FOUND, "%s: no checkpoint there (%s.index does not exist)", path, path);
}
