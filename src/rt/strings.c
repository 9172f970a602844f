/* Interposed libc memory/string functions. Work done inside libc is invisible to the
 * compiler's instrumentation, so the calls the program (and libstdc++) makes are caught
 * here: the real function runs (dlsym RTLD_NEXT, which also resolves IFUNCs; a byte loop
 * before that), then the bytes it actually read and wrote are recorded as range accesses
 * attributed to the caller's return address. Calls made while the thread is inside the
 * runtime are not recorded (ms_record checks the thread mode). A memcpy/memmove/memset that
 * plugin-instrumented code already recorded (gcc chose a call for a builtin) is not
 * recorded twice (ms_plug_claim). */
#include "rt.h"
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define RA() ((uintptr_t)__builtin_return_address(0))

static void *(*real_memcpy)(void *, const void *, size_t);
static void *(*real_memmove)(void *, const void *, size_t);
static void *(*real_memset)(void *, int, size_t);
static int (*real_memcmp)(const void *, const void *, size_t);
static int (*real_bcmp)(const void *, const void *, size_t);
static size_t (*real_strlen)(const char *);
static size_t (*real_strnlen)(const char *, size_t);
static char *(*real_strcpy)(char *, const char *);
static char *(*real_stpcpy)(char *, const char *);
static char *(*real_strncpy)(char *, const char *, size_t);
static char *(*real_strcat)(char *, const char *);
static char *(*real_strncat)(char *, const char *, size_t);
static int (*real_strcmp)(const char *, const char *);
static int (*real_strncmp)(const char *, const char *, size_t);
static char *(*real_strchr)(const char *, int);
static char *(*real_strrchr)(const char *, int);
static void *(*real_memchr)(const void *, int, size_t);
static char *(*real_strdup)(const char *);
static char *(*real_strndup)(const char *, size_t);

static const struct {
    const char *name;
    void **fn;
} reals[] = {
    { "memcpy", (void **)&real_memcpy },   { "memmove", (void **)&real_memmove }, { "memset", (void **)&real_memset },
    { "memcmp", (void **)&real_memcmp },   { "bcmp", (void **)&real_bcmp },       { "strlen", (void **)&real_strlen },
    { "strnlen", (void **)&real_strnlen }, { "strcpy", (void **)&real_strcpy },   { "stpcpy", (void **)&real_stpcpy },
    { "strncpy", (void **)&real_strncpy }, { "strcat", (void **)&real_strcat },   { "strncat", (void **)&real_strncat },
    { "strcmp", (void **)&real_strcmp },   { "strncmp", (void **)&real_strncmp }, { "strchr", (void **)&real_strchr },
    { "strrchr", (void **)&real_strrchr }, { "memchr", (void **)&real_memchr },   { "strdup", (void **)&real_strdup },
    { "strndup", (void **)&real_strndup },
};

void ms_strings_init(void)
{
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        void *fn = dlsym(RTLD_NEXT, reals[i].name);
        __atomic_store_n(reals[i].fn, fn, __ATOMIC_RELEASE);
    }
}

/* Whether the calling thread's accesses are recorded now (the cheap part of the check;
 * ms_record does the rest; never in MTOOL's runs, which simulate nothing). Extents below are only computed when this holds. */
static inline int recording(void)
{
    return ms_rt_on && !ms_count_only && (ms_tls.mode == MS_T_READY || ms_tls.mode == MS_T_NEW);
}

static void rd(const void *p, size_t n, uintptr_t pc) { ms_record_range((uintptr_t)p, n, 0, pc); }
static void wr(const void *p, size_t n, uintptr_t pc) { ms_record_range((uintptr_t)p, n, MS_EV_WRITE, pc); }

/* ---- byte loops used before the real functions are resolved, and extent helpers ---- */

MS_NO_IDIOM static void *loop_move(void *d, const void *s, size_t n)
{
    unsigned char *dp = d;
    const unsigned char *sp = s;
    if (dp < sp) {
        for (size_t i = 0; i < n; i++) dp[i] = sp[i];
    } else {
        for (size_t i = n; i > 0; i--) dp[i - 1] = sp[i - 1];
    }
    return d;
}

