/* Progress for `memspy run`: the runtime adds the number of references it has simulated to a
 * u64 in a small file shared with the CLI (one relaxed atomic add per flushed buffer). */
#include "rt.h"
#include "../format/raw.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t *ms_progress_refs;

void ms_progress_init(const char *dir)
{
    char path[4096 + sizeof MS_PROGRESS_FILE + 1];
    size_t n = ms_strlen(dir);
    if (n + sizeof MS_PROGRESS_FILE + 1 > sizeof path) return;
    ms_memcpy(path, dir, n);
    path[n] = '/';
    ms_memcpy(path + n + 1, MS_PROGRESS_FILE, sizeof MS_PROGRESS_FILE);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    struct stat st;
    void *p = MAP_FAILED;
    /* Only grow the file: a process started later in the same run must not reset the count. */
    if (fstat(fd, &st) == 0 && (st.st_size >= (off_t)sizeof(uint64_t) || ftruncate(fd, sizeof(uint64_t)) == 0))
        p = ms_sys_mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p != MAP_FAILED) ms_progress_refs = p;
}
