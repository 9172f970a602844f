/* Mapping interposition: the program's mmap, munmap and mremap forward to the real ones
 * and register the mapped range with regions.c, so that memory the program maps is named
 * like its heap: a file mapping gets the MMAP bin of its call site, call path and file
 * (`mmap:table-000005.ldb`), an anonymous mapping the HEAP bin of its call site and call
 * path (named after the variable that receives it, like a malloc). The runtime maps its own
 * memory with ms_sys_mmap/ms_sys_munmap (arena.c), never recorded, and so are the mappings
 * made while a thread is inside the runtime (libelf, zstd). Nothing here uses the program's
 * malloc; the file's path comes from /proc/self/fd. */
#include "rt.h"
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CALLER() ((uintptr_t)__builtin_return_address(0))

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);

static mmap_fn real_mmap;
static munmap_fn real_munmap;
static mremap_fn real_mremap;
static volatile int resolving;

/* Look the real functions up once (dlsym may map memory itself: meanwhile, and if the lookup
 * fails, the system calls stand in). */
static void resolve(void)
{
    if (real_mmap || __atomic_exchange_n(&resolving, 1, __ATOMIC_ACQUIRE)) return;
    mremap_fn re = (mremap_fn)ms_real_function("mremap", NULL);
    munmap_fn un = (munmap_fn)ms_real_function("munmap", NULL);
    mmap_fn mm = (mmap_fn)ms_real_function("mmap", NULL);
    real_mremap = re;
    real_munmap = un;
    __atomic_store_n(&real_mmap, mm, __ATOMIC_RELEASE);
}

/* Whether the calling thread's mapping calls are the program's (to be recorded). */
static int recording(ms_thread *t) { return ms_rt_on && t->mode != MS_T_BUSY && ms_thread_can_record(t); }

/* Whether the calling thread's unmapping is the program's: also from a thread that no longer
 * records (after its exit flush), so that no region outlives its mapping. */
static int program_call(const ms_thread *t) { return ms_rt_on && t->mode != MS_T_BUSY; }

/* The path of fd's file into buf ("" if unknown), the process id in it (a run of digits
 * equal to it, as in libomp's /dev/shm/__KMP_REGISTERED_LIB_<pid>_0) written "{pid}": names
 * must not change from run to run. */
static void fd_path(int fd, char *buf, size_t cap)
{
    char link[32] = "/proc/self/fd/", *p = ms_utoa(link + 14, (uint64_t)fd);
    *p = 0;
    ssize_t n = readlink(link, buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
    char pid[24];
    size_t pid_len = (size_t)(ms_utoa(pid, (uint64_t)ms_runtime_pid()) - pid);
    for (size_t i = 0; buf[i]; i++) {
        if (buf[i] < '0' || buf[i] > '9' || (i && buf[i - 1] >= '0' && buf[i - 1] <= '9')) continue;
        size_t run = 0;
        while (buf[i + run] >= '0' && buf[i + run] <= '9') run++;
        if (run != pid_len || ms_strncmp(buf + i, pid, run) != 0) continue;
        size_t tail = ms_strlen(buf + i + run);
        if (i + 5 + tail >= cap) break;
        char *rest = buf + i + run;
        /* move the tail (overlapping, either direction) then write the marker */
        if (pid_len < 5)
            for (size_t k = tail + 1; k-- > 0;) buf[i + 5 + k] = rest[k];
        else
            for (size_t k = 0; k <= tail; k++) buf[i + 5 + k] = rest[k];
        ms_memcpy(buf + i, "{pid}", 5);
        i += 4;
    }
}

/* Register the new mapping [p, p+len) made at site. */
static void track(ms_thread *t, void *p, size_t len, int flags, int fd, uintptr_t site)
{
    uint8_t prev = ms_busy_begin();
    uint32_t bin;
    if ((flags & MAP_ANONYMOUS) || fd < 0) {
        bin = ms_bins_heap(t, site);
    } else {
        char path[1024];
        fd_path(fd, path, sizeof path);
        bin = ms_bins_mmap(t, site, path);
    }
    ms_regions_add((uintptr_t)p, len, bin, 0);
    ms_busy_end(prev);
}

static void *mmap_tracked(void *addr, size_t len, int prot, int flags, int fd, off_t off, uintptr_t site)
{
    resolve();
    if (program_call(&ms_tls)) ms_plug_sync(); /* pending plugin records see the old map */
    mmap_fn fn = __atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE);
    void *p = fn ? fn(addr, len, prot, flags, fd, off) : ms_sys_mmap(addr, len, prot, flags, fd, off);
    ms_thread *t = &ms_tls;
    if (p != MAP_FAILED && recording(t)) track(t, p, len, flags, fd, site);
    return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap_tracked(addr, len, prot, flags, fd, off, CALLER());
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap_tracked(addr, len, prot, flags, fd, off, CALLER());
}

int munmap(void *addr, size_t len)
{
    resolve();
    ms_thread *t = &ms_tls;
    if (program_call(t)) {
        ms_plug_sync(); /* pending plugin records still see the mapping (plugin.c) */
        uint8_t prev = ms_busy_begin();
        ms_regions_remove((uintptr_t)addr, len); /* before: the range may be reused at once */
        ms_busy_end(prev);
    }
    return real_munmap ? real_munmap(addr, len) : ms_sys_munmap(addr, len);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *want = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        want = va_arg(ap, void *);
        va_end(ap);
    }
    resolve();
    if (program_call(&ms_tls)) ms_plug_sync();
    void *p = real_mremap ? real_mremap(old, old_len, new_len, flags, want)
                          : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, want);
    ms_thread *t = &ms_tls;
    if (p == MAP_FAILED || !program_call(t)) return p;
    int rec = recording(t);
    uint8_t prev = ms_busy_begin();
    uint32_t bin = ms_regions_bin_of((uintptr_t)old);
    ms_regions_remove((uintptr_t)old, old_len);
    if (bin && rec) ms_regions_add((uintptr_t)p, new_len, bin, old_len ? old_len : 1); /* moved or grew */
    ms_busy_end(prev);
    return p;
}
