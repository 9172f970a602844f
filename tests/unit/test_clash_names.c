/* Tests of ms_unique_data_names (analysis/databins.c): bins that share a name are told apart
 * by a frame where their call paths part, the program's frames before a library's, and #N
 * only where no frame does. */
#include "analysis/databins.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define LIB "heap:libstdc++.so.6:_M_mutate"
#define TAIL "_M_append (libstdc++.so.6)>_M_mutate (libstdc++.so.6)>" LIB

static void set(ms_data_bin *b, const char *full)
{
    const char *gt = strrchr(full, '>');
    b->name = strdup(gt ? gt + 1 : full);
    b->full_name = strdup(full);
}

/* leveldb's std::string growth: five blocks the library allocates from _M_mutate for
 * different callers; the innermost frames where two paths part are the library's own
 * (_M_append or _M_replace) and the system header's (append, assign) that every path goes
 * through: the program's caller tells them apart, by function where no other path calls it,
 * else by line (RandomGenerator also calls CompressibleString). */
static void test_library_paths(void)
{
    ms_data_bin b[5];
    memset(b, 0, sizeof b);
    set(&b[0], "ThreadBody:635>ReadRandom:857>MemTable::Get:125>assign:1630>_M_replace (libstdc++.so.6)>"
               "_M_mutate (libstdc++.so.6)>" LIB);
    set(&b[1], "ThreadBody:635>WriteRandom:791>RandomGenerator:173>append:1388>append:1422>" TAIL);
    set(&b[2],
        "ThreadBody:635>WriteRandom:791>RandomGenerator:172>CompressibleString:44>append:1388>append:1422>" TAIL);
    set(&b[3], "ThreadBody:635>ReadRandom:864>AddMessage:272>AppendWithSpace:227>append:1422>" TAIL);
    set(&b[4],
        "ThreadBody:635>WriteRandom:791>DoWrite:810>WriteBatch::Put:102>PutLengthPrefixedSlice:74>append:1422>" TAIL);
    CHECK_EQ(ms_unique_data_names(b, 5), 0);
    const char *want[5] = { LIB, LIB "@RandomGenerator:173", LIB "@CompressibleString", LIB "@AppendWithSpace",
                            LIB "@PutLengthPrefixedSlice" };
    for (int i = 0; i < 5; i++) {
        CHECK(strcmp(b[i].name, want[i]) == 0);
        if (strcmp(b[i].name, want[i]) != 0) fprintf(stderr, "bin %d: want %s, got %s\n", i, want[i], b[i].name);
        /* the full name ends with the new name */
        size_t fl = strlen(b[i].full_name), nl = strlen(b[i].name);
        CHECK(fl > nl && strcmp(b[i].full_name + fl - nl, b[i].name) == 0 && b[i].full_name[fl - nl - 1] == '>');
        CHECK(strchr(b[i].name, '#') == NULL);
    }
    for (int i = 0; i < 5; i++) {
        free(b[i].name);
        free(b[i].full_name);
    }
}

/* Two calls of one wrapper on one line: nothing tells them apart but #2. */
static void test_same_paths(void)
{
    ms_data_bin b[2];
    memset(b, 0, sizeof b);
    set(&b[0], "main:5>make:9>buf");
    set(&b[1], "main:5>make:9>buf");
    CHECK_EQ(ms_unique_data_names(b, 2), 0);
    CHECK(strcmp(b[0].name, "buf") == 0 && strcmp(b[1].name, "buf#2") == 0);
    for (int i = 0; i < 2; i++) {
        free(b[i].name);
        free(b[i].full_name);
    }
}

int main(void)
{
    test_library_paths();
    test_same_paths();
    return check_result();
}
