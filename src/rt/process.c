/* Process changes seen from inside the program: exec and the children of fork and vfork.
 *
 * exec replaces the program's image, and with it the runtime's state: the exec family is
 * interposed so that the image about to be replaced dumps what it gathered first (exit kind
 * MS_EXIT_EXEC, a note naming the new program) and hands the new image the next generation
 * number (MEMSPY_GENERATION in its environment). An instrumented new image then starts a
 * run of its own in the same process, written to <pid>.<generation>.raw beside the first
 * image's <pid>.raw; `memspy run` stores each image as a run, linked to the one before it.
 * An exec that cannot succeed (no such file, not executable) is let fail with nothing
 * dumped: the program goes on profiled.
 *
 * Children: a forked child switches its copy of the runtime off (threads.c). A vfork child
 * (or posix_spawn's, which glibc makes the same way) shares the parent's memory until it
 * execs or exits: it must not touch the runtime's state, so every path that ends an image
 * (ms_dump, the exec wrappers) first checks that it runs in the process that activated it
 * (ms_process_is_owner). posix_spawn's child execs through glibc's internal execve, which
 * is not interposed: the new program runs with the parent's environment, as a child. */
#include "rt.h"
#include "../format/raw.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEN_VAR "MEMSPY_GENERATION="
#define MAX_EXEC_ARGS 4096

extern char **environ;

static uint32_t generation; /* this image's: 0 for the first image of the process */

void ms_process_init(const char *gen)
{
    uint32_t g = 0;
    for (; gen && *gen >= '0' && *gen <= '9' && g < 1000000; gen++) g = g * 10 + (uint32_t)(*gen - '0');
    generation = g;
}

uint32_t ms_process_generation(void) { return generation; }

int ms_process_is_owner(void) { return ms_runtime_pid() != 0 && (int)getpid() == ms_runtime_pid(); }

/* ---- would the exec find an executable file? ---- */

static int executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* execvp's search: file itself if it has a '/', else each directory of PATH. */
static int findable(const char *file)
{
    if (!file || !*file) return 0;
    for (const char *p = file; *p; p++)
        if (*p == '/') return executable_file(file);
    const char *path = getenv("PATH");
    if (!path) path = "/bin:/usr/bin";
    size_t flen = ms_strlen(file);
    char buf[4096];
    for (const char *dir = path;; dir++) {
        const char *end = dir;
        while (*end && *end != ':') end++;
        size_t dlen = (size_t)(end - dir);
        if (dlen + flen + 2 < sizeof buf) {
            if (dlen)
                ms_memcpy(buf, dir, dlen);
            else
                buf[dlen++] = '.'; /* an empty entry is the current directory */
            buf[dlen] = '/';
            ms_memcpy(buf + dlen + 1, file, flen + 1);
            if (executable_file(buf)) return 1;
        }
        if (!*end) return 0;
        dir = end;
    }
}

/* ---- before the image is replaced ---- */

/* A copy of envp with MEMSPY_GENERATION set to the next generation; NULL if no memory
 * (the caller then passes envp on: the new image overwrites this one's raw file, no worse
 * than before). bytes: what to unmap if the exec fails. */
static char **next_environment(char *const envp[], size_t *bytes)
{
    size_t n = 0;
    while (envp && envp[n]) n++;
    size_t size = (n + 2) * sizeof(char *) + 48;
    char **env = ms_map(size);
    if (!env) return NULL;
    char *var = (char *)(env + n + 2), *p = var;
    ms_memcpy(p, GEN_VAR, sizeof GEN_VAR - 1);
    p = ms_utoa(p + sizeof GEN_VAR - 1, (uint64_t)generation + 1);
    *p = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ms_strncmp(envp[i], GEN_VAR, sizeof GEN_VAR - 1) != 0) env[k++] = envp[i];
    env[k++] = var;
    env[k] = NULL;
    *bytes = size;
    return env;
}

/* If this process's image is profiled and the exec can start target: dump it and return the
 * environment for the new image (else envp unchanged). */
