/* Fixture: a global read in a loop (instrumented reads at every -O level). */
int scale = 3;

long sum_scaled(const int *values, int count) {
  long sum = 0;
  for (int i = 0; i < count; i++)
    sum += (long)values[i] * scale;
  return sum;
}
