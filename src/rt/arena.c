/* The runtime's own memory: mmap'd pages and a bump arena for small long-lived objects.
 * The program's malloc is never used, so the runtime can run inside malloc, in signal
 * handlers and before libc is initialised. Also libc-free string helpers: the runtime must
 * not call the string functions it interposes. */
#include "rt.h"
#include <sys/mman.h>

void *ms_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void ms_unmap(void *p, size_t bytes) {
    if (p) munmap(p, bytes);
}

#define ARENA_BLOCK (1u << 20)
#define ARENA_BIG (64u << 10)   /* larger requests get their own mapping */

static struct {
    char *cur, *end;
    volatile int lock;
} arena;

void *ms_arena_alloc(size_t bytes) {
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

char *ms_arena_strdup(const char *s) {
    size_t n = ms_strlen(s) + 1;
    char *p = ms_arena_alloc(n);
    if (p) ms_memcpy(p, s, n);
    return p;
}

/* The simulator's allocator: big blocks are unmapped on release, small ones stay in the
 * arena (the simulator makes few, long-lived allocations). Memory is always zeroed. */
static void *sim_alloc(void *ud, size_t bytes) {
    (void)ud;
    return ms_arena_alloc(bytes);
}

static void sim_release(void *ud, void *p, size_t bytes) {
    (void)ud;
    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes >= ARENA_BIG) ms_unmap(p, bytes);
}

const ms_allocator ms_sim_allocator = {sim_alloc, sim_release, NULL};

MS_NO_IDIOM size_t ms_strlen(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

MS_NO_IDIOM int ms_strncmp(const char *a, const char *b, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x != y) return x < y ? -1 : 1;
        if (!x) return 0;
    }
    return 0;
}

MS_NO_IDIOM void ms_memcpy(void *d, const void *s, size_t n) {
    unsigned char *dp = d;
    const unsigned char *sp = s;
    for (size_t i = 0; i < n; i++) dp[i] = sp[i];
}

char *ms_utoa(char *p, uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}