static char *const *before_exec(const char *target, int found, char *const envp[], size_t *bytes)
{
    *bytes = 0;
    if (!ms_rt_on || !ms_process_is_owner() || !found) return envp;
    int saved = errno;
    ms_dump_set_exec(target);
    ms_dump(MS_EXIT_EXEC, 0, 0);
    char **env = next_environment(envp, bytes);
    errno = saved;
    return env ? env : envp;
}

static void after_failed_exec(char *const *env, size_t bytes)
{
    int saved = errno;
    if (bytes) ms_unmap((void *)env, bytes);
    errno = saved;
}

/* ---- the exec family ---- */

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef int execveat_fn(int, const char *, char *const[], char *const[], int);

static execve_fn *real_execve(void) { return (execve_fn *)ms_real_function("execve", NULL); }
static execve_fn *real_execvpe(void) { return (execve_fn *)ms_real_function("execvpe", NULL); }

static int exec_path(const char *path, char *const argv[], char *const envp[])
{
    execve_fn *fn = real_execve();
    if (!fn) return errno = ENOSYS, -1;
    size_t bytes;
    char *const *env = before_exec(path, executable_file(path), envp, &bytes);
    fn(path, argv, env);
    after_failed_exec(env, bytes);
    return -1;
}

static int exec_search(const char *file, char *const argv[], char *const envp[])
{
    execve_fn *fn = real_execvpe();
    if (!fn) return errno = ENOSYS, -1;
    size_t bytes;
    char *const *env = before_exec(file, findable(file), envp, &bytes);
    fn(file, argv, env);
    after_failed_exec(env, bytes);
    return -1;
}

int execve(const char *path, char *const argv[], char *const envp[]) { return exec_path(path, argv, envp); }
int execv(const char *path, char *const argv[]) { return exec_path(path, argv, environ); }
int execvp(const char *file, char *const argv[]) { return exec_search(file, argv, environ); }
int execvpe(const char *file, char *const argv[], char *const envp[]) { return exec_search(file, argv, envp); }

int fexecve(int fd, char *const argv[], char *const envp[])
{
    fexecve_fn *fn = (fexecve_fn *)ms_real_function("fexecve", NULL);
    if (!fn) return errno = ENOSYS, -1;
    struct stat st;
    size_t bytes;
    char *const *env = before_exec("(file descriptor)", fstat(fd, &st) == 0 && S_ISREG(st.st_mode), envp, &bytes);
    fn(fd, argv, env);
    after_failed_exec(env, bytes);
    return -1;
}

int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    execveat_fn *fn = (execveat_fn *)ms_real_function("execveat", NULL);
    if (!fn) return errno = ENOSYS, -1;
    struct stat st;
    size_t bytes;
    int found = fstatat(dirfd, path, &st, flags & AT_EMPTY_PATH) == 0 && S_ISREG(st.st_mode);
    char *const *env = before_exec(path, found, envp, &bytes);
    fn(dirfd, path, argv, env, flags);
    after_failed_exec(env, bytes);
    return -1;
}

/* The l-forms: collect the arguments (and execle's environment after the NULL). */
#define COLLECT_ARGS(arg0, argv, ap)                                                     \
    char *argv[MAX_EXEC_ARGS];                                                           \
    size_t argc_ = 0;                                                                    \
    argv[argc_++] = (char *)(arg0);                                                      \
    while (argv[argc_ - 1] && argc_ < MAX_EXEC_ARGS) argv[argc_++] = va_arg(ap, char *); \
    if (argv[argc_ - 1]) return va_end(ap), errno = E2BIG, -1

int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    COLLECT_ARGS(arg0, argv, ap);
    va_end(ap);
    return exec_path(path, argv, environ);
}

int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    COLLECT_ARGS(arg0, argv, ap);
    va_end(ap);
    return exec_search(file, argv, environ);
}

int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    va_start(ap, arg0);
    COLLECT_ARGS(arg0, argv, ap);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return exec_path(path, argv, envp);
}
