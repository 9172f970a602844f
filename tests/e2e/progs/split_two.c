/* An array of 32-byte structs (two to a 64-byte line) of which the hot loop (sum) reads two
 * fields, sum_x and n: 12 of every 32 bytes (37.5%). t_split.sh: the split advice names them
 * from DWARF, with the array at whatever phase malloc gives it in a line. */
#include <stdio.h>
#include <stdlib.h>

#define N 40000
#define PASSES 10

struct acc {
    double sum_x, sum_y;
    int n, id;
    double w;
};

__attribute__((noinline)) static double sum(const struct acc *accs)
{
    double s = 0;
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i++) s += accs[i].sum_x * accs[i].n;
    return s;
}

int main(void)
{
    struct acc *accs = malloc(N * sizeof *accs);
    if (!accs) return 1;
    for (int i = 0; i < N; i++) accs[i] = (struct acc){ i, 0, 1, i, 0 };
    printf("%.0f\n", sum(accs));
    return 0;
}
