/* A program whose own functions and variables carry names that memspy's runtime uses inside
 * (ms_map, ms_dump, ms_config_parse_text, ms_sys: an "ms" prefix is a common one, milliseconds
 * or a module's initials): they must neither clash with the runtime's at link time nor receive
 * its calls. Sums a 4096-double global table 8 times through its own ms_map; prints its own
 * functions' calls (9: ms_map 8 times, ms_dump once) and the sum. */
#include <stdio.h>
#include <string.h>

#define N 4096
double table[N];
long ms_sys;  /* the runtime's is a table of function pointers */
int ms_dump;  /* the runtime's is a function */

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
    int len = ms_config_parse_text("own");
    printf("own calls=%ld len=%d sum=%.0f\n", ms_sys + ms_dump, len, sum);
    return 0;
}
