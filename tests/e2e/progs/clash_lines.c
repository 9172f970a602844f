/* Bins of one name told apart by function, the line only where two of one function would
 * clash (t_names_paths): every string is char*.buf of new_string; luaV_concat's own strings
 * were TString@luaV_concat:666 because the strings of luaO_tostring, which it calls, have it
 * on their path too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long total;

__attribute__((noinline)) static void consume(char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 64) total += s[i];
    free(s);
}

__attribute__((noinline)) static char *new_string(size_t n)
{
    char *buf = malloc(n);
    memset(buf, 1, n);
    return buf;
}

__attribute__((noinline)) static void parse(size_t n) { consume(new_string(n), n); }

__attribute__((noinline)) static void tostring(size_t n) { consume(new_string(2 * n), 2 * n); }

__attribute__((noinline)) static void concat(size_t n)
{
    consume(new_string(3 * n), 3 * n);
    tostring(n);
}

__attribute__((noinline)) static void run(size_t n)
{
    consume(new_string(4 * n), 4 * n);
    consume(new_string(5 * n), 5 * n);
    total++;
}

int main(int argc, char **argv)
{
    size_t n = argc > 5 ? (size_t)atoi(argv[1]) : 4096;
    parse(n);
    concat(n);
    run(n);
    printf("%ld\n", total);
    return 0;
}
