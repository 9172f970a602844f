/* A program whose own functions and variables carry names that memspy's runtime uses inside
 * (ms_map, ms_dump, ms_config_parse_text, ms_sys: an "ms" prefix is a common one, milliseconds
 * or a module's initials) or calls in libelf and libdw (elf_begin, dwarf_tag, with other
 * signatures, as a program with its own copy of elfutils might): they must neither clash with
 * the runtime's at link time nor receive its calls, nor libdw's calls of libelf (elf_nextscn,
 * which a build with -rdynamic exports). Sums a 4096-double global table 8 times through its
 * own ms_map, and a stack array of main's (named from the DWARF that libdw reads); prints its
 * own functions' calls (9: ms_map 8 times, ms_dump once; elf=3: its own elf_begin, dwarf_tag
 * and elf_nextscn once each) and the sums. */
#include <stdio.h>
#include <string.h>

#define N 4096
double table[N];
long ms_sys; /* the runtime's is a table of function pointers */
int ms_dump; /* the runtime's is a function */
static int own_elf;

/* libelf's opens an ELF file (the runtime reads the program's symbol table with it). */
int elf_begin(int fd)
{
    own_elf++;
    return fd + 1;
}

/* libdw's gives a DIE's tag (the runtime reads stack variables with it). */
int dwarf_tag(const char *die)
{
    own_elf++;
    return die ? die[0] : -1;
}

/* libelf's steps through an ELF file's sections (libdw calls it when it reads the DWARF):
 * here no section at all. */
void *elf_nextscn(void *elf, void *scn)
{
    own_elf++;
    return elf == scn ? NULL : scn;
}

/* Adds n ints of v up (main's stack array). */
__attribute__((noinline)) static long sum_ints(const int *v, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

/* Adds the table up (the runtime's ms_map maps memory). */
double ms_map(const double *t, int n)
{
    double s = 0;
    ms_sys++;
    for (int i = 0; i < n; i++) s += t[i];
    return s;
}

/* The runtime's parses its cache configuration. */
int ms_config_parse_text(const char *text)
{
    ms_dump++;
    return (int)strlen(text);
}

int main(void)
{
    for (int i = 0; i < N; i++) table[i] = i % 7;
    double sum = 0;
    for (int pass = 0; pass < 8; pass++) sum += ms_map(table, N);
    int len = ms_config_parse_text("own") + elf_begin(0) + dwarf_tag("") + (elf_nextscn(NULL, NULL) != NULL);
    int window[512];
    for (int i = 0; i < 512; i++) window[i] = i;
    long wsum = sum_ints(window, 512);
    printf("own calls=%ld elf=%d len=%d sum=%.0f window=%ld\n", ms_sys + ms_dump, own_elf, len, sum, wsum);
    return 0;
}
