/* Fixture for the compiler-wrapper tests: heap array filled here, summed in util.c. */
#include <stdio.h>
#include <stdlib.h>

long sum_scaled(const int *values, int count);

int main(int argc, char **argv) {
  (void)argv;
  int count = 100 * argc; /* 100 when run without arguments */
  int *values = malloc((size_t)count * sizeof *values);
  if (!values)
    return 1;
  for (int i = 0; i < count; i++)
    values[i] = i + 1;
  printf("sum=%ld\n", sum_scaled(values, count));
  free(values);
  return 0;
}
