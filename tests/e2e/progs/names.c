/* Data the user recognizes (tests/e2e/t_names.sh): a file mapped with mmap, an anonymous
 * mapping, a global pointer `frame` to a heap buffer, a const lookup table, and two
 * allocation statements that give the same name. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

char *frame;                  /* the 8-byte pointer; the heap buffer it holds is `frame` */
char *volatile sink;          /* keeps the buffers below alive at every optimisation level */
const char *banner = "a string literal: bytes of no named object";   /* const:names */

const int lookup[64] = {      /* read-only data */
    3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5,
    0, 2, 8, 8, 4, 1, 9, 7, 1, 6, 9, 3, 9, 9, 3, 7, 5, 1, 0, 5, 8, 2, 0, 9, 7, 4, 9, 4, 4, 5, 9, 2,
};

__attribute__((noinline)) static long first_pass(int n)
{
    char *buf = malloc((size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = (char)i;
    sink = buf;
    long s = 0;
    for (int i = 0; i < n; i++)
        s += buf[i];
    free(buf);
    return s;
}

__attribute__((noinline)) static long second_pass(int n)
{
    char *buf = malloc((size_t)n * 2);
    for (int i = 0; i < 2 * n; i++)
        buf[i] = (char)(i + 1);
    sink = buf;
    long s = 0;
    for (int i = 0; i < 2 * n; i++)
        s += buf[i];
    free(buf);
    return s;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "input.dat";
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    size_t n = (size_t)lseek(fd, 0, SEEK_END);
    const unsigned char *input = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (input == MAP_FAILED)
        return 1;
    long sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += input[i];

    double *scratch = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED)
        return 1;
    for (int i = 0; i < (1 << 13); i++)
        scratch[i] = i;

    frame = malloc(4096);
    for (int i = 0; i < 4096; i++)
        frame[i] = (char)lookup[i % 64];
    for (int i = 0; i < 4096; i++)
        sum += frame[i];

    sum += first_pass(1000) + second_pass(1000);
    for (const char *p = banner; *p; p++)
        sum += *p;
    /* the vDSO's ELF header: memory of no object of the program's (other:[vdso]) */
    const unsigned char *vdso = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
    for (int i = 0; vdso && i < 4; i++)
        sum += vdso[i];
    printf("sum=%ld scratch=%.0f\n", sum, scratch[100]);
    munmap((void *)input, n);
    munmap(scratch, 1 << 16);
    close(fd);
    return 0;
}
