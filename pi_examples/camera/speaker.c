/* speaker.c - runs the text-to-speech command once per announced label, one
 * child at a time, reaped without waiting. The child gets /dev/null as stdin
 * (stdin may carry our frames) and as stdout (ours carries only labels); its
 * stderr goes to a private temporary file, so that a command that fails or
 * complains is reported as one warning line (its first line of errors),
 * once, instead of mixing its output with ours. It runs in its own process
 * group so stopping can end it. */
#include "speaker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tfpi.h"

extern char **environ;

enum { QUEUE_CAPACITY = 4 };

struct speaker {
    char *command;
    char *script; /* command + ' "$1"', for sh -c */
    pid_t child;  /* 0 when idle */
    char *queue[QUEUE_CAPACITY];
    int queued; /* queue[0] is the oldest */
    int errors_fd; /* the child's stderr: an unlinked temporary file, or -1 */
    bool reported_failure;
};

/* The first word of a command line if it is a plain program name or path
 * (anything shell-like is not checked); false otherwise. */
static bool program_of(const char *command, char *word, size_t size)
{
    command += strspn(command, " \t");
    size_t n = strcspn(command, " \t");
    if (n == 0 || n >= size || strspn(command, "abcdefghijklmnopqrstuvwxyz"
                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-/") < n)
        return false;
    memcpy(word, command, n);
    word[n] = '\0';
    return true;
}

static bool on_path(const char *program)
{
    if (strchr(program, '/'))
        return access(program, X_OK) == 0;
    const char *path = getenv("PATH");
    char candidate[4096];
    for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
        size_t n = strcspn(dir, ":");
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)n, n ? dir : ".", program);
        if (access(candidate, X_OK) == 0)
            return true;
        dir += n + (dir[n] == ':');
    }
    return false;
}

speaker *speaker_new(const char *command, tfpi_status *status)
{
    char program[256];
    if (program_of(command, program, sizeof program) && !on_path(program)) {
        tfpi_status_set(status, TFPI_NOT_FOUND,
                 "--speak_cmd='%s': '%s' is not installed or not on PATH (for flite: sudo apt "
                 "install flite)", command, program);
        return NULL;
    }
    speaker *s = calloc(1, sizeof *s);
    size_t script_size = strlen(command) + sizeof " \"$1\"";
    if (s) {
        s->errors_fd = -1;
        s->command = strdup(command);
        s->script = malloc(script_size);
    }
    if (!s || !s->command || !s->script) {
        tfpi_status_set(status, TFPI_OUT_OF_MEMORY, "--speak: out of memory");
        speaker_free(s, false);
        return NULL;
    }
    snprintf(s->script, script_size, "%s \"$1\"", command);
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tfpi-speak-XXXXXX", dir && *dir ? dir : "/tmp");
    s->errors_fd = mkstemp(path);
    if (s->errors_fd >= 0)
        unlink(path);
    return s;
}

/* One warning line, the first time something goes wrong: what, and the
 * first line the command wrote to its stderr, if any. */
static void report_failure(speaker *s, const char *what)
{
    if (s->reported_failure)
        return;
    s->reported_failure = true;
    char said[200] = "";
    ssize_t n = s->errors_fd >= 0 ? pread(s->errors_fd, said, sizeof said - 1, 0) : 0;
    said[n > 0 ? n : 0] = '\0';
    said[strcspn(said, "\r\n")] = '\0';
    fprintf(stderr, "warning: --speak_cmd='%s' %s%s%s (further speech problems are not reported)\n", s->command,
            what, *said ? ": " : "", said);
}

static void check_exit(speaker *s, int wait_status)
{
    char what[64];
    struct stat st;
    bool complained = s->errors_fd >= 0 && fstat(s->errors_fd, &st) == 0 && st.st_size > 0;
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0 && !complained)
        return;
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)
        snprintf(what, sizeof what, "wrote errors");
    else if (WIFEXITED(wait_status))
        snprintf(what, sizeof what, "exited with status %d", WEXITSTATUS(wait_status));
    else
        snprintf(what, sizeof what, "was killed by signal %d", WTERMSIG(wait_status));
    report_failure(s, what);
}

static void start_next(speaker *s)
{
    if (s->child || s->queued == 0)
        return;
    char *text = s->queue[0];
    memmove(s->queue, s->queue + 1, sizeof s->queue[0] * (size_t)--s->queued);
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t no_signals, default_signals;
    sigemptyset(&no_signals);
    sigemptyset(&default_signals);
    sigaddset(&default_signals, SIGPIPE); /* ignored here; must not stay ignored */
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    if (s->errors_fd >= 0 && ftruncate(s->errors_fd, 0) == 0) /* this run's errors only */
        posix_spawn_file_actions_adddup2(&actions, s->errors_fd, STDERR_FILENO);
    else
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &no_signals);
    posix_spawnattr_setsigdefault(&attr, &default_signals);
    char sh[] = "sh", dash_c[] = "-c", name[] = "speak";
    char *argv[] = {sh, dash_c, s->script, name, text, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    free(text);
    if (rc == 0)
        s->child = pid;
    else
        report_failure(s, strerror(rc));
}

void speaker_say(speaker *s, const char *text)
{
    char *copy = strdup(text);
    if (!copy) {
        report_failure(s, "could not run: out of memory");
        return;
    }
    if (s->queued == QUEUE_CAPACITY) {
        free(s->queue[0]);
        memmove(s->queue, s->queue + 1, sizeof s->queue[0] * (size_t)--s->queued);
    }
    s->queue[s->queued++] = copy;
    speaker_poll(s);
}

void speaker_poll(speaker *s)
{
    int wait_status;
    if (s->child && waitpid(s->child, &wait_status, WNOHANG) == s->child) {
        s->child = 0;
        check_exit(s, wait_status);
    }
    start_next(s);
}

static void drop_queue(speaker *s)
{
    while (s->queued > 0)
        free(s->queue[--s->queued]);
}

void speaker_free(speaker *s, bool finish_queue)
{
    if (!s)
        return;
    if (finish_queue)
        start_next(s);
    while (s->child) {
        if (!finish_queue) {
            drop_queue(s);
            kill(-s->child, SIGTERM);
        }
        int wait_status;
        pid_t reaped = waitpid(s->child, &wait_status, 0);
        if (reaped < 0 && errno == EINTR) { /* SIGINT/SIGTERM while finishing: stop now */
            finish_queue = false;
            continue;
        }
        s->child = 0;
        if (reaped > 0 && finish_queue) {
            check_exit(s, wait_status);
            start_next(s);
        }
    }
    drop_queue(s);
    if (s->errors_fd >= 0)
        close(s->errors_fd);
    free(s->command);
    free(s->script);
    free(s);
}
