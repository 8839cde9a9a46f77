/* Decisions of several conditions, for MC/DC bitmap bytes
   (-fcoverage-mcdc): "mcdc N" tests N values. */
#include <stdio.h>
#include <stdlib.h>

static int decide(int a, int b, int c) {
  if ((a > 2 && b % 2) || c == 3)
    return 1;
  if (a == b && (b != c || a < 0))
    return 2;
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10, sum = 0;
  for (int i = 0; i < n; ++i)
    sum += decide(i % 5, i % 3, i % 7);
  printf("%d\n", sum);
  return 0;
}