MS_NO_IDIOM static void *loop_set(void *d, int c, size_t n)
{
    unsigned char *dp = d;
    for (size_t i = 0; i < n; i++) dp[i] = (unsigned char)c;
    return d;
}

/* Bytes a comparison reads: up to and including the first difference (or NUL when
 * strings), at most n. */
MS_NO_IDIOM static size_t cmp_extent(const void *a, const void *b, size_t n, int strings)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i] || (strings && !x[i])) return i + 1;
    return n;
}

static int loop_cmp(const void *a, const void *b, size_t n, int strings)
{
    size_t k = cmp_extent(a, b, n, strings);
    if (k == 0) return 0;
    int d = ((const unsigned char *)a)[k - 1] - ((const unsigned char *)b)[k - 1];
    return d;
}

static size_t str_len(const char *s) { return real_strlen ? real_strlen(s) : ms_strlen(s); }

MS_NO_IDIOM static size_t str_nlen(const char *s, size_t n)
{
    if (real_strnlen) return real_strnlen(s, n);
    size_t i = 0;
    while (i < n && s[i]) i++;
    return i;
}

MS_NO_IDIOM static const void *loop_chr(const void *s, int c, size_t n, int strings, int last)
{
    const unsigned char *p = s;
    const void *found = NULL;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == (unsigned char)c) {
            found = p + i;
            if (!last) return found;
        }
        if (strings && !p[i]) break;
    }
    return found;
}

/* ---- memory ---- */

void *memcpy(void *d, const void *s, size_t n)
{
    void *r = real_memcpy ? real_memcpy(d, s, n) : loop_move(d, s, n);
    if (recording() && !ms_plug_claim((uintptr_t)d, (uintptr_t)s, n, 0)) rd(s, n, RA()), wr(d, n, RA());
    return r;
}

void *memmove(void *d, const void *s, size_t n)
{
    void *r = real_memmove ? real_memmove(d, s, n) : loop_move(d, s, n);
    if (recording() && !ms_plug_claim((uintptr_t)d, (uintptr_t)s, n, 0)) rd(s, n, RA()), wr(d, n, RA());
    return r;
}

void *memset(void *d, int c, size_t n)
{
    void *r = real_memset ? real_memset(d, c, n) : loop_set(d, c, n);
    if (recording() && !ms_plug_claim((uintptr_t)d, 0, n, 1)) wr(d, n, RA());
    return r;
}

int memcmp(const void *a, const void *b, size_t n)
{
    int r = real_memcmp ? real_memcmp(a, b, n) : loop_cmp(a, b, n, 0);
    if (recording()) {
        size_t k = cmp_extent(a, b, n, 0);
        rd(a, k, RA()), rd(b, k, RA());
    }
    return r;
}

int bcmp(const void *a, const void *b, size_t n)
{
    int r = real_bcmp ? real_bcmp(a, b, n) : loop_cmp(a, b, n, 0);
    if (recording()) {
        size_t k = cmp_extent(a, b, n, 0);
        rd(a, k, RA()), rd(b, k, RA());
    }
    return r;
}

void *memchr(const void *s, int c, size_t n)
{
    void *r = real_memchr ? real_memchr(s, c, n) : (void *)loop_chr(s, c, n, 0, 0);
    if (recording()) rd(s, r ? (size_t)((const char *)r - (const char *)s) + 1 : n, RA());
    return r;
}

/* ---- strings ---- */

size_t strlen(const char *s)
{
    size_t n = str_len(s);
    if (recording()) rd(s, n + 1, RA());
    return n;
}

size_t strnlen(const char *s, size_t max)
{
    size_t n = str_nlen(s, max);
    if (recording()) rd(s, n < max ? n + 1 : max, RA());
    return n;
}

char *strcpy(char *d, const char *s)
{
    size_t n = str_len(s) + 1;
    char *r = real_strcpy ? real_strcpy(d, s) : loop_move(d, s, n);
    if (recording()) rd(s, n, RA()), wr(d, n, RA());
    return r;
}

