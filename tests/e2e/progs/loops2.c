/* Two loop nests in one function (STREAM's shape: every kernel in main): the first streams
 * over a (1 pass), the second over b (3 passes), so the second holds about 3/4 of main's
 * stall. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

int main(void)
{
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    double s = 0;
    for (int i = 0; i < N; i++) /* LOOP1 */
        a[i] = i;
    for (int p = 0; p < 3; p++)     /* LOOP2 */
        for (int i = 0; i < N; i++) /* LOOP2-INNER */
            b[i] = a[i & 1023] + p;
    for (int i = 0; i < N; i += 4096) s += a[i] + b[i];
    printf("%g\n", s);
    free(a);
    free(b);
    return 0;
}
