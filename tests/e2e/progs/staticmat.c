/* A matrix of static dimensions walked one column block (a line of 8 doubles) at a time,
 * each block reused REPS times: its 256 rows, 2048 bytes apart, fall on 16 lines of a 32 KiB
 * direct-mapped cache, so the block's 256 lines evict each other (self-interference) although
 * they would fit. Built with -DLD=264 its rows are 2112 bytes (33 lines) apart: the padded
 * program the advice proposes. Usage: staticmat [REPS] */
#include <stdio.h>
#include <stdlib.h>

#ifndef LD
#define LD 256
#endif
#define N 256

static double A[N][LD] __attribute__((aligned(64))); /* a block is one line of each row */

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 8;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) A[i][j] = (double)((i * 7 + j * 3) % 11);
    double s = 0;
    for (int jj = 0; jj < N; jj += 8)
        for (int r = 0; r < reps; r++)
            for (int i = 0; i < N; i++)
                for (int j = jj; j < jj + 8; j++) s += A[i][j];
    printf("LD=%d sum=%.1f\n", LD, s);
    return 0;
}