char *stpcpy(char *d, const char *s)
{
    size_t n = str_len(s);
    char *r = real_stpcpy ? real_stpcpy(d, s) : (char *)loop_move(d, s, n + 1) + n;
    if (recording()) rd(s, n + 1, RA()), wr(d, n + 1, RA());
    return r;
}

char *strncpy(char *d, const char *s, size_t n)
{
    size_t m = str_nlen(s, n);
    char *r = d;
    if (real_strncpy) {
        r = real_strncpy(d, s, n);
    } else {
        loop_move(d, s, m);
        loop_set(d + m, 0, n - m);
    }
    if (recording()) rd(s, m < n ? m + 1 : n, RA()), wr(d, n, RA());
    return r;
}

char *strcat(char *d, const char *s)
{
    size_t dl = str_len(d), sl = str_len(s);
    char *r = real_strcat ? real_strcat(d, s) : (loop_move(d + dl, s, sl + 1), d);
    if (recording()) rd(d, dl + 1, RA()), rd(s, sl + 1, RA()), wr(d + dl, sl + 1, RA());
    return r;
}

char *strncat(char *d, const char *s, size_t n)
{
    size_t dl = str_len(d), m = str_nlen(s, n);
    char *r = d;
    if (real_strncat) {
        r = real_strncat(d, s, n);
    } else {
        loop_move(d + dl, s, m);
        d[dl + m] = 0;
    }
    if (recording()) rd(d, dl + 1, RA()), rd(s, m < n ? m + 1 : n, RA()), wr(d + dl, m + 1, RA());
    return r;
}

int strcmp(const char *a, const char *b)
{
    int r = real_strcmp ? real_strcmp(a, b) : loop_cmp(a, b, (size_t)-1, 1);
    if (recording()) {
        size_t k = cmp_extent(a, b, (size_t)-1, 1);
        rd(a, k, RA()), rd(b, k, RA());
    }
    return r;
}

int strncmp(const char *a, const char *b, size_t n)
{
    int r = real_strncmp ? real_strncmp(a, b, n) : loop_cmp(a, b, n, 1);
    if (recording()) {
        size_t k = cmp_extent(a, b, n, 1);
        rd(a, k, RA()), rd(b, k, RA());
    }
    return r;
}

char *strchr(const char *s, int c)
{
    char *r = real_strchr ? real_strchr(s, c) : (char *)loop_chr(s, c, (size_t)-1, 1, 0);
    if (recording()) rd(s, r ? (size_t)(r - s) + 1 : str_len(s) + 1, RA());
    return r;
}

char *strrchr(const char *s, int c)
{
    char *r = real_strrchr ? real_strrchr(s, c) : (char *)loop_chr(s, c, (size_t)-1, 1, 1);
    if (recording()) rd(s, str_len(s) + 1, RA());
    return r;
}

/* strdup/strndup: the malloc inside them is attributed to the caller (pending site). */
static int set_site(uintptr_t site)
{
    if (!ms_rt_on || ms_tls.pending_site) return 0;
    ms_tls.pending_site = site;
    return 1;
}

char *strdup(const char *s)
{
    int mine = set_site(RA());
    size_t n = str_len(s) + 1;
    char *r = real_strdup ? real_strdup(s) : malloc(n);
    if (r && !real_strdup) loop_move(r, s, n);
    if (mine) ms_tls.pending_site = 0;
    if (recording()) {
        rd(s, n, RA());
        if (r) wr(r, n, RA());
    }
    return r;
}

char *strndup(const char *s, size_t max)
{
    int mine = set_site(RA());
    size_t m = str_nlen(s, max);
    char *r = real_strndup ? real_strndup(s, max) : malloc(m + 1);
    if (r && !real_strndup) {
        loop_move(r, s, m);
        r[m] = 0;
    }
    if (mine) ms_tls.pending_site = 0;
    if (recording()) {
        rd(s, m < max ? m + 1 : max, RA());
        if (r) wr(r, m + 1, RA());
    }
    return r;
}
