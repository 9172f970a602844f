/* The runtime's own memory: mmap'd pages and a bump arena for small long-lived objects.
 * The program's malloc is never used, so the runtime can run inside malloc, in signal
 * handlers and before libc is initialised. Also libc-free string helpers: the runtime must
 * not call the string functions it interposes. */
#include "rt.h"
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The runtime maps its memory in a region of its own, far below where the kernel places the
 * program's mappings (top-down under the stack) and far above its brk heap. The program's
 * heap blocks and mmap'd arrays then get the addresses they get in a native run, so the
 * simulated set mappings do not depend on how much memory memspy itself uses. The region is
 * only a hint: if it is taken, the kernel chooses. */
#define RT_REGION_BASE ((uintptr_t)0x200000000000ull)
#define RT_REGION_END ((uintptr_t)0x400000000000ull)
#define PAGE ((uintptr_t)4096)

static uintptr_t region_next = RT_REGION_BASE;

/* System calls, not the mmap/munmap symbols: those are the program's (mmap.c records them). */
void *ms_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int ms_sys_munmap(void *addr, size_t len) { return (int)syscall(SYS_munmap, addr, len); }

void *ms_map_flags(size_t bytes, int extra_flags)
{
    size_t len = (bytes + PAGE - 1) & ~(PAGE - 1);
    uintptr_t hint = __atomic_fetch_add(&region_next, len, __ATOMIC_RELAXED);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | extra_flags;
    void *p = MAP_FAILED;
    if (hint + len <= RT_REGION_END)
        p = ms_sys_mmap((void *)hint, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) p = ms_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *ms_map(size_t bytes) { return ms_map_flags(bytes, 0); }

void *ms_map_file(int fd, size_t bytes)
{
    size_t len = (bytes + PAGE - 1) & ~(PAGE - 1);
    uintptr_t hint = __atomic_fetch_add(&region_next, len, __ATOMIC_RELAXED);
    void *p = MAP_FAILED;
    if (hint + len <= RT_REGION_END)
        p = ms_sys_mmap((void *)hint, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd, 0);
    if (p == MAP_FAILED) p = ms_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

int ms_is_runtime_memory(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a >= RT_REGION_BASE && a < __atomic_load_n(&region_next, __ATOMIC_RELAXED);
}

void ms_unmap(void *p, size_t bytes)
{
    if (p) ms_sys_munmap(p, bytes);
}

#define ARENA_BLOCK (1u << 20)
#define ARENA_BIG (64u << 10) /* larger requests get their own mapping */

static struct {
    char *cur, *end;
    volatile int lock;
} arena;

void *ms_arena_alloc(size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes >= ARENA_BIG) return ms_map(bytes);
    while (__atomic_exchange_n(&arena.lock, 1, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
    if ((size_t)(arena.end - arena.cur) < bytes) {
        char *block = ms_map(ARENA_BLOCK);
        if (!block) {
            __atomic_store_n(&arena.lock, 0, __ATOMIC_RELEASE);
            return NULL;
        }
        arena.cur = block;
        arena.end = block + ARENA_BLOCK;
    }
    void *p = arena.cur;
    arena.cur += bytes;
    __atomic_store_n(&arena.lock, 0, __ATOMIC_RELEASE);
    return p;
}

/* malloc for the runtime's own callees (libelf, dlsym) while the thread is BUSY: 16-byte
 * header holding the size, then zeroed arena memory. Freed blocks are not reused (these are
 * few and small), realloc copies. */
void *ms_internal_malloc(size_t bytes)
{
    size_t *h = ms_arena_alloc(bytes + 16);
    if (!h) return NULL;
    h[0] = bytes;
    return (char *)h + 16;
}

void *ms_internal_realloc(void *p, size_t bytes)
{
    void *q = ms_internal_malloc(bytes);
    if (q && p) {
        size_t old = ((size_t *)((char *)p - 16))[0];
        ms_memcpy(q, p, old < bytes ? old : bytes);
    }
    return q;
}

char *ms_arena_strdup(const char *s)
{
    size_t n = ms_strlen(s) + 1;
    char *p = ms_arena_alloc(n);
    if (p) ms_memcpy(p, s, n);
    return p;
}

char *ms_arena_strndup(const char *s, size_t n)
{
    char *p = ms_arena_alloc(n + 1);
    if (p) ms_memcpy(p, s, n);
    return p;
}

/* The simulator's allocator: big blocks are unmapped on release, small ones stay in the
 * arena (the simulator makes few, long-lived allocations). Memory is always zeroed. */
static void *sim_alloc(void *ud, size_t bytes)
{
    (void)ud;
    return ms_arena_alloc(bytes);
}

static void sim_release(void *ud, void *p, size_t bytes)
{
    (void)ud;
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes >= ARENA_BIG) ms_unmap(p, bytes);
}

const ms_allocator ms_sim_allocator = { sim_alloc, sim_release, NULL };

MS_NO_IDIOM size_t ms_strlen(const char *s)
{
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

MS_NO_IDIOM int ms_strncmp(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x != y) return x < y ? -1 : 1;
        if (!x) return 0;
    }
    return 0;
}

MS_NO_IDIOM void ms_memcpy(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    for (size_t i = 0; i < n; i++) dp[i] = sp[i];
}

char *ms_utoa(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}
