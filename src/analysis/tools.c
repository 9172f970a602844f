/* External tools started and waited for; see tools.h. */
#define _GNU_SOURCE
#include "tools.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t ms_tool_spawn(char *const argv[], const char *in_path, const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int er = open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (in < 0 || out < 0 || er < 0) _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(er, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

int ms_tool_wait(pid_t pid)
{
    int status;
    if (pid < 0) return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int ms_tool_run(char *const argv[], const char *in_path, const char *out_path, const char *err_path)
{
    return ms_tool_wait(ms_tool_spawn(argv, in_path, out_path, err_path));
}

int ms_tool_scratch(char *buf, size_t len, const char *what)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(buf, len, "%s/memspy-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    int fd = mkstemp(buf);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

const char *ms_tool_mcdeps_path(void)
{
    static char path[PATH_MAX + 64];
    const char *env = getenv("MEMSPY_MCDEPS");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
        return access(path, X_OK) == 0 ? path : NULL;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) return NULL;
    *slash = '\0';
    snprintf(path, sizeof path, "%s/../lib/memspy/memspy-mcdeps", self);
    return access(path, X_OK) == 0 ? path : NULL;
}
