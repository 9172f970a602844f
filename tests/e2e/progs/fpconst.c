/* Floating-point constants that -O0 code loads from .rodata at each use (t_real_names): no
 * symbol names them, and they may share a 16-byte granule with _IO_stdin_used. */
#include <stdio.h>
int main(void)
{
    double s = 0;
    for (int i = 0; i < 100000; i++) s = s * 0.999 + 1.5;
    printf("%.3f\n", s);
    return 0;
}
