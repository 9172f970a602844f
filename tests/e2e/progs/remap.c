/* An anonymous mapping that grows with mremap and loses a page range in the middle
 * (tests/e2e/t_names.sh): one bin, char*.area, for all of it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
int main(void)
{
    size_t n = 1 << 16;
    char *area = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < n; i++) area[i] = (char)i;
    area = mremap(area, n, 4 * n, MREMAP_MAYMOVE);
    for (size_t i = 0; i < 4 * n; i++) area[i] += 1;
    munmap(area + n, n);            /* a hole: the region is cut in two */
    long s = 0;
    for (size_t i = 0; i < n; i++) s += area[i] + area[2 * n + i];
    printf("%ld\n", s);
    munmap(area, 4 * n);
    return 0;
}
