/* Reads its standard input to the end and prints the bytes read and a checksum made over each
 * chunk ROUNDS times (argument 1, default 200: long enough for memspy mtool's sampler); exits 3
 * when it read nothing (t_mtool: both of memspy mtool's runs must read the same input). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    static unsigned char buf[1 << 16];
    unsigned long n = 0, sum = 0;
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, stdin)) > 0)
        for (int r = 0; r < rounds; r++)
            for (size_t i = 0; i < k; i++) {
                sum = sum * 31 + buf[i];
                n += r == 0;
            }
    printf("%lu %lu\n", n, sum);
    return n ? 0 : 3;
}
