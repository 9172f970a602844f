/* Touches an array (enough accesses for several event buffers), then prints how many tasks
 * (threads) the process has: memspy's simulator thread is one of them when it runs. */
#include <dirent.h>
#include <stdio.h>

static double a[1 << 16];

int main(void)
{
    double sum = 0;
    for (int pass = 0; pass < 4; pass++)
        for (int i = 0; i < (1 << 16); i++)
            sum += a[i] += i;
    int tasks = 0;
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));)
        tasks += e->d_name[0] != '.';
    if (d)
        closedir(d);
    printf("sum=%.0f tasks=%d\n", sum, tasks);
    return 0;
}
