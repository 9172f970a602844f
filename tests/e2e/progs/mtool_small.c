/* MTOOL on a small function called once per element (tests/e2e/t_mtool_small.sh,
 * docs/mtool.md): put_bits packs codes of 3 to 15 bits into a 4 KiB output buffer, like gzip's
 * send_bits; every datum fits in L1, so the estimate should be the measured time. Its blocks
 * are a few instructions each, entered once per call through the prologue's pushes and left
 * through the epilogue's pops. Usage: mtool_small REPS */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

static unsigned bitbuf, outn;
static int bitcnt;
static unsigned char out[4096];

__attribute__((noinline)) void put_bits(unsigned value, int len)
{
    if (bitcnt > 16 - len) {
        bitbuf |= value << bitcnt;
        out[outn++ & 4095] = (unsigned char)bitbuf;
        out[outn++ & 4095] = (unsigned char)(bitbuf >> 8);
        bitbuf = (value & 0xffff) >> (16 - bitcnt);
        bitcnt += len - 16;
    } else {
        bitbuf |= value << bitcnt;
        bitcnt += len;
    }
}

__attribute__((noinline)) void encode(const unsigned short *codes, const unsigned char *lens, long reps)
{
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < N; i++) put_bits(codes[i], lens[i]);
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 1000;
    static unsigned short codes[N];
    static unsigned char lens[N];
    for (int i = 0; i < N; i++) {
        lens[i] = (unsigned char)(3 + (i * 7) % 13);
        codes[i] = (unsigned short)((i * 40503u) & ((1u << lens[i]) - 1));
    }
    encode(codes, lens, reps);
    unsigned sum = 0;
    for (int i = 0; i < 4096; i++) sum = sum * 31 + out[i];
    printf("%u %u\n", sum, outn);
    return 0;
}
