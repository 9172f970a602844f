/* Progress of `memspy run`: while waiting for the program, poll the reference count the
 * runtime publishes in the raw directory and show it on a terminal (silent otherwise). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../format/raw.h"
#include "../report/text_fmt.h"
#include "progress.h"

#define POLL_NS 200000000L /* check the program every 200 ms */
#define FIRST_UPDATE_S 2.0 /* quiet for short runs */
#define UPDATE_EVERY_S 1.0

typedef struct {
    const char *dir;
    const uint64_t *refs; /* the runtime's counter, NULL until the file exists */
    uint64_t last_refs;
    double last_time, next_update;
    int shown; /* a progress line is on the terminal */
} progress;

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Map the progress file once the runtime has created it. */
static void try_map(progress *p)
{
    char path[4096];
    if (p->refs || snprintf(path, sizeof path, "%s/%s", p->dir, MS_PROGRESS_FILE) >= (int)sizeof path) return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(uint64_t)) {
        void *m = mmap(NULL, sizeof(uint64_t), PROT_READ, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED) p->refs = m;
    }
    close(fd);
}

/* "memspy: 12.35M refs simulated, 4.12M refs/s, 0:03 elapsed", overwriting the last one. */
static void show(progress *p, double elapsed)
{
    try_map(p);
    uint64_t refs = p->refs ? __atomic_load_n(p->refs, __ATOMIC_RELAXED) : 0;
    double span = elapsed - p->last_time;
    uint64_t rate = span > 0 && refs >= p->last_refs ? (uint64_t)((double)(refs - p->last_refs) / span) : 0;
    unsigned secs = (unsigned)elapsed;
    fprintf(stderr, "\rmemspy: %s refs simulated, %s refs/s, %u:%02u elapsed\033[K", ms_fmt_count(refs).s,
            ms_fmt_count(rate).s, secs / 60, secs % 60);
    fflush(stderr);
    p->last_refs = refs;
    p->last_time = elapsed;
    p->shown = 1;
}

static void finish(progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    if (p->refs) munmap((void *)p->refs, sizeof(uint64_t));
}

int ms_progress_waitpid(pid_t pid, int *status, const char *raw_dir)
{
    if (!raw_dir || !isatty(STDERR_FILENO)) return waitpid(pid, status, 0) < 0 ? -1 : 0;
    progress p = { .dir = raw_dir, .next_update = FIRST_UPDATE_S };
    double start = now_seconds();
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid) break;
        if (r < 0) {
            int e = errno;
            finish(&p);
            errno = e;
            return -1;
        }
        struct timespec tick = { 0, POLL_NS };
        nanosleep(&tick, NULL);
        double elapsed = now_seconds() - start;
        if (elapsed >= p.next_update) {
            show(&p, elapsed);
            p.next_update = elapsed + UPDATE_EVERY_S;
        }
    }
    finish(&p);
    return 0;
}
