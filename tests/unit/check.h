/* A tiny test framework: a failing CHECK prints file:line, the test function it is in, and the
 * expected and actual values, and marks the test failed; end main with `return check_result();`.
 * Header-only. */
#ifndef MEMSPY_TEST_CHECK_H
#define MEMSPY_TEST_CHECK_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

/* 0 if every check passed, 1 otherwise (the test's exit status). */
static inline int check_result(void)
{
    if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures);
    return check_failures ? 1 : 0;
}

static inline void check_fail_u64(const char *file, int line, const char *func, const char *expr, uint64_t want,
                                  uint64_t got)
{
    fprintf(stderr, "%s:%d: in %s: CHECK_EQ(%s): expected %" PRIu64 ", got %" PRIu64 "\n", file, line, func, expr, want,
            got);
    check_failures++;
}

static inline void check_fail_i64(const char *file, int line, const char *func, const char *expr, int64_t want,
                                  int64_t got)
{
    fprintf(stderr, "%s:%d: in %s: CHECK_EQ(%s): expected %" PRId64 ", got %" PRId64 "\n", file, line, func, expr, want,
            got);
    check_failures++;
}

/* Unsigned equality (values converted to uint64_t). */
#define CHECK_EQ(got, want)                                                                                         \
    do {                                                                                                            \
        uint64_t check_got_ = (uint64_t)(got), check_want_ = (uint64_t)(want);                                      \
        if (check_got_ != check_want_) check_fail_u64(__FILE__, __LINE__, __func__, #got, check_want_, check_got_); \
    } while (0)

/* Signed equality (values converted to int64_t). */
#define CHECK_EQ_INT(got, want)                                                                                     \
    do {                                                                                                            \
        int64_t check_got_ = (int64_t)(got), check_want_ = (int64_t)(want);                                         \
        if (check_got_ != check_want_) check_fail_i64(__FILE__, __LINE__, __func__, #got, check_want_, check_got_); \
    } while (0)

/* String equality (NULL compares as "(null)"). */
#define CHECK_STR(got, want)                                                                                   \
    do {                                                                                                       \
        const char *check_got_ = (got), *check_want_ = (want);                                                 \
        if (!check_got_ || !check_want_ || strcmp(check_got_, check_want_) != 0) {                             \
            fprintf(stderr, "%s:%d: in %s: CHECK_STR(%s): expected \"%s\", got \"%s\"\n", __FILE__, __LINE__,  \
                    __func__, #got, check_want_ ? check_want_ : "(null)", check_got_ ? check_got_ : "(null)"); \
            check_failures++;                                                                                  \
        }                                                                                                      \
    } while (0)

/* got contains the substring want. */
#define CHECK_CONTAINS(got, want)                                                                                     \
    do {                                                                                                              \
        const char *check_got_ = (got), *check_want_ = (want);                                                        \
        if (!check_got_ || !strstr(check_got_, check_want_)) {                                                        \
            fprintf(stderr, "%s:%d: in %s: CHECK_CONTAINS(%s): \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                    __func__, #got, check_got_ ? check_got_ : "(null)", check_want_);                                 \
            check_failures++;                                                                                         \
        }                                                                                                             \
    } while (0)

/* A condition that must hold. */
#define CHECK(cond)                                                                                   \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "%s:%d: in %s: CHECK(%s) failed\n", __FILE__, __LINE__, __func__, #cond); \
            check_failures++;                                                                         \
        }                                                                                             \
    } while (0)

#endif
